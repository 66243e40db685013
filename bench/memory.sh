#!/usr/bin/env bash
# Where the Rust servers' resident memory goes: bash bench/memory.sh [servers] [workload]
#   servers   comma list of viewset, viewset/router, seaorm, sqlx (default: all four; viewset/router is the viewset server
#             given to axum::serve as a Router, which axum copies for every connection, instead of into_make_service())
#   workload  retrieve (default: GET /api/posts/<random id>) or list (GET /api/posts/?author_id=3&ordering=-views&limit=20,
#             run.sh's "list: filter + ordering", whose page and count hold two pool connections per request)
# For each server, on its own database with bench/seed.sql's rows:
#   1. run normally: heap (RssAnon) and file-backed pages (RssFile), and the pages of the executable's code that are
#      mapped and the 64 KiB windows they fall in (the kernel maps code around a page fault in windows of
#      /sys/kernel/mm/.../fault_around_bytes, so a window costs 64 KiB however little of it runs), when the server
#      listens, after its first retrieve, and after 5 s of the workload on 64 connections;
#   2. under valgrind's dhat, the same load for 6 s: the heap live at its peak, by what allocated it (bench/memory.py
#      ROUTE_COPY and GROUPS: the route table axum copies per connection, hyper's connection buffers, in-flight
#      request and query futures, the pool's connections, the runtime, other).
# Needs the release build of run.sh (target-bench/release/viewset-bench; another with BENCH_BIN), valgrind, wrk and
# PostgreSQL (BENCH_PG_URL). Prints two markdown tables. Not part of `cargo test` or CI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bin=${BENCH_BIN:-$root/target-bench/release/viewset-bench}
[[ -x $bin ]] || { echo "build first: CARGO_TARGET_DIR=target-bench cargo build --release -p viewset-bench" >&2; exit 1; }
servers=${1:-viewset,viewset/router,seaorm,sqlx}
pg=${BENCH_PG_URL:-postgres://postgres@127.0.0.1:5432}
out="$root/bench/results/tmp-memory"
mkdir -p "$out"
port=18199
workload=${2:-retrieve}
source "$root/bench/workloads.sh"
case $workload in
  retrieve) label=retrieves ;;
  list) label="list pages" ;;
  *) echo "workload: retrieve or list" >&2; exit 2 ;;
esac
lua="$out/$workload.lua"
# `list` is profile.sh's and run.sh's plain list ("list: filter + ordering").
lua "$([[ $workload == list ]] && echo list_plain || echo retrieve)" >"$lua"

fresh_db() { # name -> an empty database
  psql -q "$pg/postgres" -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" \
    -c "CREATE DATABASE $1" >/dev/null
}
listening() { # pid -> waits until the server listens (at most 120 s; no request is sent)
  for _ in $(seq 1 1200); do
    kill -0 "$1" 2>/dev/null || { echo "the server exited" >&2; exit 1; }
    ss -Hltn "sport = :$port" | grep -q . && return 0
    sleep 0.1
  done
  echo "the server did not listen within 120 s" >&2; exit 1
}
stop() { kill "$1"; wait "$1" 2>/dev/null || true; }
row() { # label, pid -> one table row
  read -r anon file code windows < <(python3 "$root/bench/memory.py" pages "$2")
  awk -v s="$server" -v w="$1" -v a="$anon" -v f="$file" -v c="$code" -v n="$windows" \
    'BEGIN { printf "| %s | %s | %.1f | %.1f | %.1f | %d |\n", s, w, a / 1024, f / 1024, c / 1024, n }'
}

pages_table=(); heap_rows=()
for server in ${servers//,/ }; do
  kind=${server%/router}
  flags=(); [[ $server == */router ]] && flags=(--router-per-connection)
  name=${server//[^a-z]/_}
  db="vsmem_$name"
  fresh_db "$db"
  "$bin" serve "$kind" "${flags[@]}" --db "$pg/$db" --bind "127.0.0.1:$port" >"$out/$name.log" 2>&1 &
  pid=$!
  listening "$pid"
  psql -q "$pg/$db" -f "$root/bench/seed.sql" >/dev/null
  pages_table+=("$(row "listening" "$pid")")
  curl -fsS -o /dev/null "http://127.0.0.1:$port/api/posts/1"
  sleep 0.2
  pages_table+=("$(row "after one retrieve" "$pid")")
  wrk -t1 -c64 -d5s -s "$lua" "http://127.0.0.1:$port" >/dev/null
  pages_table+=("$(row "after 5 s of $label, 64 connections" "$pid")")
  stop "$pid"

  fresh_db "$db"
  valgrind --tool=dhat --dhat-out-file="$out/$name.dhat.json" "$bin" serve "$kind" "${flags[@]}" --db "$pg/$db" \
    --bind "127.0.0.1:$port" >"$out/$name.dhat.log" 2>&1 &
  pid=$!
  listening "$pid"
  psql -q "$pg/$db" -f "$root/bench/seed.sql" >/dev/null
  wrk -t1 -c64 -d6s -s "$lua" "http://127.0.0.1:$port" >/dev/null
  stop "$pid"
  heap_rows+=("$server")
  python3 "$root/bench/memory.py" heap "$out/$name.dhat.json" >"$out/$name.heap.tsv"
  psql -q "$pg/postgres" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null
done

echo "### Resident memory by phase (MiB; code = pages of the executable's code mapped, in that many 64 KiB windows)"
echo
echo "| server | when | heap (RssAnon) | file-backed (RssFile) | executable code mapped | code windows |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${pages_table[@]}"
echo
echo "### Heap live at its peak under 64 connections of $label (KiB / blocks; valgrind dhat, t-gmax)"
echo
header="| allocated by |"; rule="|---|"
for s in "${heap_rows[@]}"; do header+=" $s |"; rule+="---|"; done
echo "$header"; echo "$rule"
cut -f1 "$out/${heap_rows[0]//[^a-z]/_}.heap.tsv" | while IFS= read -r group; do
  line="| $group |"
  for s in "${heap_rows[@]}"; do
    line+=" $(awk -F'\t' -v g="$group" '$1 == g { printf "%s / %s", $2, $3 }' "$out/${s//[^a-z]/_}.heap.tsv") |"
  done
  echo "$line"
done
