//! The runtime admin API: priorities and enable/disable, each of which drops cached
//! resolutions and the template instances built on the driver it changes, and advances
//! the registry's *generation*.
//!
//! ## Generations
//!
//! [`Registry::generation`] is a number that changes with every priority, disable or
//! enable change that changes something (and with a re-test's new verdict): a handle
//! records the generation it was resolved under, and `is_current()` on a handle says
//! whether it still is. A service holding long-lived handles polls that (one atomic
//! load, off the request path) and re-allocates when it chooses; handles that are not
//! current keep working with the implementation they were built with. The generation
//! may also change when the answer for a particular name did not (it is one number for
//! the whole table), so `is_current() == false` means "a new allocation *may* get
//! another driver", never more.
//!
//! Every change is logged through `tracing` (target `cryptoreg::admin`) with the
//! driver, the old and the new value.

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use std::collections::BTreeMap;

use crate::alg::{DriverInfo, Template};
use crate::config::names_check::Known;
use crate::error::Result;

use super::{Entry, Inner, Registry, TestState};

/// The names configuration and admin accept, looked up in `entries` (see
/// [`Known::check`]).
pub(super) fn known<'a>(
    entries: &'a BTreeMap<String, Entry>,
    templates: &'a [&'a Template],
) -> Known<'a, impl Fn(&str) -> Option<Arc<DriverInfo>> + 'a, impl Fn(&str) -> bool + 'a> {
    Known {
        driver: move |n: &str| entries.get(n).map(|e| Arc::clone(&e.info)),
        is_algorithm: move |n: &str| entries.values().any(|e| e.info.name() == n),
        templates,
    }
}

impl Registry {
    /// Drops cached resolutions and every template instance built, directly or through
    /// other instances, on `driver`. Live handles keep what they were built with.
    pub(super) fn invalidate(&self, inner: &mut Inner, driver: &str) {
        inner.cache.clear();
        inner.generation += 1;
        self.published_generation
            .store(inner.generation, Ordering::Release);
        // Drivers that could not be tested for want of a reference get another chance:
        // this change may have brought the reference back.
        for e in inner.entries.values_mut() {
            if e.state == TestState::Blocked {
                e.state = TestState::Untested;
            }
        }
        let mut gone: BTreeSet<String> = BTreeSet::from([driver.to_string()]);
        loop {
            let more: Vec<String> = inner
                .entries
                .values()
                .filter(|e| {
                    // Instances under test go too: their tester holds its own `Arc`, and the
                    // result it records later (in `instance_results`, under the same
                    // driver name) describes the same code over the same children, so a
                    // rebuild picks it up instead of testing again.
                    !gone.contains(e.info.driver())
                        && e.info.children().iter().any(|c| gone.contains(c))
                })
                .map(|e| e.info.driver().to_string())
                .collect();
            if more.is_empty() {
                break;
            }
            gone.extend(more);
        }
        gone.remove(driver);
        for d in gone {
            inner.entries.remove(&d);
        }
    }

    /// Runs one admin change on a configurable driver and reports what it did.
    pub(super) fn with_known_driver(
        &self,
        driver: &str,
        op: &AdminOp,
        f: impl FnOnce(&mut Inner),
    ) -> Result<Change> {
        let mut inner = self.inner.lock();
        // A registered driver, or a template instance (`xts(ecb-aes-aesni)`) that could be
        // built, built or not — a disable must hold for an instance that does not exist
        // yet, and an enable must reach one that an invalidation dropped. Anything else
        // is refused before anything is stored or invalidated.
        known(&inner.entries, &self.templates).check(driver)?;
        let info = inner.entries.get(driver).map(|e| Arc::clone(&e.info));
        // An instance given a priority of its own competes with concrete drivers (see
        // `Registry::fallback_tier`), so for an instance that is a change even when the
        // number equals the one it had.
        let effect = |inner: &Inner| {
            (
                info.as_ref().map(|i| self.priority_of(inner, i)),
                self.disabled(inner, driver),
                info.as_ref()
                    .is_some_and(|i| i.is_instance() && self.has_operator_priority(inner, i)),
            )
        };
        let before = effect(&inner);
        f(&mut inner);
        let after = effect(&inner);
        // A change that changes nothing (the same priority again, disabling a disabled
        // driver) keeps the cache and the instances: operators repeat commands, and each
        // invalidation costs every template user a rebuild and a self-test. A change to
        // an instance that is not built always invalidates (its priority is unknown).
        let changed = info.is_none() || after != before;
        if changed {
            self.invalidate(&mut inner, driver);
        }
        let generation = inner.generation;
        drop(inner);
        let show = |(p, d, _): (Option<u32>, bool, bool)| match (op, p) {
            (AdminOp::Disable(_) | AdminOp::Enable(_), _) => {
                if d { "disabled" } else { "enabled" }.to_string()
            }
            (_, Some(p)) => p.to_string(),
            (_, None) => "unbuilt instance".to_string(),
        };
        let change = Change {
            driver: driver.to_string(),
            setting: op.setting().to_string(),
            old: show(before),
            new: show(after),
            effect: if changed {
                ChangeEffect::Applied
            } else {
                ChangeEffect::Unchanged
            },
        };
        tracing::info!(
            target: "cryptoreg::admin",
            driver,
            setting = %change.setting,
            old = %change.old,
            new = %change.new,
            generation,
            "runtime change: {} {driver}: {} -> {}",
            change.setting,
            change.old,
            change.new
        );
        Ok(change)
    }

