#!/usr/bin/env python3
"""Mutation engine for scripts/mutation-recall.sh (stdlib only).

Injects one device-placement bug at a time into pinned real code (candle-transformers, transformers),
runs placer on the mutated tree and counts a mutant as *killed* when placer reports a finding that the
unmutated tree does not have.  See docs/recall.md for the operators, the kill criteria and the limits.

Subcommands
  sites --target rust|python --root DIR [--ops a,b] [--json]
        list the mutation sites (no placer run).
  run   --placer BIN --rust-root DIR --python-root DIR --work DIR [--sample N] [--seed S]
        [--survivors PATH] [--results PATH] [--ops ...] [--targets rust,python]
        mutate, run placer, print killed/total per operator, context and target.

Every mutation keeps the file's line count (text is replaced, never lines added or removed), so a
finding's line can be compared with the baseline's line by line.
"""

import argparse
import ast
import collections
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import time

# --------------------------------------------------------------------------------------------
# Operators
# --------------------------------------------------------------------------------------------

OPERATORS = {
    # name: (target, one-line description)
    "rs-device-to-cpu": ("rust", "a candle factory's data-following device argument -> &Device::Cpu"),
    "rs-host-read-in-loop": ("rust", "`let _ = t.to_vec0::<f32>()?;` inserted in a loop body on a tensor in scope"),
    "py-device-kw-deleted": ("python", "a torch factory call's `device=` keyword deleted"),
    "py-buffer-to-attr": ("python", '`self.register_buffer("n", t, ..)` -> `self.n = t`'),
    "py-transfer-in-loop-deleted": ("python", "a `.to(device)` / `.cuda()` inside a loop removed (`x.to(d)` -> `x`)"),
    "py-host-read-in-loop": ("python", "`_ = t.item()` inserted in a loop body on a tensor in scope"),
}

CONTEXTS = ("constructor", "forward", "helper", "loop")

RUST_CONSTRUCTOR = re.compile(r"^(new|load|init)(_\w*)?$")
RUST_FORWARD = re.compile(r"^(forward\w*|__call__)$")
PY_CONSTRUCTOR = re.compile(r"^__init__$")
PY_FORWARD = re.compile(r"^(_?forward\w*|__call__)$")


def fn_context(name, target):
    if name is None:
        return "helper"
    if target == "rust":
        if RUST_CONSTRUCTOR.match(name):
            return "constructor"
        if RUST_FORWARD.match(name):
            return "forward"
    else:
        if PY_CONSTRUCTOR.match(name):
            return "constructor"
        if PY_FORWARD.match(name):
            return "forward"
    return "helper"


class Site:
    """One mutant: replace text [start, end) (character offsets) of `path` with `new`."""

    def __init__(self, op, path, start, end, new, line, end_line, func, in_loop, note=""):
        self.op = op
        self.path = path
        self.start = start
        self.end = end
        self.new = new
        self.line = line
        self.end_line = end_line
        self.func = func
        self.in_loop = in_loop
        self.note = note
        target = OPERATORS[op][0]
        self.context = fn_context(func, target)

    def key(self):
        return (self.path, self.start, self.op)

    def contexts(self):
        c = [self.context]
        if self.in_loop:
            c.append("loop")
        return c

    def as_dict(self, root=None):
        return {
            "op": self.op,
            "path": os.path.relpath(self.path, root) if root else self.path,
            "line": self.line,
            "end_line": self.end_line,
            "function": self.func,
            "context": self.context,
            "in_loop": self.in_loop,
            "replacement": self.new,
            "note": self.note,
        }


def apply(text, site):
    out = text[: site.start] + site.new + text[site.end :]
    assert out.count("\n") == text.count("\n"), (site.path, site.line, site.op)
    return out


def keep_newlines(s):
    """What is left of a deleted span: its newlines only (keeps the line count)."""
    return "\n" * s.count("\n")


def line_starts(text):
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    return starts


# --------------------------------------------------------------------------------------------
# Rust: a small tokenizer (comments, strings, raw strings, chars vs lifetimes) + brace matching.
# Limits: no macro expansion (code inside macro invocations is tokenized like any code; factories
# inside `vec![..]` etc. are found, which is fine); a `for`/`while` whose head contains a `{` at
# top level (a block expression as the iterator) would be misread; a fn signature containing `{`
# (const generics blocks) would be misread. Neither occurs in candle-transformers 0.11.1's src/.
# --------------------------------------------------------------------------------------------

class Tok:
    __slots__ = ("kind", "text", "start", "end")

    def __init__(self, kind, text, start, end):
        self.kind = kind  # ident, punct, str, char, num, lifetime
        self.text = text
        self.start = start
        self.end = end

    def __repr__(self):
        return f"{self.kind}:{self.text!r}@{self.start}"


IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
NUM_RE = re.compile(r"[0-9][0-9A-Za-z_]*(\.[0-9][0-9A-Za-z_]*)?")
PUNCT3 = ("<<=", ">>=", "...", "..=")
PUNCT2 = ("::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=", "*=", "/=", "%=",
          "^=", "&=", "|=", "..", "<<", ">>")


