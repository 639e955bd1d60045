//! `janus`: the command line of the Janus MCP server.
//!
//! `janus serve` speaks MCP on stdin/stdout (or on TCP with `--listen`); stdout carries
//! protocol bytes only, and logs go to stderr.
//! `janus bench` measures Janus against its baselines.

use clap::{Parser, Subcommand};
use janus_server_core::demo;
use janus_server_core::serve::{self, Config};
use std::net::SocketAddr;
use std::process::ExitCode;

/// Janus: a fast dual-era Model Context Protocol server.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the demo tools (echo, add, fail, sleep) over MCP.
    Serve {
        /// Listen on this TCP address (newline-delimited JSON-RPC, one connection each) instead
        /// of serving one connection on stdin/stdout.
        #[arg(long)]
        listen: Option<SocketAddr>,
        /// The longest line accepted, in bytes.
        #[arg(long, default_value_t = janus_codec::DEFAULT_MAX_FRAME_LEN)]
        max_frame_len: usize,
        /// The most asynchronous requests in flight per connection before reading pauses.
        #[arg(long, default_value_t = serve::DEFAULT_MAX_IN_FLIGHT)]
        max_in_flight: usize,
    },
    /// Measure Janus against its baselines and print side-by-side tables.
    Bench {
        /// Seconds spent measuring each message of the codec corpus.
        #[arg(long, default_value_t = 0.5)]
        seconds: f64,
        /// Tiny counts: every server and every check, in seconds (for CI).
        #[arg(long)]
        smoke: bool,
    },
    /// The benchmark's floor: answers each line with a fixed result and its id, naively.
    #[command(hide = true)]
    Floor,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve {
            listen,
            max_frame_len,
            max_in_flight,
        } => {
            init_logs();
            let config = Config {
                max_frame_len,
                max_in_flight: max_in_flight.max(1),
            };
            run_serve(listen, config)
        }
        Command::Bench { seconds, smoke } => run_bench(seconds, smoke),
        Command::Floor => {
            match janus_bench::load::floor(std::io::stdin().lock(), std::io::stdout().lock()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(_) => ExitCode::FAILURE,
            }
        }
    }
}

fn run_bench(seconds: f64, smoke: bool) -> ExitCode {
    let budget = std::time::Duration::from_secs_f64(if smoke { 0.05 } else { seconds });
    print!("{}", janus_bench::quick::run(budget));
    println!();
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("janus bench: cannot find its own executable: {e}");
            return ExitCode::FAILURE;
        }
    };
    let targets = [
        janus_bench::load::Target {
            name: "janus".into(),
            program: exe.clone(),
            args: vec!["serve".into()],
            echoes: true,
        },
        janus_bench::load::Target {
            name: "floor".into(),
            program: exe,
            args: vec!["floor".into()],
            echoes: false,
        },
    ];
    let plan = if smoke {
        janus_bench::e2e::Plan::smoke()
    } else {
        janus_bench::e2e::Plan::quick()
    };
    match janus_bench::e2e::run(&targets, plan) {
        Ok(report) => {
            print!("{report}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("janus bench: a run failed: {e}");
            ExitCode::FAILURE
        }
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

fn run_serve(listen: Option<SocketAddr>, config: Config) -> ExitCode {
    let server = demo::server();
    let runtime = match listen {
        None => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        Some(_) => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build(),
    };
    let runtime = match runtime {
        Ok(r) => r,
        Err(e) => {
            tracing::error!(error = %e, "cannot start the runtime");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        match listen {
            None => serve::serve_stdio(server, &config).await,
            Some(addr) => {
                let listener = serve::bind(addr).await?;
                tracing::info!(addr = %listener.local_addr()?, "listening");
                serve::serve_tcp(server, listener, config).await
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
