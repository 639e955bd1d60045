//! `janus`: the command line of the Janus MCP server.
//!
//! `janus serve` speaks MCP on stdin/stdout (or on TCP with `--listen`); stdout carries
//! protocol bytes only, and logs go to stderr.
//! `janus bench` measures Janus against its baselines.
//! `janus tools` and `janus call` are the client: a server's tools, or one call.

mod auth;
mod client_cli;
mod conformance_client;
mod fixtures;

use clap::{Parser, Subcommand};
use janus_server_core::demo;
use janus_server_core::serve::{self, Config, Shutdown};
use std::net::SocketAddr;
use std::process::ExitCode;

/// Counts allocations (relaxed atomics, a few nanoseconds each) so that `janus bench` can
/// report allocations per request.
#[global_allocator]
static GLOBAL: &stats_alloc::StatsAlloc<std::alloc::System> = &stats_alloc::INSTRUMENTED_SYSTEM;

/// Janus: a fast dual-era Model Context Protocol server.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The tool sets `janus serve` ships.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Tools {
    /// `echo`, `add`, `fail`, `sleep`.
    Demo,
    /// The fixture set of `@modelcontextprotocol/conformance`.
    Conformance,
    /// The demo tools, plus a tool, a prompt and a resource whose names are not plain header
    /// text (for the interop lanes).
    #[value(hide = true)]
    Names,
}

