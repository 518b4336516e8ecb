//! No safe code can run an instruction the CPU lacks: for every driver that needs CPU
//! features, and for each of those features in turn, every public way to build the
//! driver is refused with `Unsupported` once that feature is masked — through the
//! registry by algorithm name, by exact driver name and as a template child, and
//! outside the registry from its description with a narrowed token. A simulated CPU
//! can only remove features, never add one.

mod common;

use std::sync::Arc;

use cryptoreg::driver::{self, AlgDef, HostFeatures};
use cryptoreg::{AlgType, CpuInfo, DriverInfo, Error, Feature, Features, Registry};

/// Every registered concrete driver that needs at least one CPU feature.
fn simd_drivers() -> Vec<DriverInfo> {
    let drivers: Vec<DriverInfo> = cryptoreg::driver::inventory::iter::<AlgDef>
        .into_iter()
        .map(AlgDef::to_info)
        .filter(|i| !i.requires().is_empty())
        .collect();
    // The x86 ladder has AES-NI and VAES drivers on every x86 build: an empty list
    // would make every check below vacuous.
    #[cfg(target_arch = "x86_64")]
    assert!(
        drivers.len() >= 11,
        "expected the AES-NI and VAES drivers, got {}",
        drivers.len()
    );
    drivers
}

/// Builds a handle of the driver's type from its description, outside the registry.
fn build(info: &DriverInfo, host: &HostFeatures) -> cryptoreg::Result<()> {
    let info = Arc::new(info.clone());
    match info.alg_type() {
        AlgType::Cipher => driver::build_cipher(info, host).map(drop),
        AlgType::Skcipher => driver::build_skcipher(info, host).map(drop),
        AlgType::Aead => driver::build_aead(info, host).map(drop),
        AlgType::Hash => driver::build_hash(info, host).map(drop),
        other => panic!("no SIMD {other} drivers yet; extend this test"),
    }
}

/// Allocates a handle of the driver's type by its exact driver name.
fn alloc_by_name(reg: &Registry, info: &DriverInfo) -> cryptoreg::Result<()> {
    match info.alg_type() {
        AlgType::Cipher => reg.alloc_cipher(info.driver()).map(drop),
        AlgType::Aead => reg.alloc_aead(info.driver()).map(drop),
        AlgType::Hash => reg.alloc_hash(info.driver()).map(drop),
        _ => reg.alloc_skcipher(info.driver()).map(drop),
    }
}

fn assert_unsupported(r: cryptoreg::Result<()>, what: &str, missing: Feature) {
    match r {
        Err(Error::Unsupported { missing: m, .. }) => {
            assert!(m.contains(missing.name()), "{what}: refusal names {m:?}")
        }
        other => panic!("{what} with {missing} masked: expected Unsupported, got {other:?}"),
    }
}

#[test]
fn a_narrowed_token_refuses_every_simd_driver_outside_the_registry() {
    let host = HostFeatures::detect();
    for info in simd_drivers() {
        for f in info.requires().iter() {
            let masked = host.without(Features::of(&[f]));
            assert_unsupported(build(&info, &masked), info.driver(), f);
        }
    }
}

#[test]
fn a_configured_mask_refuses_every_simd_driver_through_the_registry() {
    for info in simd_drivers() {
        for f in info.requires().iter() {
            let reg = common::boot(
                &format!("[selftest]\nmode = \"kat\"\n[cpu]\ndisable = [\"{f}\"]\n"),
                None,
            );
            let what = format!("{} with [cpu] disable = {f}", info.driver());
            // By exact driver name: the pin does not get around the mask.
            let by_name = alloc_by_name(&reg, &info);
            assert_unsupported(by_name, &what, f);
            // By algorithm name: whatever is chosen does not need the masked feature.
            let chosen = reg.resolve(info.name()).expect("a generic fallback exists");
            assert!(
                !chosen.requires().has(f),
                "{what}: {} chosen for {}",
                chosen.driver(),
                info.name()
            );
            // The registry's own token lacks it, so the description cannot be built
            // with it either.
            assert_unsupported(build(&info, &reg.host_token()), &what, f);
        }
    }
}

/// Template instances pass the token down to their children: an instance built while
/// the feature was there cannot be instantiated with a token that lacks it.
#[test]
fn template_instances_refuse_a_child_whose_feature_is_masked() {
    let reg = common::boot("[selftest]\nmode = \"off\"\n", None);
    let host = HostFeatures::detect();
    let mut checked = 0;
    // The AES children of this architecture: AES-NI on x86-64, the Crypto Extensions on
    // arm64 (both need the shared `aes` feature).
    let instances = if cfg!(target_arch = "x86_64") {
        [
            "xts(ecb-aes-aesni)",
            "cbc(aes-aesni)",
            "ctr(aes-aesni)",
            "ecb(aes-aesni)",
        ]
    } else {
        [
            "xts(ecb-aes-ce)",
            "cbc(aes-ce)",
            "ctr(aes-ce)",
            "ecb(aes-ce)",
        ]
    };
    for (instance, child_feature) in instances.map(|i| (i, Feature::Aes)) {
        if !host.features().has(child_feature) {
            // Built only where the child runs: nothing to narrow here.
            assert!(reg.resolve(instance).is_err());
            continue;
        }
        let info = reg.resolve(instance).expect("instance builds");
        assert!(info.is_instance() && info.requires().has(child_feature));
        let masked = host.without(Features::of(&[child_feature]));
        assert_unsupported(build(&info, &masked), instance, child_feature);
        let masked_reg = common::boot(
            &format!("[selftest]\nmode = \"off\"\n[cpu]\ndisable = [\"{child_feature}\"]\n"),
            None,
        );
        assert_unsupported(
            masked_reg.alloc_skcipher(instance).map(drop),
            instance,
            child_feature,
        );
        checked += 1;
    }
    if host.features().has(Feature::Aes) {
        assert_eq!(checked, 4);
    }
}

/// A simulated CPU (`--cpu PRESET`) narrows the token to what both it and this machine
/// have: a preset listing more than the host never makes a driver buildable.
#[test]
fn a_simulated_cpu_only_removes_features() {
    let host = HostFeatures::detect();
    for name in CpuInfo::preset_names() {
        let preset = CpuInfo::preset(name).unwrap();
        let reg = cryptoreg::boot(
            cryptoreg::Config::parse("[selftest]\nmode = \"off\"\n", "t").unwrap(),
            Some(preset.clone()),
        )
        .unwrap();
        let token = reg.host_token().features();
        assert_eq!(
            token,
            host.features().intersect(preset.features),
            "{name}: the token is host ∩ preset"
        );
        for info in simd_drivers() {
            if info.requires().minus(token).is_empty() {
                continue;
            }
            let missing = info.requires().minus(token).iter().next().unwrap();
            assert_unsupported(build(&info, &reg.host_token()), info.driver(), missing);
            let alloc = alloc_by_name(&reg, &info);
            assert!(
                matches!(alloc, Err(Error::Unsupported { .. })),
                "{name}: {} handed out: {alloc:?}",
                info.driver()
            );
        }
    }
}
