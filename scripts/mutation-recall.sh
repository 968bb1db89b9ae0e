#!/usr/bin/env bash
# Mutation recall: injects one device-placement bug at a time into pinned real code and counts how
# often placer reports it (docs/recall.md). Targets: candle-transformers 0.11.1 (crates.io, fetched
# with cargo through a throwaway manifest into cargo's own cache) and transformers 4.46.3 (the wheel,
# `pip download --no-deps`, unzipped). Third-party code stays in a scratch dir outside the repository
# (default /work/scratch-mutation, or $MUTATION_SCRATCH); the mutants are applied to a copy of it
# there, one at a time, and the copy is restored after each run.
#
# The mutation engine is scripts/mutate.py (Python 3, stdlib only). Operators:
#   rs-device-to-cpu             candle factory device argument that follows data -> &Device::Cpu
#   rs-host-read-in-loop         `let _ = t.to_vec0::<f32>()?;` inserted in a loop body
#   py-device-kw-deleted         `device=` deleted from a torch factory call
#   py-buffer-to-attr            self.register_buffer("n", t) -> self.n = t
#   py-transfer-in-loop-deleted  `.to(device)` / `.cuda()` inside a loop removed
#   py-host-read-in-loop         `_ = t.item()` inserted in a loop body
# A mutant is killed when placer reports a finding in the mutated file that the unmutated tree does
# not have ("near": within +-2 lines of the site, counting the finding's labels; "any": anywhere in
# the checked tree). Placer runs on the crate's src/ (Rust), or on the mutated file's package
# directory plus the package's top-level modules and generation/ (Python: the base classes live
# there; without them model classes are not known to be nn.Modules).
#
# Usage: scripts/mutation-recall.sh
#   env: PLACER_BIN          placer binary to measure (default: build this checkout in release mode)
#        MUTATION_SAMPLE=N   mutants per operator, drawn at random when there are more sites (150;
#                            0 = every site)
#        MUTATION_SEED=S     seed of that draw (1)
#        MUTATION_OPS=a,b    only these operators (default: all)
#        MUTATION_TARGETS    rust,python (default both)
#        MUTATION_SURVIVORS=PATH  write the surviving mutants there (tab-separated: target,
#                            file:line, operator, context, function, mutated line, note)
#        MUTATION_RESULTS=PATH    write every mutant's result as JSON
#        MUTATION_SCRATCH=DIR     scratch dir (outside the repository)
#        MUTATION_PLACER_ARGS     extra `placer check` arguments, e.g. `--extend-select P305`
#                            (the host-read operators' reads are P305's, which is off by default)
set -euo pipefail
source "$(dirname "$0")/common.sh"

scratch="${MUTATION_SCRATCH:-/work/scratch-mutation}"
case "$(realpath -m "$scratch")/" in
  "$REPO"/*)
    echo "error: the scratch dir must be outside the repository" >&2
    exit 2
    ;;
esac
mkdir -p "$scratch"
scratch="$(realpath "$scratch")"
targets="${MUTATION_TARGETS:-rust,python}"

rust_root=""
if [[ $targets == *rust* ]]; then
  manifest="$scratch/cargo"
  mkdir -p "$manifest/src"
  printf '[package]\nname = "placer-mutation-corpus"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n[workspace]\n[dependencies]\ncandle-transformers = "=0.11.1"\n' \
    >"$manifest/Cargo.toml"
  echo 'fn main() {}' >"$manifest/src/main.rs"
  cargo fetch --quiet --manifest-path "$manifest/Cargo.toml" >&2
  crate_dir=$(cargo metadata --format-version 1 --manifest-path "$manifest/Cargo.toml" | python3 -c '
import json, os, sys
meta = json.load(sys.stdin)
print(next(os.path.dirname(p["manifest_path"]) for p in meta["packages"]
           if p["name"] == "candle-transformers" and p["version"] == "0.11.1"))')
  rust_root="$crate_dir/src"
fi

python_root=""
if [[ $targets == *python* ]]; then
  mkdir -p "$scratch/wheels" "$scratch/src"
  if ! ls "$scratch/wheels/transformers-4.46.3-"*.whl >/dev/null 2>&1; then
    pip download --quiet --no-deps transformers==4.46.3 -d "$scratch/wheels" >&2
  fi
  if [[ ! -d $scratch/src/transformers-4.46.3 ]]; then
    unzip -qo "$scratch/wheels/transformers-4.46.3-"*.whl -d "$scratch/src/transformers-4.46.3"
  fi
  python_root="$scratch/src/transformers-4.46.3/transformers"
fi

build_placer
echo "placer: $PLACER ($("$PLACER" --version 2>/dev/null || echo '?'))" >&2

args=(run --placer "$PLACER" --work "$scratch/work" --targets "$targets"
  --sample "${MUTATION_SAMPLE:-150}" --seed "${MUTATION_SEED:-1}" --progress)
[[ -n $rust_root ]] && args+=(--rust-root "$rust_root")
[[ -n $python_root ]] && args+=(--python-root "$python_root")
[[ -n ${MUTATION_OPS:-} ]] && args+=(--ops "$MUTATION_OPS")
[[ -n ${MUTATION_SURVIVORS:-} ]] && args+=(--survivors "$MUTATION_SURVIVORS")
[[ -n ${MUTATION_RESULTS:-} ]] && args+=(--results "$MUTATION_RESULTS")
python3 "$REPO/scripts/mutate.py" "${args[@]}"
