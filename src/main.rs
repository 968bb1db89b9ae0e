//! The `placer` binary.

use std::process::ExitCode;

// syn's token trees are allocation-heavy: mimalloc makes parsing markedly faster than glibc malloc.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    placer_cli::main_with_args(std::env::args_os())
}
