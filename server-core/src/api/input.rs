//! Input from the client: elicitation, sampling and roots, with one handler API for both eras.
//!
//! A handler that needs something from the client reads it with [`Ctx::input`]; when it is
//! not there yet, it answers `Err(InputRequired::new().ask(key, request).into())`. The core
//! then gets the answers and runs the handler again with them (the *replay* model: the
//! handler is a function of its arguments and the answers so far, and holds nothing while it
//! waits):
//!
//! - **2026-07-28** (MRTR): the request is answered `resultType: "input_required"` with the
//!   `inputRequests` and an HMAC-protected `requestState`; the client's retry carries
//!   `inputResponses`, and the handler runs with them (and with the answers of earlier rounds,
//!   which the state carries).
//! - **Handshake sessions**: the connection sends each request to the client as a real
//!   server-to-client request, collects the responses, then runs the handler again.
//!
//! A request the client did not declare the capability for is never sent: it is dropped
//! from the round, and a round left empty is answered as the era says (a tool error on a
//! handshake session's `tools/call`, else `-32021` with `data.requiredCapabilities`).
//! Any handler can ask: an inline one, an asynchronous one before it returns its work, or
//! that work itself, when its future ends with the `InputRequired` (say after an await that
//! showed it needs a confirmation). An asynchronous job keeps a copy of its request for this.
//! The replay then runs the handler, and its work, again. A task's work that asks within the
//! task (the extension's) parks the task in `input_required`; one that cannot (a handshake
//! session's task) fails with `-32603`, which names `InputRequired::within_task`.
//!
//! [`Ctx::input`]: crate::Ctx::input

use bytes::BytesMut;
use janus_codec::encode::JsonWriter;
use janus_model::json::{Json, RpcError};
use std::sync::{Arc, Mutex, PoisonError};

/// The JSON-RPC code of a request the client did not answer in time (as the SDKs'
/// `RequestTimeout`).
pub const REQUEST_TIMEOUT: i32 = -32001;

/// One request to the client, as `inputRequests` holds it (and as a handshake session sends
/// it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputRequest {
    method: &'static str,
    /// The request's `params`, an object.
    params: Json,
    /// The client capability it needs, and the member of it (URL elicitation).
    capability: (&'static str, Option<&'static str>),
}

/// Why an input request cannot be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadInputRequest(String);

impl std::fmt::Display for BadInputRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad input request: {}", self.0)
    }
}

impl std::error::Error for BadInputRequest {}

impl From<BadInputRequest> for RpcError {
    /// A request the server built wrong is its own fault: `-32603`, nothing of the cause.
    fn from(_: BadInputRequest) -> Self {
        Self::internal()
    }
}

/// The types a form elicitation's property may have (the specification's schema subset).
const PRIMITIVES: [&str; 5] = ["string", "number", "integer", "boolean", "array"];

impl InputRequest {
    /// `elicitation/create` in form mode: `message` for the user and the `requestedSchema`
    /// (JSON text): an object schema whose properties are flat primitives (`string`,
    /// `number`, `integer`, `boolean`, or an `array` of enum strings for a multi-select).
    ///
    /// # Errors
    ///
    /// [`BadInputRequest`] when the schema is not JSON or leaves the subset.
    pub fn elicit(message: &str, requested_schema: &str) -> Result<Self, BadInputRequest> {
        let schema = Json::parse(requested_schema)
            .map_err(|e| BadInputRequest(format!("requestedSchema is {e}")))?;
        check_form_schema(&schema)?;
        let mut p = BytesMut::new();
        let mut w = JsonWriter::new(&mut p);
        w.begin_object().key("message").str(message);
        w.key("requestedSchema").raw(schema.as_str()).end_object();
        Ok(Self {
            method: "elicitation/create",
            params: json_of(&p),
            capability: ("elicitation", None),
        })
    }

