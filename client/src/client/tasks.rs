//! Tasks of the 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`), for a client
//! that declares it ([`crate::Options::tasks`]): a request the server answers with a task
//! is waited for by polling `tasks/get`, at the pace the task asks; the task's requests for
//! input are answered by the request's callbacks with `tasks/update`; its end is the
//! request's answer. A wait cancelled or dropped cancels the task with `tasks/cancel` (never
//! with `notifications/cancelled`, which the extension forbids for tasks).

use super::{Cancel, Client, Inner, Reply, lock};
use crate::error::{Error, Rejection};
use janus_codec::RawJson;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

/// The pause between polls when the task names none.
const DEFAULT_POLL: Duration = Duration::from_millis(100);
/// The bounds put on the pause a task asks for.
const POLL_BOUNDS: (Duration, Duration) = (Duration::from_millis(5), Duration::from_secs(5));

/// `tasks/cancel` of the task it names once dropped armed: a wait that ended before the
/// task did.
struct Outstanding {
    inner: Arc<Inner>,
    members: String,
    armed: bool,
}

impl Drop for Outstanding {
    fn drop(&mut self) {
        if self.armed {
            // NB. Not awaited: its answer, whatever it is, is read and dropped as one nobody
            // waits for.
            let (_, line) = lock(&self.inner.core).request(
                "tasks/cancel",
                &[self.members.as_str()],
                None,
                None,
                true,
                None,
            );
            let _ = self.inner.out.send(line);
        }
    }
}

/// The options of a request about a task: the extension declared, as on every one of them
/// (a server refuses `tasks/*` to a client that does not declare it).
fn declaring(forwarded: Option<&Arc<crate::core::Forwarded>>) -> super::CallOptions {
    super::CallOptions {
        tasks: true,
        forwarded: forwarded.cloned(),
        ..super::CallOptions::default()
    }
}

/// How a task is waited for: the request's cancel, what answers the task's requests for
/// input, and what the request said for a client it forwards (each `tasks/*` request says
/// it again, as the task's own requestor).
pub(super) struct Waiting<'a> {
    pub(super) cancel: Option<Cancel>,
    pub(super) callbacks: &'a crate::input::Callbacks,
    pub(super) forwarded: Option<Arc<crate::core::Forwarded>>,
}

/// The pause a task's `pollIntervalMs` asks, within [`POLL_BOUNDS`].
fn pause_of(task: RawJson<'_>) -> Duration {
    task.get("pollIntervalMs")
        .and_then(|p| p.as_str().parse::<u64>().ok())
        .map_or(DEFAULT_POLL, Duration::from_millis)
        .clamp(POLL_BOUNDS.0, POLL_BOUNDS.1)
}

/// The reply whose result is the `result` member of `got` (a completed task's).
fn inner_result(got: &Reply) -> Result<Reply, Error> {
    let r = got.result();
    let nested = r
        .get("result")
        .filter(|n| n.is_object())
        .ok_or_else(|| Error::Protocol("a completed task without its result".into()))?;
    let start = nested.as_str().as_ptr() as usize - got.line.as_ptr() as usize;
    let end = start + nested.as_str().len();
    Ok(Reply {
        line: got.line.clone(),
        start,
        end,
        kind: crate::result::ResultType::of(nested),
        call: None,
    })
}

impl Client {
    /// Waits for the task `made` names (a request's `resultType: "task"` answer) and returns
    /// what the request would have: the task's `result` once `completed`, its `error` once
    /// `failed`.
    pub(super) async fn await_task(&self, made: &Reply, to: Waiting<'_>) -> Result<Reply, Error> {
        let Waiting {
            cancel,
            callbacks,
            forwarded,
        } = to;
        let created = made.result();
        let id = created
            .get("taskId")
            .and_then(RawJson::as_string)
            .ok_or_else(|| Error::Protocol("a task result without a taskId".into()))?;
        let mut outstanding = Outstanding {
            inner: Arc::clone(&self.inner),
            members: crate::core::members_of(&[("taskId", &id)]),
            armed: true,
        };
        let members = outstanding.members.clone();
        let mut pause = pause_of(created);
        let mut answered = HashSet::new();
        loop {
            match &cancel {
                Some(c) => {
                    tokio::select! {
                        () = tokio::time::sleep(pause) => {}
                        () = c.fired() => return Err(Error::Cancelled),
                    }
                }
                None => tokio::time::sleep(pause).await,
            }
            let got = self
                .raw_request(
                    "tasks/get",
                    &[&members],
                    None,
                    self.timeout,
                    Some(declaring(forwarded.as_ref())),
                    super::Want::Raw,
                )
                .await?;
            let task = got.result();
            pause = pause_of(task);
            let status = task.get("status").and_then(RawJson::as_string);
            match status.as_deref() {
                Some("working") => {}
                Some("input_required") => {
                    let before = answered.len();
                    let answers = self
                        .answer_inputs(task, Some(&mut answered), callbacks)
                        .await?;
                    if answered.len() > before {
                        let update = [members.as_str(), ",", answers.as_str()];
                        self.raw_request(
                            "tasks/update",
                            &update,
                            None,
                            self.timeout,
                            Some(declaring(forwarded.as_ref())),
                            super::Want::Raw,
                        )
                        .await?;
                        // NB. The task goes on once the answers reach it: look again soon.
                        pause = POLL_BOUNDS.0;
                    }
                }
                Some("completed") => {
                    outstanding.armed = false;
                    return inner_result(&got);
                }
                Some("failed") => {
                    outstanding.armed = false;
                    return Err(Error::Rejected(Rejection::of_error_object(
                        task.get("error"),
                    )));
                }
                Some("cancelled") => {
                    outstanding.armed = false;
                    return Err(Error::Protocol(format!(
                        "the server cancelled task {id} before it ended"
                    )));
                }
                other => {
                    return Err(Error::Protocol(format!(
                        "task {id} has an unknown status {other:?}"
                    )));
                }
            }
        }
    }
}
