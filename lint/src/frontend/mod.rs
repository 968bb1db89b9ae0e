//! Frontends: each lowers one language's syntax into the placement IR.

pub(crate) mod eval;
pub(crate) mod python;
pub(crate) mod rust;
