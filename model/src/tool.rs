//! What a tool is, as `tools/list` describes it: its [`ToolSpec`] (name, schemas, annotations,
//! task support, icons) and the checks a spec passes before it is served.

use crate::content::Icon;
use crate::json::Json;
use janus_codec::RawJson;

/// Whether a tool can run as a task (legacy 2025-11-25 `execution.taskSupport`, and the
/// modern tasks extension).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaskSupport {
    /// Never as a task (the default).
    #[default]
    Forbidden,
    /// As a task when the client asks.
    Optional,
    /// Only as a task.
    Required,
}

impl TaskSupport {
    /// The wire value.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Forbidden => "forbidden",
            Self::Optional => "optional",
            Self::Required => "required",
        }
    }
}

/// What `tools/list` says of a tool. Schemas and annotations are checked JSON ([`Json`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The name clients call it by.
    pub name: String,
    /// A human title (2025-06-18 and later).
    pub title: Option<String>,
    /// What it does.
    pub description: Option<String>,
    /// Its input JSON Schema: an object schema (`"type":"object"`).
    pub input_schema: Json,
    /// Its output JSON Schema (2025-06-18 and later): an object schema.
    pub output_schema: Option<Json>,
    /// Its annotations object (2025-03-26 and later): `readOnlyHint`, `destructiveHint`...
    pub annotations: Option<Json>,
    /// Whether it can run as a task.
    pub task_support: TaskSupport,
    /// Its icons (2025-11-25 and later).
    pub icons: Vec<Icon>,
    /// Its `_meta` object (2025-06-18 and later).
    pub meta: Option<Json>,
}

/// Why a tool's spec cannot be registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    /// The tool's name.
    pub tool: String,
    /// What is wrong.
    pub reason: String,
}

impl std::fmt::Display for SpecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "tool {:?}: {}", self.tool, self.reason)
    }
}

impl std::error::Error for SpecError {}

impl ToolSpec {
    /// A spec with a name, a description and an input schema (JSON text); the rest empty.
    ///
    /// # Errors
    ///
    /// [`SpecError`] when the schema is not JSON, or not an object schema.
    pub fn new(name: &str, description: &str, input_schema: &str) -> Result<Self, SpecError> {
        let spec = Self {
            name: name.to_owned(),
            title: None,
            description: Some(description.to_owned()),
            input_schema: Json::parse(input_schema).map_err(|e| SpecError {
                tool: name.to_owned(),
                reason: format!("inputSchema is {e}"),
            })?,
            output_schema: None,
            annotations: None,
            task_support: TaskSupport::Forbidden,
            icons: Vec::new(),
            meta: None,
        };
        spec.check()?;
        Ok(spec)
    }

    /// Sets the title.
    #[must_use]
    pub fn title(mut self, title: &str) -> Self {
        self.title = Some(title.to_owned());
        self
    }

    /// Sets the output schema (JSON text).
    ///
    /// # Errors
    ///
    /// [`SpecError`] when it is not JSON, or not an object schema.
    pub fn output_schema(mut self, schema: &str) -> Result<Self, SpecError> {
        self.output_schema = Some(self.json("outputSchema", schema)?);
        self.check()?;
        Ok(self)
    }

    /// Sets the annotations object (JSON text).
    ///
    /// # Errors
    ///
    /// [`SpecError`] when it is not a JSON object.
    pub fn annotations(mut self, annotations: &str) -> Result<Self, SpecError> {
        self.annotations = Some(self.json("annotations", annotations)?);
        self.check()?;
        Ok(self)
    }

    /// Adds an icon.
    #[must_use]
    pub fn icon(mut self, icon: Icon) -> Self {
        self.icons.push(icon);
        self
    }

    /// Sets the `_meta` object (JSON text).
    ///
    /// # Errors
    ///
    /// [`SpecError`] when it is not a JSON object.
    pub fn meta(mut self, meta: &str) -> Result<Self, SpecError> {
        self.meta = Some(self.json("_meta", meta)?);
        self.check()?;
        Ok(self)
    }

    /// Sets whether the tool can run as a task.
    #[must_use]
    pub const fn task_support(mut self, support: TaskSupport) -> Self {
        self.task_support = support;
        self
    }

    fn json(&self, field: &str, text: &str) -> Result<Json, SpecError> {
        Json::parse(text).map_err(|e| self.error(format!("{field} is {e}")))
    }

    fn error(&self, reason: String) -> SpecError {
        SpecError {
            tool: self.name.clone(),
            reason,
        }
    }

    /// The arguments that travel in HTTP headers too (`"x-mcp-header": "Name"` on a property
    /// of the input schema, 2026-07-28): `(argument, header name)` pairs.
    ///
    /// # Errors
    ///
    /// [`SpecError`] for a header name that is empty, not an HTTP token, or given twice (the
    /// specification has clients leave such a tool out).
    pub fn param_headers(&self) -> Result<Vec<(String, String)>, SpecError> {
        let schema = RawJson::parse(self.input_schema.as_str()).ok();
        let properties = schema.and_then(|s| s.get("properties"));
        let mut out: Vec<(String, String)> = Vec::new();
        for (arg, prop) in properties.map(RawJson::members).unwrap_or_default() {
            let Some(header) = prop.get("x-mcp-header") else {
                continue;
            };
            let name = header.as_string().unwrap_or_default();
            let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
            if name.is_empty() || !name.bytes().all(token) {
                return Err(self.error(format!("x-mcp-header of {arg} is not an HTTP header name")));
            }
            if out.iter().any(|(_, h)| h.eq_ignore_ascii_case(&name)) {
                return Err(self.error(format!("x-mcp-header {name} is given twice")));
            }
            out.push((arg.into_owned(), name.into_owned()));
        }
        Ok(out)
    }

