//! Boot: collect every submitted driver and template, apply the CPU policy and the
//! configuration, and self-test every driver in parallel threads.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::sync::{Condvar, Mutex};

use crate::alg::{AlgDef, Template};
use crate::config::{OnFailure, SelftestWhen};
use crate::cpu::CpuInfo;
use crate::error::{Error, Result};
use crate::policy::CpuPolicy;

use crate::host::HostFeatures;

use super::{BootOptions, Entry, Inner, Registry, TestState};

fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.finish()
}

impl Registry {
    /// Collects every submitted driver and template, applies the CPU policy and the
    /// configuration, and runs the self-tests the configuration asks for (in parallel
    /// threads). With `on_failure = "abort"` a failure fails the boot.
    pub fn boot(mut opts: BootOptions) -> Result<Registry> {
        let start = Instant::now();
        opts.config = crate::aliases::normalize_config(&opts.config);
        let masked = opts.config.masked_features()?;
        let native = CpuInfo::native();
        let host = native.features.minus(masked);
        let cpu = opts.cpu.unwrap_or(native).without(masked);
        let simulated = cpu.source != "native";
        // A simulated or configured CPU can only remove features from what this machine
        // has: never add one.
        let token = HostFeatures::detect()
            .without(masked)
            .restricted_to(cpu.features);
        let policy_rows = CpuPolicy::embedded().matches(&cpu);
        let seed = opts.config.selftest.seed.unwrap_or_else(fresh_seed);

        let mut inner = Inner::default();
        for def in inventory::iter::<AlgDef> {
            let info = def.to_info();
            // A record under a name outside the grammar could never be asked for (every
            // request is validated): refuse it at boot rather than list it unreachable.
            crate::names::validate(info.name())?;
            crate::names::validate(info.driver())?;
            if inner.entries.contains_key(info.driver()) {
                return Err(Error::Config(format!(
                    "driver {:?} registered twice",
                    info.driver()
                )));
            }
            inner
                .entries
                .insert(info.driver().to_string(), Entry::new(info));
        }
        let mut templates: Vec<&'static Template> =
            inventory::iter::<Template>.into_iter().collect();
        templates.sort_by_key(|t| t.name);
        opts.config
            .check_driver_names(&super::admin::known(&inner.entries, &templates))?;

        inner.config_priority = opts.config.priority.clone();
        inner.config_disabled = opts.config.disable.drivers.iter().cloned().collect();
        let mut reg = Registry {
            cpu,
            host,
            token,
            simulated,
            config: opts.config,
            policy_rows,
            tester: opts.tester,
            seed,
            templates,
            inner: Arc::new(Mutex::new(inner)),
            tested: Arc::new(Condvar::new()),
            boot_elapsed: Duration::ZERO,
            published_generation: Default::default(),
            resolution_hook: std::sync::OnceLock::new(),
            rescan: Default::default(),
        };
        #[cfg(unix)]
        super::fork::track(&reg.inner);
        reg.log_policy();
        reg.test_all();
        reg.boot_elapsed = start.elapsed();
        reg.log_boot_summary();
        if reg.config.selftest.on_failure == OnFailure::Abort {
            let inner = reg.inner.lock();
            if let Some(e) = inner
                .entries
                .values()
                .find(|e| e.state == TestState::Failed)
            {
                return Err(Error::BootAborted {
                    driver: e.info.driver().to_string(),
                    report: e.outcome.failures.first().cloned().unwrap_or_default(),
                });
            }
        }
        Ok(reg)
    }

    /// One event per CPU-policy demotion (a zmm driver on a downclocking model).
    fn log_policy(&self) {
        let inner = self.inner.lock();
        let model = self.policy_rows.first().map_or("", |r| r.name.as_str());
        for e in inner.entries.values() {
            if let Some(p) = self.policy_priority(&e.info) {
                tracing::info!(
                    target: "cryptoreg::policy",
                    driver = e.info.driver(),
                    model,
                    base = e.info.base_priority(),
                    priority = p,
                    "zmm driver demoted on this CPU model ({model}): {} -> {p}",
                    e.info.base_priority()
                );
            }
        }
    }

    /// The boot summary: how many drivers passed, failed, were left untested or are
    /// unsupported here, the mode, the seed and the time it took.
    fn log_boot_summary(&self) {
        let inner = self.inner.lock();
        let mut counts = std::collections::BTreeMap::<&str, usize>::new();
        for e in inner.entries.values() {
            *counts.entry(self.state_name(&inner, e)).or_default() += 1;
        }
        let count = |k: &str| counts.get(k).copied().unwrap_or(0);
        tracing::info!(
            target: "cryptoreg::boot",
            cpu = %self.cpu.source,
            mode = ?self.config.selftest.mode,
            seed = %format_args!("{:#x}", self.seed),
            drivers = inner.entries.len(),
            passed = count("passed"),
            failed = count("failed"),
            untested = count("untested"),
            unsupported = count("unsupported"),
            disabled = count("disabled"),
            elapsed_ms = self.boot_elapsed.as_millis() as u64,
            "registry booted: {} drivers, {} passed, {} failed, {} untested, {} unsupported, \
             {} disabled in {} ms",
            inner.entries.len(),
            count("passed"),
            count("failed"),
            count("untested"),
            count("unsupported"),
            count("disabled"),
            self.boot_elapsed.as_millis()
        );
    }

    /// Tests every testable concrete driver, unless the configuration defers the tests to
    /// first use (`[selftest] when = "first-use"`).
    pub(super) fn test_all(&self) {
        if self.config.selftest.when == SelftestWhen::FirstUse {
            return;
        }
        let names: Vec<String> = {
            let inner = self.inner.lock();
            inner
                .entries
                .values()
                .filter(|e| self.testable(&e.info))
                .map(|e| e.info.driver().to_string())
                .collect()
        };
        self.test_drivers(names);
    }

    /// Tests `drivers`, `available_parallelism` at a time (at most 8), generic references
    /// first so the others find them passed. A driver already tested or under test is
    /// left as it is (or waited for).
    pub(super) fn test_drivers(&self, mut names: Vec<String>) {
        if !self.tests_enabled() || names.is_empty() {
            return;
        }
        // Pop order: generic references first, so others find them passed.
        names.sort_by_key(|d| !crate::names::is_generic_driver(d));
        names.reverse();
        let workers = std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .min(8)
            .min(names.len());
        if workers == 1 {
            // One driver (or one core): no thread to start.
            while let Some(driver) = names.pop() {
                self.ensure_tested(&driver);
            }
            return;
        }
        let queue: Mutex<Vec<String>> = Mutex::new(names);
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| loop {
                    let Some(driver) = queue.lock().pop() else {
                        break;
                    };
                    self.ensure_tested(&driver);
                });
            }
        });
    }
}
