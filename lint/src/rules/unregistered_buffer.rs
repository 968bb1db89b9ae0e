use std::collections::HashSet;

use crate::checker::Checker;
use crate::engine::meets::arg_for;
use crate::ir::{CallTarget, Device, EventKind, Function, Span};
use crate::rule::{declare_rule, Violation};

declare_rule! {
    /// ## What it does
    /// Checks for tensors that an `nn.Module`'s `__init__` stores as plain attributes
    /// (`self.mask = torch.ones(..)`, or a tensor argument) without `register_buffer` or
    /// `nn.Parameter`, and that a forward path of the same class then reads (not only to add a
    /// number to it in place, `self.step += 1`, which meets nothing). `nn.Buffer(..)` registers,
    /// and so does a helper given the module and the attribute's own name (`self.mask =
    /// make_buffer(self, "mask", t)`, a wrapper of either).
    ///
    /// ## Why is this bad?
    /// `model.to(device)` moves parameters and registered buffers only. The plain attribute stays
    /// on the CPU, and the first forward call on the GPU fails with "Expected all tensors to be on
    /// the same device". It also is not saved in the `state_dict`.
    ///
    /// ## Example
    /// ```python
    /// import torch
    /// from torch import nn
    ///
    /// class CausalMask(nn.Module):
    ///     def __init__(self, max_length):
    ///         super().__init__()
    ///         self.mask = torch.triu(torch.ones(max_length, max_length, dtype=torch.bool), diagonal=1)
    ///
    ///     def forward(self, x):
    ///         t = x.shape[1]
    ///         return self.mask[:t, :t]
    /// ```
    ///
    /// Use instead:
    /// ```python
    /// import torch
    /// from torch import nn
    ///
    /// class CausalMask(nn.Module):
    ///     def __init__(self, max_length):
    ///         super().__init__()
    ///         mask = torch.triu(torch.ones(max_length, max_length, dtype=torch.bool), diagonal=1)
    ///         self.register_buffer("mask", mask)
    ///
    ///     def forward(self, x):
    ///         t = x.shape[1]
    ///         return self.mask[:t, :t]
    /// ```
    ///
    /// ## Known problems
    /// A tensor the caller passes to `__init__` and the module keeps as it is
    /// (`self.target = target`) is not reported: the caller placed it, and modules built around
    /// such tensors (wrappers, acquisition functions) are rarely moved with `.to()`.
    ///
    /// A forward path that moves the attribute itself every time it reads it
    /// (`self.mask.to(x.device)`) is not reported; it pays a copy per call instead. Nor is an
    /// attribute another method sets to a new value (a placeholder replaced later); an
    /// augmented assignment (`self.total += t`) updates the tensor in place and does not count.
    ///
    /// A module built where it runs is not reported for state on that device: one that builds
    /// its parameters on the device its constructor is given (`nn.Parameter(torch.zeros(n,
    /// device=self.device))`), or whose methods bring their inputs to a device it keeps
    /// (`x.to(self.device)`, not a `device` property). Moving such a module with `.to()` would
    /// leave those tensors behind, but the module is not written to be moved. Reads of the
    /// attribute's shape, size, dtype or `len()` meet nothing, and neither does one element of a
    /// 1-D schedule (`self.temps[self.epoch]` of a `torch.linspace(..)`): a 0-dim tensor, which
    /// `PyTorch` lets meet tensors on any device. Nor is a module that holds nothing `.to()`
    /// would move (no sub-module, parameter or buffer) and whose construction takes no device:
    /// it is built around its data, on that data's device, and not moved.
    ///
    /// `nn.Parameter(t).to(self.device)` counts as a registered parameter: on the host `.to`
    /// returns the parameter itself; elsewhere the copy is already on the device the module
    /// computes on (it is then no leaf, which the optimiser does not see: a different bug).
    ///
    /// ## References
    /// - `../shared/RULES.md`, P401
    /// - `../shared/reference/pytorch-devices-chapter.txt`, "Registered Buffers and Device Movement"
    pub(crate) struct UnregisteredBuffer {
        attr: String,
        class: String,
    }
}

