#!/usr/bin/env bash
# The official MCP Python SDK (`mcp` from PyPI, pinned) as the client of /ai/tools/mcp: the blog and tenants examples
# with Studio mounted (token required), on SQLite, PostgreSQL and MariaDB, as anonymous, users and staff; every call is also
# compared with the same request over REST, and the blog's resources (its OpenAPI document, each ViewSet's schema)
# are listed and read (tests/mcp/check_*.py); then MCP authorization end to end with the SDK's OAuth client and a
# real OpenID provider (tests/mcp/check_oauth.py, tests/oidc). Exits non-zero on any failure.
#
# Usage: bash .ci/mcp.sh   (from anywhere; builds the examples if needed)
# Environment: VIEWSET_TEST_PG_URL (default postgres://postgres:postgres@127.0.0.1:5432), MCP_BACKENDS
# ("sqlite postgres mysql"), VIEWSET_TEST_MYSQL_URL (default mysql://root@127.0.0.1:3306), MCP_EXAMPLES ("blog tenants"), MCP_OAUTH (0 skips the OAuth phase), MCP_OAUTH_BACKENDS ("sqlite postgres").
# Server logs go to target/mcp/.
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/server.sh # build_examples, free_port, server, stop_server (on exit)
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}
pg_url=${VIEWSET_TEST_PG_URL:-postgres://postgres:postgres@127.0.0.1:5432}
mysql_url=${VIEWSET_TEST_MYSQL_URL:-mysql://root@127.0.0.1:3306}
backends=${MCP_BACKENDS:-sqlite postgres mysql}
examples=${MCP_EXAMPLES:-blog tenants}
version=2.3.0
token=mcp-ci-studio-token

venv=$target/mcp-venv
if [[ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null || true)" != "$version" ]]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q "mcp==$version"
fi

# A fresh database `name` of `backend` (a file in `dir` on SQLite); prints its URL.
fresh_database() {
  local backend=$1 name=$2 dir=$3
  case $backend in
    sqlite) echo "sqlite://$dir/$name.db?mode=rwc" ;;
    mysql)
      mariadb -h 127.0.0.1 -P 3306 -u root -e "DROP DATABASE IF EXISTS $name; CREATE DATABASE $name" >&2
      echo "$mysql_url/$name" ;;
    *)
      psql -q "$pg_url/postgres" -c "DROP DATABASE IF EXISTS $name" -c "CREATE DATABASE $name" >&2
      echo "$pg_url/$name" ;;
  esac
}

# Starts `example` (in `workdir`, on `db_url`) on `port` with Studio behind its token and the extra `NAME=value`
# settings, its output in `log`, and waits until Studio answers (`server` is its process, for `stop_server`).
serve() {
  local example=$1 log=$2 port=$3
  shift 3
  (cd "$workdir" && exec env DATABASE_URL="$db_url" SERVICE_BIND="127.0.0.1:$port" RUST_LOG=warn \
    SERVICE_ENABLE_STUDIO=true SERVICE_STUDIO_REQUIRE_AUTH=true SERVICE_STUDIO_AUTH_TOKEN="$token" "$@" \
    "$target/debug/$example" >"$log" 2>&1) &
  server=$!
  for _ in $(seq 1 60); do
    curl -fsS -o /dev/null -H "X-Studio-Token: $token" "http://127.0.0.1:$port/studio/health" 2>/dev/null && return 0
    kill -0 "$server" 2>/dev/null || { cat "$log"; echo "$example exited" >&2; exit 1; }
    sleep 1
  done
}

build_examples
logs=$target/mcp
rm -rf "$logs" && mkdir -p "$logs"


for example in $examples; do
  for backend in $backends; do
    workdir=$(mktemp -d)
    db_name="viewset_mcp_${example}_$$"
    db_url=$(fresh_database "$backend" "$db_name" "$workdir")
    port=$(free_port)
    serve "$example" "$logs/$example-$backend.log" "$port"
    echo "==> MCP: $example on $backend"
    (cd tests/mcp && "$venv/bin/python" "check_$example.py" "http://127.0.0.1:$port" "$token")
    stop_server
    if [[ $backend == mysql ]]; then
      mariadb -h 127.0.0.1 -P 3306 -u root -e "DROP DATABASE IF EXISTS $db_name"
    fi
    if [[ $backend == postgres ]]; then
      psql -q "$pg_url/postgres" -c "DROP DATABASE IF EXISTS $db_name"
    fi
    rm -rf "$workdir"
  done
done
# MCP authorization end to end (tests/mcp/check_oauth.py): the official SDK's OAuth client against a real OpenID
# provider (tests/oidc/provider.js on 127.0.0.1, `npm ci` there first), the blog verifying its tokens
# (`SERVICE_JWT_*`) and admitting those issued for its MCP endpoint (`SERVICE_STUDIO_PUBLIC_URL`,
# `SERVICE_MCP_SCOPES`). On SQLite and PostgreSQL (the verifier touches no database; the policy is the blog's).
# MCP_OAUTH=0 skips it; MCP_OAUTH_BACKENDS narrows it.
oauth_backends=${MCP_OAUTH_BACKENDS:-sqlite postgres}
if [[ ${MCP_OAUTH:-1} != 0 ]]; then
  provider=""
  trap 'stop_server; [[ -z $provider ]] || kill "$provider" 2>/dev/null || true' EXIT
  [[ -d tests/oidc/node_modules/oidc-provider ]] || (cd tests/oidc && npm ci --no-audit --no-fund)
  for backend in $oauth_backends; do
    workdir=$(mktemp -d)
    db_name="viewset_mcp_oauth_$$"
    db_url=$(fresh_database "$backend" "$db_name" "$workdir")
    port=$(free_port)
    base="http://127.0.0.1:$port"
    (cd tests/oidc && exec env MCP_RESOURCE="$base/ai/tools/mcp" node provider.js 0 >"$logs/oidc-$backend.log" 2>&1) &
    provider=$!
    issuer=""
    for _ in $(seq 1 50); do
      issuer=$(awk '/^ready /{print $2}' "$logs/oidc-$backend.log")
      [[ -n "$issuer" ]] && break
      kill -0 "$provider" 2>/dev/null || { cat "$logs/oidc-$backend.log"; echo "the provider exited" >&2; exit 1; }
      sleep 0.2
    done
    [[ -n "$issuer" ]] || { echo "the provider did not start" >&2; kill "$provider"; exit 1; }
    serve blog "$logs/blog-oauth-$backend.log" "$port" SERVICE_JWT_ISSUER="$issuer" \
      SERVICE_JWT_AUDIENCE=https://blog.example SERVICE_JWT_STAFF_CLAIM=https://blog.example/staff \
      SERVICE_STUDIO_PUBLIC_URL="$base" SERVICE_MCP_SCOPES=mcp:tools
    echo "==> MCP OAuth: blog on $backend, provider $issuer"
    status=0
    (cd tests/mcp && "$venv/bin/python" check_oauth.py "$base" "$issuer") || status=$?
    stop_server
    kill "$provider" 2>/dev/null || true
    wait "$provider" 2>/dev/null || true
    if [[ $backend == postgres ]]; then
      psql -q "$pg_url/postgres" -c "DROP DATABASE IF EXISTS $db_name"
    fi
    rm -rf "$workdir"
    if [[ $status != 0 ]]; then
      echo "MCP OAuth check failed on $backend (logs: $logs/blog-oauth-$backend.log, $logs/oidc-$backend.log)" >&2
      exit "$status"
    fi
  done
fi
echo "MCP checks passed"
