//! One normalised tool spec for every revision, and the safety class computed from it, fail
//! closed (`decisions.md`, "Client").
//!
//! The wire is read by the model ([`janus_model::tool::ToolSpec::read`], the one reader of a
//! tool for the server and the client); this is the view a caller compares and trusts. A tool
//! of 2025-03-26 (annotations, a title only inside them), of 2025-06-18 (`title`,
//! `outputSchema`), of 2025-11-25 (`execution.taskSupport`, icons) or of 2026-07-28 becomes the
//! same [`ToolSpec`]; schemas are kept as canonical JSON text, so the same schema sent with
//! other spacing compares equal.

use crate::json::canonical;
use janus_codec::RawJson;
use janus_model::content::Icon;

/// How far a caller may trust a tool to do what its hints say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SafetyClass {
    /// It only reads: `readOnlyHint: true` from a trusted server.
    ReadOnly,
    /// It changes things but destroys nothing: `destructiveHint: false` from a trusted
    /// server.
    Mutating,
    /// Anything else: absent hints, an untrusted server. Never inferred from a name or a
    /// description.
    Destructive,
}

impl SafetyClass {
    /// The class of a tool whose annotations are `a`, from a server that is `trusted` or
    /// not.
    #[must_use]
    pub const fn of(a: &Annotations, trusted: bool) -> Self {
        if !trusted {
            return Self::Destructive;
        }
        match (a.read_only, a.destructive) {
            (Some(true), _) => Self::ReadOnly,
            (_, Some(false)) => Self::Mutating,
            _ => Self::Destructive,
        }
    }

    /// The class as the `janus tools` listing writes it.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ReadOnly => "read-only",
            Self::Mutating => "mutating",
            Self::Destructive => "destructive",
        }
    }
}

/// A tool's hints, as its server gave them (`None`: not given): the model's.
pub use janus_model::tool::Hints as Annotations;
/// Whether a tool may run as a task (`execution.taskSupport`): the model's.
pub use janus_model::tool::TaskSupport;

/// A tool, the same whatever the revision it was listed in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSpec {
    /// The name to call it by.
    pub name: String,
    /// The title for people: `title`, else `annotations.title`.
    pub title: Option<String>,
    /// The description.
    pub description: Option<String>,
    /// The input JSON Schema, canonical JSON.
    pub input_schema: String,
    /// The output JSON Schema, canonical JSON.
    pub output_schema: Option<String>,
    /// The hints.
    pub annotations: Annotations,
    /// Whether it may run as a task.
    pub task_support: TaskSupport,
    /// `icons`.
    pub icons: Vec<Icon>,
    /// `_meta`, canonical JSON.
    pub meta: Option<String>,
    /// The safety class, from the hints and the server's trust.
    pub safety: SafetyClass,
}

impl ToolSpec {
    /// Reads one entry of `tools/list`'s `tools`, from a server that is `trusted` or not.
    ///
    /// # Errors
    ///
    /// Why the entry is no tool: not an object, no string `name`, no object `inputSchema`.
    pub fn from_wire(tool: RawJson<'_>, trusted: bool) -> Result<Self, String> {
        let spec = janus_model::tool::ToolSpec::read(tool)?;
        Ok(Self::of(spec, trusted))
    }

    /// The view of the model's spec, from a server that is `trusted` or not.
    #[must_use]
    pub fn of(spec: janus_model::tool::ToolSpec, trusted: bool) -> Self {
        let annotations = spec.hints();
        Self {
            title: spec.title.or_else(|| annotations.title.clone()),
            description: spec.description,
            input_schema: canonical(spec.input_schema.as_str()),
            output_schema: spec.output_schema.map(|s| canonical(s.as_str())),
            task_support: spec.task_support,
            icons: spec.icons,
            meta: spec.meta.map(|m| canonical(m.as_str())),
            safety: SafetyClass::of(&annotations, trusted),
            annotations,
            name: spec.name,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: &str, trusted: bool) -> ToolSpec {
        ToolSpec::from_wire(RawJson::parse(json).unwrap(), trusted).unwrap()
    }

    #[test]
    fn the_class_fails_closed() {
        let plain = r#"{"name":"t","inputSchema":{"type":"object"}}"#;
        let ro = r#"{"name":"t","inputSchema":{},"annotations":{"readOnlyHint":true}}"#;
        let nd = r#"{"name":"t","inputSchema":{},"annotations":{"destructiveHint":false}}"#;
        let both = r#"{"name":"t","inputSchema":{},"annotations":{"readOnlyHint":false,"destructiveHint":true}}"#;
        let junk = r#"{"name":"t","inputSchema":{},"annotations":{"readOnlyHint":"yes"}}"#;
        for trusted in [false, true] {
            assert_eq!(spec(plain, trusted).safety, SafetyClass::Destructive);
            assert_eq!(spec(both, trusted).safety, SafetyClass::Destructive);
            assert_eq!(spec(junk, trusted).safety, SafetyClass::Destructive);
        }
        assert_eq!(spec(ro, false).safety, SafetyClass::Destructive);
        assert_eq!(spec(ro, true).safety, SafetyClass::ReadOnly);
        assert_eq!(spec(nd, false).safety, SafetyClass::Destructive);
        assert_eq!(spec(nd, true).safety, SafetyClass::Mutating);
        // Never from a name or a description.
        let named = r#"{"name":"read_only_get","description":"Only reads.","inputSchema":{}}"#;
        assert_eq!(spec(named, true).safety, SafetyClass::Destructive);
    }

    #[test]
    fn every_revision_gives_the_same_spec() {
        let v2025_03 = r#"{"name":"echo","description":"Echo","inputSchema":{ "type" : "object" },"annotations":{"title":"Echo","readOnlyHint":true}}"#;
        let v2025_06 = r#"{"name":"echo","title":"Echo","description":"Echo","inputSchema":{"type":"object"},"annotations":{"title":"Echo","readOnlyHint":true}}"#;
        let a = spec(v2025_03, true);
        let b = spec(v2025_06, true);
        assert_eq!(a, b);
        assert_eq!(a.title.as_deref(), Some("Echo"));
        assert_eq!(a.input_schema, r#"{"type":"object"}"#);
        let tasks = spec(
            r#"{"name":"s","inputSchema":{},"execution":{"taskSupport":"optional"},"icons":[{"src":"a.png"}],"_meta":{"k":1}}"#,
            false,
        );
        assert_eq!(tasks.task_support, TaskSupport::Optional);
        assert_eq!(tasks.icons, [Icon::new("a.png")]);
        assert_eq!(tasks.meta.as_deref(), Some(r#"{"k":1}"#));
    }

    #[test]
    fn an_entry_that_is_no_tool_is_refused() {
        for bad in [
            r#"[]"#,
            r#"{"inputSchema":{}}"#,
            r#"{"name":3,"inputSchema":{}}"#,
            r#"{"name":"x"}"#,
            r#"{"name":"x","inputSchema":[]}"#,
        ] {
            assert!(
                ToolSpec::from_wire(RawJson::parse(bad).unwrap(), true).is_err(),
                "{bad}"
            );
        }
    }
}
