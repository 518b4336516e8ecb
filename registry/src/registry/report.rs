//! Reports: listings (`cryptoctl list`, a `/proc/crypto` text), `explain` and the boot's
//! self-test report. Data first (serializable), text on top.

use std::sync::atomic::Ordering;

use crate::config::SelftestMode;
use crate::policy::ZMM_DEMOTED_PRIORITY;

use super::{Entry, Inner, Registry, TestState};

/// One driver in a listing (`cryptoctl list`, `/proc/crypto`).
#[derive(Debug, Clone, serde::Serialize)]
#[non_exhaustive]
pub struct ListEntry {
    /// Algorithm name.
    pub name: String,
    /// Driver name.
    pub driver: String,
    /// `cipher`, `skcipher`, `aead` or `hash`.
    #[serde(rename = "type")]
    pub alg_type: &'static str,
    /// Effective priority.
    pub priority: u32,
    /// Base priority.
    pub base_priority: u32,
    /// `passed`, `failed`, `unsupported`, `untested`, `testing` or `disabled`.
    pub state: &'static str,
    /// Uses 512-bit registers.
    pub uses_zmm: bool,
    /// Required feature names.
    pub requires: Vec<&'static str>,
    /// Features the (possibly simulated) CPU lacks.
    pub missing: Vec<&'static str>,
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
}

/// One candidate in an [`Explanation`].
#[derive(Debug, Clone, serde::Serialize)]
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
    pub state: &'static str,
    /// Why it was or was not chosen, in words.
    pub verdict: String,
}

/// The answer of [`Registry::explain`]: every candidate for a name and its verdict.
#[derive(Debug, Clone, serde::Serialize)]
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
#[derive(Debug, Clone, serde::Serialize)]
#[non_exhaustive]
pub struct SelftestReport {
    /// Wall time of the boot's self-tests.
    pub elapsed_ms: f64,
    /// Mode used.
    pub mode: &'static str,
    /// Base seed of the randomized tests.
    pub seed: String,
    /// One row per driver.
    pub drivers: Vec<DriverReport>,
    /// What the configuration left untested, and drivers that could not be tested, in
    /// words (`cryptoctl selftest` prints them).
    pub warnings: Vec<String>,
}

/// One driver's row in a [`SelftestReport`].
#[derive(Debug, Clone, serde::Serialize)]
#[non_exhaustive]
pub struct DriverReport {
    /// Driver name.
    pub driver: String,
    /// State, as in [`ListEntry::state`].
    pub state: &'static str,
    /// Checks run.
    pub tests: usize,
    /// Replayable failure lines.
    pub failures: Vec<String>,
}

impl Registry {
    pub(super) fn list_entry(&self, inner: &Inner, e: &Entry) -> ListEntry {
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
            refcnt: e.handles.load(Ordering::Relaxed),
            instance: e.info.is_instance(),
            tests: e.outcome.tests,
            failures: e.outcome.failures.clone(),
            selftest_ms: e.elapsed.as_secs_f64() * 1e3,
        }
    }

    /// Every entry, sorted by algorithm name, then priority (highest first), then driver.
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
                .then_with(|| a.driver.cmp(&b.driver))
        });
        out
    }

    /// A `/proc/crypto`-style text listing.
    pub fn proc_crypto(&self) -> String {
        let mut s = String::new();
        for e in self.list() {
            let module = if e.instance {
                "template"
            } else {
                "cryptoreg-algos"
            };
            s.push_str(&format!(
                "name         : {}\ndriver       : {}\nmodule       : {}\npriority     : {}\nrefcnt       : {}\nselftest     : {}\ntype         : {}\nuses_zmm     : {}\nrequires     : {}\n\n",
                e.name,
                e.driver,
                module,
                e.priority,
                e.refcnt,
                e.state,
                e.alg_type,
                if e.uses_zmm { "yes" } else { "no" },
                e.requires.join(" "),
            ));
        }
        s
    }

    /// Every candidate for `name` and why it was or was not chosen. May instantiate
    /// templates and run the self-tests the choice needs, as a real request would.
    pub fn explain(&self, name: &str) -> Explanation {
        let chosen = self.choose(name, 0).map(|c| c.info.driver().to_string());
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
                } else if let Some(cp) = chosen_prio {
                    format!("lower priority ({priority} < {cp})")
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
                }
            })
            .collect();
        candidates.sort_by(|a, b| {
            b.priority
                .cmp(&a.priority)
                .then_with(|| a.instance.cmp(&b.instance))
                .then_with(|| a.driver.cmp(&b.driver))
        });
        if let Some(k) = chosen_key {
            if let Some(pos) = candidates.iter().position(|c| &c.driver == k) {
                let c = candidates.remove(pos);
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
        for e in inner.entries.values() {
            if e.state == TestState::Blocked {
                warnings.push(format!(
                    "{} is untested: its reference {} is unavailable",
                    e.info.driver(),
                    e.outcome.reference_unavailable.as_deref().unwrap_or("?")
                ));
            }
        }
        SelftestReport {
            warnings,
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
