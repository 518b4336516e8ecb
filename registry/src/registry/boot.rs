//! Boot: collect every submitted driver and template, apply the CPU policy and the
//! configuration, and self-test every driver in parallel threads.

use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::alg::{AlgDef, Template};
use crate::config::OnFailure;
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
    pub fn boot(opts: BootOptions) -> Result<Registry> {
        let start = Instant::now();
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
        let algorithms: std::collections::BTreeSet<String> = inner
            .entries
            .values()
            .map(|e| e.info.name().to_string())
            .collect();
        opts.config.check_driver_names(
            |n| inner.entries.contains_key(n),
            |n| inner.entries.contains_key(n) || algorithms.contains(n),
            &templates,
        )?;

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
            inner: Mutex::new(inner),
            tested: Condvar::new(),
            boot_elapsed: Duration::ZERO,
        };
        reg.test_all();
        reg.boot_elapsed = start.elapsed();
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

    /// Tests every testable concrete driver, `available_parallelism` at a time.
    pub(super) fn test_all(&self) {
        if !self.tests_enabled() {
            return;
        }
        let queue: Mutex<Vec<String>> = Mutex::new({
            let inner = self.inner.lock();
            let mut names: Vec<String> = inner
                .entries
                .values()
                .filter(|e| self.testable(&e.info))
                .map(|e| e.info.driver().to_string())
                .collect();
            // Pop order: generic references first, so others find them passed.
            names.sort_by_key(|d| !crate::names::is_generic_driver(d));
            names.reverse();
            names
        });
        let workers = std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .min(8);
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
