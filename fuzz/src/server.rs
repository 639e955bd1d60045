//! The server the `connection` target drives: the demo tools, and a prompt, a resource, a
//! template and completions whose handlers use their input.

use janus_server_core::{Server, demo};
use std::sync::Arc;

/// The demo tools, and a prompt, a resource, a template and completions whose handlers use
/// their input (a template id above 100 holds nothing).
pub fn fuzz_server() -> Arc<Server> {
    use janus_server_core::content::Content;
    use janus_server_core::prompts::PromptSpec;
    use janus_server_core::resources::{ResourceSpec, TemplateSpec};
    demo::builder()
        .page_size(1)
        .prompt(
            PromptSpec::new("greet", "Greets").argument("who", "whom", true),
            |_: &janus_server_core::Ctx<'_>,
             a: janus_server_core::prompts::PromptArgs<'_>,
             out: &mut janus_server_core::prompts::PromptMessages| {
                out.user(Content::text(format!(
                    "hello {}",
                    a.get("who").unwrap_or_default()
                )));
                Ok(())
            },
        )
        .prompt(
            PromptSpec::new("other", "Refuses"),
            |_: &janus_server_core::Ctx<'_>,
             _: janus_server_core::prompts::PromptArgs<'_>,
             _: &mut janus_server_core::prompts::PromptMessages| {
                Err(janus_server_core::RpcError::invalid_params("no").into())
            },
        )
        .resource(
            ResourceSpec::new("fuzz://static", "static"),
            |_: &janus_server_core::Ctx<'_>,
             uri: &str,
             out: &mut janus_server_core::resources::Contents| {
                out.blob(uri, None, b"\x00\xff");
                Ok(())
            },
        )
        .resource_template(
            TemplateSpec::new("fuzz://item/{id}", "item").expect("a valid template"),
            |_: &janus_server_core::Ctx<'_>,
             uri: &str,
             v: &janus_server_core::resources::Vars,
             out: &mut janus_server_core::resources::Contents| {
                let id = v.get("id").unwrap_or_default();
                if id.parse::<u32>().is_ok_and(|n| n <= 100) {
                    out.text(uri, Some("text/plain"), id);
                }
                Ok(())
            },
        )
        .complete_prompt_argument(
            "greet",
            "who",
            |_: &janus_server_core::Ctx<'_>,
             r: &janus_server_core::complete::CompletionRequest<'_>| {
                (0..r.value().len().min(200))
                    .map(|i| i.to_string())
                    .collect()
            },
        )
        .build()
        .expect("the fuzz server's specs are valid")
}
