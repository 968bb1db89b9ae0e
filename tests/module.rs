//! `#[module]` in use: a small transformer block whose every parameter and buffer moves with
//! `to(device)` (on `Device::Meta`, the accelerator stand-in), is named in declaration order, and
//! round-trips through a state dict.

use placer_runtime::nn::{Embedding, LayerNorm, Linear};
use placer_runtime::{module, DType, Device, Error, Module, StateDict, Tensor};

#[module]
struct Head {
    #[param]
    scale: Tensor,
}

#[module]
struct Attention {
    qkv: Linear,
    proj: Linear,
    #[buffer]
    causal_mask: Tensor,
    #[buffer(persistent = false)]
    rope: Tensor,
    #[param]
    scale: Tensor,
    heads: Vec<Head>,
    device: Device,
    #[skip]
    name: String,
    n_heads: usize,
}

#[module]
struct Block {
    embed: Embedding,
    attn: Attention,
    norm: LayerNorm,
    #[buffer]
    positions: Option<Tensor>,
}

const DIM: usize = 8;
const SEQ: usize = 4;

fn block(device: Device) -> Block {
    let f = (DType::F32, device);
    Block {
        embed: Embedding::new(16, DIM, f).expect("embedding"),
        attn: Attention {
            qkv: Linear::new(DIM, 3 * DIM, true, f).expect("qkv"),
            proj: Linear::new(DIM, DIM, false, f).expect("proj"),
            causal_mask: Tensor::tril(SEQ, 0, f).expect("mask"),
            rope: Tensor::rand([SEQ, DIM], f).expect("rope"),
            scale: Tensor::ones([1], f).expect("scale"),
            heads: vec![
                Head {
                    scale: Tensor::ones([1], f).expect("head 0"),
                },
                Head {
                    scale: Tensor::ones([1], f).expect("head 1"),
                },
            ],
            device,
            name: "attn".to_string(),
            n_heads: 2,
        },
        norm: LayerNorm::new(DIM, 1e-5, f).expect("norm"),
        positions: Some(Tensor::arange(0.0, 4.0, 1.0, f).expect("positions")),
    }
}

#[test]
fn should_move_every_parameter_buffer_and_device_field_to_meta() {
    let mut m = block(Device::Cpu);
    m.to(&Device::Meta).expect("to meta");
    let all: Vec<(String, Device)> = m
        .named_parameters()
        .into_iter()
        .chain(m.named_buffers())
        .map(|(n, t)| (n, t.device()))
        .collect();
    assert_eq!(all.len(), 12, "{all:?}");
    for (name, device) in &all {
        assert_eq!(*device, Device::Meta, "{name} stayed behind");
    }
    assert_eq!(m.attn.device, Device::Meta, "the cached device is updated");
    assert_eq!(m.device().expect("one device"), Some(Device::Meta));
    // Plain data is left alone.
    assert_eq!((m.attn.name.as_str(), m.attn.n_heads), ("attn", 2));
}

#[test]
fn should_name_parameters_and_buffers_in_declaration_order() {
    let m = block(Device::Cpu);
    let params: Vec<String> = m.named_parameters().into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        params,
        [
            "embed.weight",
            "attn.qkv.weight",
            "attn.qkv.bias",
            "attn.proj.weight",
            "attn.scale",
            "attn.heads.0.scale",
            "attn.heads.1.scale",
            "norm.weight",
            "norm.bias",
        ]
    );
    let buffers: Vec<String> = m.named_buffers().into_iter().map(|(n, _)| n).collect();
    assert_eq!(buffers, ["attn.causal_mask", "attn.rope", "positions"]);
}

#[test]
fn should_round_trip_the_state_dict_without_non_persistent_buffers() {
    let source = block(Device::Cpu);
    let state: StateDict = source.state_dict();
    assert!(state.contains_key("attn.causal_mask"));
    assert!(
        !state.contains_key("attn.rope"),
        "persistent = false is not saved"
    );
    assert_eq!(state.len(), 11);
    let mut target = block(Device::Cpu);
    target.load_state_dict(&state, true).expect("load");
    for (name, t) in target.state_dict() {
        assert_eq!(
            t.to_vec::<f32>().expect("cpu data"),
            state[&name].to_vec::<f32>().expect("cpu data"),
            "{name}"
        );
    }
}

#[test]
fn should_reject_missing_unexpected_and_misshapen_state() {
    let mut m = block(Device::Cpu);
    let mut state = m.state_dict();
    state.remove("attn.scale");
    let err = m.load_state_dict(&state, true).expect_err("missing key");
    assert!(
        matches!(err, Error::MissingKey { ref key } if key == "attn.scale"),
        "{err}"
    );

    let mut state = m.state_dict();
    state.insert(
        "attn.bogus".into(),
        Tensor::ones([1], Device::Cpu).expect("t"),
    );
    let err = m.load_state_dict(&state, true).expect_err("unexpected key");
    assert!(
        matches!(err, Error::UnexpectedKey { ref key } if key == "attn.bogus"),
        "{err}"
    );

    let mut state = m.state_dict();
    state.insert(
        "norm.weight".into(),
        Tensor::ones([DIM + 1], Device::Cpu).expect("t"),
    );
    let err = m.load_state_dict(&state, true).expect_err("shape");
    assert!(err.to_string().contains("load_state_dict"), "{err}");
}

#[test]
fn should_leave_the_module_unchanged_when_a_move_fails() {
    // Moving a meta tensor to the CPU needs data it does not have: the move fails part-way.
    let mut m = block(Device::Meta);
    m.norm = LayerNorm::new(DIM, 1e-5, (DType::F32, Device::Cpu)).expect("cpu norm");
    let err = m.to(&Device::Cpu).expect_err("meta has no data");
    assert!(err.to_string().contains("meta"), "{err}");
    assert_eq!(
        m.attn.device,
        Device::Meta,
        "device field not updated on error"
    );
    assert_eq!(m.embed.weight.device(), Device::Meta, "nothing half-moved");
    // And the mixed placement is reported by name.
    let err = m.device().expect_err("two devices");
    let text = err.to_string();
    assert!(
        text.contains("norm.weight, norm.bias on cpu") && text.contains("embed.weight"),
        "{text}"
    );
}

#[test]
fn should_convert_only_floating_tensors_with_to_dtype() {
    let mut m = block(Device::Cpu);
    m.attn.causal_mask = Tensor::ones([SEQ, SEQ], (DType::U8, Device::Cpu)).expect("u8 mask");
    m.to_dtype(DType::F16).expect("to f16");
    assert_eq!(m.attn.qkv.weight.dtype(), DType::F16);
    assert_eq!(m.attn.causal_mask.dtype(), DType::U8);
}
