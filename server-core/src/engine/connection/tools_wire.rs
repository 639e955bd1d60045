//! `tools/list` and `tools/call` on a connection: the pre-encoded pages (or, with a
//! visibility rule, the caller's own), and a call's three paths: an inline handler writing
//! straight into the answer, an asynchronous one started as a job, and a call that runs as a
//! task (either generation).

use super::{Connection, TaskWork, msg_cost, request_info};
use crate::api::ctx::JobId;
use crate::api::ctx::{CancelSignal, Ctx};
use crate::api::halt::Halt;
use crate::api::tools::{Args, Handler, Output, Stage, StagedFuture};
use crate::engine::answers;
use crate::engine::connection::jobs::{
    Done, DoneKind, Entry, JobEnd, Kind, NewJob, Slot, ToolEnd, Work,
};
use crate::engine::server::Server;
use crate::engine::tasks::{Outcome as Ended, Stored};
use bytes::BytesMut;
use janus_codec::encode;
use janus_codec::{INVALID_PARAMS, Id, Message, RawJson};
use janus_model::json::Json;
use janus_model::json::RpcError;
use janus_model::shape::{self, Shape};
use std::panic::{AssertUnwindSafe, catch_unwind};

use super::tasks_wire;

impl Connection {
    pub(super) fn tools_list(
        &self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        out: &mut BytesMut,
    ) {
        let cursor = match msg.param("cursor") {
            None => None,
            Some(c) if c.is_null() => None,
            Some(c) => match c.as_string() {
                Some(s) => Some(s),
                None => {
                    encode::write_error(out, Some(id), INVALID_PARAMS, "Invalid cursor", None);
                    return;
                }
            },
        };
        let cat = self.server.catalog();
        if self.server.visible.is_some() {
            self.tools_list_for(id, msg, shape, &cat, cursor.as_deref(), out);
            return;
        }
        let Some(page) = cat.page(shape, cursor.as_deref()) else {
            encode::write_error(out, Some(id), INVALID_PARAMS, "Invalid cursor", None);
            return;
        };
        encode::begin_result(out, id);
        let (tools, next) = cat.tools_page(shape, page);
        answers::write_tools_page(out, &self.server, shape, tools, next.as_deref());
        encode::end_message(out);
    }

    /// `tools/list` of a server whose lists depend on the caller: the tools it sees, paged,
    /// encoded for this request.
    fn tools_list_for(
        &self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        cat: &crate::engine::server::Catalog,
        cursor: Option<&str>,
        out: &mut BytesMut,
    ) {
        let info = request_info(&self.session, self.principal.as_deref(), id, msg, shape);
        let ctx = Ctx::inline(info, &self.notes);
        let seen: Vec<&crate::api::tools::ToolSpec> = cat
            .tools
            .iter()
            .map(|e| &e.spec)
            .filter(|s| {
                self.server
                    .shows(&ctx, crate::engine::server::Listed::Tool(s))
            })
            .collect();
        let Some((start, end, next)) =
            crate::engine::server::page_bounds(seen.len(), self.server.page_size(), cursor)
        else {
            encode::write_error(out, Some(id), INVALID_PARAMS, "Invalid cursor", None);
            return;
        };
        let mut tools = BytesMut::new();
        for (i, spec) in seen[start..end].iter().enumerate() {
            if i > 0 {
                tools.extend_from_slice(b",");
            }
            shape::write_tool(&mut tools, spec, shape);
        }
        encode::begin_result(out, id);
        let tools = std::str::from_utf8(&tools).unwrap_or("");
        answers::write_tools_page(out, &self.server, shape, tools, next.as_deref());
        encode::end_message(out);
    }

