#!/usr/bin/env bash
# Runs placer on the real-model corpus (candle-transformers, candle-nn, candle-core, tch, burn,
# burn-core, burn-nn, fetched by scripts/fetch-corpus.sh into cargo's registry cache) and prints,
# per crate, the concise findings and placer's summary line; then one combined run over all the
# candle + tch crates (summary line and findings per rule).
#
# It also checks that the prefilter changes nothing: for every crate (and the combined run) the
# concise output with and without --no-prefilter must be byte-identical; if not, the diff is printed
# and the script exits 1. It exits 1 as well if placer crashes or exits with anything but 0/1.
# Findings (placer's exit code 1) are the expected outcome and do not fail the script.
#
# Usage: scripts/real-corpus.sh [-- EXTRA_PLACER_ARGS...]
#   e.g. scripts/real-corpus.sh                    # the default rule set, test code skipped
#        scripts/real-corpus.sh -- --include-tests # also check #[test]/tests/ code
# Works from any cwd; builds placer in release mode first. Paths in the output are relative to
# cargo's registry source dir ($CARGO_HOME/registry/src/<index>/), so it can be pasted as is.
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

build_placer

corpus="$PLACER_TMP/corpus.txt"
"$REPO/scripts/fetch-corpus.sh" >"$corpus"

failed=0

# check_prefilter LABEL DIR PATHS...: reruns with --no-prefilter (in DIR) and diffs against
# $PLACER_TMP/out (the run with the prefilter).
check_prefilter() {
  local label=$1 dir=$2
  shift 2
  (cd "$dir" && run_placer "$PLACER_TMP/out-np" "$PLACER_TMP/err-np" \
    check "$@" --output-format concise --no-prefilter ${extra[@]+"${extra[@]}"}
  echo "$PLACER_RC" >"$PLACER_TMP/rc-np")
  local rc_np
  rc_np=$(cat "$PLACER_TMP/rc-np")
  if is_crash "$rc_np" "$PLACER_TMP/err-np" || [[ $rc_np -eq 2 ]]; then
    echo "!! $label: placer --no-prefilter failed (exit $rc_np):" >&2
    cat "$PLACER_TMP/err-np" >&2
    failed=1
  elif ! cmp -s "$PLACER_TMP/out" "$PLACER_TMP/out-np"; then
    echo "!! $label: FINDINGS DIFFER WITH --no-prefilter (< with prefilter, > --no-prefilter):" >&2
    diff "$PLACER_TMP/out" "$PLACER_TMP/out-np" >&2 || true
    failed=1
  else
    echo "--no-prefilter: identical findings"
  fi
}

# run_one LABEL DIR PATHS...: runs placer in DIR on PATHS; leaves the findings in $PLACER_TMP/out.
# Returns 1 on a crash / usage error.
run_one() {
  local label=$1 dir=$2
  shift 2
  (cd "$dir" && run_placer "$PLACER_TMP/out" "$PLACER_TMP/err" \
    check "$@" --output-format concise ${extra[@]+"${extra[@]}"}
  echo "$PLACER_RC" >"$PLACER_TMP/rc")
  local rc
  rc=$(cat "$PLACER_TMP/rc")
  if is_crash "$rc" "$PLACER_TMP/err" || [[ $rc -eq 2 ]]; then
    echo "!! $label: placer failed (exit $rc):" >&2
    cat "$PLACER_TMP/err" >&2
    failed=1
    return 1
  fi
}

tally_rules() {
  sed -nE 's/^[^ ]+ (error|warning|info|help)\[([^]]+)\].*/\2 (\1)/p' "$1" | sort | uniq -c |
    sort -rn | awk '{ n = $1; $1 = ""; printf "  %4d%s\n", n, $0 }'
}

: >"$PLACER_TMP/all-findings"
combined_dirs=()
while read -r name version dir; do
  parent=$(dirname "$dir")
  base=$(basename "$dir")
  echo "=== $name $version ($base) ==="
  if run_one "$name" "$parent" "$base"; then
    if [[ -s $PLACER_TMP/out ]]; then cat "$PLACER_TMP/out"; else echo "(no findings)"; fi
    summary_line "$PLACER_TMP/err"
    check_prefilter "$name" "$parent" "$base"
  fi
  case $name in
    candle-* | tch)
      combined_dirs+=("$dir")
      cat "$PLACER_TMP/out" >>"$PLACER_TMP/all-findings"
      ;;
  esac
  echo
done <"$corpus"

echo "=== combined: candle-transformers + candle-nn + candle-core + tch ==="
# One parent dir (cargo's registry source dir) for all of them, normally: use relative paths.
parent=$(dirname "${combined_dirs[0]}")
rel=()
for d in "${combined_dirs[@]}"; do
  if [[ $(dirname "$d") == "$parent" ]]; then rel+=("$(basename "$d")"); else rel+=("$d"); fi
done
if run_one combined "$parent" "${rel[@]}"; then
  summary_line "$PLACER_TMP/err"
  if [[ -s $PLACER_TMP/out ]]; then
    echo "findings per rule:"
    tally_rules "$PLACER_TMP/out"
  fi
  # The combined run must report exactly the union of the per-crate runs.
  if ! diff <(sort "$PLACER_TMP/out") <(sort "$PLACER_TMP/all-findings") >"$PLACER_TMP/union.diff"; then
    echo "!! combined findings differ from the per-crate findings (< combined, > per crate):" >&2
    cat "$PLACER_TMP/union.diff" >&2
    failed=1
  else
    echo "combined findings = union of the per-crate findings"
  fi
  check_prefilter combined "$parent" "${rel[@]}"
fi

if ((failed)); then
  echo "real-corpus: FAILED (see the !! lines above)" >&2
  exit 1
fi
