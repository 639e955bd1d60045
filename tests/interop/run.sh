#!/usr/bin/env bash
# The Python interop lanes: the official python-sdk as a client of `janus serve` over stdio.
#
#   bash tests/interop/run.sh [v2] [v1]      (no argument: both lanes)
#
#   v2: mcp==2.3.0, its `Client` in the modes auto (server/discover probe), 2026-07-28 (pinned)
#       and legacy (initialize handshake); then the server surface of `--tools conformance`
#       (resources, prompts, completion, progress, elicitation and sampling callbacks) in the
#       three modes (surface_v2.py).
#   v1: mcp==1.30.0 (the latest 1.x), the initialize handshake; then its experimental tasks
#       client against Janus's 2025-11-25 tasks (tasks_v1.py), and the server surface as for
#       v2 on a handshake session (surface_v1.py).
#   http: over streamable HTTP (`janus serve --http`): mcp==2.3.0 in the modes 2026-07-28, auto
#         and legacy, with the names of `--tools names` that travel in Mcp-Name's Base64
#         sentinel (names_v2.py), and mcp==1.30.0's streamablehttp_client (a legacy session).
#   scale: three `janus serve --http --store redis://...` replicas behind nginx, then HAProxy,
#          with deploy/'s configurations (balancer.py): modern requests spread, legacy
#          sessions of mcp==2.3.0 and mcp==1.30.0 stay on their replica, a replica killed.
#          redis-server, nginx and haproxy come from Debian's packages (tests/scale/debs.sh).
#   client: janus-client as the client (tests/client_matrix.rs, feature client-matrix) of
#           janus serve, rmcp 3.11's server, mcp==2.3.0's MCPServer and mcp==1.30.0's FastMCP
#           (tests/interop/server_py.py) on every transport each has, in every mode that
#           applies; the rows of the README's "Supported servers" table go to
#           target/interop/client-matrix.md.
#
# Each lane has its own virtual environment under target/interop/, made here and reused while it
# still holds the pinned version. The server is target/release/janus (built here), or $JANUS_BIN.
# The Python that makes the environments is $JANUS_INTEROP_PYTHON, else python3 (3.10 or newer).
# What each connection carried is recorded in target/interop/wire/<lane>-<mode>.log.
# A missing Python, a failed install or a failed check fails the lane: nothing is skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."

MCP_V2=2.3.0
MCP_V1=1.30.0
INSTALL_TIMEOUT=600
LANE_TIMEOUT=300

base=target/interop
mkdir -p "$base"

fail() {
  echo "interop: $*" >&2
  exit 1
}

python=${JANUS_INTEROP_PYTHON:-python3}
command -v "$python" >/dev/null 2>&1 || fail "no Python interpreter ($python) on PATH: the Python lanes cannot run"
"$python" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 10))' 2>/dev/null ||
  fail "$python is older than 3.10 or lacks venv/ensurepip: the Python lanes cannot run"

if [[ -z "${JANUS_BIN:-}" ]]; then
  cargo build --release --locked --quiet --bin janus
  export JANUS_BIN="$PWD/target/release/janus"
fi
[[ -x "$JANUS_BIN" ]] || fail "no janus binary at $JANUS_BIN"

# venv DIR PIN: makes (or reuses) a virtual environment holding exactly mcp==PIN.
venv() {
  local dir=$1 pin=$2
  if [[ -x "$dir/bin/python" ]] && [[ "$(cat "$dir/.janus-pin" 2>/dev/null)" == "mcp==$pin" ]] &&
    "$dir/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$pin')" 2>/dev/null; then
    echo "interop: reusing $dir (mcp==$pin)"
    return 0
  fi
  echo "interop: making $dir with mcp==$pin"
  rm -rf "$dir"
  if ! "$python" -m venv "$dir" ||
    ! timeout "$INSTALL_TIMEOUT" "$dir/bin/python" -m pip install --quiet --disable-pip-version-check \
      --no-input "mcp==$pin"; then
    rm -rf "$dir"
    fail "could not install mcp==$pin into $dir"
  fi
  echo "mcp==$pin" >"$dir/.janus-pin"
}

