//! `cargo xtask`: the project's own automation.
//!
//! * `cargo xtask ci`   — formatting, clippy (warnings are errors; again with `--all-features`,
//!   and with `--cfg cryptoreg_fault_injection`), the embedded copies, the API docs of the
//!   published crates with rustdoc's warnings as errors, every test, the proof that
//!   an `--all-features` build ships no faulty driver, `cargo package` of the published
//!   crates, the AVX-512 emulation check, the machine-code check and the constant-time
//!   check under Valgrind, each step's wall time printed as it ends and in a table at
//!   the end (also when a step fails). This is the README's
//!   test command and what `.ci/run` calls.
//! * `cargo xtask test` — every test (release-optimized test profile; the RustCrypto adapters' with
//!   `--all-features`; the facade's handle tests again without its `control` feature, whose
//!   dependency tree must then hold no `nix`), then the facade's
//!   and the tool's tests again under `--cfg cryptoreg_fault_injection`, which include the
//!   self-test gate's (in `target/fault-injection`, so the normal build cache survives).
//! * `cargo xtask emu`  — runs the AVX-512 drivers under the Bochs CPU emulator and
//!   compares them byte for byte with the native generic code.
//! * `cargo xtask asm`  — inspects the emitted machine code of the SIMD entry functions.
//! * `cargo xtask doc`  — `cargo doc --no-deps --all-features` of the published crates with
//!   `RUSTDOCFLAGS="-D warnings"`: no broken or private intra-doc link, no rustdoc warning.
//! * `cargo xtask package` — `cargo package` of the published crates, each built from its
//!   `.crate` (see `package.rs`).
//! * `cargo xtask sync` — rewrites the crates' embedded copies of `configs/*.toml`,
//!   `README.md` and the licence texts from the originals (see `package.rs`).
//! * `cargo xtask ctgrind` — the constant-time check: the generic drivers under Valgrind
//!   memcheck with secrets marked undefined, and a negative control that must fail.
//! * `cargo xtask arm64` — the workspace cross-built for arm64 with Debian's toolchain
//!   (installed with apt when missing), clippy's MSRV check on it, and every test and
//!   `cryptoctl selftest` under `qemu-aarch64` on several CPU models (see `arm64.rs`).
//! * `cargo xtask bench` — criterion benches (`benches/criterion`, crate `cryptoreg-bench`).
//! * `cargo xtask peers` — the AEADs against ring and aws-lc-rs (`benches/peers`, its own
//!   workspace, which `ci` does not compile).
//! * `cargo xtask tls-bench` — TLS bulk transfer and handshakes with the cryptoreg provider
//!   against rustls's aws-lc-rs and ring providers (`benches/tls`, its own workspace too).

mod arm64;
mod asm;
mod ctgrind;
mod emu;
mod fault_injection;
mod package;
mod peers;
mod qemu_rerun;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

/// `cargo ARGS` in the workspace root (the same cargo that runs xtask), echoed.
fn cargo_command(args: &[&str]) -> Command {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    eprintln!("xtask: cargo {}", args.join(" "));
    let mut cmd = Command::new(cargo);
    cmd.args(args).current_dir(root());
    cmd
}

/// Runs a cargo command; `args` names it in the error.
fn status(mut cmd: Command, args: &[&str]) -> Result<(), String> {
    let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo {} failed ({status})", args.join(" ")))
    }
}

fn cargo(args: &[&str]) -> Result<(), String> {
    status(cargo_command(args), args)
}

/// The API docs of every published crate, as docs.rs would build them (all features),
/// with rustdoc's warnings (broken or private intra-doc links, bad HTML) as errors.
fn doc() -> Result<(), String> {
    let mut args = vec!["doc", "--no-deps", "--all-features"];
    for name in package::PUBLISHED {
        args.extend(["-p", name]);
    }
    let mut cmd = cargo_command(&args);
    cmd.env("RUSTDOCFLAGS", "-D warnings");
    eprintln!("xtask: (with RUSTDOCFLAGS=\"-D warnings\")");
    status(cmd, &args)
}

