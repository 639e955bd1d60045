//! The byte masks under the scanner and the writers, and the run-time choice of the widest
//! vectors the CPU has.
//!
//! Everything here works on byte slices and knows nothing of JSON's grammar: the scanner
//! (`scan.rs`) and the string writer (`raw.rs`) call it, and it calls neither.
//!
//! - On x86_64 the masks of 16-byte chunks come from SSE2 compares through `safe_arch` (SSE2 is
//!   the target's baseline, so this needs no `unsafe`); every other target takes the portable
//!   loops beside them, which tests also build to check the SSE2 ones.
//! - The masks of 64-byte blocks, which the scan of long strings and the bulk scan of large
//!   containers read, come from a [`Kernel`] of the widest extension the CPU has, chosen at run
//!   time ([`with_widest_kernel`]): AVX-512BW or AVX2 in `wide`, else four SSE2 chunks
//!   ([`Baseline`]). A scan written once over any kernel is a [`KernelScan`]; `wide` runs it
//!   inside a function compiled for its extension, so the masks inline into it.
//!
//! Build with `RUSTFLAGS="--cfg janus_codec_safe"` to leave `wide` (the only `unsafe` code of
//! this folder) out and use the SSE2 path everywhere.

#[cfg(all(target_arch = "x86_64", not(janus_codec_safe)))]
mod wide;

/// The bytes of a 64-byte block that strings care about (bit `i` for byte `i`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct StringMasks {
    /// `"`.
    pub(crate) quote: u64,
    /// `\`.
    pub(crate) backslash: u64,
    /// The control bytes (below 0x20).
    pub(crate) control: u64,
    /// The bytes above ASCII.
    pub(crate) high: u64,
}

/// The punctuation of a 64-byte block, and its spaces (bit `i` for byte `i`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Punctuation {
    /// ` `.
    pub(crate) space: u64,
    /// `{` and `[`.
    pub(crate) open: u64,
    /// `}` and `]`.
    pub(crate) close: u64,
    /// The bytes with bit 0x20 set: at a bracket, the curly ones.
    pub(crate) curly: u64,
    /// `:`.
    pub(crate) colon: u64,
    /// `,`.
    pub(crate) comma: u64,
}

/// The control bytes of a 64-byte block that are white space: a block scan asks for them only
/// when the block has control bytes outside its strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Controls {
    /// `\t` and `\r`.
    pub(crate) tab_cr: u64,
    /// `\n`.
    pub(crate) newline: u64,
}

/// The bytes of numbers in a 64-byte block: a block scan asks for them only when the block has
/// numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Scalars {
    /// `0` to `9`.
    pub(crate) digit: u64,
    /// `0`.
    pub(crate) zero: u64,
    /// `-`.
    pub(crate) minus: u64,
    /// `+`.
    pub(crate) plus: u64,
    /// `.`.
    pub(crate) point: u64,
    /// `e` and `E`.
    pub(crate) exponent: u64,
}

