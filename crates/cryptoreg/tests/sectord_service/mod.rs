//! The `sectord` example as a service a test starts and talks to: where its binary is,
//! starting it, and its data protocol. Shared by `tests/sectord.rs` and the rescan's
//! fault-injection proof (`tests/rescan_fault.rs`).

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The size of one sector.
pub const SECTOR: usize = 4096;
/// The sectors the service is started with.
pub const SECTORS: u64 = 64;

/// Builds the example and returns its path: `<target>/<profile dir>/examples/sectord`,
/// next to this test's own `deps/` directory.
pub fn sectord_binary() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| match std::env::var_os(PREBUILT_VAR) {
            Some(path) => {
                let bin = PathBuf::from(path);
                assert!(
                    bin.is_file(),
                    "{PREBUILT_VAR}={} names no file: build it with `cargo build -p \
                     cryptoreg --example sectord --profile test`, or unset the variable",
                    bin.display()
                );
                bin
            }
            None => build_sectord(),
        })
        .clone()
}

/// Names the example binary the test command built beforehand (see the module docs).
const PREBUILT_VAR: &str = "CRYPTOREG_SECTORD_EXAMPLE";

fn build_sectord() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap().to_path_buf();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "-p", "cryptoreg", "--example", "sectord"]);
    match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("release") => cmd.arg("--release"),
        _ => cmd.args(["--profile", "test"]),
    };
    // The same target directory as this test binary, wherever it is; a cross build
    // (`cargo xtask arm64`: `<dir>/aarch64-unknown-linux-gnu/debug/deps`) builds the
    // example for the same target.
    let above = profile_dir.parent().unwrap();
    match cross_triple().filter(|t| above.file_name().and_then(|n| n.to_str()) == Some(*t)) {
        Some(triple) => {
            cmd.args(["--target", triple]);
            cmd.env("CARGO_TARGET_DIR", above.parent().unwrap());
        }
        None => {
            cmd.env("CARGO_TARGET_DIR", above);
        }
    }
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    let status = cmd.status().expect("cargo runs");
    assert!(status.success(), "building the sectord example failed");
    let bin = profile_dir.join("examples").join("sectord");
    assert!(bin.exists(), "{} missing after the build", bin.display());
    bin
}

/// The target triple of a cross build this test may run in (`cargo xtask arm64`).
fn cross_triple() -> Option<&'static str> {
    cfg!(all(
        target_arch = "aarch64",
        target_os = "linux",
        target_env = "gnu"
    ))
    .then_some("aarch64-unknown-linux-gnu")
}

/// A command that runs `bin`, through the runner cargo was given for this target when
/// there is one (`CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER`: an emulated process
/// cannot exec an arm64 binary itself without a host-wide binfmt registration).
pub fn through_runner(bin: &Path) -> Command {
    let words: Vec<String> = cross_triple()
        .and_then(|_| std::env::var("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER").ok())
        .map(|r| r.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    match words.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(bin);
            c
        }
        None => Command::new(bin),
    }
}

pub struct Service {
    pub child: Child,
    pub dir: PathBuf,
}

impl Service {
    pub fn ctl(&self) -> PathBuf {
        self.dir.join("ctl").join("ctl.sock")
    }
    pub fn data(&self) -> PathBuf {
        self.dir.join("data.sock")
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub fn start(bin: &Path, dir: PathBuf, config: &Path, key: &Path) -> Service {
    start_with_env(bin, dir, config, key, &[])
}

/// [`start`] with more environment variables for the service.
pub fn start_with_env(
    bin: &Path,
    dir: PathBuf,
    config: &Path,
    key: &Path,
    env: &[(&str, &std::ffi::OsStr)],
) -> Service {
    std::fs::create_dir_all(&dir).unwrap();
    let child = through_runner(bin)
        .envs(env.iter().copied())
        .args(["--sectors", &SECTORS.to_string(), "--store"])
        .arg(dir.join("store"))
        .arg("--socket")
        .arg(dir.join("ctl").join("ctl.sock"))
        .arg("--data")
        .arg(dir.join("data.sock"))
        .arg("--key-file")
        .arg(key)
        .env("CRYPTOREG_CONFIG", config)
        .stdin(Stdio::null())
        .spawn()
        .expect("sectord starts");
    let mut svc = Service { child, dir };
    let deadline = Instant::now() + Duration::from_secs(120);
    while UnixStream::connect(svc.data()).is_err() || !svc.ctl().exists() {
        if let Some(status) = svc.child.try_wait().unwrap() {
            panic!("sectord exited at start: {status} (its stderr is above)");
        }
        assert!(Instant::now() < deadline, "sectord did not come up");
        std::thread::sleep(Duration::from_millis(50));
    }
    svc
}

/// One data-protocol connection.
pub struct Conn {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
}

impl Conn {
    pub fn new(path: &Path) -> Conn {
        let s = UnixStream::connect(path).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        Conn {
            reader: BufReader::new(s.try_clone().unwrap()),
            writer: s,
        }
    }
    pub fn call(&mut self, line: &str) -> String {
        self.writer.write_all(line.as_bytes()).unwrap();
        self.writer.write_all(b"\n").unwrap();
        let mut a = String::new();
        self.reader.read_line(&mut a).unwrap();
        let a = a.trim_end().to_string();
        assert!(a.starts_with("OK"), "{line:.40}... -> {a}");
        a
    }
    pub fn write(&mut self, sector: u64, data: &[u8]) {
        self.call(&format!("WRITE {sector} {}", hex::encode(data)));
    }
    pub fn read(&mut self, sector: u64) -> Vec<u8> {
        hex::decode(&self.call(&format!("READ {sector}"))[3..]).unwrap()
    }
    pub fn driver(&mut self) -> String {
        self.call("DRIVER")[3..].to_string()
    }
}
