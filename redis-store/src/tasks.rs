//! [`RedisTaskStore`]: the tasks of every replica, in one Redis.

use crate::scripts;
use crate::{Inner, unavailable};
use janus_server_core::input::InputRequest;
use janus_server_core::json::{Json, RpcError};
use janus_server_core::store::{StoreError, StoreFuture, TaskStore, new_task_id};
use janus_server_core::tasks::{
    DEFAULT_TTL_MS, LIST_PAGE, MAX_TTL_MS, Outcome, POLL_INTERVAL_MS, Parked, Status, Stored, Task,
};
use redis::Value;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

/// How long a running task's hash outlives its `ttl`: a task whose replica died while it ran
/// is dropped then.
const RUNNING_GRACE_MS: u64 = 3_600_000;

/// How often a wait for a task's end looks at the task again, besides hearing of its end.
const RECHECK: Duration = Duration::from_secs(5);

/// How soon a wait for a task's end looks again when Redis did not answer.
const RETRY: Duration = Duration::from_secs(1);

static CREATE: LazyLock<redis::Script> = LazyLock::new(|| redis::Script::new(scripts::CREATE));
static ADVANCE: LazyLock<redis::Script> = LazyLock::new(|| redis::Script::new(&scripts::advance()));
static PARK: LazyLock<redis::Script> = LazyLock::new(|| redis::Script::new(&scripts::park()));
static ANSWER: LazyLock<redis::Script> = LazyLock::new(|| redis::Script::new(scripts::ANSWER));
static LIST: LazyLock<redis::Script> = LazyLock::new(|| redis::Script::new(scripts::LIST));
static EXPIRE: LazyLock<redis::Script> = LazyLock::new(|| redis::Script::new(scripts::EXPIRE));

/// The task store of replicas that share one Redis ([`crate::Redis::task_store`]): a task
/// made through one replica is read, awaited, answered and cancelled through any other, and
/// its end is heard wherever someone waits for it. Each operation is one script, so each
/// transition is atomic.
#[derive(Clone)]
pub struct RedisTaskStore {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.inner.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisTaskStore {
    pub(crate) const fn new(inner: Arc<Inner>) -> Self {
        Self { inner }
    }
}

impl Inner {
    fn task_key(&self, id: &str) -> String {
        format!("{}task:{id}", self.prefix)
    }

    fn order_key(&self) -> String {
        format!("{}tasks", self.prefix)
    }

    fn task_prefix(&self) -> String {
        format!("{}task:", self.prefix)
    }

    async fn get_task(&self, id: &str) -> Result<Option<Task>, StoreError> {
        let fields: Value = self
            .command(redis::cmd("HGETALL").arg(self.task_key(id)))
            .await?;
        Ok(task_of(id, &fields_of(&fields)))
    }

    /// Runs a script; once more when the connection was refused (it had not come back yet
    /// when this one was sent: the retry waits for the new connection), never when it may
    /// have run.
    async fn script<T: redis::FromRedisValue>(
        &self,
        call: &redis::ScriptInvocation<'_>,
    ) -> Result<T, StoreError> {
        let mut conn = self.conn.clone();
        match call.invoke_async(&mut conn).await {
            Err(e) if e.is_connection_refusal() => {
                let mut conn = self.conn.clone();
                call.invoke_async(&mut conn).await.map_err(unavailable)
            }
            r => r.map_err(unavailable),
        }
    }

