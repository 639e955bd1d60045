//! `janus bench`: runs the benchmark, which is the `janus-bench` executable beside this one.
//!
//! The benchmark counts every allocation of its process (a global allocator) and links the
//! peers it measures against (rmcp, sonic-rs): kept in an executable of its own, none of it
//! is in the serving path of `janus serve`, `janus tools` or `janus call`. Under `cargo run`
//! (which builds only `janus`), the first `janus bench` builds `janus-bench` with the same
//! cargo and profile.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

/// The benchmark executable's name.
const BENCH: &str = "janus-bench";

/// Runs `janus-bench bench ARGS`, building it first when it is missing and cargo runs us.
pub(crate) fn run(args: &[OsString]) -> ExitCode {
    let Some(bench) = locate() else {
        eprintln!(
            "janus bench: no {BENCH} beside this executable; build it with `cargo build --release --bin {BENCH}` (or run `cargo run --release -- bench`)"
        );
        return ExitCode::from(2);
    };
    match Command::new(&bench).arg("bench").args(args).status() {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(s) => ExitCode::from(u8::try_from(s.code().unwrap_or(1)).unwrap_or(1)),
        Err(e) => {
            eprintln!("janus bench: cannot run {}: {e}", bench.display());
            ExitCode::FAILURE
        }
    }
}

/// The benchmark beside this executable; under `cargo run`, built (or brought up to date)
/// first, in this executable's profile.
fn locate() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let bench = exe.with_file_name(format!("{BENCH}{}", std::env::consts::EXE_SUFFIX));
    if let Some(cargo) = std::env::var_os("CARGO") {
        let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let mut build = Command::new(cargo);
        build
            .arg("build")
            .arg("--quiet")
            .arg("--locked")
            .arg("--manifest-path")
            .arg(manifest)
            .args(["--bin", BENCH]);
        // NB. The profile is read from where this executable was put: target/<profile>/.
        let profile = exe
            .parent()
            .and_then(|d| d.file_name())
            .and_then(|n| n.to_str())
            .unwrap_or("debug");
        match profile {
            "debug" => {}
            "release" => {
                build.arg("--release");
            }
            other => {
                build.args(["--profile", other]);
            }
        }
        if let Some(target) = exe.parent().and_then(|d| d.parent()) {
            build.env("CARGO_TARGET_DIR", target);
        }
        match build.status() {
            Ok(s) if s.success() => {}
            _ => {
                eprintln!("janus bench: building {BENCH} failed");
                return None;
            }
        }
    }
    bench.is_file().then_some(bench)
}
