#!/usr/bin/env bash
# Checks that the prefilter hides nothing: placer's findings on a tree must be byte-identical with
# and without --no-prefilter. The default tree is every crate in cargo's registry cache (tens of
# thousands of files from hundreds of crates; run scripts/robustness.sh or cargo fetch first).
#
# Usage: scripts/prefilter-equivalence.sh [DIR...]
set -euo pipefail
source "$(dirname "$0")/common.sh"
build_placer

if (($# == 0)); then
  set -- "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/
fi
with="$PLACER_TMP/with-prefilter.txt"
without="$PLACER_TMP/without-prefilter.txt"
for mode in with without; do
  args=(check --output-format concise)
  [[ $mode == without ]] && args+=(--no-prefilter)
  start=$(date +%s.%N)
  rc=0
  "$PLACER" "${args[@]}" "$@" >"$PLACER_TMP/$mode-prefilter.txt" 2>"$PLACER_TMP/$mode.err" || rc=$?
  if ((rc > 1)); then
    echo "placer failed (exit $rc):" >&2
    cat "$PLACER_TMP/$mode.err" >&2
    exit 1
  fi
  printf '%-8s prefilter: %s (%.1f s)\n' "$mode" "$(tail -n 1 "$PLACER_TMP/$mode.err")" \
    "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')"
done
if cmp -s "$with" "$without"; then
  echo "identical findings ($(wc -l <"$with") lines)"
else
  diff "$with" "$without" >&2 || true
  echo "the prefilter changes the findings" >&2
  exit 1
fi
