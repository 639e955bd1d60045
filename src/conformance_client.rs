//! `janus conformance-client URL`: the client the official conformance suite
//! (`@modelcontextprotocol/conformance`) drives in its client leg, as each SDK ships one.
//!
//! The suite starts a scenario server, then runs this command with the server's URL last, and
//! sets `MCP_CONFORMANCE_SCENARIO` (the scenario), `MCP_CONFORMANCE_CONTEXT` (a JSON object of
//! the scenario's inputs, such as the tool calls to make) and `MCP_CONFORMANCE_PROTOCOL_VERSION`
//! (the revision the scenario server speaks). Each scenario is served with janus-client's
//! public API alone, headless: what the suite checks is the library's behaviour on the wire,
//! so nothing here works around it. The exit code is 0 when the scenario ran to its end, and
//! that of the error (see [`janus_client::Error::exit_code`]) when it did not.

use janus_client::{
    CallOptions, Callbacks, Client, Enterprise, Error, Headless, Mode, OAuth, OAuthConfig, Options,
    Tls, ToolSpec, Transport,
};
use serde_json::{Map, Value, json};
use std::process::ExitCode;
use std::time::Duration;

/// The time every request may take: well within the suite's own 30 s per scenario, so that a
/// request that never gets an answer fails here, with a message, rather than in the suite.
const TIMEOUT: Duration = Duration::from_secs(20);

/// The client metadata document URL the suite's authorization servers expect of a client
/// that uses one (`auth/basic-cimd`).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// What the suite told of the scenario to run.
struct Scenario {
    name: String,
    context: Value,
    version: Option<String>,
}

impl Scenario {
    fn from_env() -> Result<Self, Error> {
        let name = std::env::var("MCP_CONFORMANCE_SCENARIO").map_err(|_| {
            Error::Config("MCP_CONFORMANCE_SCENARIO is not set (the suite sets it)".into())
        })?;
        let context = match std::env::var("MCP_CONFORMANCE_CONTEXT") {
            Ok(text) if !text.trim().is_empty() => serde_json::from_str(&text)
                .map_err(|e| Error::Config(format!("MCP_CONFORMANCE_CONTEXT is no JSON: {e}")))?,
            _ => Value::Null,
        };
        let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").ok();
        Ok(Self {
            name,
            context,
            version,
        })
    }

    /// Authorization for an `auth/` scenario: headless (the suite's authorization servers
    /// redirect at once), with the credentials the scenario's context gives, if any.
    fn auth(&self) -> Option<OAuth> {
        if !self.name.starts_with("auth/") {
            return None;
        }
        let text = |k: &str| self.context[k].as_str().map(str::to_owned);
        let config = OAuthConfig {
            client_id: text("client_id"),
            client_secret: text("client_secret"),
            client_metadata_url: Some(CLIENT_METADATA_URL.into()),
            client_name: "janus-conformance-client".into(),
            client_credentials: self.name.starts_with("auth/client-credentials"),
            private_key_pem: text("private_key_pem"),
            assertion: text("valid_jwt"),
            enterprise: text("idp_id_token").map(|id_token| Enterprise {
                id_token,
                idp_token_endpoint: text("idp_token_endpoint").unwrap_or_default(),
                idp_client_id: text("idp_client_id").unwrap_or_default(),
                idp_client_secret: None,
            }),
            ..OAuthConfig::default()
        };
        Some(OAuth::new(config, Headless::new(Tls::default())))
    }

    /// The lifecycle mode for the scenario's revision: `Auto` for a 2026-07-28 scenario (the
    /// `server/discover` probe, then the per-request envelope), the handshake for an older one
    /// (its scenario servers answer nothing but `initialize` first). Without the variable
    /// (outside the suite), `Auto`.
    fn mode(&self) -> Mode {
        match self.version.as_deref() {
            Some(v)
                if janus_codec::ProtocolVersion::from_wire(v).is_some_and(|v| v.is_handshake()) =>
            {
                Mode::Legacy
            }
            _ => Mode::Auto,
        }
    }
}

/// Runs the scenario the environment names against `url`.
pub(crate) fn run(url: &str) -> ExitCode {
    let scenario = match Scenario::from_env() {
        Ok(s) => s,
        Err(e) => return failed(&e),
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("janus conformance-client: no runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(play(&scenario, url)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => failed(&e),
    }
}

fn failed(e: &Error) -> ExitCode {
    eprintln!("janus conformance-client: {e}");
    ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(1))
}

/// Connects with `callbacks`, in the scenario's mode.
async fn connect(s: &Scenario, url: &str, callbacks: Callbacks) -> Result<Client, Error> {
    let opts = Options {
        mode: s.mode(),
        timeout: TIMEOUT,
        name: "janus-conformance-client".into(),
        callbacks,
        auth: s.auth(),
        ..Options::default()
    };
    let transport = Transport::Http {
        url: url.to_owned(),
        headers: Vec::new(),
    };
    Client::connect(transport, opts).await
}

/// Calls `name` with `args`, logging what came back.
async fn call(client: &Client, name: &str, args: &Value) -> Result<(), Error> {
    let text = args.to_string();
    let r = client
        .call_tool(name, Some(&text), CallOptions::default())
        .await?;
    eprintln!(
        "janus conformance-client: {name}: {}{}",
        if r.is_error { "(isError) " } else { "" },
        r.text()
    );
    Ok(())
}

