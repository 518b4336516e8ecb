//! Helpers for the tests that run the built `cryptoctl` binary: temporary configuration
//! files and JSON parsing of its output.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

/// Self-tests off: fast boots that need no test runner.
pub const OFF: &str = "[selftest]\nmode = \"off\"\n";

/// Known answers only: drivers end up `passed` without the randomized tests' time.
pub const KAT: &str = "[selftest]\nmode = \"kat\"\n";

/// A directory under the system temp dir, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    /// A fresh, unique directory.
    pub fn new(tag: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "cryptoctl-test-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// Writes `text` to `name` inside the directory and returns its path.
    pub fn file(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The binary, with `CRYPTOREG_CONFIG` cleared so the caller's environment cannot leak in.
pub fn cryptoctl() -> Command {
    let mut c = through_runner(env!("CARGO_BIN_EXE_cryptoctl"));
    c.env_remove("CRYPTOREG_CONFIG");
    c
}

/// The runner cargo was told to run this target's binaries with, when one is set
/// (`CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L / -cpu max"` for the
/// emulated arm64 run: an emulated process cannot exec an arm64 binary itself without a
/// host-wide binfmt registration).
pub fn runner() -> Option<Vec<String>> {
    let var = if cfg!(all(
        target_arch = "aarch64",
        target_os = "linux",
        target_env = "gnu"
    )) {
        "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER"
    } else {
        return None;
    };
    let words: Vec<String> = std::env::var(var)
        .ok()?
        .split_whitespace()
        .map(str::to_string)
        .collect();
    (!words.is_empty()).then_some(words)
}

/// A command that runs `exe`, through the configured [`runner`] when there is one.
pub fn through_runner(exe: &str) -> Command {
    match runner() {
        Some(words) => {
            let mut c = Command::new(&words[0]);
            c.args(&words[1..]).arg(exe);
            c
        }
        None => Command::new(exe),
    }
}

/// Runs `cryptoctl ARGS`.
pub fn run(args: &[&str]) -> Output {
    cryptoctl().args(args).output().expect("cryptoctl runs")
}

/// Runs `cryptoctl ARGS`, asserts success, and parses stdout as JSON.
pub fn json(args: &[&str]) -> Value {
    let out = run(args);
    assert!(
        out.status.success(),
        "cryptoctl {args:?} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "cryptoctl {args:?}: not JSON ({e}):\n{}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Runs `cryptoctl ARGS`, asserts success and returns stdout as text.
pub fn text(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "cryptoctl {args:?} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `cryptoctl ARGS`, asserts exit status `code` and returns stderr.
pub fn fails(args: &[&str], code: i32) -> String {
    let out = run(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(code),
        "cryptoctl {args:?}: stdout {} stderr {stderr}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.contains("RUST_BACKTRACE"), "{stderr}");
    stderr
}

/// The `list --json` entry for `driver`.
pub fn entry<'a>(list: &'a Value, driver: &str) -> &'a Value {
    list.as_array()
        .expect("list is an array")
        .iter()
        .find(|e| e["driver"] == driver)
        .unwrap_or_else(|| panic!("{driver} not listed in {list:#}"))
}

/// `path` as a `&str` argument.
pub fn arg(path: &Path) -> &str {
    path.to_str().expect("temp paths are UTF-8")
}
