//! Layers written with [`module`](crate::module), as users write theirs: [`Linear`],
//! [`Embedding`], [`LayerNorm`]. Each implements [`Module`](crate::Module).

use crate::error::Result;
use crate::module;
use crate::tensor::TensorOptions;
use crate::Tensor;

/// `y = x W^T + b`, as `torch.nn.Linear`.
#[module]
#[derive(Clone, Debug)]
pub struct Linear {
    /// `[out_features, in_features]`.
    #[param]
    pub weight: Tensor,
    /// `[out_features]`, if any.
    #[param]
    pub bias: Option<Tensor>,
}

impl Linear {
    /// Returns a layer with weight and bias drawn uniformly from
    /// `[-1/sqrt(in_features), 1/sqrt(in_features))`, as PyTorch's default initialisation.
    ///
    /// # Shapes
    /// - weight: `[out_features, in_features]`, bias: `[out_features]`, on `opts.device`.
    ///
    /// # Errors
    /// As [`Tensor::rand`].
    #[track_caller]
    pub fn new(
        in_features: usize,
        out_features: usize,
        bias: bool,
        opts: impl Into<TensorOptions>,
    ) -> Result<Linear> {
        let opts = opts.into();
        #[allow(clippy::cast_precision_loss)]
        let bound = 1.0 / (in_features.max(1) as f64).sqrt();
        let weight =
            Tensor::rand([out_features, in_features], opts)?.affine(2.0 * bound, -bound)?;
        let bias = if bias {
            Some(Tensor::rand([out_features], opts)?.affine(2.0 * bound, -bound)?)
        } else {
            None
        };
        Ok(Linear { weight, bias })
    }

    /// Applies the layer.
    ///
    /// # Shapes
    /// - x: `[..., in_features]` (rank >= 1)
    /// - output: `[..., out_features]`, on the device of `x`.
    ///
    /// # Errors
    /// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) if `x` is not on the layer's
    /// device; shape and dtype errors as [`Tensor::matmul`].
    #[track_caller]
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let y = if x.rank() == 1 {
            x.unsqueeze(0)?.matmul(&self.weight.t()?)?.squeeze(0)?
        } else {
            x.matmul(&self.weight.t()?)?
        };
        match &self.bias {
            Some(b) => y.add(b),
            None => Ok(y),
        }
    }
}

/// A lookup table of `vocab` vectors, as `torch.nn.Embedding`.
#[module]
#[derive(Clone, Debug)]
pub struct Embedding {
    /// `[vocab, dim]`.
    #[param]
    pub weight: Tensor,
}

impl Embedding {
    /// Returns a table initialised from the standard normal distribution (PyTorch's default).
    ///
    /// # Shapes
    /// - weight: `[vocab, dim]`, on `opts.device`.
    ///
    /// # Errors
    /// As [`Tensor::randn`].
    #[track_caller]
    pub fn new(vocab: usize, dim: usize, opts: impl Into<TensorOptions>) -> Result<Embedding> {
        Ok(Embedding {
            weight: Tensor::randn([vocab, dim], opts)?,
        })
    }

    /// Looks up `ids`.
    ///
    /// # Shapes
    /// - ids: `[...]` (i64 in `0..vocab`)
    /// - output: `[..., dim]`, on the table's device.
    ///
    /// # Errors
    /// As [`Tensor::embedding`].
    #[track_caller]
    pub fn forward(&self, ids: &Tensor) -> Result<Tensor> {
        self.weight.embedding(ids)
    }
}

/// Layer normalisation over the last dim with a learned scale and shift, as
/// `torch.nn.LayerNorm(dim)`.
#[module]
#[derive(Clone, Debug)]
pub struct LayerNorm {
    /// `[dim]`, initialised to ones.
    #[param]
    pub weight: Tensor,
    /// `[dim]`, initialised to zeros.
    #[param]
    pub bias: Tensor,
    /// Added to the variance (1e-5 by default in PyTorch).
    pub eps: f64,
}

impl LayerNorm {
    /// Returns a layer with weight 1 and bias 0.
    ///
    /// # Shapes
    /// - weight, bias: `[dim]`, on `opts.device`.
    ///
    /// # Errors
    /// As [`Tensor::ones`].
    #[track_caller]
    pub fn new(dim: usize, eps: f64, opts: impl Into<TensorOptions>) -> Result<LayerNorm> {
        let opts = opts.into();
        Ok(LayerNorm {
            weight: Tensor::ones([dim], opts)?,
            bias: Tensor::zeros([dim], opts)?,
            eps,
        })
    }

    /// Normalises `x` over its last dim.
    ///
    /// # Shapes
    /// - x: `[..., dim]`; output: `[..., dim]`, on the device of `x`.
    ///
    /// # Errors
    /// As [`Tensor::layer_norm`].
    #[track_caller]
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        x.layer_norm(Some(&self.weight), Some(&self.bias), self.eps)
    }
}
