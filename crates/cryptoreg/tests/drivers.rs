//! The facade links every driver: `inventory` collects nothing from a crate that no code
//! names, so this test pins the exact list of concrete drivers and checks each one passed
//! its self-test on this machine.

mod common;

use cryptoreg::Feature;

/// Drivers of the registry foundation.
const FOUNDATION: &[&str] = &[
    "aes-aesni",
    "aes-generic",
    "cbc-aes-aesni",
    "ctr-aes-aesni",
    "ecb-aes-aesni",
    "xts-aes-aesni",
];

#[test]
fn every_expected_driver_is_registered() {
    let reg = common::boot("[selftest]\nmode = \"off\"\n", None);
    let mut concrete: Vec<String> = reg
        .list()
        .into_iter()
        .filter(|e| !e.instance)
        .map(|e| e.driver)
        .collect();
    concrete.sort();
    let mut want: Vec<&str> = FOUNDATION.to_vec();
    want.extend(VAES);
    want.extend(GHASH_GCM);
    want.extend(CHACHA_GENERIC);
    want.extend(CHACHA_SIMD);
    want.extend(POLY1305_SIMD);
    want.extend(ARM64);
    if cfg!(cryptoreg_fault_injection) {
        want.push("xts-aes-faulty");
        want.push("gcm-aes-faulty");
        want.push("ctr-aes-faulty-cpu");
        want.extend(common::OPT_IN_DRIVERS);
        if cfg!(target_arch = "aarch64") {
            want.push("gcm-aes-ce-faulty");
        }
    }
    want.sort();
    assert_eq!(concrete, want);
    let mut templates = reg.template_names();
    templates.sort();
    assert_eq!(
        templates,
        vec![
            "cbc",
            "ctr",
            "ecb",
            "gcm",
            "gcm_base",
            "rfc4106",
            "rfc7539",
            "rfc7539esp",
            "xts"
        ]
    );
}

#[test]
fn every_runnable_driver_passes_the_full_self_test() {
    let reg = common::boot("", None);
    let host = reg.host_features();
    for e in reg.list() {
        let runnable = e
            .requires
            .iter()
            .all(|r| host.has(Feature::from_name(r).unwrap()));
        if common::is_test_only(&e.driver) {
            // The fault-injection build's deliberately wrong drivers (tests/fault_injection.rs)
            // and the opt-in ones, which cannot even be built in a process that did not ask.
            assert_eq!(e.state, "failed", "{}", e.driver);
        } else if runnable {
            assert_eq!(e.state, "passed", "{}: {:?}", e.driver, e.failures);
            assert!(e.tests > 1, "{} ran {} checks", e.driver, e.tests);
        } else {
            assert_eq!(e.state, "unsupported", "{}", e.driver);
        }
    }
    // The foundation's drivers need only AES-NI, which every machine this project
    // targets has; the test says so loudly instead of passing vacuously.
    assert!(
        host.has(Feature::Aes),
        "this test expects a CPU with AES instructions (AES-NI, the arm64 Crypto Extensions)"
    );
    // The AES drivers of this architecture (AES-NI on x86-64, the Crypto Extensions on
    // arm64) and the generic ones.
    let native_aes: &[&str] = if cfg!(target_arch = "aarch64") {
        &[
            "aes-ce",
            "aes-generic",
            "cbc-aes-ce",
            "ctr-aes-ce",
            "ecb-aes-ce",
            "xts-aes-ce",
        ]
    } else {
        FOUNDATION
    };
    for d in native_aes.iter().chain(CHACHA_GENERIC) {
        let e = reg.list().into_iter().find(|e| e.driver == *d).unwrap();
        assert_eq!(e.state, "passed", "{d}");
    }
}

/// The GHASH and AES-GCM ladder (issue 8).
const GHASH_GCM: &[&str] = &[
    "gcm-aes-aesni",
    "gcm-aes-vaes-avx10_256",
    "gcm-aes-vaes-avx10_512",
    "gcm-aes-vaes-avx2",
    "ghash-clmulni",
    "ghash-generic",
    "ghash-vpclmulqdq-avx2",
    "ghash-vpclmulqdq-avx512",
];

/// The portable drivers of the ChaCha20 / Poly1305 ladder (issue 9).
const CHACHA_GENERIC: &[&str] = &[
    "chacha20-generic",
    "poly1305-generic",
    "xchacha20-generic",
    "xchacha20poly1305-generic",
];

/// The VAES ladder: XTS and CTR at three vector widths.
const VAES: &[&str] = &[
    "ctr-aes-vaes-avx10_256",
    "ctr-aes-vaes-avx10_512",
    "ctr-aes-vaes-avx2",
    "xts-aes-vaes-avx10_256",
    "xts-aes-vaes-avx10_512",
    "xts-aes-vaes-avx2",
];

/// The ChaCha20 / XChaCha20 SIMD ladder: four widths each.
const CHACHA_SIMD: &[&str] = &[
    "chacha20-avx2",
    "chacha20-avx512f",
    "chacha20-avx512vl",
    "chacha20-ssse3",
    "xchacha20-avx2",
    "xchacha20-avx512f",
    "xchacha20-avx512vl",
    "xchacha20-ssse3",
];

/// The Poly1305 SIMD drivers and the fused ChaCha20-Poly1305 ones, for `rfc7539` and
/// `xchacha20poly1305` (issue 9).
const POLY1305_SIMD: &[&str] = &[
    "poly1305-avx2",
    "poly1305-avx512",
    "poly1305-avx512ifma",
    "rfc7539-chacha20-poly1305-avx2",
    "rfc7539-chacha20-poly1305-avx512",
    "rfc7539-chacha20-poly1305-avx512ifma",
    "xchacha20poly1305-avx2",
    "xchacha20poly1305-avx512",
    "xchacha20poly1305-avx512ifma",
];

/// The arm64 drivers (issue 11): their records register on every architecture (only their
/// constructors are arm64-only), so an x86-64 registry lists them as unsupported.
const ARM64: &[&str] = &[
    "aes-ce",
    "cbc-aes-ce",
    "chacha20-neon",
    "ctr-aes-ce",
    "ecb-aes-ce",
    "gcm-aes-ce",
    "ghash-ce",
    "xchacha20-neon",
    "xts-aes-ce",
];
