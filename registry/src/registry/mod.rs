//! The registry: the live table of drivers, the self-test gate, the resolver and the
//! runtime priority API.
//!
//! Locking: one mutex guards the table. It is never held across a self-test or a
//! template instantiation, both of which may resolve other names; a thread that finds a
//! driver under test by another thread waits on a condition variable.
//!
//! The table and the rules every concern shares live here (entries, states, effective
//! priority, eligibility); each concern has its own file:
//!
//! * `boot` — collecting the records, applying configuration, testing every driver;
//! * `gate` — running a driver's self-test and recording what it means;
//! * `resolve` — choosing the driver for a name, instantiating templates, handing out
//!   handles;
//! * `admin` — the runtime priority and enable/disable API, and the generation number
//!   every such change advances;
//! * `reload` — applying a new configuration at run time, and `prepare`;
//! * `report` — listings, `explain` and the self-test report;
//! * `rescan` — re-testing the drivers in use while the service runs;
//! * `calibrate` — timing an algorithm's candidates to choose by measurement;
//! * `calibration_cache` — the file that lets a restart skip the measurement;
//! * `fork` — the `pthread_atfork` handlers that keep a forked child's table usable.

mod admin;
mod boot;
mod budget;
mod calibrate;
mod calibration_cache;
#[cfg(unix)]
#[allow(unsafe_code)] // the one module that may: see its docs
mod fork;
mod gate;
mod reload;
mod report;
mod rescan;
mod resolve;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

use crate::sync::{Condvar, Mutex};

use crate::alg::{DriverInfo, Template};
use crate::config::{Config, SelftestMode};
use crate::cpu::CpuInfo;
use crate::error::Error;
use crate::features::Features;
use crate::host::HostFeatures;
use crate::policy::{ModelRow, ZMM_DEMOTED_PRIORITY};
use crate::selftest_api::{SelfTester, TestOutcome};
use crate::stats::DriverStats;

pub use admin::{AdminOp, Change, ChangeEffect};
pub use budget::failure_cpu;
pub use calibrate::{Calibration, Measured, CALIBRATION_BUDGET};
pub use report::{
    Candidate, DriverReport, DriverStatsReport, Explanation, ListEntry, SelftestReport,
};
pub use rescan::{RescanDriver, RescanReport, RESCAN_RANDOM_CASES};

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
    /// Untested because the generic reference was unavailable when the test ran
    /// (`TestOutcome::reference_unavailable`): not resolvable, not re-tested on every
    /// request, reset to `Untested` by the next change to the registry.
    Blocked,
}

struct Entry {
    info: Arc<DriverInfo>,
    state: TestState,
    outcome: TestOutcome,
    elapsed: Duration,
    stats: Arc<DriverStats>,
}

