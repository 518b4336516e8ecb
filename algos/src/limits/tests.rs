//! The gauge's arithmetic: the bodies hold the instructions the derivation counts, and
//! rates, cycles per byte and ratios come out as stated.

use super::*;

fn counts(l: Loop) -> Vec<(Class, usize)> {
    count(l.body()).into_iter().collect()
}

#[test]
fn the_bodies_count_as_derived() {
    use Class::*;
    // ChaCha20: 960 round operations, counter, 16 feed-forward adds, 16 XORs with the
    // input; 16 broadcasts and 16 input loads; 64 transpose shuffles; 16 stores.
    assert_eq!(
        counts(Loop::Chacha20Zmm),
        vec![
            (Alu, 960 + 1 + 16 + 16),
            (Shuffle, 64),
            (Load, 32),
            (Store, 16)
        ]
    );
    // Poly1305, two sums of 8 blocks: 18 products each, 21 ALU, 2 permutes, 2 loads.
    assert_eq!(
        counts(Loop::Poly1305Ifma),
        vec![(Ifma, 36), (Alu, 42), (Shuffle, 4), (Load, 4)]
    );
    assert_eq!(
        counts(Loop::ChaCha20Poly1305Zmm),
        vec![
            (Ifma, 144),
            (Alu, 993 + 168),
            (Shuffle, 64 + 16),
            (Load, 32 + 16),
            (Store, 16)
        ]
    );
    assert_eq!(
        counts(Loop::Ctr128Zmm),
        vec![(Aes, 80), (Alu, 16), (Load, 8), (Store, 8)]
    );
    assert_eq!(
        counts(Loop::Xts256Zmm),
        vec![
            (Aes, 112),
            (Clmul, 8),
            (Alu, 24),
            (Shuffle, 16),
            (Load, 8),
            (Store, 8)
        ]
    );
    assert_eq!(
        counts(Loop::Gcm128Zmm),
        vec![
            (Aes, 80),
            (Clmul, 36),
            (Alu, 44),
            (Shuffle, 8),
            (Load, 8),
            (Store, 8)
        ]
    );
    assert_eq!(counts(Loop::Gcm256Zmm)[0], (Aes, 112));
    // The VEX ymm kernels (no AVX-512: 16 registers, so some operands stay in memory).
    assert_eq!(
        counts(Loop::Ctr128Ymm),
        vec![(Aes, 80), (Alu, 16), (Load, 8), (Store, 8)]
    );
    // GCM on ymm, per 8 ymm: 8 counters (a memory step each); per ciphertext vector a
    // load, a byte swap (mask from memory), the power's load, three products (the halves'
    // power from memory), the halves' swap and
    // XOR and three XORs into the sums (the first vector: the running hash XORed in, its
    // products start the sums); the reduction: 2 XORs of the Karatsuba correction, per
    // fold a product, a swap and 2 XORs, the lanes' extract and XOR; 8 XORs with the
    // input and 8 stores.
    assert_eq!(
        counts(Loop::Gcm128Ymm),
        vec![
            (Aes, 80),
            (Clmul, 8 * 3 + 2),
            (Alu, 8 + 2 + 7 * 4 + 7 + 8),
            (Shuffle, 8 * 2 + 3),
            (Load, 8 + 8 * 4 + 2 + 8),
            (Store, 8)
        ]
    );
    assert_eq!(counts(Loop::Gcm256Ymm)[0], (Aes, 112));
    // ChaCha20 on ymm: 80 quarter rounds of 14 ALU operations (4 adds, 4 XORs, two
    // rotates of three) and 2 byte-shuffle rotates with their masks from memory; the
    // spilled state vector's 2 stores and 2 loads a double round; 16 broadcasts, the
    // counter, 16 feed-forward adds (from memory), 48 transpose shuffles, 16 XORs with
    // the input, 16 stores, and the spilled vector's trips around the feed-forward and
    // the transpose (whose last pair reads it twice from memory).
    assert_eq!(
        counts(Loop::Chacha20Ymm),
        vec![
            (Alu, 80 * 14 + 1 + 16 + 16),
            (Shuffle, 80 * 2 + 48),
            (Load, 16 + 1 + 80 * 2 + 10 * 2 + 17 + 2 + 1 + 16),
            (Store, 1 + 10 * 2 + 1 + 16)
        ]
    );
    // ChaCha20-Poly1305 on ymm: the ChaCha20 batch and 32 scalar Poly1305 blocks of 37
    // general-register instructions (2 with the message from memory).
    assert_eq!(
        counts(Loop::ChaCha20Poly1305Ymm),
        vec![
            (Alu, 80 * 14 + 1 + 16 + 16),
            (Shuffle, 80 * 2 + 48),
            (Load, 16 + 1 + 80 * 2 + 10 * 2 + 17 + 2 + 1 + 16 + 32 * 2),
            (Store, 1 + 10 * 2 + 1 + 16),
            (Scalar, 32 * 37)
        ]
    );
    assert_eq!(counts(Loop::ArxAvx2), vec![(Alu, 50)]);
    assert_eq!(Loop::ClockYmm.instructions(), 64);
    assert_eq!(counts(Loop::AesZmm), vec![(Aes, 12)]);
    assert_eq!(counts(Loop::ArxYmm), vec![(Alu, 36)]);
    assert_eq!(Loop::Clock.instructions(), 64);
}

