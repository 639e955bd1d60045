//! The messages the `connection` target sends: a [`Template`] is an `arbitrary` choice among a
//! few shapes, ids, methods, envelopes and arguments that reach the server's decisions
//! quickly, written out compact or spaced as Python's `json.dumps` writes it.

use arbitrary::Arbitrary;
use serde_json::{Value, json};

/// The stateless revision.
pub const MODERN: &str = "2026-07-28";
/// The handshake revisions.
pub const HANDSHAKE: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

#[derive(Arbitrary, Debug, Clone)]
enum IdT {
    /// Small integers collide often: pipelined duplicates, and cancels that hit.
    Int(u8),
    /// A string that looks like a small integer: `"1"` is not `1`.
    Str(u8),
    Wide(i64),
    Text(String),
    Null,
    Float,
    Absent,
}

impl IdT {
    fn value(&self) -> Option<Value> {
        Some(match self {
            Self::Int(n) => json!(n % 8),
            Self::Str(n) => json!((n % 8).to_string()),
            Self::Wide(n) => json!(n),
            Self::Text(s) => json!(s),
            Self::Null => Value::Null,
            Self::Float => json!(1.5),
            Self::Absent => return None,
        })
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum MethodT {
    Initialize,
    Ping,
    ToolsList,
    ToolsCall,
    ServerDiscover,
    TasksGet,
    TasksResult,
    TasksList,
    TasksCancel,
    TasksUpdate,
    LoggingSetLevel,
    Initialized,
    Cancelled,
    PromptsList,
    PromptsGet,
    ResourcesList,
    ResourcesRead,
    ResourcesSubscribe,
    TemplatesList,
    Complete,
    Other(String),
}

impl MethodT {
    fn name(&self) -> &str {
        match self {
            Self::Initialize => "initialize",
            Self::Ping => "ping",
            Self::ToolsList => "tools/list",
            Self::ToolsCall => "tools/call",
            Self::ServerDiscover => "server/discover",
            Self::TasksGet => "tasks/get",
            Self::TasksResult => "tasks/result",
            Self::TasksList => "tasks/list",
            Self::TasksCancel => "tasks/cancel",
            Self::TasksUpdate => "tasks/update",
            Self::LoggingSetLevel => "logging/setLevel",
            Self::Initialized => "notifications/initialized",
            Self::Cancelled => "notifications/cancelled",
            Self::PromptsList => "prompts/list",
            Self::PromptsGet => "prompts/get",
            Self::ResourcesList => "resources/list",
            Self::ResourcesRead => "resources/read",
            Self::ResourcesSubscribe => "resources/subscribe",
            Self::TemplatesList => "resources/templates/list",
            Self::Complete => "completion/complete",
            Self::Other(s) => s,
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum VersionT {
    Handshake(u8),
    Modern,
    Text(String),
    Number,
    /// Every version the client knows, as a list: a plausible mistake.
    List,
}

impl VersionT {
    fn value(&self) -> Value {
        match self {
            Self::Handshake(n) => json!(HANDSHAKE[usize::from(n % 4)]),
            Self::Modern => json!(MODERN),
            Self::Text(s) => json!(s),
            Self::Number => json!(20260728),
            Self::List => json!(HANDSHAKE),
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum CapsT {
    Absent,
    Empty,
    Tasks,
    Array,
}

/// `_meta.progressToken`: small values collide, so two requests may share one.
#[derive(Arbitrary, Debug, Clone)]
enum ProgressT {
    Int(u8),
    Str(u8),
    /// Not a string or an integer (the server echoes what it was given).
    Object,
    Null,
}

impl ProgressT {
    fn value(&self) -> Value {
        match self {
            Self::Int(n) => json!(n % 4),
            Self::Str(n) => json!(format!("p{}", n % 4)),
            Self::Object => json!({"k": [1, "v"]}),
            Self::Null => Value::Null,
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum EnvT {
    None,
    Envelope {
        version: Option<VersionT>,
        caps: CapsT,
        info: Option<bool>,
        progress: Option<ProgressT>,
    },
    NotAnObject,
}

impl EnvT {
    fn value(&self) -> Option<Value> {
        match self {
            Self::None => None,
            Self::NotAnObject => Some(json!("io.modelcontextprotocol/protocolVersion")),
            Self::Envelope {
                version,
                caps,
                info,
                progress,
            } => {
                let mut m = serde_json::Map::new();
                if let Some(v) = version {
                    m.insert("io.modelcontextprotocol/protocolVersion".into(), v.value());
                }
                let caps = match caps {
                    CapsT::Absent => None,
                    CapsT::Empty => Some(json!({})),
                    CapsT::Tasks => {
                        Some(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}))
                    }
                    CapsT::Array => Some(json!([])),
                };
                if let Some(c) = caps {
                    m.insert("io.modelcontextprotocol/clientCapabilities".into(), c);
                }
                match info {
                    None => {}
                    Some(true) => {
                        m.insert(
                            "io.modelcontextprotocol/clientInfo".into(),
                            json!({"name": "fuzz", "version": "1"}),
                        );
                    }
                    Some(false) => {
                        m.insert("io.modelcontextprotocol/clientInfo".into(), json!("fuzz"));
                    }
                }
                if let Some(p) = progress {
                    m.insert("progressToken".into(), p.value());
                }
                Some(Value::Object(m))
            }
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum NumT {
    Int(i64),
    Eighths(i32),
    Text,
    Absent,
}

impl NumT {
    fn value(&self) -> Option<Value> {
        match self {
            Self::Int(n) => Some(json!(n)),
            Self::Eighths(n) => Some(json!(f64::from(*n) / 8.0)),
            Self::Text => Some(json!("1")),
            Self::Absent => None,
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
enum ToolT {
    Echo(String),
    EchoNumber,
    Add(NumT, NumT),
    Fail,
    Sleep(u16),
    SleepBad(i64),
    Unknown(String),
    NoName,
    ArgumentsNotObject,
}

impl ToolT {
    fn params(&self) -> serde_json::Map<String, Value> {
        let (name, args) = match self {
            Self::Echo(s) => ("echo", json!({"text": s})),
            Self::EchoNumber => ("echo", json!({"text": 1})),
            Self::Add(a, b) => {
                let mut m = serde_json::Map::new();
                if let Some(a) = a.value() {
                    m.insert("a".into(), a);
                }
                if let Some(b) = b.value() {
                    m.insert("b".into(), b);
                }
                ("add", Value::Object(m))
            }
            Self::Fail => ("fail", json!({})),
            Self::Sleep(ms) => ("sleep", json!({"ms": ms})),
            Self::SleepBad(ms) => ("sleep", json!({"ms": ms})),
            Self::Unknown(s) => (s.as_str(), json!({})),
            Self::NoName => return serde_json::Map::new(),
            Self::ArgumentsNotObject => ("echo", json!([1])),
        };
        let mut m = serde_json::Map::new();
        m.insert("name".into(), json!(name));
        m.insert("arguments".into(), args);
        m
    }
}

/// The name or URI a prompt, resource or completion request names.
#[derive(Arbitrary, Debug, Clone)]
enum SubjectT {
    /// One the fuzz server serves (or almost: a template URI with an extra segment).
    Known(u8),
    Text(String),
    Number,
    Absent,
}

impl SubjectT {
    fn value(&self, known: &[&str]) -> Option<Value> {
        match self {
            Self::Known(k) => Some(json!(known[usize::from(*k) % known.len()])),
            Self::Text(t) => Some(json!(t)),
            Self::Number => Some(json!(7)),
            Self::Absent => None,
        }
    }
}

/// The URIs the fuzz server's resources and template answer, and two they do not.
const URIS: [&str; 5] = [
    "fuzz://static",
    "fuzz://item/7",
    "fuzz://item/1000",
    "fuzz://item/7/more",
    "fuzz://nothing",
];

/// The `taskId` of a `tasks/*` request.
#[derive(Arbitrary, Debug, Clone)]
enum TaskRefT {
    /// One of the task ids the server handed out on this connection (if any yet).
    Known(u8),
    Text(String),
    Number,
    Absent,
}

/// What the message is, as the JSON-RPC fields it has.
#[derive(Arbitrary, Debug, Clone)]
enum ShapeT {
    Call,
    Result,
    Error,
    /// No `"jsonrpc":"2.0"`.
    NoVersion,
    /// A method and a result.
    Mixed,
    /// `params` that are a string.
    ScalarParams,
}

/// One message, from a few choices that reach the server's decisions quickly.
#[derive(Arbitrary, Debug, Clone)]
pub struct Template {
    shape: ShapeT,
    id: IdT,
    method: MethodT,
    envelope: EnvT,
    /// `params.protocolVersion` of an `initialize`.
    version: VersionT,
    tool: ToolT,
    /// `params.cursor` of a `tools/list`.
    cursor: Option<String>,
    /// `params.requestId` of a `notifications/cancelled`.
    target: IdT,
    /// `params.task` of a `tools/call` (legacy tasks, 2025-11-25): `{"ttl": n}`.
    task: Option<u16>,
    /// `params.taskId` of a `tasks/*` request.
    task_id: TaskRefT,
    /// Written as Python's `json.dumps` writes by default: a space after each `,` and `:`.
    spaced: bool,
    /// The prompt, URI or completion target of the surface methods.
    subject: SubjectT,
    /// The `who` argument of `prompts/get`, the value of a completion.
    argument: Option<String>,
}

impl Template {
    /// The message as one line of JSON text (without its newline).
    /// `tasks` are the task ids the server handed out so far.
    pub fn text(&self, tasks: &[String]) -> String {
        let compact = self.value(tasks).to_string();
        if !self.spaced {
            return compact;
        }
        let (mut out, mut in_string, mut escaped) = (String::new(), false, false);
        for c in compact.chars() {
            out.push(c);
            if in_string {
                match c {
                    _ if escaped => escaped = false,
                    '\\' => escaped = true,
                    '"' => in_string = false,
                    _ => {}
                }
            } else if c == '"' {
                in_string = true;
            } else if c == ',' || c == ':' {
                out.push(' ');
            }
        }
        out
    }

    fn value(&self, tasks: &[String]) -> Value {
        let mut m = serde_json::Map::new();
        if !matches!(self.shape, ShapeT::NoVersion) {
            m.insert("jsonrpc".into(), json!("2.0"));
        }
        if let Some(id) = self.id.value() {
            m.insert("id".into(), id);
        }
        match self.shape {
            ShapeT::Result => {
                m.insert("result".into(), json!({}));
                return Value::Object(m);
            }
            ShapeT::Error => {
                m.insert("error".into(), json!({"code": -1, "message": "x"}));
                return Value::Object(m);
            }
            ShapeT::Mixed => {
                m.insert("result".into(), json!({}));
            }
            ShapeT::Call | ShapeT::NoVersion | ShapeT::ScalarParams => {}
        }
        m.insert("method".into(), json!(self.method.name()));
        let mut params = match &self.method {
            MethodT::Initialize => json!({
                "protocolVersion": self.version.value(),
                "capabilities": {},
                "clientInfo": {"name": "fuzz", "version": "1"},
            })
            .as_object()
            .cloned()
            .unwrap_or_default(),
            MethodT::ToolsCall => {
                let mut p = self.tool.params();
                if let Some(ttl) = self.task {
                    p.insert("task".into(), json!({"ttl": ttl}));
                }
                p
            }
            MethodT::TasksGet
            | MethodT::TasksResult
            | MethodT::TasksCancel
            | MethodT::TasksUpdate
            | MethodT::TasksList => {
                let mut p = serde_json::Map::new();
                let id = match &self.task_id {
                    TaskRefT::Known(k) if !tasks.is_empty() => {
                        Some(json!(tasks[usize::from(*k) % tasks.len()]))
                    }
                    TaskRefT::Known(_) => Some(json!("no-such-task")),
                    TaskRefT::Text(t) => Some(json!(t)),
                    TaskRefT::Number => Some(json!(1)),
                    TaskRefT::Absent => None,
                };
                if let Some(id) = id {
                    p.insert("taskId".into(), id);
                }
                if let Some(c) = &self.cursor {
                    p.insert("cursor".into(), json!(c));
                }
                p
            }
            MethodT::ToolsList
            | MethodT::PromptsList
            | MethodT::ResourcesList
            | MethodT::TemplatesList => {
                let mut p = serde_json::Map::new();
                if let Some(c) = &self.cursor {
                    p.insert("cursor".into(), json!(c));
                }
                p
            }
            MethodT::PromptsGet => {
                let mut p = serde_json::Map::new();
                if let Some(n) = self.subject.value(&["greet", "other"]) {
                    p.insert("name".into(), n);
                }
                if let Some(a) = &self.argument {
                    p.insert("arguments".into(), json!({"who": a}));
                }
                p
            }
            MethodT::ResourcesRead | MethodT::ResourcesSubscribe => {
                let mut p = serde_json::Map::new();
                if let Some(u) = self.subject.value(&URIS) {
                    p.insert("uri".into(), u);
                }
                p
            }
            MethodT::Complete => {
                let mut p = serde_json::Map::new();
                let target = match self.subject.value(&["greet", "fuzz://item/{id}"]) {
                    Some(Value::String(t)) if t.contains("://") => {
                        json!({"type": "ref/resource", "uri": t})
                    }
                    Some(t) => json!({"type": "ref/prompt", "name": t}),
                    None => json!({"type": "ref/prompt"}),
                };
                p.insert("ref".into(), target);
                if let Some(a) = &self.argument {
                    p.insert("argument".into(), json!({"name": "who", "value": a}));
                    p.insert("context".into(), json!({"arguments": {"id": a}}));
                }
                p
            }
            MethodT::Cancelled => {
                let mut p = serde_json::Map::new();
                if let Some(t) = self.target.value() {
                    p.insert("requestId".into(), t);
                }
                p
            }
            _ => serde_json::Map::new(),
        };
        if let Some(meta) = self.envelope.value() {
            params.insert("_meta".into(), meta);
        }
        if matches!(self.shape, ShapeT::ScalarParams) {
            m.insert("params".into(), json!("params"));
        } else if !params.is_empty() {
            m.insert("params".into(), Value::Object(params));
        }
        Value::Object(m)
    }
}
