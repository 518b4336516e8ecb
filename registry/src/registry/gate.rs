//! The self-test gate: runs a driver's test once (others wait for it) and records what
//! the outcome means for resolution.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::alg::DriverInfo;
use crate::config::{SelftestMode, SelftestWhen};
use crate::error::{Error, Result};
use crate::selftest_api::{Shard, TestOutcome, TestParams};

use super::{Inner, Registry, TestState};

impl Registry {
    pub(super) fn tests_enabled(&self) -> bool {
        self.tester.is_some() && self.config.selftest.mode != SelftestMode::Off
    }

    /// Whether requests test their algorithm's drivers before choosing (`[selftest] when =
    /// "first-use"`, tests on).
    pub(super) fn tests_at_first_use(&self) -> bool {
        self.config.selftest.when == SelftestWhen::FirstUse && self.tests_enabled()
    }

    /// `[selftest] when = "first-use"`: before a request for `name` is answered, tests
    /// every concrete driver of its algorithm (the algorithm of the driver `name` names,
    /// else `name` itself) that this host can run and that is still untested, in
    /// parallel as the boot does. Their tests resolve (and so test) the generic
    /// reference. The choice then sees the states a boot-time test would have given, so
    /// neither it nor `explain` depends on which name was asked for first. Template
    /// instances are tested when a resolution reaches them, as at boot.
    pub(super) fn test_at_first_use(&self, name: &str) {
        let drivers: Vec<String> = {
            let inner = self.inner.lock();
            let alg = inner.entries.get(name).map_or(name, |e| e.info.name());
            inner
                .entries
                .values()
                .filter(|e| {
                    !e.info.is_instance()
                        && e.info.name() == alg
                        && e.state == TestState::Untested
                        && self.testable(&e.info)
                })
                .map(|e| e.info.driver().to_string())
                .collect()
        };
        self.test_drivers(drivers);
    }

    /// Whether this host may execute `info` and the planned CPU supports it.
    pub(super) fn testable(&self, info: &DriverInfo) -> bool {
        info.requires().minus(self.token.features()).is_empty()
    }

    /// Runs the self-test of `driver` unless it already ran; waits if another thread is
    /// running it.
    pub(super) fn ensure_tested(&self, driver: &str) {
        let mut inner = self.inner.lock();
        loop {
            let Some(e) = inner.entries.get_mut(driver) else {
                return;
            };
            match e.state {
                TestState::Passed | TestState::Failed | TestState::Blocked => return,
                TestState::Testing => inner = self.tested.wait(inner),
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
                        shard: Shard::WHOLE,
                        cpu: None,
                    };
                    drop(inner);
                    let (outcome, elapsed) = self.run_tester(&info, &params);
                    inner = self.inner.lock();
                    let state = if outcome.passed() {
                        TestState::Passed
                    } else if outcome.reference_unavailable.is_some() {
                        TestState::Blocked
                    } else {
                        TestState::Failed
                    };
                    log_verdict(driver, state, &outcome);
                    if info.is_instance() && state != TestState::Blocked {
                        inner
                            .instance_results
                            .insert(driver.to_string(), (state, outcome.clone(), elapsed));
                    }
                    if let Some(e) = inner.entries.get_mut(driver) {
                        e.state = state;
                        e.outcome = outcome;
                        e.elapsed = elapsed;
                    }
                    self.tested.notify_all();
                    return;
                }
            }
        }
    }

    pub(super) fn run_tester(
        &self,
        info: &Arc<DriverInfo>,
        params: &TestParams,
    ) -> (TestOutcome, Duration) {
        let start = Instant::now();
        let Some(tester) = &self.tester else {
            return (TestOutcome::default(), Duration::ZERO);
        };
        let budget = Duration::from_secs(u64::from(self.config.selftest.timeout_secs));
        let outcome = self.test_within_budget(tester, info, params, budget);
        (outcome, start.elapsed())
    }

    /// Re-runs the self-test of one driver with explicit parameters (`cryptoctl selftest
    /// --driver D --seed S`) and reports the outcome.
    ///
    /// A re-test never weakens the gate: a failure marks the driver failed, but a pass
    /// moves it to `passed` only when the test was at least as strong as the boot's — a
    /// full run (not a replay of one case, not known answers only) with at least the
    /// configured `fuzz_iterations`. A replay or a `kat` run that passes reports that and
    /// leaves the state as it was, so a failed driver cannot be cleared by a seed that
    /// happens to pass.
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
                    missing: e.info.requires().minus(self.token.features()).to_string(),
                });
            }
            Arc::clone(&e.info)
        };
        if self.tester.is_none() {
            return Err(Error::NotTested(driver.to_string()));
        }
        if let Some(cpu) = params.cpu {
            let allowed = crate::affinity::process_cpus();
            if !allowed.contains(&cpu) {
                return Err(Error::InvalidCpu { cpu, allowed });
            }
        }
        let (outcome, elapsed) = self.run_tester(&info, params);
        let strong_enough = !params.replay
            && params.mode == SelftestMode::Full
            && params.iterations >= self.config.selftest.fuzz_iterations;
        log_verdict(
            driver,
            if outcome.passed() {
                TestState::Passed
            } else {
                TestState::Failed
            },
            &outcome,
        );
        let mut inner = self.inner.lock();
        let next = if outcome.passed() {
            strong_enough.then_some(TestState::Passed)
        } else if outcome.reference_unavailable.is_some() {
            None
        } else {
            Some(TestState::Failed)
        };
        if let Some(state) = next {
            self.record_retest(&mut inner, &info, state, &outcome, elapsed);
        }
        self.tested.notify_all();
        Ok(outcome)
    }

    /// Records the verdict of a test run after the boot's (`run_selftest`, a rescan) and
    /// moves the generation.
    pub(super) fn record_retest(
        &self,
        inner: &mut Inner,
        info: &DriverInfo,
        state: TestState,
        outcome: &TestOutcome,
        elapsed: Duration,
    ) {
        let driver = info.driver();
        if let Some(e) = inner.entries.get_mut(driver) {
            e.state = state;
            e.outcome = outcome.clone();
            e.elapsed = elapsed;
        }
        if info.is_instance() {
            inner
                .instance_results
                .insert(driver.to_string(), (state, outcome.clone(), elapsed));
        }
        // Instances built over this driver were tested with it as it was judged before;
        // a new verdict drops them (and what cached them), so a driver that now fails
        // cannot keep serving through a template.
        self.invalidate(inner, driver);
    }
}

/// Logs a self-test verdict: each failure as an error event with its replayable line
/// (`cryptoctl selftest --driver D --seed S` replays it), a driver left untested for want
/// of its reference as a warning, a pass at debug level.
pub(super) fn log_verdict(driver: &str, state: TestState, outcome: &TestOutcome) {
    match state {
        TestState::Failed => {
            for line in &outcome.failures {
                tracing::error!(
                    target: "cryptoreg::selftest",
                    driver,
                    replay = %line,
                    "self-test failed, driver excluded: {line}"
                );
            }
            if outcome.failures.is_empty() {
                tracing::error!(target: "cryptoreg::selftest", driver, "self-test failed");
            }
        }
        TestState::Blocked => tracing::warn!(
            target: "cryptoreg::selftest",
            driver,
            reference = outcome.reference_unavailable.as_deref().unwrap_or("?"),
            "driver left untested: its generic reference is unavailable"
        ),
        _ => tracing::debug!(
            target: "cryptoreg::selftest",
            driver,
            tests = outcome.tests,
            "self-test passed"
        ),
    }
}
