//! The runtime admin API: priorities and enable/disable, each of which drops cached
//! resolutions and the template instances built on the driver it changes.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::names::parse_template_call;

use super::{Inner, Registry, TestState};

impl Registry {
    /// Drops cached resolutions and every template instance built, directly or through
    /// other instances, on `driver`. Live handles keep what they were built with.
    pub(super) fn invalidate(&self, inner: &mut Inner, driver: &str) {
        inner.cache.clear();
        inner.generation += 1;
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

    /// Whether `driver` names something an operator may configure: a registered driver,
    /// or a template instance (`xts(ecb-aes-aesni)`) of a known template, built or not —
    /// a disable must hold for an instance that does not exist yet, and an enable must
    /// reach one that an invalidation dropped.
    fn configurable(&self, inner: &Inner, driver: &str) -> bool {
        inner.entries.contains_key(driver)
            || parse_template_call(driver)
                .is_some_and(|(tmpl, _)| self.templates.iter().any(|t| t.name == tmpl))
    }

    pub(super) fn with_known_driver(&self, driver: &str, f: impl FnOnce(&mut Inner)) -> Result<()> {
        let mut inner = self.inner.lock();
        if !self.configurable(&inner, driver) {
            return Err(Error::NotFound(driver.to_string()));
        }
        let info = inner.entries.get(driver).map(|e| Arc::clone(&e.info));
        let effect = |inner: &Inner| {
            (
                info.as_ref().map(|i| self.priority_of(inner, i)),
                self.disabled(inner, driver),
            )
        };
        let before = effect(&inner);
        f(&mut inner);
        // A change that changes nothing (the same priority again, disabling a disabled
        // driver) keeps the cache and the instances: operators repeat commands, and each
        // invalidation costs every template user a rebuild and a self-test. A change to
        // an instance that is not built always invalidates (its priority is unknown).
        if info.is_none() || effect(&inner) != before {
            self.invalidate(&mut inner, driver);
        }
        Ok(())
    }

    /// Sets a runtime priority (beats configuration and CPU policy). New resolutions
    /// follow at once; handles already out keep their implementation.
    pub fn set_priority(&self, driver: &str, priority: u32) -> Result<()> {
        self.with_known_driver(driver, |inner| {
            inner.runtime_priority.insert(driver.to_string(), priority);
        })
    }

    /// Removes a runtime priority override.
    pub fn clear_priority(&self, driver: &str) -> Result<()> {
        self.with_known_driver(driver, |inner| {
            inner.runtime_priority.remove(driver);
        })
    }

    /// Disables a driver at run time: it is no longer resolved, even by driver name.
    pub fn disable(&self, driver: &str) -> Result<()> {
        self.with_known_driver(driver, |inner| {
            inner.runtime_disabled.insert(driver.to_string(), true);
        })
    }

    /// Enables a driver at run time (also one disabled by configuration).
    pub fn enable(&self, driver: &str) -> Result<()> {
        self.with_known_driver(driver, |inner| {
            inner.runtime_disabled.insert(driver.to_string(), false);
        })
    }
}
