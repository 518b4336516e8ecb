//! `[selftest] when = "first-use"` on toy drivers (see `toy/mod.rs`): nothing is tested at
//! boot; the first request for an algorithm tests every driver of it before choosing, so
//! the choice and `explain` are the ones a boot-time test gives, whatever the order of
//! requests.

mod toy;

use std::sync::{Arc, Mutex};

use cryptoreg_registry::*;

/// Masks AVX-512 so the toy zmm driver is unsupported on any host.
const NO_512: &str = "[cpu]\ndisable = [\"avx512f\"]\n";
const FIRST_USE: &str = "[cpu]\ndisable = [\"avx512f\"]\n[selftest]\nwhen = \"first-use\"\n";

/// Records every driver it tests, fails those named "broken", and (as the real runner
/// does with its generic reference) resolves `toy-generic` while testing another `toy`
/// driver, so the first-use tests run with reference lookups inside them.
#[derive(Default)]
struct Recorder {
    tested: Mutex<Vec<String>>,
}

impl SelfTester for Recorder {
    fn test(&self, host: &dyn TestHost, driver: &Arc<DriverInfo>, _: &TestParams) -> TestOutcome {
        self.tested
            .lock()
            .unwrap()
            .push(driver.driver().to_string());
        if driver.name() == "toy" && driver.driver() != "toy-generic" {
            if let Err(e) = host.resolve_tested("toy-generic") {
                return TestOutcome {
                    tests: 0,
                    failures: vec![],
                    reference_unavailable: Some(format!("toy-generic: {e}")),
                };
            }
        }
        let failures = if driver.driver().contains("broken") {
            vec![format!(
                "selftest: toy: {} is broken; seed=0x1",
                driver.driver()
            )]
        } else {
            vec![]
        };
        TestOutcome {
            tests: 1,
            failures,
            reference_unavailable: None,
        }
    }
}

fn boot(config: &str) -> (Registry, Arc<Recorder>) {
    let rec = Arc::new(Recorder::default());
    let mut config = Config::parse(config, "test").unwrap();
    // When and how often the gate runs, on one unpinned thread per test: the per-CPU
    // fan-out (one tester call per CPU) is proved in the facade's fault-injection tests.
    config.selftest.every_cpu = false;
    let reg = Registry::boot(BootOptions {
        cpu: None,
        config,
        tester: Some(Arc::clone(&rec) as Arc<dyn SelfTester>),
    })
    .unwrap();
    (reg, rec)
}

fn tested(rec: &Recorder) -> Vec<String> {
    let mut v = rec.tested.lock().unwrap().clone();
    v.sort();
    v
}

fn state(reg: &Registry, driver: &str) -> String {
    reg.list()
        .into_iter()
        .find(|e| e.driver == driver)
        .unwrap()
        .state
        .to_string()
}

/// The `toy` drivers this host can run (the toy zmm driver is masked), sorted; the first
/// fails its test.
const TOY_DRIVERS: [&str; 4] = [
    "broken-only-generic",
    "toy-aesni",
    "toy-b-tie",
    "toy-generic",
];
const TOY_PASSING: [&str; 3] = ["toy-aesni", "toy-b-tie", "toy-generic"];

#[test]
fn nothing_is_tested_at_boot_and_the_report_says_what_waits() {
    let (reg, rec) = boot(FIRST_USE);
    assert!(tested(&rec).is_empty(), "{:?}", tested(&rec));
    for d in TOY_DRIVERS {
        assert_eq!(state(&reg, d), "untested", "{d}");
    }
    let report = reg.selftest_report();
    let w = report
        .warnings
        .iter()
        .find(|w| w.starts_with("self-tests at first use"))
        .expect("a first-use warning");
    assert!(w.contains("brokenalg") && w.contains("toy"), "{w}");
    assert!(report.to_string().contains(w.as_str()));
}

