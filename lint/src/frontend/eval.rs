//! What both frontends' abstract evaluation shares: the evaluated-expression type and the
//! value constructors and combinators that do not depend on the language.

use std::sync::Arc;

use crate::ir::{Device, Origin, Reads, Span, Value, ValueKind};

/// An evaluated expression: its value and, for aggregates (`&[a, b]`, `(a, b)`, `vec![..]`,
/// Python's `[a, b]`), the tensor values inside it.
pub(crate) struct Val {
    pub(crate) v: Value,
    pub(crate) elems: Vec<Value>,
}

impl Val {
    pub(crate) fn new(v: Value) -> Self {
        Val {
            v,
            elems: Vec::new(),
        }
    }

    /// The tensors this expression stands for: itself, or the tensors of an aggregate.
    pub(crate) fn tensors(&self) -> Vec<Value> {
        if self.v.is_tensorish() {
            vec![self.v.clone()]
        } else {
            self.elems
                .iter()
                .filter(|e| e.is_tensorish())
                .cloned()
                .collect()
        }
    }
}

/// A tensor value on `device`, created at `origin`.
pub(crate) fn tensor(span: Span, device: Device, origin: Option<Arc<Origin>>) -> Value {
    Value {
        kind: ValueKind::Tensor,
        device,
        origin,
        host_read: None,
        var: None,
        reads: Reads::new(),
        span,
        requires_grad: false,
        host_scalar: None,
    }
}

/// What computes on the model's device at `span`: a sub-module's weights (`self.proj(x)`,
/// `self.emb.forward(&ids)`) or a collective's process group. An op operand that any tensor
/// given to it meets; it has no `.device` of its own.
pub(crate) fn model_state(span: Span) -> Value {
    let mut v = Value::unknown(span);
    v.kind = ValueKind::Module;
    v.device = Device::Cached;
    v
}

/// The bindings any of `vals` was computed from, sorted and without repeats.
pub(crate) fn reads_of(vals: &[&Value]) -> Reads {
    reads_of_all(vals.iter().copied())
}

/// [`reads_of`] of values given one by one (no slice of them to build first).
pub(crate) fn reads_of_all<'v>(vals: impl Iterator<Item = &'v Value>) -> Reads {
    let mut reads: Reads = vals.flat_map(|v| v.reads.iter().copied()).collect();
    reads.sort_unstable();
    reads.dedup();
    reads
}
