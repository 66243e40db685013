#!/usr/bin/env bash
# Where the Rust servers' CPU time goes natively, by function: bash bench/sample.sh [servers] [workloads] [connections]
#   servers     comma list of viewset,viewset-nolimits,seaorm,sqlx (default: viewset,sqlx; the first is compared
#               with each of the others); `label=server@binary` runs that server of another build under its own
#               label, so two builds are sampled in the same interleaved rounds (e.g. `before=viewset@/tmp/old,viewset,sqlx`)
#   workloads   comma list of bench/workloads.sh's workloads (default: retrieve,deep_cursor)
#   connections comma list (default: 1,64)
# profile.sh counts instructions under valgrind, which neither runs the CPU's own SHA or AES code nor shows what a
# cache miss, a context switch or the kernel costs; this samples the real thing. Every server runs at once on its
# own database with bench/seed.sql's rows; for each workload and number of connections, SAMPLE_ROUNDS rounds
# (default 3) of SAMPLE_SECONDS seconds (default 8) go to the servers in turn (interleaved, so a change of the
# machine's speed falls on all of them), each round recorded by `perf record -F 1999 -e cpu-clock` on the server
# process (this machine's VM exposes no hardware counters: no cycles, no cache misses, only time). Printed per
# server: requests/s (the median round) and the server's CPU per request in µs, all of it, in its own code and
# libc (user), and in the kernel; then the functions whose time per request differs most between the first server
# and each other. Needs the release build of run.sh (target-bench/release/viewset-bench; another with BENCH_BIN),
# perf (Debian's linux-perf), wrk, python3 and PostgreSQL (BENCH_PG_URL). perf.data files stay in
# bench/results/tmp-sample/ (ignored by git). Not part of `cargo test` or CI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bin=${BENCH_BIN:-$root/target-bench/release/viewset-bench}
[[ -x $bin ]] || { echo "build first: CARGO_TARGET_DIR=target-bench cargo build --release -p viewset-bench" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf is missing: apt-get install linux-perf" >&2; exit 1; }
servers=${1:-viewset,sqlx}
workloads=${2:-retrieve,deep_cursor}
levels=${3:-1,64}
rounds=${SAMPLE_ROUNDS:-3}
seconds=${SAMPLE_SECONDS:-8}
pg=${BENCH_PG_URL:-postgres://postgres@127.0.0.1:5432}
out="$root/bench/results/tmp-sample"
rm -rf "$out" && mkdir -p "$out"
source "$root/bench/workloads.sh" # lua: workload -> wrk script; answering; deep_path

declare -A pid port
stop() { for s in "${!pid[@]}"; do kill "${pid[$s]}" 2>/dev/null || true; done; }
trap stop EXIT
n=0
declare -A kind exe
labels=()
for spec in ${servers//,/ }; do # `label=server@binary`, or a server of $bin under its own name
  if [[ $spec == *=*@* ]]; then
    label=${spec%%=*}; rest=${spec#*=}; kind[$label]=${rest%%@*}; exe[$label]=${rest#*@}
    [[ -x ${exe[$label]} ]] || { echo "no binary at ${exe[$label]}" >&2; exit 1; }
  else
    label=$spec; kind[$label]=$spec; exe[$label]=$bin
  fi
  labels+=("$label")
done
servers=$(IFS=,; echo "${labels[*]}")
for server in ${servers//,/ }; do
  db="vssample_${server//-/_}"
  psql -q "$pg/postgres" -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" \
    -c "CREATE DATABASE $db" -c "ALTER DATABASE $db SET synchronous_commit = off" >/dev/null
  port[$server]=$((18300 + n)); n=$((n + 1))
  # The schema comes from the blog's migrations (run by the server itself at start), then the bench's rows.
  "${exe[$server]}" serve "${kind[$server]}" --db "$pg/$db" --bind "127.0.0.1:${port[$server]}" >"$out/$server.log" 2>&1 &
  pid[$server]=$!
  answering "${port[$server]}"
  psql -q "$pg/$db" -f "$root/bench/seed.sql" >/dev/null
done

for workload in ${workloads//,/ }; do
  for server in ${servers//,/ }; do
    deep=
    [[ $workload == deep_cursor ]] && deep=$(deep_path "${port[$server]}")
    lua "$workload" "$deep" >"$out/$server-$workload.lua"
    wrk -t2 -c16 -d2s -s "$out/$server-$workload.lua" "http://127.0.0.1:${port[$server]}" >/dev/null # warm-up
  done
  for c in ${levels//,/ }; do
    for round in $(seq 1 "$rounds"); do
      for server in ${servers//,/ }; do
        tag="$server-$workload-c$c-r$round"
        perf record -q -F 1999 -e cpu-clock -p "${pid[$server]}" -o "$out/$tag.data" -- sleep $((seconds + 1)) \
          >/dev/null 2>&1 &
        recorder=$!
        sleep 0.5
        wrk -t$((c > 1 ? 2 : 1)) -c"$c" -d"${seconds}s" -s "$out/$server-$workload.lua" \
          "http://127.0.0.1:${port[$server]}" | grep REQUESTS >"$out/$tag.requests"
        wait "$recorder" || true
      done
    done
    python3 "$root/bench/sample.py" "$out" "$workload" "$c" "$seconds" "$servers"
  done
done
for server in ${servers//,/ }; do
  psql -q "$pg/postgres" -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS vssample_${server//-/_} WITH (FORCE)" >/dev/null || true
done
