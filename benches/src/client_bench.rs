//! The client benchmark of `janus bench`: pipelined `tools/call` echo (16 B) against the same
//! `janus serve` (a child process on stdio, one per run), driven by janus-client and by rmcp
//! 3.11's client, in both eras, each client's calls in flight together through a window of
//! tasks; the ratio of the two measured in the same run. And the allocations of
//! janus-client's read path per answer (framing, the codec's parse, the match to the waiting
//! request), counted by the caller's global allocator.

use crate::load::Era;
use serde::Serialize;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long one client run may take.
const RUN_LIMIT: Duration = Duration::from_secs(120);
const TEXT: &str = "abcdefghijklmnop";

/// What a client run is made of.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ClientPlan {
    /// Calls per run.
    pub calls: usize,
    /// Calls in flight at once.
    pub window: usize,
    /// Runs per client and era (the median is kept).
    pub runs: usize,
}

impl ClientPlan {
    /// A few hundred calls: every client and era, in seconds (for CI).
    #[must_use]
    pub const fn smoke() -> Self {
        Self {
            calls: 400,
            window: 16,
            runs: 1,
        }
    }

    /// The default plan.
    #[must_use]
    pub const fn quick() -> Self {
        Self {
            calls: 60_000,
            window: 256,
            runs: 5,
        }
    }

    /// More calls and runs.
    #[must_use]
    pub const fn full() -> Self {
        Self {
            calls: 200_000,
            window: 256,
            runs: 5,
        }
    }
}

/// One client and era.
#[derive(Debug, Clone, Serialize)]
pub struct ClientRow {
    /// The client.
    pub client: String,
    /// The era of its requests (`legacy`, `modern`).
    pub era: &'static str,
    /// Calls per second (the median run).
    pub per_sec: f64,
    /// Heap allocations per call in the client's process (the median run): its whole side
    /// of a call, the tasks and the transport included.
    pub allocs_per_call: f64,
}

/// The client comparison.
#[derive(Debug, Clone, Serialize)]
pub struct ClientReport {
    /// The plan.
    pub plan: ClientPlan,
    /// The rows, janus-client's first in each era.
    pub rows: Vec<ClientRow>,
    /// janus-client's read path: heap allocations per answer.
    pub read_path_allocs: f64,
}

async fn janus(
    exe: &Path,
    era: Era,
    plan: ClientPlan,
    count: &dyn Fn() -> usize,
) -> Result<(f64, f64), String> {
    use janus_client::{CallOptions, Client, Command, Mode, Options, Transport};
    let mode = match era {
        Era::Legacy => Mode::Legacy,
        Era::Modern => Mode::Modern,
    };
    let t = Transport::Stdio(Command::new(exe.to_string_lossy(), ["serve"]));
    let client = Client::connect(
        t,
        Options {
            mode,
            ..Options::default()
        },
    )
    .await
    .map_err(|e| e.to_string())?;
    let client = Arc::new(client);
    let args = format!(r#"{{"text":"{TEXT}"}}"#);
    let each = plan.calls / plan.window;
    let (start, allocs) = (Instant::now(), count());
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..plan.window {
        let (c, args) = (Arc::clone(&client), args.clone());
        set.spawn(async move {
            for _ in 0..each {
                let r = c
                    .call_tool("echo", Some(&args), CallOptions::default())
                    .await
                    .map_err(|e| e.to_string())?;
                if r.text() != TEXT {
                    return Err(format!("janus-client: echo gave {r:?}"));
                }
            }
            Ok::<_, String>(())
        });
    }
    while let Some(r) = set.join_next().await {
        r.map_err(|e| e.to_string())??;
    }
    let (secs, allocs) = (start.elapsed().as_secs_f64(), count() - allocs);
    if let Ok(c) = Arc::try_unwrap(client) {
        c.close(Duration::from_secs(2)).await;
    }
    let calls = (each * plan.window) as f64;
    Ok((calls / secs, allocs as f64 / calls))
}

async fn rmcp(
    exe: &Path,
    era: Era,
    plan: ClientPlan,
    count: &dyn Fn() -> usize,
) -> Result<(f64, f64), String> {
    use rmcp::model::{
        CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion,
    };
    use rmcp::transport::TokioChildProcess;
    use rmcp::{ClientLifecycleMode, ClientServiceExt};
    let lifecycle = match era {
        Era::Legacy => ClientLifecycleMode::Initialize,
        Era::Modern => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    };
    let mut cmd = tokio::process::Command::new(exe);
    cmd.arg("serve");
    let transport = TokioChildProcess::new(cmd).map_err(|e| e.to_string())?;
    let config = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("janus-bench-rmcp", "1.0.0"),
    )
    .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE);
    let client = config
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .map_err(|e| e.to_string())?;
    let mut args = serde_json::Map::new();
    args.insert("text".into(), TEXT.into());
    let each = plan.calls / plan.window;
    let (start, allocs) = (Instant::now(), count());
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..plan.window {
        let (peer, args) = (client.peer().clone(), args.clone());
        set.spawn(async move {
            for _ in 0..each {
                let r = peer
                    .call_tool(CallToolRequestParams::new("echo").with_arguments(args.clone()))
                    .await
                    .map_err(|e| e.to_string())?;
                let text = r
                    .content
                    .first()
                    .and_then(|c| c.as_text())
                    .map(|t| t.text.as_str());
                if text != Some(TEXT) {
                    return Err(format!("rmcp: echo gave {r:?}"));
                }
            }
            Ok::<_, String>(())
        });
    }
    while let Some(r) = set.join_next().await {
        r.map_err(|e| e.to_string())??;
    }
    let (secs, allocs) = (start.elapsed().as_secs_f64(), count() - allocs);
    let _ = client.cancel().await;
    let calls = (each * plan.window) as f64;
    Ok((calls / secs, allocs as f64 / calls))
}

