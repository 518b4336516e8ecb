//! The per-driver time budget of a self-test. A driver that hangs in its test (an endless
//! loop on some length, a lock it never gets) must not hang boot: the test runs on a
//! thread of its own, the caller waits at most `[selftest] timeout_secs`, and a test that
//! has not finished by then fails with "timed out". The thread is left to finish on its
//! own (Rust cannot kill it); whatever it reports later is dropped, so the driver is never
//! handed out.
//!
//! The runner still needs the registry while it tests (to resolve the generic
//! reference), but a detached thread cannot borrow it. So the thread gets a small proxy
//! [`TestHost`] that sends each lookup back to the waiting thread, which answers it from
//! the registry it holds; once that thread has given up, lookups fail with an error.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::alg::DriverInfo;
use crate::error::{Error, Result};
use crate::host::HostFeatures;
use crate::selftest_api::{SelfTester, TestHost, TestOutcome, TestParams};

use super::Registry;

/// What the test thread says to the waiting thread.
enum Message {
    /// Resolve a reference for me; answer on the enclosed channel.
    Resolve(String, Sender<Result<Arc<DriverInfo>>>),
    /// The test ended with this outcome.
    Done(TestOutcome),
}

/// The [`TestHost`] a test thread sees: lookups travel to the thread that holds the
/// registry.
struct ProxyHost {
    to_registry: Sender<Message>,
    token: HostFeatures,
}

impl TestHost for ProxyHost {
    fn resolve_tested(&self, name: &str) -> Result<Arc<DriverInfo>> {
        let (reply, answer) = channel();
        let gone = || Error::NotTested(format!("{name} (the self-test ran out of time)"));
        self.to_registry
            .send(Message::Resolve(name.to_string(), reply))
            .map_err(|_| gone())?;
        answer.recv().map_err(|_| gone())?
    }

    fn host_token(&self) -> HostFeatures {
        self.token
    }
}

/// A one-line failure for `driver`.
fn failure(driver: &str, what: &str) -> TestOutcome {
    TestOutcome {
        tests: 1,
        failures: vec![format!("selftest: {driver}: {what}")],
        ..TestOutcome::default()
    }
}

impl Registry {
    /// Runs `tester` on `info` within `budget`, answering the test's lookups from this
    /// registry meanwhile. A panic in the test is a failure naming the driver; a test
    /// still running at the deadline is a failure "timed out after N s".
    pub(super) fn test_within_budget(
        &self,
        tester: &Arc<dyn SelfTester>,
        info: &Arc<DriverInfo>,
        params: &TestParams,
        budget: Duration,
    ) -> TestOutcome {
        let (to_registry, from_test) = channel();
        let host = ProxyHost {
            to_registry: to_registry.clone(),
            token: self.token,
        };
        let (tester, test_info, params_copy) = (Arc::clone(tester), Arc::clone(info), *params);
        let spawned = std::thread::Builder::new()
            .name(format!("selftest {}", info.driver()))
            .spawn(move || {
                let outcome = catch_unwind(AssertUnwindSafe(|| {
                    tester.test(&host, &test_info, &params_copy)
                }))
                .unwrap_or_else(|_| failure(test_info.driver(), "the test panicked"));
                let _ = to_registry.send(Message::Done(outcome));
            });
        if let Err(e) = spawned {
            return failure(info.driver(), &format!("cannot start the test thread: {e}"));
        }
        let deadline = Instant::now() + budget;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match from_test.recv_timeout(left) {
                Ok(Message::Done(outcome)) => return outcome,
                Ok(Message::Resolve(name, reply)) => {
                    let _ = reply.send(self.resolve_tested(&name));
                }
                Err(RecvTimeoutError::Timeout) => {
                    return failure(
                        info.driver(),
                        &format!("timed out after {} s", budget.as_secs_f64()),
                    )
                }
                // The thread ended without a word: only a panic inside the panic
                // handler gets here.
                Err(RecvTimeoutError::Disconnected) => {
                    return failure(info.driver(), "the test thread died")
                }
            }
        }
    }
}
