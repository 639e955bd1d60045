//! Completions (`completion/complete`): the values a prompt's argument or a resource
//! template's variable may take, given what the user has typed so far.
//!
//! A [`Complete`] handler is registered for one prompt argument or one template variable; it
//! gets a [`CompletionRequest`] (the value typed, and `context.arguments`: what the other
//! arguments already hold) and returns the candidates. At most 100 go out, with `total` and
//! `hasMore`; a reference with no handler gets no values, not an error.

use crate::api::ctx::{BoxFuture, Ctx};
use crate::api::halt::Halt;
use janus_codec::RawJson;
use janus_model::json::RpcError;

pub use janus_model::complete::{Completion, MAX_VALUES};

/// What a completion is asked for.
#[derive(Debug, Clone, Copy)]
pub struct CompletionRequest<'a> {
    pub(crate) argument: &'a str,
    pub(crate) value: &'a str,
    pub(crate) context: Option<RawJson<'a>>,
}

impl CompletionRequest<'_> {
    /// The argument's (or variable's) name.
    #[must_use]
    pub const fn argument(&self) -> &str {
        self.argument
    }

    /// What the user has typed so far.
    #[must_use]
    pub const fn value(&self) -> &str {
        self.value
    }

    /// The value another argument already holds (`context.arguments`, 2025-06-18 and later).
    #[must_use]
    pub fn context_argument(&self, name: &str) -> Option<String> {
        self.context?
            .get(name)?
            .as_string()
            .map(std::borrow::Cow::into_owned)
    }
}

/// A completion handler.
pub trait Complete: Send + Sync + 'static {
    /// The candidates for `req`, best first.
    fn complete(&self, ctx: &Ctx<'_>, req: &CompletionRequest<'_>) -> Vec<String>;

    /// True for a handler whose answer comes later ([`AsyncComplete`]).
    #[doc(hidden)]
    fn is_later(&self) -> bool {
        false
    }

    /// Starts a handler whose answer comes later.
    #[doc(hidden)]
    fn start(&self, _ctx: &Ctx<'_>, _req: &CompletionRequest<'_>) -> Result<ValuesFuture, Halt> {
        Err(RpcError::internal().into())
    }
}

/// The future of an asynchronous completion: the candidates, best first, and what the
/// handler knows of the rest (a `Vec<String>` of them all goes `.into()` one).
pub type ValuesFuture = BoxFuture<Result<Completion, Halt>>;

/// A completion handler whose answer comes later: it copies what it needs of the request
/// and returns the work, which the driver runs as a job.
pub trait AsyncComplete: Send + Sync + 'static {
    /// Starts a completion.
    ///
    /// # Errors
    ///
    /// The JSON-RPC error the request gets at once.
    fn complete(&self, ctx: &Ctx<'_>, req: &CompletionRequest<'_>) -> Result<ValuesFuture, Halt>;
}

impl<F> AsyncComplete for F
where
    F: Fn(&Ctx<'_>, &CompletionRequest<'_>) -> Result<ValuesFuture, Halt> + Send + Sync + 'static,
{
    fn complete(&self, ctx: &Ctx<'_>, req: &CompletionRequest<'_>) -> Result<ValuesFuture, Halt> {
        self(ctx, req)
    }
}

/// An [`AsyncComplete`] where a [`Complete`] is kept.
pub(crate) struct LaterComplete<H>(pub(crate) H);

impl<H: AsyncComplete> Complete for LaterComplete<H> {
    fn complete(&self, _: &Ctx<'_>, _: &CompletionRequest<'_>) -> Vec<String> {
        // NB. Never called: the core starts it as a job.
        Vec::new()
    }

    fn is_later(&self) -> bool {
        true
    }

    fn start(&self, ctx: &Ctx<'_>, req: &CompletionRequest<'_>) -> Result<ValuesFuture, Halt> {
        self.0.complete(ctx, req)
    }
}

impl CompletionRequest<'_> {
    /// `context.arguments` as sent (a JSON object), for a handler that passes it on.
    #[must_use]
    pub fn context(&self) -> Option<RawJson<'_>> {
        self.context
    }
}

impl<F> Complete for F
where
    F: Fn(&Ctx<'_>, &CompletionRequest<'_>) -> Vec<String> + Send + Sync + 'static,
{
    fn complete(&self, ctx: &Ctx<'_>, req: &CompletionRequest<'_>) -> Vec<String> {
        self(ctx, req)
    }
}
