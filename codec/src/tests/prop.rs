//! Property tests: the codec against the oracle on generated, mutated and arbitrary frames.
//!
//! Frames are generated as a small JSON model ([`J`]) that allows what `serde_json::Value`
//! cannot hold (duplicate keys, members in any order), then written out with random white
//! space and random escapes by [`Writer`], so one model gives many texts.

use super::oracle::{Verdict, assert_agrees, codec, oracle, parse_json};
use super::proptest_config;
use super::seeds::SEEDS;
use crate::era::{
    CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, LOG_LEVEL_KEY, PROGRESS_TOKEN_KEY,
    PROTOCOL_VERSION_KEY,
};
use crate::{Envelope, EnvelopeError, EnvelopeFault, Id, ProtocolVersion, RawJson};
use proptest::collection::vec;
use proptest::option::weighted;
use proptest::prelude::*;
use proptest::sample::{Index, select};

/// A JSON value as written: object members keep their order and their duplicates.
#[derive(Debug, Clone)]
pub(super) enum J {
    Null,
    Bool(bool),
    /// A number, as its text.
    Num(String),
    Str(String),
    Arr(Vec<Self>),
    Obj(Vec<(String, Self)>),
}

fn s(text: &str) -> J {
    J::Str(text.to_owned())
}

/// A small deterministic generator (SplitMix64) for the choices made while writing.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// True one time in `n`.
    fn one_in(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[(self.next() % items.len() as u64) as usize]
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, (self.next() % (i as u64 + 1)) as usize);
        }
    }
}

/// Writes a [`J`] as JSON text; the seed decides the layout and the escapes.
pub(super) struct Writer {
    pub(super) rng: Rng,
    /// Put white space between tokens.
    pub(super) spaces: bool,
    /// Escape characters that need no escape.
    escapes: bool,
    /// Now and then, break a string (a lone surrogate, a raw control character, a bad escape).
    corrupt: bool,
    /// Make the white space runs of up to 40 bytes, as indented text has (with `spaces`).
    long_runs: bool,
}

impl Writer {
    pub(super) fn new(seed: u64) -> Self {
        let mut rng = Rng(seed);
        let style = rng.next();
        Self {
            spaces: style & 1 != 0,
            escapes: style & 2 != 0,
            corrupt: style % 16 == 15,
            long_runs: style & 16 != 0,
            rng,
        }
    }

    /// A writer that puts no white space between tokens.
    pub(super) fn compact(seed: u64) -> Self {
        Self {
            spaces: false,
            ..Self::new(seed)
        }
    }

    /// A writer that puts runs of white space of up to 40 bytes between tokens.
    pub(super) fn with_long_runs(seed: u64) -> Self {
        Self {
            spaces: true,
            long_runs: true,
            ..Self::new(seed)
        }
    }

    pub(super) fn write(mut self, j: &J) -> Vec<u8> {
        let mut out = Vec::new();
        self.value(j, &mut out);
        out
    }

    fn ws(&mut self, out: &mut Vec<u8>) {
        if self.spaces && self.rng.one_in(2) {
            if self.long_runs {
                let len = self.rng.next() % 41;
                for _ in 0..len {
                    out.push(self.rng.pick(b" \t\r\n    "));
                }
                return;
            }
            let w = self.rng.pick(&[" ", "\t", "\n", "\r\n", "  ", " \t\r\n "]);
            out.extend_from_slice(w.as_bytes());
        }
    }

