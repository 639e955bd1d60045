//! Shared parts of the Janus fuzz targets.
//!
//! - [`oracle`]: a frame read through `serde_json`, and the codec's reading in the same shape
//!   (the differential of the `message` and `era` targets, the expectations of `connection`);
//!   the file is the codec's own test oracle, included from `codec/src/tests/oracle.rs`;
//! - [`naive`]: the naive line splitter and the decoder-contract feeder of the `frame` target,
//!   included from `codec/src/tests/naive.rs`;
//! - [`wire`]: checks of the lines a server writes (`decisions.md`, "Output");
//! - [`template`]: the messages the `connection` target sends;
//! - [`server`]: the server it drives, and [`answers`]: the checks of what it answers.

pub mod answers;
#[path = "../../codec/src/tests/naive.rs"]
pub mod naive;
#[path = "../../codec/src/tests/oracle.rs"]
pub mod oracle;
pub mod server;
pub mod template;
pub mod wire;