    /// `elicitation/create` in URL mode (2025-11-25 and later): the user is sent to `url`;
    /// `elicitation_id` names the interaction.
    #[must_use]
    pub fn elicit_url(message: &str, url: &str, elicitation_id: &str) -> Self {
        let mut p = BytesMut::new();
        let mut w = JsonWriter::new(&mut p);
        w.begin_object().key("mode").str("url");
        w.key("message").str(message);
        w.key("url").str(url);
        w.key("elicitationId").str(elicitation_id).end_object();
        Self {
            method: "elicitation/create",
            params: json_of(&p),
            capability: ("elicitation", Some("url")),
        }
    }

    /// `sampling/createMessage` with its `params` (JSON text: `messages`, `maxTokens`, and
    /// the optional fields of `CreateMessageRequest`).
    ///
    /// # Errors
    ///
    /// [`BadInputRequest`] when the params are not a JSON object with `messages` and
    /// `maxTokens`.
    pub fn sample(params: &str) -> Result<Self, BadInputRequest> {
        let params = Json::parse(params).map_err(|e| BadInputRequest(format!("params are {e}")))?;
        let raw = janus_codec::RawJson::parse(params.as_str())
            .map_err(|_| BadInputRequest("params are not JSON".into()))?;
        if !raw.is_object() || raw.get("messages").is_none() || raw.get("maxTokens").is_none() {
            return Err(BadInputRequest(
                "sampling params need messages and maxTokens".into(),
            ));
        }
        Ok(Self {
            method: "sampling/createMessage",
            params,
            capability: ("sampling", None),
        })
    }

    /// `sampling/createMessage` of one user text message.
    #[must_use]
    pub fn sample_text(prompt: &str, max_tokens: u32) -> Self {
        let mut p = BytesMut::new();
        let mut w = JsonWriter::new(&mut p);
        w.begin_object().key("messages").begin_array();
        w.begin_object().key("role").str("user");
        w.key("content").begin_object().key("type").str("text");
        w.key("text").str(prompt).end_object().end_object();
        w.end_array();
        w.key("maxTokens")
            .raw(itoa::Buffer::new().format(max_tokens))
            .end_object();
        Self {
            method: "sampling/createMessage",
            params: json_of(&p),
            capability: ("sampling", None),
        }
    }

    /// `roots/list`.
    #[must_use]
    pub fn list_roots() -> Self {
        Self {
            method: "roots/list",
            params: Json::parse("{}").unwrap_or_else(|_| unreachable!("{{}} is JSON")),
            capability: ("roots", None),
        }
    }

    /// A request as another server asked it, its params as sent (what a bridge forwards
    /// from its backend): `elicitation/create` (form or URL mode), `sampling/createMessage`
    /// or `roots/list`.
    ///
    /// # Errors
    ///
    /// [`BadInputRequest`] for another method, or params that are not a JSON object.
    pub fn forwarded(method: &str, params: Option<&str>) -> Result<Self, BadInputRequest> {
        // NB. Written again, as the server core writes everything: compact, not as the
        // peer spaced it.
        let dom = janus_codec::dom::to_owned_value(params.unwrap_or("{}"))
            .map_err(|e| BadInputRequest(format!("params are not JSON: {e}")))?;
        let params = Json::from_written(simd_json::prelude::Writable::encode(&dom).as_bytes());
        let raw = janus_codec::RawJson::parse(params.as_str())
            .map_err(|_| BadInputRequest("params are not JSON".into()))?;
        if !raw.is_object() {
            return Err(BadInputRequest("params must be a JSON object".into()));
        }
        let url = raw.get("mode").and_then(|m| m.as_string()).as_deref() == Some("url");
        let (method, capability) = match method {
            "elicitation/create" => ("elicitation/create", ("elicitation", url.then_some("url"))),
            "sampling/createMessage" => ("sampling/createMessage", ("sampling", None)),
            "roots/list" => ("roots/list", ("roots", None)),
            other => return Err(BadInputRequest(format!("{other} is no input request"))),
        };
        Ok(Self {
            method,
            params,
            capability,
        })
    }

