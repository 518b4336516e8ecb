//! `cargo xtask emu`: runs the AVX-512 VAES and ChaCha20 drivers (and the AVX2 / SSSE3
//! ones) under the Bochs CPU emulator and compares them byte for byte with native references.
//!
//! Steps, each of which fails loudly (an `Err` naming what is missing), never silently:
//!
//! 1. a Python 3 interpreter (`$PYTHON`, else `python3`) and a C compiler (`$CC`, else
//!    `cc`, for the glibc shim the emulator wheel needs);
//! 2. a virtual environment at `target/emu-venv` with `bochscpu-python==0.4.0` from PyPI
//!    (created / installed on first use, reused afterwards);
//! 3. `cargo build --release -p cryptoreg-emu` (the `cdylib` of C-ABI kernel exports);
//! 4. `emu/harness/test_vaes.py` (the VAES drivers) and `emu/harness/test_chacha.py` (the
//!    ChaCha20 ladder) on that library, once per emulated CPU model (Tiger Lake and
//!    Sapphire Rapids, and Arrow Lake for the non-AVX-512 drivers and the negative
//!    control), each ending with `N passed, M failed`: anything but `M == 0` and `N > 0`,
//!    or a non-zero exit, is an error.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The exact emulator wheel the harness is written against.
const WHEEL: &str = "bochscpu-python";
const WHEEL_VERSION: &str = "0.4.0";

/// `$CARGO_TARGET_DIR`, or `target/` under the workspace root.
pub fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                root.join(dir)
            }
        }
        None => root.join("target"),
    }
}

