//! Reports: listings (`cryptoctl list`, a `/proc/crypto` text), `explain` and the boot's
//! self-test report. Data first (serializable), text on top.

use std::collections::BTreeSet;

use crate::alg::{AlgType, DriverInfo};
use crate::config::SelftestMode;
use crate::policy::ZMM_DEMOTED_PRIORITY;

use super::resolve::candidate_order;
use super::{Entry, Inner, Registry, TestState};

/// A word of a fixed vocabulary (a state, a type, a feature name). An alias so that
/// serde's derive does not take the fields for strings borrowed from the input.
type Word = &'static str;

/// One driver in a listing (`cryptoctl list`, `/proc/crypto`).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct ListEntry {
    /// Algorithm name.
    pub name: String,
    /// Driver name.
    pub driver: String,
    /// `cipher`, `skcipher`, `aead` or `hash`.
    #[serde(rename = "type")]
    #[serde(deserialize_with = "wire::alg_type")]
    pub alg_type: Word,
    /// Effective priority.
    pub priority: u32,
    /// Base priority.
    pub base_priority: u32,
    /// `passed`, `failed`, `unsupported`, `untested`, `testing` or `disabled`.
    #[serde(deserialize_with = "wire::state")]
    pub state: Word,
    /// Uses 512-bit registers.
    pub uses_zmm: bool,
    /// Required feature names.
    #[serde(deserialize_with = "wire::features")]
    pub requires: Vec<Word>,
    /// Features the (possibly simulated) CPU lacks.
    #[serde(deserialize_with = "wire::features")]
    pub missing: Vec<Word>,
    /// Live handles.
    pub refcnt: usize,
    /// Template instance (built on demand) rather than a concrete driver.
    pub instance: bool,
    /// Checks run by the self-test.
    pub tests: usize,
    /// Replayable failure lines.
    pub failures: Vec<String>,
    /// Self-test wall time in milliseconds.
    pub selftest_ms: f64,
    /// The architecture whose instructions the driver executes (`x86_64`, `aarch64`),
    /// `None` for a portable driver. Every architecture's records are compiled everywhere
    /// (so a plan for another CPU shows its ladder); listings hide the other
    /// architecture's unless asked.
    #[serde(default)]
    pub arch: Option<String>,
    /// Block size in bytes (1 for stream ciphers and AEADs over them), as `/proc/crypto`'s
    /// `blocksize`.
    #[serde(default)]
    pub blocksize: usize,
    /// Smallest key in bytes (`min keysize`).
    #[serde(default)]
    pub min_keysize: usize,
    /// Largest key in bytes (`max keysize`).
    #[serde(default)]
    pub max_keysize: usize,
    /// IV or nonce size in bytes (`ivsize`).
    #[serde(default)]
    pub ivsize: usize,
    /// Largest tag of an AEAD (`maxauthsize`); `None` for the other types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maxauthsize: Option<usize>,
    /// Digest size of a hash (`digestsize`); `None` for the other types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digestsize: Option<usize>,
}

/// One driver's counters (`stats` on the control socket). Requests and bytes are summed
/// over the driver's live handles and the handles already dropped; see the registry's
/// counting notes on [`Registry::stats`].
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct DriverStatsReport {
    /// Driver name.
    pub driver: String,
    /// Algorithm name.
    pub name: String,
    /// Handles allocated since boot (for a template instance, over every build of it:
    /// the counts survive the invalidations that drop and rebuild it).
    pub allocations: u64,
    /// Live handles.
    pub refcnt: usize,
    /// Requests processed.
    pub requests: u64,
    /// Bytes processed (text and AAD for AEADs, data for hashes).
    pub bytes: u64,
    /// Self-test state, as in [`ListEntry::state`], or `retired` for a template instance
    /// an invalidation dropped and nothing rebuilt, while handles to it live.
    pub state: String,
    /// Self-test wall time in milliseconds.
    pub selftest_ms: f64,
    /// Re-tests by the rescan (one per CPU tested on; see [`Registry::rescan`]), kept by
    /// driver name across invalidations.
    #[serde(default)]
    pub rescans: u64,
    /// Re-tests by the rescan that failed.
    #[serde(default)]
    pub rescan_failures: u64,
}

