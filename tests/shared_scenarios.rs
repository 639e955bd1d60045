//! Every scenario of the shared conformance file (`../shared/conformance/scenarios.json`,
//! beside the checkout), run against the built `janus serve`. The file is read where it is,
//! never copied into the repository; `JANUS_SCENARIOS` names another path.
//!
//! Behind the feature `shared-scenarios` (CI: `cargo test --features shared-scenarios --test
//! shared_scenarios`), so that `cargo test` on a clone with nothing beside it needs no file
//! outside the repository. A missing file fails the test: it never skips.

mod support;

#[test]
fn every_shared_scenario_passes_against_janus_serve() {
    let path = std::env::var_os("JANUS_SCENARIOS").map_or_else(
        || {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../shared/conformance/scenarios.json")
        },
        std::path::PathBuf::from,
    );
    let n = support::run_file(&path);
    eprintln!("{n} shared scenarios passed");
}
