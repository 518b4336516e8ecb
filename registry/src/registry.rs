//! The registry: the live table of drivers, the self-test gate, the resolver and the
//! runtime priority API.
//!
//! Locking: one mutex guards the table. It is never held across a self-test or a
//! template instantiation, both of which may resolve other names; a thread that finds a
//! driver under test by another thread waits on a condition variable.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::alg::{AlgDef, DriverInfo, Template};
use crate::config::{Config, OnFailure, SelftestMode};
use crate::cpu::CpuInfo;
use crate::error::{Error, Result};
use crate::features::Features;
use crate::handle::{Aead, Cipher, HandleGuard, Hash, Skcipher};
use crate::names::parse_template_call;
use crate::policy::{CpuPolicy, ModelRow, ZMM_DEMOTED_PRIORITY};
use crate::selftest_api::{SelfTester, TestOutcome, TestParams};

/// How to boot a registry.
pub struct BootOptions {
    /// The CPU identity to plan for; `None` reads this machine. A preset other than the
    /// host makes the registry *simulated*: it plans for that CPU but executes (and so
    /// tests) only drivers this host can run too.
    pub cpu: Option<CpuInfo>,
    /// Configuration (see [`Config::load`]).
    pub config: Config,
    /// The self-test runner; without one, drivers stay untested and only `mode = "off"`
    /// makes them resolvable.
    pub tester: Option<Arc<dyn SelfTester>>,
}

/// The self-test state of one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TestState {
    Untested,
    Testing,
    Passed,
    Failed,
}

struct Entry {
    info: Arc<DriverInfo>,
    state: TestState,
    outcome: TestOutcome,
    elapsed: Duration,
    handles: Arc<AtomicUsize>,
}

#[derive(Default)]
struct Inner {
    entries: BTreeMap<String, Entry>,
    runtime_priority: HashMap<String, u32>,
    runtime_disabled: HashMap<String, bool>,
    cache: HashMap<String, String>,
}

/// Why an entry can or cannot serve a request right now.
enum Eligibility {
    Usable,
    NeedsTest,
    UnderTest,
    Refused(Error),
}

/// The registry. Share it as `Arc<Registry>`; every method takes `&self`.
pub struct Registry {
    cpu: CpuInfo,
    host: Features,
    simulated: bool,
    config: Config,
    policy_rows: Vec<ModelRow>,
    tester: Option<Arc<dyn SelfTester>>,
    seed: u64,
    templates: Vec<&'static Template>,
    inner: Mutex<Inner>,
    tested: Condvar,
    boot_elapsed: Duration,
}

/// One driver in a listing (`cryptoctl list`, `/proc/crypto`).
#[derive(Debug, Clone, serde::Serialize)]
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
pub struct Candidate {
    /// Driver name.
    pub driver: String,
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
pub struct SelftestReport {
    /// Wall time of the boot's self-tests.
    pub elapsed_ms: f64,
    /// Mode used.
    pub mode: &'static str,
    /// Base seed of the randomized tests.
    pub seed: String,
    /// One row per driver.
    pub drivers: Vec<DriverReport>,
}

/// One driver's row in a [`SelftestReport`].
#[derive(Debug, Clone, serde::Serialize)]
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
        let policy_rows = CpuPolicy::embedded().matches(&cpu);
        let seed = opts.config.selftest.seed.unwrap_or_else(fresh_seed);

        let mut inner = Inner::default();
        for def in inventory::iter::<AlgDef> {
            let info = def.to_info();
            if inner.entries.contains_key(&info.driver) {
                return Err(Error::Config(format!(
                    "driver {:?} registered twice",
                    info.driver
                )));
            }
            inner.entries.insert(info.driver.clone(), Entry::new(info));
        }
        for name in opts
            .config
            .priority
            .keys()
            .chain(&opts.config.disable.drivers)
        {
            if !inner.entries.contains_key(name) && parse_template_call(name).is_none() {
                return Err(Error::Config(format!("unknown driver {name:?}")));
            }
        }
        let mut templates: Vec<&'static Template> =
            inventory::iter::<Template>.into_iter().collect();
        templates.sort_by_key(|t| t.name);