/// Deserialization of the fixed vocabularies (states, types, modes, feature names) back
/// into the `&'static str`s the report types carry, so a report read from a live
/// process's control socket is the same type as one built here. An unknown word is an
/// error, never a leaked string.
mod wire {
    use serde::de::{Deserializer, Error};
    use serde::Deserialize;

    fn one_of<'de, D: Deserializer<'de>>(
        d: D,
        words: &[&'static str],
        what: &str,
    ) -> Result<&'static str, D::Error> {
        let s = String::deserialize(d)?;
        words
            .iter()
            .find(|w| **w == s)
            .copied()
            .ok_or_else(|| D::Error::custom(format!("unknown {what} {s:?}")))
    }

    pub(super) fn state<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
        one_of(
            d,
            &[
                "passed",
                "failed",
                "unsupported",
                "untested",
                "testing",
                "disabled",
            ],
            "state",
        )
    }

    pub(super) fn alg_type<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
        one_of(d, &["cipher", "skcipher", "aead", "hash"], "type")
    }

    pub(super) fn mode<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
        one_of(d, &["off", "kat", "full"], "self-test mode")
    }

    pub(super) fn features<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<&'static str>, D::Error> {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|n| {
                crate::features::Feature::from_name(n)
                    .map(|f| f.name())
                    .ok_or_else(|| D::Error::custom(format!("unknown feature {n:?}")))
            })
            .collect()
    }
}

impl ListEntry {
    /// The `/proc/crypto`-style text of a listing (also for a listing fetched from a
    /// live process's control socket).
    pub fn proc_crypto(entries: &[ListEntry]) -> String {
        let mut s = String::new();
        for e in entries {
            let module = if e.instance {
                "template"
            } else {
                "cryptoreg-algos"
            };
            s.push_str(&format!(
                "name         : {}\ndriver       : {}\nmodule       : {}\npriority     : {}\nrefcnt       : {}\nselftest     : {}\ntype         : {}\n",
                e.name, e.driver, module, e.priority, e.refcnt, e.state, e.alg_type,
            ));
            // The size lines the kernel prints for each type (its `crypto_*_show`).
            s.push_str(&format!("blocksize    : {}\n", e.blocksize));
            match e.alg_type {
                "cipher" | "skcipher" => s.push_str(&format!(
                    "min keysize  : {}\nmax keysize  : {}\n",
                    e.min_keysize, e.max_keysize
                )),
                _ => {}
            }
            match e.alg_type {
                "skcipher" | "aead" => s.push_str(&format!("ivsize       : {}\n", e.ivsize)),
                _ => {}
            }
            if let Some(n) = e.maxauthsize {
                s.push_str(&format!("maxauthsize  : {n}\n"));
            }
            if let Some(n) = e.digestsize {
                s.push_str(&format!("digestsize   : {n}\n"));
            }
            s.push_str(&format!(
                "uses_zmm     : {}\nrequires     : {}\n\n",
                if e.uses_zmm { "yes" } else { "no" },
                e.requires.join(" "),
            ));
        }
        s
    }
}

/// One candidate in an [`Explanation`].
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Candidate {
    /// Driver name.
    pub driver: String,
    /// A template instance rather than a concrete driver (at equal priority, concrete
    /// drivers come first).
    pub instance: bool,
    /// Effective priority.
    pub priority: u32,
    /// Base priority.
    pub base_priority: u32,
    /// State, as in [`ListEntry::state`].
    #[serde(deserialize_with = "wire::state")]
    pub state: Word,
    /// Why it was or was not chosen, in words.
    pub verdict: String,
    /// With `[selection] calibrate`, its measured MB/s at each calibration size (see
    /// [`Registry::calibration`]); empty when it was not measured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mbps: Vec<f64>,
}

