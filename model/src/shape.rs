//! The shapes of MCP that every revision writes its own way, in one place: which members a
//! revision has ([`Shape`], [`ResultType`]), content blocks and their annotations, the
//! `icons` and `_meta` of a described thing, tool descriptions, and the error answers of both
//! eras.
//!
//! Objects are written member by member and closed once: nothing written is edited after the
//! fact.

use crate::content::{Annotations, Block, Content, Icon, ResourceBody};
use crate::json::{Json, RpcError, number};
use crate::prompt::{PromptMessages, PromptSpec};
use crate::resource::{ResourceSpec, TemplateSpec};
use crate::tool::ToolSpec;
use bytes::{BufMut, BytesMut};
use janus_codec::encode::{self, JsonWriter};
use janus_codec::{Id, METHOD_NOT_FOUND, ProtocolVersion, Rejection, UNSUPPORTED_PROTOCOL_VERSION};

/// What a revision's results and tool descriptions may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// The revision.
    pub version: ProtocolVersion,
}

impl Shape {
    /// The shape of revision `version`.
    #[must_use]
    pub const fn new(version: ProtocolVersion) -> Self {
        Self { version }
    }

    /// Tool annotations and audio content exist from 2025-03-26.
    #[must_use]
    pub const fn annotations(self) -> bool {
        !matches!(self.version, ProtocolVersion::V2024_11_05)
    }

    /// `title`, `outputSchema`, `structuredContent`, `resource_link` and
    /// `annotations.lastModified` exist from 2025-06-18.
    #[must_use]
    pub const fn structured(self) -> bool {
        !matches!(
            self.version,
            ProtocolVersion::V2024_11_05 | ProtocolVersion::V2025_03_26
        )
    }

    /// `icons` exist from 2025-11-25.
    #[must_use]
    pub const fn icons(self) -> bool {
        matches!(
            self.version,
            ProtocolVersion::V2025_11_25 | ProtocolVersion::V2026_07_28
        )
    }

    /// `execution.taskSupport` exists in 2025-11-25 only (the 2026 Tool has no `execution`).
    #[must_use]
    pub const fn execution(self) -> bool {
        matches!(self.version, ProtocolVersion::V2025_11_25)
    }

    /// 2026-07-28: every result says its `resultType`, and carries the server's stamp.
    #[must_use]
    pub const fn modern(self) -> bool {
        self.version.is_modern()
    }

    /// The index of the revision in `ProtocolVersion::KNOWN`.
    #[must_use]
    pub fn index(self) -> usize {
        ProtocolVersion::KNOWN
            .iter()
            .position(|v| *v == self.version)
            .unwrap_or(0)
    }
}

// ---- Result tails -------------------------------------------------------------------------

/// The `resultType` of a modern result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultType {
    /// The result itself.
    Complete,
    /// A task the work goes on in (the tasks extension).
    Task,
    /// The input the request needs first (`inputRequests`, `requestState`).
    InputRequired,
}

impl ResultType {
    /// Every kind.
    pub const ALL: [Self; 3] = [Self::Complete, Self::Task, Self::InputRequired];

    /// The wire value.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Complete => "complete",
            Self::Task => "task",
            Self::InputRequired => "input_required",
        }
    }
}

/// Writes one content block, after a `,` unless it is the first of its list.
///
/// A block a revision lacks is written as the nearest thing it has: audio on 2024-11-05 and a
/// `resource_link` before 2025-06-18 become a text block that names them, so the model still
/// learns of them.
pub fn write_block(out: &mut BytesMut, shape: Shape, c: &Content, first: bool) {
    if !first {
        out.put_u8(b',');
    }
    // NB. A block the model does not know goes on as it came.
    if let Block::Other(raw) = &c.block {
        encode::write_raw(out, raw.as_str());
        return;
    }
    let mut w = JsonWriter::new(out);
    w.begin_object();
    match &c.block {
        Block::Text(text) => {
            w.key("type").str("text").key("text").str(text);
        }
        Block::Image { data, mime_type } => {
            w.key("type").str("image").key("data").str(data);
            w.key("mimeType").str(mime_type);
        }
        Block::Audio { data, mime_type } if shape.annotations() => {
            w.key("type").str("audio").key("data").str(data);
            w.key("mimeType").str(mime_type);
        }
        Block::Audio { mime_type, .. } => {
            let text =
                format!("[audio content ({mime_type}) omitted: revision 2024-11-05 has no audio]");
            w.key("type").str("text").key("text").str(&text);
        }
        Block::ResourceLink {
            uri,
            name,
            description,
            mime_type,
        } if shape.structured() => {
            w.key("type").str("resource_link").key("uri").str(uri);
            w.key("name").str(name);
            if let Some(d) = description {
                w.key("description").str(d);
            }
            if let Some(m) = mime_type {
                w.key("mimeType").str(m);
            }
        }
        Block::ResourceLink { uri, name, .. } => {
            let text = format!("Resource {name}: {uri}");
            w.key("type").str("text").key("text").str(&text);
        }
        Block::Resource {
            uri,
            mime_type,
            body,
        } => {
            w.key("type").str("resource").key("resource").begin_object();
            w.key("uri").str(uri);
            if let Some(m) = mime_type {
                w.key("mimeType").str(m);
            }
            match body {
                ResourceBody::Text(t) => w.key("text").str(t),
                ResourceBody::Blob(b) => w.key("blob").str(b),
            };
            w.end_object();
        }
        // NB. Written whole above.
        Block::Other(_) => {}
    }
    if let Some(a) = &c.annotations {
        write_annotations(&mut w, shape, a);
    }
    w.end_object();
}

