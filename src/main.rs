//! `janus`: the command line of the Janus MCP server.
//!
//! `janus serve` speaks MCP on stdin/stdout (or on TCP with `--listen`); stdout carries
//! protocol bytes only, and logs go to stderr.
//! `janus bench` measures Janus against its baselines (it runs the `janus-bench` executable,
//! `src/bench_main.rs`, which holds the allocation counter and the peers).
//! `janus tools` and `janus call` are the client: a server's tools, or one call.

mod auth;
mod bench;
mod client_cli;
mod conformance_client;
mod fixtures;
mod metrics;
mod store;

use clap::{Parser, Subcommand};
use janus_server_core::demo;
use janus_server_core::serve::{self, Config, Shutdown};
use std::net::SocketAddr;
use std::process::ExitCode;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    /// The demo tools, plus tools that end the process mid-request or never answer (for the
    /// bridge's fault tests).
    #[value(hide = true)]
    Faults,
    /// The demo tools, plus a tool that changes the tool list (for the scale-out tests).
    #[value(hide = true)]
    Scale,
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
        /// Where tasks and list changes live: `memory` (this process alone), or a Redis URL
        /// (`redis://[:password@]host[:port][/db]`) shared by every replica given the same:
        /// a task made through one is read, awaited and cancelled through any, and a list
        /// change reaches every replica's clients. Redis unreachable at start: exit 2.
        #[arg(long, default_value = "memory", value_name = "URL")]
        store: String,
        /// What every Redis key and channel starts with: deployments that share one Redis
        /// need different ones.
        #[arg(long, default_value = "janus:")]
        store_prefix: String,
        /// Serve `/metrics` (Prometheus text format), `/healthz` and `/readyz` on this
        /// address (keep it off the public network).
        #[arg(long, value_name = "ADDR")]
        metrics: Option<SocketAddr>,
        /// Seconds between a SIGTERM and the start of the drain, while `/readyz` already
        /// answers 503 (so a balancer stops sending first). Default: 1 with `--metrics`,
        /// else 0.
        #[arg(long, value_name = "SECS")]
        unready_secs: Option<u64>,
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
    /// Authorize with an HTTP server that asks for it (`--url URL`, or `--config` and
    /// `--server`): the authorization URL is printed, and the tokens are kept (a file under
    /// the user's configuration folder, readable by the user alone) for `tools` and `call`.
    Login {
        #[command(flatten)]
        target: client_cli::Target,
    },
    /// Forget the tokens kept for the server at URL.
    Logout {
        /// The server's URL, as given to `janus login --url`.
        url: String,
    },
    /// Measure Janus against its baselines and print side-by-side tables.
    ///
    /// `janus bench --help` gives its options. The benchmark is the `janus-bench` executable
    /// beside this one, built on demand under `cargo run`, so the serving commands carry
    /// nothing of it.
    #[command(disable_help_flag = true)]
    Bench {
        /// The benchmark's options, passed on to `janus-bench bench`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
    /// Serve an MCP server of either era to clients of both: the backend is a command
    /// (`janus bridge -- CMD ARGS...`), a URL (`--upstream URL`, `https` and authorization
    /// included) or an `mcpServers` entry (`--config F --server NAME`); the front is stdio,
    /// or streamable HTTP on `--http ADDR`.
    Bridge {
        /// Serve streamable HTTP on this address (both eras), not stdio.
        #[arg(long, value_name = "ADDR")]
        http: Option<SocketAddr>,
        /// Serve `/metrics` (requests, and the backend's state), `/healthz` and `/readyz`
        /// (ready while the backend is connected) on this address.
        #[arg(long, value_name = "ADDR")]
        metrics: Option<SocketAddr>,
        /// Threads of the bridge's runtime: by default one for a stdio front (one
        /// connection: no thread is woken for another at each step of a call), and half the
        /// cores for an HTTP front (a local backend needs the rest).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
        threads: Option<u16>,
        /// Connections to the backend (sessions of an HTTP backend, processes of a stdio
        /// one), each request sent on the next one that is up.
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
        pool: u16,
        /// The backend, and how to speak to it (`--mode`: default `auto`).
        #[command(flatten)]
        backend: client_cli::Target,
    },
    /// The client the official conformance suite drives (its client leg): runs the scenario
    /// `MCP_CONFORMANCE_SCENARIO` names against URL, with janus-client.
    #[command(hide = true)]
    ConformanceClient {
        /// The scenario server's URL (the suite appends it to the command).
        url: String,
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
            store,
            store_prefix,
            metrics,
            unready_secs,
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
                        observe: metrics.is_some().then(|| {
                            std::sync::Arc::new(metrics::Requests)
                                as std::sync::Arc<dyn janus_server_core::http::Observe>
                        }),
                    },
                )
            });
            let mut builder = match tools {
                Tools::Demo => demo::builder(),
                Tools::Conformance => fixtures::builder(),
                Tools::Names => fixtures::names::builder(),
                Tools::Faults => fixtures::faults::builder(),
                Tools::Scale => fixtures::scale_builder(),
            };
            if let Some(k) = &state_key {
                builder = builder.state_key(k.as_bytes());
            }
            let builder = builder
                .state_ttl(std::time::Duration::from_secs(state_ttl_secs))
                .input_timeout(std::time::Duration::from_secs(input_timeout_secs));
            let runtime = match runtime((listen.is_none() && http.is_none()).then_some(1)) {
                Ok(r) => r,
                Err(e) => {
                    tracing::error!(error = %e, "cannot start the runtime");
                    return ExitCode::FAILURE;
                }
            };
            let shared = match runtime.block_on(store::open(&store, &store_prefix)) {
                Ok(s) => s,
                Err(e) => {
                    tracing::error!(error = %e, "no store");
                    return ExitCode::from(2);
                }
            };
            let builder = shared.install(builder, metrics.is_some());
            let watch = match metrics {
                None => None,
                Some(addr) => {
                    let handle = match metrics::install() {
                        Ok(h) => h,
                        Err(e) => {
                            tracing::error!(error = %e, "cannot record metrics");
                            return ExitCode::FAILURE;
                        }
                    };
                    let listener = match runtime.block_on(metrics::bind(addr)) {
                        Ok(l) => l,
                        Err(e) => {
                            tracing::error!(error = %e, %addr, "cannot listen for metrics");
                            return ExitCode::from(2);
                        }
                    };
                    Some(Watch {
                        listener,
                        handle,
                        ready: shared.ready(),
                    })
                }
            };
            let unready =
                std::time::Duration::from_secs(unready_secs.unwrap_or(u64::from(watch.is_some())));
            let server = match builder.build() {
                Ok(s) => s,
                Err(e) => {
                    tracing::error!(error = %e, "the server's specs are not valid");
                    return ExitCode::FAILURE;
                }
            };
            if matches!(tools, Tools::Conformance | Tools::Scale | Tools::Faults) {
                fixtures::serving(&server);
            }
            run_serve(
                runtime,
                server,
                listen,
                http.map(|(a, c)| (a, c, auth)),
                config,
                (watch, unready),
            )
        }
        Command::Tools { target } => client_cli::tools(&target),
        Command::Call { tool, args, target } => client_cli::call(&target, &tool, args.as_deref()),
        Command::Login { target } => client_cli::login(&target),
        Command::Logout { url } => client_cli::logout(&url),
        Command::Bridge {
            http,
            metrics,
            threads,
            pool,
            backend,
        } => {
            init_logs();
            run_bridge(http, metrics, (threads, pool), &backend)
        }
        Command::ConformanceClient { url } => {
            init_logs();
            conformance_client::run(&url)
        }
        Command::Bench { args } => bench::run(&args),
    }
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