impl Violation for UnregisteredBuffer {
    fn message(&self) -> String {
        format!(
            "tensor attribute `self.{}` of module `{}` is not registered: `.to(device)` will not move it",
            self.attr, self.class
        )
    }

    fn help(&self) -> Option<String> {
        Some(format!(
            "register it with `self.register_buffer(\"{}\", ..)` (or wrap it in `nn.Parameter`)",
            self.attr
        ))
    }
}

pub(crate) fn check(checker: &mut Checker<'_>) {
    let file = checker.file;
    let mut reported = HashSet::new();
    for (_, init) in checker.functions() {
        // `__init__` of a module class, and the methods of the class it calls (`self.
        // _set_cos_sin_cache(..)`, transitively): construction code...
        let Some(class) = init.meta.self_type.as_deref() else {
            continue;
        };
        if init.meta.name != "__init__" || !checker.program.is_module_class(class) {
            continue;
        }
        let methods: Vec<usize> = (0..file.functions.len())
            .filter(|&i| file.functions[i].meta.self_type.as_deref() == Some(class))
            .collect();
        let construction = construction_methods(file, &methods, class);
        // See [`built_in_place`]: asked only for a tensor placed on a device not hard-coded.
        let in_place = std::cell::OnceCell::new();
        let events = construction
            .iter()
            .flat_map(|&i| file.functions[i].events.iter().map(move |e| (i, e)));
        for (at, event) in events {
            // ...stores a tensor as a plain attribute...
            let EventKind::SetAttr {
                attr,
                value,
                registered: false,
            } = &event.kind
            else {
                continue;
            };
            // Built here: on a hard-coded device, or on the model's cached one. A tensor the
            // caller passed in (`self.target = target`) was placed by the caller; wrapper modules
            // built around such tensors are not moved with `.to()`.
            // A helper's result (`self.mapping = remap(n)`) is where the helper builds it.
            let from_call = matches!(value.device, Device::Call(_));
            let (device, origin) = if from_call {
                checker.resolve(value)
            } else {
                (value.device.clone(), value.origin.clone())
            };
            // A helper of the tree known to return a tensor built on a hard-coded device
            // (`self.prior = self._init_prior()`) gives a tensor, whatever its call's kind says.
            let tensor = value.is_tensorish() || from_call && device.is_hard_coded();
            let placed = device == Device::Cached
                || device == Device::Input && origin.as_ref().is_some_and(|o| !o.is_transfer)
                || device.is_hard_coded() && origin.is_some();
            // A call placer cannot follow (`self.rope_init_fn(config, device)`) given the
            // constructor's device builds its result there, if the class uses it as a tensor.
            let built_by_device_call = device == Device::Unknown
                && given_a_device(&file.functions[at], value)
                && methods
                    .iter()
                    .any(|&i| used_as_tensor(&file.functions[i], &file.source, attr));
            if !tensor || !(placed || built_by_device_call) {
                continue;
            }
            if !device.is_hard_coded()
                && (stateless(checker, class, &construction)
                    || *in_place
                        .get_or_init(|| built_in_place(checker, class, &methods, &construction)))
            {
                continue;
            }
            // An instance of the tree's own `nn.Parameter` subclass (`self.points =
            // geoopt.ManifoldParameter(..)`) is registered by the assignment.
            if parameter_subclass_call(checker, &value.span) {
                continue;
            }
            // ...that construction does not register (another branch) and no method sets to
            // something that is not a tensor (a registration in a later method, such as a
            // resize, does not cover the plain attribute until it runs; `register_buffer` then
            // even refuses the existing name)...
            // An optional tensor (`self.weight = None`, then `if w is not None: self.weight =
            // torch.Tensor(w)`) is set to `None` during construction only as its default.
            let registered = methods.iter().any(|&i| {
                file.functions[i].events.iter().any(|e| {
                    let EventKind::SetAttr {
                        attr: a,
                        registered,
                        value,
                    } = &e.kind
                    else {
                        return false;
                    };
                    let constructing = construction.contains(&i);
                    // A tensor, another attribute, an optional tensor's `None` default, or a
                    // helper's host tensor.
                    let maybe_tensor = value.is_tensorish()
                        || reads_own_attr(&file.source, value)
                        || constructing && is_none(&file.source, value)
                        || matches!(value.device, Device::Call(_))
                            && checker.resolve(value).0.is_hard_coded();
                    let non_tensor = !maybe_tensor;
                    a == attr && (*registered && constructing || non_tensor)
                })
            });
            // ...or that another method manages itself (a placeholder replaced in `forward`)...
            let replaced = methods.iter().any(|&i| {
                let f = &file.functions[i];
                !construction.contains(&i)
                    && f.events.iter().any(|e| {
                        matches!(&e.kind, EventKind::SetAttr { attr: a, registered: false, .. }
                            if a == attr)
                            && !augmented(&file.source, &e.span)
                    })
            });
            if registered || replaced || checker.program.base_registers(class, attr) {
                continue;
            }
            // (A 1-D schedule, `torch.linspace(..)` / `torch.arange(..)`, read only one element
            // at a time, `self.temps[self.epoch]`: a 0-dim host tensor, which mixes with tensors
            // on any device.)
            let one_dim = file.source.get(value.span.clone()).is_some_and(|text| {
                ["torch.linspace(", "torch.arange(", "torch.logspace("]
                    .iter()
                    .any(|f| text.starts_with(f))
            });
            // ...and a forward path reads as it is (not moved on the spot).
            let read_unmoved = methods.iter().any(|&i| {
                let f = &file.functions[i];
                checker.is_forward(i)
                    && f.events.iter().any(|e| {
                        matches!(&e.kind, EventKind::GetAttr { attr: a } if a == attr)
                            && !index_or_store(&file.source, &e.span)
                            && !f.events.iter().any(|t| {
                                matches!(&t.kind, EventKind::Transfer { source, .. }
                                    if source.span.start <= e.span.start
                                        && e.span.end <= source.span.end)
                            })
                            && !passed_to_a_mover(checker, f, &e.span)
                            && !counter_update(&file.source, &e.span)
                            && !metadata_read(&file.source, &e.span)
                            && !(one_dim && element_read(&file.source, &e.span))
                    })
            });
            if !read_unmoved || !reported.insert(attr.clone()) {
                continue;
            }
            checker.report(
                &UnregisteredBuffer {
                    attr: attr.clone(),
                    class: class.to_string(),
                },
                event.span.clone(),
            );
        }
    }
}