    fn value(&mut self, j: &J, out: &mut Vec<u8>) {
        self.ws(out);
        match j {
            J::Null => out.extend_from_slice(b"null"),
            J::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            J::Num(n) => out.extend_from_slice(n.as_bytes()),
            J::Str(s) => self.string(s, out),
            J::Arr(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    self.value(item, out);
                }
                self.ws(out);
                out.push(b']');
            }
            J::Obj(members) => {
                out.push(b'{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    self.ws(out);
                    self.string(k, out);
                    self.ws(out);
                    out.push(b':');
                    self.value(v, out);
                }
                self.ws(out);
                out.push(b'}');
            }
        }
        self.ws(out);
    }

    fn unicode_escape(&mut self, unit: u32, out: &mut Vec<u8>) {
        let text = if self.rng.one_in(2) {
            format!("\\u{unit:04x}")
        } else {
            format!("\\u{unit:04X}")
        };
        out.extend_from_slice(text.as_bytes());
    }

    fn string(&mut self, s: &str, out: &mut Vec<u8>) {
        out.push(b'"');
        for c in s.chars() {
            if self.corrupt && self.rng.one_in(24) {
                let bad = self
                    .rng
                    .pick(&["\\ud800", "\\udfff", "\u{1}", "\\x", "\\u12"]);
                out.extend_from_slice(bad.as_bytes());
            }
            let short = match c {
                '"' => Some('"'),
                '\\' => Some('\\'),
                '/' => Some('/'),
                '\n' => Some('n'),
                '\r' => Some('r'),
                '\t' => Some('t'),
                '\u{8}' => Some('b'),
                '\u{c}' => Some('f'),
                _ => None,
            };
            let must = c < ' ' || c == '"' || c == '\\';
            let escape = must || (self.escapes && self.rng.one_in(3));
            if !escape {
                let mut tmp = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
            } else if let Some(e) = short.filter(|_| !self.escapes || self.rng.one_in(2)) {
                out.extend_from_slice(&[b'\\', e as u8]);
            } else {
                let mut units = [0u16; 2];
                for &u in c.encode_utf16(&mut units).iter() {
                    self.unicode_escape(u32::from(u), out);
                }
            }
        }
        out.push(b'"');
    }
}

// ---------------------------------------------------------------------------------------------
// Strategies.
// ---------------------------------------------------------------------------------------------

const METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "server/discover",
    "notifications/initialized",
    "notifications/cancelled",
    "",
];

const ENVELOPE_KEYS: &[&str] = &[
    PROTOCOL_VERSION_KEY,
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    LOG_LEVEL_KEY,
    PROGRESS_TOKEN_KEY,
];

/// Number texts at and around the limits, read as serde_json reads them.
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "-0.0",
    "1.0",
    "1e2",
    "1E+2",
    "1e-2",
    "0.5E-3",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "123456789012345678901234567890",
    "1e308",
    "-1e308",
    "1.7976931348623157e308",
    "1.7976931348623158e308",
    "1.79769313486231581e308",
    "1e309",
    "2.2250738585072014e-308",
    "5e-324",
    "1e-400",
    "0e99999999999999999999",
    "1e99999999999999999999",
];

/// Characters that make strings interesting: escapes, controls, multi-byte and astral text.
pub(super) fn character() -> impl Strategy<Value = char> {
    prop_oneof![
        6 => prop::char::range('a', 'z'),
        3 => select(vec![
            '"', '\\', '/', '\n', '\r', '\t', '\u{0}', '\u{8}', '\u{c}', '\u{1f}', '\u{7f}',
            '\u{e9}', '\u{2028}', '\u{fffd}', '\u{ffff}', '\u{1F600}', '\u{10FFFF}', ' ', '_',
        ]),
        1 => any::<char>(),
    ]
}

fn text() -> impl Strategy<Value = String> {
    vec(character(), 0..8).prop_map(String::from_iter)
}

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => any::<i64>().prop_map(|n| n.to_string()),
        2 => (0u8..100).prop_map(|n| n.to_string()),
        1 => any::<u64>().prop_map(|n| n.to_string()),
        2 => any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| if f.abs() > 1e10 { format!("{f:e}") } else { format!("{f:?}") }),
        2 => select(NUMBERS).prop_map(str::to_owned),
    ]
}

/// Keys: the members the codec reads, the envelope keys, and anything else.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => text(),
        2 => select(vec!["jsonrpc", "id", "method", "params", "result", "error", "_meta"])
            .prop_map(str::to_owned),
        1 => select(ENVELOPE_KEYS).prop_map(str::to_owned),
    ]
}

pub(super) fn value() -> impl Strategy<Value = J> {
    let leaf = prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        number().prop_map(J::Num),
        text().prop_map(J::Str),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(J::Arr),
            vec((key(), inner), 0..4).prop_map(J::Obj),
        ]
    })
}

