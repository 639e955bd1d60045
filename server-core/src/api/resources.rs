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
pub use janus_model::resource::{
    Contents, ResourceContents, ResourceSpec, TemplateError, TemplateSpec, Vars,
};

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
        out.items.push(ResourceContents {
            uri: uri.to_owned(),
            mime_type: self.mime_type.clone(),
            body,
            meta: None,
        });
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

    /// True for a handler whose answer comes later ([`AsyncReadTemplate`]).
    #[doc(hidden)]
    fn is_later(&self) -> bool {
        false
    }

    /// Starts the read of a handler whose answer comes later.
    #[doc(hidden)]
    fn start(&self, _ctx: &Ctx<'_>, _uri: &str, _vars: &Vars) -> Result<ContentsFuture, Halt> {
        Err(RpcError::internal().into())
    }
}

/// A template's handler whose answer comes later: it checks the request, copies what it
/// needs, and returns the work, which the driver runs as a job (an empty [`Contents`] is
/// not found, as inline).
pub trait AsyncReadTemplate: Send + Sync + 'static {
    /// Starts reading the resource at `uri`, which the template named with `vars`.
    ///
    /// # Errors
    ///
    /// The JSON-RPC error the request gets at once (or an [`crate::InputRequired`]).
    fn read(&self, ctx: &Ctx<'_>, uri: &str, vars: &Vars) -> Result<ContentsFuture, Halt>;
}

impl<F> AsyncReadTemplate for F
where
    F: Fn(&Ctx<'_>, &str, &Vars) -> Result<ContentsFuture, Halt> + Send + Sync + 'static,
{
    fn read(&self, ctx: &Ctx<'_>, uri: &str, vars: &Vars) -> Result<ContentsFuture, Halt> {
        self(ctx, uri, vars)
    }
}

/// An [`AsyncReadTemplate`] where a [`ReadTemplate`] is kept.
pub(crate) struct LaterTemplate<H>(pub(crate) H);

impl<H: AsyncReadTemplate> ReadTemplate for LaterTemplate<H> {
    fn read(&self, _: &Ctx<'_>, _: &str, _: &Vars, _: &mut Contents) -> Result<(), Halt> {
        // NB. Never called: the core starts it as a job.
        Err(RpcError::internal().into())
    }

    fn is_later(&self) -> bool {
        true
    }

    fn start(&self, ctx: &Ctx<'_>, uri: &str, vars: &Vars) -> Result<ContentsFuture, Halt> {
        self.0.read(ctx, uri, vars)
    }
}

impl<F> ReadTemplate for F
where
    F: Fn(&Ctx<'_>, &str, &Vars, &mut Contents) -> Result<(), Halt> + Send + Sync + 'static,
{
    fn read(&self, ctx: &Ctx<'_>, uri: &str, vars: &Vars, out: &mut Contents) -> Result<(), Halt> {
        self(ctx, uri, vars, out)
    }
}
