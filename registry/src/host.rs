//! [`HostFeatures`]: the CPU-feature token every driver constructor receives.
//!
//! Soundness is per driver, not per registry: a SIMD driver must prove that the CPU has
//! its instructions when it is built, whatever path built it (the registry, the self-test
//! runner, a test, a user holding a [`DriverInfo`](crate::DriverInfo)). The proof is this
//! token, as ring's `cpu::intel` feature sets and RustCrypto's `InitToken` are:
//!
//! * the only way to make one is [`HostFeatures::detect`], which reads this machine;
//! * the only ways to change one remove features ([`without`](HostFeatures::without),
//!   [`restricted_to`](HostFeatures::restricted_to)): an operator's `[cpu] disable` mask
//!   or a simulated CPU (`--cpu zen3`) can narrow it, nothing can widen it.
//!
//! So a driver that checks `host.require(..)` in its constructor can never run an
//! instruction the CPU lacks, and the operator's mask holds for every path through the
//! registry, because the registry builds every driver with its masked token.

use std::sync::OnceLock;

use crate::error::{Error, Result};
use crate::features::{Feature, Features};

/// The features this process may execute: detected on this machine, minus any mask.
/// Cannot be forged: see the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostFeatures {
    features: Features,
}

impl HostFeatures {
    /// This machine's features (detected once per process, then cached). It ignores any
    /// operator mask (`[cpu] disable`): a handle built with it may use every instruction
    /// the CPU has. [`Registry::host_token`](crate::Registry::host_token) is the token that
    /// carries the mask.
    pub fn detect() -> HostFeatures {
        static DETECTED: OnceLock<Features> = OnceLock::new();
        HostFeatures {
            features: *DETECTED.get_or_init(crate::cpu::native_features),
        }
    }

    /// The same token with `mask` removed (`[cpu] disable`).
    #[must_use]
    pub fn without(self, mask: Features) -> HostFeatures {
        HostFeatures {
            features: self.features.minus(mask),
        }
    }

    /// The same token limited to `planned` (a simulated CPU identity): a feature stays
    /// only if this machine has it *and* the plan does.
    #[must_use]
    pub fn restricted_to(self, planned: Features) -> HostFeatures {
        HostFeatures {
            features: self.features.intersect(planned),
        }
    }

    /// The features, as a plain set (for reports; a set is not a token).
    pub fn features(&self) -> Features {
        self.features
    }

    /// Whether every feature of `needed` is present.
    pub fn has_all(&self, needed: &[Feature]) -> bool {
        Features::of(needed).minus(self.features).is_empty()
    }

    /// `Ok` if every feature of `needed` is present, else [`Error::Unsupported`] naming
    /// `driver` and the missing features. SIMD driver constructors call this first.
    pub fn require(&self, driver: &str, needed: &[Feature]) -> Result<()> {
        self.require_set(driver, Features::of(needed))
    }

    /// [`require`](Self::require) for a feature set.
    pub fn require_set(&self, driver: &str, needed: Features) -> Result<()> {
        let missing = needed.minus(self.features);
        if missing.is_empty() {
            Ok(())
        } else {
            Err(Error::Unsupported {
                driver: driver.to_string(),
                missing: missing.to_string(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_only_remove() {
        let host = HostFeatures::detect();
        let masked = host.without(Features::of(&[Feature::Sse2]));
        assert!(!masked.features().has(Feature::Sse2));
        assert!(masked.require("d", &[Feature::Sse2]).is_err());
        // Restricting to "everything" cannot add what the host lacks.
        let all: Features = Feature::ALL.iter().copied().collect();
        assert_eq!(host.restricted_to(all), host);
        assert_eq!(masked.restricted_to(all), masked);
        assert_eq!(
            host.restricted_to(Features::EMPTY).features(),
            Features::EMPTY
        );
    }

    #[test]
    fn require_names_the_missing_features() {
        let none = HostFeatures::detect().restricted_to(Features::EMPTY);
        let err = none
            .require("x-avx", &[Feature::Avx2, Feature::Aes])
            .unwrap_err();
        assert_eq!(
            err,
            Error::Unsupported {
                driver: "x-avx".into(),
                missing: "aes avx2".into()
            }
        );
        assert!(none.require("generic", &[]).is_ok());
    }
}
