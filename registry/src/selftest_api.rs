//! The contract between the registry and the self-test runner. The registry decides when
//! a driver is tested and what the result means; the runner (crate `cryptoreg-selftest`)
//! decides how. The registry knows nothing of vectors.

use std::sync::Arc;

use serde::Serialize;

use crate::alg::DriverInfo;
use crate::config::SelftestMode;
use crate::error::Result;
use crate::host::HostFeatures;

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
    /// Which of the randomized cases this run takes ([`Shard::WHOLE`]: all of them). The
    /// registry spreads one driver's cases over the CPUs it tests on, one shard per CPU;
    /// the known answers run in every shard.
    pub shard: Shard,
    /// Run only on this CPU (`cryptoctl selftest --cpu-id N`, replaying a failure where
    /// it happened). `None`: on every CPU of the process's affinity mask, as the boot
    /// does (see [`crate::affinity`]).
    pub cpu: Option<usize>,
}

/// A share of a run's randomized cases: case `i` belongs to shard `i % count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, below `count`.
    pub index: u32,
    /// How many shards the cases are spread over (at least 1).
    pub count: u32,
}

impl Shard {
    /// Every case.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Whether case `i` belongs to this shard.
    pub fn takes(self, i: u32) -> bool {
        i % self.count.max(1) == self.index
    }
}

/// The result of testing one driver.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TestOutcome {
    /// Number of checks run.
    pub tests: usize,
    /// One replayable line per failure; empty means passed. A tester that found no
    /// vectors for the algorithm reports that as a failure: untested is not passed.
    pub failures: Vec<String>,
    /// The generic reference the randomized tests needed and could not get (disabled,
    /// failed, unsupported): the driver is then *untested*, not failed, and is tested
    /// again once the registry changes (an `enable`, a priority change).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference_unavailable: Option<String>,
}

impl TestOutcome {
    /// Whether every check passed and at least one ran.
    pub fn passed(&self) -> bool {
        self.failures.is_empty() && self.tests > 0
    }
}

/// What a self-test runner may ask of the registry: the narrow lookup interface, so the
/// runner never sees the registry itself (and cannot change priorities, states or
/// configuration while it tests).
pub trait TestHost: Sync {
    /// Resolves `name` (an algorithm or driver name, such as the generic reference
    /// `xts(aes-generic)`) to a driver that passed its own self-test and that this host can
    /// execute, waiting for that test if it is running. Template instances are built (and
    /// tested) on demand, as for any request. Handles are then built with `driver::build_*`.
    fn resolve_tested(&self, name: &str) -> Result<Arc<DriverInfo>>;

    /// The CPU token to build handles with (`driver::build_skcipher(info, &token)`): the
    /// registry's, so the operator's mask holds for the drivers under test too.
    fn host_token(&self) -> HostFeatures;
}

/// A self-test runner installed into the registry at boot.
pub trait SelfTester: Send + Sync {
    /// Tests `driver`. The runner may resolve other names through `host` (the generic
    /// reference); the registry never holds a lock across this call.
    fn test(
        &self,
        host: &dyn TestHost,
        driver: &Arc<DriverInfo>,
        params: &TestParams,
    ) -> TestOutcome;
}
