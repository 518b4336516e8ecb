//! `gcm(aes)` and `rfc4106(gcm(aes))` through the facade: the names resolve (to a template
//! instance that passed its self-test when no concrete driver beats it), the generic
//! reference resolves under both of its spellings, and every `gcm(aes)` driver the
//! registry lists — concrete or instance — refuses the same requests: tag sizes other
//! than 4, 8 and 12..=16, and text over SP 800-38D's 2^32 - 2 blocks, the latter in
//! `start`, before any byte is written.
//!
//! Why the length limit is tested through the driver's `start`: a real request over the
//! limit needs 64 GiB of text, and the handle has no way to claim a length it does not
//! hold (its pieces are real slices). Every handle entry point calls `start` with the
//! request's true lengths before it moves a byte (`AeadImpl::seal`/`open` defaults, the
//! walker), so `start` refusing is what refuses the request; the unit tests of
//! `aes::gcm_rules` and of the templates check the same bound on both sides.

mod common;

use cryptoreg::driver::{AeadImpl, AeadLens, AeadState, Factory, HostFeatures};
use cryptoreg::{Error, Registry};

/// The most text SP 800-38D allows in one GCM request: 2^32 - 2 blocks.
const MAX_TEXT: usize = ((1usize << 32) - 2) * 16;

/// Resolves the spellings a user may ask for, so their instances are built and tested,
/// and returns every `gcm(aes)` driver then listed that passed its self-test.
fn gcm_drivers(reg: &Registry) -> Vec<String> {
    for name in [
        "gcm(aes)",
        "gcm(aes-generic)",
        "gcm_base(ctr(aes-generic),ghash-generic)",
        "rfc4106(gcm(aes))",
    ] {
        reg.resolve(name)
            .unwrap_or_else(|e| panic!("{name} does not resolve: {e}"));
    }
    let drivers: Vec<String> = reg
        .list()
        .into_iter()
        .filter(|e| e.name == "gcm(aes)" && e.state == "passed")
        .map(|e| e.driver)
        .collect();
    assert!(
        drivers.contains(&"gcm_base(ctr(aes-generic),ghash-generic)".to_string()),
        "{drivers:?}"
    );
    drivers
}

fn unkeyed(reg: &Registry, driver: &str) -> Box<dyn AeadImpl> {
    let info = reg.resolve(driver).unwrap();
    assert_eq!(info.driver(), driver);
    let Factory::Aead(make) = info.factory() else {
        panic!("{driver} is not an AEAD");
    };
    make(&HostFeatures::detect()).unwrap()
}

#[test]
fn gcm_and_rfc4106_resolve_to_tested_drivers() {
    let reg = common::boot("", None);
    let gcm = reg.resolve("gcm(aes)").unwrap();
    assert_eq!(gcm.name(), "gcm(aes)");
    // The reference, by the name build_generic_driver_name gives and by the name the
    // vector file gives: the same all-generic instance.
    for name in [
        "gcm(aes-generic)",
        "gcm_base(ctr(aes-generic),ghash-generic)",
    ] {
        let r = reg.resolve(name).unwrap();
        assert_eq!(
            r.driver(),
            "gcm_base(ctr(aes-generic),ghash-generic)",
            "{name}"
        );
        assert_eq!((r.name(), r.base_priority()), ("gcm(aes)", 100));
    }
    let esp = reg.resolve("rfc4106(gcm(aes))").unwrap();
    assert_eq!(esp.name(), "rfc4106(gcm(aes))");
    assert_eq!(esp.driver(), format!("rfc4106({})", gcm.driver()));
    assert_eq!(
        reg.resolve("rfc4106(gcm(aes-generic))").unwrap().driver(),
        "rfc4106(gcm_base(ctr(aes-generic),ghash-generic))"
    );
    for e in reg.list() {
        // The fault-injection build's wrong driver fails by design (tests/fault_injection.rs).
        if e.driver == "gcm-aes-faulty" {
            assert_eq!(e.state, "failed");
            continue;
        }
        if e.name == "gcm(aes)" || e.name == "rfc4106(gcm(aes))" {
            // A template instance that resolution built as a candidate but did not choose
            // (a concrete driver won at equal priority) is tested only when requested.
            let chosen = e.driver == gcm.driver() || e.driver == esp.driver();
            let instance_not_chosen = e.driver.contains('(') && !chosen;
            assert!(
                matches!(e.state, "passed" | "unsupported")
                    || (instance_not_chosen && e.state == "untested"),
                "{}: {} {:?}",
                e.driver,
                e.state,
                e.failures
            );
            if e.state == "passed" {
                assert!(e.tests > 100, "{} ran {} checks", e.driver, e.tests);
            }
        }
    }

    // A handle over the chosen driver seals and opens, and refuses a forgery.
    let mut h = reg.alloc_aead("gcm(aes)").unwrap();
    h.set_key(&common::bytes(1, 32)).unwrap();
    let nonce = common::bytes(2, 12);
    let pt = common::bytes(3, 1000);
    let mut data = pt.clone();
    let mut tag = [0u8; 16];
    h.seal(&nonce, b"header", &mut data, &mut tag).unwrap();
    assert_ne!(data, pt);
    let mut forged = data.clone();
    forged[999] ^= 1;
    assert!(matches!(
        h.open(&nonce, b"header", &mut forged, &tag),
        Err(Error::BadMessage)
    ));
    assert!(forged.iter().all(|&b| b == 0));
    h.open(&nonce, b"header", &mut data, &tag).unwrap();
    assert_eq!(data, pt);
}

