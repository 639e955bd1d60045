//! Changes of the server's lists on a connection (`decisions.md`, "Server surface"):
//!
//! - a handshake session watches after `initialize`: `notifications/{tools,prompts,resources}/
//!   list_changed`, and `notifications/resources/updated` for the URIs it subscribed to
//!   (`resources/subscribe`), sent as notes of the connection ([`JobId::CONNECTION`]);
//! - a 2026-07-28 `subscriptions/listen` request is a job of its own: acknowledged first
//!   (with the filter the server honours), then the notifications its filter asked for, each
//!   tagged with its `subscriptionId`. The client ends it (`notifications/cancelled`, or
//!   closing its HTTP stream): nothing more is sent. The server ends it (a shutdown, the end
//!   of the input): its request is answered `{resultType: "complete"}`.

use super::Connection;
use crate::api::ctx::{JobId, Notify};
use crate::api::tools::ToolResult;
use crate::engine::connection::jobs::{Kind, NewJob, Slot};
use crate::engine::server::lists::{Change, Watch};
use bytes::{BufMut, Bytes, BytesMut};
use janus_codec::encode;
use janus_codec::{INVALID_PARAMS, Id, Message, RawJson};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// A handshake session's ear for the server's changes.
pub(super) struct SessionWatch {
    notify: Arc<dyn Notify>,
    subscribed: Mutex<HashSet<String>>,
    /// Told of each subscription made and let go ([`crate::server::ServerBuilder::on_subscribe`]).
    told: Option<Subscribed>,
}

/// What hears of a client's subscriptions.
type Subscribed = Arc<dyn Fn(&str, bool) + Send + Sync>;

impl Drop for SessionWatch {
    fn drop(&mut self) {
        // NB. A session that ends lets go of what it subscribed to.
        if let Some(tell) = &self.told {
            for uri in self.subscribed().drain() {
                tell(&uri, false);
            }
        }
    }
}

impl SessionWatch {
    pub(super) fn new(notify: Arc<dyn Notify>, told: Option<Subscribed>) -> Self {
        Self {
            notify,
            subscribed: Mutex::new(HashSet::new()),
            told,
        }
    }

    fn subscribed(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.subscribed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Subscribes the session to `uri` (`on`) or lets it go; a change is told.
    pub(super) fn subscribe(&self, uri: &str, on: bool) {
        let changed = if on {
            self.subscribed().insert(uri.to_owned())
        } else {
            self.subscribed().remove(uri)
        };
        if changed && let Some(tell) = &self.told {
            tell(uri, on);
        }
    }
}

impl Watch for SessionWatch {
    fn changed(&self, change: Change<'_>) {
        let line = match change {
            Change::Updated(uri) => {
                if !self.subscribed().contains(uri) {
                    return;
                }
                updated_line(uri, None)
            }
            list => list_changed_line(list, None),
        };
        self.notify.notify(JobId::CONNECTION, line);
    }
}

/// What a `subscriptions/listen` asked for, or what the server honours of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Filter {
    tools: bool,
    prompts: bool,
    resources: bool,
    uris: Vec<String>,
}

