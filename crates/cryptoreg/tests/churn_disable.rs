//! A resolution by algorithm name never fails with `Disabled` because of a concurrent
//! change (issue 18, item 8). Three threads allocate names only template instances serve;
//! another moves a child's priority (so the best instance alternates between two) and,
//! while the instance over that child is the best, disables and re-enables the instance
//! over the other children, so a usable instance always serves the name. Before the fix
//! an allocator could get the instance it had just built after changes had dropped the
//! new best one and disabled it, and answered `Disabled`. The window is a few
//! instructions wide: here it showed about once in a million allocations, so this test
//! catches the old code only in some runs (one in four here); the fix (a refusal made
//! under a generation that moved during the resolution is looked at again) is what the
//! test keeps honest. Bounded: a fixed wall-clock budget per name.
//!
//! The second race this found (a round raced by a change cached its answer, and that
//! stale answer served the whole next generation) is reproduced every time, without
//! threads, by the last test: it makes the change at exactly the instant that race needs
//! through the resolver's test hook.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const BUDGET: Duration = Duration::from_millis(2500);

/// `inner`: the algorithm the template is built over, when that is an algorithm name with
/// concrete drivers (they are disabled, so its instances, over `child` or not, serve it).
fn churn(name: &'static str, child: &'static str, inner: Option<&str>) {
    // Known answers only (fast), and in the fault-injection build without the wrong
    // drivers, which pass known answers by design and would be the best children.
    let reg = Arc::new(common::boot(&common::kat_config(""), None));
    if let Some(inner) = inner {
        assert!(!common::disable_concrete(&reg, inner).is_empty(), "{inner}");
    }
    reg.set_priority(child, 1).unwrap();
    let other = reg.resolve(name).unwrap().driver().to_string();
    if other.contains(child) {
        eprintln!("{name}: the best instance is over {child} already; nothing to race");
        return;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let changes = Arc::new(AtomicUsize::new(0));
    let changer = {
        let (reg, stop, changes) = (Arc::clone(&reg), Arc::clone(&stop), Arc::clone(&changes));
        std::thread::spawn(move || {
            // `other` is disabled only while the instance over `child` is the best, so
            // at every moment some usable instance serves the name.
            while !stop.load(Ordering::Relaxed) {
                reg.set_priority(child, 5000).unwrap();
                reg.disable(&other).unwrap();
                reg.enable(&other).unwrap();
                reg.set_priority(child, 1).unwrap();
                changes.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    let allocators: Vec<_> = (0..3)
        .map(|_| {
            let reg = Arc::clone(&reg);
            std::thread::spawn(move || {
                let start = Instant::now();
                let (mut calls, mut failures) = (0u64, Vec::new());
                while start.elapsed() < BUDGET {
                    if let Err(e) = reg.alloc_aead(name) {
                        failures.push(e);
                    }
                    calls += 1;
                }
                (calls, failures)
            })
        })
        .collect();
    let (mut calls, mut failures) = (0u64, Vec::new());
    for a in allocators {
        let (c, f) = a.join().unwrap();
        calls += c;
        failures.extend(f);
    }
    stop.store(true, Ordering::Relaxed);
    changer.join().unwrap();
    let changes = changes.load(Ordering::Relaxed);
    assert!(changes > 100, "{name}: only {changes} changes ran");
    assert!(
        failures.is_empty(),
        "{name}: {} of {calls} allocations failed under {changes} change rounds: {:?}",
        failures.len(),
        &failures[..failures.len().min(3)]
    );
}

#[test]
fn rfc7539esp_never_disabled_by_churn() {
    churn("rfc7539esp(chacha20,poly1305)", "chacha20-generic", None);
}

#[test]
fn rfc4106_never_disabled_by_churn() {
    churn("rfc4106(gcm(aes))", "ghash-generic", Some("gcm(aes)"));
}

/// A change made while `gcm(aes)` is being resolved for `rfc4106(gcm(aes))` — after
/// the round built its template instance, before it looked at the candidates — must not
/// leave that round's answer cached. With `gcm(aes)`'s own drivers disabled (so its
/// `gcm_base` instances serve it), the change makes the instance over `ghash-generic` the
/// best `gcm(aes)` and disables the `rfc4106` instance over the one the round is about to
/// choose. Before the fix the round cached that
/// instance for `gcm(aes)` under the new generation, every later resolution built
/// the disabled `rfc4106` instance over it again, and the allocation (and each one after
/// it until the next change) failed with `Disabled`.
#[test]
fn a_change_during_a_resolution_is_not_cached() {
    let reg = Arc::new(common::boot(&common::kat_config(""), None));
    // gcm(aes)'s own drivers out, so its `gcm_base` instances serve it.
    assert!(!common::disable_concrete(&reg, "gcm(aes)").is_empty());
    reg.set_priority("ghash-generic", 1).unwrap();
    let name = "rfc4106(gcm(aes))";
    let other = reg.resolve(name).unwrap().driver().to_string();
    let concrete = reg.resolve("gcm(aes)").unwrap().driver().to_string();
    assert!(
        !other.contains("ghash-generic") && !concrete.contains("ghash-generic"),
        "{other} / {concrete}: with ghash-generic at 1 no best driver uses it"
    );
    let armed = Arc::new(AtomicBool::new(true));
    let fired = Arc::new(AtomicUsize::new(0));
    {
        let (weak, armed, fired, other) = (
            Arc::downgrade(&reg),
            Arc::clone(&armed),
            Arc::clone(&fired),
            other.clone(),
        );
        reg.set_resolution_hook_for_test(move |resolving| {
            if resolving == "gcm(aes)" && armed.swap(false, Ordering::SeqCst) {
                let reg = weak.upgrade().unwrap();
                reg.set_priority("ghash-generic", 5000).unwrap();
                reg.disable(&other).unwrap();
                fired.fetch_add(1, Ordering::SeqCst);
            }
        });
    }
    // The change above dropped every cached answer; this resolution is the raced one.
    reg.set_priority("ghash-generic", 2).unwrap();
    let got = reg.alloc_aead(name);
    assert_eq!(
        fired.load(Ordering::SeqCst),
        1,
        "the hook ran once, inside the resolution"
    );
    let handle = got.unwrap_or_else(|e| panic!("{name} after a raced change: {e:?}"));
    let ctr = reg.resolve("ctr(aes)").unwrap().driver().to_string();
    assert_eq!(
        handle.driver_name(),
        format!("rfc4106(gcm_base({ctr},ghash-generic))"),
        "the raced allocation gets the instance the new state asks for"
    );
    // And the next resolutions of the new generation follow it too (nothing stale cached).
    let best_gcm = reg.resolve("gcm(aes)").unwrap().driver().to_string();
    assert!(
        best_gcm.contains("ghash-generic"),
        "gcm(aes) resolves to {best_gcm}"
    );
    for _ in 0..3 {
        let h = reg.alloc_aead(name).unwrap();
        assert!(
            h.driver_name().contains("ghash-generic"),
            "{}",
            h.driver_name()
        );
    }
}
