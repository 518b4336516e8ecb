//! `cargo xtask arm64`: the workspace cross-built for `aarch64-unknown-linux-gnu` with
//! Debian's Rust (`rustc-web`, `cargo-web` 1.96 and the arm64 standard library), every
//! test and `cryptoctl selftest` run under QEMU's user-mode emulator.
//!
//! * **Installs what is missing** with apt (`dpkg --add-architecture arm64`, then
//!   `rustc-web cargo-web rust-web-clippy libstd-rust-web-dev:arm64 gcc-aarch64-linux-gnu
//!   libc6:arm64 qemu-user`). The host toolchain (rustup's, in `~/.cargo/bin`) is not
//!   touched: the cross build runs `/usr/bin/cargo` with `RUSTC=/usr/bin/rustc`, in a
//!   target directory of its own (`target/arm64`).
//! * **MSRV**: clippy of the arm64 build (Debian's `rust-web-clippy`) with
//!   `incompatible_msrv` denied against the workspace's `rust-version`, and every rustc
//!   warning of the arm64-only code denied (the host's clippy never sees it).
//! * **Runs** every test under `qemu-aarch64 -L / -cpu max` and `-cpu neoverse-n1`
//!   (`-L /`: the multiarch loader; the cross package's `/usr/aarch64-linux-gnu` loader
//!   with the multiarch libc hangs at the first thread start), then `cryptoctl selftest`
//!   (full mode) on both and on `-cpu cortex-a72` with `[cpu] disable = ["aes", "pmull"]`
//!   (QEMU's A72 has the Crypto Extensions; the mask gives the ladder of a Raspberry Pi
//!   4, whose A72 lacks them). Binaries that tests spawn go through the same runner
//!   (`CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER`), so no binfmt registration is
//!   needed. The emulated run is short as it is (each test binary takes seconds), so no
//!   test runs fewer cases under emulation. The harness runs one test at a time there
//!   (`RUST_TEST_THREADS=1`): QEMU's user mode races on parallel thread starts (see
//!   [`debian_cargo`]); a binary QEMU's race still kills is run again, within bounds and
//!   reported (`qemu_rerun.rs`).
//!
//! Emulation checks correctness only; it says nothing about speed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The target triple.
pub const TRIPLE: &str = "aarch64-unknown-linux-gnu";
/// The runner's environment variable for [`TRIPLE`].
pub const RUNNER_VAR: &str = "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER";

/// Debian packages that provide the toolchain, the linker, the arm64 libc and QEMU.
const PACKAGES: &[&str] = &[
    "rustc-web",
    "cargo-web",
    "rust-web-clippy",
    "libstd-rust-web-dev:arm64",
    "gcc-aarch64-linux-gnu",
    // The C runtime objects the cross linker needs (Scrt1.o, crti.o): a Recommends of the
    // cross gcc, which `--no-install-recommends` leaves out.
    "libc6-dev-arm64-cross",
    "libc6:arm64",
    "qemu-user",
];

/// Files whose presence shows the packages above are installed.
const NEEDED_FILES: &[&str] = &[
    "/usr/bin/rustc",
    "/usr/bin/cargo",
    "/usr/bin/cargo-clippy",
    "/usr/lib/rustlib/aarch64-unknown-linux-gnu/lib",
    "/usr/bin/aarch64-linux-gnu-gcc",
    "/usr/aarch64-linux-gnu/lib/Scrt1.o",
    "/usr/lib/aarch64-linux-gnu/libc.so.6",
    "/usr/bin/qemu-aarch64",
];

/// QEMU CPU models on which every test runs.
const TEST_CPUS: &[&str] = &["max", "neoverse-n1"];

fn run_status(cmd: &mut Command, what: &str) -> Result<(), String> {
    eprintln!("xtask arm64: {what}");
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}

/// Installs the packages when a file they provide is missing.
fn ensure_toolchain() -> Result<(), String> {
    let missing: Vec<&str> = NEEDED_FILES
        .iter()
        .copied()
        .filter(|f| !Path::new(f).exists())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    eprintln!("xtask arm64: missing {missing:?}: installing {PACKAGES:?}");
    let foreign = Command::new("dpkg")
        .arg("--print-foreign-architectures")
        .output()
        .map_err(|e| format!("dpkg: {e} (xtask arm64 needs Debian or Ubuntu)"))?;
    if !String::from_utf8_lossy(&foreign.stdout)
        .lines()
        .any(|l| l.trim() == "arm64")
    {
        run_status(
            Command::new("dpkg").args(["--add-architecture", "arm64"]),
            "dpkg --add-architecture arm64",
        )?;
    }
    run_status(
        Command::new("apt-get").args(["update", "-q"]),
        "apt-get update",
    )?;
    run_status(
        Command::new("apt-get")
            .args(["install", "-y", "-q", "--no-install-recommends"])
            .args(PACKAGES)
            .env("DEBIAN_FRONTEND", "noninteractive"),
        "apt-get install",
    )
}

