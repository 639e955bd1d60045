//! Input the server asks of the client (elicitation, sampling, roots), served by one set of
//! callbacks in both eras: a legacy session's server-to-client requests, and the
//! `inputRequests` of a 2026-07-28 `input_required` result, which the client answers by
//! retrying with `inputResponses` and the `requestState` echoed.

use crate::error::Rejection;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use janus_codec::{RawJson, encode};

/// A boxed future of an answer: the result object as JSON text, or the error to send.
pub type Answer = Pin<Box<dyn Future<Output = Result<String, Rejection>> + Send + 'static>>;

type Callback = Arc<dyn Fn(String) -> Answer + Send + Sync>;

/// The callbacks that answer the server's input requests. Each one set declares its
/// capability (`elicitation`, `sampling`, `roots`) to every server; a request of the
/// server's for one that is not set is refused with `-32601`.
#[derive(Clone, Default)]
pub struct Callbacks {
    elicit: Option<Callback>,
    sample: Option<Callback>,
    roots: Option<Callback>,
}

impl std::fmt::Debug for Callbacks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Callbacks")
            .field("elicit", &self.elicit.is_some())
            .field("sample", &self.sample.is_some())
            .field("roots", &self.roots.is_some())
            .finish()
    }
}

fn boxed<F, Fut>(f: F) -> Callback
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<String, Rejection>> + Send + 'static,
{
    Arc::new(move |p| Box::pin(f(p)))
}

impl Callbacks {
    /// No callbacks: the client declares no input capability.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Answers `elicitation/create`: `f` gets the request's params (JSON text) and returns
    /// the result object (`{"action":"accept","content":{..}}`, or `decline`, `cancel`).
    #[must_use]
    pub fn elicit<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, Rejection>> + Send + 'static,
    {
        self.elicit = Some(boxed(f));
        self
    }

    /// Answers `elicitation/create` without asking anyone (a headless client): accepts a form
    /// with the `default` of every property of the requested schema that has one (SEP-1034),
    /// and leaves out the others; a URL-mode request is accepted with no content. This is
    /// what the official conformance suite's `elicitation-sep1034-client-defaults` expects
    /// of a client that applies defaults.
    #[must_use]
    pub fn accept_defaults(self) -> Self {
        self.elicit(|params| async move { Ok(accept_with_defaults(&params)) })
    }

    /// Answers `sampling/createMessage` (params in, the `CreateMessageResult` out).
    #[must_use]
    pub fn sample<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, Rejection>> + Send + 'static,
    {
        self.sample = Some(boxed(f));
        self
    }

    /// Answers `roots/list` (params in, `{"roots":[..]}` out).
    #[must_use]
    pub fn roots<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, Rejection>> + Send + 'static,
    {
        self.roots = Some(boxed(f));
        self
    }

    /// The capabilities these callbacks give, as compact JSON.
    #[must_use]
    pub fn capabilities(&self) -> String {
        let mut caps = Vec::new();
        if self.elicit.is_some() {
            caps.push(r#""elicitation":{"form":{}}"#);
        }
        if self.sample.is_some() {
            caps.push(r#""sampling":{}"#);
        }
        if self.roots.is_some() {
            caps.push(r#""roots":{}"#);
        }
        format!("{{{}}}", caps.join(","))
    }

    /// The answer to one input request: `method` with `params` (JSON text).
    pub(crate) fn answer(&self, method: &str, params: String) -> Answer {
        let cb = match method {
            "elicitation/create" => self.elicit.as_ref(),
            "sampling/createMessage" => self.sample.as_ref(),
            "roots/list" => self.roots.as_ref(),
            _ => None,
        };
        match cb {
            Some(cb) => cb(params),
            None => {
                let message = format!("This client does not answer {method}");
                Box::pin(async move {
                    Err(Rejection {
                        code: janus_codec::METHOD_NOT_FOUND.into(),
                        message,
                        data: None,
                    })
                })
            }
        }
    }
}

/// The answer [`Callbacks::accept_defaults`] gives to an elicitation's `params`: `accept`,
/// with the defaults of the requested schema's properties as the content.
fn accept_with_defaults(params: &str) -> String {
    let params = RawJson::parse(params).ok();
    let mode = params
        .and_then(|p| p.get("mode"))
        .and_then(RawJson::as_string);
    if mode.as_deref() == Some("url") {
        // NB. A URL-mode answer has no content: the user acts at the URL.
        return r#"{"action":"accept"}"#.to_owned();
    }
    let mut out = bytes::BytesMut::new();
    out.extend_from_slice(br#"{"action":"accept","content":{"#);
    let properties = params
        .and_then(|p| p.get("requestedSchema"))
        .and_then(|s| s.get("properties"))
        .filter(|p| p.is_object());
    let mut first = true;
    for (key, schema) in properties.map(|p| p.members()).unwrap_or_default() {
        let Some(default) = schema.get("default") else {
            continue;
        };
        if !first {
            out.extend_from_slice(b",");
        }
        first = false;
        encode::write_str(&mut out, &key);
        out.extend_from_slice(b":");
        // NB. Compact: the answer may travel as one line (stdio), where a line break in the
        // server's formatting of the default would end the message.
        out.extend_from_slice(crate::json::compact(default.as_str()).as_bytes());
    }
    out.extend_from_slice(b"}}");
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepting_with_defaults_fills_every_property_that_has_one_and_no_other() {
        let params = r#"{"message":"m","requestedSchema":{"type":"object","properties":{
            "name":{"type":"string","default":"John Doe"},
            "age":{"type":"integer","default":30},
            "score":{"type":"number","default":95.5},
            "status":{"type":"string","enum":["active","inactive"],"default":"active"},
            "verified":{"type":"boolean","default":true},
            "tags":{"type":"array","items":{"type":"string"},"default":[ "a", "b" ]},
            "free":{"type":"string"}}}}"#;
        assert_eq!(
            accept_with_defaults(params),
            r#"{"action":"accept","content":{"name":"John Doe","age":30,"score":95.5,"status":"active","verified":true,"tags":["a","b"]}}"#
        );
        assert_eq!(
            accept_with_defaults(r#"{"mode":"url","url":"https://example.com","message":"m"}"#),
            r#"{"action":"accept"}"#
        );
        assert_eq!(
            accept_with_defaults(r#"{"message":"m","requestedSchema":{"type":"object"}}"#),
            r#"{"action":"accept","content":{}}"#
        );
    }
}
