#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance) against `janus serve
# --http --tools conformance`, with both requirement sets (`--requirements 2025-11-25` and
# `--requirements 2026-07-28`): every scenario a revision requires, the ones it runs but does
# not score (extensions, pending) included. Any failing scenario, scored or not, fails the
# lane; then a few transport scenarios run against the demo tools too.
#
#   bash tests/official/run.sh
#
# Node 22 (the npm package node@22) and the suite are installed under target/official/, and
# reused while they hold the pinned versions. The server is target/release/janus (built here),
# or $JANUS_BIN, started on a free loopback port and stopped by its pid. A missing npm, a failed
# install or a failed scenario fails the lane: nothing is skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."

SUITE=0.2.0-alpha.12
NODE=22
dir=target/official
fail() {
  echo "official: $*" >&2
  exit 1
}

command -v npm >/dev/null 2>&1 || fail "no npm on PATH: the official suite cannot be installed"
pin="node@$NODE @modelcontextprotocol/conformance@$SUITE"
if [[ "$(cat "$dir/.janus-pin" 2>/dev/null)" != "$pin" ]] || [[ ! -x "$dir/node_modules/.bin/conformance" ]]; then
  echo "official: installing $pin into $dir"
  rm -rf "$dir"
  mkdir -p "$dir"
  timeout 600 npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
    "node@$NODE" "@modelcontextprotocol/conformance@$SUITE" >/dev/null ||
    fail "could not install $pin"
  echo "$pin" >"$dir/.janus-pin"
fi
export PATH="$PWD/$dir/node_modules/.bin:$PATH"
node --version | grep -q "^v$NODE\." || fail "node $(node --version) is not $NODE"

if [[ -z "${JANUS_BIN:-}" ]]; then
  cargo build --release --locked --quiet --bin janus
  JANUS_BIN="$PWD/target/release/janus"
fi

failed=0
pid=""
trap 'if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null || true; fi' EXIT

# start TOOLS: janus serve --tools TOOLS --http on a free loopback port; sets pid and url.
start() {
  local log="$dir/janus-$1.log"
  JANUS_LOG=info "$JANUS_BIN" serve --tools "$1" --http 127.0.0.1:0 >/dev/null 2>"$log" &
  pid=$!
  url=""
  for _ in $(seq 50); do
    addr=$(grep -o 'listening (HTTP) addr=[^ ]*' "$log" | head -1 | sed 's/.*addr=//') || true
    if [[ -n "$addr" ]]; then
      url="http://$addr/mcp"
      break
    fi
    sleep 0.1
  done
  [[ -n "$url" ]] || fail "janus serve --tools $1 --http did not say where it listens"
  echo "official: suite $SUITE, $(node --version), janus serve --tools $1 at $url"
}

# stop: SIGTERM, which must drain and exit 0.
stop() {
  kill -TERM "$pid"
  local code=0
  wait "$pid" || code=$?
  pid=""
  [[ $code -eq 0 ]] || {
    echo "FAIL janus serve --http exited $code after SIGTERM"
    failed=1
  }
}

plain() { sed 's/\x1b\[[0-9;]*m//g' "$1"; }

# requirements REVISION: every scenario the revision requires (scored or not) must pass.
requirements() {
  local version=$1 log="$dir/requirements-$1.log"
  local code=0
  timeout 900 conformance server --url "$url" --requirements "$version" >"$log" 2>&1 || code=$?
  local total bad unscored
  total=$(plain "$log" | grep -E '^Total: ' | tail -1)
  bad=$(plain "$log" | grep -cE '^✗ ' || true)
  unscored=$(plain "$log" | grep -E '^Not scored' | tail -1)
  plain "$log" | grep -E '^(✓|✗) '
  if [[ $code -ne 0 || $bad -ne 0 || -z "$total" ]]; then
    echo "FAIL requirements $version: $total; $unscored (exit $code, log: $log)"
    plain "$log" | grep -E 'FAILURE' | head -30
    failed=1
  else
    echo "PASS requirements $version: $total; ${unscored:-nothing run unscored}"
  fi
}

# run REVISION SCENARIO: one scenario, which must pass with no failure and no warning (a
# warning is a SHOULD not met, or a check that could not run: a vacuous pass).
run() {
  local version=$1 scenario=$2
  if timeout 120 conformance server --url "$url" --spec-version "$version" --scenario "$scenario" \
    >"$dir/$version-$scenario.log" 2>&1 &&
    plain "$dir/$version-$scenario.log" | grep -qE 'Passed: [0-9]+/[0-9]+, 0 failed, 0 warnings'; then
    echo "PASS $version $scenario ($(plain "$dir/$version-$scenario.log" | grep -o 'Passed: .*' | tail -1))"
  else
    echo "FAIL $version $scenario (log: $dir/$version-$scenario.log)"
    plain "$dir/$version-$scenario.log" | grep -E 'FAILURE|Passed' | head -20
    failed=1
  fi
}

start conformance
requirements 2025-11-25
requirements 2026-07-28
# SSE polling (SEP-1699): the priming event, the retry field, and the answer after the
# resumption, each a SUCCESS (the requirements set lets their warnings pass).
run 2025-11-25 server-sse-polling
stop

# The transport scenarios against the demo tools (the server `janus serve` runs by default).
start demo
for s in server-initialize server-session-lifecycle dns-rebinding-protection server-sse-multiple-streams; do
  run 2025-11-25 "$s"
done
for s in dns-rebinding-protection http-header-validation; do
  run 2026-07-28 "$s"
done
stop
trap - EXIT
exit "$failed"
