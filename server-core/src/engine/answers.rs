//! The answers the core writes that depend on the server or on a task: result tails
//! (`resultType`, the `serverInfo` stamp, `ttlMs`/`cacheScope`), tool results, tool
//! descriptions and pages, `initialize` and `server/discover`, and tasks. The shapes they are
//! made of are [`janus_model::shape`]'s.

use crate::engine::server::Server;
use crate::engine::tasks::{self, Outcome as Ended, Status, Stored, Task};
use bytes::{BufMut, BytesMut};
use janus_codec::encode::{self, JsonWriter};
use janus_codec::{Id, ProtocolVersion};
use janus_model::json::object_members;
use janus_model::shape::{ResultType, Shape, write_error_object, write_rpc_error};

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

/// Starts a tool result object: `{"content":[`. Blocks follow ([`janus_model::shape::write_block`]).
#[inline]
pub(crate) fn begin_tool_result(out: &mut BytesMut) {
    out.extend_from_slice(br#"{"content":["#);
}

/// What ends a tool result after its blocks ([`end_tool_result`]).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct ResultTail<'a> {
    /// `structuredContent` (written for 2025-06-18 and later).
    pub(crate) structured: Option<&'a str>,
    pub(crate) is_error: bool,
    /// The tool's `_meta` (an object; anything else is left out).
    pub(crate) meta: Option<&'a str>,
    /// The task a `tasks/result` answer is related to (the 2025-11-25 tasks).
    pub(crate) related_task: Option<&'a str>,
}

/// Ends a tool result begun with [`begin_tool_result`]: `]`, `structuredContent` (2025-06-18
/// and later), `isError`, `_meta` (the tool's, a related task, and the modern stamp in one
/// object), and the rest of the modern stamp.
#[inline]
pub(crate) fn end_tool_result(
    out: &mut BytesMut,
    server: &Server,
    shape: Shape,
    t: &ResultTail<'_>,
) {
    out.put_u8(b']');
    if let Some(s) = t.structured.filter(|_| shape.structured()) {
        out.extend_from_slice(br#","structuredContent":"#);
        encode::write_raw(out, s);
    }
    if t.is_error {
        out.extend_from_slice(br#","isError":true"#);
    }
    end_result_with_meta(
        out,
        server,
        shape,
        ResultType::Complete,
        t.meta,
        t.related_task,
    );
}

/// Ends a result object: its `_meta` (a handler's own members, the task it is related to,
/// and the modern stamp, in one object) and the rest of the modern stamp.
pub(crate) fn end_result_with_meta(
    out: &mut BytesMut,
    server: &Server,
    shape: Shape,
    kind: ResultType,
    meta: Option<&str>,
    related_task: Option<&str>,
) {
    // NB. A stamp the handler gave in its own `_meta` would be the key twice: the answer's
    // stands (the model reads results without it).
    let cleaned;
    let own = match meta.and_then(object_members) {
        Some(m) if m.contains(janus_codec::era::SERVER_INFO_KEY) => {
            cleaned = meta
                .and_then(|j| janus_codec::RawJson::parse(j).ok())
                .and_then(janus_model::result::meta_without_stamp);
            cleaned.as_ref().and_then(|j| object_members(j.as_str()))
        }
        other => other,
    };
    if own.is_none() && related_task.is_none() {
        end_result(out, server, shape, kind);
        return;
    }
    if out.last() != Some(&b'{') {
        out.put_u8(b',');
    }
    out.extend_from_slice(br#""_meta":{"#);
    if let Some(m) = own {
        out.extend_from_slice(m.as_bytes());
    }
    if let Some(task) = related_task {
        if own.is_some() {
            out.put_u8(b',');
        }
        out.extend_from_slice(br#""io.modelcontextprotocol/related-task":{"taskId":"#);
        encode::write_str(out, task);
        out.put_u8(b'}');
    }
    if shape.modern() {
        out.put_u8(b',');
        encode::write_str(out, janus_codec::era::SERVER_INFO_KEY);
        out.put_u8(b':');
        out.extend_from_slice(server.info_json.as_bytes());
        out.extend_from_slice(br#"},"resultType":""#);
        out.extend_from_slice(kind.as_str().as_bytes());
        out.extend_from_slice(b"\"}");
    } else {
        out.extend_from_slice(b"}}");
    }
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
    let tail = ResultTail {
        structured: r.structured.as_ref().map(|s| s.as_str()),
        is_error: r.is_error,
        meta: r.meta.as_ref().map(|m| m.as_str()),
        related_task,
    };
    end_tool_result(out, server, shape, &tail);
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

/// The error answer of a handler that halted. Input a handler asked for is asked before an
/// answer is written, so an `Input` here has nobody to ask: `-32603`.
pub(crate) fn write_halt(out: &mut BytesMut, id: Id<'_>, halt: &crate::api::halt::Halt) {
    match halt {
        crate::api::halt::Halt::Error(e) => write_rpc_error(out, id, e),
        crate::api::halt::Halt::Input(_) => janus_model::shape::write_internal_error(out, id),
    }
}
