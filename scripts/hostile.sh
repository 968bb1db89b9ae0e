#!/usr/bin/env bash
# Hostile-input suite (issue 11): placer run as a hostile or unlucky user would, in a temp dir.
# Cases: deep nesting, closed pipes (every output format), FIFOs (config, baseline, in the tree,
# in the cache), symlinks (loops, dangling, outside the tree), multibyte notebooks and BOM files
# through every output format with a cold and a warm cache (the outputs must agree), concurrent
# runs sharing a cache, racing edits (the cache must not serve stale findings afterwards), quoted
# git paths with --diff-base, a file given twice. Read-only runs must leave every byte of the
# tree as it was. If scripts/hostile-writes.sh exists (interrupted and failing writes), it runs
# too.
#
# A failure is a crash (signal, panic, stack overflow), a hang (HOSTILE_TIMEOUT seconds, default
# 60), a changed byte, or an output that differs where it must not. Exit status: 0 if none.
#
# Usage: scripts/hostile.sh          env: PLACER_BIN (use that binary), HOSTILE_TIMEOUT
set -euo pipefail
source "$(dirname "$0")/common.sh"
# common.sh turns the cache off for measurements; here the cache is under test.
unset PLACER_NO_CACHE
build_placer
timeout_s="${HOSTILE_TIMEOUT:-60}"
failures=0
cases=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# p NAME ARGS...: runs placer with a timeout in the current directory; stdout in $T/out,
# stderr in $T/err; fails NAME on a crash or a hang. Sets RC.
p() {
  local name=$1
  shift
  cases=$((cases + 1))
  RC=0
  timeout -k 5 "$timeout_s" "$PLACER" "$@" >"$T/out" 2>"$T/err" </dev/null || RC=$?
  if ((RC == 124 || RC == 137)); then
    fail "$name: hung (more than ${timeout_s} s): placer $*"
  elif is_crash "$RC" "$T/err"; then
    fail "$name: crashed (exit $RC): placer $*"
    head -n 5 "$T/err" | sed 's/^/    /' >&2
  fi
}

# expect_rc NAME WANT: the last run's exit code must be WANT.
expect_rc() {
  if [[ $RC != "$2" ]]; then
    fail "$1: exit $RC, expected $2"
    head -n 5 "$T/err" | sed 's/^/    /' >&2
  fi
}

tree_sum() { (cd "$1" && find . -type f ! -path '*/.placer_cache/*' ! -path './.git/*' -print0 | sort -z | xargs -0 sha256sum); }

T="$PLACER_TMP"
W="$T/work"
mkdir -p "$W/src" "$W/nb"
cd "$W"

MODEL='use candle_core::{DType, Device, Result, Tensor};

pub struct Block;
impl Block {
    pub fn forward(&self, xs: &Tensor) -> Result<Tensor> {
        let bias = Tensor::zeros((4, 4), DType::F32, &Device::Cpu)?;
        xs.broadcast_add(&bias)
    }
}
'
printf '%s' "$MODEL" >src/model.rs
printf '\xef\xbb\xbf// modèle é\n%s' "$MODEL" >src/bom_é.rs
python3 - <<'PY'
import json
deep = "fn f() { let x = " + "(" * 5000 + "1" + ")" * 5000 + "; }\n"
open("src/deep.rs", "w").write(deep)
terms = " + ".join(["t"] * 5000)
open("src/sum.rs", "w").write("use candle_core::Tensor;\nfn f(t: &Tensor) { let x = " + terms + "; }\n")
long = "use candle_core::Tensor;\nfn f(t: &Tensor) { let s = \"" + "é" * 500000 + "\"; }\n"
open("src/long.rs", "w").write(long)
def nb(lang, cells):
    return json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Modèle 😀 中文\n"]}] +
        [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c} for c in cells],
        "metadata": {"kernelspec": {"language": lang, "name": lang}}, "nbformat": 4, "nbformat_minor": 5}, ensure_ascii=False)
cells = ["import torch\n# ünïcödé 😀 中文\nx = torch.zeros(3)\n",
         "# %% [placer cell 9]\nw = torch.ones(3)\nfor i in range(10):\n    total = w.sum().item() + i  # é\n    y = x.cuda() + w\n"]
