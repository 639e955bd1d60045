//! Property tests of the scans below the message reader: the bulk scan (`scan/bulk.rs`) on
//! arrays of generated values and on number-shaped text, and the long-string scan
//! (`scan/string.rs`), each against the serde_json oracle.

use super::indented::laid_out;
use super::oracle::parse_json;
use super::prop::{J, Writer, apply, character, edit, number_like, value};
use super::proptest_config;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

/// The bulk scan reading the text as it is, and squeezed (`scan/blocks.rs`), whatever the
/// kernel (see [`crate::scan::bulk_end`]).
const DIRECT: usize = usize::MAX;
const SQUEEZED: usize = 0;

/// True when the bulk scan, reading the text as it is and squeezed, takes the same or gives
/// up in one of the two: the blocks of the squeezed text reach further, so a number that the
/// scan leaves to the token walk (see [`bulk_defers`]) may stand in a block of one reading
/// and not in the other's, past the end.
fn agree(direct: Option<(usize, bool)>, squeezed: Option<(usize, bool)>) -> bool {
    match (direct, squeezed) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

/// True when what a bulk scan of `text` took (`got`: where it ended, and whether it marked a
/// byte above ASCII) is JSON, or holds bytes above ASCII that it marked for the frame's UTF-8
/// check; true when it took nothing.
fn took_json(text: &[u8], got: Option<(usize, bool)>) -> bool {
    got.is_none_or(|(end, high)| {
        let taken = &text[..end];
        parse_json(taken).is_some() || (high && core::str::from_utf8(taken).is_err())
    })
}

/// True when the bulk scan leaves `j` to the token walk although it is JSON: numbers of 64
/// bytes or more, exponents of three digits or more.
fn bulk_defers(j: &J) -> bool {
    match j {
        J::Num(n) => {
            let exponent = n
                .find(['e', 'E'])
                .map_or(0, |at| n[at + 1..].trim_start_matches(['+', '-']).len());
            n.len() >= 64 || exponent >= 3
        }
        J::Arr(items) => items.iter().any(bulk_defers),
        J::Obj(members) => members.iter().any(|(_, v)| bulk_defers(v)),
        _ => false,
    }
}

proptest! {
    #![proptest_config(proptest_config(2048))]

    /// The bulk scan (`scan/bulk.rs`), from just past the first element of an array of many
    /// values written with any white space and escapes: it takes the whole array exactly when
    /// serde_json reads it (but for the numbers it leaves to the token walk), and ends where
    /// the array ends; edited, it never takes text that serde_json refuses.
    #[test]
    fn the_bulk_scan_takes_what_serde_json_takes(
        items in vec(value(), 1..12),
        seed in any::<u64>(),
        edits in vec(edit(), 0..3),
    ) {
        let mut text = b"[0".to_vec();
        let mut writer = Writer::new(seed);
        for item in &items {
            text.push(b',');
            let mut w = Writer::new(writer.rng.next());
            w.spaces = writer.spaces;
            text.extend_from_slice(&w.write(item));
        }
        text.extend_from_slice(b"]");
        let valid = parse_json(&text).is_some();
        let got = crate::scan::bulk_end(&text, 2, &[false], DIRECT);
        if !items.iter().any(bulk_defers) {
            prop_assert_eq!(crate::scan::bulk_end(&text, 2, &[false], SQUEEZED), got);
        }
        if valid && !items.iter().any(bulk_defers) {
            prop_assert_eq!(
                got.map(|(end, _)| end),
                Some(text.len()),
                "{:?}",
                String::from_utf8_lossy(&text)
            );
        }
        if got.is_some() {
            prop_assert!(valid, "{:?}", String::from_utf8_lossy(&text));
        }
        // Edited past the first element: whatever the scan takes is JSON, or holds bytes above
        // ASCII that it marked for the frame's UTF-8 check.
        let mut tail = text.split_off(2);
        apply(&mut tail, &edits);
        text.extend_from_slice(&tail);
        let got = crate::scan::bulk_end(&text, 2, &[false], DIRECT);
        let squeezed = crate::scan::bulk_end(&text, 2, &[false], SQUEEZED);
        prop_assert!(agree(got, squeezed), "{:?}", String::from_utf8_lossy(&text));
        prop_assert!(took_json(&text, got.or(squeezed)), "{:?}", String::from_utf8_lossy(&text));
    }
}

proptest! {
    #![proptest_config(proptest_config(1024))]

    /// The bulk scan over indented text read squeezed (`scan/blocks.rs`): arrays of values
    /// laid out a member a line with any indentation, edited or not, with text after them.
    /// Squeezed, the scan takes what it takes from the text as it is, and ends at the same
    /// byte; and it takes the array whole exactly when serde_json reads it.
    #[test]
    fn the_squeezed_bulk_scan_reads_as_the_direct_one(
        items in vec(value(), 1..16),
        seed in any::<u64>(),
        unit in select(&["  ", "    ", "\t", "        ", " \t  ", "                "][..]),
        eol in select(&["\n", "\r\n", "\n\n   \n"][..]),
        after in select(&["", " ", "  ,  ", "\n    ]"][..]),
        edits in vec(edit(), 0..3),
    ) {
        let mut compact = b"[0".to_vec();
        for item in &items {
            compact.push(b',');
            compact.extend_from_slice(&Writer::compact(seed).write(item));
        }
        compact.push(b']');
        let laid = laid_out(&compact, unit.as_bytes(), eol.as_bytes(), b": ");
        // From just past the first element, as the token walk hands it over.
        let from = laid.iter().position(|&x| x == b'0').map_or(0, |i| i + 1);
        let mut text = laid.clone();
        text.extend_from_slice(after.as_bytes());
        let got = crate::scan::bulk_end(&text, from, &[false], SQUEEZED);
        if !items.iter().any(bulk_defers) {
            prop_assert_eq!(got, crate::scan::bulk_end(&text, from, &[false], DIRECT));
            if parse_json(&laid).is_some() {
                prop_assert_eq!(got.map(|(end, _)| end), Some(laid.len()));
            }
        }
        let mut tail = text.split_off(from);
        apply(&mut tail, &edits);
        text.extend_from_slice(&tail);
        let got = crate::scan::bulk_end(&text, from, &[false], SQUEEZED);
        let direct = crate::scan::bulk_end(&text, from, &[false], DIRECT);
        prop_assert!(agree(direct, got), "{:?}", String::from_utf8_lossy(&text));
        prop_assert!(took_json(&text, got), "{:?}", String::from_utf8_lossy(&text));
    }
}

/// Short number-shaped text from the parts the number rules look at, so that every pair and
/// triple of them comes up.
fn number_parts() -> impl Strategy<Value = String> {
    let part = select(["1", "0", "35", "9", "-", "+", ".", "e", "E", "00", "t", " "].as_slice());
    vec(part, 1..7).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(proptest_config(4096))]

    /// The bulk scan's number rules: text shaped like numbers, alone and in runs that cross a
    /// block's end, is taken exactly when serde_json takes it (but for the exponents of three
    /// digits or more, which the scan leaves to the token walk).
    #[test]
    fn the_bulk_scan_reads_numbers_as_serde_json(
        a in prop_oneof![number_like(), number_parts()],
        b in prop_oneof![number_like(), number_parts()],
        pad in 0usize..70,
    ) {
        let spaced = format!("[0,{}{a}, {b}]", " ".repeat(pad));
        let packed = format!("[0,{}{a},{b},{a}]", "1,".repeat(pad / 2));
        for text in [spaced, packed] {
            let valid = parse_json(text.as_bytes()).is_some();
            let got = crate::scan::bulk_end(text.as_bytes(), 2, &[false], DIRECT);
            if let Some((end, _)) = got {
                prop_assert!(parse_json(&text.as_bytes()[..end]).is_some(), "{text}");
            }
            let long = [&a, &b].iter().any(|n| bulk_defers(&J::Num((*n).clone())));
            if valid && !long {
                prop_assert_eq!(got, Some((text.len(), false)), "{}", text);
            }
        }
    }
}

