//! Tools: their specs, the two kinds of handler, arguments and results.
//!
//! - A [`Tool`] answers inline: it writes its result straight into the response buffer
//!   through [`Output`], and no task is spawned (the hot path: `echo` costs no allocation).
//! - An [`AsyncTool`] checks its arguments, copies what it needs, and returns a future of a
//!   [`ToolResult`]; the driver runs it as a job.
//!
//! The two are separate types, so nothing a handler writes can be dropped: an inline handler
//! has only its [`Output`], an asynchronous one only its future.
//! Either may end with a [`Halt`] instead of a result: a JSON-RPC error
//! ([`crate::RpcError`], `-32602` for arguments it rejects, say) or the input it needs first; a failure the model should see is a result with
//! `isError: true` ([`Output::fail`], [`ToolResult::error`]).
//! A panic is caught (by the connection for an inline handler, by the driver for a future)
//! and answered `-32603` without internals.
//!
//! Every handler gets a [`Ctx`]: the request id, the revision, the client's capabilities and
//! info, progress and log sinks, and (through [`Ctx::to_owned`]) a cancellation signal.

use crate::api::ctx::{BoxFuture, Ctx};
use crate::api::halt::Halt;
use bytes::{BufMut, BytesMut};
use janus_codec::{RawJson, encode};
use janus_model::content::Content;
use janus_model::json::Json;
#[cfg(feature = "serde")]
use janus_model::json::RpcError;
pub use janus_model::result::ToolResult;
use janus_model::shape::{self, Shape};
pub use janus_model::tool::{SpecError, TaskSupport, ToolSpec};
use std::borrow::Cow;

/// A tool call's `arguments`, read in place from the request frame.
#[derive(Debug, Clone, Copy)]
pub struct Args<'buf> {
    raw: Option<RawJson<'buf>>,
}

impl<'buf> Args<'buf> {
    /// Wraps the `arguments` value of a request (`None` when there is none).
    #[must_use]
    pub const fn new(raw: Option<RawJson<'buf>>) -> Self {
        Self { raw }
    }

    /// The whole `arguments` value as sent.
    #[must_use]
    pub const fn raw(&self) -> Option<RawJson<'buf>> {
        self.raw
    }

    /// The argument `key`, as JSON text.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<RawJson<'buf>> {
        self.raw?.get(key)
    }

    /// The argument `key` when it is a string, decoded (borrowed unless it has escapes).
    #[must_use]
    pub fn str(&self, key: &str) -> Option<Cow<'buf, str>> {
        self.get(key)?.as_string()
    }

    /// The argument `key` when it is a number, as `f64`.
    #[must_use]
    pub fn f64(&self, key: &str) -> Option<f64> {
        let v = self.get(key)?;
        let first = *v.as_bytes().first()?;
        if first == b'-' || first.is_ascii_digit() {
            v.as_str().parse().ok()
        } else {
            None
        }
    }

    /// The argument `key` when it is an integer that fits an `i64`.
    #[must_use]
    pub fn i64(&self, key: &str) -> Option<i64> {
        self.get(key)?.as_str().parse().ok()
    }

    /// A full simd-json value of the arguments, for handlers that need a DOM. Only the
    /// arguments' span is copied.
    #[must_use]
    pub fn to_value(&self) -> Option<simd_json::OwnedValue> {
        janus_codec::dom::to_owned_value(self.raw?.as_str()).ok()
    }

    /// The arguments deserialised into `T` (feature `serde`); no arguments read as `{}`.
    ///
    /// # Errors
    ///
    /// `-32602` naming what does not fit `T`.
    #[cfg(feature = "serde")]
    pub fn parse<T: serde::de::DeserializeOwned>(&self) -> Result<T, RpcError> {
        let text = self.raw.map_or("{}", |r| r.as_str());
        serde_json::from_str(text)
            .map_err(|e| RpcError::invalid_params(format!("Invalid arguments: {e}")))
    }
}

/// The writer of a `tools/call` result, handed to a handler that answers inline.
///
/// Content blocks go straight into the response buffer in the request's revision; the
/// connection writes the rest of the result (`structuredContent`, `isError`, the modern
/// stamp).
pub struct Output<'a> {
    out: &'a mut BytesMut,
    shape: Shape,
    blocks: usize,
    structured: Option<Json>,
    is_error: bool,
    meta: Option<Json>,
}

impl<'a> Output<'a> {
    pub(crate) const fn new(out: &'a mut BytesMut, shape: Shape) -> Self {
        Self {
            out,
            shape,
            blocks: 0,
            structured: None,
            is_error: false,
            meta: None,
        }
    }

    fn block_sep(&mut self) {
        if self.blocks > 0 {
            self.out.put_u8(b',');
        }
        self.blocks += 1;
    }

