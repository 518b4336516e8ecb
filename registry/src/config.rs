//! Configuration: `configs/default.toml` is embedded; a service passes its own file or
//! sets `CRYPTOREG_CONFIG`. Unknown keys are errors that name the key and its line.
//!
//! A file must be a regular file after following symlinks, and is opened without blocking:
//! a FIFO, a device (`/dev/zero`, `/dev/stdin`), a socket or a directory is refused at
//! once, naming what it is, where opening a FIFO would wait forever for a writer. A file
//! is read up to [`MAX_CONFIG_BYTES`] (1 MiB) and refused beyond: a configuration is a
//! short list of overrides, and an unbounded read of a wrong path (a log file) would
//! exhaust memory before any parser could object. The parsed
//! configuration remembers where it came from and the line of every driver name it lists
//! (see [`ConfigSource`]), because those names can only be checked at boot, against the
//! registered drivers and templates, and an operator needs the file and line of a typo.
//! Driver names follow the grammar of [`crate::names`]; a template-shaped name
//! (`xts(ecb(aes-generic))`) must name a registered template over known drivers or
//! algorithms, so a typo in `[disable]` fails the boot instead of failing open.

pub(crate) mod names_check;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use crate::error::{Error, Result};
use crate::features::{Feature, Features};

/// The shipped defaults, embedded in every binary. The file is a copy, inside this crate so
/// that it packages, of the workspace's `configs/default.toml`; `cargo xtask ci` checks
/// that the two are identical.
pub const DEFAULT_CONFIG: &str = include_str!("../configs/default.toml");

/// The largest configuration file read, in bytes (1 MiB).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Environment variable naming a configuration file.
pub const CONFIG_ENV: &str = "CRYPTOREG_CONFIG";

/// How much self-testing happens at boot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum SelftestMode {
    /// No tests: every supported driver is resolvable untested (the kernel's
    /// `CONFIG_CRYPTO_MANAGER_DISABLE_TESTS`).
    Off,
    /// Known-answer vectors only.
    Kat,
    /// Known answers, then randomized differential tests against the generic driver.
    #[default]
    Full,
}

/// What a failed self-test does to the boot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum OnFailure {
    /// The driver is excluded; the boot goes on.
    #[default]
    Exclude,
    /// The boot fails with [`Error::BootAborted`].
    Abort,
}

/// When the drivers are self-tested.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum SelftestWhen {
    /// Every driver at boot, before the registry answers any request (the kernel's way,
    /// and the default): a failure is known, logged and reported before the service runs.
    #[default]
    Boot,
    /// Nothing at boot; the first request for an algorithm (an `alloc_*`, `resolve`,
    /// `explain` or `prepare` of its name, or of a template call over it) tests every
    /// concrete driver of that algorithm, the generic reference with them, and only then
    /// chooses. The choice is the one a boot-time test would give, whatever the order of
    /// requests, and no driver is ever handed out untested. For builds where a full test
    /// at boot is slow (the dev profile) or where a service uses few algorithms.
    FirstUse,
}

/// `[selftest]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct SelftestConfig {
    /// `off`, `kat` or `full`.
    pub mode: SelftestMode,
    /// `boot` or `first-use`.
    pub when: SelftestWhen,
    /// Randomized iterations per driver in `full` mode.
    pub fuzz_iterations: u32,
    /// `exclude` or `abort`.
    pub on_failure: OnFailure,
    /// Base seed of the randomized tests; absent means a fresh one per boot.
    pub seed: Option<u64>,
    /// Time budget of one driver's self-test in seconds: a test still running then fails
    /// with "timed out" and boot goes on. Generous by default (a full test takes
    /// milliseconds); at least 1.
    pub timeout_secs: u32,
    /// Test every driver on every CPU of the process's affinity mask (one pinned thread
    /// per CPU: the known answers on each, the randomized cases spread over them), so a
    /// core that computes wrong results fails the driver. Linux only; elsewhere, or when
    /// `false`, a driver is tested on whichever CPU its test thread lands.
    pub every_cpu: bool,
    /// Seconds between the starts of two background re-verification passes (see
    /// `Registry::start_rescan`); 0, the default, runs none. A pass re-tests the drivers
    /// in use (known answers and a few randomized cases) on every CPU in turn.
    pub rescan_secs: u32,
    /// The share of one CPU a background pass may use, in percent (1 to 100, default 1):
    /// after each test the pass sleeps long enough to keep to it.
    pub rescan_cpu_percent: u32,
}

