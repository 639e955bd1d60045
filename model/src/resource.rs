//! Resources: a direct resource's description ([`ResourceSpec`]), a family of them named by an
//! RFC 6570 URI template ([`TemplateSpec`], with the matching Janus serves: `{var}` and
//! `{+var}`), and what `resources/read` answers ([`Contents`]), built by a server, read by a
//! client.

use crate::content::{Icon, ResourceBody};
use crate::json::{Json, owned_string as string};
use base64::Engine as _;
use janus_codec::RawJson;

/// A direct resource, as `resources/list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceSpec {
    /// Its URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// A human title (2025-06-18 and later).
    pub title: Option<String>,
    /// What it holds.
    pub description: Option<String>,
    /// Its MIME type.
    pub mime_type: Option<String>,
    /// Its size in bytes, when known.
    pub size: Option<u64>,
    /// Its icons (2025-11-25 and later).
    pub icons: Vec<Icon>,
    /// Its `_meta` object (2025-06-18 and later).
    pub meta: Option<Json>,
}

impl ResourceSpec {
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

    /// The resource at `uri`, called `name`.
    #[must_use]
    pub fn new(uri: &str, name: &str) -> Self {
        Self {
            uri: uri.to_owned(),
            name: name.to_owned(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
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

    /// What it holds.
    #[must_use]
    pub fn description(mut self, text: &str) -> Self {
        self.description = Some(text.to_owned());
        self
    }

    /// Its MIME type.
    #[must_use]
    pub fn mime_type(mut self, mime: &str) -> Self {
        self.mime_type = Some(mime.to_owned());
        self
    }

    /// Its size in bytes, when known.
    #[must_use]
    pub const fn size(mut self, bytes: u64) -> Self {
        self.size = Some(bytes);
        self
    }

    /// Its URI.
    #[must_use]
    pub fn uri(&self) -> &str {
        &self.uri
    }
}

/// A family of resources named by an RFC 6570 URI template, as
/// `resources/templates/list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateSpec {
    /// The URI template.
    pub uri_template: String,
    /// Its name.
    pub name: String,
    /// A human title (2025-06-18 and later).
    pub title: Option<String>,
    /// What the resources hold.
    pub description: Option<String>,
    /// Their MIME type.
    pub mime_type: Option<String>,
    /// The template parsed (empty for one read from a server that Janus cannot match).
    parts: Vec<Part>,
    /// Its icons (2025-11-25 and later).
    pub icons: Vec<Icon>,
    /// Its `_meta` object (2025-06-18 and later).
    pub meta: Option<Json>,
}

/// A piece of a parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    /// A variable; `reserved` for `{+var}`.
    Var {
        name: String,
        reserved: bool,
    },
}

/// A URI template that cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError(String);

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TemplateError {}

fn parse_template(t: &str) -> Result<Vec<Part>, TemplateError> {
    let bad = |why: &str| TemplateError(format!("the URI template {t:?}: {why}"));
    let mut parts = Vec::new();
    let mut rest = t;
    while !rest.is_empty() {
        match rest.find('{') {
            Some(0) => {
                let end = rest.find('}').ok_or_else(|| bad("an unclosed {"))?;
                let inner = &rest[1..end];
                let (reserved, name) = match inner.strip_prefix('+') {
                    Some(n) => (true, n),
                    None => (false, inner),
                };
                let ok = !name.is_empty()
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
                if !ok {
                    return Err(bad("only {name} and {+name} variables are served"));
                }
                if matches!(parts.last(), Some(Part::Var { .. })) {
                    return Err(bad("two variables with nothing between them"));
                }
                parts.push(Part::Var {
                    name: name.to_owned(),
                    reserved,
                });
                rest = &rest[end + 1..];
            }
            found => {
                let end = found.unwrap_or(rest.len());
                if rest[..end].contains('}') {
                    return Err(bad("a } without its {"));
                }
                parts.push(Part::Literal(rest[..end].to_owned()));
                rest = &rest[end..];
            }
        }
    }
    Ok(parts)
}

impl TemplateSpec {
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

    /// The resources `uri_template` names, called `name`.
    ///
    /// # Errors
    ///
    /// A template with other operators than `{var}` and `{+var}`, an unclosed brace, or two
    /// variables in a row.
    pub fn new(uri_template: &str, name: &str) -> Result<Self, TemplateError> {
        Ok(Self {
            parts: parse_template(uri_template)?,
            uri_template: uri_template.to_owned(),
            name: name.to_owned(),
            title: None,
            description: None,
            mime_type: None,
            icons: Vec::new(),
            meta: None,
        })
    }