open("nb/multi byte é.ipynb", "w").write(nb("python", cells))
open("nb/r.ipynb", "w").write(nb("R", ["x <- c(1, 2)\n"]))
open("nb/julia.ipynb", "w").write(nb("julia", ["x = [1 2; 3 4]'\n"]))
PY
before=$(tree_sum "$W")

echo "== deep nesting" >&2
p deep check src/deep.rs src/sum.rs src/model.rs --no-cache --output-format concise
expect_rc deep 1
grep -q 'model.rs:6:' "$T/out" || fail "deep: the run did not go on to model.rs"
p deep-parse-only check src --parse-only
expect_rc deep-parse-only 0

echo "== closed pipes" >&2
for args in "rules" "explain P101" "--help" "check --help"; do
  cases=$((cases + 1))
  # shellcheck disable=SC2086
  { r=0; timeout "$timeout_s" "$PLACER" $args 2>"$T/err" || r=$?; echo $r >"$T/rc"; } | head -c 1 >/dev/null
  rc=$(cat "$T/rc")
  if ((rc != 0)) || grep -qE "panicked|Broken pipe" "$T/err"; then fail "pipe: placer $args exit $rc: $(head -c 200 "$T/err")"; fi
done
for i in $(seq 1 200); do printf '%s' "$MODEL" >"$T/pipe_$i.rs"; done
mkdir -p "$T/pipes" && mv "$T"/pipe_*.rs "$T/pipes/"
for fmt in full concise json json-lines sarif github; do
  cases=$((cases + 1))
  { r=0; timeout "$timeout_s" "$PLACER" check "$T/pipes" --no-cache --output-format "$fmt" 2>"$T/err" || r=$?; echo $r >"$T/rc"; } | head -c 1 >/dev/null
  rc=$(cat "$T/rc")
  if ((rc != 1)) || grep -qE "panicked|cannot write" "$T/err"; then fail "pipe: check --output-format $fmt exit $rc: $(head -c 200 "$T/err")"; fi
done