/// Arguments that satisfy the `required` list of an input schema, a plain value of each
/// property's type (the `http-invalid-tool-headers` scenario only checks which tools are
/// called, not with what).
fn stub_arguments(schema: &str) -> Value {
    let schema: Value = serde_json::from_str(schema).unwrap_or(Value::Null);
    let mut args = Map::new();
    for key in schema["required"].as_array().into_iter().flatten() {
        let Some(key) = key.as_str() else { continue };
        let value = match schema["properties"][key]["type"].as_str() {
            Some("integer" | "number") => json!(0),
            Some("boolean") => json!(false),
            Some("object") => json!({}),
            Some("array") => json!([]),
            Some("null") => Value::Null,
            _ => json!("x"),
        };
        args.insert(key.to_owned(), value);
    }
    Value::Object(args)
}

/// A sampling answer with no content of note, for scenarios that only check that the
/// capability is declared.
fn stub_sampling() -> Callbacks {
    Callbacks::new()
        .sample(|_| async {
            Ok(r#"{"role":"assistant","content":{"type":"text","text":""},"model":"janus-conformance-stub"}"#.to_owned())
        })
        .roots(|_| async { Ok(r#"{"roots":[]}"#.to_owned()) })
}

async fn play(s: &Scenario, url: &str) -> Result<(), Error> {
    match s.name.as_str() {
        "initialize" | "json-schema-ref-no-deref" => {
            let client = connect(s, url, Callbacks::new()).await?;
            client.list_tools().await?;
            client.close(Duration::from_secs(1)).await;
        }
        "tools_call" | "http-standard-headers" => {
            let client = connect(s, url, Callbacks::new()).await?;
            client.list_tools().await?;
            call(&client, "add_numbers", &json!({"a": 5, "b": 3})).await?;
            client.close(Duration::from_secs(1)).await;
        }
        "request-metadata" => {
            // Every input capability declared, so the scenario can check each one's shape.
            let callbacks = stub_sampling().accept_defaults();
            let client = connect(s, url, callbacks).await?;
            client.list_tools().await?;
            call(&client, "add_numbers", &json!({"a": 5, "b": 3})).await?;
            client.close(Duration::from_secs(1)).await;
        }
        "sse-retry" => {
            let client = connect(s, url, Callbacks::new()).await?;
            client.list_tools().await?;
            call(&client, "test_reconnection", &json!({})).await?;
            client.close(Duration::from_secs(1)).await;
        }
        "elicitation-sep1034-client-defaults" => {
            let client = connect(s, url, Callbacks::new().accept_defaults()).await?;
            client.list_tools().await?;
            call(&client, "test_client_elicitation_defaults", &json!({})).await?;
            client.close(Duration::from_secs(1)).await;
        }
        "sep-2322-client-request-state" => {
            let callbacks = Callbacks::new().elicit(|_| async {
                Ok(r#"{"action":"accept","content":{"confirmed":true}}"#.to_owned())
            });
            let client = connect(s, url, callbacks).await?;
            client.list_tools().await?;
            for tool in [
                "test_mrtr_echo_state",
                "test_mrtr_unrelated",
                "test_mrtr_no_state",
                "test_mrtr_no_result_type",
            ] {
                call(&client, tool, &json!({})).await?;
            }
            client.close(Duration::from_secs(1)).await;
        }
        "http-invalid-tool-headers" => {
            // The tools whose `x-mcp-header` annotations break the rules are left out of the
            // list by the client; every tool listed is called, and a call that fails is
            // reported and passed over (the scenario allows it).
            let client = connect(s, url, Callbacks::new()).await?;
            let tools = client.list_tools().await?;
            for t in &tools {
                if let Err(e) = call(&client, &t.name, &stub_arguments(&t.input_schema)).await {
                    eprintln!("janus conformance-client: {}: {e}", t.name);
                }
            }
            client.close(Duration::from_secs(1)).await;
        }
        "http-custom-headers" => {
            // The calls are the scenario's own (its context's `toolCalls`): their values are
            // the edge cases of the header encoding.
            let client = connect(s, url, Callbacks::new()).await?;
            let tools = client.list_tools().await?;
            for c in s.context["toolCalls"].as_array().into_iter().flatten() {
                let Some(name) = c["name"].as_str() else {
                    continue;
                };
                if !tools.iter().any(|t| t.name == name) {
                    eprintln!("janus conformance-client: {name} was not listed: not called");
                    continue;
                }
                let args = match &c["arguments"] {
                    Value::Null => json!({}),
                    a => a.clone(),
                };
                call(&client, name, &args).await?;
            }
            client.close(Duration::from_secs(1)).await;
        }
        "json-schema-2020-12-preservation" => {
            let client = connect(s, url, Callbacks::new()).await?;
            let tools = client.list_tools().await?;
            let focal = find(&tools, "json_schema_2020_12_tool")?;
            let schema: Value = serde_json::from_str(&focal.input_schema)
                .map_err(|e| Error::Protocol(format!("an inputSchema that is no JSON: {e}")))?;
            call(&client, "json_schema_echo", &json!({ "schema": schema })).await?;
            client.close(Duration::from_secs(1)).await;
        }
        other => {
            // The authorization scenarios (and any scenario this client does not know): what
            // a client does first, listing the tools, then calling the scenario server's one
            // tool (its scope may be more than listing needs).
            if !other.starts_with("auth/") {
                eprintln!("janus conformance-client: no case for scenario {other}: listing tools");
            }
            let client = connect(s, url, Callbacks::new()).await?;
            let tools = client.list_tools().await?;
            if let Some(t) = tools.first() {
                call(&client, &t.name, &stub_arguments(&t.input_schema)).await?;
            }
            client.close(Duration::from_secs(1)).await;
        }
    }
    Ok(())
}

fn find<'a>(tools: &'a [ToolSpec], name: &str) -> Result<&'a ToolSpec, Error> {
    tools
        .iter()
        .find(|t| t.name == name)
        .ok_or_else(|| Error::Protocol(format!("the server listed no tool {name}")))
}