/// Whether `value` (computed in `func`) was computed from a device parameter of `func`: the
/// result of a call given the constructor's device (`self.rope_init_fn(self.config, device)`).
fn given_a_device(func: &Function, value: &crate::ir::Value) -> bool {
    func.params.iter().any(|p| {
        p.kind == crate::ir::ValueKind::Device
            && p.binding
                .is_some_and(|b| crate::engine::meets::carries_binding(func, value, b))
    })
}

/// Whether `value` is another attribute of the module (`self.original_inv_freq`): of unknown
/// kind, not known to be a non-tensor such as `None`.
fn reads_own_attr(source: &str, value: &crate::ir::Value) -> bool {
    source
        .get(value.span.clone())
        .is_some_and(|text| text.starts_with("self."))
}

/// Whether the read at `read` meets nothing: it is the index of a subscript (`x[:, self.keep]`;
/// host indices may index a tensor on any device), or the target of a store into it
/// (`self.codes[:n] = codes.cpu()`).
fn index_or_store(source: &str, read: &Span) -> bool {
    let before = source.get(..read.start).unwrap_or("");
    let mut depth = 0u32;
    let mut opener = None;
    for (at, c) in before.char_indices().rev() {
        match c {
            ')' | ']' | '}' => depth += 1,
            '(' | '[' | '{' if depth > 0 => depth -= 1,
            '(' | '[' | '{' => {
                opener = Some((at, c));
                break;
            }
            '\n' if depth == 0 => break,
            _ => {}
        }
    }
    let after = source.get(read.end..).unwrap_or("");
    // (An index that is itself indexed, `means[self.mapping[x.long()]]`, meets that index.)
    if let Some((at, '[')) = opener.filter(|_| !after.starts_with('[')) {
        // A subscript, not a list literal: the bracket follows a name or a closing bracket.
        let subscripted = before[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ')' || c == ']');
        if subscripted {
            return true;
        }
    }
    let Some(rest) = after.strip_prefix('[') else {
        return false;
    };
    let mut depth = 1u32;
    for (at, c) in rest.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => {
                depth -= 1;
                if depth == 0 {
                    let tail = rest[at + 1..].trim_start();
                    return tail.starts_with('=') && !tail.starts_with("==");
                }
            }
            '\n' => return false,
            _ => {}
        }
    }
    false
}

