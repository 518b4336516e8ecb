//! Re-verification of the drivers in use, while the service runs.
//!
//! The boot proves each driver on every CPU once; a core can turn bad later (the
//! "mercurial cores" of Google's and Meta's fleet studies degrade with age, heat and
//! voltage). A *pass* re-tests each driver in use — a passed driver with live handles,
//! or one the resolver has chosen for a name — with its known answers and a few
//! randomized cases ([`RESCAN_RANDOM_CASES`], a fresh base seed per pass), on every CPU of
//! the process's affinity mask in turn, one pinned test at a time (with `[selftest]
//! every_cpu = false`, wherever the test thread lands).
//!
//! A failure counts as one at boot does: the driver becomes `failed` with its replayable
//! line (CPU and seed), the generation moves (new handles go to the next driver;
//! `is_current()` turns false on live ones), the failure is logged at error level, and
//! `stats` counts it (`rescan_failures`). [`Registry::rescan`] runs one pass now (the
//! control socket's `rescan`, an admin operation); [`Registry::start_rescan`] starts the
//! background thread `[selftest] rescan_secs` asks for, which keeps to
//! `rescan_cpu_percent` of one CPU by sleeping after each test in proportion to it.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::alg::DriverInfo;
use crate::config::SelftestMode;
use crate::error::Result;
use crate::selftest_api::{Shard, TestParams};

use super::{Registry, TestState};

/// The randomized cases one driver runs on each CPU in a pass, after its known answers.
pub const RESCAN_RANDOM_CASES: u32 = 4;

/// What one pass did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RescanReport {
    /// The base seed of this pass's randomized cases (each failure line carries its own
    /// case's seed too).
    pub seed: u64,
    /// Wall time of the pass, throttling sleeps included.
    pub elapsed_ms: f64,
    /// The CPUs each driver was tested on, in order (empty: unpinned).
    pub cpus: Vec<usize>,
    /// One row per driver in use, sorted by driver name.
    pub drivers: Vec<RescanDriver>,
}

/// One driver's re-test in a pass.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RescanDriver {
    /// Driver name.
    pub driver: String,
    /// Algorithm name.
    pub name: String,
    /// The CPUs it was tested on (empty: unpinned).
    pub cpus: Vec<usize>,
    /// Checks run, over every CPU.
    pub tests: usize,
    /// Test time in milliseconds (no throttling sleep).
    pub test_ms: f64,
    /// The replayable failure lines (empty: passed), each naming its CPU.
    pub failures: Vec<String>,
    /// Whether this pass marked the driver `failed` (false for a driver that was
    /// disabled, re-tested or dropped meanwhile).
    pub excluded: bool,
}

impl RescanReport {
    /// The failure lines of every driver.
    pub fn failures(&self) -> impl Iterator<Item = &str> {
        self.drivers
            .iter()
            .flat_map(|d| d.failures.iter().map(String::as_str))
    }

    /// Checks run in the pass.
    pub fn tests(&self) -> usize {
        self.drivers.iter().map(|d| d.tests).sum()
    }
}

fn cpu_list(cpus: &[usize]) -> String {
    if cpus.is_empty() {
        return "unpinned".to_string();
    }
    let list: Vec<String> = cpus.iter().map(usize::to_string).collect();
    format!(
        "{} {}",
        if cpus.len() == 1 { "cpu" } else { "cpus" },
        list.join(", ")
    )
}

/// `rescan: 3 drivers in use, 102 checks on cpus 0, 1 in 4.1 ms (seed 0x...): all
/// passed`, then one line per driver and each failure with its replay command.
impl std::fmt::Display for RescanReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let failed = self
            .drivers
            .iter()
            .filter(|d| !d.failures.is_empty())
            .count();
        writeln!(
            f,
            "rescan: {} driver{} in use, {} checks on {} in {:.1} ms (seed {:#x}): {}",
            self.drivers.len(),
            if self.drivers.len() == 1 { "" } else { "s" },
            self.tests(),
            cpu_list(&self.cpus),
            self.elapsed_ms,
            self.seed,
            if failed == 0 {
                "all passed".to_string()
            } else {
                format!("{failed} FAILED")
            }
        )?;
        for d in &self.drivers {
            writeln!(
                f,
                "  {:<40} {:<28} {:>5} checks on {} in {:.1} ms: {}",
                d.driver,
                d.name,
                d.tests,
                cpu_list(&d.cpus),
                d.test_ms,
                match (d.failures.is_empty(), d.excluded) {
                    (true, _) => "passed",
                    (false, true) => "FAILED, excluded",
                    (false, false) => "FAILED (already changed meanwhile)",
                }
            )?;
            for line in &d.failures {
                writeln!(f, "    {line}")?;
                if let Some(seed) = super::report::replay_seed(line) {
                    let cpu = super::failure_cpu(line)
                        .map(|c| format!(" --cpu-id {c}"))
                        .unwrap_or_default();
                    writeln!(
                        f,
                        "    replay: cryptoctl selftest --driver {} --seed {seed}{cpu}",
                        d.driver
                    )?;
                }
            }
        }
        Ok(())
    }
}

