//! The model reads what it writes: every content block, tool spec and tool result written in
//! a revision's shape is read back as it was (where the revision has it), and what another
//! writer sends (other spacing, unknown blocks) is read as the same thing or kept whole.

use bytes::BytesMut;
use janus_codec::{ProtocolVersion, RawJson};
use janus_model::Json;
use janus_model::content::{Annotations, Block, Content, Icon, Role};
use janus_model::result::ToolResult;
use janus_model::shape::{Shape, write_block, write_tool};
use janus_model::tool::{TaskSupport, ToolSpec};

fn blocks() -> Vec<Content> {
    vec![
        Content::text("hi \"there\"\n"),
        Content::image(b"\x89PNG", "image/png"),
        Content::audio(b"RIFF", "audio/wav"),
        Content::resource_link("file:///a%20b", "a b"),
        Content::resource_text("demo://t", Some("text/plain"), "t\u{e9}"),
        Content::resource_blob("demo://b", None, b"\0\x01"),
        Content::text("annotated").annotated(Annotations {
            audience: vec![Role::User, Role::Assistant],
            priority: Some(0.5),
            last_modified: Some("2025-01-01T00:00:00Z".into()),
        }),
    ]
}

fn written(c: &Content, shape: Shape) -> String {
    let mut out = BytesMut::new();
    write_block(&mut out, shape, c, true);
    String::from_utf8(out.to_vec()).unwrap()
}

#[test]
fn every_block_is_read_back_in_every_revision_that_has_it() {
    for v in ProtocolVersion::KNOWN {
        let shape = Shape::new(v);
        for c in blocks() {
            let text = written(&c, shape);
            let read = Content::read(RawJson::parse(&text).unwrap());
            let has_it = match &c.block {
                Block::Audio { .. } => shape.annotations(),
                Block::ResourceLink { .. } => shape.structured(),
                _ => true,
            };
            if !has_it {
                // Written as a text block that names it.
                assert!(read.as_text().is_some(), "{v:?}: {text}");
                continue;
            }
            let mut want = c.clone();
            if let Some(a) = &mut want.annotations
                && !shape.structured()
            {
                a.last_modified = None;
            }
            assert_eq!(read, want, "{v:?}: {text}");
        }
    }
}

#[test]
fn a_block_the_model_does_not_know_is_kept_whole_and_written_as_it_came() {
    for raw in [
        r#"{"type":"future","x":[1,2]}"#,
        r#"{"type":"image","data":"AA=="}"#,
        r#"{"type":"resource","resource":{"uri":"a://b"}}"#,
        r#"{"text":"no type"}"#,
    ] {
        let c = Content::read(RawJson::parse(raw).unwrap());
        assert!(matches!(c.block, Block::Other(_)), "{raw}");
        let shape = Shape::new(ProtocolVersion::V2026_07_28);
        assert_eq!(written(&c, shape), raw);
    }
}

