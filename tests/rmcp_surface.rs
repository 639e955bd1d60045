//! rmcp 3.11's client (the official Rust SDK) against the server surface of `janus serve
//! --tools conformance` over stdio: resources, a template, a prompt with arguments, a
//! completion, and the client's input through its own `ClientHandler` (an elicitation and a
//! sampling answer): real server requests in the `Initialize` lifecycle (a handshake
//! session), MRTR rounds that rmcp drives itself in `Discover` (2026-07-28). The same tools
//! serve both.
// NB. rmcp 3.11 marks sampling deprecated (SEP-2577); the revisions Janus serves still have it.
#![allow(deprecated)]

mod support;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, ErrorData, GetPromptRequestParams, Implementation, ProtocolVersion,
    ReadResourceRequestParams, ResourceContents, SamplingCapability, SamplingMessage,
};
use rmcp::service::{RequestContext, RoleClient};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// A client that answers the server's questions, and counts them.
#[derive(Clone, Default)]
struct Asker {
    asked: Arc<AtomicUsize>,
}

impl ClientHandler for Asker {
    fn get_info(&self) -> ClientConfig {
        let mut caps = ClientCapabilities::default();
        caps.elicitation = Some(ElicitationCapability::default());
        caps.sampling = Some(SamplingCapability::default());
        ClientConfig::new(caps, Implementation::new("janus-rmcp-surface", "1.0.0"))
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        Ok(ElicitResult::new(ElicitationAction::Accept)
            .with_content(json!({"username": "ada", "email": "ada@example.com"})))
    }

    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text("Paris"),
            "janus-test".into(),
        )
        .with_stop_reason("endTurn"))
    }
}

fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => unreachable!("arguments are objects"),
    }
}

async fn exercise(lifecycle: ClientLifecycleMode, want: &str) {
    let mut cmd = tokio::process::Command::new(support::janus_bin());
    cmd.args(["serve", "--tools", "conformance"]);
    let transport = TokioChildProcess::new(cmd).expect("spawn janus serve");
    let asker = Asker::default();
    let asked = Arc::clone(&asker.asked);
    let client = asker
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .expect("the lifecycle");
    let negotiated = client
        .peer_info()
        .expect("the client knows the server after its lifecycle started")
        .protocol_version
        .to_string();
    assert_eq!(negotiated, want);

    let resources = client.list_all_resources().await.expect("resources/list");
    assert!(
        resources.iter().any(|r| r.uri == "test://static-text"),
        "{resources:?}"
    );
    let read = client
        .read_resource(ReadResourceRequestParams::new("test://static-text"))
        .await
        .expect("resources/read");
    match &read.contents[0] {
        ResourceContents::TextResourceContents { text, .. } => {
            assert_eq!(text, "This is the content of the static text resource.");
        }
        other => panic!("a text content: {other:?}"),
    }
    let read = client
        .read_resource(ReadResourceRequestParams::new("test://template/9/data"))
        .await
        .expect("a template read");
    assert!(format!("{:?}", read.contents[0]).contains("Data for ID: 9"));

    let prompt = client
        .get_prompt(
            GetPromptRequestParams::new("test_prompt_with_arguments")
                .with_arguments(args(json!({"arg1": "x", "arg2": "y"}))),
        )
        .await
        .expect("prompts/get");
    let text = serde_json::to_value(&prompt.messages[0]).expect("a message");
    assert_eq!(
        text["content"]["text"],
        "Prompt with arguments: arg1='x', arg2='y'"
    );
    let values = client
        .complete_prompt_simple("test_prompt_with_arguments", "arg1", "p")
        .await
        .expect("completion/complete");
    assert!(values.iter().all(|v| v.starts_with('p')), "{values:?}");

    let r = client
        .call_tool(
            CallToolRequestParams::new("test_elicitation")
                .with_arguments(args(json!({"message": "Who are you?"}))),
        )
        .await
        .expect("the elicitation tool");
    let text = &r.content[0].as_text().expect("text").text;
    assert!(
        text.contains("action=accept") && text.contains("ada@example.com"),
        "{text}"
    );
    let r = client
        .call_tool(
            CallToolRequestParams::new("test_sampling")
                .with_arguments(args(json!({"prompt": "Capital of France?"}))),
        )
        .await
        .expect("the sampling tool");
    assert_eq!(
        r.content[0].as_text().expect("text").text,
        "LLM response: Paris"
    );
    assert_eq!(asked.load(Ordering::SeqCst), 2, "the handler answered both");
    client.cancel().await.expect("the client stops");
}

#[tokio::test]
async fn rmcp_initialize_gets_real_server_requests() {
    tokio::time::timeout(
        Duration::from_secs(60),
        exercise(ClientLifecycleMode::Initialize, "2025-11-25"),
    )
    .await
    .expect("in time");
}

#[tokio::test]
async fn rmcp_discover_drives_mrtr_rounds() {
    tokio::time::timeout(
        Duration::from_secs(60),
        exercise(
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
            "2026-07-28",
        ),
    )
    .await
    .expect("in time");
}
