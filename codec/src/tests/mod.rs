//! The codec's test suite, laid out like memchr's `src/tests`:
//!
//! - `seeds`: the `SEEDS` table, frames with what the codec must read in them;
//! - `oracle`: a naive reading of a frame through `serde_json::Value`, and the codec's reading
//!   in the same shape;
//! - `prop`: property tests that compare the two on generated and mutated frames;
//! - `encoding`: the writers, read back with serde_json and with the codec;
//! - `framing`: `FrameCodec` against a naive line splitter, in every chunking.

mod encoding;
mod framing;
mod oracle;
mod prop;
mod seeds;

use proptest::test_runner::Config;

/// A proptest configuration with `cases` cases (or `PROPTEST_CASES`, when set, for a long
/// run) and no regression files: a failing case found here belongs in the seed table.
fn proptest_config(cases: u32) -> Config {
    let default = Config::default();
    Config {
        cases: if std::env::var_os("PROPTEST_CASES").is_some() {
            default.cases
        } else {
            cases
        },
        failure_persistence: None,
        ..default
    }
}