/// The cross build's target directory.
pub fn target_dir(root: &Path) -> PathBuf {
    root.join("target").join("arm64")
}

/// `/usr/bin/cargo ARGS` for the arm64 target with QEMU on `cpu` as the runner.
fn debian_cargo(root: &Path, cpu: &str, args: &[&str]) -> Command {
    let path = std::env::var("PATH").unwrap_or_default();
    let mut cmd = Command::new("/usr/bin/cargo");
    cmd.args(args)
        .current_dir(root)
        // Debian's toolchain first; rustup's variables would otherwise pick its own.
        .env("PATH", format!("/usr/bin:{path}"))
        .env("RUSTC", "/usr/bin/rustc")
        .env("RUSTDOC", "/usr/bin/rustdoc")
        .env("CARGO", "/usr/bin/cargo")
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("RUSTC_WRAPPER")
        .env("CARGO_TARGET_DIR", target_dir(root))
        .env(
            "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER",
            "aarch64-linux-gnu-gcc",
        )
        // Cargo runs each test binary through `xtask qemu-run`, which runs it under QEMU
        // and runs it again, within bounds, when QEMU's thread race kills it (see
        // `qemu_rerun.rs`); binaries the tests start get plain QEMU.
        .env(RUNNER_VAR, rerun_runner())
        .env(crate::qemu_rerun::QEMU_VAR, runner(cpu))
        .env(crate::qemu_rerun::LOG_VAR, rerun_log(root))
        // One test at a time under emulation. QEMU's user mode (7.2 and 10.0 alike) races
        // when several guest threads start and end threads at once: about 1 run in 100
        // of a test binary whose tests boot registries in parallel died with SIGBUS or
        // SIGSEGV in `std`'s `thread_start`, reading its already-freed start record (a
        // glibc safe-linked free-list word: the address shifted right by 12). The same
        // binary one test at a time: 0 failures in 800 runs, yet a CI run still met it
        // once (tests start their own threads: the boot's self-test workers, the
        // concurrency tests), hence the rerun above.
        .env("RUST_TEST_THREADS", "1");
    cmd
}

/// The runner cargo gets: this xtask's own `qemu-run` (its path has no spaces in CI;
/// cargo splits the variable on whitespace).
fn rerun_runner() -> String {
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("xtask"));
    format!("{} qemu-run", exe.display())
}

/// The log of QEMU reruns of one `cargo xtask arm64`.
fn rerun_log(root: &Path) -> PathBuf {
    target_dir(root).join("qemu-reruns.log")
}

/// The QEMU command line for `cpu`.
fn runner(cpu: &str) -> String {
    format!("qemu-aarch64 -L / -cpu {cpu}")
}

/// `cryptoctl selftest` (full mode, the default configuration's 100 randomized
/// iterations) under QEMU on `cpu`, with `extra` appended to the configuration.
fn selftest(root: &Path, cpu: &str, extra: &str) -> Result<String, String> {
    let exe = target_dir(root)
        .join(TRIPLE)
        .join("debug")
        .join("cryptoctl");
    let config = target_dir(root).join(format!("selftest-{cpu}.toml"));
    let text = format!("[selftest]\nmode = \"full\"\nfuzz_iterations = 100\n{extra}");
    std::fs::write(&config, text).map_err(|e| format!("{}: {e}", config.display()))?;
    let what = format!("cryptoctl selftest on -cpu {cpu}");
    eprintln!("xtask arm64: {what}");
    let out = crate::qemu_rerun::output(&what, &rerun_log(root), || {
        let mut cmd = Command::new("qemu-aarch64");
        cmd.args(["-L", "/", "-cpu", cpu])
            .arg(&exe)
            .args(["selftest", "--config"])
            .arg(&config);
        cmd
    })?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "{what} failed ({}):\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let last = stdout.lines().last().unwrap_or_default().to_string();
    Ok(format!("{what}: {last}"))
}