#[test]
fn a_tool_spec_is_read_back_in_every_revision() {
    let spec = ToolSpec::new(
        "sum",
        "Adds",
        r#"{"type":"object","properties":{"a":{"type":"number"}}}"#,
    )
    .unwrap()
    .title("Sum")
    .output_schema(r#"{"type":"object"}"#)
    .unwrap()
    .annotations(r#"{"readOnlyHint":true,"title":"Sum it"}"#)
    .unwrap()
    .meta(r#"{"k":1}"#)
    .unwrap()
    .task_support(TaskSupport::Optional)
    .icon(Icon::new("https://x/i.png").size("48x48").theme("dark"));
    for v in ProtocolVersion::KNOWN {
        let shape = Shape::new(v);
        let mut out = BytesMut::new();
        write_tool(&mut out, &spec, shape);
        let text = String::from_utf8(out.to_vec()).unwrap();
        let read = ToolSpec::read(RawJson::parse(&text).unwrap()).unwrap();
        assert_eq!(read.name, "sum");
        assert_eq!(read.description.as_deref(), Some("Adds"));
        assert_eq!(read.input_schema, spec.input_schema, "{v:?}");
        assert_eq!(read.title.is_some(), shape.structured(), "{v:?}: {text}");
        assert_eq!(read.output_schema.is_some(), shape.structured(), "{v:?}");
        let hints = read.hints();
        assert_eq!(
            hints.read_only,
            shape.annotations().then_some(true),
            "{v:?}"
        );
        assert_eq!(
            read.task_support,
            if shape.execution() {
                TaskSupport::Optional
            } else {
                TaskSupport::Forbidden
            },
            "{v:?}"
        );
        let icons = if shape.icons() {
            spec.icons.clone()
        } else {
            Vec::new()
        };
        assert_eq!(read.icons, icons, "{v:?}");
        assert_eq!(read.meta.is_some(), shape.structured(), "{v:?}");
    }
}

#[test]
fn a_result_is_read_with_its_blocks_and_entries_that_are_no_tool_are_refused() {
    let r = ToolResult::read(
        RawJson::parse(
            r#"{"content":[{"type":"text","text":"a"},{"type":"x"}],"structuredContent":{"n": 1},"isError":true,"resultType":"complete"}"#,
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(r.content.len(), 2);
    assert_eq!(r.content[0].as_text(), Some("a"));
    assert_eq!(r.structured, Some(Json::parse(r#"{"n": 1}"#).unwrap()));
    assert!(r.is_error);
    assert_eq!(r.meta, None);
    // NB. `_meta` is kept as sent, but for a server's stamp, which is the answer's.
    let stamped = |meta: &str| {
        let text = format!(r#"{{"content":[],"_meta":{meta}}}"#);
        ToolResult::read(RawJson::parse(&text).unwrap())
            .unwrap()
            .meta
    };
    assert_eq!(
        stamped(r#"{"a": [1], "b":"x"}"#),
        Some(Json::parse(r#"{"a": [1], "b":"x"}"#).unwrap())
    );
    assert_eq!(
        stamped(r#"{"a":1,"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"},"b":2}"#),
        Some(Json::parse(r#"{"a":1,"b":2}"#).unwrap())
    );
    for none in [
        "{}",
        "{ }",
        "[]",
        r#"{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}"#,
    ] {
        assert_eq!(stamped(none), None, "{none}");
    }
    for bad in ["[]", r#"{"content":{}}"#] {
        assert!(
            ToolResult::read(RawJson::parse(bad).unwrap()).is_err(),
            "{bad}"
        );
    }
    for bad in [
        "[]",
        r#"{"inputSchema":{}}"#,
        r#"{"name":3,"inputSchema":{}}"#,
        r#"{"name":"x"}"#,
        r#"{"name":"x","inputSchema":[]}"#,
    ] {
        assert!(
            ToolSpec::read(RawJson::parse(bad).unwrap()).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn prompts_resources_templates_and_their_answers_are_read_back() {
    use janus_model::content::ResourceBody;
    use janus_model::prompt::{PromptMessages, PromptSpec};
    use janus_model::resource::{Contents, ResourceSpec, TemplateSpec};
    use janus_model::shape::{write_prompt, write_prompt_messages, write_resource, write_template};
    let parse = |out: &BytesMut| String::from_utf8(out.to_vec()).unwrap();
    let prompt = PromptSpec::new("greet", "Greets")
        .title("Greet")
        .argument("name", "Who", true)
        .argument("tone", "", false)
        .icon(Icon::new("data:image/png;base64,AA=="));
    let resource = ResourceSpec::new("file:///a", "a")
        .title("A")
        .description("The a")
        .mime_type("text/plain")
        .size(12);
    let template = TemplateSpec::new("users://{user}/x", "u")
        .unwrap()
        .mime_type("text/plain");
    for v in ProtocolVersion::KNOWN {
        let shape = Shape::new(v);
        let mut out = BytesMut::new();
        write_prompt(&mut out, &prompt, shape);
        let read = PromptSpec::read(RawJson::parse(&parse(&out)).unwrap()).unwrap();
        let mut want = prompt.clone();
        if !shape.structured() {
            want.title = None;
        }
        if !shape.icons() {
            want.icons.clear();
        }
        assert_eq!(read, want, "{v:?}");
        out.clear();
        write_resource(&mut out, &resource, shape);
        let read = ResourceSpec::read(RawJson::parse(&parse(&out)).unwrap()).unwrap();
        assert_eq!(read.title.is_some(), shape.structured(), "{v:?}");
        assert_eq!(
            (read.size, read.mime_type.as_deref()),
            (Some(12), Some("text/plain"))
        );
        out.clear();
        write_template(&mut out, &template, shape);
        let read = TemplateSpec::read(RawJson::parse(&parse(&out)).unwrap()).unwrap();
        assert_eq!(read, template, "{v:?}");
        assert_eq!(
            read.matches("users://ann/x").unwrap().get("user"),
            Some("ann")
        );
        let mut messages = PromptMessages::default();
        messages
            .description("d")
            .user(Content::text("hi"))
            .assistant(Content::text("yo"));
        out.clear();
        write_prompt_messages(&mut out, shape, &messages);
        let read = PromptMessages::read(RawJson::parse(&parse(&out)).unwrap()).unwrap();
        assert_eq!(read, messages, "{v:?}");
    }
    // A template of operators Janus does not serve is read, and matches nothing.
    let odd = TemplateSpec::read(RawJson::parse(r#"{"uriTemplate":"q{?x}","name":"q"}"#).unwrap())
        .unwrap();
    assert!(odd.matches("q?x=1").is_none());
    let mut contents = Contents::default();
    contents
        .text("a://t", Some("text/plain"), "t")
        .blob("a://b", None, b"\0");
    let mut out = BytesMut::new();
    contents.write(&mut out);
    let read = Contents::read(RawJson::parse(&parse(&out)).unwrap());
    assert_eq!(read.items, contents.items);
    assert_eq!(read.items[0].text(), Some("t"));
    assert!(matches!(read.items[1].body, ResourceBody::Blob(_)));
    for bad in [r#"{"name":"x"}"#, r#"{"uri":"a://b"}"#, "[]"] {
        assert!(
            ResourceSpec::read(RawJson::parse(bad).unwrap()).is_err(),
            "{bad}"
        );
    }
}
