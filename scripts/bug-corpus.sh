#!/usr/bin/env bash
# Recall on real historical device-placement bugs: the records in bugs/bugs.toml (one per bug:
# package, registry, the last release that still has the bug, the file and line(s) of the buggy
# site, a hash of each buggy line, the expected rule codes). No third-party source is committed:
# each pinned release is fetched into a scratch dir outside the repository (default
# /work/scratch-bugs/corpus, or $BUG_CORPUS_DIR) and cached there:
#   pypi:   pip download --no-deps NAME==VERSION, then unzipped (wheel) or untarred (sdist,
#           its top directory stripped)
#   crates: a throwaway manifest depending on NAME = "=VERSION" and `cargo fetch`; the crate's
#           sources in $CARGO_HOME/registry/src are used in place
# Then, per bug, it checks that every recorded line still hashes to the recorded value (a
# mismatch is an error: the record is wrong), runs placer once per package (the whole unpacked
# package, since bugs cross files; cache off), and counts a bug as
#   found (strict)  when a finding of one of the bug's expected rules has its primary span,
#                   widened by $BUG_CORPUS_WINDOW lines (default 3) each side, over a buggy line,
#                   or its span over one of the record's `also_lines`;
#   found (loose)   when found (strict), or any P1xx/P2xx/P3xx finding does so.
# It prints found/missed per bug, then recall overall and per category, both figures.
#
# Usage: scripts/bug-corpus.sh [-v] [-- EXTRA_PLACER_ARGS...]
#   -v  also print the findings placer made in each bug's file near (+-15 lines) the bug
#   e.g. scripts/bug-corpus.sh -- --extend-select P1,P2,P3,P4,P5   # off-by-default rules too
#   env: PLACER_BIN (use this binary, build nothing), BUG_CORPUS_DIR, BUG_CORPUS_WINDOW,
#        BUG_CORPUS_RECORDS (another records file, e.g. for testing),
#        BUG_CORPUS_ONLY (comma-separated bug ids to run)
# Exits 1 if a line hash does not match, a package cannot be fetched, or placer crashes.
set -euo pipefail
source "$(dirname "$0")/common.sh"