/// The block classification a bulk scan over 64-byte blocks needs, from some instruction set.
/// Each group of masks is asked for apart, so that a scan pays only for the groups a block
/// needs (a mask costs a compare on a port that the scan's other work shares).
pub(crate) trait Kernel: Copy {
    /// The string masks of `block`.
    fn strings(self, block: &[u8; 64]) -> StringMasks;
    /// The punctuation masks of `block`.
    fn punctuation(self, block: &[u8; 64]) -> Punctuation;
    /// The white-space control bytes of `block`.
    fn controls(self, block: &[u8; 64]) -> Controls;
    /// The bytes a number starts with (`-` and the digits) of `block`.
    fn number_starts(self, block: &[u8; 64]) -> u64;
    /// The number masks of `block`.
    fn scalars(self, block: &[u8; 64]) -> Scalars;
    /// The bytes of `block` that no `\\` may escape (all but `"\\/bfnrtu`), and its `u`s.
    fn non_escapes(self, block: &[u8; 64]) -> (u64, u64);
    /// Skips the plain text of `b` from `at`, two blocks at a time: returns where the first
    /// pair that holds a quote, a backslash or a control byte starts (or where fewer than 128
    /// bytes are left), and whether the bytes skipped hold one above ASCII. Inside a string,
    /// plain bytes need no further look; the long-string scan calls this at a string's start.
    ///
    /// Only a kernel that tests a pair more cheaply than it makes the pair's masks skips
    /// anything: AVX2, where each mask costs two moves out of the vectors, and AVX-512BW, whose
    /// test is three compares a block where the string scan's block costs some forty
    /// instructions. The baseline skips nothing, and its blocks are read as usual.
    #[inline(always)]
    fn skip_plain(self, _b: &[u8], at: usize) -> (usize, bool) {
        (at, false)
    }
    /// Bit `i` of the result is the xor of bits `0..=i` of `m`.
    fn prefix_xor(self, m: u64) -> u64;
    /// How many of the first block's bytes squeezing must drop (runs of white space in
    /// indented text) for the bulk scan to read the text squeezed (`scan/blocks.rs`); above
    /// 64, never. It weighs what [`Kernel::compress`] costs a block against what a block of the
    /// bulk scan costs: the scalar compress of the baseline never pays.
    const SQUEEZE_FROM: u32 = 65;
    /// The spaces of `block`, and its bytes up to a space (white space and control bytes).
    #[inline(always)]
    fn low_bytes(self, block: &[u8; 64]) -> (u64, u64) {
        let space = self.punctuation(block).space;
        (space, space | self.strings(block).control)
    }
    /// Writes the bytes of `block` that `keep` selects, in their order, to the start of `out`
    /// (what it writes after them is unspecified).
    #[inline(always)]
    fn compress(self, block: &[u8; 64], keep: u64, out: &mut [u8; 64]) {
        let mut keep = keep;
        for slot in out.iter_mut() {
            if keep == 0 {
                break;
            }
            *slot = block[keep.trailing_zeros() as usize % 64];
            keep &= keep - 1;
        }
    }
    /// Asks for the cache line of `b` at `at` (if there is one) to be loaded ahead of its use.
    fn prefetch(self, b: &[u8], at: usize);
}

/// A scan written once over any [`Kernel`]; [`with_widest_kernel`] runs it with the widest one
/// the CPU has. `run` should be `#[inline(always)]`, so that the scan is compiled into each
/// extension's function with that extension's masks.
pub(crate) trait KernelScan {
    /// What the scan returns.
    type Output;

    /// Runs the scan with `kernel`.
    fn run(self, kernel: impl Kernel) -> Self::Output;
}

/// Runs `scan` with the kernel of the widest vectors the CPU has (detected at run time), or
/// with [`Baseline`].
#[inline(always)]
pub(crate) fn with_widest_kernel<S: KernelScan>(scan: S) -> S::Output {
    #[cfg(all(target_arch = "x86_64", not(janus_codec_safe)))]
    if let Some(wide) = wide::Wide::detect() {
        return wide.run_kernel(scan);
    }
    scan.run(Baseline)
}

/// Runs the scan that `make` gives with every kernel the CPU has ([`Baseline`] first), for
/// tests that compare the kernels.
#[cfg(test)]
pub(crate) fn with_each_kernel<S: KernelScan>(make: impl Fn() -> S) -> Vec<S::Output> {
    let all = vec![make().run(Baseline)];
    #[cfg(all(target_arch = "x86_64", not(janus_codec_safe)))]
    let all = {
        let mut all = all;
        for wide in wide::Wide::all_detected() {
            all.push(wide.run_kernel(make()));
        }
        all
    };
    all
}

/// Every class of the bytes of 16 bytes, which [`Baseline`] assembles blocks from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Classes16 {
    strings: StringMasks,
    punctuation: Punctuation,
    controls: Controls,
    scalars: Scalars,
    /// [`Kernel::non_escapes`]: the bytes no backslash may escape, and `u`.
    others: u64,
    u: u64,
}

/// The kernel of the target's baseline: SSE2 compares through `safe_arch` on x86_64, plain
/// loops elsewhere; the prefix xor by shifts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Baseline;

impl Baseline {
    /// `pick`'s masks of the four chunks of `block`, side by side.
    #[inline(always)]
    fn assemble<const N: usize>(
        block: &[u8; 64],
        pick: impl Fn(&Classes16) -> [u64; N],
    ) -> [u64; N] {
        let mut m = [0; N];
        for (i, chunk) in block.chunks_exact(16).enumerate() {
            let c = classes16(chunk.try_into().unwrap_or(&[0; 16]));
            for (all, part) in m.iter_mut().zip(pick(&c)) {
                *all |= part << (16 * i);
            }
        }
        m
    }
}