    pub(super) fn tools_call(
        &mut self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        out: &mut BytesMut,
        slot: Slot,
    ) {
        // NB. Found among the members the codec kept in its validating pass (else in one walk
        // for all four): the arguments and `_meta` may be large.
        let [name, args, responses, token] =
            msg.params_many(["name", "arguments", "inputResponses", "requestState"]);
        let Some(name) = name.and_then(RawJson::as_string) else {
            encode::write_error(
                out,
                Some(id),
                INVALID_PARAMS,
                "Invalid params: tools/call needs a string name",
                None,
            );
            return;
        };
        let server = &self.server;
        let cat = server.catalog();
        let Some((spec, handler)) = cat.tool(&name) else {
            let message = format!("Unknown tool: {name}");
            encode::write_error(out, Some(id), INVALID_PARAMS, &message, None);
            return;
        };
        let task = match tasks_wire::task_mode(msg, shape, spec.task_support) {
            Ok(task) => task,
            Err(refusal) => {
                refusal.write(out, id, &name);
                return;
            }
        };
        let args = args.filter(|a| !a.is_null());
        if args.is_some_and(|a| !a.is_object()) {
            encode::write_error(
                out,
                Some(id),
                INVALID_PARAMS,
                "Invalid params: arguments must be an object",
                None,
            );
            return;
        }
        let args = Args::new(args);
        let replay = self.replay.take();
        let inputs = match self.inputs_for(msg, shape, replay, [responses, token]) {
            Ok(i) => i,
            Err(e) => {
                shape::write_rpc_error(out, id, &e);
                return;
            }
        };
        let mut info = request_info(&self.session, self.principal.as_deref(), id, msg, shape);
        info.inputs = inputs.as_ref();
        if server.visible.is_some()
            && !server.shows(
                &Ctx::inline(info, &self.notes),
                crate::engine::server::Listed::Tool(spec),
            )
        {
            let message = format!("Unknown tool: {name}");
            encode::write_error(out, Some(id), INVALID_PARAMS, &message, None);
            return;
        }
        match handler {
            Handler::Inline(tool) if task.is_none() => {
                let mark = out.len();
                encode::begin_result(out, id);
                answers::begin_tool_result(out);
                let ctx = Ctx::inline(info, &self.notes);
                let mut o = Output::new(out, shape);
                let called = call_inline(&**tool, &ctx, args, &mut o);
                let (structured, is_error, meta) = o.finish();
                match called {
                    Ok(()) => {
                        let structured = structured.as_ref().map(|s| s.as_str());
                        let end = answers::ResultTail {
                            structured,
                            is_error,
                            meta: meta.as_ref().map(Json::as_str),
                            related_task: None,
                        };
                        answers::end_tool_result(out, server, shape, &end);
                        encode::end_message(out);
                    }
                    // NB. The error replaces whatever the handler wrote of its result.
                    Err(e) => {
                        out.truncate(mark);
                        self.refused(id, msg, shape, inputs, e, slot, out);
                    }
                }
            }
            Handler::Inline(tool) => {
                let Some(mode) = task else { return };
                let ctx = Ctx::inline(info, &self.notes);
                let mut scratch = BytesMut::new();
                let mut o = Output::new(&mut scratch, shape);
                let called = call_inline(&**tool, &ctx, args, &mut o);
                let (structured, is_error, meta) = o.finish();
                let ended = match called {
                    Ok(()) => Ended::Result(Stored {
                        content: String::from_utf8_lossy(&scratch).into_owned(),
                        structured,
                        is_error,
                        meta,
                    }),
                    // NB. Input is asked before the task exists (rounds), or within it.
                    Err(Halt::Error(e)) => Ended::Error(e),
                    Err(halt) => {
                        self.refused_task(id, msg, shape, inputs, halt, mode, out);
                        return;
                    }
                };
                self.task_call(id, msg, shape, mode, TaskWork::Ended(ended), out);
            }
            Handler::Async(tool) => {
                let job = self.jobs.reserve();
                let signal = CancelSignal::default();
                let ctx = Ctx::job(info, job, &self.notify, &signal);
                // NB. A parked task's call run again runs as its task, not in stages.
                if let Some(mode) = task
                    && self.continuing.is_none()
                {
                    let staged = catch_unwind(AssertUnwindSafe(|| tool.call_staged(&ctx, args)));
                    let staged = staged.unwrap_or_else(|_| Some(Err(RpcError::internal().into())));
                    if let Some(staged) = staged {
                        let first = Staged {
                            job,
                            signal,
                            mode,
                            slot,
                        };
                        self.start_staged(id, msg, shape, inputs, first, staged, out);
                        return;
                    }
                }
                let started = catch_unwind(AssertUnwindSafe(|| tool.call(&ctx, args)));
                let started = started.unwrap_or_else(|_| Err(RpcError::internal().into()));
                let work = match (started, task) {
                    (Ok(work), _) => work,
                    (Err(Halt::Error(e)), Some(mode)) => {
                        self.task_call(id, msg, shape, mode, TaskWork::Ended(Ended::Error(e)), out);
                        return;
                    }
                    (Err(halt), Some(mode)) => {
                        self.refused_task(id, msg, shape, inputs, halt, mode, out);
                        return;
                    }
                    (Err(halt), None) => {
                        self.refused(id, msg, shape, inputs, halt, slot, out);
                        return;
                    }
                };
                // NB. The work may still ask for input: the job keeps the request for it.
                let resume = super::input_wire::resume_of(id, msg, inputs);
                match task {
                    Some(mode) => {
                        let work = TaskWork::Job {
                            job,
                            work,
                            signal,
                            cost: msg_cost(msg),
                            resume,
                        };
                        self.task_call(id, msg, shape, mode, work, out);
                    }
                    None => {
                        let new = NewJob {
                            request: Some(id.to_owned()),
                            slot,
                            kind: Kind::Call { shape, resume },
                            signal: Some(signal),
                            cost: msg_cost(msg),
                        };
                        self.jobs.start(job, new, Work::tool(work));
                    }
                }
            }
        }
    }

