use crate::checker::Checker;
use crate::ir::{Device, EventKind, ValueKind};
use crate::rule::{declare_rule, Violation};

declare_rule! {
    /// ## What it does
    /// Checks for library code that decides the device for its caller: a parameter whose default
    /// is an accelerator (`device="cuda"`, `device=torch.device("cuda:0")`), or, in Rust, a tensor
    /// built on `Default::default()` (the backend's default device) in a function that is given a
    /// tensor or a device it could follow instead.
    ///
    /// ## Why is this bad?
    /// The caller's machine decides which devices exist. A default of `"cuda"` fails on a machine
    /// without one (and on a second GPU it silently uses the first); a backend-default tensor in a
    /// function handed `device` or `x` ignores both and lands wherever the backend starts, which
    /// is not where the caller's tensors are once they use a second device.
    ///
    /// Scripts, examples, binaries and tests choose devices for themselves and are not checked.
    /// A default of `"cpu"` is not reported: it is the default of every `torch` factory.
    ///
    /// ## Example
    /// ```python
    /// import torch
    ///
    /// def sinusoidal_table(n, dim, device="cuda"):
    ///     pos = torch.arange(n, device=device)
    ///     return pos[:, None] * torch.ones(dim, device=device)
    /// ```
    ///
    /// ```rust,ignore
    /// use burn::tensor::{backend::Backend, Tensor};
    ///
    /// pub fn causal_mask<B: Backend>(x: &Tensor<B, 3>, n: usize) -> Tensor<B, 2> {
    ///     Tensor::ones([n, n], &Default::default()).triu(1)
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```python
    /// import torch
    ///
    /// def sinusoidal_table(n, dim, device=None):
    ///     pos = torch.arange(n, device=device)
    ///     return pos[:, None] * torch.ones(dim, device=device)
    /// ```
    ///
    /// ```rust,ignore
    /// use burn::tensor::{backend::Backend, Tensor};
    ///
    /// pub fn causal_mask<B: Backend>(x: &Tensor<B, 3>, n: usize) -> Tensor<B, 2> {
    ///     Tensor::ones([n, n], &x.device()).triu(1)
    /// }
    /// ```
    ///
    /// ## Known problems
    /// A backend-default tensor that meets the caller's data in the same function is reported by
    /// `tensor-on-default-device` (P101) instead, once.
    ///
    /// ## References
    /// - `../shared/RULES.md`, P107
    pub(crate) struct HardCodedDeviceDefault {
        /// The parameter (Python) or the parameter that could give the device (Rust).
        param: String,
        function: String,
        written: String,
        python: bool,
        /// Rust: the parameter is a device (else a tensor).
        param_is_device: bool,
    }
}

impl Violation for HardCodedDeviceDefault {
    fn message(&self) -> String {
        if self.python {
            format!(
                "parameter `{}` of `{}()` defaults to `{}`: the library chooses an accelerator for its caller",
                self.param, self.function, self.written
            )
        } else {
            format!(
                "`{}()` builds a tensor on the backend's default device (`{}`) although it is given `{}`",
                self.function, self.written, self.param
            )
        }
    }

    fn help(&self) -> Option<String> {
        if self.python {
            Some(format!(
                "default `{}` to `None` and follow the inputs (`x.device`) or the model's parameters",
                self.param
            ))
        } else if self.param_is_device {
            Some(format!("build it on `{}`", self.param))
        } else {
            Some(format!("build it on `{}.device()`", self.param))
        }
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    if checker.file.is_binary {
        return;
    }
    let python = checker.is_python();
    for (_, func) in checker.functions() {
        if func.meta.is_test {
            continue;
        }
        if python {
            for param in &func.params {
                let Some(default) = &param.default else {
                    continue;
                };
                if default.kind != ValueKind::Device || !matches!(default.device, Device::Cuda(_)) {
                    continue;
                }
                let violation = HardCodedDeviceDefault {
                    param: param.name.clone(),
                    function: func.meta.name.clone(),
                    written: checker.text(&default.span),
                    python,
                    param_is_device: false,
                };
                checker.report(&violation, default.span.clone());
            }
            continue;
        }
        // Rust: the first tensor or device parameter the function could take the device from.
        let Some(param) = func
            .params
            .iter()
            .find(|p| matches!(p.kind, ValueKind::Tensor | ValueKind::Device))
        else {
            continue;
        };
        for event in &func.events {
            let EventKind::Create { value, .. } = &event.kind else {
                continue;
            };
            if value.device != Device::BackendDefault {
                continue;
            }
            let Some(origin) = &value.origin else {
                continue;
            };
            let span = origin.device_span.clone().unwrap_or(origin.span.clone());
            // Reported once: P101 already says where it meets the caller's data.
            if checker.diagnostics.iter().any(|d| d.span == span) {
                continue;
            }
            let violation = HardCodedDeviceDefault {
                param: param.name.clone(),
                function: func.meta.name.clone(),
                written: checker.text(&span),
                python,
                param_is_device: param.kind == ValueKind::Device,
            };
            checker.report(&violation, span);
        }
    }
}