impl Kernel for Baseline {
    #[inline(always)]
    fn strings(self, block: &[u8; 64]) -> StringMasks {
        let [quote, backslash, control, high] = Self::assemble(block, |c| {
            let s = c.strings;
            [s.quote, s.backslash, s.control, s.high]
        });
        StringMasks {
            quote,
            backslash,
            control,
            high,
        }
    }

    #[inline(always)]
    fn punctuation(self, block: &[u8; 64]) -> Punctuation {
        let [space, open, close, curly, colon, comma] = Self::assemble(block, |c| {
            let p = c.punctuation;
            [p.space, p.open, p.close, p.curly, p.colon, p.comma]
        });
        Punctuation {
            space,
            open,
            close,
            curly,
            colon,
            comma,
        }
    }

    #[inline(always)]
    fn controls(self, block: &[u8; 64]) -> Controls {
        let [tab_cr, newline] = Self::assemble(block, |c| [c.controls.tab_cr, c.controls.newline]);
        Controls { tab_cr, newline }
    }

    #[inline(always)]
    fn number_starts(self, block: &[u8; 64]) -> u64 {
        let [starts] = Self::assemble(block, |c| [c.scalars.minus | c.scalars.digit]);
        starts
    }

    #[inline(always)]
    fn scalars(self, block: &[u8; 64]) -> Scalars {
        let [digit, zero, minus, plus, point, exponent] = Self::assemble(block, |c| {
            let n = c.scalars;
            [n.digit, n.zero, n.minus, n.plus, n.point, n.exponent]
        });
        Scalars {
            digit,
            zero,
            minus,
            plus,
            point,
            exponent,
        }
    }

    #[inline(always)]
    fn non_escapes(self, block: &[u8; 64]) -> (u64, u64) {
        let [others, u] = Self::assemble(block, |c| [c.others, c.u]);
        (others, u)
    }

    #[inline(always)]
    fn prefetch(self, _: &[u8], _: usize) {}

    #[inline(always)]
    fn prefix_xor(self, mut m: u64) -> u64 {
        m ^= m << 1;
        m ^= m << 2;
        m ^= m << 4;
        m ^= m << 8;
        m ^= m << 16;
        m ^= m << 32;
        m
    }
}

/// The [`Classes16`] of 16 bytes: SSE2 compares through `safe_arch`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn classes16(s: &[u8; 16]) -> Classes16 {
    use safe_arch::{
        bitand_m128i, bitor_m128i, cmp_eq_mask_i8_m128i, m128i, min_u8_m128i, move_mask_i8_m128i,
        set_splat_i8_m128i, sub_i8_m128i,
    };
    let v = m128i::from(*s);
    let mask = |m: m128i| u64::from(move_mask_i8_m128i(m) as u16);
    let eq = |x: m128i, c: u8| mask(cmp_eq_mask_i8_m128i(x, set_splat_i8_m128i(c as i8)));
    // A byte is at most `n` when its unsigned minimum with `n` is the byte itself.
    let at_most = |x: m128i, n: u8| {
        mask(cmp_eq_mask_i8_m128i(
            min_u8_m128i(x, set_splat_i8_m128i(n as i8)),
            x,
        ))
    };
    // Setting bit 0x20 folds `[` onto `{`, `]` onto `}` and `E` onto `e`.
    let lower = bitor_m128i(v, set_splat_i8_m128i(0x20));
    Classes16 {
        strings: StringMasks {
            quote: eq(v, b'"'),
            backslash: eq(v, b'\\'),
            control: at_most(v, 0x1f),
            high: mask(v),
        },
        punctuation: Punctuation {
            space: eq(v, b' '),
            open: eq(lower, b'{'),
            close: eq(lower, b'}'),
            curly: eq(bitand_m128i(v, set_splat_i8_m128i(0x20)), 0x20),
            colon: eq(v, b':'),
            comma: eq(v, b','),
        },
        controls: Controls {
            tab_cr: eq(v, b'\t') | eq(v, b'\r'),
            newline: eq(v, b'\n'),
        },
        scalars: Scalars {
            digit: at_most(sub_i8_m128i(v, set_splat_i8_m128i(b'0' as i8)), 9),
            zero: eq(v, b'0'),
            minus: eq(v, b'-'),
            plus: eq(v, b'+'),
            point: eq(v, b'.'),
            exponent: eq(lower, b'e'),
        },
        others: !b"\"\\/bfnrtu".iter().fold(0, |m, &c| m | eq(v, c)) & 0xffff,
        u: eq(v, b'u'),
    }
}

