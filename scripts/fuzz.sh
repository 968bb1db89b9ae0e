#!/usr/bin/env bash
# Fuzz campaign on stable Rust: lint/examples/fuzz.rs mutates the fixtures and real files (token
# deletion, duplication, deep nesting, splicing, long repeats; Python also as notebooks, some of
# an R kernel) and runs each mutant through parse -> lower -> check -> every output format ->
# baseline -> add-allow -> fix -> re-parse. A panic is kept as FUZZ_OUT/crash-N.*; an abort (a
# stack overflow cannot be caught) keeps the input that was running as FUZZ_OUT/abort-N.* and the
# campaign goes on with the next seed until the budget is spent.
#
# Usage: scripts/fuzz.sh [SECONDS]      (default 600; seeds: fixtures, example-models, lint/src, src)
#   env: FUZZ_OUT (default target/fuzz), FUZZ_SEED (first RNG seed), PLACER_FUZZ_BIN (prebuilt)
# Exit status: 0 if nothing crashed, 1 otherwise. Prints executions and crashes.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
budget="${1:-600}"
out="${FUZZ_OUT:-$REPO/target/fuzz}"
seed="${FUZZ_SEED:-1}"
mkdir -p "$out"
bin="${PLACER_FUZZ_BIN:-}"
if [[ -z $bin ]]; then
  (cd "$REPO" && cargo build --release --quiet -p placer-lint --example fuzz)
  bin="${CARGO_TARGET_DIR:-$REPO/target}/release/examples/fuzz"
fi
seeds=("$REPO/fixtures" "$REPO/example-models" "$REPO/lint/src" "$REPO/src")
end=$(($(date +%s) + budget))
execs=0 crashes=0 aborts=0 runs=0
while (($(date +%s) < end)); do
  left=$((end - $(date +%s)))
  ((left > 0)) || break
  log="$out/run-$seed.log"
  rc=0
  FUZZ_SECS=$left FUZZ_SEED=$seed FUZZ_OUT="$out/seed-$seed" "$bin" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  runs=$((runs + 1))
  n=$(sed -nE 's/^fuzz: ([0-9]+) executions.*/\1/p' "$log")
  c=$(sed -nE 's/^fuzz: [0-9]+ executions in [0-9]+ s, ([0-9]+) crashes.*/\1/p' "$log")
  execs=$((execs + ${n:-0}))
  crashes=$((crashes + ${c:-0}))
  if [[ -z $n ]]; then
    # Killed before its summary (an abort): keep what it was running.
    aborts=$((aborts + 1))
    for f in "$out/seed-$seed"/current.*; do
      [[ -e $f ]] && cp "$f" "$out/abort-$aborts.${f##*.}"
    done
    echo "abort (exit $rc) with seed $seed: input kept in $out/abort-$aborts.*" >&2
    tail -n 3 "$log" >&2
  fi
  seed=$((seed + 1))
done
echo "fuzz campaign: $runs run(s), $execs executions (not counting aborted runs), $crashes panics, $aborts aborts, ${budget} s budget"
ls "$out"/seed-*/crash-* "$out"/abort-* 2>/dev/null | sed 's/^/  kept: /' || true
((crashes == 0 && aborts == 0))