#[test]
fn directives_expand_as_the_assembler_does() {
    let lines = expand(".rept 2\n.irp r,1,2\nvpaddd zmm\\r, zmm\\r, zmm0\n.endr\n.endr\n");
    assert_eq!(
        lines,
        vec![
            "vpaddd zmm1, zmm1, zmm0",
            "vpaddd zmm2, zmm2, zmm0",
            "vpaddd zmm1, zmm1, zmm0",
            "vpaddd zmm2, zmm2, zmm0"
        ]
    );
    assert_eq!(
        classify("vmovdqu64 zmmword ptr [rax + 64], zmm1"),
        vec![Class::Store]
    );
    assert_eq!(
        classify("vmovdqu64 zmm1, zmmword ptr [rax]"),
        vec![Class::Load]
    );
    assert_eq!(
        classify("vpxord zmm1, zmm1, zmmword ptr [rax]"),
        vec![Class::Alu, Class::Load]
    );
    assert_eq!(
        classify("vmovdqu ymmword ptr [rax + 32], ymm1"),
        vec![Class::Store]
    );
    assert_eq!(
        classify("vmovdqu ymm1, ymmword ptr [rax]"),
        vec![Class::Load]
    );
    assert!(classify("vmovdqu ymm1, ymm2").is_empty());
    assert_eq!(
        classify("vpshufb ymm1, ymm1, ymmword ptr [rax]"),
        vec![Class::Shuffle, Class::Load]
    );
    assert!(classify("2:").is_empty());
}

#[test]
fn rates_cycles_and_ratios() {
    let t = Timing {
        iterations: 1_000_000,
        seconds: 0.25,
    };
    // 512 bytes per iteration in 0.25 s: 2.048 GB/s.
    assert!((t.rate(512.0) - 2.048e9).abs() < 1.0);
    assert!((cycles_per_byte(4.096e9, 2.048e9) - 2.0).abs() < 1e-12);
    assert_eq!(cycles_per_byte(1e9, 0.0), f64::INFINITY);
    // 3.56e9 VAESENC zmm per second, 10 per 64 bytes: the AES-128 ceiling is 22.8 GB/s.
    assert!((ceiling(3.56e9, 10.0, 64.0) - 22.784e9).abs() < 1e3);
    assert!(!Ratio::of(0.97, 1.0).suspect());
    assert!(!Ratio::of(1.004, 1.0).suspect());
    assert!(Ratio::of(1.01, 1.0).suspect());
    assert_eq!(Ratio::of(1.0, 0.0).0, 0.0);
    assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
    let zero = Timing {
        iterations: 5,
        seconds: 0.0,
    };
    assert_eq!(zero.rate(1.0), 0.0);
}

/// Every loop this CPU supports runs (so it assembles), keeps to its scratch (guard bytes
/// on both sides stay as they were) and, where it stores, writes there; on another
/// architecture nothing runs.
#[test]
fn every_supported_loop_runs_within_its_scratch() {
    #[repr(C)]
    struct Guarded {
        before: [u8; 64],
        scratch: Scratch,
        after: [u8; 64],
    }
    let all = [
        Loop::Clock,
        Loop::Ctr128Zmm,
        Loop::Xts256Zmm,
        Loop::Gcm128Zmm,
        Loop::Gcm256Zmm,
        Loop::Chacha20Zmm,
        Loop::Poly1305Ifma,
        Loop::ChaCha20Poly1305Zmm,
        Loop::ClockYmm,
        Loop::Ctr128Ymm,
        Loop::Gcm128Ymm,
        Loop::Gcm256Ymm,
        Loop::Chacha20Ymm,
        Loop::ChaCha20Poly1305Ymm,
    ];
    let mut ran = 0;
    for l in all.into_iter().chain(Loop::CLASSES) {
        let mut g = Box::new(Guarded {
            before: [0xa5; 64],
            scratch: Scratch::default(),
            after: [0xa5; 64],
        });
        let t = time(l, 3, &mut g.scratch);
        assert_eq!(t.is_some(), supported(l), "{l:?}");
        assert_eq!(g.before, [0xa5; 64], "{l:?} wrote before its scratch");
        assert_eq!(g.after, [0xa5; 64], "{l:?} wrote after its scratch");
        let stores = count(l.body()).contains_key(&Class::Store);
        if t.is_some() {
            ran += 1;
            assert_eq!(
                g.scratch.0 != Scratch::default().0,
                stores,
                "{l:?}: stores {stores}"
            );
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    assert_eq!(ran, 0);
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        assert!(ran > 0);
    }
}