def rust_tokens(src):
    toks = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c.isspace():
            i += 1
            continue
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
            continue
        if src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth += 1
                    j += 2
                elif src.startswith("*/", j):
                    depth -= 1
                    j += 2
                else:
                    j += 1
            i = j
            continue
        m = re.match(r'(b?r)(#*)"', src[i:i + 260])
        if m and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            hashes = m.group(2)
            close = '"' + hashes
            j = src.find(close, i + len(m.group(0)))
            j = n if j < 0 else j + len(close)
            toks.append(Tok("str", src[i:j], i, j))
            i = j
            continue
        if c == '"' or (c == "b" and src.startswith('b"', i)):
            j = i + (2 if c == "b" else 1)
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            j += 1
            toks.append(Tok("str", src[i:j], i, j))
            i = j
            continue
        if c == "'" or (c == "b" and src.startswith("b'", i)):
            k = i + (1 if c == "'" else 2)
            # char literal: 'x', '\n', '\u{..}', '\''; otherwise a lifetime / label
            m = re.match(r"(\\(u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'", src[k:k + 12])
            if m:
                j = k + len(m.group(0))
                toks.append(Tok("char", src[i:j], i, j))
                i = j
                continue
            m = IDENT_RE.match(src, k)
            if m:
                toks.append(Tok("lifetime", src[i:m.end()], i, m.end()))
                i = m.end()
                continue
            toks.append(Tok("punct", c, i, i + 1))
            i += 1
            continue
        m = IDENT_RE.match(src, i)
        if m:
            toks.append(Tok("ident", m.group(0), i, m.end()))
            i = m.end()
            continue
        m = NUM_RE.match(src, i)
        if m:
            toks.append(Tok("num", m.group(0), i, m.end()))
            i = m.end()
            continue
        for p in PUNCT3 + PUNCT2:
            if src.startswith(p, i):
                toks.append(Tok("punct", p, i, i + len(p)))
                i += len(p)
                break
        else:
            toks.append(Tok("punct", c, i, i + 1))
            i += 1
    return toks


def match_brackets(toks):
    """index of the matching closer for every (, [, { token (and vice versa)."""
    pairs = {}
    stack = []
    openers = {"(": ")", "[": "]", "{": "}"}
    for idx, t in enumerate(toks):
        if t.kind != "punct":
            continue
        if t.text in openers:
            stack.append(idx)
        elif t.text in (")", "]", "}"):
            # tolerate imbalance (should not happen in valid code)
            while stack and openers[toks[stack[-1]].text] != t.text:
                stack.pop()
            if stack:
                o = stack.pop()
                pairs[o] = idx
                pairs[idx] = o
    return pairs


class RustFile:
    def __init__(self, path):
        self.path = path
        with open(path, encoding="utf-8") as f:
            self.src = f.read()
        self.toks = rust_tokens(self.src)
        self.pairs = match_brackets(self.toks)
        self.starts = line_starts(self.src)
        self.fns = self._functions()  # (name, body_open_idx, body_close_idx, sig_text, params_text)
        self.loops = self._loops()  # (body_open_idx, body_close_idx)
        self.tests = self._test_ranges()

    def line_of(self, off):
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= off:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    def _functions(self):
        out = []
        toks = self.toks
        for i, t in enumerate(toks):
            if t.kind == "ident" and t.text == "fn" and i + 1 < len(toks) and toks[i + 1].kind == "ident":
                name = toks[i + 1].text
                depth = 0
                j = i + 2
                params = None
                while j < len(toks):
                    tt = toks[j]
                    if tt.kind == "punct":
                        if tt.text == "(" and params is None and depth == 0:
                            params = (j, self.pairs.get(j, j))
                        if tt.text in ("(", "["):
                            depth += 1
                        elif tt.text in (")", "]"):
                            depth -= 1
                        elif tt.text == ";" and depth == 0:
                            break
                        elif tt.text == "{" and depth == 0:
                            close = self.pairs.get(j)
                            if close is not None:
                                sig = self.src[t.start:tt.start]
                                ptxt = self.src[toks[params[0]].end:toks[params[1]].start] if params else ""
                                out.append((name, j, close, sig, ptxt))
                            break
                    j += 1
        return out

    def _loops(self):
        out = []
        toks = self.toks
        for i, t in enumerate(toks):
            if t.kind != "ident" or t.text not in ("for", "while", "loop"):
                continue
            prev = toks[i - 1] if i else None
            if t.text == "for":
                # skip `impl X for Y`, `for<'a>`
                if i + 1 < len(toks) and toks[i + 1].text == "<":
                    continue
                if not self._in_fn_body(t.start):
                    continue
            if prev is not None and prev.kind == "punct" and prev.text in ("::", "."):
                continue
            j = i + 1
            depth = 0
            while j < len(toks):
                tt = toks[j]
                if tt.kind == "punct":
                    if tt.text in ("(", "["):
                        depth += 1
                    elif tt.text in (")", "]"):
                        depth -= 1
                    elif tt.text == ";" and depth == 0:
                        j = None
                        break
                    elif tt.text == "{" and depth == 0:
                        break
                j += 1
            if j is None or j >= len(toks):
                continue
            close = self.pairs.get(j)
            if close is not None:
                out.append((j, close))
        return out

    def _in_fn_body(self, off):
        for (_, o, c, _, _) in getattr(self, "fns", []):
            if self.toks[o].start < off < self.toks[c].start:
                return True
        return False

    def _test_ranges(self):
        """Offsets of #[cfg(test)] items and #[test] fns (placer skips test code)."""
        out = []
        for m in re.finditer(r"#\[(cfg\(test\)|test)\]", self.src):
            # the next `{` token after the attribute opens the item body
            for idx, t in enumerate(self.toks):
                if t.start >= m.end() and t.text == "{":
                    c = self.pairs.get(idx)
                    if c is not None:
                        out.append((m.start(), self.toks[c].end))
                    break
        return out

    def in_tests(self, off):
        return any(a <= off < b for a, b in self.tests)

    def enclosing_fn(self, off):
        best = None
        for f in self.fns:
            if self.toks[f[1]].start < off < self.toks[f[2]].start:
                if best is None or self.toks[f[1]].start > self.toks[best[1]].start:
                    best = f
        return best

    def in_loop(self, off, fn=None):
        for (o, c) in self.loops:
            if self.toks[o].start < off < self.toks[c].start:
                if fn is None or self.toks[fn[1]].start < self.toks[o].start:
                    return True
        return False


