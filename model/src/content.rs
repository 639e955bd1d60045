//! The content blocks of a tool result, as the specification has them: text, image, audio,
//! `resource_link` and embedded resources, each with optional annotations.
//!
//! [`crate::shape`] writes them in each revision's shape; [`Content::read`] reads any
//! revision's.

use crate::json::Json;
use base64::Engine as _;
use janus_codec::RawJson;

/// Who a block is meant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The person using the client.
    User,
    /// The model.
    Assistant,
}

impl Role {
    /// The wire value.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Assistant => "assistant",
        }
    }
}

/// Hints about a block: its audience, its priority, when it last changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Annotations {
    /// Who it is for (empty: not said).
    pub audience: Vec<Role>,
    /// How important it is, from 0 (least) to 1 (most).
    pub priority: Option<f64>,
    /// When it last changed, as an ISO 8601 timestamp (2025-06-18 and later).
    pub last_modified: Option<String>,
}

/// An icon of a tool, prompt, resource or template (2025-11-25 and later).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Icon {
    /// Its URI: `https:` or a `data:` URI.
    pub src: String,
    /// Its MIME type, when the URI does not say.
    pub mime_type: Option<String>,
    /// The sizes it is drawn at (`"48x48"`, `"any"`).
    pub sizes: Vec<String>,
    /// The theme it is drawn for (`light` or `dark`).
    pub theme: Option<String>,
}

impl Icon {
    /// The icon at `src`.
    #[must_use]
    pub fn new(src: &str) -> Self {
        Self {
            src: src.to_owned(),
            mime_type: None,
            sizes: Vec::new(),
            theme: None,
        }
    }

    /// Its MIME type.
    #[must_use]
    pub fn mime_type(mut self, mime: &str) -> Self {
        self.mime_type = Some(mime.to_owned());
        self
    }

    /// A size it is drawn at.
    #[must_use]
    pub fn size(mut self, size: &str) -> Self {
        self.sizes.push(size.to_owned());
        self
    }

    /// The theme it is drawn for.
    #[must_use]
    pub fn theme(mut self, theme: &str) -> Self {
        self.theme = Some(theme.to_owned());
        self
    }
}

/// What an embedded resource holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceBody {
    /// Text.
    Text(String),
    /// Binary data, base64-encoded.
    Blob(String),
}

/// One content block.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// Text.
    Text(String),
    /// An image: base64 data and its MIME type.
    Image {
        /// The image, base64-encoded.
        data: String,
        /// Its MIME type (`image/png`...).
        mime_type: String,
    },
    /// Audio: base64 data and its MIME type (2025-03-26 and later).
    Audio {
        /// The audio, base64-encoded.
        data: String,
        /// Its MIME type (`audio/wav`...).
        mime_type: String,
    },
    /// A link to a resource the client may read (2025-06-18 and later).
    ResourceLink {
        /// The resource's URI.
        uri: String,
        /// Its name.
        name: String,
        /// What it is.
        description: Option<String>,
        /// Its MIME type.
        mime_type: Option<String>,
    },
    /// A resource's contents, embedded.
    Resource {
        /// The resource's URI.
        uri: String,
        /// Its MIME type.
        mime_type: Option<String>,
        /// Its text or blob.
        body: ResourceBody,
    },
    /// A block of a type this model does not know (or a known type without what it needs),
    /// kept as sent: forwarded whole, never dropped. Also any block passed on unread
    /// ([`Content::as_sent`]).
    Other(Json),
}

/// A content block with its annotations.
#[derive(Debug, Clone, PartialEq)]
pub struct Content {
    /// The block.
    pub block: Block,
    /// Its annotations.
    pub annotations: Option<Annotations>,
}

impl Content {
    const fn of(block: Block) -> Self {
        Self {
            block,
            annotations: None,
        }
    }

