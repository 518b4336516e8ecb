//! The `sectord` example as a separate process: writers on several threads while the
//! control socket demotes the chosen `xts(aes)` driver, disables it, re-enables it and
//! reloads the configuration. Afterwards every sector reads back exactly through the
//! service, the store decrypts under every `xts(aes)` driver of a registry in this
//! process (sectord's format is plain XTS with the dm-crypt `plain64` tweak, whichever
//! driver wrote it), and `stats` showed the service's handles moving to the new driver.
//!
//! The test command (`cargo xtask test`, its fault-injection run and `cargo xtask arm64`)
//! names the example that its `cargo test` built with the tests (cargo builds every
//! example before it runs any test) in `CRYPTOREG_SECTORD_EXAMPLE`; this test then only
//! runs it. Without the variable (this test run alone) the test builds it itself with
//! the cargo that runs it (`cargo build --example sectord` in the test's own profile and
//! target directory), so it never uses a stale binary.

#![cfg(unix)]

mod common;
mod sectord_service;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cryptoreg::control::{Client, Request};
use cryptoreg::DriverStatsReport;
use sectord_service::{sectord_binary, start, through_runner, Conn, SECTOR, SECTORS};

/// The `xts(aes)` instance over the portable children, on every architecture.
const GENERIC_INSTANCE: &str = "xts(ecb(aes-generic))";
const WRITERS: u64 = 4;

fn stats(ctl: &mut Client) -> HashMap<String, DriverStatsReport> {
    let v = ctl.call(&Request::new("stats")).unwrap();
    let rows: Vec<DriverStatsReport> = serde_json::from_value(v).unwrap();
    rows.into_iter()
        .filter(|r| r.name == "xts(aes)")
        .map(|r| (r.driver.clone(), r))
        .collect()
}

/// Waits until every writer made a request after `since` (so each has re-checked its
/// handle), then returns the stats.
fn settle(
    ctl: &mut Client,
    progress: &[Arc<std::sync::atomic::AtomicU64>],
    since: &[u64],
) -> HashMap<String, DriverStatsReport> {
    let deadline = Instant::now() + Duration::from_secs(60);
    while progress
        .iter()
        .zip(since)
        .any(|(p, &s)| p.load(Ordering::Acquire) < s + 2)
    {
        assert!(Instant::now() < deadline, "writers stalled");
        std::thread::sleep(Duration::from_millis(10));
    }
    stats(ctl)
}

fn snapshot(progress: &[Arc<std::sync::atomic::AtomicU64>]) -> Vec<u64> {
    progress.iter().map(|p| p.load(Ordering::Acquire)).collect()
}

