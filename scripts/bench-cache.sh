#!/usr/bin/env bash
# Cold vs warm cache on the real corpus (candle-transformers + candle-nn + candle-core + tch,
# fetched by scripts/fetch-corpus.sh): `placer check DIRS` with an empty cache directory (cold:
# a full check that then writes the cache) and with the cache filled by the previous run (warm:
# every file is read and hashed, nothing is parsed). BENCH_RUNS pairs (default 7), alternating
# cold and warm; prints the median wall time of each and checks that both print the same findings.
set -euo pipefail
source "$(dirname "$0")/common.sh"
unset PLACER_NO_CACHE

runs="${BENCH_RUNS:-7}"
build_placer
dirs=()
while read -r name version dir; do
  case $name in candle-* | tch) dirs+=("$dir") ;; esac
done < <("$REPO/scripts/fetch-corpus.sh")
cache="$PLACER_TMP/cache"
: >"$PLACER_TMP/cold"
: >"$PLACER_TMP/warm"
for ((i = 0; i < runs; i++)); do
  rm -rf "$cache"
  s=$(date +%s.%N)
  "$PLACER" check --cache-dir "$cache" --output-format concise "${dirs[@]}" >"$PLACER_TMP/out-cold" 2>/dev/null || true
  e=$(date +%s.%N)
  echo "$e - $s" | bc >>"$PLACER_TMP/cold"
  s=$(date +%s.%N)
  "$PLACER" check --cache-dir "$cache" --output-format concise "${dirs[@]}" >"$PLACER_TMP/out-warm" 2>/dev/null || true
  e=$(date +%s.%N)
  echo "$e - $s" | bc >>"$PLACER_TMP/warm"
  cmp -s "$PLACER_TMP/out-cold" "$PLACER_TMP/out-warm" || { echo "error: warm output differs from cold" >&2; exit 1; }
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {printf "%.3f", (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "corpus: $(find "${dirs[@]}" -name '*.rs' -o -name '*.py' | wc -l) .rs/.py files; $(wc -l <"$PLACER_TMP/out-cold") findings; $runs runs each"
echo "cold (empty cache, full check + cache write): $(median "$PLACER_TMP/cold") s median"
echo "warm (unchanged tree, served from the cache): $(median "$PLACER_TMP/warm") s median"
