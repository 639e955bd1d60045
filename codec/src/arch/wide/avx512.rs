//! The masks of the AVX-512BW kernels (and the escape table and compress of VBMI and VBMI2):
//! each compare goes straight into a mask register.

#![allow(unsafe_code)]

#[cfg(doc)]
use super::super::Kernel;
use super::super::{Controls, Punctuation, Scalars, StringMasks};
#[cfg(miri)]
use super::compress_ssse3;
use super::{ESCAPES_BY_HIGH_NIBBLE, ESCAPES_BY_LOW_NIBBLE, SKIP_PREFETCH, prefetch, vector16};
use core::arch::x86_64::{
    __m512i, _mm512_and_si512, _mm512_broadcast_i32x4, _mm512_cmpeq_epi8_mask,
    _mm512_cmplt_epu8_mask, _mm512_cmpneq_epi8_mask, _mm512_loadu_si512, _mm512_movepi8_mask,
    _mm512_or_si512, _mm512_permutex2var_epi8, _mm512_set1_epi8, _mm512_setzero_si512,
    _mm512_shuffle_epi8, _mm512_srli_epi16, _mm512_sub_epi8, _mm512_test_epi8_mask,
    _mm512_testn_epi8_mask,
};

/// Loads the 64 bytes of `block`.
#[target_feature(enable = "avx512bw")]
fn load64(block: &[u8; 64]) -> __m512i {
    // SAFETY: `block` is 64 readable bytes, the width of one unaligned load.
    unsafe { _mm512_loadu_si512(block.as_ptr().cast()) }
}

/// [`Kernel::low_bytes`] with AVX-512BW: two compares into mask registers.
#[target_feature(enable = "avx512bw")]
pub(super) fn low_bytes_avx512(block: &[u8; 64]) -> (u64, u64) {
    let v = load64(block);
    let space = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b' ' as i8));
    let low = _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(b' ' as i8 + 1));
    (space, low)
}

/// [`Kernel::compress`] with AVX-512VBMI2: one compress, and one store of the whole vector.
/// Miri has no compress instruction, so under it the table's shuffle stands in (the rest of
/// the kernel is still checked).
#[target_feature(enable = "avx512bw,avx512vbmi2,popcnt")]
pub(super) fn compress_vbmi2(block: &[u8; 64], keep: u64, out: &mut [u8; 64]) {
    #[cfg(not(miri))]
    {
        use core::arch::x86_64::{_mm512_maskz_compress_epi8, _mm512_storeu_si512};
        let kept = _mm512_maskz_compress_epi8(keep, load64(block));
        // SAFETY: `out` is 64 writable bytes, the width of one unaligned store.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), kept) }
    }
    #[cfg(miri)]
    compress_ssse3(block, keep, out);
}

/// The [`StringMasks`] of a block, from compares straight into mask registers.
#[target_feature(enable = "avx512bw")]
pub(super) fn strings_avx512(block: &[u8; 64]) -> StringMasks {
    let v = load64(block);
    StringMasks {
        quote: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'"' as i8)),
        backslash: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8)),
        control: _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20)),
        high: _mm512_movepi8_mask(v),
    }
}

/// The [`Punctuation`] of a block, from compares straight into mask registers.
#[target_feature(enable = "avx512bw")]
pub(super) fn punctuation_avx512(block: &[u8; 64]) -> Punctuation {
    let v = load64(block);
    let eq = |x: __m512i, c: u8| _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(c as i8));
    // Setting bit 0x20 folds `[` onto `{` and `]` onto `}`.
    let lower = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
    Punctuation {
        space: eq(v, b' '),
        open: eq(lower, b'{'),
        close: eq(lower, b'}'),
        curly: _mm512_test_epi8_mask(v, _mm512_set1_epi8(0x20)),
        colon: eq(v, b':'),
        comma: eq(v, b','),
    }
}

/// The [`Controls`] of a block, from compares straight into mask registers.
#[target_feature(enable = "avx512bw")]
pub(super) fn controls_avx512(block: &[u8; 64]) -> Controls {
    let v = load64(block);
    let eq = |c: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(c as i8));
    Controls {
        tab_cr: eq(b'\t') | eq(b'\r'),
        newline: eq(b'\n'),
    }
}

/// The [`Scalars`] of a block, from compares straight into mask registers.
#[target_feature(enable = "avx512bw")]
pub(super) fn scalars_avx512(block: &[u8; 64]) -> Scalars {
    let v = load64(block);
    let eq = |x: __m512i, c: u8| _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(c as i8));
    let d = _mm512_sub_epi8(v, _mm512_set1_epi8(b'0' as i8));
    Scalars {
        digit: _mm512_cmplt_epu8_mask(d, _mm512_set1_epi8(10)),
        zero: eq(v, b'0'),
        minus: eq(v, b'-'),
        plus: eq(v, b'+'),
        point: eq(v, b'.'),
        // Setting bit 0x20 folds `E` onto `e`.
        exponent: eq(_mm512_or_si512(v, _mm512_set1_epi8(0x20)), b'e'),
    }
}