fn write_annotations(w: &mut JsonWriter<'_>, shape: Shape, a: &Annotations) {
    let last_modified = a.last_modified.as_deref().filter(|_| shape.structured());
    if a.audience.is_empty() && a.priority.is_none() && last_modified.is_none() {
        return;
    }
    w.key("annotations").begin_object();
    if !a.audience.is_empty() {
        w.key("audience").begin_array();
        for r in &a.audience {
            w.str(r.as_str());
        }
        w.end_array();
    }
    if let Some(p) = a.priority.filter(|p| p.is_finite()) {
        w.key("priority").raw(&number(p.clamp(0.0, 1.0)));
    }
    if let Some(m) = last_modified {
        w.key("lastModified").str(m);
    }
    w.end_object();
}

/// The `icons` (2025-11-25 and later) and `_meta` (2025-06-18 and later) members of a tool,
/// prompt, resource or template.
pub fn write_decor(w: &mut JsonWriter<'_>, shape: Shape, icons: &[Icon], meta: Option<&Json>) {
    if shape.icons() && !icons.is_empty() {
        w.key("icons").begin_array();
        for i in icons {
            w.begin_object().key("src").str(&i.src);
            if let Some(m) = &i.mime_type {
                w.key("mimeType").str(m);
            }
            if !i.sizes.is_empty() {
                w.key("sizes").begin_array();
                for s in &i.sizes {
                    w.str(s);
                }
                w.end_array();
            }
            if let Some(t) = &i.theme {
                w.key("theme").str(t);
            }
            w.end_object();
        }
        w.end_array();
    }
    if shape.structured()
        && let Some(m) = meta
    {
        w.key("_meta").raw(m.as_str());
    }
}

// ---- Tool descriptions ----------------------------------------------------------------------

/// One tool of `tools/list` in `shape`.
pub fn write_tool(buf: &mut BytesMut, spec: &ToolSpec, shape: Shape) {
    let mut w = JsonWriter::new(buf);
    w.begin_object();
    w.key("name").str(&spec.name);
    if shape.structured()
        && let Some(t) = &spec.title
    {
        w.key("title").str(t);
    }
    if let Some(d) = &spec.description {
        w.key("description").str(d);
    }
    w.key("inputSchema").raw(spec.input_schema.as_str());
    if shape.structured()
        && let Some(s) = &spec.output_schema
    {
        w.key("outputSchema").raw(s.as_str());
    }
    if shape.annotations()
        && let Some(a) = &spec.annotations
    {
        w.key("annotations").raw(a.as_str());
    }
    if shape.execution() {
        w.key("execution").begin_object();
        w.key("taskSupport").str(spec.task_support.as_str());
        w.end_object();
    }
    write_decor(&mut w, shape, &spec.icons, spec.meta.as_ref());
    w.end_object();
}

// ---- Prompts and resources -------------------------------------------------------------------

/// `"name":...,"title":...,"description":...` members, `title` only where the revision has it.
fn write_named(
    w: &mut JsonWriter<'_>,
    shape: Shape,
    name: &str,
    title: Option<&str>,
    description: Option<&str>,
) {
    w.key("name").str(name);
    if let (true, Some(t)) = (shape.structured(), title) {
        w.key("title").str(t);
    }
    if let Some(d) = description {
        w.key("description").str(d);
    }
}

/// One prompt of `prompts/list` in `shape`.
pub fn write_prompt(out: &mut BytesMut, spec: &PromptSpec, shape: Shape) {
    let mut w = JsonWriter::new(out);
    w.begin_object();
    write_named(
        &mut w,
        shape,
        &spec.name,
        spec.title.as_deref(),
        spec.description.as_deref(),
    );
    if !spec.arguments.is_empty() {
        w.key("arguments").begin_array();
        for a in &spec.arguments {
            w.begin_object().key("name").str(&a.name);
            if let Some(d) = &a.description {
                w.key("description").str(d);
            }
            w.key("required").bool(a.required).end_object();
        }
        w.end_array();
    }
    write_decor(&mut w, shape, &spec.icons, spec.meta.as_ref());
    w.end_object();
}