#[test]
fn the_first_request_tests_every_driver_of_its_algorithm_and_no_other() {
    let (reg, rec) = boot(FIRST_USE);
    assert_eq!(reg.resolve("toy").unwrap().driver(), "toy-aesni");
    assert_eq!(tested(&rec), TOY_DRIVERS);
    for d in TOY_PASSING {
        assert_eq!(state(&reg, d), "passed", "{d}");
    }
    assert_eq!(state(&reg, "broken-only-generic"), "failed");
    assert_eq!(state(&reg, "brokenalg-broken"), "untested");
    assert_eq!(state(&reg, "toystream-generic"), "untested");
    // A second request tests nothing more.
    reg.alloc_cipher("toy").unwrap();
    assert_eq!(tested(&rec).len(), TOY_DRIVERS.len());
    // The warning no longer names the algorithm that was used.
    let report = reg.selftest_report();
    let w = report
        .warnings
        .iter()
        .find(|w| w.starts_with("self-tests at first use"))
        .unwrap();
    assert!(!w.contains(" toy,") && !w.ends_with(" toy"), "{w}");
}

#[test]
fn choice_and_explain_match_a_boot_time_test_whatever_is_asked_first() {
    let (at_boot, _) = boot(NO_512);
    let expected = at_boot.explain("toy");
    // Asked first by a driver name, by a template call over it, or by the algorithm.
    for first in ["toy-generic", "wrap(toy)", "toy"] {
        let (reg, rec) = boot(FIRST_USE);
        reg.resolve(first).unwrap();
        for d in TOY_DRIVERS {
            assert!(tested(&rec).iter().any(|t| t == d), "{first}: {d} untested");
        }
        let got = reg.explain("toy");
        assert_eq!(got.chosen, expected.chosen, "{first}");
        let verdicts = |e: &Explanation| {
            e.candidates
                .iter()
                .map(|c| (c.driver.clone(), c.state.to_string(), c.verdict.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(verdicts(&got), verdicts(&expected), "{first}");
    }
}

#[test]
fn a_failing_driver_is_refused_at_its_first_use_with_its_replay_line() {
    let (reg, _) = boot(FIRST_USE);
    assert_eq!(state(&reg, "brokenalg-broken"), "untested");
    match reg.alloc_cipher("brokenalg") {
        Err(Error::SelfTestFailed { driver, report, .. }) => {
            assert_eq!(driver, "brokenalg-broken");
            assert_eq!(
                report,
                "selftest: toy: brokenalg-broken is broken; seed=0x1"
            );
        }
        other => panic!("expected SelfTestFailed, got {:?}", other.map(|_| ())),
    }
    assert_eq!(state(&reg, "brokenalg-broken"), "failed");
}

#[test]
fn explain_is_a_first_use_too() {
    let (reg, rec) = boot(FIRST_USE);
    let ex = reg.explain("toy");
    assert_eq!(ex.chosen.as_deref(), Some("toy-aesni"));
    assert_eq!(tested(&rec), TOY_DRIVERS);
    assert!(ex
        .candidates
        .iter()
        .filter(|c| TOY_PASSING.contains(&c.driver.as_str()))
        .all(|c| c.state == "passed"));
}

#[test]
fn parallel_first_requests_test_each_driver_once() {
    let (reg, rec) = boot(FIRST_USE);
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| assert_eq!(reg.resolve("toy").unwrap().driver(), "toy-aesni"));
        }
    });
    assert_eq!(tested(&rec), TOY_DRIVERS);
}

#[test]
fn first_use_refuses_abort_and_off_tests_nothing() {
    let err = Config::parse(
        "[selftest]\nwhen = \"first-use\"\non_failure = \"abort\"\n",
        "t.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("on_failure = \"abort\" needs when = \"boot\""),
        "{err}"
    );
    assert!(Config::parse("[selftest]\nwhen = \"later\"\n", "t.toml").is_err());

    let (reg, rec) = boot("[selftest]\nmode = \"off\"\nwhen = \"first-use\"\n");
    reg.resolve("toy").unwrap();
    assert!(tested(&rec).is_empty());
    assert!(!reg
        .selftest_report()
        .warnings
        .iter()
        .any(|w| w.starts_with("self-tests at first use")));
}
