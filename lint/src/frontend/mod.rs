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

/// The bindings a value reading `reads` is computed from, transitively: each binding read and
/// what it was computed from (capped: a long chain of reassignments keeps its first 64).
pub(crate) fn derived_from(
    bindings: &[crate::ir::Binding],
    reads: &[crate::ir::BindingId],
) -> Vec<crate::ir::BindingId> {
    const MAX: usize = 64;
    let mut out: Vec<crate::ir::BindingId> = Vec::new();
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
