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
use crate::selftest_api::{SelfTester, Shard, TestHost, TestOutcome, TestParams};

use super::Registry;

/// What the test thread says to the waiting thread.
enum Message {
    /// Resolve a reference for me; answer on the enclosed channel.
    Resolve(String, Sender<Result<Arc<DriverInfo>>>),
    /// The test (the shard with this index) ended with this outcome.
    Done(usize, TestOutcome),
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

/// `line` with the CPU it happened on: ` on cpu N` goes after the case's description
/// (before `; cfg=` or `; seed=`), so the seed stays the line's last field.
pub(super) fn on_cpu(line: &str, cpu: usize) -> String {
    let at = line
        .find("; cfg=")
        .or_else(|| line.find("; seed="))
        .unwrap_or(line.len());
    format!("{} on cpu {cpu}{}", &line[..at], &line[at..])
}

/// The CPU a failure line names (` on cpu N`), if it names one.
pub fn failure_cpu(line: &str) -> Option<usize> {
    let rest = &line[line.rfind(" on cpu ")? + " on cpu ".len()..];
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// One shard's outcomes merged into the driver's: checks add up, failures in CPU order.
fn merge(outcomes: Vec<Option<TestOutcome>>) -> TestOutcome {
    let mut all = TestOutcome::default();
    for o in outcomes.into_iter().flatten() {
        all.tests += o.tests;
        all.failures.extend(o.failures);
        if all.reference_unavailable.is_none() {
            all.reference_unavailable = o.reference_unavailable;
        }
    }
    all
}

impl Registry {
    /// The CPUs one test runs on: the one asked for, else (with `[selftest] every_cpu`)
    /// every CPU of the process's affinity mask, else wherever the test thread lands
    /// (`None`: not pinned).
    fn test_cpus(&self, params: &TestParams) -> Vec<Option<usize>> {
        if let Some(cpu) = params.cpu {
            return vec![Some(cpu)];
        }
        let cpus = if self.config.selftest.every_cpu {
            crate::affinity::process_cpus()
        } else {
            Vec::new()
        };
        if cpus.is_empty() {
            vec![None]
        } else {
            cpus.into_iter().map(Some).collect()
        }
    }

    /// Runs `tester` on `info` within `budget`, answering the test's lookups from this
    /// registry meanwhile. A panic in the test is a failure naming the driver; a test
    /// still running at the deadline is a failure "timed out after N s".
    ///
    /// On several CPUs (see [`Registry::test_cpus`]) one thread per CPU, pinned there,
    /// runs the known answers and its shard of the randomized cases, all in parallel; a
    /// replay runs its one case on each. Each failure line names its CPU (` on cpu N`),
    /// and `cryptoctl selftest --cpu-id N` replays it there.
    pub(super) fn test_within_budget(
        &self,
        tester: &Arc<dyn SelfTester>,
        info: &Arc<DriverInfo>,
        params: &TestParams,
        budget: Duration,
    ) -> TestOutcome {
        let (to_registry, from_test) = channel();
        let cpus = self.test_cpus(params);
        let shards = u32::try_from(cpus.len()).unwrap_or(u32::MAX);
        let mut outcomes: Vec<Option<TestOutcome>> = vec![None; cpus.len()];
        for (index, &cpu) in cpus.iter().enumerate() {
            let host = ProxyHost {
                to_registry: to_registry.clone(),
                token: self.token,
            };
            let shard = if params.replay {
                Shard::WHOLE
            } else {
                Shard {
                    index: u32::try_from(index).unwrap_or(u32::MAX),
                    count: shards,
                }
            };
            let shard_params = TestParams {
                shard,
                cpu,
                ..*params
            };
            let (tester, test_info, to_registry) =
                (Arc::clone(tester), Arc::clone(info), to_registry.clone());
            let spawned = std::thread::Builder::new()
                .name(format!("selftest {}", info.driver()))
                .spawn(move || {
                    let pinned = match cpu.map(crate::affinity::pin_current_thread) {
                        Some(Ok(())) => cpu,
                        Some(Err(e)) => {
                            tracing::warn!(
                                target: "cryptoreg::selftest",
                                driver = test_info.driver(),
                                cpu = cpu.unwrap_or_default(),
                                "cannot pin the self-test to its CPU, testing where it runs: {e}"
                            );
                            None
                        }
                        None => None,
                    };
                    let mut outcome = catch_unwind(AssertUnwindSafe(|| {
                        tester.test(&host, &test_info, &shard_params)
                    }))
                    .unwrap_or_else(|_| failure(test_info.driver(), "the test panicked"));
                    if let Some(cpu) = pinned {
                        for line in &mut outcome.failures {
                            *line = on_cpu(line, cpu);
                        }
                    }
                    let _ = to_registry.send(Message::Done(index, outcome));
                });
            if let Err(e) = spawned {
                outcomes[index] = Some(failure(
                    info.driver(),
                    &format!("cannot start the test thread: {e}"),
                ));
            }
        }
        drop(to_registry);
        let deadline = Instant::now() + budget;
        while outcomes.iter().any(Option::is_none) {
            let left = deadline.saturating_duration_since(Instant::now());
            match from_test.recv_timeout(left) {
                Ok(Message::Done(index, outcome)) => outcomes[index] = Some(outcome),
                Ok(Message::Resolve(name, reply)) => {
                    let _ = reply.send(self.resolve_tested(&name));
                }
                Err(RecvTimeoutError::Timeout) => {
                    return failure(
                        info.driver(),
                        &format!("timed out after {} s", budget.as_secs_f64()),
                    )
                }
                // Every thread ended and some without a word: only a panic inside the
                // panic handler gets here.
                Err(RecvTimeoutError::Disconnected) => {
                    return failure(info.driver(), "the test thread died")
                }
            }
        }
        merge(outcomes)
    }
}
