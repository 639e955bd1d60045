//! The block masks of long strings and of the bulk scan with wider vectors than the x86_64
//! baseline, picked at run time: with `text`, the only `unsafe` code in Janus.
//!
//! Long strings (tool results, arguments, base64 images) are most of the bytes a server reads,
//! and large containers the most tokens; their scans are bound by vector width: SSE2 makes the
//! masks of a 64-byte block from four 16-byte compares, AVX2 from two 32-byte ones, AVX-512BW
//! from one that yields a mask directly. Where the CPU has AVX-512VBMI too, the escape check
//! looks every byte up in one 128-byte table, where AVX-512BW takes two nibble lookups (8% off
//! the 1 MiB argument with an escape every 66 bytes; BENCHMARKS.md, fifteenth session), and
//! with VBMI2 one compress squeezes a block's runs of white space out of indented text for the
//! bulk scan (`scan/blocks.rs`; eighteenth session).
//! The x86_64 baseline has neither, so the code that uses them is compiled with
//! `#[target_feature]`, and calling such a function is `unsafe`: the caller must know the CPU
//! has the feature.
//! [`Wide`] is that knowledge as a value: only [`Wide::detect`] makes one, after the standard
//! library's run-time check, so holding one is the proof each call below needs.
//! The scans themselves are safe [`KernelScan`]s (the scanner's string scan and its bulk scan),
//! inlined into each `#[target_feature]` function with that function's [`Kernel`]; nothing else
//! differs between the paths.
//! This file holds the kernels and what they share; `avx512.rs` and `avx2.rs` hold the masks
//! of each extension.
//! BENCHMARKS.md ("How the codec gets there", and the twelfth session) gives what this gains.
//!
//! Build with `RUSTFLAGS="--cfg janus_codec_safe"` to leave this module out and use the SSE2
//! path everywhere.
#![allow(unsafe_code)]

mod avx2;
mod avx512;

use super::{Controls, Kernel, KernelScan, Punctuation, Scalars, StringMasks};
use avx2::{
    controls_avx2, low_bytes_avx2, non_escapes_avx2, number_starts_avx2, punctuation_avx2,
    scalars_avx2, skip_plain_avx2, strings_avx2,
};
use avx512::{
    compress_vbmi2, controls_avx512, low_bytes_avx512, non_escapes_avx512, non_escapes_vbmi,
    number_starts_avx512, punctuation_avx512, scalars_avx512, skip_plain_avx512, strings_avx512,
};
use core::arch::x86_64::{
    __m128i, _MM_HINT_T0, _mm_add_epi8, _mm_clmulepi64_si128, _mm_cvtsi128_si64, _mm_loadu_si128,
    _mm_prefetch, _mm_set_epi64x, _mm_set1_epi8, _mm_setr_epi8, _mm_shuffle_epi8, _mm_storel_epi64,
    _mm_unpackhi_epi64,
};

/// A vector extension the CPU running this process has.
///
/// INVARIANT: a value is only handed out by [`Wide::detect`] (and, in tests, by
/// `all_detected`), and only for an extension that `is_available` found on the CPU, with
/// `pclmulqdq`, `popcnt` and BMI1; every `unsafe` call in this module relies on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wide {
    /// AVX-512BW with VBMI and VBMI2: as [`Wide::Avx512`], with the escape check as one
    /// lookup in a 128-byte table, and indented text squeezed by one compress a block.
    Avx512Vbmi,
    /// AVX-512BW (64-byte compares into mask registers).
    Avx512,
    /// AVX2 (32-byte compares).
    Avx2,
}

impl Wide {
    /// The extensions a [`Kernel`] may use, widest first.
    const ALL: [Self; 3] = [Self::Avx512Vbmi, Self::Avx512, Self::Avx2];

    /// Whether the CPU has this extension, with the carry-less multiply (`pclmulqdq`), `popcnt` (for
    /// the count of the bytes each squeezed block keeps) and BMI1 that every kernel needs (the standard library caches the checks).
    fn is_available(self) -> bool {
        std::is_x86_feature_detected!("pclmulqdq")
            && std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("bmi1")
            && match self {
                Self::Avx512Vbmi => {
                    std::is_x86_feature_detected!("avx512bw")
                        && std::is_x86_feature_detected!("avx512vbmi")
                        && std::is_x86_feature_detected!("avx512vbmi2")
                }
                Self::Avx512 => std::is_x86_feature_detected!("avx512bw"),
                Self::Avx2 => std::is_x86_feature_detected!("avx2"),
            }
    }

