//! Every width against a naive bit loop on random inputs, and the two 64-bit paths against
//! each other.

use super::portable::*;
use super::Clmul;
use cryptoreg_registry::{Feature, Features, HostFeatures};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// Schoolbook carry-less product, bit by bit: the reference.
fn naive(a: u128, b: u128, bits: u32) -> u128 {
    let mut r = 0u128;
    for i in 0..bits {
        if (a >> i) & 1 == 1 {
            r ^= b << i;
        }
    }
    r
}

fn rng() -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(0x0063_6c6d_756c)
}

/// Random values with the edge cases (all ones, single bits) mixed in.
fn sample(rng: &mut ChaCha20Rng, i: usize) -> u64 {
    match i % 8 {
        0 => u64::MAX,
        1 => 1 << (i % 64),
        2 => 0,
        _ => rng.gen(),
    }
}

#[test]
fn clmul8_and_lanes_match_the_bit_loop() {
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            assert_eq!(
                u128::from(clmul8(a, b)),
                naive(a.into(), b.into(), 8),
                "{a} {b}"
            );
        }
    }
    let mut rng = rng();
    for i in 0..2000 {
        let (n, m) = (sample(&mut rng, i), sample(&mut rng, i + 3));
        let even = clmul_8x4_even(n, m);
        let odd = clmul_8x4_odd(n, m);
        for lane in 0..4 {
            let byte = |x: u64, k: u32| u128::from((x >> (16 * lane + k)) as u8);
            let lane16 = |x: u64| u128::from((x >> (16 * lane)) as u16);
            assert_eq!(lane16(even), naive(byte(n, 0), byte(m, 0), 8));
            assert_eq!(lane16(odd), naive(byte(n, 8), byte(m, 8), 8));
        }
    }
}

#[test]
fn clmul16_and_lanes_match_the_bit_loop() {
    let mut rng = rng();
    for i in 0..5000 {
        let (n, m) = (sample(&mut rng, i), sample(&mut rng, i + 5));
        assert_eq!(
            u128::from(clmul16(n as u16, m as u16)),
            naive(u128::from(n as u16), u128::from(m as u16), 16)
        );
        let even = clmul_16x2_even(n, m);
        let odd = clmul_16x2_odd(n, m);
        for lane in 0..2 {
            let half = |x: u64, k: u32| u128::from((x >> (32 * lane + k)) as u16);
            let lane32 = |x: u64| u128::from((x >> (32 * lane)) as u32);
            assert_eq!(lane32(even), naive(half(n, 0), half(m, 0), 16));
            assert_eq!(lane32(odd), naive(half(n, 16), half(m, 16), 16));
        }
    }
}

#[test]
fn clmul32_matches_the_bit_loop() {
    let mut rng = rng();
    for i in 0..5000 {
        let (n, m) = (sample(&mut rng, i) as u32, sample(&mut rng, i + 1) as u32);
        assert_eq!(u128::from(clmul32(n, m)), naive(n.into(), m.into(), 32));
    }
}

#[test]
fn clmul64_and_clmul128_match_the_bit_loop() {
    let mut rng = rng();
    for i in 0..5000 {
        let (n, m) = (sample(&mut rng, i), sample(&mut rng, i + 2));
        assert_eq!(clmul64(n, m), naive(n.into(), m.into(), 64), "{n:x} {m:x}");
        let (a, b): (u128, u128) = (rng.gen(), rng.gen());
        let (hi, lo) = clmul128(a, b);
        // The 256-bit reference in two halves: low parts of a times b, shifted.
        let mut want_lo = 0u128;
        let mut want_hi = 0u128;
        for k in 0..128 {
            if (a >> k) & 1 == 1 {
                want_lo ^= b << k;
                if k > 0 {
                    want_hi ^= b >> (128 - k);
                }
            }
        }
        assert_eq!((hi, lo), (want_hi, want_lo));
    }
    let ones = clmul64(u64::MAX, u64::MAX);
    assert_eq!(ones, naive(u64::MAX.into(), u64::MAX.into(), 64));
}

#[test]
fn portable_and_pclmul_agree() {
    let host = HostFeatures::detect();
    let picked = Clmul::new(&host);
    let portable = Clmul::portable();
    let expect_accel = cfg!(target_arch = "x86_64") && host.features().has(Feature::Pclmulqdq);
    assert_eq!(picked.is_accelerated(), expect_accel);
    let mut rng = rng();
    for i in 0..20000 {
        let (n, m) = (sample(&mut rng, i), sample(&mut rng, i + 7));
        assert_eq!(picked.mul64(n, m), portable.mul64(n, m), "{n:x} {m:x}");
    }
    // Masking the feature (as the operator's `cpu.disable` does) picks the portable path.
    let masked = host.without(Features::of(&[Feature::Pclmulqdq]));
    assert!(!Clmul::new(&masked).is_accelerated());
}
