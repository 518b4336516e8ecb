//! Operating a registry inside a running service: generations, `apply_config`,
//! `prepare`, aliases and per-driver counters.

mod common;

use common::rung;

use cryptoreg::{AdminOp, ChangeEffect, Config, Registry};

fn kat(cpu: &str) -> Registry {
    common::boot(&common::kat_config(""), Some(cpu))
}

fn xts_encrypt(h: &cryptoreg::Skcipher, data: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    h.encrypt_in_place(&[7u8; 16], &mut out).unwrap();
    out
}

#[test]
fn the_generation_follows_changes_and_handles_see_it() {
    let reg = kat(rung::PRESET);
    let g0 = reg.generation();
    let mut h = reg.alloc_skcipher("xts(aes)").unwrap();
    assert_eq!(h.driver_name(), rung::XTS);
    h.set_key(&common::xts_key(1, 32)).unwrap();
    assert_eq!(h.generation(), g0);
    assert!(h.is_current());

    // The same priority again changes nothing, so the handle stays current.
    let c = reg
        .admin(&AdminOp::SetPriority(rung::XTS.into(), rung::XTS_PRIORITY))
        .unwrap();
    assert_eq!(c.effect, ChangeEffect::Unchanged);
    assert_eq!(reg.generation(), g0);
    assert!(h.is_current());

    let c = reg
        .admin(&AdminOp::SetPriority(rung::XTS.into(), 50))
        .unwrap();
    assert_eq!(
        (c.old.as_str(), c.new.as_str()),
        (rung::XTS_PRIORITY.to_string().as_str(), "50")
    );
    assert_eq!(c.effect, ChangeEffect::Applied);
    assert_ne!(reg.generation(), g0);
    assert!(!h.is_current());

    // Demoted, the rung's only concrete `xts(aes)` driver is still what the name gets:
    // a template instance competes only once an operator gives it a priority of its own.
    assert_eq!(reg.resolve("xts(aes)").unwrap().driver(), rung::XTS);
    reg.set_priority(rung::XTS_INSTANCE, 60).unwrap();
    let g1 = reg.generation();
    assert_ne!(g1, g0);

    // The old handle keeps working, and agrees with what a new allocation gets.
    let mut h2 = reg.alloc_skcipher("xts(aes)").unwrap();
    assert_eq!(h2.driver_name(), rung::XTS_INSTANCE);
    assert!(h2.is_current());
    assert_eq!(h2.generation(), g1);
    h2.set_key(&common::xts_key(1, 32)).unwrap();
    let data = common::bytes(3, 4096);
    assert_eq!(xts_encrypt(&h, &data), xts_encrypt(&h2, &data));

    for op in [
        AdminOp::Disable(rung::XTS.into()),
        AdminOp::Enable(rung::XTS.into()),
        AdminOp::ClearPriority(rung::XTS.into()),
    ] {
        let before = reg.generation();
        reg.admin(&op).unwrap();
        assert_ne!(reg.generation(), before, "{op:?}");
        assert!(!h2.is_current());
    }
    // A handle built outside the registry is never current.
    let info = reg.resolve("xts(aes)").unwrap();
    let raw = cryptoreg::driver::build_skcipher(info, &reg.host_token()).unwrap();
    assert!(!raw.is_current());
}