    /// A text block.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self::of(Block::Text(text.into()))
    }

    /// An image block from the image's bytes (encoded to base64 here).
    #[must_use]
    pub fn image(bytes: &[u8], mime_type: &str) -> Self {
        Self::of(Block::Image {
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
            mime_type: mime_type.to_owned(),
        })
    }

    /// An audio block from the audio's bytes (encoded to base64 here).
    #[must_use]
    pub fn audio(bytes: &[u8], mime_type: &str) -> Self {
        Self::of(Block::Audio {
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
            mime_type: mime_type.to_owned(),
        })
    }

    /// A `resource_link` block.
    #[must_use]
    pub fn resource_link(uri: &str, name: &str) -> Self {
        Self::of(Block::ResourceLink {
            uri: uri.to_owned(),
            name: name.to_owned(),
            description: None,
            mime_type: None,
        })
    }

    /// An embedded resource with text contents.
    #[must_use]
    pub fn resource_text(uri: &str, mime_type: Option<&str>, text: impl Into<String>) -> Self {
        Self::of(Block::Resource {
            uri: uri.to_owned(),
            mime_type: mime_type.map(str::to_owned),
            body: ResourceBody::Text(text.into()),
        })
    }

    /// An embedded resource with binary contents (encoded to base64 here).
    #[must_use]
    pub fn resource_blob(uri: &str, mime_type: Option<&str>, bytes: &[u8]) -> Self {
        Self::of(Block::Resource {
            uri: uri.to_owned(),
            mime_type: mime_type.map(str::to_owned),
            body: ResourceBody::Blob(base64::engine::general_purpose::STANDARD.encode(bytes)),
        })
    }

    /// The block with `annotations`.
    #[must_use]
    pub fn annotated(mut self, annotations: Annotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// The text of a text block.
    #[must_use]
    pub fn as_text(&self) -> Option<&str> {
        match &self.block {
            Block::Text(t) => Some(t),
            _ => None,
        }
    }

    /// A block passed on exactly as it came, unread ([`Block::Other`]): for a gateway whose
    /// client's revision has every block type its server's has, so that nothing needs
    /// writing again, and members this model does not keep (a `resource_link`'s `title`,
    /// `size` or `icons`, a block's `_meta`) are not lost on the way.
    #[must_use]
    pub fn as_sent(block: RawJson<'_>) -> Self {
        Self::of(Block::Other(Json::from_raw(block)))
    }

    /// Reads a content block of any revision: each known type with its members and its
    /// annotations; a block of another type, or a known type without what it needs, as
    /// [`Block::Other`].
    #[must_use]
    pub fn read(block: RawJson<'_>) -> Self {
        let [
            kind,
            text,
            data,
            mime,
            uri,
            name,
            description,
            resource,
            annotations,
        ] = block.get_many([
            "type",
            "text",
            "data",
            "mimeType",
            "uri",
            "name",
            "description",
            "resource",
            "annotations",
        ]);
        let s = crate::json::owned_string;
        let read = match kind.and_then(RawJson::as_string).as_deref() {
            Some("text") => s(text).map(Block::Text),
            Some("image") => s(data)
                .zip(s(mime))
                .map(|(data, mime_type)| Block::Image { data, mime_type }),
            Some("audio") => s(data)
                .zip(s(mime))
                .map(|(data, mime_type)| Block::Audio { data, mime_type }),
            Some("resource_link") => s(uri).zip(s(name)).map(|(uri, name)| Block::ResourceLink {
                uri,
                name,
                description: s(description),
                mime_type: s(mime),
            }),
            Some("resource") => resource.filter(|r| r.is_object()).and_then(|r| {
                let [uri, mime, text, blob] = r.get_many(["uri", "mimeType", "text", "blob"]);
                let body = s(text)
                    .map(ResourceBody::Text)
                    .or_else(|| s(blob).map(ResourceBody::Blob))?;
                Some(Block::Resource {
                    uri: s(uri)?,
                    mime_type: s(mime),
                    body,
                })
            }),
            _ => None,
        };
        match read {
            Some(block) => Self {
                block,
                annotations: annotations.and_then(read_annotations),
            },
            None => Self::of(Block::Other(Json::from_raw(block))),
        }
    }
}

/// Reads a block's `annotations`: `None` when it is not an object or says nothing this model
/// knows.
fn read_annotations(a: RawJson<'_>) -> Option<Annotations> {
    if !a.is_object() {
        return None;
    }
    let [audience, priority, last_modified] = a.get_many(["audience", "priority", "lastModified"]);
    let audience: Vec<Role> = audience
        .filter(|v| v.is_array())
        .map(|v| {
            v.iter_elements()
                .filter_map(|r| match r.as_string().as_deref() {
                    Some("user") => Some(Role::User),
                    Some("assistant") => Some(Role::Assistant),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    let priority = priority.and_then(|p| p.as_str().parse::<f64>().ok());
    let last_modified = last_modified
        .and_then(RawJson::as_string)
        .map(|c| c.into_owned());
    let said = !audience.is_empty() || priority.is_some() || last_modified.is_some();
    said.then_some(Annotations {
        audience,
        priority,
        last_modified,
    })
}
