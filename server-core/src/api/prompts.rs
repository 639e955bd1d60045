//! Prompts: what a server offers as message templates (`prompts/list`, `prompts/get`).
//!
//! A prompt is a [`PromptSpec`] (its name, description and arguments) and a [`Prompt`]
//! handler that fills [`PromptMessages`] from the arguments. Required arguments are checked
//! before the handler runs (`-32602` names the first missing one); every argument reaches the
//! handler as a string, as the specification has them.

use crate::api::ctx::Ctx;
use crate::api::halt::Halt;
use janus_codec::RawJson;
use janus_model::json::RpcError;
pub use janus_model::prompt::{PromptArgument, PromptMessages, PromptSpec};

/// The arguments of one `prompts/get`, read in place.
#[derive(Debug, Clone, Copy)]
pub struct PromptArgs<'a> {
    raw: Option<RawJson<'a>>,
}

impl<'a> PromptArgs<'a> {
    pub(crate) const fn new(raw: Option<RawJson<'a>>) -> Self {
        Self { raw }
    }

    /// The argument `name` as text (a string's value; any other JSON as its text).
    #[must_use]
    pub fn get(&self, name: &str) -> Option<String> {
        let v = self.raw?.get(name)?;
        if v.is_null() {
            return None;
        }
        Some(
            v.as_string()
                .map_or_else(|| v.as_str().to_owned(), |s| s.into_owned()),
        )
    }

    /// The argument `name` as text, borrowed from the request unless it has escapes (a
    /// string's value; any other JSON as its text).
    #[must_use]
    pub fn str(&self, name: &str) -> Option<std::borrow::Cow<'a, str>> {
        let v = self.raw?.get(name)?;
        if v.is_null() {
            return None;
        }
        Some(
            v.as_string()
                .unwrap_or(std::borrow::Cow::Borrowed(v.as_str())),
        )
    }

    /// True when the argument `name` is there (and not `null`).
    #[must_use]
    pub fn has(&self, name: &str) -> bool {
        self.raw
            .and_then(|r| r.get(name))
            .is_some_and(|v| !v.is_null())
    }

    /// The arguments object as sent, if any.
    #[must_use]
    pub const fn raw(&self) -> Option<RawJson<'a>> {
        self.raw
    }
}

/// A prompt's handler: fills the messages from the arguments, or refuses.
pub trait Prompt: Send + Sync + 'static {
    /// Answers one `prompts/get`.
    ///
    /// # Errors
    ///
    /// The JSON-RPC error the request gets instead (`RpcError::invalid_params` for arguments
    /// it cannot use).
    fn get(
        &self,
        ctx: &Ctx<'_>,
        args: PromptArgs<'_>,
        out: &mut PromptMessages,
    ) -> Result<(), Halt>;

    /// True for a handler whose answer comes later ([`AsyncPrompt`]).
    #[doc(hidden)]
    fn is_later(&self) -> bool {
        false
    }

    /// Starts a handler whose answer comes later.
    #[doc(hidden)]
    fn start(&self, _ctx: &Ctx<'_>, _args: PromptArgs<'_>) -> Result<MessagesFuture, Halt> {
        Err(RpcError::internal().into())
    }
}

/// The future of an asynchronous prompt.
pub type MessagesFuture = crate::api::ctx::BoxFuture<Result<PromptMessages, Halt>>;

/// A prompt's handler whose answer comes later: it checks the arguments, copies what it
/// needs, and returns the work, which the driver runs as a job.
pub trait AsyncPrompt: Send + Sync + 'static {
    /// Starts one `prompts/get`.
    ///
    /// # Errors
    ///
    /// The JSON-RPC error the request gets at once (or an [`crate::InputRequired`]).
    fn get(&self, ctx: &Ctx<'_>, args: PromptArgs<'_>) -> Result<MessagesFuture, Halt>;
}

impl<F> AsyncPrompt for F
where
    F: Fn(&Ctx<'_>, PromptArgs<'_>) -> Result<MessagesFuture, Halt> + Send + Sync + 'static,
{
    fn get(&self, ctx: &Ctx<'_>, args: PromptArgs<'_>) -> Result<MessagesFuture, Halt> {
        self(ctx, args)
    }
}

/// An [`AsyncPrompt`] where a [`Prompt`] is kept.
pub(crate) struct LaterPrompt<H>(pub(crate) H);

impl<H: AsyncPrompt> Prompt for LaterPrompt<H> {
    fn get(&self, _: &Ctx<'_>, _: PromptArgs<'_>, _: &mut PromptMessages) -> Result<(), Halt> {
        // NB. Never called: the core starts it as a job.
        Err(RpcError::internal().into())
    }

    fn is_later(&self) -> bool {
        true
    }

    fn start(&self, ctx: &Ctx<'_>, args: PromptArgs<'_>) -> Result<MessagesFuture, Halt> {
        self.0.get(ctx, args)
    }
}

impl<F> Prompt for F
where
    F: Fn(&Ctx<'_>, PromptArgs<'_>, &mut PromptMessages) -> Result<(), Halt>
        + Send
        + Sync
        + 'static,
{
    fn get(
        &self,
        ctx: &Ctx<'_>,
        args: PromptArgs<'_>,
        out: &mut PromptMessages,
    ) -> Result<(), Halt> {
        self(ctx, args, out)
    }
}
