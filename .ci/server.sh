# Shared by the CI scripts that start an example server (schemathesis, MCP, sqlmap): a free loopback port, the one
# server a script (or one of its side-by-side runs) has at a time, stopped on exit, and runs side by side. Source it;
# set `server` to the PID you start.

# Every script builds the whole workspace, one feature set for all of them, so they do not rebuild each other's
# binaries (`-p blog` and `-p blog -p tenants` each unify other features). The first build after `cargo test
# --workspace` still rebuilds the crates whose features the tests' dev-dependencies change (about a minute).
build_examples() { cargo build --quiet --workspace; }

# side_by_side FUNCTION DIR ITEM...: runs `FUNCTION ITEM` for every item at once, each in a subshell of its own (its
# own `server`, stopped when it ends; `set -e` as in the script), and waits for all. A run lists what failed in
# DIR/failed-ITEM, one line each. Afterwards `failed` holds those lines, and "ITEM: did not finish" for a run that
# stopped before its end (a command that failed under `set -e`).
side_by_side() {
  local run=$1 dir=$2 item pid
  local pids=()
  shift 2
  for item in "$@"; do
    rm -f "$dir/done-$item" "$dir/failed-$item"
    (
      trap stop_server EXIT
      "$run" "$item"
      : >"$dir/done-$item"
    ) &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || true; done
  failed=()
  for item in "$@"; do
    [[ -f "$dir/done-$item" ]] || failed+=("$item: did not finish (see above)")
    if [[ -s "$dir/failed-$item" ]]; then mapfile -t -O "${#failed[@]}" failed <"$dir/failed-$item"; fi
  done
}

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

server=""
stop_server() {
  if [[ -n "$server" ]]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  server=""
}
trap stop_server EXIT
