//! The resolver, the self-test gate, priorities, policy, templates and explain, on toy
//! drivers (see `toy/mod.rs`).

mod toy;

use cryptoreg_registry::*;
use toy::{boot, boot_with};

/// Masks AVX-512 so the toy zmm driver is unsupported on any host.
const NO_512: &str = "[cpu]\ndisable = [\"avx512f\"]\n";

#[test]
fn highest_passed_priority_wins_with_name_tie_break() {
    let reg = boot(NO_512);
    // toy-aesni and toy-b-tie are both 300: the name that sorts first wins.
    assert_eq!(reg.resolve("toy").unwrap().driver(), "toy-aesni");
    reg.set_priority("toy-b-tie", 301).unwrap();
    assert_eq!(reg.resolve("toy").unwrap().driver(), "toy-b-tie");
}

#[test]
fn exact_driver_name_wins_even_when_lowered() {
    let reg = boot(NO_512);
    reg.set_priority("toy-generic", 1).unwrap();
    assert_eq!(reg.resolve("toy-generic").unwrap().driver(), "toy-generic");
    assert_ne!(reg.resolve("toy").unwrap().driver(), "toy-generic");
}

#[test]
fn failed_only_is_a_distinct_error() {
    let reg = boot(NO_512);
    match reg.resolve("brokenalg") {
        Err(Error::SelfTestFailed {
            name,
            driver,
            report,
        }) => {
            assert_eq!(name, "brokenalg");
            assert_eq!(driver, "brokenalg-broken");
            assert!(report.contains("is broken"), "{report}");
        }
        other => panic!("expected SelfTestFailed, got {other:?}"),
    }
    assert!(matches!(
        reg.resolve("nothing-like-this"),
        Err(Error::NotFound(_))
    ));
    let list = reg.list();
    let broken = list
        .iter()
        .find(|e| e.driver == "brokenalg-broken")
        .unwrap();
    assert_eq!(broken.state, "failed");
}

#[test]
fn unsupported_drivers_are_not_handed_out() {
    let reg = boot(NO_512);
    let e = reg
        .list()
        .into_iter()
        .find(|e| e.driver == "toy-avx10_512")
        .unwrap();
    assert_eq!(e.state, "unsupported");
    assert_eq!(e.missing, vec!["avx512f"]);
    assert!(matches!(
        reg.resolve("toy-avx10_512"),
        Err(Error::Unsupported { .. })
    ));
}

#[test]
fn runtime_priority_moves_new_handles_and_keeps_old_ones() {
    let reg = boot(NO_512);
    let mut old = reg.alloc_cipher("toy").unwrap();
    assert_eq!(old.driver_name(), "toy-aesni");
    reg.set_priority("toy-generic", 1000).unwrap();
    let new = reg.alloc_cipher("toy").unwrap();
    assert_eq!(new.driver_name(), "toy-generic");
    // The old handle still works and still is what it was.
    old.set_key(&[1; 16]).unwrap();
    let mut b = [0u8; 32];
    old.encrypt_blocks(&mut b).unwrap();
    assert_eq!(old.driver_name(), "toy-aesni");
    let listed = reg.list();
    let aesni = listed.iter().find(|e| e.driver == "toy-aesni").unwrap();
    assert_eq!(aesni.refcnt, 1);
    drop(old);
    let aesni = reg
        .list()
        .into_iter()
        .find(|e| e.driver == "toy-aesni")
        .unwrap();
    assert_eq!(aesni.refcnt, 0);
    reg.clear_priority("toy-generic").unwrap();
    assert_eq!(reg.resolve("toy").unwrap().driver(), "toy-aesni");
    assert!(matches!(
        reg.set_priority("no-such", 5),
        Err(Error::NotADriver { .. })
    ));
}

#[test]
fn configuration_priority_and_disable() {
    let reg = boot(
        "[priority]\n\"toy-generic\" = 900\n[disable]\ndrivers = [\"toy-aesni\"]\n[cpu]\ndisable = [\"avx512f\"]\n",
    );
    assert_eq!(reg.resolve("toy").unwrap().driver(), "toy-generic");
    assert!(matches!(reg.resolve("toy-aesni"), Err(Error::Disabled(_))));
    // Runtime beats configuration.
    reg.set_priority("toy-generic", 10).unwrap();
    assert_eq!(reg.resolve("toy").unwrap().driver(), "toy-b-tie");
    reg.enable("toy-aesni").unwrap();
    assert_eq!(reg.resolve("toy").unwrap().driver(), "toy-aesni");
    reg.disable("toy-aesni").unwrap();
    let e = reg
        .list()
        .into_iter()
        .find(|e| e.driver == "toy-aesni")
        .unwrap();
    assert_eq!(e.state, "disabled");
}

