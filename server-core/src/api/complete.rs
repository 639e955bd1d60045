//! Completions (`completion/complete`): the values a prompt's argument or a resource
//! template's variable may take, given what the user has typed so far.
//!
//! A [`Complete`] handler is registered for one prompt argument or one template variable; it
//! gets a [`CompletionRequest`] (the value typed, and `context.arguments`: what the other
//! arguments already hold) and returns the candidates. At most 100 go out, with `total` and
//! `hasMore`; a reference with no handler gets no values, not an error.

use crate::api::ctx::Ctx;
use janus_codec::RawJson;

/// The most values one answer holds (the specification's limit).
pub const MAX_VALUES: usize = 100;

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
}

impl<F> Complete for F
where
    F: Fn(&Ctx<'_>, &CompletionRequest<'_>) -> Vec<String> + Send + Sync + 'static,
{
    fn complete(&self, ctx: &Ctx<'_>, req: &CompletionRequest<'_>) -> Vec<String> {
        self(ctx, req)
    }
}
