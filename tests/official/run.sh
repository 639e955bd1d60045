#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance) against `janus serve
# --http`: the server scenarios that need no fixture tools (transport, headers, DNS rebinding,
# stateless serving, sessions), at 2025-11-25 and at 2026-07-28.
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

log="$dir/janus.log"
JANUS_LOG=info "$JANUS_BIN" serve --http 127.0.0.1:0 >/dev/null 2>"$log" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
url=""
for _ in $(seq 50); do
  addr=$(grep -o 'listening (HTTP) addr=[^ ]*' "$log" | head -1 | sed 's/.*addr=//') || true
  if [[ -n "$addr" ]]; then
    url="http://$addr/mcp"
    break
  fi
  sleep 0.1
done
[[ -n "$url" ]] || fail "janus serve --http did not say where it listens"
echo "official: suite $SUITE, $(node --version), server $url"

failed=0
run() {
  local version=$1 scenario=$2
  if timeout 120 conformance server --url "$url" --spec-version "$version" --scenario "$scenario" \
    >"$dir/$version-$scenario.log" 2>&1; then
    echo "PASS $version $scenario ($(grep -o 'Passed: [0-9]*/[0-9]*' "$dir/$version-$scenario.log" | tail -1))"
  else
    echo "FAIL $version $scenario (log: $dir/$version-$scenario.log)"
    sed 's/\x1b\[[0-9;]*m//g' "$dir/$version-$scenario.log" | grep -E 'FAILURE|Passed' | head -20
    failed=1
  fi
}
for s in server-initialize ping server-session-lifecycle dns-rebinding-protection server-sse-multiple-streams tools-list; do
  run 2025-11-25 "$s"
done
for s in dns-rebinding-protection server-sse-multiple-streams http-header-validation tools-list; do
  run 2026-07-28 "$s"
done

kill -TERM "$pid"
code=0
wait "$pid" || code=$?
trap - EXIT
[[ $code -eq 0 ]] || {
  echo "FAIL janus serve --http exited $code after SIGTERM"
  failed=1
}
exit "$failed"