    /// The method the client is asked to serve.
    #[must_use]
    pub const fn method(&self) -> &'static str {
        self.method
    }

    /// The request's `params`.
    #[must_use]
    pub const fn params(&self) -> &Json {
        &self.params
    }

    /// The client capability the request needs (`elicitation`, `sampling`, `roots`).
    #[must_use]
    pub const fn capability(&self) -> &'static str {
        self.capability.0
    }

    /// True when `capabilities` (a `ClientCapabilities` object) declares what this request
    /// needs. A form elicitation needs `elicitation` (an empty object means form); a URL one
    /// `elicitation.url`.
    pub(crate) fn declared_in(&self, capabilities: Option<janus_codec::RawJson<'_>>) -> bool {
        let Some(cap) = capabilities.and_then(|c| c.get(self.capability.0)) else {
            return false;
        };
        if !cap.is_object() {
            return false;
        }
        match self.capability.1 {
            None => {
                // NB. A client that declares only `url` elicitation cannot fill a form.
                cap.get("url").is_none() || cap.get("form").is_some()
            }
            Some(member) => cap.get(member).is_some(),
        }
    }
}

/// `p` as checked JSON: the writer made it.
fn json_of(p: &[u8]) -> Json {
    Json::parse(String::from_utf8_lossy(p).into_owned())
        .unwrap_or_else(|_| unreachable!("the JSON writer writes one value"))
}

/// The form elicitation schema subset: `type: object`, flat primitive properties.
fn check_form_schema(schema: &Json) -> Result<(), BadInputRequest> {
    let raw = janus_codec::RawJson::parse(schema.as_str())
        .map_err(|_| BadInputRequest("requestedSchema is not JSON".into()))?;
    if raw.get("type").and_then(|t| t.as_string()).as_deref() != Some("object") {
        return Err(BadInputRequest(
            "requestedSchema must be an object schema".into(),
        ));
    }
    let Some(props) = raw.get("properties") else {
        return Ok(());
    };
    if !props.is_object() {
        return Err(BadInputRequest("properties must be an object".into()));
    }
    for (name, p) in props.members() {
        let kind = p.get("type").and_then(|t| t.as_string());
        if !kind.as_deref().is_some_and(|k| PRIMITIVES.contains(&k)) {
            return Err(BadInputRequest(format!(
                "property {name} must be a string, number, integer, boolean or enum array"
            )));
        }
    }
    Ok(())
}

/// What a handler needs from the client before it can answer: the requests, by key, and an
/// opaque state of its own that comes back with the answers ([`Ctx::request_state`]).
///
/// [`Ctx::request_state`]: crate::Ctx::request_state
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InputRequired {
    pub(crate) requests: Vec<(String, InputRequest)>,
    pub(crate) state: Option<String>,
    pub(crate) within_task: bool,
    pub(crate) ends_on: EndsOn,
    pub(crate) takes_refusals: bool,
}

/// The future that ends a round early, and the error it answers with.
pub(crate) type Ending = std::pin::Pin<Box<dyn std::future::Future<Output = RpcError> + Send>>;

/// What may end a handshake session's round early ([`InputRequired::ends_on`]): the future
/// is taken once (the clones of a round share it).
#[derive(Clone, Default)]
pub(crate) struct EndsOn(Option<Arc<Mutex<Option<Ending>>>>);

impl EndsOn {
    /// The future, for the one round that waits on it.
    pub(crate) fn take(&self) -> Option<Ending> {
        let slot = self.0.as_ref()?;
        slot.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

impl std::fmt::Debug for EndsOn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "EndsOn(..)"
        } else {
            "EndsOn(None)"
        })
    }
}

impl PartialEq for EndsOn {
    /// The same future (or none on both sides).
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for EndsOn {}

impl InputRequired {
    /// No request yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks `request` under `key` (keys are unique in a round: a second `ask` with the same
    /// key replaces the first).
    #[must_use]
    pub fn ask(mut self, key: &str, request: InputRequest) -> Self {
        self.requests.retain(|(k, _)| k != key);
        self.requests.push((key.to_owned(), request));
        self
    }