#[test]
fn apply_config_applies_policy_reports_restart_settings_and_shadowing() {
    let reg = kat(rung::PRESET);
    assert_eq!(reg.resolve("xts(aes)").unwrap().driver(), rung::XTS);
    let g0 = reg.generation();
    // The fault-injection build keeps its wrong drivers disabled (see `common::kat_config`).
    let faulty = if cfg!(cryptoreg_fault_injection) {
        ", \"xts-aes-faulty\", \"gcm-aes-faulty\", \"ctr-aes-faulty-cpu\""
    } else {
        ""
    };
    let new = Config::parse(
        &rung::on_arch(&format!(
            "[selftest]\nmode = \"full\"\n[priority]\n\"xts-aes-aesni\" = 10\n\
             [disable]\ndrivers = [\"ctr-aes-aesni\"{faulty}]\n[cpu]\ndisable = [\"avx2\"]\n"
        )),
        "new.toml",
    )
    .unwrap();
    let changes = reg.apply_config(&new).unwrap();
    let find = |setting: &str, driver: &str| {
        changes
            .iter()
            .find(|c| c.setting == setting && c.driver == driver)
            .unwrap_or_else(|| panic!("no {setting} {driver} in {changes:?}"))
            .clone()
    };
    let p = find("priority", rung::XTS);
    assert_eq!(
        (p.old.as_str(), p.new.as_str(), p.effect),
        ("-", "10", ChangeEffect::Applied)
    );
    let d = find("disabled", rung::CTR);
    assert_eq!(d.effect, ChangeEffect::Applied);
    assert_eq!(
        find("selftest", "[selftest]").effect,
        ChangeEffect::NeedsRestart
    );
    assert_eq!(
        find("cpu.disable", "[cpu]").effect,
        ChangeEffect::NeedsRestart
    );
    assert_eq!(changes.len(), 4, "{changes:?}");
    assert_ne!(reg.generation(), g0);
    // Applied: new resolutions follow (the demoted driver is the rung's only concrete
    // one, so it stays chosen; the disabled one is refused); restart-only settings are
    // not applied.
    assert_eq!(reg.resolve("xts(aes)").unwrap().driver(), rung::XTS);
    assert_eq!(
        reg.explain("xts(aes)")
            .candidates
            .iter()
            .find(|c| c.driver == rung::XTS)
            .unwrap()
            .priority,
        10
    );
    assert!(reg.resolve(rung::CTR).is_err());
    let cur = reg.current_config();
    assert_eq!(cur.priority.get(rung::XTS), Some(&10));
    assert_eq!(cur.selftest.mode, cryptoreg::SelftestMode::Kat);
    assert!(cur.cpu.disable.is_empty());

    // The same configuration again changes nothing.
    let again = reg.apply_config(&new).unwrap();
    assert!(
        again.iter().all(|c| c.effect == ChangeEffect::NeedsRestart),
        "{again:?}"
    );

    // A runtime override still wins over the configuration, and the change says so.
    reg.set_priority(rung::XTS, 900).unwrap();
    let back = Config::parse(&common::kat_config(""), "back.toml").unwrap();
    let changes = reg.apply_config(&back).unwrap();
    let p = changes.iter().find(|c| c.driver == rung::XTS).unwrap();
    assert_eq!(p.effect, ChangeEffect::Shadowed);
    assert_eq!(reg.resolve("xts(aes)").unwrap().driver(), rung::XTS);
    assert!(reg.resolve(rung::CTR).is_ok(), "re-enabled by the reload");

    // An unknown driver refuses the whole configuration; nothing changes.
    let g = reg.generation();
    let bad = Config::parse(
        &rung::on_arch(
            "[selftest]\nmode = \"kat\"\n[priority]\n\"ctr-aes-aesni\" = 1\n\"no-such-driver\" = 3\n",
        ),
        "bad.toml",
    )
    .unwrap();
    let err = reg.apply_config(&bad).unwrap_err().to_string();
    assert!(
        err.contains("bad.toml, line 5") && err.contains("no-such-driver"),
        "{err}"
    );
    assert_eq!(reg.generation(), g);
    assert!(reg.current_config().priority.is_empty());
}

#[test]
fn prepare_builds_and_tests_instances_up_front() {
    let reg = kat("generic-x86_64");
    let names = ["xts(aes)", "ctr(aes)", "aes"];
    let before = reg.list().len();
    let served = reg.prepare(&names).unwrap();
    assert_eq!(served.len(), 3);
    assert!(served[0].is_instance(), "{}", served[0].driver());
    let list = reg.list();
    assert!(list.len() > before, "instances were built");
    for s in &served {
        let e = list.iter().find(|e| e.driver == s.driver()).unwrap();
        assert_eq!(e.state, "passed", "{}", e.driver);
    }
    let err = reg.prepare(&["aes", "nonesuch(aes)"]).unwrap_err();
    assert!(err.to_string().contains("nonesuch"), "{err}");
}

