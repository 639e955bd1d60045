//! Resources, prompts and completions, read into the model's shapes ([`janus_model`])
//! whatever the revision.

use crate::client::{CallOptions, Client};
use crate::core::members_of;
use crate::error::Error;
use janus_model::resource::Contents;

/// What `completion/complete` gave: the model's.
pub use janus_model::complete::Completion;
/// One argument of a prompt: the model's.
pub use janus_model::prompt::PromptArgument;
/// What `prompts/get` gave: the model's.
pub use janus_model::prompt::PromptMessages;
/// A prompt a server lists: the model's.
pub use janus_model::prompt::PromptSpec as Prompt;
/// What `resources/read` gave for one URI: the model's.
pub use janus_model::resource::ResourceContents;
/// A resource a server lists: the model's.
pub use janus_model::resource::ResourceSpec as Resource;
/// A resource template a server lists (RFC 6570): the model's.
pub use janus_model::resource::TemplateSpec as ResourceTemplate;

/// What a completion refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionRef<'a> {
    /// A prompt, by name.
    Prompt(&'a str),
    /// A resource template, by its URI template.
    Template(&'a str),
}

impl Client {
    /// `resources/list`, every page followed.
    ///
    /// # Errors
    ///
    /// As [`Client::request`]; an entry without its URI or name is left out, with a warning.
    pub async fn list_resources(&self) -> Result<Vec<Resource>, Error> {
        let mut out = Vec::new();
        self.list_pages("resources/list", "resources", |r| match Resource::read(r) {
            Ok(r) => out.push(r),
            Err(e) => tracing::warn!("resources/list: an entry left out: {e}"),
        })
        .await?;
        Ok(out)
    }

    /// `resources/templates/list`, every page followed.
    ///
    /// # Errors
    ///
    /// As [`Client::request`].
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, Error> {
        let mut out = Vec::new();
        self.list_pages("resources/templates/list", "resourceTemplates", |t| {
            match ResourceTemplate::read(t) {
                Ok(t) => out.push(t),
                Err(e) => tracing::warn!("resources/templates/list: an entry left out: {e}"),
            }
        })
        .await?;
        Ok(out)
    }

    /// `resources/read` of `uri`.
    ///
    /// # Errors
    ///
    /// As [`Client::request`] (a URI the server does not hold is its rejection: `-32002`
    /// from a legacy server, `-32602` from 2026-07-28).
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<ResourceContents>, Error> {
        self.read_resource_with(uri, CallOptions::default()).await
    }

    /// As [`Client::read_resource`], with the request's options (its timeout, its cancel,
    /// the callbacks that answer its input).
    ///
    /// # Errors
    ///
    /// As [`Client::read_resource`].
    pub async fn read_resource_with(
        &self,
        uri: &str,
        opts: CallOptions,
    ) -> Result<Vec<ResourceContents>, Error> {
        let reply = self
            .complete_request("resources/read", &members_of(&[("uri", uri)]), opts)
            .await?;
        let r = reply.result();
        if !r.get("contents").is_some_and(|c| c.is_array()) {
            return Err(Error::Protocol(
                "a resources/read result without contents".into(),
            ));
        }
        Ok(Contents::read(r).items)
    }

    /// `prompts/list`, every page followed.
    ///
    /// # Errors
    ///
    /// As [`Client::request`].
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, Error> {
        let mut out = Vec::new();
        self.list_pages("prompts/list", "prompts", |p| match Prompt::read(p) {
            Ok(p) => out.push(p),
            Err(e) => tracing::warn!("prompts/list: an entry left out: {e}"),
        })
        .await?;
        Ok(out)
    }

    /// `prompts/get` of `name` with `arguments` (names and string values).
    ///
    /// # Errors
    ///
    /// As [`Client::request`].
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: &[(&str, &str)],
    ) -> Result<PromptMessages, Error> {
        self.get_prompt_with(name, arguments, CallOptions::default())
            .await
    }

    /// As [`Client::get_prompt`], with the request's options (its timeout, its cancel, the
    /// callbacks that answer its input).
    ///
    /// # Errors
    ///
    /// As [`Client::request`].
    pub async fn get_prompt_with(
        &self,
        name: &str,
        arguments: &[(&str, &str)],
        opts: CallOptions,
    ) -> Result<PromptMessages, Error> {
        let mut m = members_of(&[("name", name)]);
        if !arguments.is_empty() {
            m.push_str(r#","arguments":{"#);
            m.push_str(&members_of(arguments));
            m.push('}');
        }
        let reply = self.complete_request("prompts/get", &m, opts).await?;
        PromptMessages::read(reply.result()).map_err(Error::Protocol)
    }

    /// `completion/complete`: the values a server suggests for argument `argument` of
    /// `reference`, given what was typed (`value`) and the other arguments (`context`).
    ///
    /// # Errors
    ///
    /// As [`Client::request`].
    pub async fn complete(
        &self,
        reference: CompletionRef<'_>,
        argument: &str,
        value: &str,
        context: &[(&str, &str)],
    ) -> Result<Vec<String>, Error> {
        self.complete_with(reference, argument, value, context, CallOptions::default())
            .await
            .map(|c| c.values)
    }

    /// [`Client::complete`] with options, and all the server said: the values, and its
    /// `total` and `hasMore`.
    ///
    /// # Errors
    ///
    /// As [`Client::request`]; [`Error::Protocol`] for a result without `completion.values`.
    pub async fn complete_with(
        &self,
        reference: CompletionRef<'_>,
        argument: &str,
        value: &str,
        context: &[(&str, &str)],
        opts: CallOptions,
    ) -> Result<Completion, Error> {
        let r = match reference {
            CompletionRef::Prompt(n) => {
                format!(r#"{{"type":"ref/prompt",{}}}"#, members_of(&[("name", n)]))
            }
            CompletionRef::Template(u) => {
                format!(r#"{{"type":"ref/resource",{}}}"#, members_of(&[("uri", u)]))
            }
        };
        let mut m = format!(
            r#""ref":{r},"argument":{{{}}}"#,
            members_of(&[("name", argument), ("value", value)])
        );
        if !context.is_empty() {
            m.push_str(&format!(
                r#","context":{{"arguments":{{{}}}}}"#,
                members_of(context)
            ));
        }
        let reply = self
            .complete_request("completion/complete", &m, opts)
            .await?;
        Completion::read(reply.result()).map_err(Error::Protocol)
    }
}
