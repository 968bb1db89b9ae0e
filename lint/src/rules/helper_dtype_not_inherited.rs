use std::collections::HashSet;

use crate::checker::Checker;
use crate::ir::{Device, EventKind};
use crate::rule::{declare_rule, Violation};
use crate::text::AnyOf;

declare_rule! {
    /// ## What it does
    /// Checks for helper tensors created on the input's device (`device=x.device`) but with the
    /// default dtype (no `dtype=`, no `*_like`, no `x.new_*`), that then meet the input in an op.
    ///
    /// ## Why is this bad?
    /// Under half precision the input is `float16`/`bfloat16` and the helper `float32`: the op
    /// silently upcasts (twice the memory and bandwidth) or, for in-place ops and `matmul`, raises
    /// a dtype mismatch.
    ///
    /// ## Example
    /// ```python
    /// import torch
    ///
    /// def scale(x):
    ///     w = torch.ones(x.shape[-1], device=x.device)
    ///     return x * w
    ///
    /// def predict(model, x):
    ///     with torch.autocast("cuda", dtype=torch.float16):
    ///         return scale(model(x))
    /// ```
    ///
    /// Use instead:
    /// ```python
    /// import torch
    ///
    /// def scale(x):
    ///     w = torch.ones(x.shape[-1], device=x.device, dtype=x.dtype)
    ///     return x * w
    ///
    /// def predict(model, x):
    ///     with torch.autocast("cuda", dtype=torch.float16):
    ///         return scale(model(x))
    /// ```
    ///
    /// ## Known problems
    /// Integer and boolean helpers (`arange`, `randint`, masks) are not checked; a helper converted
    /// afterwards (`.to(x.dtype)`, `.type_as(x)`, `.half()`) is not reported. In Python, only files
    /// with a half-precision path (`.half()`, `float16`, `bfloat16`, `autocast`, `fp16`, `bf16`,
    /// `mixed_precision`, `GradScaler`) are checked: elsewhere the input is `float32` like the
    /// helper. A function written for callers that pass half-precision data from another file is
    /// missed.
    ///
    /// ## References
    /// - `../shared/RULES.md`, P105
    /// - `../shared/reference/pytorch-devices-chapter.txt`, "Creating Helper Tensors Correctly"
    pub(crate) struct HelperDtypeNotInherited {
        helper: String,
        input: String,
    }
}

impl Violation for HelperDtypeNotInherited {
    fn message(&self) -> String {
        format!(
            "`{}` takes the input's device but the default dtype, and meets `{}`",
            self.helper, self.input
        )
    }

    fn help(&self) -> Option<String> {
        if self.input.chars().all(|c| c.is_alphanumeric() || c == '_') {
            Some(format!("pass `dtype={}.dtype` too", self.input))
        } else {
            Some("pass the input's `dtype` too".to_string())
        }
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    // A default-dtype helper only goes wrong next to half-precision data: in a Python file with
    // no half-precision path (no `.half()`, `float16`, `bfloat16`, `autocast`, ..) the input is
    // `float32` like the helper. (The cheap question first: most files build no tensor with the
    // default dtype.)
    let builds_default_dtype = checker.functions().any(|(_, f)| {
        f.events
            .iter()
            .any(|e| matches!(e.kind, EventKind::DefaultDtype))
    });
    if !builds_default_dtype
        || checker.is_python() && !mentions_half_precision(&checker.file.source)
    {
        return;
    }
    for (_, func) in checker.functions() {
        let defaults: HashSet<_> = func
            .events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::DefaultDtype))
            .map(|e| e.span.clone())
            .collect();
        if defaults.is_empty() {
            continue;
        }
        let mut seen = HashSet::new();
        for event in &func.events {
            // Arithmetic only: passing a mask to a function or a module is not combining it, and
            // an in-place `a *= b` keeps `a`'s dtype.
            let EventKind::Op { operands, name, .. } = &event.kind else {
                continue;
            };
            if !is_arithmetic(name) {
                continue;
            }
            // A helper with the default dtype...
            let Some((helper, origin)) = operands.iter().find_map(|o| {
                let origin = o.origin.as_ref()?;
                (o.device == Device::Input && defaults.contains(&origin.span))
                    .then_some((o, origin))
            }) else {
                continue;
            };
            // ...meets the input (or something computed from it, moved there, or built there
            // with a device argument), not numbers placed by a mask (`torch.where(mask, 1.0,
            // 0.0)`, built with no device argument).
            let Some(input) = operands.iter().find(|o| {
                o.device == Device::Input
                    && o.origin.as_ref().is_none_or(|x| {
                        x.span != origin.span
                            && !defaults.contains(&x.span)
                            && (x.is_transfer || x.device_span.is_some())
                    })
            }) else {
                continue;
            };
            // A result rounded or cast to integers at once (`(torch.rand(n, device=d) *
            // span).long()`: random offsets) has no floating dtype to get wrong.
            if cast_to_integers(&checker.file.source, event.span.end) {
                continue;
            }
            // A result stored into a slice of another tensor (`x[:, 0] = x[:, 0] + noise`)
            // takes that tensor's dtype: the store casts it back. (Stored into the helper
            // itself, it stays the default dtype.)
            let helper_text = checker.text(&helper.span);
            let helper_root = root_name(&helper_text);
            if stored_into_slice(&checker.file.source, event.span.start)
                .is_some_and(|target| target != helper_root)
            {
                continue;
            }
            if !seen.insert(origin.span.clone()) {
                continue;
            }
            let violation = HelperDtypeNotInherited {
                helper: checker.text(&helper.span),
                input: checker.text(&input.span),
            };
            checker
                .report(&violation, origin.span.clone())
                .label(event.span.clone(), "meets the input here");
        }
    }
}

