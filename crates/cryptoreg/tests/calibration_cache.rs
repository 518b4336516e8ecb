//! The calibration cache file (`[selection] cache`): a restart of the same binary on the
//! same CPU with the same sizes reads the figures instead of measuring; the figures are
//! data the rule still judges (an operator's priority wins over them); another key, a
//! candidate the file does not cover, or an unreadable file means measuring again, and
//! the file is rewritten.

mod common;

use std::path::{Path, PathBuf};

use cryptoreg::Registry;

/// An algorithm with at least two concrete drivers on every architecture.
const ALG: &str = "chacha20";

/// A fresh directory for one test's cache file, removed on drop.
struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let dir = std::env::temp_dir().join(format!(
            "cryptoreg-calibration-cache-{tag}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }

    fn file(&self) -> PathBuf {
        self.0.join("calibration.toml")
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A registry with calibration on and `cache`, `extra` before `[selection]` and
/// `selection` inside it.
fn boot_at(cache: &Path, extra: &str, selection: &str) -> Registry {
    common::boot(
        &common::kat_config(&format!(
            "\n{extra}[selection]\ncalibrate = true\ncache = {:?}\n{selection}",
            cache.display().to_string()
        )),
        None,
    )
}

fn boot_with(cache: &Path, extra: &str) -> Registry {
    boot_at(cache, extra, "")
}

fn calibrated(reg: &Registry) -> cryptoreg::Calibration {
    reg.resolve(ALG).unwrap();
    reg.calibration(ALG)
        .expect("calibrated at the first resolution")
}

fn drivers(c: &cryptoreg::Calibration) -> Vec<String> {
    c.candidates.iter().map(|m| m.driver.clone()).collect()
}

#[test]
fn a_restart_reads_the_figures_instead_of_measuring() {
    let dir = Dir::new("restart");
    let first = calibrated(&boot_with(&dir.file(), ""));
    assert!(!first.cached, "{first}");
    let text = std::fs::read_to_string(dir.file()).expect("the measurement was written");
    assert!(text.contains("name = \"chacha20\""), "{text}");
    // The temporary file was renamed, not left behind.
    assert_eq!(std::fs::read_dir(&dir.0).unwrap().count(), 1);

    let reg = boot_with(&dir.file(), "");
    let again = calibrated(&reg);
    assert!(again.cached, "{again}");
    assert_eq!(drivers(&again), drivers(&first));
    assert_eq!(again.rounds, first.rounds);
    assert_eq!(again.elapsed_ms, first.elapsed_ms);
    for (a, b) in again.candidates.iter().zip(&first.candidates) {
        assert_eq!(a.mbps, b.mbps, "{again}\n{first}");
    }
    assert_eq!(again.speedups, first.speedups);
    assert_eq!(again.choice, first.choice);
    assert_eq!(
        reg.resolve(ALG).unwrap().driver(),
        first.choice.as_deref().unwrap()
    );
    assert!(
        again.to_string().contains("(from the cache file)"),
        "{again}"
    );
    let notes = reg.selftest_report().notes.join("\n");
    assert!(notes.contains("at most 20 ms"), "{notes}");
    assert!(
        notes.contains("1 algorithm(s) so far, 1 of them from the cache file"),
        "{notes}"
    );
    // `measure` always measures.
    assert!(!reg.measure(ALG).unwrap().cached);
}

/// Rewrites the cached figures of `ALG` so that its last candidate (the ladder's lowest)
/// ran `factor` times faster than every other.
fn make_last_faster(path: &Path, factor: f64) -> String {
    let mut file: toml::Table = std::fs::read_to_string(path).unwrap().parse().unwrap();
    let entries = file["entries"].as_array_mut().unwrap();
    let algs = entries[0]["algorithms"].as_array_mut().unwrap();
    let alg = algs
        .iter_mut()
        .find(|a| a["name"].as_str() == Some(ALG))
        .unwrap();
    let n = alg["candidates"].as_array().unwrap().len();
    let last = n - 1;
    let speedups = alg["speedups"].as_array_mut().unwrap();
    for (i, row) in speedups.iter_mut().enumerate() {
        let row = row.as_array_mut().unwrap();
        for (j, v) in row.iter_mut().enumerate() {
            if i == last && j != last {
                *v = toml::Value::Float(factor);
            } else if j == last && i != last {
                *v = toml::Value::Float(1.0 / factor);
            }
        }
    }
    let name = alg["candidates"][last]["driver"]
        .as_str()
        .unwrap()
        .to_string();
    std::fs::write(path, toml::to_string(&file).unwrap()).unwrap();
    name
}

#[test]
fn cached_figures_are_data_the_rule_still_judges() {
    let dir = Dir::new("rule");
    let first = calibrated(&boot_with(&dir.file(), ""));
    assert!(first.candidates.len() >= 2, "{first}");
    let leader = first.candidates[0].driver.clone();
    // The file says the ladder's lowest rung is ten times faster: a restart believes it
    // (it did not measure), and the rule promotes that driver.
    let slowest = make_last_faster(&dir.file(), 10.0);
    let reg = boot_with(&dir.file(), "");
    assert_eq!(reg.resolve(ALG).unwrap().driver(), slowest);
    assert!(reg.calibration(ALG).unwrap().cached);
    let ex = reg.explain(ALG);
    let chosen = ex.candidates.iter().find(|c| c.driver == slowest).unwrap();
    assert!(chosen.verdict.contains("calibrated"), "{ex:?}");
    // An operator's priority on the leader still wins over the file.
    let reg = boot_with(&dir.file(), &format!("[priority]\n\"{leader}\" = 60000\n"));
    assert_eq!(reg.resolve(ALG).unwrap().driver(), leader);
    assert!(reg.calibration(ALG).unwrap().cached);
}

#[test]
fn another_key_or_an_uncovered_candidate_measures_again() {
    let dir = Dir::new("key");
    let first = calibrated(&boot_with(&dir.file(), ""));
    // Other sizes are another key: measured, and kept beside the first entry.
    let other = calibrated(&boot_at(&dir.file(), "", "sizes = [4096]\n"));
    assert!(!other.cached, "{other}");
    let text = std::fs::read_to_string(dir.file()).unwrap();
    assert_eq!(text.matches("[[entries]]").count(), 2, "{text}");
    // A driver disabled since leaves a subset the file covers.
    let last = first.candidates.last().unwrap().driver.clone();
    let reg = boot_with(&dir.file(), "");
    reg.disable(&last).unwrap();
    let fewer = calibrated(&reg);
    assert!(fewer.cached, "{fewer}");
    assert_eq!(
        drivers(&fewer),
        drivers(&first)[..first.candidates.len() - 1]
    );
    assert_eq!(fewer.speedups.len(), first.candidates.len() - 1);
    // A candidate the file does not cover means measuring: drop the last one from it.
    let mut file: toml::Table = text.parse().unwrap();
    for entry in file["entries"].as_array_mut().unwrap() {
        for alg in entry["algorithms"].as_array_mut().unwrap() {
            alg["candidates"].as_array_mut().unwrap().pop();
            alg["speedups"] = toml::Value::Array(Vec::new());
        }
    }
    std::fs::write(dir.file(), toml::to_string(&file).unwrap()).unwrap();
    let again = calibrated(&boot_with(&dir.file(), ""));
    assert!(!again.cached, "{again}");
    assert_eq!(drivers(&again), drivers(&first));
}

#[test]
fn an_unreadable_file_means_measuring_and_is_replaced() {
    let dir = Dir::new("garbage");
    std::fs::write(dir.file(), "this is [not toml").unwrap();
    let reg = boot_with(&dir.file(), "");
    let c = calibrated(&reg);
    assert!(!c.cached, "{c}");
    let text = std::fs::read_to_string(dir.file()).unwrap();
    assert!(text.contains("name = \"chacha20\""), "{text}");
    assert!(calibrated(&boot_with(&dir.file(), "")).cached);
    // A file of another format version is ignored, measured over and replaced.
    let text = std::fs::read_to_string(dir.file()).unwrap();
    assert!(text.starts_with("format = 1\n"), "{text}");
    std::fs::write(dir.file(), text.replacen("format = 1", "format = 99", 1)).unwrap();
    assert!(!calibrated(&boot_with(&dir.file(), "")).cached);
    assert!(std::fs::read_to_string(dir.file())
        .unwrap()
        .starts_with("format = 1\n"));
    // A cache file in a directory that does not exist: measured, nothing written, no error.
    let missing = dir.0.join("no-such-dir").join("calibration.toml");
    let c = calibrated(&boot_with(&missing, ""));
    assert!(!c.cached && c.choice.is_some(), "{c}");
    assert!(!missing.exists());
}
