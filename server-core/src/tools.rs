//! Tools: their specs, the handler trait, arguments and results.
//!
//! A handler writes its result straight into the response buffer through [`Output`] when it
//! can answer at once ([`Call::Done`], no task spawned), or returns a future that produces a
//! [`ToolResult`] ([`Call::Later`]).
//! A failure the model should see is a result with `isError: true` ([`Output::fail`]).
//! A panic is caught by the connection and answered `-32603` without internals.

use bytes::{BufMut, BytesMut};
use janus_codec::{RawJson, encode};
use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;

/// Whether a tool can run as a task (legacy 2025-11-25 `execution.taskSupport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaskSupport {
    /// Never as a task (the default).
    #[default]
    Forbidden,
    /// As a task when the client asks.
    Optional,
    /// Only as a task.
    Required,
}

impl TaskSupport {
    /// The wire value.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Forbidden => "forbidden",
            Self::Optional => "optional",
            Self::Required => "required",
        }
    }
}

/// What `tools/list` says of a tool. Schemas and annotations are kept as raw JSON text.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    /// The name clients call it by.
    pub name: String,
    /// A human title (2025-06-18 and later).
    pub title: Option<String>,
    /// What it does.
    pub description: Option<String>,
    /// Its input JSON Schema, as JSON text.
    pub input_schema: String,
    /// Its output JSON Schema, as JSON text (2025-06-18 and later).
    pub output_schema: Option<String>,
    /// Its annotations object, as JSON text (2025-03-26 and later).
    pub annotations: Option<String>,
    /// Whether it can run as a task.
    pub task_support: TaskSupport,
}

impl ToolSpec {
    /// A spec with a name, a description and an input schema; the rest empty.
    #[must_use]
    pub fn new(name: &str, description: &str, input_schema: &str) -> Self {
        Self {
            name: name.to_owned(),
            title: None,
            description: Some(description.to_owned()),
            input_schema: input_schema.to_owned(),
            output_schema: None,
            annotations: None,
            task_support: TaskSupport::Forbidden,
        }
    }
}

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
}

/// The writer of a `tools/call` result, handed to a handler that answers at once.
///
/// Content blocks go straight into the response buffer; the connection writes the rest of the
/// result (`structuredContent`, `isError`, and the fields of the negotiated revision).
pub struct Output<'a> {
    out: &'a mut BytesMut,
    blocks: usize,
    structured: Option<String>,
    is_error: bool,
}

impl<'a> Output<'a> {
    pub(crate) fn new(out: &'a mut BytesMut) -> Self {
        Self {
            out,
            blocks: 0,
            structured: None,
            is_error: false,
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

    /// Sets `structuredContent` (JSON text). Written only for revisions that have it.
    pub fn structured(&mut self, json: String) -> &mut Self {
        self.structured = Some(json);
        self
    }

    /// Marks the result as a failure the model should see (`isError: true`) and adds `message`
    /// as a text block.
    pub fn fail(&mut self, message: &str) -> &mut Self {
        self.is_error = true;
        self.text(message)
    }

    /// Writes a whole [`ToolResult`] (from an asynchronous handler).
    pub fn replay(&mut self, r: &ToolResult) {
        for t in &r.texts {
            self.text(t);
        }
        if let Some(s) = &r.structured {
            self.structured = Some(s.clone());
        }
        self.is_error |= r.is_error;
    }

    /// Ends the block list; returns `structuredContent` and whether it is an error.
    pub(crate) fn finish(self) -> (Option<String>, bool) {
        (self.structured, self.is_error)
    }
}

/// The result of an asynchronous handler.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolResult {
    /// Text blocks, in order.
    pub texts: Vec<String>,
    /// `structuredContent`, as JSON text.
    pub structured: Option<String>,
    /// True for a failure the model should see.
    pub is_error: bool,
}

impl ToolResult {
    /// One text block.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            texts: vec![text.into()],
            ..Self::default()
        }
    }

    /// A failure with a message.
    #[must_use]
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            texts: vec![message.into()],
            structured: None,
            is_error: true,
        }
    }
}

/// A boxed, sendable future of a tool result.
pub type ToolFuture = Pin<Box<dyn Future<Output = ToolResult> + Send + 'static>>;

/// What a handler did with a call.
pub enum Call {
    /// The result was written to the [`Output`].
    Done,
    /// The result comes later; nothing written to the [`Output`] is kept.
    Later(ToolFuture),
}

/// A tool's handler.
pub trait Tool: Send + Sync + 'static {
    /// Answers a call: write the result into `out` and return [`Call::Done`], or return
    /// [`Call::Later`] with a future.
    fn call(&self, args: Args<'_>, out: &mut Output<'_>) -> Call;
}

impl<F> Tool for F
where
    F: Fn(Args<'_>, &mut Output<'_>) -> Call + Send + Sync + 'static,
{
    fn call(&self, args: Args<'_>, out: &mut Output<'_>) -> Call {
        self(args, out)
    }
}