    /// A human title (shown from 2025-06-18).
    #[must_use]
    pub fn title(mut self, title: &str) -> Self {
        self.title = Some(title.to_owned());
        self
    }

    /// What the resources hold.
    #[must_use]
    pub fn description(mut self, text: &str) -> Self {
        self.description = Some(text.to_owned());
        self
    }

    /// Their MIME type.
    #[must_use]
    pub fn mime_type(mut self, mime: &str) -> Self {
        self.mime_type = Some(mime.to_owned());
        self
    }

    /// The template.
    #[must_use]
    pub fn uri_template(&self) -> &str {
        &self.uri_template
    }

    /// The template's variables, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var { name, .. } => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// The variables of `uri` when the template names it.
    #[must_use]
    pub fn matches(&self, uri: &str) -> Option<Vars> {
        let mut vars = Vec::new();
        let mut rest = uri;
        let mut parts = self.parts.iter().peekable();
        while let Some(part) = parts.next() {
            match part {
                Part::Literal(l) => rest = rest.strip_prefix(l.as_str())?,
                Part::Var { name, reserved } => {
                    let allowed = |c: char| *reserved || !matches!(c, '/' | '?' | '#' | ',');
                    // The variable runs to the next literal's first match (or to the end).
                    let end = match parts.peek() {
                        Some(Part::Literal(next)) => {
                            let stop = rest.find(next.as_str())?;
                            (rest[..stop].chars().all(allowed)).then_some(stop)?
                        }
                        _ => rest.find(|c: char| !allowed(c)).unwrap_or(rest.len()),
                    };
                    if end == 0 {
                        return None;
                    }
                    vars.push((name.clone(), rest[..end].to_owned()));
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty().then_some(Vars(vars))
    }
}

/// The variables a URI gave a template, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Vars(Vec<(String, String)>);

impl Vars {
    /// The value of variable `name`.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What a `resources/read` answers: one or more contents, each text or binary.
#[derive(Debug, Clone, Default)]
pub struct Contents {
    /// The contents, in order.
    pub items: Vec<ResourceContents>,
}

/// One content of a `resources/read` answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceContents {
    /// Its URI.
    pub uri: String,
    /// Its MIME type.
    pub mime_type: Option<String>,
    /// Its text or its bytes (base64).
    pub body: ResourceBody,
    /// Its `_meta` (an object), as given: what a host reads beside the content (an MCP
    /// App's `ui` settings, say).
    pub meta: Option<Json>,
}

impl Contents {
    /// Adds text content at `uri`.
    pub fn text(&mut self, uri: &str, mime_type: Option<&str>, text: &str) -> &mut Self {
        self.items.push(ResourceContents {
            uri: uri.to_owned(),
            mime_type: mime_type.map(str::to_owned),
            body: ResourceBody::Text(text.to_owned()),
            meta: None,
        });
        self
    }

    /// Adds binary content at `uri` (written base64-encoded as `blob`).
    pub fn blob(&mut self, uri: &str, mime_type: Option<&str>, bytes: &[u8]) -> &mut Self {
        let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
        self.items.push(ResourceContents {
            uri: uri.to_owned(),
            mime_type: mime_type.map(str::to_owned),
            body: ResourceBody::Blob(b64),
            meta: None,
        });
        self
    }
}

impl Contents {
    /// Writes `{"contents":[...]}`.
    pub fn write(&self, out: &mut bytes::BytesMut) {
        out.extend_from_slice(br#"{"contents":["#);
        for (i, c) in self.items.iter().enumerate() {
            let (uri, mime, body, meta) = (&c.uri, &c.mime_type, &c.body, &c.meta);
            if i > 0 {
                out.extend_from_slice(b",");
            }
            let mut w = janus_codec::encode::JsonWriter::new(out);
            w.begin_object().key("uri").str(uri);
            if let Some(m) = mime {
                w.key("mimeType").str(m);
            }
            match body {
                ResourceBody::Text(t) => w.key("text").str(t),
                ResourceBody::Blob(b) => w.key("blob").str(b),
            };
            if let Some(m) = meta.as_ref().filter(|m| m.is_object()) {
                w.key("_meta").raw(m.as_str());
            }
            w.end_object();
        }
        out.extend_from_slice(b"]}");
    }
}

impl ResourceSpec {
    /// Reads one entry of a `resources/list` result, of any revision.
    ///
    /// # Errors
    ///
    /// Why the entry is no resource: not an object, no string `uri` or `name`.
    pub fn read(r: RawJson<'_>) -> Result<Self, String> {
        let [uri, name, title, description, mime, size, icons, meta] = r.get_many([
            "uri",
            "name",
            "title",
            "description",
            "mimeType",
            "size",
            "icons",
            "_meta",
        ]);
        let uri = string(uri).ok_or("a resource without a string uri")?;
        let name = string(name).ok_or_else(|| format!("resource {uri}: no string name"))?;
        Ok(Self {
            uri,
            name,
            title: string(title),
            description: string(description),
            mime_type: string(mime),
            size: size.and_then(|s| s.as_str().parse().ok()),
            icons: icons.map(crate::tool::read_icons).unwrap_or_default(),
            meta: meta.filter(|m| m.is_object()).map(Json::from_raw),
        })
    }
}

impl TemplateSpec {
    /// Reads one entry of a `resources/templates/list` result, of any revision. A template
    /// of operators Janus does not match (`{?q}`, say) is read all the same: it matches no
    /// URI ([`TemplateSpec::matches`]).
    ///
    /// # Errors
    ///
    /// Why the entry is no template: not an object, no string `uriTemplate` or `name`.
    pub fn read(t: RawJson<'_>) -> Result<Self, String> {
        let [template, name, title, description, mime, icons, meta] = t.get_many([
            "uriTemplate",
            "name",
            "title",
            "description",
            "mimeType",
            "icons",
            "_meta",
        ]);
        let uri_template = string(template).ok_or("a template without a string uriTemplate")?;
        let name =
            string(name).ok_or_else(|| format!("template {uri_template}: no string name"))?;
        Ok(Self {
            parts: parse_template(&uri_template).unwrap_or_default(),
            uri_template,
            name,
            title: string(title),
            description: string(description),
            mime_type: string(mime),
            icons: icons.map(crate::tool::read_icons).unwrap_or_default(),
            meta: meta.filter(|m| m.is_object()).map(Json::from_raw),
        })
    }
}

impl ResourceContents {
    /// The text of a text content.
    #[must_use]
    pub fn text(&self) -> Option<&str> {
        match &self.body {
            ResourceBody::Text(t) => Some(t),
            ResourceBody::Blob(_) => None,
        }
    }

    /// The base64 bytes of a binary content.
    #[must_use]
    pub fn blob(&self) -> Option<&str> {
        match &self.body {
            ResourceBody::Blob(b) => Some(b),
            ResourceBody::Text(_) => None,
        }
    }
}

impl Contents {
    /// Reads a `resources/read` result: each content with a string `uri` and a `text` or
    /// a `blob` (and its `_meta`, as sent); the others are skipped.
    #[must_use]
    pub fn read(result: RawJson<'_>) -> Self {
        let items = result
            .get("contents")
            .map(|c| {
                c.iter_elements()
                    .filter_map(|c| {
                        let [uri, mime, text, blob, meta] =
                            c.get_many(["uri", "mimeType", "text", "blob", "_meta"]);
                        let body = string(text)
                            .map(ResourceBody::Text)
                            .or_else(|| string(blob).map(ResourceBody::Blob))?;
                        Some(ResourceContents {
                            uri: string(uri)?,
                            mime_type: string(mime),
                            body,
                            meta: meta.filter(|m| m.is_object()).map(Json::from_raw),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        Self { items }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_their_uris_and_give_the_variables() {
        let t = TemplateSpec::new("test://template/{id}/data", "t").unwrap();
        assert_eq!(t.variables().collect::<Vec<_>>(), ["id"]);
        let v = t.matches("test://template/123/data").unwrap();
        assert_eq!(v.get("id"), Some("123"));
        assert!(t.matches("test://template//data").is_none());
        assert!(t.matches("test://template/1/2/data").is_none());
        assert!(t.matches("test://template/123/data/more").is_none());
        assert!(t.matches("test://other/123/data").is_none());
        let r = TemplateSpec::new("file:///{+path}", "f").unwrap();
        assert_eq!(
            r.matches("file:///a/b/c.txt").unwrap().get("path"),
            Some("a/b/c.txt")
        );
        let tail = TemplateSpec::new("users://{user}", "u").unwrap();
        assert_eq!(
            tail.matches("users://ann").unwrap().get("user"),
            Some("ann")
        );
        assert!(tail.matches("users://ann/x").is_none());
        for bad in ["a{", "a}b", "{?q}", "{a}{b}", "{}"] {
            assert!(TemplateSpec::new(bad, "x").is_err(), "{bad}");
        }
    }
}
