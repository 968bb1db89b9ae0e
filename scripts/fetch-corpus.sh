#!/usr/bin/env bash
# Fetches the real Rust model code placer is measured on (candle, tch, burn) through cargo, with
# throwaway manifests, and prints one "<crate> <version> <dir>" line per crate, the dir being the
# crate's sources under $CARGO_HOME/registry/src. No third-party source is committed: everything
# lands in cargo's own cache.
#
# Usage: scripts/fetch-corpus.sh
set -euo pipefail

scratch="${PLACER_CORPUS_SCRATCH:-${TMPDIR:-/tmp}/placer-corpus}"

# One manifest per group, so that burn resolves to its newest release instead of whatever the
# candle group's version constraints would leave it.
fetch_group() {
  local group=$1; shift
  local dir="$scratch/$group"
  mkdir -p "$dir/src"
  {
    printf '[package]\nname = "placer-corpus-%s"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n' "$group"
    printf '[workspace]\n[dependencies]\n'
    for dep in "$@"; do echo "$dep"; done
  } > "$dir/Cargo.toml"
  echo 'fn main() {}' > "$dir/src/main.rs"
  cargo fetch --quiet --manifest-path "$dir/Cargo.toml" >&2
  cargo metadata --format-version 1 --manifest-path "$dir/Cargo.toml" | python3 -c '
import json, os, sys
meta = json.load(sys.stdin)
root = next(p for p in meta["packages"] if p["name"].startswith("placer-corpus-"))
deps = {d["name"] for d in root["dependencies"]}
for p in meta["packages"]:
    if p["name"] in deps:
        print(p["name"], p["version"], os.path.dirname(p["manifest_path"]))
'
}

{
  fetch_group candle \
    'candle-transformers = "=0.11.1"' 'candle-nn = "=0.11.1"' 'candle-core = "=0.11.1"'
  fetch_group tch 'tch = "=0.26.0"'
  # burn's model code (layers) lives in burn-nn / burn-core; the facade crate is mostly re-exports.
  fetch_group burn 'burn = "*"' 'burn-core = "*"' 'burn-nn = "*"'
} | sort
