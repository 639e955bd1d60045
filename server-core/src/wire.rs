//! Every revision-dependent shape the server writes, in one place: result tails
//! (`resultType`, the `serverInfo` stamp, `ttlMs`/`cacheScope`), tool descriptions
//! (`title`, `outputSchema`, annotations, `execution`), tool results (content blocks,
//! `structuredContent`, `isError`), tasks, and the error answers of both eras.
//!
//! Objects are written member by member and closed once: nothing written is edited after the
//! fact.

use crate::content::{Annotations, Block, Content, ResourceBody};
use crate::json::RpcError;
use crate::server::Server;
use crate::tasks::{self, Outcome as Ended, Status, Stored, Task};
use crate::tools::ToolSpec;
use bytes::{BufMut, BytesMut};
use janus_codec::encode::{self, JsonWriter};
use janus_codec::{Id, METHOD_NOT_FOUND, ProtocolVersion, Rejection, UNSUPPORTED_PROTOCOL_VERSION};

/// What a revision's results and tool descriptions may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    pub(crate) version: ProtocolVersion,
}

impl Shape {
    pub(crate) const fn new(version: ProtocolVersion) -> Self {
        Self { version }
    }

    /// Tool annotations and audio content exist from 2025-03-26.
    const fn annotations(self) -> bool {
        !matches!(self.version, ProtocolVersion::V2024_11_05)
    }

    /// `title`, `outputSchema`, `structuredContent`, `resource_link` and
    /// `annotations.lastModified` exist from 2025-06-18.
    pub(crate) const fn structured(self) -> bool {
        !matches!(
            self.version,
            ProtocolVersion::V2024_11_05 | ProtocolVersion::V2025_03_26
        )
    }

    /// `icons` exist from 2025-11-25.
    pub(crate) const fn icons(self) -> bool {
        matches!(
            self.version,
            ProtocolVersion::V2025_11_25 | ProtocolVersion::V2026_07_28
        )
    }

    /// `execution.taskSupport` exists in 2025-11-25 only (the 2026 Tool has no `execution`).
    const fn execution(self) -> bool {
        matches!(self.version, ProtocolVersion::V2025_11_25)
    }

    pub(crate) const fn modern(self) -> bool {
        self.version.is_modern()
    }

    /// The index of the revision in `ProtocolVersion::KNOWN`.
    pub(crate) fn index(self) -> usize {
        ProtocolVersion::KNOWN
            .iter()
            .position(|v| *v == self.version)
            .unwrap_or(0)
    }
}

// ---- Result tails -------------------------------------------------------------------------

/// The `resultType` of a modern result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResultType {
    Complete,
    Task,
    InputRequired,
}

impl ResultType {
    pub(crate) const ALL: [Self; 3] = [Self::Complete, Self::Task, Self::InputRequired];

    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Self::Complete => "complete",
            Self::Task => "task",
            Self::InputRequired => "input_required",
        }
    }
}

/// Ends a result object whose members (if any) are written: the modern stamp
/// (`resultType`, `_meta.serverInfo`, encoded once per server) in the modern era, then `}`.
#[inline]
pub(crate) fn end_result(out: &mut BytesMut, server: &Server, shape: Shape, kind: ResultType) {
    if shape.modern() {
        if out.last() != Some(&b'{') {
            out.put_u8(b',');
        }
        out.extend_from_slice(server.stamps[kind as usize].as_bytes());
    }
    out.put_u8(b'}');
}

