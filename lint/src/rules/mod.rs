//! One rule per file. Each reads the IR through the [`Checker`](crate::checker::Checker).

pub(crate) mod convenience_transfer_method;
pub(crate) mod create_then_transfer;
pub(crate) mod cuda_without_fallback;
pub(crate) mod dataloader_without_pin_memory;
pub(crate) mod device_round_trip_in_loop;
pub(crate) mod empty_cache_in_loop;
pub(crate) mod hard_coded_device_default;
pub(crate) mod hardcoded_device_ordinal;
pub(crate) mod helper_dtype_not_inherited;
pub(crate) mod host_built_model_state;
pub(crate) mod host_read_of_device_tensor;
pub(crate) mod host_sync_in_forward;
pub(crate) mod host_sync_in_loop;
pub(crate) mod loop_invariant_transfer;
pub(crate) mod loss_weight_on_cpu;
pub(crate) mod mixed_device_op;
pub(crate) mod model_input_device_mismatch;
pub(crate) mod non_blocking_without_pinned_memory;
pub(crate) mod per_call_transfer_of_model_state;
pub(crate) mod pin_memory_on_device_tensors;
pub(crate) mod syntax_error;
pub(crate) mod tensor_on_default_device;
pub(crate) mod unregistered_buffer;
pub(crate) mod unsynchronized_timing;
pub(crate) mod unused_suppression;