    /// Runs one admin operation and reports the change it made (the control socket
    /// logs and answers with it). The same as the named methods below.
    pub fn admin(&self, op: &AdminOp) -> Result<Change> {
        let op = &op.canonical();
        let driver = op.driver();
        match op {
            AdminOp::SetPriority(_, p) => self.with_known_driver(driver, op, |inner| {
                inner.runtime_priority.insert(driver.to_string(), *p);
            }),
            AdminOp::ClearPriority(_) => self.with_known_driver(driver, op, |inner| {
                inner.runtime_priority.remove(driver);
            }),
            AdminOp::Disable(_) => self.with_known_driver(driver, op, |inner| {
                inner.runtime_disabled.insert(driver.to_string(), true);
            }),
            AdminOp::Enable(_) => self.with_known_driver(driver, op, |inner| {
                inner.runtime_disabled.insert(driver.to_string(), false);
            }),
        }
    }

    /// Sets a runtime priority (beats configuration and CPU policy). New resolutions
    /// follow at once; handles already out keep their implementation.
    pub fn set_priority(&self, driver: &str, priority: u32) -> Result<()> {
        self.admin(&AdminOp::SetPriority(driver.to_string(), priority))
            .map(drop)
    }

    /// Removes a runtime priority override.
    pub fn clear_priority(&self, driver: &str) -> Result<()> {
        self.admin(&AdminOp::ClearPriority(driver.to_string()))
            .map(drop)
    }

    /// Disables a driver at run time: it is no longer resolved, even by driver name.
    pub fn disable(&self, driver: &str) -> Result<()> {
        self.admin(&AdminOp::Disable(driver.to_string())).map(drop)
    }

    /// Enables a driver at run time (also one disabled by configuration).
    pub fn enable(&self, driver: &str) -> Result<()> {
        self.admin(&AdminOp::Enable(driver.to_string())).map(drop)
    }

    /// Runs `f` while holding the registry's table lock (the lock every admin change,
    /// allocation and listing takes). For tests that prove requests on allocated
    /// handles never wait for the admin side; not for services.
    #[doc(hidden)]
    pub fn with_table_locked_for_test<R>(&self, f: impl FnOnce() -> R) -> R {
        let _inner = self.inner.lock();
        f()
    }

    /// The current generation: changes with every priority, disable or enable change
    /// that changes something, and with a re-test's new verdict (see the module docs).
    /// One atomic load, no lock.
    pub fn generation(&self) -> u64 {
        self.published_generation.load(Ordering::Acquire)
    }
}

/// One runtime admin operation (what `cryptoctl --socket` sends).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AdminOp {
    /// `set-priority DRIVER P`.
    SetPriority(String, u32),
    /// `clear-priority DRIVER`.
    ClearPriority(String),
    /// `disable DRIVER`.
    Disable(String),
    /// `enable DRIVER`.
    Enable(String),
}

impl AdminOp {
    /// The driver the operation changes.
    pub fn driver(&self) -> &str {
        match self {
            AdminOp::SetPriority(d, _)
            | AdminOp::ClearPriority(d)
            | AdminOp::Disable(d)
            | AdminOp::Enable(d) => d,
        }
    }

    /// The same operation on the current name of an aliased driver (with a warning).
    fn canonical(&self) -> AdminOp {
        let c = |d: &str| crate::aliases::canonicalize(d, "admin operation");
        match self {
            AdminOp::SetPriority(d, p) => AdminOp::SetPriority(c(d), *p),
            AdminOp::ClearPriority(d) => AdminOp::ClearPriority(c(d)),
            AdminOp::Disable(d) => AdminOp::Disable(c(d)),
            AdminOp::Enable(d) => AdminOp::Enable(c(d)),
        }
    }

    fn setting(&self) -> &'static str {
        match self {
            AdminOp::SetPriority(..) | AdminOp::ClearPriority(_) => "priority",
            AdminOp::Disable(_) | AdminOp::Enable(_) => "disabled",
        }
    }
}

/// What a runtime change or a configuration reload did to one setting.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Change {
    /// The driver (or, for a setting that needs a restart, the setting's section).
    pub driver: String,
    /// `priority`, `disabled`, or the configuration key that needs a restart
    /// (`selftest`, `cpu.disable`).
    pub setting: String,
    /// The value before, in words (an effective priority, `enabled`/`disabled`, or the
    /// configuration's value, `-` when absent).
    pub old: String,
    /// The value after, in the same words.
    pub new: String,
    /// Whether it took effect.
    pub effect: ChangeEffect,
}

/// Whether a [`Change`] took effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ChangeEffect {
    /// In force now; new allocations follow it.
    Applied,
    /// Asked for, but nothing changed (the same value again).
    Unchanged,
    /// The configuration layer changed, but a runtime override (set over the socket or
    /// the API) still wins; `clear-priority` or `enable`/`disable` decides.
    Shadowed,
    /// Not applied: takes effect at the next start (self-test mode, CPU masks).
    NeedsRestart,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let effect = match self.effect {
            ChangeEffect::Applied => "applied",
            ChangeEffect::Unchanged => "unchanged",
            ChangeEffect::Shadowed => "shadowed by a runtime override",
            ChangeEffect::NeedsRestart => "needs a restart",
        };
        write!(
            f,
            "{} {}: {} -> {} ({effect})",
            self.setting, self.driver, self.old, self.new
        )
    }
}
