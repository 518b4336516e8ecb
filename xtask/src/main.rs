//! `cargo xtask`: the project's own automation.
//!
//! * `cargo xtask ci`   — formatting, clippy (warnings are errors), every test, the
//!   AVX-512 emulation check and the machine-code check. This is the README's test
//!   command and what `.ci/run` calls.
//! * `cargo xtask test` — every test (release-optimized test profile).
//! * `cargo xtask emu`  — runs the AVX-512 drivers under the Bochs CPU emulator and
//!   compares them byte for byte with the native generic code.
//! * `cargo xtask asm`  — inspects the emitted machine code of the SIMD entry functions.
//! * `cargo xtask bench` — criterion benches.

mod asm;
mod emu;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

fn cargo(args: &[&str]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    eprintln!("xtask: cargo {}", args.join(" "));
    let status = Command::new(&cargo)
        .args(args)
        .current_dir(root())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo {} failed ({status})", args.join(" ")))
    }
}

fn test() -> Result<(), String> {
    cargo(&["test", "--workspace", "--all-targets"])?;
    cargo(&["test", "--workspace", "--doc"])?;
    // The fault-injection build proves the self-test gate end to end, in the library
    // and through the command-line tool.
    cargo(&["test", "-p", "cryptoreg", "--features", "fault-injection"])?;
    cargo(&["test", "-p", "cryptoctl", "--features", "fault-injection"])
}

fn ci() -> Result<(), String> {
    cargo(&["fmt", "--all", "--check"])?;
    cargo(&[
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ])?;
    // Also the fault-injection build of the facade and the tool.
    cargo(&[
        "clippy",
        "--workspace",
        "--all-targets",
        "--all-features",
        "--",
        "-D",
        "warnings",
    ])?;
    test()?;
    asm::run(&root()).map(|s| println!("{s}"))?;
    emu::run(&root()).map(|s| println!("{s}"))?;
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => ci(),
        Some("test") => test(),
        Some("emu") => emu::run(&root()).map(|s| println!("{s}")),
        Some("asm") => asm::run(&root()).map(|s| println!("{s}")),
        Some("bench") => cargo(&["bench", "-p", "cryptoreg"]),
        _ => Err("usage: cargo xtask <ci|test|emu|asm|bench>".to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e}");
            ExitCode::FAILURE
        }
    }
}
