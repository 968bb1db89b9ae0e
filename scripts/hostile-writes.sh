#!/usr/bin/env bash
# Hostile writes: placer must never lose a byte of a user's file, whatever happens while it writes.
# Standalone (scripts/hostile.sh calls it when present); exits non-zero on any lost or corrupted
# byte, 0 when every case passed. Cases:
#   1. a full disk: a tiny tmpfs (needs root and `mount`; skipped with a note otherwise) filled up,
#      then `--fix`: the file must come out byte for byte as it was, with no temporary file left;
#   2. an injected write error (PLACER_TEST_FAIL_WRITE) for `--fix`, `--add-allow` and a notebook;
#   3. SIGINT and SIGKILL at random moments of `--fix` over many files: every file must be either
#      exactly the original or exactly the fixed text, never empty or half-written;
#   4. racing runs and edits with the cache on: afterwards a warm run must report exactly what an
#      uncached run reports (a poisoned cache entry would serve findings of another content).
#
# Usage: scripts/hostile-writes.sh   (env: PLACER_BIN=/path/to/placer to skip building;
#        HOSTILE_ROUNDS, default 20, for cases 3 and 4)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/placer-hostile-writes.XXXXXX")"
MNT=""
cleanup() {
  if [[ -n $MNT ]]; then umount "$MNT" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

if [[ -n ${PLACER_BIN:-} ]]; then
  PLACER=$PLACER_BIN
else
  (cd "$REPO" && cargo build --quiet --bin placer)
  PLACER="$WORK/placer"
  cp "$REPO/target/debug/placer" "$PLACER"
fi
rounds="${HOSTILE_ROUNDS:-20}"
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
pass() { echo "ok: $*"; }

# A Python file whose only finding is a stale suppression (a safe fix), padded to some size.
stale() {
  printf 'import torch\n\nx = torch.ones(2)  # placer: allow(P301)\n'
  for ((i = 0; i < ${1:-0}; i++)); do printf '# padding line %05d: é ü ✓\n' "$i"; done
}
fixed_of() { sed 's/  # placer: allow(P301)$//' "$1"; }

# 1. A full disk.
case1() {
  MNT="$WORK/tmpfs"
  mkdir -p "$MNT"
  if [[ $(id -u) -ne 0 ]] || ! mount -t tmpfs -o size=256k tmpfs "$MNT" 2>/dev/null; then
    echo "skipped: full disk (needs root to mount a tmpfs)"
    MNT=""
    return
  fi
  stale 2000 >"$MNT/a.py" 2>/dev/null || true
  if ! cmp -s "$MNT/a.py" <(stale 2000); then
    # The file itself did not fit: use a smaller one.
    rm -f "$MNT/a.py"
    stale 1500 >"$MNT/a.py"
  fi
  cp "$MNT/a.py" "$WORK/a.py.orig"
  dd if=/dev/zero of="$MNT/filler" bs=1k 2>/dev/null || true
  local rc=0
  (cd "$MNT" && "$PLACER" check --fix --no-cache a.py >/dev/null 2>"$WORK/err1") || rc=$?
  if ! cmp -s "$MNT/a.py" "$WORK/a.py.orig"; then
    fail "full disk: a.py changed ($(wc -c <"$MNT/a.py") of $(wc -c <"$WORK/a.py.orig") bytes left)"
  elif [[ $rc -ne 2 ]]; then
    fail "full disk: exit code $rc, expected 2: $(cat "$WORK/err1")"
  elif [[ $(find "$MNT" -name '*.placer-tmp' | wc -l) -ne 0 ]]; then
    fail "full disk: a temporary file was left behind"
  else
    pass "full disk: a.py whole, exit 2, reported: $(grep -m1 'a.py' "$WORK/err1")"
  fi
  rm -f "$MNT/filler"
  umount "$MNT"
  MNT=""
}

# 2. Injected write errors.
case2() {
  local d="$WORK/inject" rc
  mkdir -p "$d"
  stale 10 >"$d/a.py"
  printf 'import torch\nz = torch.ones(2, device="cuda") + torch.ones(2)\n' >"$d/b.py"
  cat >"$d/nb.ipynb" <<'EOF'
{
 "cells": [
  {"cell_type": "markdown", "metadata": {}, "source": ["# Modèle ✓"]},
  {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
   "source": ["import torch\n", "z = torch.ones(2, device=\"cuda\") + torch.ones(2)\n", "y = 1  # placer: allow(P301)"]}
 ],
 "metadata": {}, "nbformat": 4, "nbformat_minor": 5
}
EOF
  cp -r "$d" "$WORK/inject.orig"
  for args in "--fix" "--add-allow" "--fix --unsafe-fixes"; do
    rc=0
    # shellcheck disable=SC2086
    (cd "$d" && PLACER_TEST_FAIL_WRITE=/ "$PLACER" check $args --no-cache . >/dev/null 2>"$WORK/err2") || rc=$?
    if ! diff -r "$d" "$WORK/inject.orig" >/dev/null; then
      fail "injected write error ($args): files changed"
    elif [[ $rc -ne 2 ]]; then
      fail "injected write error ($args): exit code $rc, expected 2"
    else
      pass "injected write error ($args): every file whole"
    fi
  done
}

# 3. Interrupted runs.
case3() {
  local d="$WORK/interrupt" lost=0 n=60
  mkdir -p "$d"
  stale 300 >"$WORK/orig.py"
  fixed_of "$WORK/orig.py" >"$WORK/fixed.py"
  for ((r = 0; r < rounds; r++)); do
    for ((i = 0; i < n; i++)); do cp "$WORK/orig.py" "$d/f$i.py"; done
    local sig=INT
    if ((r % 2)); then sig=KILL; fi
    (cd "$d" && exec "$PLACER" check --fix --no-cache . >/dev/null 2>&1) &
    local pid=$!
    sleep "0.0$((RANDOM % 10))$((RANDOM % 10))"
    kill -s "$sig" "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    for ((i = 0; i < n; i++)); do
      if ! cmp -s "$d/f$i.py" "$WORK/orig.py" && ! cmp -s "$d/f$i.py" "$WORK/fixed.py"; then
        lost=$((lost + 1))
        fail "interrupted (SIG$sig): f$i.py is neither the original nor the fixed text"
      fi
    done
    rm -f "$d"/.*.placer-tmp
  done
  if ((lost == 0)); then pass "interrupted runs: $rounds rounds x $n files, every file whole"; fi
}

# 4. Racing runs and edits with the cache.
case4() {
  local d="$WORK/race" poisoned=0
  mkdir -p "$d"
  local clean='import torch\nz = torch.ones(2, device="cuda") + torch.ones(2, device="cuda")\n'
  local buggy='import torch\nz = torch.ones(2, device="cuda") + torch.ones(2)\n'
  # Many files widen the window between reading a file for the key and analysing it.
  for ((i = 0; i < 300; i++)); do printf 'import torch\nx%d = torch.ones(2)\n' "$i" >"$d/pad$i.py"; done
  for ((r = 0; r < rounds; r++)); do
    printf "%b" "$clean" >"$d/m.py"
    (while :; do
      printf "%b" "$buggy" >"$d/m.tmp" && mv "$d/m.tmp" "$d/m.py" 2>/dev/null
      printf "%b" "$clean" >"$d/m.tmp" && mv "$d/m.tmp" "$d/m.py" 2>/dev/null
    done) &
    local writer=$!
    for ((j = 0; j < 3; j++)); do
      (cd "$d" && "$PLACER" check --output-format concise . >/dev/null 2>&1) || true
    done
    kill "$writer" 2>/dev/null || true
    wait "$writer" 2>/dev/null || true
    rm -f "$d/m.tmp"
    for content in "$clean" "$buggy"; do
      printf "%b" "$content" >"$d/m.py"
      local cold warm
      cold=$(cd "$d" && "$PLACER" check --no-cache --output-format concise . 2>/dev/null || true)
      warm=$(cd "$d" && "$PLACER" check --output-format concise . 2>/dev/null || true)
      if [[ $cold != "$warm" ]]; then
        poisoned=$((poisoned + 1))
        fail "racing runs: the cache served stale findings (round $r)"
        break
      fi
    done
  done
  if ((poisoned == 0)); then pass "racing runs: $rounds rounds, no stale cache entry"; fi
}

case1
case2
case3
case4
if ((failures > 0)); then
  echo "hostile-writes: $failures failure(s)" >&2
  exit 1
fi
echo "hostile-writes: all cases passed"
