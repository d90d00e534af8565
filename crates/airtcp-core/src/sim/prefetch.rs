//! Cache prefetch hints for the event loop.
//!
//! With many flows, each event touches the state of one flow that was last
//! used hundreds of thousands of events earlier, so that state comes from
//! memory: about 175 ns per dependent miss on the project machine (a
//! pointer chase over 512 MB), against about 100 ns for all the rest of an
//! event. The loop knows its next events before it handles them
//! (`EventQueue::upcoming`); hinting their state into cache while the
//! current event runs overlaps those misses with work. A hint never
//! changes a result.

/// Lines hinted at most per object (a sender is 15).
const MAX_LINES: usize = 16;

/// Ask the CPU to bring `value` (up to `MAX_LINES` cache lines of it) into
/// cache.
#[inline(always)]
pub fn prefetch<T: ?Sized>(value: &T) {
    prefetch_head(value, MAX_LINES)
}

/// Ask the CPU to bring the lines holding the first `bytes` bytes of
/// `value` into cache (at most `MAX_LINES`): for a struct whose hot fields
/// come first and whose type says how many bytes they take.
#[inline(always)]
pub fn prefetch_bytes<T: ?Sized>(value: &T, bytes: usize) {
    let offset = value as *const T as *const u8 as usize % 64;
    let lines = (offset + bytes.min(std::mem::size_of_val(value))).div_ceil(64);
    prefetch_head(value, lines.clamp(1, MAX_LINES))
}

/// Ask the CPU to bring the first `lines` cache lines of `value` into
/// cache (for a struct whose hot fields come first). A no-op on targets
/// without a prefetch instruction.
#[inline(always)]
pub fn prefetch_head<T: ?Sized>(value: &T, lines: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start = value as *const T as *const i8;
        // Nothing for a zero-sized value (a stateless strategy's box, whose
        // address is no memory's).
        let lines = std::mem::size_of_val(value).div_ceil(64).min(lines);
        for i in 0..lines {
            // SAFETY: a prefetch is a hint: it never faults and never
            // changes memory. The addresses are inside a live object.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(i * 64)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (value, lines);
}
