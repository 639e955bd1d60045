//! The bulk scan: the rest of a large container validated 64 bytes at a time, from masks of
//! each block's bytes, with no step per token.
//!
//! The token walk of `mod.rs` costs some thirty instructions a token wherever the tokens are
//! dense (schemas, `tools/list` results, numeric arguments). Once a container has taken more
//! than [`BULK_AFTER`] bytes, the walk hands the rest of it to this scan at the end of a value.
//! Each block is classified by a [`Kernel`] (AVX-512BW, AVX2 or SSE2), and the grammar is
//! checked on the masks:
//!
//! - strings: the escaped bytes come from the backslash runs, the string bodies from a prefix
//!   xor of the other quotes; a raw control byte inside one is a fault, and each escape is
//!   checked where its backslash is;
//! - every token's successor (past white space) is found by adding the bits just after its
//!   kind of token to the white space mask, so that the carry runs through the white space;
//!   each kind's successors must be of the kinds the grammar allows after it;
//! - which strings are keys: those after `{` or after a `,` in an object (the container of
//!   each byte comes from a step per bracket, which also checks their nesting and the depth
//!   limit);
//! - numbers: the rules of their grammar as shifts of the masks of digits, signs, points and
//!   exponent letters, within each run of bytes that is neither white space nor punctuation;
//! - literals: one compare each.
//!
//! Indented text is read squeezed where the kernel has a cheap compress: each run of white
//! space shrinks to its first byte before the blocks are made (`blocks.rs`), which leaves the
//! verdict as it was and makes about half the blocks.
//!
//! The scan only accepts: at the first fault, and at anything it does not decide itself (an
//! exponent of three digits or more, a number longer than a block), it gives up and the token
//! walk takes the container from where it handed it over, so every fault is named by the walk
//! and every verdict is the walk's.

#[cfg(test)]
use super::Containers;
use super::blocks::{Blocks, Direct, Squeezed, worth_squeezing};
use super::{Scanner, escaped_bytes};
use crate::arch::{self, Kernel, KernelScan, Scalars};

/// How many bytes a container's token walk takes before it hands the rest to the bulk scan.
/// Small containers (most of a small message) never reach it.
pub(crate) const BULK_AFTER: usize = 128;

/// `after`'s bits, and `pending`'s, moved to the first byte from each that is not `filler`
/// (the carry of the sum runs through the filler run); `pending` takes a search that reached
/// the block's end to the next block. `compact`: `filler` is empty.
#[inline(always)]
fn follows(after: u64, filler: u64, compact: bool, pending: &mut u64) -> u64 {
    let a = after | *pending;
    if compact {
        *pending = 0;
        return a;
    }
    let (sum, over) = a.overflowing_add(filler);
    *pending = u64::from(over);
    sum & !filler
}

/// The bits of the runs of `run` that follow (within the run) each bit of `marks`, to the
/// run's end; `carry` takes a zone open at the block's end to the next block.
#[inline(always)]
fn zone(run: u64, marks: u64, carry: &mut u64) -> u64 {
    let a = (marks << 1) | *carry;
    let (sum, over) = run.overflowing_add(a);
    *carry = (marks >> 63) | u64::from(over);
    (sum ^ run) & run
}

/// What the scan carries from one block to the next.
#[derive(Default)]
struct Carries {
    /// The first byte is escaped by a backslash at the end of the block before.
    escape: u64,
    /// All ones when a string goes on from the block before.
    in_string: u64,
    /// Successor searches pending from the block before: after `{` or `[`, after `,`, after
    /// `:`, after a value, after a key.
    open: u64,
    comma: u64,
    colon: u64,
    value: u64,
    key: u64,
    /// A key's opening bit, carried through a string that goes on.
    key_string: u64,
    /// The last byte of the block before is part of a scalar.
    scalar: u64,
    /// A number's run goes on.
    number: u64,
}

