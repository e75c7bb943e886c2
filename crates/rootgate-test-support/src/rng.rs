//! A small seeded random number generator for the randomised integration
//! tests (durability, load), and how those tests choose their seed and their
//! size from the environment.
//!
//! It is SplitMix64: a few lines, no dependency, and the same sequence for
//! the same seed on every machine and every version, so a seed printed by a
//! failing run replays the same choices. It is not for anything secret.
//! Timing (how the operating system schedules processes) still differs
//! between runs; the seed fixes what is done, not when each step lands.

/// SplitMix64 (Steele, Lea and Flood, 2014).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0). The modulo bias is irrelevant at the
    /// sizes tests use.
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "below(0)");
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `percent` / 100.
    pub fn percent(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The seed from environment variable `var` (decimal or 0x-hex), or a fresh
/// one from the clock and the process id.
pub fn seed_from_env(var: &str) -> u64 {
    if let Ok(text) = std::env::var(var) {
        let text = text.trim();
        let parsed = match text.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => text.parse(),
        };
        return parsed.unwrap_or_else(|e| panic!("{var}={text:?} is not a seed: {e}"));
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or_default();
    Rng::new(nanos ^ u64::from(std::process::id()).rotate_left(32)).next_u64()
}

/// A count from environment variable `var`, or `default` when it is unset.
pub fn count_from_env(var: &str, default: usize) -> usize {
    match std::env::var(var) {
        Ok(text) => text
            .trim()
            .replace('_', "")
            .parse()
            .unwrap_or_else(|e| panic!("{var}={text:?} is not a count: {e}")),
        Err(_) => default,
    }
}