#[test]
fn every_gcm_driver_refuses_the_same_tag_sizes_and_lengths() {
    let reg = common::boot("", None);
    for driver in gcm_drivers(&reg) {
        let mut h = reg.alloc_aead(&driver).unwrap();
        let ok: Vec<usize> = (0..=17).filter(|&n| h.set_authsize(n).is_ok()).collect();
        assert_eq!(ok, [4, 8, 12, 13, 14, 15, 16], "{driver}");
        assert_eq!(h.nonce_size(), 12, "{driver}");

        let mut imp = unkeyed(&reg, &driver);
        imp.set_key(&[7; 16]).unwrap();
        let lens = |text| AeadLens {
            aad: 13,
            text,
            authsize: 16,
        };
        let mut state = AeadState::new();
        imp.start(&mut state, &[1; 12], lens(MAX_TEXT))
            .unwrap_or_else(|e| panic!("{driver}: the largest request is allowed: {e}"));
        for text in [MAX_TEXT + 1, MAX_TEXT + 16, usize::MAX / 2] {
            let mut state = AeadState::new();
            let r = imp.start(&mut state, &[1; 12], lens(text));
            assert!(
                matches!(r, Err(Error::InvalidLength { .. })),
                "{driver}: {text} bytes: {r:?}"
            );
        }
        h.set_key(&[7; 32]).unwrap();
        h.set_authsize(16).unwrap();
        for n in [0, 8, 11, 13, 16] {
            let r = h.seal(&vec![0; n], &[], &mut [0u8; 4], &mut [0u8; 16]);
            assert!(
                matches!(r, Err(Error::InvalidIvLength { .. })),
                "{driver}: nonce {n}: {r:?}"
            );
        }
    }
}

#[test]
fn rfc4106_takes_salted_keys_esp_aad_and_icv_sizes() {
    let reg = common::boot("", None);
    let mut h = reg.alloc_aead("rfc4106(gcm(aes))").unwrap();
    assert_eq!(h.nonce_size(), 8);
    for len in [16, 24, 32] {
        assert!(matches!(
            h.set_key(&vec![5; len]),
            Err(Error::InvalidKeyLength { .. })
        ));
    }
    h.set_key(&common::bytes(9, 20)).unwrap();
    let ok: Vec<usize> = (0..=17).filter(|&n| h.set_authsize(n).is_ok()).collect();
    assert_eq!(ok, [8, 12, 16]);
    h.set_authsize(16).unwrap();
    let mut data = common::bytes(4, 64);
    let before = data.clone();
    let mut tag = [0u8; 16];
    // The IV repeated after SPI || seq (the kernel's layout) is not this API's AAD.
    let r = h.seal(&[3; 8], &[0; 16], &mut data, &mut tag);
    assert!(matches!(r, Err(Error::InvalidLength { .. })), "{r:?}");
    assert_eq!(data, before);
    h.seal(&[3; 8], &[0; 8], &mut data, &mut tag).unwrap();
    h.open(&[3; 8], &[0; 8], &mut data, &tag).unwrap();
    assert_eq!(data, before);
}

#[test]
fn counter_nonces_seal_distinct_messages() {
    let reg = common::boot("[selftest]\nmode = \"kat\"\n", None);
    if cfg!(cryptoreg_fault_injection) {
        reg.disable("gcm-aes-faulty").unwrap();
    }
    let mut h = reg.alloc_aead("gcm(aes)").unwrap();
    h.set_key(&common::bytes(5, 16)).unwrap();
    let nonces = cryptoreg::nonce::CounterNonce::new([0, 0, 0, 1]);
    let mut seen = Vec::new();
    for _ in 0..3 {
        let nonce = nonces.next_nonce().unwrap();
        let mut data = *b"same plaintext each time";
        let mut tag = [0u8; 16];
        h.seal(&nonce, &[], &mut data, &mut tag).unwrap();
        assert!(!seen.contains(&data), "a nonce was reused");
        seen.push(data);
        h.open(&nonce, &[], &mut data, &tag).unwrap();
        assert_eq!(&data, b"same plaintext each time");
    }
}
