//! Numbers: the grammar of JSON's numbers and the range `serde_json` takes, read a few steps
//! a number for the shapes messages hold, by the general routine for the rest.

use super::{Scanner, word_at};
use crate::Error;

impl Scanner<'_> {
    /// Reads a number at the cursor; returns whether `serde_json` would read it as an integer.
    ///
    /// Numbers as messages hold them (integers of up to 18 digits, decimals, exponents of up
    /// to two digits, with or without a sign) are read here in a few steps, runs of digits
    /// eight bytes at a time; every other number, and every fault, in
    /// [`Scanner::number_slow`].
    #[inline(always)]
    pub(super) fn number(&mut self) -> Result<bool, Error> {
        // Most numbers in messages are short positive integers (ids, counts, limits): up to 18
        // digits always fit a `u64`.
        let b = self.b;
        let start = self.pos;
        if matches!(b.get(start), Some(b'1'..=b'9')) {
            let i = digit_run(b, start + 1);
            if i - start <= 18 && !matches!(b.get(i), Some(b'.' | b'e' | b'E')) {
                self.pos = i;
                return Ok(true);
            }
            return self.number_dense(Some(i));
        }
        self.number_dense(None)
    }

    /// [`Scanner::number`] for the rest: signs, decimals, exponents. `int_end` is where the
    /// digits end, when [`Scanner::number`] found that already (a number without a sign).
    #[inline(never)]
    fn number_dense(&mut self, int_end: Option<usize>) -> Result<bool, Error> {
        let b = self.b;
        let start = self.pos;
        let negative = b.get(start) == Some(&b'-');
        let int_start = start + usize::from(negative);
        let mut i = match (int_end, b.get(int_start)) {
            (Some(end), _) => end,
            (None, Some(b'1'..=b'9')) => digit_run(b, int_start + 1),
            (None, Some(b'0')) => int_start + 1,
            (None, _) => return self.number_slow(),
        };
        let int_digits = i - int_start;
        let mut integer = true;
        if b.get(i) == Some(&b'.') {
            let end = digit_run(b, i + 1);
            if end == i + 1 {
                return self.number_slow();
            }
            i = end;
            integer = false;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            let mut d = i + 1;
            if matches!(b.get(d), Some(b'+' | b'-')) {
                d += 1;
            }
            let end = digit_run(b, d);
            // NB. Up to 200 digits before the point and an exponent under 100, the value is
            // below 10^300: finite, as serde_json needs.
            if end == d || end - d > 2 || int_digits > 200 {
                return self.number_slow();
            }
            i = end;
            integer = false;
        }
        if integer {
            // Up to 18 digits fit an `i64` and a `u64`; serde_json reads `-0` as a float.
            if int_digits > 18 || (negative && b[int_start] == b'0') {
                return self.number_slow();
            }
        } else if int_digits > 200 {
            return self.number_slow();
        }
        self.pos = i;
        Ok(integer)
    }

    /// [`Scanner::number`] for every number.
    #[inline(never)]
    fn number_slow(&mut self) -> Result<bool, Error> {
        let b = self.b;
        let start = self.pos;
        let mut i = start;
        let negative = b[i] == b'-';
        if negative {
            i += 1;
        }
        let int_start = i;
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i = digit_run(b, i + 1),
            Some(_) => return Err(Error::BadNumber),
            None => return Err(Error::Truncated),
        }
        let int_digits = i - int_start;
        let int_is_zero = b[int_start] == b'0';
        let mut integer = true;
        if b.get(i) == Some(&b'.') {
            i = digits(b, i + 1)?;
            integer = false;
        }
        let mut exp: i64 = 0;
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            let neg_exp = match b.get(i) {
                Some(b'-') => {
                    i += 1;
                    true
                }
                Some(b'+') => {
                    i += 1;
                    false
                }
                _ => false,
            };
            let d = i;
            i = digits(b, i)?;
            exp = b[d..i].iter().fold(0i64, |e, &c| {
                e.saturating_mul(10).saturating_add(i64::from(c - b'0'))
            });
            if neg_exp {
                exp = -exp;
            }
            integer = false;
        }
        self.pos = i;
        // serde_json reads `-0` as a float, and integers beyond i64/u64 as floats.
        if integer {
            let digits = &b[int_start..i];
            let fits = if negative {
                !int_is_zero && fits_under(digits, b"9223372036854775808")
            } else {
                fits_under(digits, b"18446744073709551615")
            };
            if fits {
                return Ok(true);
            }
        }
        // serde_json refuses a number whose value overflows a double. Anything below 10^300 is
        // finite; only the rare rest is parsed to find out.
        let magnitude = if int_is_zero {
            exp
        } else {
            exp.saturating_add(int_digits as i64)
        };
        if magnitude > 300 {
            // The number's bytes are ASCII: the grammar above took only digits, signs, `.`
            // and exponent letters.
            let v: f64 = core::str::from_utf8(&b[start..i])
                .ok()
                .and_then(|s| s.parse().ok())
                .ok_or(Error::BadNumber)?;
            if v.is_infinite() {
                return Err(Error::BadNumber);
            }
        }
        Ok(false)
    }
}