# lane NAME PIN SCRIPT
lane() {
  local name=$1 pin=$2 script=$3
  local dir="$base/venv-$name-mcp-$pin"
  venv "$dir" "$pin"
  local resolved
  resolved=$("$dir/bin/python" -m pip freeze --disable-pip-version-check 2>/dev/null |
    grep -iE '^(mcp|mcp[-_]types|pydantic|pydantic[-_]core|anyio)==' | tr '\n' ' ' || true)
  echo "interop: $name: $("$dir/bin/python" --version), ${resolved}server $JANUS_BIN"
  # -B: no __pycache__ in the source tree.
  # shellcheck disable=SC2086 # the script may carry its arguments
  timeout "$LANE_TIMEOUT" "$dir/bin/python" -B tests/interop/$script
}

lanes=("$@")
[[ ${#lanes[@]} -gt 0 ]] || lanes=(v2 v1)
failed=0
for l in "${lanes[@]}"; do
  case $l in
    v2)
      lane py-v2 "$MCP_V2" client_v2.py || failed=1
      lane py-v2 "$MCP_V2" surface_v2.py || failed=1
      ;;
    http)
      lane py-v2 "$MCP_V2" http_v2.py || failed=1
      lane py-v2 "$MCP_V2" "surface_v2.py --http" || failed=1
      lane py-v2 "$MCP_V2" names_v2.py || failed=1
      lane py-v1 "$MCP_V1" http_v1.py || failed=1
      ;;
    v1)
      lane py-v1 "$MCP_V1" client_v1.py || failed=1
      lane py-v1 "$MCP_V1" tasks_v1.py || failed=1
      lane py-v1 "$MCP_V1" surface_v1.py || failed=1
      ;;
    client)
      venv "$base/venv-py-v1-mcp-$MCP_V1" "$MCP_V1"
      venv "$base/venv-py-v2-mcp-$MCP_V2" "$MCP_V2"
      JANUS_MATRIX_PY_V1="$PWD/$base/venv-py-v1-mcp-$MCP_V1/bin/python" \
        JANUS_MATRIX_PY_V2="$PWD/$base/venv-py-v2-mcp-$MCP_V2/bin/python" \
        timeout "$LANE_TIMEOUT" cargo test --locked --quiet --features client-matrix --test client_matrix \
        -- --nocapture --test-threads 1 >"$base/client-matrix.log" 2>&1 || failed=1
      sed -E 's/^(test [a-z0-9_]+ \.\.\. |\.+)//' "$base/client-matrix.log" | grep -E '^\| ' >"$base/client-matrix.md" || true
      grep -E '^(test |\| )|panicked|test result' "$base/client-matrix.log" || true
      ;;
    bridge)
      venv "$base/venv-py-v1-mcp-$MCP_V1" "$MCP_V1"
      JANUS_BRIDGE_PY_V1="$PWD/$base/venv-py-v1-mcp-$MCP_V1/bin/python" \
        lane py-v2 "$MCP_V2" bridge_v2.py || failed=1
      JANUS_BRIDGE_PY_V1="$PWD/$base/venv-py-v1-mcp-$MCP_V1/bin/python" \
        lane py-v2 "$MCP_V2" bridge_surface_v2.py || failed=1
      lane py-v1 "$MCP_V1" bridge_v1.py || failed=1
      ;;
    scale)
      bash tests/scale/debs.sh liblzf1 libjemalloc2 redis-tools redis-server nginx-common nginx \
        liblua5.3-0 libopentracing1 libopentracing-c-wrapper0 haproxy
      venv "$base/venv-py-v1-mcp-$MCP_V1" "$MCP_V1"
      # shellcheck disable=SC1091
      (source tests/scale/env.sh &&
        JANUS_SCALE_PY_V1="$PWD/$base/venv-py-v1-mcp-$MCP_V1/bin/python" \
          lane py-v2 "$MCP_V2" balancer.py) || failed=1
      ;;
    *) fail "unknown lane $l (v2, v1, http, client, bridge or scale)" ;;
  esac
done
exit "$failed"