#[test]
fn sectord_keeps_every_sector_while_an_operator_moves_its_handles() {
    let bin = sectord_binary();
    let dir = std::env::temp_dir().join(format!("cryptoreg-sectord-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("cryptoreg.toml");
    std::fs::write(&config, common::kat_config("")).unwrap();
    let key_path = dir.join("key");
    let key = common::xts_key(7, 64);
    std::fs::write(&key_path, &key).unwrap();
    // The service owns `dir/svc` (it removes it on drop); config and key stay outside.
    let svc = start(&bin, dir.join("svc"), &config, &key_path);
    let mut ctl = Client::connect(&svc.ctl()).unwrap();

    let first = Conn::new(&svc.data()).driver();
    let done = Arc::new(AtomicBool::new(false));
    let progress: Vec<Arc<std::sync::atomic::AtomicU64>> =
        (0..WRITERS).map(|_| Default::default()).collect();
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (path, done, progress) = (
                svc.data(),
                Arc::clone(&done),
                Arc::clone(&progress[w as usize]),
            );
            std::thread::spawn(move || {
                // Writer w owns sectors w, w + WRITERS, ...; it rewrites them in rounds
                // and checks each read-back, remembering what it last wrote.
                let mut conn = Conn::new(&path);
                let mine: Vec<u64> = (w..SECTORS).step_by(WRITERS as usize).collect();
                let mut last = HashMap::new();
                let mut drivers = vec![conn.driver()];
                let mut round = 0u64;
                while !done.load(Ordering::Acquire) || round < 2 {
                    for &s in &mine {
                        let data = common::bytes(round * 1000 + s, SECTOR);
                        conn.write(s, &data);
                        assert_eq!(conn.read(s), data, "sector {s} round {round}");
                        last.insert(s, data);
                        progress.fetch_add(1, Ordering::AcqRel);
                        // After every step, so each phase below (which waits for two
                        // steps of every writer) is seen by every writer.
                        let d = conn.driver();
                        if drivers.last() != Some(&d) {
                            drivers.push(d);
                        }
                    }
                    round += 1;
                }
                (last, drivers)
            })
        })
        .collect();

    let s0 = settle(&mut ctl, &progress, &vec![0; WRITERS as usize]);
    assert!(s0[&first].refcnt >= WRITERS as usize, "{:?}", s0[&first]);

    // 1. Demote the chosen driver below everything: the handles move off it. A template
    // instance is only the fallback while a concrete driver is usable, so the generic
    // instance gets a priority of its own first: where `first` is the only concrete
    // `xts(aes)` driver (arm64) the handles move to it, elsewhere to the next driver.
    ctl.call(
        &Request::new("set-priority")
            .driver(GENERIC_INSTANCE)
            .priority(2),
    )
    .unwrap();
    ctl.call(&Request::new("set-priority").driver(&first).priority(1))
        .unwrap();
    let s1 = settle(&mut ctl, &progress, &snapshot(&progress));
    assert_eq!(
        s1[&first].refcnt, 0,
        "handles still on {first}: {:?}",
        s1[&first]
    );
    let (second, row) = s1
        .iter()
        .filter(|(_, r)| r.refcnt >= WRITERS as usize)
        .max_by_key(|(_, r)| r.refcnt)
        .expect("the handles moved to another driver");
    assert!(row.allocations >= WRITERS && row.requests > 0, "{row:?}");
    let second = second.clone();

    // 2. Clear the demotion but disable the first driver: still off it.
    ctl.call(&Request::new("clear-priority").driver(&first))
        .unwrap();
    ctl.call(&Request::new("disable").driver(&first)).unwrap();
    let s2 = settle(&mut ctl, &progress, &snapshot(&progress));
    assert_eq!(s2[&first].refcnt, 0);
    assert_eq!(s2[&first].state, "disabled");

    // 3. Re-enable it: the handles come back to it (it is the best again).
    ctl.call(&Request::new("enable").driver(&first)).unwrap();
    let s3 = settle(&mut ctl, &progress, &snapshot(&progress));
    assert!(s3[&first].refcnt >= WRITERS as usize, "{:?}", s3[&first]);
    assert_eq!(s3[&second].refcnt, 0, "{:?}", s3[&second]);

    // 4. Reload a changed file that demotes the first driver: they move again.
    std::fs::write(
        &config,
        common::kat_config(&format!("[priority]\n\"{first}\" = 1\n")),
    )
    .unwrap();
    let changes = ctl.call(&Request::new("reload")).unwrap();
    assert!(changes.to_string().contains(&first), "{changes}");
    let s4 = settle(&mut ctl, &progress, &snapshot(&progress));
    assert_eq!(s4[&first].refcnt, 0, "{:?}", s4[&first]);

    done.store(true, Ordering::Release);
    let mut expected = HashMap::new();
    for w in writers {
        let (last, drivers) = w.join().expect("a writer failed");
        // first -> another (demoted; disabled) -> first (enabled) -> another (reloaded)
        assert!(drivers.len() >= 4 && drivers[0] == first, "{drivers:?}");
        assert_eq!(drivers[2], first, "{drivers:?}");
        expected.extend(last);
    }
    assert_eq!(expected.len() as u64, SECTORS);

    // Every sector reads back exactly through the service, on a fresh connection.
    let mut conn = Conn::new(&svc.data());
    for (s, data) in &expected {
        assert_eq!(&conn.read(*s), data, "sector {s}");
    }

    // The store is ciphertext, and every xts(aes) driver of a registry in this process
    // decrypts it with the plain64 tweak: the format does not depend on the writer.
    let raw = std::fs::read(svc.dir.join("store")).unwrap();
    let reg = common::boot(&common::kat_config(""), None);
    reg.resolve("xts(aes)").unwrap();
    let drivers: Vec<String> = reg
        .list()
        .into_iter()
        .filter(|e| e.name == "xts(aes)" && e.state == "passed")
        .map(|e| e.driver)
        .chain(["xts(aes-generic)".to_string()])
        .collect();
    // The concrete drivers of this CPU plus the portable template instance (on arm64 the
    // Crypto Extensions driver is the only concrete one).
    assert!(drivers.len() >= 2, "{drivers:?}");
    for d in &drivers {
        let mut h = reg.alloc_skcipher(d).unwrap();
        h.set_key(&key).unwrap();
        for (s, data) in &expected {
            let mut sector = raw[*s as usize * SECTOR..][..SECTOR].to_vec();
            assert_ne!(&sector, data, "sector {s} is stored in the clear");
            let mut iv = [0u8; 16];
            iv[..8].copy_from_slice(&s.to_le_bytes());
            h.decrypt_in_place(&iv, &mut sector).unwrap();
            assert_eq!(&sector, data, "{d} decrypts sector {s} differently");
        }
    }
    drop(svc);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sectord_help_prints_its_usage_and_succeeds() {
    let out = through_runner(&sectord_binary())
        .arg("--help")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(
        stdout.starts_with("usage: sectord --store FILE"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("error") && !stderr.contains("error"),
        "{stderr}"
    );
}

/// SIGTERM and SIGINT end the service with status 0 and take both its sockets with it.
#[test]
fn sectord_removes_its_sockets_on_sigterm_and_sigint() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    let bin = sectord_binary();
    let dir = std::env::temp_dir().join(format!("cryptoreg-sectord-sig-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("cryptoreg.toml");
    std::fs::write(&config, common::kat_config("")).unwrap();
    let key_path = dir.join("key");
    std::fs::write(&key_path, common::xts_key(9, 32)).unwrap();
    for signal in [Signal::SIGTERM, Signal::SIGINT] {
        let mut svc = start(&bin, dir.join(signal.as_str()), &config, &key_path);
        let (ctl, data) = (svc.ctl(), svc.data());
        // A client mid-session does not keep it alive.
        let mut conn = Conn::new(&data);
        conn.write(3, &common::bytes(3, SECTOR));
        kill(Pid::from_raw(svc.child.id() as i32), signal).unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            if let Some(status) = svc.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "{signal}: sectord did not exit");
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(status.success(), "{signal}: {status}");
        assert!(!ctl.exists(), "{signal}: {} left behind", ctl.display());
        assert!(!data.exists(), "{signal}: {} left behind", data.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
