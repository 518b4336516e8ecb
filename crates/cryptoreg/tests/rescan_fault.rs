//! The rescan, proved with a driver that turns wrong while in use
//! (`ctr-aes-faulty-late`, `--cfg cryptoreg_fault_injection`): the boot passes it, it
//! serves traffic correctly, then it computes wrong results on every CPU (a core gone
//! bad after the boot); the background rescan catches it within two periods, excludes
//! it with a replayable line naming the CPU, moves the generation so live handles see
//! they are no longer current, and counts the failure in `stats`. In a binary of its own:
//! turning the fault on is process-wide. The second test does the same to a running
//! `sectord` (`xts-aes-faulty-late`), which moves its traffic away without a restart.

#![cfg(all(cryptoreg_fault_injection, feature = "aes"))]

mod common;
mod sectord_service;

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

/// A running `sectord` whose `xts(aes)` driver turns wrong: the rescan in the service
/// catches it within two periods and the service moves its traffic to the next driver at
/// its next request, without a restart. Sectors written before the fault read back
/// exactly; those the faulty driver wrote between the fault and its detection are the
/// ones that read back wrong (the test knows which: it asks the service which driver
/// serves its connection before and after each write), and they are counted; sectors
/// written after the move read back exactly.
#[test]
fn a_running_sectord_moves_its_traffic_off_a_driver_that_turned_wrong() {
    use sectord_service::{sectord_binary, start_with_env, Conn, SECTOR, SECTORS};
    const LATE: &str = "xts-aes-faulty-late";
    let bin = sectord_binary();
    let dir = std::env::temp_dir().join(format!("cryptoreg-rescan-sectord-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("cryptoreg.toml");
    std::fs::write(
        &config,
        common::kat_config(&format!(
            "rescan_secs = {PERIOD_SECS}\nrescan_cpu_percent = 100\n\
             [priority]\n\"{LATE}\" = 20000\n"
        )),
    )
    .unwrap();
    let key_path = dir.join("key");
    std::fs::write(&key_path, common::xts_key(9, 64)).unwrap();
    let fault_file = dir.join("fault-on");
    let svc = start_with_env(
        &bin,
        dir.join("svc"),
        &config,
        &key_path,
        &[(
            cryptoreg::fault_injection::LATE_FAULT_ENV,
            fault_file.as_os_str(),
        )],
    );
    let mut conn = Conn::new(&svc.data());
    assert_eq!(conn.driver(), LATE, "the late driver wins xts(aes)");
    let data = |s: u64| common::bytes(0x5ec7 + s, SECTOR);

    // Before the fault: a quarter of the sectors, read back exactly.
    let before: Vec<u64> = (0..SECTORS / 4).collect();
    for &s in &before {
        conn.write(s, &data(s));
        assert_eq!(conn.read(s), data(s), "sector {s} before the fault");
    }

    // The fault: from now on the service's driver computes wrong results. Keep writing
    // until the service's connection has moved to another driver, noting which driver
    // each write went through.
    std::fs::write(&fault_file, b"on").unwrap();
    let fault = Instant::now();
    // The driver each of the other sectors was last written through: Some(true) the
    // faulty one, Some(false) a correct one, None either (the write that met the move).
    let mut last: std::collections::BTreeMap<u64, Option<bool>> = Default::default();
    let window: Vec<u64> = (SECTORS / 4..SECTORS).collect();
    let mut moved_to = None;
    let deadline = fault + Duration::from_secs(2 * PERIOD_SECS) + Duration::from_secs(20);
    for &s in window.iter().cycle() {
        assert!(Instant::now() < deadline, "sectord still serves {LATE}");
        let before_write = conn.driver();
        conn.write(s, &data(s));
        let after_write = conn.driver();
        last.insert(
            s,
            match (before_write == LATE, after_write == LATE) {
                (true, true) => Some(true),
                (true, false) => None,
                _ => Some(false),
            },
        );
        if after_write != LATE {
            moved_to = Some(after_write);
            break;
        }
        // Paced, so that the window holds a countable number of writes.
        std::thread::sleep(Duration::from_millis(20));
    }
    let caught = fault.elapsed();
    // After the move, every sector not yet written goes through the new driver.
    for &s in &window {
        if let std::collections::btree_map::Entry::Vacant(v) = last.entry(s) {
            conn.write(s, &data(s));
            v.insert(Some(false));
        }
    }
    let faulty: Vec<u64> = last
        .iter()
        .filter(|(_, c)| **c == Some(true))
        .map(|(s, _)| *s)
        .collect();
    let unsure = last.values().filter(|c| c.is_none()).count();
    let after: Vec<u64> = last
        .iter()
        .filter(|(_, c)| **c == Some(false))
        .map(|(s, _)| *s)
        .collect();

    // Read everything back through the service, on a fresh connection (the new driver).
    let mut fresh = Conn::new(&svc.data());
    assert_ne!(fresh.driver(), LATE);
    for &s in before.iter().chain(&after) {
        assert_eq!(
            fresh.read(s),
            data(s),
            "sector {s}, written by a correct driver"
        );
    }
    for &s in &faulty {
        assert_ne!(
            fresh.read(s),
            data(s),
            "sector {s}, written during the fault"
        );
    }
    let mut ctl = cryptoreg::control::Client::connect(&svc.ctl()).unwrap();
    let stats: Vec<cryptoreg::DriverStatsReport> = serde_json::from_value(
        ctl.call(&cryptoreg::control::Request::new("stats"))
            .unwrap(),
    )
    .unwrap();
    let row = stats.iter().find(|r| r.driver == LATE).unwrap();
    assert_eq!(row.state, "failed");
    assert!(row.rescan_failures >= 1, "{row:?}");
    assert!(
        caught < Duration::from_secs(2 * PERIOD_SECS) + Duration::from_secs(20),
        "{caught:?}"
    );
    println!(
        "rescan in sectord: {LATE} caught {caught:.2?} after the fault (period {PERIOD_SECS} s); \
         traffic moved to {}; sectors: {} written before the fault read back exactly, {} \
         written by the faulty driver between the fault and its detection read back wrong, \
         {} at the switch (either), {} written after it read back exactly",
        moved_to.unwrap_or_default(),
        before.len(),
        faulty.len(),
        unsure,
        after.len()
    );
    drop(svc);
    let _ = std::fs::remove_dir_all(&dir);
}
