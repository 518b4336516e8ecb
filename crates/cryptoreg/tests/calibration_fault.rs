//! Calibration proved with drivers built for it (`--cfg cryptoreg_fault_injection`,
//! `fault_injection::use_calibration_drivers`): `ctr-aes-slow`, correct but doing each
//! request's work four times at priority 30000, wins `ctr(aes)` on the ladder and loses
//! it under calibration; `ctr-aes-twin-a` and `-b`, the same code at 29999 and 29998,
//! measure within the margin of each other, so ten boots in a row keep the first.

#![cfg(all(cryptoreg_fault_injection, feature = "aes"))]

mod common;

const SLOW: &str = "ctr-aes-slow";
const TWINS: [&str; 2] = ["ctr-aes-twin-a", "ctr-aes-twin-b"];

fn config(calibrate: bool, disable: &[String]) -> String {
    let list: Vec<String> = disable.iter().map(|d| format!("\"{d}\"")).collect();
    format!(
        "[selftest]\nmode = \"kat\"\n[selection]\ncalibrate = {calibrate}\n\
         [disable]\ndrivers = [{}]\n",
        list.join(", ")
    )
}

/// The wrong drivers of this build, which pass known answers by design.
fn faulty() -> Vec<String> {
    ["xts-aes-faulty", "gcm-aes-faulty", "ctr-aes-faulty-cpu"]
        .map(String::from)
        .to_vec()
}

#[test]
fn a_slow_driver_at_high_priority_loses_under_calibration_and_wins_without() {
    cryptoreg::fault_injection::use_calibration_drivers();
    let mut off: Vec<String> = faulty();
    off.extend(TWINS.map(String::from));
    let ladder = common::boot(&config(false, &off), None);
    assert_eq!(ladder.resolve("ctr(aes)").unwrap().driver(), SLOW);

    let reg = common::boot(&config(true, &off), None);
    let chosen = reg.resolve("ctr(aes)").unwrap().driver().to_string();
    assert_ne!(chosen, SLOW);
    let c = reg.calibration("ctr(aes)").unwrap();
    let (slow, fast) = (c.of(SLOW).unwrap(), c.of(&chosen).unwrap());
    assert!(fast.speedup(slow) > 1.05, "{c}");
    let (slow, fast) = (slow.score(), fast.score());
    let ex = reg.explain("ctr(aes)");
    let verdict = |d: &str| {
        ex.candidates
            .iter()
            .find(|x| x.driver == d)
            .map(|x| x.verdict.clone())
            .unwrap()
    };
    assert!(verdict(SLOW).starts_with("measured slower: "), "{ex:?}");
    assert!(
        verdict(&chosen).starts_with("chosen: calibrated: "),
        "{ex:?}"
    );
    println!(
        "calibration: {SLOW} (priority 30000) {slow:.0} MB/s loses to {chosen} {fast:.0} MB/s; \
         without calibration {SLOW} is chosen"
    );
}

#[test]
fn ten_boots_keep_the_first_of_two_candidates_within_the_margin() {
    cryptoreg::fault_injection::use_calibration_drivers();
    // Only the twins compete: every other ctr(aes) driver is disabled.
    let probe = common::boot(&config(false, &faulty()), None);
    let mut off: Vec<String> = probe
        .list()
        .into_iter()
        .filter(|e| e.name == "ctr(aes)" && !e.instance && !TWINS.contains(&e.driver.as_str()))
        .map(|e| e.driver)
        .collect();
    off.sort();
    off.dedup();
    let mut chosen = Vec::new();
    let mut gaps = Vec::new();
    for _ in 0..10 {
        let reg = common::boot(&config(true, &off), None);
        chosen.push(reg.resolve("ctr(aes)").unwrap().driver().to_string());
        let c = reg.calibration("ctr(aes)").unwrap();
        assert_eq!(c.candidates.len(), 2, "{c}");
        let (a, b) = (c.of(TWINS[0]).unwrap(), c.of(TWINS[1]).unwrap());
        gaps.push((b.speedup(a) - 1.0) * 100.0);
    }
    assert!(
        chosen.iter().all(|d| d == TWINS[0]),
        "{chosen:?}, gaps {gaps:.1?} %"
    );
    println!(
        "calibration: 10 of 10 boots chose {} (twin-b measured {:+.1?} % against it, margin 5 %)",
        TWINS[0], gaps
    );
}
