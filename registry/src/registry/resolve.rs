//! Resolution: the driver that serves a name (exact driver names, then the highest
//! effective priority among usable concrete drivers and the template instance the name
//! describes, with the name's own instances as the fallback), and the handles built on
//! it.
//!
//! Every path that chooses an entry returns what it chose — the description and its
//! handle counter, taken under the same lock as the eligibility check — instead of a key
//! to fetch again later: a concurrent priority change may drop an instance between two
//! locks, and a resolution must never fail because of that.

use std::cmp::Ordering as CmpOrdering;
use std::sync::Arc;

use crate::alg::{Child, DriverInfo};
use crate::error::{Error, Result};
use crate::features::Features;
use crate::handle::{Aead, Cipher, HandleGuard, Hash, Skcipher};
use crate::names::parse_template_call;
use crate::stats::DriverStats;

use super::{Eligibility, Entry, Inner, Registry};

/// Most names the resolution cache keeps before it starts afresh.
const MAX_CACHED_NAMES: usize = 1024;

/// How long one resolution keeps starting again because concurrent changes raced its
/// refusal. A count was not enough: under emulation (arm64 tests under QEMU) an operator
/// loop changing priorities as fast as it can moved the generation during 64 attempts in a
/// row. A time bound still frees a caller whose name is really refused while an endless
/// stream of changes runs.
const MAX_CHURN_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// What a resolution hands back: the entry's description, its counters and the
/// generation the choice was made under.
pub(super) struct Chosen {
    pub(super) info: Arc<DriverInfo>,
    pub(super) stats: Arc<DriverStats>,
    pub(super) generation: u64,
}

impl Chosen {
    fn of(e: &Entry, generation: u64) -> Chosen {
        Chosen {
            info: Arc::clone(&e.info),
            stats: Arc::clone(&e.stats),
            generation,
        }
    }
}

/// The order of candidates for one algorithm name: highest effective priority first; at
/// equal priority a concrete driver before a template instance (the kernel never builds
/// an instance when a registered driver answers the name), then the driver name that
/// sorts first, so the answer never depends on link order.
pub(super) fn candidate_order(a: (u32, &DriverInfo), b: (u32, &DriverInfo)) -> CmpOrdering {
    b.0.cmp(&a.0)
        .then_with(|| a.1.is_instance().cmp(&b.1.is_instance()))
        .then_with(|| a.1.driver().cmp(b.1.driver()))
}

impl Registry {
    /// Whether an operator gave this driver a priority of its own (at run time or in the
    /// configuration), by its name.
    pub(super) fn has_operator_priority(&self, inner: &Inner, info: &DriverInfo) -> bool {
        self.priority_and_source(inner, info).1.is_operator()
    }

    /// Template instances are the fallback of an algorithm name: an instance of the
    /// name's own algorithm competes only when no concrete driver of it is usable, unless
    /// an operator gave that instance a priority of its own (then it competes on priority
    /// like a driver). Tier 0 competes first; tier 1 only when nothing in tier 0 is
    /// usable. The instance a template call over named children describes
    /// (`xts(aes-generic)`, named `xts(aes)`) is what was asked for: tier 0.
    ///
    /// This is stricter than the kernel, which never builds an instance while a
    /// registered driver answers the name but lets one already built compete on
    /// priority: here the answer never depends on which instances happen to be built.
    pub(super) fn fallback_tier(&self, inner: &Inner, info: &DriverInfo, name: &str) -> u8 {
        u8::from(
            info.is_instance() && info.name() == name && !self.has_operator_priority(inner, info),
        )
    }

    /// Builds the template instances an operator gave a priority of their own (by driver
    /// name, at run time or in the configuration) that could answer `name` and are not
    /// built: such an instance competes with the concrete drivers, so whether it answers
    /// must not depend on whether something happened to build it (an unbuilt one has no
    /// entry to compare). "Could answer" is judged by template: `xts(...)` instances for
    /// `xts(aes)`, `gcm_base(...)` ones for `gcm(aes)` (its rewrite); the instance's own
    /// algorithm name then decides, as for any entry. Errors are left to the resolution
    /// that asks for the instance by name; a thread building one skips it while it does.
    fn build_prioritized_instances(&self, name: &str, depth: usize, first_use: bool) {
        thread_local! {
            static BUILDING: std::cell::RefCell<Vec<String>> =
                const { std::cell::RefCell::new(Vec::new()) };
        }
        let Some(wanted) = self.instance_template_of(name) else {
            return;
        };
        let unbuilt: Vec<String> = {
            let inner = self.inner.lock();
            inner
                .runtime_priority
                .keys()
                .chain(inner.config_priority.keys())
                .filter(|k| k.as_str() != name && !inner.entries.contains_key(k.as_str()))
                .filter(|k| parse_template_call(k).is_some_and(|(t, _)| t == wanted))
                .cloned()
                .collect()
        };
        for key in unbuilt {
            if BUILDING.with(|b| b.borrow().contains(&key)) {
                continue;
            }
            BUILDING.with(|b| b.borrow_mut().push(key.clone()));
            let _ = self.choose(&key, depth + 1, first_use);
            BUILDING.with(|b| b.borrow_mut().retain(|k| k != &key));
        }
    }

