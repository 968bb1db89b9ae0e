#!/usr/bin/env bash
# Benchmarks placer on the combined real corpus (candle-transformers + candle-nn + candle-core +
# tch, fetched by scripts/fetch-corpus.sh), in three modes over all those dirs in one run each:
#   (a) parse-only       placer check --parse-only DIRS   (read + parse every file, nothing else)
#   (b) check            placer check DIRS                 (what a user runs)
#   (c) check, no prefilter  placer check --no-prefilter DIRS (parse and lower every file)
# Each mode: one warm-up run (its exit code is checked: 0/1 only, no panic), then BENCH_RUNS timed
# runs (default 7), wall clock. Prints the corpus size (files, `wc -l` lines) and a table with the
# median (and min/max, user+sys CPU time: median, or hyperfine's mean) per mode and the overhead of (b) and (c) over (a) in percent:
# of the medians, and (without hyperfine) paired: the median over rounds of each round's ratio.
# Without hyperfine, the timed runs of the three modes are interleaved (a b c a b c ...) so that
# background load drifts hit all three alike; with hyperfine installed (not required) it does the
# timing instead (set BENCH_NO_HYPERFINE=1 to not use it).
#
# Usage: scripts/bench.sh            (from any cwd; builds placer in release mode first)
#   env: BENCH_RUNS=N, BENCH_NO_HYPERFINE=1, PLACER_BIN (use that binary instead of building one)
set -euo pipefail
source "$(dirname "$0")/common.sh"

runs="${BENCH_RUNS:-7}"
if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
  echo "error: BENCH_RUNS must be a positive integer, got '$runs'" >&2
  exit 2
fi

build_placer
dirs=()
while read -r name version dir; do
  case $name in candle-* | tch) dirs+=("$dir") ;; esac
done < <("$REPO/scripts/fetch-corpus.sh")
if ((${#dirs[@]} != 4)); then
  echo "error: expected 4 corpus dirs (candle-transformers, candle-nn, candle-core, tch), got ${#dirs[@]}" >&2
  exit 1
fi

files=$(find "${dirs[@]}" -name '*.rs' -type f | wc -l)
lines=$(find "${dirs[@]}" -name '*.rs' -type f -print0 | xargs -0 cat | wc -l)
echo "corpus: $(for d in "${dirs[@]}"; do basename "$d"; done | paste -sd ' ')"
echo "        $files .rs files, $lines lines (wc -l)"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $runs runs per mode after 1 warm-up"

modes=(a b c)
declare -A label args
label[a]="(a) parse-only"
label[b]="(b) check"
label[c]="(c) check --no-prefilter"
args[a]="--parse-only"
args[b]=""
args[c]="--no-prefilter"

# mode_argv VAR MODE: sets the array VAR to the placer argv of MODE.
mode_argv() {
  local -n _out=$1
  local extra
  read -r -a extra <<<"${args[$2]}"
  _out=(check ${extra[@]+"${extra[@]}"} "${dirs[@]}")
}

# Warm-up (and sanity check) of every mode.
for m in "${modes[@]}"; do
  mode_argv argv "$m"
  run_placer "$PLACER_TMP/out" "$PLACER_TMP/err" "${argv[@]}"
  if is_crash "$PLACER_RC" "$PLACER_TMP/err" || ((PLACER_RC == 2)); then
    echo "error: ${label[$m]} failed (exit $PLACER_RC):" >&2
    cat "$PLACER_TMP/err" >&2
    exit 1
  fi
  echo "warm-up ${label[$m]}: $(tail -n 1 "$PLACER_TMP/err")"
done

# stats FILE: "median min max" of the numbers in FILE (one per line).
stats() {
  sort -g "$1" | awk '{ v[NR] = $1 } END {
    med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.3f %.3f %.3f\n", med, v[1], v[NR] }'
}

declare -A med mn mx cpu paired
if command -v hyperfine >/dev/null && [[ -z ${BENCH_NO_HYPERFINE:-} ]]; then
  echo "timing with $(hyperfine --version)"
  cmds=()
  for m in "${modes[@]}"; do
    mode_argv argv "$m"
    cmds+=("$(printf '%q ' "$PLACER" "${argv[@]}")")
  done
  # Exit code 1 (findings) is expected: the warm-up above already checked for crashes.
  hyperfine --style none --ignore-failure --warmup 1 --runs "$runs" \
    --export-json "$PLACER_TMP/hf.json" "${cmds[@]}" >/dev/null 2>"$PLACER_TMP/hf.err" || {
    cat "$PLACER_TMP/hf.err" >&2
    exit 1
  }
  i=0
  while read -r md lo hi c; do
    m=${modes[$i]}
    med[$m]=$md mn[$m]=$lo mx[$m]=$hi cpu[$m]=$c
    i=$((i + 1))
  done < <(python3 -c '
import json, statistics, sys
for r in json.load(open(sys.argv[1]))["results"]:
    t = r["times"]
    print("%.3f %.3f %.3f %.3f" % (statistics.median(t), min(t), max(t), r["user"] + r["system"]))
' "$PLACER_TMP/hf.json")
else
  echo "timing with bash's time (hyperfine not used)"
  for m in "${modes[@]}"; do : >"$PLACER_TMP/wall-$m"; : >"$PLACER_TMP/cpu-$m"; done
  TIMEFORMAT='%3R %3U %3S'
  for ((r = 1; r <= runs; r++)); do
    for m in "${modes[@]}"; do
      mode_argv argv "$m"
      t=$({ time "$PLACER" "${argv[@]}" >/dev/null 2>"$PLACER_TMP/err"; } 2>&1) || true
      read -r real user sys <<<"$t"
      echo "$real" >>"$PLACER_TMP/wall-$m"
      awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f\n", u + s }' >>"$PLACER_TMP/cpu-$m"
    done
  done
  for m in "${modes[@]}"; do
    read -r med[$m] mn[$m] mx[$m] <<<"$(stats "$PLACER_TMP/wall-$m")"
    read -r cpu[$m] _ _ <<<"$(stats "$PLACER_TMP/cpu-$m")"
  done
  # Paired: each round's (b)/(a) and (c)/(a) from runs seconds apart, then the median over the
  # rounds; drifts in machine speed between rounds cancel out.
  for m in b c; do
    paste "$PLACER_TMP/wall-$m" "$PLACER_TMP/wall-a" | awk '{ printf "%.6f\n", ($1 / $2 - 1) * 100 }' \
      >"$PLACER_TMP/ratio-$m"
    read -r pm _ _ <<<"$(stats "$PLACER_TMP/ratio-$m")"
    paired[$m]=$(printf '%+.1f%%' "$pm")
  done
fi

echo
printf '%-26s %9s %8s %8s %11s %14s %9s\n' "mode" "median s" "min s" "max s" "cpu s" "vs parse-only" \
  "paired"
for m in "${modes[@]}"; do
  if [[ $m == a ]]; then
    over="-"
  else
    over=$(awk -v x="${med[$m]}" -v a="${med[a]}" 'BEGIN { printf "%+.1f%%", (x - a) / a * 100 }')
  fi
  printf '%-26s %9s %8s %8s %11s %14s %9s\n' "${label[$m]}" "${med[$m]}" "${mn[$m]}" "${mx[$m]}" \
    "${cpu[$m]}" "$over" "${paired[$m]:--}"
done
