//! Frontends: each lowers one language's syntax into the placement IR.

pub(crate) mod eval;
pub(crate) mod python;
pub(crate) mod rust;

/// Factories (of both frontends) whose arguments are sizes, ranges and steps, never data: a host value among them
/// (`arange_step(0., 1., 1. / n as f64, dev)` with `n` read from a tensor) sizes the new tensor,
/// it does not travel back to the device in it.
pub(crate) fn is_shape_factory(name: &str) -> bool {
    matches!(
        name,
        "zeros"
            | "ones"
            | "empty"
            | "arange"
            | "arange_step"
            | "linspace"
            | "logspace"
            | "eye"
            | "rand"
            | "randn"
            | "randint"
            | "randperm"
    )
}

/// The later clock reading a timer read subtracts `start` from (`end - start`,
/// `end.duration_since(start)` with `end` another reading): the index of its
/// [`crate::ir::EventKind::TimerStart`], where the measured interval ends.
pub(crate) fn timer_end(start: u32, later: crate::ir::ValueKind) -> Option<u32> {
    match later {
        crate::ir::ValueKind::Timer(end) if end > start => Some(end),
        _ => None,
    }
}

/// The bindings a value reading `reads` is computed from, transitively: each binding read and
/// what it was computed from (capped: a long chain of reassignments keeps its first 64).
pub(crate) fn derived_from(
    bindings: &[crate::ir::Binding],
    reads: &[crate::ir::BindingId],
) -> crate::ir::DerivedFrom {
    const MAX: usize = 64;
    if reads.is_empty() {
        return crate::ir::DerivedFrom::new();
    }
    // Sized once: this runs for every binding, and grew the vector one push at a time.
    let bound: usize = reads
        .iter()
        .map(|&r| 1 + bindings.get(r as usize).map_or(0, |b| b.derived_from.len()))
        .sum();
    let mut out = crate::ir::DerivedFrom::with_capacity(bound.min(MAX));
    for &r in reads {
        let from = bindings
            .get(r as usize)
            .map_or(&[][..], |b| b.derived_from.as_slice());
        for &d in std::iter::once(&r).chain(from) {
            if out.len() < MAX && !out.contains(&d) {
                out.push(d);
            }
        }
    }
    out
}

/// The bindings whose host data built a tensor inside a loop (`Tensor::new(tokens.as_slice(),
/// dev)`, `torch.tensor([tokens], device=d)`), each with that loop: a host read stored into one
/// of them (`tokens.push(next)`) is the loop's next input, which the host needs.
#[derive(Debug, Default)]
pub(crate) struct Uploads(Vec<(crate::ir::BindingId, crate::ir::LoopId)>);

impl Uploads {
    /// Records that the bindings a value reading `reads` is computed from are uploaded in the
    /// innermost loop of `loop_stack` (nothing outside a loop).
    pub(crate) fn record(
        &mut self,
        bindings: &[crate::ir::Binding],
        reads: &[crate::ir::BindingId],
        loop_stack: &[crate::ir::LoopId],
    ) {
        let Some(&lp) = loop_stack.last() else {
            return;
        };
        for id in derived_from(bindings, reads) {
            if !self.0.contains(&(id, lp)) {
                self.0.push((id, lp));
            }
        }
    }

    /// Whether `target` is uploaded in some loop.
    pub(crate) fn contains(&self, target: crate::ir::BindingId) -> bool {
        self.0.iter().any(|&(id, _)| id == target)
    }

    /// Whether `target` is uploaded in a loop of `loop_stack` (one enclosing the current point):
    /// what is stored into it now is that loop's next input.
    pub(crate) fn feeds(
        &self,
        target: crate::ir::BindingId,
        loop_stack: &[crate::ir::LoopId],
    ) -> bool {
        self.0
            .iter()
            .any(|&(id, lp)| id == target && loop_stack.contains(&lp))
    }
}
