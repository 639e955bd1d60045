//! Prompts, resources, completions and legacy logging on a connection: each request answered
//! inline, in the shape of its revision (titles from 2025-06-18; `resultType`, the server
//! info stamp and caching hints from 2026-07-28).

use super::Connection;
use crate::api::complete::{Completion, CompletionRequest};
use crate::api::ctx::{Ctx, LogLevel};
use crate::api::halt::Halt;
use crate::api::prompts::{PromptArgs, PromptMessages};
use crate::api::resources::Contents;
use crate::engine::answers;
use crate::engine::server::{CompletionRef, Listed, page_bounds};
use bytes::{BufMut, BytesMut};
use janus_codec::encode;
use janus_codec::{INVALID_PARAMS, Id, Message, RawJson};
use janus_model::json::RpcError;
use janus_model::shape::{self, ResultType, Shape};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// The legacy code of a resource that is not found.
pub const RESOURCE_NOT_FOUND: i32 = -32002;

/// Runs a handler; a panic is `-32603` with nothing of its cause.
fn guarded<T>(f: impl FnOnce() -> Result<T, Halt>) -> Result<T, Halt> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| Err(RpcError::internal().into()))
}

fn invalid(out: &mut BytesMut, id: Id<'_>, message: &str) {
    encode::write_error(out, Some(id), INVALID_PARAMS, message, None);
}

/// The string `key` of the params (borrowed unless it has escapes), or an `-32602` naming it.
fn required_string<'m>(
    msg: &Message<'m>,
    key: &str,
    method: &str,
    out: &mut BytesMut,
    id: Id<'_>,
) -> Option<std::borrow::Cow<'m, str>> {
    let v = msg.param(key).and_then(RawJson::as_string);
    if v.is_none() {
        invalid(
            out,
            id,
            &format!("Invalid params: {method} needs a string {key}"),
        );
    }
    v
}

/// The cursor of a list request (`Err` when it is there and not a string).
fn cursor(msg: &Message<'_>) -> Result<Option<String>, ()> {
    match msg.param("cursor") {
        None => Ok(None),
        Some(c) if c.is_null() => Ok(None),
        Some(c) => c.as_string().map(|s| Some(s.into_owned())).ok_or(()),
    }
}

/// A resource read whose answer comes later: a direct resource's or a template's.
enum LaterRead {
    Resource(std::sync::Arc<dyn crate::api::resources::ReadResource>),
    Template(
        std::sync::Arc<dyn crate::api::resources::ReadTemplate>,
        crate::api::resources::Vars,
    ),
}

impl Connection {
    /// `resources/subscribe` (`on`) or `resources/unsubscribe` on a handshake session.
    pub(super) fn subscribe(&self, id: Id<'_>, msg: &Message<'_>, out: &mut BytesMut, on: bool) {
        if let Some(uri) = required_string(msg, "uri", msg.method(), out, id) {
            if let Some(w) = &self.session_watch {
                w.subscribe(&uri, on);
            }
            encode::write_result(out, id, "{}");
        }
    }