impl Default for SelftestConfig {
    fn default() -> Self {
        SelftestConfig {
            mode: SelftestMode::Full,
            when: SelftestWhen::Boot,
            fuzz_iterations: 100,
            on_failure: OnFailure::Exclude,
            seed: None,
            timeout_secs: 60,
            every_cpu: true,
            rescan_secs: 0,
            rescan_cpu_percent: 1,
        }
    }
}

/// The most randomized iterations `full` mode accepts per driver: 1000 times the
/// kernel's default of 100, about a second of boot per driver at the sizes tested.
pub const MAX_FUZZ_ITERATIONS: u32 = 100_000;

/// The longest period of the background rescan accepted, in seconds (a day).
pub const MAX_RESCAN_SECS: u32 = 86_400;

/// The longest per-driver self-test budget accepted, in seconds.
pub const MAX_TIMEOUT_SECS: u32 = 3600;

impl SelftestConfig {
    /// Refuses settings that would weaken or stall the gate by accident: `full` with no
    /// randomized iteration (that is `kat`, and should say so), more iterations than
    /// [`MAX_FUZZ_ITERATIONS`], a time budget of 0 or over [`MAX_TIMEOUT_SECS`], and
    /// `on_failure = "abort"` with `when = "first-use"` (there is no boot left to abort
    /// when a failure is found).
    pub fn check(&self, origin: &str) -> Result<()> {
        if self.when == SelftestWhen::FirstUse && self.on_failure == OnFailure::Abort {
            return Err(Error::Config(format!(
                "{origin}: [selftest] on_failure = \"abort\" needs when = \"boot\": with \
                 when = \"first-use\" a failure is found after the boot, so a failed driver \
                 can only be excluded"
            )));
        }
        if self.mode == SelftestMode::Full && self.fuzz_iterations == 0 {
            return Err(Error::Config(format!(
                "{origin}: [selftest] fuzz_iterations = 0 with mode = \"full\" runs no \
                 randomized test; use mode = \"kat\" to test known answers only"
            )));
        }
        if self.fuzz_iterations > MAX_FUZZ_ITERATIONS {
            return Err(Error::Config(format!(
                "{origin}: [selftest] fuzz_iterations = {} is over the maximum {MAX_FUZZ_ITERATIONS}",
                self.fuzz_iterations
            )));
        }
        if !(1..=100).contains(&self.rescan_cpu_percent) {
            return Err(Error::Config(format!(
                "{origin}: [selftest] rescan_cpu_percent = {} is outside 1..=100",
                self.rescan_cpu_percent
            )));
        }
        if self.rescan_secs > MAX_RESCAN_SECS {
            return Err(Error::Config(format!(
                "{origin}: [selftest] rescan_secs = {} is over the maximum {MAX_RESCAN_SECS} \
                 (a day); 0 turns the rescan off",
                self.rescan_secs
            )));
        }
        if self.timeout_secs == 0 || self.timeout_secs > MAX_TIMEOUT_SECS {
            return Err(Error::Config(format!(
                "{origin}: [selftest] timeout_secs = {} is outside 1..={MAX_TIMEOUT_SECS}",
                self.timeout_secs
            )));
        }
        Ok(())
    }
}