/// The bytes a number starts with, `-` and the digits, from compares into mask registers.
#[target_feature(enable = "avx512bw")]
pub(super) fn number_starts_avx512(block: &[u8; 64]) -> u64 {
    let v = load64(block);
    let d = _mm512_sub_epi8(v, _mm512_set1_epi8(b'0' as i8));
    _mm512_cmplt_epu8_mask(d, _mm512_set1_epi8(10))
        | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'-' as i8))
}

/// [`Kernel::non_escapes`] from two nibble lookups, straight into mask registers.
#[target_feature(enable = "avx512bw")]
pub(super) fn non_escapes_avx512(block: &[u8; 64]) -> (u64, u64) {
    let v = load64(block);
    let table = |t: [i8; 16]| {
        let lane = vector16(t);
        _mm512_broadcast_i32x4(lane)
    };
    let nibble = _mm512_set1_epi8(0x0f);
    let low = _mm512_and_si512(v, nibble);
    let high = _mm512_and_si512(_mm512_srli_epi16::<4>(v), nibble);
    let classes = _mm512_and_si512(
        _mm512_shuffle_epi8(table(ESCAPES_BY_LOW_NIBBLE), low),
        _mm512_shuffle_epi8(table(ESCAPES_BY_HIGH_NIBBLE), high),
    );
    (
        _mm512_testn_epi8_mask(classes, classes),
        _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'u' as i8)),
    )
}

/// [`Kernel::non_escapes`] of AVX-512VBMI as a table: for each byte below 0x80, itself when a
/// `\\` may escape it, its complement otherwise. A byte may be escaped exactly when its entry
/// (at its low 7 bits) is itself: a byte above ASCII never equals an entry, which is below
/// 0x80 for the letters, and for the others the complement of a byte below 0x80 is a byte
/// above it that differs from the byte in its low bits too.
const ESCAPE_LETTERS_128: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut i = 0;
    while i < 128 {
        t[i] = !(i as u8);
        i += 1;
    }
    let letters = *b"\"\\/bfnrtu";
    let mut i = 0;
    while i < letters.len() {
        t[letters[i] as usize] = letters[i];
        i += 1;
    }
    t
};

/// [`Kernel::non_escapes`] from one lookup of every byte in a 128-byte table
/// ([`ESCAPE_LETTERS_128`], two registers, `vpermi2b`) and one compare, where AVX-512BW takes
/// two nibble lookups and their masks. The `u`s from a compare of their own.
#[target_feature(enable = "avx512bw,avx512vbmi")]
pub(super) fn non_escapes_vbmi(block: &[u8; 64]) -> (u64, u64) {
    let v = load64(block);
    // SAFETY: the table is 128 readable bytes, so each half is the 64 of one unaligned load.
    let (lo, hi) = unsafe {
        (
            _mm512_loadu_si512(ESCAPE_LETTERS_128.as_ptr().cast()),
            _mm512_loadu_si512(ESCAPE_LETTERS_128[64..].as_ptr().cast()),
        )
    };
    let looked = _mm512_permutex2var_epi8(lo, v, hi);
    (
        _mm512_cmpneq_epi8_mask(looked, v),
        _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'u' as i8)),
    )
}

/// [`Kernel::skip_plain`] with AVX-512BW: as [`skip_plain_avx2`](super::avx2::skip_plain_avx2), each block's three compares
/// straight into mask registers, the bytes above ASCII from the or of the blocks skipped.
#[target_feature(enable = "avx512bw")]
#[inline(never)]
pub(super) fn skip_plain_avx512(b: &[u8], mut at: usize) -> (usize, bool) {
    let quote = _mm512_set1_epi8(b'"' as i8);
    let backslash = _mm512_set1_epi8(b'\\' as i8);
    let control = _mm512_set1_epi8(0x20);
    let mut high = _mm512_setzero_si512();
    while let Some(pair) = b.get(at..at + 128) {
        prefetch(b, at + SKIP_PREFETCH);
        prefetch(b, at + 64 + SKIP_PREFETCH);
        let mut special = 0;
        let mut bytes = _mm512_setzero_si512();
        for part in pair.chunks_exact(64) {
            let Ok(block) = <&[u8; 64]>::try_from(part) else {
                break;
            };
            let v = load64(block);
            special |= _mm512_cmpeq_epi8_mask(v, quote)
                | _mm512_cmpeq_epi8_mask(v, backslash)
                | _mm512_cmplt_epu8_mask(v, control);
            bytes = _mm512_or_si512(bytes, v);
        }
        if special != 0 {
            break;
        }
        high = _mm512_or_si512(high, bytes);
        at += 128;
    }
    (at, _mm512_movepi8_mask(high) != 0)
}
