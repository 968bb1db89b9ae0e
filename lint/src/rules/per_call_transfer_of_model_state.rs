use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::checker::Checker;
use crate::ir::{Device, EventKind, FieldRef, Function, Value, ValueKind};
use crate::rule::{declare_rule, Violation};
use crate::rules::unregistered_buffer::construction_methods;
use crate::utils::written;

declare_rule! {
    /// ## What it does
    /// Checks for model or object state built on the host when the object is constructed and
    /// copied to a device on a hot path: a forward path, or a function a loop calls every
    /// iteration (a training or scheduler step). `self.table.to(x.device)` in `forward` when
    /// `self.table` is a plain attribute built in `__init__`; `self.cos.to_device(x.device())?`
    /// when `new` built the field on `Device::Cpu`.
    ///
    /// ## Why is this bad?
    /// The state never changes after construction, yet every call copies it from host memory to
    /// the device again: one host-to-device copy (and, for pageable memory, one synchronisation)
    /// per call. A registered buffer moves once with `model.to(device)`; after that, `.to()` on it
    /// is free.
    ///
    /// Not reported: registered buffers and parameters (`.to()` is then a no-op), state the code
    /// replaces with its moved copy (`self.x = self.x.to(device)`), state built on a device
    /// that is not written in the code.
    ///
    /// ## Example
    /// ```python
    /// import torch
    /// from torch import nn
    ///
    /// class Rotary(nn.Module):
    ///     def __init__(self, dim):
    ///         super().__init__()
    ///         self.inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
    ///
    ///     def forward(self, x):
    ///         inv_freq = self.inv_freq.to(x.device)
    ///         return x * inv_freq
    /// ```
    ///
    /// Use instead:
    /// ```python
    /// import torch
    /// from torch import nn
    ///
    /// class Rotary(nn.Module):
    ///     def __init__(self, dim):
    ///         super().__init__()
    ///         inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
    ///         self.register_buffer("inv_freq", inv_freq, persistent=False)
    ///
    ///     def forward(self, x):
    ///         return x * self.inv_freq
    /// ```
    ///
    /// ## Known problems
    /// `PyTorch` state is followed through `self.name` in the methods of its own class in one
    /// file; a subclass that registers the attribute in another file is not seen.
    ///
    /// ## References
    /// - `../shared/RULES.md`, P208
    pub(crate) struct PerCallTransferOfModelState {
        attr: String,
        function: String,
        constructor: String,
        device: String,
        help: &'static str,
    }
}

impl Violation for PerCallTransferOfModelState {
    fn message(&self) -> String {
        format!(
            "`self.{}` is built on `{}` in `{}()` and copied to the device on every call of `{}()`",
            self.attr, self.device, self.constructor, self.function
        )
    }

    fn help(&self) -> Option<String> {
        Some(self.help.replace("{attr}", &self.attr))
    }
}

const MODULE_HELP: &str =
    "register it with `self.register_buffer(\"{attr}\", .., persistent=False)` \
                           so `model.to(device)` moves it once, and read it without `.to()`";
const OBJECT_HELP: &str =
    "keep the moved copy (`self.{attr} = self.{attr}.to(device)`), or build it on the device it is used on";
const RUST_HELP: &str =
    "build it on the weights' device when the model is constructed (`vb.device()`, the device parameter)";

