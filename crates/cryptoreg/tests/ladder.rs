//! The AES ladder on every CPU preset: which XTS and CTR driver is chosen, and the zmm
//! policy on the models that downclock.
//!
//! A preset plans for its own architecture's ladder on every host (the drivers of
//! another architecture are chosen in the plan, though only their records exist here), so
//! these choices hold on x86-64 and arm64 hosts alike.

mod common;

/// (preset, chosen xts(aes), chosen ctr(aes)).
const CHOICES: &[(&str, &str, &str)] = &[
    ("zen3", "xts-aes-vaes-avx2", "ctr-aes-vaes-avx2"),
    ("alder-lake", "xts-aes-vaes-avx2", "ctr-aes-vaes-avx2"),
    ("arrow-lake", "xts-aes-vaes-avx2", "ctr-aes-vaes-avx2"),
    ("zen4", "xts-aes-vaes-avx10_512", "ctr-aes-vaes-avx10_512"),
    ("zen5", "xts-aes-vaes-avx10_512", "ctr-aes-vaes-avx10_512"),
    (
        "emerald-rapids",
        "xts-aes-vaes-avx10_512",
        "ctr-aes-vaes-avx10_512",
    ),
    (
        "granite-rapids",
        "xts-aes-vaes-avx10_512",
        "ctr-aes-vaes-avx10_512",
    ),
    (
        "sapphire-rapids",
        "xts-aes-vaes-avx10_512",
        "ctr-aes-vaes-avx10_512",
    ),
    (
        "icelake-server",
        "xts-aes-vaes-avx10_256",
        "ctr-aes-vaes-avx10_256",
    ),
    (
        "icelake-client",
        "xts-aes-vaes-avx10_256",
        "ctr-aes-vaes-avx10_256",
    ),
    (
        "tigerlake",
        "xts-aes-vaes-avx10_256",
        "ctr-aes-vaes-avx10_256",
    ),
    // Skylake-X has AVX-512 but no VAES: the AES-NI drivers serve it.
    ("skylake-x", "xts-aes-aesni", "ctr-aes-aesni"),
    ("haswell", "xts-aes-aesni", "ctr-aes-aesni"),
    ("westmere", "xts-aes-aesni", "ctr-aes-aesni"),
    (
        "generic-x86_64",
        "xts(ecb(aes-generic))",
        "ctr(aes-generic)",
    ),
    // arm64 without the Crypto Extensions (Raspberry Pi 4): the generic drivers.
    ("cortex-a72", "xts(ecb(aes-generic))", "ctr(aes-generic)"),
];

/// The arm64 presets with the Crypto Extensions choose the `*-aes-ce` drivers, on every
/// host (the records exist everywhere).
const ARM64_CE_CHOICES: &[(&str, &str, &str)] = &[
    ("neoverse-n1", "xts-aes-ce", "ctr-aes-ce"),
    ("apple-m1", "xts-aes-ce", "ctr-aes-ce"),
    ("neoverse-v1", "xts-aes-ce", "ctr-aes-ce"),
    ("neoverse-v2", "xts-aes-ce", "ctr-aes-ce"),
];

/// Boots with known-answer tests only (fast); the fault-injection build's wrong driver
/// passes those by design, so it is switched off here (tests/fault_injection.rs covers it).
fn kat_boot(preset: &str) -> cryptoreg::Registry {
    let reg = common::boot("[selftest]\nmode = \"kat\"\n", Some(preset));
    if cfg!(cryptoreg_fault_injection) {
        reg.disable("xts-aes-faulty").unwrap();
        reg.disable("gcm-aes-faulty").unwrap();
        reg.disable("ctr-aes-faulty-cpu").unwrap();
    }
    reg
}

#[test]
fn every_preset_has_its_expected_choice_here() {
    let listed: Vec<&str> = CHOICES
        .iter()
        .chain(ARM64_CE_CHOICES)
        .map(|&(p, _, _)| p)
        .collect();
    for preset in cryptoreg::CpuInfo::preset_names() {
        assert!(
            preset == "native" || listed.contains(&preset),
            "preset {preset} has no expected choice in tests/ladder.rs"
        );
    }
}

#[test]
fn each_preset_chooses_its_rung_of_the_ladder() {
    check_choices(CHOICES);
}

#[test]
fn arm64_presets_choose_the_crypto_extensions() {
    check_choices(ARM64_CE_CHOICES);
}

