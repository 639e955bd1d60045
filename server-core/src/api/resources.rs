//! Resources: what a server offers to read (`resources/list`, `resources/templates/list`,
//! `resources/read`).
//!
//! A direct resource is a [`ResourceSpec`] and a [`ReadResource`] handler; a family of them
//! is a [`TemplateSpec`] (an RFC 6570 URI template) and a [`ReadTemplate`] handler, which
//! gets the template's variables from the URI read. A URI that no resource and no template
//! names, or whose handler leaves its [`Contents`] empty, is not found (`-32002` in the legacy
//! era, `-32602` from 2026-07-28, with `data.uri`).
//!
//! Templates match with the first two levels of RFC 6570: `{var}` stands for one or more
//! characters other than `/`, `?`, `#` and `,`; `{+var}` for any run of characters.

use crate::api::ctx::Ctx;
use crate::api::halt::Halt;
use base64::Engine as _;
use janus_model::content::ResourceBody;
use janus_model::json::RpcError;

/// A direct resource, as `resources/list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceSpec {
    pub(crate) uri: String,
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) mime_type: Option<String>,
    pub(crate) size: Option<u64>,
    pub(crate) icons: Vec<janus_model::content::Icon>,
    pub(crate) meta: Option<janus_model::json::Json>,
}

impl ResourceSpec {
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
    pub(crate) uri_template: String,
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) mime_type: Option<String>,
    pub(crate) parts: Vec<Part>,
    pub(crate) icons: Vec<janus_model::content::Icon>,
    pub(crate) meta: Option<janus_model::json::Json>,
}

/// A piece of a parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Part {
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
    pub(crate) items: Vec<(String, Option<String>, ResourceBody)>,
}

impl Contents {
    /// Adds text content at `uri`.
    pub fn text(&mut self, uri: &str, mime_type: Option<&str>, text: &str) -> &mut Self {
        self.items.push((
            uri.to_owned(),
            mime_type.map(str::to_owned),
            ResourceBody::Text(text.to_owned()),
        ));
        self
    }

    /// Adds binary content at `uri` (written base64-encoded as `blob`).
    pub fn blob(&mut self, uri: &str, mime_type: Option<&str>, bytes: &[u8]) -> &mut Self {
        let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
        self.items.push((
            uri.to_owned(),
            mime_type.map(str::to_owned),
            ResourceBody::Blob(b64),
        ));
        self
    }
}

/// A direct resource's handler.
pub trait ReadResource: Send + Sync + 'static {
    /// Reads the resource at `uri`.
    ///
    /// # Errors
    ///
    /// The JSON-RPC error the request gets instead.
    fn read(&self, ctx: &Ctx<'_>, uri: &str, out: &mut Contents) -> Result<(), Halt>;

    /// The content, when it never changes ([`StaticResource`]): served straight from it,
    /// with no call and no copy.
    #[doc(hidden)]
    fn fixed(&self) -> Option<&StaticResource> {
        None
    }

    /// True for a handler whose answer comes later ([`AsyncReadResource`]).
    #[doc(hidden)]
    fn is_later(&self) -> bool {
        false
    }

    /// Starts the read of a handler whose answer comes later.
    #[doc(hidden)]
    fn start(&self, _ctx: &Ctx<'_>, _uri: &str) -> Result<ContentsFuture, Halt> {
        Err(RpcError::internal().into())
    }
}

/// The future of an asynchronous resource read.
pub type ContentsFuture = crate::api::ctx::BoxFuture<Result<Contents, Halt>>;

/// A direct resource's handler whose answer comes later: it checks the request, copies what
/// it needs ([`Ctx::to_owned`] for progress, logs and cancellation), and returns the work,
/// which the driver runs as a job (an empty [`Contents`] is not found, as inline).
pub trait AsyncReadResource: Send + Sync + 'static {
    /// Starts reading the resource at `uri`.
    ///
    /// # Errors
    ///
    /// The JSON-RPC error the request gets at once (or an [`crate::InputRequired`]).
    fn read(&self, ctx: &Ctx<'_>, uri: &str) -> Result<ContentsFuture, Halt>;
}

