//! Run-time reconfiguration ([`Registry::apply_config`]) and warm-up
//! ([`Registry::prepare`]).
//!
//! ## What a reload can change
//!
//! The configuration has two kinds of settings. `[priority]` and `[disable]` are policy
//! over drivers that are already registered and tested: a new configuration replaces
//! that layer at once (runtime overrides from [`Registry::set_priority`] and friends
//! still win over it, as at boot, and the change list says so). `[selftest]` and
//! `[cpu] disable` decide what was tested and which features the drivers were built
//! for: they cannot change under running handles, so a reload reports them as
//! [`ChangeEffect::NeedsRestart`] and leaves them as they were.
//!
//! ## Where allocation can block
//!
//! Requests on a handle never touch the registry: they run on the handle's own driver
//! instance with no lock. *Allocation* (`alloc_*`, `resolve`, `explain`) takes the
//! table's mutex briefly, and can block for longer in two cases: the chosen driver is
//! under test by another thread (boot's test threads, or another allocation; it waits
//! for the verdict), or the name is served by a template instance that is not built yet
//! (after a priority change drops it, or on first use): then the allocating thread builds
//! the instance and runs its self-test, up to `[selftest] timeout_secs`. An async
//! service should therefore call [`Registry::prepare`] with the names it uses at start-up
//! and allocate from a blocking-capable context (`spawn_blocking`) after any runtime
//! change — or allocate everything up front and re-allocate off the event loop when
//! `is_current()` turns false.

use std::sync::Arc;

use crate::alg::DriverInfo;
use crate::config::Config;
use crate::error::Result;

use super::{Change, ChangeEffect, Registry};

impl Registry {
    /// The configuration in force: the boot's `[selftest]` and `[cpu]`, and the
    /// `[priority]` and `[disable]` layer of the last [`apply_config`](Self::apply_config)
    /// (runtime overrides are not part of it; see [`list`](Self::list)).
    pub fn current_config(&self) -> Config {
        let inner = self.inner.lock();
        let mut c = self.config.clone();
        c.priority = inner.config_priority.clone();
        c.disable.drivers = inner.config_disabled.iter().cloned().collect();
        c
    }

    /// Applies a new configuration's priorities and disabled drivers and returns every
    /// setting that differs, each with its [`ChangeEffect`]: applied, shadowed by a
    /// runtime override, or (for `[selftest]` and `[cpu]`) needing a restart. The
    /// driver names are checked first as at boot (an unknown name refuses the whole
    /// configuration, and nothing changes). Cached resolutions and the instances built
    /// on every changed driver are dropped; the generation advances if anything took
    /// effect. Names under a documented alias are accepted with a warning.
    pub fn apply_config(&self, new: &Config) -> Result<Vec<Change>> {
        let new = crate::aliases::normalize_config(new);
        let mut inner = self.inner.lock();
        new.check_driver_names(&super::admin::known(&inner.entries, &self.templates))?;
        let mut changes = Vec::new();
        let show = |v: Option<String>| v.unwrap_or_else(|| "-".to_string());
        // Restart-only settings: reported, never applied.
        if new.selftest != self.config.selftest {
            changes.push(Change {
                driver: "[selftest]".to_string(),
                setting: "selftest".to_string(),
                old: format!("{:?}", self.config.selftest),
                new: format!("{:?}", new.selftest),
                effect: ChangeEffect::NeedsRestart,
            });
        }
        if new.selection != self.config.selection {
            changes.push(Change {
                driver: "[selection]".to_string(),
                setting: "selection".to_string(),
                old: format!("{:?}", self.config.selection),
                new: format!("{:?}", new.selection),
                effect: ChangeEffect::NeedsRestart,
            });
        }
        if new.cpu.disable != self.config.cpu.disable {
            changes.push(Change {
                driver: "[cpu]".to_string(),
                setting: "cpu.disable".to_string(),
                old: format!("{:?}", self.config.cpu.disable),
                new: format!("{:?}", new.cpu.disable),
                effect: ChangeEffect::NeedsRestart,
            });
        }
        let mut touched = Vec::new();
        let keys: std::collections::BTreeSet<String> = inner
            .config_priority
            .keys()
            .chain(new.priority.keys())
            .cloned()
            .collect();
        for d in keys {
            let (old, now) = (inner.config_priority.get(&d), new.priority.get(&d));
            if old == now {
                continue;
            }
            let shadowed = inner.runtime_priority.contains_key(&d);
            changes.push(Change {
                driver: d.clone(),
                setting: "priority".to_string(),
                old: show(old.map(u32::to_string)),
                new: show(now.map(u32::to_string)),
                effect: if shadowed {
                    ChangeEffect::Shadowed
                } else {
                    ChangeEffect::Applied
                },
            });
            touched.push(d);
        }
        let new_disabled: std::collections::BTreeSet<String> =
            new.disable.drivers.iter().cloned().collect();
        for d in inner
            .config_disabled
            .symmetric_difference(&new_disabled)
            .cloned()
            .collect::<Vec<_>>()
        {
            let now = new_disabled.contains(&d);
            let word = |b: bool| if b { "disabled" } else { "enabled" }.to_string();
            changes.push(Change {
                driver: d.clone(),
                setting: "disabled".to_string(),
                old: word(!now),
                new: word(now),
                effect: if inner.runtime_disabled.contains_key(&d) {
                    ChangeEffect::Shadowed
                } else {
                    ChangeEffect::Applied
                },
            });
            touched.push(d);
        }
        inner.config_priority = new.priority.clone();
        inner.config_disabled = new_disabled;
        for d in &touched {
            self.invalidate(&mut inner, d);
        }
        let generation = inner.generation;
        drop(inner);
        for c in &changes {
            match c.effect {
                ChangeEffect::NeedsRestart => tracing::warn!(
                    target: "cryptoreg::admin",
                    setting = %c.setting,
                    "configuration change needs a restart, not applied: {c}"
                ),
                _ => tracing::info!(
                    target: "cryptoreg::admin",
                    driver = %c.driver,
                    setting = %c.setting,
                    old = %c.old,
                    new = %c.new,
                    generation,
                    "configuration change: {c}"
                ),
            }
        }
        Ok(changes)
    }

    /// Resolves and self-tests the named algorithms or drivers now (template instances
    /// included: `prepare(&["xts(aes)", "gcm(aes)"])` builds and tests the instances that
    /// serve them), so that no self-test runs on a later allocation of these names
    /// unless a runtime change drops an instance (see the module docs on blocking).
    /// Returns the driver that serves each name, in order; the first name that cannot
    /// be served is the error.
    pub fn prepare(&self, names: &[&str]) -> Result<Vec<Arc<DriverInfo>>> {
        names.iter().map(|n| self.resolve(n)).collect()
    }
}
