# Helpers shared by scripts/real-corpus.sh, scripts/robustness.sh and scripts/bench.sh.
# Not meant to be run: those scripts `source` it. It expects `set -euo pipefail` in the caller.
#
# After sourcing:
#   REPO            absolute path of the repository (the parent of scripts/)
#   build_placer    builds placer in release mode (retrying, since the tree may be mid-edit) and
#                   copies the binary to a private temp dir, so that a concurrent `cargo build`
#                   cannot swap it out in the middle of a measurement; sets PLACER to that copy.
#                   With PLACER_BIN=/path/to/placer set, uses that binary and builds nothing.
#   run_placer OUT ERR ARGS...
#                   runs "$PLACER" ARGS..., stdout to OUT, stderr to ERR; sets PLACER_RC.
#                   Never aborts the caller on exit code 1 (findings).
#   is_crash RC ERR true when RC/ERR show a crash: an exit code other than 0/1/2, a signal, a
#                   timeout, or "panicked" / "overflowed its stack" in stderr.
#   summary_line ERR   the `N problems (...) ... checked K files in T s` line of ERR (or "").
#   checked_files ERR  K from that line (0 if absent).

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PLACER_TMP="$(mktemp -d "${TMPDIR:-/tmp}/placer-scripts.XXXXXX")"
trap 'rm -rf "$PLACER_TMP"' EXIT

# The scripts measure and compare the analysis itself: never serve a run from the cache.
export PLACER_NO_CACHE=1

build_placer() {
  if [[ -n ${PLACER_BIN:-} ]]; then
    PLACER=$PLACER_BIN
    return 0
  fi
  local tries="${PLACER_BUILD_TRIES:-5}" i
  for ((i = 1; ; i++)); do
    if (cd "$REPO" && cargo build --release --quiet); then
      break
    fi
    if ((i >= tries)); then
      echo "error: cargo build --release failed $tries times" >&2
      return 1
    fi
    echo "cargo build --release failed (attempt $i/$tries); retrying in 60 s" >&2
    sleep 60
  done
  local built="${CARGO_TARGET_DIR:-$REPO/target}/release/placer"
  cp "$built" "$PLACER_TMP/placer"
  PLACER="$PLACER_TMP/placer"
}

run_placer() {
  local out=$1 err=$2
  shift 2
  PLACER_RC=0
  "$PLACER" "$@" >"$out" 2>"$err" || PLACER_RC=$?
}

is_crash() {
  local rc=$1 err=$2
  [[ $rc -ne 0 && $rc -ne 1 && $rc -ne 2 ]] && return 0
  grep -qE "panicked|has overflowed its stack|RUST_BACKTRACE" "$err" && return 0
  return 1
}

summary_line() {
  grep -E '^[0-9]+ problems? \(' "$1" | tail -n 1 || true
}

checked_files() {
  local n
  n=$(summary_line "$1" | sed -nE 's/.*checked ([0-9]+) files?.*/\1/p')
  echo "${n:-0}"
}
