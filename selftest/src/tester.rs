//! [`Tester`]: the [`SelfTester`] the registry calls for every driver.

use std::sync::Arc;

use cryptoreg_registry::{DriverInfo, SelfTester, TestHost, TestOutcome, TestParams};

use crate::report::Tally;
use crate::runner;
use crate::vectors::VectorSet;

/// The self-test runner: known answers (`kat`), then randomized differential tests
/// against the generic driver (`full`), or exactly one randomized case (`replay`).
///
/// A driver whose algorithm has no vectors fails with `no test vectors for NAME`:
/// untested is not passed. One runner per type (`runner`): cipher and skcipher, AEAD, hash.
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
        runner::run(host, driver, &self.vectors, params, &mut tally);
        tally.into_outcome()
    }
}

/// The runner the facade installs into the registry at boot.
pub fn tester() -> Arc<dyn SelfTester> {
    Arc::new(Tester::new())
}
