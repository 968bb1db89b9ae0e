//! The runtime's random number generator (splitmix64 seeding xoshiro256++), shared by all
//! threads. Not cryptographic.

use crate::error::Result;
use crate::storage::cpu::try_vec;
use std::sync::atomic::{AtomicU64, Ordering};

static SEED: AtomicU64 = AtomicU64::new(0x853c_49e6_748f_ea9b);

/// Seeds the generator behind [`Tensor::rand`](crate::Tensor::rand) and
/// [`Tensor::randn`](crate::Tensor::randn), as `torch.manual_seed`. After the same seed the
/// same sequence of factory calls gives the same values.
pub fn manual_seed(seed: u64) {
    SEED.store(seed, Ordering::SeqCst);
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

struct Xoshiro([u64; 4]);

impl Xoshiro {
    fn new() -> Self {
        // Each factory call takes the next seed, so calls give independent streams.
        let mut s = SEED.fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::SeqCst);
        Xoshiro([
            splitmix(&mut s),
            splitmix(&mut s),
            splitmix(&mut s),
            splitmix(&mut s),
        ])
    }

    fn next_u64(&mut self) -> u64 {
        let s = &mut self.0;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform on [0, 1) with 24 random bits.
    #[allow(clippy::cast_precision_loss)]
    fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// `n` uniform samples, allocated fallibly ([`Error::OutOfMemory`](crate::Error::OutOfMemory)).
pub(crate) fn uniform(n: usize) -> Result<Vec<f32>> {
    let mut r = Xoshiro::new();
    let mut out = try_vec("rand", n)?;
    out.extend((0..n).map(|_| r.next_f32()));
    Ok(out)
}

/// `n` standard normal samples, allocated fallibly.
pub(crate) fn normal(n: usize) -> Result<Vec<f32>> {
    let mut r = Xoshiro::new();
    let mut out = try_vec("randn", n.saturating_add(1))?;
    while out.len() < n {
        // Box-Muller; 1 - u keeps the log argument in (0, 1].
        let u1 = 1.0 - r.next_f32();
        let u2 = r.next_f32();
        let radius = (-2.0 * u1.ln()).sqrt();
        let theta = std::f32::consts::TAU * u2;
        out.push(radius * theta.cos());
        out.push(radius * theta.sin());
    }
    out.truncate(n);
    Ok(out)
}
