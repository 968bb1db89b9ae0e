use crate::checker::Checker;
use crate::ir::{Device, EventKind, Function, ValueKind};
use crate::rule::{declare_rule, Violation};

declare_rule! {
    /// ## What it does
    /// Checks for library code that decides the device for its caller: a parameter whose default
    /// is an accelerator (`device="cuda"`, `device=torch.device("cuda:0")`), or, in Rust, a tensor
    /// built on `Default::default()` (the backend's default device) in a function that is given a
    /// tensor or a device it could follow instead, or in a helper given neither that a function
    /// given a device calls (`new(params, device)` calling `to_model(params)`).
    ///
    /// ## Why is this bad?
    /// The caller's machine decides which devices exist. A default of `"cuda"` fails on a machine
    /// without one (and on a second GPU it silently uses the first); a backend-default tensor in a
    /// function handed `device` or `x` ignores both and lands wherever the backend starts, which
    /// is not where the caller's tensors are once they use a second device.
    ///
    /// Scripts, examples, binaries and tests choose devices for themselves and are not checked.
    /// A default of `"cpu"` is not reported: it is the default of every `torch` factory. Nor is a
    /// Python default that every call of the function in the tree passes (outside tests; there
    /// is at least one call): a step whose caller resolved the device once and threads it
    /// through is not where the choice is made. Nor is the default of a CUDA-only function, one
    /// that on every call hands the parameter to a CUDA-only API (`.cuda(device)`,
    /// `torch.cuda.memory_allocated(device)`) or raises unless it is a CUDA device (`if
    /// device.type != "cuda": raise ..`, `assert device.type == "cuda"`): the default picks
    /// which GPU, not the accelerator. Nor is a default the body tests for and replaces
    /// (`device = prior_device if device == "cuda" else device`): a sentinel for "not given";
    /// nor one tested beside `torch.cuda.is_available()` (`if device == "cuda" and not
    /// torch.cuda.is_available(): self.device = "cpu"`), which falls back to the host.
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
    /// `tensor-on-default-device` (P101) instead, once. Helpers are followed one call deep, by
    /// name (see P101).
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
        /// Rust: the function given `param` that calls the helper `function`, which is given
        /// neither a tensor nor a device.
        caller: Option<String>,
    }
}