/// Builds the `cryptoreg-emu` cdylib in release mode and returns its path.
pub fn build_cdylib(root: &Path) -> Result<PathBuf, String> {
    if !cfg!(target_arch = "x86_64") {
        return Err("the VAES kernels exist only on x86_64".to_string());
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    eprintln!("xtask: cargo build --release -p cryptoreg-emu");
    let status = Command::new(&cargo)
        .args(["build", "--release", "-p", "cryptoreg-emu"])
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run {cargo}: {e}"))?;
    if !status.success() {
        return Err(format!("cargo build -p cryptoreg-emu failed ({status})"));
    }
    let lib = target_dir(root).join("release").join("libcryptoreg_emu.so");
    if !lib.is_file() {
        return Err(format!("{} was not built", lib.display()));
    }
    Ok(lib)
}

/// Runs `cmd`, returning its stdout, or an error with its stderr.
fn output(cmd: &mut Command, what: &str) -> Result<String, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("{what}: cannot start: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Makes sure `target/emu-venv` exists and holds the emulator wheel; returns its python.
fn venv_python(root: &Path) -> Result<PathBuf, String> {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string());
    let version = output(
        Command::new(&python).arg("--version"),
        &format!("`{python} --version` (Python 3 is required for `cargo xtask emu`)"),
    )?;
    eprintln!("xtask: emu: using {}", version.trim());

    let venv = target_dir(root).join("emu-venv");
    let vpython = venv.join("bin").join("python");
    if !vpython.is_file() {
        eprintln!("xtask: emu: creating {}", venv.display());
        output(
            Command::new(&python).arg("-m").arg("venv").arg(&venv),
            &format!(
                "`{python} -m venv {}` (on Debian/Ubuntu: apt-get install python3-venv)",
                venv.display()
            ),
        )?;
    }
    let probe = format!(
        "import importlib.metadata as m\ntry:\n    print(m.version('{WHEEL}'))\nexcept m.PackageNotFoundError:\n    print('none')"
    );
    let installed = output(
        Command::new(&vpython).arg("-c").arg(&probe),
        "probing the emulator wheel",
    )?;
    if installed.trim() != WHEEL_VERSION {
        eprintln!("xtask: emu: pip install {WHEEL}=={WHEEL_VERSION}");
        let spec = format!("{WHEEL}=={WHEEL_VERSION}");
        output(
            Command::new(&vpython).args([
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "-q",
                &spec,
            ]),
            &format!("pip install {spec} (PyPI must be reachable)"),
        )?;
    }
    Ok(vpython)
}

/// Parses `N passed, M failed` from the harness's output.
fn parse_counts(text: &str) -> Option<(u64, u64)> {
    text.lines().rev().find_map(|line| {
        let (p, f) = line.trim().split_once(" passed, ")?;
        let f = f.strip_suffix(" failed")?;
        Some((p.trim().parse().ok()?, f.trim().parse().ok()?))
    })
}

/// The harness runs, one process each (a second bochscpu Session in one process aborts
/// it): `(Bochs CPU model, drivers, expected to pass)`.
///
/// * Tiger Lake and Sapphire Rapids have AVX-512F/BW/VL, VAES and VPCLMULQDQ: every driver
///   must match the reference.
/// * Arrow Lake has VAES and VPCLMULQDQ on ymm but no AVX-512, like the Zen 3 CI machines:
///   the avx2 drivers must pass there (they use no AVX-512 instruction) ...
/// * (`aesni`, the SSE `gcm-aes-aesni` / `ghash-clmulni` entries, on all three models: each
///   has AES-NI, PCLMULQDQ and SSSE3.)
/// * ... and the avx10_512 drivers must fail there (invalid opcode): the negative control
///   that proves the emulator really enforces the selected model; on texts of at least
///   17 bytes (`@17`), since a request of one block or less runs on ymm VAES and 16-byte
///   loads and stores only, which need no EVEX encoding.
const RUNS: [(&str, &str, bool); 4] = [
    ("tigerlake", "avx2,avx10_256,avx10_512,aesni", true),
    ("sapphire_rapids", "avx2,avx10_256,avx10_512,aesni", true),
    ("arrow_lake", "avx2,aesni", true),
    ("arrow_lake", "avx10_512@17", false),
];

/// The ChaCha20 harness runs (`emu/harness/test_chacha.py`), as [`RUNS`]: every driver under
/// the AVX-512 models (with the ChaCha20-Poly1305 short path's keyed entries); ssse3, avx2
/// and keyed-avx2 under Arrow Lake (no AVX-512), where avx512vl, avx512f and keyed-avx512f
/// must fail every case (the negative control).
const CHACHA_RUNS: [(&str, &str, bool); 5] = [
    (
        "tigerlake",
        "ssse3,avx2,avx512vl,avx512f,keyed-avx2,keyed-avx512f",
        true,
    ),
    (
        "sapphire_rapids",
        "ssse3,avx2,avx512vl,avx512f,keyed-avx2,keyed-avx512f",
        true,
    ),
    ("arrow_lake", "ssse3,avx2,keyed-avx2", true),
    ("arrow_lake", "avx512vl", false),
    ("arrow_lake", "avx512f,keyed-avx512f", false),
];

/// One harness run: `(Bochs CPU model, drivers, expected to pass)`.
type Run = (&'static str, &'static str, bool);

/// Each harness script with its runs.
const HARNESSES: [(&str, &[Run]); 4] = [
    ("test_vaes.py", &RUNS),
    ("test_chacha.py", &CHACHA_RUNS),
    ("test_poly1305.py", &POLY1305_RUNS),
    ("test_rfc7539.py", &RFC7539_RUNS),
];

// --- Poly1305 (issue 9) ---

/// The Poly1305 harness runs (`emu/harness/test_poly1305.py`), as [`RUNS`]: Sapphire
/// Rapids and Tiger Lake have AVX-512F/BW/VL and IFMA (every driver must match the
/// reference); Arrow Lake has AVX2 only (the avx2 driver must pass, and the avx512 and
/// avx512ifma ones must fail every case: the negative control, on messages of at least 8
/// whole blocks (`@8`), since shorter ones run only the scalar rest of an entry).
const POLY1305_RUNS: [Run; 4] = [
    ("sapphire_rapids", "avx2,avx512,avx512ifma", true),
    ("tigerlake", "avx2,avx512,avx512ifma", true),
    ("arrow_lake", "avx2", true),
    ("arrow_lake", "avx512@8,avx512ifma@8", false),
];

/// The fused ChaCha20-Poly1305 harness runs (`emu/harness/test_rfc7539.py`): every driver
/// under the AVX-512 models (both have IFMA), avx2 under Arrow Lake, and the negative
/// control: avx512 and avx512ifma under Arrow Lake must fail every request of at least 256
/// text bytes (`@256`: long enough for the zmm ChaCha20 batch and the vector Poly1305
/// path).
const RFC7539_RUNS: [Run; 4] = [
    ("sapphire_rapids", "avx2,avx512,avx512ifma", true),
    ("tigerlake", "avx2,avx512,avx512ifma", true),
    ("arrow_lake", "avx2", true),
    ("arrow_lake", "avx512@256,avx512ifma@256", false),
];

// --- end Poly1305 ---

/// Runs the harness once; returns (passed, failed, detail line). Its output is echoed
/// when `echo` (the negative control's hundreds of expected failures are not).
fn run_model(
    root: &Path,
    script: &str,
    vpython: &Path,
    lib: &Path,
    model: &str,
    drivers: &str,
    echo: bool,
) -> Result<(u64, u64, String), String> {
    let script = root.join("emu").join("harness").join(script);
    if !script.is_file() {
        return Err(format!("{} is missing", script.display()));
    }
    let build_dir = target_dir(root).join("emu-venv").join("emu-build");
    eprintln!(
        "xtask: emu: {} {} --model {model} --drivers {drivers}",
        script.display(),
        lib.display()
    );
    let out = Command::new(vpython)
        .arg(&script)
        .arg(lib)
        .args(["--model", model, "--drivers", drivers])
        .env("EMU_BUILD_DIR", &build_dir)
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run the emulator harness: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if echo {
        print!("{stdout}");
        eprint!("{stderr}");
    }
    let detail = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("emu: model "))
        .unwrap_or("")
        .to_string();
    match parse_counts(&stdout) {
        Some((passed, failed)) => {
            if (failed == 0) != out.status.success() {
                return Err(format!(
                    "emulation harness under {model}: {failed} failed but exit {}",
                    out.status
                ));
            }
            Ok((passed, failed, detail))
        }
        None => Err(format!(
            "emulation harness under {model} printed no result line (exit {}); see its output above",
            out.status
        )),
    }
}