    /// Runs a command, as [`Inner::script`].
    pub(crate) async fn command<T: redis::FromRedisValue>(
        &self,
        cmd: &redis::Cmd,
    ) -> Result<T, StoreError> {
        let mut conn = self.conn.clone();
        match cmd.query_async(&mut conn).await {
            Err(e) if e.is_connection_refusal() => {
                let mut conn = self.conn.clone();
                cmd.query_async(&mut conn).await.map_err(unavailable)
            }
            r => r.map_err(unavailable),
        }
    }
}

impl TaskStore for RedisTaskStore {
    fn create(&self, now_ms: u64, ttl_ms: Option<u64>) -> StoreFuture<Task> {
        let inner = Arc::clone(&self.inner);
        Box::pin(async move {
            let id = new_task_id();
            let ttl_ms = ttl_ms.unwrap_or(DEFAULT_TTL_MS).min(MAX_TTL_MS);
            let made: i64 = inner
                .script(
                    CREATE
                        .key(inner.order_key())
                        .key(inner.task_key(&id))
                        .arg(&id)
                        .arg(now_ms)
                        .arg(ttl_ms)
                        .arg(POLL_INTERVAL_MS)
                        .arg(inner.max_tasks)
                        .arg(now_ms + ttl_ms + RUNNING_GRACE_MS)
                        .arg(inner.task_prefix()),
                )
                .await?;
            if made == 0 {
                return Err(StoreError::Full {
                    max: inner.max_tasks,
                });
            }
            Ok(Task {
                id,
                status: Status::Working,
                created_ms: now_ms,
                updated_ms: now_ms,
                ttl_ms,
                poll_ms: POLL_INTERVAL_MS,
                outcome: None,
                input_requests: Vec::new(),
            })
        })
    }

    fn get(&self, id: &str, _now_ms: u64) -> StoreFuture<Option<Task>> {
        let inner = Arc::clone(&self.inner);
        let id = id.to_owned();
        Box::pin(async move { inner.get_task(&id).await })
    }

    fn advance(
        &self,
        id: &str,
        now_ms: u64,
        status: Status,
        outcome: Option<Outcome>,
    ) -> StoreFuture<Option<(Task, bool)>> {
        let inner = Arc::clone(&self.inner);
        let id = id.to_owned();
        Box::pin(async move {
            let mut call = ADVANCE.key(inner.task_key(&id));
            call.arg(status.as_str())
                .arg(status.rank())
                .arg(now_ms)
                .arg(&inner.ended_channel)
                .arg(&id);
            for (field, value) in outcome_fields(outcome.as_ref()) {
                call.arg(field).arg(value);
            }
            let answer: Value = inner.script(&call).await?;
            let Some([changed, fields]) =
                array(&answer).and_then(|a| <&[Value; 2]>::try_from(a).ok())
            else {
                return Ok(None);
            };
            let changed = matches!(changed, Value::Int(1));
            Ok(task_of(&id, &fields_of(fields)).map(|t| (t, changed)))
        })
    }

    fn park(
        &self,
        id: &str,
        now_ms: u64,
        requests: Vec<(String, InputRequest)>,
        parked: Parked,
    ) -> StoreFuture<Option<Task>> {
        let inner = Arc::clone(&self.inner);
        let id = id.to_owned();
        Box::pin(async move {
            let mut call = PARK.key(inner.task_key(&id));
            call.arg(now_ms).arg(parked.frame);
            match &parked.state {
                Some(s) => call.arg("1").arg(s),
                None => call.arg("0").arg(""),
            };
            // The answers of earlier rounds come first, in their order, then the requests.
            let earlier = parked.responses.len();
            for (order, (key, response)) in parked.responses.iter().enumerate() {
                call.arg(format!("r:{key}"))
                    .arg(format!("{order}\n{response}"));
            }
            for (order, (key, request)) in requests.iter().enumerate() {
                call.arg(format!("i:{key}")).arg(format!(
                    "{}\n{}\n{}",
                    earlier + order,
                    request.method(),
                    request.params().as_str()
                ));
            }
            let answer: Value = inner.script(&call).await?;
            Ok(task_of(&id, &fields_of(&answer)))
        })
    }