fn check_choices(choices: &[(&str, &str, &str)]) {
    for &(preset, xts, ctr) in choices {
        let reg = kat_boot(preset);
        assert_eq!(
            reg.explain("xts(aes)").chosen.as_deref(),
            Some(xts),
            "{preset}"
        );
        assert_eq!(
            reg.explain("ctr(aes)").chosen.as_deref(),
            Some(ctr),
            "{preset}"
        );
    }
}

#[test]
fn zmm_drivers_are_demoted_with_a_reason_on_downclocking_models() {
    for preset in ["icelake-server", "icelake-client", "tigerlake", "skylake-x"] {
        let reg = kat_boot(preset);
        for name in ["xts(aes)", "ctr(aes)"] {
            let ex = reg.explain(name);
            let zmm = ex
                .candidates
                .iter()
                .find(|c| c.driver.ends_with("-vaes-avx10_512"))
                .unwrap();
            assert_eq!(
                (zmm.priority, zmm.base_priority),
                (1, 800),
                "{preset} {name}"
            );
            if preset != "skylake-x" {
                assert!(
                    zmm.verdict.starts_with("zmm-excluded on this model")
                        && zmm.verdict.contains("(800 -> 1)"),
                    "{preset}: {}",
                    zmm.verdict
                );
            }
        }
    }
    for preset in [
        "zen4",
        "zen5",
        "sapphire-rapids",
        "emerald-rapids",
        "granite-rapids",
        "zen3",
        "alder-lake",
        "arrow-lake",
    ] {
        let reg = kat_boot(preset);
        let e = reg
            .list()
            .into_iter()
            .find(|e| e.driver == "xts-aes-vaes-avx10_512")
            .unwrap();
        assert_eq!(e.priority, 800, "{preset}");
    }
}

#[test]
fn a_runtime_priority_restores_the_512_bit_driver_on_ice_lake() {
    let reg = common::boot("", Some("icelake-server"));
    assert_eq!(
        reg.resolve("xts(aes)").unwrap().driver(),
        "xts-aes-vaes-avx10_256"
    );
    reg.set_priority("xts-aes-vaes-avx10_512", 800).unwrap();
    let ex = reg.explain("xts(aes)");
    assert_eq!(ex.chosen.as_deref(), Some("xts-aes-vaes-avx10_512"));
    assert!(
        ex.candidates[0].verdict.starts_with("chosen"),
        "{}",
        ex.candidates[0].verdict
    );
    // And by configuration.
    let reg = common::boot(
        "[priority]\n\"ctr-aes-vaes-avx10_512\" = 800\n",
        Some("icelake-client"),
    );
    assert_eq!(
        reg.resolve("ctr(aes)").unwrap().driver(),
        "ctr-aes-vaes-avx10_512"
    );
}

/// At equal effective priority a concrete driver beats a template instance, whatever the
/// names' ASCII order (`ctr(aes-aesni)` sorts before `ctr-aes-aesni`): the kernel never
/// builds an instance when a registered driver answers the name. On every preset, each
/// usable concrete driver is brought to the priority of the best instance.
#[test]
fn concrete_drivers_beat_instances_at_equal_priority_on_every_preset() {
    let mut ties = 0;
    for &(preset, _, _) in CHOICES {
        for name in ["ecb(aes)", "cbc(aes)", "ctr(aes)", "xts(aes)"] {
            let reg = kat_boot(preset);
            let ex = reg.explain(name);
            let usable = |state: &str| state == "passed" || state == "untested";
            let Some(inst) = ex.candidates.iter().find(|c| c.instance && usable(c.state)) else {
                panic!("{preset} {name}: no usable instance in {:?}", ex.candidates)
            };
            let concrete: Vec<String> = ex
                .candidates
                .iter()
                .filter(|c| !c.instance && usable(c.state))
                .map(|c| c.driver.clone())
                .collect();
            for d in &concrete {
                reg.set_priority(d, inst.priority).unwrap();
            }
            let chosen = reg.resolve(name).unwrap();
            if concrete.is_empty() {
                assert!(chosen.is_instance(), "{preset} {name}: {}", chosen.driver());
            } else {
                assert!(
                    concrete.iter().any(|d| d == chosen.driver()),
                    "{preset} {name}: {} chosen over {concrete:?} at {}",
                    chosen.driver(),
                    inst.priority
                );
                ties += 1;
            }
        }
    }
    assert!(ties >= 20, "only {ties} ties were exercised");
}

