//! Any number of threads may resolve and use handles while another changes priorities.
//! Every output is checked against the generic driver.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[test]
fn concurrent_use_while_priorities_change() {
    let reg = Arc::new(common::boot("[selftest]\nfuzz_iterations = 10\n", None));
    let stop = Arc::new(AtomicBool::new(false));
    let names = ["xts(aes)", "ctr(aes)", "cbc(aes)", "ecb(aes)"];
    let flippable: Vec<String> = reg
        .list()
        .into_iter()
        .filter(|e| e.state == "passed" && !e.instance && e.driver != "aes-generic")
        .map(|e| e.driver)
        .collect();

    let changer = {
        let reg = Arc::clone(&reg);
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut i = 0usize;
            while !stop.load(Ordering::Relaxed) {
                let d = &flippable[i % flippable.len()];
                match i % 4 {
                    0 => reg.set_priority(d, 5).unwrap(),
                    1 => reg.disable(d).unwrap(),
                    2 => reg.enable(d).unwrap(),
                    _ => reg.clear_priority(d).unwrap(),
                }
                i += 1;
                std::thread::yield_now();
            }
            i
        })
    };

    let workers: Vec<_> = (0..4)
        .map(|t| {
            let reg = Arc::clone(&reg);
            std::thread::spawn(move || {
                let mut drivers_seen = std::collections::BTreeSet::new();
                for round in 0..60u64 {
                    let name = names[(t + round as usize) % names.len()];
                    let mut h = reg.alloc_skcipher(name).unwrap();
                    let generic_name = cryptoreg::names::build_generic_driver_name(name);
                    let mut g = reg.alloc_skcipher(&generic_name).unwrap();
                    let key = common::xts_key(round * 7 + t as u64, if name == "xts(aes)" { 64 } else { 32 });
                    h.set_key(&key).unwrap();
                    g.set_key(&key).unwrap();
                    let len = 16 * (1 + (round as usize * 37) % 64);
                    let iv = common::bytes(round, h.iv_size());
                    let mut a = common::bytes(round + 100, len);
                    let mut b = a.clone();
                    h.encrypt_in_place(&iv, &mut a).unwrap();
                    g.encrypt_in_place(&iv, &mut b).unwrap();
                    assert_eq!(a, b, "{} vs {}", h.driver_name(), g.driver_name());
                    h.decrypt_in_place(&iv, &mut a).unwrap();
                    assert_eq!(a, common::bytes(round + 100, len));
                    drivers_seen.insert(h.driver_name().to_string());
                }
                drivers_seen
            })
        })
        .collect();

    let mut seen = std::collections::BTreeSet::new();
    for w in workers {
        seen.extend(w.join().expect("worker panicked"));
    }
    stop.store(true, Ordering::Relaxed);
    let changes = changer.join().unwrap();
    assert!(changes > 0);
    // The changes really moved the choice around.
    assert!(seen.len() > names.len(), "drivers used: {seen:?}");
}