/// Whether the store at `target` is an augmented assignment (`self.total += t`): an in-place
/// update of the tensor the attribute holds, not a new value for it.
fn augmented(source: &str, target: &Span) -> bool {
    let after = source.get(target.end..).unwrap_or("").trim_start();
    // The `=` that ends an operator of one to three characters (`+=`, `//=`, `**=`, `>>=`).
    let equals = after
        .find('=')
        .filter(|&at| at > 0 && at <= 3)
        .filter(|&at| {
            after[..at].chars().all(|c| {
                matches!(
                    c,
                    '+' | '-' | '*' | '/' | '%' | '@' | '&' | '|' | '^' | '<' | '>'
                )
            })
        });
    equals.is_some_and(|at| !after[at + 1..].starts_with('='))
}

/// Whether the read at `target` is a counter's update by a number (`self.my_iter += 1`): the
/// tensor meets nothing there, wherever it is.
fn counter_update(source: &str, target: &Span) -> bool {
    if !augmented(source, target) {
        return false;
    }
    let after = source.get(target.end..).unwrap_or("");
    let line = after.split('\n').next().unwrap_or("");
    let rhs = line.split_once('=').map_or("", |(_, r)| r);
    let rhs = rhs.split('#').next().unwrap_or("").trim();
    !rhs.is_empty()
        && rhs
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '_')
}

/// Whether the module class is built where it runs: it builds its parameters on the device its
/// constructor is given (`nn.Parameter(torch.zeros(n, device=self.device))`), so state on that
/// device is where the parameters are; or its methods bring their inputs to the device it keeps
/// (`synd.to(self.device)`), so moving it would not move where it computes (not a device
/// property that reads the weights' device, which follows the module when it is moved).
fn built_in_place(
    checker: &Checker<'_>,
    class: &str,
    methods: &[usize],
    construction: &[usize],
) -> bool {
    let file = checker.file;
    let parameters_there = construction.iter().any(|&i| {
        file.functions[i].events.iter().any(|e| {
            // (Built or moved there, not a tensor the caller passed in; a parameter, not a
            // buffer: registering buffers says the class expects `.to()` to move it.)
            matches!(&e.kind, EventKind::SetAttr { value, registered: true, .. }
                if matches!(checker.resolve(value), (Device::Cached, _) | (Device::Input, Some(_)))
                    && !file
                        .source
                        .get(e.span.clone())
                        .is_some_and(|t| t.contains("register_buffer")))
        })
    });
    parameters_there
        || !device_property(checker, class)
            && methods.iter().any(|&i| {
                !construction.contains(&i)
                    && file.functions[i].events.iter().any(|e| {
                        matches!(
                            &e.kind,
                            EventKind::Transfer {
                                to: Device::Cached,
                                by_indexing: false,
                                ..
                            }
                        )
                    })
            })
}

