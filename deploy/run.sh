#!/usr/bin/env bash
# Starts the whole deployment on this machine: one Redis, three Janus replicas, and nginx (or
# HAProxy) in front, with the configurations of this folder. Ctrl-C stops them all.
#
#   bash deploy/run.sh [nginx|haproxy]        (default nginx)
#
# Clients use http://127.0.0.1:8080/mcp (nginx) or http://127.0.0.1:8081/mcp (HAProxy).
# Needs redis-server, nginx or haproxy on PATH, and a built janus (cargo build --release):
# `bash tests/scale/debs.sh redis-server nginx haproxy ...` installs them without root, as the
# CI lane does (tests/interop/run.sh scale).
set -euo pipefail
cd "$(dirname "$0")/.."
front=${1:-nginx}
janus=${JANUS_BIN:-target/release/janus}
run=$(mktemp -d)
pids=()
stop() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$run"
}
trap stop EXIT INT TERM

redis-server --port 6379 --bind 127.0.0.1 --save "" --appendonly no >"$run/redis.log" &
pids+=($!)
sleep 0.3
# Replicas behind one balancer share the key that seals `requestState`.
export JANUS_STATE_KEY=${JANUS_STATE_KEY:-$(head -c 32 /dev/urandom | base64)}
for i in 0 1 2; do
  "$janus" serve --http "127.0.0.1:700$((i + 1))" --node-id "r$i" \
    --store redis://127.0.0.1:6379 --metrics "127.0.0.1:910$((i + 1))" &
  pids+=($!)
done
case $front in
  nginx)
    mkdir -p "$run/nginx/tmp"
    cp deploy/nginx.conf "$run/nginx/"
    nginx -p "$run/nginx" -c nginx.conf -g 'daemon off;' &
    pids+=($!)
    echo "janus: http://127.0.0.1:8080/mcp (nginx), metrics on 127.0.0.1:9101-9103"
    ;;
  haproxy)
    haproxy -f deploy/haproxy.cfg -db &
    pids+=($!)
    echo "janus: http://127.0.0.1:8081/mcp (HAProxy), metrics on 127.0.0.1:9101-9103"
    ;;
  *) echo "usage: deploy/run.sh [nginx|haproxy]" >&2; exit 2 ;;
esac
wait