CANDLE_FACTORY_ARITY = {
    "new": 2, "zeros": 3, "ones": 3, "full": 3, "arange": 3, "arange_step": 4, "from_vec": 3,
    "from_slice": 3, "from_iter": 2, "rand": 4, "randn": 4, "eye": 3, "tril2": 3, "triu2": 3,
    "from_raw_buffer": 4, "empty": 3,
}
HOST_DEVICE_RE = re.compile(r"Device::(Cpu|Cuda|Metal|new_cuda|new_metal|cuda_if_available)|\bcpu\b")


def split_args(rf, open_idx):
    """Top-level comma-separated args of the call whose `(` is toks[open_idx]: list of (first, last) tok idx."""
    close = rf.pairs[open_idx]
    args = []
    j = open_idx + 1
    cur = None
    while j < close:
        t = rf.toks[j]
        if t.kind == "punct" and t.text in ("(", "[", "{"):
            if cur is None:
                cur = [j, j]
            j = rf.pairs.get(j, j)
            cur[1] = j
            j += 1
            continue
        if t.kind == "punct" and t.text == ",":
            if cur is not None:
                args.append(tuple(cur))
            cur = None
            j += 1
            continue
        if cur is None:
            cur = [j, j]
        cur[1] = j
        j += 1
    if cur is not None:
        args.append(tuple(cur))
    return args


def rust_device_sites(rf, root):
    sites = []
    toks = rf.toks
    has_device_import = re.search(r"use\s+candle(_core)?::[^;]*\bDevice\b", rf.src) is not None
    replacement = "&Device::Cpu" if has_device_import else "&candle::Device::Cpu"
    for i in range(len(toks) - 3):
        if not (toks[i].text == "Tensor" and toks[i + 1].text == "::" and toks[i + 2].kind == "ident"):
            continue
        fac = toks[i + 2].text
        if fac not in CANDLE_FACTORY_ARITY:
            continue
        j = i + 3
        if toks[j].text == "::" and j + 1 < len(toks) and toks[j + 1].text == "<":  # turbofish
            depth = 0
            j += 1
            while j < len(toks):
                if toks[j].text == "<":
                    depth += 1
                elif toks[j].text == ">":
                    depth -= 1
                    if depth == 0:
                        j += 1
                        break
                elif toks[j].text == ">>":
                    depth -= 2
                    if depth <= 0:
                        j += 1
                        break
                j += 1
        if j >= len(toks) or toks[j].text != "(" or j not in rf.pairs:
            continue
        if rf.in_tests(toks[i].start):
            continue
        args = split_args(rf, j)
        if len(args) != CANDLE_FACTORY_ARITY[fac]:
            continue
        a0, a1 = args[-1]
        start, end = toks[a0].start, toks[a1].end
        arg = rf.src[start:end]
        if HOST_DEVICE_RE.search(arg):
            continue  # already a hard-coded device: nothing that follows data
        fn = rf.enclosing_fn(start)
        # an identifier bound to a hard-coded device in this function is not data-following
        ident = re.fullmatch(r"&?\s*(\w+)(\.clone\(\))?", " ".join(arg.split()))
        origin = "expr"
        if re.search(r"\.device\(\)", arg):
            recv = arg.split(".device()")[0]
            origin = "varbuilder" if re.search(r"\b(vb|vs|var_builder|varbuilder)\w*$", recv.strip()) else "tensor.device()"
        elif ident:
            name = ident.group(1)
            if fn is not None:
                body = rf.src[toks[fn[1]].start:start]
                m = None
                for m in re.finditer(r"let\s+(mut\s+)?%s\s*(:[^=;]*)?=\s*([^;]*);" % re.escape(name), body):
                    pass
                if m is not None:
                    if HOST_DEVICE_RE.search(m.group(3)):
                        continue
                    origin = "local"
                elif re.search(r"\b%s\s*:" % re.escape(name), fn[4]):
                    origin = "parameter"
                else:
                    origin = "other"
        elif re.match(r"&?\s*self\.", arg):
            origin = "field"
        sites.append(Site("rs-device-to-cpu", rf.path, start, end, replacement, rf.line_of(start),
                          rf.line_of(end), fn[0] if fn else None, rf.in_loop(start, fn),
                          f"Tensor::{fac}(.., {' '.join(arg.split())}) [{origin}]"))
    return sites


TENSORISH_RS = re.compile(
    r"(\.forward\w*\(|\.apply\(|\.matmul\(|Tensor::|\.broadcast_\w+\(|\.narrow\(|\.reshape\(|\.transpose\(|"
    r"\.contiguous\(|\.to_dtype\(|\.sum\w*\(|\.mean\w*\(|softmax|\.gather\(|\.index_select\(|\.sqr\(|"
    r"\.sqrt\(|\.exp\(|\.silu\(|\.gelu\w*\(|\.relu\(|\.unsqueeze\(|\.squeeze\(|\.permute\(|\.flatten\w*\(|"
    r"\.i\(|\.get\(|\.affine\(|\.clamp\(|\.argmax\w*\(|\.where_cond\(|\.masked_fill\(|\.ge\(|\.lt\(|"
    r"\.embedding\(|\.conv\w+\(|candle_nn::ops::)")
NOT_TENSOR_RS = re.compile(r"(\.to_vec\d?\b|\.to_scalar\b|\.dims\d?\(|\.dim\(|\.shape\(\)|\.elem_count\(|\.len\(\)|"
                           r"\.rank\(\)|\.dtype\(\)|\.device\(\)|\.is_\w+\(|\.unwrap_or\(|\.get\(\w+\)\.cloned)")


