//! # cryptoreg
//!
//! The Linux kernel crypto API's model in user space: a registry of implementations of
//! each algorithm (portable constant-time, AES-NI, VAES on ymm and zmm, AVX-512, IFMA,
//! arm64 Crypto Extensions and NEON), each self-tested on this machine against standard
//! vectors and the portable driver before first use, and the fastest that passed chosen
//! for the CPU at run time, by priority. An operator can see and change that choice while
//! the service runs (`cryptoctl`, the control socket, the configuration file).
//!
//! ```toml
//! [dependencies]
//! cryptoreg = "0.1"
//! ```
//!
//! Features: `control` (the control socket), `aes` and `chacha` (the two families of
//! algorithms, each with its generic references), all on by default; `rustcrypto` (the
//! RustCrypto trait adapters) and `getrandom` (with them, `Key::<Aes256Gcm>::generate()`
//! and `Nonce::generate()` from the OS). `default-features = false, features =
//! ["chacha"]` is the
//! smallest build.
//!
//! One request per handle type:
//!
//! ```
//! # fn main() -> Result<(), cryptoreg::Error> {
//! // Boots once per process: reads the CPU, applies policy and configuration
//! // (CRYPTOREG_CONFIG or the embedded defaults), self-tests every driver.
//! let reg = cryptoreg::registry()?;
//!
//! // Skcipher: modes and stream ciphers (xts(aes), ctr(aes), cbc(aes), chacha20).
//! let mut xts = reg.alloc_skcipher("xts(aes)")?;
//! xts.set_key(&(0u8..64).collect::<Vec<u8>>())?; // two AES-256 keys
//! let mut sector = [0u8; 4096];
//! xts.encrypt_in_place(&7u128.to_le_bytes(), &mut sector)?; // tweak: sector number
//!
//! // Aead: a detached tag (gcm(aes), rfc7539(chacha20,poly1305), rfc4106(gcm(aes))).
//! let mut gcm = reg.alloc_aead("gcm(aes)")?;
//! gcm.set_key(&[0x22; 32])?;
//! let nonce = [1u8; 12]; // never twice under one key
//! let (mut msg, mut tag) = (*b"hello", [0u8; 16]);
//! gcm.seal(&nonce, b"header", &mut msg, &mut tag)?;
//! gcm.open(&nonce, b"header", &mut msg, &tag)?; // a bad tag is an error, and no plaintext
//! assert_eq!(&msg, b"hello");
//!
//! // Cipher: single blocks (aes).
//! let mut aes = reg.alloc_cipher("aes")?;
//! aes.set_key(&[0x33; 16])?;
//! let mut block = [0u8; 16];
//! aes.encrypt_blocks(&mut block)?;
//!
//! // Hash: digests and MACs (ghash, poly1305).
//! let mut mac = reg.alloc_hash("poly1305")?;
//! mac.set_key(&[0x44; 32])?;
//! let mut out = [0u8; 16];
//! mac.digest(b"message", &mut out)?;
//!
//! // Which driver this machine chose, and why: `reg.explain("gcm(aes)")`.
//! println!("{} {} {} {}", xts.driver_name(), gcm.driver_name(), aes.driver_name(), mac.driver_name());
//! # Ok(())
//! # }
//! ```
//!
//! A process-wide default registry works in the manner of rustls's `CryptoProvider`:
//! install one with [`install_default`], or let the first call of [`registry`] boot one;
//! any code may also boot and hold its own ([`boot`]). Handles are `Send + Sync + Clone`
//! and keep their driver whatever the operator changes later; `is_current()` says when a
//! new allocation might get another one.
//!
//! The long guide — concepts, configuration, self-tests, the operator's tools, every
//! driver and its speed, TLS and QUIC, the layout — is the project README (in this
//! package as `README.md`: <https://docs.rs/crate/cryptoreg/latest/source/README.md>).
//! Its examples are compiled and run as doc tests of this crate; the file is a copy of
//! the workspace's `README.md` that `cargo xtask ci` checks and `cargo xtask sync`
//! rewrites.
//!
//! ## Speed by message size
//!
//! `xts(aes)` with 2×256-bit keys on a Sapphire Rapids class Xeon (2 vCPUs), one line per
//! driver of the ladder, drawn by `cryptoctl speed 'xts(aes)' --key-bits 256 --plot
//! FILE` (the README's "A picture" section says how it was made):
//!
#![doc = include_str!("../docs/xts-aes-speed.svg")]
//!
#![forbid(unsafe_code)]
// docs.rs builds with `--cfg docsrs` (see `[package.metadata.docs.rs]`): mark feature-gated items.
#![cfg_attr(docsrs, feature(doc_cfg))]

