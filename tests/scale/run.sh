#!/usr/bin/env bash
# The scale-out lane: Janus replicas sharing one real Redis.
#
#   bash tests/scale/run.sh
#
# Installs redis-server from Debian's packages under target/debs (tests/scale/debs.sh, no
# root needed), then runs janus-redis's tests against it (feature redis-tests: the store and
# the bus, two connections standing for two replicas, Redis killed and restarted) and three
# `janus serve --http --store redis://...` replicas (tests/replicas.rs, feature scale-tests).
# Every Redis and replica a test starts listens on loopback and is stopped by its pid.
# A package that cannot be installed fails the lane: nothing is skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."

bash tests/scale/debs.sh liblzf1 libjemalloc2 redis-tools redis-server
source tests/scale/env.sh
redis-server --version

timeout 900 cargo test --locked -p janus-redis --features redis-tests
timeout 900 cargo test --locked --features scale-tests --test replicas