/// What the number rules carry from one block to the next (all zero after a block without
/// numbers): the last bytes of the block before.
#[derive(Default)]
struct NumberCarries {
    /// An exponent letter.
    exponent: u64,
    /// A sign or a point.
    sign_or_point: u64,
    /// A number's leading `-`.
    leading_minus: u64,
    /// A number's leading zero.
    leading_zero: u64,
    /// An exponent's zone goes on.
    exponent_zone: u64,
    /// A fraction's zone goes on.
    point_zone: u64,
    /// The exponent digits, for the count of three in a row.
    exponent_digits: u64,
}

impl NumberCarries {
    #[inline(always)]
    const fn any(&self) -> u64 {
        self.exponent
            | self.sign_or_point
            | self.leading_minus
            | self.leading_zero
            | self.exponent_zone
            | self.point_zone
            | self.exponent_digits
    }
}

/// The most containers the bulk scan keeps: one bit each in a word, under a sentinel bit.
const MAX_LEVELS: usize = 62;

impl Scanner<'_> {
    /// Takes the rest of the `depth` containers open (at least one), whose kinds are the low
    /// bits of `kinds` (bit 0 the innermost; set for objects), from the cursor, which is just
    /// past a value inside the innermost; at most `room` containers may be open at once.
    /// Returns whether the outermost was an object, with the cursor past it, or `None`, with
    /// the cursor where it was, when the scan found a fault or something it leaves to the
    /// token walk.
    ///
    /// The walk's stack comes as words, not by reference: a reference would keep the walk's
    /// stack in memory (its address taken) for all of the walk. Out of line, so that the walk
    /// stays small.
    #[inline(never)]
    pub(super) fn bulk_rest(&mut self, kinds: u64, depth: usize, room: usize) -> Option<bool> {
        if depth == 0 || depth >= MAX_LEVELS {
            return None;
        }
        let sentinel = 1u64 << depth;
        arch::with_widest_kernel(Bulk {
            sc: self,
            levels: sentinel | (kinds & (sentinel - 1)),
            limit: room.min(MAX_LEVELS),
        })
    }

    /// [`Scanner::bulk_rest`] with the masks of `k`. `levels` holds the open containers, a bit
    /// each (bit 0 the innermost; set for objects) under a sentinel bit; at most `limit` may be
    /// open at once. Indented text is read squeezed (`blocks.rs`) when the kernel squeezes
    /// cheaply and the first block drops enough of its bytes.
    #[inline(always)]
    fn bulk_with(&mut self, k: impl Kernel, levels: u64, limit: usize) -> Option<bool> {
        if worth_squeezing(k, self.b, self.pos, self.squeeze_from) {
            return self.bulk_over(k, Squeezed::new(self.b, self.pos), levels, limit);
        }
        self.bulk_over(k, Direct::new(self.b, self.pos), levels, limit)
    }

    /// [`Scanner::bulk_with`] over the blocks of `src`.
    #[inline(always)]
    fn bulk_over(
        &mut self,
        k: impl Kernel,
        mut src: impl Blocks,
        mut levels: u64,
        limit: usize,
    ) -> Option<bool> {
        let mut c = Carries {
            value: 1,
            ..Carries::default()
        };
        let mut nc = NumberCarries::default();
        // Whether any of `nc` is set.
        let mut nc_pending = 0u64;
        let mut high = 0u64;
        // Where the next escape may start: past a surrogate pair's second half.
        let mut escapes_from = src.at();
        let newline = if self.newline_ends { 0 } else { !0 };
        loop {
            // The last block is padded with spaces, which are white space.
            let (block, len) = src.next(k);
            let s = k.strings(block);
            let escaped = escaped_bytes(s.backslash, &mut c.escape);
            let quotes = s.quote & !escaped;
            if quotes == 0 && c.in_string != 0 {
                // The whole block is inside a string: only its bytes need a look.
                if s.control != 0 {
                    return None;
                }
                high |= s.high;
                self.view(src.text())
                    .escapes_in(escaped, src.at(), &mut escapes_from)
                    .ok()?;
                if len < 64 {
                    return None;
                }
                src.advance(&mut escapes_from);
                continue;
            }
            // A string's opening quote and body; its closing quote is outside.
            let inside = k.prefix_xor(quotes) ^ c.in_string;
            c.in_string = 0u64.wrapping_sub(inside >> 63);
            let opening = quotes & inside;
            let closing = quotes & !inside;
            let outside = !(inside | closing);

            let t = k.punctuation(block);
            let mut ws = t.space & outside;
            if s.control & outside != 0 {
                // Tabs, line breaks (white space unless a line feed ends the text), or control
                // bytes that are not white space, which are then scalars' bytes and faults.
                let w = k.controls(block);
                ws |= (w.tab_cr | (w.newline & newline)) & outside;
            }
            let open = t.open & outside;
            let close = t.close & outside;
            let colon = t.colon & outside;
            let comma = t.comma & outside;
            let scalar = outside & !(ws | open | close | colon | comma);

            // Brackets, in order: their nesting, and the kind of the innermost container after
            // each (`tops`, set for objects).
            let top = levels & 1;
            let mut tops = 0u64;
            let mut highest = levels;
            let mut keep = !0u64;
            // The kind of the outermost container, once its closing bracket is found.
            let mut end = None;
            let mut brackets = open | close;
            while brackets != 0 {
                let bracket = brackets & brackets.wrapping_neg();
                let curly = u64::from(t.curly & bracket != 0);
                levels = if open & bracket != 0 {
                    (levels << 1) | curly
                } else {
                    levels >> 1
                };
                highest = highest.max(levels);
                if levels == 1 {
                    // Only the sentinel is left: the outermost container ends here.
                    keep = brackets ^ (brackets - 1);
                    end = Some(curly != 0);
                    break;
                }
                tops |= bracket & (levels & 1).wrapping_neg();
                brackets ^= bracket;
            }
            if highest >> (limit + 1) != 0 {
                return None;
            }
            // The container each byte belongs to (`ctx`, set for objects): the innermost one
            // after the last bracket before it. So a bracket belongs to the container around
            // it when it opens one and to the one it ends when it closes one, which is the
            // container of the token after it in either case. Between brackets, each run takes
            // the kind after the bracket before it, carried through the run by a sum.
            let brackets = (open | close) & keep;
            let runs = !brackets;
            let starts = ((tops << 1) | top) & runs;
            let filled = (runs.wrapping_add(starts) ^ runs) & runs;
            let ctx = filled | (brackets & (((filled | tops) << 1) | top));
            // A closing bracket is of the kind of the container it ends.
            let mismatch = close & keep & (ctx ^ t.curly);

            let scalar_start = scalar & !((scalar << 1) | c.scalar);
            let scalar_after = !scalar & ((scalar << 1) | c.scalar);
            c.scalar = scalar >> 63;
            let value_start = opening | scalar_start | open;

            // Each token's successor must be of a kind its own kind allows. In compact text
            // (no white space in the block) a token's successor is the byte after it.
            let compact = ws == 0;
            let after_open = follows(open << 1, ws, compact, &mut c.open);
            let after_comma = follows(comma << 1, ws, compact, &mut c.comma);
            let after_colon = follows(colon << 1, ws, compact, &mut c.colon);
            c.open |= open >> 63;
            c.comma |= comma >> 63;
            c.colon |= colon >> 63;
            // After `{` a key or `}`, after `[` a value or `]`; after `,` a key in an object
            // and a value in an array (so no closing bracket); after `:` a value.
            let allowed = value_start & !(ctx & !opening);
            let after_open_or_comma = after_open | after_comma;
            let mut fault = mismatch
                | (after_open_or_comma & !(allowed | close))
                | (after_comma & close)
                | (after_colon & !value_start);
            // Keys open after `{` and after `,` in objects; the key's opening bit is carried
            // through its body to its closing quote (an opening quote at bit 0 means that no
            // string goes on from the block before, so the carry and it never meet).
            let key_open = after_open_or_comma & ctx & opening;
            let (sum, over) = inside.overflowing_add(key_open | c.key_string);
            c.key_string = u64::from(over);
            let key_close = sum & closing;
            let value_end = (closing & !key_close) | close;
            let after_value = follows((value_end << 1) | scalar_after, ws, compact, &mut c.value);
            let after_key = follows(key_close << 1, ws, compact, &mut c.key);
            c.value |= value_end >> 63;
            c.key |= key_close >> 63;
            fault |= (after_value & !(comma | close)) | (after_key & !colon);

            // Strings: no raw control byte; bytes above ASCII for the frame's UTF-8 check.
            fault |= s.control & inside;
            high |= s.high & inside & keep;

            // Scalars: numbers and literals. A number's run is its first bit carried through
            // the run (a run at bit 0 goes on from the block before or starts there, not both).
            let number_start = if scalar != 0 {
                scalar_start & k.number_starts(block)
            } else {
                0
            };
            // Literals are the other scalars: each is checked whole below (so a scalar that is
            // neither is a fault there).
            let literal_start = scalar_start & !number_start;
            if number_start | nc_pending != 0 {
                let n = k.scalars(block);
                let (sum, over) = scalar.overflowing_add(number_start | c.number);
                c.number = u64::from(over);
                let number = (sum ^ scalar) & scalar;
                let signs_points_exponents = (n.minus | n.plus | n.point | n.exponent) & number;
                if signs_points_exponents | nc_pending != 0 {
                    fault |= number_faults(&n, number, number_start, &mut nc)?;
                    nc_pending = nc.any() | c.number;
                } else {
                    // Unsigned integers: digits, and no digit after a leading zero.
                    let leading_zero = number_start & n.zero;
                    fault |= (number & !n.digit) | ((leading_zero << 1) & n.digit);
                    nc.leading_zero = leading_zero >> 63;
                    nc_pending = nc.leading_zero | c.number;
                }
            } else {
                c.number = 0;
            }

            if fault & keep != 0 {
                return None;
            }
            let at = src.at();
            let view = self.view(src.text());
            view.escapes_in(escaped & inside & keep, at, &mut escapes_from)
                .ok()?;
            let mut literals = literal_start & keep;
            while literals != 0 {
                if !view.literal_ends_at(at + literals.trailing_zeros() as usize) {
                    return None;
                }
                literals &= literals - 1;
            }
            if let Some(object) = end {
                let pos = src.position(k, at + (64 - keep.leading_zeros() as usize))?;
                self.maybe_non_ascii |= high != 0;
                // INVARIANT of `pos`: just past a closing bracket.
                self.pos = pos;
                return Some(object);
            }
            if len < 64 {
                return None;
            }
            src.advance(&mut escapes_from);
        }
    }

    /// True when a literal (`true`, `false` or `null`) stands whole at `i`, with a byte after
    /// it that ends a scalar. Its letters are compared as one word (a slice compare would call
    /// the C library's `bcmp` for each literal).
    #[inline]
    fn literal_ends_at(&self, i: usize) -> bool {
        const TRUE: u32 = u32::from_le_bytes(*b"true");
        const NULL: u32 = u32::from_le_bytes(*b"null");
        const FALS: u32 = u32::from_le_bytes(*b"fals");
        let b = self.b;
        let Some(&[w0, w1, w2, w3]) = b.get(i..i + 4) else {
            return false;
        };
        let end = match u32::from_le_bytes([w0, w1, w2, w3]) {
            TRUE | NULL => i + 4,
            FALS if b.get(i + 4) == Some(&b'e') => i + 5,
            _ => return false,
        };
        b.get(end).is_some_and(|&x| match x {
            b' ' | b'\t' | b'\r' | b',' | b':' | b'"' | b'{' | b'}' | b'[' | b']' => true,
            b'\n' => !self.newline_ends,
            _ => false,
        })
    }
}