/// Skips the digits from `i` on, of which there must be one at least; returns where they end.
fn digits(b: &[u8], start: usize) -> Result<usize, Error> {
    let i = digit_run(b, start);
    if i > start {
        Ok(i)
    } else if i == b.len() {
        Err(Error::Truncated)
    } else {
        Err(Error::BadNumber)
    }
}

/// The end of the run of ASCII digits that starts at `i` (`i` itself when there is none),
/// eight bytes a step: no branch per digit.
#[inline(always)]
fn digit_run(b: &[u8], mut i: usize) -> usize {
    while let Some(w) = word_at(b, i) {
        let m = non_digits8(w);
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while matches!(b.get(i), Some(b'0'..=b'9')) {
        i += 1;
    }
    i
}

/// The high bit of each byte of `v` (little-endian) that may not be an ASCII digit, exact
/// up to and including the first such byte (a carry may mark bytes after it, which no
/// caller reads).
///
/// A digit `0x30..=0x39` xor `0x30` is `0..=9`, and adding `0x76` leaves its high bit clear;
/// any other byte has its high bit set by one of the two.
#[inline(always)]
const fn non_digits8(v: u64) -> u64 {
    let a = v ^ 0x3030_3030_3030_3030;
    (a.wrapping_add(0x7676_7676_7676_7676) | a) & 0x8080_8080_8080_8080
}

/// True when the decimal `digits` (no sign, no leading zero) are at most `max`.
fn fits_under(digits: &[u8], max: &[u8]) -> bool {
    digits.len() < max.len() || (digits.len() == max.len() && digits <= max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::Kind;
    use crate::scan::tests::check;

    #[test]
    fn the_digit_run_ends_at_the_first_byte_that_is_no_digit() {
        // Every byte value, at every place of an eight-byte step and of the tail after it.
        for len in [3usize, 8, 11, 16, 21] {
            for at in 0..len {
                for x in 0..=255u8 {
                    let mut b = vec![b'7'; len];
                    b[at] = x;
                    // The bytes after the first one that is no digit do not matter.
                    b.extend_from_slice(&[0xff, b'5', 0]);
                    let want = if x.is_ascii_digit() { len } else { at };
                    assert_eq!(digit_run(&b, 0), want, "len {len}, {x:#x} at {at}");
                }
            }
        }
        assert_eq!(digit_run(b"", 0), 0);
        assert_eq!(digit_run(b"12345678901234567890", 3), 20);
    }

    #[test]
    fn numbers_follow_serde_json() {
        assert_eq!(check("18446744073709551615", 8), Ok(Kind::Integer));
        assert_eq!(check("18446744073709551616", 8), Ok(Kind::Float));
        assert_eq!(check("-9223372036854775808", 8), Ok(Kind::Integer));
        assert_eq!(check("-9223372036854775809", 8), Ok(Kind::Float));
        assert_eq!(check("-0", 8), Ok(Kind::Float));
        assert_eq!(check("1e308", 8), Ok(Kind::Float));
        assert_eq!(check("1e309", 8), Err(Error::BadNumber));
        assert_eq!(check("0e99999999999999999999", 8), Ok(Kind::Float));
        assert_eq!(check("01", 8), Err(Error::Syntax));
        assert_eq!(check("1.", 8), Err(Error::Truncated));
        assert_eq!(check("1.e5", 8), Err(Error::BadNumber));
        assert_eq!(check("-", 8), Err(Error::Truncated));
        assert_eq!(check("+1", 8), Err(Error::Syntax));
    }
}
