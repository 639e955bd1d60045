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
    let mut m = bytes::BytesMut::new();
    m.extend_from_slice(br#""name":"#);
    janus_codec::encode::write_str(&mut m, name);
    if let Some(a) = arguments {
        m.extend_from_slice(br#","arguments":"#);
        m.extend_from_slice(a.as_bytes());
    }
    m.extend_from_slice(format!(r#","task":{{"ttl":{TTL_MS}}}"#).as_bytes());
    let created = client
        .request(
            "tools/call",
            &String::from_utf8_lossy(&m),
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
    let mut members = bytes::BytesMut::new();
    members.extend_from_slice(br#""taskId":"#);
    janus_codec::encode::write_str(&mut members, &id);
    let members = String::from_utf8_lossy(&members).into_owned();
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
