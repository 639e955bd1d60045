//! Prompts: what a server offers as message templates (`prompts/list`, `prompts/get`).
//!
//! A prompt is a [`PromptSpec`] (its name, description and arguments) and a [`Prompt`]
//! handler that fills [`PromptMessages`] from the arguments. Required arguments are checked
//! before the handler runs (`-32602` names the first missing one); every argument reaches the
//! handler as a string, as the specification has them.

use crate::api::ctx::Ctx;
use crate::api::halt::Halt;
use janus_codec::RawJson;
use janus_model::content::{Content, Role};
use janus_model::json::RpcError;

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// Whether `prompts/get` must carry it.
    pub required: bool,
}

/// A prompt's description, as `prompts/list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptSpec {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) arguments: Vec<PromptArgument>,
    pub(crate) icons: Vec<janus_model::content::Icon>,
    pub(crate) meta: Option<janus_model::json::Json>,
}

impl PromptSpec {
    /// Adds an icon (shown from 2025-11-25).
    #[must_use]
    pub fn icon(mut self, icon: janus_model::content::Icon) -> Self {
        self.icons.push(icon);
        self
    }

    /// Sets the `_meta` object (shown from 2025-06-18); one that is not a JSON object makes
    /// `ServerBuilder::build` fail.
    #[must_use]
    pub fn meta(mut self, meta: janus_model::json::Json) -> Self {
        self.meta = Some(meta);
        self
    }

    /// A prompt named `name` with no arguments.
    #[must_use]
    pub fn new(name: &str, description: &str) -> Self {
        Self {
            name: name.to_owned(),
            title: None,
            description: Some(description.to_owned()).filter(|d| !d.is_empty()),
            arguments: Vec::new(),
            icons: Vec::new(),
            meta: None,
        }
    }

    /// A human title (shown from 2025-06-18).
    #[must_use]
    pub fn title(mut self, title: &str) -> Self {
        self.title = Some(title.to_owned());
        self
    }

    /// Adds an argument.
    #[must_use]
    pub fn argument(mut self, name: &str, description: &str, required: bool) -> Self {
        self.arguments.push(PromptArgument {
            name: name.to_owned(),
            description: Some(description.to_owned()).filter(|d| !d.is_empty()),
            required,
        });
        self
    }

    /// Its name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }
}

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

/// The result a prompt handler fills: an optional description and the messages.
#[derive(Debug, Clone, Default)]
pub struct PromptMessages {
    pub(crate) description: Option<String>,
    pub(crate) messages: Vec<(Role, Content)>,
}

impl PromptMessages {
    /// Sets the result's description.
    pub fn description(&mut self, text: &str) -> &mut Self {
        self.description = Some(text.to_owned());
        self
    }

    /// Adds a message from the user.
    pub fn user(&mut self, content: Content) -> &mut Self {
        self.messages.push((Role::User, content));
        self
    }

    /// Adds a message from the assistant.
    pub fn assistant(&mut self, content: Content) -> &mut Self {
        self.messages.push((Role::Assistant, content));
        self
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
