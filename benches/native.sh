#!/usr/bin/env bash
# The codec comparison of `janus bench --codec-only` with every contender built for this
# machine's CPU (`-C target-cpu=native`): sonic-rs and simd-json then use AVX2 (or wider) at
# compile time, as they do in a build that targets the machine. Janus picks its wide string
# masks at run time either way.
#
# Usage: bash benches/native.sh [--seconds S]   (a second build, in target/native: minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
RUSTFLAGS="-C target-cpu=native" cargo build --release --locked --target-dir target/native --bin janus
grep -m1 -o -w -E 'avx512bw|avx2' /proc/cpuinfo | head -1 | sed 's/^/widest vector extension of this CPU: /' || true
exec target/native/release/janus bench --codec-only "$@"
