//! The codec's test suite, laid out like memchr's `src/tests`:
//!
//! - `seeds`: the `SEEDS` table, frames with what the codec must read in them;
//! - `oracle`: a naive reading of a frame through `serde_json::Value`, and the codec's reading
//!   in the same shape (the fuzz targets include the same file);
//! - `prop`: property tests that compare the two on generated and mutated frames;
//! - `encoding`: the writers, read back with serde_json and with the codec;
//! - `naive`: the naive line splitter, and a feeder that checks the decoder's contract (the
//!   `frame` fuzz target includes the same file);
//! - `framing`: `FrameCodec` against the naive line splitter, in every chunking;
//! - `no_panic`: every safe public function, fed arbitrary input, returns.

mod encoding;
mod framing;
mod indented;
#[allow(unreachable_pub)]
mod naive;
mod no_panic;
// Shared with the fuzz crate, which uses all of it: its items are `pub` and some are not used
// here.
#[allow(unreachable_pub, dead_code)]
pub(crate) mod oracle;
mod prop;
mod scans;
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

/// One step of a xorshift generator: the unit tests' cheap, deterministic stream of words.
/// Returns the new state.
pub(crate) fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}
