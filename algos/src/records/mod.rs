//! The records of the architecture-specific drivers, compiled on every architecture.
//!
//! A driver record ([`AlgDef`](cryptoreg_registry::AlgDef): names, priority, required
//! features, sizes, flags) is data; only its constructor needs the architecture. So every
//! architecture's records register everywhere, and the registry lists them, plans them for
//! a simulated CPU of that architecture (`explain --cpu neoverse-n1` on x86-64 shows the
//! arm64 ladder), and accepts a configuration that names them, on any host. Off their
//! architecture the constructors refuse with [`Error::Unsupported`] ([`off_arch`]), and
//! the records can never be selected there anyway: every record `requires` at least one
//! feature of its own architecture ([`cryptoreg_registry::Feature::arch`]), which no CPU
//! of another one reports (tested in `tests`).
//!
//! The pattern, per architecture `A` (`x86_64`, `aarch64`):
//!
//! * `records/A.rs` (this directory, always compiled) holds the feature sets the tokens
//!   prove (`needs::...`, used by the `cpu_token!` of `A`'s arch module, so a token and its
//!   records share one list) and one `inventory::submit!` per driver, built with
//!   [`arch_ctor!`]: `arch_ctor!("A", Kind, "driver", needs::SET, path::to::ctor)` names the real
//!   constructor (a `pub(crate) fn(&HostFeatures) -> Result<Box<dyn ...>>` in the arch
//!   module) only under `#[cfg(target_arch = "A")]`, and [`off_arch`] elsewhere.
//! * The arch modules (`x86/`, `aes/aesni/`, ..., `aes/ce/`, `aarch64/`) stay behind their
//!   `#[cfg(target_arch)]`, hold the `unsafe` code and export the constructors; they
//!   submit no records themselves.

use cryptoreg_registry::{Arch, Error, Feature, HostFeatures};

pub(crate) mod aarch64;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) mod cpu_token;
pub(crate) mod x86_64;

/// Why a driver of architecture `arch` requiring `needs` cannot be built here: the
/// features `host` lacks, as every constructor names them (at least one always: no CPU
/// of this architecture reports another's features), else the architecture.
// Unused only while every record is of the build's own architecture.
#[allow(dead_code)]
pub(crate) fn off_arch(driver: &str, arch: Arch, host: &HostFeatures, needs: &[Feature]) -> Error {
    match host.require(driver, needs) {
        Err(e) => e,
        Ok(()) => Error::Unsupported {
            driver: driver.to_string(),
            missing: format!(
                "an {arch} CPU (this build is for {})",
                std::env::consts::ARCH
            ),
        },
    }
}

/// A [`Ctor`](cryptoreg_registry::Ctor) of kind `$kind` for a driver of architecture
/// `$arch` (a `target_arch` string literal) requiring `$needs`: `$ctor` on that
/// architecture, a constructor that refuses ([`off_arch`], naming the missing features)
/// on every other. `$ctor` is only named (and so only needs to
/// exist) on `$arch`.
macro_rules! arch_ctor {
    ("x86_64", $kind:ident, $driver:literal, $needs:expr, $($ctor:ident)::+) => {{
        #[cfg(target_arch = "x86_64")]
        let ctor = cryptoreg_registry::Ctor::$kind($($ctor)::+);
        #[cfg(not(target_arch = "x86_64"))]
        let ctor = cryptoreg_registry::Ctor::$kind(|host| {
            Err($crate::records::off_arch($driver, cryptoreg_registry::Arch::X86_64, host, $needs))
        });
        ctor
    }};
    // arm64 drivers (`aes::ce`, `ghash::ce`, `chacha20::neon`; records in
    // `records/aarch64.rs`) use this arm.
    ("aarch64", $kind:ident, $driver:literal, $needs:expr, $($ctor:ident)::+) => {{
        #[cfg(target_arch = "aarch64")]
        let ctor = cryptoreg_registry::Ctor::$kind($($ctor)::+);
        #[cfg(not(target_arch = "aarch64"))]
        let ctor = cryptoreg_registry::Ctor::$kind(|host| {
            Err($crate::records::off_arch($driver, cryptoreg_registry::Arch::Aarch64, host, $needs))
        });
        ctor
    }};
}
pub(crate) use arch_ctor;

#[cfg(test)]
mod table_tests;
#[cfg(test)]
mod tests;
