//! A resolution never fails because of a concurrent change. The reproduction of the
//! review: while one thread keeps setting a child cipher's priority, others allocate and
//! resolve template-served names; before the fix about one call in 100,000 answered
//! `NotFound` because the instance it had chosen was dropped before it was fetched.
//! (The review set the same value again; a no-op change no longer invalidates anything,
//! so the changer alternates between two values that both keep the generic child on
//! top, and every change drops the instances.) Bounded in time: each name gets a fixed
//! wall-clock budget.

mod common;

use common::rung;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Wall-clock budget per name; the reproduction needed a few hundred thousand calls.
const BUDGET: Duration = Duration::from_millis(1500);

fn hammer(name: &'static str) {
    let reg = Arc::new(common::boot("[selftest]\nfuzz_iterations = 10\n", None));
    // A template instance serves the name only while none of its own drivers is usable.
    // (`xts(aes)` is built over `ecb(aes)`: the grandchild is reached through that.)
    for served_by_instance in [name, "ecb(aes)"] {
        common::disable_concrete(&reg, served_by_instance);
    }
    reg.set_priority("aes-generic", 5000).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let changes = Arc::new(AtomicUsize::new(0));
    let changer = {
        let (reg, stop, changes) = (Arc::clone(&reg), Arc::clone(&stop), Arc::clone(&changes));
        std::thread::spawn(move || {
            let mut i = 0u32;
            while !stop.load(Ordering::Relaxed) {
                reg.set_priority("aes-generic", 5000 + (i & 1)).unwrap();
                i += 1;
                changes.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    let start = Instant::now();
    let mut calls = 0u64;
    let mut failures = Vec::new();
    while start.elapsed() < BUDGET {
        for r in [
            reg.alloc_skcipher(name)
                .map(|h| h.driver_name().to_string()),
            reg.resolve(name).map(|i| i.driver().to_string()),
        ] {
            calls += 1;
            match r {
                Ok(driver) => assert!(driver.contains("aes-generic"), "{name}: {driver}"),
                Err(e) => failures.push(e),
            }
        }
        if let Some(c) = reg.explain(name).chosen {
            assert!(c.contains("aes-generic"), "{name}: explain chose {c}");
        } else {
            failures.push(cryptoreg::Error::NotFound(format!("explain {name}")));
        }
    }
    stop.store(true, Ordering::Relaxed);
    changer.join().unwrap();
    let changes = changes.load(Ordering::Relaxed);
    eprintln!("{name}: {calls} calls against {changes} priority changes");
    assert!(
        changes > 100,
        "the changer barely ran ({changes}); nothing was tested"
    );
    assert!(
        failures.is_empty(),
        "{name}: {} of {calls} calls failed, first: {:?}",
        failures.len(),
        failures.first()
    );
}

#[test]
fn ctr_resolves_while_its_child_priority_is_set() {
    hammer("ctr(aes)");
}

#[test]
fn cbc_resolves_while_its_child_priority_is_set() {
    hammer("cbc(aes)");
}

#[test]
fn xts_resolves_while_its_grandchild_priority_is_set() {
    hammer("xts(aes)");
}

/// Setting the priority a driver already has changes nothing, so it drops nothing: the
/// instance built over it survives (and its self-test result with it).
#[test]
fn a_no_op_change_keeps_instances() {
    let reg = common::boot("[selftest]\nmode = \"kat\"\n", Some("generic-x86_64"));
    assert_eq!(
        reg.resolve("ctr(aes)").unwrap().driver(),
        "ctr(aes-generic)"
    );
    let built =
        |reg: &cryptoreg::Registry| reg.list().iter().any(|e| e.driver == "ctr(aes-generic)");
    assert!(built(&reg));
    reg.set_priority("aes-generic", 100).unwrap();
    reg.disable(rung::AES).unwrap();
    reg.disable(rung::AES).unwrap();
    assert!(built(&reg), "a no-op change dropped the instance");
    reg.set_priority("aes-generic", 101).unwrap();
    assert!(!built(&reg), "a real change must drop the instance");
}