fn id() -> impl Strategy<Value = J> {
    prop_oneof![
        4 => any::<i64>().prop_map(|n| J::Num(n.to_string())),
        2 => (0u8..10).prop_map(|n| J::Num(n.to_string())),
        1 => any::<u64>().prop_map(|n| J::Num(n.to_string())),
        4 => text().prop_map(J::Str),
        1 => (0u8..10).prop_map(|n| J::Str(n.to_string())),
        1 => select(NUMBERS).prop_map(|n| J::Num(n.to_owned())),
        1 => Just(J::Null),
        1 => value(),
    ]
}

/// `params._meta`: mostly an object of envelope keys, now and then something else.
fn meta() -> impl Strategy<Value = J> {
    let entry = (
        prop_oneof![
            3 => Just(PROTOCOL_VERSION_KEY.to_owned()),
            3 => select(ENVELOPE_KEYS).prop_map(str::to_owned),
            1 => key(),
        ],
        prop_oneof![
            2 => select(vec!["2026-07-28", "2025-11-25", "2025-03-26"]).prop_map(s),
            1 => Just(J::Obj(Vec::new())),
            1 => value(),
        ],
    );
    prop_oneof![
        6 => vec(entry, 0..4).prop_map(J::Obj),
        1 => value(),
    ]
}

fn params() -> impl Strategy<Value = J> {
    let object = (vec((key(), value()), 0..3), vec(meta(), 0..3), any::<u64>()).prop_map(
        |(mut members, metas, seed)| {
            members.extend(metas.into_iter().map(|m| ("_meta".to_owned(), m)));
            Rng(seed).shuffle(&mut members);
            J::Obj(members)
        },
    );
    prop_oneof![
        6 => object,
        1 => vec(value(), 0..3).prop_map(J::Arr),
        1 => value(),
    ]
}

/// A JSON-RPC-ish message: each member may be missing, of the wrong type, or repeated.
fn message() -> impl Strategy<Value = J> {
    let jsonrpc = prop_oneof![
        12 => Just(s("2.0")),
        1 => Just(s("1.0")),
        1 => Just(s("2.0 ")),
        1 => Just(J::Num("2.0".to_owned())),
        1 => Just(J::Null),
    ];
    let method = prop_oneof![
        8 => select(METHODS).prop_map(s),
        2 => text().prop_map(J::Str),
        1 => value(),
    ];
    let error = prop_oneof![
        (any::<i32>(), text()).prop_map(|(code, message)| J::Obj(vec![
            ("code".to_owned(), J::Num(code.to_string())),
            ("message".to_owned(), J::Str(message)),
        ])),
        value(),
    ];
    // The members that make a call, a response or an error, and now and then a mix.
    let body = prop_oneof![
        7 => (method.clone(), weighted(0.8, params()))
            .prop_map(|(m, p)| vec![("method", Some(m)), ("params", p)]),
        2 => value().prop_map(|r| vec![("result", Some(r))]),
        2 => error.clone().prop_map(|e| vec![("error", Some(e))]),
        1 => (
            weighted(0.5, method),
            weighted(0.5, params()),
            weighted(0.5, value()),
            weighted(0.5, error),
        )
            .prop_map(|(m, p, r, e)| {
                vec![("method", m), ("params", p), ("result", r), ("error", e)]
            }),
    ];
    // Extra members; a few reuse a name the codec reads, so the last one must win.
    let extra_key = prop_oneof![
        6 => text(),
        1 => select(vec!["jsonrpc", "id", "method", "params", "result", "error", "_meta"])
            .prop_map(str::to_owned),
    ];
    (
        weighted(0.95, jsonrpc),
        weighted(0.85, id()),
        body,
        vec((extra_key, value()), 0..3),
        any::<u64>(),
    )
        .prop_map(|(jsonrpc, id, body, extra, seed)| {
            let mut members: Vec<(String, J)> = [("jsonrpc", jsonrpc), ("id", id)]
                .into_iter()
                .chain(body)
                .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
                .collect();
            members.extend(extra);
            Rng(seed).shuffle(&mut members);
            J::Obj(members)
        })
}

/// A frame's top-level value: mostly a message, sometimes a batch or another value.
pub(super) fn frame() -> impl Strategy<Value = J> {
    prop_oneof![
        8 => message(),
        2 => vec(prop_oneof![4 => message(), 1 => value()], 0..4).prop_map(J::Arr),
        1 => value(),
    ]
}