/// A configuration naming another architecture's driver is accepted (records exist on
/// every architecture), and its settings show in the list although the driver cannot run
/// here: one configuration file serves a mixed fleet.
#[test]
fn a_configuration_naming_any_architectures_driver_is_accepted() {
    let reg = common::boot(
        "[selftest]\nmode = \"kat\"\n[priority]\n\"xts-aes-aesni\" = 50\n\
         \"xts-aes-ce\" = 60\n[disable]\ndrivers = [\"ctr-aes-aesni\", \"ctr-aes-ce\"]\n",
        None,
    );
    let list = reg.list();
    let entry = |d: &str| list.iter().find(|e| e.driver == d).unwrap().clone();
    assert_eq!(entry("xts-aes-aesni").priority, 50);
    assert_eq!(entry("ctr-aes-aesni").state, "disabled");
    assert_eq!(entry("xts-aes-ce").priority, 60);
    assert_eq!(entry("ctr-aes-ce").state, "disabled");
    // The other architecture's drivers cannot be built here: never chosen, whatever the
    // configuration says.
    let foreign = if cfg!(target_arch = "x86_64") {
        "-ce"
    } else {
        "aesni"
    };
    let chosen = reg.explain("xts(aes)").chosen.unwrap();
    assert!(!chosen.contains(foreign), "{chosen}");
}

/// The names a template can also answer: instances of these are the fallback.
const TEMPLATE_ANSWERED: &[&str] = &[
    "ecb(aes)",
    "cbc(aes)",
    "ctr(aes)",
    "xts(aes)",
    "gcm(aes)",
    "rfc7539(chacha20,poly1305)",
];

/// The usable concrete drivers of `name` in the resolver's order (the chosen first).
fn concrete_ladder(reg: &cryptoreg::Registry, name: &str) -> Vec<String> {
    reg.explain(name)
        .candidates
        .into_iter()
        .filter(|c| {
            !c.instance
                && ["chosen", "lower priority", "tie at", "zmm-excluded"]
                    .iter()
                    .any(|v| c.verdict.starts_with(v))
        })
        .map(|c| c.driver)
        .collect()
}

/// Template instances are the fallback (issue 22, part 1), on every preset: demoting
/// any one concrete driver to 0 moves the choice to the next concrete driver (or leaves
/// it where it is when it is the only one), disabling them one after another walks down
/// the concrete ladder, and only disabling them all reaches a template instance.
#[test]
fn instances_are_reached_only_when_every_concrete_driver_is_disabled() {
    let mut walked = 0;
    for preset in cryptoreg::CpuInfo::preset_names() {
        let reg = kat_boot(preset);
        for &name in TEMPLATE_ANSWERED {
            let ladder = concrete_ladder(&reg, name);
            let chosen = || reg.explain(name).chosen.unwrap_or_default();
            for (i, d) in ladder.iter().enumerate() {
                // 0: below the zmm drivers a policy demoted to 1 (a tie at 1 goes by name).
                reg.set_priority(d, 0).unwrap();
                let want = if ladder.len() == 1 {
                    d
                } else {
                    &ladder[usize::from(i == 0)]
                };
                assert_eq!(&chosen(), want, "{preset} {name}: {d} demoted to 0");
                reg.clear_priority(d).unwrap();
            }
            for (i, d) in ladder.iter().enumerate() {
                reg.disable(d).unwrap();
                let got = chosen();
                match ladder.get(i + 1) {
                    Some(next) => assert_eq!(&got, next, "{preset} {name}: {d} disabled"),
                    None => {
                        let ex = reg.explain(name);
                        assert!(
                            ex.candidates[0].instance
                                && ex.candidates[0]
                                    .verdict
                                    .starts_with("chosen: no driver of the algorithm is usable"),
                            "{preset} {name}: every driver disabled: {:?}",
                            ex.candidates[0]
                        );
                    }
                }
                walked += 1;
            }
            for d in &ladder {
                reg.enable(d).unwrap();
            }
            assert_eq!(
                chosen(),
                ladder.first().cloned().unwrap_or_else(chosen),
                "{preset} {name}"
            );
        }
    }
    assert!(walked > 100, "only {walked} drivers walked");
}
