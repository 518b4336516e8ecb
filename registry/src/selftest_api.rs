//! The contract between the registry and the self-test runner. The registry decides when
//! a driver is tested and what the result means; the runner (crate `cryptoreg-selftest`)
//! decides how. The registry knows nothing of vectors.

use std::sync::Arc;

use serde::Serialize;

use crate::alg::DriverInfo;
use crate::config::SelftestMode;
use crate::registry::Registry;

/// What one test run is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TestParams {
    /// `kat` or `full` (`off` never reaches a tester).
    pub mode: SelftestMode,
    /// Randomized iterations in `full` mode.
    pub iterations: u32,
    /// Base seed of the randomized iterations.
    pub seed: u64,
    /// Replay: run exactly the one randomized case whose printed seed is `seed`, skipping
    /// the known answers.
    pub replay: bool,
}

/// The result of testing one driver.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TestOutcome {
    /// Number of checks run.
    pub tests: usize,
    /// One replayable line per failure; empty means passed. A tester that found no
    /// vectors for the algorithm reports that as a failure: untested is not passed.
    pub failures: Vec<String>,
}

impl TestOutcome {
    /// Whether every check passed and at least one ran.
    pub fn passed(&self) -> bool {
        self.failures.is_empty() && self.tests > 0
    }
}

/// A self-test runner installed into the registry at boot.
pub trait SelfTester: Send + Sync {
    /// Tests `driver`. The runner may resolve other names through `registry` (the generic
    /// reference); the registry never holds a lock across this call.
    fn test(
        &self,
        registry: &Registry,
        driver: &Arc<DriverInfo>,
        params: &TestParams,
    ) -> TestOutcome;
}
