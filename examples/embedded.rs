//! Janus embedded in an existing tokio application: the application runs its own work (here a
//! ticker that counts), and serves MCP over TCP beside it, with a tool that reads the
//! application's state. SIGTERM or SIGINT stops both: the MCP side drains its requests in
//! flight, then the process exits 0.
//!
//! `cargo run --example embedded -- 127.0.0.1:7001` (port 0, the default, picks a free one);
//! it prints `listening on ADDR` once it accepts connections.

use janus_server_core::Halt;
use janus_server_core::serve::{self, Config, Shutdown};
use janus_server_core::tools::{Args, Output, ToolSpec};
use janus_server_core::{Ctx, Server};
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".into());

    // The application's own state and work.
    let ticks = Arc::new(AtomicU64::new(0));
    let shutdown = Shutdown::new();
    let ticker = tokio::spawn({
        let (ticks, shutdown) = (Arc::clone(&ticks), shutdown.clone());
        async move {
            let mut every = tokio::time::interval(Duration::from_millis(10));
            loop {
                tokio::select! {
                    _ = every.tick() => { ticks.fetch_add(1, Ordering::Relaxed); }
                    () = shutdown.triggered() => break,
                }
            }
        }
    });

    // The MCP side: a tool over the application's state.
    let state = Arc::clone(&ticks);
    let spec = ToolSpec::new(
        "ticks",
        "How many times the application's ticker has ticked.",
        r#"{"type":"object"}"#,
    )?
    .annotations(r#"{"readOnlyHint":true}"#)?;
    let server = Server::builder("embedded-example", "1.0.0")
        .tool(
            spec,
            move |_: &Ctx<'_>, _: Args<'_>, out: &mut Output<'_>| -> Result<(), Halt> {
                out.text(&state.load(Ordering::Relaxed).to_string());
                Ok(())
            },
        )
        .build()?;
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("listening on {}", listener.local_addr()?);
    std::io::stdout().flush()?;
    let mcp = tokio::spawn({
        let shutdown = shutdown.clone();
        async move { serve::serve_tcp(server, listener, Config::default(), &shutdown).await }
    });

    stop_signal().await;
    shutdown.trigger();
    mcp.await??;
    ticker.await?;
    println!("stopped after {} ticks", ticks.load(Ordering::Relaxed));
    Ok(())
}

async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}
