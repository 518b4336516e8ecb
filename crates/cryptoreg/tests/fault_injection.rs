//! The self-test gate, proved with a driver that is wrong only on the ciphertext-stealing
//! path of long requests. The driver exists only under
//! `RUSTFLAGS="--cfg cryptoreg_fault_injection"`; `cargo xtask test` runs this file that way
//! (in its own target directory, `target/fault-injection`).

#![cfg(cryptoreg_fault_injection)]

mod common;

use cryptoreg::{SelftestMode, TestParams};

#[test]
fn faulty_driver_passes_known_answers_but_is_caught_and_never_chosen() {
    // Known answers alone cannot see the fault.
    let kat = common::boot("[selftest]\nmode = \"kat\"\n", None);
    let e = kat
        .list()
        .into_iter()
        .find(|e| e.driver == "xts-aes-faulty")
        .unwrap();
    assert_eq!(e.state, "passed", "{:?}", e.failures);

    // The randomized tests catch it, with a replayable line.
    let reg = common::boot("", None);
    let e = reg
        .list()
        .into_iter()
        .find(|e| e.driver == "xts-aes-faulty")
        .unwrap();
    assert_eq!(e.state, "failed");
    assert_eq!(e.priority, 10000);
    let line = e.failures.first().expect("a failure line").clone();
    assert!(
        line.starts_with("selftest: skcipher: xts-aes-faulty "),
        "{line}"
    );
    assert!(line.contains("cfg=\""), "{line}");
    let seed = line.rsplit("seed=").next().unwrap().trim();
    assert!(seed.starts_with("0x"), "{line}");

    // Never chosen, although it has the highest priority.
    let ex = reg.explain("xts(aes)");
    assert_ne!(ex.chosen.as_deref(), Some("xts-aes-faulty"));
    let c = ex
        .candidates
        .iter()
        .find(|c| c.driver == "xts-aes-faulty")
        .unwrap();
    assert!(c.verdict.starts_with("self-test failed"), "{}", c.verdict);
    assert!(reg.alloc_skcipher("xts-aes-faulty").is_err());

    // The printed seed replays exactly that case.
    let seed = u64::from_str_radix(seed.trim_start_matches("0x"), 16).unwrap();
    let replay = reg
        .run_selftest(
            "xts-aes-faulty",
            &TestParams {
                mode: SelftestMode::Full,
                iterations: 1,
                seed,
                replay: true,
            },
        )
        .unwrap();
    assert_eq!(replay.failures, vec![line]);
}