impl Filter {
    /// `params.notifications`: absent is the empty filter.
    fn read(notifications: Option<RawJson<'_>>) -> Result<Self, &'static str> {
        let Some(n) = notifications.filter(|n| !n.is_null()) else {
            return Ok(Self::default());
        };
        if !n.is_object() {
            return Err("Invalid params: notifications must be an object");
        }
        let flag = |key| match n.get(key) {
            None => Ok(false),
            Some(v) if v.as_str() == "true" => Ok(true),
            Some(v) if v.as_str() == "false" || v.is_null() => Ok(false),
            Some(_) => Err("Invalid params: a notifications flag must be a boolean"),
        };
        let uris = match n.get("resourceSubscriptions") {
            None => Vec::new(),
            Some(a) if a.is_null() => Vec::new(),
            Some(a) => string_array(a)
                .ok_or("Invalid params: resourceSubscriptions must be an array of URIs")?,
        };
        Ok(Self {
            tools: flag("toolsListChanged")?,
            prompts: flag("promptsListChanged")?,
            resources: flag("resourcesListChanged")?,
            uris,
        })
    }

    fn wants(&self, change: Change<'_>) -> bool {
        match change {
            Change::Tools => self.tools,
            Change::Prompts => self.prompts,
            Change::Resources => self.resources,
            Change::Updated(uri) => self.uris.iter().any(|u| u == uri),
        }
    }

    fn write(&self, out: &mut BytesMut) {
        let mut w = encode::JsonWriter::new(out);
        w.begin_object();
        for (on, key) in [
            (self.tools, "toolsListChanged"),
            (self.prompts, "promptsListChanged"),
            (self.resources, "resourcesListChanged"),
        ] {
            if on {
                w.key(key).bool(true);
            }
        }
        if !self.uris.is_empty() {
            w.key("resourceSubscriptions").begin_array();
            for u in &self.uris {
                w.str(u);
            }
            w.end_array();
        }
        w.end_object();
    }
}

/// The strings of a JSON array; `None` when it is not one.
fn string_array(a: RawJson<'_>) -> Option<Vec<String>> {
    use simd_json::prelude::{ValueAsArray, ValueAsScalar};
    // NB. The codec reads objects by member, not arrays: this small one is parsed whole.
    let mut text = a.as_str().as_bytes().to_vec();
    let v = simd_json::to_owned_value(&mut text).ok()?;
    v.as_array()?
        .iter()
        .map(|e| e.as_str().map(str::to_owned))
        .collect()
}

/// One open `subscriptions/listen`.
pub(super) struct Listener {
    job: JobId,
    /// The listen request's id, as JSON text: its `subscriptionId`.
    sub: String,
    filter: Filter,
    notify: Arc<dyn Notify>,
    /// Told of the stream's resources when it ends, as at its start.
    told: Option<Subscribed>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Some(tell) = &self.told {
            for u in &self.filter.uris {
                tell(u, false);
            }
        }
    }
}

impl Watch for Listener {
    fn changed(&self, change: Change<'_>) {
        if !self.filter.wants(change) {
            return;
        }
        let line = match change {
            Change::Updated(uri) => updated_line(uri, Some(&self.sub)),
            list => list_changed_line(list, Some(&self.sub)),
        };
        self.notify.notify(self.job, line);
    }
}

