//! The masks of the AVX2 kernel: each from the two 32-byte halves of a block.

#![allow(unsafe_code)]

#[cfg(doc)]
use super::super::Kernel;
use super::super::{Controls, Punctuation, Scalars, StringMasks};
use super::{ESCAPES_BY_HIGH_NIBBLE, ESCAPES_BY_LOW_NIBBLE, SKIP_PREFETCH, prefetch, vector16};
use core::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_broadcastsi128_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256,
    _mm256_min_epu8, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm256_setzero_si256,
    _mm256_shuffle_epi8, _mm256_srli_epi16, _mm256_sub_epi8, _mm256_testz_si256,
};

/// [`Kernel::non_escapes`] from two nibble lookups per 32-byte half; the `u`s from a compare
/// of their own, so that neither mask needs its compare inverted.
#[target_feature(enable = "avx2")]
pub(super) fn non_escapes_avx2(block: &[u8; 64]) -> (u64, u64) {
    let table = |t: [i8; 16]| {
        let lane = vector16(t);
        _mm256_broadcastsi128_si256(lane)
    };
    let others = halves(block, |v| {
        let nibble = _mm256_set1_epi8(0x0f);
        let low = _mm256_and_si256(v, nibble);
        let high = _mm256_and_si256(_mm256_srli_epi16::<4>(v), nibble);
        let classes = _mm256_and_si256(
            _mm256_shuffle_epi8(table(ESCAPES_BY_LOW_NIBBLE), low),
            _mm256_shuffle_epi8(table(ESCAPES_BY_HIGH_NIBBLE), high),
        );
        // A byte of no class is no escape.
        _mm256_cmpeq_epi8(classes, _mm256_setzero_si256())
    });
    let u = halves(block, |v| {
        _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'u' as i8))
    });
    (others, u)
}

/// Loads the 32 bytes of `half`.
#[target_feature(enable = "avx2")]
fn load32(half: &[u8]) -> __m256i {
    assert_eq!(half.len(), 32);
    // SAFETY: `half` holds 32 readable bytes (asserted), the width of one unaligned load.
    unsafe { _mm256_loadu_si256(half.as_ptr().cast()) }
}

/// The bit mask of the bytes of `block` where `f` of their 32-byte half sets the high bit.
#[target_feature(enable = "avx2")]
fn halves(block: &[u8; 64], f: impl Fn(__m256i) -> __m256i) -> u64 {
    let (lo, hi) = block.split_at(32);
    let lo = _mm256_movemask_epi8(f(load32(lo))).cast_unsigned();
    let hi = _mm256_movemask_epi8(f(load32(hi))).cast_unsigned();
    u64::from(lo) | (u64::from(hi) << 32)
}

/// [`Kernel::low_bytes`] from two 32-byte halves.
#[target_feature(enable = "avx2")]
pub(super) fn low_bytes_avx2(block: &[u8; 64]) -> (u64, u64) {
    let space = halves(block, |v| {
        _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b' ' as i8))
    });
    let low = halves(block, |v| {
        _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(b' ' as i8)), v)
    });
    (space, low)
}

/// The [`StringMasks`] of a block, from two 32-byte halves.
#[target_feature(enable = "avx2")]
pub(super) fn strings_avx2(block: &[u8; 64]) -> StringMasks {
    StringMasks {
        quote: halves(block, |v| {
            _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8))
        }),
        backslash: halves(block, |v| {
            _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8))
        }),
        control: halves(block, |v| {
            _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1f)), v)
        }),
        high: halves(block, |v| v),
    }
}