impl Violation for HardCodedDeviceDefault {
    fn message(&self) -> String {
        if self.python {
            format!(
                "parameter `{}` of `{}()` defaults to `{}`: the library chooses an accelerator for its caller",
                self.param, self.function, self.written
            )
        } else if let Some(caller) = &self.caller {
            format!(
                "`{}()` builds a tensor on the backend's default device (`{}`) although its caller `{caller}()` is given `{}`",
                self.function, self.written, self.param
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
        } else if let Some(caller) = &self.caller {
            Some(format!(
                "pass `{}` from `{caller}()` to `{}()` and build it there",
                self.param, self.function
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
    for (index, func) in checker.functions() {
        if func.meta.is_test {
            continue;
        }
        if python {
            let here = (checker.file.id, u32::try_from(index).unwrap_or(u32::MAX));
            for (k, param) in func.params.iter().enumerate() {
                let Some(default) = &param.default else {
                    continue;
                };
                if default.kind != ValueKind::Device || !matches!(default.device, Device::Cuda(_)) {
                    continue;
                }
                // A fallback chosen at run time (`"cuda" if torch.cuda.is_available() else
                // "cpu"`) picks an accelerator only where there is one.
                if checker.text(&default.span).contains("is_available()") {
                    continue;
                }
                // A sentinel the body replaces (`device = model_device if device == "cuda" else
                // device`): the default chooses nothing.
                let rebound = param.binding.is_some_and(|b| {
                    let b = &func.bindings[b as usize];
                    !b.assigned_in.is_empty()
                        || func
                            .bindings
                            .iter()
                            .filter(|other| other.name == param.name)
                            .count()
                            > 1
                });
                // (Or one tested beside `torch.cuda.is_available()`: the body falls back to the
                // host where there is no accelerator.)
                if param.sentinel_default && (rebound || param.falls_back) {
                    continue;
                }
                // A CUDA-only function (`.cuda(device)`, a `raise` for other devices): the
                // default chooses no accelerator, only which GPU.
                if cuda_only(checker.program, here, k, 3) {
                    continue;
                }
                // Every call in the tree passes the device (resolved once at an entry point,
                // then threaded through): the default decides nothing for the tree's code.
                if u16::try_from(k).is_ok_and(|k| checker.program.is_default_overridden(here, k)) {
                    continue;
                }
                let violation = HardCodedDeviceDefault {
                    param: param.name.clone(),
                    function: func.meta.name.clone(),
                    written: checker.text(&default.span),
                    python,
                    param_is_device: false,
                    caller: None,
                };
                checker.report(&violation, default.span.clone());
            }
            continue;
        }
        // Rust: the helpers it calls decide the device it is given for it.
        if let Some(device) = func.params.iter().find(|p| p.kind == ValueKind::Device) {
            check_helpers(checker, func, &device.name);
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
                caller: None,
            };
            checker.report(&violation, span);
        }
    }
}

/// The helpers of the tree a function given `device` calls that are given neither a tensor nor a
/// device and build on the backend's default device: reported at the device, or at the call when
/// the helper is in another file.
fn check_helpers(checker: &mut Checker<'_>, func: &Function, device: &str) {
    let program = checker.program;
    for event in &func.events {
        let EventKind::Call { target, .. } = &event.kind else {
            continue;
        };
        for callee in program.resolve_call(target, checker.file.id) {
            let helper = program.function(callee);
            let file = program.file(callee.0);
            // A helper given a tensor or a device is judged on its own; tests and binaries
            // choose their device.
            if helper.meta.is_test
                || file.is_binary
                || helper
                    .params
                    .iter()
                    .any(|p| matches!(p.kind, ValueKind::Tensor | ValueKind::Device))
            {
                continue;
            }
            for created in &helper.events {
                let EventKind::Create { value, .. } = &created.kind else {
                    continue;
                };
                let Some(origin) = value.origin.as_ref() else {
                    continue;
                };
                if value.device != Device::BackendDefault {
                    continue;
                }
                let at = origin.device_span.clone().unwrap_or(origin.span.clone());
                let written = crate::ir::snippet(&file.source, &at);
                let span = if callee.0 == checker.file.id {
                    at
                } else {
                    event.span.clone()
                };
                if checker.diagnostics.iter().any(|d| d.span == span) {
                    continue;
                }
                let violation = HardCodedDeviceDefault {
                    param: device.to_string(),
                    function: helper.meta.name.clone(),
                    written,
                    python: false,
                    param_is_device: true,
                    caller: Some(func.meta.name.clone()),
                };
                let place = checker.describe_origin(origin);
                let diagnostic = checker.report(&violation, span);
                match place {
                    None => diagnostic.label(
                        event.span.clone(),
                        format!(
                            "called from `{}()` here, without `{device}`",
                            func.meta.name
                        ),
                    ),
                    Some(place) => diagnostic.label(
                        event.span.clone(),
                        format!("builds on the backend's default device at {place}"),
                    ),
                };
            }
        }
    }
}

/// Whether parameter `k` of Python function `r` is CUDA-only (see
/// [`crate::ir::Param::cuda_only`]), itself or because the function passes it on to a CUDA-only
/// parameter of a function of the tree (`balance_by_size(.., device)` calling
/// `profile_sizes(.., device)`, which raises for other devices), up to `depth` calls deep.
fn cuda_only(
    program: &crate::checker::Program<'_>,
    r: crate::checker::FnRef,
    k: usize,
    depth: u8,
) -> bool {
    let func = program.function(r);
    let Some(param) = func.params.get(k) else {
        return false;
    };
    if param.cuda_only {
        return true;
    }
    let Some(binding) = param.binding.filter(|_| depth > 0) else {
        return false;
    };
    func.events.iter().any(|event| {
        let EventKind::Call { target, args } = &event.kind else {
            return false;
        };
        program.resolve_call(target, r.0).iter().any(|&callee| {
            let g = program.function(callee);
            (0..g.params.len()).any(|j| {
                u16::try_from(j).is_ok_and(|j16| {
                    crate::engine::meets::arg_for(args, g, j16).is_some_and(|a| {
                        // The parameter itself, or a device made of it (`torch.device(d)`).
                        a.value.var == Some(binding)
                            || a.value.kind == ValueKind::Device
                                && a.value.reads.as_slice() == [binding]
                    })
                }) && cuda_only(program, callee, j, depth - 1)
            })
        })
    })
}
