//! The one table of rules. Adding a rule takes four edits: its file in `rules/`, a line here, its
//! fixture in `fixtures/rust/`, and its snapshot (written by the fixture test).

use crate::checker::Checker;
use crate::rule::Category;
use std::fmt::Write as _;

macro_rules! rules {
    ($(($code:ident, $name:literal, $module:ident, $ty:ident, $category:ident),)+) => {
        /// Every rule placer knows.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Rule {
            $(
                #[doc = concat!("`", stringify!($code), "` `", $name, "`")]
                $ty,
            )+
        }

        impl Rule {
            /// All rules, by code.
            pub const ALL: &'static [Rule] = &[$(Rule::$ty,)+];

            /// The stable code, e.g. `P101`.
            pub fn code(self) -> &'static str {
                match self { $(Rule::$ty => stringify!($code),)+ }
            }

            /// The kebab-case name of the pattern, e.g. `tensor-on-default-device`.
            pub fn name(self) -> &'static str {
                match self { $(Rule::$ty => $name,)+ }
            }

            /// The module (`src/rules/<module>.rs`) and fixture (`fixtures/rust/<module>.rs`) name.
            pub fn module(self) -> &'static str {
                match self { $(Rule::$ty => stringify!($module),)+ }
            }

            /// The rule's category.
            pub fn category(self) -> Category {
                match self { $(Rule::$ty => Category::$category,)+ }
            }

            /// The rule's documentation (What it does / Why is this bad? / Example / ...).
            pub fn explain(self) -> &'static str {
                match self { $(Rule::$ty => crate::rules::$module::$ty::EXPLANATION,)+ }
            }

            pub(crate) fn check(self, checker: &mut Checker<'_>) {
                match self { $(Rule::$ty => crate::rules::$module::check(checker),)+ }
            }
        }
    };
}

rules! {
    (P000, "syntax-error", syntax_error, SyntaxError, Correctness),
    (P101, "tensor-on-default-device", tensor_on_default_device, TensorOnDefaultDevice, Correctness),
    (P102, "hardcoded-device-ordinal", hardcoded_device_ordinal, HardcodedDeviceOrdinal, Style),
    (P103, "create-then-transfer", create_then_transfer, CreateThenTransfer, Perf),
    (P104, "cuda-without-fallback", cuda_without_fallback, CudaWithoutFallback, Pedantic),
    (P105, "helper-dtype-not-inherited", helper_dtype_not_inherited, HelperDtypeNotInherited, Suspicious),
    (P106, "host-built-model-state", host_built_model_state, HostBuiltModelState, Correctness),
    (P107, "hard-coded-device-default", hard_coded_device_default, HardCodedDeviceDefault, Suspicious),
    (P201, "device-round-trip-in-loop", device_round_trip_in_loop, DeviceRoundTripInLoop, Perf),
    (P202, "loop-invariant-transfer", loop_invariant_transfer, LoopInvariantTransfer, Perf),
    (P203, "non-blocking-without-pinned-memory", non_blocking_without_pinned_memory, NonBlockingWithoutPinnedMemory, Perf),
    (P204, "dataloader-without-pin-memory", dataloader_without_pin_memory, DataloaderWithoutPinMemory, Pedantic),
    (P205, "pin-memory-on-device-tensors", pin_memory_on_device_tensors, PinMemoryOnDeviceTensors, Correctness),
    (P206, "host-read-of-device-tensor", host_read_of_device_tensor, HostReadOfDeviceTensor, Correctness),
    (P207, "convenience-transfer-method", convenience_transfer_method, ConvenienceTransferMethod, Pedantic),
    (P208, "per-call-transfer-of-model-state", per_call_transfer_of_model_state, PerCallTransferOfModelState, Perf),
    (P301, "host-sync-in-loop", host_sync_in_loop, HostSyncInLoop, Perf),
    (P302, "unsynchronized-timing", unsynchronized_timing, UnsynchronizedTiming, Pedantic),
    (P303, "empty-cache-in-loop", empty_cache_in_loop, EmptyCacheInLoop, Perf),
    (P305, "host-sync-in-forward", host_sync_in_forward, HostSyncInForward, Pedantic),
    (P401, "unregistered-buffer", unregistered_buffer, UnregisteredBuffer, Correctness),
    (P402, "model-input-device-mismatch", model_input_device_mismatch, ModelInputDeviceMismatch, Correctness),
    (P403, "loss-weight-on-cpu", loss_weight_on_cpu, LossWeightOnCpu, Correctness),
    (P501, "mixed-device-op", mixed_device_op, MixedDeviceOp, Correctness),
    (P900, "unused-suppression", unused_suppression, UnusedSuppression, Suspicious),
}