/// `,"ttlMs":N,"cacheScope":"public"` of modern list and discover results.
pub(crate) fn write_cache_hints(out: &mut BytesMut, server: &Server) {
    out.extend_from_slice(br#","ttlMs":"#);
    encode::write_i64(out, i64::try_from(server.ttl_ms).unwrap_or(i64::MAX));
    // NB. Lists that depend on the caller may be cached for that caller only.
    out.extend_from_slice(if server.visible.is_some() {
        br#","cacheScope":"private""#
    } else {
        br#","cacheScope":"public""#
    });
}

/// The hints of `server/discover`, whose answer is the same for every caller.
pub(crate) fn write_public_cache_hints(out: &mut BytesMut, server: &Server) {
    out.extend_from_slice(br#","ttlMs":"#);
    encode::write_i64(out, i64::try_from(server.ttl_ms).unwrap_or(i64::MAX));
    out.extend_from_slice(br#","cacheScope":"public""#);
}

// ---- Tool results ---------------------------------------------------------------------------

/// Starts a tool result object: `{"content":[`. Blocks follow ([`write_block`]).
#[inline]
pub(crate) fn begin_tool_result(out: &mut BytesMut) {
    out.extend_from_slice(br#"{"content":["#);
}

/// Ends a tool result begun with [`begin_tool_result`]: `]`, `structuredContent` (2025-06-18
/// and later), `isError`, a `_meta` naming a related task (`tasks/result`), and the modern
/// stamp.
#[inline]
pub(crate) fn end_tool_result(
    out: &mut BytesMut,
    server: &Server,
    shape: Shape,
    structured: Option<&str>,
    is_error: bool,
    related_task: Option<&str>,
) {
    out.put_u8(b']');
    if let Some(s) = structured.filter(|_| shape.structured()) {
        out.extend_from_slice(br#","structuredContent":"#);
        encode::write_raw(out, s);
    }
    if is_error {
        out.extend_from_slice(br#","isError":true"#);
    }
    if let Some(task) = related_task {
        out.extend_from_slice(br#","_meta":{"io.modelcontextprotocol/related-task":{"taskId":"#);
        encode::write_str(out, task);
        out.extend_from_slice(b"}}");
    }
    end_result(out, server, shape, ResultType::Complete);
}

/// Writes a stored tool result as a whole object.
pub(crate) fn write_stored(
    out: &mut BytesMut,
    server: &Server,
    shape: Shape,
    r: &Stored,
    related_task: Option<&str>,
) {
    begin_tool_result(out);
    out.extend_from_slice(r.content.as_bytes());
    end_tool_result(
        out,
        server,
        shape,
        r.structured.as_ref().map(|s| s.as_str()),
        r.is_error,
        related_task,
    );
}

/// Writes one content block, after a `,` unless it is the first of its list.
///
/// A block a revision lacks is written as the nearest thing it has: audio on 2024-11-05 and a
/// `resource_link` before 2025-06-18 become a text block that names them, so the model still
/// learns of them.
pub(crate) fn write_block(out: &mut BytesMut, shape: Shape, c: &Content, first: bool) {
    if !first {
        out.put_u8(b',');
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
        w.key("priority")
            .raw(&crate::ctx::number(p.clamp(0.0, 1.0)));
    }
    if let Some(m) = last_modified {
        w.key("lastModified").str(m);
    }
    w.end_object();
}

// ---- Tool descriptions ----------------------------------------------------------------------

/// One tool of `tools/list` in `shape`.
/// The `icons` (2025-11-25 and later) and `_meta` (2025-06-18 and later) members of a tool,
/// prompt, resource or template.
pub(crate) fn write_decor(
    w: &mut JsonWriter<'_>,
    shape: Shape,
    icons: &[crate::content::Icon],
    meta: Option<&crate::json::Json>,
) {
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

pub(crate) fn write_tool(buf: &mut BytesMut, spec: &ToolSpec, shape: Shape) {
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

/// A `tools/list` result for one page: its tools (already encoded for `shape`, joined with
/// commas), the next cursor, and the modern cache hints and stamp.
pub(crate) fn write_tools_page(
    out: &mut BytesMut,
    server: &Server,
    shape: Shape,
    tools: &str,
    next_cursor: Option<&str>,
) {
    out.extend_from_slice(br#"{"tools":["#);
    out.extend_from_slice(tools.as_bytes());
    out.put_u8(b']');
    if let Some(c) = next_cursor {
        out.extend_from_slice(br#","nextCursor":"#);
        encode::write_str(out, c);
    }
    if shape.modern() {
        write_cache_hints(out, server);
    }
    end_result(out, server, shape, ResultType::Complete);
}

// ---- Lifecycle ------------------------------------------------------------------------------

/// The `initialize` result for the negotiated `version` (`serverInfo.title` exists from
/// 2025-06-18, experimental tasks in 2025-11-25 only).
pub(crate) fn write_initialize(out: &mut BytesMut, server: &Server, version: ProtocolVersion) {
    let info = if Shape::new(version).structured() {
        &server.info_json
    } else {
        &server.untitled_info_json
    };
    let mut w = JsonWriter::new(out);
    w.begin_object();
    w.key("protocolVersion").str(version.as_str());
    w.key("capabilities")
        .raw(&server.catalog().caps[usize::from(version == ProtocolVersion::V2025_11_25)]);
    w.key("serverInfo").raw(info);
    if let Some(i) = &server.instructions {
        w.key("instructions").str(i);
    }
    w.end_object();
}

/// The `server/discover` result.
pub(crate) fn write_discover(out: &mut BytesMut, server: &Server) {
    out.extend_from_slice(br#"{"supportedVersions":["#);
    for (i, v) in ProtocolVersion::MODERN.iter().enumerate() {
        if i > 0 {
            out.put_u8(b',');
        }
        encode::write_str(out, v.as_str());
    }
    out.extend_from_slice(br#"],"capabilities":"#);
    out.extend_from_slice(server.catalog().caps[2].as_bytes());
    if let Some(i) = &server.instructions {
        out.extend_from_slice(br#","instructions":"#);
        encode::write_str(out, i);
    }
    write_public_cache_hints(out, server);
    end_result(
        out,
        server,
        Shape::new(ProtocolVersion::V2026_07_28),
        ResultType::Complete,
    );
}

// ---- Tasks ----------------------------------------------------------------------------------

/// A task's members (no braces): `ttl`/`pollInterval` (legacy) or `ttlMs`/`pollIntervalMs`
/// (the extension).
fn write_task_members(w: &mut JsonWriter<'_>, t: &Task, legacy: bool) {
    w.key("taskId").str(&t.id);
    w.key("status").str(t.status.as_str());
    w.key("createdAt").str(&tasks::rfc3339(t.created_ms));
    w.key("lastUpdatedAt").str(&tasks::rfc3339(t.updated_ms));
    let (ttl, poll) = if legacy {
        ("ttl", "pollInterval")
    } else {
        ("ttlMs", "pollIntervalMs")
    };
    w.key(ttl).int(i64::try_from(t.ttl_ms).unwrap_or(i64::MAX));
    w.key(poll)
        .int(i64::try_from(t.poll_ms).unwrap_or(i64::MAX));
}

/// A legacy task object: `{taskId, status, ...}`.
pub(crate) fn write_legacy_task(out: &mut BytesMut, t: &Task) {
    let mut w = JsonWriter::new(out);
    w.begin_object();
    write_task_members(&mut w, t, true);
    w.end_object();
}

/// The answer to a task-augmented `tools/call`: `{task}` (legacy) or the task's fields with
/// `resultType: "task"` (the extension).
pub(crate) fn write_created_task(out: &mut BytesMut, server: &Server, shape: Shape, t: &Task) {
    if shape.modern() {
        let mut w = JsonWriter::new(out);
        w.begin_object();
        write_task_members(&mut w, t, false);
        end_result(out, server, shape, ResultType::Task);
    } else {
        out.extend_from_slice(br#"{"task":"#);
        write_legacy_task(out, t);
        out.put_u8(b'}');
    }
}

/// The modern `tasks/get` result: the task's fields, with `result` once completed or `error`
/// once failed.
pub(crate) fn write_modern_task_status(
    out: &mut BytesMut,
    server: &Server,
    shape: Shape,
    t: &Task,
) {
    let mut w = JsonWriter::new(out);
    w.begin_object();
    write_task_members(&mut w, t, false);
    if t.status == Status::InputRequired && !t.input_requests.is_empty() {
        w.key("inputRequests").begin_object();
        for (key, r) in &t.input_requests {
            w.key(key).begin_object().key("method").str(r.method());
            w.key("params").raw(r.params().as_str()).end_object();
        }
        w.end_object();
    }
    match (&t.status, &t.outcome) {
        (Status::Completed, Some(Ended::Result(r))) => {
            out.extend_from_slice(br#","result":"#);
            write_stored(out, server, shape, r, None);
        }
        (Status::Failed, Some(Ended::Error(e))) => {
            out.extend_from_slice(br#","error":"#);
            write_error_object(out, e);
        }
        _ => {}
    }
    end_result(out, server, shape, ResultType::Complete);
}

/// An empty modern acknowledgement (`tasks/update`, `tasks/cancel`).
pub(crate) fn write_ack(out: &mut BytesMut, server: &Server, shape: Shape) {
    out.put_u8(b'{');
    end_result(out, server, shape, ResultType::Complete);
}

/// `notifications/tasks/status` with the task's fields (legacy generation).
pub(crate) fn write_status_notification(out: &mut BytesMut, t: &Task) {
    encode::begin_notification(out, "notifications/tasks/status");
    write_legacy_task(out, t);
    encode::end_message(out);
}

/// The answer of `tasks/result` for a terminal task: what the original call would have
/// answered, its `_meta` naming the task.
pub(crate) fn write_task_result(out: &mut BytesMut, server: &Server, id: Id<'_>, t: &Task) {
    match &t.outcome {
        Some(Ended::Result(r)) => {
            encode::begin_result(out, id);
            write_stored(
                out,
                server,
                Shape::new(ProtocolVersion::V2025_11_25),
                r,
                Some(&t.id),
            );
            encode::end_message(out);
        }
        Some(Ended::Error(e)) => write_rpc_error(out, id, e),
        None => {
            let message = format!("Task {} was cancelled", t.id);
            encode::write_error(out, Some(id), janus_codec::INVALID_REQUEST, &message, None);
        }
    }
}

// ---- Errors ---------------------------------------------------------------------------------

const PARSE_ERROR_MESSAGE: &str = "Parse error";
pub(crate) const INVALID_REQUEST_MESSAGE: &str = "Invalid request";

/// `{"code":C,"message":M,"data":D?}`.
pub(crate) fn write_error_object(out: &mut BytesMut, e: &RpcError) {
    let mut w = JsonWriter::new(out);
    w.begin_object().key("code").int(i64::from(e.code));
    w.key("message").str(&e.message);
    if let Some(d) = &e.data {
        w.key("data").raw(d.as_str());
    }
    w.end_object();
}

/// A whole error answer to `id`.
pub(crate) fn write_rpc_error(out: &mut BytesMut, id: Id<'_>, e: &RpcError) {
    encode::write_error(
        out,
        Some(id),
        e.code,
        &e.message,
        e.data.as_ref().map(|d| d.as_str()),
    );
}

/// `-32603 Internal error`, nothing of the cause.
pub(crate) fn write_internal_error(out: &mut BytesMut, id: Id<'_>) {
    encode::write_error(
        out,
        Some(id),
        janus_codec::INTERNAL_ERROR,
        "Internal error",
        None,
    );
}

/// The answer to a frame the codec refused.
pub(crate) fn write_rejection(out: &mut BytesMut, r: Rejection<'_>) {
    let message = if r.error.is_parse_error() {
        PARSE_ERROR_MESSAGE
    } else {
        INVALID_REQUEST_MESSAGE
    };
    write_reason(out, r.id, r.error.rpc_code(), message, r.error.as_str());
}

/// An error with `data: {"reason": ...}`.
pub(crate) fn write_reason(
    out: &mut BytesMut,
    id: Option<Id<'_>>,
    code: i32,
    message: &str,
    reason: &str,
) {
    let data = one_member("reason", reason);
    encode::write_error(out, id, code, message, Some(data.as_str()));
}

/// `-32601` with `data: {"method": ...}`.
pub(crate) fn write_method_not_found(out: &mut BytesMut, id: Id<'_>, method: &str) {
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
pub(crate) fn write_unsupported(out: &mut BytesMut, id: Id<'_>, requested: &str) {
    let mut data = BytesMut::new();
    let mut w = JsonWriter::new(&mut data);
    w.begin_object().key("supported").begin_array();
    for v in ProtocolVersion::MODERN {
        w.str(v.as_str());
    }
    w.end_array().key("requested").raw(requested).end_object();
    let data = crate::json::Json::from_written(&data);
    encode::write_error(
        out,
        Some(id),
        UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
        Some(data.as_str()),
    );
}

/// `{"KEY":"VALUE"}`.
fn one_member(key: &str, value: &str) -> crate::json::Json {
    let mut data = BytesMut::new();
    JsonWriter::new(&mut data)
        .begin_object()
        .key(key)
        .str(value)
        .end_object();
    crate::json::Json::from_written(&data)
}
