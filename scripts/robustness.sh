#!/usr/bin/env bash
# Robustness run: placer must never crash, whatever Rust it is fed. Runs `placer check` over every
# crate in cargo's registry cache (${CARGO_HOME:-$HOME/.cargo}/registry/src/*/*: the workspace's
# own dependencies, after `cargo fetch`, plus the corpus of scripts/fetch-corpus.sh: hundreds of
# crates, tens of thousands of .rs files), one placer run per crate directory so that a crash is
# attributed to a crate. When a crate's run crashes, placer is rerun on each of its .rs files alone
# to name the file(s) and show the panic message.
#
# A crash is: an exit code other than 0/1 (2 only counts when the crate does have .rs files), a
# signal, a per-crate timeout (ROBUST_TIMEOUT seconds, default 600), or "panicked" / "overflowed
# its stack" in stderr. Findings, including P000/syntax-error for files that do not parse, are not
# crashes. Exit status: 0 if nothing crashed, 1 otherwise.
#
# By default every file is parsed and every rule runs on test code as well
# (ROBUST_FLAGS="--no-prefilter --include-tests"); set ROBUST_FLAGS="" for placer's defaults.
# At the end it prints the totals (crates, files checked, P000 and other findings, wall time) and
# lists the P000 findings, so that wrongly rejected files can be spotted.
#
# Usage: scripts/robustness.sh          (from any cwd; takes a few minutes on 2 cores)
#   env: ROBUST_FLAGS, ROBUST_TIMEOUT, CARGO_HOME, ROBUST_NO_FETCH=1 (skip the fetching),
#        PLACER_BIN (use that binary instead of building one)
set -euo pipefail
source "$(dirname "$0")/common.sh"

read -r -a flags <<<"${ROBUST_FLAGS---no-prefilter --include-tests}"
timeout_s="${ROBUST_TIMEOUT:-600}"
registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"

build_placer
if [[ -z ${ROBUST_NO_FETCH:-} ]]; then
  echo "fetching: cargo fetch (workspace) + scripts/fetch-corpus.sh ..." >&2
  cargo fetch --quiet --manifest-path "$REPO/Cargo.toml"
  "$REPO/scripts/fetch-corpus.sh" >/dev/null
fi

shopt -s nullglob
crate_dirs=("$registry"/*/*/)
shopt -u nullglob
if ((${#crate_dirs[@]} == 0)); then
  echo "error: no crates under $registry" >&2
  exit 1
fi

start=$(date +%s.%N)
n_crates=0 n_empty=0 n_rs=0 n_checked=0 n_p000=0 n_other=0 n_crash=0 n_mismatch=0
p000="$PLACER_TMP/p000.txt"
crashes="$PLACER_TMP/crashes.txt"
mismatch="$PLACER_TMP/mismatch.txt"
: >"$p000"
: >"$crashes"
: >"$mismatch"

# run_in DIR OUT ERR PATH: one placer run in DIR with the timeout; sets PLACER_RC.
run_in() {
  local dir=$1 out=$2 err=$3 path=$4
  PLACER_RC=0
  (cd "$dir" && timeout -k 10 "$timeout_s" "$PLACER" check "$path" --output-format concise \
    ${flags[@]+"${flags[@]}"} >"$out" 2>"$err") || PLACER_RC=$?
}

describe_rc() {
  case $1 in
    124 | 137) echo "timed out after ${timeout_s}s (exit $1)" ;;
    *) if (($1 > 128)); then echo "killed by signal $(($1 - 128)) ($(kill -l $(($1 - 128)) 2>/dev/null || echo '?'))"; else echo "exit $1"; fi ;;
  esac
}

total=${#crate_dirs[@]}
for dir in "${crate_dirs[@]}"; do
  dir=${dir%/}
  parent=$(dirname "$dir")
  crate=$(basename "$dir")
  rs=$(find "$dir" -name '*.rs' -type f | wc -l)
  if ((rs == 0)); then
    n_empty=$((n_empty + 1))
    continue
  fi
  n_crates=$((n_crates + 1))
  n_rs=$((n_rs + rs))
  if ((n_crates % 100 == 0)); then echo "  ... $n_crates/$total crates" >&2; fi

  run_in "$parent" "$PLACER_TMP/out" "$PLACER_TMP/err" "$crate"
  rc=$PLACER_RC
  if is_crash "$rc" "$PLACER_TMP/err" || ((rc == 2)); then
    n_crash=$((n_crash + 1))
    {
      echo "CRASH in crate $crate ($(describe_rc "$rc")):"
      grep -A 1 -m 2 -E "panicked|overflowed|^placer: error" "$PLACER_TMP/err" | sed 's/^/    /' || true
      echo "  per-file reruns:"
      found=0
      while IFS= read -r -d '' f; do
        rel=${f#"$parent"/}
        run_in "$parent" "$PLACER_TMP/fout" "$PLACER_TMP/ferr" "$rel"
        if is_crash "$PLACER_RC" "$PLACER_TMP/ferr" || ((PLACER_RC == 2)); then
          found=1
          echo "    $rel: $(describe_rc "$PLACER_RC")"
          grep -A 1 -m 2 -E "panicked|overflowed" "$PLACER_TMP/ferr" | sed 's/^/      /' || true
        fi
      done < <(find "$dir" -name '*.rs' -type f -print0 | sort -z)
      ((found)) || echo "    (no single file crashes on its own)"
    } | tee -a "$crashes" >&2
    continue
  fi

  k=$(checked_files "$PLACER_TMP/err")
  n_checked=$((n_checked + k))
  ((k == rs)) || echo "$crate: $rs .rs files on disk, placer checked $k" >>"$mismatch"
  p=$(grep -c '\[P000/' "$PLACER_TMP/out" || true)
  all=$(grep -cE '^[^ ]+:[0-9]+:[0-9]+: ' "$PLACER_TMP/out" || true)
  n_p000=$((n_p000 + p))
  n_other=$((n_other + all - p))
  ((p == 0)) || grep '\[P000/' "$PLACER_TMP/out" >>"$p000"
done
end=$(date +%s.%N)

echo
echo "P000/syntax-error findings ($n_p000):"
if [[ -s $p000 ]]; then sed 's/^/  /' "$p000"; else echo "  (none)"; fi
if [[ -s $mismatch ]]; then
  echo
  echo "crates where placer checked fewer/more files than find(1) sees ($(wc -l <"$mismatch")):"
  head -n 20 "$mismatch" | sed 's/^/  /'
fi
echo
echo "robustness totals (placer flags: ${flags[*]:-(defaults)})"
printf '  %-28s %s\n' \
  "registry" "$registry" \
  "crates" "$n_crates (+$n_empty without .rs files, skipped)" \
  ".rs files on disk" "$n_rs" \
  "files checked" "$n_checked" \
  "P000 findings" "$n_p000" \
  "other findings" "$n_other" \
  "crashes" "$n_crash" \
  "wall time" "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f s", b - a }')"

if ((n_crash > 0)); then
  echo
  echo "robustness: FAILED, placer crashed on $n_crash crate(s):" >&2
  cat "$crashes" >&2
  exit 1
fi
echo "robustness: OK, no crash"