// NB. Parsed once at start: the size of the largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Serve the demo tools (echo, add, fail, sleep) over MCP.
    Serve {
        /// What to serve: the demo tools, or the fixtures of the official conformance suite.
        #[arg(long, value_enum, default_value = "demo")]
        tools: Tools,
        /// Listen on this TCP address (newline-delimited JSON-RPC, one connection each) instead
        /// of serving one connection on stdin/stdout.
        #[arg(long, conflicts_with = "http")]
        listen: Option<SocketAddr>,
        /// Serve streamable HTTP (2026-07-28, stateless) on this address, at `--path`.
        #[arg(long, value_name = "ADDR")]
        http: Option<SocketAddr>,
        /// The HTTP endpoint's path.
        #[arg(long, default_value = janus_server_core::http::DEFAULT_PATH, requires = "http")]
        path: String,
        /// The largest HTTP request body, in bytes (more: 413).
        #[arg(long, default_value_t = janus_server_core::http::DEFAULT_MAX_BODY, requires = "http")]
        max_body: usize,
        /// An Origin allowed besides loopback ones (repeat for more).
        #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
        allow_origins: Vec<String>,
        /// The prefix of legacy HTTP session ids, for a balancer that routes by it (default:
        /// random).
        #[arg(long, requires = "http")]
        node_id: Option<String>,
        /// The most legacy HTTP sessions at once (more: 503).
        #[arg(long, default_value_t = janus_server_core::http::DEFAULT_MAX_SESSIONS, requires = "http")]
        max_sessions: usize,
        /// Seconds a legacy HTTP session may stay idle before it expires.
        #[arg(long, default_value_t = 1800, requires = "http")]
        session_idle_secs: u64,
        /// The most HTTP requests waiting for asynchronous work plus SSE streams open at once
        /// (more: 503 with Retry-After).
        #[arg(long, default_value_t = janus_server_core::http::DEFAULT_MAX_STREAMS, requires = "http",
              value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
        max_streams: usize,
        /// The longest line accepted, in bytes.
        #[arg(long, default_value_t = janus_codec::DEFAULT_MAX_FRAME_LEN)]
        max_frame_len: usize,
        /// The most asynchronous requests running at once per connection; more wait in a
        /// queue (cancellable there) and reading goes on.
        #[arg(long, default_value_t = serve::DEFAULT_MAX_IN_FLIGHT,
              value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
        max_in_flight: usize,
        /// The most work waiting in a connection's queue, in bytes (estimated), before reading
        /// pauses.
        #[arg(long, default_value_t = serve::DEFAULT_MAX_QUEUED_BYTES,
              value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
        max_queued_bytes: usize,
        /// Seconds a shutdown (SIGTERM, SIGINT) gives requests in flight.
        #[arg(long, default_value_t = 10)]
        drain_secs: u64,
        /// The key that seals the `requestState` of 2026-07-28 input rounds (HMAC-SHA256), at
        /// least 16 bytes; replicas behind one balancer need the same. Also read from
        /// JANUS_STATE_KEY; random per process when neither is set.
        #[arg(long, value_name = "KEY")]
        state_key: Option<String>,
        /// Seconds a `requestState` stays valid.
        #[arg(long, default_value_t = 600)]
        state_ttl_secs: u64,
        /// Seconds a handshake session's tool waits for the client's answers to its input
        /// requests (sampling, elicitation, roots).
        #[arg(long, default_value_t = 300)]
        input_timeout_secs: u64,
        #[command(flatten)]
        auth: auth::AuthArgs,
    },
    /// List a server's tools: the normalised specs, their safety classes and the revision
    /// settled.
    Tools {
        #[command(flatten)]
        target: client_cli::Target,
    },
    /// Call one tool of a server and print its result.
    Call {
        /// The tool.
        tool: String,
        /// Its arguments, a JSON object.
        #[arg(long, value_name = "JSON")]
        args: Option<String>,
        #[command(flatten)]
        target: client_cli::Target,
    },
    /// Measure Janus against its baselines and print side-by-side tables.
    Bench {
        /// Seconds spent measuring each message of the codec corpus.
        #[arg(long, default_value_t = 0.5)]
        seconds: f64,
        /// Tiny counts: every server and every check, in seconds (for CI).
        #[arg(long, conflicts_with = "full")]
        smoke: bool,
        /// Only the streamable HTTP comparison (printed, not saved).
        #[arg(long)]
        http_only: bool,
        /// Only the client comparison (printed, not saved).
        #[arg(long, conflicts_with = "http_only")]
        clients_only: bool,
        /// Only the codec comparison on both corpus families (printed, not saved).
        #[arg(long, conflicts_with_all = ["http_only", "clients_only"])]
        codec_only: bool,
        /// Longer measurements and more runs (the default is a quick plan, under a minute).
        #[arg(long)]
        full: bool,
        /// Another `janus` executable (an earlier build, say) to measure in the same run, as a
        /// peer named "janus (against)": the ratios then read as this build over that one.
        #[arg(long, value_name = "PATH")]
        against: Option<std::path::PathBuf>,
    },
    /// The client the official conformance suite drives (its client leg): runs the scenario
    /// `MCP_CONFORMANCE_SCENARIO` names against URL, with janus-client.
    #[command(hide = true)]
    ConformanceClient {
        /// The scenario server's URL (the suite appends it to the command).
        url: String,
    },
    /// The benchmark's rmcp peer: the demo tools served by rmcp, the official Rust SDK.
    #[command(hide = true)]
    RmcpPeer {
        /// Use rmcp's non-blocking pipe transport instead of its stdio transport.
        #[arg(long)]
        pipes: bool,
        /// Serve rmcp's streamable HTTP on this address instead (stateless, JSON answers).
        #[arg(long, value_name = "ADDR", conflicts_with = "pipes")]
        http: Option<SocketAddr>,
        /// With `--http`: rmcp's legacy session mode.
        #[arg(long, requires = "http")]
        sessions: bool,
    },
    /// The benchmark's floor: answers each line with a fixed result and its id, naively
    /// (`--http ADDR`: a bare hyper server that echoes the text with the id).
    #[command(hide = true)]
    Floor {
        /// Serve HTTP on this address.
        #[arg(long, value_name = "ADDR")]
        http: Option<SocketAddr>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve {
            tools,
            listen,
            http,
            path,
            max_body,
            allow_origins,
            node_id,
            max_sessions,
            session_idle_secs,
            max_streams,
            max_frame_len,
            max_in_flight,
            max_queued_bytes,
            drain_secs,
            state_key,
            state_ttl_secs,
            input_timeout_secs,
            auth,
        } => {
            init_logs();
            let state_key = state_key.or_else(|| std::env::var("JANUS_STATE_KEY").ok());
            if state_key.as_ref().is_some_and(|k| k.len() < 16) {
                tracing::error!(
                    "the state key (--state-key, JANUS_STATE_KEY) needs at least 16 bytes"
                );
                return ExitCode::from(2);
            }
            let auth = match auth::build(auth) {
                Ok(a) => a,
                Err(e) => {
                    tracing::error!(error = %e, "bad authorization settings");
                    return ExitCode::from(2);
                }
            };
            let config = Config {
                max_frame_len,
                max_in_flight,
                max_queued_bytes,
                drain: std::time::Duration::from_secs(drain_secs),
            };
            let http = http.map(|addr| {
                (
                    addr,
                    janus_server_core::http::HttpConfig {
                        path,
                        max_body,
                        allow_origins,
                        loopback_hosts_only: addr.ip().is_loopback(),
                        node_id,
                        max_sessions,
                        session_idle: std::time::Duration::from_secs(session_idle_secs),
                        max_streams,
                    },
                )
            });
            let mut builder = match tools {
                Tools::Demo => demo::builder(),
                Tools::Conformance => fixtures::builder(),
                Tools::Names => fixtures::names::builder(),
            };
            if let Some(k) = &state_key {
                builder = builder.state_key(k.as_bytes());
            }
            let builder = builder
                .state_ttl(std::time::Duration::from_secs(state_ttl_secs))
                .input_timeout(std::time::Duration::from_secs(input_timeout_secs));
            let server = match builder.build() {
                Ok(s) => s,
                Err(e) => {
                    tracing::error!(error = %e, "the server's specs are not valid");
                    return ExitCode::FAILURE;
                }
            };
            if matches!(tools, Tools::Conformance) {
                fixtures::serving(&server);
            }
            run_serve(server, listen, http.map(|(a, c)| (a, c, auth)), config)
        }
        Command::Tools { target } => client_cli::tools(&target),
        Command::Call { tool, args, target } => client_cli::call(&target, &tool, args.as_deref()),
        Command::ConformanceClient { url } => {
            init_logs();
            conformance_client::run(&url)
        }
        Command::Bench {
            seconds,
            smoke,
            full,
            http_only,
            clients_only,
            codec_only,
            against,
        } => {
            if clients_only {
                run_client_bench(smoke, full)
            } else if codec_only {
                let budget = std::time::Duration::from_secs_f64(if smoke { 0.05 } else { seconds });
                print!("{}", janus_bench::quick::run(budget));
                ExitCode::SUCCESS
            } else {
                run_bench(seconds, smoke, full, http_only, against)
            }
        }
        Command::RmcpPeer {
            http: Some(addr),
            sessions,
            ..
        } => match janus_bench::rmcp_peer::run_http(addr, sessions) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("rmcp peer: {e}");
                ExitCode::FAILURE
            }
        },
        Command::RmcpPeer { pipes, .. } => match janus_bench::rmcp_peer::run(pipes) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("rmcp peer: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Floor { http: Some(addr) } => match janus_bench::http_load::floor(addr) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("floor: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Floor { http: None } => {
            match janus_bench::load::floor(std::io::stdin().lock(), std::io::stdout().lock()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(_) => ExitCode::FAILURE,
            }
        }
    }
}