verbose=0
if (($# > 0)) && [[ $1 == -v ]]; then
  verbose=1
  shift
fi
extra=()
if (($# > 0)); then
  if [[ $1 != -- ]]; then
    echo "usage: $0 [-v] [-- EXTRA_PLACER_ARGS...]" >&2
    exit 2
  fi
  shift
  extra=("$@")
fi

records="${BUG_CORPUS_RECORDS:-$REPO/bugs/bugs.toml}"
corpus="${BUG_CORPUS_DIR:-/work/scratch-bugs/corpus}"
case "$(realpath -m "$corpus")/" in
  "$REPO"/*)
    echo "error: the corpus dir must be outside the repository" >&2
    exit 2
    ;;
esac
mkdir -p "$corpus/dl" "$corpus/src" "$corpus/cargo" "$corpus/out"
window="${BUG_CORPUS_WINDOW:-3}"
command -v python3 >/dev/null || { echo "error: python3 (>= 3.11, for tomllib) is needed" >&2; exit 2; }

# The helper: `packages` lists "ECOSYSTEM NAME VERSION" once per pinned release; `report` reads
# the package dirs and placer's JSON outputs and prints the verdicts.
helper="$PLACER_TMP/bug_corpus.py"
cat >"$helper" <<'PY'
import hashlib, json, os, re, sys, tomllib

def load(path):
    with open(path, "rb") as f:
        bugs = tomllib.load(f)["bug"]
    seen = set()
    for b in bugs:
        for k in ("id", "ecosystem", "package", "version", "file", "lines", "line_hashes",
                  "rules", "category", "fix", "description"):
            if k not in b:
                sys.exit(f"bugs.toml: bug {b.get('id', '?')} has no `{k}`")
        if b["ecosystem"] not in ("pypi", "crates"):
            sys.exit(f"bugs.toml: bug {b['id']}: ecosystem must be pypi or crates")
        if len(b["lines"]) != len(b["line_hashes"]):
            sys.exit(f"bugs.toml: bug {b['id']}: one hash per line")
        if b["id"] in seen:
            sys.exit(f"bugs.toml: duplicate id {b['id']}")
        seen.add(b["id"])
    only = os.environ.get("BUG_CORPUS_ONLY")
    if only:
        keep = set(only.split(","))
        bugs = [b for b in bugs if b["id"] in keep]
    return bugs

def line_hash(text):
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:16]

def key(b):
    return f"{b['ecosystem']}-{b['package']}-{b['version']}"

def main():
    cmd, records = sys.argv[1], sys.argv[2]
    bugs = load(records)
    if cmd == "packages":
        done = set()
        for b in bugs:
            if key(b) not in done:
                done.add(key(b))
                print(b["ecosystem"], b["package"], b["version"])
        return
    # report CORPUS WINDOW VERBOSE
    corpus, window, verbose = sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1"
    status = 0
    cats = {}
    n = strict_n = loose_n = 0
    for b in bugs:
        try:
            pdir = open(os.path.join(corpus, "out", key(b) + ".dir")).read().strip()
            with open(os.path.join(corpus, "out", key(b) + ".json")) as f:
                findings = json.load(f)
        except OSError as e:
            print(f"ERROR {b['id']}: {b['package']} {b['version']} was not fetched or checked ({e})")
            status = 1
            continue
        fpath = os.path.join(pdir, b["file"])
        try:
            with open(fpath, encoding="utf-8", errors="replace") as f:
                text = f.read().split("\n")
        except OSError as e:
            print(f"ERROR {b['id']}: {e}")
            status = 1
            continue
        bad = []
        for ln, h in zip(b["lines"], b["line_hashes"]):
            got = line_hash(text[ln - 1]) if 0 < ln <= len(text) else "(no such line)"
            if got != h:
                bad.append(f"line {ln}: hash {got}, recorded {h}")
        if bad:
            print(f"ERROR {b['id']}: {b['package']} {b['version']} {b['file']}: " + "; ".join(bad))
            status = 1
            continue
        also = set(b.get("also_lines", []))
        near = []
        for fd in findings:
            rel = os.path.relpath(os.path.join(pdir, fd["path"]) if not os.path.isabs(fd["path"]) else fd["path"], pdir)
            if os.path.normpath(rel) != os.path.normpath(b["file"]):
                continue
            lo, hi = fd["line"], fd.get("end_line", fd["line"])
            hit = any(lo - window <= ln <= hi + window for ln in b["lines"]) or any(lo <= a <= hi for a in also)
            near.append((hit, fd))
        strict = any(h and fd["code"] in b["rules"] for h, fd in near)
        loose = strict or any(h and re.match(r"P[123]\d\d$", fd["code"]) for h, fd in near)
        n += 1
        strict_n += strict
        loose_n += loose
        for name in (b["category"], "(ecosystem) " + b["ecosystem"]):
            c = cats.setdefault(name, [0, 0, 0])
            c[0] += 1
            c[1] += strict
            c[2] += loose
        verdict = "found" if strict else ("found-loose" if loose else "MISSED")
        codes = sorted({fd["code"] for h, fd in near if h})
        print(f"{verdict:<12} {b['id']:<34} {b['ecosystem']:<6} {b['package']}=={b['version']} "
              f"{b['file']}:{','.join(map(str, b['lines']))} expect {'/'.join(b['rules'])}"
              + (f" got {'/'.join(codes)}" if codes else ""))
        if verbose:
            lo_ln, hi_ln = min(b["lines"]) - 15, max(b["lines"]) + 15
            for h, fd in near:
                if lo_ln <= fd["line"] <= hi_ln:
                    print(f"    {fd['line']}: {fd['code']}/{fd['name']}: {fd['message']}")
    def pct(a, t):
        return f"{100 * a / t:5.1f} %" if t else "  n/a"
    print()
    print(f"recall (strict: an expected rule): {strict_n}/{n} = {pct(strict_n, n)}")
    print(f"recall (loose: any P1/P2/P3 rule): {loose_n}/{n} = {pct(loose_n, n)}")
    print()
    print(f"{'category':<40} {'bugs':>4}  {'strict':>13}  {'loose':>13}")
    for cat in sorted(cats):
        t, s, l = cats[cat]
        print(f"{cat:<40} {t:>4}  {s:>3} {pct(s, t)}  {l:>3} {pct(l, t)}")
    sys.exit(status)

main()
PY

build_placer
status=0
py() { python3 "$helper" "$@"; }

while read -r eco name version; do
  k="$eco-$name-$version"
  dirfile="$corpus/out/$k.dir"
  if [[ $eco == pypi ]]; then
    dir="$corpus/src/$name-$version"
    if [[ ! -f $dir/.unpacked ]]; then
      # pip normalises names in file names (sentence-transformers -> sentence_transformers).
      pat=$(echo "$name" | tr 'A-Z' 'a-z' | sed 's/[-_.]\+/[-_.]/g')
      find_archive() { find "$corpus/dl" -maxdepth 1 -iregex ".*/$pat-$version[-.].*" -print -quit; }
      if [[ -z $(find_archive) ]]; then
        # An sdist's metadata is built on download; retry with the local build tools if the
        # isolated build cannot (old setup.py files import pkg_resources).
        if ! pip download --quiet --no-deps "$name==$version" -d "$corpus/dl" >&2 &&
          ! pip download --quiet --no-deps --no-build-isolation "$name==$version" -d "$corpus/dl" >&2; then
          echo "ERROR: cannot download $name==$version" >&2
          status=1
          continue
        fi
      fi
      archive=$(find_archive)
      rm -rf "$dir"
      mkdir -p "$dir"
      case "$archive" in
        *.whl | *.zip) unzip -qo "$archive" -d "$dir" ;;
        *.tar.gz | *.tgz) tar -xzf "$archive" -C "$dir" --strip-components=1 ;;
        *) echo "ERROR: unknown archive $archive" >&2; status=1; continue ;;
      esac
      touch "$dir/.unpacked"
    fi
  else
    mdir="$corpus/cargo/$name-$version"
    if [[ ! -f $mdir/crate.dir ]]; then
      mkdir -p "$mdir/src"
      printf '[package]\nname = "bug-corpus-fetch"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n[workspace]\n[dependencies]\n%s = "=%s"\n' \
        "$name" "$version" >"$mdir/Cargo.toml"
      echo 'fn main() {}' >"$mdir/src/main.rs"
      if ! cargo fetch --quiet --manifest-path "$mdir/Cargo.toml" >&2; then
        echo "ERROR: cannot fetch crate $name $version" >&2
        status=1
        continue
      fi
      cargo metadata --format-version 1 --manifest-path "$mdir/Cargo.toml" | python3 -c '
import json, os, sys
meta = json.load(sys.stdin)
name, version = sys.argv[1], sys.argv[2]
p = next(p for p in meta["packages"] if p["name"] == name and p["version"] == version)
print(os.path.dirname(p["manifest_path"]))' "$name" "$version" >"$mdir/crate.dir"
    fi
    dir=$(cat "$mdir/crate.dir")
  fi
  echo "$dir" >"$dirfile"
  out="$corpus/out/$k.json"
  err="$corpus/out/$k.err"
  run_placer "$out" "$err" check --output-format json ${extra[@]+"${extra[@]}"} "$dir"
  if is_crash "$PLACER_RC" "$err" || [[ $PLACER_RC -eq 2 ]]; then
    echo "ERROR: placer failed on $name $version (exit $PLACER_RC):" >&2
    head -20 "$err" >&2
    echo '[]' >"$out"
    status=1
  fi
  echo "== $eco $name $version: $(summary_line "$err")"
done < <(py packages "$records")

echo
py report "$records" "$corpus" "$window" "$verbose" || status=1
echo
echo "placer: $PLACER; window +-$window lines; extra args: ${extra[*]:-(none)}"
exit "$status"