/// The faults of the numbers of a block (the runs in `number`, starting at `start`) against
/// their grammar, as masks; `None` for a number the token walk must read (an exponent of three
/// digits or more).
#[inline(always)]
fn number_faults(t: &Scalars, number: u64, start: u64, c: &mut NumberCarries) -> Option<u64> {
    let minus = t.minus & number;
    let plus = t.plus & number;
    let point = t.point & number;
    let exponent = t.exponent & number;
    if number == !0 {
        // A number longer than a block: the token walk checks its value's range.
        return None;
    }
    let mut fault = number & !(t.digit | minus | plus | point | exponent);
    let after_exponent = (exponent << 1) | c.exponent;
    // A `-` leads a number or follows an exponent letter; a `+` follows one.
    fault |= minus & !(start | after_exponent);
    fault |= plus & !after_exponent;
    // After a sign or a point comes a digit; after an exponent letter, a digit or a sign. (So
    // a point or an exponent letter, which no run starts with, follows a digit.)
    let sign_or_point = minus | plus | point;
    fault |= ((sign_or_point << 1) | c.sign_or_point) & !t.digit;
    fault |= after_exponent & !(t.digit | t.minus | t.plus);
    // No digit after a leading zero.
    let leading_minus = start & t.minus;
    let int_start = (start & t.digit) | (leading_minus << 1) | c.leading_minus;
    let leading_zero = int_start & t.zero;
    fault |= ((leading_zero << 1) | c.leading_zero) & t.digit;
    // One point at most, one exponent at most, the point first.
    let exponent_zone = zone(number, exponent, &mut c.exponent_zone);
    let point_zone = zone(number, point, &mut c.point_zone);
    fault |= exponent_zone & (point | exponent);
    fault |= point_zone & point;
    // Exponents of three digits or more are left to the token walk, which checks that the
    // value fits a double.
    let e = exponent_zone & t.digit;
    let two = e & ((e << 1) | (c.exponent_digits >> 63));
    if two & ((e << 2) | (c.exponent_digits >> 62)) != 0 {
        return None;
    }
    c.exponent_digits = e;
    c.exponent = exponent >> 63;
    c.sign_or_point = sign_or_point >> 63;
    c.leading_minus = leading_minus >> 63;
    c.leading_zero = leading_zero >> 63;
    Some(fault)
}

