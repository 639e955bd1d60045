//! Prompts: a prompt's description ([`PromptSpec`], what `prompts/list` shows) and what
//! `prompts/get` answers ([`PromptMessages`]), built by a server, read by a client.

use crate::content::{Content, Icon, Role};
use crate::json::{Json, owned_string as string};
use janus_codec::RawJson;

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
    /// Its name.
    pub name: String,
    /// A human title (2025-06-18 and later).
    pub title: Option<String>,
    /// What it is for.
    pub description: Option<String>,
    /// Its arguments.
    pub arguments: Vec<PromptArgument>,
    /// Its icons (2025-11-25 and later).
    pub icons: Vec<Icon>,
    /// Its `_meta` object (2025-06-18 and later).
    pub meta: Option<Json>,
}

impl PromptSpec {
    /// Adds an icon (shown from 2025-11-25).
    #[must_use]
    pub fn icon(mut self, icon: Icon) -> Self {
        self.icons.push(icon);
        self
    }

    /// Sets the `_meta` object (shown from 2025-06-18); one that is not a JSON object makes
    /// `ServerBuilder::build` fail.
    #[must_use]
    pub fn meta(mut self, meta: Json) -> Self {
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

/// The result a prompt handler fills: an optional description and the messages.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptMessages {
    /// The result's description.
    pub description: Option<String>,
    /// The messages: who says it, and what.
    pub messages: Vec<(Role, Content)>,
    /// The result's own `_meta` object (without a server's stamp): written by a server
    /// beside its stamp ([`crate::shape::write_prompt_messages`] leaves it to the server).
    pub meta: Option<Json>,
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

impl PromptSpec {
    /// Reads one entry of a `prompts/list` result, of any revision.
    ///
    /// # Errors
    ///
    /// Why the entry is no prompt: not an object, or no string `name`.
    pub fn read(prompt: RawJson<'_>) -> Result<Self, String> {
        if !prompt.is_object() {
            return Err("a prompt that is not an object".into());
        }
        let [name, title, description, arguments, icons, meta] = prompt.get_many([
            "name",
            "title",
            "description",
            "arguments",
            "icons",
            "_meta",
        ]);
        let name = string(name).ok_or("a prompt without a string name")?;
        let arguments = arguments
            .map(|a| {
                a.iter_elements()
                    .filter_map(|a| {
                        let [name, description, required] =
                            a.get_many(["name", "description", "required"]);
                        Some(PromptArgument {
                            name: string(name)?,
                            description: string(description),
                            required: required.is_some_and(|r| r.as_str() == "true"),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(Self {
            name,
            title: string(title),
            description: string(description),
            arguments,
            icons: icons.map(crate::tool::read_icons).unwrap_or_default(),
            meta: meta.filter(|m| m.is_object()).map(Json::from_raw),
        })
    }
}

impl PromptMessages {
    /// Reads a `prompts/get` result, of any revision.
    ///
    /// # Errors
    ///
    /// Why it is no such result: no `messages` array, a message without its role or content.
    pub fn read(result: RawJson<'_>) -> Result<Self, String> {
        let [description, messages, meta] = result.get_many(["description", "messages", "_meta"]);
        let messages = messages
            .filter(|m| m.is_array())
            .ok_or("a prompts/get result without messages")?
            .iter_elements()
            .map(|m| {
                let [role, content] = m.get_many(["role", "content"]);
                let role = match string(role).as_deref() {
                    Some("user") => Role::User,
                    Some("assistant") => Role::Assistant,
                    _ => return Err("a prompt message without a known role".to_owned()),
                };
                let content = content.ok_or("a prompt message without content")?;
                Ok((role, Content::read(content)))
            })
            .collect::<Result<_, String>>()?;
        Ok(Self {
            description: string(description),
            messages,
            meta: meta.and_then(crate::result::meta_without_stamp),
        })
    }
}