/// Whether Python source has a half-precision path: a cast to, a dtype of, or a context for half
/// precision (`.half()`, `torch.float16`, `torch.bfloat16`, `autocast`, `fp16`, `bf16`,
/// `mixed_precision`, `GradScaler`).
fn mentions_half_precision(source: &str) -> bool {
    static WORDS: AnyOf = AnyOf::new(&[
        ".half(",
        "float16",
        "torch.half",
        "autocast",
        "fp16",
        "bf16",
        "mixed_precision",
        "GradScaler",
    ]);
    WORDS.in_text(source)
}

/// Whether the expression ending at `end` is, once its closing parentheses are passed, rounded or
/// cast to an integer dtype (`.long()`, `.floor()`, `.to(torch.int64)`).
fn cast_to_integers(source: &str, end: usize) -> bool {
    let rest = source.get(end..).unwrap_or("");
    let rest = rest.trim_start_matches(|c: char| c == ')' || c.is_whitespace());
    [
        ".long(",
        ".int(",
        ".short(",
        ".floor(",
        ".ceil(",
        ".round(",
        ".trunc(",
        ".bool(",
        ".to(torch.long",
        ".to(torch.int",
        ".to(dtype=torch.long",
        ".to(dtype=torch.int",
    ]
    .iter()
    .any(|p| rest.starts_with(p))
}

/// The name an expression starts with (`jacobi` of `jacobi[:, :, i]`).
fn root_name(expr: &str) -> &str {
    let expr = expr.trim_start();
    let end = expr
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(expr.len());
    &expr[..end]
}

/// The tensor the statement holding the op at `start` stores into, when it assigns to a
/// subscript (`x[i] = ..` gives `x`), on the op's own line (Python).
fn stored_into_slice(source: &str, start: usize) -> Option<&str> {
    let before = source.get(..start)?;
    let line = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
    let bytes = line.as_bytes();
    // The first `=` that is not part of a comparison or an augmented assignment.
    let eq = (0..bytes.len()).find(|&i| {
        bytes[i] == b'='
            && bytes.get(i + 1) != Some(&b'=')
            && (i == 0 || !b"=<>!+-*/%&|^@:".contains(&bytes[i - 1]))
    })?;
    let target = line[..eq].trim();
    (target.ends_with(']')
        && target
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
        && !target.contains('('))
    .then(|| root_name(target))
}

/// Ops whose result mixes the operands' values (and so their dtypes).
fn is_arithmetic(op: &str) -> bool {
    matches!(
        op,
        "+" | "-"
            | "*"
            | "/"
            | "@"
            | "**"
            | "//"
            | "add"
            | "sub"
            | "mul"
            | "div"
            | "matmul"
            | "bmm"
            | "mm"
            | "addmm"
            | "baddbmm"
            | "einsum"
            | "lerp"
            | "add_"
            | "sub_"
            | "mul_"
            | "div_"
    )
}
