#!/usr/bin/env bash
# The client leg of the official MCP conformance suite (@modelcontextprotocol/conformance):
# the suite starts a scenario server (and an authorization server) per scenario and runs
# `janus conformance-client URL` against it, with both requirement sets
# (`--requirements 2026-07-28` and `--requirements 2025-11-25`). Prints each scenario's
# result, the scored and not-scored totals of each set, and the checks that failed.
#
#   bash tests/official/client.sh            # both sets
#   bash tests/official/client.sh 2025-11-25 # one
#
# A lane of .ci/run. The exit code is 0 only when every scenario of every set run, scored or
# not, passed.
#
# Node 22 (the npm package node@22) and the suite are installed under target/official/, as
# tests/official/run.sh does (the same pin, so either script reuses the other's install). The
# client is $JANUS_BIN, or target/release/janus (built here) copied to target/official/ first,
# so that a build running beside this one cannot swap it mid-run.
set -euo pipefail
cd "$(dirname "$0")/../.."

SUITE=0.2.0-alpha.12
NODE=22
dir=target/official
fail() {
  echo "official client: $*" >&2
  exit 1
}

command -v npm >/dev/null 2>&1 || fail "no npm on PATH: the official suite cannot be installed"
pin="node@$NODE @modelcontextprotocol/conformance@$SUITE"
if [[ "$(cat "$dir/.janus-pin" 2>/dev/null)" != "$pin" ]] || [[ ! -x "$dir/node_modules/.bin/conformance" ]]; then
  echo "official client: installing $pin into $dir"
  rm -rf "$dir/node_modules" "$dir/package.json" "$dir/package-lock.json"
  mkdir -p "$dir"
  timeout 600 npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
    "node@$NODE" "@modelcontextprotocol/conformance@$SUITE" >/dev/null ||
    fail "could not install $pin"
  echo "$pin" >"$dir/.janus-pin"
fi
export PATH="$PWD/$dir/node_modules/.bin:$PATH"
node --version | grep -q "^v$NODE\." || fail "node $(node --version) is not $NODE"

if [[ -z "${JANUS_BIN:-}" ]]; then
  target="${CARGO_TARGET_DIR:-target}"
  cargo build --release --locked --quiet --bin janus
  cp "$target/release/janus" "$dir/janus-client-leg"
  JANUS_BIN="$PWD/$dir/janus-client-leg"
fi

plain() { sed 's/\x1b\[[0-9;]*m//g' "$1"; }

# failures OUT: each scenario under OUT with a FAILURE check, one line: how many failed, the
# first one, and the last line the client wrote to stderr (why it stopped, if it did).
failures() {
  local out=$1
  node -e '
    const fs = require("fs"), path = require("path");
    const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(path.join(d, e.name)) : e.name === "checks.json" ? [path.join(d, e.name)] : []);
    for (const f of walk(process.argv[1]).sort()) {
      const dir = path.dirname(f);
      const scenario = path.relative(process.argv[1], dir).replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, "");
      const bad = JSON.parse(fs.readFileSync(f, "utf8")).filter((c) => c.status === "FAILURE");
      if (bad.length === 0) continue;
      let said = "";
      try {
        said = fs.readFileSync(path.join(dir, "stderr.txt"), "utf8").trim().split("\n").pop() || "";
      } catch {}
      const first = `${bad[0].id}: ${bad[0].errorMessage || bad[0].description || ""}`;
      console.log(`  ${scenario}: ${bad.length} failed, first ${first.slice(0, 140)}`);
      if (said) console.log(`      client: ${said.slice(0, 160)}`);
    }' "$out"
}

failed=0
# leg REVISION: the scenarios the revision requires, and those it runs without scoring.
leg() {
  local version=$1
  local log="$dir/client-$version.log" out="$dir/client-$version"
  rm -rf "$out"
  local code=0
  timeout 1800 conformance client --command "$JANUS_BIN conformance-client" \
    --requirements "$version" --timeout 30000 -o "$out" >"$log" 2>&1 || code=$?
  echo "== official client leg, requirements $version (suite $SUITE, $(node --version), exit $code)"
  plain "$log" | grep -E '^(✓|✗) ' || true
  local total unscored
  total=$(plain "$log" | grep -E '^Total: ' | tail -1)
  unscored=$(plain "$log" | grep -E '^Not scored' | tail -1)
  # The scored scenarios are those listed before the "Not scored" block; the others after.
  local scored_pass scored_fail
  scored_pass=$(plain "$log" | sed '/^Not scored/,$d' | grep -cE '^✓ ' || true)
  scored_fail=$(plain "$log" | sed '/^Not scored/,$d' | grep -cE '^✗ ' || true)
  local ns_names ns_pass=0 ns_fail=0
  ns_names=$(plain "$log" | sed -n '/^Not scored/,$p' | grep -oE '^  (✓|✗) [^ ]+' || true)
  if [[ -n "$ns_names" ]]; then
    ns_pass=$(grep -c '✓' <<<"$ns_names" || true)
    ns_fail=$(grep -c '✗' <<<"$ns_names" || true)
  fi
  scored_pass=$((scored_pass - ns_pass))
  scored_fail=$((scored_fail - ns_fail))
  echo "-- $version: scored $scored_pass passed, $scored_fail failed; not scored $ns_pass passed, $ns_fail failed (checks: $total)"
  [[ -n "$unscored" ]] && echo "-- $unscored"
  if [[ $((scored_fail + ns_fail)) -ne 0 || -z "$total" ]]; then
    echo "-- failed checks (log: $log, results: $out):"
    failures "$out"
    failed=1
  fi
}

versions=("$@")
[[ ${#versions[@]} -gt 0 ]] || versions=(2026-07-28 2025-11-25)
for v in "${versions[@]}"; do
  leg "$v"
done
exit "$failed"
