#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance) against `janus serve
# --http`: the server scenarios that need no fixture tools (transport, headers, DNS rebinding,
# stateless serving, sessions) against the demo tools, then the scenarios of the fixtures Janus
# serves so far against `janus serve --tools conformance`, at 2025-11-25 and at 2026-07-28.
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

run() {
  local version=$1 scenario=$2
  if timeout 120 conformance server --url "$url" --spec-version "$version" --scenario "$scenario" \
    >"$dir/$version-$scenario.log" 2>&1; then
    echo "PASS $version $scenario ($(sed 's/\x1b\[[0-9;]*m//g' "$dir/$version-$scenario.log" | grep -o 'Passed: .*' | tail -1))"
  else
    echo "FAIL $version $scenario (log: $dir/$version-$scenario.log)"
    sed 's/\x1b\[[0-9;]*m//g' "$dir/$version-$scenario.log" | grep -E 'FAILURE|Passed' | head -20
    failed=1
  fi
}

start demo
for s in server-initialize ping server-session-lifecycle dns-rebinding-protection server-sse-multiple-streams tools-list; do
  run 2025-11-25 "$s"
done
for s in dns-rebinding-protection server-sse-multiple-streams http-header-validation tools-list; do
  run 2026-07-28 "$s"
done
stop

# The fixture scenarios: tools, prompts, resources, completions, logging, caching, input from
# the client (server-to-client requests at 2025-11-25, input_required rounds at 2026-07-28).
start conformance
both="tools-list tools-call-simple-text tools-call-image tools-call-audio tools-call-embedded-resource
  tools-call-mixed-content tools-call-error tools-call-with-progress completion-complete
  resources-list resources-read-text resources-read-binary resources-templates-read
  prompts-list prompts-get-simple prompts-get-with-args prompts-get-embedded-resource
  prompts-get-with-image json-schema-2020-12"
for s in $both tools-call-with-logging logging-set-level resources-subscribe resources-unsubscribe \
  tools-call-sampling tools-call-elicitation elicitation-sep1034-defaults elicitation-sep1330-enums; do
  run 2025-11-25 "$s"
done
mrtr="input-required-result-basic-elicitation input-required-result-basic-sampling
  input-required-result-basic-list-roots input-required-result-request-state
  input-required-result-multiple-input-requests input-required-result-multi-round
  input-required-result-missing-input-response input-required-result-non-tool-request
  input-required-result-result-type input-required-result-unsupported-methods
  input-required-result-tampered-state input-required-result-capability-check
  input-required-result-ignore-extra-params input-required-result-validate-input"
for s in $both sep-2164-resource-not-found caching http-custom-header-server-validation \
  server-stateless $mrtr; do
  run 2026-07-28 "$s"
done
stop
trap - EXIT
exit "$failed"