pub(crate) fn check(checker: &mut Checker<'_>) {
    let python = checker.is_python();
    let mut seen = HashSet::new();
    // (class, attribute) → whether it is fixed state: judged once per pair.
    let mut fixed: HashMap<(String, String), bool> = HashMap::new();
    for (index, func) in checker.functions() {
        if !checker.program.is_hot(checker.file.id, index) {
            continue;
        }
        let Some(class) = func.meta.self_type.as_deref() else {
            continue;
        };
        for event in &func.events {
            let EventKind::Transfer { source, to, .. } = &event.kind else {
                continue;
            };
            if matches!(to, Device::Cpu | Device::Meta) {
                continue;
            }
            let Some((attr, state)) = state_read(checker, func, class, source, python, &mut fixed)
            else {
                continue;
            };
            let (device, origin) = checker.resolve(&state);
            let Some(origin) = origin else { continue };
            if device != Device::Cpu || origin.is_transfer {
                continue;
            }
            if !seen.insert(event.span.clone()) {
                continue;
            }
            let help = if !python {
                RUST_HELP
            } else if checker.program.is_module_class(class) {
                MODULE_HELP
            } else {
                OBJECT_HELP
            };
            let violation = PerCallTransferOfModelState {
                attr: attr.clone(),
                function: func.meta.name.clone(),
                constructor: origin.function.clone(),
                device: written(&origin).to_string(),
                help,
            };
            let elsewhere = checker.describe_origin(&origin);
            let local = origin.file == checker.file.id;
            let diagnostic = checker.report(&violation, event.span.clone());
            if local {
                diagnostic.label(origin.span.clone(), format!("`self.{attr}` is built here"));
            } else if let Some(place) = elsewhere {
                diagnostic.label(
                    source.span.clone(),
                    format!("`self.{attr}` is built at {place}"),
                );
            }
        }
    }
}

/// The state a transfer's source reads, if it is the receiver's own field or attribute (sliced or
/// not: `self.pe[:, :t].to(x.device)` copies per call too), as a value whose device is that field's.
fn state_read(
    checker: &Checker<'_>,
    func: &Function,
    class: &str,
    source: &Value,
    python: bool,
    fixed: &mut HashMap<(String, String), bool>,
) -> Option<(String, Value)> {
    if !python {
        let Device::Field(field) = &source.device else {
            return None;
        };
        return Some((field.name.clone(), source.clone()));
    }
    // `self.name` is the source expression, or sliced by it (`self.pe[:, :t]`); a method's
    // result (`self.text_model.mask(..)`) is not the state itself.
    let attr = func.events.iter().find_map(|e| match &e.kind {
        EventKind::GetAttr { attr }
            if e.span.start == source.span.start
                && (e.span.end == source.span.end
                    || checker
                        .file
                        .source
                        .get(e.span.end..source.span.end)
                        .is_some_and(|rest| rest.starts_with('['))) =>
        {
            Some(attr.clone())
        }
        _ => None,
    })?;
    let is_fixed = *fixed
        .entry((class.to_string(), attr.clone()))
        .or_insert_with(|| python_state_is_fixed(checker, class, &attr));
    if !is_fixed {
        return None;
    }
    let mut state = Value::unknown(source.span.clone());
    state.device = Device::Field(Arc::new(FieldRef {
        self_type: class.to_string(),
        name: attr.clone(),
    }));
    Some((attr, state))
}

/// Whether the class's methods in this file store `attr` as a plain attribute while constructing,
/// do not register it then (a buffer or a parameter moves with the model) and never replace it
/// later (a registration in a later method, such as a resize, does not cover it until it runs).
fn python_state_is_fixed(checker: &Checker<'_>, class: &str, attr: &str) -> bool {
    let file = checker.file;
    let methods: Vec<usize> = (0..file.functions.len())
        .filter(|&i| file.functions[i].meta.self_type.as_deref() == Some(class))
        .collect();
    let construction = construction_methods(file, &methods, class);
    let mut stored = false;
    for &i in &methods {
        for event in &file.functions[i].events {
            let EventKind::SetAttr {
                attr: a,
                registered,
                value,
            } = &event.kind
            else {
                continue;
            };
            if a != attr {
                continue;
            }
            if construction.contains(&i) {
                // (A sub-module, `Spline(1)` of a module class of another file: its `.to()`
                // moves its parameters in place, once.)
                if *registered || constructs_module(checker, value) {
                    return false;
                }
                stored = true;
            } else if !*registered {
                // Replaced later (the moved copy kept): not fixed state.
                return false;
            }
        }
    }
    stored
}

/// Whether `value` is a module: one the lowering knows, or an instance of a module class of the
/// tree (`Spline(1)`, the class defined in another file).
fn constructs_module(checker: &Checker<'_>, value: &Value) -> bool {
    if value.kind == ValueKind::Module {
        return true;
    }
    let text = checker.file.source.get(value.span.clone()).unwrap_or("");
    crate::utils::called_name(text)
        .is_some_and(|class| !class.is_empty() && checker.program.is_module_class(class))
}
