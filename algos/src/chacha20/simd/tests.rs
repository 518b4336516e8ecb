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

/// Counts the hooks a kernel call runs, per quarter-round slot, and says how many double
/// rounds are busy.
struct CountingHooks {
    busy: usize,
    calls: [usize; 8],
}

impl super::core::Interleave for CountingHooks {
    unsafe fn after_quarter(&mut self, q: usize) {
        self.calls[q] += 1;
    }

    fn busy(&self) -> usize {
        self.busy
    }
}

/// The keystream XORed over `buf` by the ymm core with `hooks` between the quarter rounds:
/// a whole batch (512 bytes) through `batch_between`, shorter lengths through
/// `chacha20_xor_between`, which hands `hooks` to the one kernel that takes them.
///
/// # Safety
/// The CPU has AVX2.
#[target_feature(enable = "avx,avx2")]
unsafe fn ymm_xor_with_hooks(s: &[u32; 16], buf: &mut [u8], hooks: &mut CountingHooks) {
    type V = crate::x86::vector::Ymm<crate::x86::vector::Vex>;
    let p = buf.as_mut_ptr();
    // SAFETY: `buf.len()` (512 for the whole batch) bytes at `p`, in place; AVX2 per this
    // function's contract.
    unsafe {
        if buf.len() == 512 {
            super::core::batch_between::<V>(s, p, p, hooks);
        } else {
            super::core::chacha20_xor_between::<V>(s, p, p, buf.len(), hooks);
        }
    }
}

/// The kernels run the interleaved work after every quarter round of exactly their first
/// `busy()` double rounds (0 to all ten; more counts as all), one kernel call per length
/// here (a whole vertical ymm batch at 512 bytes, a partial one at 448, two horizontal
/// rows at 192, one at 64), and the keystream does not depend on it (`busy()` splits the
/// rounds into two loops).
#[test]
fn interleaved_work_runs_in_the_busy_double_rounds_only() {
    if !std::is_x86_feature_detected!("avx2") {
        eprintln!("interleaved_work_runs_in_the_busy_double_rounds_only: SKIPPED (no AVX2)");
        return;
    }
    let mut s = [0u32; 16];
    super::write_state(&mut s, &[7u8; 32], 1, &[9u8; 12]);
    for len in [512usize, 448, 192, 64] {
        let mut want = vec![0x5au8; len];
        let mut none = CountingHooks {
            busy: 0,
            calls: [0; 8],
        };
        // SAFETY: AVX2 checked above.
        unsafe { ymm_xor_with_hooks(&s, &mut want, &mut none) };
        assert_eq!(none.calls, [0; 8], "{len}: busy 0 ran work");
        for busy in 1..=12 {
            let mut got = vec![0x5au8; len];
            let mut hooks = CountingHooks {
                busy,
                calls: [0; 8],
            };
            // SAFETY: AVX2 checked above.
            unsafe { ymm_xor_with_hooks(&s, &mut got, &mut hooks) };
            assert_eq!(got, want, "{len} bytes, busy {busy}: keystream changed");
            assert_eq!(hooks.calls, [busy.min(10); 8], "{len} bytes, busy {busy}");
        }
    }
}

/// The keyed entries (the ChaCha20-Poly1305 short path's: block 0 to a key buffer, the
/// text's blocks from source to destination) give exactly the portable keystream of a
/// zeroed key block followed by the text, at every text length they take (each kernel
/// they pick), at random counters and the last ones before 2^32, in place and out of
/// place; the source (out of place) and the bytes past the text stay untouched.
#[test]
fn keyed_entries_are_the_keystream_of_key_block_and_text() {
    use super::entry::{KeyedFn, KEYED_MAX_TEXT_AVX2, KEYED_MAX_TEXT_AVX512F};
    let mut cases: Vec<(&str, KeyedFn, usize)> = Vec::new();
    if std::is_x86_feature_detected!("avx2") {
        cases.push((
            "avx2",
            super::entry::chacha20_keyed_avx2,
            KEYED_MAX_TEXT_AVX2,
        ));
    }
    if Avx512::new(&HostFeatures::detect(), "keyed").is_ok() {
        let f = super::entry::chacha20_keyed_avx512f;
        cases.push(("avx512f", f, KEYED_MAX_TEXT_AVX512F));
    }
    eprintln!(
        "keyed entries: ran {:?} (the others need features this CPU lacks: `cargo xtask emu`)",
        cases.iter().map(|c| c.0).collect::<Vec<_>>()
    );
    let mut rng = ChaCha20Rng::seed_from_u64(0x6b65_7965);
    for (name, f, max) in cases {
        assert!(max >= 448, "{name}: the short path's texts");
        for len in 0..=max {
            let blocks = 1 + len.div_ceil(64) as u32;
            let counter = match len % 3 {
                0 => rng.gen(),
                1 => u32::MAX - blocks + 1,
                _ => 0,
            }
            .min(u32::MAX - blocks + 1);
            let mut key = [0u8; 32];
            let mut nonce = [0u8; 12];
            rng.fill(&mut key[..]);
            rng.fill(&mut nonce[..]);
            let mut s = [0u32; 16];
            super::write_state(&mut s, &key, counter, &nonce);
            let text: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let mut want = vec![0u8; 64];
            want.extend_from_slice(&text);
            let mut st = s;
            crate::chacha20::chacha20_xor(&mut st, &mut want);
            for in_place in [true, false] {
                let mut out = text.clone();
                out.extend_from_slice(&[0xa5; 64]);
                let src = text.clone();
                // The key block and 64 guard bytes after it.
                let mut kb = [0x3cu8; 128];
                let sp = if in_place { out.as_ptr() } else { src.as_ptr() };
                // SAFETY: the entry's features were detected above; `kb` is 128 writable
                // bytes; `len` readable bytes at `sp` and writable at `out`'s start (in
                // place the same buffer), `len <= max`; the counter leaves room.
                unsafe { f(&s, kb.as_mut_ptr(), sp, out.as_mut_ptr(), len) };
                let what = format!("{name} len {len} counter {counter:#x} in place {in_place}");
                assert_eq!(kb[..64], want[..64], "{what}: key block");
                assert_eq!(kb[64..], [0x3c; 64], "{what}: past the key block");
                assert_eq!(out[..len], want[64..], "{what}: text");
                assert_eq!(out[len..], [0xa5; 64], "{what}: bytes past the text");
                assert_eq!(src, text, "{what}: source");
            }
        }
    }
}
