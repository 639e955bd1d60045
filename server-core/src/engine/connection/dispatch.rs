//! The core's one dispatch table: every method a connection serves after its lifecycle
//! (`initialize`, `ping`) is in [`TABLE`], with the eras and revisions it is served in and
//! what must be declared for it. The era's rules (a handshake session's state, a modern
//! request's envelope) are checked by the connection before; the handler is chosen here.

use super::Connection;
use crate::engine::connection::jobs::Slot;
use bytes::BytesMut;
use janus_codec::{Id, Message, ProtocolVersion, encode};
use janus_model::shape::{self, Shape};

/// A method of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Method {
    ToolsCall,
    ToolsList,
    Discover,
    Listen,
    PromptsList,
    PromptsGet,
    ResourcesList,
    TemplatesList,
    ResourcesRead,
    Subscribe,
    Unsubscribe,
    Complete,
    SetLevel,
    TasksGet,
    TasksResult,
    TasksList,
    TasksCancel,
    TasksUpdate,
}

/// The revisions a method is served in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Served {
    /// Every revision of both eras.
    Both,
    /// The handshake revisions from this one on (2026-07-28 removed it).
    LegacySince(ProtocolVersion),
    /// 2026-07-28 only.
    Modern,
    /// The handshake revisions from this one on, and 2026-07-28 when the request declares
    /// the tasks extension.
    TasksSince(ProtocolVersion),
}

/// What the server must announce for the method to exist: without it, the method is unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Needs {
    Nothing,
    Prompts,
    Resources,
    Completions,
}

/// One row of the table.
#[derive(Debug)]
struct Row {
    name: &'static str,
    method: Method,
    served: Served,
    needs: Needs,
}

const fn row(name: &'static str, method: Method, served: Served, needs: Needs) -> Row {
    Row {
        name,
        method,
        served,
        needs,
    }
}

const FIRST: ProtocolVersion = ProtocolVersion::V2024_11_05;
const TASKS: ProtocolVersion = ProtocolVersion::V2025_11_25;

/// Every method, the hottest first.
const TABLE: [Row; 18] = [
    row(
        "tools/call",
        Method::ToolsCall,
        Served::Both,
        Needs::Nothing,
    ),
    row(
        "tools/list",
        Method::ToolsList,
        Served::Both,
        Needs::Nothing,
    ),
    row(
        "server/discover",
        Method::Discover,
        Served::Modern,
        Needs::Nothing,
    ),
    row(
        "resources/read",
        Method::ResourcesRead,
        Served::Both,
        Needs::Resources,
    ),
    row(
        "prompts/get",
        Method::PromptsGet,
        Served::Both,
        Needs::Prompts,
    ),
    row(
        "prompts/list",
        Method::PromptsList,
        Served::Both,
        Needs::Prompts,
    ),
    row(
        "resources/list",
        Method::ResourcesList,
        Served::Both,
        Needs::Resources,
    ),
    row(
        "resources/templates/list",
        Method::TemplatesList,
        Served::Both,
        Needs::Resources,
    ),
    row(
        "completion/complete",
        Method::Complete,
        Served::Both,
        Needs::Completions,
    ),
    row(
        "subscriptions/listen",
        Method::Listen,
        Served::Modern,
        Needs::Nothing,
    ),
    row(
        "resources/subscribe",
        Method::Subscribe,
        Served::LegacySince(FIRST),
        Needs::Resources,
    ),
    row(
        "resources/unsubscribe",
        Method::Unsubscribe,
        Served::LegacySince(FIRST),
        Needs::Resources,
    ),
    row(
        "logging/setLevel",
        Method::SetLevel,
        Served::LegacySince(FIRST),
        Needs::Nothing,
    ),
    row(
        "tasks/get",
        Method::TasksGet,
        Served::TasksSince(TASKS),
        Needs::Nothing,
    ),
    row(
        "tasks/cancel",
        Method::TasksCancel,
        Served::TasksSince(TASKS),
        Needs::Nothing,
    ),
    row(
        "tasks/update",
        Method::TasksUpdate,
        Served::Modern,
        Needs::Nothing,
    ),
    row(
        "tasks/result",
        Method::TasksResult,
        Served::LegacySince(TASKS),
        Needs::Nothing,
    ),
    row(
        "tasks/list",
        Method::TasksList,
        Served::LegacySince(TASKS),
        Needs::Nothing,
    ),
];