/// `,"_meta":{"io.modelcontextprotocol/subscriptionId":ID}` (or the object alone).
fn write_tag(out: &mut BytesMut, sub: &str) {
    out.extend_from_slice(br#""_meta":{""#);
    out.extend_from_slice(SUBSCRIPTION_ID.as_bytes());
    out.extend_from_slice(br#"":"#);
    out.extend_from_slice(sub.as_bytes());
    out.put_u8(b'}');
}

fn list_changed_line(change: Change<'_>, sub: Option<&str>) -> Bytes {
    let method = match change {
        Change::Tools => "notifications/tools/list_changed",
        Change::Prompts => "notifications/prompts/list_changed",
        Change::Resources | Change::Updated(_) => "notifications/resources/list_changed",
    };
    let mut out = BytesMut::new();
    match sub {
        None => encode::write_notification(&mut out, method, None),
        Some(s) => {
            encode::begin_notification(&mut out, method);
            out.put_u8(b'{');
            write_tag(&mut out, s);
            out.put_u8(b'}');
            encode::end_message(&mut out);
        }
    }
    out.freeze()
}

fn updated_line(uri: &str, sub: Option<&str>) -> Bytes {
    let mut out = BytesMut::new();
    encode::begin_notification(&mut out, "notifications/resources/updated");
    out.extend_from_slice(br#"{"uri":"#);
    encode::write_str(&mut out, uri);
    if let Some(s) = sub {
        out.put_u8(b',');
        write_tag(&mut out, s);
    }
    out.put_u8(b'}');
    encode::end_message(&mut out);
    out.freeze()
}

impl Connection {
    /// After `initialize`: the session hears of the server's changes.
    pub(super) fn watch_session(&mut self) {
        let w = Arc::new(SessionWatch::new(
            Arc::clone(&self.notify),
            self.server.on_subscribe.clone(),
        ));
        let dyn_w: Arc<dyn Watch> = w.clone();
        self.server.watch(&dyn_w);
        self.session_watch = Some(w);
    }

    /// `subscriptions/listen`: acknowledged with the filter honoured, then held open as a
    /// job until the client cancels it or the server ends it.
    pub(super) fn listen(&mut self, id: Id<'_>, msg: &Message<'_>, out: &mut BytesMut, slot: Slot) {
        let asked = match Filter::read(msg.param("notifications")) {
            Ok(f) => f,
            Err(m) => {
                encode::write_error(out, Some(id), INVALID_PARAMS, m, None);
                return;
            }
        };
        // NB. Only what the server's capabilities announce is honoured.
        let cat = self.server.catalog();
        let resources = cat.surface.has_resources();
        let honoured = Filter {
            tools: asked.tools,
            prompts: asked.prompts && !cat.surface.prompts.is_empty(),
            resources: asked.resources && resources,
            uris: if resources { asked.uris } else { Vec::new() },
        };
        drop(cat);
        if let Some(tell) = &self.server.on_subscribe {
            for u in &honoured.uris {
                tell(u, true);
            }
        }
        let sub = id.as_raw().to_owned();
        let job = self.jobs.reserve();
        let mut ack = BytesMut::new();
        encode::begin_notification(&mut ack, "notifications/subscriptions/acknowledged");
        ack.put_u8(b'{');
        write_tag(&mut ack, &sub);
        ack.extend_from_slice(br#","notifications":"#);
        honoured.write(&mut ack);
        ack.put_u8(b'}');
        encode::end_message(&mut ack);
        // NB. The acknowledgement goes first, then the listener hears of changes.
        self.notify.notify(job, ack.freeze());
        let listener = Arc::new(Listener {
            job,
            sub: sub.clone(),
            filter: honoured,
            notify: Arc::clone(&self.notify),
            told: self.server.on_subscribe.clone(),
        });
        let dyn_l: Arc<dyn Watch> = listener.clone();
        self.server.watch(&dyn_l);
        self.listeners.insert(job, listener);
        let closing = self.server.lists.closing.cancelled();
        let work: crate::api::tools::ToolFuture = Box::pin(async move {
            closing.await;
            Ok::<_, crate::api::halt::Halt>(ToolResult::default())
        });
        let new = NewJob {
            request: Some(id.to_owned()),
            slot,
            kind: Kind::Listen,
            signal: None,
            cost: super::msg_cost(msg),
        };
        self.jobs
            .start(job, new, crate::engine::connection::jobs::Work::tool(work));
    }

    /// The answer that ends a listen: `{resultType: "complete"}`, tagged.
    pub(super) fn write_listen_end(&self, out: &mut BytesMut, id: Id<'_>) {
        encode::begin_result(out, id);
        out.extend_from_slice(br#"{"resultType":"complete","_meta":{""#);
        out.extend_from_slice(SUBSCRIPTION_ID.as_bytes());
        out.extend_from_slice(br#"":"#);
        out.extend_from_slice(id.as_raw().as_bytes());
        out.extend_from_slice(br#",""#);
        out.extend_from_slice(janus_codec::era::SERVER_INFO_KEY.as_bytes());
        out.extend_from_slice(br#"":"#);
        out.extend_from_slice(self.server.info_json.as_bytes());
        out.extend_from_slice(b"}}");
        encode::end_message(out);
    }

    /// The server ends every open listen (the client's input ended): each is answered.
    pub(super) fn end_listens(&mut self, out: &mut BytesMut) {
        let jobs: Vec<JobId> = self.listeners.keys().copied().collect();
        for job in jobs {
            self.listeners.remove(&job);
            if let Some(entry) = self.jobs.end(job)
                && let Some(id) = entry.request
            {
                self.write_listen_end(out, id.as_id());
            }
        }
    }

    /// Drops the listeners whose request was cancelled.
    pub(super) fn forget_listeners(&mut self) {
        if !self.listeners.is_empty() {
            let jobs = &self.jobs;
            self.listeners.retain(|j, _| jobs.holds(*j));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_reads_its_flags_and_uris_and_refuses_wrong_types() {
        let f = |t: &str| Filter::read(Some(RawJson::parse(t).unwrap()));
        assert_eq!(f("{}"), Ok(Filter::default()));
        let all = f(r#"{"toolsListChanged":true,"promptsListChanged":false,"resourceSubscriptions":["a://1", "b,\"c"]}"#)
            .unwrap();
        assert!(all.tools && !all.prompts && !all.resources);
        assert_eq!(all.uris, ["a://1", "b,\"c"]);
        assert!(f(r#"{"toolsListChanged":1}"#).is_err());
        assert!(f(r#"{"resourceSubscriptions":"a"}"#).is_err());
        assert!(f(r#"{"resourceSubscriptions":[1]}"#).is_err());
        assert!(f("[]").is_err());
        assert_eq!(Filter::read(None), Ok(Filter::default()));
    }
}
