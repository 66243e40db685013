#!/usr/bin/env bash
# Instructions per request of the Rust servers, counted by callgrind (deterministic, unlike timings on a shared
# machine): bash bench/profile.sh [servers] [workloads]
#   servers   comma list of viewset,seaorm,sqlx          (default: all three; also viewset-nolimits, the viewset
#             server without `Limits::apply`, to measure what the transport limits cost a request; viewset-outbox
#             and viewset-nats, the viewset server with a durable event bus, to measure what it costs a write)
#   workloads comma list of retrieve,list,list_plain,cursor,deep_cursor,create,patch (default:
#             retrieve,list_plain,create,patch; cursor = the first page of the cursor-paginated list, which signs its
#             `next` link; deep_cursor = the page 2,000 rows deep, reached by following `next` with pages of 100 as
#             run.sh does, which verifies the cursor it is given and signs `next` and `previous`)
# Needs the release build of run.sh (target-bench/release/viewset-bench; another with BENCH_BIN), valgrind and
# wrk. Each server runs under callgrind with collection off during start-up; collection is switched on for a fixed
# number of seconds of one-connection load, and the dump is divided by the number of requests wrk completed. Only
# the server process is counted: PostgreSQL's work is not in these numbers. Also printed: heap allocations per
# request (calls to malloc). PROFILE_CACHE=1 adds callgrind's cache simulation (slower; the I1/D1 geometry of this
# machine) and prints first-level instruction- and data-cache misses per request: what instructions alone do not
# show, the cost of a larger code and data footprint. Dumps and annotated listings are left in
# bench/results/tmp-profile/ (ignored by git). Not part of `cargo test` or CI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bin=${BENCH_BIN:-$root/target-bench/release/viewset-bench}
[[ -x $bin ]] || { echo "build first: CARGO_TARGET_DIR=target-bench cargo build --release -p viewset-bench" >&2; exit 1; }
servers=${1:-viewset,seaorm,sqlx}
workloads=${2:-retrieve,list_plain,create,patch}
seconds=${PROFILE_SECONDS:-8}
cache=${PROFILE_CACHE:-0}
cache_flags=()
[[ $cache == 1 ]] && cache_flags=(--cache-sim=yes)
pg=${BENCH_PG_URL:-postgres://postgres@127.0.0.1:5432}
out="$root/bench/results/tmp-profile"
mkdir -p "$out"

source "$root/bench/workloads.sh" # lua: workload -> wrk script; answering; deep_path

mallocs() { # dump -> calls to malloc in it
  awk '/^c?fn=\(/ { id = $0; sub(/^c?fn=\(/, "", id); name = id; sub(/\).*/, "", id); sub(/^[0-9]+\) ?/, "", name)
                     if (name != "") names[id] = name; if ($0 ~ /^cfn=/) callee = names[id]; next }
       /^calls=/ && callee == "malloc" { split($0, a, /[= ]/); n += a[2] }
       END { print n + 0 }' "$1"
}
event() { # dump event -> its total
  awk -v e="$2" '/^events:/ { for (i = 2; i <= NF; i++) if ($i == e) k = i - 1 }
                 /^totals:/ { print $(k + 1) + 0; exit }' "$1"
}

header=(server workload requests "instr/request" "allocs/request" errors)
format='%-8s %-11s %9s %14s %15s %6s'
if [[ $cache == 1 ]]; then header+=("I1 misses/request" "D1 misses/request"); format+=' %18s %18s'; fi
printf "$format\n" "${header[@]}"
for server in ${servers//,/ }; do
  db="vsprof_${server//-/_}"
  psql -q "$pg/postgres" -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" \
    -c "ALTER DATABASE $db SET synchronous_commit = off" >/dev/null
  for workload in ${workloads//,/ }; do
    port=18190
    # The schema comes from the blog's migrations (run by the server itself at start), then the bench's rows.
    valgrind --tool=callgrind "${cache_flags[@]}" --instr-atstart=no --callgrind-out-file="$out/$server-$workload.%p.out" \
      "$bin" serve "$server" --db "$pg/$db" --bind "127.0.0.1:$port" >"$out/$server-$workload.log" 2>&1 &
    vg=$!
    answering "$port"
    psql -q "$pg/$db" -f "$root/bench/seed.sql" >/dev/null
    deep=
    [[ $workload == deep_cursor ]] && deep=$(deep_path "$port")
    lua "$workload" "$deep" >"$out/$workload.lua"
    wrk -t1 -c1 -d2s -s "$out/$workload.lua" "http://127.0.0.1:$port" >/dev/null # warm-up, not counted
    callgrind_control -i on "$vg" >/dev/null 2>&1
    result=$(wrk -t1 -c1 -d"${seconds}s" -s "$out/$workload.lua" "http://127.0.0.1:$port" | grep REQUESTS)
    callgrind_control -d "$vg" >/dev/null 2>&1
    callgrind_control -i off "$vg" >/dev/null 2>&1
    kill "$vg"; wait "$vg" 2>/dev/null || true
    requests=$(awk '{print $2}' <<<"$result"); errors=$(awk '{print $4}' <<<"$result")
    dump=$(ls -t "$out/$server-$workload".*.out.* 2>/dev/null | head -n 1 || true)
    [[ -n $dump ]] || dump=$(ls -t "$out/$server-$workload".*.out | head -n 1)
    total=$(callgrind_annotate "$dump" 2>/dev/null | awk '/PROGRAM TOTALS/ && !seen {gsub(",", "", $1); print $1; seen = 1}')
    callgrind_annotate --inclusive=yes "$dump" >"$out/$server-$workload.annotated.txt" 2>/dev/null || true
    row=("$server" "$workload" "$requests" "$(( total / requests ))" "$(( $(mallocs "$dump") / requests ))" "$errors")
    if [[ $cache == 1 ]]; then
      row+=("$(( $(event "$dump" I1mr) / requests ))" "$(( ($(event "$dump" D1mr) + $(event "$dump" D1mw)) / requests ))")
    fi
    printf "$format\n" "${row[@]}"
  done
  psql -q "$pg/postgres" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null
done