    /// The widest extension the CPU has for a [`Kernel`], if any: AVX-512BW (with VBMI when
    /// it has it) or AVX2.
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        Self::ALL.into_iter().find(|w| w.is_available())
    }

    /// Every extension the CPU has for a [`Kernel`] (the widest first), for tests that check
    /// each kernel, not only the one [`Wide::detect`] picks.
    #[cfg(test)]
    pub(crate) fn all_detected() -> Vec<Self> {
        Self::ALL.into_iter().filter(|w| w.is_available()).collect()
    }

    /// Runs `scan` with this extension's [`Kernel`].
    ///
    /// The CPU has this extension, `pclmulqdq`, `popcnt` and BMI1 (the INVARIANT of [`Wide`]).
    #[inline]
    pub(crate) fn run_kernel<S: KernelScan>(self, scan: S) -> S::Output {
        match self {
            // SAFETY: this value was handed out only after `is_available` found AVX-512BW,
            // AVX-512VBMI, AVX-512VBMI2, `pclmulqdq`, `popcnt` and BMI1, all that
            // `run_kernel_avx512_vbmi` requires.
            Self::Avx512Vbmi => unsafe { run_kernel_avx512_vbmi(scan) },
            // SAFETY: this value was handed out only after `is_available` found AVX-512BW,
            // `pclmulqdq`, `popcnt` and BMI1, all that `run_kernel_avx512` requires.
            Self::Avx512 => unsafe { run_kernel_avx512(scan) },
            // SAFETY: as above, with AVX2 for `run_kernel_avx2`.
            Self::Avx2 => unsafe { run_kernel_avx2(scan) },
        }
    }
}

/// A [`Kernel`] whose masks come from the `#[target_feature]` functions it names: each method
/// calls its function, which the kernel's INVARIANT (the CPU has the features) makes sound.
macro_rules! kernel {
    ($kernel:ident: $strings:ident, $punctuation:ident, $controls:ident, $number_starts:ident,
     $scalars:ident, $non_escapes:ident $(; $skip_plain:ident)?
     $(; squeeze from $from:literal: $low_bytes:ident, $compress:ident)?) => {
        impl Kernel for $kernel {
            $(
                const SQUEEZE_FROM: u32 = $from;

                #[inline(always)]
                fn low_bytes(self, block: &[u8; 64]) -> (u64, u64) {
                    // SAFETY: the CPU has the kernel's extension (its INVARIANT).
                    unsafe { $low_bytes(block) }
                }

                #[inline(always)]
                fn compress(self, block: &[u8; 64], keep: u64, out: &mut [u8; 64]) {
                    // SAFETY: the CPU has the kernel's extension (its INVARIANT).
                    unsafe { $compress(block, keep, out) }
                }
            )?

            $(
                #[inline(always)]
                fn skip_plain(self, b: &[u8], at: usize) -> (usize, bool) {
                    // Called through a pointer, so that it stays out of the string scan's
                    // loop (`#[inline(never)]` alone did not keep it out).
                    let skip: unsafe fn(&[u8], usize) -> (usize, bool) = $skip_plain;
                    // SAFETY: the CPU has the kernel's extension (its INVARIANT).
                    unsafe { core::hint::black_box(skip)(b, at) }
                }
            )?

            #[inline(always)]
            fn strings(self, block: &[u8; 64]) -> StringMasks {
                // SAFETY: the CPU has the kernel's extension (its INVARIANT).
                unsafe { $strings(block) }
            }

            #[inline(always)]
            fn punctuation(self, block: &[u8; 64]) -> Punctuation {
                // SAFETY: the CPU has the kernel's extension (its INVARIANT).
                unsafe { $punctuation(block) }
            }

            #[inline(always)]
            fn controls(self, block: &[u8; 64]) -> Controls {
                // SAFETY: the CPU has the kernel's extension (its INVARIANT).
                unsafe { $controls(block) }
            }

            #[inline(always)]
            fn number_starts(self, block: &[u8; 64]) -> u64 {
                // SAFETY: the CPU has the kernel's extension (its INVARIANT).
                unsafe { $number_starts(block) }
            }

            #[inline(always)]
            fn scalars(self, block: &[u8; 64]) -> Scalars {
                // SAFETY: the CPU has the kernel's extension (its INVARIANT).
                unsafe { $scalars(block) }
            }

            #[inline(always)]
            fn non_escapes(self, block: &[u8; 64]) -> (u64, u64) {
                // SAFETY: the CPU has the kernel's extension (its INVARIANT).
                unsafe { $non_escapes(block) }
            }

            #[inline(always)]
            fn prefetch(self, b: &[u8], at: usize) {
                prefetch(b, at);
            }

            #[inline(always)]
            fn prefix_xor(self, m: u64) -> u64 {
                // SAFETY: the CPU has `pclmulqdq` (the kernel's INVARIANT).
                unsafe { prefix_xor_clmul(m) }
            }
        }
    };
}