/// The method `name` as a label of metrics: a method of the table, or `initialize`, `ping`
/// or `notifications/...` as such; anything else `other` (a client cannot make labels
/// without end).
#[cfg(feature = "http")]
pub(crate) fn method_label(name: &str) -> &'static str {
    match name {
        "initialize" => "initialize",
        "ping" => "ping",
        _ => TABLE
            .iter()
            .find(|r| r.name == name)
            .map_or("other", |r| r.name),
    }
}

/// The method `name` as served in `version`: `None` when that revision has no such method.
fn lookup(name: &str, version: ProtocolVersion) -> Option<&'static Row> {
    let row = TABLE.iter().find(|r| r.name == name)?;
    let served = match row.served {
        Served::Both => true,
        Served::Modern => version.is_modern(),
        Served::LegacySince(v) => !version.is_modern() && version >= v,
        Served::TasksSince(v) => version.is_modern() || version >= v,
    };
    served.then_some(row)
}

impl Connection {
    /// Serves a request by the table, in the revision `shape` says (the era's rules were
    /// checked): its handler, or `-32601` for a method this revision or this server does not
    /// have.
    pub(super) fn dispatch(
        &mut self,
        id: Id<'_>,
        msg: &Message<'_>,
        shape: Shape,
        out: &mut BytesMut,
        slot: Slot,
    ) {
        let Some(row) = lookup(msg.method(), shape.version).filter(|r| self.announces(r.needs))
        else {
            shape::write_method_not_found(out, id, msg.method());
            return;
        };
        match row.method {
            Method::ToolsCall => self.tools_call(id, msg, shape, out, slot),
            Method::ToolsList => self.tools_list(id, msg, shape, out),
            Method::Discover => {
                encode::begin_result(out, id);
                crate::engine::answers::write_discover(out, &self.server);
                encode::end_message(out);
            }
            Method::Listen => self.listen(id, msg, out, slot),
            Method::PromptsList => self.prompts_list(id, msg, shape, out),
            Method::PromptsGet => self.prompts_get(id, msg, shape, out, slot),
            Method::ResourcesList => self.resources_list(id, msg, shape, out, false),
            Method::TemplatesList => self.resources_list(id, msg, shape, out, true),
            Method::ResourcesRead => self.resources_read(id, msg, shape, out, slot),
            Method::Complete => self.complete(id, msg, shape, out, slot),
            Method::SetLevel => self.set_level(id, msg, out),
            Method::Subscribe => self.subscribe(id, msg, out, true),
            Method::Unsubscribe => self.subscribe(id, msg, out, false),
            Method::TasksGet | Method::TasksCancel | Method::TasksUpdate if shape.modern() => {
                self.modern_tasks(id, msg, row.method, shape, out);
            }
            Method::TasksGet | Method::TasksCancel | Method::TasksResult | Method::TasksList => {
                self.legacy_tasks(id, msg, row.method, out);
            }
            // NB. The table serves `tasks/update` in 2026-07-28 only.
            Method::TasksUpdate => shape::write_method_not_found(out, id, msg.method()),
        }
    }

    /// True when the server announces what a method needs.
    fn announces(&self, needs: Needs) -> bool {
        let cat = self.server.catalog();
        let s = &cat.surface;
        match needs {
            Needs::Nothing => true,
            Needs::Prompts => !s.prompts.is_empty(),
            Needs::Resources => s.has_resources(),
            Needs::Completions => !s.completions.is_empty(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_method_is_served_in_its_revisions_only() {
        let legacy = ProtocolVersion::V2025_06_18;
        let modern = ProtocolVersion::V2026_07_28;
        let served = |name, v| lookup(name, v).is_some();
        assert!(served("tools/call", legacy) && served("tools/call", modern));
        assert!(!served("server/discover", legacy) && served("server/discover", modern));
        assert!(!served("subscriptions/listen", legacy));
        assert!(served("logging/setLevel", legacy) && !served("logging/setLevel", modern));
        assert!(!served("resources/subscribe", modern));
        assert!(!served("tasks/get", legacy) && served("tasks/get", TASKS));
        assert!(served("tasks/get", modern) && served("tasks/update", modern));
        assert!(!served("tasks/update", TASKS));
        assert!(served("tasks/result", TASKS) && !served("tasks/result", modern));
        assert!(!served("tasks/list", modern) && !served("nope", modern));
        // Every name once.
        for (i, r) in TABLE.iter().enumerate() {
            assert!(
                TABLE[i + 1..].iter().all(|o| o.name != r.name),
                "{}",
                r.name
            );
        }
    }
}