    /// Keeps `state` for the next round: the handler reads it back with
    /// [`Ctx::request_state`](crate::Ctx::request_state). It travels integrity-protected, but
    /// readable by the client: keep secrets out of it.
    #[must_use]
    pub fn state(mut self, state: &str) -> Self {
        self.state = Some(state.to_owned());
        self
    }

    /// When the call runs as a task (the tasks extension), asks within it: the task is
    /// created and waits in `input_required`, its `tasks/get` shows the requests, and the
    /// client answers them with `tasks/update` (one at a time if it likes); then the call is
    /// handled again with the answers, as the task's work. Without this, a call that will
    /// run as a task has its input rounds before the task exists.
    #[must_use]
    pub const fn within_task(mut self) -> Self {
        self.within_task = true;
        self
    }

    /// Ends the round early when `end` resolves before the client has answered, on a
    /// handshake session (where the request waits while the client is asked): the request is
    /// answered with the error `end` gives, and the server requests still unanswered are
    /// cancelled at the client (`notifications/cancelled`). For work the handler holds
    /// while it waits (a call it forwarded, which may fail meanwhile). A 2026-07-28 request,
    /// answered `input_required` at once, and a task's round drop it unpolled.
    #[must_use]
    pub fn ends_on(
        mut self,
        end: impl std::future::Future<Output = RpcError> + Send + 'static,
    ) -> Self {
        self.ends_on = EndsOn(Some(Arc::new(Mutex::new(Some(Box::pin(end))))));
        self
    }

    /// On a handshake session, takes a client's error reply to one of the round's requests
    /// as its answer: the handler runs again when every request has a reply, and reads an
    /// error one with [`Ctx::input_refusal`](crate::Ctx::input_refusal) (a gateway passes it
    /// on to whoever asked). Without this, an error reply ends the round: a tool call gets a
    /// tool error, another request `-32603`. A 2026-07-28 client answers no request with an
    /// error (it retries, or not), so this changes nothing there.
    #[must_use]
    pub const fn takes_refusals(mut self) -> Self {
        self.takes_refusals = true;
        self
    }

    /// The requests, by key.
    pub fn requests(&self) -> impl Iterator<Item = (&str, &InputRequest)> {
        self.requests.iter().map(|(k, r)| (k.as_str(), r))
    }
}

/// The client's answers a request is served with: this round's and the earlier rounds'.
#[derive(Debug, Clone, Default)]
pub(crate) struct Inputs {
    /// Key, and the response object as JSON text.
    pub(crate) responses: Vec<(String, String)>,
    /// The handler's own state from the round before.
    pub(crate) state: Option<String>,
    /// Key, and the error object of a handshake client's error reply as JSON text (this
    /// round's only, for a round that takes them: [`InputRequired::takes_refusals`]).
    pub(crate) refusals: Vec<(String, String)>,
}

impl Inputs {
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        under(&self.responses, key)
    }

    pub(crate) fn refusal(&self, key: &str) -> Option<&str> {
        under(&self.refusals, key)
    }
}

/// The text kept under `key` in a list of keyed answers.
fn under<'a>(list: &'a [(String, String)], key: &str) -> Option<&'a str> {
    list.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::InputRequest;

    #[test]
    fn a_forwarded_request_s_params_are_written_compact() {
        let r = InputRequest::forwarded(
            "roots/list",
            Some("{ \"x\" : [1,  2],\n \"_meta\": {\"k\": \"a b\"} }"),
        )
        .unwrap();
        assert_eq!(r.params().as_str(), r#"{"x":[1,2],"_meta":{"k":"a b"}}"#);
        assert!(InputRequest::forwarded("roots/list", Some("[1]")).is_err());
        assert!(InputRequest::forwarded("roots/list", Some("{\"x\":")).is_err());
        assert!(InputRequest::forwarded("tools/list", None).is_err());
    }
}
