//! `janus-bench`: the benchmark of Janus, `janus bench`'s executable (the `janus` command runs
//! it), and the peers it measures Janus against (rmcp, the floors), each a process of this
//! executable. Janus itself is measured as the `janus` executable beside it, as a user runs it.
//!
//! The benchmark counts allocations in its own process (a global allocator): that is why it
//! is not part of `janus`, whose serving path carries nothing of it.

use clap::{Parser, Subcommand};
use std::net::SocketAddr;
use std::process::ExitCode;

/// Counts allocations (relaxed atomics, a few nanoseconds each) so that the benchmark can
/// report allocations per request.
#[global_allocator]
static GLOBAL: &stats_alloc::StatsAlloc<std::alloc::System> = &stats_alloc::INSTRUMENTED_SYSTEM;

/// The benchmark of Janus, and the peers it measures Janus against.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
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
    /// Load and faults on one `janus serve` (bounded, loopback): HTTP and stdio floods (none
    /// lost or duplicated, memory flat), idle connections, a client that never reads, a
    /// cancellation storm, a task flood, SIGTERM under load. Exit 1 on the first failure.
    Soak {
        /// The sizes of the scale-out issue (1M requests, 10,000 idle connections, ...); the
        /// default is a small size (CI).
        #[arg(long)]
        full: bool,
        /// Also task-creating calls through three replicas on one Redis against one replica
        /// with the in-memory store (needs `redis-server` on PATH).
        #[arg(long)]
        with_redis: bool,
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
    /// The benchmark's relay floor: runs CMD and copies bytes between it and this
    /// process's stdio, both ways, reading nothing of them: what any bridge in a process of
    /// its own costs at least (two more pipes and one more process on the way).
    #[command(hide = true)]
    Relay {
        /// The server's command and its arguments.
        #[arg(trailing_var_arg = true, required = true)]
        cmd: Vec<String>,
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
    let Some(janus) = janus_exe() else {
        eprintln!(
            "janus-bench: no janus executable beside this one (build it: cargo build --release)"
        );
        return ExitCode::from(2);
    };
    match Cli::parse().command {
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
                run_client_bench(&janus, smoke, full)
            } else if codec_only {
                let budget = std::time::Duration::from_secs_f64(if smoke { 0.05 } else { seconds });
                print!("{}", janus_bench::quick::run(budget));
                ExitCode::SUCCESS
            } else {
                run_bench(&janus, seconds, smoke, full, http_only, against)
            }
        }
        Command::Soak { full, with_redis } => {
            let size = if full {
                janus_bench::soak::Size::FULL
            } else {
                janus_bench::soak::Size::SMALL
            };
            let redis = || {
                if !with_redis {
                    return Ok(String::new());
                }
                let r = janus_bench::soak::redis_tasks(&janus, size)?;
                println!("- {r}");
                Ok(r)
            };
            match janus_bench::soak::run(&janus, size).and_then(|_| redis()) {
                Ok(_) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("{e}");
                    ExitCode::FAILURE
                }
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
        Command::Relay { cmd } => match janus_bench::load::relay(&cmd) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("relay: {e}");
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

/// The name of the stdio bridge's row in the end-to-end report.
const BRIDGE_STDIO: &str = janus_bench::e2e::BRIDGE;

/// The `janus` executable beside this one: the server the benchmark measures.
fn janus_exe() -> Option<std::path::PathBuf> {
    let own = std::env::current_exe().ok()?;
    let janus = own.with_file_name(format!("janus{}", std::env::consts::EXE_SUFFIX));
    janus.is_file().then_some(janus)
}

fn run_bench(
    janus: &std::path::Path,
    seconds: f64,
    smoke: bool,
    full: bool,
    http_only: bool,
    against: Option<std::path::PathBuf>,
) -> ExitCode {
    use janus_bench::{allocs, e2e, load};
    let Ok(own) = std::env::current_exe() else {
        eprintln!("janus bench: cannot find its own executable");
        return ExitCode::FAILURE;
    };
    if http_only {
        return match run_http_bench(janus, &own, against.as_deref(), smoke, full) {
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
    let target =
        |name: &str, program: &std::path::Path, args: &[&str], echoes: bool| load::Target {
            name: name.into(),
            program: program.to_owned(),
            args: args.iter().map(|&a| a.to_owned()).collect(),
            echoes,
            light: false,
            // NB. The floor serves echo only.
            surface: echoes,
            legacy_only: false,
        };
    let janus_path = janus.to_string_lossy().into_owned();
    let mut targets = vec![
        target("janus", janus, &["serve"], true),
        // NB. The bridge's cost: a client of either era through `janus bridge` in front of
        // `janus serve` spoken to in a handshake revision (the report compares its modern
        // row with janus's legacy one).
        target(
            BRIDGE_STDIO,
            janus,
            &["bridge", "--mode", "legacy", "--", &janus_path, "serve"],
            true,
        ),
        target("rmcp 3.11 (stdio)", &own, &["rmcp-peer"], true),
        target("rmcp 3.11 (pipes)", &own, &["rmcp-peer", "--pipes"], true),
        target("floor", &own, &["floor"], false),
        // NB. The floor of any bridge: `janus serve` behind a process that only copies.
        target(
            janus_bench::e2e::RELAY,
            &own,
            &["relay", &janus_path, "serve"],
            true,
        ),
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
                legacy_only: false,
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
            legacy_only: false,
        }),
        None => absent.push((
            "python-sdk v2".to_owned(),
            "no Python with mcp==2.3.0 found (bash tests/interop/run.sh v2 creates one; or set \
             JANUS_BENCH_PYTHON)"
                .to_owned(),
        )),
    }
    // NB. python-sdk v1 speaks the handshake revisions only: served directly to legacy
    // clients, and through the bridge to either era (the bridge must not be its bottleneck).
    match python_with("JANUS_BENCH_PYTHON_V1", "1.30.0") {
        Some(python) => {
            let py = python.to_string_lossy().into_owned();
            targets.push(load::Target {
                name: "python-sdk v1 1.30.0".into(),
                program: python,
                args: vec![janus_bench::PY_PEER.to_owned()],
                echoes: true,
                light: true,
                surface: false,
                legacy_only: true,
            });
            targets.push(load::Target {
                name: janus_bench::e2e::BRIDGE_PY_V1.into(),
                program: janus.to_owned(),
                args: vec![
                    "bridge".into(),
                    "--mode".into(),
                    "legacy".into(),
                    "--".into(),
                    py,
                    janus_bench::PY_PEER.to_owned(),
                ],
                echoes: true,
                light: true,
                surface: false,
                legacy_only: false,
            });
        }
        None => absent.push((
            "python-sdk v1".to_owned(),
            "no Python with mcp==1.30.0 found (bash tests/interop/run.sh v1 creates one; or set \
             JANUS_BENCH_PYTHON_V1)"
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
    match run_http_bench(janus, &own, against.as_deref(), smoke, full) {
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
    match janus_bench::client_bench::run(janus, client_plan, &count) {
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
fn run_client_bench(janus: &std::path::Path, smoke: bool, full: bool) -> ExitCode {
    use janus_bench::client_bench::{ClientPlan, run};
    let plan = if smoke {
        ClientPlan::smoke()
    } else if full {
        ClientPlan::full()
    } else {
        ClientPlan::quick()
    };
    let count = || GLOBAL.stats().allocations;
    match run(janus, plan, &count) {
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
    janus: &std::path::Path,
    own: &std::path::Path,
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
    let janus_path = janus.to_string_lossy().into_owned();
    let mut http_targets = vec![
        http_target("janus", janus, &["serve", "--http", loopback], &both),
        http_target(
            janus_bench::http_bench::BRIDGE,
            janus,
            &[
                "bridge",
                "--http",
                loopback,
                "--mode",
                "legacy",
                "--",
                &janus_path,
                "serve",
            ],
            &[load::Era::Modern],
        ),
        http_target(
            "rmcp 3.11 (stateless JSON)",
            own,
            &["rmcp-peer", "--http", loopback],
            &[load::Era::Modern],
        ),
        http_target(
            "rmcp 3.11 (sessions)",
            own,
            &["rmcp-peer", "--http", loopback, "--sessions"],
            &[load::Era::Legacy],
        ),
        http_target(
            "floor (bare hyper)",
            own,
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
    python_with("JANUS_BENCH_PYTHON", "2.3.0")
}

/// The Python of a virtual environment with mcp==`version`: `$var`, else the one the interop
/// lane creates (`target/interop/venv-py-vN-mcp-VERSION`).
fn python_with(var: &str, version: &str) -> Option<std::path::PathBuf> {
    let major = version.split('.').next().unwrap_or("2");
    let candidate = std::env::var_os(var).map_or_else(
        || {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
                "target/interop/venv-py-v{major}-mcp-{version}/bin/python"
            ))
        },
        std::path::PathBuf::from,
    );
    let check =
        format!("import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '{version}')");
    let ok = std::process::Command::new(&candidate)
        .args(["-c", &check])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(candidate)
}