/// The [`Kernel`] of AVX-512BW.
///
/// INVARIANT: only `run_kernel_avx512` makes one, and only on a CPU with AVX-512BW, `pclmulqdq`,
/// `popcnt` and BMI1 (its safety condition).
#[derive(Clone, Copy)]
struct Avx512Kernel(());

kernel!(Avx512Kernel: strings_avx512, punctuation_avx512, controls_avx512,
    number_starts_avx512, scalars_avx512, non_escapes_avx512; skip_plain_avx512;
    squeeze from 16: low_bytes_avx512, compress_ssse3);

/// The [`Kernel`] of AVX-512BW with VBMI and VBMI2: that of AVX-512BW but for the escape
/// check, and it squeezes white space out of indented text.
///
/// INVARIANT: only `run_kernel_avx512_vbmi` makes one, and only on a CPU with AVX-512BW,
/// AVX-512VBMI, AVX-512VBMI2, `pclmulqdq`, `popcnt` and BMI1 (its safety condition).
#[derive(Clone, Copy)]
struct Avx512VbmiKernel(());

kernel!(Avx512VbmiKernel: strings_avx512, punctuation_avx512, controls_avx512,
    number_starts_avx512, scalars_avx512, non_escapes_vbmi; skip_plain_avx512;
    squeeze from 8: low_bytes_avx512, compress_vbmi2);

/// The [`Kernel`] of AVX2.
///
/// INVARIANT: only `run_kernel_avx2` makes one, and only on a CPU with AVX2, `pclmulqdq`, `popcnt`
/// and BMI1 (its safety condition).
#[derive(Clone, Copy)]
struct Avx2Kernel(());

kernel!(Avx2Kernel: strings_avx2, punctuation_avx2, controls_avx2, number_starts_avx2,
    scalars_avx2, non_escapes_avx2; skip_plain_avx2;
    squeeze from 16: low_bytes_avx2, compress_ssse3);

/// `scan` compiled with AVX-512BW, `pclmulqdq`, `popcnt` and BMI1, with their kernel inlined.
///
/// # Safety
///
/// The CPU must have AVX-512BW, `pclmulqdq`, `popcnt` and BMI1.
#[target_feature(enable = "avx512bw,popcnt,pclmulqdq,bmi1")]
unsafe fn run_kernel_avx512<S: KernelScan>(scan: S) -> S::Output {
    scan.run(Avx512Kernel(()))
}

/// `scan` compiled with AVX-512BW, AVX-512VBMI, AVX-512VBMI2, `pclmulqdq`, `popcnt` and BMI1,
/// with their kernel inlined.
///
/// # Safety
///
/// The CPU must have AVX-512BW, AVX-512VBMI, AVX-512VBMI2, `pclmulqdq`, `popcnt` and BMI1.
#[target_feature(enable = "avx512bw,avx512vbmi,avx512vbmi2,popcnt,pclmulqdq,bmi1")]
unsafe fn run_kernel_avx512_vbmi<S: KernelScan>(scan: S) -> S::Output {
    scan.run(Avx512VbmiKernel(()))
}

/// `scan` compiled with AVX2, `pclmulqdq`, `popcnt` and BMI1, with their kernel inlined.
///
/// # Safety
///
/// The CPU must have AVX2, `pclmulqdq`, `popcnt` and BMI1.
#[target_feature(enable = "avx2,popcnt,pclmulqdq,bmi1")]
unsafe fn run_kernel_avx2<S: KernelScan>(scan: S) -> S::Output {
    scan.run(Avx2Kernel(()))
}

/// The prefix xor of `m` (bit `i`: the xor of bits `0..=i`), as a carry-less product with a
/// word of ones.
#[target_feature(enable = "pclmulqdq")]
fn prefix_xor_clmul(m: u64) -> u64 {
    let product = _mm_clmulepi64_si128::<0>(_mm_set_epi64x(0, m.cast_signed()), _mm_set1_epi8(-1));
    _mm_cvtsi128_si64(product).cast_unsigned()
}