/// Bytes that steer a mutation towards the interesting paths of the scanner.
const INTERESTING: &[u8] =
    b"{}[]\",:\\ \t\r\n0123456789-+.eEtrufalsn/u\x00\x01\x1f\x7f\xc3\xa9\xed\xa0\xf0\x9f\xff\xef\xbb\xbf";

pub(super) fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![3 => select(INTERESTING), 1 => any::<u8>()]
}

/// One edit of a frame.
#[derive(Debug, Clone)]
pub(super) enum Edit {
    Replace(Index, u8),
    Insert(Index, u8),
    Delete(Index),
}

pub(super) fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<Index>(), byte()).prop_map(|(i, b)| Edit::Replace(i, b)),
        (any::<Index>(), byte()).prop_map(|(i, b)| Edit::Insert(i, b)),
        any::<Index>().prop_map(Edit::Delete),
    ]
}

pub(super) fn apply(frame: &mut Vec<u8>, edits: &[Edit]) {
    for e in edits {
        match *e {
            Edit::Insert(i, b) => frame.insert(i.index(frame.len() + 1), b),
            Edit::Replace(i, b) if !frame.is_empty() => {
                let at = i.index(frame.len());
                frame[at] = b;
            }
            Edit::Delete(i) if !frame.is_empty() => {
                frame.remove(i.index(frame.len()));
            }
            Edit::Replace(..) | Edit::Delete(_) => {}
        }
    }
}

/// `j` as `writer` writes it, then edited.
fn mutated(writer: Writer, j: &J, edits: &[Edit]) -> Vec<u8> {
    let mut text = writer.write(j);
    apply(&mut text, edits);
    text
}

/// The codec's verdict on whether `frame` is JSON is serde_json's (numbers rounded once).
pub(super) fn assert_same_json_verdict(frame: &[u8]) {
    let codec_json = codec(frame) != Verdict::NotJson;
    let oracle_json = oracle(frame) != Verdict::NotJson;
    assert_eq!(
        codec_json,
        oracle_json,
        "codec and oracle differ on whether {:?} is JSON",
        String::from_utf8_lossy(frame)
    );
    assert_agrees(frame);
}

proptest! {
    #![proptest_config(proptest_config(1000))]

    /// (a) Generated messages, written in several ways: the codec reads what the oracle reads.
    #[test]
    fn generated_messages_read_as_the_oracle_reads(j in frame(), seeds in vec(any::<u64>(), 3)) {
        for seed in seeds {
            let text = Writer::new(seed).write(&j);
            assert_agrees(&text);
        }
    }

    /// (b) Generated messages with a few bytes replaced, inserted or deleted.
    #[test]
    fn mutated_messages_are_json_exactly_when_serde_json_says_so(
        j in frame(),
        seed in any::<u64>(),
        edits in vec(edit(), 1..4),
    ) {
        assert_same_json_verdict(&mutated(Writer::new(seed), &j, &edits));
    }

    /// (b) The seeds with a few bytes replaced, inserted or deleted.
    #[test]
    fn mutated_seeds_are_json_exactly_when_serde_json_says_so(
        which in any::<Index>(),
        edits in vec(edit(), 1..4),
    ) {
        let mut text = SEEDS[which.index(SEEDS.len())].input.to_vec();
        apply(&mut text, &edits);
        assert_same_json_verdict(&text);
    }
}

proptest! {
    #![proptest_config(proptest_config(256))]

    /// (a) Messages with runs of white space of any length between their tokens (the scan
    /// skips runs of spaces eight bytes a step), with a mutation or none.
    #[test]
    fn white_space_runs_read_as_the_oracle_reads(
        j in frame(),
        seed in any::<u64>(),
        edits in vec(edit(), 0..2),
    ) {
        assert_same_json_verdict(&mutated(Writer::with_long_runs(seed), &j, &edits));
    }
}

/// A batch long enough that the scan reads only its first elements (the rest are read later,
/// from the validated text), with a mutation or none.
fn long_batch() -> impl Strategy<Value = J> {
    vec(prop_oneof![6 => message(), 1 => value()], 60..140).prop_map(J::Arr)
}