    /// Adds a text block.
    pub fn text(&mut self, text: &str) -> &mut Self {
        self.block_sep();
        self.out.extend_from_slice(br#"{"type":"text","text":"#);
        encode::write_str(self.out, text);
        self.out.put_u8(b'}');
        self
    }

    /// Adds a text block whose text is a JSON string as it stands in the request (quotes and
    /// escapes included): it is copied without being decoded and encoded again.
    ///
    /// A value that is not a JSON string is written as its JSON text, escaped.
    pub fn text_json(&mut self, text: RawJson<'_>) -> &mut Self {
        if !text.is_string() {
            return self.text(text.as_str());
        }
        self.block_sep();
        self.out.extend_from_slice(br#"{"type":"text","text":"#);
        encode::write_raw(self.out, text.as_str());
        self.out.put_u8(b'}');
        self
    }

    /// Adds any content block (image, audio, `resource_link`, embedded resource, annotated
    /// text), in the request's revision.
    pub fn content(&mut self, c: &Content) -> &mut Self {
        shape::write_block(self.out, self.shape, c, self.blocks == 0);
        self.blocks += 1;
        self
    }

    /// Sets `structuredContent` (any JSON value). Written only for revisions that have it.
    pub fn structured(&mut self, json: Json) -> &mut Self {
        self.structured = Some(json);
        self
    }

    /// Sets the result's `_meta` (an object; anything else is left out). A 2026-07-28
    /// answer's stamp joins it.
    pub fn meta(&mut self, json: Json) -> &mut Self {
        self.meta = Some(json);
        self
    }

    /// Marks the result as a failure the model should see (`isError: true`) and adds `message`
    /// as a text block.
    pub fn fail(&mut self, message: &str) -> &mut Self {
        self.is_error = true;
        self.text(message)
    }

    /// Writes the blocks of a whole [`ToolResult`] and takes its other fields.
    pub fn replay(&mut self, r: &ToolResult) -> &mut Self {
        for c in &r.content {
            self.content(c);
        }
        if let Some(s) = &r.structured {
            self.structured = Some(s.clone());
        }
        self.is_error |= r.is_error;
        if let Some(m) = &r.meta {
            self.meta = Some(m.clone());
        }
        self
    }

    /// Ends the block list; returns `structuredContent`, whether it is an error, and
    /// `_meta`.
    pub(crate) fn finish(self) -> (Option<Json>, bool, Option<Json>) {
        (self.structured, self.is_error, self.meta)
    }
}

/// The future of an asynchronous handler.
pub type ToolFuture = BoxFuture<Result<ToolResult, Halt>>;

/// How the first stage of a call that is to run as a task ended
/// ([`AsyncTool::call_staged`]), when it did not end asking for input.
pub enum Stage {
    /// The call is done: its task is made already ended, with this result.
    Done(ToolResult),
    /// The call goes on as a task: the task is made now, and runs this work.
    Task(ToolFuture),
}

impl std::fmt::Debug for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Done(r) => f.debug_tuple("Done").field(r).finish(),
            Self::Task(_) => f.write_str("Task(..)"),
        }
    }
}

/// The future of a call's first stage ([`AsyncTool::call_staged`]).
pub type StagedFuture = BoxFuture<Result<Stage, Halt>>;

/// A handler that answers inline, writing into the response.
pub trait Tool: Send + Sync + 'static {
    /// Answers a call into `out`, or with a JSON-RPC error (what was written to `out` is
    /// then replaced by the error).
    ///
    /// # Errors
    ///
    /// The JSON-RPC error the request gets instead of a result.
    fn call(&self, ctx: &Ctx<'_>, args: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt>;
}

impl<F> Tool for F
where
    F: Fn(&Ctx<'_>, Args<'_>, &mut Output<'_>) -> Result<(), Halt> + Send + Sync + 'static,
{
    fn call(&self, ctx: &Ctx<'_>, args: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
        self(ctx, args, out)
    }
}

/// A handler whose answer comes later: it returns a future, which the driver runs as a job.
pub trait AsyncTool: Send + Sync + 'static {
    /// Starts a call: read and check the arguments, copy what the work needs (and
    /// [`Ctx::to_owned`] for progress, logs and cancellation), and return the work.
    ///
    /// # Errors
    ///
    /// The JSON-RPC error the request gets at once, with no job run.
    fn call(&self, ctx: &Ctx<'_>, args: Args<'_>) -> Result<ToolFuture, Halt>;

    /// Starts a call that is to run as a task (the client asked for one, or the tool runs
    /// only as one) in stages, for a tool that learns only as its work runs whether it
    /// needs the client's input first (a bridge, whose backend asks). The first stage runs
    /// before the task exists: its input is asked in rounds of the call itself, as for a
    /// call that is no task (a retry runs this again, with the answers); its end makes the
    /// task ([`Stage`]). `None` (the default): the task is made at once and runs
    /// [`AsyncTool::call`]'s work. Not used for a parked task's call run again: that runs
    /// as its task.
    ///
    /// # Errors
    ///
    /// As [`AsyncTool::call`].
    fn call_staged(&self, ctx: &Ctx<'_>, args: Args<'_>) -> Option<Result<StagedFuture, Halt>> {
        let _ = (ctx, args);
        None
    }
}

impl<F> AsyncTool for F
where
    F: Fn(&Ctx<'_>, Args<'_>) -> Result<ToolFuture, Halt> + Send + Sync + 'static,
{
    fn call(&self, ctx: &Ctx<'_>, args: Args<'_>) -> Result<ToolFuture, Halt> {
        self(ctx, args)
    }
}

/// A tool's handler, of either kind.
pub(crate) enum Handler {
    Inline(Box<dyn Tool>),
    Async(Box<dyn AsyncTool>),
}
