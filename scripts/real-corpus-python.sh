#!/usr/bin/env bash
# Runs placer on real PyTorch code: pinned wheels of transformers, diffusers, timm and torchvision,
# fetched with `pip download --no-deps` into a scratch dir (default /work/scratch-python, or
# $PY_CORPUS_DIR; never inside the repository: third-party code is not committed) and unzipped.
# Per package it prints the number of .py files, placer's summary line and the default-on findings
# per rule, and checks that placer did not crash (exit code 0/1, no panic) and reported
# syntax-error (P000) only for files that Python 3 itself cannot compile (checked with
# `python3 -m py_compile` when python3 is available).
# With PRECISION_SAMPLE=N (e.g. 60) it also prints N random default-on findings on transformers
# (seeded: PRECISION_SEED, default 6), each with the line of code it points at, for classifying
# by hand (see docs/precision.md).
#
# Usage: scripts/real-corpus-python.sh [-- EXTRA_PLACER_ARGS...]
#   env: PY_CORPUS_DIR, PRECISION_SAMPLE, PRECISION_SEED, PLACER_BIN
# Exits 1 if placer crashes on any package or reports P000 on a file that compiles.
set -euo pipefail
source "$(dirname "$0")/common.sh"

extra=()
if (($# > 0)); then
  if [[ $1 != -- ]]; then
    echo "usage: $0 [-- EXTRA_PLACER_ARGS...]" >&2
    exit 2
  fi
  shift
  extra=("$@")
fi

PACKAGES=(transformers==4.46.3 diffusers==0.31.0 timm==1.0.11 torchvision==0.20.1)
corpus="${PY_CORPUS_DIR:-/work/scratch-python}"
case "$(realpath -m "$corpus")/" in
  "$REPO"/*)
    echo "error: the corpus dir must be outside the repository" >&2
    exit 2
    ;;
esac
mkdir -p "$corpus/wheels" "$corpus/src"

for spec in "${PACKAGES[@]}"; do
  name=${spec%%==*}
  version=${spec##*==}
  if ! ls "$corpus/wheels/$name-$version-"*.whl >/dev/null 2>&1; then
    pip download --quiet --no-deps "$spec" -d "$corpus/wheels" >&2
  fi
  if [[ ! -d $corpus/src/$name-$version ]]; then
    mkdir -p "$corpus/src/$name-$version"
    unzip -qo "$corpus/wheels/$name-$version-"*.whl -d "$corpus/src/$name-$version"
  fi
done

build_placer
status=0
for spec in "${PACKAGES[@]}"; do
  name=${spec%%==*}
  dir="$corpus/src/$name-${spec##*==}"
  out="$PLACER_TMP/$name.out"
  err="$PLACER_TMP/$name.err"
  run_placer "$out" "$err" check --output-format concise "${extra[@]}" "$dir"
  echo "== $spec: $(find "$dir" -name '*.py' | wc -l) .py files"
  echo "   $(summary_line "$err")"
  if is_crash "$PLACER_RC" "$err"; then
    echo "   CRASH (exit $PLACER_RC):" && head -20 "$err"
    status=1
  fi
  grep -oE '\[P[0-9]+/[a-z-]+\]' "$out" | sort | uniq -c | sed 's/^/   /' || true
  # P000 only where Python 3 cannot compile the file either.
  while IFS=: read -r file _; do
    if command -v python3 >/dev/null && python3 -m py_compile "$file" 2>/dev/null; then
      echo "   P000 on a file python3 compiles: $file"
      status=1
    fi
  done < <(grep 'P000/' "$out" || true)
  cp "$out" "$corpus/$name.findings"
done

if [[ -n ${PRECISION_SAMPLE:-} ]]; then
  echo "== precision sample: ${PRECISION_SAMPLE} random default-on findings on transformers"
  seed="${PRECISION_SEED:-6}"
  grep -E '\]: ' "$corpus/transformers.findings" |
    shuf -n "$PRECISION_SAMPLE" --random-source=<(yes "$seed") |
    sort |
    while IFS=: read -r file line _ rest; do
      echo "-- ${file#"$corpus"/src/}:$line:$rest"
      sed -n "${line}p" "$file" | cut -c1-160
    done
fi
exit $status
