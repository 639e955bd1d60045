//! `Parser::parse` (and `parse_single`, `_benchable::classify`, `Batch::iter`, `RawJson::get`, `Id`):
//! differential against serde_json. The codec accepts exactly what serde_json accepts within
//! the depth limit; every span lies in the frame and reads as the value serde_json finds there;
//! ids are the same bytes; methods decode the same; the verdict (message, `-32600` with the id
//! that could be read, `-32700`) is the one JSON-RPC 2.0 and `decisions.md` give; the nesting
//! limit is a setting. All of it is `oracle::assert_agrees`, which the codec's tests run too.
//!
//! Input: the frame.

#![no_main]

use janus_fuzz::oracle;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|frame: &[u8]| {
    oracle::assert_agrees(frame);
});