#[derive(Default)]
struct Inner {
    entries: BTreeMap<String, Entry>,
    runtime_priority: HashMap<String, u32>,
    runtime_disabled: HashMap<String, bool>,
    /// The configuration layer of priorities (`[priority]`), replaced by
    /// [`Registry::apply_config`].
    config_priority: BTreeMap<String, u32>,
    /// The configuration layer of disabled drivers (`[disable] drivers`), replaced by
    /// [`Registry::apply_config`].
    config_disabled: BTreeSet<String>,
    cache: HashMap<String, String>,
    /// Bumped by every change that can alter a choice (priority, enable/disable, a
    /// re-test): an instance built over children chosen under an older generation is
    /// discarded and rebuilt instead of being inserted.
    generation: u64,
    /// Self-test results of template instances by driver name, kept across the
    /// invalidations that drop the instances themselves: an instance name spells out
    /// every child driver, so a rebuild runs the same code and need not be tested again
    /// (what the kernel does too). Without this, a steady stream of priority changes
    /// would drop every instance before its test ended, and resolutions over templates
    /// would starve.
    instance_results: HashMap<String, (TestState, TestOutcome, Duration)>,
    /// Counters of template instances by driver name (with the algorithm name), kept
    /// across the invalidations that drop the instances, as `instance_results` keeps
    /// their self-test results: a rebuilt instance takes the same [`DriverStats`] back,
    /// so its counts continue those of its live and dropped handles, and `stats` shows an
    /// instance not rebuilt as `retired` while handles to it live. Bounded as
    /// `instance_results` is, by the instances that were ever built.
    instance_stats: HashMap<String, (String, Arc<DriverStats>)>,
    /// Rescan re-tests and failures by driver name (see `rescan`), kept across
    /// invalidations as `instance_stats` is.
    rescan_counts: HashMap<String, (u64, u64)>,
    /// Calibration figures by algorithm name (`[selection] calibrate`; see `calibrate`),
    /// kept for the registry's life: speeds do not change with priorities.
    calibrations: HashMap<String, calibrate::Calibration>,
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
    /// The token every driver is built with: `host` limited to the planned CPU.
    token: HostFeatures,
    simulated: bool,
    config: Config,
    policy_rows: Vec<ModelRow>,
    tester: Option<Arc<dyn SelfTester>>,
    seed: u64,
    templates: Vec<&'static Template>,
    /// Shared (`Arc`) only so that the fork handlers can reach it (`fork`).
    inner: Arc<Mutex<Inner>>,
    tested: Arc<Condvar>,
    boot_elapsed: Duration,
    /// `Inner::generation`, published for lock-free reads by [`Registry::generation`]
    /// and by handles' `is_current` (shared with every handle the registry hands out).
    published_generation: Arc<AtomicU64>,
    /// A test's hook into the resolver's one race window (see
    /// [`Registry::set_resolution_hook_for_test`]); empty in every service.
    resolution_hook: std::sync::OnceLock<ResolutionHook>,
    /// The re-verification's pass counter and background thread (`rescan`).
    rescan: rescan::RescanState,
}

/// `Registry { cpu: "GenuineIntel family 6 model 143 stepping 8 (native)", simulated:
/// false, selftest: Full, seed: "0x...", generation: 0 }`: the identity it planned for,
/// its self-test mode and seed, and the current generation. It takes no lock (so it is
/// safe anywhere, even inside a resolution hook); `list()` and `explain()` show the
/// drivers.
impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = &self.cpu;
        f.debug_struct("Registry")
            .field(
                "cpu",
                &format_args!(
                    "\"{} family {} model {} stepping {} ({})\"",
                    c.vendor, c.family, c.model, c.stepping, c.source
                ),
            )
            .field("simulated", &self.simulated)
            .field("selftest", &self.config.selftest.mode)
            .field("seed", &format_args!("\"{:#x}\"", self.seed))
            .field("generation", &self.generation())
            .finish()
    }
}

/// What [`Registry::set_resolution_hook_for_test`] installs.
type ResolutionHook = Box<dyn Fn(&str) + Send + Sync>;

/// Where an effective priority comes from (see [`Registry::priority_of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PrioritySource {
    /// `set_priority` at run time.
    Runtime,
    /// `[priority]` in the configuration.
    Configured,
    /// The CPU-model policy (zmm drivers on downclocking models).
    Policy,
    /// The driver's own.
    Base,
}

impl PrioritySource {
    /// Whether an operator set it (then a template instance competes with drivers).
    fn is_operator(self) -> bool {
        matches!(self, PrioritySource::Runtime | PrioritySource::Configured)
    }

    /// How `explain` names it before the number.
    fn words(self) -> &'static str {
        match self {
            PrioritySource::Runtime => "runtime priority",
            PrioritySource::Configured => "configured priority",
            PrioritySource::Policy | PrioritySource::Base => "priority",
        }
    }
}

impl Registry {
    fn disabled(&self, inner: &Inner, driver: &str) -> bool {
        inner
            .runtime_disabled
            .get(driver)
            .copied()
            .unwrap_or_else(|| inner.config_disabled.contains(driver))
    }