/// Whether `class`, a direct `nn.Module` subclass, holds nothing that `.to(device)` moves (no
/// sub-module, parameter or buffer) and whose construction code (`construction`) takes no device:
/// a module built around its data, where that data is (tmol's per-pose
/// `PoseStackKinematicsModule`, built on its pose stack's device and thrown away, unseen set 20).
/// (A layer given a `device` argument, such as a positional embedding, is one its users place and
/// move.)
fn stateless(checker: &Checker<'_>, class: &str, construction: &[usize]) -> bool {
    let takes_device = construction.iter().any(|&i| {
        checker.file.functions[i]
            .params
            .iter()
            .any(|p| p.kind == crate::ir::ValueKind::Device)
    });
    if takes_device {
        return false;
    }
    checker
        .file
        .classes
        .iter()
        .any(|c| c.name == class && !c.stateful && c.bases.iter().all(|b| b.ends_with("Module")))
}

/// Whether `class` (or a base class of the tree) defines a `device` method: a property that
/// follows where the module's weights are.
fn device_property(checker: &Checker<'_>, class: &str) -> bool {
    let target = CallTarget::Method {
        self_type: class.to_string(),
        name: "device".to_string(),
    };
    !checker
        .program
        .resolve_call(&target, checker.file.id)
        .is_empty()
}