    /// The template whose instances answer `name` (`xts` for `xts(aes)`, `gcm_base` for
    /// `gcm(aes)`, through its rewrite); `None` when `name` is no template call.
    fn instance_template_of(&self, name: &str) -> Option<&'static str> {
        let (tmpl_name, args) = parse_template_call(name)?;
        let tmpl = *self.templates.iter().find(|t| t.name == tmpl_name)?;
        match tmpl.rewrite {
            None => Some(tmpl.name),
            Some(rewrite) => {
                let target = rewrite(&args);
                let (t, _) = parse_template_call(&target)?;
                self.templates.iter().find(|x| x.name == t).map(|x| x.name)
            }
        }
    }

    /// Builds (or finds) the template instance a name asks for, over the best children.
    /// `None` when the name is not a template call of a known template.
    ///
    /// The children are chosen without the table lock (choosing may run self-tests), so
    /// the instance is inserted only if no change happened meanwhile (the generation is
    /// unchanged); otherwise it is rebuilt over the children chosen now. A disabled or
    /// demoted child can therefore never enter through an instance built just before the
    /// change.
    ///
    /// `first_use` is the request's (see [`Registry::choose`]): the children are requests
    /// for their algorithms too.
    pub(super) fn template_instance(
        &self,
        name: &str,
        depth: usize,
        first_use: bool,
    ) -> Option<Result<String>> {
        let (tmpl_name, args) = parse_template_call(name)?;
        let tmpl = *self.templates.iter().find(|t| t.name == tmpl_name)?;
        if args.len() != tmpl.child_types.len() {
            return Some(Err(Error::NotFound(name.to_string())));
        }
        if let Some(rewrite) = tmpl.rewrite {
            // Another spelling (`gcm(X)` is `gcm_base(ctr(X),ghash)`): build that instance.
            // A rewrite must name a different template, and chains are bounded by depth.
            let target = rewrite(&args);
            let other = parse_template_call(&target).map(|(t, _)| t);
            if depth > crate::names::MAX_DEPTH || other.is_none() || other == Some(tmpl_name) {
                return Some(Err(Error::NotFound(format!(
                    "{name}: template {tmpl_name} rewrites it to {target:?}, not a call of \
                     another template"
                ))));
            }
            return self.template_instance(&target, depth + 1, first_use);
        }
        loop {
            let generation = self.inner.lock().generation;
            let mut children = Vec::with_capacity(args.len());
            for (arg, &want) in args.iter().zip(tmpl.child_types) {
                let request = (tmpl.child_request)(arg);
                let chosen = match self.choose(&request, depth + 1, first_use) {
                    Ok(c) => c,
                    Err(e) => return Some(Err(e)),
                };
                if chosen.info.alg_type() != want {
                    return Some(Err(Error::WrongType {
                        name: request,
                        wanted: want.name(),
                        actual: chosen.info.alg_type().name(),
                    }));
                }
                let priority = self.priority_of(&self.inner.lock(), &chosen.info);
                children.push(Child::new(chosen.info, priority));
            }
            let inst = match (tmpl.create)(&children) {
                Ok(i) => i,
                Err(e) => return Some(Err(e)),
            };
            // The description is the template's, but what makes it safe to resolve is
            // checked here: it records exactly these children (which invalidation
            // follows) and needs at least every feature they need.
            let needed = children
                .iter()
                .fold(Features::EMPTY, |a, c| a.union(c.info().requires()));
            let names: Vec<&str> = children.iter().map(|c| c.info().driver()).collect();
            if inst.children() != names.as_slice() || !needed.minus(inst.requires()).is_empty() {
                return Some(Err(Error::NotFound(format!(
                    "{name}: template {tmpl_name} described an instance that does not match \
                     its children"
                ))));
            }
            let mut inner = self.inner.lock();
            if inner.generation != generation {
                continue;
            }
            let key = inst.driver().to_string();
            let known = inner.instance_results.get(&key).cloned();
            if !inner.entries.contains_key(&key) {
                let mut e = Entry::new(inst);
                if let Some((state, outcome, elapsed)) = known {
                    (e.state, e.outcome, e.elapsed) = (state, outcome, elapsed);
                }
                // The counters of an earlier build of this instance (same children, same
                // code) continue; handles to that build still count into them.
                let (_, stats) = inner
                    .instance_stats
                    .entry(key.clone())
                    .or_insert_with(|| (e.info.name().to_string(), Arc::default()));
                e.stats = Arc::clone(stats);
                inner.entries.insert(key.clone(), e);
            }
            return Some(Ok(key));
        }
    }

    /// The usable entry the cache remembers for `name`, if it is still usable.
    fn cached(&self, inner: &mut Inner, name: &str) -> Option<Chosen> {
        let key = inner.cache.get(name)?;
        if let Some(e) = inner.entries.get(key) {
            if let Eligibility::Usable = self.eligibility(inner, e) {
                return Some(Chosen::of(e, inner.generation));
            }
        }
        inner.cache.remove(name);
        None
    }

    /// Resolves a name to the entry that serves it, testing on demand.
    ///
    /// `first_use` marks a request from outside (an `alloc_*`, `resolve`, `explain`): with
    /// `[selftest] when = "first-use"` it first tests every driver of the name's algorithm
    /// ([`Registry::test_at_first_use`]). The self-test runner's own lookups of generic
    /// references pass `false`: a test never starts the tests of a whole algorithm, so a
    /// worker never waits for a test it is itself running.
    pub(super) fn choose(&self, name: &str, depth: usize, first_use: bool) -> Result<Chosen> {
        if depth > 16 {
            return Err(Error::NotFound(name.to_string()));
        }
        // The common case, a name resolved before and nothing changed since: one lock
        // and the cache. A cached name was validated when it went in, and a cache hit
        // skips the first-use tests below as well. Where calibration is on and has no
        // record for the name, the hit is not taken here, so that this path never skips
        // more than the code below does (which, with first-use tests on, also answers a
        // cached name before calibrating it).
        {
            let mut inner = self.inner.lock();
            if !(first_use && self.calibration_pending(&inner, name)) {
                if let Some(c) = self.cached(&mut inner, name) {
                    return Ok(c);
                }
            }
        }
        crate::names::validate(name)?;
        if first_use && self.tests_at_first_use() {
            let cached = {
                let mut inner = self.inner.lock();
                self.cached(&mut inner, name)
            };
            if let Some(c) = cached {
                return Ok(c);
            }
            self.test_at_first_use(name);
        }
        if first_use {
            self.calibrate_once(name);
        }
        let mut churn_since: Option<std::time::Instant> = None;
        loop {
            let seen = {
                let mut inner = self.inner.lock();
                if let Some(c) = self.cached(&mut inner, name) {
                    return Ok(c);
                }
                // An exact driver name wins outright, whatever its priority.
                if let Some(e) = inner.entries.get(name) {
                    match self.eligibility(&inner, e) {
                        Eligibility::Usable => return Ok(Chosen::of(e, inner.generation)),
                        Eligibility::Refused(err) => return Err(err),
                        Eligibility::UnderTest => {
                            inner = self.tested.wait(inner);
                            continue;
                        }
                        Eligibility::NeedsTest => {
                            drop(inner);
                            self.ensure_tested(name);
                            continue;
                        }
                    }
                }
                inner.generation
            };
            self.build_prioritized_instances(name, depth, first_use);
            let instance = self.template_instance(name, depth, first_use);
            if let Some(hook) = self.resolution_hook.get() {
                hook(name);
            }
            let mut inner = self.inner.lock();
            let mut candidates: Vec<(u32, &Entry)> = inner
                .entries
                .values()
                .filter(|e| e.info.name() == name)
                .map(|e| (self.priority_of(&inner, &e.info), e))
                .collect();
            if let Some(Ok(key)) = &instance {
                // The instance answers the name even when its algorithm name differs
                // (`xts(aes-generic)` is served by `xts(ecb(aes-generic))`, named
                // `xts(aes)`).
                match inner.entries.get(key.as_str()) {
                    // A change since the instance went in dropped it: build it again.
                    None => continue,
                    Some(e) if e.info.name() != name => {
                        candidates.push((self.priority_of(&inner, &e.info), e));
                    }
                    Some(_) => {}
                }
            }
            candidates.sort_by(|a, b| {
                let tier = |e: &Entry| self.fallback_tier(&inner, &e.info, name);
                tier(a.1)
                    .cmp(&tier(b.1))
                    .then_with(|| candidate_order((a.0, &a.1.info), (b.0, &b.1.info)))
            });
            // `[selection] calibrate`: a candidate measured faster than the leader by
            // more than the margin goes first (see `calibrate`).
            if let Some(pos) = self.calibrated_pick(&inner, name, &candidates) {
                let c = candidates.remove(pos);
                candidates.insert(0, c);
            }
            let mut first_refusal: Option<Error> = None;
            let mut failed: Option<Error> = None;
            let mut wait_for: Option<(String, bool)> = None;
            for (_, e) in &candidates {
                match self.eligibility(&inner, e) {
                    Eligibility::Usable => {
                        let chosen = Chosen::of(e, inner.generation);
                        // Remembered only when no change ran during this round: after one,
                        // the candidates lack the instance the new state asks for (the
                        // one over the children that are best now, not built yet), so
                        // this answer is usable but may not be the best, and a cached
                        // answer would outlive the round and serve the whole new
                        // generation. The caller raced the change and may have it.
                        if inner.generation == seen {
                            let key = e.info.driver().to_string();
                            // Bounded: distinct valid spellings are few, but a cache a
                            // caller could grow without end is a leak (each invalidation
                            // empties it anyway).
                            if inner.cache.len() >= MAX_CACHED_NAMES {
                                inner.cache.clear();
                            }
                            inner.cache.insert(name.to_string(), key);
                        }
                        return Ok(chosen);
                    }
                    Eligibility::NeedsTest => {
                        wait_for = Some((e.info.driver().to_string(), true));
                        break;
                    }
                    Eligibility::UnderTest => {
                        wait_for = Some((e.info.driver().to_string(), false));
                        break;
                    }
                    Eligibility::Refused(err) => {
                        if failed.is_none() && matches!(err, Error::DriverFailed { .. }) {
                            failed = Some(err.clone());
                        }
                        first_refusal.get_or_insert(err);
                    }
                }
            }
            match wait_for {
                Some((key, true)) => {
                    drop(inner);
                    self.ensure_tested(&key);
                    continue;
                }
                Some((_, false)) => {
                    inner = self.tested.wait(inner);
                    continue;
                }
                None => {}
            }
            // A change since this round began may have dropped the instance that serves
            // the name now and left only one it disabled (the instance built here over
            // the children that were best before it): the refusal describes no state the
            // table was in as a whole, so look again. Bounded, so a steady stream of
            // changes cannot hold a caller whose name is really refused.
            if inner.generation != seen
                && churn_since
                    .get_or_insert_with(std::time::Instant::now)
                    .elapsed()
                    < MAX_CHURN_WAIT
            {
                continue;
            }
            if let Some(Error::DriverFailed { driver, report }) = failed {
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

    /// Installs a function every resolution calls in its one race window: after the
    /// template instance for the name is built and before the candidates are looked at
    /// under the lock. A test makes admin changes there (no lock is held) to reproduce a
    /// concurrent change at exactly that instant, which a stress test hits only by
    /// chance. Once per registry (later calls are ignored); not for services.
    #[doc(hidden)]
    pub fn set_resolution_hook_for_test(&self, hook: impl Fn(&str) + Send + Sync + 'static) {
        let _ = self.resolution_hook.set(Box::new(hook));
    }

    /// The driver a name resolves to now.
    pub fn resolve(&self, name: &str) -> Result<Arc<DriverInfo>> {
        Ok(self.choose(name, 0, true)?.info)
    }

    /// [`Registry::resolve`] for the self-test runner: the same answer, but never the
    /// first-use tests of a whole algorithm (see [`Registry::choose`]).
    pub(crate) fn resolve_for_test(&self, name: &str) -> Result<Arc<DriverInfo>> {
        Ok(self.choose(name, 0, false)?.info)
    }

    /// Resolves and counts a new handle. The driver is built with the registry's token,
    /// so a driver the (masked, possibly simulated) CPU lacks features for is refused by
    /// its own constructor as well as by the checks above.
    fn checkout(&self, name: &str) -> Result<(Arc<DriverInfo>, HandleGuard)> {
        let chosen = self.choose(name, 0, true)?;
        let guard = HandleGuard::new(&chosen.stats, chosen.generation, &self.published_generation);
        Ok((chosen.info, guard))
    }

    /// Allocates a block-cipher handle (`aes`).
    pub fn alloc_cipher(&self, name: &str) -> Result<Cipher> {
        let (info, guard) = self.checkout(name)?;
        Cipher::build(info, &self.token, Some(guard))
    }

    /// Allocates an skcipher handle (`xts(aes)`).
    pub fn alloc_skcipher(&self, name: &str) -> Result<Skcipher> {
        let (info, guard) = self.checkout(name)?;
        Skcipher::build(info, &self.token, Some(guard))
    }

    /// Allocates an AEAD handle.
    pub fn alloc_aead(&self, name: &str) -> Result<Aead> {
        let (info, guard) = self.checkout(name)?;
        Aead::build(info, &self.token, Some(guard))
    }

    /// Allocates a hash handle.
    pub fn alloc_hash(&self, name: &str) -> Result<Hash> {
        let (info, guard) = self.checkout(name)?;
        Hash::build(info, &self.token, Some(guard))
    }
}