#[test]
fn unknown_driver_in_configuration_is_an_error() {
    let err = Registry::boot(BootOptions {
        cpu: None,
        config: Config::parse("[priority]\n\"no-such-driver\" = 3\n", "t").unwrap(),
        tester: None,
    });
    assert!(matches!(err, Err(Error::Config(m)) if m.contains("no-such-driver")));
}

#[test]
fn zmm_drivers_are_demoted_on_downclocking_models_and_can_be_restored() {
    for preset in ["icelake-server", "icelake-client", "tigerlake", "skylake-x"] {
        let reg = boot_with("", Some(preset));
        let e = reg
            .list()
            .into_iter()
            .find(|e| e.driver == "toy-avx10_512")
            .unwrap();
        assert_eq!((e.base_priority, e.priority), (800, 1), "{preset}");
        assert_eq!(
            reg.resolve("toy").unwrap().driver(),
            "toy-aesni",
            "{preset}"
        );
        let ex = reg.explain("toy");
        let c = ex
            .candidates
            .iter()
            .find(|c| c.driver == "toy-avx10_512")
            .unwrap();
        assert!(
            c.verdict.contains("zmm-excluded"),
            "{preset}: {}",
            c.verdict
        );
        assert!(c.verdict.contains("800 -> 1"), "{}", c.verdict);
        // Reachable by driver name, and a runtime priority restores it.
        assert_eq!(
            reg.resolve("toy-avx10_512").unwrap().driver(),
            "toy-avx10_512"
        );
        reg.set_priority("toy-avx10_512", 800).unwrap();
        assert_eq!(reg.resolve("toy").unwrap().driver(), "toy-avx10_512");
    }
    for preset in ["sapphire-rapids", "zen4"] {
        let reg = boot_with("", Some(preset));
        assert_eq!(
            reg.resolve("toy").unwrap().driver(),
            "toy-avx10_512",
            "{preset}"
        );
        assert!(reg.policy_matches().is_empty());
    }
    let reg = boot_with("", Some("zen3"));
    assert_eq!(reg.resolve("toy").unwrap().driver(), "toy-aesni");
    let reg = boot_with("", Some("generic-x86_64"));
    assert_eq!(reg.resolve("toy").unwrap().driver(), "toy-generic");
}

#[test]
fn configuration_restores_a_demoted_zmm_driver() {
    let reg = boot_with(
        "[priority]\n\"toy-avx10_512\" = 850\n",
        Some("icelake-server"),
    );
    assert_eq!(reg.resolve("toy").unwrap().driver(), "toy-avx10_512");
}

#[test]
fn templates_instantiate_on_demand_and_follow_child_priorities() {
    let reg = boot(NO_512);
    let inst = reg.resolve("wrap(toy)").unwrap();
    assert_eq!(inst.driver(), "wrap(toy-aesni)");
    assert_eq!(inst.name(), "wrap(toy)");
    assert_eq!(inst.base_priority(), 300);
    assert_eq!(inst.children(), vec!["toy-aesni"]);
    assert!(inst.requires().has(Feature::Aes));
    let e = reg
        .list()
        .into_iter()
        .find(|e| e.driver == "wrap(toy-aesni)")
        .unwrap();
    assert_eq!((e.state, e.instance), ("passed", true));

    // An explicit child: the kernel's naming.
    assert_eq!(
        reg.resolve("wrap(toy-generic)").unwrap().driver(),
        "wrap(toy-generic)"
    );

    // Raising the generic child invalidates the instance built on toy-aesni? No: the
    // instance over toy-aesni stays until toy-aesni changes. Changing toy-aesni drops it.
    let mut handle = reg.alloc_skcipher("wrap(toy)").unwrap();
    reg.set_priority("toy-aesni", 50).unwrap();
    assert!(reg.list().iter().all(|e| e.driver != "wrap(toy-aesni)"));
    let rebuilt = reg.resolve("wrap(toy)").unwrap();
    assert_eq!(rebuilt.driver(), "wrap(toy-b-tie)");
    // The old handle keeps working.
    handle.set_key(&[3; 16]).unwrap();
    let mut data = [9u8; 32];
    handle.encrypt_in_place(&[], &mut data).unwrap();
    handle.decrypt_in_place(&[], &mut data).unwrap();
    assert_eq!(data, [9u8; 32]);
    assert_eq!(handle.driver_name(), "wrap(toy-aesni)");
}