    /// Checks what the specification requires of a tool description: a name, object schemas,
    /// an annotations object.
    ///
    /// # Errors
    ///
    /// [`SpecError`] naming the first thing wrong.
    pub fn check(&self) -> Result<(), SpecError> {
        if self.name.is_empty() {
            return Err(self.error("the name is empty".into()));
        }
        let is_object_schema = |j: &Json| {
            RawJson::parse(j.as_str())
                .ok()
                .and_then(|r| r.get("type"))
                .and_then(RawJson::as_string)
                .is_some_and(|t| t == "object")
        };
        if !self.input_schema.is_object() || !is_object_schema(&self.input_schema) {
            return Err(
                self.error(r#"inputSchema must be an object schema ("type":"object")"#.into())
            );
        }
        if let Some(s) = &self.output_schema
            && (!s.is_object() || !is_object_schema(s))
        {
            return Err(
                self.error(r#"outputSchema must be an object schema ("type":"object")"#.into())
            );
        }
        if let Some(a) = &self.annotations
            && !a.is_object()
        {
            return Err(self.error("annotations must be a JSON object".into()));
        }
        if let Some(m) = &self.meta
            && !m.is_object()
        {
            return Err(self.error("_meta must be a JSON object".into()));
        }
        self.param_headers().map(|_| ())
    }

    /// Reads one entry of a `tools/list` result, of any revision, as sent: what a server
    /// described, not what Janus would require of a tool it serves (an input schema need not
    /// say `"type":"object"`). A title given only in the annotations (2025-03-26) stays
    /// there: [`ToolSpec::hints`] reads it.
    ///
    /// # Errors
    ///
    /// Why the entry is no tool: not an object, no string `name`, no object `inputSchema`.
    pub fn read(tool: RawJson<'_>) -> Result<Self, String> {
        if !tool.is_object() {
            return Err("a tool that is not an object".into());
        }
        let [
            name,
            title,
            description,
            input,
            output,
            annotations,
            execution,
            icons,
            meta,
        ] = tool.get_many([
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
            "execution",
            "icons",
            "_meta",
        ]);
        let string = crate::json::owned_string;
        let object = |v: Option<RawJson<'_>>| v.filter(|v| v.is_object()).map(Json::from_raw);
        let name = string(name).ok_or("a tool without a string name")?;
        let input_schema =
            object(input).ok_or_else(|| format!("tool {name}: no object inputSchema"))?;
        let task_support = match execution
            .and_then(|e| e.get("taskSupport"))
            .and_then(RawJson::as_string)
            .as_deref()
        {
            Some("optional") => TaskSupport::Optional,
            Some("required") => TaskSupport::Required,
            _ => TaskSupport::Forbidden,
        };
        Ok(Self {
            title: string(title),
            description: string(description),
            input_schema,
            output_schema: object(output),
            annotations: object(annotations),
            task_support,
            icons: icons.map(read_icons).unwrap_or_default(),
            meta: object(meta),
            name,
        })
    }

    /// The hints of the tool's annotations (`None` where absent or not a boolean).
    #[must_use]
    pub fn hints(&self) -> Hints {
        let a = self
            .annotations
            .as_ref()
            .and_then(|a| RawJson::parse(a.as_str()).ok())
            .filter(|a| a.is_object());
        let hint = |k: &str| {
            a.and_then(|a| a.get(k)).and_then(|v| match v.as_str() {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            })
        };
        Hints {
            title: a
                .and_then(|a| a.get("title"))
                .and_then(RawJson::as_string)
                .map(|c| c.into_owned()),
            read_only: hint("readOnlyHint"),
            destructive: hint("destructiveHint"),
            idempotent: hint("idempotentHint"),
            open_world: hint("openWorldHint"),
        }
    }
}

/// A tool's hints, as its annotations give them (`None`: not given).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hints {
    /// `annotations.title`.
    pub title: Option<String>,
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    pub idempotent: Option<bool>,
    /// `openWorldHint`.
    pub open_world: Option<bool>,
}

/// Reads an `icons` array: each entry with a string `src`; the others are skipped.
#[must_use]
pub fn read_icons(icons: RawJson<'_>) -> Vec<Icon> {
    icons
        .iter_elements()
        .filter_map(|i| {
            let [src, mime, sizes, theme] = i.get_many(["src", "mimeType", "sizes", "theme"]);
            let string = crate::json::owned_string;
            let mut icon = Icon::new(&string(src)?);
            icon.mime_type = string(mime);
            icon.theme = string(theme);
            icon.sizes = sizes
                .map(|s| {
                    s.iter_elements()
                        .filter_map(|e| e.as_string().map(|c| c.into_owned()))
                        .collect()
                })
                .unwrap_or_default();
            Some(icon)
        })
        .collect()
}
