#!/usr/bin/env bash
# cargo-fuzz smoke: builds the five targets of fuzz/ and runs each from its seeds (fuzz/corpus/<target>) for
# FUZZ_SECONDS (default 30). A crash (a panic, a 5xx, a failed check of the harness) fails the script and leaves the
# input in fuzz/artifacts/<target>/; reproduce it with
#   cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run --dev -s none <target> artifacts/<target>/crash-...
# Long runs (RELIABILITY.md): FUZZ_PROFILE=release FUZZ_SECONDS=3600 FUZZ_RUNS=10000000 bash .ci/fuzz.sh
# The smoke builds unoptimized (FUZZ_PROFILE=dev, the default): the build is most of the step's time, and a few
# tens of seconds per target need coverage from the seeds, not speed. Both profiles keep debug assertions on.
#
# cargo-fuzz passes nightly flags (-Z...): RUSTC_BOOTSTRAP=1 lets the stable toolchain take them. The targets run
# without a sanitizer (-s none) by default: the code is safe Rust, and what they catch are panics, overflow checks
# (debug assertions are on) and the harness's checks; FUZZ_SANITIZER=address builds them with AddressSanitizer.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
version=0.13.2
seconds=${FUZZ_SECONDS:-30}
runs=${FUZZ_RUNS:--1}
sanitizer=${FUZZ_SANITIZER:-none}
profile=${FUZZ_PROFILE:-dev}
case "$profile" in
  dev) build=(--dev) ;;
  release) build=(--release --debug-assertions) ;;
  *) echo "FUZZ_PROFILE is dev or release" >&2; exit 2 ;;
esac
targets=${FUZZ_TARGETS:-query_string cursor body bulk jwt_token}
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="$PWD/target"

if [[ "$(cargo fuzz --version 2>/dev/null || true)" != "cargo-fuzz $version" ]]; then
  cargo install --locked cargo-fuzz --version "$version"
fi

start=$(date +%s)
cargo fuzz build "${build[@]}" --sanitizer "$sanitizer"
echo "fuzz targets built in $(($(date +%s) - start)) s"

# The targets run side by side, as many at once as there are cores (each is one single-threaded process), so each
# still gets its FUZZ_SECONDS of a core.
fuzz_one() {
  local target=$1
  mkdir -p "grown/$target"
  echo "==> fuzz $target for ${seconds} s"
  # New inputs go to grown/ (ignored by git); the committed seeds in corpus/ are read, never written.
  if ! cargo fuzz run "${build[@]}" --sanitizer "$sanitizer" "$target" "grown/$target" "corpus/$target" -- \
      -max_total_time="$seconds" -runs="$runs" -timeout=30 -print_final_stats=1 2>"grown/$target.log"; then
    tail -n 60 "grown/$target.log" >&2
    echo "fuzz target $target crashed: the input is in fuzz/artifacts/$target/" >&2
    return 1
  fi
  grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)' "grown/$target.log" \
    | sed "s/^/$target /" || true
}

at_once=$(nproc)
crashed=()
pids=()
names=()
for target in $targets; do
  fuzz_one "$target" &
  pids+=($!)
  names+=("$target")
  if ((${#pids[@]} >= at_once)); then
    wait "${pids[0]}" || crashed+=("${names[0]}")
    pids=("${pids[@]:1}")
    names=("${names[@]:1}")
  fi
done
for i in "${!pids[@]}"; do wait "${pids[$i]}" || crashed+=("${names[$i]}"); done
if ((${#crashed[@]})); then
  echo "fuzz smoke: crashed: ${crashed[*]}" >&2
  exit 1
fi
echo "fuzz smoke passed in $(($(date +%s) - start)) s"
