#!/usr/bin/env bash
# The deploy recipe (examples/blog/deploy: Dockerfile, compose.yaml, haproxy.cfg), checked as far as a machine
# without a container engine allows (CI's has the docker client only, no daemon):
#   1. compose.yaml validates against the Compose specification (check-jsonschema's vendored copy);
#   2. haproxy.cfg parses (Debian's haproxy -c);
#   3. every setting of the blog's environment in compose.yaml is a name the blog or viewset-core reads;
#   4. the Dockerfile: its build stage builds with the lockfile (current, naming the package; the package is built
#      here in debug with the workspace's features, not in release with its own), the binary it copies is that
#      package's, and the runtime stage is a slim image that runs as a user without privileges and installs no build
#      tool;
#   5. the blog starts with compose.yaml's environment (its hosts replaced by this machine's PostgreSQL, NATS and
#      Redis) and answers on its port and its metrics port.
# Not run here: `docker build` (so the release build with the package's own features), `docker compose up`, three instances in containers behind HAProxy (the cluster
# tests run three blog processes behind Debian's HAProxy: tests/tests/suite/cluster_processes.rs).
# Usage: bash .ci/deploy.sh   (needs target/ci-venv with check-jsonschema, haproxy, PostgreSQL, NATS, Redis)
set -euo pipefail
cd "$(dirname "$0")/.."
deploy=examples/blog/deploy
venv=${VENV:-target/ci-venv}
fail() { echo "deploy check: $*" >&2; exit 1; }

"$venv/bin/check-jsonschema" --builtin-schema vendor.compose-spec "$deploy/compose.yaml" \
  || fail "compose.yaml is not a valid Compose file"
haproxy -c -q -f "$deploy/haproxy.cfg" || fail "haproxy.cfg does not parse"

# The blog's environment in compose.yaml, one NAME=VALUE a line (the YAML anchor `x-blog` resolved).
env_file=$(mktemp)
"$venv/bin/python" - "$deploy/compose.yaml" >"$env_file" <<'PY'
import sys
from ruamel.yaml import YAML
compose = YAML(typ="safe").load(open(sys.argv[1]))
for name, value in compose["services"]["blog-1"]["environment"].items():
    print(f"{name}={value}")
PY
while IFS='=' read -r name _; do
  grep -rqF "\"$name\"" examples/blog/src viewset-core/src || fail "compose.yaml sets $name, which nothing reads"
done <"$env_file"

# The Dockerfile's stages.
build_stage=$(awk '/^FROM .* AS build/{on=1} /^FROM .* AS run/{on=0} on' "$deploy/Dockerfile")
run_stage=$(awk '/^FROM .* AS run/{on=1} on' "$deploy/Dockerfile")
cargo_line=$(grep -E '^RUN cargo build ' <<<"$build_stage") || fail "no RUN cargo build in the build stage"
package=$(grep -oE -- '-p [a-z0-9_-]+' <<<"$cargo_line" | cut -d' ' -f2)
grep -q -- '--locked' <<<"$cargo_line" || fail "the Dockerfile's build does not use the lockfile"
# The lockfile is current and names the package (what `--locked -p` needs); the package itself is built with the
# workspace's features, as every other step builds it (`-p` alone would build viewset-core once more, with fewer).
cargo metadata --locked --format-version 1 --no-deps | grep -q "\"name\":\"$package\"" \
  || fail "the lockfile is stale or names no package $package"
cargo build --quiet --workspace || fail "the workspace does not build"
grep -qE "^COPY --from=build /src/target/release/$package " <<<"$run_stage" \
  || fail "the runtime stage does not copy the binary of $package"
grep -qE '^FROM [a-z./:-]+-slim AS run' <<<"$run_stage" || fail "the runtime stage is not a slim image"
user=$(grep -E '^USER ' <<<"$run_stage" | tail -n 1 | cut -d' ' -f2)
[[ -n $user && $user != root && $user != 0 ]] || fail "the runtime stage runs as root"
if grep -qiE 'cargo|rustc|rustup|gcc|build-essential|clang' <<<"$run_stage"; then
  fail "the runtime stage installs or runs a build tool"
fi

# The blog with compose.yaml's environment, its hosts this machine's.
pg=${VIEWSET_TEST_PG_URL:-postgres://postgres:postgres@127.0.0.1:5432}
nats=${VIEWSET_TEST_NATS_URL:-nats://127.0.0.1:4222}
psql "$pg/postgres" -qc "DROP DATABASE IF EXISTS viewset_ci_deploy" -c "CREATE DATABASE viewset_ci_deploy" >/dev/null
port=18090 metrics=18091
settings=()
while IFS='=' read -r name value; do
  case $name in
    DATABASE_URL) value="$pg/viewset_ci_deploy" ;;
    SERVICE_EVENT_BUS) value="$nats" ;;
    SERVICE_EVENT_STREAM) value="viewset_ci_deploy_$$" ;;
    SERVICE_THROTTLE_REDIS) value="redis://127.0.0.1:6379" ;;
    SERVICE_METRICS_ADDR) value="127.0.0.1:$metrics" ;;
  esac
  settings+=("$name=$value")
done <"$env_file"
log=$(mktemp)
env "${settings[@]}" SERVICE_BIND="127.0.0.1:$port" "target/debug/$package" >"$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 60); do
  curl -fsS "http://127.0.0.1:$port/api/posts/?limit=1" >/dev/null 2>&1 && break
  kill -0 $server 2>/dev/null || { cat "$log"; fail "the blog exited with compose.yaml's settings"; }
  sleep 1
done
curl -fsS "http://127.0.0.1:$port/api/posts/?limit=1" | grep -q '"results"' || { cat "$log"; fail "no list"; }
curl -fsS "http://127.0.0.1:$metrics/metrics" | grep -q '^viewset_' || { cat "$log"; fail "no metrics"; }
grep -q '"level"' "$log" || { cat "$log"; fail "SERVICE_LOG_FORMAT=json wrote no JSON line"; }
kill $server; wait $server 2>/dev/null || true
psql "$pg/postgres" -qc "DROP DATABASE IF EXISTS viewset_ci_deploy" >/dev/null || true
echo "deploy recipe: compose.yaml valid, haproxy.cfg parses, the build's lockfile and package check out, the runtime stage is slim and" \
  "unprivileged, the blog serves with compose.yaml's settings"