    /// Starts the first stage of a call that is to run as a task ([`AsyncTool::call_staged`]):
    /// input it asks for before it starts is a round of the call, an error the task's.
    ///
    /// [`AsyncTool::call_staged`]: crate::api::tools::AsyncTool::call_staged
    #[allow(clippy::too_many_arguments)]
    fn start_staged(
        &mut self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        inputs: Option<crate::api::input::Inputs>,
        first: Staged,
        staged: Result<StagedFuture, Halt>,
        out: &mut BytesMut,
    ) {
        match staged {
            Ok(work) => {
                let resume = super::input_wire::resume_of(id, msg, inputs);
                let (legacy, ttl) = match first.mode {
                    tasks_wire::TaskMode::Legacy { ttl } => (true, ttl),
                    tasks_wire::TaskMode::Modern => (false, None),
                };
                let new = NewJob {
                    request: Some(id.to_owned()),
                    slot: None,
                    kind: Kind::Staged {
                        shape,
                        resume,
                        legacy,
                        ttl,
                    },
                    signal: Some(first.signal),
                    cost: msg_cost(msg),
                };
                self.jobs.start(first.job, new, Work::staged(work));
            }
            Err(Halt::Error(e)) => {
                let ended = TaskWork::Ended(Ended::Error(e));
                self.task_call(id, msg, shape, first.mode, ended, out);
            }
            Err(halt) => self.refused(id, msg, shape, inputs, halt, first.slot, out),
        }
    }

    /// The first stage of a call that is to run as a task ended ([`Stage`]): the client is
    /// asked a round of input as for a call that is no task; else the task is made, ended
    /// already or running the rest of the work (as the same job, with the same cancel).
    pub(super) fn staged_done(
        &mut self,
        job: JobId,
        entry: Entry,
        end: JobEnd,
        out: &mut BytesMut,
    ) {
        let (
            Kind::Staged {
                shape,
                resume,
                legacy,
                ttl,
            },
            Some(id),
        ) = (entry.kind, entry.request)
        else {
            return;
        };
        let staged = match end {
            JobEnd::Finished(Done(DoneKind::Staged(r))) => r,
            // NB. A panic fails the task, as one in `call_staged` itself or in the task's
            // work does, without its cause.
            JobEnd::Panicked => Err(RpcError::internal().into()),
            // Only a staged work's end comes here.
            JobEnd::Finished(_) => {
                shape::write_internal_error(out, id.as_id());
                return;
            }
        };
        let work = match staged {
            Err(Halt::Input(asked)) => {
                self.ask_later(id.as_id(), shape, *resume, asked, None, out);
                return;
            }
            Err(Halt::Error(e)) => TaskWork::Ended(Ended::Error(e)),
            Ok(Stage::Done(r)) => TaskWork::Ended(Ended::Result(super::stored(shape, &r))),
            Ok(Stage::Task(work)) => TaskWork::Job {
                job,
                work,
                signal: entry.signal.unwrap_or_default(),
                cost: 2 * resume.frame.len(),
                resume,
            },
        };
        self.create_task(id, shape, legacy, ttl, work, out);
    }

    /// A handler of a call that runs as a task needs input: within the task when it asks so
    /// and the task is the extension's, else in rounds before it.
    #[allow(clippy::too_many_arguments)]
    fn refused_task(
        &mut self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        inputs: Option<crate::api::input::Inputs>,
        halt: Halt,
        mode: tasks_wire::TaskMode,
        out: &mut BytesMut,
    ) {
        match halt {
            Halt::Input(asked)
                if asked.within_task && matches!(mode, tasks_wire::TaskMode::Modern) =>
            {
                self.park_task(id, msg, shape, inputs, asked, out);
            }
            halt => self.refused(id, msg, shape, inputs, halt, None, out),
        }
    }
}

/// What the first stage of a call that is to run as a task starts with.
struct Staged {
    job: JobId,
    signal: CancelSignal,
    mode: tasks_wire::TaskMode,
    slot: Slot,
}

/// Runs an inline handler into `o`. A panic is `-32603` with nothing of its cause.
#[inline(always)]
fn call_inline(
    tool: &dyn crate::api::tools::Tool,
    ctx: &Ctx<'_>,
    args: Args<'_>,
    o: &mut Output<'_>,
) -> Result<(), Halt> {
    // NB. Only the call is inside `catch_unwind`, so its closure stays small.
    catch_unwind(AssertUnwindSafe(|| tool.call(ctx, args, o)))
        .unwrap_or_else(|_| Err(RpcError::internal().into()))
}

/// The answer of an asynchronous `tools/call` whose work ended.
pub(super) fn write_job_answer(
    out: &mut BytesMut,
    server: &Server,
    id: Id<'_>,
    shape: Shape,
    end: ToolEnd,
) {
    match end {
        ToolEnd::Finished(Ok(r)) => {
            encode::begin_result(out, id);
            answers::begin_tool_result(out);
            let mut o = Output::new(out, shape);
            o.replay(&r);
            let (structured, is_error, meta) = o.finish();
            let end = answers::ResultTail {
                structured: structured.as_ref().map(Json::as_str),
                is_error,
                meta: meta.as_ref().map(Json::as_str),
                related_task: None,
            };
            answers::end_tool_result(out, server, shape, &end);
            encode::end_message(out);
        }
        ToolEnd::Finished(Err(e)) => answers::write_halt(out, id, &e),
        ToolEnd::Panicked => shape::write_internal_error(out, id),
    }
}
