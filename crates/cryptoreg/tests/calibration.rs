//! Choosing by measurement (`[selection] calibrate`): off by default (the ladder alone
//! decides and nothing is timed); on, an algorithm's passed candidates are timed before
//! its first resolution, `explain` shows the figures, and the rule holds: a lower-ranked
//! candidate wins only when faster by more than the margin, never over an operator's
//! priority or the CPU-model policy. The proofs with drivers built to be slow are in
//! `tests/calibration_fault.rs` (the fault-injection build).

mod common;

use cryptoreg::Registry;

const CALIBRATE: &str = "[selection]\ncalibrate = true\n";

/// An algorithm with at least two concrete drivers on every architecture (x86-64: five
/// ChaCha20 rungs; arm64: NEON and the generic driver; `ctr(aes)` has one on arm64).
const ALG: &str = "chacha20";

fn kat(extra: &str, cpu: Option<&str>) -> Registry {
    common::boot(&common::kat_config(&format!("\n{extra}")), cpu)
}

#[test]
fn off_by_default_nothing_is_timed_and_the_ladder_decides() {
    let reg = kat("", None);
    let chosen = reg.resolve("ctr(aes)").unwrap().driver().to_string();
    assert!(reg.calibration("ctr(aes)").is_none());
    let ex = reg.explain("ctr(aes)");
    assert!(ex.candidates.iter().all(|c| c.mbps.is_empty()), "{ex:?}");
    assert_eq!(ex.chosen.as_deref(), Some(chosen.as_str()));
}

#[test]
fn on_the_first_resolution_measures_and_the_rule_decides() {
    let ladder = kat("", None);
    let top = ladder.resolve(ALG).unwrap().driver().to_string();
    let reg = kat(CALIBRATE, None);
    let chosen = reg.resolve(ALG).unwrap().driver().to_string();
    let c = reg
        .calibration(ALG)
        .expect("measured at the first resolution");
    assert_eq!(c.sizes, vec![1420, 16384]);
    assert!(c.rounds >= 1, "{c}");
    assert!(c.candidates.len() >= 2, "{c}");
    for m in &c.candidates {
        assert_eq!(m.mbps.len(), 2, "{c}");
        assert!(m.mbps.iter().all(|&v| v > 0.0), "{c}");
    }
    assert_eq!(
        c.candidates[0].driver, top,
        "measured in the ladder's order: {c}"
    );
    // The ladder's choice stays unless another was faster by more than 5 %.
    if chosen != top {
        assert!(
            c.of(&chosen).unwrap().speedup(c.of(&top).unwrap()) > 1.05,
            "{c}"
        );
    }
    assert_eq!(c.choice.as_deref(), Some(chosen.as_str()), "{c}");
    // explain shows every measured candidate's figures, and the chosen one's reason.
    let ex = reg.explain(ALG);
    assert_eq!(ex.chosen.as_deref(), Some(chosen.as_str()));
    for cand in ex.candidates.iter().filter(|x| c.of(&x.driver).is_some()) {
        assert_eq!(cand.mbps, c.of(&cand.driver).unwrap().mbps);
    }
    let text = c.to_string();
    assert!(
        text.starts_with(&format!("{ALG}: ")) && text.contains(&format!("* {chosen} ")),
        "{text}"
    );
}

#[test]
fn an_operator_priority_wins_over_the_measurement() {
    let probe = kat(CALIBRATE, None);
    let c = probe.measure(ALG).unwrap();
    let slowest = c
        .candidates
        .iter()
        .min_by(|a, b| a.score().total_cmp(&b.score()))
        .unwrap();
    let fastest = c
        .candidates
        .iter()
        .max_by(|a, b| a.score().total_cmp(&b.score()))
        .unwrap();
    // Without the operator, the slowest is chosen only where nothing beats it by more
    // than the margin (it leads the ladder, and under emulation the rungs can measure
    // alike).
    assert!(
        c.choice.as_deref() != Some(slowest.driver.as_str()) || fastest.speedup(slowest) <= 1.05,
        "{c}"
    );
    println!(
        "slowest {} at {:.0} MB/s, fastest {} at {:.0} MB/s",
        slowest.driver,
        slowest.score(),
        fastest.driver,
        fastest.score()
    );
    let reg = kat(
        &format!("{CALIBRATE}[priority]\n\"{}\" = 60000\n", slowest.driver),
        None,
    );
    assert_eq!(reg.resolve(ALG).unwrap().driver(), slowest.driver);
    assert!(reg.calibration(ALG).is_some());
    let ex = reg.explain(ALG);
    assert!(
        ex.candidates[0]
            .verdict
            .contains("configured priority 60000"),
        "{ex:?}"
    );
    // Nor is a driver an operator demoted promoted back by its speed.
    if c.candidates.len() > 1 {
        let reg = kat(
            &format!("{CALIBRATE}[priority]\n\"{}\" = 1\n", fastest.driver),
            None,
        );
        assert_ne!(reg.resolve(ALG).unwrap().driver(), fastest.driver);
    }
}

/// On a model whose policy demotes zmm drivers (Ice Lake server), calibration measures
/// them (they are usable) but never promotes one: the 20 ms benchmark cannot see the
/// downclock the policy exists for.
#[test]
fn a_policy_demoted_driver_is_never_promoted() {
    let reg = kat(CALIBRATE, Some("icelake-server"));
    let chosen = reg.resolve(ALG).unwrap();
    assert!(!chosen.uses_zmm(), "{}", chosen.driver());
    let c = reg.calibration(ALG).unwrap();
    let zmm: Vec<_> = reg
        .list()
        .into_iter()
        .filter(|e| e.name == ALG && e.uses_zmm && c.of(&e.driver).is_some())
        .collect();
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        assert!(
            !zmm.is_empty(),
            "no zmm driver measured on an AVX-512 host: {c}"
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    assert!(zmm.is_empty());
}
