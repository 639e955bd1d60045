//! Resources, prompts and completions, read into the same shapes whatever the revision.

use crate::client::Client;
use crate::error::Error;
use crate::json::{compact, opt_string};
use crate::result::Content;
use bytes::BytesMut;
use janus_codec::{RawJson, encode};

/// A resource a server lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// Its URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// Its title.
    pub title: Option<String>,
    /// Its description.
    pub description: Option<String>,
    /// Its MIME type.
    pub mime_type: Option<String>,
}

/// A resource template a server lists (RFC 6570).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceTemplate {
    /// The URI template.
    pub uri_template: String,
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// The MIME type of what it names.
    pub mime_type: Option<String>,
}

/// What `resources/read` gave for one URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceContents {
    /// The URI.
    pub uri: String,
    /// Its MIME type.
    pub mime_type: Option<String>,
    /// Its text, for a text resource.
    pub text: Option<String>,
    /// Its bytes in base64, for a binary one.
    pub blob: Option<String>,
}

/// A prompt a server lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// Its name.
    pub name: String,
    /// Its title.
    pub title: Option<String>,
    /// Its description.
    pub description: Option<String>,
    /// Its arguments: name, description, required.
    pub arguments: Vec<PromptArgument>,
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// Whether `prompts/get` needs it.
    pub required: bool,
}

/// What `prompts/get` gave.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptMessages {
    /// The description.
    pub description: Option<String>,
    /// The messages: role, and content.
    pub messages: Vec<(String, Content)>,
}

/// What a completion refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionRef<'a> {
    /// A prompt, by name.
    Prompt(&'a str),
    /// A resource template, by its URI template.
    Template(&'a str),
}

fn string(v: Option<RawJson<'_>>, what: &str) -> Result<String, Error> {
    opt_string(v).ok_or_else(|| Error::Protocol(format!("{what} is missing or not a string")))
}

fn members_of(pairs: &[(&str, &str)]) -> String {
    let mut m = BytesMut::new();
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            m.extend_from_slice(b",");
        }
        encode::write_str(&mut m, k);
        m.extend_from_slice(b":");
        encode::write_str(&mut m, v);
    }
    String::from_utf8_lossy(&m).into_owned()
}

impl Client {
    /// `resources/list`, every page followed.
    ///
    /// # Errors
    ///
    /// As [`Client::request`]; an entry without its URI or name is left out, with a warning.
    pub async fn list_resources(&self) -> Result<Vec<Resource>, Error> {
        let mut out = Vec::new();
        self.list_pages("resources/list", "resources", |r| {
            let [uri, name, title, description, mime] =
                r.get_many(["uri", "name", "title", "description", "mimeType"]);
            match (opt_string(uri), opt_string(name)) {
                (Some(uri), Some(name)) => out.push(Resource {
                    uri,
                    name,
                    title: opt_string(title),
                    description: opt_string(description),
                    mime_type: opt_string(mime),
                }),
                _ => tracing::warn!("resources/list: an entry without uri or name left out"),
            }
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
        self.list_pages("resources/templates/list", "resourceTemplates", |r| {
            let [t, name, description, mime] =
                r.get_many(["uriTemplate", "name", "description", "mimeType"]);
            if let (Some(uri_template), Some(name)) = (opt_string(t), opt_string(name)) {
                out.push(ResourceTemplate {
                    uri_template,
                    name,
                    description: opt_string(description),
                    mime_type: opt_string(mime),
                });
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
        let reply = self
            .complete_request("resources/read", &members_of(&[("uri", uri)]))
            .await?;
        let r = reply.result();
        let contents = r
            .get("contents")
            .filter(|c| c.is_array())
            .ok_or_else(|| Error::Protocol("a resources/read result without contents".into()))?;
        contents
            .elements()
            .into_iter()
            .map(|c| {
                let [uri, mime, text, blob] = c.get_many(["uri", "mimeType", "text", "blob"]);
                Ok(ResourceContents {
                    uri: string(uri, "a content's uri")?,
                    mime_type: opt_string(mime),
                    text: opt_string(text),
                    blob: opt_string(blob),
                })
            })
            .collect()
    }

    /// `prompts/list`, every page followed.
    ///
    /// # Errors
    ///
    /// As [`Client::request`].
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, Error> {
        let mut out = Vec::new();
        self.list_pages("prompts/list", "prompts", |p| {
            let [name, title, description, args] =
                p.get_many(["name", "title", "description", "arguments"]);
            let Some(name) = opt_string(name) else {
                tracing::warn!("prompts/list: an entry without a name left out");
                return;
            };
            let arguments = args
                .map(RawJson::elements)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|a| {
                    let [n, d, r] = a.get_many(["name", "description", "required"]);
                    Some(PromptArgument {
                        name: opt_string(n)?,
                        description: opt_string(d),
                        required: r.is_some_and(|r| r.as_str() == "true"),
                    })
                })
                .collect();
            out.push(Prompt {
                name,
                title: opt_string(title),
                description: opt_string(description),
                arguments,
            });
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
        let mut m = members_of(&[("name", name)]);
        if !arguments.is_empty() {
            m.push_str(r#","arguments":{"#);
            m.push_str(&members_of(arguments));
            m.push('}');
        }
        let reply = self.complete_request("prompts/get", &m).await?;
        let r = reply.result();
        let [description, messages] = r.get_many(["description", "messages"]);
        let messages = messages
            .filter(|m| m.is_array())
            .ok_or_else(|| Error::Protocol("a prompts/get result without messages".into()))?
            .elements()
            .into_iter()
            .map(|msg| {
                let [role, content] = msg.get_many(["role", "content"]);
                let content = content
                    .ok_or_else(|| Error::Protocol("a prompt message without content".into()))?;
                Ok((
                    string(role, "a prompt message's role")?,
                    Content::read(content),
                ))
            })
            .collect::<Result<_, Error>>()?;
        Ok(PromptMessages {
            description: opt_string(description),
            messages,
        })
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
        let reply = self.complete_request("completion/complete", &m).await?;
        let values = reply
            .result()
            .get("completion")
            .and_then(|c| c.get("values"))
            .filter(|v| v.is_array())
            .ok_or_else(|| Error::Protocol("a completion result without values".into()))?;
        Ok(values
            .elements()
            .into_iter()
            .filter_map(|v| v.as_string().map(std::borrow::Cow::into_owned))
            .collect())
    }
}

impl ResourceContents {
    /// The contents as compact JSON (for printing).
    #[must_use]
    pub fn to_json(&self) -> String {
        let mut m = BytesMut::new();
        m.extend_from_slice(br#"{"uri":"#);
        encode::write_str(&mut m, &self.uri);
        for (k, v) in [
            ("mimeType", &self.mime_type),
            ("text", &self.text),
            ("blob", &self.blob),
        ] {
            if let Some(v) = v {
                m.extend_from_slice(b",");
                encode::write_str(&mut m, k);
                m.extend_from_slice(b":");
                encode::write_str(&mut m, v);
            }
        }
        m.extend_from_slice(b"}");
        compact(&String::from_utf8_lossy(&m))
    }
}