impl<F> AsyncReadResource for F
where
    F: Fn(&Ctx<'_>, &str) -> Result<ContentsFuture, Halt> + Send + Sync + 'static,
{
    fn read(&self, ctx: &Ctx<'_>, uri: &str) -> Result<ContentsFuture, Halt> {
        self(ctx, uri)
    }
}

/// An [`AsyncReadResource`] where a [`ReadResource`] is kept.
pub(crate) struct Later<H>(pub(crate) H);

impl<H: AsyncReadResource> ReadResource for Later<H> {
    fn read(&self, _: &Ctx<'_>, _: &str, _: &mut Contents) -> Result<(), Halt> {
        // NB. Never called: the core starts it as a job.
        Err(RpcError::internal().into())
    }

    fn is_later(&self) -> bool {
        true
    }

    fn start(&self, ctx: &Ctx<'_>, uri: &str) -> Result<ContentsFuture, Halt> {
        self.0.read(ctx, uri)
    }
}

impl Contents {
    /// Writes `{"contents":[...]}`.
    pub(crate) fn write(&self, out: &mut bytes::BytesMut) {
        out.extend_from_slice(br#"{"contents":["#);
        for (i, (uri, mime, body)) in self.items.iter().enumerate() {
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
            w.end_object();
        }
        out.extend_from_slice(b"]}");
    }
}

/// A resource whose content never changes, kept encoded: a read of it writes its bytes
/// into the answer with no allocation ([`crate::engine::server::ServerBuilder::static_resource`]).
#[derive(Debug, Clone)]
pub struct StaticResource {
    /// `"text"` or `"blob"`.
    key: &'static str,
    /// The content as a JSON string literal (escaped text, or base64 in quotes).
    pub(crate) encoded: String,
    /// The content as given (text, or base64), for the general path.
    value: String,
    pub(crate) mime_type: Option<String>,
}

impl StaticResource {
    /// Text content.
    #[must_use]
    pub fn text(text: &str, mime_type: Option<&str>) -> Self {
        Self::new("text", text.to_owned(), mime_type)
    }

    /// Binary content (served base64-encoded as `blob`).
    #[must_use]
    pub fn blob(bytes: &[u8], mime_type: Option<&str>) -> Self {
        let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
        Self::new("blob", b64, mime_type)
    }

    fn new(key: &'static str, value: String, mime_type: Option<&str>) -> Self {
        let mut e = bytes::BytesMut::with_capacity(value.len() + 2);
        janus_codec::encode::write_str(&mut e, &value);
        Self {
            key,
            encoded: String::from_utf8_lossy(&e).into_owned(),
            value,
            mime_type: mime_type.map(str::to_owned),
        }
    }

    /// `"text"` or `"blob"`: the member the content is written under.
    pub(crate) const fn key(&self) -> &'static str {
        self.key
    }
}

impl ReadResource for StaticResource {
    fn read(&self, _: &Ctx<'_>, uri: &str, out: &mut Contents) -> Result<(), Halt> {
        let body = if self.key == "text" {
            ResourceBody::Text(self.value.clone())
        } else {
            ResourceBody::Blob(self.value.clone())
        };
        out.items
            .push((uri.to_owned(), self.mime_type.clone(), body));
        Ok(())
    }

    fn fixed(&self) -> Option<&StaticResource> {
        Some(self)
    }
}

impl<F> ReadResource for F
where
    F: Fn(&Ctx<'_>, &str, &mut Contents) -> Result<(), Halt> + Send + Sync + 'static,
{
    fn read(&self, ctx: &Ctx<'_>, uri: &str, out: &mut Contents) -> Result<(), Halt> {
        self(ctx, uri, out)
    }
}

/// A template's handler: gets the variables of the URI read.
pub trait ReadTemplate: Send + Sync + 'static {
    /// Reads the resource at `uri`, which the template named with `vars`.
    ///
    /// # Errors
    ///
    /// The JSON-RPC error the request gets instead. A URI the template names but that holds
    /// nothing is answered by leaving `out` empty: the server then answers not found, in the
    /// request's era.
    fn read(&self, ctx: &Ctx<'_>, uri: &str, vars: &Vars, out: &mut Contents) -> Result<(), Halt>;
}

impl<F> ReadTemplate for F
where
    F: Fn(&Ctx<'_>, &str, &Vars, &mut Contents) -> Result<(), Halt> + Send + Sync + 'static,
{
    fn read(&self, ctx: &Ctx<'_>, uri: &str, vars: &Vars, out: &mut Contents) -> Result<(), Halt> {
        self(ctx, uri, vars, out)
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
