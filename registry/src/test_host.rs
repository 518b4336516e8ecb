//! The registry as a [`TestHost`]: what the self-test runner may ask of it. Kept out of
//! `registry.rs` so the runner's view of the registry is one small, separate contract.

use std::sync::Arc;

use crate::alg::DriverInfo;
use crate::error::Result;
use crate::host::HostFeatures;
use crate::registry::Registry;
use crate::selftest_api::TestHost;

impl TestHost for Registry {
    fn resolve_tested(&self, name: &str) -> Result<Arc<DriverInfo>> {
        // `resolve` only answers with passed drivers (waiting for one under test) — or,
        // with self-tests off or a simulated CPU, untested ones; a reference the host
        // cannot execute is refused here, as `alloc_*` would.
        let info = self.resolve_for_test(name)?;
        self.host_token()
            .require_set(info.driver(), info.requires())?;
        Ok(info)
    }

    fn host_token(&self) -> HostFeatures {
        Registry::host_token(self)
    }
}