proptest! {
    #![proptest_config(proptest_config(64))]

    /// (a) Batches past the elements their scan reads: every element reads as the oracle
    /// reads it, and a fault anywhere makes the whole frame no JSON.
    #[test]
    fn long_batches_read_as_the_oracle_reads(
        j in long_batch(),
        seed in any::<u64>(),
        edits in vec(edit(), 0..2),
    ) {
        assert_same_json_verdict(&mutated(Writer::new(seed), &j, &edits));
    }
}

proptest! {
    #![proptest_config(proptest_config(512))]

    /// (b) Arbitrary bytes, mostly from the JSON alphabet.
    #[test]
    fn arbitrary_bytes_are_json_exactly_when_serde_json_says_so(frame in vec(byte(), 0..48)) {
        assert_same_json_verdict(&frame);
    }

    /// (b) Arbitrary bytes after the start of a message, so the scan gets past the first byte.
    #[test]
    fn arbitrary_tails_are_json_exactly_when_serde_json_says_so(tail in vec(byte(), 0..32)) {
        let mut frame = br#"{"jsonrpc":"2.0","id":1,"method":"m","params":"#.to_vec();
        frame.extend_from_slice(&tail);
        assert_same_json_verdict(&frame);
    }
}

/// Text shaped like a number, valid or not: signs, runs of digits that cross the eight-byte
/// steps of the digit scan, points, exponents, and a stray byte now and then.
pub(super) fn number_like() -> impl Strategy<Value = String> {
    let digits = |max: usize| vec(select(b"0123456789".as_slice()), 0..max);
    let part = prop_oneof![
        4 => digits(24).prop_map(|d| String::from_utf8(d).unwrap_or_default()),
        1 => Just("-".to_owned()),
        1 => Just(".".to_owned()),
        1 => select(["e", "E", "e+", "e-", "E-"].as_slice()).prop_map(str::to_owned),
        1 => select(["a", " ", ",", "]", "0x", "\u{e9}"].as_slice()).prop_map(str::to_owned),
    ];
    vec(part, 1..6).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(proptest_config(2048))]

    /// Numbers (the digit scan's fast path): JSON exactly when serde_json says so, each read
    /// as an integer or a float as serde_json reads it.
    #[test]
    fn number_like_text_is_read_as_serde_json_reads_it(a in number_like(), b in number_like()) {
        for params in [format!("[{a}]"), format!("[{a},{b}]"), format!("{{\"x\":{a}, \"y\": {b}}}")] {
            let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{params}}}"#);
            assert_same_json_verdict(frame.as_bytes());
        }
    }
}

/// The value `v` as serde_json reads it, in the codec's reading of its members or elements:
/// each span, parsed again, is the oracle's member or element.
fn assert_walks_as_the_oracle(raw: RawJson<'_>, v: &serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            let members = raw.members();
            // The last of a duplicated key is the one serde_json keeps.
            for (k, want) in map {
                let got = members
                    .iter()
                    .rev()
                    .find(|(key, _)| key == k)
                    .map(|(_, v)| *v);
                let got = got.unwrap_or_else(|| panic!("member {k:?} of {raw:?}"));
                assert_eq!(parse_json(got.as_str().as_bytes()).as_ref(), Some(want));
                assert_eq!(raw.get(k).map(RawJson::as_str), Some(got.as_str()));
                assert_walks_as_the_oracle(got, want);
            }
        }
        serde_json::Value::Array(items) => {
            let elements = raw.elements();
            assert_eq!(elements.len(), items.len(), "{raw:?}");
            for (got, want) in elements.iter().zip(items) {
                assert_eq!(parse_json(got.as_str().as_bytes()).as_ref(), Some(want));
                assert_walks_as_the_oracle(*got, want);
            }
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(proptest_config(1024))]

    /// The walks over validated text (members, elements, lookups), which skip containers by
    /// their brackets, find what serde_json finds, however the text is spaced.
    #[test]
    fn walks_over_validated_text_find_what_serde_json_finds(j in value(), seed in any::<u64>()) {
        let text = Writer::new(seed).write(&j);
        if let Some(v) = parse_json(&text) {
            let raw = RawJson::parse(trimmed(&text)).expect("JSON");
            assert_walks_as_the_oracle(raw, &v);
        }
    }
}

