//! The re-verification of the drivers in use (`Registry::rescan`, `[selftest]
//! rescan_secs`): what a pass tests, where, what it counts, and the background thread.
//! The proof that it catches a driver turning wrong is in `tests/rescan_fault.rs` (the
//! fault-injection build).

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use cryptoreg::Registry;

fn row<'a>(report: &'a cryptoreg::RescanReport, driver: &str) -> &'a cryptoreg::RescanDriver {
    report
        .drivers
        .iter()
        .find(|d| d.driver == driver)
        .unwrap_or_else(|| panic!("{driver} not re-tested:\n{report}"))
}

fn rescans_of(reg: &Registry, driver: &str) -> (u64, u64) {
    let s = reg
        .stats()
        .into_iter()
        .find(|s| s.driver == driver)
        .unwrap_or_else(|| panic!("{driver} has no stats row"));
    (s.rescans, s.rescan_failures)
}

#[test]
fn a_pass_tests_the_drivers_in_use_on_every_cpu_and_moves_nothing() {
    let reg = common::boot(&common::kat_config(""), None);
    let handle = reg.alloc_skcipher("ctr(aes)").unwrap();
    let ctr = handle.driver_name().to_string();
    let chosen = reg.resolve("xts(aes)").unwrap().driver().to_string();
    let in_use = reg.drivers_in_use();
    assert!(
        in_use.contains(&ctr) && in_use.contains(&chosen),
        "{in_use:?}"
    );
    // The gate's generic references, asked for by their own names, are not in use.
    assert!(!in_use.iter().any(|d| d.contains("generic")), "{in_use:?}");
    let g0 = reg.generation();
    let report = reg.rescan();
    assert_eq!(report.failures().count(), 0, "{report}");
    let cpus = cryptoreg::affinity::process_cpus();
    for driver in [&ctr, &chosen] {
        let r = row(&report, driver);
        assert!(r.tests > 0, "{report}");
        if cfg!(target_os = "linux") {
            assert_eq!(r.cpus, cpus, "{report}");
        }
        assert_eq!(
            rescans_of(&reg, driver),
            (r.cpus.len().max(1) as u64, 0),
            "one re-test per CPU"
        );
    }
    assert_eq!(report.drivers.len(), in_use.len(), "{report}");
    // Nothing failed: nothing moved, the handle is still current.
    assert_eq!(reg.generation(), g0);
    assert!(handle.is_current());
    // Each pass takes a new base seed.
    assert_ne!(reg.rescan().seed, report.seed);
    let text = report.to_string();
    assert!(text.starts_with("rescan: "), "{text}");
    assert!(text.contains(&ctr) && text.contains("passed"), "{text}");
}

#[test]
fn the_background_thread_runs_once_per_process_and_counts_its_passes() {
    let off = Arc::new(common::boot(&common::kat_config(""), None));
    assert!(
        !off.start_rescan().unwrap(),
        "rescan_secs = 0 starts nothing"
    );
    assert!(!off.rescan_running());

    let reg = Arc::new(common::boot(
        &common::kat_config("rescan_secs = 1\nrescan_cpu_percent = 100\n"),
        None,
    ));
    let handle = reg.alloc_aead("gcm(aes)").unwrap();
    let driver = handle.driver_name().to_string();
    assert!(reg.start_rescan().unwrap());
    assert!(!reg.start_rescan().unwrap(), "one thread per process");
    assert!(reg.rescan_running());
    // The first pass starts one period after the start; under emulation a pass is slow.
    let deadline = Instant::now() + Duration::from_secs(60);
    while rescans_of(&reg, &driver).0 == 0 {
        assert!(Instant::now() < deadline, "no background pass within 60 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(rescans_of(&reg, &driver).1, 0);
    assert!(handle.is_current());
}
