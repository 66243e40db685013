#!/usr/bin/env bash
# The README's TypeScript client, kept true: starts the blog example (fresh SQLite file), generates the client's
# types from its /openapi.json with openapi-typescript, type-checks examples/typescript-client under `tsc --strict`
# and runs it (create, list, update, a 404, delete as bob). The program must be the README's block verbatim, and
# the generated operations must carry the tool names (`posts_list`). Exits non-zero on any failure.
#
# Usage: bash .ci/typescript.sh   (from anywhere; builds the blog if needed; npm packages pinned in package-lock.json)
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/server.sh # build_examples, free_port, server, stop_server (on exit)
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}
client=examples/typescript-client

python3 - "$client/src/crud.ts" README.md <<'PY'
import sys
program, readme = (open(p).read() for p in sys.argv[1:])
if f"```ts\n{program}```" not in readme:
    sys.exit(f"README.md does not show {sys.argv[1]} verbatim in a ```ts block")
PY

build_examples
workdir=$(mktemp -d)
port=$(free_port)
(cd "$workdir" && exec env SERVICE_BIND="127.0.0.1:$port" "$target/debug/blog" >"$workdir/blog.log" 2>&1) &
server=$!
for _ in $(seq 1 60); do
  curl -fsS "http://127.0.0.1:$port/openapi.json" >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || { cat "$workdir/blog.log"; echo "the blog exited" >&2; exit 1; }
  sleep 1
done

cd "$client"
npm ci --no-audit --no-fund --loglevel=error
npx openapi-typescript "http://127.0.0.1:$port/openapi.json" -o src/blog.d.ts
grep -q 'get: operations\["posts_list"\]' src/blog.d.ts || { echo "operation ids are not the tool names" >&2; exit 1; }
npx tsc -p .
BLOG_URL="http://127.0.0.1:$port" node dist/crud.js
echo "TypeScript client: generated, type-checked (strict) and run against the blog"