/// The answer of [`Registry::explain`]: every candidate for a name and its verdict.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Explanation {
    /// The name asked about.
    pub name: String,
    /// The driver that would be handed out, if any.
    pub chosen: Option<String>,
    /// Why nothing was chosen, if so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// All candidates, best first.
    pub candidates: Vec<Candidate>,
}

/// The boot's self-test report.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct SelftestReport {
    /// Wall time of the boot's self-tests.
    pub elapsed_ms: f64,
    /// Mode used.
    #[serde(deserialize_with = "wire::mode")]
    pub mode: Word,
    /// Base seed of the randomized tests.
    pub seed: String,
    /// One row per driver.
    pub drivers: Vec<DriverReport>,
    /// What the configuration left untested, and drivers that could not be tested, in
    /// words (`cryptoctl selftest` prints them).
    pub warnings: Vec<String>,
    /// What else the boot does that costs time, in words: with `[selection] calibrate`,
    /// the measurement's budget per algorithm and how many were measured or read from
    /// the cache file so far.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// What `cryptoctl selftest` prints of the boot: a summary line (mode, seed, drivers,
/// checks, failures, the boot's wall time), the warnings, a `DRIVER STATE TESTS` table, and
/// for each failed driver its replayable failure lines, each followed by the
/// `cryptoctl selftest --driver D --seed S` command that replays it. `cryptoctl selftest`
/// prints exactly this, then the driver chosen for each algorithm name.
impl std::fmt::Display for SelftestReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let checks: usize = self.drivers.iter().map(|d| d.tests).sum();
        let failed: Vec<&DriverReport> = self
            .drivers
            .iter()
            .filter(|d| !d.failures.is_empty())
            .collect();
        writeln!(
            f,
            "self-test: mode {}, seed {}, {} drivers, {} checks, {} failed; boot {:.1} ms",
            self.mode,
            self.seed,
            self.drivers.len(),
            checks,
            failed.len(),
            self.elapsed_ms
        )?;
        writeln!(f)?;
        for w in &self.warnings {
            writeln!(f, "warning: {w}")?;
        }
        for n in &self.notes {
            writeln!(f, "note: {n}")?;
        }
        if !self.warnings.is_empty() || !self.notes.is_empty() {
            writeln!(f)?;
        }
        // Two spaces between columns, the test count right-aligned, no trailing blanks.
        let (dw, sw, tw) = self.drivers.iter().fold(
            ("DRIVER".len(), "STATE".len(), "TESTS".len()),
            |(dw, sw, tw), d| {
                (
                    dw.max(d.driver.chars().count()),
                    sw.max(d.state.len()),
                    tw.max(d.tests.to_string().len()),
                )
            },
        );
        writeln!(f, "{:dw$}  {:sw$}  {:>tw$}", "DRIVER", "STATE", "TESTS")?;
        for d in &self.drivers {
            writeln!(f, "{:dw$}  {:sw$}  {:>tw$}", d.driver, d.state, d.tests)?;
        }
        if !failed.is_empty() {
            writeln!(
                f,
                "\nFAILED: {} driver(s) failed their self-test and are excluded:",
                failed.len()
            )?;
            for d in failed {
                for line in &d.failures {
                    writeln!(f, "  {line}")?;
                    if let Some(seed) = replay_seed(line) {
                        let on = super::failure_cpu(line)
                            .map_or(String::new(), |cpu| format!(" --cpu-id {cpu}"));
                        writeln!(
                            f,
                            "    replay: cryptoctl selftest --driver {} --seed {seed}{on}",
                            shell_word(&d.driver)
                        )?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Why a candidate at the chosen one's own priority lost, in the words of the resolver's
/// own order ([`candidate_order`]: a registered driver before a template instance, then
/// the driver name that sorts first). `None` where that order puts the candidate first,
/// so something else (its state) decided.
fn tie_verdict(priority: u32, candidate: &DriverInfo, chosen: &DriverInfo) -> Option<String> {
    if candidate_order((priority, chosen), (priority, candidate)) != std::cmp::Ordering::Less {
        return None;
    }
    Some(if candidate.is_instance() != chosen.is_instance() {
        format!("tie at priority {priority}: a driver goes before an instance")
    } else {
        format!(
            "tie at priority {priority}: {} sorts first",
            chosen.driver()
        )
    })
}

/// The `seed=0x...` of a replayable failure line, if it has one.
pub(super) fn replay_seed(line: &str) -> Option<&str> {
    let at = line.rfind("seed=")? + "seed=".len();
    let rest = &line[at..];
    let end = rest
        .find(|c: char| !(c.is_ascii_hexdigit() || c == 'x' || c == 'X'))
        .unwrap_or(rest.len());
    let seed = &rest[..end];
    let valid = match seed.strip_prefix("0x").or_else(|| seed.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).is_ok(),
        None => seed.parse::<u64>().is_ok(),
    };
    valid.then_some(seed)
}

/// Quotes a driver name for a shell if it needs it (`xts(ecb(aes-generic))`).
fn shell_word(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        s.to_string()
    } else {
        format!("'{s}'")
    }
}

/// One driver's row in a [`SelftestReport`].
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct DriverReport {
    /// Driver name.
    pub driver: String,
    /// State, as in [`ListEntry::state`].
    #[serde(deserialize_with = "wire::state")]
    pub state: Word,
    /// Checks run.
    pub tests: usize,
    /// Replayable failure lines.
    pub failures: Vec<String>,
}

impl Registry {
    pub(super) fn list_entry(&self, inner: &Inner, e: &Entry) -> ListEntry {
        let sizes = e.info.sizes();
        ListEntry {
            name: e.info.name().to_string(),
            driver: e.info.driver().to_string(),
            alg_type: e.info.alg_type().name(),
            priority: self.priority_of(inner, &e.info),
            base_priority: e.info.base_priority(),
            state: self.state_name(inner, e),
            uses_zmm: e.info.uses_zmm(),
            requires: e.info.requires().names(),
            missing: e.info.requires().minus(self.cpu.features).names(),
            refcnt: e.stats.read().live,
            instance: e.info.is_instance(),
            tests: e.outcome.tests,
            failures: e.outcome.failures.clone(),
            selftest_ms: e.elapsed.as_secs_f64() * 1e3,
            arch: match e.info.requires().arches().as_slice() {
                [one] => Some(one.name().to_string()),
                _ => None,
            },
            blocksize: sizes.block,
            min_keysize: sizes.min_key,
            max_keysize: sizes.max_key,
            ivsize: sizes.iv,
            maxauthsize: (e.info.alg_type() == AlgType::Aead).then_some(sizes.out),
            digestsize: (e.info.alg_type() == AlgType::Hash).then_some(sizes.out),
        }
    }

    /// Every entry's counters, sorted by driver name: allocations, live handles, requests
    /// and bytes, self-test state and time. Requests are counted per handle, in a cell
    /// only that handle writes, and summed here (no shared atomic on the request path);
    /// counts are exact for a handle used by one thread at a time and may miss racing
    /// increments on a handle shared by threads at once.
    ///
    /// A template instance keeps its counters by driver name across the invalidations
    /// that drop it: a rebuilt instance continues them, and one not rebuilt is listed
    /// with state `retired` while handles to it live.
    pub fn stats(&self) -> Vec<DriverStatsReport> {
        let inner = self.inner.lock();
        // (re-tests, failures) by the rescan.
        let rescans_of =
            |driver: &str| inner.rescan_counts.get(driver).copied().unwrap_or_default();
        let retired: Vec<DriverStatsReport> = inner
            .instance_stats
            .iter()
            .filter(|(driver, _)| !inner.entries.contains_key(driver.as_str()))
            .filter_map(|(driver, (name, stats))| {
                let c = stats.read();
                (c.live > 0).then(|| DriverStatsReport {
                    driver: driver.clone(),
                    name: name.clone(),
                    allocations: c.allocations,
                    refcnt: c.live,
                    requests: c.requests,
                    bytes: c.bytes,
                    state: "retired".to_string(),
                    selftest_ms: inner
                        .instance_results
                        .get(driver)
                        .map_or(0.0, |r| r.2.as_secs_f64() * 1e3),
                    rescans: rescans_of(driver).0,
                    rescan_failures: rescans_of(driver).1,
                })
            })
            .collect();
        let mut out: Vec<DriverStatsReport> = inner
            .entries
            .values()
            .map(|e| {
                let c = e.stats.read();
                DriverStatsReport {
                    driver: e.info.driver().to_string(),
                    name: e.info.name().to_string(),
                    allocations: c.allocations,
                    refcnt: c.live,
                    requests: c.requests,
                    bytes: c.bytes,
                    state: self.state_name(&inner, e).to_string(),
                    selftest_ms: e.elapsed.as_secs_f64() * 1e3,
                    rescans: rescans_of(e.info.driver()).0,
                    rescan_failures: rescans_of(e.info.driver()).1,
                }
            })
            .collect();
        out.extend(retired);
        out.sort_by(|a, b| a.driver.cmp(&b.driver));
        out
    }

    /// Every entry, sorted by algorithm name, then priority (highest first), then drivers
    /// before instances (the tie order), then driver name.
    pub fn list(&self) -> Vec<ListEntry> {
        let inner = self.inner.lock();
        let mut out: Vec<ListEntry> = inner
            .entries
            .values()
            .map(|e| self.list_entry(&inner, e))
            .collect();
        out.sort_by(|a, b| {
            a.name
                .cmp(&b.name)
                .then(b.priority.cmp(&a.priority))
                .then(a.instance.cmp(&b.instance))
                .then_with(|| a.driver.cmp(&b.driver))
        });
        out
    }

    /// A `/proc/crypto`-style text listing.
    pub fn proc_crypto(&self) -> String {
        ListEntry::proc_crypto(&self.list())
    }

    /// Every candidate for `name` and why it was or was not chosen. May instantiate
    /// templates and run the self-tests the choice needs, as a real request would.
    pub fn explain(&self, name: &str) -> Explanation {
        let chosen = self
            .choose(name, 0, true)
            .map(|c| c.info.driver().to_string());
        let inner = self.inner.lock();
        // The chosen entry may already be gone again if another thread changed a
        // priority since; the explanation then describes the table as it is now.
        let chosen_entry = chosen
            .as_ref()
            .ok()
            .and_then(|k| inner.entries.get(k.as_str()));
        let alg_name = match chosen_entry.or_else(|| inner.entries.get(name)) {
            Some(e) => e.info.name().to_string(),
            None => name.to_string(),
        };
        let chosen_key = chosen.as_ref().ok();
        let chosen_prio = chosen_entry.map(|e| self.priority_of(&inner, &e.info));
        // Asked for by driver name: the others were not competing at all.
        let pinned = inner.entries.contains_key(name);
        // Asked for by a template call over named children (`xts(aes-generic)`): only
        // the instance it describes was competing, not every driver of the algorithm.
        let described = !pinned && name != alg_name;
        // The chosen competed in the first tier: the name's own instances were only the
        // fallback (see `Registry::fallback_tier`).
        let fallback_only =
            chosen_entry.is_some_and(|c| self.fallback_tier(&inner, &c.info, &alg_name) == 0);
        // Calibration's figures for the algorithm, and the chosen one's score in them.
        let calib = inner
            .calibrations
            .get(&alg_name)
            .filter(|_| self.config.selection.calibrate);
        let measured = |driver: &str| calib.and_then(|c| c.of(driver));
        let chosen_measured = chosen_key.and_then(|k| measured(k));
        let margin = self.config.selection.margin_percent;
        let mut candidates: Vec<Candidate> = inner
            .entries
            .values()
            .filter(|e| {
                e.info.name() == alg_name || Some(e.info.driver()) == chosen_key.map(String::as_str)
            })
            .map(|e| {
                let priority = self.priority_of(&inner, &e.info);
                let state = self.state_name(&inner, e);
                let demoted =
                    self.policy_priority(&e.info).is_some() && priority == ZMM_DEMOTED_PRIORITY;
                let zmm_note = demoted.then(|| {
                    let model = self.policy_rows.first().map_or("", |r| r.name.as_str());
                    format!(
                        "zmm-excluded on this model, {model} ({} -> {ZMM_DEMOTED_PRIORITY})",
                        e.info.base_priority()
                    )
                });
                let missing = e.info.requires().minus(self.cpu.features);
                let host_missing = e.info.requires().minus(self.host);
                let mut verdict = if Some(e.info.driver()) == chosen_key.map(String::as_str) {
                    "chosen".to_string()
                } else if state == "disabled" {
                    "disabled".to_string()
                } else if !missing.is_empty() {
                    format!("missing {missing}")
                } else if e.state == TestState::Blocked {
                    format!(
                        "untested (reference {} unavailable)",
                        e.outcome.reference_unavailable.as_deref().unwrap_or("?")
                    )
                } else if e.state == TestState::Failed {
                    format!(
                        "self-test failed: {}",
                        e.outcome.failures.first().map_or("", String::as_str)
                    )
                } else if let Some(note) = &zmm_note {
                    note.clone()
                } else if pinned && chosen_key.is_some() {
                    format!("not asked for: {name} is pinned by driver name")
                } else if described && chosen_key.is_some() {
                    format!("not asked for: {name} describes another implementation")
                } else if fallback_only
                    && self.fallback_tier(&inner, &e.info, &alg_name) == 1
                    && e.info.name() == alg_name
                {
                    format!(
                        "not considered: a driver of {alg_name} is usable (an instance is \
                         the fallback unless given a priority)"
                    )
                } else if let Some(((mine, theirs), faster)) = measured(e.info.driver())
                    .zip(chosen_measured)
                    .zip(
                        calib
                            .zip(chosen_key)
                            .and_then(|(c, k)| c.speedup(k, e.info.driver())),
                    )
                    .filter(|&(_, faster)| {
                        !pinned
                            && !described
                            && chosen_prio.is_some_and(|cp| priority >= cp)
                            && state == "passed"
                            && self.beyond_margin(faster)
                    })
                {
                    format!(
                        "measured slower: {:.0} MB/s against {:.0} for the chosen ({:.0} % \
                         faster, beyond the {margin} % margin)",
                        mine.score(),
                        theirs.score(),
                        (faster - 1.0) * 100.0
                    )
                } else if let Some(cp) = chosen_prio.filter(|&cp| priority < cp) {
                    format!("lower priority ({priority} < {cp})")
                } else if let Some(tie) = chosen_entry
                    .filter(|_| chosen_prio == Some(priority))
                    .and_then(|c| tie_verdict(priority, &e.info, &c.info))
                {
                    tie
                } else {
                    state.to_string()
                };
                if Some(e.info.driver()) == chosen_key.map(String::as_str) {
                    if let Some(note) = &zmm_note {
                        verdict = format!("chosen ({note})");
                    }
                }
                if self.simulated && missing.is_empty() && !host_missing.is_empty() {
                    verdict.push_str(&format!(" [not run: this host lacks {host_missing}]"));
                }
                Candidate {
                    driver: e.info.driver().to_string(),
                    instance: e.info.is_instance(),
                    priority,
                    base_priority: e.info.base_priority(),
                    state,
                    verdict,
                    mbps: calib
                        .and_then(|c| c.of(e.info.driver()))
                        .map(|m| m.mbps.clone())
                        .unwrap_or_default(),
                }
            })
            .collect();
        // In the resolver's order: the name's own instances (the fallback) after its
        // drivers, then by priority.
        let tier = |c: &Candidate| {
            inner
                .entries
                .get(c.driver.as_str())
                .map_or(0, |e| self.fallback_tier(&inner, &e.info, &alg_name))
        };
        candidates.sort_by(|a, b| {
            tier(a)
                .cmp(&tier(b))
                .then_with(|| b.priority.cmp(&a.priority))
                .then_with(|| a.instance.cmp(&b.instance))
                .then_with(|| a.driver.cmp(&b.driver))
        });
        if let Some(k) = chosen_key {
            if let Some(pos) = candidates.iter().position(|c| &c.driver == k) {
                let mut c = candidates.remove(pos);
                // The usable candidates it beat are the ones the verdicts above say lost
                // on priority or at a tie; the others could not have been chosen at all.
                let beaten = candidates
                    .iter()
                    .filter(|c| {
                        c.verdict.starts_with("lower priority")
                            || c.verdict.starts_with("tie at")
                            || c.verdict.starts_with("measured slower")
                    })
                    .count();
                let outran = candidates
                    .iter()
                    .filter(|c| c.verdict.starts_with("measured slower"))
                    .count();
                let how = if pinned {
                    "asked for by driver name".to_string()
                } else if described {
                    "the implementation the template call names".to_string()
                } else if !fallback_only {
                    // Template-only algorithms (`rfc4106(gcm(aes))`) have no drivers at
                    // all: their instances are all there is, not a fallback.
                    let why = if inner
                        .entries
                        .values()
                        .any(|e| !e.info.is_instance() && e.info.name() == alg_name)
                    {
                        "no driver of the algorithm is usable"
                    } else {
                        "template-only algorithm"
                    };
                    if beaten == 0 {
                        format!("{why}: the template instance")
                    } else {
                        format!("{why}: highest of {} instances", beaten + 1)
                    }
                } else if outran > 0 {
                    format!(
                        "calibrated: faster than {outran} higher-ranked, by more than the \
                         {margin} % margin"
                    )
                } else if beaten == 0 {
                    "the only usable candidate".to_string()
                } else {
                    format!("highest of {} usable", beaten + 1)
                };
                let source = chosen_entry.map_or("priority", |e| {
                    self.priority_and_source(&inner, &e.info).1.words()
                });
                // "chosen" [" (zmm note)"] [" [not run: ...]"] gains the reason.
                c.verdict = c.verdict.replacen(
                    "chosen",
                    &format!("chosen: {how}, {source} {}", c.priority),
                    1,
                );
                candidates.insert(0, c);
            }
        }
        Explanation {
            name: name.to_string(),
            chosen: chosen.as_ref().ok().cloned(),
            error: chosen.err().map(|e| e.to_string()),
            candidates,
        }
    }

    /// The boot's self-test report (concrete drivers and instances built so far).
    pub fn selftest_report(&self) -> SelftestReport {
        let inner = self.inner.lock();
        let mut warnings = Vec::new();
        match self.config.selftest.mode {
            SelftestMode::Off => warnings.push(
                "self-tests are off: no driver was tested, every supported driver is \
                 handed out untested"
                    .to_string(),
            ),
            SelftestMode::Kat => warnings.push(
                "self-tests in kat mode: known answers only; no randomized differential \
                 tests against the generic drivers (buffer splits, misalignment, \
                 out of place, inauthentic inputs)"
                    .to_string(),
            ),
            SelftestMode::Full => {}
        }
        if self.tests_at_first_use() {
            let waiting: Vec<&str> = inner
                .entries
                .values()
                .filter(|e| e.state == TestState::Untested && self.testable(&e.info))
                .filter(|e| !e.info.is_instance())
                .map(|e| e.info.name())
                .collect::<BTreeSet<&str>>()
                .into_iter()
                .collect();
            if !waiting.is_empty() {
                warnings.push(format!(
                    "self-tests at first use: {} algorithm(s) not requested yet, their \
                     drivers untested until then (the first request tests them all before \
                     choosing): {}",
                    waiting.len(),
                    waiting.join(", ")
                ));
            }
        }
        for e in inner.entries.values() {
            if e.state == TestState::Blocked {
                warnings.push(format!(
                    "{} is untested: its reference {} is unavailable",
                    e.info.driver(),
                    e.outcome.reference_unavailable.as_deref().unwrap_or("?")
                ));
            }
        }
        let mut notes = Vec::new();
        let sel = &self.config.selection;
        if sel.calibrate {
            let sizes: Vec<String> = sel.sizes.iter().map(usize::to_string).collect();
            let cached = inner.calibrations.values().filter(|c| c.cached).count();
            notes.push(format!(
                "calibration on: each algorithm's passed drivers are timed for at most {} ms \
                 before its first resolution, at {} bytes (margin {} %); {} algorithm(s) so \
                 far, {} of them from the cache file{}",
                super::CALIBRATION_BUDGET.as_millis(),
                sizes.join(", "),
                sel.margin_percent,
                inner.calibrations.len(),
                cached,
                sel.cache
                    .as_ref()
                    .map_or(" (none configured)".to_string(), |p| format!(
                        " {}",
                        p.display()
                    ))
            ));
        }
        SelftestReport {
            warnings,
            notes,
            elapsed_ms: self.boot_elapsed.as_secs_f64() * 1e3,
            mode: match self.config.selftest.mode {
                SelftestMode::Off => "off",
                SelftestMode::Kat => "kat",
                SelftestMode::Full => "full",
            },
            seed: format!("{:#x}", self.seed),
            drivers: inner
                .entries
                .values()
                // Instances built only to be looked at (explain) and never needed.
                .filter(|e| !(e.info.is_instance() && e.state == TestState::Untested))
                .map(|e| DriverReport {
                    driver: e.info.driver().to_string(),
                    state: self.state_name(&inner, e),
                    tests: e.outcome.tests,
                    failures: e.outcome.failures.clone(),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(driver: &str, state: Word, tests: usize, failures: &[&str]) -> DriverReport {
        DriverReport {
            driver: driver.to_string(),
            state,
            tests,
            failures: failures.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn display_prints_the_summary_the_table_and_replayable_failures() {
        let line = r#"selftest: skcipher: xts(ecb(aes-faulty)) encryption mismatch on "random: len=523"; cfg="inplace(one list)"; seed=0x9e3779b97f4a7c15"#;
        let report = SelftestReport {
            elapsed_ms: 12.34,
            mode: "kat",
            seed: "0x2a".to_string(),
            drivers: vec![
                row("aes-generic", "passed", 7, &[]),
                row("xts(ecb(aes-faulty))", "failed", 123, &[line]),
            ],
            warnings: vec!["self-tests in kat mode".to_string()],
            notes: vec!["calibration on".to_string()],
        };
        let text = report.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "self-test: mode kat, seed 0x2a, 2 drivers, 130 checks, 1 failed; boot 12.3 ms"
        );
        assert_eq!(lines[2], "warning: self-tests in kat mode");
        assert_eq!(lines[3], "note: calibration on");
        assert_eq!(lines[5], "DRIVER                STATE   TESTS");
        assert_eq!(lines[6], "aes-generic           passed      7");
        assert_eq!(lines[7], "xts(ecb(aes-faulty))  failed    123");
        assert_eq!(
            lines[9],
            "FAILED: 1 driver(s) failed their self-test and are excluded:"
        );
        assert_eq!(lines[10], format!("  {line}"));
        assert_eq!(
            lines[11],
            "    replay: cryptoctl selftest --driver 'xts(ecb(aes-faulty))' --seed 0x9e3779b97f4a7c15"
        );
        assert!(text.lines().all(|l| l == l.trim_end()), "{text}");
    }

    #[test]
    fn replay_seeds_are_found_only_when_they_parse() {
        assert_eq!(replay_seed("x; seed=0x1f"), Some("0x1f"));
        assert_eq!(replay_seed("x; seed=42"), Some("42"));
        assert_eq!(replay_seed("x; seed=0x"), None);
        assert_eq!(replay_seed("no vectors for foo"), None);
    }
}
