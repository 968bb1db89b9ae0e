//! Python-specific behaviour that fixtures cannot show: what depends on a file's path.

use std::path::Path;

use placer_lint::{check_source, Rule, Settings};

/// The default rules and P302 (unsynchronized-timing, pedantic: off by default).
fn with_timing() -> Settings {
    let mut settings = Settings::default();
    settings.set_enabled(Rule::UnsynchronizedTiming, true);
    settings
}

const TIMESTAMPS: &str = r"
def decode(token_ids, timestamp_begin):
    offsets = []
    for sliced_tokens in token_ids:
        start = sliced_tokens[0].item() - timestamp_begin
        offsets.append(start)
    return offsets
";

#[test]
fn should_not_report_host_reads_in_host_only_files() {
    let settings = Settings::only(&[Rule::HostSyncInLoop]);
    let model = check_source(Path::new("generation_whisper.py"), TIMESTAMPS, &settings);
    assert_eq!(model.len(), 1, "a model file's read in a loop is reported");
    for name in [
        "tokenization_whisper.py",
        "image_processing_sam.py",
        "convert_llama_weights.py",
    ] {
        let found = check_source(Path::new(name), TIMESTAMPS, &settings);
        assert!(found.is_empty(), "{name}: {found:?}");
    }
}

const POST_PROCESS: &str = r"
import torch
from torchvision.ops import batched_nms


def postprocess_masks(mask_boxes, iou_scores):
    return batched_nms(mask_boxes.float(), iou_scores, torch.zeros(mask_boxes.shape[0]), 0.7)
";

#[test]
fn should_take_tensors_given_to_host_only_files_for_host_tensors() {
    // transformers' image_processing_sam.py: post-processing on the host (unseen round 2 pattern).
    let settings = Settings::only(&[Rule::TensorOnDefaultDevice]);
    let library = check_source(Path::new("postprocess.py"), POST_PROCESS, &settings);
    assert_eq!(
        library.len(),
        1,
        "a library function's host tensor meeting its input"
    );
    let found = check_source(
        Path::new("image_processing_sam.py"),
        POST_PROCESS,
        &settings,
    );
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn should_not_report_test_files_unless_included() {
    let src = "import torch\n\ndef test_mix():\n    a = torch.ones(2, device='cuda')\n    return a + torch.ones(2)\n";
    let settings = Settings::only(&[Rule::MixedDeviceOp]);
    assert!(check_source(Path::new("test_model.py"), src, &settings).is_empty());
    let lib = "import torch\n\ndef mix():\n    a = torch.ones(2, device='cuda')\n    return a + torch.ones(2)\n";
    assert_eq!(check_source(Path::new("model.py"), lib, &settings).len(), 1);
}

const NOTEBOOK: &str = r##"{
 "cells": [
  {"cell_type": "markdown", "metadata": {}, "source": ["# Devices"]},
  {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1,
   "source": ["%matplotlib inline\n", "import torch\n", "!nvidia-smi\n"]},
  {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 2,
   "source": "x = torch.randn(3, device=\"cuda\")\ny = torch.randn(3)\nz = x + y"}
 ],
 "metadata": {}, "nbformat": 4, "nbformat_minor": 5
}"##;

#[test]
fn should_report_notebook_findings_by_cell() {
    let path = Path::new("devices.ipynb");
    let found = check_source(path, NOTEBOOK, &Settings::default());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].rule, Rule::MixedDeviceOp);
    // The cells are parsed together (magics included) and positions are given per cell.
    let source = placer_lint::analysed_source(path, NOTEBOOK);
    let concise = placer_lint::render::concise(path, &source, &found);
    assert!(
        concise.starts_with("devices.ipynb:cell 3:3:5: error[P501/mixed-device-op]"),
        "{concise}"
    );
    let json = placer_lint::render::json(path, &source, &found);
    assert_eq!(
        (json[0].cell, json[0].line, json[0].column),
        (Some(3), 3, 5)
    );
    // The graphical report shows the cell alone, numbered as in the notebook.
    let full = placer_lint::render::full(
        path,
        &source,
        &found,
        placer_lint::render::Style::Plain,
        100,
    );
    assert!(full.contains("[devices.ipynb:cell 3:3:5]"), "{full}");
    assert!(!full.contains("placer cell"), "no marker line: {full}");
}

