//! Python-specific behaviour that fixtures cannot show: what depends on a file's path.

use std::path::Path;

use placer_lint::{check_source, Rule, Settings};

const TIMESTAMPS: &str = r#"
def decode(token_ids, timestamp_begin):
    offsets = []
    for sliced_tokens in token_ids:
        start = sliced_tokens[0].item() - timestamp_begin
        offsets.append(start)
    return offsets
"#;

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

#[test]
fn should_not_report_test_files_unless_included() {
    let src = "import torch\n\ndef test_mix():\n    a = torch.ones(2, device='cuda')\n    return a + torch.ones(2)\n";
    let settings = Settings::only(&[Rule::MixedDeviceOp]);
    assert!(check_source(Path::new("test_model.py"), src, &settings).is_empty());
    let lib = "import torch\n\ndef mix():\n    a = torch.ones(2, device='cuda')\n    return a + torch.ones(2)\n";
    assert_eq!(check_source(Path::new("model.py"), lib, &settings).len(), 1);
}