#[test]
fn template_over_failed_child_reports_the_failure() {
    let reg = boot(NO_512);
    assert!(matches!(
        reg.resolve("wrap(brokenalg)"),
        Err(Error::SelfTestFailed { .. })
    ));
    assert!(matches!(
        reg.resolve("nosuchtmpl(toy)"),
        Err(Error::NotFound(_))
    ));
    assert!(matches!(
        reg.resolve("wrap(toy,toy)"),
        Err(Error::NotFound(_))
    ));
}

#[test]
fn gate_without_tests() {
    // mode = off: supported drivers are resolvable untested.
    let reg = boot("[selftest]\nmode = \"off\"\n[cpu]\ndisable = [\"avx512f\"]\n");
    assert_eq!(reg.resolve("toy").unwrap().driver(), "toy-aesni");
    assert_eq!(
        reg.resolve("brokenalg").unwrap().driver(),
        "brokenalg-broken"
    );
    let e = reg
        .list()
        .into_iter()
        .find(|e| e.driver == "toy-aesni")
        .unwrap();
    assert_eq!(e.state, "untested");
    // No tester and tests on: nothing passes, nothing is handed out.
    let reg = Registry::boot(BootOptions {
        cpu: None,
        config: Config::embedded(),
        tester: None,
    })
    .unwrap();
    assert!(matches!(
        reg.resolve("toy-generic"),
        Err(Error::NotTested(_))
    ));
}

#[test]
fn abort_policy_fails_the_boot() {
    let r = Registry::boot(BootOptions {
        cpu: None,
        config: Config::parse("[selftest]\non_failure = \"abort\"\n", "t").unwrap(),
        tester: Some(std::sync::Arc::new(toy::ToyTester {
            calls: Default::default(),
        })),
    });
    assert!(
        matches!(r, Err(Error::BootAborted { driver, report }) if driver.contains("broken") && report.contains("is broken"))
    );
}

#[test]
fn explain_gives_every_candidate_a_verdict() {
    let reg = boot(NO_512);
    let ex = reg.explain("toy");
    assert_eq!(ex.chosen.as_deref(), Some("toy-aesni"));
    assert_eq!(ex.candidates[0].driver, "toy-aesni");
    assert_eq!(
        ex.candidates[0].verdict,
        "chosen: highest of 3 usable, priority 300"
    );
    let by = |d: &str| {
        ex.candidates
            .iter()
            .find(|c| c.driver == d)
            .unwrap()
            .verdict
            .clone()
    };
    assert_eq!(by("toy-generic"), "lower priority (100 < 300)");
    assert_eq!(
        by("toy-b-tie"),
        "tie at priority 300: toy-aesni sorts first"
    );
    assert_eq!(by("toy-avx10_512"), "missing avx512f");
    let ex = reg.explain("brokenalg");
    assert_eq!(ex.chosen, None);
    assert!(ex.candidates[0].verdict.starts_with("self-test failed"));
    assert!(ex.error.unwrap().contains("failed its self-test"));
    let ex = reg.explain("toy-generic");
    assert_eq!(ex.chosen.as_deref(), Some("toy-generic"));
    assert_eq!(
        ex.candidates[0].verdict,
        "chosen: asked for by driver name, priority 100"
    );
    let c = ex
        .candidates
        .iter()
        .find(|c| c.driver == "toy-aesni")
        .unwrap();
    assert_eq!(
        c.verdict,
        "not asked for: toy-generic is pinned by driver name"
    );
    reg.disable("toy-generic").unwrap();
    let ex = reg.explain("toy");
    let c = ex
        .candidates
        .iter()
        .find(|c| c.driver == "toy-generic")
        .unwrap();
    assert_eq!(c.verdict, "disabled");
    // The reason names where the winning priority came from.
    reg.set_priority("toy-b-tie", 301).unwrap();
    let ex = reg.explain("toy");
    assert_eq!(ex.chosen.as_deref(), Some("toy-b-tie"));
    assert_eq!(
        ex.candidates[0].verdict,
        "chosen: highest of 2 usable, runtime priority 301"
    );
    reg.disable("toy-aesni").unwrap();
    let ex = reg.explain("toy");
    assert_eq!(
        ex.candidates[0].verdict,
        "chosen: the only usable candidate, runtime priority 301"
    );
}

