//! The rmcp peer: the official Rust SDK (rmcp 3.11) serving the same demo tools as Janus
//! (`echo`, `add`, `fail`), the same resource (`demo://text-64k`) and the same prompt
//! (`greet`), so the benchmark compares servers on the same work.
//!
//! `janus-bench rmcp-peer` runs it on rmcp's `stdio()` transport (tokio's blocking-pool stdio);
//! `janus-bench rmcp-peer --pipes` on rmcp's `stdio_pipes()` (non-blocking pipes), which takes the
//! transport's own cost out of the comparison.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, ListPromptsResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, Prompt, PromptArgument,
    PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, Role, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::{Value, json};
use std::sync::Arc;

/// The demo tools, served by rmcp.
#[derive(Debug, Clone, Copy, Default)]
pub struct Demo;

fn schema(v: Value) -> Arc<serde_json::Map<String, Value>> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => Arc::default(),
    }
}

fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "echo",
            "Returns its text argument as one text block.",
            schema(
                json!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}),
            ),
        ),
        Tool::new(
            "add",
            "Adds two numbers; returns the sum as text and as structured content.",
            schema(
                json!({"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}),
            ),
        ),
        Tool::new(
            "fail",
            "Always fails: a result with isError true.",
            schema(json!({"type":"object","additionalProperties":false})),
        ),
        Tool::new(
            "sleep",
            "Waits ms milliseconds, then returns one text block.",
            schema(
                json!({"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":600000}},"required":["ms"]}),
            ),
        ),
    ]
}

/// The demo's 64 KiB text, made once.
fn text_64k() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(janus_server_core::demo::text_64k)
}

impl ServerHandler for Demo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .build(),
        )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let r = Resource::new(janus_server_core::demo::TEXT_64K_URI, "text-64k");
        Ok(ListResourcesResult::with_all_items(vec![r]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != janus_server_core::demo::TEXT_64K_URI {
            return Err(ErrorData::resource_not_found(
                "Resource not found",
                Some(json!({ "uri": request.uri })),
            ));
        }
        Ok(ReadResourceResult::new(vec![ResourceContents::text(text_64k(), request.uri)]).into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let mut name = PromptArgument::new("name");
        name.required = Some(true);
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "greet",
            Some("Asks for a greeting"),
            Some(vec![name]),
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != "greet" {
            return Err(ErrorData::invalid_params(
                format!("Unknown prompt: {}", request.name),
                None,
            ));
        }
        let name = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("name"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Write a short, friendly greeting for {name}."),
        )])
        .into())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let result = match request.name.as_ref() {
            "echo" => match args.get("text").and_then(Value::as_str) {
                Some(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
                None => CallToolResult::error(vec![ContentBlock::text(
                    "Invalid arguments for tool echo: text must be a string",
                )]),
            },
            "add" => {
                let (a, b) = (
                    args.get("a").and_then(Value::as_f64),
                    args.get("b").and_then(Value::as_f64),
                );
                match (a, b) {
                    (Some(a), Some(b)) => CallToolResult::structured(json!({ "sum": a + b })),
                    _ => CallToolResult::error(vec![ContentBlock::text(
                        "Invalid arguments for tool add: a and b must be numbers",
                    )]),
                }
            }
            "fail" => {
                CallToolResult::error(vec![ContentBlock::text("fail: this tool always fails")])
            }
            "sleep" => {
                let ms = args
                    .get("ms")
                    .and_then(Value::as_u64)
                    .unwrap_or(0)
                    .min(600_000);
                tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
                CallToolResult::success(vec![ContentBlock::text(format!("slept {ms} ms"))])
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!("Unknown tool: {other}"),
                    None,
                ));
            }
        };
        Ok(result.into())
    }
}

/// Serves the demo tools on stdin/stdout until the client closes its input.
///
/// # Errors
///
/// When the runtime cannot start or the service fails to start.
pub fn run(pipes: bool) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async move {
        let service = if pipes {
            Demo.serve(rmcp::transport::io::stdio_pipes()).await
        } else {
            Demo.serve(rmcp::transport::io::stdio()).await
        }
        .map_err(|e| e.to_string())?;
        service.waiting().await.map_err(|e| e.to_string())?;
        Ok(())
    })
}

/// Serves the demo tools with rmcp's streamable HTTP server on `addr` (at `/mcp`), until
/// killed; logs `listening addr=...` on stderr.
///
/// `sessions`: rmcp's legacy session mode (`LocalSessionManager`); else stateless with JSON
/// answers (`json_response`), rmcp's fastest HTTP setting. Both on tokio's multi-thread
/// runtime, with `TCP_NODELAY` on every connection, as Janus serves.
///
/// # Errors
///
/// When the runtime cannot start or the address cannot be bound.
pub fn run_http(addr: std::net::SocketAddr, sessions: bool) -> Result<(), String> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| e.to_string())?;
        let bound = listener.local_addr().map_err(|e| e.to_string())?;
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(sessions)
            .with_json_response(!sessions);
        if sessions {
            let service = StreamableHttpService::new(
                || Ok(Demo),
                Arc::new(LocalSessionManager::default()),
                config,
            );
            crate::http_load::serve_hyper(listener, bound, service).await
        } else {
            let service = StreamableHttpService::new(
                || Ok(Demo),
                Arc::new(NeverSessionManager::default()),
                config,
            );
            crate::http_load::serve_hyper(listener, bound, service).await
        }
        .map_err(|e| e.to_string())
    })
}
