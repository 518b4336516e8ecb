//! Tests of the SIMD ChaCha20 / XChaCha20 drivers, written once in
//! `chacha20/simd_driver_tests.rs` (shared with arm64's `chacha20-neon`) and included here
//! after the x86 widths: the standards' vectors (RFC 8439,
//! draft-irtf-cfrg-xchacha-03, from the self-test data files), and differential tests
//! against `chacha20-generic` / `xchacha20-generic` over random lengths (favouring block
//! multiples and the lengths where the glue switches kernels), random counters (near the
//! 32-bit end too), in place and out of place, one-shot and streamed in random chunk
//! splits; the block-2^32 refusal; the CPU-token refusal. Only widths this CPU can run
//! are exercised; each test prints which ran and which were skipped (AVX-512 ones on a CPU
//! without it are covered by `cargo xtask emu`), and fails if none ran on a CPU with SSSE3.

use cryptoreg_registry::{Error, Feature, Features, HostFeatures, SkcipherImpl};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

use super::{ChaCha20Simd, Width, XChaCha20Simd};
use crate::chacha20::{ChaCha20Generic, XChaCha20Generic};
use crate::testing::vectors as test_vectors;
use crate::x86::token::{Avx2, Avx512, Ssse3};

const WIDTHS: [&str; 4] = ["ssse3", "avx2", "avx512vl", "avx512f"];

/// The width named `name`, if `host` proves its features.
fn width_on(host: &HostFeatures, name: &str) -> cryptoreg_registry::Result<Width> {
    Ok(match name {
        "ssse3" => Width::Ssse3(Ssse3::new(host, name)?),
        "avx2" => Width::Avx2(Avx2::new(host, name)?),
        "avx512vl" => Width::Avx512Vl(Avx512::new(host, name)?),
        _ => Width::Avx512F(Avx512::new(host, name)?),
    })
}

/// The widths this CPU runs, printed (the skipped ones named as skipped).
fn runnable(test: &str) -> Vec<(Width, &'static str)> {
    let host = HostFeatures::detect();
    let mut ran = Vec::new();
    for name in WIDTHS {
        match width_on(&host, name) {
            Ok(w) => ran.push((w, name)),
            Err(_) => {
                eprintln!("{test}: SKIPPED {name} (CPU lacks its features; see `cargo xtask emu`)")
            }
        }
    }
    eprintln!(
        "{test}: ran {:?}",
        ran.iter().map(|(_, n)| *n).collect::<Vec<_>>()
    );
    assert!(
        !ran.is_empty() || !std::is_x86_feature_detected!("ssse3"),
        "{test}: no width ran on a CPU with SSSE3"
    );
    ran
}

/// The features of width `name`'s token (for the masked-feature refusal test).
fn token_features(name: &str) -> &'static [Feature] {
    match name {
        "ssse3" => Ssse3::FEATURES,
        "avx2" => Avx2::FEATURES,
        _ => Avx512::FEATURES,
    }
}

include!("../simd_driver_tests.rs");

/// `write_state` (the assembly that writes the entries' state row by row) gives exactly
/// the words of the portable `init_state` for random keys, counters (the 32-bit ends
/// too) and nonces, and writes all 64 bytes (a poisoned buffer keeps no old word).
#[test]
fn write_state_is_init_state() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x5747_a7e5);
    for i in 0..1000 {
        let mut key = [0u8; 32];
        let mut nonce = [0u8; 12];
        rng.fill(&mut key[..]);
        rng.fill(&mut nonce[..]);
        let counter: u32 = match i {
            0 => 0,
            1 => u32::MAX,
            _ => rng.gen(),
        };
        let mut iv = [0u8; 16];
        iv[..4].copy_from_slice(&counter.to_le_bytes());
        iv[4..].copy_from_slice(&nonce);
        let mut s = [0xdead_beef_u32; 16];
        super::write_state(&mut s, &key, counter, &nonce);
        assert_eq!(s, crate::chacha20::init_state(&key, &iv), "case {i}");
    }
}
