//! The calibration cache file (`[selection] cache`): a restart skips the measurement.
//!
//! Calibration spends up to [`CALIBRATION_BUDGET`](super::CALIBRATION_BUDGET) per
//! algorithm; a service restarted often (a deploy, a crash loop) should not pay it each
//! time for figures that cannot have changed. The figures depend on the CPU, on the code
//! timed and on the sizes, so an entry is keyed by all three ([`CacheKey`]): the CPU's
//! architecture, vendor, brand string, family, model, stepping (arm64: the MIDR part) and
//! the feature set the registry runs with (after `[cpu] disable`); the build (this crate's
//! version and the running executable's inode, length, modification and status-change
//! times: a rebuilt, copied or replaced binary measures again); and the sizes. A cached algorithm is used only when
//! every candidate timed now is in it (a driver that failed or was disabled since is
//! simply left out; a new one means measuring again). What is kept are the figures and
//! the pairwise speedups, never the choice: the rule, with the priorities in force, is
//! applied to them as to a fresh measurement, so a cache file cannot promote a driver the
//! rule would not (an operator's priority, the CPU-model policy) and can only reorder
//! drivers that passed their self-tests.
//!
//! The file is TOML, at most 16 keys (the most recently written first), read with the
//! configuration reader's checks (a regular file, at most 1 MiB); a file of another
//! format version is ignored and replaced. It is written whole to a new temporary file
//! beside it (created exclusively, never through a link) and renamed over it, so a reader
//! never sees half a file;
//! two processes writing at once may drop each other's newest algorithm, which is then
//! measured again (the same holds for two registries of one process: no lock is held, so
//! none can be left held in a forked child). Any problem reading or writing it (missing directory, bad TOML,
//! another key) is logged and means measuring — never an error for the service.

use std::path::Path;

use serde::{Deserialize, Serialize};

use std::sync::atomic::{AtomicU64, Ordering};

use crate::config::Config;

use super::calibrate::Calibration;
use super::Registry;

/// The most keys (CPU, build, sizes) one file keeps.
const MAX_KEYS: usize = 16;

/// The file's format version; a file of another version is replaced.
const FORMAT: u32 = 1;

/// What an entry is valid for (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct CacheKey {
    arch: String,
    vendor: String,
    brand: String,
    family: u32,
    model: u32,
    stepping: u32,
    /// arm64: `implementer:part` from `MIDR_EL1`; empty elsewhere.
    midr: String,
    features: Vec<String>,
    build: String,
    sizes: Vec<usize>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    format: u32,
    #[serde(default)]
    entries: Vec<CacheEntry>,
}

#[derive(Debug, Serialize, Deserialize)]
struct CacheEntry {
    key: CacheKey,
    #[serde(default)]
    algorithms: Vec<Calibration>,
}

/// Numbers this process's temporary files (with the process id and the time, a name no
/// other writer picks).
static TEMP_FILES: AtomicU64 = AtomicU64::new(0);

/// The build's identity: this crate's version and the executable's device, inode, length,
/// modification and status-change times (`ctime`, which no tool can set back: a rebuilt,
/// copied or replaced binary differs even where build tools pin the modification time).
/// `None` when the executable cannot be inspected (then nothing is cached: an entry could
/// not be told from another build's).
fn build_id() -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let exe = std::env::current_exe().ok()?;
    let m = std::fs::metadata(exe).ok()?;
    Some(format!(
        "cryptoreg-registry {} exe dev {} ino {} {} bytes mtime {}.{:09} ctime {}.{:09}",
        env!("CARGO_PKG_VERSION"),
        m.dev(),
        m.ino(),
        m.len(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec()
    ))
}

impl CacheKey {
    fn new(reg: &Registry, build: String) -> CacheKey {
        let cpu = &reg.cpu;
        CacheKey {
            arch: cpu.arch.to_string(),
            vendor: cpu.vendor.clone(),
            brand: cpu.brand.clone().unwrap_or_default(),
            family: cpu.family,
            model: cpu.model,
            stepping: cpu.stepping,
            midr: cpu
                .arm
                .map(|a| format!("{:#x}:{:#x}", a.implementer, a.part))
                .unwrap_or_default(),
            features: reg
                .token
                .features()
                .names()
                .into_iter()
                .map(str::to_string)
                .collect(),
            build,
            sizes: reg.config.selection.sizes.clone(),
        }
    }
}

impl Registry {
    /// The cache file and this process's key, when `[selection] cache` is set and the
    /// registry runs on this machine's own identity (a simulated CPU's figures are this
    /// host's, not the preset's).
    fn cache_and_key(&self) -> Option<(&Path, CacheKey)> {
        let path = self.config.selection.cache.as_deref()?;
        if self.simulated {
            return None;
        }
        let Some(build) = build_id() else {
            tracing::warn!(
                target: "cryptoreg::calibrate",
                "the executable cannot be identified: the calibration cache is not used"
            );
            return None;
        };
        Some((path, CacheKey::new(self, build)))
    }