/// `[selection]`: choosing among a name's drivers by measuring them here.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct SelectionConfig {
    /// Time the passed candidates of each algorithm before choosing (off by default):
    /// inside `prepare()` for the names a service prepares, at the first resolution for
    /// any other. A candidate ranked lower by priority is chosen only when it is faster by
    /// more than `margin_percent`; operator priorities and the CPU-model policy still win.
    pub calibrate: bool,
    /// The request sizes timed, in bytes (1 to [`MAX_CALIBRATION_SIZE`], at most 8).
    pub sizes: Vec<usize>,
    /// How much faster (geometric mean of the sizes' medians) a lower-priority candidate
    /// must be to be chosen, in percent (0 to 100).
    pub margin_percent: u32,
    /// A file that keeps the figures for the next start (none by default): keyed by the
    /// CPU (feature set, brand string, family, model, stepping), the build and the sizes,
    /// so a restart on the same machine and binary skips the measurement. Written
    /// atomically; unreadable or foreign contents mean measuring again, never an error.
    pub cache: Option<std::path::PathBuf>,
}

impl Default for SelectionConfig {
    fn default() -> Self {
        SelectionConfig {
            calibrate: false,
            sizes: vec![1420, 16384],
            margin_percent: 5,
            cache: None,
        }
    }
}

/// The largest request size calibration accepts (1 MiB).
pub const MAX_CALIBRATION_SIZE: usize = 1 << 20;

impl SelectionConfig {
    /// Refuses sizes that cannot be timed (none, 0, over 1 MiB, more than 8) and a margin
    /// over 100 %.
    pub fn check(&self, origin: &str) -> Result<()> {
        if self.sizes.is_empty()
            || self.sizes.len() > 8
            || self
                .sizes
                .iter()
                .any(|&s| s == 0 || s > MAX_CALIBRATION_SIZE)
        {
            return Err(Error::Config(format!(
                "{origin}: [selection] sizes = {:?}: give 1 to 8 sizes, each 1..={MAX_CALIBRATION_SIZE}",
                self.sizes
            )));
        }
        if self.margin_percent > 100 {
            return Err(Error::Config(format!(
                "{origin}: [selection] margin_percent = {} is outside 0..=100",
                self.margin_percent
            )));
        }
        if self
            .cache
            .as_ref()
            .is_some_and(|p| p.as_os_str().is_empty())
        {
            return Err(Error::Config(format!(
                "{origin}: [selection] cache = \"\": name a file, or leave the key out"
            )));
        }
        Ok(())
    }
}

/// `[disable]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct DisableConfig {
    /// Driver names that are never resolved.
    pub drivers: Vec<String>,
}

/// `[cpu]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct CpuConfig {
    /// Features to mask off, like `OPENSSL_ia32cap`.
    pub disable: Vec<String>,
}

/// The whole configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct Config {
    /// Self-test policy.
    pub selftest: SelftestConfig,
    /// Driver name -> priority overrides.
    pub priority: BTreeMap<String, u32>,
    /// Disabled drivers.
    pub disable: DisableConfig,
    /// CPU feature masks.
    pub cpu: CpuConfig,
    /// Choosing by measurement.
    pub selection: SelectionConfig,
    /// Where the text came from, for error messages about its driver names; `None` for a
    /// configuration built in code.
    #[serde(skip)]
    pub source: Option<Arc<ConfigSource>>,
}

/// Where a parsed configuration came from: its origin (a path, or a description) and the
/// line of each driver name in `[priority]` and `[disable] drivers`. Kept because driver
/// names are checked at boot, long after parsing, and the error must still point at the
/// file and line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigSource {
    /// The path or description given to [`Config::parse`].
    pub origin: String,
    /// `([priority] key or disabled driver, 1-based line)`, in file order.
    pub lines: Vec<(String, usize)>,
    /// The file it was read from ([`Config::from_file`]); `None` for text parsed in code
    /// or the embedded defaults. A reload re-reads this file.
    pub path: Option<std::path::PathBuf>,
}

impl ConfigSource {
    /// `origin, line N` for a name the configuration lists, else the origin alone.
    pub fn locate(&self, name: &str) -> String {
        match self.lines.iter().find(|(n, _)| n == name) {
            Some((_, line)) => format!("{}, line {line}", self.origin),
            None => self.origin.clone(),
        }
    }

