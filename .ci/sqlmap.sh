#!/usr/bin/env bash
# sqlmap against every query parameter of the blog's list endpoints (as the OpenAPI document lists them), on SQLite,
# PostgreSQL and MariaDB, as anonymous and as the demo identities. Exits non-zero when sqlmap reports any parameter
# injectable, when a run does not finish with sqlmap's "not injectable" verdict, or when any answer to its requests
# was a 5xx or not JSON.
#
# Usage: bash .ci/sqlmap.sh   (from anywhere; builds the blog if needed)
# Environment (defaults are the full sweep, RELIABILITY.md has its figures):
#   SQLMAP_LEVEL (5) and SQLMAP_RISK (3)      sqlmap's --level and --risk
#   SQLMAP_BACKENDS ("sqlite postgres mysql") SQLMAP_IDENTITIES ("anonymous alice-token": alice is staff and
#                                             sees every field; an endpoint a caller may not list is skipped)
#   SQLMAP_PARAMS (a regex on "path parameter", default every parameter)
#   VIEWSET_TEST_PG_URL (postgres://postgres:postgres@127.0.0.1:5432)
#   VIEWSET_TEST_MYSQL_URL (mysql://root@127.0.0.1:3306; the database is created with the `mariadb` client)
# Reports go to SQLMAP_REPORTS (default $CARGO_TARGET_DIR/sqlmap/ or target/sqlmap/): per run sqlmap's output (.txt) and every request it
# sent with the answer (.traffic); summary.tsv has one line per run. The payloads of tests/fixtures/ come from
# them: python3 .ci/sqlmap_tool.py payloads target/sqlmap/*.traffic > tests/fixtures/sqlmap_payloads.txt
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/server.sh # build_examples, free_port, server, stop_server (on exit)
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}
pg_url=${VIEWSET_TEST_PG_URL:-postgres://postgres:postgres@127.0.0.1:5432}
mysql_url=${VIEWSET_TEST_MYSQL_URL:-mysql://root@127.0.0.1:3306}
mysql_host=${mysql_url##*@}
mysql_client() { mariadb -h "${mysql_host%:*}" -P "${mysql_host##*:}" -u root "$@"; }
level=${SQLMAP_LEVEL:-5}
risk=${SQLMAP_RISK:-3}
backends=${SQLMAP_BACKENDS:-sqlite postgres mysql}
identities=${SQLMAP_IDENTITIES:-anonymous alice-token}
params=${SQLMAP_PARAMS:-.}
export PGOPTIONS="-c client_min_messages=warning"
version=1.10.10

venv=$target/sqlmap-venv
if [[ "$("$venv/bin/sqlmap" --version 2>/dev/null || true)" != "$version"* ]]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q "sqlmap==$version"
fi

build_examples
reports=${SQLMAP_REPORTS:-$target/sqlmap}
rm -rf "$reports" && mkdir -p "$reports"
"$target/debug/blog" --print-openapi >"$reports/blog.json"
tool() { python3 "$root/.ci/sqlmap_tool.py" "$@"; }


# One backend's sweep: its own database and server, its runs one after the other. The backends' sweeps run side by
# side (each waits on its server and database most of the time); each writes its own summary and list of failures.
sweep() {
  local backend=$1 workdir db_url dbms db_name port base identity auth path parameter value slug run encoded start
  local requests verdict
  workdir=$(mktemp -d)
  if [[ $backend == sqlite ]]; then
    db_url="sqlite://$workdir/blog.db?mode=rwc"
    dbms=SQLite
  elif [[ $backend == mysql ]]; then
    db_name="viewset_sqlmap_$$"
    mysql_client -e "DROP DATABASE IF EXISTS $db_name; CREATE DATABASE $db_name CHARACTER SET utf8mb4"
    db_url="$mysql_url/$db_name"
    dbms=MySQL
  else
    db_name="viewset_sqlmap_$$"
    psql -q "$pg_url/postgres" -c "DROP DATABASE IF EXISTS $db_name" -c "CREATE DATABASE $db_name"
    db_url="$pg_url/$db_name"
    dbms=PostgreSQL
  fi
  port=$(free_port)
  (cd "$workdir" && exec env DATABASE_URL="$db_url" SERVICE_BIND="127.0.0.1:$port" RUST_LOG=warn \
    "$target/debug/blog" >"$reports/blog-$backend.log" 2>&1) &
  server=$!
  for _ in $(seq 1 60); do
    curl -s -o /dev/null "http://127.0.0.1:$port/" && break
    kill -0 "$server" 2>/dev/null || { cat "$reports/blog-$backend.log"; echo "$backend: the blog exited" >>"$reports/failed-$backend"; return; }
    sleep 0.5
  done
  base="http://127.0.0.1:$port"
  for identity in $identities; do
    auth=()
    if [[ $identity != anonymous ]]; then auth=(-H "Authorization: Bearer $identity"); fi
    tool targets "$reports/blog.json" "$base" "$identity" >"$reports/targets-$backend-$identity.tsv"
    while IFS=$'\t' read -r path parameter value; do
      if [[ $parameter == - ]]; then
        printf '%s\t%s\t-\t%s\t0\t0\n' "$backend-$identity$path" "-" "$value" >>"$reports/summary-$backend.tsv"
        continue
      fi
      [[ "$path $parameter" =~ $params ]] || continue
      slug=$(tr -c 'A-Za-z0-9_\n' '_' <<<"${path#/}" | sed 's/_*$//')
      run="$backend-$identity-$slug-$parameter"
      encoded=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$value")
      start=$SECONDS
      # -p: only this parameter (sqlmap's level 5 would also try the headers); --flush-session: no verdict reused
      # from an earlier run; --batch takes sqlmap's default answers (with no other technique found, UNION is
      # tried with its basic column counts only). Each backend has its own session directory.
      "$venv/bin/sqlmap" -u "$base$path?$parameter=$encoded" -p "$parameter" "${auth[@]}" --dbms="$dbms" \
        --level "$level" --risk "$risk" --batch --flush-session --disable-coloring \
        --output-dir "$reports/sessions/$backend" -t "$reports/$run.traffic" >"$reports/$run.txt" 2>&1 || true
      requests=$(grep -c '^HTTP request \[' "$reports/$run.traffic" || true)
      if grep -qiE "is vulnerable|identified the following injection point|appears to be .*injectable|might be (SQL )?injectable|possible DBMS" "$reports/$run.txt"; then
        verdict="INJECTABLE"
      elif grep -q "all tested parameters do not appear to be injectable" "$reports/$run.txt"; then
        verdict="not injectable"
      else
        verdict="UNFINISHED"
      fi
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$run" "$parameter" "$value" "$verdict" "$requests" "$((SECONDS - start))" \
        >>"$reports/summary-$backend.tsv"
      printf '%-70s %-15s %6s requests %4s s\n' "$run" "$verdict" "$requests" "$((SECONDS - start))"
      if [[ $verdict != "not injectable" ]]; then
        tail -n 30 "$reports/$run.txt"
        echo "$run ($verdict)" >>"$reports/failed-$backend"
      fi
    done <"$reports/targets-$backend-$identity.tsv"
  done
  stop_server
  if [[ $backend == postgres ]]; then psql -q "$pg_url/postgres" -c "DROP DATABASE IF EXISTS $db_name"; fi
  if [[ $backend == mysql ]]; then mysql_client -e "DROP DATABASE IF EXISTS $db_name"; fi
  rm -rf "$workdir"
}

started=$SECONDS
for backend in $backends; do : >"$reports/summary-$backend.tsv"; done
# shellcheck disable=SC2086 # the backends are words
side_by_side sweep "$reports" $backends
printf 'run\tparameter\tstart value\tverdict\trequests\tseconds\n' >"$reports/summary.tsv"
for backend in $backends; do cat "$reports/summary-$backend.tsv" >>"$reports/summary.tsv"; done

# sqlmap writes every injection point it confirms to its session log: it must stay empty.
# (Not `find | grep -q`: under pipefail grep's early exit can kill find and hide the finding.)
injected=$(find "$reports/sessions" -name log -size +0 2>/dev/null || true)
if [[ -n $injected ]]; then
  failed+=("sqlmap's session log lists injection points: $injected")
fi
runs=$(($(wc -l <"$reports/summary.tsv") - 1))
echo "sqlmap: $runs runs (level $level, risk $risk) in $((SECONDS - started)) s"
tool summarize "$reports" || failed+=("an answer was a 5xx or not JSON (see above)")
if ((${#failed[@]})); then
  printf 'sqlmap failed: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "sqlmap: no parameter injectable"
