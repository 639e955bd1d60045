//! Shared parts of the Janus fuzz targets.
//!
//! - [`oracle`]: a frame read through `serde_json`, and the codec's reading in the same shape
//!   (the differential of the `message` and `era` targets, the expectations of `connection`);
//! - [`wire`]: checks of the lines a server writes (`decisions.md`, "Output").

pub mod oracle;
pub mod wire;
