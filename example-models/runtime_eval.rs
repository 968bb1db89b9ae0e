//! An evaluation loop on placer's own runtime.
use placer_runtime::{Device, Result, Tensor};

pub fn evaluate(batches: &[Tensor], device: &Device) -> Result<()> {
    for batch in batches {
        let _activations = batch.to(device)?.relu()?;
        // P303 empty-cache-in-loop: frees what the next batch allocates again.
        device.empty_cache()?;
    }
    Ok(())
}
