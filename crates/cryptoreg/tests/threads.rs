//! Any number of threads may resolve and use handles while another changes priorities.
//! Every output is checked against the generic driver.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

const WORKERS: usize = 4;
/// Rounds each worker must complete while priorities are changing.
const ROUNDS_UNDER_CHANGE: usize = 25;

#[test]
fn concurrent_use_while_priorities_change() {
    let reg = Arc::new(common::boot("[selftest]\nfuzz_iterations = 10\n", None));
    let stop = Arc::new(AtomicBool::new(false));
    let changes = Arc::new(AtomicUsize::new(0));
    let progress: Arc<Vec<AtomicUsize>> =
        Arc::new((0..WORKERS).map(|_| AtomicUsize::new(0)).collect());
    let names = ["xts(aes)", "ctr(aes)", "cbc(aes)", "ecb(aes)"];
    let flippable: Vec<String> = reg
        .list()
        .into_iter()
        .filter(|e| e.state == "passed" && !e.instance && e.driver != "aes-generic")
        .map(|e| e.driver)
        .collect();
    // Something to flip, or the changer has nothing to do and the workers never see a
    // change: fail here rather than hang.
    assert!(!flippable.is_empty(), "no passed driver to flip");
    // With AES on this CPU, the workers' own algorithms have drivers to flip: AES-NI or
    // VAES on x86-64, the Crypto Extensions (`*-aes-ce`) on arm64.
    if cryptoreg::driver::HostFeatures::detect().has_all(&[cryptoreg::Feature::Aes]) {
        let list = reg.list();
        let served = |d: &String| {
            list.iter()
                .any(|e| &e.driver == d && names.contains(&e.name.as_str()))
        };
        assert!(
            flippable.iter().any(served),
            "no accelerated driver of {names:?} among {flippable:?}"
        );
    }

    // The changer keeps changing until every worker has finished its rounds under change,
    // so the overlap is guaranteed rather than left to the scheduler.
    let changer = {
        let (reg, stop, changes, progress) = (
            Arc::clone(&reg),
            Arc::clone(&stop),
            Arc::clone(&changes),
            Arc::clone(&progress),
        );
        std::thread::spawn(move || {
            // If the changer panics, stop the workers so the test fails instead of hanging.
            let _stop = StopOnPanic(Arc::clone(&stop));
            let mut i = 0usize;
            while progress
                .iter()
                .any(|p| p.load(Ordering::SeqCst) < ROUNDS_UNDER_CHANGE)
            {
                let d = &flippable[i % flippable.len()];
                match i % 4 {
                    0 => reg.set_priority(d, 5).unwrap(),
                    1 => reg.disable(d).unwrap(),
                    2 => reg.enable(d).unwrap(),
                    _ => reg.clear_priority(d).unwrap(),
                }
                i += 1;
                changes.store(i, Ordering::SeqCst);
                std::thread::yield_now();
            }
            stop.store(true, Ordering::SeqCst);
            i
        })
    };

    let workers: Vec<_> = (0..WORKERS)
        .map(|t| {
            let (reg, stop, changes, progress) = (
                Arc::clone(&reg),
                Arc::clone(&stop),
                Arc::clone(&changes),
                Arc::clone(&progress),
            );
            std::thread::spawn(move || {
                // If this worker panics, release the changer so the test fails instead of
                // hanging.
                let _release = Release(Arc::clone(&progress), t);
                let mut drivers_seen = std::collections::BTreeSet::new();
                let mut round = 0u64;
                while !stop.load(Ordering::SeqCst) {
                    let name = names[(t + round as usize) % names.len()];
                    let mut h = reg.alloc_skcipher(name).unwrap();
                    let generic_name =
                        cryptoreg::driver::names::build_generic_driver_name(name).unwrap();
                    let mut g = reg.alloc_skcipher(&generic_name).unwrap();
                    let key_len = if name == "xts(aes)" { 64 } else { 32 };
                    let key = common::xts_key(round * 7 + t as u64, key_len);
                    h.set_key(&key).unwrap();
                    g.set_key(&key).unwrap();
                    let len = 16 * (1 + (round as usize * 37) % 64);
                    let iv = common::bytes(round, h.iv_size());
                    let plain = common::bytes(round + 100, len);
                    let mut a = plain.clone();
                    let mut b = plain.clone();
                    h.encrypt_in_place(&iv, &mut a).unwrap();
                    g.encrypt_in_place(&iv, &mut b).unwrap();
                    assert_eq!(a, b, "{} vs {}", h.driver_name(), g.driver_name());
                    h.decrypt_in_place(&iv, &mut a).unwrap();
                    assert_eq!(a, plain, "{} round trip", h.driver_name());
                    drivers_seen.insert(h.driver_name().to_string());
                    if changes.load(Ordering::SeqCst) > 0 {
                        progress[t].fetch_add(1, Ordering::SeqCst);
                    }
                    round += 1;
                }
                (drivers_seen, progress[t].load(Ordering::SeqCst))
            })
        })
        .collect();

    let mut seen = std::collections::BTreeSet::new();
    for w in workers {
        let (drivers, rounds_under_change) = w.join().expect("worker panicked");
        assert!(rounds_under_change >= ROUNDS_UNDER_CHANGE);
        seen.extend(drivers);
    }
    let made = changer.join().expect("changer panicked");
    assert!(made > 0);
    assert!(seen.len() >= names.len(), "drivers used: {seen:?}");
}

/// Sets the stop flag if dropped by a panic.
struct StopOnPanic(Arc<AtomicBool>);

impl Drop for StopOnPanic {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::SeqCst);
        }
    }
}

/// Marks a worker as finished on drop, including by panic.
struct Release(Arc<Vec<AtomicUsize>>, usize);

impl Drop for Release {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0[self.1].store(usize::MAX, Ordering::SeqCst);
        }
    }
}
