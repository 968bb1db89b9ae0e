//! `cargo placer ...`: cargo runs `cargo-placer placer ...` for it (cargo's external subcommand
//! convention), so the `placer` argument is dropped and the rest is the `placer` command line.

use std::process::ExitCode;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let mut args: Vec<_> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "placer") {
        args.remove(1);
    }
    if let Some(first) = args.first_mut() {
        *first = "cargo placer".into();
    }
    placer_cli::main_with_args(args)
}
