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
