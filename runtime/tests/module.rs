//! The `Module` trait on hand-written modules, the `nn` layers and the containers: every
//! parameter and buffer moves with `to`, names are dotted paths in declaration order, and state
//! dicts round-trip.

use placer_runtime::nn::{Embedding, LayerNorm, Linear};
use placer_runtime::{DType, Device, Error, Module, Result, StateDict, Tensor, TensorKind};
use std::collections::HashMap;

/// What `#[module]` will generate for a struct with two submodules and a buffer.
struct Block {
    embed: Embedding,
    layers: Vec<Linear>,
    norm: Option<LayerNorm>,
    /// A buffer: moved with the module, not a parameter.
    causal_mask: Tensor,
}

impl Module for Block {
    fn visit(&self, prefix: &str, _: TensorKind, f: &mut dyn FnMut(&str, &Tensor, TensorKind)) {
        let p = |n: &str| placer_runtime::join_name(prefix, n);
        self.embed.visit(&p("embed"), TensorKind::Parameter, f);
        self.layers.visit(&p("layers"), TensorKind::Parameter, f);
        self.norm.visit(&p("norm"), TensorKind::Parameter, f);
        self.causal_mask
            .visit(&p("causal_mask"), TensorKind::Buffer, f);
    }
    fn visit_mut(
        &mut self,
        prefix: &str,
        _: TensorKind,
        f: &mut dyn FnMut(&str, &mut Tensor, TensorKind) -> Result<()>,
    ) -> Result<()> {
        let p = |n: &str| placer_runtime::join_name(prefix, n);
        self.embed
            .visit_mut(&p("embed"), TensorKind::Parameter, f)?;
        self.layers
            .visit_mut(&p("layers"), TensorKind::Parameter, f)?;
        self.norm.visit_mut(&p("norm"), TensorKind::Parameter, f)?;
        self.causal_mask
            .visit_mut(&p("causal_mask"), TensorKind::Buffer, f)
    }
}

fn block() -> Block {
    Block {
        embed: Embedding::new(10, 4, Device::Cpu).unwrap(),
        layers: vec![
            Linear::new(4, 4, true, Device::Cpu).unwrap(),
            Linear::new(4, 4, false, Device::Cpu).unwrap(),
        ],
        norm: Some(LayerNorm::new(4, 1e-5, Device::Cpu).unwrap()),
        causal_mask: Tensor::triu(3, 1, (DType::Bool, Device::Cpu)).unwrap(),
    }
}

#[test]
fn should_name_parameters_and_buffers_in_declaration_order() {
    let m = block();
    let names: Vec<String> = m.named_parameters().into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "embed.weight",
            "layers.0.weight",
            "layers.0.bias",
            "layers.1.weight",
            "norm.weight",
            "norm.bias"
        ]
    );
    let bufs: Vec<String> = m.named_buffers().into_iter().map(|(n, _)| n).collect();
    assert_eq!(bufs, ["causal_mask"]);
    assert_eq!(m.parameters().len(), 6);
    assert_eq!(m.state_dict().len(), 7);
}

#[test]
fn should_move_every_parameter_and_buffer_with_to() {
    let mut m = block();
    m.to(&Device::Meta).unwrap();
    assert_eq!(m.device().expect("one device"), Some(Device::Meta));
    for (name, t) in m.state_dict() {
        assert_eq!(t.device(), Device::Meta, "{name} was not moved");
    }
    // So a forward pass on the accelerator stand-in has no device mismatch.
    let ids = Tensor::zeros([2, 3], (DType::I64, Device::Meta)).unwrap();
    let mut h = m.embed.forward(&ids).unwrap();
    for l in &m.layers {
        h = l.forward(&h).unwrap();
    }
    let h = m.norm.as_ref().unwrap().forward(&h).unwrap();
    let scores = h.matmul(&h.t().unwrap()).unwrap();
    let masked = scores
        .masked_fill(&m.causal_mask, f64::NEG_INFINITY)
        .unwrap();
    assert_eq!(masked.softmax(-1).unwrap().dims(), &[2, 3, 3]);
}

