#!/usr/bin/env bash
# The codec comparison with every contender built for this machine's CPU
# (`-C target-cpu=native`): sonic-rs and simd-json then use AVX2 (or wider) at compile time,
# as they do in a build that targets the machine. Janus picks its wide string masks at run
# time either way.
#
# Usage: bash benches/native.sh [--seconds S]          janus bench --codec-only, from that build
#        bash benches/native.sh --criterion [FILTER]   the criterion codec bench, from that build
# A second build, in target/native: minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
export RUSTFLAGS="-C target-cpu=native"
grep -m1 -o -w -E 'avx512bw|avx2' /proc/cpuinfo | head -1 | sed 's/^/widest vector extension of this CPU: /' || true
if [[ "${1:-}" == "--criterion" ]]; then
  shift
  exec cargo bench --locked --target-dir target/native -p janus-bench --bench codec -- "$@"
fi
cargo build --release --locked --target-dir target/native --bin janus --bin janus-bench
exec target/native/release/janus bench --codec-only "$@"
