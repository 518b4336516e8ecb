//! The families of algorithms as features (`aes`, `chacha`): a build with one family
//! registers exactly that family's drivers and templates, its generic references among
//! them, and boots with every driver it can run here passing its full self-test. `cargo
//! xtask test` runs this file on the smallest sets, `--no-default-features --features aes`
//! and `--no-default-features --features chacha`, besides the default build.

mod common;

use cryptoreg::{Config, Error, Registry};

/// The algorithm names of each family (concrete drivers, not template instances).
const AES: &[&str] = &[
    "aes", "cbc(aes)", "ctr(aes)", "ecb(aes)", "gcm(aes)", "ghash", "xts(aes)",
];
const CHACHA: &[&str] = &[
    "chacha20",
    "poly1305",
    "rfc7539(chacha20,poly1305)",
    "xchacha20",
    "xchacha20poly1305",
];
const AES_TEMPLATES: &[&str] = &["cbc", "ctr", "ecb", "gcm", "gcm_base", "rfc4106", "xts"];
const CHACHA_TEMPLATES: &[&str] = &["rfc7539", "rfc7539esp"];

fn boot() -> Registry {
    cryptoreg::boot(Config::load(None).unwrap(), None).unwrap()
}

fn expected(with: bool, names: &[&'static str]) -> Vec<&'static str> {
    if with {
        names.to_vec()
    } else {
        Vec::new()
    }
}

#[test]
fn a_build_registers_exactly_its_families() {
    let reg = boot();
    let mut want: Vec<&str> = expected(cfg!(feature = "aes"), AES);
    want.extend(expected(cfg!(feature = "chacha"), CHACHA));
    want.sort();
    assert_eq!(reg.algorithm_names(), want);

    let mut templates: Vec<&str> = expected(cfg!(feature = "aes"), AES_TEMPLATES);
    templates.extend(expected(cfg!(feature = "chacha"), CHACHA_TEMPLATES));
    templates.sort();
    let mut got = reg.template_names();
    got.sort();
    assert_eq!(got, templates);
}

#[test]
fn every_family_built_boots_with_its_references_and_serves_its_names() {
    let reg = boot();
    let report = reg.selftest_report();
    // The fault-injection build (`--cfg cryptoreg_fault_injection`) adds drivers that
    // exist to fail; every other driver must pass there too.
    let injected = |d: &str| common::is_test_only(d);
    let failed: Vec<_> = report
        .drivers
        .iter()
        .filter(|d| d.state == "failed" && !injected(&d.driver))
        .collect();
    if cfg!(all(cryptoreg_fault_injection, feature = "aes")) {
        for d in ["xts-aes-faulty", "gcm-aes-faulty", "ctr-aes-faulty-cpu"] {
            let row = report.drivers.iter().find(|r| r.driver == d);
            assert_eq!(row.map(|r| r.state), Some("failed"), "{d}: {row:?}");
        }
    }
    assert!(failed.is_empty(), "{failed:?}");
    let names = reg.algorithm_names();
    let generics = [
        ("aes-generic", cfg!(feature = "aes")),
        ("ghash-generic", cfg!(feature = "aes")),
        ("chacha20-generic", cfg!(feature = "chacha")),
        ("poly1305-generic", cfg!(feature = "chacha")),
    ];
    for (generic, family) in generics {
        let built = reg.list().iter().any(|e| e.driver == generic);
        assert_eq!(built, family, "{generic}");
    }

    let mut gcm = reg.alloc_aead("gcm(aes)");
    let mut esp = reg.alloc_aead("rfc4106(gcm(aes))");
    if cfg!(feature = "aes") {
        let g = gcm.as_mut().unwrap();
        g.set_key(&[1u8; 16]).unwrap();
        let mut text = *b"sixteen byte msg";
        let mut tag = [0u8; 16];
        g.seal(&[2u8; 12], b"", &mut text, &mut tag).unwrap();
        assert_ne!(&text, b"sixteen byte msg");
        g.open(&[2u8; 12], b"", &mut text, &tag).unwrap();
        assert_eq!(&text, b"sixteen byte msg");
        esp.as_mut().unwrap().set_key(&[1u8; 20]).unwrap();
        assert!(names.iter().any(|n| n == "xts(aes)"));
    } else {
        assert!(matches!(gcm, Err(Error::NotFound(_))), "{:?}", gcm.err());
        assert!(matches!(esp, Err(Error::NotFound(_))), "{:?}", esp.err());
    }

    let mut cp = reg.alloc_aead("rfc7539(chacha20,poly1305)");
    if cfg!(feature = "chacha") {
        let c = cp.as_mut().unwrap();
        c.set_key(&[3u8; 32]).unwrap();
        let mut text = [7u8; 32];
        let mut tag = [0u8; 16];
        c.seal(&[4u8; 12], b"aad", &mut text, &mut tag).unwrap();
        assert_ne!(text, [7u8; 32]);
        c.open(&[4u8; 12], b"aad", &mut text, &tag).unwrap();
        assert_eq!(text, [7u8; 32]);
        reg.alloc_aead("rfc7539esp(chacha20,poly1305)").unwrap();
    } else {
        assert!(matches!(cp, Err(Error::NotFound(_))), "{:?}", cp.err());
    }
}