#[test]
fn should_convert_only_floating_tensors_with_to_dtype() {
    let mut m = block();
    m.to_dtype(DType::F16).unwrap();
    for (name, t) in m.named_parameters() {
        assert_eq!(t.dtype(), DType::F16, "{name}");
    }
    assert_eq!(m.causal_mask.dtype(), DType::Bool);
}

#[test]
fn should_round_trip_a_state_dict() {
    let a = block();
    let mut b = block();
    assert_ne!(
        a.layers[0].weight.to_vec::<f32>().unwrap(),
        b.layers[0].weight.to_vec::<f32>().unwrap()
    );
    b.load_state_dict(&a.state_dict(), true).unwrap();
    for ((n1, t1), (n2, t2)) in a.state_dict().into_iter().zip(b.state_dict()) {
        assert_eq!(n1, n2);
        assert_eq!(
            t1.to_dtype(DType::F32).unwrap().to_vec::<f32>().unwrap(),
            t2.to_dtype(DType::F32).unwrap().to_vec::<f32>().unwrap()
        );
    }
    // Loading keeps each tensor on the module's device.
    let mut meta = block();
    meta.to(&Device::Meta).unwrap();
    meta.load_state_dict(&a.state_dict(), true).unwrap();
    assert_eq!(meta.layers[0].weight.device(), Device::Meta);
}

#[test]
fn should_reject_state_dicts_that_do_not_fit() {
    let mut m = block();
    let mut sd = m.state_dict();
    sd.remove("norm.bias");
    let err = m.load_state_dict(&sd, true).unwrap_err();
    assert!(
        matches!(&err, Error::MissingKey { key } if key == "norm.bias"),
        "{err}"
    );
    m.load_state_dict(&sd, false).unwrap();

    let mut sd = m.state_dict();
    sd.insert("extra".into(), Tensor::zeros([1], Device::Cpu).unwrap());
    let err = m.load_state_dict(&sd, true).unwrap_err();
    assert_eq!(err.to_string(), "unexpected key in load_state_dict: extra");

    let mut sd: StateDict = m.state_dict();
    sd.insert(
        "embed.weight".into(),
        Tensor::zeros([10, 5], Device::Cpu).unwrap(),
    );
    let err = m.load_state_dict(&sd, true).unwrap_err();
    assert_eq!(
        err.to_string(),
        "shape mismatch in load_state_dict: lhs [10, 4], rhs [10, 5]"
    );
}

#[test]
fn should_name_map_entries_by_key_in_sorted_order() {
    let mut heads: HashMap<String, Linear> = HashMap::new();
    heads.insert("b".into(), Linear::new(2, 2, false, Device::Cpu).unwrap());
    heads.insert("a".into(), Linear::new(2, 2, false, Device::Cpu).unwrap());
    let names: Vec<String> = heads
        .named_parameters()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(names, ["a.weight", "b.weight"]);
    let arr = [
        Tensor::zeros([1], Device::Cpu).unwrap(),
        Tensor::ones([1], Device::Cpu).unwrap(),
    ];
    let names: Vec<String> = arr.named_parameters().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["0", "1"]);
    let none: Option<Linear> = None;
    assert_eq!(none.device().expect("no tensors"), None);
}

#[test]
fn should_compute_linear_as_x_wt_plus_b() {
    let l = Linear {
        weight: Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3], Device::Cpu)
            .unwrap(),
        bias: Some(Tensor::from_vec(vec![0.5f32, -0.5], 2, Device::Cpu).unwrap()),
    };
    let x = Tensor::from_vec(vec![1.0f32, 0.0, -1.0], 3, Device::Cpu).unwrap();
    assert_eq!(
        l.forward(&x).unwrap().to_vec::<f32>().unwrap(),
        vec![-1.5, -2.5]
    );
    let xb = x.unsqueeze(0).unwrap().broadcast_as([2, 2, 3]).unwrap();
    assert_eq!(l.forward(&xb).unwrap().dims(), &[2, 2, 2]);
}
