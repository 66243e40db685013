# Shared by the CI scripts that start an example server (schemathesis, MCP, sqlmap): a free loopback port, and the
# one server a script runs at a time, stopped on exit. Source it; set `server` to the PID you start.

# The examples are built as the whole workspace is: with the features `cargo test --workspace` unifies, so after the
# tests this builds nothing, and the scripts do not rebuild each other's binaries (`-p blog` alone has other features).
build_examples() { cargo build --quiet --workspace; }

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