/// Whether the read at `read` asks only for the tensor's metadata (`self.cols.shape[0]`,
/// `self.mask.size(1)`, `.dtype`, `.ndim`), which lives on the host, or whether it is there at all
/// (`self.mask is not None`).
fn metadata_read(source: &str, read: &Span) -> bool {
    let after = source.get(read.end..).unwrap_or("");
    // An identity test (`if self.mask is not None:`) reads no data.
    let none_test = ["is None", "is not None"].iter().any(|t| {
        after
            .trim_start_matches(' ')
            .strip_prefix(t)
            .is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
    });
    // `len(self.temps)`: the first dimension's size.
    let length = after.starts_with(')')
        && source
            .get(..read.start)
            .is_some_and(|before| before.ends_with("len("));
    if none_test || length {
        return true;
    }
    // (Not `.device`: what is built there, `torch.zeros(n, device=self.ids.device)`, stays
    // behind with the attribute.)
    ["shape", "size(", "dtype", "ndim", "dim()", "numel()"]
        .iter()
        .any(|m| {
            after.strip_prefix('.').is_some_and(|a| {
                a.strip_prefix(m).is_some_and(|rest| {
                    m.ends_with(['(', ')'])
                        || !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            })
        })
}

/// Whether the read at `read` is subscripted with one plain integer index (`self.temps[self.epoch]`,
/// `self.temps[i]`, `self.temps[3]`): no slice, no second axis, no `None`, no tensor index
/// method. Of a 1-D tensor that is one element, a 0-dim tensor.
fn element_read(source: &str, read: &Span) -> bool {
    let Some(rest) = source.get(read.end..).and_then(|r| r.strip_prefix('[')) else {
        return false;
    };
    let Some(close) = rest.find(']') else {
        return false;
    };
    let index = rest[..close].trim();
    !index.is_empty()
        && index
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        && index != "None"
        && !rest[close + 1..].starts_with('[')
}

/// Whether `value` is the literal `None`.
fn is_none(source: &str, value: &crate::ir::Value) -> bool {
    source.get(value.span.clone()) == Some("None")
}

/// Whether `func` reads `self.<attr>` as a tensor: a tensor method called on it, directly or on
/// an index of it (`self.inv_freq[None, :, None].float()`), judged on the source text after the
/// read.
fn used_as_tensor(func: &Function, source: &str, attr: &str) -> bool {
    const TENSOR_METHODS: &[&str] = &[
        "float",
        "half",
        "double",
        "bfloat16",
        "to",
        "expand",
        "expand_as",
        "unsqueeze",
        "squeeze",
        "view",
        "reshape",
        "permute",
        "transpose",
        "type_as",
        "contiguous",
        "cos",
        "sin",
        "exp",
        "matmul",
        "repeat",
        "flip",
        "cumsum",
        "masked_fill",
        "index_select",
    ];
    func.events.iter().any(|e| {
        if !matches!(&e.kind, EventKind::GetAttr { attr: a } if a == attr) {
            return false;
        }
        let mut rest = source.get(e.span.end..).unwrap_or("");
        // Skip one subscript: `[None, :, None]`.
        if rest.starts_with('[') {
            let Some(close) = rest.find(']') else {
                return false;
            };
            rest = &rest[close + 1..];
        }
        let Some(after_dot) = rest.strip_prefix('.') else {
            return false;
        };
        let name: String = after_dot
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        TENSOR_METHODS.contains(&name.as_str()) && after_dot[name.len()..].starts_with('(')
    })
}

/// Whether the read at `read` is an argument of a call of a function of the tree that moves that
/// parameter itself (`add_loops(attr, self.fill)` where `add_loops` does `fill.to(attr.device)`).
fn passed_to_a_mover(checker: &Checker<'_>, func: &Function, read: &Span) -> bool {
    let program = checker.program;
    func.events.iter().any(|e| {
        let EventKind::Call { target, args } = &e.kind else {
            return false;
        };
        program
            .resolve_call(target, checker.file.id)
            .into_iter()
            .any(|callee| {
                let callee_fn = program.function(callee);
                (0..callee_fn.params.len()).any(|i| {
                    let Some(arg) = u16::try_from(i)
                        .ok()
                        .and_then(|i| arg_for(args, callee_fn, i))
                    else {
                        return false;
                    };
                    if !(arg.value.span.start <= read.start && read.end <= arg.value.span.end) {
                        return false;
                    }
                    let Some(binding) = callee_fn.params[i].binding else {
                        return false;
                    };
                    callee_fn.events.iter().any(|t| {
                        matches!(&t.kind, EventKind::Transfer { source, .. }
                            if source.var == Some(binding) || source.reads.contains(&binding))
                    })
                })
            })
    })
}

/// The methods (indices into the file's functions) that construct an instance of `class`:
/// `__init__` and the methods of the class it calls through `self`, transitively.
pub(crate) fn construction_methods(
    file: &crate::ir::File,
    methods: &[usize],
    class: &str,
) -> Vec<usize> {
    let mut out: Vec<usize> = methods
        .iter()
        .copied()
        .filter(|&i| file.functions[i].meta.name == "__init__")
        .collect();
    let mut next = 0;
    while next < out.len() {
        let f = &file.functions[out[next]];
        next += 1;
        for event in &f.events {
            let EventKind::Call {
                target: CallTarget::Method { self_type, name },
                ..
            } = &event.kind
            else {
                continue;
            };
            if self_type != class {
                continue;
            }
            for &i in methods {
                let callee = &file.functions[i];
                if callee.meta.name == *name && !out.contains(&i) && callee.meta.name != "forward" {
                    out.push(i);
                }
            }
        }
    }
    out
}

/// Whether the expression at `span` calls a class of the tree that subclasses `nn.Parameter`
/// (`mypkg.ManifoldParameter(torch.empty(n, d), manifold=ball)`).
fn parameter_subclass_call(checker: &Checker<'_>, span: &Span) -> bool {
    let text = checker.file.source.get(span.clone()).unwrap_or("");
    crate::utils::called_name(text).is_some_and(|name| {
        !name.is_empty()
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            && checker.program.is_parameter_class(name)
    })
}
