//! `Parser::parse` (and `parse_single`, `classify`, `Batch::iter`, `RawJson::get`, `Id`):
//! differential against serde_json. The codec accepts exactly what serde_json accepts within
//! the depth limit; every span lies in the frame and reads as the value serde_json finds there;
//! ids are the same bytes; methods decode the same; the verdict (message, `-32600` with the id
//! that could be read, `-32700`) is the one JSON-RPC 2.0 and `decisions.md` give.
//!
//! Input: the frame.

#![no_main]

use janus_codec::{DEFAULT_MAX_DEPTH, INVALID_REQUEST, Parser};
use janus_fuzz::oracle::{self, ItemView, Verdict, nesting};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|frame: &[u8]| {
    let want = oracle::oracle(frame);
    let got = oracle::codec(frame);
    assert_eq!(
        got,
        want,
        "codec (left) and oracle (right) differ on {:?}",
        String::from_utf8_lossy(frame)
    );

    // The shortcuts agree with the full reading.
    let single = Parser::new().parse_single(frame);
    let summary = janus_codec::classify(frame);
    match &want {
        Verdict::Single(ItemView::Message(view)) => {
            assert_eq!(summary.ok(), Some((view.kind, view.era)));
            assert!(single.is_ok());
        }
        Verdict::NotJson => {
            assert!(single.is_err_and(|r| r.error.is_parse_error() && r.id.is_none()));
            assert!(summary.is_err_and(|r| r.error.is_parse_error()));
        }
        Verdict::Single(ItemView::Invalid(_)) | Verdict::Batch(_) => {
            assert!(single.is_err_and(|r| r.error.rpc_code() == INVALID_REQUEST));
            assert!(summary.is_err_and(|r| r.error.rpc_code() == INVALID_REQUEST));
        }
    }

    // The nesting limit is a setting: at the frame's own depth nothing changes, one below it
    // the frame is not JSON.
    let depth = nesting(frame);
    if depth <= DEFAULT_MAX_DEPTH {
        let mut p = Parser::new();
        assert_eq!(oracle::codec_with(p.max_depth(depth), frame), want);
        if depth > 0 {
            assert_eq!(
                oracle::codec_with(p.max_depth(depth - 1), frame),
                Verdict::NotJson,
                "{} containers under a limit of {}",
                depth,
                depth - 1
            );
        }
    }
});