fn run_bench(
    seconds: f64,
    smoke: bool,
    full: bool,
    http_only: bool,
    against: Option<std::path::PathBuf>,
) -> ExitCode {
    use janus_bench::{allocs, e2e, load};
    let Ok(exe) = std::env::current_exe() else {
        eprintln!("janus bench: cannot find its own executable");
        return ExitCode::FAILURE;
    };
    if http_only {
        return match run_http_bench(&exe, against.as_deref(), smoke, full) {
            Ok(h) => {
                print!("{h}");
                ExitCode::SUCCESS
            }
            Err(code) => code,
        };
    }
    let budget = std::time::Duration::from_secs_f64(if smoke { 0.05 } else { seconds });
    print!("{}", janus_bench::quick::run(budget));
    println!();
    let target = |name: &str, args: &[&str], echoes: bool| load::Target {
        name: name.into(),
        program: exe.clone(),
        args: args.iter().map(|&a| a.to_owned()).collect(),
        echoes,
        light: false,
        // NB. The floor serves echo only.
        surface: echoes,
    };
    let mut targets = vec![
        target("janus", &["serve"], true),
        target("rmcp 3.11 (stdio)", &["rmcp-peer"], true),
        target("rmcp 3.11 (pipes)", &["rmcp-peer", "--pipes"], true),
        target("floor", &["floor"], false),
    ];
    if let Some(program) = against.clone() {
        targets.insert(
            1,
            load::Target {
                name: "janus (against)".into(),
                program,
                args: vec!["serve".into()],
                echoes: true,
                light: false,
                // NB. An earlier build may not serve the demo resource and prompt.
                surface: false,
            },
        );
    }
    let mut absent = Vec::new();
    match python_peer() {
        Some(python) => targets.push(load::Target {
            name: "python-sdk v2 2.3.0".into(),
            program: python,
            args: vec![janus_bench::PY_PEER.to_owned()],
            echoes: true,
            light: true,
            surface: false,
        }),
        None => absent.push((
            "python-sdk v2".to_owned(),
            "no Python with mcp==2.3.0 found (bash tests/interop/run.sh v2 creates one; or set \
             JANUS_BENCH_PYTHON)"
                .to_owned(),
        )),
    }
    let plan = if smoke {
        e2e::Plan::smoke()
    } else if full {
        e2e::Plan::full()
    } else {
        e2e::Plan::quick()
    };
    let mut report = match e2e::run(&targets, absent, Some(&targets[0]), plan) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("janus bench: a run failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    match run_http_bench(&exe, against.as_deref(), smoke, full) {
        Ok(h) => report.http = Some(h),
        Err(code) => return code,
    }
    let count = || GLOBAL.stats().allocations;
    let client_plan = if smoke {
        janus_bench::client_bench::ClientPlan::smoke()
    } else if full {
        janus_bench::client_bench::ClientPlan::full()
    } else {
        janus_bench::client_bench::ClientPlan::quick()
    };
    match janus_bench::client_bench::run(&exe, client_plan, &count) {
        Ok(c) => report.client = Some(c),
        Err(e) => {
            eprintln!("janus bench: a client run failed: {e}");
            return ExitCode::FAILURE;
        }
    }
    print!("{report}");
    println!(
        "\nHeap allocations per 16 B echo request on Janus's path (FrameCodec + Connection, in \
         memory): legacy {:.3}, modern {:.3}.",
        allocs::per_request(load::Era::Legacy, &count),
        allocs::per_request(load::Era::Modern, &count)
    );
    println!(
        "Heap allocations per resources/read of the static 64 KiB text resource: legacy \
         {:.3}, modern {:.3}.",
        allocs::per_static_read(load::Era::Legacy, &count),
        allocs::per_static_read(load::Era::Modern, &count)
    );
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(
            || std::path::PathBuf::from("target"),
            std::path::PathBuf::from,
        )
        .join("janus-bench");
    match report.save(&dir) {
        Ok(paths) => {
            for p in paths {
                println!("wrote {}", p.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("janus bench: cannot write {}: {e}", dir.display());
            ExitCode::FAILURE
        }
    }
}

/// The client comparison of `janus bench`, alone.
fn run_client_bench(smoke: bool, full: bool) -> ExitCode {
    use janus_bench::client_bench::{ClientPlan, run};
    let Ok(exe) = std::env::current_exe() else {
        eprintln!("janus bench: cannot find its own executable");
        return ExitCode::FAILURE;
    };
    let plan = if smoke {
        ClientPlan::smoke()
    } else if full {
        ClientPlan::full()
    } else {
        ClientPlan::quick()
    };
    let count = || GLOBAL.stats().allocations;
    match run(&exe, plan, &count) {
        Ok(c) => {
            print!("{c}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("janus bench: a client run failed: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The streamable HTTP comparison of `janus bench`: Janus (both eras), rmcp 3.11 stateless
/// and with sessions, and a bare hyper floor, each a process of this executable.
fn run_http_bench(
    exe: &std::path::Path,
    against: Option<&std::path::Path>,
    smoke: bool,
    full: bool,
) -> Result<janus_bench::http_bench::HttpReport, ExitCode> {
    use janus_bench::{http_bench, http_load, load};
    let http_plan = if smoke {
        http_bench::HttpPlan::smoke()
    } else if full {
        http_bench::HttpPlan::full()
    } else {
        http_bench::HttpPlan::quick()
    };
    let http_target = |name: &str, program: &std::path::Path, args: &[&str], eras: &[load::Era]| {
        http_load::HttpTarget {
            name: name.into(),
            program: program.to_owned(),
            args: args.iter().map(|&a| a.to_owned()).collect(),
            env: vec![("JANUS_LOG".into(), "info".into())],
            eras: eras.to_vec(),
        }
    };
    let both = [load::Era::Modern, load::Era::Legacy];
    let loopback = "127.0.0.1:0";
    let mut http_targets = vec![
        http_target("janus", exe, &["serve", "--http", loopback], &both),
        http_target(
            "rmcp 3.11 (stateless JSON)",
            exe,
            &["rmcp-peer", "--http", loopback],
            &[load::Era::Modern],
        ),
        http_target(
            "rmcp 3.11 (sessions)",
            exe,
            &["rmcp-peer", "--http", loopback, "--sessions"],
            &[load::Era::Legacy],
        ),
        http_target(
            "floor (bare hyper)",
            exe,
            &["floor", "--http", loopback],
            &[load::Era::Modern],
        ),
    ];
    if let Some(program) = against {
        http_targets.insert(
            1,
            http_target(
                "janus (against)",
                program,
                &["serve", "--http", loopback],
                &both,
            ),
        );
    }
    http_bench::run(&http_targets, http_plan).map_err(|e| {
        eprintln!("janus bench: an HTTP run failed: {e}");
        ExitCode::FAILURE
    })
}

/// The Python of a virtual environment with mcp==2.3.0: `JANUS_BENCH_PYTHON`, else the one
/// the interop lane creates.
fn python_peer() -> Option<std::path::PathBuf> {
    let candidate = std::env::var_os("JANUS_BENCH_PYTHON").map_or_else(
        || {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("target/interop/venv-py-v2-mcp-2.3.0/bin/python")
        },
        std::path::PathBuf::from,
    );
    let ok = std::process::Command::new(&candidate)
        .args([
            "-c",
            "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '2.3.0')",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(candidate)
}

/// Logs go to stderr only: stdout holds protocol bytes. `JANUS_LOG=debug` shows more.
fn init_logs() {
    let level = match std::env::var("JANUS_LOG").as_deref() {
        Ok("trace") => tracing::Level::TRACE,
        Ok("debug") => tracing::Level::DEBUG,
        Ok("info") => tracing::Level::INFO,
        Ok("error") => tracing::Level::ERROR,
        _ => tracing::Level::WARN,
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(level)
        .with_ansi(false)
        .init();
}

/// A token verifier and the resource it protects.
type Auth = (
    janus_server_core::http::JwtVerifier,
    janus_server_core::http::ProtectedResource,
);

fn run_serve(
    server: std::sync::Arc<janus_server_core::Server>,
    listen: Option<SocketAddr>,
    http: Option<(
        SocketAddr,
        janus_server_core::http::HttpConfig,
        Option<Auth>,
    )>,
    config: Config,
) -> ExitCode {
    let runtime = if listen.is_none() && http.is_none() {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        // Every core serves: one process uses the whole machine.
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
    };
    let runtime = match runtime {
        Ok(r) => r,
        Err(e) => {
            tracing::error!(error = %e, "cannot start the runtime");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        let shutdown = Shutdown::new();
        let on_signal = shutdown.clone();
        let ending = std::sync::Arc::clone(&server);
        tokio::spawn(async move {
            stop_signal().await;
            // NB. The trigger comes first: a log line must never stand in its way.
            on_signal.trigger();
            // Open `subscriptions/listen` streams are answered and closed, not cut.
            ending.end_subscriptions();
            tracing::info!("shutting down: draining requests in flight");
        });
        if let Some((addr, http_config, auth)) = http {
            let listener = tokio::net::TcpListener::bind(addr).await?;
            let bound = listener.local_addr()?;
            let service = janus_server_core::http::McpService::new(server, http_config.clone());
            if let Some((verifier, resource)) = auth {
                use janus_server_core::http::tower_layer::Layer as _;
                tracing::info!(addr = %bound, path = %http_config.path, resource = resource.resource(), "listening (HTTP, bearer tokens required)");
                let service = janus_server_core::http::AuthLayer::new(verifier, resource).layer(service);
                return janus_server_core::http::serve_http(service, listener, &shutdown, config.drain)
                    .await;
            }
            if !bound.ip().is_loopback() {
                tracing::warn!(
                    addr = %bound,
                    "serving HTTP beyond loopback WITHOUT authorization: any client that reaches this address can call every tool"
                );
            }
            tracing::info!(addr = %bound, path = %http_config.path, "listening (HTTP)");
            return janus_server_core::http::serve_http(service, listener, &shutdown, config.drain)
                .await;
        }
        match listen {
            None => serve::serve_stdio(server, &config, &shutdown).await,
            Some(addr) => {
                let listener = tokio::net::TcpListener::bind(addr).await?;
                tracing::info!(addr = %listener.local_addr()?, "listening");
                serve::serve_tcp(server, listener, config, &shutdown).await
            }
        }
    });
    // Jobs still running (a client gone mid-request) are dropped with the runtime.
    runtime.shutdown_background();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "serve failed");
            ExitCode::FAILURE
        }
    }
}

/// Resolves at SIGTERM or SIGINT (Ctrl-C elsewhere).
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            (Ok(mut term), Ok(mut int)) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = int.recv() => {}
                }
            }
            _ => std::future::pending().await,
        }
    }
    #[cfg(not(unix))]
    {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}