impl serde::Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}

impl<'de> serde::Deserialize<'de> for Rule {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let code = String::deserialize(d)?;
        Rule::from_code_or_name(&code)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown rule `{code}`")))
    }
}

impl Rule {
    /// Finds a rule by code (`P101`, case-insensitive) or name (`tensor-on-default-device`).
    pub fn from_code_or_name(s: &str) -> Option<Rule> {
        Rule::ALL
            .iter()
            .copied()
            .find(|r| r.code().eq_ignore_ascii_case(s) || r.name() == s)
    }

    /// The first sentence of the rule's "What it does" section.
    pub fn summary(self) -> String {
        let text = self.explain();
        let body = text
            .split_once("## What it does")
            .map_or(text, |(_, rest)| rest);
        let mut out = String::new();
        for line in body.lines().map(str::trim) {
            if line.starts_with("##") {
                break;
            }
            if line.is_empty() {
                if out.is_empty() {
                    continue;
                }
                break;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(line);
        }
        match out.find(". ") {
            Some(end) => out[..=end].to_string(),
            None => out,
        }
    }

    /// The documentation with the one leading space of each `///` line removed.
    pub fn explain_text(self) -> String {
        let mut out = String::new();
        for line in self.explain().lines() {
            out.push_str(line.strip_prefix(' ').unwrap_or(line));
            out.push('\n');
        }
        out
    }
}

/// The default level of a rule: `error`/`warning` when on by default, `allow` when off.
pub fn default_level(rule: Rule) -> &'static str {
    if rule.category().is_default_on() {
        rule.category().severity().as_str()
    } else {
        "allow"
    }
}

/// The `placer rules` table: code, name, category, default level and summary, one rule a line.
pub fn rules_table() -> String {
    let width = Rule::ALL.iter().map(|r| r.name().len()).max().unwrap_or(4);
    let mut out = format!(
        "{:<5} {:<width$} {:<12} {:<8} summary\n",
        "code", "name", "category", "level"
    );
    for &rule in Rule::ALL {
        let _ = writeln!(
            out,
            "{:<5} {:<width$} {:<12} {:<8} {}",
            rule.code(),
            rule.name(),
            rule.category().as_str(),
            default_level(rule),
            rule.summary()
        );
    }
    out
}

/// The pages of `docs/rules/`: `(file name, content)` for an index (`README.md`) and one page per
/// rule, generated from the rules' doc comments (`placer rules --markdown docs/rules`).
pub fn rules_markdown() -> Vec<(String, String)> {
    let mut index = String::from(
        "# placer rules\n\nGenerated by `placer rules --markdown docs/rules` from the rules' doc \
         comments; do not edit.\n\n| code | name | category | default level | summary |\n\
         | --- | --- | --- | --- | --- |\n",
    );
    let mut pages = Vec::new();
    for &rule in Rule::ALL {
        let _ = writeln!(
            index,
            "| {} | [{}]({}.md) | {} | {} | {} |",
            rule.code(),
            rule.name(),
            rule.name(),
            rule.category().as_str(),
            default_level(rule),
            rule.summary()
        );
        let page = format!(
            "# {} ({})\n\nCategory: {}; default level: {}.\n\n{}",
            rule.name(),
            rule.code(),
            rule.category().as_str(),
            default_level(rule),
            rule.explain_text().replace("```rust,ignore", "```rust")
        );
        pages.push((format!("{}.md", rule.name()), page));
    }
    pages.insert(0, ("README.md".to_string(), index));
    pages
}