/// What the background thread of one process is (see [`Registry::start_rescan`]).
#[derive(Default)]
pub(super) struct RescanState {
    /// Passes begun, by any caller: each takes the next base seed.
    passes: std::sync::atomic::AtomicU64,
    /// The process id that runs this registry's background thread; 0 for none. A forked
    /// child has the parent's value but not its thread: a different id means none here.
    thread_pid: std::sync::atomic::AtomicU32,
}

/// One driver's place in a pass: the entry as it was when the pass was planned.
struct Planned {
    info: Arc<DriverInfo>,
    cpus: Vec<Option<usize>>,
}

/// A 64-bit mix (splitmix64's finalizer): the base seed of pass `n`.
fn pass_seed(base: u64, n: u64) -> u64 {
    let mut z = base ^ n.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Registry {
    /// The drivers in use: passed, and with live handles or chosen for an algorithm
    /// name the resolver answered since the last change. A driver only asked for by its
    /// own name or through a template call naming it (as the gate asks for its generic
    /// references) is not chosen. Sorted by driver name.
    pub fn drivers_in_use(&self) -> Vec<String> {
        let inner = self.inner.lock();
        let chosen: std::collections::BTreeSet<&str> = inner
            .cache
            .iter()
            .filter(|(asked, driver)| {
                inner
                    .entries
                    .get(driver.as_str())
                    .is_some_and(|e| e.info.name() == asked.as_str())
            })
            .map(|(_, driver)| driver.as_str())
            .collect();
        inner
            .entries
            .values()
            .filter(|e| e.state == TestState::Passed && self.testable(&e.info))
            .filter(|e| chosen.contains(e.info.driver()) || e.stats.read().live > 0)
            .map(|e| e.info.driver().to_string())
            .collect()
    }

    /// Plans one pass: its seed, the CPUs, and per driver in use the CPUs to test it on.
    fn plan_rescan(&self) -> (u64, Vec<usize>, Vec<Planned>) {
        let n = self.rescan.passes.fetch_add(1, Ordering::Relaxed);
        let seed = pass_seed(self.seed, n);
        let cpus: Vec<Option<usize>> = if self.config.selftest.every_cpu {
            crate::affinity::process_cpus()
                .into_iter()
                .map(Some)
                .collect()
        } else {
            Vec::new()
        };
        let cpus = if cpus.is_empty() { vec![None] } else { cpus };
        let names = if self.tests_enabled() {
            self.drivers_in_use()
        } else {
            Vec::new()
        };
        let inner = self.inner.lock();
        let planned = names
            .iter()
            .filter_map(|d| inner.entries.get(d))
            .map(|e| Planned {
                info: Arc::clone(&e.info),
                cpus: cpus.clone(),
            })
            .collect();
        (seed, cpus.into_iter().flatten().collect(), planned)
    }

    /// Tests `info` on `cpu` (pinned there) with the pass's parameters; on a failure,
    /// marks the driver failed as a boot would and moves the generation. Returns the
    /// row's part for this CPU and whether this call excluded the driver.
    fn rescan_one(
        &self,
        info: &Arc<DriverInfo>,
        cpu: Option<usize>,
        seed: u64,
    ) -> (crate::selftest_api::TestOutcome, Duration, bool) {
        let params = TestParams {
            mode: if self.config.selftest.mode == SelftestMode::Kat {
                SelftestMode::Kat
            } else {
                SelftestMode::Full
            },
            iterations: RESCAN_RANDOM_CASES,
            seed,
            replay: false,
            shard: Shard::WHOLE,
            cpu,
        };
        let (outcome, elapsed) = self.run_tester(info, &params);
        let driver = info.driver();
        // A lost reference is no verdict on the driver (see `TestState::Blocked`).
        let failed = !outcome.passed() && outcome.reference_unavailable.is_none();
        if failed {
            super::gate::log_verdict(driver, TestState::Failed, &outcome);
        }
        let mut inner = self.inner.lock();
        let counts = inner.rescan_counts.entry(driver.to_string()).or_default();
        counts.0 += 1;
        if !failed {
            return (outcome, elapsed, false);
        }
        counts.1 += 1;
        // Only the entry this pass planned, and only while it still counts as passed: a
        // driver re-tested, dropped or already failed meanwhile keeps what it has.
        let same = inner
            .entries
            .get(driver)
            .is_some_and(|e| Arc::ptr_eq(&e.info, info) && e.state == TestState::Passed);
        if same {
            self.record_retest(&mut inner, info, TestState::Failed, &outcome, elapsed);
            tracing::error!(
                target: "cryptoreg::rescan",
                driver,
                generation = inner.generation,
                "rescan: {driver} failed while in use; excluded, new requests go elsewhere"
            );
        }
        self.tested.notify_all();
        (outcome, elapsed, same)
    }

    /// Runs one pass now, without throttling, and reports what it tested where. An
    /// operator's `cryptoctl --socket S rescan` calls this.
    pub fn rescan(&self) -> RescanReport {
        let start = Instant::now();
        let (seed, cpus, planned) = self.plan_rescan();
        let mut report = RescanReport {
            seed,
            cpus,
            ..RescanReport::default()
        };
        for p in planned {
            let row = self.rescan_row(&p, seed, &mut |_| true);
            report.drivers.push(row);
        }
        report.elapsed_ms = start.elapsed().as_secs_f64() * 1e3;
        report
    }

    /// One driver's row: a test on each planned CPU in turn; `after` is told each test's
    /// time and says whether to go on.
    fn rescan_row(
        &self,
        p: &Planned,
        seed: u64,
        after: &mut dyn FnMut(Duration) -> bool,
    ) -> RescanDriver {
        let mut row = RescanDriver {
            driver: p.info.driver().to_string(),
            name: p.info.name().to_string(),
            ..RescanDriver::default()
        };
        for &cpu in &p.cpus {
            let (outcome, elapsed, excluded) = self.rescan_one(&p.info, cpu, seed);
            row.cpus.extend(cpu);
            row.tests += outcome.tests;
            row.test_ms += elapsed.as_secs_f64() * 1e3;
            row.excluded |= excluded;
            let failed = !outcome.failures.is_empty();
            row.failures.extend(outcome.failures);
            if failed || !after(elapsed) {
                break;
            }
        }
        row
    }

    /// Starts the background re-verification `[selftest] rescan_secs` asks for, on a
    /// thread of its own (`cryptoreg rescan`), unless it is off (0) or already runs in
    /// this process. Returns whether it started one.
    ///
    /// The thread holds only a weak reference between tests, so dropping the last
    /// `Arc<Registry>` ends it. A pass starts every `rescan_secs` (or at once when the
    /// last one took longer) and, after each test of `t`, sleeps `t * (100 - p) / p` for
    /// `rescan_cpu_percent = p`, so the tests take at most `p` % of one CPU.
    ///
    /// `cryptoreg::registry()` and `install_default` call this for the default registry; a
    /// service that boots its own calls it once it holds the registry in an `Arc`. A forked
    /// child does not inherit the thread (`fork` copies only the calling thread): the
    /// child calls this again if it wants re-verification.
    pub fn start_rescan(self: &Arc<Self>) -> Result<bool> {
        let secs = self.config.selftest.rescan_secs;
        if secs == 0 {
            return Ok(false);
        }
        let pid = std::process::id();
        let before = self.rescan.thread_pid.swap(pid, Ordering::AcqRel);
        if before == pid {
            return Ok(false);
        }
        let weak = Arc::downgrade(self);
        let percent = self.config.selftest.rescan_cpu_percent.clamp(1, 100);
        let spawned = std::thread::Builder::new()
            .name("cryptoreg rescan".to_string())
            .spawn(move || background(&weak, Duration::from_secs(u64::from(secs)), percent));
        match spawned {
            Ok(_) => Ok(true),
            Err(e) => {
                self.rescan.thread_pid.store(before, Ordering::Release);
                Err(crate::error::Error::Config(format!(
                    "cannot start the rescan thread: {e}"
                )))
            }
        }
    }

    /// Whether this process runs this registry's background re-verification.
    pub fn rescan_running(&self) -> bool {
        self.rescan.thread_pid.load(Ordering::Acquire) == std::process::id()
    }
}

/// Sleeps up to `d`, waking every 100 ms to see whether the registry is gone.
fn sleep_while_alive(weak: &Weak<Registry>, d: Duration) -> bool {
    let end = Instant::now() + d;
    loop {
        if weak.strong_count() == 0 {
            return false;
        }
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return true;
        }
        std::thread::sleep(left.min(Duration::from_millis(100)));
    }
}