/// [`Scanner::bulk_rest`] as a scan over a kernel, for `arch` to run with the widest one.
struct Bulk<'sc, 'buf> {
    sc: &'sc mut Scanner<'buf>,
    levels: u64,
    limit: usize,
}

impl KernelScan for Bulk<'_, '_> {
    type Output = Option<bool>;

    #[inline(always)]
    fn run(self, kernel: impl Kernel) -> Self::Output {
        self.sc.bulk_with(kernel, self.levels, self.limit)
    }
}

/// Runs the bulk scan over `text` from `from` (just past a value) inside the containers
/// `kinds` (outermost first; `true` for objects), with no depth limit, reading the text
/// squeezed as `squeeze_from` says ([`Scanner::with_squeeze_from`]): where it ends, when it
/// takes the text, and whether it took a byte above ASCII.
#[cfg(test)]
pub(crate) fn bulk_end(
    text: &[u8],
    from: usize,
    kinds: &[bool],
    squeeze_from: usize,
) -> Option<(usize, bool)> {
    let mut sc = Scanner::validated(text).with_squeeze_from(Some(squeeze_from));
    let mut stack = Containers::new();
    for &k in kinds {
        stack.push(k);
    }
    sc.pos = from;
    let outermost = sc.bulk_rest(stack.inner, stack.len, usize::MAX)?;
    assert_eq!(Some(&outermost), kinds.first());
    Some((sc.pos, sc.maybe_non_ascii))
}