/// Asks for the cache line of `b` at `at` to be loaded ahead of its use (nothing past the end
/// of `b`).
#[inline(always)]
fn prefetch(b: &[u8], at: usize) {
    if let Some(byte) = b.get(at) {
        // SAFETY: a prefetch reads nothing the program sees and cannot fault; the address is
        // that of a byte of `b` all the same.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(core::ptr::from_ref(byte).cast()) };
    }
}

/// For each mask of 8 bytes, the indices of its set bits in order, one a byte from the low
/// byte up (the shuffle that packs the bytes it keeps to the front of 8).
const PACK8: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let (mut word, mut n, mut bit) = (0u64, 0, 0);
        while bit < 8 {
            if m & (1 << bit) != 0 {
                word |= (bit as u64) << (8 * n);
                n += 1;
            }
            bit += 1;
        }
        t[m] = word;
        m += 1;
    }
    t
};

/// [`Kernel::compress`] without a compress instruction: each 16 bytes in one shuffle, whose
/// halves pack their kept bytes from a table ([`PACK8`]), then stored 8 bytes a half, each at
/// the end of the bytes kept before it.
#[target_feature(enable = "ssse3,popcnt")]
fn compress_ssse3(block: &[u8; 64], keep: u64, out: &mut [u8; 64]) {
    let high_half = _mm_set_epi64x(0x0808_0808_0808_0808, 0);
    let mut n = 0usize;
    for (i, chunk) in block.chunks_exact(16).enumerate() {
        let bits = keep >> (16 * i);
        let (lo, hi) = ((bits & 0xff) as usize, ((bits >> 8) & 0xff) as usize);
        let order = _mm_set_epi64x(PACK8[hi].cast_signed(), PACK8[lo].cast_signed());
        // SAFETY: `chunk` is 16 readable bytes, the width of one unaligned load.
        let v = unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) };
        let packed = _mm_shuffle_epi8(v, _mm_add_epi8(order, high_half));
        let halves = [(packed, lo), (_mm_unpackhi_epi64(packed, packed), hi)];
        for (half, bits) in halves {
            // Never short: fewer than 8 bytes of the block are left after `n`'s.
            let Some(dst) = out.get_mut(n..n + 8) else {
                return;
            };
            // SAFETY: `dst` is 8 writable bytes, the width of the store.
            unsafe { _mm_storel_epi64(dst.as_mut_ptr().cast(), half) };
            n += bits.count_ones() as usize;
        }
    }
}

/// The classes of [`Kernel::non_escapes`] by the nibbles of a byte: bit 0 to 3 mark the
/// one-letter escapes whose high nibble is 2, 5, 6 or 7, bit 4 the `u`. A byte is of a class
/// when its low nibble's entry and its high nibble's entry share the class's bit, and may be
/// escaped when it is of one.
const ESCAPES_BY_LOW_NIBBLE: [i8; 16] = {
    let mut t = [0i8; 16];
    t[0x2] = 0x01 | 0x04 | 0x08; // `"`, `b`, `r`
    t[0xF] = 0x01; // `/`
    t[0xC] = 0x02; // `\`
    t[0x6] = 0x04; // `f`
    t[0xE] = 0x04; // `n`
    t[0x4] = 0x08; // `t`
    t[0x5] = 0x10; // `u`
    t
};

/// See [`ESCAPES_BY_LOW_NIBBLE`].
const ESCAPES_BY_HIGH_NIBBLE: [i8; 16] = {
    let mut t = [0i8; 16];
    t[0x2] = 0x01;
    t[0x5] = 0x02;
    t[0x6] = 0x04;
    t[0x7] = 0x08 | 0x10;
    t
};

/// The 16 bytes of `t` as a vector.
#[target_feature(enable = "sse2")]
fn vector16(t: [i8; 16]) -> __m128i {
    _mm_setr_epi8(
        t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11], t[12], t[13],
        t[14], t[15],
    )
}