    /// The cached calibration of `name` for this CPU, build and sizes, if the file has
    /// one covering every driver in `drivers` (the candidates timed now); its candidates
    /// come back in the order of `drivers`, with `cached` set.
    pub(super) fn cached_calibration(&self, name: &str, drivers: &[String]) -> Option<Calibration> {
        let (path, key) = self.cache_and_key()?;
        let file = read(path).filter(|f| f.format == FORMAT)?;
        let entry = file.entries.into_iter().find(|e| e.key == key)?;
        let cached = entry.algorithms.into_iter().find(|c| c.name == name)?;
        cached.restricted_to(drivers)
    }

    /// Records `c` in the cache file (when one is configured), replacing what the file
    /// held for the same key and algorithm.
    pub(super) fn store_calibration(&self, c: &Calibration) {
        let Some((path, key)) = self.cache_and_key() else {
            return;
        };
        let mut file = read(path).unwrap_or_default();
        if file.format != FORMAT {
            file = CacheFile {
                format: FORMAT,
                entries: Vec::new(),
            };
        }
        let mut entry = match file.entries.iter().position(|e| e.key == key) {
            Some(i) => file.entries.remove(i),
            None => CacheEntry {
                key,
                algorithms: Vec::new(),
            },
        };
        entry.algorithms.retain(|a| a.name != c.name);
        let mut stored = c.clone();
        stored.choice = None;
        stored.cached = false;
        entry.algorithms.push(stored);
        entry.algorithms.sort_by(|a, b| a.name.cmp(&b.name));
        file.entries.insert(0, entry);
        file.entries.truncate(MAX_KEYS);
        if let Err(e) = write(path, &file) {
            tracing::warn!(
                target: "cryptoreg::calibrate",
                path = %path.display(),
                "the calibration cache was not written: {e}"
            );
        }
    }
}

/// The file's contents, or `None` (logged unless the file does not exist) when it cannot
/// be read or parsed.
fn read(path: &Path) -> Option<CacheFile> {
    if !path.exists() {
        return None;
    }
    let parsed = Config::read_text(path).and_then(|text| {
        toml::from_str::<CacheFile>(&text)
            .map_err(|e| crate::Error::Config(format!("{}: {e}", path.display())))
    });
    match parsed {
        Ok(f) => Some(f),
        Err(e) => {
            tracing::warn!(
                target: "cryptoreg::calibrate",
                path = %path.display(),
                "the calibration cache is unreadable, measuring instead: {e}"
            );
            None
        }
    }
}

/// Writes `file` to a new temporary file beside `path` (created exclusively: never
/// through a link or over another file), then renames it over `path`; the temporary file
/// is removed on any failure.
fn write(path: &Path, file: &CacheFile) -> std::io::Result<()> {
    use std::io::Write;
    let text = toml::to_string(file).map_err(std::io::Error::other)?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(
        ".{}.{}.{nanos}.tmp",
        std::process::id(),
        TEMP_FILES.fetch_add(1, Ordering::Relaxed)
    ));
    let tmp = std::path::PathBuf::from(tmp);
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::calibrate::Measured;

    fn key(build: &str, sizes: Vec<usize>) -> CacheKey {
        CacheKey {
            arch: "x86_64".into(),
            vendor: "GenuineIntel".into(),
            brand: "Xeon".into(),
            family: 6,
            model: 0xcf,
            stepping: 2,
            midr: String::new(),
            features: vec!["aes".into(), "avx2".into()],
            build: build.into(),
            sizes,
        }
    }

    #[test]
    fn keys_differ_by_build_sizes_and_features() {
        let a = key("b1", vec![1420]);
        assert_eq!(a, key("b1", vec![1420]));
        assert_ne!(a, key("b2", vec![1420]));
        assert_ne!(a, key("b1", vec![1420, 16384]));
        let mut masked = key("b1", vec![1420]);
        masked.features.pop();
        assert_ne!(a, masked);
    }

    #[test]
    fn a_file_round_trips_a_rewrite_replaces_it_and_nothing_else_is_left() {
        let dir = std::env::temp_dir().join(format!("cryptoreg-cache-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("calibration.toml");
        let c = Calibration {
            name: "chacha20".into(),
            sizes: vec![1420],
            candidates: vec![Measured {
                driver: "chacha20-generic".into(),
                priority: 100,
                mbps: vec![512.5],
                rounds: Vec::new(),
            }],
            rounds: 3,
            elapsed_ms: 20.5,
            choice: None,
            speedups: vec![vec![1.0]],
            cached: false,
        };
        let file = CacheFile {
            format: FORMAT,
            entries: vec![CacheEntry {
                key: key("b", vec![1420]),
                algorithms: vec![c.clone()],
            }],
        };
        write(&path, &file).unwrap();
        let back = read(&path).unwrap();
        assert_eq!(back.entries.len(), 1);
        assert_eq!(back.entries[0].key, key("b", vec![1420]));
        assert_eq!(back.entries[0].algorithms, vec![c]);
        // A second write replaces the first; nothing but the file is left behind.
        let mut second = file;
        second.entries[0].algorithms[0].rounds = 4;
        write(&path, &second).unwrap();
        assert_eq!(read(&path).unwrap().entries[0].algorithms[0].rounds, 4);
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("calibration.toml")]);
        std::fs::write(&path, "not toml [").unwrap();
        assert!(read(&path).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
