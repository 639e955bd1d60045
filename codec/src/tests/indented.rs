//! Property tests for indented text (pretty printers, `JSON.stringify(v, null, 2)`): a line
//! break and the indentation after it are taken in one step, which also gives the next
//! token's byte. Generated messages, laid out a member or an element a line with every
//! indentation width, then edited, read as serde_json reads them.

use super::prop::{Writer, apply, assert_same_json_verdict, edit, frame};
use super::proptest_config;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

/// `compact` (JSON text with no white space between its tokens) laid out as a pretty printer
/// lays it out: a line per member or element, `unit` a level of indentation, `eol` at each
/// line's end, `colon` after each key, empty containers kept whole.
pub(super) fn laid_out(compact: &[u8], unit: &[u8], eol: &[u8], colon: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(compact.len() * 3);
    let mut depth = 0usize;
    let (mut inside, mut escaped) = (false, false);
    let line = |out: &mut Vec<u8>, depth: usize| {
        out.extend_from_slice(eol);
        for _ in 0..depth {
            out.extend_from_slice(unit);
        }
    };
    let mut i = 0;
    while let Some(&c) = compact.get(i) {
        i += 1;
        if inside {
            out.push(c);
            (inside, escaped) = match c {
                _ if escaped => (true, false),
                b'\\' => (true, true),
                b'"' => (false, false),
                _ => (true, false),
            };
            continue;
        }
        match c {
            b'"' => {
                inside = true;
                out.push(c);
            }
            b'{' | b'[' => {
                out.push(c);
                let close = if c == b'{' { b'}' } else { b']' };
                if compact.get(i) == Some(&close) {
                    out.push(close);
                    i += 1;
                } else {
                    depth += 1;
                    line(&mut out, depth);
                }
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                line(&mut out, depth);
                out.push(c);
            }
            b',' => {
                out.push(c);
                line(&mut out, depth);
            }
            b':' => out.extend_from_slice(colon),
            _ => out.push(c),
        }
    }
    out
}

proptest! {
    #![proptest_config(proptest_config(512))]

    /// (a) Messages laid out a member a line, indented by 0 to 11 spaces or tabs a level,
    /// with `\n` or `\r\n` line ends, with a mutation or none.
    #[test]
    fn indented_messages_read_as_the_oracle_reads(
        j in frame(),
        seed in any::<u64>(),
        unit in select(&[
            "", " ", "  ", "   ", "    ", "     ", "      ", "       ", "        ",
            "           ", "\t", " \t",
        ][..]),
        eol in select(&["\n", "\r\n"][..]),
        colon in select(&[":", ": "][..]),
        edits in vec(edit(), 0..2),
    ) {
        let compact = Writer::compact(seed).write(&j);
        let mut text = laid_out(&compact, unit.as_bytes(), eol.as_bytes(), colon.as_bytes());
        apply(&mut text, &edits);
        assert_same_json_verdict(&text);
    }
}

#[test]
fn laid_out_text_is_as_json_stringify_writes_it() {
    let compact = br#"{"a":[1,{}],"b\"}":{"c":[]},"d":"x,y"}"#;
    let text = laid_out(compact, b"  ", b"\n", b": ");
    let want = "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\\\"}\": {\n    \"c\": []\n  },\n  \"d\": \"x,y\"\n}";
    assert_eq!(String::from_utf8_lossy(&text), want);
}