/// [`Kernel::skip_plain`] on 32-byte vectors: the compares of a pair of blocks are merged as
/// vectors (one test a pair, not eight masks), and so are its bytes for the high bits (one
/// mask a run). The string scan calls it once, at the start of a string.
#[target_feature(enable = "avx2")]
#[inline(never)]
pub(super) fn skip_plain_avx2(b: &[u8], mut at: usize) -> (usize, bool) {
    let quote = _mm256_set1_epi8(b'"' as i8);
    let backslash = _mm256_set1_epi8(b'\\' as i8);
    let control = _mm256_set1_epi8(0x1f);
    let mut high = _mm256_setzero_si256();
    while let Some(pair) = b.get(at..at + 128) {
        prefetch(b, at + SKIP_PREFETCH);
        prefetch(b, at + 64 + SKIP_PREFETCH);
        let mut special = _mm256_setzero_si256();
        let mut bytes = _mm256_setzero_si256();
        for part in pair.chunks_exact(32) {
            let v = load32(part);
            let q = _mm256_cmpeq_epi8(v, quote);
            let s = _mm256_cmpeq_epi8(v, backslash);
            let c = _mm256_cmpeq_epi8(_mm256_min_epu8(v, control), v);
            special = _mm256_or_si256(special, _mm256_or_si256(_mm256_or_si256(q, s), c));
            bytes = _mm256_or_si256(bytes, v);
        }
        if _mm256_testz_si256(special, special) != 1 {
            break;
        }
        high = _mm256_or_si256(high, bytes);
        at += 128;
    }
    (at, _mm256_movemask_epi8(high) != 0)
}

/// The [`Punctuation`] of a block, from two 32-byte halves.
#[target_feature(enable = "avx2")]
pub(super) fn punctuation_avx2(block: &[u8; 64]) -> Punctuation {
    let eq = |c: u8| {
        halves(block, move |v| {
            _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8))
        })
    };
    let lower = |c: u8| {
        halves(block, move |v| {
            let l = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
            _mm256_cmpeq_epi8(l, _mm256_set1_epi8(c as i8))
        })
    };
    Punctuation {
        space: eq(b' '),
        open: lower(b'{'),
        close: lower(b'}'),
        curly: halves(block, |v| {
            let bit = _mm256_and_si256(v, _mm256_set1_epi8(0x20));
            _mm256_cmpeq_epi8(bit, _mm256_set1_epi8(0x20))
        }),
        colon: eq(b':'),
        comma: eq(b','),
    }
}

/// The [`Controls`] of a block, from two 32-byte halves.
#[target_feature(enable = "avx2")]
pub(super) fn controls_avx2(block: &[u8; 64]) -> Controls {
    let eq = |c: u8| {
        halves(block, move |v| {
            _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8))
        })
    };
    Controls {
        tab_cr: eq(b'\t') | eq(b'\r'),
        newline: eq(b'\n'),
    }
}

/// The [`Scalars`] of a block, from two 32-byte halves.
#[target_feature(enable = "avx2")]
pub(super) fn scalars_avx2(block: &[u8; 64]) -> Scalars {
    let eq = |c: u8| {
        halves(block, move |v| {
            _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8))
        })
    };
    Scalars {
        digit: halves(block, |v| {
            let d = _mm256_sub_epi8(v, _mm256_set1_epi8(b'0' as i8));
            _mm256_cmpeq_epi8(_mm256_min_epu8(d, _mm256_set1_epi8(9)), d)
        }),
        zero: eq(b'0'),
        minus: eq(b'-'),
        plus: eq(b'+'),
        point: eq(b'.'),
        exponent: halves(block, |v| {
            let l = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
            _mm256_cmpeq_epi8(l, _mm256_set1_epi8(b'e' as i8))
        }),
    }
}

/// The bytes a number starts with, `-` and the digits, from two 32-byte halves.
#[target_feature(enable = "avx2")]
pub(super) fn number_starts_avx2(block: &[u8; 64]) -> u64 {
    halves(block, |v| {
        let d = _mm256_sub_epi8(v, _mm256_set1_epi8(b'0' as i8));
        let digit = _mm256_cmpeq_epi8(_mm256_min_epu8(d, _mm256_set1_epi8(9)), d);
        _mm256_or_si256(digit, _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'-' as i8)))
    })
}
