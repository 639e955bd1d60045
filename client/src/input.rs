//! Input the server asks of the client (elicitation, sampling, roots), served by one set of
//! callbacks in both eras: a legacy session's server-to-client requests, and the
//! `inputRequests` of a 2026-07-28 `input_required` result, which the client answers by
//! retrying with `inputResponses` and the `requestState` echoed.

use crate::error::Rejection;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

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
