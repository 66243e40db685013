#!/usr/bin/env bash
# The publishable crates state caret ranges: an exact `=` requirement (or `~`, `<`, `<=`) in their Cargo.toml fails
# unless the same line ends in a comment saying why (upstream broke compatibility within a range).
# Cargo.lock pins the workspace; an application's own lockfile must be able to resolve around ours.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for crate in viewset-core viewset-derive viewset-codegen viewset-studio viewset-cli; do
  manifest=$crate/Cargo.toml
  awk -v file="$manifest" '
    /(version *= *|^[A-Za-z0-9_-]+ *= *)"(=|~|<)/ && $0 !~ /#/ { printf "%s:%d: %s\n", file, NR, $0; bad = 1 }
    END { exit bad }
  ' "$manifest" || status=1
done
if [[ $status != 0 ]]; then
  echo "a publishable crate pins a dependency without a comment naming the upstream break (state a caret range)" >&2
fi
exit $status
