//! A tool a handshake backend runs only as a task (2025-11-25 `execution.taskSupport:
//! "required"`): the bridge creates the task at the backend and waits for its result with
//! `tasks/result`, so that the front (which keeps its own task for a client that asked for
//! one) sees one call. A front request cancelled or dropped cancels the backend's task.

use janus_client::{CallOptions, CallResult, Cancel, Client, Error};
use janus_codec::RawJson;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;

/// How long the backend keeps the task (`task.ttl`, ms): the front's own tasks' default.
const TTL_MS: u64 = 600_000;

/// A task-augmented request in flight whose task, once made, is the caller's to cancel:
/// dropped before the backend answered, it waits for the answer (in the background) and
/// cancels the task it names. A task-augmented request is never cancelled with
/// `notifications/cancelled`: the backend would drop the answer and run the task on.
struct Creating {
    client: Arc<Client>,
    reply: Option<JoinHandle<Result<janus_client::Reply, Error>>>,
}

impl Drop for Creating {
    fn drop(&mut self) {
        let Some(reply) = self.reply.take() else {
            return;
        };
        let client = Arc::clone(&self.client);
        if tokio::runtime::Handle::try_current().is_ok() {
            tokio::spawn(async move {
                let Ok(Ok(made)) = reply.await else {
                    return;
                };
                if let Some(members) = task_of(&made.result()) {
                    cancel_task(&client, &members).await;
                }
            });
        }
    }
}

/// Cancels the backend's task unless the call ended (dropped with the front request's work).
struct Running {
    client: Arc<Client>,
    task: Option<String>,
}

impl Drop for Running {
    fn drop(&mut self) {
        let Some(members) = self.task.take() else {
            return;
        };
        let client = Arc::clone(&self.client);
        if tokio::runtime::Handle::try_current().is_ok() {
            tokio::spawn(async move { cancel_task(&client, &members).await });
        }
    }
}

/// `tasks/cancel` of the task `members` names.
async fn cancel_task(client: &Client, members: &str) {
    if let Err(e) = client
        .request("tasks/cancel", members, CallOptions::default())
        .await
    {
        tracing::debug!(error = %e, "the backend's task could not be cancelled");
    }
}

/// The `taskId` member of the task a task-augmented answer names, as params members.
fn task_of(result: &RawJson<'_>) -> Option<String> {
    let id = result.get("task")?.get("taskId")?.as_string()?;
    Some(janus_client::members_of(&[("taskId", &id)]))
}

/// `tools/call` of `name` as a task at the backend, then its result.
pub(crate) async fn call(
    client: Arc<Client>,
    name: &str,
    arguments: Option<&str>,
    cancel: Cancel,
) -> Result<CallResult, Error> {
    let mut m = janus_client::members_of(&[("name", name)]);
    if let Some(a) = arguments {
        m.push_str(r#","arguments":"#);
        m.push_str(a);
    }
    m.push_str(&format!(r#","task":{{"ttl":{TTL_MS}}}"#));
    let asked = Arc::clone(&client);
    let mut creating = Creating {
        client: Arc::clone(&client),
        reply: Some(tokio::spawn(async move {
            asked
                .request("tools/call", &m, CallOptions::default())
                .await
        })),
    };
    let created = tokio::select! {
        r = async { creating.reply.as_mut().expect("awaited once").await } => {
            creating.reply = None;
            r.map_err(|e| Error::Session(format!("the task-augmented call was lost: {e}")))??
        }
        // NB. Cancelled before the task exists: `creating` cancels it once it does.
        () = cancel.fired() => return Err(Error::Cancelled),
    };
    let result = created.result();
    if result.get("task").is_none() {
        // NB. A backend that ran it at once: its answer is the call's.
        return CallResult::from_wire(result).map_err(Error::Protocol);
    }
    let members = task_of(&result).ok_or_else(|| {
        Error::Protocol("a task-augmented tools/call answered a task without a taskId".into())
    })?;
    let mut running = Running {
        client: Arc::clone(&client),
        task: Some(members.clone()),
    };
    let waited = client
        .request(
            "tasks/result",
            &members,
            CallOptions {
                timeout: Some(Duration::MAX),
                cancel: Some(cancel),
                ..CallOptions::default()
            },
        )
        .await;
    if !matches!(waited, Err(Error::Cancelled)) {
        // NB. Ended at the backend (or its connection): nothing to cancel.
        running.task = None;
    }
    // NB. The task runs already: a session lost now is not a call the backend did not run
    // (which is made again on a new session), but one whose end is lost with its session.
    let waited = waited.map_err(|e| {
        if e.is_session_lost() {
            Error::Session(format!(
                "the backend's task was lost with its session ({e})"
            ))
        } else {
            e
        }
    })?;
    CallResult::from_wire(waited.result()).map_err(Error::Protocol)
}
