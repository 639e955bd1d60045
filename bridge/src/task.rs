//! A tool a handshake backend runs only as a task (2025-11-25 `execution.taskSupport:
//! "required"`): the bridge creates the task at the backend and waits for its result with
//! `tasks/result`, so that the front (which keeps its own task for a client that asked for
//! one) sees one call. A front request cancelled or dropped cancels the backend's task.

use janus_client::{CallOptions, CallResult, Cancel, Client, Error};
use janus_codec::RawJson;
use std::sync::Arc;
use std::time::Duration;

/// How long the backend keeps the task (`task.ttl`, ms): the front's own tasks' default.
const TTL_MS: u64 = 600_000;

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
            tokio::spawn(async move {
                if let Err(e) = client
                    .request("tasks/cancel", &members, CallOptions::default())
                    .await
                {
                    tracing::debug!(error = %e, "the backend's task could not be cancelled");
                }
            });
        }
    }
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
    let created = client
        .request(
            "tools/call",
            &m,
            CallOptions {
                cancel: Some(cancel.clone()),
                ..CallOptions::default()
            },
        )
        .await?;
    let result = created.result();
    let Some(task) = result.get("task") else {
        // NB. A backend that ran it at once: its answer is the call's.
        return CallResult::from_wire(result).map_err(Error::Protocol);
    };
    let id = task
        .get("taskId")
        .and_then(RawJson::as_string)
        .ok_or_else(|| {
            Error::Protocol("a task-augmented tools/call answered a task without a taskId".into())
        })?;
    let members = janus_client::members_of(&[("taskId", &id)]);
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
    CallResult::from_wire(waited?.result()).map_err(Error::Protocol)
}