echo "== FIFOs" >&2
mkfifo "$T/fifo"
p fifo-config check src/model.rs --config "$T/fifo"
expect_rc fifo-config 2
p fifo-baseline check src/model.rs --baseline "$T/fifo"
expect_rc fifo-baseline 2
mkdir -p "$T/fifotree" && cp src/model.rs "$T/fifotree/" && mkfifo "$T/fifotree/pipe.rs"
p fifo-in-tree check "$T/fifotree" --no-cache
expect_rc fifo-in-tree 1
p fifo-cache-cold check src/model.rs --cache-dir "$T/fifocache"
for entry in "$T"/fifocache/*/*.json; do
  [[ -e $entry ]] || continue
  rm -f "$entry" && mkfifo "$entry"
done
p fifo-cache-warm check src/model.rs --cache-dir "$T/fifocache"
expect_rc fifo-cache-warm 1

echo "== symlinks" >&2
mkdir -p "$T/links/sub"
cp src/model.rs "$T/links/sub/"
ln -s .. "$T/links/sub/loop"
ln -s /nonexistent/x.rs "$T/links/dangling.rs"
ln -s "$W/src/model.rs" "$T/links/outside.rs"
p symlinks check "$T/links" --no-cache --output-format concise
expect_rc symlinks 1
p symlink-arg check "$T/links/outside.rs" --no-cache --output-format concise
expect_rc symlink-arg 1

echo "== every output format, cold and warm cache" >&2
for fmt in full concise json json-lines sarif github; do
  for target in "nb" "src/bom_é.rs" "src/model.rs"; do
    rm -rf "$T/fmtcache"
    p "format-$fmt-cold" check "$target" --output-format "$fmt" --cache-dir "$T/fmtcache"
    cp "$T/out" "$T/cold"
    p "format-$fmt-warm" check "$target" --output-format "$fmt" --cache-dir "$T/fmtcache"
    if ! cmp -s "$T/cold" "$T/out"; then
      fail "format $fmt on $target: a warm cache gives other output than a cold one"
      diff "$T/cold" "$T/out" | head -n 6 | sed "s/^/    /" >&2 || true
    fi
  done
done
p baseline-notebook check nb --write-baseline "$T/baseline.json" --cache-dir "$T/fmtcache"
expect_rc baseline-notebook 0
p baseline-notebook-read check nb --baseline "$T/baseline.json" --cache-dir "$T/fmtcache"
expect_rc baseline-notebook-read 0

echo "== concurrent runs sharing a cache" >&2
rm -rf "$T/sharedcache"
"$PLACER" check src/model.rs nb --no-cache --output-format json >"$T/expected" 2>/dev/null || true
pids=()
for i in $(seq 1 8); do
  (
    r=0
    timeout "$timeout_s" "$PLACER" check src/model.rs nb --output-format json --cache-dir "$T/sharedcache" >"$T/conc_$i" 2>"$T/conc_err_$i" || r=$?
    echo $r >"$T/conc_rc_$i"
  ) &
  pids+=($!)
done
wait "${pids[@]}"
for i in $(seq 1 8); do
  cases=$((cases + 1))
  rc=$(cat "$T/conc_rc_$i")
  if ((rc != 1)) || is_crash "$rc" "$T/conc_err_$i"; then fail "concurrent run $i: exit $rc"; fi
  if ! cmp -s "$T/expected" "$T/conc_$i"; then
    fail "concurrent run $i: output differs from an uncached run"
    diff "$T/expected" "$T/conc_$i" | head -n 4 | sed "s/^/    /" >&2 || true
  fi
done

echo "== racing edits" >&2
mkdir -p "$T/race/src"
clean='use candle_core::Tensor;
pub fn f(t: &Tensor) -> usize { t.dims().len() }
'
printf '%s' "$clean" >"$T/race/src/m.rs"
(
  for i in $(seq 1 60); do
    if ((i % 2)); then printf '%s' "$MODEL" >"$T/race/src/m.rs.tmp"; else printf '%s' "$clean" >"$T/race/src/m.rs.tmp"; fi
    mv "$T/race/src/m.rs.tmp" "$T/race/src/m.rs"
    sleep 0.02
  done
) &
editor=$!
for i in $(seq 1 20); do
  p "race-$i" check "$T/race/src" --cache-dir "$T/racecache" --quiet --output-format concise
done
wait "$editor"
p race-final-cached check "$T/race/src" --cache-dir "$T/racecache" --output-format concise
cp "$T/out" "$T/race_cached"
p race-final-fresh check "$T/race/src" --no-cache --output-format concise
cmp -s "$T/race_cached" "$T/out" || fail "racing edits: the cache serves stale findings after the edits stopped"

echo "== quoted git paths" >&2
if command -v git >/dev/null; then
  G="$T/repo"
  mkdir -p "$G/src"
  for name in "a b.rs" "ü.rs" $'t\tab.rs' 'q"uote.rs'; do printf '%s' "$clean" >"$G/src/$name"; done
  (cd "$G" && git init -q && git add . && git -c user.name=t -c user.email=t@t -c commit.gpgsign=false commit -qm base)
  for name in "a b.rs" "ü.rs" $'t\tab.rs' 'q"uote.rs'; do printf '%s' "$MODEL" >"$G/src/$name"; done
  pushd "$T" >/dev/null
  p diff-base check "$G/src" --diff-base HEAD --no-cache --output-format json
  popd >/dev/null
  n=$(python3 -c 'import json,sys; print(len({f["path"] for f in json.load(open(sys.argv[1]))}))' "$T/out" 2>/dev/null || echo 0)
  ((n == 4)) || fail "diff-base: $n of 4 changed files with quoted names reported"
fi

echo "== a file given twice" >&2
p twice check src/model.rs ./src/model.rs "$W/src/model.rs" --no-cache --output-format concise
((RC == 1)) && (($(wc -l <"$T/out") == 1)) || fail "twice: $(wc -l <"$T/out") findings for one"

echo "== nothing written by read-only runs" >&2
after=$(tree_sum "$W")
[[ $before == "$after" ]] || fail "lost bytes: read-only runs changed the tree: $(diff <(echo "$before") <(echo "$after") | head -n 4)"

if [[ -x "$REPO/scripts/hostile-writes.sh" ]]; then
  echo "== scripts/hostile-writes.sh" >&2
  cases=$((cases + 1))
  PLACER_BIN="$PLACER" "$REPO/scripts/hostile-writes.sh" || fail "scripts/hostile-writes.sh failed"
fi

echo "hostile: $cases runs, $failures failure(s)"
((failures == 0))
