//! The byte masks under the scanner and the writers, and the run-time choice of the widest
//! vectors the CPU has.
//!
//! Everything here works on byte slices and knows nothing of JSON's grammar: the scanner
//! (`scan.rs`) and the string writer (`raw.rs`) call it, and it calls neither.
//!
//! - On x86_64 the masks of 16-byte chunks come from SSE2 compares through `safe_arch` (SSE2 is
//!   the target's baseline, so this needs no `unsafe`); every other target takes the portable
//!   loops beside them, which tests also build to check the SSE2 ones.
//! - The masks of 64-byte blocks, which the scan of long strings reads, come from the widest
//!   extension the CPU has, chosen at run time ([`with_widest_masks`]): AVX-512BW or AVX2 in
//!   `wide`, else four SSE2 chunks ([`masks64`]).
//!   A scan written once over any block masks is a [`BlockScan`]; `wide` runs it inside a
//!   function compiled for its extension, so the masks inline into it.
//!
//! Build with `RUSTFLAGS="--cfg janus_codec_safe"` to leave `wide` (the only `unsafe` code of
//! this folder) out and use the SSE2 path everywhere.

#[cfg(all(target_arch = "x86_64", not(janus_codec_safe)))]
mod wide;

/// A scan over 64-byte blocks, written once over the block masks it is given.
///
/// [`with_widest_masks`] runs it with the widest masks the CPU has. `run` should be
/// `#[inline(always)]`, so that the scan is compiled into each extension's function with that
/// extension's masks.
pub(crate) trait BlockScan {
    /// What the scan returns.
    type Output;

    /// Runs the scan; `masks` gives the masks of one block, as [`masks64`] does.
    fn run(self, masks: impl Fn(&[u8; 64]) -> (u64, u64)) -> Self::Output;
}

/// Runs `scan` with the block masks of the widest vectors the CPU has (detected at run time,
/// the check cached by the standard library), or with [`masks64`].
#[inline(always)]
pub(crate) fn with_widest_masks<S: BlockScan>(scan: S) -> S::Output {
    #[cfg(all(target_arch = "x86_64", not(janus_codec_safe)))]
    if let Some(wide) = wide::Wide::detect() {
        return wide.run(scan);
    }
    scan.run(masks64)
}

/// True when some byte of `b` satisfies `class`. Whole 64-byte blocks are tested without an
/// early exit inside them, so the compare vectorises.
#[inline]
pub(crate) fn any_byte(b: &[u8], class: impl Fn(u8) -> bool) -> bool {
    let mut blocks = b.chunks_exact(64);
    for block in &mut blocks {
        if block.iter().fold(0u8, |acc, &x| acc | u8::from(class(x))) != 0 {
            return true;
        }
    }
    blocks.remainder().iter().any(|&x| class(x))
}

/// True for the bytes that end a plain run of string text: `"`, `\`, and the control bytes
/// (below 0x20), which a string must not hold raw.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
#[inline(always)]
const fn is_special(x: u8) -> bool {
    x == b'"' || x == b'\\' || x < 0x20
}

/// The masks of the special bytes (see [`is_special`]) and of the backslashes of a chunk (bit
/// `i` for byte `i`): SSE2 compares through `safe_arch`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn masks16(s: &[u8; 16]) -> (u64, u64) {
    use safe_arch::{
        bitor_m128i, bitxor_m128i, cmp_eq_mask_i8_m128i, m128i, min_u8_m128i, move_mask_i8_m128i,
        set_splat_i8_m128i,
    };
    let v = m128i::from(*s);
    let backslashes = cmp_eq_mask_i8_m128i(v, set_splat_i8_m128i(b'\\' as i8));
    // `x ^ 2` is at most 0x20 exactly for `"` (0x22) and the control bytes (below 0x20).
    let flipped = bitxor_m128i(v, set_splat_i8_m128i(2));
    let low = min_u8_m128i(flipped, set_splat_i8_m128i(0x20));
    let quote_or_control = cmp_eq_mask_i8_m128i(low, flipped);
    let special = bitor_m128i(quote_or_control, backslashes);
    (
        u64::from(move_mask_i8_m128i(special) as u16),
        u64::from(move_mask_i8_m128i(backslashes) as u16),
    )
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

/// The portable [`masks16`], also built in tests to check the SSE2 one.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
#[inline(always)]
fn masks16_portable(s: &[u8; 16]) -> (u64, u64) {
    s.iter().enumerate().fold((0, 0), |(m, b), (i, &x)| {
        (
            m | u64::from(is_special(x)) << i,
            b | u64::from(x == b'\\') << i,
        )
    })
}

/// The portable path of [`masks16`].
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn masks16(s: &[u8; 16]) -> (u64, u64) {
    masks16_portable(s)
}

/// The [`masks16`] of a 64-byte block: four chunks' masks side by side.
#[inline(always)]
pub(crate) fn masks64(block: &[u8; 64]) -> (u64, u64) {
    let mut m = (0, 0);
    for (i, chunk) in block.chunks_exact(16).enumerate() {
        let (special, backslashes) = masks16(chunk.try_into().unwrap_or(&[0; 16]));
        m.0 |= special << (16 * i);
        m.1 |= backslashes << (16 * i);
    }
    m
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

    /// `n` blocks of bytes that matter to the masks, and neighbours of them.
    fn blocks<const N: usize>(alphabet: &[u8], n: usize, seed: u64) -> Vec<[u8; N]> {
        let mut state = seed;
        (0..n)
            .map(|_| {
                let mut block = [0u8; N];
                for b in &mut block {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    *b = alphabet[(state % alphabet.len() as u64) as usize];
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
        for block in blocks::<64>(&alphabet, n, 0x9E37_79B9_7F4A_7C15) {
            let whole = masks64(&block);
            for (i, chunk) in block.chunks_exact(16).enumerate() {
                let chunk: &[u8; 16] = chunk.try_into().unwrap();
                let m = masks16(chunk);
                assert_eq!(m, masks16_portable(chunk), "{chunk:?}");
                assert_eq!((whole.0 >> (16 * i)) & 0xffff, m.0);
                assert_eq!((whole.1 >> (16 * i)) & 0xffff, m.1);
                assert_eq!(quotes16(chunk), quotes16_portable(chunk), "{chunk:?}");
            }
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