/// The background thread: a pass every `period`, throttled to `percent` of one CPU.
fn background(weak: &Weak<Registry>, period: Duration, percent: u32) {
    let throttle = |t: Duration| t * (100 - percent) / percent;
    let mut next = Instant::now() + period;
    loop {
        if !sleep_while_alive(weak, next.saturating_duration_since(Instant::now())) {
            return;
        }
        let start = Instant::now();
        next = start + period;
        let Some(reg) = weak.upgrade() else { return };
        if reg.rescan.thread_pid.load(Ordering::Acquire) != std::process::id() {
            return;
        }
        let (seed, _, planned) = reg.plan_rescan();
        drop(reg);
        let (mut drivers, mut tests, mut failed) = (0usize, 0usize, 0usize);
        for p in planned {
            let Some(reg) = weak.upgrade() else { return };
            let mut alive = true;
            let row = reg.rescan_row(&p, seed, &mut |t| {
                alive = sleep_while_alive(weak, throttle(t));
                alive
            });
            drop(reg);
            drivers += 1;
            tests += row.tests;
            failed += usize::from(!row.failures.is_empty());
            if !alive {
                return;
            }
        }
        tracing::info!(
            target: "cryptoreg::rescan",
            drivers,
            tests,
            failed,
            seed = %format_args!("{seed:#x}"),
            "rescan pass: {drivers} drivers in use, {tests} checks, {failed} failed, in {:.0?}",
            start.elapsed()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_seeds_differ_and_repeat_for_the_same_base() {
        let a: Vec<u64> = (0..4).map(|n| pass_seed(7, n)).collect();
        let b: Vec<u64> = (0..4).map(|n| pass_seed(7, n)).collect();
        assert_eq!(a, b);
        let distinct: std::collections::BTreeSet<u64> = a.iter().copied().collect();
        assert_eq!(distinct.len(), 4, "{a:x?}");
        assert_ne!(pass_seed(8, 0), a[0]);
    }

    #[test]
    fn the_report_names_cpus_failures_and_their_replays() {
        let report = RescanReport {
            seed: 0x2a,
            elapsed_ms: 3.0,
            cpus: vec![0, 1],
            drivers: vec![
                RescanDriver {
                    driver: "ctr-aes-x".into(),
                    name: "ctr(aes)".into(),
                    cpus: vec![0, 1],
                    tests: 10,
                    test_ms: 1.0,
                    failures: vec![
                        "selftest: skcipher: ctr-aes-x encryption test failed on \"random\" \
                         on cpu 1; seed=0x99"
                            .into(),
                    ],
                    excluded: true,
                },
                RescanDriver {
                    driver: "gcm-aes-y".into(),
                    name: "gcm(aes)".into(),
                    cpus: vec![0, 1],
                    tests: 12,
                    ..RescanDriver::default()
                },
            ],
        };
        let text = report.to_string();
        assert!(
            text.starts_with("rescan: 2 drivers in use, 22 checks on cpus 0, 1"),
            "{text}"
        );
        assert!(text.contains("(seed 0x2a): 1 FAILED"), "{text}");
        assert!(text.contains("FAILED, excluded"), "{text}");
        assert!(
            text.contains("replay: cryptoctl selftest --driver ctr-aes-x --seed 0x99 --cpu-id 1"),
            "{text}"
        );
        assert_eq!(report.failures().count(), 1);
    }
}
