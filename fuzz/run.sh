#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each, one after the other, on one core.
#
#   bash fuzz/run.sh SECONDS [TARGET...]      (default: every target)
#
# Installs cargo-fuzz when it is missing, generates the seed corpora and the dictionary
# (seeds.py), builds the targets (nightly, AddressSanitizer, debug assertions), runs each with
# libFuzzer's -max_total_time, and prints executions and coverage per target.
# Exits non-zero when any target crashed, timed out or ran out of memory; the input that did it
# is in fuzz/artifacts/<target>/.
set -euo pipefail

CARGO_FUZZ_VERSION=0.13.2
FUZZ="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(dirname "$FUZZ")"
ALL_TARGETS=(frame message era encode connection input)

if [[ $# -lt 1 || ! $1 =~ ^[0-9]+$ || $1 -lt 1 ]]; then
  echo "usage: $0 SECONDS [TARGET...]   (targets: ${ALL_TARGETS[*]})" >&2
  exit 2
fi
SECONDS_EACH=$1
shift
TARGETS=("$@")
[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=("${ALL_TARGETS[@]}")

say() { printf '\n--- fuzz: %s\n' "$*"; }

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "fuzz: the nightly toolchain is needed (rustup toolchain install nightly)" >&2
  exit 2
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  say "installing cargo-fuzz $CARGO_FUZZ_VERSION"
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
fi

say "seeds and dictionary"
DICT=()
if command -v python3 >/dev/null 2>&1; then
  python3 "$FUZZ/seeds.py"
  DICT=(-dict="$FUZZ/mcp.dict")
else
  echo "fuzz: python3 not found: running from the corpus already there, without seeds" >&2
fi

cd "$ROOT"
say "build"
# With debug assertions: the codec checks there what its unsafe code relies on (text.rs).
cargo +nightly fuzz build --debug-assertions
# The targets run from the binaries built here: sources edited during a long run change
# nothing in it, and nothing is rebuilt between targets.
HOST=$(rustc +nightly -vV | sed -n 's/^host: //p')
BIN="$FUZZ/target/$HOST/release"

LOGS="$FUZZ/target/run-logs"
mkdir -p "$LOGS"
declare -A RESULT STATS
failed=0
for t in "${TARGETS[@]}"; do
  say "$t for ${SECONDS_EACH}s"
  mkdir -p "$FUZZ/corpus/$t" "$FUZZ/artifacts/$t"
  log="$LOGS/$t.log"
  rc=0
  # One process (one core). A hard stop well after -max_total_time, in case a run hangs
  # outside libFuzzer's control.
  timeout --kill-after=30 $((SECONDS_EACH + 300)) \
    "$BIN/$t" -artifact_prefix="$FUZZ/artifacts/$t/" \
    -max_total_time="$SECONDS_EACH" -timeout=20 -rss_limit_mb=4096 \
    -print_final_stats=1 "${DICT[@]}" "$FUZZ/corpus/$t" >"$log" 2>&1 || rc=$?
  # The last status line: "#N DONE cov: C ft: F corp: U/S lim: L exec/s: E rss: R".
  status=$(grep -E '^#[0-9]+[[:space:]]+(DONE|INITED|NEW|REDUCE|pulse)' "$log" | tail -n 1 || true)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$status")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$status")
  corp=$(sed -nE 's/.* corp: ([0-9]+\/[0-9]+[a-zA-Z]*).*/\1/p' <<<"$status")
  STATS[$t]="execs ${execs:-?} (${rate:-?}/s), cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}"
  if [[ $rc -eq 0 ]]; then
    RESULT[$t]=ok
    echo "$t: ${STATS[$t]}"
  else
    RESULT[$t]="FAILED (exit $rc)"
    failed=1
    echo "$t: ${STATS[$t]}"
    echo "$t: FAILED (exit $rc); log $log; the end of it:" >&2
    grep -E "panicked at|^(thread|assertion|  left|  right)|SUMMARY|ERROR: libFuzzer|Test unit written" "$log" | head -n 20 >&2 || true
    echo "$t: replay with: cargo +nightly fuzz run $t fuzz/artifacts/$t/<file>" >&2
  fi
done

say "summary (${SECONDS_EACH}s per target)"
for t in "${TARGETS[@]}"; do
  printf '%-11s %-18s %s\n' "$t" "${RESULT[$t]}" "${STATS[$t]}"
done
exit "$failed"
