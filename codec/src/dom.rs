//! A full parse, on demand, for handlers that need a DOM (tool arguments, say).
//!
//! The view in [`crate::Message`] never builds one; these functions do, through simd-json.

use crate::Error;

/// Parses JSON text in place: simd-json unescapes strings inside `json` itself, and the value
/// borrows from it. Use it on a buffer the caller owns (a frame it holds uniquely, say).
///
/// # Errors
///
/// [`Error::Syntax`] when `json` is not one JSON value.
pub fn parse_in_place(json: &mut [u8]) -> Result<simd_json::BorrowedValue<'_>, Error> {
    simd_json::to_borrowed_value(json).map_err(|_| Error::Syntax)
}

/// Parses a span of a frame into an owned value. Only the span is copied (simd-json needs a
/// mutable buffer), never the whole frame.
///
/// # Errors
///
/// [`Error::Syntax`] when `json` is not one JSON value.
pub fn to_owned_value(json: &str) -> Result<simd_json::OwnedValue, Error> {
    let mut scratch = json.as_bytes().to_vec();
    simd_json::to_owned_value(&mut scratch).map_err(|_| Error::Syntax)
}

#[cfg(test)]
mod tests {
    use super::*;
    use simd_json::prelude::*;

    #[test]
    fn arguments_parse_from_a_span() {
        let v = to_owned_value(r#"{"a":2,"b":40,"s":"\u00e9"}"#).unwrap();
        assert_eq!(v.get("a").and_then(|x| x.as_i64()), Some(2));
        assert_eq!(v.get("s").and_then(|x| x.as_str()), Some("\u{e9}"));
        let mut buf = br#"{"text":"hi\nthere"}"#.to_vec();
        let v = parse_in_place(&mut buf).unwrap();
        assert_eq!(v.get("text").and_then(|x| x.as_str()), Some("hi\nthere"));
        assert_eq!(to_owned_value("{"), Err(Error::Syntax));
    }
}
