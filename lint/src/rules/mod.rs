//! One rule per file. Each reads the IR through the [`Checker`](crate::checker::Checker).

pub(crate) mod create_then_transfer;
pub(crate) mod device_round_trip_in_loop;
pub(crate) mod empty_cache_in_loop;
pub(crate) mod hardcoded_device_ordinal;
pub(crate) mod host_sync_in_loop;
pub(crate) mod loop_invariant_transfer;
pub(crate) mod mixed_device_op;
pub(crate) mod syntax_error;
pub(crate) mod tensor_on_default_device;
pub(crate) mod unsynchronized_timing;
pub(crate) mod unused_suppression;