/// JSON text without the white space around it, as the codec's spans are.
fn trimmed(text: &[u8]) -> &str {
    core::str::from_utf8(text)
        .expect("valid JSON is UTF-8")
        .trim_matches([' ', '\t', '\r', '\n'])
}

proptest! {
    #![proptest_config(proptest_config(512))]

    /// `Id::from_json` takes exactly the strings and the integers.
    #[test]
    fn id_from_json_takes_strings_and_integers(j in value(), seed in any::<u64>()) {
        let text = Writer::new(seed).write(&j);
        if let Some(v) = parse_json(&text) {
            let is_id = v.is_string() || v.is_i64() || v.is_u64();
            let id = Id::from_json(RawJson::parse(trimmed(&text)).expect("JSON"));
            prop_assert_eq!(id.is_some(), is_id, "{}", trimmed(&text));
        }
    }

    /// `Envelope::check` follows `decisions.md` ("Modern era"): a missing or mistyped key is
    /// `-32602` naming it, a version other than a modern one is `-32022` with the version as
    /// sent.
    #[test]
    fn envelope_check_follows_the_decisions(m in meta(), seed in any::<u64>()) {
        let text = Writer::new(seed).write(&m);
        let Some(v) = parse_json(&text) else {
            return Ok(());
        };
        let empty = serde_json::Map::new();
        let obj = v.as_object().unwrap_or(&empty);
        let (version, caps, info) = (
            obj.get(PROTOCOL_VERSION_KEY),
            obj.get(CLIENT_CAPABILITIES_KEY),
            obj.get(CLIENT_INFO_KEY),
        );
        let fault = EnvelopeFault {
            missing_version: version.is_none(),
            missing_capabilities: caps.is_none(),
            version_not_string: version.is_some_and(|v| !v.is_string()),
            capabilities_not_object: caps.is_some_and(|c| !c.is_object()),
            client_info_not_object: info.is_some_and(|c| !c.is_object()),
        };
        let want = match version.and_then(|v| v.as_str()) {
            _ if fault.any() => Err(EnvelopeError::Invalid(fault)),
            Some("2026-07-28") => Ok(ProtocolVersion::V2026_07_28),
            requested => Err(EnvelopeError::Unsupported {
                requested: requested.unwrap_or_default().to_owned().into(),
            }),
        };
        let got = Envelope::from_meta(RawJson::parse(trimmed(&text)).expect("JSON")).check();
        if let Err(EnvelopeError::Invalid(f)) = &got {
            // The message names each key at fault, and only those.
            let message = f.to_string();
            prop_assert_eq!(
                message.contains(PROTOCOL_VERSION_KEY),
                f.missing_version || f.version_not_string
            );
            prop_assert_eq!(
                message.contains(CLIENT_CAPABILITIES_KEY),
                f.missing_capabilities || f.capabilities_not_object
            );
            prop_assert_eq!(message.contains(CLIENT_INFO_KEY), f.client_info_not_object);
        }
        prop_assert_eq!(got.map_err(|e| (e.rpc_code(), e)), want.map_err(|e| (e.rpc_code(), e)));
    }
}

#[test]
fn the_writer_produces_what_serde_json_reads() {
    // The writer escapes every way it can; serde_json must read the model back.
    let j = J::Obj(vec![
        ("k\"\\/\n\u{1}\u{1F600}".to_owned(), s("v\u{e9}\u{2028}\t")),
        (
            "n".to_owned(),
            J::Arr(vec![J::Num("-1.5e3".to_owned()), J::Null, J::Bool(true)]),
        ),
    ]);
    let want = serde_json::json!({
        "k\"\\/\n\u{1}\u{1F600}": "v\u{e9}\u{2028}\t",
        "n": [-1500.0, null, true],
    });
    let mut layouts = std::collections::HashSet::new();
    for seed in 0..64 {
        let w = Writer::new(seed);
        if w.corrupt {
            continue;
        }
        let text = w.write(&j);
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&text).unwrap(),
            want
        );
        layouts.insert(text);
    }
    assert!(layouts.len() > 16, "the seed must change the text");
}