    /// The CPU policy's priority for a driver, if the policy applies.
    fn policy_priority(&self, info: &DriverInfo) -> Option<u32> {
        (info.uses_zmm() && !self.policy_rows.is_empty()).then_some(ZMM_DEMOTED_PRIORITY)
    }

    /// Runtime override > configuration > CPU policy > base.
    fn priority_of(&self, inner: &Inner, info: &DriverInfo) -> u32 {
        self.priority_and_source(inner, info).0
    }

    /// The effective priority and where it comes from, in the order that decides it:
    /// runtime `set_priority` > configuration > CPU policy > base.
    fn priority_and_source(&self, inner: &Inner, info: &DriverInfo) -> (u32, PrioritySource) {
        let driver = info.driver();
        if let Some(&p) = inner.runtime_priority.get(driver) {
            (p, PrioritySource::Runtime)
        } else if let Some(&p) = inner.config_priority.get(driver) {
            (p, PrioritySource::Configured)
        } else if let Some(p) = self.policy_priority(info) {
            (p, PrioritySource::Policy)
        } else {
            (info.base_priority(), PrioritySource::Base)
        }
    }

    fn eligibility(&self, inner: &Inner, e: &Entry) -> Eligibility {
        let driver = e.info.driver();
        if self.disabled(inner, driver) {
            return Eligibility::Refused(Error::Disabled(driver.to_string()));
        }
        let missing = e.info.requires().minus(self.cpu.features);
        if !missing.is_empty() {
            return Eligibility::Refused(Error::Unsupported {
                driver: driver.to_string(),
                missing: missing.to_string(),
            });
        }
        match e.state {
            TestState::Passed => Eligibility::Usable,
            TestState::Testing => Eligibility::UnderTest,
            TestState::Blocked => Eligibility::Refused(Error::ReferenceUnavailable {
                driver: driver.to_string(),
                reference: e.outcome.reference_unavailable.clone().unwrap_or_default(),
            }),
            TestState::Failed => Eligibility::Refused(Error::DriverFailed {
                driver: driver.to_string(),
                report: e.outcome.failures.first().cloned().unwrap_or_default(),
            }),
            TestState::Untested => {
                if self.config.selftest.mode == SelftestMode::Off {
                    Eligibility::Usable
                } else if !e.info.requires().minus(self.token.features()).is_empty() {
                    // Simulated CPU: planned for, never executed here.
                    Eligibility::Usable
                } else if self.tester.is_some() {
                    Eligibility::NeedsTest
                } else {
                    Eligibility::Refused(Error::NotTested(driver.to_string()))
                }
            }
        }
    }

    fn state_name(&self, inner: &Inner, e: &Entry) -> &'static str {
        if self.disabled(inner, e.info.driver()) {
            "disabled"
        } else if !e.info.requires().minus(self.cpu.features).is_empty() {
            "unsupported"
        } else {
            match e.state {
                TestState::Untested | TestState::Blocked => "untested",
                TestState::Testing => "testing",
                TestState::Passed => "passed",
                TestState::Failed => "failed",
            }
        }
    }

    /// Distinct algorithm names of the concrete drivers, sorted.
    pub fn algorithm_names(&self) -> Vec<String> {
        let inner = self.inner.lock();
        let set: BTreeSet<String> = inner
            .entries
            .values()
            .filter(|e| !e.info.is_instance())
            .map(|e| e.info.name().to_string())
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

    /// The CPU token every driver of this registry is built with: this machine's
    /// features, less the `[cpu] disable` mask, limited to the planned CPU. The
    /// self-test runner builds the drivers it tests with it.
    pub fn host_token(&self) -> HostFeatures {
        self.token
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

    /// The configuration the registry was booted with. Its `[priority]` and `[disable]`
    /// sections are the boot's; after [`Registry::apply_config`] the layer in force is
    /// [`Registry::current_config`].
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
            stats: Arc::default(),
        }
    }
}