#[test]
fn aliases_are_accepted_in_configuration_and_admin_operations() {
    let reg = common::boot(
        "[selftest]\nmode = \"kat\"\n[priority]\n\"xts-aes-vaes-avx512\" = 5\n\
         [disable]\ndrivers = [\"ctr-aes-vaes-avx512\"]\n",
        Some(rung::PRESET),
    );
    let list = reg.list();
    let xts = list
        .iter()
        .find(|e| e.driver == "xts-aes-vaes-avx10_512")
        .unwrap();
    assert_eq!(xts.priority, 5);
    let ctr = list
        .iter()
        .find(|e| e.driver == "ctr-aes-vaes-avx10_512")
        .unwrap();
    assert_eq!(ctr.state, "disabled");
    let c = reg
        .admin(&AdminOp::SetPriority("xts-aes-vaes-avx512".into(), 7))
        .unwrap();
    assert_eq!(c.driver, "xts-aes-vaes-avx10_512");
    assert!(reg
        .list()
        .iter()
        .any(|e| e.driver == "xts-aes-vaes-avx10_512" && e.priority == 7));
    // No registered driver carries an alias's name: an alias never hides a driver.
    for e in &list {
        assert!(
            cryptoreg::aliases::current_name(&e.driver).is_none(),
            "{}",
            e.driver
        );
    }
}

#[test]
fn counters_sum_per_handle_cells_and_survive_drops() {
    let reg = kat(rung::PRESET);
    let mut a = reg.alloc_skcipher(rung::XTS).unwrap();
    let mut b = reg.alloc_skcipher(rung::XTS).unwrap();
    a.set_key(&common::xts_key(1, 32)).unwrap();
    b.set_key(&common::xts_key(2, 32)).unwrap();
    let stat = |reg: &Registry| {
        reg.stats()
            .into_iter()
            .find(|s| s.driver == rung::XTS)
            .unwrap()
    };
    let s0 = stat(&reg);
    assert_eq!(
        (s0.allocations, s0.refcnt, s0.requests, s0.bytes),
        (2, 2, 0, 0)
    );
    for _ in 0..3 {
        xts_encrypt(&a, &[0u8; 100]);
    }
    xts_encrypt(&b, &[0u8; 64]);
    let mut segs = [vec![0u8; 20], vec![0u8; 12]];
    let mut refs: Vec<&mut [u8]> = segs.iter_mut().map(|v| v.as_mut_slice()).collect();
    b.encrypt_segments(&[1u8; 16], &mut refs).unwrap();
    let s1 = stat(&reg);
    assert_eq!((s1.requests, s1.bytes), (5, 300 + 64 + 32));
    assert_eq!(s1.state, "passed");
    assert_eq!(
        reg.list()
            .iter()
            .find(|e| e.driver == rung::XTS)
            .unwrap()
            .refcnt,
        2
    );
    drop(a);
    let s2 = stat(&reg);
    assert_eq!(
        (s2.allocations, s2.refcnt, s2.requests, s2.bytes),
        (2, 1, 5, 396)
    );
    drop(b);
    assert_eq!(stat(&reg).refcnt, 0);
    assert_eq!(stat(&reg).requests, 5);

    // AEAD and hash handles count too (AEAD: AAD + text; hash: every update).
    if let Ok(mut h) = reg.alloc_hash("sha256") {
        let mut out = vec![0u8; h.digest_size()];
        if h.is_keyed() {
            h.set_key(&[1u8; 16]).unwrap();
        }
        h.digest(&[0u8; 10], &mut out).unwrap();
        let mut r = h.init().unwrap();
        r.update(&[0u8; 5]);
        r.finup(&[0u8; 6], &mut out).unwrap();
        let d = h.driver_name().to_string();
        let s = reg.stats().into_iter().find(|s| s.driver == d).unwrap();
        assert_eq!((s.requests, s.bytes), (2, 21));
    }
}
