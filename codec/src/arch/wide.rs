//! The block masks of long strings with wider vectors than the x86_64 baseline, picked at
//! run time: with `text`, the only `unsafe` code in Janus.
//!
//! Long strings (tool results, arguments, base64 images) are most of the bytes a server reads,
//! and their scan is bound by vector width: SSE2 makes the masks of a 64-byte block from four
//! 16-byte compares, AVX2 from two 32-byte ones, AVX-512BW from one that yields the masks
//! directly.
//! The x86_64 baseline has neither, so the code that uses them is compiled with
//! `#[target_feature]`, and calling such a function is `unsafe`: the caller must know the CPU
//! has the feature.
//! [`Wide`] is that knowledge as a value: only [`Wide::detect`] makes one, after the standard
//! library's run-time check, so holding one is the proof each call below needs.
//! The scan itself is a safe [`BlockScan`] (the scanner's string scan), inlined into each
//! `#[target_feature]` function with that function's block masks; nothing else differs
//! between the paths.
//! The README's "How the codec gets there" gives what this gains.
//!
//! Build with `RUSTFLAGS="--cfg janus_codec_safe"` to leave this module out and use the SSE2
//! path everywhere.
#![allow(unsafe_code)]

use super::BlockScan;
use core::arch::x86_64::{
    __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_min_epu8, _mm256_movemask_epi8,
    _mm256_or_si256, _mm256_set1_epi8, _mm256_xor_si256, _mm512_cmpeq_epi8_mask,
    _mm512_cmple_epu8_mask, _mm512_loadu_si512, _mm512_set1_epi8, _mm512_xor_si512,
};

/// A vector extension the CPU running this process has.
///
/// INVARIANT: only [`Wide::detect`] makes one, and only for an extension the CPU has; every
/// `unsafe` call in this module relies on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wide {
    /// AVX-512BW (64-byte compares into mask registers).
    Avx512,
    /// AVX2 (32-byte compares).
    Avx2,
}

impl Wide {
    /// The widest extension the CPU has, if any (the standard library caches the check).
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        if std::is_x86_feature_detected!("avx512bw") {
            Some(Self::Avx512)
        } else if std::is_x86_feature_detected!("avx2") {
            Some(Self::Avx2)
        } else {
            None
        }
    }

    /// Runs `scan` with this extension's block masks.
    #[inline]
    pub(crate) fn run<S: BlockScan>(self, scan: S) -> S::Output {
        match self {
            // SAFETY: a `Wide::Avx512` exists only when the CPU has AVX-512BW (the INVARIANT
            // of `Wide`), which is all `run_avx512` requires.
            Self::Avx512 => unsafe { run_avx512(scan) },
            // SAFETY: a `Wide::Avx2` exists only when the CPU has AVX2 (the INVARIANT of
            // `Wide`), which is all `run_avx2` requires.
            Self::Avx2 => unsafe { run_avx2(scan) },
        }
    }
}

/// `scan` compiled with AVX-512BW, its block masks inlined.
///
/// # Safety
///
/// The CPU must have AVX-512BW.
#[target_feature(enable = "avx512bw")]
unsafe fn run_avx512<S: BlockScan>(scan: S) -> S::Output {
    scan.run(|block| masks64_avx512(block))
}

/// `scan` compiled with AVX2, its block masks inlined.
///
/// # Safety
///
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
unsafe fn run_avx2<S: BlockScan>(scan: S) -> S::Output {
    scan.run(|block| masks64_avx2(block))
}

/// The masks of the special bytes (`"`, `\`, below 0x20) and of the backslashes of a block,
/// with one 64-byte load and compares straight into mask registers.
#[target_feature(enable = "avx512bw")]
fn masks64_avx512(block: &[u8; 64]) -> (u64, u64) {
    // SAFETY: `block` is 64 readable bytes, the width of one unaligned load.
    let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
    let backslashes = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8));
    // `x ^ 2` is at most 0x20 exactly for `"` (0x22) and the control bytes (below 0x20).
    let flipped = _mm512_xor_si512(v, _mm512_set1_epi8(2));
    let quote_or_control = _mm512_cmple_epu8_mask(flipped, _mm512_set1_epi8(0x20));
    (quote_or_control | backslashes, backslashes)
}

/// [`masks64_avx512`] with AVX2: two halves of 32 bytes.
#[target_feature(enable = "avx2")]
fn masks64_avx2(block: &[u8; 64]) -> (u64, u64) {
    let (lo, hi) = block.split_at(32);
    let (s0, b0) = masks32_avx2(load32(lo));
    let (s1, b1) = masks32_avx2(load32(hi));
    (s0 | (s1 << 32), b0 | (b1 << 32))
}

/// Loads the 32 bytes of `half`.
#[target_feature(enable = "avx2")]
fn load32(half: &[u8]) -> __m256i {
    assert_eq!(half.len(), 32);
    // SAFETY: `half` holds 32 readable bytes (asserted), the width of one unaligned load.
    unsafe { _mm256_loadu_si256(half.as_ptr().cast()) }
}

/// The masks of 32 bytes, as [`masks64_avx512`].
#[target_feature(enable = "avx2")]
fn masks32_avx2(v: __m256i) -> (u64, u64) {
    let backslashes = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
    // `x ^ 2` is at most 0x20 exactly for `"` (0x22) and the control bytes (below 0x20).
    let flipped = _mm256_xor_si256(v, _mm256_set1_epi8(2));
    let low = _mm256_min_epu8(flipped, _mm256_set1_epi8(0x20));
    let special = _mm256_or_si256(_mm256_cmpeq_epi8(low, flipped), backslashes);
    (
        u64::from(_mm256_movemask_epi8(special).cast_unsigned()),
        u64::from(_mm256_movemask_epi8(backslashes).cast_unsigned()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes that matter to the masks, and neighbours of them.
    const ALPHABET: [u8; 12] = [
        b'"', b'\\', b'a', 0, 0x1f, 0x20, 0x21, 0x23, 0x7f, 0x80, 0xe0, 0xff,
    ];

    fn blocks(n: usize) -> impl Iterator<Item = [u8; 64]> {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        (0..n).map(move |_| {
            let mut block = [0u8; 64];
            for b in &mut block {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                *b = ALPHABET[(state % ALPHABET.len() as u64) as usize];
            }
            block
        })
    }

    #[test]
    fn every_detected_extension_gives_the_baseline_masks() {
        let n = if cfg!(miri) { 100 } else { 5_000 };
        for block in blocks(n) {
            let want = super::super::masks64(&block);
            if std::is_x86_feature_detected!("avx512bw") {
                // SAFETY: AVX-512BW was detected just above.
                assert_eq!(unsafe { masks_avx512_for_test(&block) }, want, "{block:?}");
            }
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: AVX2 was detected just above.
                assert_eq!(unsafe { masks_avx2_for_test(&block) }, want, "{block:?}");
            }
        }
    }

    /// # Safety
    ///
    /// The CPU must have AVX-512BW.
    #[target_feature(enable = "avx512bw")]
    unsafe fn masks_avx512_for_test(block: &[u8; 64]) -> (u64, u64) {
        masks64_avx512(block)
    }

    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn masks_avx2_for_test(block: &[u8; 64]) -> (u64, u64) {
        masks64_avx2(block)
    }
}