def rust_host_read_sites(rf, root):
    sites = []
    toks = rf.toks
    for (o, c) in rf.loops:
        ostart = toks[o].start
        if rf.in_tests(ostart):
            continue
        fn = rf.enclosing_fn(ostart)
        if fn is None or "->" not in fn[3] or "Result" not in fn[3].split("->")[-1]:
            continue
        # a closure between the fn and the loop would make `?` go to the closure: skip loops inside
        # a closure body (`|..| {` enclosing the loop)
        if any(toks[k].text == "{" and rf.pairs.get(k, 0) > c and toks[k - 1].text in ("|", "||")
               for k in range(fn[1] + 1, o)):
            continue
        # direct statements of the loop body: scan `let name = ...;` at depth 0
        target = None
        j = o + 1
        while j < c:
            t = toks[j]
            if t.text in ("(", "[", "{"):
                j = rf.pairs.get(j, j) + 1
                continue
            if t.text == "let":
                k = j + 1
                if toks[k].text == "mut":
                    k += 1
                if toks[k].kind == "ident" and toks[k + 1].text in ("=", ":"):
                    name = toks[k].text
                    # find the `;` ending this let at depth 0
                    m = k
                    while m < c and toks[m].text != ";":
                        if toks[m].text in ("(", "[", "{"):
                            m = rf.pairs.get(m, m)
                        m += 1
                    if m < c:
                        init = rf.src[toks[k].end:toks[m].start]
                        if TENSORISH_RS.search(init) and not NOT_TENSOR_RS.search(init.strip().split("\n")[-1]) \
                                and init.rstrip().endswith("?") and name != "_":
                            target = (name, toks[m].end)
                            break
                        j = m
            j += 1
        if target is None:
            # a &Tensor / Tensor parameter of the function, read at the top of the loop body
            pm = re.search(r"\b(\w+)\s*:\s*&?\s*(candle::)?Tensor\b", fn[4])
            if not pm or pm.group(1) == "self":
                continue
            target = (pm.group(1), toks[o].end)
        name, at = target
        new = f" let _ = {name}.to_vec0::<f32>()?;"
        line = rf.line_of(at)
        sites.append(Site("rs-host-read-in-loop", rf.path, at, at, new, line, line, fn[0], True,
                          f"host read of `{name}`"))
    return sites


def rust_sites(root, ops):
    sites = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        if any(p in ("tests", "benches", "examples") for p in os.path.relpath(dirpath, root).split(os.sep)):
            continue
        for fn in sorted(filenames):
            if not fn.endswith(".rs"):
                continue
            path = os.path.join(dirpath, fn)
            try:
                rf = RustFile(path)
            except (UnicodeDecodeError, OSError):
                continue
            if "rs-device-to-cpu" in ops:
                sites += rust_device_sites(rf, root)
            if "rs-host-read-in-loop" in ops:
                sites += rust_host_read_sites(rf, root)
    return sites


# --------------------------------------------------------------------------------------------
# Python: sites found with `ast` (exact positions); every mutated file is re-parsed to check it.
# --------------------------------------------------------------------------------------------

TORCH_FACTORIES = {
    "zeros", "ones", "full", "empty", "arange", "range", "linspace", "logspace", "eye", "rand", "randn",
    "randint", "randperm", "tensor", "as_tensor", "empty_strided", "normal", "tril_indices",
    "triu_indices", "bernoulli", "sparse_coo_tensor", "scalar_tensor", "complex", "polar",
    "hann_window", "hamming_window", "blackman_window", "kaiser_window", "bartlett_window",
}
SKIP_PY_FILE = re.compile(r"(^|/)(modeling_tf_|modeling_flax_|\w*_tf_|\w*_flax_|tf_|flax_)[^/]*\.py$")
HOT_PY_FILE = re.compile(r"(^|/)(modeling_[^/]*|generation/[^/]*|trainer[^/]*)\.py$")
TENSOR_METHODS = {
    "view", "reshape", "transpose", "permute", "matmul", "bmm", "softmax", "log_softmax", "sum", "mean",
    "unsqueeze", "squeeze", "to", "float", "half", "bfloat16", "contiguous", "masked_fill", "expand",
    "repeat", "clone", "detach", "cumsum", "argmax", "gather", "index_select", "flatten", "narrow", "exp",
    "log", "sigmoid", "tanh", "pow", "sqrt", "rsqrt", "abs", "clamp", "type_as", "new_zeros", "new_ones",
    "new_full", "expand_as", "add", "mul", "div", "sub", "norm", "long", "int", "bool", "type", "masked_select",
    "repeat_interleave", "roll", "flip", "mm", "baddbmm", "tril", "triu", "where", "eq", "ne", "gt", "lt",
    "ge", "le", "logical_and", "logical_or", "relu", "gelu", "silu",
}
TORCH_NONTENSOR = re.compile(r"^torch\.(device|cuda|is_|no_grad|finfo|iinfo|get_|set_|jit|compiler|distributed|"
                             r"Size|autocast|enable_grad|inference_mode|backends|manual_seed|utils|_dynamo|"
                             r"fx|onnx|testing|split|chunk|unbind|topk|sort|max|min|unique|broadcast_tensors|"
                             r"meshgrid|nonzero|where\b)")


def dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


