//! Large stacks for parsing and lowering.
//!
//! `syn`, the lowering and a syntax tree's destructor recurse once per level of nesting; the
//! 2 MiB of a default worker thread overflow at a few hundred levels in a debug build, and a
//! stack overflow aborts the process. Files are therefore parsed and lowered on threads with
//! [`STACK_BYTES`] of stack (only the pages a recursion touches are ever committed), and Rust
//! files nested past [`crate::frontend::rust::MAX_NESTING`] are not parsed at all.

use std::sync::OnceLock;

/// The stack of every thread that parses or lowers a file.
pub(crate) const STACK_BYTES: usize = 256 << 20;

/// The worker pool the checks run on: rayon's default size, threads with [`STACK_BYTES`] of
/// stack. `None` if no such pool could be built (then rayon's global pool is used).
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("placer-worker-{i}"))
            .stack_size(STACK_BYTES)
            .build()
            .ok()
    })
    .as_ref()
}

/// Runs `f` (which may use rayon's parallel iterators) on the large-stack pool.
pub(crate) fn in_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match pool() {
        Some(p) => p.install(f),
        None => f(),
    }
}

/// Runs `f` on a thread of its own with [`STACK_BYTES`] of stack, or on this one if no thread
/// can be had.
pub(crate) fn on_large_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let mut f = Some(f);
    let mut out = None;
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("placer-parse".to_string())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, || (f.take().expect("taken once"))());
        if let Ok(handle) = spawned {
            match handle.join() {
                Ok(r) => out = Some(r),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    match out {
        Some(r) => r,
        None => (f.take().expect("not run"))(),
    }
}

thread_local! {
    /// Whether this thread is inside [`guarded`]: its panics are caught and reported there.
    static GUARDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f`, turning a panic in it into an error message: for third-party parsers that panic on
/// some inputs (`ruff_python_parser` 0.0.10 reaches an `unreachable!` on an `IPython` escape after
/// a syntax error), so that the file gets a finding and the run goes on. The panic is not
/// printed (the previous panic hook still prints every other one).
pub(crate) fn guarded<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    static HOOK: OnceLock<()> = OnceLock::new();
    HOOK.get_or_init(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !GUARDED.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
    let was = GUARDED.with(|g| g.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(was));
    result.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(ToString::to_string)
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown error".to_string())
    })
}
