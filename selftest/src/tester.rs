//! [`Tester`]: the [`SelfTester`] the registry calls for every driver.

use std::sync::Arc;

use cryptoreg_registry::{DriverInfo, SelfTester, SelftestMode, TestHost, TestOutcome, TestParams};

use crate::report::{driver_line, Tally};
use crate::vectors::VectorSet;
use crate::{kat, random};

/// The self-test runner: known answers (`kat`), then randomized differential tests
/// against the generic driver (`full`), or exactly one randomized case (`replay`).
///
/// A driver whose algorithm has no vectors fails with `no test vectors for NAME`:
/// untested is not passed. So do AEADs and hashes until their runners exist.
#[derive(Debug, Clone)]
pub struct Tester {
    vectors: Arc<VectorSet>,
}

impl Tester {
    /// A runner over the embedded vectors.
    pub fn new() -> Tester {
        Tester {
            vectors: VectorSet::embedded(),
        }
    }

    /// A runner over `vectors` instead (tests add vectors for toy algorithms this way:
    /// start from `VectorSet::embedded()` and `merge`).
    pub fn with_vectors(vectors: VectorSet) -> Tester {
        Tester {
            vectors: Arc::new(vectors),
        }
    }

    /// The vectors this runner uses.
    pub fn vectors(&self) -> &VectorSet {
        &self.vectors
    }
}

impl Default for Tester {
    fn default() -> Self {
        Tester::new()
    }
}

impl SelfTester for Tester {
    fn test(
        &self,
        host: &dyn TestHost,
        driver: &Arc<DriverInfo>,
        params: &TestParams,
    ) -> TestOutcome {
        let mut tally = Tally::default();
        if params.replay {
            random::run(host, driver, params, &mut tally);
            return tally.into_outcome();
        }
        match self.vectors.get(&driver.name) {
            Some(vectors) => kat::run(driver, vectors, &mut tally),
            None => {
                let msg = format!("no test vectors for {}", driver.name);
                tally
                    .failures
                    .push(driver_line(driver.alg_type(), &driver.driver, &msg));
                return tally.into_outcome();
            }
        }
        if params.mode == SelftestMode::Full {
            random::run(host, driver, params, &mut tally);
        }
        tally.into_outcome()
    }
}

/// The runner the facade installs into the registry at boot.
pub fn tester() -> Arc<dyn SelfTester> {
    Arc::new(Tester::new())
}