/// The portable [`classes16`], also built in tests to check the SSE2 one.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
#[inline(always)]
fn classes16_portable(s: &[u8; 16]) -> Classes16 {
    let bits = |f: &dyn Fn(u8) -> bool| {
        s.iter()
            .enumerate()
            .fold(0u64, |m, (i, &x)| m | u64::from(f(x)) << i)
    };
    Classes16 {
        strings: StringMasks {
            quote: bits(&|x| x == b'"'),
            backslash: bits(&|x| x == b'\\'),
            control: bits(&|x| x < 0x20),
            high: bits(&|x| x >= 0x80),
        },
        punctuation: Punctuation {
            space: bits(&|x| x == b' '),
            open: bits(&|x| matches!(x, b'{' | b'[')),
            close: bits(&|x| matches!(x, b'}' | b']')),
            curly: bits(&|x| x & 0x20 != 0),
            colon: bits(&|x| x == b':'),
            comma: bits(&|x| x == b','),
        },
        controls: Controls {
            tab_cr: bits(&|x| matches!(x, b'\t' | b'\r')),
            newline: bits(&|x| x == b'\n'),
        },
        scalars: Scalars {
            digit: bits(&|x| x.is_ascii_digit()),
            zero: bits(&|x| x == b'0'),
            minus: bits(&|x| x == b'-'),
            plus: bits(&|x| x == b'+'),
            point: bits(&|x| x == b'.'),
            exponent: bits(&|x| matches!(x, b'e' | b'E')),
        },
        others: bits(&|x| !b"\"\\/bfnrtu".contains(&x)),
        u: bits(&|x| x == b'u'),
    }
}

/// The portable path of [`classes16`].
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn classes16(s: &[u8; 16]) -> Classes16 {
    classes16_portable(s)
}

/// The mask of the quotes of a chunk, and that of its bytes that a short plain string must not
/// hold: backslashes, control bytes, and bytes above ASCII (a string that holds those takes
/// the scanner's block scan, which notes them for the frame's UTF-8 check). SSE2 compares through
/// `safe_arch`.
///
/// The quotes have their own compare so that finding a string's end waits on one compare;
/// the other mask only confirms that path.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
pub(crate) fn quotes16(s: &[u8; 16]) -> (u64, u64) {
    use safe_arch::{
        bitor_m128i, cmp_eq_mask_i8_m128i, cmp_lt_mask_i8_m128i, m128i, move_mask_i8_m128i,
        set_splat_i8_m128i,
    };
    let v = m128i::from(*s);
    let quotes = cmp_eq_mask_i8_m128i(v, set_splat_i8_m128i(b'"' as i8));
    let backslashes = cmp_eq_mask_i8_m128i(v, set_splat_i8_m128i(b'\\' as i8));
    // As signed bytes, those below 0x20 are the control bytes and every byte above ASCII.
    let control = cmp_lt_mask_i8_m128i(v, set_splat_i8_m128i(0x20));
    (
        u64::from(move_mask_i8_m128i(quotes) as u16),
        u64::from(move_mask_i8_m128i(bitor_m128i(backslashes, control)) as u16),
    )
}

/// The portable [`quotes16`], also built in tests to check the SSE2 one.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
#[inline(always)]
fn quotes16_portable(s: &[u8; 16]) -> (u64, u64) {
    s.iter().enumerate().fold((0, 0), |(q, bad), (i, &x)| {
        (
            q | u64::from(x == b'"') << i,
            bad | u64::from(x == b'\\' || !(0x20..0x80).contains(&x)) << i,
        )
    })
}

/// The portable path of [`quotes16`].
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
pub(crate) fn quotes16(s: &[u8; 16]) -> (u64, u64) {
    quotes16_portable(s)
}

/// True for the bytes a JSON string must escape: `"`, `\`, and the control bytes.
#[inline(always)]
pub(crate) const fn needs_escape(c: u8) -> bool {
    c < 0x20 || c == b'"' || c == b'\\'
}