        let mut reg = Registry {
            cpu,
            host,
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
                    driver: e.info.driver.clone(),
                    report: e.outcome.failures.first().cloned().unwrap_or_default(),
                });
            }
        }
        Ok(reg)
    }

    /// Tests every testable concrete driver, `available_parallelism` at a time.
    fn test_all(&self) {
        if !self.tests_enabled() {
            return;
        }
        let queue: Mutex<Vec<String>> = Mutex::new({
            let inner = self.inner.lock();
            let mut names: Vec<String> = inner
                .entries
                .values()
                .filter(|e| self.testable(&e.info))
                .map(|e| e.info.driver.clone())
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

    fn tests_enabled(&self) -> bool {
        self.tester.is_some() && self.config.selftest.mode != SelftestMode::Off
    }

    /// Whether this host may execute `info` and the planned CPU supports it.
    fn testable(&self, info: &DriverInfo) -> bool {
        info.requires.minus(self.cpu.features).is_empty()
            && info.requires.minus(self.host).is_empty()
    }

    fn disabled(&self, inner: &Inner, driver: &str) -> bool {
        inner
            .runtime_disabled
            .get(driver)
            .copied()
            .unwrap_or_else(|| self.config.disable.drivers.iter().any(|d| d == driver))
    }

    /// The CPU policy's priority for a driver, if the policy applies.
    fn policy_priority(&self, info: &DriverInfo) -> Option<u32> {
        (info.uses_zmm && !self.policy_rows.is_empty()).then_some(ZMM_DEMOTED_PRIORITY)
    }

    /// Runtime override > configuration > CPU policy > base.
    fn priority_of(&self, inner: &Inner, info: &DriverInfo) -> u32 {
        inner
            .runtime_priority
            .get(&info.driver)
            .copied()
            .or_else(|| self.config.priority.get(&info.driver).copied())
            .or_else(|| self.policy_priority(info))
            .unwrap_or(info.base_priority)
    }

    fn eligibility(&self, inner: &Inner, e: &Entry) -> Eligibility {
        let driver = &e.info.driver;
        if self.disabled(inner, driver) {
            return Eligibility::Refused(Error::Disabled(driver.clone()));
        }
        let missing = e.info.requires.minus(self.cpu.features);
        if !missing.is_empty() {
            return Eligibility::Refused(Error::Unsupported {
                driver: driver.clone(),
                missing: missing.to_string(),
            });
        }
        match e.state {
            TestState::Passed => Eligibility::Usable,
            TestState::Testing => Eligibility::UnderTest,
            TestState::Failed => Eligibility::Refused(Error::SelfTestFailed {
                name: e.info.name.clone(),
                driver: driver.clone(),
                report: e.outcome.failures.first().cloned().unwrap_or_default(),
            }),
            TestState::Untested => {
                if self.config.selftest.mode == SelftestMode::Off {
                    Eligibility::Usable
                } else if !e.info.requires.minus(self.host).is_empty() {
                    // Simulated CPU: planned for, never executed here.
                    Eligibility::Usable
                } else if self.tester.is_some() {
                    Eligibility::NeedsTest
                } else {
                    Eligibility::Refused(Error::NotTested(driver.clone()))
                }
            }
        }
    }

    /// Runs the self-test of `driver` unless it already ran; waits if another thread is
    /// running it.
    fn ensure_tested(&self, driver: &str) {
        let mut inner = self.inner.lock();
        loop {
            let Some(e) = inner.entries.get_mut(driver) else {
                return;
            };
            match e.state {
                TestState::Passed | TestState::Failed => return,
                TestState::Testing => self.tested.wait(&mut inner),
                TestState::Untested => {
                    if !self.tests_enabled() || !self.testable(&e.info) {
                        return;
                    }
                    e.state = TestState::Testing;
                    let info = Arc::clone(&e.info);
                    let params = TestParams {
                        mode: self.config.selftest.mode,
                        iterations: self.config.selftest.fuzz_iterations,
                        seed: self.seed,
                        replay: false,
                    };
                    drop(inner);
                    let (outcome, elapsed) = self.run_tester(&info, &params);
                    inner = self.inner.lock();
                    if let Some(e) = inner.entries.get_mut(driver) {
                        e.state = if outcome.passed() {
                            TestState::Passed
                        } else {
                            TestState::Failed
                        };
                        e.outcome = outcome;
                        e.elapsed = elapsed;
                    }
                    self.tested.notify_all();
                    return;
                }
            }
        }
    }

    fn run_tester(&self, info: &Arc<DriverInfo>, params: &TestParams) -> (TestOutcome, Duration) {
        let start = Instant::now();
        let Some(tester) = &self.tester else {
            return (TestOutcome::default(), Duration::ZERO);
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| tester.test(self, info, params)))
            .unwrap_or_else(|_| TestOutcome {
                tests: 1,
                failures: vec![format!("selftest: {}: the test panicked", info.driver)],
            });
        (outcome, start.elapsed())
    }

    /// Re-runs the self-test of one driver with explicit parameters (`cryptoctl selftest
    /// --driver D --seed S`) and records the result as that driver's state.
    pub fn run_selftest(&self, driver: &str, params: &TestParams) -> Result<TestOutcome> {
        let info = {
            let inner = self.inner.lock();
            let e = inner
                .entries
                .get(driver)
                .ok_or_else(|| Error::NotFound(driver.to_string()))?;
            if !self.testable(&e.info) {
                return Err(Error::Unsupported {
                    driver: driver.to_string(),
                    missing: e
                        .info
                        .requires
                        .minus(self.host.intersect(self.cpu.features))
                        .to_string(),
                });
            }
            Arc::clone(&e.info)
        };
        if self.tester.is_none() {
            return Err(Error::NotTested(driver.to_string()));
        }
        let (outcome, elapsed) = self.run_tester(&info, params);
        let mut inner = self.inner.lock();
        if let Some(e) = inner.entries.get_mut(driver) {
            e.state = if outcome.passed() {
                TestState::Passed
            } else {
                TestState::Failed
            };
            e.outcome = outcome.clone();
            e.elapsed = elapsed;
        }
        inner.cache.clear();
        self.tested.notify_all();
        Ok(outcome)
    }

    /// Builds (or finds) the template instance a name asks for, over the best children.
    /// `None` when the name is not a template call of a known template.
    fn template_instance(&self, name: &str, depth: usize) -> Option<Result<String>> {
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
    fn choose(&self, name: &str, depth: usize) -> Result<String> {
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
    fn checkout(&self, name: &str) -> Result<(Arc<DriverInfo>, HandleGuard)> {
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

    /// Drops cached resolutions and every template instance built, directly or through
    /// other instances, on `driver`. Live handles keep what they were built with.
    fn invalidate(&self, inner: &mut Inner, driver: &str) {
        inner.cache.clear();
        let mut gone: BTreeSet<String> = BTreeSet::from([driver.to_string()]);
        loop {
            let more: Vec<String> = inner
                .entries
                .values()
                .filter(|e| {
                    // Instances under test go too: their tester holds its own `Arc`, and a
                    // result it records later under the same driver name describes the
                    // same code over the same children, so it stays true of a rebuild.
                    !gone.contains(&e.info.driver)
                        && e.info.children.iter().any(|c| gone.contains(c))
                })
                .map(|e| e.info.driver.clone())
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

    fn with_known_driver(&self, driver: &str, f: impl FnOnce(&mut Inner)) -> Result<()> {
        let mut inner = self.inner.lock();
        if !inner.entries.contains_key(driver) {
            return Err(Error::NotFound(driver.to_string()));
        }
        f(&mut inner);
        self.invalidate(&mut inner, driver);
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

    fn state_name(&self, inner: &Inner, e: &Entry) -> &'static str {
        if self.disabled(inner, &e.info.driver) {
            "disabled"
        } else if !e.info.requires.minus(self.cpu.features).is_empty() {
            "unsupported"
        } else {
            match e.state {
                TestState::Untested => "untested",
                TestState::Testing => "testing",
                TestState::Passed => "passed",
                TestState::Failed => "failed",
            }
        }
    }

    fn list_entry(&self, inner: &Inner, e: &Entry) -> ListEntry {
        ListEntry {
            name: e.info.name.clone(),
            driver: e.info.driver.clone(),
            alg_type: e.info.alg_type().name(),
            priority: self.priority_of(inner, &e.info),
            base_priority: e.info.base_priority,
            state: self.state_name(inner, e),
            uses_zmm: e.info.uses_zmm,
            requires: e.info.requires.names(),
            missing: e.info.requires.minus(self.cpu.features).names(),
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
        let chosen = self.choose(name, 0);
        let inner = self.inner.lock();
        // The chosen entry may already be gone again if another thread changed a
        // priority since; the explanation then describes the table as it is now.
        let chosen_entry = chosen.as_ref().ok().and_then(|k| inner.entries.get(k));
        let alg_name = match chosen_entry.or_else(|| inner.entries.get(name)) {
            Some(e) => e.info.name.clone(),
            None => name.to_string(),
        };
        let chosen_key = chosen.as_ref().ok();
        let chosen_prio = chosen_entry.map(|e| self.priority_of(&inner, &e.info));
        // Asked for by driver name: the others were not competing at all.
        let pinned = inner.entries.contains_key(name);
        let mut candidates: Vec<Candidate> = inner
            .entries
            .values()
            .filter(|e| e.info.name == alg_name || Some(&e.info.driver) == chosen_key)
            .map(|e| {
                let priority = self.priority_of(&inner, &e.info);
                let state = self.state_name(&inner, e);
                let demoted =
                    self.policy_priority(&e.info).is_some() && priority == ZMM_DEMOTED_PRIORITY;
                let zmm_note = demoted.then(|| {
                    let model = self.policy_rows.first().map_or("", |r| r.name.as_str());
                    format!(
                        "zmm-excluded on this model, {model} ({} -> {ZMM_DEMOTED_PRIORITY})",
                        e.info.base_priority
                    )
                });
                let missing = e.info.requires.minus(self.cpu.features);
                let host_missing = e.info.requires.minus(self.host);
                let mut verdict = if Some(&e.info.driver) == chosen_key {
                    "chosen".to_string()
                } else if state == "disabled" {
                    "disabled".to_string()
                } else if !missing.is_empty() {
                    format!("missing {missing}")
                } else if e.state == TestState::Failed {
                    format!(
                        "self-test failed: {}",
                        e.outcome.failures.first().map_or("", String::as_str)
                    )
                } else if let Some(note) = &zmm_note {
                    note.clone()
                } else if pinned && chosen_key.is_some() {
                    format!("not asked for: {name} is pinned by driver name")
                } else if let Some(cp) = chosen_prio {
                    format!("lower priority ({priority} < {cp})")
                } else {
                    state.to_string()
                };
                if Some(&e.info.driver) == chosen_key {
                    if let Some(note) = &zmm_note {
                        verdict = format!("chosen ({note})");
                    }
                }
                if self.simulated && missing.is_empty() && !host_missing.is_empty() {
                    verdict.push_str(&format!(" [not run: this host lacks {host_missing}]"));
                }
                Candidate {
                    driver: e.info.driver.clone(),
                    priority,
                    base_priority: e.info.base_priority,
                    state,
                    verdict,
                }
            })
            .collect();
        candidates.sort_by(|a, b| {
            b.priority
                .cmp(&a.priority)
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
        SelftestReport {
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
                    driver: e.info.driver.clone(),
                    state: self.state_name(&inner, e),
                    tests: e.outcome.tests,
                    failures: e.outcome.failures.clone(),
                })
                .collect(),
        }
    }

    /// Distinct algorithm names of the concrete drivers, sorted.
    pub fn algorithm_names(&self) -> Vec<String> {
        let inner = self.inner.lock();
        let set: BTreeSet<String> = inner
            .entries
            .values()
            .filter(|e| !e.info.is_instance())
            .map(|e| e.info.name.clone())
            .collect();
        set.into_iter().collect()
    }

    /// Names of the registered templates.
    pub fn template_names(&self) -> Vec<&'static str> {
        self.templates.iter().map(|t| t.name).collect()
    }

    /// The CPU identity planned for.
    pub fn cpu(&self) -> &CpuInfo {
        &self.cpu
    }

    /// Features this host can execute (after `cpu.disable` masks).
    pub fn host_features(&self) -> Features {
        self.host
    }

    /// Whether the identity is a simulated preset rather than this machine.
    pub fn is_simulated(&self) -> bool {
        self.simulated
    }

    /// Rows of `cpu-models.toml` that match the identity.
    pub fn policy_matches(&self) -> &[ModelRow] {
        &self.policy_rows
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The base seed of the randomized self-tests.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Wall time of the boot (self-tests included).
    pub fn boot_elapsed(&self) -> Duration {
        self.boot_elapsed
    }
}

impl Entry {
    fn new(info: DriverInfo) -> Entry {
        Entry {
            info: Arc::new(info),
            state: TestState::Untested,
            outcome: TestOutcome::default(),
            elapsed: Duration::ZERO,
            handles: Arc::new(AtomicUsize::new(0)),
        }
    }
}