    /// Finds the lines of the driver names with `toml`'s spans: a second, lenient parse
    /// of text the strict parse already accepted.
    fn of(text: &str, origin: &str) -> ConfigSource {
        #[derive(Deserialize, Default)]
        #[serde(default)]
        struct Names {
            priority: BTreeMap<Spanned<String>, toml::Value>,
            disable: DisableNames,
        }
        #[derive(Deserialize, Default)]
        #[serde(default)]
        struct DisableNames {
            drivers: Vec<Spanned<String>>,
        }
        let line = |at: usize| {
            text.as_bytes()[..at.min(text.len())]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1
        };
        let mut lines = Vec::new();
        if let Ok(names) = toml::from_str::<Names>(text) {
            for key in names.priority.keys().chain(&names.disable.drivers) {
                lines.push((key.get_ref().clone(), line(key.span().start)));
            }
        }
        lines.sort_by_key(|&(_, l)| l);
        ConfigSource {
            origin: origin.to_string(),
            lines,
            path: None,
        }
    }
}

impl Config {
    /// Parses TOML text. `origin` names the source in error messages.
    pub fn parse(text: &str, origin: &str) -> Result<Config> {
        let mut config: Config =
            toml::from_str(text).map_err(|e| Error::Config(format!("{origin}: {e}")))?;
        config.masked_features()?;
        config.selftest.check(origin)?;
        config.selection.check(origin)?;
        config.source = Some(Arc::new(ConfigSource::of(text, origin)));
        Ok(config)
    }

    /// The embedded defaults.
    pub fn embedded() -> Config {
        Config::parse(DEFAULT_CONFIG, "embedded configs/default.toml")
            .expect("the embedded default configuration parses (checked by a test)")
    }

    /// Reads a file (at most `MAX_CONFIG_BYTES`, 1 MiB).
    pub fn from_file(path: &Path) -> Result<Config> {
        let text = Config::read_text(path)?;
        let mut config = Config::parse(&text, &path.display().to_string())?;
        if let Some(src) = config.source.as_mut() {
            Arc::make_mut(src).path = Some(path.to_path_buf());
        }
        Ok(config)
    }

    /// The text of a configuration file, refused with [`Error::Config`] naming the file
    /// when it is not a regular file after following symlinks (a FIFO, a device such as
    /// `/dev/zero` or `/dev/stdin`, a socket or a directory: named at once, never waited
    /// on), larger than `MAX_CONFIG_BYTES` (1 MiB) or not UTF-8. The open does not block (a
    /// FIFO without a writer would block it forever) and the type is checked on the open
    /// descriptor, so what was checked is what is read.
    pub fn read_text(path: &Path) -> Result<String> {
        use std::os::unix::fs::OpenOptionsExt;
        let fail = |e: &dyn std::fmt::Display| Error::Config(format!("{}: {e}", path.display()));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(|e| match std::fs::metadata(path) {
                // A socket cannot be opened at all (ENXIO): say what it is instead.
                Ok(m) if !m.is_file() => fail(&format_args!(
                    "{}, not a regular file; a configuration must be a regular file",
                    file_kind(&m.file_type())
                )),
                _ => fail(&e),
            })?;
        let kind = file.metadata().map_err(|e| fail(&e))?.file_type();
        if !kind.is_file() {
            return Err(fail(&format_args!(
                "{}, not a regular file; a configuration must be a regular file",
                file_kind(&kind)
            )));
        }
        let mut bytes = Vec::new();
        file.take(MAX_CONFIG_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| fail(&e))?;
        if bytes.len() as u64 > MAX_CONFIG_BYTES {
            return Err(fail(&format_args!(
                "larger than 1 MiB ({MAX_CONFIG_BYTES} bytes), the limit of a configuration file"
            )));
        }
        String::from_utf8(bytes).map_err(|e| fail(&e))
    }

    /// The file named by `explicit`, else by `CRYPTOREG_CONFIG`, else the embedded
    /// defaults.
    pub fn load(explicit: Option<&Path>) -> Result<Config> {
        if let Some(p) = explicit {
            return Config::from_file(p);
        }
        match std::env::var_os(CONFIG_ENV) {
            Some(p) if !p.is_empty() => Config::from_file(Path::new(&p)),
            _ => Ok(Config::embedded()),
        }
    }

