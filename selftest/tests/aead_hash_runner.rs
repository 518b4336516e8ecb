//! The AEAD and hash runners against the toy AEAD and toy MAC (shared with the registry's
//! handle tests): correct generic and fast drivers pass; drivers that are wrong only when
//! the AAD is split off a 16-byte boundary, only out of place, only on a tag with one
//! flipped bit, or only after an export/import are excluded with replayable lines, on
//! every one of 100 consecutive base seeds.

#[path = "../../registry/tests/toy_aead/mod.rs"]
mod toy_aead;

use std::sync::Arc;

use cryptoreg_registry::inventory;
use cryptoreg_registry::{
    BootOptions, Config, ListEntry, Registry, SelftestMode, Shard, TestOutcome, TestParams,
};
use cryptoreg_selftest::{parse_seed, Tester, VectorSet, MAX_FAILING_CASES};
use toy_aead::*;

inventory::submit! { toyaead_def("toyaead-generic", 100, toyaead_generic) }
inventory::submit! { toyaead_def("toyaead-fast", 300, toyaead_fast) }
inventory::submit! { toyaead_def("toyaead-aadsplit", 10000, toyaead_aadsplit) }
inventory::submit! { toyaead_def("toyaead-oop", 9000, toyaead_oop) }
inventory::submit! { toyaead_def("toyaead-lax", 8000, toyaead_lax) }
inventory::submit! { toymac_def("toymac", "toymac-generic", 100, true, toymac_generic) }
inventory::submit! { toymac_def("toymac", "toymac-fast", 300, true, toymac_fast) }
inventory::submit! { toymac_def("toymac", "toymac-reimport", 10000, true, toymac_reimport) }
inventory::submit! { toymac_def("toysum", "toysum-generic", 100, false, toysum_generic) }
// An algorithm whose reference cannot be derived from its name (`toyaead2-generic` does
// not exist): its vector file names `generic_driver`.
inventory::submit! {
    toyaead_def_named("toyaead2", "toyaead2-fast", 300, toyaead_fast)
}

const FAULTY: [&str; 4] = [
    "toyaead-aadsplit",
    "toyaead-oop",
    "toyaead-lax",
    "toymac-reimport",
];

fn toy_tester() -> Tester {
    let mut set = (*VectorSet::embedded()).clone();
    set.merge(VectorSet::parse(&toyaead_file(), "toyaead").unwrap());
    let second = toyaead_file().replace(
        "algorithm = \"toyaead\"\n",
        "algorithm = \"toyaead2\"\ngeneric_driver = \"toyaead-generic\"\n",
    );
    set.merge(VectorSet::parse(&second, "toyaead2").unwrap());
    set.merge(VectorSet::parse(&toymac_file("toymac", true), "toymac").unwrap());
    set.merge(VectorSet::parse(&toymac_file("toysum", false), "toysum").unwrap());
    Tester::with_vectors(set)
}

fn boot(mode: SelftestMode, seed: u64) -> Registry {
    let mut config = Config::default();
    config.selftest.mode = mode;
    config.selftest.fuzz_iterations = 100;
    // The runner's lines and replays, on one unpinned thread: the per-CPU gate (lines
    // naming a CPU, replays there) is proved in the facade's fault-injection tests.
    config.selftest.every_cpu = false;
    config.selftest.seed = Some(seed);
    Registry::boot(BootOptions {
        cpu: None,
        config,
        tester: Some(Arc::new(toy_tester())),
    })
    .expect("boot")
}

fn entry(reg: &Registry, driver: &str) -> ListEntry {
    reg.list()
        .into_iter()
        .find(|e| e.driver == driver)
        .unwrap_or_else(|| panic!("{driver} not listed"))
}

fn params(seed: u64, replay: bool) -> TestParams {
    TestParams {
        mode: SelftestMode::Full,
        iterations: 100,
        seed,
        replay,
        shard: Shard::WHOLE,
        cpu: None,
    }
}

/// The replayable lines of an outcome (randomized cases), each checked to replay exactly.
fn replayable(reg: &Registry, driver: &str, outcome: &TestOutcome) -> Vec<String> {
    let lines: Vec<String> = outcome
        .failures
        .iter()
        .filter(|l| l.contains("; seed=0x"))
        .cloned()
        .collect();
    assert!(lines.len() <= MAX_FAILING_CASES, "{lines:#?}");
    for line in &lines {
        assert!(!line.contains('\n'));
        let seed = parse_seed(line.rsplit("; ").next().unwrap()).unwrap();
        let again = reg.run_selftest(driver, &params(seed, true)).unwrap();
        assert_eq!(again.failures, vec![line.clone()], "replay of {line}");
    }
    lines
}