fn test() -> Result<(), String> {
    // `cargo test` builds the examples with the tests, before any test runs (under a
    // hashed name it does not copy to `examples/sectord`); the `sectord` integration test
    // runs that binary instead of starting a cargo build of its own (see
    // tests/sectord.rs). A separate `cargo build -p cryptoreg --example sectord` would
    // resolve features for one package and compile the dependency tree a second time.
    //
    // The default targets (doc tests included), not `--all-targets`: that builds each
    // example as a test harness (no `main` to run) instead of as the program. The
    // benches, which it added, run once each in test mode just after.
    let sectord = example_built_by(cargo_command(&["test", "--workspace"]), "sectord")?;
    let args = ["test", "--workspace"];
    let mut cmd = cargo_command(&args);
    cmd.env("CRYPTOREG_SECTORD_EXAMPLE", &sectord);
    eprintln!(
        "xtask: (with CRYPTOREG_SECTORD_EXAMPLE={})",
        sectord.display()
    );
    status(cmd, &args)?;
    cargo(&["test", "--workspace", "--benches"])?;
    // The TLS and QUIC provider's tests again on the lower rungs of the ladder (see its
    // `tests/common/mod.rs`): the ymm drivers a Zen 3 or Alder Lake takes, then the
    // generic drivers alone. Selected by test target under `--workspace`, so the features
    // resolve as in the run above and nothing is compiled again (`-p cryptoreg-rustls`
    // alone resolved them differently and rebuilt the whole tree: 85 s).
    for mask in ["avx512f", "sse2"] {
        let mut args = vec!["test", "--workspace"];
        for t in RUSTLS_TESTS {
            args.extend(["--test", t]);
        }
        let mut cmd = cargo_command(&args);
        cmd.env("CRYPTOREG_RUSTLS_TEST_MASK", mask);
        eprintln!("xtask: (with CRYPTOREG_RUSTLS_TEST_MASK={mask})");
        status(cmd, &args)?;
    }
    // The RustCrypto adapters exist only under the facade's `rustcrypto` feature: their
    // comparison tests and doc example, which the featureless runs above skip.
    cargo(&[
        "test",
        "-p",
        "cryptoreg",
        "--all-features",
        "--test",
        "rustcrypto",
    ])?;
    cargo(&["test", "-p", "cryptoreg", "--all-features", "--doc"])?;
    without_control()?;
    smallest_sets()?;
    // The fault-injection build proves the self-test gate end to end, in the library
    // and through the command-line tool.
    fault_injection::test(&root())
}

/// The integration tests of `cryptoreg-rustls` (no other workspace member has a test
/// target of these names).
const RUSTLS_TESTS: &[&str] = &["handshakes", "record_layer", "openssl_interop", "quinn"];

/// Runs `cmd` (a `cargo test` command line) with `--no-run`, which compiles everything
/// that command will run and the examples with it, and returns the path of the example
/// `name` it built, read from cargo's JSON messages (the diagnostics still go to stderr
/// as text). The same command without `--no-run` then compiles nothing.
pub fn example_built_by(mut cmd: Command, name: &str) -> Result<PathBuf, String> {
    cmd.args(["--no-run", "--message-format=json-render-diagnostics"])
        .stdout(std::process::Stdio::piped());
    eprintln!("xtask: (with --no-run: the build, then the tests; {name} from its JSON)");
    let out = cmd.output().map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!("building the tests failed ({})", out.status));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    example_in_messages(&stdout, name).ok_or_else(|| {
        format!("the test build made no example `{name}` (its required features off?)")
    })
}

/// The executable of example `name`, built as the program (not as a test harness, which
/// `--examples` or `--all-targets` would make of it), among cargo's
/// `--message-format=json` lines.
fn example_in_messages(messages: &str, name: &str) -> Option<PathBuf> {
    messages.lines().find_map(|line| {
        let v: serde_json::Value = serde_json::from_str(line).ok()?;
        let target = v.get("target")?;
        let is_example = target
            .get("kind")?
            .as_array()?
            .iter()
            .any(|k| k.as_str() == Some("example"));
        let as_harness = v.get("profile")?.get("test")?.as_bool()?;
        (v.get("reason")?.as_str()? == "compiler-artifact"
            && is_example
            && !as_harness
            && target.get("name")?.as_str()? == name)
            .then(|| v.get("executable")?.as_str().map(PathBuf::from))?
    })
}