    /// `cpu.disable` as a feature set, with every feature built on a masked one
    /// ([`Features::with_dependents`]: `sse2` masks every x86 SIMD feature); an unknown
    /// name is an error.
    pub fn masked_features(&self) -> Result<Features> {
        let named: Features = self
            .cpu
            .disable
            .iter()
            .map(|n| {
                Feature::from_name(n)
                    .ok_or_else(|| Error::Config(format!("cpu.disable: unknown feature {n:?}")))
            })
            .collect::<Result<_>>()?;
        Ok(named.with_dependents())
    }
}

/// What a file that is not a regular file is, for an error message.
fn file_kind(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_parses_to_defaults() {
        let c = Config::embedded();
        assert_eq!(c.selftest.mode, SelftestMode::Full);
        assert_eq!(c.selftest.fuzz_iterations, 100);
        assert_eq!(c.selftest.on_failure, OnFailure::Exclude);
    }

    #[test]
    fn full_example_parses() {
        let c = Config::parse(
            r#"
[selftest]
mode = "kat"
fuzz_iterations = 7
on_failure = "abort"
[priority]
"xts-aes-vaes-avx10_512" = 900
[disable]
drivers = ["chacha20-avx512f"]
[cpu]
disable = ["avx512f"]
"#,
            "test",
        )
        .unwrap();
        assert_eq!(c.selftest.mode, SelftestMode::Kat);
        assert_eq!(c.priority["xts-aes-vaes-avx10_512"], 900);
        assert_eq!(c.disable.drivers, vec!["chacha20-avx512f"]);
        assert!(c.masked_features().unwrap().has(Feature::Avx512f));
    }

    #[test]
    fn unknown_key_names_key_and_line() {
        let err = Config::parse(
            "[selftest]\nmode = \"full\"\nfuzz_iteration = 3\n",
            "f.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("fuzz_iteration"), "{err}");
        assert!(err.contains("line 3"), "{err}");
    }

    /// A file under the system temp dir, removed on drop.
    struct TempFile(std::path::PathBuf);

    impl TempFile {
        fn new(tag: &str, bytes: &[u8]) -> TempFile {
            let p = std::env::temp_dir().join(format!(
                "cryptoreg-config-{tag}-{}.toml",
                std::process::id()
            ));
            std::fs::write(&p, bytes).unwrap();
            TempFile(p)
        }
    }

    impl Drop for TempFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    #[test]
    fn files_over_one_mib_are_refused() {
        let cap = usize::try_from(MAX_CONFIG_BYTES).unwrap();
        let mut at_cap = b"[selftest]\nmode = \"kat\"\n#".to_vec();
        at_cap.resize(cap, b'x');
        let f = TempFile::new("cap", &at_cap);
        assert_eq!(
            Config::from_file(&f.0).unwrap().selftest.mode,
            SelftestMode::Kat
        );

        at_cap.push(b'x');
        let f = TempFile::new("over", &at_cap);
        match Config::from_file(&f.0) {
            Err(Error::Config(m)) => {
                assert!(m.contains(&f.0.display().to_string()), "{m}");
                assert!(m.contains("larger than 1 MiB"), "{m}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn devices_are_refused_as_devices() {
        for dev in ["/dev/zero", "/dev/null", "/dev/stdin"] {
            match Config::from_file(Path::new(dev)) {
                Err(Error::Config(m)) => assert!(
                    m.starts_with(dev) && m.contains("device, not a regular file"),
                    "{m}"
                ),
                other => panic!("{dev}: {other:?}"),
            }
        }
    }

    /// A FIFO without a writer: refused at once (a blocking open would wait forever), and
    /// likewise a directory and a socket, each named for what it is.
    #[test]
    fn fifos_sockets_and_directories_are_refused_at_once() {
        let dir =
            std::env::temp_dir().join(format!("cryptoreg-config-kinds-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("fifo.toml");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let link = dir.join("link.toml");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        let sock = dir.join("sock.toml");
        let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let cases = [
            (fifo, "a FIFO"),
            (link, "a FIFO"),
            (sock, "a socket"),
            (dir.clone(), "a directory"),
        ];
        let paths: Vec<_> = cases.iter().map(|(p, _)| p.clone()).collect();
        // On another thread, so that a read that blocks fails the test instead of hanging.
        std::thread::spawn(move || {
            for p in &paths {
                let _ = tx.send(Config::from_file(p).map(|_| ()));
            }
        });
        for (p, what) in cases {
            match rx.recv_timeout(std::time::Duration::from_secs(5)) {
                Ok(Err(Error::Config(m))) => {
                    assert!(m.contains(&p.display().to_string()), "{m}");
                    assert!(m.contains(what) && m.contains("not a regular file"), "{m}");
                }
                Ok(other) => panic!("{}: {other:?}", p.display()),
                Err(_) => panic!("{}: reading it blocked", p.display()),
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn driver_names_remember_their_lines() {
        let c = Config::parse(
            "# x\n[priority]\n\"a\" = 1\n[disable]\ndrivers = [\n  \"b\",\n  \"c(d)\",\n]\n",
            "f.toml",
        )
        .unwrap();
        let src = c.source.unwrap();
        assert_eq!(src.locate("a"), "f.toml, line 3");
        assert_eq!(src.locate("c(d)"), "f.toml, line 7");
        assert_eq!(src.locate("zz"), "f.toml");
    }

    #[test]
    fn the_gate_cannot_be_weakened_by_accident() {
        let err = |t: &str| match Config::parse(t, "t") {
            Err(Error::Config(m)) => m,
            other => panic!("{t:?} accepted: {other:?}"),
        };
        assert!(err("[selftest]\nfuzz_iterations = 0\n").contains("use mode = \"kat\""));
        assert!(err("[selftest]\nfuzz_iterations = 100001\n").contains("maximum 100000"));
        assert!(err("[selection]\nsizes = []\n").contains("1 to 8 sizes"));
        assert!(err("[selection]\nsizes = [0]\n").contains("1 to 8 sizes"));
        assert!(err("[selection]\nsizes = [1048577]\n").contains("1 to 8 sizes"));
        assert!(err("[selection]\nmargin_percent = 101\n").contains("0..=100"));
        assert!(err("[selection]\ncache = \"\"\n").contains("name a file"));
        let sel = Config::parse("[selection]\ncalibrate = true\nsizes = [64]\n", "t").unwrap();
        assert!(sel.selection.calibrate);
        assert_eq!(
            (sel.selection.sizes.clone(), sel.selection.margin_percent),
            (vec![64], 5)
        );
        assert!(err("[selftest]\nrescan_cpu_percent = 0\n").contains("1..=100"));
        assert!(err("[selftest]\nrescan_cpu_percent = 101\n").contains("1..=100"));
        assert!(err("[selftest]\nrescan_secs = 86401\n").contains("a day"));
        let on = Config::parse("[selftest]\nrescan_secs = 5\nrescan_cpu_percent = 3\n", "t")
            .expect("a rescan every 5 s at 3 % is valid");
        assert_eq!(
            (on.selftest.rescan_secs, on.selftest.rescan_cpu_percent),
            (5, 3)
        );
        assert!(err("[selftest]\ntimeout_secs = 0\n").contains("timeout_secs"));
        assert!(err("[selftest]\ntimeout_secs = 3601\n").contains("timeout_secs"));
        // Known answers only is a choice, and says so.
        let kat = Config::parse("[selftest]\nmode = \"kat\"\nfuzz_iterations = 0\n", "t");
        assert!(kat.is_ok());
        assert!(Config::parse("[selftest]\nfuzz_iterations = 100000\n", "t").is_ok());
    }

    #[test]
    fn bad_values_are_errors() {
        assert!(Config::parse("[selftest]\nmode = \"sometimes\"\n", "t").is_err());
        assert!(Config::parse("[cpu]\ndisable = [\"avx9000\"]\n", "t").is_err());
        assert!(Config::parse("[bogus]\n", "t").is_err());
    }
}