    fn answer(
        &self,
        id: &str,
        now_ms: u64,
        responses: Vec<(String, String)>,
    ) -> StoreFuture<Option<Option<Parked>>> {
        let inner = Arc::clone(&self.inner);
        let id = id.to_owned();
        Box::pin(async move {
            let mut call = ANSWER.key(inner.task_key(&id));
            call.arg(now_ms);
            for (key, response) in &responses {
                call.arg(key).arg(response);
            }
            let answer: Value = inner.script(&call).await?;
            let Some(items) = array(&answer) else {
                return Ok(None);
            };
            if !matches!(items.first(), Some(Value::Int(1))) {
                return Ok(Some(None));
            }
            let text = |v: &Value| bytes_of(v).map(|b| String::from_utf8_lossy(b).into_owned());
            let frame = items.get(1).and_then(bytes_of).unwrap_or_default().to_vec();
            let state = items
                .get(2)
                .and_then(text)
                .and_then(|s| s.strip_prefix('+').map(str::to_owned));
            let mut answers: Vec<(u64, String, String)> = items[3..]
                .chunks_exact(2)
                .filter_map(|kv| {
                    let key = text(&kv[0])?;
                    let value = text(&kv[1])?;
                    let (order, response) = value.split_once('\n')?;
                    Some((order.parse().ok()?, key, response.to_owned()))
                })
                .collect();
            answers.sort_by_key(|a| a.0);
            Ok(Some(Some(Parked {
                responses: answers.into_iter().map(|(_, k, v)| (k, v)).collect(),
                state,
                frame,
            })))
        })
    }

    fn list(&self, _now_ms: u64, cursor: usize) -> StoreFuture<(Vec<Task>, Option<usize>)> {
        let inner = Arc::clone(&self.inner);
        Box::pin(async move {
            let answer: Value = inner
                .script(
                    LIST.key(inner.order_key())
                        .arg(cursor)
                        .arg(cursor + LIST_PAGE - 1)
                        .arg(inner.task_prefix()),
                )
                .await?;
            let items = array(&answer).unwrap_or_default();
            let count = match items.first() {
                Some(Value::Int(n)) => usize::try_from(*n).unwrap_or(0),
                _ => 0,
            };
            let page = items
                .get(1..)
                .unwrap_or_default()
                .chunks_exact(2)
                .filter_map(|pair| {
                    let id = String::from_utf8_lossy(bytes_of(&pair[0])?).into_owned();
                    task_of(&id, &fields_of(&pair[1]))
                })
                .collect();
            let next = cursor + LIST_PAGE;
            Ok((page, (next < count).then_some(next)))
        })
    }

    fn expire(&self, _now_ms: u64) -> StoreFuture<usize> {
        let inner = Arc::clone(&self.inner);
        Box::pin(async move {
            let gone: usize = inner
                .script(EXPIRE.key(inner.order_key()).arg(inner.task_prefix()))
                .await?;
            Ok(gone)
        })
    }