use std::sync::Arc;

use once_cell::sync::OnceCell;

// `inventory` only collects from crates that something names: this line links every
// driver into any binary that uses the facade.
use cryptoreg_algos as _;

// The README's examples, compiled and run as doc tests but not rendered (the crate page
// above is the short version). Its service example opens the control socket, so they
// need the `control` feature.
#[cfg(all(doctest, feature = "control"))]
#[doc = include_str!("../README.md")]
mod readme {}

#[cfg(all(unix, feature = "control"))]
#[cfg_attr(docsrs, doc(cfg(all(unix, feature = "control"))))]
pub mod control;

#[cfg(feature = "rustcrypto")]
pub mod rustcrypto;

// The user's API, as the kernel's `include/crypto/skcipher.h`: boot, the registry, the
// handles, configuration, the CPU identity, errors and reports. Nothing a driver author
// needs (records, constructors, traits, the walker) is at the root: that is `driver`.
pub use cryptoreg_registry::{affinity, aliases, common_names, lookup_common};
pub use cryptoreg_registry::{failure_cpu, AdminOp, Change, ChangeEffect, DriverStatsReport};
pub use cryptoreg_registry::{
    Aead, AlgType, Arch, Candidate, Cipher, Config, CpuConfig, CpuInfo, Direction, DisableConfig,
    DriverInfo, DriverReport, Error, Explanation, Feature, Features, Hash, HashRequest, KeyLengths,
    ListEntry, ModelRow, OnFailure, Registry, RescanDriver, RescanReport, Result, SelftestConfig,
    SelftestMode, SelftestReport, SelftestWhen, Shard, Skcipher, TestOutcome, TestParams,
    CONFIG_ENV, DEFAULT_CONFIG, RESCAN_RANDOM_CASES, ZMM_DEMOTED_PRIORITY,
};
pub use cryptoreg_registry::{Calibration, Measured, SelectionConfig, CALIBRATION_BUDGET};

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
// switch this priority-10000 broken driver on for the whole service. Its drivers are AES.
#[cfg(all(cryptoreg_fault_injection, feature = "aes"))]
pub mod fault_injection;

/// Boots a registry over every linked driver with the self-test runner installed.
/// `cpu = None` plans for this machine; a preset plans for (and simulates) another CPU.
pub fn boot(config: Config, cpu: Option<CpuInfo>) -> Result<Registry> {
    Registry::boot(driver::BootOptions {
        cpu,
        config,
        tester: Some(cryptoreg_selftest::tester()),
    })
}

/// The algorithm names the self-tests hold known answers for: every algorithm a request
/// can be served for, those only a template serves (`rfc4106(gcm(aes))`,
/// `rfc7539esp(chacha20,poly1305)`) included, since the gate passes no driver without
/// vectors. Some may have no driver in a build without their family.
pub fn algorithms_with_vectors() -> Vec<&'static str> {
    cryptoreg_selftest::algorithms_with_vectors()
}

static DEFAULT: OnceCell<Arc<Registry>> = OnceCell::new();

/// Installs `registry` as the process default. Fails (returning it) if one is already
/// installed, whether explicitly or by a first use of [`registry`]. Starts its
/// background re-verification when its configuration asks for one (`[selftest]
/// rescan_secs`, see [`Registry::start_rescan`]); a thread that cannot start is logged.
pub fn install_default(registry: Arc<Registry>) -> core::result::Result<(), Arc<Registry>> {
    DEFAULT.set(Arc::clone(&registry))?;
    start_rescan_logged(&registry);
    Ok(())
}

/// The process default registry, booted on first use from `CRYPTOREG_CONFIG` or the
/// embedded configuration when none was installed, with its background
/// re-verification started when the configuration asks for one.
pub fn registry() -> Result<Arc<Registry>> {
    DEFAULT
        .get_or_try_init(|| {
            let registry = Arc::new(boot(Config::load(None)?, None)?);
            start_rescan_logged(&registry);
            Ok(registry)
        })
        .cloned()
}

fn start_rescan_logged(registry: &Arc<Registry>) {
    if let Err(e) = registry.start_rescan() {
        tracing::error!(target: "cryptoreg::rescan", "{e}");
    }
}