    /// With a visibility rule, the indices of the `n` items the caller sees (`item(i)` is the
    /// i-th); `None` without one (every item is seen).
    fn shown<'c>(
        &self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        n: usize,
        item: impl Fn(usize) -> Listed<'c>,
    ) -> Option<Vec<usize>> {
        self.server.visible.as_ref()?;
        let info = super::request_info(&self.session, self.principal.as_deref(), id, msg, shape);
        let ctx = Ctx::inline(info, &self.notes);
        Some(
            (0..n)
                .filter(|&i| self.server.shows(&ctx, item(i)))
                .collect(),
        )
    }

    /// True when the caller of the request sees `item`.
    fn sees(&self, id: Id<'_>, msg: &Message<'_>, shape: Shape, item: Listed<'_>) -> bool {
        if self.server.visible.is_none() {
            return true;
        }
        let info = super::request_info(&self.session, self.principal.as_deref(), id, msg, shape);
        self.server.shows(&Ctx::inline(info, &self.notes), item)
    }

    /// The answers a `prompts/get` or `resources/read` is served with; `None` when the
    /// request was answered with the error of its `inputResponses` or `requestState`.
    #[allow(clippy::option_option)]
    fn surface_inputs(
        &self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        out: &mut BytesMut,
        replay: Option<crate::api::input::Inputs>,
    ) -> Option<Option<crate::api::input::Inputs>> {
        let given = msg.params().map_or([None; 2], |p| {
            p.get_many(["inputResponses", "requestState"])
        });
        match self.inputs_for(msg, shape, replay, given) {
            Ok(i) => Some(i),
            Err(e) => {
                shape::write_rpc_error(out, id, &e);
                None
            }
        }
    }

    pub(super) fn set_level(&mut self, id: Id<'_>, msg: &Message<'_>, out: &mut BytesMut) {
        let level = msg
            .param("level")
            .and_then(RawJson::as_string)
            .and_then(|l| LogLevel::from_wire(&l));
        match level {
            Some(l) => {
                self.session.log_level = Some(l);
                encode::write_result(out, id, "{}");
            }
            None => invalid(out, id, "Invalid params: level must be a syslog level name"),
        }
    }

    pub(super) fn prompts_list(
        &self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        out: &mut BytesMut,
    ) {
        let server = &self.server;
        let cat = server.catalog();
        let prompts = &cat.surface.prompts;
        let shown = self.shown(id, msg, shape, prompts.len(), |i| {
            Listed::Prompt(&prompts[i].0)
        });
        let len = shown.as_ref().map_or(prompts.len(), Vec::len);
        let Some((start, end, next)) = cursor(msg)
            .ok()
            .and_then(|c| page_bounds(len, server.page_size(), c.as_deref()))
        else {
            invalid(out, id, "Invalid cursor");
            return;
        };
        encode::begin_result(out, id);
        out.extend_from_slice(br#"{"prompts":["#);
        for k in start..end {
            let spec = &prompts[shown.as_ref().map_or(k, |v| v[k])].0;
            if k > start {
                out.put_u8(b',');
            }
            shape::write_prompt(out, spec, shape);
        }
        end_list(out, server, shape, next.as_deref());
        encode::end_message(out);
    }

    pub(super) fn prompts_get(
        &mut self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        out: &mut BytesMut,
        slot: crate::engine::connection::jobs::Slot,
    ) {
        let replay = self.replay.take();
        let Some(name) = required_string(msg, "name", "prompts/get", out, id) else {
            return;
        };
        let server = &self.server;
        let cat = server.catalog();
        let Some((spec, handler)) = cat
            .surface
            .prompt(&name)
            .filter(|(p, _)| self.sees(id, msg, shape, Listed::Prompt(p)))
        else {
            invalid(out, id, &format!("Unknown prompt: {name}"));
            return;
        };
        let raw = msg.param("arguments").filter(|a| !a.is_null());
        if raw.is_some_and(|a| !a.is_object()) {
            invalid(out, id, "Invalid params: arguments must be an object");
            return;
        }
        let args = PromptArgs::new(raw);
        if let Some(missing) = spec
            .arguments
            .iter()
            .find(|a| a.required && !args.has(&a.name))
        {
            let m = format!("Invalid params: missing required argument {}", missing.name);
            invalid(out, id, &m);
            return;
        }
        let Some(inputs) = self.surface_inputs(id, msg, shape, out, replay) else {
            return;
        };
        let mut info =
            super::request_info(&self.session, self.principal.as_deref(), id, msg, shape);
        info.inputs = inputs.as_ref();
        if handler.is_later() {
            let handler = std::sync::Arc::clone(handler);
            drop(cat);
            let started = |ctx: &Ctx<'_>| {
                guarded(|| handler.start(ctx, args)).map(|fut| {
                    later(fut, move |body, m| {
                        shape::write_prompt_messages(body, shape, &m);
                        m.meta
                    })
                })
            };
            self.start_later(id, msg, shape, inputs, slot, None, started, out);
            return;
        }
        let ctx = Ctx::inline(info, &self.notes);
        let mut messages = PromptMessages::default();
        if let Err(e) = guarded(|| handler.get(&ctx, args, &mut messages)) {
            self.refused(id, msg, shape, inputs, e, slot, out);
            return;
        }
        encode::begin_result(out, id);
        let mut body = BytesMut::new();
        shape::write_prompt_messages(&mut body, shape, &messages);
        out.extend_from_slice(&body[..body.len() - 1]);
        let meta = messages.meta.as_ref().map(janus_model::json::Json::as_str);
        answers::end_result_with_meta(out, server, shape, ResultType::Complete, meta, None);
        encode::end_message(out);
    }

    /// Starts a handler whose answer comes later as a job of kind `Surface`; `start` gets
    /// the job's context and returns the work (or the error the request gets at once).
    #[allow(clippy::too_many_arguments)]
    fn start_later(
        &mut self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        inputs: Option<crate::api::input::Inputs>,
        slot: crate::engine::connection::jobs::Slot,
        uri: Option<String>,
        start: impl FnOnce(&Ctx<'_>) -> Result<crate::api::tools::ToolFuture, Halt>,
        out: &mut BytesMut,
    ) {
        let job = self.jobs.reserve();
        let signal = crate::api::ctx::CancelSignal::default();
        let mut info =
            super::request_info(&self.session, self.principal.as_deref(), id, msg, shape);
        info.inputs = inputs.as_ref();
        let started = start(&Ctx::job(info, job, &self.notify, &signal));
        match started {
            Ok(work) => {
                let resume = super::input_wire::resume_of(id, msg, inputs);
                let new = crate::engine::connection::jobs::NewJob {
                    request: Some(id.to_owned()),
                    slot,
                    kind: crate::engine::connection::jobs::Kind::Surface { shape, uri, resume },
                    signal: Some(signal),
                    cost: super::msg_cost(msg),
                };
                self.jobs
                    .start(job, new, crate::engine::connection::jobs::Work::tool(work));
            }
            Err(e) => self.refused(id, msg, shape, inputs, e, slot, out),
        }
    }

    pub(super) fn resources_list(
        &self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        out: &mut BytesMut,
        templates: bool,
    ) {
        let server = &self.server;
        let cat = server.catalog();
        let s = &cat.surface;
        let all = if templates {
            s.templates.len()
        } else {
            s.resources.len()
        };
        let shown = self.shown(id, msg, shape, all, |i| {
            if templates {
                Listed::Template(&s.templates[i].0)
            } else {
                Listed::Resource(&s.resources[i].0)
            }
        });
        let len = shown.as_ref().map_or(all, Vec::len);
        let Some((start, end, next)) = cursor(msg)
            .ok()
            .and_then(|c| page_bounds(len, server.page_size(), c.as_deref()))
        else {
            invalid(out, id, "Invalid cursor");
            return;
        };
        encode::begin_result(out, id);
        out.extend_from_slice(if templates {
            br#"{"resourceTemplates":["#
        } else {
            br#"{"resources":["#
        });
        for k in start..end {
            let i = shown.as_ref().map_or(k, |v| v[k]);
            if k > start {
                out.put_u8(b',');
            }
            if templates {
                shape::write_template(out, &s.templates[i].0, shape);
            } else {
                shape::write_resource(out, &s.resources[i].0, shape);
            }
        }
        end_list(out, server, shape, next.as_deref());
        encode::end_message(out);
    }

    pub(super) fn resources_read(
        &mut self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        out: &mut BytesMut,
        slot: crate::engine::connection::jobs::Slot,
    ) {
        let replay = self.replay.take();
        // NB. Borrowed from the frame unless it has escapes: a read allocates nothing.
        let Some(uri) = msg.param("uri").and_then(RawJson::as_string) else {
            invalid(out, id, "Invalid params: resources/read needs a string uri");
            return;
        };
        if replay.is_none() && self.read_fixed(id, msg, shape, &uri, out) {
            return;
        }
        let Some(inputs) = self.surface_inputs(id, msg, shape, out, replay) else {
            return;
        };
        let server = &self.server;
        let cat = server.catalog();
        let s = &cat.surface;
        let mut info =
            super::request_info(&self.session, self.principal.as_deref(), id, msg, shape);
        info.inputs = inputs.as_ref();
        let ctx = Ctx::inline(info, &self.notes);
        // NB. A direct resource the caller sees comes first; a template only for a URI that
        // names none.
        let direct = s
            .resources
            .iter()
            .find(|(r, _)| r.uri == uri && server.shows(&ctx, Listed::Resource(r)));
        let pending = match direct {
            Some((_, h)) => h
                .is_later()
                .then(|| LaterRead::Resource(std::sync::Arc::clone(h))),
            None => s
                .templates
                .iter()
                .filter(|(t, _)| server.shows(&ctx, Listed::Template(t)))
                .find_map(|(t, h)| t.matches(&uri).map(|v| (v, h)))
                .filter(|(_, h)| h.is_later())
                .map(|(v, h)| LaterRead::Template(std::sync::Arc::clone(h), v)),
        };
        if let Some(handler) = pending {
            drop(cat);
            let owned = uri.clone().into_owned();
            let started = |ctx: &Ctx<'_>| {
                guarded(|| match &handler {
                    LaterRead::Resource(h) => h.start(ctx, &owned),
                    LaterRead::Template(h, vars) => h.start(ctx, &owned, vars),
                })
                .map(|fut| {
                    later(fut, |body, c: Contents| {
                        c.write(body);
                        None
                    })
                })
            };
            self.start_later(
                id,
                msg,
                shape,
                inputs,
                slot,
                Some(uri.into_owned()),
                started,
                out,
            );
            return;
        }
        let mut contents = Contents::default();
        // NB. What the caller does not see is not found.
        let shows = |item| server.shows(&ctx, item);
        let read = if let Some((_, h)) = s
            .resources
            .iter()
            .find(|(r, _)| r.uri == uri && shows(Listed::Resource(r)))
        {
            guarded(|| h.read(&ctx, &uri, &mut contents))
        } else if let Some((vars, h)) = s
            .templates
            .iter()
            .filter(|(t, _)| shows(Listed::Template(t)))
            .find_map(|(t, h)| t.matches(&uri).map(|v| (v, h)))
        {
            guarded(|| h.read(&ctx, &uri, &vars, &mut contents))
        } else {
            Ok(())
        };
        if let Err(e) = read {
            self.refused(id, msg, shape, inputs, e, slot, out);
            return;
        }
        if contents.items.is_empty() {
            write_not_found(out, id, shape, &uri);
            return;
        }
        encode::begin_result(out, id);
        let mut body = BytesMut::new();
        contents.write(&mut body);
        out.extend_from_slice(&body[..body.len() - 1]);
        if shape.modern() {
            answers::write_cache_hints(out, server);
        }
        answers::end_result(out, server, shape, ResultType::Complete);
        encode::end_message(out);
    }

    /// A resource whose content never changes, answered straight from it; false when `uri`
    /// is not one (or the request carries input answers, which a handler must see).
    fn read_fixed(
        &self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        uri: &str,
        out: &mut BytesMut,
    ) -> bool {
        let cat = self.server.catalog();
        let Some(fixed) = cat
            .surface
            .resources
            .iter()
            .find(|(r, _)| r.uri == uri)
            .filter(|(r, _)| self.sees(id, msg, shape, Listed::Resource(r)))
            .and_then(|(_, h)| h.fixed())
        else {
            return false;
        };
        if shape.modern()
            && msg
                .params()
                .is_some_and(|p| p.get_many(["inputResponses", "requestState"]) != [None, None])
        {
            return false;
        }
        encode::begin_result(out, id);
        out.extend_from_slice(br#"{"contents":[{"uri":"#);
        encode::write_str(out, uri);
        if let Some(m) = &fixed.mime_type {
            out.extend_from_slice(br#","mimeType":"#);
            encode::write_str(out, m);
        }
        out.extend_from_slice(br#",""#);
        out.extend_from_slice(fixed.key().as_bytes());
        out.extend_from_slice(br#"":"#);
        out.extend_from_slice(fixed.encoded.as_bytes());
        out.extend_from_slice(b"}]");
        if shape.modern() {
            answers::write_cache_hints(out, &self.server);
        }
        answers::end_result(out, &self.server, shape, ResultType::Complete);
        encode::end_message(out);
        true
    }

    pub(super) fn complete(
        &mut self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        out: &mut BytesMut,
        slot: crate::engine::connection::jobs::Slot,
    ) {
        let reference = msg.param("ref");
        let kind = reference
            .and_then(|r| r.get("type"))
            .and_then(RawJson::as_string);
        let target = match kind.as_deref() {
            Some("ref/prompt") => reference
                .and_then(|r| r.get("name"))
                .and_then(RawJson::as_string)
                .map(|n| CompletionRef::Prompt(n.into_owned())),
            Some("ref/resource") => reference
                .and_then(|r| r.get("uri"))
                .and_then(RawJson::as_string)
                .map(|u| CompletionRef::Template(u.into_owned())),
            _ => None,
        };
        let argument = msg.param("argument");
        let name = argument
            .and_then(|a| a.get("name"))
            .and_then(RawJson::as_string);
        let value = argument
            .and_then(|a| a.get("value"))
            .and_then(RawJson::as_string);
        let (Some(target), Some(name), Some(value)) = (target, name, value) else {
            invalid(
                out,
                id,
                "Invalid params: completion/complete needs a ref (ref/prompt with a name, or \
                 ref/resource with a uri) and an argument with a name and a value",
            );
            return;
        };
        let server = &self.server;
        let cat = server.catalog();
        let known = match &target {
            CompletionRef::Prompt(p) => cat
                .surface
                .prompt(p)
                .is_some_and(|(p, _)| self.sees(id, msg, shape, Listed::Prompt(p))),
            CompletionRef::Template(t) => cat.surface.templates.iter().any(|(s, _)| {
                &s.uri_template == t && self.sees(id, msg, shape, Listed::Template(s))
            }),
        };
        if !known {
            invalid(
                out,
                id,
                "Invalid params: the ref names no prompt or template of this server",
            );
            return;
        }
        let req = CompletionRequest {
            argument: &name,
            value: &value,
            context: msg.param("context").and_then(|c| c.get("arguments")),
        };
        if let Some(h) = cat
            .surface
            .completions
            .iter()
            .find(|(to, arg, h)| *to == target && *arg == *name && h.is_later())
            .map(|(_, _, h)| std::sync::Arc::clone(h))
        {
            drop(cat);
            let started = |ctx: &Ctx<'_>| {
                guarded(|| h.start(ctx, &req)).map(|fut| {
                    later(fut, |body, c: Completion| {
                        c.write(body);
                        None
                    })
                })
            };
            self.start_later(id, msg, shape, None, slot, None, started, out);
            return;
        }
        let info = super::request_info(&self.session, self.principal.as_deref(), id, msg, shape);
        let ctx = Ctx::inline(info, &self.notes);
        let values = match cat.surface.completion(&target, &name) {
            Some(h) => match guarded(|| Ok(h.complete(&ctx, &req))) {
                Ok(v) => v,
                Err(e) => {
                    answers::write_halt(out, id, &e);
                    return;
                }
            },
            None => Vec::new(),
        };
        encode::begin_result(out, id);
        let mut body = BytesMut::new();
        Completion::from(values).write(&mut body);
        out.extend_from_slice(&body[..body.len() - 1]);
        answers::end_result(out, server, shape, ResultType::Complete);
        encode::end_message(out);
    }
}

/// The work of a handler whose answer comes later: its output encoded by `write` into the
/// result object, carried to the job's end as a tool result's structured part (and the
/// result's own `_meta`, which `write` gives back, as the tool result's).
fn later<T: Send + 'static>(
    fut: crate::api::ctx::BoxFuture<Result<T, Halt>>,
    write: impl FnOnce(&mut BytesMut, T) -> Option<janus_model::json::Json> + Send + 'static,
) -> crate::api::tools::ToolFuture {
    Box::pin(async move {
        let value = fut.await?;
        let mut body = BytesMut::new();
        let meta = write(&mut body, value);
        Ok(crate::api::tools::ToolResult {
            content: Vec::new(),
            structured: Some(janus_model::json::Json::from_written(&body)),
            meta,
            ..crate::api::tools::ToolResult::default()
        })
    })
}

impl Connection {
    /// The answer of a `resources/read` or `prompts/get` whose work ended: the result object
    /// it encoded (an empty `contents` is not found), its error, or `-32603` for a panic.
    pub(super) fn write_surface_answer(
        &self,
        out: &mut BytesMut,
        id: Id<'_>,
        shape: Shape,
        uri: Option<&str>,
        end: crate::engine::connection::jobs::ToolEnd,
    ) {
        match end {
            crate::engine::connection::jobs::ToolEnd::Finished(Ok(r)) => {
                let body = r.structured.as_ref().map_or("{}", |j| j.as_str());
                if let Some(u) = uri
                    && body == r#"{"contents":[]}"#
                {
                    write_not_found(out, id, shape, u);
                    return;
                }
                encode::begin_result(out, id);
                out.extend_from_slice(&body.as_bytes()[..body.len() - 1]);
                if uri.is_some() && shape.modern() {
                    answers::write_cache_hints(out, &self.server);
                }
                let meta = r.meta.as_ref().map(janus_model::json::Json::as_str);
                answers::end_result_with_meta(
                    out,
                    &self.server,
                    shape,
                    ResultType::Complete,
                    meta,
                    None,
                );
                encode::end_message(out);
            }
            crate::engine::connection::jobs::ToolEnd::Finished(Err(e)) => {
                answers::write_halt(out, id, &e)
            }
            crate::engine::connection::jobs::ToolEnd::Panicked => {
                shape::write_internal_error(out, id)
            }
        }
    }
}

/// Closes a list's array: the next cursor, the modern caching hints and stamp.
fn end_list(
    out: &mut BytesMut,
    server: &crate::engine::server::Server,
    shape: Shape,
    next: Option<&str>,
) {
    out.put_u8(b']');
    if let Some(c) = next {
        out.extend_from_slice(br#","nextCursor":"#);
        encode::write_str(out, c);
    }
    if shape.modern() {
        answers::write_cache_hints(out, server);
    }
    answers::end_result(out, server, shape, ResultType::Complete);
}

/// A URI no resource holds: `-32002` in the legacy era, `-32602` from 2026-07-28; both with
/// `data.uri`.
fn write_not_found(out: &mut BytesMut, id: Id<'_>, shape: Shape, uri: &str) {
    let mut data = BytesMut::new();
    data.extend_from_slice(br#"{"uri":"#);
    encode::write_str(&mut data, uri);
    data.put_u8(b'}');
    let code = if shape.modern() {
        INVALID_PARAMS
    } else {
        RESOURCE_NOT_FOUND
    };
    let data = std::str::from_utf8(&data).unwrap_or("{}");
    encode::write_error(out, Some(id), code, "Resource not found", Some(data));
}
