//! Spare buffers for big lines: the memory of a large answer, kept once it
//! was written to the app, for the next large line the bridge makes.
//!
//! A tool's result of a megabyte arrives as one line, and the bridge writes
//! it out again with the app's own id in it, so every such answer used to
//! be a fresh allocation of its size. glibc serves those from `mmap`, so
//! each one was faulted in page by page, zeroed by the kernel, and handed
//! back with `munmap` when written: about 8 page faults per 1 MiB answer,
//! and the largest single cost of the bridge's own on that path (`perf
//! record`; see BENCHMARKS.md). Reusing the buffer costs a lock and nothing
//! else. Small lines are left to the allocator, which serves them well, and
//! only a few megabytes are ever kept, so one huge answer does not stay in
//! memory after it has gone.
//!
//! What is not here: the lines themselves (`route`), and writing them
//! (`relay`).

use std::sync::{Mutex, PoisonError};

/// Lines shorter than this are allocated as usual.
pub const BIG: usize = 64 * 1024;

/// The most bytes of spare buffers kept at any time.
const KEEP: usize = 4 * 1024 * 1024;

static SPARE: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

/// An empty buffer with room for at least `len` bytes: a spare one when
/// the line is big and one is kept, a new one otherwise.
pub fn take(len: usize) -> Vec<u8> {
    if len >= BIG {
        let mut spare = SPARE.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(at) = spare.iter().position(|b| b.capacity() >= len) {
            let mut buffer = spare.swap_remove(at);
            buffer.clear();
            return buffer;
        }
    }
    Vec::with_capacity(len)
}

/// Keeps a written line's buffer for [`take`], if it is big and there is
/// room for it among the spares; otherwise it is freed.
pub fn give(mut buffer: Vec<u8>) {
    let size = buffer.capacity();
    if !(BIG..=KEEP).contains(&size) {
        return;
    }
    let mut spare = SPARE.lock().unwrap_or_else(PoisonError::into_inner);
    let kept: usize = spare.iter().map(Vec::capacity).sum();
    if kept + size <= KEEP {
        buffer.clear();
        spare.push(buffer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_big_buffer_given_back_is_taken_again_and_small_or_huge_ones_are_not_kept() {
        let mut line = take(1 << 20);
        line.extend_from_slice(&[b'x'; 1 << 20]);
        let at = line.as_ptr();
        give(line);
        let again = take((1 << 20) - 10);
        assert!(again.is_empty(), "a spare comes back empty");
        assert_eq!(again.as_ptr(), at, "the same memory is used again");
        give(again);

        let small = take(100);
        assert!(small.capacity() < BIG);
        give(small);
        give(Vec::with_capacity(KEEP + 1));
        let kept: Vec<usize> = SPARE
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(Vec::capacity)
            .collect();
        assert!(kept.iter().all(|&c| (BIG..=KEEP).contains(&c)), "{kept:?}");
        assert!(kept.iter().sum::<usize>() <= KEEP, "{kept:?}");
    }
}