#[test]
fn correct_drivers_pass_and_faulty_ones_are_excluded_with_replayable_lines() {
    let reg = boot(SelftestMode::Full, 0x5eed);
    for d in [
        "toyaead-generic",
        "toyaead-fast",
        "toyaead2-fast",
        "toymac-generic",
        "toymac-fast",
        "toysum-generic",
    ] {
        let e = entry(&reg, d);
        assert_eq!(e.state, "passed", "{d}: {:#?}", e.failures);
    }
    // The fast drivers also ran their randomized cases.
    assert!(entry(&reg, "toyaead-fast").tests > entry(&reg, "toyaead-generic").tests + 300);
    assert!(entry(&reg, "toymac-fast").tests > entry(&reg, "toymac-generic").tests + 100);

    let expect = [
        (
            "toyaead-aadsplit",
            "selftest: aead: toyaead-aadsplit encryption test failed (wrong result) on \"random: alen=",
        ),
        (
            "toyaead-oop",
            "selftest: aead: toyaead-oop encryption test failed (wrong result) on \"random: alen=",
        ),
        (
            "toyaead-lax",
            "selftest: aead: toyaead-lax decryption unexpectedly succeeded on \"random: alen=",
        ),
        (
            "toymac-reimport",
            "selftest: hash: toymac-reimport hash test failed (wrong result) on \"random: psize=",
        ),
    ];
    for (driver, prefix) in expect {
        let e = entry(&reg, driver);
        assert_eq!(e.state, "failed", "{driver}");
        let outcome = TestOutcome {
            tests: e.tests,
            failures: e.failures.clone(),
            ..TestOutcome::default()
        };
        let lines = replayable(&reg, driver, &outcome);
        assert!(!lines.is_empty(), "{driver}: {:#?}", e.failures);
        for line in &lines {
            assert!(line.starts_with(prefix), "{line}");
            match driver {
                "toyaead-oop" => assert!(line.contains("cfg=\"outofplace"), "{line}"),
                "toyaead-lax" => assert!(
                    line.contains("novrfy=1 flip=tag:") && line.contains("; expected=BadMessage; "),
                    "{line}"
                ),
                "toymac-reimport" => assert!(line.contains("reimport "), "{line}"),
                _ => {}
            }
        }
    }
    assert_eq!(reg.resolve("toyaead").unwrap().driver(), "toyaead-fast");
    assert_eq!(reg.resolve("toymac").unwrap().driver(), "toymac-fast");
    assert!(reg.alloc_aead("toyaead-lax").is_err());
}

#[test]
fn the_lax_driver_reports_the_expected_error_kind() {
    let reg = boot(SelftestMode::Full, 1);
    let e = entry(&reg, "toyaead-lax");
    for line in e
        .failures
        .iter()
        .filter(|l| l.contains("unexpectedly succeeded"))
    {
        assert!(line.contains("; expected=BadMessage; cfg=\""), "{line}");
    }
}

#[test]
fn replaying_a_seed_on_a_correct_driver_passes() {
    let reg = boot(SelftestMode::Kat, 2);
    for d in [
        "toyaead-generic",
        "toyaead-fast",
        "toymac-fast",
        "toysum-generic",
    ] {
        for seed in [0u64, 1, 0xdead_beef] {
            let out = reg.run_selftest(d, &params(seed, true)).unwrap();
            assert!(out.passed(), "{d} {seed}: {:?}", out.failures);
        }
    }
}

#[test]
fn every_faulty_driver_is_excluded_on_100_of_100_base_seeds() {
    let reg = boot(SelftestMode::Kat, 0);
    for seed in 0..100u64 {
        for driver in FAULTY {
            let outcome = reg.run_selftest(driver, &params(seed, false)).unwrap();
            assert!(!outcome.passed(), "{driver} passed at base seed {seed}");
            let lines = replayable(&reg, driver, &outcome);
            assert!(
                !lines.is_empty(),
                "{driver}: no replayable line at base seed {seed}: {:#?}",
                outcome.failures
            );
            assert_eq!(entry(&reg, driver).state, "failed");
        }
    }
    assert_eq!(reg.resolve("toyaead").unwrap().driver(), "toyaead-fast");
    assert_eq!(reg.resolve("toymac").unwrap().driver(), "toymac-fast");
}
