//! Tests of `chacha20-neon` / `xchacha20-neon`: the x86 SIMD drivers' tests, written once
//! in `chacha20/simd_driver_tests.rs` and included here after the one width of arm64
//! (the standards' vectors, differential tests against the generic drivers, the
//! block-2^32 refusals, the CPU-token refusal).

use cryptoreg_registry::{Error, Feature, Features, HostFeatures, SkcipherImpl};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

use super::{ChaCha20Neon as ChaCha20Simd, XChaCha20Neon as XChaCha20Simd};
use crate::aarch64::token::Neon;
use crate::chacha20::{ChaCha20Generic, XChaCha20Generic};
use crate::testing::vectors as test_vectors;

/// The one width on arm64.
type Width = Neon;

const WIDTHS: [&str; 1] = ["neon"];

/// The token, if `host` proves Advanced SIMD.
fn width_on(host: &HostFeatures, name: &str) -> cryptoreg_registry::Result<Width> {
    Neon::new(host, name)
}

/// The widths this CPU runs (Advanced SIMD is baseline on aarch64: never empty).
fn runnable(test: &str) -> Vec<(Width, &'static str)> {
    let host = HostFeatures::detect();
    let ran: Vec<(Width, &'static str)> = WIDTHS
        .iter()
        .filter_map(|&n| width_on(&host, n).ok().map(|w| (w, n)))
        .collect();
    eprintln!(
        "{test}: ran {:?}",
        ran.iter().map(|(_, n)| *n).collect::<Vec<_>>()
    );
    assert!(!ran.is_empty(), "{test}: no NEON on an aarch64 CPU");
    ran
}

/// The features of the NEON token (for the masked-feature refusal test).
fn token_features(_name: &str) -> &'static [Feature] {
    Neon::FEATURES
}

include!("../simd_driver_tests.rs");