class PyFile:
    def __init__(self, path):
        self.path = path
        with open(path, encoding="utf-8") as f:
            self.src = f.read()
        self.tree = ast.parse(self.src)
        self.starts = line_starts(self.src)
        # parent links, function and loop context
        self.parent = {}
        for node in ast.walk(self.tree):
            for ch in ast.iter_child_nodes(node):
                self.parent[ch] = node

    def off(self, line, col_utf8):
        """character offset of (1-based line, utf-8 byte column)."""
        ls = self.starts[line - 1]
        le = self.starts[line] if line < len(self.starts) else len(self.src)
        raw = self.src[ls:le].encode("utf-8")[:col_utf8]
        return ls + len(raw.decode("utf-8", errors="ignore"))

    def span(self, node):
        return self.off(node.lineno, node.col_offset), self.off(node.end_lineno, node.end_col_offset)

    def func_of(self, node):
        p = self.parent.get(node)
        while p is not None and not isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            p = self.parent.get(p)
        while isinstance(p, ast.Lambda):
            p = self.parent.get(p)
            while p is not None and not isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                p = self.parent.get(p)
        return p

    def in_loop(self, node, comprehensions=True):
        """inside the body of a for/while (not its iterable/else), or a comprehension, in its function."""
        child, p = node, self.parent.get(node)
        while p is not None and not isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if isinstance(p, (ast.For, ast.AsyncFor, ast.While)) and child in p.body:
                return True
            if comprehensions and isinstance(p, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)) \
                    and child is not p.generators[0].iter:
                return True
            child, p = p, self.parent.get(p)
        return False

    def site(self, op, node_or_span, new, note=""):
        if isinstance(node_or_span, tuple):
            start, end, line, end_line, anchor = node_or_span
        else:
            start, end = self.span(node_or_span)
            line, end_line, anchor = node_or_span.lineno, node_or_span.end_lineno, node_or_span
        fn = self.func_of(anchor)
        return Site(op, self.path, start, end, new, line, end_line, fn.name if fn else None,
                    self.in_loop(anchor), note)



def is_host_device_expr(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("cpu"):
        return True
    if isinstance(node, ast.Call) and dotted(node.func) == "torch.device" and node.args \
            and isinstance(node.args[0], ast.Constant) and str(node.args[0].value).startswith("cpu"):
        return True
    return False


def py_device_kw_sites(pf):
    out = []
    for node in ast.walk(pf.tree):
        if not isinstance(node, ast.Call):
            continue
        name = dotted(node.func)
        if not name or not name.startswith("torch.") or name.count(".") != 1:
            continue
        if name.split(".")[1] not in TORCH_FACTORIES:
            continue
        kws = [k for k in node.keywords if k.arg == "device"]
        if not kws or is_host_device_expr(kws[0].value):
            continue
        kw = kws[0]
        items = sorted(list(node.args) + list(node.keywords), key=lambda n: (n.lineno, n.col_offset))
        idx = items.index(kw)
        kstart, kend = pf.span(kw)
        if idx > 0:
            start = pf.span(items[idx - 1])[1]
            end = kend
        elif len(items) > 1:
            start = kstart
            end = pf.span(items[1])[0]
        else:
            start, end = kstart, kend
        deleted = pf.src[start:end]
        new = keep_newlines(deleted)
        # remove trailing-comment remnants: keep the newlines, drop every other char of the span
        s = pf.site("py-device-kw-deleted", (start, end, kw.lineno, kw.end_lineno, node), new,
                    f"{name}(.., device={ast.get_source_segment(pf.src, kw.value)})")
        out.append(s)
    return out


def py_buffer_sites(pf):
    out = []
    for node in ast.walk(pf.tree):
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
            continue
        call = node.value
        if dotted(call.func) != "self.register_buffer" or len(call.args) < 2:
            continue
        n, t = call.args[0], call.args[1]
        if not (isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.isidentifier()):
            continue
        if isinstance(t, ast.Constant) and t.value is None:
            continue
        tsrc = ast.get_source_segment(pf.src, t)
        start, end = pf.span(node)
        orig_nl = pf.src[start:end].count("\n")
        new = f"self.{n.value} = ({tsrc}" + "\n" * (orig_nl - tsrc.count("\n")) + ")"
        s = pf.site("py-buffer-to-attr", node, new, f"buffer `{n.value}`")
        out.append(s)
    return out


def is_device_arg(node):
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and (node.value.startswith("cuda") or node.value in ("mps", "xpu", "npu"))
    d = dotted(node)
    if d is None:
        if isinstance(node, ast.Call) and dotted(node.func) == "torch.device":
            return True
        return False
    last = d.split(".")[-1].lower()
    return "device" in last or last in ("dev", "target", "rank", "local_rank", "gpu")


def py_transfer_sites(pf):
    out = []
    for node in ast.walk(pf.tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        meth = node.func.attr
        if meth == "to":
            if node.keywords and any(k.arg != "device" and k.arg != "non_blocking" for k in node.keywords):
                continue  # also a cast (dtype=..) or copy=: not a pure transfer
            devs = [k.value for k in node.keywords if k.arg == "device"] + list(node.args[:1])
            if len(node.args) > 1 or not devs or not is_device_arg(devs[0]):
                continue
        elif meth == "cuda":
            pass
        else:
            continue
        if not pf.in_loop(node):
            continue
        recv = node.func.value
        rsrc = ast.get_source_segment(pf.src, recv)
        start, end = pf.span(node)
        rstart, rend = pf.span(recv)
        # `x.to(d)` -> `x` : keep the receiver's text, drop `.to(d)` (keeping its newlines)
        new = rsrc + keep_newlines(pf.src[rend:end])
        # wrap nothing: the receiver is a primary expression already (attribute base)
        s = pf.site("py-transfer-in-loop-deleted", node, new,
                    f"{ast.get_source_segment(pf.src, node).splitlines()[0][:80]}")
        out.append(s)
    return out


def py_tensorish(value, known, target=None):
    """is this expression (heuristically) a tensor? (`target`: the name it is assigned to)"""
    if isinstance(value, ast.Call):
        d = dotted(value.func)
        if d and (d.startswith("torch.") and not TORCH_NONTENSOR.match(d)):
            return True
        if d and (d.startswith("nn.functional.") or d.startswith("F.")):
            return True
        if isinstance(value.func, ast.Attribute):
            if value.func.attr in TENSOR_METHODS:
                base = value.func.value
                return py_tensorish(base, known) or (isinstance(base, ast.Name) and base.id in known) \
                    or (isinstance(base, ast.Attribute) and dotted(base) is not None)
            # self.sub(x) -> tensor when x is a known tensor
            if d and d.startswith("self.") and value.args and isinstance(value.args[0], ast.Name) \
                    and value.args[0].id in known and value.args[0].id == target:
                return True
        return False
    if isinstance(value, ast.BinOp):
        return py_tensorish(value.left, known) or py_tensorish(value.right, known)
    if isinstance(value, ast.Subscript):
        return isinstance(value.value, ast.Name) and value.value.id in known
    if isinstance(value, ast.Name):
        return value.id in known
    return False


def tensor_params(fn):
    out = []
    args = fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
    defaults = {}
    pos = fn.args.posonlyargs + fn.args.args
    for a, d in zip(pos[len(pos) - len(fn.args.defaults):], fn.args.defaults):
        defaults[a.arg] = d
    for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults):
        defaults[a.arg] = d
    for a in args:
        if a.annotation is None:
            continue
        ann = ast.unparse(a.annotation)
        if "Tensor" in ann and "Optional" not in ann and "None" not in ann and "List" not in ann \
                and "Tuple" not in ann and "list" not in ann and "tuple" not in ann and "Dict" not in ann:
            d = defaults.get(a.arg)
            if d is None or not (isinstance(d, ast.Constant) and d.value is None):
                out.append(a.arg)
    return out


SIMPLE_STMTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)


