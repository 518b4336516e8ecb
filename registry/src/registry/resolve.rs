//! Resolution: the driver that serves a name (exact driver names, then the highest
//! effective priority among usable entries and the template instance the name describes),
//! and the handles built on it.

use std::sync::Arc;

use crate::alg::DriverInfo;
use crate::error::{Error, Result};
use crate::features::Features;
use crate::handle::{Aead, Cipher, HandleGuard, Hash, Skcipher};
use crate::names::parse_template_call;

use super::{Eligibility, Entry, Registry};

impl Registry {
    /// Builds (or finds) the template instance a name asks for, over the best children.
    /// `None` when the name is not a template call of a known template.
    pub(super) fn template_instance(&self, name: &str, depth: usize) -> Option<Result<String>> {
        let (tmpl_name, args) = parse_template_call(name)?;
        let tmpl = *self.templates.iter().find(|t| t.name == tmpl_name)?;
        if args.len() != tmpl.child_types.len() {
            return Some(Err(Error::NotFound(name.to_string())));
        }
        let mut children = Vec::with_capacity(args.len());
        for (arg, &want) in args.iter().zip(tmpl.child_types) {
            let request = (tmpl.child_request)(arg);
            let key = match self.choose(&request, depth + 1) {
                Ok(k) => k,
                Err(e) => return Some(Err(e)),
            };
            let inner = self.inner.lock();
            let Some(e) = inner.entries.get(&key) else {
                return Some(Err(Error::NotFound(request)));
            };
            if e.info.alg_type() != want {
                return Some(Err(Error::WrongType {
                    name: request,
                    wanted: want.name(),
                    actual: e.info.alg_type().name(),
                }));
            }
            let mut child = (*e.info).clone();
            child.base_priority = self.priority_of(&inner, &e.info);
            children.push(child);
        }
        let mut inst = match (tmpl.create)(&children) {
            Ok(i) => i,
            Err(e) => return Some(Err(e)),
        };
        inst.requires = children
            .iter()
            .fold(Features::EMPTY, |a, c| a.union(c.requires));
        inst.uses_zmm = children.iter().any(|c| c.uses_zmm);
        inst.children = children.iter().map(|c| c.driver.clone()).collect();
        let driver = inst.driver.clone();
        let mut inner = self.inner.lock();
        inner
            .entries
            .entry(driver.clone())
            .or_insert_with(|| Entry::new(inst));
        Some(Ok(driver))
    }

    /// Resolves a name to the key of the entry that serves it, testing on demand.
    pub(super) fn choose(&self, name: &str, depth: usize) -> Result<String> {
        if depth > 16 {
            return Err(Error::NotFound(name.to_string()));
        }
        loop {
            {
                let mut inner = self.inner.lock();
                if let Some(key) = inner.cache.get(name).cloned() {
                    if let Some(e) = inner.entries.get(&key) {
                        if let Eligibility::Usable = self.eligibility(&inner, e) {
                            return Ok(key);
                        }
                    }
                    inner.cache.remove(name);
                }
                // An exact driver name wins outright, whatever its priority.
                if let Some(e) = inner.entries.get(name) {
                    match self.eligibility(&inner, e) {
                        Eligibility::Usable => return Ok(name.to_string()),
                        Eligibility::Refused(err) => return Err(err),
                        Eligibility::UnderTest => {
                            self.tested.wait(&mut inner);
                            continue;
                        }
                        Eligibility::NeedsTest => {
                            drop(inner);
                            self.ensure_tested(name);
                            continue;
                        }
                    }
                }
            }
            let instance = self.template_instance(name, depth);
            let mut inner = self.inner.lock();
            let mut keys: Vec<(u32, String)> = inner
                .entries
                .values()
                .filter(|e| e.info.name == name)
                .map(|e| (self.priority_of(&inner, &e.info), e.info.driver.clone()))
                .collect();
            if let Some(Ok(k)) = &instance {
                if !keys.iter().any(|(_, d)| d == k) {
                    // Another thread's priority change may have dropped the instance
                    // between its creation and this lock: build it again.
                    let Some(e) = inner.entries.get(k) else {
                        continue;
                    };
                    keys.push((self.priority_of(&inner, &e.info), k.clone()));
                }
            }
            keys.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            let mut first_refusal: Option<Error> = None;
            let mut failed: Option<Error> = None;
            let mut retry = false;
            for (_, key) in &keys {
                match self.eligibility(&inner, &inner.entries[key]) {
                    Eligibility::Usable => {
                        inner.cache.insert(name.to_string(), key.clone());
                        return Ok(key.clone());
                    }
                    Eligibility::NeedsTest => {
                        let key = key.clone();
                        drop(inner);
                        self.ensure_tested(&key);
                        retry = true;
                        break;
                    }
                    Eligibility::UnderTest => {
                        self.tested.wait(&mut inner);
                        retry = true;
                        break;
                    }
                    Eligibility::Refused(err) => {
                        if failed.is_none() && matches!(err, Error::SelfTestFailed { .. }) {
                            failed = Some(err.clone());
                        }
                        first_refusal.get_or_insert(err);
                    }
                }
            }
            if retry {
                continue;
            }
            if let Some(Error::SelfTestFailed { driver, report, .. }) = failed {
                return Err(Error::SelfTestFailed {
                    name: name.to_string(),
                    driver,
                    report,
                });
            }
            return Err(match (first_refusal, instance) {
                (Some(err), _) => err,
                (None, Some(Err(err))) => err,
                _ => Error::NotFound(name.to_string()),
            });
        }
    }

    /// The driver a name resolves to now.
    pub fn resolve(&self, name: &str) -> Result<Arc<DriverInfo>> {
        let key = self.choose(name, 0)?;
        let inner = self.inner.lock();
        inner
            .entries
            .get(&key)
            .map(|e| Arc::clone(&e.info))
            .ok_or_else(|| Error::NotFound(name.to_string()))
    }

    /// Resolves and counts a new handle; refuses drivers this host cannot execute.
    pub(super) fn checkout(&self, name: &str) -> Result<(Arc<DriverInfo>, HandleGuard)> {
        let key = self.choose(name, 0)?;
        let inner = self.inner.lock();
        let e = inner
            .entries
            .get(&key)
            .ok_or_else(|| Error::NotFound(name.to_string()))?;
        let host_missing = e.info.requires.minus(self.host);
        if !host_missing.is_empty() {
            return Err(Error::Unsupported {
                driver: key,
                missing: host_missing.to_string(),
            });
        }
        Ok((Arc::clone(&e.info), HandleGuard::new(&e.handles)))
    }

    /// Allocates a block-cipher handle (`aes`).
    pub fn alloc_cipher(&self, name: &str) -> Result<Cipher> {
        let (info, guard) = self.checkout(name)?;
        Cipher::build(info, Some(guard))
    }

    /// Allocates an skcipher handle (`xts(aes)`).
    pub fn alloc_skcipher(&self, name: &str) -> Result<Skcipher> {
        let (info, guard) = self.checkout(name)?;
        Skcipher::build(info, Some(guard))
    }

    /// Allocates an AEAD handle.
    pub fn alloc_aead(&self, name: &str) -> Result<Aead> {
        let (info, guard) = self.checkout(name)?;
        Aead::build(info, Some(guard))
    }

    /// Allocates a hash handle.
    pub fn alloc_hash(&self, name: &str) -> Result<Hash> {
        let (info, guard) = self.checkout(name)?;
        Hash::build(info, Some(guard))
    }
}
