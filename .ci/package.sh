#!/usr/bin/env bash
# The publishable crates as a user gets them, with nothing leaving the machine:
#   1. `cargo package` of viewset-derive, -core, -codegen, -studio and -cli; their sizes printed. Cargo's own
#      verification (a cold build of each in target/package) is left to the steps below, which build every one of
#      them from its `.crate` alone, as a dependent does;
#   2. a local directory registry: every third-party crate of the workspace's lockfile (`cargo vendor`) beside the
#      five packages, and a cargo configuration that replaces crates.io with it;
#   3. a project outside the workspace (`cargo new`) that `cargo add`s viewset-core *by version* from that registry,
#      with the README's quick start as its code and its test (examples/quickstart/tests/readme.rs: the README's
#      `curl` calls against the binary), built and run; then viewset-studio added to it and built;
#   4. `cargo install viewset-cli` from that registry, `viewset new` + `viewset generate resource`, and the
#      generated project (which depends on `viewset-core` by version) built and tested against the packages.
#
# Usage: bash .ci/package.sh   (from anywhere; PACKAGE_ALLOW_DIRTY=1 packages uncommitted changes too)
# Needs crates.io for the crates `cargo vendor` finds missing from cargo's cache (other platforms' crates).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
target=${CARGO_TARGET_DIR:-$root/target}
crates=(viewset-derive viewset-core viewset-codegen viewset-studio viewset-cli)
version=$(cargo metadata --no-deps --format-version 1 | python3 -c \
  'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "viewset-core"))')
# Outside the repository: a project below the workspace's folder would be taken for one of its members.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/user"

echo "==> cargo package"
allow_dirty=()
if [[ -n ${PACKAGE_ALLOW_DIRTY:-} ]]; then allow_dirty=(--allow-dirty); fi
args=()
for crate in "${crates[@]}"; do args+=(-p "$crate"); done
cargo package --quiet --no-verify "${allow_dirty[@]}" "${args[@]}"
for crate in "${crates[@]}"; do
  file=$target/package/$crate-$version.crate
  files=$(tar tzf "$file" | wc -l)
  echo "$crate-$version.crate: $(du -k "$file" | cut -f1) KiB packed, $files files"
done

echo "==> a local registry: the lockfile's crates and the five packages"
registry=$work/registry
cargo vendor --quiet --locked --versioned-dirs "$registry" >/dev/null
for crate in "${crates[@]}"; do
  file=$target/package/$crate-$version.crate
  tar xzf "$file" -C "$registry"
  sum=$(sha256sum "$file" | cut -d' ' -f1)
  printf '{"files":{},"package":"%s"}' "$sum" >"$registry/$crate-$version/.cargo-checksum.json"
done
# Read by cargo in every folder below $work/user: crates.io is the local registry.
mkdir -p "$work/user/.cargo"
cat >"$work/user/.cargo/config.toml" <<EOF
[source.crates-io]
replace-with = "local-registry"

[source.local-registry]
directory = "$registry"

# The dev profile \`viewset new\` writes (and the workspace's .cargo/config.toml): no debug info in dependencies.
[profile.dev]
debug = "line-tables-only"

[profile.dev.package."*"]
debug = false
EOF
export CARGO_TARGET_DIR=$work/target # one target for both projects: the second reuses the first's dependencies

echo "==> a new project adds viewset-core $version by version and runs the README's quick start"
# The quick start's test reads the README three folders up (examples/quickstart/tests/readme.rs).
cp README.md "$work/user/README.md"
mkdir -p "$work/user/projects"
cd "$work/user/projects"
cargo new --quiet quickstart
cd quickstart
cargo add --quiet "viewset-core@$version"
cargo add --quiet sea-orm@2.0.4 --no-default-features \
  -F macros -F with-json -F with-chrono -F runtime-tokio -F sqlx-sqlite
cargo add --quiet axum@0.8
cargo add --quiet tokio@1 -F rt-multi-thread,macros,net,signal
cargo add --quiet serde@1 -F derive
cargo add --quiet tracing-subscriber@0.3 -F env-filter
cargo add --quiet --dev serde_json@1
grep -q "^viewset-core = \"$version\"$" Cargo.toml || { echo "viewset-core is not a version dependency" >&2; exit 1; }
cp "$root/examples/quickstart/src/main.rs" src/main.rs
mkdir -p tests && cp "$root/examples/quickstart/tests/readme.rs" tests/readme.rs
# Its manifest is cargo add's, not the README's block: the block's own test runs in the workspace.
RUST_LOG=warn cargo test --quiet --test readme -- --skip dependencies_are_the_readme_block
grep -q 'source = "registry+https://github.com/rust-lang/crates.io-index"' Cargo.lock
grep -A1 '^name = "viewset-core"$' Cargo.lock | grep -q "^version = \"$version\"$"
cargo add --quiet "viewset-studio@$version"
cargo build --quiet

echo "==> cargo install viewset-cli $version from the registry; viewset new + generate resource"
cd "$work/user"
# `cargo install` reads no project configuration, only $CARGO_HOME's and these flags.
# `--debug`: the dependencies it shares with the projects above are built already (the same target); a release
# build would build them all again, for no more proof that the package installs.
cargo install --quiet --debug --locked --root "$work/cli" viewset-cli --version "$version" \
  --config 'source.crates-io.replace-with="local-registry"' --config "source.local-registry.directory=\"$registry\""
"$work/cli/bin/viewset" --version
cd "$work/user/projects"
"$work/cli/bin/viewset" new shop --resource products
cd shop
"$work/cli/bin/viewset" generate resource orders quantity:i32 product_id:references:products
grep -q "^viewset-core = { version = \"$version\"" Cargo.toml || { echo "the project does not depend by version" >&2; exit 1; }
cargo test --quiet
echo "packages: $version built from their .crate files, installed from a local registry by version, and used"