/// A 16-bit mask of the bytes of `s` that need escaping (bit `i` for `s[i]`), by SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
pub(crate) fn escape_mask16(s: &[u8; 16]) -> u32 {
    use safe_arch::{
        cmp_eq_mask_i8_m128i, m128i, min_u8_m128i, move_mask_i8_m128i, set_splat_i8_m128i,
    };
    let v = m128i::from(*s);
    let quote = cmp_eq_mask_i8_m128i(v, set_splat_i8_m128i(b'"' as i8));
    let backslash = cmp_eq_mask_i8_m128i(v, set_splat_i8_m128i(b'\\' as i8));
    // A byte is below 0x20 when the unsigned minimum with 0x1f is the byte itself.
    let control = cmp_eq_mask_i8_m128i(min_u8_m128i(v, set_splat_i8_m128i(0x1f)), v);
    move_mask_i8_m128i(quote | backslash | control) as u32
}

/// A 16-bit mask of the bytes of `s` that need escaping: the portable path.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
pub(crate) fn escape_mask16(s: &[u8; 16]) -> u32 {
    escape_mask16_portable(s)
}

/// The portable [`escape_mask16`], also built in tests to check it against the SSE2 one.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
fn escape_mask16_portable(s: &[u8; 16]) -> u32 {
    s.iter()
        .enumerate()
        .fold(0, |m, (i, &c)| m | (u32::from(needs_escape(c)) << i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::xorshift;

    /// `n` blocks of bytes that matter to the masks, and neighbours of them.
    fn blocks<const N: usize>(alphabet: &[u8], n: usize, seed: u64) -> Vec<[u8; N]> {
        let mut state = seed;
        (0..n)
            .map(|_| {
                let mut block = [0u8; N];
                for b in &mut block {
                    *b = alphabet[(xorshift(&mut state) % alphabet.len() as u64) as usize];
                }
                block
            })
            .collect()
    }

    #[test]
    fn portable_masks_agree_with_the_target_masks() {
        let alphabet = [
            b'"', b'\\', b'a', 0, 0x1f, 0x20, 0x7f, 0x80, 0xe0, 0xff, b' ', b'\n',
        ];
        let n = if cfg!(miri) { 200 } else { 20_000 };
        for chunk in blocks::<16>(&alphabet, n, 0x9E37_79B9_7F4A_7C15) {
            assert_eq!(quotes16(&chunk), quotes16_portable(&chunk), "{chunk:?}");
        }
    }

    #[test]
    fn portable_kernel_masks_agree_with_the_target_masks() {
        let alphabet = [
            b'"',
            b'\\',
            0,
            0x1f,
            b' ',
            b'\t',
            b'\r',
            b'\n',
            b'{',
            b'}',
            b'[',
            b']',
            b':',
            b',',
            b'0',
            b'9',
            b'/',
            b'-',
            b'+',
            b'.',
            b'e',
            b'E',
            b't',
            b'f',
            b'n',
            b'a',
            b'b',
            b'r',
            b'u',
            0x7f,
            0x80,
            0xff,
            0x5b | 0x80,
            b'@',
            b'`',
        ];
        let n = if cfg!(miri) { 200 } else { 20_000 };
        for block in blocks::<16>(&alphabet, n, 0x5851_F42D_4C95_7F2D) {
            assert_eq!(classes16(&block), classes16_portable(&block), "{block:?}");
        }
    }

    #[test]
    fn the_baseline_prefix_xor_is_the_running_parity() {
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        for _ in 0..1000 {
            let state = xorshift(&mut state);
            let mut parity = 0;
            let mut want = 0;
            for i in 0..64 {
                parity ^= (state >> i) & 1;
                want |= parity << i;
            }
            assert_eq!(Baseline.prefix_xor(state), want);
        }
    }

    #[test]
    fn portable_escape_mask_agrees_with_the_target_mask() {
        let alphabet = [b'"', b'\\', b'a', 0, 0x1f, 0x20, 0x7f, 0x80, 0xff, b'\n'];
        let n = if cfg!(miri) { 200 } else { 20_000 };
        for block in blocks::<16>(&alphabet, n, 0x2545_F491_4F6C_DD1D) {
            assert_eq!(
                escape_mask16(&block),
                escape_mask16_portable(&block),
                "{block:?}"
            );
        }
    }
}