/// janus-client's read path: heap allocations per answer, over `n` echo answers framed from
/// one buffer and matched to their waiting requests. `count` reads the global allocator's
/// count of allocations.
#[must_use]
pub fn read_path_allocs(n: usize, count: &dyn Fn() -> usize) -> f64 {
    let mut probe = janus_client::ReadPath::new(n);
    let mut buf = bytes::BytesMut::new();
    for id in 1..=n {
        buf.extend_from_slice(
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{TEXT}"}}],"isError":false}}}}"#
            )
            .as_bytes(),
        );
        buf.extend_from_slice(b"\n");
    }
    let before = count();
    let fed = probe.feed(&mut buf);
    let after = count();
    assert_eq!(fed, n, "every answer framed");
    assert_eq!(probe.answered(), n, "every request answered");
    (after - before) as f64 / n as f64
}

/// Runs both clients in both eras against `exe serve`.
///
/// # Errors
///
/// A client that fails, or a run past its limit.
pub fn run(
    exe: &Path,
    plan: ClientPlan,
    count: &dyn Fn() -> usize,
) -> Result<ClientReport, String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let mut rows = Vec::new();
    // NB. A profiling aid: JANUS_BENCH_CLIENT=janus-client runs that client alone.
    let only = std::env::var("JANUS_BENCH_CLIENT").ok();
    let names: Vec<&str> = ["janus-client", "rmcp 3.11 client"]
        .into_iter()
        .filter(|n| only.as_deref().is_none_or(|o| o == *n))
        .collect();
    for era in [Era::Legacy, Era::Modern] {
        // NB. The clients take turns, run by run, so that a machine whose speed drifts
        // (a noisy neighbour) weighs on both alike.
        let mut rates: Vec<Vec<(f64, f64)>> = vec![Vec::new(); names.len()];
        for _ in 0..plan.runs {
            for (name, rates) in names.iter().zip(&mut rates) {
                let r = rt.block_on(async {
                    let run = async {
                        if *name == "janus-client" {
                            janus(exe, era, plan, count).await
                        } else {
                            rmcp(exe, era, plan, count).await
                        }
                    };
                    tokio::time::timeout(RUN_LIMIT, run).await.map_err(|_| {
                        format!("{name} {}: no end within {RUN_LIMIT:?}", era.name())
                    })?
                })?;
                rates.push(r);
            }
        }
        for (name, mut rates) in names.iter().zip(rates) {
            // NB. The median run's allocations go with its rate.
            rates.sort_by(|a, b| a.0.total_cmp(&b.0));
            let (per_sec, allocs_per_call) = rates[rates.len() / 2];
            rows.push(ClientRow {
                client: (*name).into(),
                era: era.name(),
                per_sec,
                allocs_per_call,
            });
        }
    }
    Ok(ClientReport {
        plan,
        rows,
        read_path_allocs: read_path_allocs(10_000, count),
    })
}

impl std::fmt::Display for ClientReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "## Clients: pipelined tools/call echo (16 B) against janus serve (stdio), {} calls, {} in flight, median of {}",
            self.plan.calls, self.plan.window, self.plan.runs
        )?;
        writeln!(f)?;
        writeln!(
            f,
            "| client | era | calls/s | janus-client over it | allocations per call |"
        )?;
        writeln!(f, "|---|---|---:|---:|---:|")?;
        for r in &self.rows {
            let janus = self
                .rows
                .iter()
                .find(|j| j.client == "janus-client" && j.era == r.era)
                .map_or(f64::NAN, |j| j.per_sec);
            writeln!(
                f,
                "| {} | {} | {:.0} | {:.1}x | {:.1} |",
                r.client,
                r.era,
                r.per_sec,
                janus / r.per_sec,
                r.allocs_per_call
            )?;
        }
        writeln!(f)?;
        writeln!(
            f,
            "janus-client's read path (framing, parse, match): {:.4} heap allocations per answer.",
            self.read_path_allocs
        )
    }
}
