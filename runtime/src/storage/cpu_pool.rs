//! A small pool of large f32 host buffers, so that elementwise ops in a loop reuse the memory
//! of tensors that were just dropped instead of faulting in fresh pages (the CPU analogue of a
//! caching allocator; fresh pages cost more than the arithmetic of an add).

use std::sync::Mutex;

/// Buffers below this many elements go back to the system allocator.
pub(crate) const MIN_POOLED: usize = 1 << 18;
/// At most this many buffers are kept.
const MAX_BUFFERS: usize = 8;

static POOL: Mutex<Vec<Vec<f32>>> = Mutex::new(Vec::new());

/// A buffer of exactly `n` initialised elements (stale values) whose capacity is between `n`
/// and `2n`, if the pool has one.
pub(crate) fn take_f32(n: usize) -> Option<Vec<f32>> {
    if n < MIN_POOLED {
        return None;
    }
    let mut pool = POOL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let i = pool
        .iter()
        .position(|v| v.len() >= n && v.capacity() <= 2 * n)?;
    let mut v = pool.swap_remove(i);
    v.truncate(n);
    Some(v)
}

/// Returns a buffer to the pool (dropped if small or the pool is full).
pub(crate) fn give_f32(v: Vec<f32>) {
    if v.len() < MIN_POOLED {
        return;
    }
    let mut pool = POOL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if pool.len() >= MAX_BUFFERS {
        pool.remove(0);
    }
    pool.push(v);
}

/// Drops every pooled buffer.
pub(crate) fn clear() {
    POOL.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clear();
}