/// Runs the emulation check; `Ok` carries the summary line.
pub fn run(root: &Path) -> Result<String, String> {
    let vpython = venv_python(root)?;
    let lib = build_cdylib(root)?;
    let mut total = 0;
    let mut details = Vec::new();
    for (script, &(model, drivers, expect_pass)) in HARNESSES
        .iter()
        .flat_map(|(script, runs)| runs.iter().map(move |r| (*script, r)))
    {
        let (passed, failed, detail) =
            run_model(root, script, &vpython, &lib, model, drivers, expect_pass)?;
        if expect_pass {
            if failed != 0 || passed == 0 {
                return Err(format!(
                    "emulation check failed under {model} ({script}: {drivers}): {passed} passed, {failed} failed"
                ));
            }
            total += passed;
            details.push(detail);
        } else if passed != 0 || failed == 0 {
            return Err(format!(
                "negative control: {drivers} under {model} (no AVX-512) should fail every case, \
                 but {passed} passed and {failed} failed: is the emulator's CPU model applied?"
            ));
        } else {
            println!(
                "emu: negative control ok: {script} {drivers} under {model} fails all {failed} cases"
            );
        }
    }
    println!("emu: {total} passed, 0 failed");
    Ok(format!(
        "emu: {total} passed, 0 failed under Bochs ({}); negative control ok",
        details.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::parse_counts;

    #[test]
    fn counts_from_the_last_result_line() {
        assert_eq!(parse_counts("x\n12 passed, 0 failed\n"), Some((12, 0)));
        assert_eq!(parse_counts("1 passed, 3 failed"), Some((1, 3)));
        assert_eq!(parse_counts("nothing here"), None);
    }
}
