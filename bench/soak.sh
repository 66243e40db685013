#!/usr/bin/env bash
# The soak of issue 14: the blog's release build on a fresh PostgreSQL database under a mixed load (filtered lists,
# retrieves, creates, patches, deletes) with stream subscribers, for 10 minutes by default. Samples the server's RSS
# and its PostgreSQL connections every 10 s; fails on any unexpected answer, unanswered request, missed stream
# event, lost stream or connections over the pool's bound. RELIABILITY.md has the figures of a full run.
#
# Usage: bash bench/soak.sh [--duration SECS] [--workers N] [--subscribers N] [--sample SECS] [--max-connections N]
#                           [--rate REQUESTS_PER_SECOND]   (default: as fast as the server answers)
#                           [--max-rss-growth MIB]   (default 8: RSS growth allowed after the warm-up)
# Environment: VIEWSET_TEST_PG_URL (default postgres://postgres:postgres@127.0.0.1:5432), CARGO_TARGET_DIR,
# SOAK_PROFILE (release, or debug for the short CI run, which reuses the debug build CI has).
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-$(pwd)/target}
pg_url=${VIEWSET_TEST_PG_URL:-postgres://postgres:postgres@127.0.0.1:5432}

pg_isready -q -h 127.0.0.1 -p 5432 || { echo "PostgreSQL does not answer at 127.0.0.1:5432" >&2; exit 1; }
profile=${SOAK_PROFILE:-release}
case $profile in
  release) cargo build --quiet --release -p blog -p viewset-bench ;;
  debug) cargo build --quiet --workspace ;; # the feature set of the CI scripts (.ci/server.sh build_examples)
  *) echo "SOAK_PROFILE is release or debug" >&2; exit 2 ;;
esac
echo "soak: the blog's $profile build on $pg_url"
exec "$target/$profile/viewset-bench" soak --blog "$target/$profile/blog" --pg "$pg_url" "$@"