/// The smallest sets of features a service can build: one family of algorithms, no
/// control socket, no adapters. Each builds, registers exactly its family and boots with
/// every driver passing (`tests/families.rs`).
fn smallest_sets() -> Result<(), String> {
    for family in ["aes", "chacha"] {
        cargo(&[
            "test",
            "-p",
            "cryptoreg",
            "--no-default-features",
            "--features",
            family,
            "--test",
            "families",
        ])?;
    }
    Ok(())
}

/// The facade without its default `control` feature, as a service that wants no socket
/// builds it: it compiles, its lookup and handle tests and its crate-page examples pass,
/// and nothing in its normal dependency tree is `nix` or `serde_json` (the socket's, and
/// the feature's reason to exist).
fn without_control() -> Result<(), String> {
    let no_default = [
        "-p",
        "cryptoreg",
        "--no-default-features",
        "--features",
        "aes,chacha",
    ];
    let mut args = vec!["test"];
    args.extend(no_default);
    args.extend(["--lib", "--test", "debug_and_errors", "--test", "clone"]);
    cargo(&args)?;
    // The crate page's examples too (the README's need the socket and are left out).
    let mut doc = vec!["test"];
    doc.extend(no_default);
    doc.push("--doc");
    cargo(&doc)?;
    let mut tree = vec!["tree", "-e", "normal", "--prefix", "none"];
    tree.extend(no_default);
    let out = cargo_command(&tree)
        .output()
        .map_err(|e| format!("cargo tree: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo tree failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    // The socket's own dependencies: `nix` and the JSON of its wire format.
    if let Some(line) = text
        .lines()
        .find(|l| l.starts_with("nix ") || l.starts_with("serde_json "))
    {
        return Err(format!(
            "cryptoreg without `control` still depends on {line}"
        ));
    }
    println!(
        "xtask: cryptoreg without `control`: tests pass, no nix or serde_json in its \
         dependencies"
    );
    Ok(())
}

/// The wall time of each step of `ci`, printed as a table when `ci` ends (passed or
/// failed: a failing step is the last row), so a contributor sees where the time goes.
struct StepTimes {
    rows: Vec<(&'static str, std::time::Duration, bool)>,
    start: std::time::Instant,
}

impl StepTimes {
    fn new() -> StepTimes {
        StepTimes {
            rows: Vec::new(),
            start: std::time::Instant::now(),
        }
    }

    /// Runs one step, timing it and announcing its time.
    fn step(
        &mut self,
        name: &'static str,
        f: impl FnOnce() -> Result<(), String>,
    ) -> Result<(), String> {
        let t = std::time::Instant::now();
        let r = f();
        let took = t.elapsed();
        eprintln!(
            "xtask: step {name}: {} in {:.0} s",
            if r.is_ok() { "ok" } else { "FAILED" },
            took.as_secs_f64()
        );
        self.rows.push((name, took, r.is_ok()));
        r
    }

    fn table(&self) -> String {
        let mut out =
            String::from("xtask ci: step times\n| step | wall | result |\n| --- | ---: | --- |\n");
        for (name, took, ok) in &self.rows {
            out.push_str(&format!(
                "| {name} | {:.0} s | {} |\n",
                took.as_secs_f64(),
                if *ok { "ok" } else { "FAILED" }
            ));
        }
        out.push_str(&format!(
            "| total | {:.0} s | |",
            self.start.elapsed().as_secs_f64()
        ));
        out
    }
}

fn ci() -> Result<(), String> {
    let mut times = StepTimes::new();
    let result = ci_steps(&mut times);
    println!("{}", times.table());
    result
}

fn ci_steps(t: &mut StepTimes) -> Result<(), String> {
    let root = root();
    t.step("fmt", || cargo(&["fmt", "--all", "--check"]))?;
    t.step("clippy", || {
        cargo(&[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ])?;
        // And with every feature on (the RustCrypto adapters).
        cargo(&[
            "clippy",
            "--workspace",
            "--all-targets",
            "--all-features",
            "--",
            "-D",
            "warnings",
        ])?;
        // Also the fault-injection build (there are no Cargo features to turn on).
        fault_injection::clippy(&root)
    })?;
    t.step("copies", || {
        package::check_copies(&root).map(|s| println!("{s}"))
    })?;
    t.step("doc", doc)?;
    t.step("test", test)?;
    t.step("no faulty driver shipped", || {
        fault_injection::all_features_build_ships_no_faulty_driver(&root).map(|s| println!("{s}"))
    })?;
    t.step("package", package::package)?;
    t.step("asm", || asm::run(&root).map(|s| println!("{s}")))?;
    t.step("emu", || emu::run(&root).map(|s| println!("{s}")))?;
    t.step("ctgrind", || ctgrind::run(&root).map(|s| println!("{s}")))?;
    t.step("arm64", || arm64::run(&root).map(|s| println!("{s}")))?;
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => ci(),
        Some("test") => test(),
        Some("emu") => emu::run(&root()).map(|s| println!("{s}")),
        Some("asm") => asm::run(&root()).map(|s| println!("{s}")),
        Some("arm64") => arm64::run(&root()).map(|s| println!("{s}")),
        Some("ctgrind") => ctgrind::run(&root()).map(|s| println!("{s}")),
        Some("doc") => doc(),
        Some("package") => package::package(),
        Some("sync") => package::sync_copies(&root()).map(|s| println!("{s}")),
        Some("bench") => cargo(&["bench", "-p", "cryptoreg-bench"]),
        Some("peers") => peers::run_bench(&root(), "peers", &args[1..]),
        Some("tls-bench") => peers::run_bench(&root(), "tls", &args[1..]),
        Some("limits") => peers::run_bench(&root(), "limits", &args[1..]),
        // Not for people: the runner `arm64` gives cargo (see `qemu_rerun.rs`).
        Some("qemu-run") => return qemu_rerun::main(&args[1..]),
        _ => Err(
            "usage: cargo xtask <ci|test|doc|package|emu|asm|arm64|ctgrind|sync|bench|peers|tls-bench|limits>"
                .to_string(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod step_times_tests {
    #[test]
    fn the_example_is_read_from_cargo_messages() {
        let messages = concat!(
            "{\"reason\":\"compiler-artifact\",\"target\":{\"kind\":[\"test\"],",
            "\"name\":\"sectord\"},\"profile\":{\"test\":true},",
            "\"executable\":\"/t/deps/sectord-1\"}\n",
            "{\"reason\":\"compiler-artifact\",\"target\":{\"kind\":[\"example\"],",
            "\"name\":\"sectord\"},\"profile\":{\"test\":true},",
            "\"executable\":\"/t/examples/sectord-harness\"}\n",
            "not json\n",
            "{\"reason\":\"compiler-artifact\",\"target\":{\"kind\":[\"example\"],",
            "\"name\":\"other\"},\"profile\":{\"test\":false},",
            "\"executable\":\"/t/examples/other-2\"}\n",
            "{\"reason\":\"compiler-artifact\",\"target\":{\"kind\":[\"example\"],",
            "\"name\":\"sectord\"},\"profile\":{\"test\":false},",
            "\"executable\":\"/t/examples/sectord-3\"}\n",
        );
        assert_eq!(
            super::example_in_messages(messages, "sectord"),
            Some(std::path::PathBuf::from("/t/examples/sectord-3"))
        );
        assert_eq!(super::example_in_messages(messages, "missing"), None);
    }

    #[test]
    fn the_table_has_every_step_and_marks_the_failing_one() {
        let mut t = super::StepTimes::new();
        assert!(t.step("one", || Ok(())).is_ok());
        assert_eq!(
            t.step("two", || Err("boom".into())),
            Err("boom".to_string())
        );
        let table = t.table();
        assert!(table.contains("| one | 0 s | ok |"), "{table}");
        assert!(table.contains("| two | 0 s | FAILED |"), "{table}");
        assert!(
            table.lines().last().unwrap().starts_with("| total | "),
            "{table}"
        );
    }
}
