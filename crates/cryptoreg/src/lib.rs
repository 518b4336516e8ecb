//! # cryptoreg — the facade
//!
//! Links every driver (`cryptoreg-algos`) and the self-test runner (`cryptoreg-selftest`)
//! into the registry (`cryptoreg-registry`) and boots it. A process-wide default registry
//! works in the manner of rustls's `CryptoProvider`: install one with
//! [`install_default`], or let the first call of [`registry`] boot one from
//! `CRYPTOREG_CONFIG` or the embedded defaults; any code may also boot and hold its own.
//!
//! The project README follows; its example is compiled and run as a doc test. (The file
//! is `crates/cryptoreg/README.md`, a copy of the workspace's `README.md` inside this crate
//! so that it packages; `cargo xtask ci` fails unless the two are identical, and
//! `cargo xtask sync` rewrites the copy.)
#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
// docs.rs builds with `--cfg docsrs` (see `[package.metadata.docs.rs]`): mark feature-gated items.
#![cfg_attr(docsrs, feature(doc_cfg))]

use std::sync::Arc;

use once_cell::sync::OnceCell;

// `inventory` only collects from crates that something names: this line links every
// driver into any binary that uses the facade.
use cryptoreg_algos as _;

#[cfg(all(unix, feature = "control"))]
#[cfg_attr(docsrs, doc(cfg(all(unix, feature = "control"))))]
pub mod control;

#[cfg(feature = "rustcrypto")]
pub mod rustcrypto;

// The user's API, as the kernel's `include/crypto/skcipher.h`: boot, the registry, the
// handles, configuration, the CPU identity, errors and reports. Nothing a driver author
// needs (records, constructors, traits, the walker) is at the root: that is `driver`.
pub use cryptoreg_registry::{aliases, common_names, lookup_common};
pub use cryptoreg_registry::{AdminOp, Change, ChangeEffect, DriverStatsReport};
pub use cryptoreg_registry::{
    Aead, AlgType, Arch, Candidate, Cipher, Config, CpuConfig, CpuInfo, Direction, DisableConfig,
    DriverInfo, DriverReport, Error, Explanation, Feature, Features, Hash, HashRequest, KeyLengths,
    ListEntry, ModelRow, OnFailure, Registry, Result, SelftestConfig, SelftestMode, SelftestReport,
    Skcipher, TestOutcome, TestParams, CONFIG_ENV, DEFAULT_CONFIG, ZMM_DEMOTED_PRIORITY,
};

/// The driver author's API, as the kernel's `include/crypto/internal/*.h`: the static
/// records and their const constructor ([`driver::AlgDef`]), templates, the CPU-feature
/// token every constructor checks ([`driver::HostFeatures`]), the traits a driver
/// implements, the segment walker, the name rules, the self-test contract, and
/// [`driver::BootOptions`] for booting with a runner of one's own. A service never needs
/// it; a crate that adds algorithms does.
///
/// None of it is at the crate root:
///
/// ```compile_fail
/// use cryptoreg::AlgDef; // error: the record type lives in `cryptoreg::driver`
/// ```
///
/// ```
/// use cryptoreg::driver::{AlgDef, HostFeatures};
/// let _token = HostFeatures::detect();
/// assert!(cryptoreg::driver::inventory::iter::<AlgDef>.into_iter().count() > 0);
/// ```
///
/// Handles built outside the registry (not counted, no generation, no self-test gate)
/// belong here too: [`driver::build_aead`] and its siblings, never a constructor at the
/// root. Their token decides what the driver may execute: [`Registry::host_token`]
/// carries the operator's `[cpu] disable` mask, [`driver::HostFeatures::detect`] ignores
/// it. With the registry's token a masked driver is refused:
///
/// ```
/// use std::sync::Arc;
/// use cryptoreg::driver::{build_aead, inventory, AlgDef};
/// use cryptoreg::{AlgType, Config, Error};
/// // A SIMD AEAD driver of this architecture, and a configuration masking its features.
/// let info = inventory::iter::<AlgDef>
///     .into_iter()
///     .map(AlgDef::to_info)
///     .find(|i| i.alg_type() == AlgType::Aead && !i.requires().is_empty())
///     .expect("x86-64 and arm64 have SIMD AEAD drivers");
/// let masked = info.requires().names().join("\", \"");
/// let config = Config::parse(&format!("[cpu]\ndisable = [\"{masked}\"]\n"), "doc")?;
/// let reg = cryptoreg::boot(config, None)?;
/// let built = build_aead(Arc::new(info), &reg.host_token());
/// assert!(matches!(built, Err(Error::Unsupported { .. })));
/// # Ok::<(), cryptoreg::Error>(())
/// ```
///
/// ```compile_fail
/// // error: building outside the registry is the driver API's (`driver::build_aead`)
/// let _ = cryptoreg::Aead::from_info;
/// ```
pub mod driver {
    pub use cryptoreg_registry::driver::*;
    pub use cryptoreg_registry::{BootOptions, CpuPolicy, CPU_MODELS};
}

/// Nonces for callers who do not manage them: SP 800-38D's deterministic counter
/// construction for `gcm(aes)`, and what random nonces allow per key.
pub mod nonce;

// Only under `RUSTFLAGS="--cfg cryptoreg_fault_injection"`, never a Cargo feature: a
// feature unifies across the dependency graph, so any crate of a service's build could
// switch this priority-10000 broken driver on for the whole service.
#[cfg(cryptoreg_fault_injection)]
mod fault_injection;

/// Boots a registry over every linked driver with the self-test runner installed.
/// `cpu = None` plans for this machine; a preset plans for (and simulates) another CPU.
pub fn boot(config: Config, cpu: Option<CpuInfo>) -> Result<Registry> {
    Registry::boot(driver::BootOptions {
        cpu,
        config,
        tester: Some(cryptoreg_selftest::tester()),
    })
}

static DEFAULT: OnceCell<Arc<Registry>> = OnceCell::new();

/// Installs `registry` as the process default. Fails (returning it) if one is already
/// installed, whether explicitly or by a first use of [`registry`].
pub fn install_default(registry: Arc<Registry>) -> core::result::Result<(), Arc<Registry>> {
    DEFAULT.set(registry)
}

/// The process default registry, booted on first use from `CRYPTOREG_CONFIG` or the
/// embedded configuration when none was installed.
pub fn registry() -> Result<Arc<Registry>> {
    DEFAULT
        .get_or_try_init(|| Ok(Arc::new(boot(Config::load(None)?, None)?)))
        .cloned()
}