#[test]
fn should_report_an_invalid_notebook_as_a_syntax_error() {
    let found = check_source(
        Path::new("broken.ipynb"),
        "{\"cells\": [",
        &Settings::default(),
    );
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].rule, Rule::SyntaxError);
}

#[test]
fn should_follow_module_classes_across_files_and_find_notebooks() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-tree");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("pkg")).expect("temp dir");
    // `Block` is an `nn.Module` only through `Base`, defined in another file.
    std::fs::write(
        dir.join("pkg/base.py"),
        "import torch.nn as nn\n\nclass Base(nn.Module):\n    pass\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("pkg/block.py"),
        "import torch\nfrom .base import Base\n\nclass Block(Base):\n    def forward(self, x):\n        mask = torch.ones(x.shape[-1])\n        return x * mask\n",
    )
    .expect("write");
    std::fs::write(dir.join("devices.ipynb"), NOTEBOOK).expect("write");
    std::fs::write(dir.join("README.md"), "not checked\n").expect("write");
    let report =
        placer_lint::check_paths(std::slice::from_ref(&dir), &Settings::default()).expect("check");
    assert_eq!(report.files_checked, 3, "two .py files and a notebook");
    let found: Vec<(String, Rule)> = report
        .diagnostics()
        .map(|(f, d)| {
            let name = f
                .path
                .strip_prefix(&dir)
                .expect("in dir")
                .display()
                .to_string();
            (name, d.rule)
        })
        .collect();
    assert_eq!(
        found,
        vec![
            ("devices.ipynb".to_string(), Rule::MixedDeviceOp),
            ("pkg/block.py".to_string(), Rule::TensorOnDefaultDevice),
        ]
    );
}

const SPLINE_MODULE: &str = "import torch
from torch import nn


class Spline(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.widths = nn.Parameter(torch.zeros(n, 10))

    def forward(self, x):
        return x * self.widths.sum()
";

const LINK_SCALE: &str = "import torch

from mypkg.modules import Spline


class LinkScale:
    def __init__(self):
        self._transformation = Spline(1)
        self._offset = torch.zeros(1)

    def fit(self, loader, device, epochs):
        self._transformation.to(device)
        for _ in range(epochs):
            for (theta,) in loader:
                loss = self.transform(theta).sum()
                loss.backward()

    def transform(self, theta: torch.Tensor) -> torch.Tensor:
        self._transformation.to(theta.device)
        return self._transformation(theta) + self._offset.to(theta.device)
";

/// irtorch's scale linking (unseen set 24): `.to()` of a sub-module whose class is an `nn.Module`
/// of another file moves its parameters in place, once; a host tensor kept beside it is copied on
/// every call.
#[test]
fn should_take_a_module_class_of_another_file_for_a_sub_module() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-sub-module");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("mypkg")).expect("temp dir");
    std::fs::write(dir.join("mypkg/modules.py"), SPLINE_MODULE).expect("write");
    std::fs::write(dir.join("mypkg/link.py"), LINK_SCALE).expect("write");
    let report =
        placer_lint::check_paths(std::slice::from_ref(&dir), &Settings::default()).expect("check");
    // (Line 20 moves `self._offset`; line 19, the sub-module.)
    let found: Vec<(Rule, usize)> = report
        .diagnostics()
        .map(|(f, d)| {
            let source = std::fs::read_to_string(&f.path).expect("read");
            (d.rule, source[..d.span.start].matches('\n').count() + 1)
        })
        .collect();
    assert_eq!(found, vec![(Rule::PerCallTransferOfModelState, 20)]);
}

const GPU_DATASET: &str = "import torch
from torch.utils.data import Dataset