    fn ended(&self, id: &str) -> StoreFuture<Option<Task>> {
        let inner = Arc::clone(&self.inner);
        let id = id.to_owned();
        Box::pin(async move {
            let waiter = inner.shared.waiter(&id);
            loop {
                let heard = waiter.notified();
                tokio::pin!(heard);
                heard.as_mut().enable();
                let wait = match inner.get_task(&id).await {
                    Ok(None) => return Ok(None),
                    Ok(Some(t)) if t.status.is_terminal() => return Ok(Some(t)),
                    Ok(Some(_)) => RECHECK,
                    Err(_) => RETRY,
                };
                // NB. An end published while the task was read is not missed: the wait was
                // enabled before the read.
                let _ = tokio::time::timeout(wait, heard).await;
            }
        })
    }
}

/// The fields of an outcome, as the task hash keeps them.
fn outcome_fields(outcome: Option<&Outcome>) -> Vec<(&'static str, String)> {
    match outcome {
        None => Vec::new(),
        Some(Outcome::Result(stored)) => {
            let mut f = vec![
                ("ok", "r".to_owned()),
                ("oc", stored.content.clone()),
                ("oe", if stored.is_error { "1" } else { "0" }.to_owned()),
            ];
            if let Some(s) = &stored.structured {
                f.push(("os", s.as_str().to_owned()));
            }
            if let Some(m) = &stored.meta {
                f.push(("om", m.as_str().to_owned()));
            }
            f
        }
        Some(Outcome::Error(e)) => {
            let mut f = vec![
                ("ok", "e".to_owned()),
                ("ec", e.code.to_string()),
                ("em", e.message.clone()),
            ];
            if let Some(d) = &e.data {
                f.push(("ed", d.as_str().to_owned()));
            }
            f
        }
    }
}

/// A script's or command's array answer.
fn array(v: &Value) -> Option<&[Value]> {
    match v {
        Value::Array(items) | Value::Set(items) => Some(items),
        _ => None,
    }
}

/// A string answer's bytes.
fn bytes_of(v: &Value) -> Option<&[u8]> {
    match v {
        Value::BulkString(b) => Some(b),
        Value::SimpleString(s) => Some(s.as_bytes()),
        _ => None,
    }
}

/// The fields of an `HGETALL` answer (a flat array, or a map under RESP3).
fn fields_of(v: &Value) -> HashMap<String, Vec<u8>> {
    let mut fields = HashMap::new();
    match v {
        Value::Map(pairs) => {
            for (k, v) in pairs {
                if let (Some(k), Some(v)) = (bytes_of(k), bytes_of(v)) {
                    fields.insert(String::from_utf8_lossy(k).into_owned(), v.to_vec());
                }
            }
        }
        other => {
            for kv in array(other).unwrap_or_default().chunks_exact(2) {
                if let (Some(k), Some(v)) = (bytes_of(&kv[0]), bytes_of(&kv[1])) {
                    fields.insert(String::from_utf8_lossy(k).into_owned(), v.to_vec());
                }
            }
        }
    }
    fields
}

/// The task a hash holds; `None` when it holds none (unknown or expired).
fn task_of(id: &str, fields: &HashMap<String, Vec<u8>>) -> Option<Task> {
    let text = |k: &str| {
        fields
            .get(k)
            .map(|v| String::from_utf8_lossy(v).into_owned())
    };
    let number = |k: &str| text(k).and_then(|v| v.parse::<u64>().ok());
    let status = match text("s")?.as_str() {
        "working" => Status::Working,
        "input_required" => Status::InputRequired,
        "completed" => Status::Completed,
        "failed" => Status::Failed,
        "cancelled" => Status::Cancelled,
        _ => return None,
    };
    let json = |k: &str| text(k).and_then(|t| Json::parse(t).ok());
    let outcome = match text("ok").as_deref() {
        Some("r") => Some(Outcome::Result(Stored {
            content: text("oc").unwrap_or_default(),
            structured: json("os"),
            is_error: text("oe").as_deref() == Some("1"),
            meta: json("om"),
        })),
        Some("e") => Some(Outcome::Error(RpcError {
            code: text("ec").and_then(|c| c.parse().ok()).unwrap_or(-32603),
            message: text("em").unwrap_or_default(),
            data: json("ed"),
        })),
        _ => None,
    };
    let mut requests: Vec<(u64, String, InputRequest)> = fields
        .iter()
        .filter_map(|(k, v)| {
            let key = k.strip_prefix("i:")?;
            let v = std::str::from_utf8(v).ok()?;
            let mut parts = v.splitn(3, '\n');
            let order = parts.next()?.parse().ok()?;
            let method = parts.next()?;
            let request = InputRequest::forwarded(method, parts.next()).ok()?;
            Some((order, key.to_owned(), request))
        })
        .collect();
    requests.sort_by_key(|r| r.0);
    Some(Task {
        id: id.to_owned(),
        status,
        created_ms: number("c")?,
        updated_ms: number("u")?,
        ttl_ms: number("t")?,
        poll_ms: number("p").unwrap_or(POLL_INTERVAL_MS),
        outcome,
        input_requests: requests.into_iter().map(|(_, k, r)| (k, r)).collect(),
    })
}