/// How far ahead of [`skip_plain_avx2`] its bytes are asked for (as the string scan's own
/// prefetch).
const SKIP_PREFETCH: usize = 4096;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::xorshift;

    /// Bytes that matter to the masks, and neighbours of them.
    const ALPHABET: [u8; 12] = [
        b'"', b'\\', b'a', 0, 0x1f, 0x20, 0x21, 0x23, 0x7f, 0x80, 0xe0, 0xff,
    ];

    #[test]
    fn every_detected_kernel_gives_the_baseline_classes() {
        use super::super::Baseline;
        let n = if cfg!(miri) { 100 } else { 5_000 };
        let mut bytes = ALPHABET.to_vec();
        bytes.extend_from_slice(b" \t\r\n{}[]:,09-+.eEtfn/`@");
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        for _ in 0..n {
            let mut block = [0u8; 64];
            for b in &mut block {
                *b = bytes[(xorshift(&mut state) % bytes.len() as u64) as usize];
            }
            let want = Classify(&block, state).run(Baseline);
            for wide in Wide::all_detected() {
                let got = wide.run_kernel(Classify(&block, state));
                assert_eq!(got, want, "{wide:?} {block:?}");
            }
        }
    }

    #[test]
    fn every_detected_kernel_classifies_each_byte_value_as_the_baseline_does() {
        use super::super::Baseline;
        // The 256 byte values in four blocks, then shifted by one lane at a time, so that each
        // value meets each lane's position in some block (a table lookup is per lane).
        for shift in 0..64u8 {
            for quarter in 0..4u8 {
                let block: [u8; 64] =
                    core::array::from_fn(|i| (quarter * 64).wrapping_add(i as u8 + shift));
                let want = Classify(&block, 0).run(Baseline);
                for wide in Wide::all_detected() {
                    assert_eq!(
                        wide.run_kernel(Classify(&block, 0)),
                        want,
                        "{wide:?} {block:?}"
                    );
                }
            }
            if cfg!(miri) {
                break;
            }
        }
    }

    #[test]
    fn every_wide_kernel_skips_plain_text_as_the_model_does() {
        use super::super::Baseline;
        let n = if cfg!(miri) { 40 } else { 3_000 };
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move || xorshift(&mut state);
        for _ in 0..n {
            // Plain text (letters, spaces, bytes above ASCII), with at most one special byte.
            let len = (next() % 700) as usize;
            let mut text: Vec<u8> = (0..len)
                .map(|_| match next() % 9 {
                    0 => 0xc3,
                    1 => b' ',
                    2 => 0x7f,
                    _ => b'a' + (next() % 26) as u8,
                })
                .collect();
            if len > 0 && next() % 4 != 0 {
                let i = (next() % len as u64) as usize;
                text[i] = ALPHABET[(next() % 5) as usize];
            }
            let from = (next() % 80) as usize;
            // The model: whole pairs of plain bytes from `from`, and whether one is above ASCII.
            let mut want_at = from;
            while let Some(pair) = text.get(want_at..want_at + 128) {
                if pair.iter().any(|&c| matches!(c, b'"' | b'\\' | 0..0x20)) {
                    break;
                }
                want_at += 128;
            }
            let want = (
                want_at,
                text.get(from..want_at).is_some_and(|s| !s.is_ascii()),
            );
            // The baseline, without a cheaper test, skips nothing; every wide kernel skips.
            assert_eq!(Skip(&text, from).run(Baseline), (from, false));
            for wide in Wide::all_detected() {
                let got = wide.run_kernel(Skip(&text, from));
                assert_eq!(got, want, "{wide:?} {text:?} {from}");
            }
        }
    }

    /// A scan that only skips plain text.
    struct Skip<'a>(&'a [u8], usize);

    impl KernelScan for Skip<'_> {
        type Output = (usize, bool);

        #[inline(always)]
        fn run(self, k: impl Kernel) -> Self::Output {
            k.skip_plain(self.0, self.1)
        }
    }

    /// A scan that only classifies one block.
    struct Classify<'a>(&'a [u8; 64], u64);

    impl KernelScan for Classify<'_> {
        type Output = (
            StringMasks,
            Punctuation,
            Controls,
            u64,
            Scalars,
            (u64, u64),
            u64,
            (u64, u64),
            Vec<u8>,
        );

        #[inline(always)]
        fn run(self, k: impl Kernel) -> Self::Output {
            // The bytes the compress keeps, with `self.1` as the mask of those to keep.
            let mut out = [0; 64];
            k.compress(self.0, self.1, &mut out);
            (
                k.strings(self.0),
                k.punctuation(self.0),
                k.controls(self.0),
                k.number_starts(self.0),
                k.scalars(self.0),
                k.non_escapes(self.0),
                k.prefix_xor(self.1),
                k.low_bytes(self.0),
                out[..self.1.count_ones() as usize].to_vec(),
            )
        }
    }
}