def py_host_read_sites(pf):
    out = []
    for fn in ast.walk(pf.tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = tensor_params(fn)  # in signature order
        known_before = set(params)
        # names assigned a tensor in the function, in source order (flow-insensitive, one pass)
        assigned = []
        for st in ast.walk(fn):
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                assigned.append(st)
        assigned.sort(key=lambda s: (s.lineno, s.col_offset))
        for loop in ast.walk(fn):
            if not isinstance(loop, (ast.For, ast.While)) or pf.func_of(loop) is not fn:
                continue
            known = set(known_before)
            for st in assigned:
                if st.lineno < loop.lineno and py_tensorish(st.value, known, st.targets[0].id):
                    known.add(st.targets[0].id)
            chosen = None
            for st in loop.body:
                if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                        and py_tensorish(st.value, known, st.targets[0].id):
                    chosen = (st, st.targets[0].id)
                    break
            if chosen is None and known:
                firsts = [st for st in loop.body if isinstance(st, SIMPLE_STMTS)
                          and not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]
                if not firsts:
                    continue
                # a name known before the loop: the first tensor parameter, else the first name in
                # alphabetical order (never a set's iteration order: the choice must not depend on
                # PYTHONHASHSEED)
                name = params[0] if params else sorted(known)[0]
                chosen = (firsts[0], name)
            if chosen is None:
                continue
            st, name = chosen
            at = pf.off(st.end_lineno, st.end_col_offset)
            new = f"; _ = {name}.item()"
            s = Site("py-host-read-in-loop", pf.path, at, at, new, st.end_lineno, st.end_lineno, fn.name, True,
                     f"host read of `{name}`")
            out.append(s)
    return out


def python_sites(root, ops):
    sites = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for fname in sorted(filenames):
            if not fname.endswith(".py"):
                continue
            path = os.path.join(dirpath, fname)
            rel = os.path.relpath(path, root)
            if SKIP_PY_FILE.search(rel):
                continue
            try:
                pf = PyFile(path)
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            if "py-device-kw-deleted" in ops:
                sites += py_device_kw_sites(pf)
            if "py-buffer-to-attr" in ops:
                sites += py_buffer_sites(pf)
            if "py-transfer-in-loop-deleted" in ops:
                sites += py_transfer_sites(pf)
            if "py-host-read-in-loop" in ops and HOT_PY_FILE.search(rel):
                sites += py_host_read_sites(pf)
    return sites


# --------------------------------------------------------------------------------------------
# Running placer
# --------------------------------------------------------------------------------------------

def run_placer(placer, scope, timeout=300):
    env = dict(os.environ, PLACER_NO_CACHE="1")
    # MUTATION_PLACER_ARGS: extra `placer check` arguments (`--extend-select P305` measures a
    # rule that is off by default).
    extra = shlex.split(os.environ.get("MUTATION_PLACER_ARGS", ""))
    p = subprocess.run([placer, "check", "--no-cache", "--output-format", "json", "--exit-zero", *extra, *scope],
                       capture_output=True, text=True, env=env, timeout=timeout)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"placer exited {p.returncode} on {scope}: {p.stderr[-2000:]}")
    if "panicked" in p.stderr:
        raise RuntimeError(f"placer panicked on {scope}: {p.stderr[-2000:]}")
    findings = json.loads(p.stdout or "[]")
    for f in findings:
        f["path"] = os.path.realpath(f["path"])
    return findings


def fkey(f):
    return (f["path"], f["code"], f["line"], f["message"])


def new_findings(base, mutated):
    c = collections.Counter(fkey(f) for f in base)
    out = []
    for f in mutated:
        k = fkey(f)
        if c[k] > 0:
            c[k] -= 1
        else:
            out.append(f)
    return out


def near(f, site, slack=2):
    lo, hi = site.line - slack, site.end_line + slack
    spans = [(f["line"], f.get("end_line", f["line"]))]
    spans += [(l["line"], l.get("end_line", l["line"])) for l in f.get("labels") or []]
    return any(a <= hi and b >= lo for a, b in spans)


