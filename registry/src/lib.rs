//! # cryptoreg-registry
//!
//! The heart of cryptoreg, a user-space take on the Linux kernel crypto API: drivers
//! register an [`AlgDef`] with `inventory::submit!` under an *algorithm name*
//! (`xts(aes)`) and a unique *driver name* (`xts-aes-aesni`) with a priority; templates
//! ([`Template`]) build instances such as `xts(ecb(aes-generic))` on demand. At boot the
//! [`Registry`] reads the CPU ([`CpuInfo`]), applies the CPU-model policy and the
//! [`Config`], self-tests every driver through an installed [`SelfTester`], and then
//! resolves names to the highest-priority driver that the CPU supports and that passed.
//!
//! This crate knows no concrete algorithm: drivers live in `cryptoreg-algos`, vectors and
//! the test runner in `cryptoreg-selftest`, and the `cryptoreg` facade ties them together.
//!
//! ## Resolution rules
//!
//! * An exact driver name wins outright, whatever its priority (an operator pins a
//!   driver that way) — unless it is disabled, unsupported or failed.
//! * Otherwise, among entries with that algorithm name (and the template instance the
//!   name describes, if it is `tmpl(args)`), the highest effective priority among
//!   enabled, supported, passed entries wins; at a tie a concrete driver goes before an
//!   instance, then the driver name that sorts first.
//! * Template instances are the fallback: an instance of the name's own algorithm
//!   competes only when no concrete driver of it is usable, unless an operator gave that
//!   instance a priority of its own (then it competes on priority). Priority orders the
//!   concrete drivers; [`Registry::disable`] takes the last one out.
//! * Effective priority: runtime [`Registry::set_priority`] > configuration > CPU policy
//!   (zmm drivers on downclocking models get 1) > base. A template instance's base is
//!   derived from its children's effective priorities when it is built.
//! * If only failed drivers exist for a name, the answer is
//!   [`Error::SelfTestFailed`], never a silent fallback.

// Only `registry/fork.rs` (the fork handlers) may use `unsafe`.
#![deny(unsafe_code)]
// docs.rs builds with `--cfg docsrs` (see `[package.metadata.docs.rs]`): mark feature-gated items.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod affinity;
mod alg;
pub mod aliases;
mod arch;
pub mod common_names;
mod config;
mod cpu;
mod error;
mod features;
mod handle;
mod host;
mod inout;
pub mod names;
mod policy;
mod registry;
mod selftest_api;
mod stats;
mod sync;
mod test_host;
mod traits;
pub mod walk;

pub use alg::{AlgDef, AlgType, Builder, Child, Ctor, DriverInfo, Factory, Sizes, Template};
pub use arch::Arch;
pub use common_names::lookup_common;
pub use config::{
    Config, CpuConfig, DisableConfig, OnFailure, SelectionConfig, SelftestConfig, SelftestMode,
    SelftestWhen, CONFIG_ENV, DEFAULT_CONFIG, MAX_CALIBRATION_SIZE, MAX_FUZZ_ITERATIONS,
    MAX_RESCAN_SECS, MAX_TIMEOUT_SECS,
};
pub use cpu::decode_signature;
pub use cpu::{decode_midr, parse_cpuinfo_midr, ArmId, CpuInfo};
pub use error::{Error, KeyLengths, Result};
pub use features::{Feature, Features};
pub use handle::{Aead, Cipher, Hash, HashRequest, Skcipher};
pub use host::HostFeatures;
pub use inout::InOut;
pub use policy::{CpuPolicy, ModelRow, CPU_MODELS, ZMM_DEMOTED_PRIORITY};
pub use registry::{
    failure_cpu, AdminOp, BootOptions, Calibration, Candidate, Change, ChangeEffect, DriverReport,
    DriverStatsReport, Explanation, ListEntry, Measured, Registry, RescanDriver, RescanReport,
    SelftestReport, CALIBRATION_BUDGET, RESCAN_RANDOM_CASES,
};
pub use selftest_api::{SelfTester, Shard, TestHost, TestOutcome, TestParams};
pub use traits::{
    check_key_len, open_to_by_copy, seal_to_by_copy, AeadImpl, AeadLens, AeadState,
    BlockCipherImpl, ChainState, HashImpl, HashState, SkcipherImpl, AEAD_MAX_TAG_SIZE,
    AEAD_STATE_SIZE,
};
pub use walk::Direction;

/// Re-exported so driver crates submit records with the same `inventory` version.
pub use inventory;

/// The driver author's API, as the kernel's `include/crypto/internal/*.h`: what a crate
/// that implements algorithms needs (records, constructors, the CPU token, the traits a
/// driver implements, the walker, name rules) and a service never does. The crate root
/// keeps the user's API: boot, the registry, handles, configuration, errors, reports.
pub mod driver {
    pub use crate::alg::{
        AlgDef, AlgType, Builder, Child, Ctor, DriverInfo, Factory, Sizes, Template,
    };
    pub use crate::arch::Arch;
    pub use crate::error::{Error, Result};
    pub use crate::features::{Feature, Features};
    pub use crate::handle::{build_aead, build_cipher, build_hash, build_skcipher};
    pub use crate::host::HostFeatures;
    pub use crate::inout::InOut;
    pub use crate::names;
    pub use crate::selftest_api::{SelfTester, TestHost, TestOutcome, TestParams};
    pub use crate::traits::{
        check_key_len, open_to_by_copy, seal_to_by_copy, AeadImpl, AeadLens, AeadState,
        BlockCipherImpl, ChainState, HashImpl, HashState, SkcipherImpl, AEAD_MAX_TAG_SIZE,
        AEAD_STATE_SIZE,
    };
    pub use crate::walk;
    pub use inventory;
}
