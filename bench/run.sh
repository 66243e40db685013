#!/usr/bin/env bash
# The benchmark suite of viewset, in one command: bash bench/run.sh [options of `viewset-bench run`]
#
# Installs what it needs if missing (Debian's wrk; a virtualenv at bench/.venv with aksara-framework 0.7.2 and
# uvicorn), starts PostgreSQL at 127.0.0.1:5432 if it is down, builds the bench in release mode into
# target-bench/ (never target/), then runs every server against its own fresh database and writes
# bench/results/latest.json, every table in bench/results/latest.md and the summary in BENCHMARKS.md. Options:
#   --database mariadb   viewset against the hand-written axum + sqlx (MySQL driver) server on MariaDB at
#                     mysql://root@127.0.0.1:3306 (--mysql URL; started if down), written to
#                     bench/results/mariadb.json, mariadb.md and the MariaDB summary of BENCHMARKS.md
#   --database sqlite    the blog on SQLite against PocketBase (bench/sqlite.sh, which takes the options)
#   --no-python       skip the Python original        --no-compile   skip the compile-cost measurement
#   --duration SECS   seconds per level (default 2)   --levels 1,16,64
#   --rounds N        rounds per level, best kept (default 1)
#   --servers viewset,seaorm,sqlx,aksara-1w,aksara-2w (on MariaDB: viewset,sqlx-mysql)
# Not part of `cargo test` and not run by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

step() { printf '\n==> %s\n' "$*" >&2; }

no_python=0
database=postgres
previous=
for arg in "$@"; do
  [[ $arg == --no-python ]] && no_python=1
  [[ $previous == --database ]] && database=$arg
  previous=$arg
done

if [[ $database == sqlite ]]; then
  exec bash bench/sqlite.sh "$@"
fi

if [[ $database == mariadb || $database == mysql ]]; then
  no_python=1
  step "MariaDB at 127.0.0.1:3306"
  if ! mariadb-admin -h 127.0.0.1 -u root ping >/dev/null 2>&1; then
    service mariadb start >/dev/null 2>&1 || (mysqld_safe >/dev/null 2>&1 &)
    for _ in $(seq 1 30); do mariadb-admin -h 127.0.0.1 -u root ping >/dev/null 2>&1 && break; sleep 1; done
  fi
  mariadb-admin -h 127.0.0.1 -u root ping
else
  step "PostgreSQL at 127.0.0.1:5432"
  if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    pg_ctlcluster --skip-systemctl-redirect "$version" main start
    for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  fi
  pg_isready -h 127.0.0.1 -p 5432
fi

step "load generator (wrk)"
if ! command -v wrk >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
fi
wrk -v 2>&1 | head -n 1 || true

if [[ $no_python == 0 ]]; then
  step "Python original: bench/.venv with aksara-framework 0.7.2 and uvicorn"
  if ! bench/.venv/bin/python -c 'import aksara, uvicorn' 2>/dev/null; then
    python3 -m venv bench/.venv
    bench/.venv/bin/pip install --quiet --disable-pip-version-check 'aksara-framework==0.7.2' 'uvicorn[standard]' \
      || echo "pip install failed: the Python servers will be reported as not run" >&2
  fi
fi

step "build (release, CARGO_TARGET_DIR=target-bench)"
export CARGO_TARGET_DIR="$root/target-bench"
# What is being measured: the commit, and whether the work tree of the measured crates differs from it.
source_state=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -n $(git status --porcelain -- viewset-core viewset-derive examples/blog 2>/dev/null) ]]; then
  source_state="$source_state + uncommitted changes in viewset-core/viewset-derive/blog"
fi
export BENCH_VIEWSET_SOURCE="$source_state"
build_start=$(date +%s)
cargo build --release -p viewset-bench
echo "build took $(( $(date +%s) - build_start )) s" >&2

step "run"
BENCH_COMMAND="bash bench/run.sh${*:+ $*}" exec "$CARGO_TARGET_DIR/release/viewset-bench" run "$@"