proptest! {
    #![proptest_config(proptest_config(1024))]

    /// Long strings (`scan/string.rs`): a plain start of any length, which the scan skips two
    /// blocks at a time, then anything, then more plain text. The scan takes the string
    /// exactly when serde_json takes it, and marks the frame for its UTF-8 check exactly when
    /// the string holds a byte above ASCII.
    #[test]
    fn long_strings_are_read_as_serde_json_reads_them(
        plain in vec(
            prop_oneof![
                8 => prop::char::range('a', 'z'),
                1 => Just(' '),
                1 => Just('\u{e9}'),
                1 => Just('\u{7f}'),
            ],
            0..400,
        ),
        tail in vec(character(), 0..12),
        rest in vec(prop::char::range('a', 'z'), 0..200),
    ) {
        let body: String = plain.into_iter().chain(tail).chain(rest).collect();
        let text = format!("\"{body}\"");
        let valid = parse_json(text.as_bytes()).is_some();
        let mut sc = crate::scan::Scanner::new(text.as_bytes(), 8);
        let took = sc.value(0).is_ok() && sc.at_end();
        prop_assert_eq!(took, valid, "{:?}", text);
        if took {
            prop_assert_eq!(sc.maybe_non_ascii(), !text.is_ascii(), "{:?}", text);
        }
    }
}