class GpuDataset(Dataset):
    def __init__(self, n):
        self.x = torch.randn(n, 8).to(\"cuda\")

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i]
";

#[test]
fn should_know_a_dataset_class_of_another_file_moves_its_data() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-datasets");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("data.py"), GPU_DATASET).expect("write");
    // The batches are on the device already: calling the moved model with them is fine (no
    // P402), and pinning them is an error (P205).
    std::fs::write(
        dir.join("train.py"),
        "import torch.nn as nn\nfrom torch.utils.data import DataLoader\n\nfrom data import GpuDataset\n\n\ndef train(device):\n    model = nn.Linear(8, 1).to(device)\n    loader = DataLoader(GpuDataset(100), batch_size=8, pin_memory=True)\n    for x in loader:\n        out = model(x)\n",
    )
    .expect("write");
    let report =
        placer_lint::check_paths(std::slice::from_ref(&dir), &Settings::default()).expect("check");
    let rules: Vec<Rule> = report.diagnostics().map(|(_, d)| d.rule).collect();
    assert_eq!(rules, vec![Rule::PinMemoryOnDeviceTensors]);
}

const TENSOR_TYPES: &str = "import torch
from typing import TypeAlias

from jaxtyping import Float

HomMatrix: TypeAlias = Float[torch.Tensor, \"D D\"]
";

const GEOMETRY: &str = "import torch

from types_ import HomMatrix


def transform_points(hom: HomMatrix, points: torch.Tensor) -> torch.Tensor:
    ones = torch.ones((*points.shape[:-1], 1), dtype=points.dtype, device=points.device)
    return torch.einsum(\"ij,...j->...i\", hom, torch.cat((points, ones), dim=-1))


def hom_target(tf: HomMatrix) -> torch.Tensor:
    return transform_points(tf, torch.zeros((tf.shape[0] - 1,), dtype=tf.dtype))
";

#[test]
fn should_take_a_tensor_type_alias_of_another_file_for_a_tensor() {
    // torchlensmaker (unseen set 22): `tf: HomMatrix`, with the jaxtyping alias defined in the
    // package's types module, is a tensor parameter; the host `zeros` meets it in the helper.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-tensor-aliases");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("types_.py"), TENSOR_TYPES).expect("write");
    std::fs::write(dir.join("geometry.py"), GEOMETRY).expect("write");
    let report =
        placer_lint::check_paths(std::slice::from_ref(&dir), &Settings::default()).expect("check");
    let found: Vec<(Rule, usize)> = report
        .diagnostics()
        .map(|(f, d)| (d.rule, f.source[..d.span.start].lines().count()))
        .collect();
    assert_eq!(found, vec![(Rule::TensorOnDefaultDevice, 12)]);
    // Alone, the file does not know the alias: nothing says `tf` is a tensor.
    let alone = check_source(Path::new("geometry.py"), GEOMETRY, &Settings::default());
    assert!(alone.is_empty(), "{alone:?}");
}

#[test]
fn should_not_overflow_the_stack_on_deeply_nested_expressions() {
    // A generated sum of 100 000 terms is a left-nested tree 100 000 levels deep: dropping it
    // recursively on a 2 MB thread stack aborted the process.
    let source = format!("x = {}\n", vec!["1"; 100_000].join(" + "));
    let found = check_source(Path::new("generated.py"), &source, &Settings::default());
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn should_take_findings_from_the_contents_given_not_a_second_read() {
    // The cache keys a run on the bytes it read; the findings must come from the same bytes,
    // whatever the file holds by the time it would be read again.
    let dir = std::env::temp_dir().join(format!("placer-contents-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let path = dir.join("m.py");
    std::fs::write(&path, "x = 1\n").expect("write");
    let mixed = b"import torch\nz = torch.ones(2, device='cuda') + torch.ones(2)\n".to_vec();
    let (report, _) =
        placer_lint::analyse_contents(vec![(path.clone(), Ok(mixed))], &Settings::default());
    std::fs::remove_dir_all(&dir).expect("rm");
    let rules: Vec<Rule> = report.diagnostics().map(|(_, d)| d.rule).collect();
    assert_eq!(rules, [Rule::MixedDeviceOp]);
    assert!(report.files[0].source.contains("torch.ones"));
}

const PICK_SECOND_GPU: &str = r#"
import torch


def collector_device():
    return torch.device("cuda:1")
"#;

#[test]
fn should_take_helpers_of_a_script_directory_for_script_code() {
    // torchrl's sota-implementations/sac/utils.py (unseen round 5): beside `sac.py`, a Hydra
    // program, in a directory that is not a package.
    let settings = Settings::only(&[Rule::HardcodedDeviceOrdinal]);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("sac.py"),
        "import hydra\n\n@hydra.main(config_path='', config_name='config')\ndef main(cfg):\n    pass\n",
    )
    .unwrap();
    let utils = dir.path().join("utils.py");
    let found = check_source(&utils, PICK_SECOND_GPU, &settings);
    assert!(found.is_empty(), "a script directory's helper: {found:?}");

    // The same helper in a package is library code.
    let package = tempfile::tempdir().unwrap();
    std::fs::write(package.path().join("__init__.py"), "").unwrap();
    std::fs::write(
        package.path().join("sac.py"),
        "if __name__ == '__main__':\n    pass\n",
    )
    .unwrap();
    let found = check_source(&package.path().join("utils.py"), PICK_SECOND_GPU, &settings);
    assert_eq!(found.len(), 1, "a package's helper: {found:?}");
}

#[test]
fn should_take_a_cli_folder_inside_a_package_for_script_code() {
    // exllamav2's `conversion/` (unseen set 19): no `__init__.py`, inside a package, beside
    // `convert_exl2.py`, which parses its arguments at module level and is the folder's only
    // user. Its modules are that program's code.
    let settings = Settings::only(&[Rule::HardcodedDeviceOrdinal]);
    let root = tempfile::tempdir().unwrap();
    let package = root.path().join("mypkg");
    let folder = package.join("convert");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(package.join("__init__.py"), "").unwrap();
    std::fs::write(package.join("model.py"), "import torch\n").unwrap();
    std::fs::write(
        folder.join("cli.py"),
        "import argparse\nfrom mypkg.convert.quant import run\n\nparser = argparse.ArgumentParser()\nargs = parser.parse_args()\nrun(args)\n",
    )
    .unwrap();
    let found = check_source(&folder.join("quant.py"), PICK_SECOND_GPU, &settings);
    assert!(found.is_empty(), "a CLI folder's module: {found:?}");

    // Once the package imports the folder's modules, they are library code (lerobot's `rl/`).
    let root = tempfile::tempdir().unwrap();
    let package = root.path().join("mypkg");
    let folder = package.join("rl");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(package.join("__init__.py"), "").unwrap();
    std::fs::write(
        package.join("train.py"),
        "from mypkg.rl.quant import collector_device\n",
    )
    .unwrap();
    std::fs::write(
        folder.join("actor.py"),
        "if __name__ == '__main__':\n    pass\n",
    )
    .unwrap();
    let found = check_source(&folder.join("quant.py"), PICK_SECOND_GPU, &settings);
    assert_eq!(
        found.len(),
        1,
        "an imported namespace sub-package: {found:?}"
    );

    // A folder without a program is library code too.
    let root = tempfile::tempdir().unwrap();
    let package = root.path().join("mypkg");
    let folder = package.join("ops");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(package.join("__init__.py"), "").unwrap();
    std::fs::write(folder.join("other.py"), "import torch\n").unwrap();
    let found = check_source(&folder.join("quant.py"), PICK_SECOND_GPU, &settings);
    assert_eq!(found.len(), 1, "a plain namespace sub-package: {found:?}");
}

#[test]
fn should_take_a_module_that_works_at_import_for_a_script() {
    // torchcor's `ecg/run_ecg.py` (unseen set 25): a driver inside a package, imported by
    // nothing, that loads, prints and saves at module level. A library module does none of that
    // when it is imported.
    let settings = Settings::only(&[Rule::HardcodedDeviceOrdinal]);
    let package = tempfile::tempdir().unwrap();
    std::fs::write(package.path().join("__init__.py"), "").unwrap();
    let driver = "import torch\n\ndevice = torch.device(\"cuda:0\")\nvm = torch.load(\"vm.pt\").to(device)\n";
    for work in [
        "print(vm.shape)\n",
        "torch.save(vm.cpu(), \"out.pt\")\n",
        "import sys\nsys.path.insert(0, \"..\")\n",
    ] {
        let source = format!("{driver}{work}");
        let found = check_source(&package.path().join("run.py"), &source, &settings);
        assert!(found.is_empty(), "a driver script ({work:?}): {found:?}");
    }

    // Indented, the same calls are a function's work: the module is library code.
    let source = format!("{driver}\n\ndef report(x):\n    print(x)\n    torch.save(x, \"x.pt\")\n");
    let found = check_source(&package.path().join("lib.py"), &source, &settings);
    assert_eq!(found.len(), 1, "a library module: {found:?}");
}

const COMMON_FUNCTIONS: &str = "def to_device(x, tensor=None, device=None):
    dv = device if device is not None else tensor.device
    if x.device != dv:
        x = x.to(dv)
    return x
";

const PROXY_LOSS: &str = "import torch
from torch import nn

from ..utils import common_functions as c_f


class ProxyLoss(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.proxy_labels = torch.arange(n)

    def forward(self, emb, labels):
        d_pos = torch.zeros(emb.shape[0])
        d_pos = c_f.to_device(d_pos, tensor=emb)
        return (emb * d_pos[:, None]).sum() + (c_f.to_device(self.proxy_labels, labels) == labels).sum()
";

#[test]
fn should_follow_functions_of_a_package_module_imported_relatively() {
    // pytorch-metric-learning: `c_f.to_device(x, tensor=y)` is a function of the tree that moves
    // `x` where `y` is, not a callable that computes on both (P101) or leaves an attribute
    // unmoved (P401).
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("pkg");
    std::fs::create_dir_all(pkg.join("utils")).unwrap();
    std::fs::create_dir_all(pkg.join("losses")).unwrap();
    for init in ["__init__.py", "utils/__init__.py", "losses/__init__.py"] {
        std::fs::write(pkg.join(init), "").unwrap();
    }
    std::fs::write(pkg.join("utils/common_functions.py"), COMMON_FUNCTIONS).unwrap();
    std::fs::write(pkg.join("losses/proxy.py"), PROXY_LOSS).unwrap();
    let report =
        placer_lint::check_paths(std::slice::from_ref(&pkg), &Settings::default()).expect("check");
    let rules: Vec<Rule> = report.diagnostics().map(|(_, d)| d.rule).collect();
    assert!(rules.is_empty(), "{rules:?}");

    // Without the module in the tree, the call is an unknown function given both tensors.
    std::fs::remove_file(pkg.join("utils/common_functions.py")).unwrap();
    let report =
        placer_lint::check_paths(std::slice::from_ref(&pkg), &Settings::default()).expect("check");
    let rules: Vec<Rule> = report.diagnostics().map(|(_, d)| d.rule).collect();
    assert!(!rules.is_empty(), "the call is opaque without its module");
}

const MANIFOLD_TENSOR: &str = r"
import torch


class ManifoldTensor(torch.Tensor):
    pass


class ManifoldParameter(ManifoldTensor, torch.nn.Parameter):
    def __new__(cls, data, manifold=None, requires_grad=True):
        return super().__new__(cls, data, requires_grad)
";

const HYPERPLANES: &str = r"
import torch

import pkg


class DistanceToHyperplanes(torch.nn.Module):
    def __init__(self, dim, planes, ball):
        super().__init__()
        self.ball = ball
        self.points = pkg.ManifoldParameter(torch.empty(planes, dim), manifold=ball)

    def forward(self, x):
        return self.ball.dist2plane(x.unsqueeze(-2), self.points.permute(1, 0))
";

#[test]
fn should_take_the_trees_parameter_subclasses_for_registered_state() {
    // geoopt (unseen set 13): `self.points = geoopt.ManifoldParameter(..)` is an `nn.Parameter`
    // through a class of another module, so `.to(device)` moves it (no P401).
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("pkg");
    std::fs::create_dir_all(pkg.join("layers")).unwrap();
    std::fs::write(
        pkg.join("__init__.py"),
        "from .tensor import ManifoldParameter\n",
    )
    .unwrap();
    std::fs::write(pkg.join("tensor.py"), MANIFOLD_TENSOR).unwrap();
    std::fs::write(pkg.join("layers/__init__.py"), "").unwrap();
    std::fs::write(pkg.join("layers/stereographic.py"), HYPERPLANES).unwrap();
    let report =
        placer_lint::check_paths(std::slice::from_ref(&pkg), &Settings::default()).expect("check");
    let rules: Vec<Rule> = report.diagnostics().map(|(_, d)| d.rule).collect();
    assert!(rules.is_empty(), "{rules:?}");

    // A class of the tree that is not a parameter leaves the tensor behind.
    std::fs::write(
        pkg.join("tensor.py"),
        MANIFOLD_TENSOR.replace("ManifoldTensor, torch.nn.Parameter", "ManifoldTensor"),
    )
    .unwrap();
    let report =
        placer_lint::check_paths(std::slice::from_ref(&pkg), &Settings::default()).expect("check");
    let rules: Vec<Rule> = report.diagnostics().map(|(_, d)| d.rule).collect();
    assert_eq!(rules, vec![Rule::UnregisteredBuffer]);
}

#[test]
fn should_number_the_lines_of_a_finding_deep_in_a_large_file() {
    // The graphical report reads only the lines around a finding; the numbers it shows must
    // still count every line above it, whatever the line endings.
    let filler = "x = 1  # filler\n".repeat(300);
    let body = "def f():\n    a = torch.ones(2, device='cuda')\n    return a + torch.ones(2)\n";
    let lf = format!("import torch\n{filler}{body}");
    for (name, source) in [
        ("lf.py", lf.clone()),
        ("crlf.py", lf.replace('\n', "\r\n")),
        ("mixed.py", lf.replacen('\n', "\r\n", 150)),
    ] {
        let path = Path::new(name);
        let found = check_source(path, &source, &Settings::only(&[Rule::MixedDeviceOp]));
        assert_eq!(found.len(), 1, "{name}: {found:?}");
        let full = placer_lint::render::full(
            path,
            &placer_lint::analysed_source(path, &source),
            &found,
            placer_lint::render::Style::Plain,
            100,
        );
        assert!(full.contains(&format!("[{name}:304:12]")), "{full}");
        for line in [
            " 302 │ def f():",
            " 303 │     a = torch.ones(2, device='cuda')",
            " 304 │     return a + torch.ones(2)",
        ] {
            assert!(full.contains(line), "{name}: no `{line}` in\n{full}");
        }
        assert!(
            !full.contains(" 301 │"),
            "{name}: more context than asked\n{full}"
        );
    }
}

const STAGE_DETECT: &str = r#"
import numpy as np
import torch


def run(ops, batches, device):
    st = np.zeros((0, 2))
    w = torch.as_tensor(ops["w"], device=device)
    for b in batches:
        y = (torch.as_tensor(b, device=device) @ w).relu()
        st = np.concatenate([st, y[:, :2].cpu().numpy()])
    return st, ops
"#;

const STAGE_PIPELINE: &str = r#"
import time

import torch

from stagepkg import detect


def detect_spikes(ops, batches, device):
    tic = time.time()
    st, ops = detect.run(ops, batches, device=device)
    tf = torch.from_numpy(st)
    elapsed = time.time() - tic
    ops["runtime"] = elapsed
    return st, tf, ops
"#;

const DIST_HELPERS: &str = r"
import torch


def eye_rank(n, device=None):
    rows = torch.arange(n, device=device, dtype=torch.long)
    mask = torch.zeros((n, 2 * n), dtype=torch.bool)
    mask[(rows, rows + n)] = True
    return mask
";

const CONTRASTIVE_LOSS: &str = r"
import torch
from torch import nn

from stagepkg import dist


class ContrastiveLoss(nn.Module):
    def forward(self, out0, out1):
        mask = dist.eye_rank(out0.shape[0], device=out0.device)
        logits = out0 @ torch.cat([out0, out1]).T
        return logits[~mask].mean()
";

#[test]
fn should_follow_the_packages_own_modules_imported_by_absolute_name() {
    // kilosort (unseen set 15) imports its stages as `from kilosort import spikedetect`: the
    // stage ends in host copies, so nothing is queued when the timer is read (no P302). The
    // helper module's own bug is still found (lightly's `eye_rank`, imported as `from
    // lightly.utils import dist`: a host mask indexed with rows on the caller's device).
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("stagepkg");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(pkg.join("__init__.py"), "").unwrap();
    std::fs::write(pkg.join("detect.py"), STAGE_DETECT).unwrap();
    std::fs::write(pkg.join("pipeline.py"), STAGE_PIPELINE).unwrap();
    std::fs::write(pkg.join("dist.py"), DIST_HELPERS).unwrap();
    std::fs::write(pkg.join("loss.py"), CONTRASTIVE_LOSS).unwrap();
    let found = |pkg: &std::path::Path| -> Vec<(String, Rule)> {
        let report = placer_lint::check_paths(&[pkg.to_path_buf()], &with_timing()).expect("check");
        report
            .diagnostics()
            .map(|(f, d)| {
                (
                    f.path.file_name().unwrap().to_string_lossy().into_owned(),
                    d.rule,
                )
            })
            .collect()
    };
    assert_eq!(
        found(&pkg),
        vec![("dist.py".to_string(), Rule::TensorOnDefaultDevice)]
    );

    // Imported from a package the tree does not hold, the stage is opaque work given the device,
    // which may still be queued at the timer read.
    let elsewhere = STAGE_PIPELINE.replace("from stagepkg import", "from otherpkg import");
    std::fs::write(pkg.join("pipeline.py"), elsewhere).unwrap();
    assert!(found(&pkg).contains(&("pipeline.py".to_string(), Rule::UnsynchronizedTiming)));
}

const REGISTER: &str = r#"
import torch


def registration_wrapper(frames, settings, device=None):
    x = torch.from_numpy(frames).to(device)
    x = x - x.mean(0) * settings["scale"]
    return x.cpu().numpy()


def compute_reference(frames, settings, device=None):
    x = torch.from_numpy(frames).to(device)
    return x.mean(0).cpu().numpy()
"#;

const MASKS: &str = r"
import numpy as np


def create_masks(stats, shape, lam):
    masks = np.zeros((len(stats),) + tuple(shape))
    for i, (y, x) in enumerate(stats):
        masks[i, y, x] = lam
    return masks
";

const TIMED_PIPELINE: &str = r#"
import time

import numpy as np
import torch

from . import registration
from .registration.register import compute_reference as reference
from .masks import create_masks


def pipeline(frames, stats, settings, device):
    times = {}
    t0 = time.time()
    ref = reference(frames, settings=settings, device=device)
    times["reference"] = time.time() - t0
    t1 = time.time()
    out = registration.registration_wrapper(frames, settings=settings, device=device)
    np.save("reg.npy", out)
    times["registration"] = time.time() - t1
    t2 = time.time()
    masks = create_masks(stats, frames.shape[1:], settings["lam"])
    times["masks"] = time.time() - t2
    return ref, out, masks, times
"#;

#[test]
fn should_follow_functions_re_exported_or_renamed_and_know_numpy_modules_queue_nothing() {
    // suite2p (unseen set 17): stage timers after `registration.registration_wrapper(..)`, a
    // function a sub-package re-exports from one of its modules, after a function imported
    // under another name, and after a helper of a module that never imports torch. The first
    // two end in host copies, the third queues no device work: nothing is left to time (P302).
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("s2p");
    std::fs::create_dir_all(pkg.join("registration")).unwrap();
    std::fs::write(pkg.join("__init__.py"), "").unwrap();
    std::fs::write(
        pkg.join("registration/__init__.py"),
        "from .register import registration_wrapper\n",
    )
    .unwrap();
    std::fs::write(pkg.join("registration/register.py"), REGISTER).unwrap();
    std::fs::write(pkg.join("masks.py"), MASKS).unwrap();
    std::fs::write(pkg.join("pipeline.py"), TIMED_PIPELINE).unwrap();
    let timers = |pkg: &std::path::Path| -> Vec<usize> {
        let report = placer_lint::check_paths(&[pkg.to_path_buf()], &with_timing()).expect("check");
        report
            .diagnostics()
            .filter(|(_, d)| d.rule == Rule::UnsynchronizedTiming)
            .map(|(f, d)| f.source[..d.span.start].lines().count())
            .collect()
    };
    assert_eq!(timers(&pkg), Vec::<usize>::new());

    // Without the sub-package in the tree both stages are opaque calls given the data and the
    // device. The mask helper, now computing with torch, is given only what the pipeline never
    // uses as tensors (stats, a shape, a setting) and no device: not known device work.
    std::fs::remove_dir_all(pkg.join("registration")).unwrap();
    std::fs::write(
        pkg.join("masks.py"),
        MASKS
            .replace("import numpy as np", "import numpy as np\nimport torch")
            .replace("masks = np.zeros(", "masks = torch.zeros("),
    )
    .unwrap();
    assert_eq!(timers(&pkg), vec![16, 20]);
}

const PROBE_MODEL: &str = "import torch as t

from . import tools


class Ptycho(t.nn.Module):
    def __init__(self, probe):
        super().__init__()
        self.probe = t.nn.Parameter(probe)

    @classmethod
    def from_dataset(cls, dataset, n_modes=2):
        probe = tools.initializers.SHARP_style_probe(dataset)
        probe_max = t.max(t.abs(probe))
        stack = [0.01 * probe_max * t.rand(probe.shape) for i in range(n_modes - 1)]
        return cls(t.stack([probe] + stack))
";

#[test]
fn should_resolve_a_function_of_a_module_inside_a_package_module() {
    // cdtools (unseen set 26): `tools.initializers.SHARP_style_probe(dataset)` is a function of
    // the tree (`tools/initializers.py`), which averages the patterns on the host: the probe is
    // a host tensor, like the modes drawn beside it. Unresolved, it followed `dataset`.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-dotted-module-call");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("cdpkg/tools")).expect("temp dir");
    std::fs::write(dir.join("cdpkg/__init__.py"), "").expect("write");
    std::fs::write(
        dir.join("cdpkg/tools/__init__.py"),
        "from . import initializers\n",
    )
    .expect("write");
    let helper = "import numpy as np\nimport torch as t\n\n\ndef SHARP_style_probe(dataset):\n    acc = 0\n    for pattern in dataset:\n        acc = acc + pattern.cpu().numpy()\n    return t.tensor(np.sqrt(acc))\n";
    std::fs::write(dir.join("cdpkg/tools/initializers.py"), helper).expect("write");
    std::fs::write(dir.join("cdpkg/models.py"), PROBE_MODEL).expect("write");
    let report =
        placer_lint::check_paths(std::slice::from_ref(&dir), &Settings::default()).expect("check");
    let found: Vec<Rule> = report.diagnostics().map(|(_, d)| d.rule).collect();
    assert!(found.is_empty(), "a host probe: {found:?}");
}