def scope_for(site, target, work_root):
    """The paths placer checks for a mutant (a tuple, also the key of the cached baseline)."""
    if target == "rust":
        return (work_root,)  # the crate's src dir: the call graph crosses files
    # The mutated file's package directory, plus the package's top-level modules and `generation/`:
    # they hold the base classes (`PreTrainedModel` in modeling_utils.py, `GenerationMixin`, `Cache`)
    # without which a model class is not known to be an `nn.Module` (checking models/x/ alone
    # loses kills: the layoutlm `bbox` mutant is caught only with modeling_utils.py in the tree).
    top = sorted(os.path.join(work_root, f) for f in os.listdir(work_root) if f.endswith(".py"))
    gen = os.path.join(work_root, "generation")
    paths = set(top) | ({gen} if os.path.isdir(gen) else set())
    d = os.path.dirname(site.path)
    if d != work_root and not d.startswith(gen + os.sep) and d != gen:
        paths.add(d)
    return tuple(sorted(paths))


def python_mutant_parses(site):
    with open(site.path, encoding="utf-8") as f:
        text = f.read()
    try:
        ast.parse(apply(text, site))
        return True
    except SyntaxError:
        return False


def sample_sites(sites, n, seed, valid=None):
    """Per operator: all sites, or N drawn at random (seeded by SEED and the operator's name). With
    `valid`, sites whose mutant fails it are dropped (and replaced by further draws)."""
    by_op = collections.defaultdict(list)
    for s in sites:
        by_op[s.op].append(s)
    out = []
    dropped = collections.Counter()
    for op in sorted(by_op):
        lst = sorted(by_op[op], key=lambda s: (s.path, s.start))
        random.Random(f"{seed}:{op}").shuffle(lst)
        chosen = []
        for s in lst:
            if n and len(chosen) >= n:
                break
            if valid is not None and not valid(s):
                dropped[op] += 1
                continue
            chosen.append(s)
        out += sorted(chosen, key=lambda s: (s.path, s.start))
    return out, {op: len(v) for op, v in by_op.items()}, dropped


def cmd_run(args):
    ops = set(args.ops.split(",")) if args.ops else set(OPERATORS)
    targets = args.targets.split(",")
    results = []
    totals_sites = {}
    for target in targets:
        src_root = args.rust_root if target == "rust" else args.python_root
        if not src_root:
            continue
        work = os.path.join(args.work, target)
        if os.path.exists(work):
            shutil.rmtree(work)
        shutil.copytree(src_root, work, symlinks=True)
        work = os.path.realpath(work)
        tops = {op for op in ops if OPERATORS[op][0] == target}
        all_sites = rust_sites(work, tops) if target == "rust" else python_sites(work, tops)
        sites, counts, dropped = sample_sites(all_sites, args.sample, args.seed,
                                              python_mutant_parses if target == "python" else None)
        totals_sites.update(counts)
        if dropped:
            print(f"   mutants that do not parse, skipped: {dict(dropped)}", file=sys.stderr)
        print(f"== {target}: {len(all_sites)} sites, {len(sites)} mutants after sampling "
              f"({', '.join(f'{op} {counts[op]}' for op in sorted(counts))})", file=sys.stderr)
        baselines = {}
        t0 = time.time()
        for i, s in enumerate(sites):
            scope = scope_for(s, target, work)
            if scope not in baselines:
                baselines[scope] = run_placer(args.placer, scope)
            with open(s.path, encoding="utf-8") as f:
                orig = f.read()
            try:
                with open(s.path, "w", encoding="utf-8") as f:
                    f.write(apply(orig, s))
                try:
                    mutated = run_placer(args.placer, scope)
                    error = None
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    mutated, error = [], str(e)[:300]
            finally:
                with open(s.path, "w", encoding="utf-8") as f:
                    f.write(orig)
            new = new_findings(baselines[scope], mutated)
            path = os.path.realpath(s.path)
            broken = any(f["code"] == "P000" and f["path"] == path for f in new) or error is not None
            in_file = [f for f in new if f["path"] == path and f["code"] != "P000"]
            near_site = [f for f in in_file if near(f, s)]
            lines = orig.splitlines()
            mutated_line = apply(orig, s).splitlines()[s.line - 1] if s.line - 1 < len(lines) else ""
            r = s.as_dict(work)
            r.update(target=target, broken=broken, error=error,
                     killed_any=bool([f for f in new if f["code"] != "P000"]),
                     killed_file=bool(in_file), killed_near=bool(near_site),
                     new=[f"{os.path.relpath(f['path'], work)}:{f['line']}: {f['code']} {f['message'][:160]}"
                          for f in new][:10],
                     original_line=lines[s.line - 1].strip() if s.line - 1 < len(lines) else "",
                     mutated_line=mutated_line.strip())
            results.append(r)
            if args.progress and (i + 1) % 25 == 0:
                print(f"   {target}: {i + 1}/{len(sites)} mutants, {time.time() - t0:.0f} s", file=sys.stderr)
    if args.results:
        with open(args.results, "w") as f:
            json.dump(results, f, indent=1)
    report(results, totals_sites, args)
    if args.survivors:
        with open(args.survivors, "w") as f:
            for r in results:
                if not r["killed_file"] and not r["broken"]:
                    f.write(f"{r['target']}\t{r['path']}:{r['line']}\t{r['op']}\t{r['context']}"
                            f"{'+loop' if r['in_loop'] else ''}\t{r['function']}\t{r['mutated_line'][:200]}"
                            f"\t{r['note']}\n")
        print(f"survivors written to {args.survivors}")
    return 0