#[test]
fn simulated_cpu_plans_without_running() {
    let reg = boot_with("", Some("generic-x86_64"));
    assert!(reg.is_simulated());
    let e = reg
        .list()
        .into_iter()
        .find(|e| e.driver == "toy-aesni")
        .unwrap();
    assert_eq!(e.state, "unsupported");
    assert_eq!(reg.cpu().vendor, "GenuineIntel");
}

#[test]
fn proc_listing_names_every_driver() {
    let reg = boot(NO_512);
    let text = reg.proc_crypto();
    for d in ["toy-generic", "toy-aesni", "toystream-generic"] {
        assert!(text.contains(&format!("driver       : {d}\n")), "{d}");
    }
    assert!(text.contains("selftest     : passed"));
    // The kernel's size lines for each type.
    let record = |d: &str| {
        text.split("\n\n")
            .find(|r| r.contains(&format!("driver       : {d}\n")))
            .unwrap()
            .to_string()
    };
    let aesni = record("toy-aesni");
    assert!(
        aesni.contains("blocksize    : 16\nmin keysize  : 16\nmax keysize  : 16\nuses_zmm"),
        "{aesni}"
    );
    let stream = record("toystream-generic");
    assert!(
        stream.contains(
            "blocksize    : 1\nmin keysize  : 16\nmax keysize  : 16\nivsize       : 16\n"
        ),
        "{stream}"
    );
    assert!(!stream.contains("digestsize") && !stream.contains("maxauthsize"));
    // The same as data, with the architecture a driver's features belong to.
    let list = reg.list();
    let entry = |d: &str| list.iter().find(|e| e.driver == d).unwrap();
    assert_eq!(entry("toy-avx10_512").arch.as_deref(), Some("x86_64"));
    assert_eq!(entry("toy-generic").arch, None, "portable");
    assert_eq!(
        entry("toy-aesni").arch,
        None,
        "`aes` alone names no architecture"
    );
    assert_eq!(
        (
            entry("toystream-generic").ivsize,
            entry("toy-aesni").maxauthsize
        ),
        (16, None)
    );
}

// A template that is another spelling, as the kernel's `gcm(X)` is `gcm_base(ctr(X),ghash)`,
// and a broken one that rewrites a name into itself.
inventory::submit! {
    Template {
        name: "wrapalias",
        child_request: |arg| arg.to_string(),
        child_types: &[AlgType::Cipher],
        create: |_| Err(Error::NotFound("never called for a rewriting template".into())),
        rewrite: Some(|args| format!("wrap({})", args[0])),
    }
}
inventory::submit! {
    Template {
        name: "selfloop",
        child_request: |arg| arg.to_string(),
        child_types: &[AlgType::Cipher],
        create: |_| Err(Error::NotFound("never called for a rewriting template".into())),
        rewrite: Some(|args| format!("selfloop({})", args[0])),
    }
}

#[test]
fn a_rewriting_template_resolves_as_the_name_it_stands_for() {
    let reg = boot(NO_512);
    // `wrapalias(toy)` is served by the instance `wrap(toy)` would get, under its own name.
    let inst = reg.resolve("wrapalias(toy)").unwrap();
    assert_eq!(inst.driver(), "wrap(toy-aesni)");
    assert_eq!(inst.name(), "wrap(toy)");
    assert_eq!(
        reg.resolve("wrapalias(toy-generic)").unwrap().driver(),
        "wrap(toy-generic)"
    );
    let mut h = reg.alloc_skcipher("wrapalias(toy)").unwrap();
    h.set_key(&[3; 16]).unwrap();
    // Arity still checked; a rewrite into itself is refused, not followed forever.
    assert!(matches!(
        reg.resolve("wrapalias(toy,toy)"),
        Err(Error::NotFound(_))
    ));
    match reg.resolve("selfloop(toy)") {
        Err(Error::NotFound(m)) => assert!(m.contains("not a call of another template"), "{m}"),
        other => panic!("{other:?}"),
    }
}
