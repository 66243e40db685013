#!/usr/bin/env bash
# The compile bench's two apps (1 and 20 ViewSets, `viewset-bench compile`) built against two versions of
# viewset-core, interleaved: a clean build of each app crate per round, base then this checkout, wall and CPU time
# (user + system) per additional ViewSet. Rounds side by side cancel most of a shared host's drift, which a
# single `viewset-bench compile` run cannot (BENCHMARKS.md, "Build time per ViewSet").
#
#   bash bench/compile_ab.sh <base revision> [rounds]      e.g. bash bench/compile_ab.sh 1c260c7 5
#
# Writes the apps to $TMPDIR/viewset-bench-compile (this checkout's viewset-core) and
# $TMPDIR/viewset-bench-compile-base (a git worktree of the base at $TMPDIR/viewset-base-worktree); their target
# directories are target-bench/compile and target-bench/compile-base (a cold build of each: about 2 minutes).
set -euo pipefail
base=${1:?usage: bash bench/compile_ab.sh <base revision> [rounds]}
rounds=${2:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=${TMPDIR:-/tmp}
new_apps=$tmp/viewset-bench-compile base_apps=$tmp/viewset-bench-compile-base worktree=$tmp/viewset-base-worktree
new_target=$root/target-bench/compile base_target=$root/target-bench/compile-base

cd "$root"
cargo build --quiet -p viewset-bench
target/debug/viewset-bench compile --keep --out "$tmp/viewset-bench-compile.json" >/dev/null
rm -rf "$worktree" "$base_apps"
git worktree prune
git worktree add --detach --force "$worktree" "$base" >/dev/null
mkdir -p "$base_apps"
for n in 1 20; do
  cp -r "$new_apps/vsbench-app-$n" "$base_apps/"
  sed -i "s#$root/viewset-core#$worktree/viewset-core#" "$base_apps/vsbench-app-$n/Cargo.toml"
  (cd "$base_apps/vsbench-app-$n" && cargo build --quiet --offline --target-dir "$base_target")
done

# One clean build of the app crate: "wall user system" in seconds.
build() {
  local app=$1 target=$2 name
  name=$(basename "$app")
  (cd "$app" && cargo clean --quiet --offline -p "$name" --target-dir "$target")
  (cd "$app" && /usr/bin/time -f "%e %U %S" -o "$tmp/viewset-ab-time" cargo build --quiet --offline --target-dir "$target")
  cat "$tmp/viewset-ab-time"
}

echo "round version | wall 1 / 20 ViewSets, per additional ViewSet | CPU (user + system) the same"
for round in $(seq 1 "$rounds"); do
  for version in base new; do
    if [ "$version" = base ]; then apps=$base_apps target=$base_target; else apps=$new_apps target=$new_target; fi
    one=$(build "$apps/vsbench-app-1" "$target")
    twenty=$(build "$apps/vsbench-app-20" "$target")
    echo "$round $version $one $twenty" | awk '{
      printf "%s %-4s | wall %.2f / %.2f s, %4.0f ms | CPU %.2f / %.2f s, %4.0f ms\n", $1, $2, $3, $6,
        ($6 - $3) / 19 * 1000, $4 + $5, $7 + $8, (($7 + $8) - ($4 + $5)) / 19 * 1000 }'
  done
done
git worktree remove --force "$worktree"
