//! The rescan, proved with a driver that turns wrong while in use
//! (`ctr-aes-faulty-late`, `--cfg cryptoreg_fault_injection`): the boot passes it, it
//! serves traffic correctly, then it computes wrong results on every CPU (a core gone
//! bad after the boot); the background rescan catches it within two periods, excludes
//! it with a replayable line naming the CPU, moves the generation so live handles see
//! they are no longer current, and counts the failure in `stats`. In a binary of its own:
//! turning the fault on is process-wide.

#![cfg(all(cryptoreg_fault_injection, feature = "aes"))]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

const DRIVER: &str = "ctr-aes-faulty-late";
const PERIOD_SECS: u64 = 1;

fn ctr(reg: &cryptoreg::Registry, driver: &str, key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut h = reg.alloc_skcipher(driver).unwrap();
    h.set_key(key).unwrap();
    let mut out = data.to_vec();
    h.encrypt_in_place(&[7u8; 16], &mut out).unwrap();
    out
}

#[test]
fn a_driver_that_turns_wrong_while_in_use_is_caught_by_the_rescan() {
    cryptoreg::fault_injection::use_late_drivers();
    let reg = Arc::new(common::boot(
        &format!(
            "[selftest]\nrescan_secs = {PERIOD_SECS}\nrescan_cpu_percent = 100\n\
             [priority]\n\"{DRIVER}\" = 20000\n"
        ),
        None,
    ));
    let key = common::bytes(1, 16);
    let data = common::bytes(2, 1000);
    let want = ctr(&reg, "ctr(aes-generic)", &key, &data);

    // The boot proved it, and it wins ctr(aes).
    let mut handle = reg.alloc_skcipher("ctr(aes)").unwrap();
    assert_eq!(handle.driver_name(), DRIVER);
    handle.set_key(&key).unwrap();
    let mut out = data.clone();
    handle.encrypt_in_place(&[7u8; 16], &mut out).unwrap();
    assert_eq!(out, want, "right before the fault");
    let g0 = reg.generation();
    assert!(
        reg.rescan().failures().next().is_none(),
        "a pass before the fault"
    );
    assert_eq!(reg.generation(), g0);

    assert!(reg.start_rescan().unwrap());
    cryptoreg::fault_injection::turn_late_drivers_wrong();
    let fault = Instant::now();
    // Between the fault and its detection the traffic is wrong: what the rescan bounds.
    let mut out = data.clone();
    handle.encrypt_in_place(&[7u8; 16], &mut out).unwrap();
    assert_ne!(out, want, "the fault is on");

    let state = |reg: &cryptoreg::Registry| {
        reg.list()
            .into_iter()
            .find(|e| e.driver == DRIVER)
            .expect("listed")
    };
    // Caught within two periods (a pass takes milliseconds natively; the bound allows an
    // emulator's slower pass on top).
    let deadline = fault + Duration::from_secs(2 * PERIOD_SECS) + Duration::from_secs(20);
    while state(&reg).state != "failed" {
        assert!(
            Instant::now() < deadline,
            "the rescan did not catch {DRIVER}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let caught = fault.elapsed();
    println!("rescan: {DRIVER} caught {caught:.2?} after the fault (period {PERIOD_SECS} s)");

    let e = state(&reg);
    let line = e.failures.first().expect("a failure line").clone();
    assert!(
        line.starts_with(&format!("selftest: skcipher: {DRIVER} ")),
        "{line}"
    );
    if cfg!(target_os = "linux") {
        let cpu = cryptoreg::failure_cpu(&line).unwrap_or_else(|| panic!("no cpu: {line}"));
        assert!(cryptoreg::affinity::process_cpus().contains(&cpu), "{line}");
    }
    // The generation moved: the live handle is no longer current, a new one goes to the
    // next driver, and that one is right.
    assert!(reg.generation() > g0);
    assert!(!handle.is_current());
    let next = reg.alloc_skcipher("ctr(aes)").unwrap();
    assert_ne!(next.driver_name(), DRIVER);
    assert_eq!(ctr(&reg, next.driver_name(), &key, &data), want);
    let stats = reg
        .stats()
        .into_iter()
        .find(|s| s.driver == DRIVER)
        .unwrap();
    assert_eq!(stats.state, "failed");
    assert!(stats.rescan_failures >= 1 && stats.rescans >= stats.rescan_failures);
    // The report names it too, with its replay.
    let report = reg.selftest_report().to_string();
    assert!(report.contains(DRIVER), "{report}");
}