def pct(k, n):
    return f"{k}/{n} ({100.0 * k / n:.0f} %)" if n else "-"


def report(results, totals_sites, args):
    ok = [r for r in results if not r["broken"]]
    broken = len(results) - len(ok)
    print(f"mutation recall: sample {args.sample or 'all'} per operator, seed {args.seed}; "
          f"killed = a new finding in the mutated file (near = within ±2 lines of the site, "
          f"any = anywhere in the checked tree)")
    if broken:
        print(f"  ({broken} mutants excluded: placer reported P000 or failed on them)")
    print(f"{'target':7} {'operator':28} {'sites':>6} {'file':>16} {'near':>16} {'any':>16}")
    for target in ("rust", "python"):
        rs = [r for r in ok if r["target"] == target]
        if not rs:
            continue
        for op in sorted({r["op"] for r in rs}):
            o = [r for r in rs if r["op"] == op]
            print(f"{target:7} {op:28} {totals_sites.get(op, 0):>6} "
                  f"{pct(sum(r['killed_file'] for r in o), len(o)):>16} "
                  f"{pct(sum(r['killed_near'] for r in o), len(o)):>16} "
                  f"{pct(sum(r['killed_any'] for r in o), len(o)):>16}")
        print(f"{target:7} {'(all operators)':28} {'':>6} "
              f"{pct(sum(r['killed_file'] for r in rs), len(rs)):>16} "
              f"{pct(sum(r['killed_near'] for r in rs), len(rs)):>16} "
              f"{pct(sum(r['killed_any'] for r in rs), len(rs)):>16}")
    print()
    print("per context (killed in file / total; `loop` overlaps the other three)")
    print(f"{'target':7} {'operator':28} " + " ".join(f"{c:>16}" for c in CONTEXTS))
    for target in ("rust", "python"):
        rs = [r for r in ok if r["target"] == target]
        for op in sorted({r["op"] for r in rs}) + ["(all operators)"]:
            o = rs if op == "(all operators)" else [r for r in rs if r["op"] == op]
            cells = []
            for c in CONTEXTS:
                oc = [r for r in o if (r["in_loop"] if c == "loop" else r["context"] == c)]
                cells.append(pct(sum(r["killed_file"] for r in oc), len(oc)))
            if rs:
                print(f"{target:7} {op:28} " + " ".join(f"{x:>16}" for x in cells))


def cmd_sites(args):
    ops = set(args.ops.split(",")) if args.ops else {op for op, (t, _) in OPERATORS.items() if t == args.target}
    sites = rust_sites(args.root, ops) if args.target == "rust" else python_sites(args.root, ops)
    for s in sites:
        d = s.as_dict(args.root)
        if args.json:
            print(json.dumps(d))
        else:
            print(f"{d['path']}:{d['line']}\t{d['op']}\t{d['context']}{'+loop' if d['in_loop'] else ''}\t"
                  f"{d['function']}\t{d['note']}")
    c = collections.Counter(s.op for s in sites)
    print(" ".join(f"{k}={v}" for k, v in sorted(c.items())), file=sys.stderr)


def cmd_survivors(args):
    """A seeded sample of survivors, spread evenly over the operators, each with its code around it."""
    with open(args.results) as f:
        results = json.load(f)
    surv = [r for r in results if not r["killed_file"] and not r["broken"]]
    by_op = collections.defaultdict(list)
    for r in surv:
        by_op[r["op"]].append(r)
    ops = sorted(by_op)
    rnd = random.Random(f"survivors:{args.seed}")
    for op in ops:
        rnd.shuffle(by_op[op])
    picked = []
    while len(picked) < args.n and any(by_op.values()):
        for op in ops:
            if by_op[op] and len(picked) < args.n:
                picked.append(by_op[op].pop())
    for i, r in enumerate(sorted(picked, key=lambda r: (r["target"], r["op"], r["path"], r["line"])), 1):
        root = args.rust_root if r["target"] == "rust" else args.python_root
        print(f"#{i} [{r['target']}] {r['op']} {r['path']}:{r['line']} in `{r['function']}` "
              f"({r['context']}{', loop' if r['in_loop'] else ''}) {r['note']}")
        print(f"   - {r['original_line']}")
        print(f"   + {r['mutated_line']}")
        if root and args.context:
            with open(os.path.join(root, r["path"]), encoding="utf-8") as f:
                lines = f.read().splitlines()
            lo, hi = max(1, r["line"] - args.context), min(len(lines), r["end_line"] + args.context)
            for n in range(lo, hi + 1):
                print(f"   {n:5}{'>' if r['line'] <= n <= r['end_line'] else ' '} {lines[n - 1]}")
        print()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sites")
    s.add_argument("--target", choices=("rust", "python"), required=True)
    s.add_argument("--root", required=True)
    s.add_argument("--ops")
    s.add_argument("--json", action="store_true")
    r = sub.add_parser("run")
    r.add_argument("--placer", required=True)
    r.add_argument("--rust-root")
    r.add_argument("--python-root")
    r.add_argument("--work", required=True)
    r.add_argument("--sample", type=int, default=150)
    r.add_argument("--seed", default="1")
    r.add_argument("--ops")
    r.add_argument("--targets", default="rust,python")
    r.add_argument("--survivors")
    r.add_argument("--results")
    r.add_argument("--progress", action="store_true")
    v = sub.add_parser("survivors")
    v.add_argument("--results", required=True)
    v.add_argument("--n", type=int, default=30)
    v.add_argument("--seed", default="1")
    v.add_argument("--rust-root")
    v.add_argument("--python-root")
    v.add_argument("--context", type=int, default=0)
    args = ap.parse_args()
    return {"sites": cmd_sites, "run": cmd_run, "survivors": cmd_survivors}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
