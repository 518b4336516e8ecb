//! Every architecture's records are registered on every architecture, belong to exactly
//! one architecture, and are built only on their own.

use cryptoreg_registry::{
    inventory, AlgDef, Arch, Error, Factory, Feature, Features, HostFeatures,
};

fn records() -> Vec<&'static AlgDef> {
    inventory::iter::<AlgDef>.into_iter().collect()
}

#[test]
fn every_record_requires_its_own_architecture_only() {
    for def in records() {
        let needs = Features::of(def.required_features());
        let arches = needs.arches();
        // A portable driver requires nothing; a SIMD one names exactly one
        // architecture's features (`aes` alone, shared by both, is never enough).
        assert!(
            needs.is_empty() || arches.len() == 1,
            "{}: requires {needs} spans {arches:?}",
            def.driver()
        );
    }
}

#[test]
fn x86_64_records_register_on_every_architecture() {
    let x86: Vec<&str> = records()
        .into_iter()
        .filter(|d| Features::of(d.required_features()).arches() == [Arch::X86_64])
        .map(|d| d.driver())
        .collect();
    for driver in [
        "aes-aesni",
        "gcm-aes-aesni",
        "xts-aes-vaes-avx10_512",
        "ghash-vpclmulqdq-avx512",
        "chacha20-avx512f",
        "poly1305-avx512ifma",
        "rfc7539-chacha20-poly1305-avx2",
        "xchacha20poly1305-avx512ifma",
    ] {
        assert!(x86.contains(&driver), "{driver} missing from {x86:?}");
    }
    assert_eq!(x86.len(), 35, "{x86:?}");
}

#[test]
fn aarch64_records_register_on_every_architecture() {
    let mut arm: Vec<&str> = records()
        .into_iter()
        .filter(|d| Features::of(d.required_features()).arches() == [Arch::Aarch64])
        // The fault-injection build's test-only driver is registered on arm64 only.
        .filter(|d| !d.driver().ends_with("-faulty"))
        .map(|d| d.driver())
        .collect();
    arm.sort_unstable();
    assert_eq!(
        arm,
        [
            "aes-ce",
            "cbc-aes-ce",
            "chacha20-neon",
            "ctr-aes-ce",
            "ecb-aes-ce",
            "gcm-aes-ce",
            "ghash-ce",
            "xchacha20-neon",
            "xts-aes-ce",
        ]
    );
}

#[test]
fn other_architectures_constructors_refuse() {
    let host = HostFeatures::detect();
    let mut refused = 0;
    for def in records() {
        let arches = Features::of(def.required_features()).arches();
        if arches.is_empty() || Some(arches[0]) == Arch::HOST {
            continue;
        }
        let result = match def.to_info().factory() {
            Factory::Cipher(f) => f(&host).map(|_| ()),
            Factory::Skcipher(f) => f(&host).map(|_| ()),
            Factory::Aead(f) => f(&host).map(|_| ()),
            Factory::Hash(f) => f(&host).map(|_| ()),
            _ => panic!("{}: a factory kind this test does not know", def.driver()),
        };
        assert!(
            matches!(&result, Err(Error::Unsupported { driver, missing })
            if driver == def.driver()
                && missing.split(' ').any(|n| {
                    Feature::from_name(n).and_then(Feature::arch) == Some(arches[0])
                })),
            "{}: {result:?}",
            def.driver()
        );
        refused += 1;
    }
    // The x86-64 drivers are all foreign on arm64, the arm64 ones on x86-64.
    if cfg!(target_arch = "aarch64") {
        assert_eq!(refused, 35);
    } else if cfg!(target_arch = "x86_64") {
        assert_eq!(refused, 9);
    }
}