/// A runtime of `threads` threads (`Some(1)`: the current thread only; `None`: every core).
/// `janus serve` takes one thread for one stdio connection and every core otherwise (one
/// process uses the whole machine).
fn runtime(threads: Option<usize>) -> std::io::Result<tokio::runtime::Runtime> {
    match threads {
        Some(1) => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        Some(n) => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(n)
            .enable_all()
            .build(),
        None => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build(),
    }
}

/// The metrics endpoint of `janus serve --metrics`, before it serves.
struct Watch {
    listener: tokio::net::TcpListener,
    handle: metrics_exporter_prometheus::PrometheusHandle,
    ready: Option<metrics::Ready>,
}

fn run_serve(
    runtime: tokio::runtime::Runtime,
    server: std::sync::Arc<janus_server_core::Server>,
    listen: Option<SocketAddr>,
    http: Option<(
        SocketAddr,
        janus_server_core::http::HttpConfig,
        Option<Auth>,
    )>,
    config: Config,
    (watch, unready): (Option<Watch>, std::time::Duration),
) -> ExitCode {
    let result = runtime.block_on(async move {
        let shutdown = Shutdown::new();
        let on_signal = shutdown.clone();
        let ending = std::sync::Arc::clone(&server);
        let serving = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let unready_now = std::sync::Arc::clone(&serving);
        tokio::spawn(async move {
            stop_signal().await;
            // NB. Not ready first (a balancer stops sending), then the drain.
            unready_now.store(false, std::sync::atomic::Ordering::Relaxed);
            if !unready.is_zero() {
                tokio::time::sleep(unready).await;
            }
            // NB. The trigger comes first: a log line must never stand in its way.
            on_signal.trigger();
            // Open `subscriptions/listen` streams are answered and closed, not cut.
            ending.end_subscriptions();
            tracing::info!("shutting down: draining requests in flight");
        });
        if let Some((addr, http_config, auth)) = http {
            let listener = serve::bind(addr)?;
            let bound = listener.local_addr()?;
            let service = janus_server_core::http::McpService::new(server, http_config.clone());
            if let Some(w) = watch {
                let stats = service.clone();
                tokio::spawn(metrics::serve(
                    w.listener,
                    metrics::Endpoint {
                        handle: w.handle,
                        serving,
                        ready: w.ready,
                        scrape: None,
                        stats: Some(std::sync::Arc::new(move || stats.stats())),
                    },
                ));
            }
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
        if let Some(w) = watch {
            tokio::spawn(metrics::serve(
                w.listener,
                metrics::Endpoint {
                    handle: w.handle,
                    serving,
                    ready: w.ready,
                    scrape: None,
                    stats: None,
                },
            ));
        }
        match listen {
            None => serve::serve_stdio(server, &config, &shutdown).await,
            Some(addr) => {
                let listener = serve::bind(addr)?;
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

/// `janus bridge`: connects to the backend, then serves it (stdio, or HTTP) until a signal.
fn run_bridge(
    http: Option<SocketAddr>,
    metrics_addr: Option<SocketAddr>,
    (threads, pool): (Option<u16>, u16),
    backend: &client_cli::Target,
) -> ExitCode {
    let (transport, opts) = match backend.resolve_backend() {
        Ok(t) => t,
        Err(e) => {
            tracing::error!(error = %e, "no backend");
            return ExitCode::from(2);
        }
    };
    // NB. Measured in `janus bench` on two cores: one thread serves a stdio front at 1.4x
    // the pipelined rate of two and 40 us less at p50, and an HTTP front at 1.3x at 16
    // connections; each step of a forwarded call woke another thread.
    let threads = threads.map_or_else(
        || {
            if http.is_none() {
                1
            } else {
                std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1))
            }
        },
        usize::from,
    );
    let runtime = match runtime(Some(threads)) {
        Ok(r) => r,
        Err(e) => {
            tracing::error!(error = %e, "cannot start the runtime");
            return ExitCode::FAILURE;
        }
    };
    let watch = match metrics_addr {
        None => None,
        Some(addr) => {
            let handle = match metrics::install() {
                Ok(h) => h,
                Err(e) => {
                    tracing::error!(error = %e, "cannot record metrics");
                    return ExitCode::FAILURE;
                }
            };
            match runtime.block_on(metrics::bind(addr)) {
                Ok(l) => Some((l, handle)),
                Err(e) => {
                    tracing::error!(error = %e, %addr, "cannot listen for metrics");
                    return ExitCode::from(2);
                }
            }
        }
    };
    let result = runtime.block_on(async move {
        let bridge =
            match janus_bridge::Bridge::connect_pool(transport, opts, usize::from(pool)).await {
                Ok(b) => b,
                Err(e) => {
                    tracing::error!(error = %e, "the bridge could not start");
                    return Ok(Err(e.to_string()));
                }
            };
        let server = std::sync::Arc::clone(bridge.server());
        let shutdown = Shutdown::new();
        let on_signal = shutdown.clone();
        let serving = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let unready_now = std::sync::Arc::clone(&serving);
        tokio::spawn(async move {
            stop_signal().await;
            unready_now.store(false, std::sync::atomic::Ordering::Relaxed);
            on_signal.trigger();
        });
        let service = http.map(|_| {
            janus_server_core::http::McpService::new(
                server.clone(),
                janus_server_core::http::HttpConfig {
                    observe: watch.is_some().then(|| {
                        std::sync::Arc::new(metrics::Requests)
                            as std::sync::Arc<dyn janus_server_core::http::Observe>
                    }),
                    ..janus_server_core::http::HttpConfig::default()
                },
            )
        });
        if let Some((listener, handle)) = watch {
            let status = std::sync::Arc::new(bridge.watch());
            let (ready, scrape) = (std::sync::Arc::clone(&status), status);
            let stats = service.clone();
            tokio::spawn(metrics::serve(
                listener,
                metrics::Endpoint {
                    handle,
                    serving,
                    ready: Some(std::sync::Arc::new(move || {
                        let connected = ready().is_some_and(|s| s.connected);
                        Box::pin(async move {
                            if connected {
                                Ok(())
                            } else {
                                Err("the backend is not connected (it is being connected again)"
                                    .to_owned())
                            }
                        })
                    })),
                    scrape: Some(std::sync::Arc::new(move || {
                        let s = scrape().unwrap_or(janus_bridge::BackendStatus {
                            connected: false,
                            reconnects: 0,
                        });
                        metrics::bridge_backend(s.connected, s.reconnects);
                    })),
                    stats: stats.map(|s| {
                        std::sync::Arc::new(move || s.stats())
                            as std::sync::Arc<
                                dyn Fn() -> janus_server_core::http::HttpStats + Send + Sync,
                            >
                    }),
                },
            ));
        }
        let config = Config::default();
        match (http, service) {
            (Some(addr), Some(service)) => {
                let listener = serve::bind(addr)?;
                let bound = listener.local_addr()?;
                tracing::info!(addr = %bound, "bridge listening (HTTP)");
                janus_server_core::http::serve_http(service, listener, &shutdown, config.drain)
                    .await?;
            }
            _ => {
                // NB. On a worker, not on the thread that blocks on the runtime: the jobs it
                // spawns and the backend connection's tasks run beside it, without a wake-up
                // of another thread at each step of a request.
                let shutdown = shutdown.clone();
                tokio::spawn(async move { serve::serve_stdio(server, &config, &shutdown).await })
                    .await
                    .map_err(std::io::Error::other)??;
            }
        }
        // NB. Every front request was answered: the backend is asked to end (its input
        // closed), not killed, so that it can finish what it does at its end.
        bridge.close(std::time::Duration::from_secs(1)).await;
        Ok::<Result<(), String>, std::io::Error>(Ok(()))
    });
    // NB. Not in the background: the tasks are dropped before the process ends, so the
    // backend's process is stopped with them (a stdio backend must not outlive its bridge).
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    match result {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(why)) => {
            if http.is_none() {
                refuse_waiting(&format!("the backend could not start: {why}"));
            }
            ExitCode::from(2)
        }
        Err(e) => {
            tracing::error!(error = %e, "the bridge failed");
            ExitCode::FAILURE
        }
    }
}

/// A stdio front whose backend could not start: each request its client sent (already, or
/// until it falls quiet for a moment or ends its input) is answered `-32603` with
/// `data.reason` saying `why`, so none is left without an answer when the bridge exits.
/// Bounded: at most [`REFUSED_AT_MOST`] bytes read, for at most two seconds.
fn refuse_waiting(why: &str) {
    use std::io::{Read, Write};
    use std::sync::mpsc::RecvTimeoutError;
    const QUIET: std::time::Duration = std::time::Duration::from_millis(200);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(2);
    let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
    // NB. A thread of its own: a read that never returns (a client that keeps its input
    // open) ends with the process.
    std::thread::spawn(move || {
        let mut input = std::io::stdin().lock();
        let mut chunk = vec![0; 64 * 1024];
        while let Ok(n @ 1..) = input.read(&mut chunk) {
            if tx.send(chunk[..n].to_vec()).is_err() {
                return;
            }
        }
    });
    let mut pending: Vec<u8> = Vec::new();
    let mut searched = 0;
    let mut read = 0;
    let mut out = std::io::stdout().lock();
    loop {
        let wait = QUIET.min(until.saturating_duration_since(std::time::Instant::now()));
        let ended = match rx.recv_timeout(wait) {
            Ok(chunk) => {
                read += chunk.len();
                pending.extend_from_slice(&chunk);
                false
            }
            Err(RecvTimeoutError::Disconnected) => true,
            Err(RecvTimeoutError::Timeout) => break,
        };
        let mut answers = bytes::BytesMut::new();
        // NB. The part of a long line searched already is not searched again.
        let mut start = 0;
        while let Some(at) = pending[searched.max(start)..]
            .iter()
            .position(|&b| b == b'\n')
        {
            let end = searched.max(start) + at;
            refuse_line(&pending[start..end], why, &mut answers);
            start = end + 1;
        }
        pending.drain(..start);
        searched = pending.len();
        if ended {
            refuse_line(&pending, why, &mut answers);
        }
        if out.write_all(&answers).and_then(|()| out.flush()).is_err()
            || ended
            || read > REFUSED_AT_MOST
        {
            break;
        }
    }
}

/// The most input [`refuse_waiting`] reads.
const REFUSED_AT_MOST: usize = 8 * 1024 * 1024;

/// Answers `line` when it is a request: `-32603` with `data.reason` `why`.
fn refuse_line(line: &[u8], why: &str, out: &mut bytes::BytesMut) {
    let Ok(msg) = janus_codec::Parser::new().parse_single(line) else {
        return;
    };
    if msg.is_request() {
        janus_model::shape::write_reason(
            out,
            msg.id(),
            janus_codec::INTERNAL_ERROR,
            "Internal error",
            why,
        );
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
