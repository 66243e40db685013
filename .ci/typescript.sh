#!/usr/bin/env bash
# The guide's TypeScript client (viewset-core/docs/guide/clients.md), kept true as written: starts the blog example (fresh SQLite file), then in an
# empty folder runs the page's "TypeScript clients" commands verbatim (the blog's address replaced by this run's)
# with its program saved where the commands say: the client's types generated from /openapi.json, the program
# compiled under `tsc --strict` and run (a single create, a nested create, a bulk create and delete, list, update,
# expand, a 404, delete as bob, with no narrowing of a write's answer). The generated operations must carry the
# tool names (`posts_list`). Exits non-zero on any failure.
#
# Usage: bash .ci/typescript.sh   (from anywhere; builds the blog if needed; the page pins the npm packages)
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/server.sh # build_examples, free_port, server, stop_server (on exit)
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}
workdir=$(mktemp -d)
client=$workdir/client
mkdir "$client"

# The section's ```sh block (split at the line telling where the program goes) and its ```ts block.
python3 - viewset-core/docs/guide/clients.md "$workdir" <<'PY'
import re, sys
readme, out = sys.argv[1], sys.argv[2]
text = open(readme).read()
section = text.split("## TypeScript clients", 1)[1].split("\n## ", 1)[0]
commands = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
program = re.search(r"```ts\n(.*?)```", section, re.S).group(1)
before, after = commands.split("# save the program below as src/crud.ts, then:\n")
open(f"{out}/before.sh", "w").write(before)
open(f"{out}/after.sh", "w").write(after)
open(f"{out}/crud.ts", "w").write(program)
for narrowing in ("Array.isArray", '" in '):
    if narrowing in program:
        sys.exit(f"the guide's program narrows a write's answer ({narrowing!r})")
PY

build_examples
port=$(free_port)
(cd "$workdir" && exec env SERVICE_BIND="127.0.0.1:$port" "$target/debug/blog" >"$workdir/blog.log" 2>&1) &
server=$!
for _ in $(seq 1 60); do
  curl -fsS "http://127.0.0.1:$port/openapi.json" >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || { cat "$workdir/blog.log"; echo "the blog exited" >&2; exit 1; }
  sleep 1
done

cd "$client"
sed -i "s#http://127.0.0.1:8000#http://127.0.0.1:$port#g" "$workdir/before.sh"
bash -euo pipefail "$workdir/before.sh"
cp "$workdir/crud.ts" src/crud.ts
grep -q 'get: operations\["posts_list"\]' src/blog.d.ts || { echo "operation ids are not the tool names" >&2; exit 1; }
grep -q 'post: operations\["posts_create_many"\]' src/blog.d.ts || { echo "no bulk create operation" >&2; exit 1; }
BLOG_URL="http://127.0.0.1:$port" bash -euo pipefail "$workdir/after.sh"
rm -rf "$workdir"
echo "TypeScript client: the guide's commands and program, compiled (strict) and run against the blog"
