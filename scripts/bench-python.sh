#!/usr/bin/env bash
# Times `placer check` (release build) against `ruff check --no-cache --select F` (pyflakes rules:
# parse every file, build a semantic model) on the same transformers tree, in one run: one warm-up
# each, then BENCH_RUNS (default 5) timed runs per tool, alternating (placer ruff placer ruff ...)
# so that background load hits both alike. Prints the median, min and max wall time per tool and
# the ratio of the medians (placer / ruff; the target is <= 1.0).
#
# The tree comes from scripts/real-corpus-python.sh (run it first, or set PY_CORPUS_DIR); ruff is
# installed with `pip install ruff` if missing.
# Usage: scripts/bench-python.sh     env: BENCH_RUNS, PY_CORPUS_DIR, PLACER_BIN
set -euo pipefail
source "$(dirname "$0")/common.sh"

runs="${BENCH_RUNS:-5}"
corpus="${PY_CORPUS_DIR:-/work/scratch-python}"
tree="$corpus/src/transformers-4.46.3"
if [[ ! -d $tree ]]; then
  echo "error: $tree is missing: run scripts/real-corpus-python.sh first" >&2
  exit 2
fi
command -v ruff >/dev/null || pip install --quiet ruff >&2
build_placer

files=$(find "$tree" -name '*.py' -type f | wc -l)
lines=$(find "$tree" -name '*.py' -type f -print0 | xargs -0 cat | wc -l)
echo "tree: $tree ($files .py files, $lines lines)"
echo "placer: $("$PLACER" --version); $(ruff --version)"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $runs runs each after 1 warm-up"

# Seconds of wall time of one run; exit codes 0/1 (findings) are fine, anything else is fatal.
timed() {
  local start end rc=0
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || rc=$?
  end=$(date +%s.%N)
  if ((rc > 1)); then
    echo "error: '$*' exited with $rc" >&2
    exit 1
  fi
  echo "$end - $start" | bc
}

placer_cmd=("$PLACER" check "$tree")
ruff_cmd=(ruff check --no-cache --select F --quiet "$tree")
timed "${placer_cmd[@]}" >/dev/null
timed "${ruff_cmd[@]}" >/dev/null
placer_times=()
ruff_times=()
for ((i = 0; i < runs; i++)); do
  placer_times+=("$(timed "${placer_cmd[@]}")")
  ruff_times+=("$(timed "${ruff_cmd[@]}")")
done

stats() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {printf "%.3f %.3f %.3f", a[int((NR+1)/2)], a[1], a[NR]}'; }
read -r p_med p_min p_max <<<"$(stats "${placer_times[@]}")"
read -r r_med r_min r_max <<<"$(stats "${ruff_times[@]}")"
printf '| tool | median (s) | min (s) | max (s) |\n| --- | --- | --- | --- |\n'
printf '| placer check | %s | %s | %s |\n' "$p_med" "$p_min" "$p_max"
printf '| ruff check --no-cache --select F | %s | %s | %s |\n' "$r_med" "$r_min" "$r_max"
echo "ratio placer/ruff (medians): $(echo "scale=2; $p_med / $r_med" | bc)"