/// The fault-injection gate on arm64: the flagged build of the facade's
/// `fault_injection` tests (the x86 gate tests plus `gcm-aes-ce-faulty`'s, which exist only
/// in an aarch64 build) under QEMU on `-cpu max`, in a target directory of its own so the
/// flag does not invalidate the normal cross build; every gate test must be reported `ok`.
fn fault_injection(root: &Path) -> Result<String, String> {
    let t = Instant::now();
    let mut cmd = debian_cargo(
        root,
        "max",
        &[
            "test",
            "-p",
            "cryptoreg",
            "--test",
            "fault_injection",
            "--test",
            "rescan_fault",
            "--target",
            TRIPLE,
        ],
    );
    cmd.env("RUSTFLAGS", "--cfg cryptoreg_fault_injection")
        .env("CARGO_TARGET_DIR", root.join("target").join("arm64-fault"));
    eprintln!("xtask arm64: fault-injection gate tests under qemu-aarch64 -cpu max");
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run the arm64 fault-injection tests: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    if !out.status.success() {
        return Err(format!(
            "the arm64 fault-injection tests failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    crate::fault_injection::gate_tests_ran_for(&stdout, "aarch64")?;
    Ok(format!(
        "fault-injection gate (gcm-aes-ce-faulty, 100 of 100 seeds; the rescan's \
         ctr-aes-faulty-late): ok in {:.0?}",
        t.elapsed()
    ))
}

/// Runs everything; returns a summary with timings.
pub fn run(root: &Path) -> Result<String, String> {
    let start = Instant::now();
    let mut summary = Vec::new();
    ensure_toolchain()?;
    std::fs::create_dir_all(target_dir(root)).map_err(|e| format!("target/arm64: {e}"))?;
    let log = rerun_log(root);
    let _ = std::fs::remove_file(&log);
    let target = ["--target", TRIPLE];
    // MSRV and arm64-only warnings: clippy of the arm64 build.
    let mut clippy = vec!["clippy", "--workspace", "--all-targets"];
    clippy.extend(target);
    clippy.extend([
        "--",
        "-A",
        "clippy::all",
        "-D",
        "clippy::incompatible_msrv",
        "-D",
        "clippy::undocumented_unsafe_blocks",
        "-D",
        "warnings",
    ]);
    run_status(
        &mut debian_cargo(root, "max", &clippy),
        "clippy (arm64, MSRV)",
    )?;
    summary.push(format!(
        "clippy arm64 (incompatible_msrv): ok at {:.0?}",
        start.elapsed()
    ));
    // Every test binary runs even after one fails, so one run reports every failure.
    let mut test = vec!["test", "--workspace", "--no-fail-fast"];
    test.extend(target);
    // The build first: the `sectord` example, which `cargo test` builds with the tests,
    // is then named to its integration test, which runs it (through the runner) instead
    // of starting a cargo build of its own under emulation.
    let t = Instant::now();
    eprintln!("xtask arm64: building the tests");
    let sectord = crate::example_built_by(debian_cargo(root, "max", &test), "sectord")?;
    summary.push(format!("test build: ok in {:.0?}", t.elapsed()));
    for cpu in TEST_CPUS {
        let t = Instant::now();
        let mut cmd = debian_cargo(root, cpu, &test);
        cmd.env("CRYPTOREG_SECTORD_EXAMPLE", &sectord);
        run_status(
            &mut cmd,
            &format!("cargo test --workspace under qemu-aarch64 -cpu {cpu}"),
        )?;
        summary.push(format!("tests on -cpu {cpu}: ok in {:.0?}", t.elapsed()));
    }
    for cpu in TEST_CPUS {
        summary.push(selftest(root, cpu, "")?);
    }
    summary.push(selftest(
        root,
        "cortex-a72",
        "[cpu]\ndisable = [\"aes\", \"pmull\"]\n",
    )?);
    summary.push(fault_injection(root)?);
    let reruns = std::fs::read_to_string(&log).unwrap_or_default();
    summary.push(format!(
        "binaries rerun after QEMU's thread race killed them: {}{}",
        reruns.lines().count(),
        reruns
            .lines()
            .map(|l| format!("\n  {l}"))
            .collect::<String>()
    ));
    summary.push(format!("xtask arm64: total {:.0?}", start.elapsed()));
    Ok(summary.join("\n"))
}