/// `{"description"?,"messages":[...]}`: a `prompts/get` result's own members, in `shape`.
pub fn write_prompt_messages(out: &mut BytesMut, shape: Shape, messages: &PromptMessages) {
    out.put_u8(b'{');
    if let Some(d) = &messages.description {
        out.extend_from_slice(br#""description":"#);
        encode::write_str(out, d);
        out.put_u8(b',');
    }
    out.extend_from_slice(br#""messages":["#);
    for (i, (role, content)) in messages.messages.iter().enumerate() {
        if i > 0 {
            out.put_u8(b',');
        }
        out.extend_from_slice(br#"{"role":"#);
        encode::write_str(out, role.as_str());
        out.extend_from_slice(br#","content":"#);
        write_block(out, shape, content, true);
        out.put_u8(b'}');
    }
    out.extend_from_slice(b"]}");
}

/// One resource of `resources/list` in `shape`.
pub fn write_resource(out: &mut BytesMut, r: &ResourceSpec, shape: Shape) {
    let mut w = JsonWriter::new(out);
    w.begin_object();
    w.key("uri").str(&r.uri);
    write_named(
        &mut w,
        shape,
        &r.name,
        r.title.as_deref(),
        r.description.as_deref(),
    );
    if let Some(m) = &r.mime_type {
        w.key("mimeType").str(m);
    }
    if let Some(n) = r.size {
        w.key("size").int(i64::try_from(n).unwrap_or(i64::MAX));
    }
    write_decor(&mut w, shape, &r.icons, r.meta.as_ref());
    w.end_object();
}

/// One template of `resources/templates/list` in `shape`.
pub fn write_template(out: &mut BytesMut, t: &TemplateSpec, shape: Shape) {
    let mut w = JsonWriter::new(out);
    w.begin_object();
    w.key("uriTemplate").str(&t.uri_template);
    write_named(
        &mut w,
        shape,
        &t.name,
        t.title.as_deref(),
        t.description.as_deref(),
    );
    if let Some(m) = &t.mime_type {
        w.key("mimeType").str(m);
    }
    write_decor(&mut w, shape, &t.icons, t.meta.as_ref());
    w.end_object();
}

// ---- Errors ---------------------------------------------------------------------------------

const PARSE_ERROR_MESSAGE: &str = "Parse error";
/// The message of a `-32600`.
pub const INVALID_REQUEST_MESSAGE: &str = "Invalid request";

/// `{"code":C,"message":M,"data":D?}`.
pub fn write_error_object(out: &mut BytesMut, e: &RpcError) {
    let mut w = JsonWriter::new(out);
    w.begin_object().key("code").int(i64::from(e.code));
    w.key("message").str(&e.message);
    if let Some(d) = &e.data {
        w.key("data").raw(d.as_str());
    }
    w.end_object();
}

/// A whole error answer to `id`.
pub fn write_rpc_error(out: &mut BytesMut, id: Id<'_>, e: &RpcError) {
    encode::write_error(
        out,
        Some(id),
        e.code,
        &e.message,
        e.data.as_ref().map(|d| d.as_str()),
    );
}

/// `-32603 Internal error`, nothing of the cause.
pub fn write_internal_error(out: &mut BytesMut, id: Id<'_>) {
    encode::write_error(
        out,
        Some(id),
        janus_codec::INTERNAL_ERROR,
        "Internal error",
        None,
    );
}

/// The answer to a frame the codec refused.
pub fn write_rejection(out: &mut BytesMut, r: Rejection<'_>) {
    let message = if r.error.is_parse_error() {
        PARSE_ERROR_MESSAGE
    } else {
        INVALID_REQUEST_MESSAGE
    };
    write_reason(out, r.id, r.error.rpc_code(), message, r.error.as_str());
}

/// An error with `data: {"reason": ...}`.
pub fn write_reason(
    out: &mut BytesMut,
    id: Option<Id<'_>>,
    code: i32,
    message: &str,
    reason: &str,
) {
    let data = one_member("reason", reason);
    encode::write_error(out, id, code, message, Some(data.as_str()));
}

/// `{"reason": WHY}`: the `data` of an error that says why.
#[must_use]
pub fn reason(why: &str) -> Json {
    one_member("reason", why)
}

/// `-32601` with `data: {"method": ...}`.
pub fn write_method_not_found(out: &mut BytesMut, id: Id<'_>, method: &str) {
    let data = one_member("method", method);
    encode::write_error(
        out,
        Some(id),
        METHOD_NOT_FOUND,
        "Method not found",
        Some(data.as_str()),
    );
}

/// `-32022` with `{supported, requested}`; `requested` is JSON text as sent.
pub fn write_unsupported(out: &mut BytesMut, id: Id<'_>, requested: &str) {
    let mut data = BytesMut::new();
    let mut w = JsonWriter::new(&mut data);
    w.begin_object().key("supported").begin_array();
    for v in ProtocolVersion::MODERN {
        w.str(v.as_str());
    }
    w.end_array().key("requested").raw(requested).end_object();
    let data = Json::from_written(&data);
    encode::write_error(
        out,
        Some(id),
        UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
        Some(data.as_str()),
    );
}

/// `{"KEY":"VALUE"}`.
fn one_member(key: &str, value: &str) -> Json {
    let mut data = BytesMut::new();
    JsonWriter::new(&mut data)
        .begin_object()
        .key(key)
        .str(value)
        .end_object();
    Json::from_written(&data)
}
