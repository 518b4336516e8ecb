//! The randomized differential runner, after the kernel's `test_skcipher_vs_generic_impl`:
//! each case draws a random key, IV, plaintext and [`TestConfig`] from a seeded RNG,
//! encrypts with the generic reference (contiguous path) and with the driver under test
//! (under the drawn layout), and compares the bytes; then decrypts the ciphertext with the
//! driver and compares with the plaintext. Lengths the mode refuses must be refused by both
//! (with the same error kind), and neither may panic.
//!
//! Seeds: every case has its own 64-bit *case seed*, derived from the run's base seed, the
//! driver name and the case index with splitmix64. The RNG of a case is
//! `ChaCha8Rng::seed_from_u64(case_seed)` and nothing else feeds it, so the `seed=` printed
//! in a failure line replays exactly that case (`TestParams { replay: true, seed, .. }`).
//!
//! The reference is the vector file's `generic_driver`, else
//! `names::build_generic_driver_name(&info.name())`, resolved through the [`TestHost`] (`xts(aes)` -> `xts(aes-generic)`); drivers built only from generic leaves are
//! the reference and are not compared with themselves. Replaying a case on such a driver
//! compares it with a second instance of itself, which still checks layout independence
//! and the round trip.

use std::sync::Arc;

use cryptoreg_registry::names::is_generic_driver;
use cryptoreg_registry::{
    AlgType, Cipher, Direction, DriverInfo, HostFeatures, Result, Skcipher, TestHost, TestParams,
};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::config::TestConfig;
use crate::exec::{misaligned, Handle};
use crate::report::{attempt, driver_line, judge, Case, Expected, Op, Tally};

/// A driver's randomized run stops after this many failing cases: the first lines say
/// what is wrong, more would only drown them.
pub const MAX_FAILING_CASES: usize = 3;

/// splitmix64: a bijective 64-bit mixer, used to spread (base, index) into case seeds.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The base seed of one driver's run: the registry's seed salted with the driver name
/// (FNV-1a), so drivers of one boot draw different cases.
pub fn driver_base_seed(seed: u64, driver: &str) -> u64 {
    let fnv = driver.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    splitmix64(seed ^ fnv)
}

/// The seed of case `index` of a run whose base seed is `base`.
pub fn case_seed(base: u64, index: u32) -> u64 {
    splitmix64(
        base.wrapping_add(
            u64::from(index)
                .wrapping_add(1)
                .wrapping_mul(0x9e37_79b9_7f4a_7c15),
        ),
    )
}

/// What the cases of one driver may draw, probed once from the reference (so replays
/// probe the same).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Key lengths the reference accepts, from `min_key..=max_key` in steps of 8.
    pub key_lens: Vec<usize>,
    /// IV length.
    pub iv_size: usize,
    /// Granularity that lengths favour: the block size, or 16 for stream modes.
    pub block: usize,
    /// Whether the reference takes lengths that are not a multiple of `block` (CTR, XTS).
    pub partial_ok: bool,
    /// Where the IV holds a 32-bit little-endian block counter of 64-byte blocks, if it
    /// does ([`iv_counter_offset`]): a quarter of the cases then start near its wrap.
    pub iv_counter: Option<usize>,
}

/// The IV shaping hook: the offset of a 32-bit little-endian counter of 64-byte blocks
/// in the IV of `algorithm`, for the ciphers that refuse to pass block 2^32 (the kernel's
/// `chacha20`: IV bytes 0..4; `xchacha20`: bytes 24..28, the low half of the stream
/// position). Random IVs almost never start near the wrap, so for these the cases draw
/// counters at 2^32 - k for small k: requests ending exactly at the last block, and
/// requests that would pass it (which driver and reference must both refuse). A table by
/// name, because the self-test knows algorithms only by name.
pub(crate) fn iv_counter_offset(algorithm: &str) -> Option<usize> {
    match algorithm {
        "chacha20" => Some(0),
        "xchacha20" => Some(24),
        _ => None,
    }
}

/// Puts the counter at `offset` of `iv` near 2^32: 2^32 - k with k from 0 to a few
/// blocks past what `len` bytes need, so the request fits exactly, fits with room, or
/// would pass block 2^32.
fn shape_counter<R: Rng + ?Sized>(rng: &mut R, iv: &mut [u8], offset: usize, len: usize) {
    let need = len.div_ceil(64) as u64;
    let k = rng.gen_range(0..=need + 2).max(1);
    let counter = ((1u64 << 32) - k) as u32;
    if let Some(slot) = iv.get_mut(offset..offset + 4) {
        slot.copy_from_slice(&counter.to_le_bytes());
    }
}

/// A deterministic probe key whose two halves differ.
pub(crate) fn probe_key(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(7))
        .collect()
}

/// Candidate key lengths: `min..=max` in steps of 8, and `max` itself.
pub(crate) fn candidate_key_lens(info: &DriverInfo) -> Vec<usize> {
    let mut v: Vec<usize> = (info.sizes().min_key..=info.sizes().max_key)
        .step_by(8)
        .collect();
    if info.sizes().max_key >= info.sizes().min_key && v.last() != Some(&info.sizes().max_key) {
        v.push(info.sizes().max_key);
    }
    v
}

/// Draws a data length. Buckets: small (0..=64), a multiple of the block +-1 (up to
/// 4 KiB), over 512 and not a block multiple when the mode takes partial blocks (the
/// ciphertext-stealing path of XTS; ~25% of cases) or a large block multiple otherwise,
/// up to 1 KiB, and up to 8 KiB. Mean around 1.6 KiB. For modes that take whole blocks
/// only, 7 in 8 lengths are rounded down to a block multiple so most cases test data
/// rather than refusals.
pub(crate) fn draw_len<R: Rng + ?Sized>(rng: &mut R, shape: &Shape) -> usize {
    let b = shape.block.max(1);
    let len = match rng.gen_range(0..20) {
        0..=4 => rng.gen_range(0..=64),
        5..=9 => (rng.gen_range(1..=256) * b + rng.gen_range(0..=2)).saturating_sub(1),
        10..=14 if shape.partial_ok => loop {
            let l = rng.gen_range(513..=4096);
            if l % b != 0 {
                break l;
            }
        },
        10..=14 => rng.gen_range(33..=256) * b,
        15..=17 => rng.gen_range(0..=1024),
        _ => rng.gen_range(0..=2 * 4096),
    };
    if !shape.partial_ok && rng.gen_range(0..8) != 0 {
        len / b * b
    } else {
        len
    }
}

/// One randomized case, entirely determined by its seed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RandomCase {
    pub key: Vec<u8>,
    pub iv: Vec<u8>,
    pub plaintext: Vec<u8>,
    pub cfg: TestConfig,
}

impl RandomCase {
    pub fn generate(seed: u64, shape: &Shape, single_buffer: bool) -> RandomCase {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let klen = shape.key_lens[rng.gen_range(0..shape.key_lens.len())];
        let len = draw_len(&mut rng, shape);
        let mut key = vec![0u8; klen];
        rng.fill_bytes(&mut key);
        let mut iv = vec![0u8; shape.iv_size];
        rng.fill_bytes(&mut iv);
        if let Some(offset) = shape.iv_counter {
            if rng.gen_range(0..4) == 0 {
                shape_counter(&mut rng, &mut iv, offset, len);
            }
        }
        let mut plaintext = vec![0u8; len];
        rng.fill_bytes(&mut plaintext);
        let cfg = if single_buffer {
            TestConfig::generate_single(&mut rng)
        } else {
            TestConfig::generate(&mut rng)
        };
        RandomCase {
            key,
            iv,
            plaintext,
            cfg,
        }
    }

    pub fn describe(&self) -> String {
        format!(
            "random: len={} klen={}",
            self.plaintext.len(),
            self.key.len()
        )
    }
}

/// Runs the randomized tests of a block cipher or skcipher `info` (all iterations, or the
/// one replayed case) against the driver `ref_name` resolves to.
pub(crate) fn run(
    host: &dyn TestHost,
    info: &Arc<DriverInfo>,
    ref_name: &str,
    params: &TestParams,
    tally: &mut Tally,
) {
    match info.alg_type() {
        AlgType::Skcipher => run_typed::<Skcipher>(host, info, ref_name, params, tally),
        AlgType::Cipher => run_typed::<Cipher>(host, info, ref_name, params, tally),
        ty => {
            let msg = format!("the cipher runner cannot test a {ty}");
            tally.failures.push(driver_line(ty, info.driver(), &msg));
        }
    }
}

fn probe<H: Handle>(info: &DriverInfo, reference: &mut H) -> Option<Shape> {
    let key_lens: Vec<usize> = candidate_key_lens(info)
        .into_iter()
        .filter(|&l| reference.set_key(&probe_key(l)).is_ok())
        .collect();
    let first = *key_lens.first()?;
    reference.set_key(&probe_key(first)).ok()?;
    let block = if info.block_size() > 1 {
        info.block_size()
    } else {
        16
    };
    let iv = vec![0u8; info.iv_size()];
    let partial_ok = reference
        .crypt_contiguous(Direction::Encrypt, &iv, &vec![0u8; 2 * block + 1])
        .is_ok();
    Some(Shape {
        key_lens,
        iv_size: info.iv_size(),
        block,
        partial_ok,
        iv_counter: iv_counter_offset(info.name()),
    })
}

/// The cases of a full randomized run: case seeds derived from the driver's base seed,
/// `case` returning whether one passed, stopping after [`MAX_FAILING_CASES`] failures.
/// Only the cases of `params.shard` run (the registry gives each CPU one shard), so a
/// case keeps its seed whichever CPU runs it.
pub(crate) fn run_cases(params: &TestParams, driver: &str, mut case: impl FnMut(u64) -> bool) {
    let base = driver_base_seed(params.seed, driver);
    let mut failing = 0;
    for i in (0..params.iterations).filter(|&i| params.shard.takes(i)) {
        if !case(case_seed(base, i)) {
            failing += 1;
            if failing >= MAX_FAILING_CASES {
                break;
            }
        }
    }
}

/// The driver under test and its generic reference, both built with the registry's
/// token: a generic driver is its own reference (a replay compares it with a second
/// instance). `None` when there is nothing to compare — a generic driver outside a
/// replay is the reference itself — or when building failed; then the line is recorded,
/// a missing reference also as `reference_unavailable`, so the registry keeps the driver
/// untested rather than failed. Shared by the skcipher, AEAD and hash runners.
pub(crate) fn driver_and_reference<H>(
    host: &dyn TestHost,
    info: &Arc<DriverInfo>,
    ref_name: &str,
    params: &TestParams,
    tally: &mut Tally,
    build: impl Fn(Arc<DriverInfo>, &HostFeatures) -> Result<H>,
) -> Option<(H, H)> {
    let (ty, driver) = (info.alg_type(), info.driver());
    if is_generic_driver(driver) && !params.replay {
        return None;
    }
    let token = host.host_token();
    let drv = match build(Arc::clone(info), &token) {
        Ok(h) => h,
        Err(e) => {
            let msg = format!("cannot build a handle: {e}");
            tally.failures.push(driver_line(ty, driver, &msg));
            return None;
        }
    };
    let reference = if is_generic_driver(driver) {
        build(Arc::clone(info), &token)
    } else {
        host.resolve_tested(ref_name).and_then(|r| build(r, &token))
    };
    match reference {
        Ok(r) => Some((drv, r)),
        Err(e) => {
            let msg = format!("no generic reference {ref_name:?} for the randomized tests: {e}");
            tally.reference_unavailable = Some(ref_name.to_string());
            tally.failures.push(driver_line(ty, driver, &msg));
            None
        }
    }
}

fn run_typed<H: Handle>(
    host: &dyn TestHost,
    info: &Arc<DriverInfo>,
    ref_name: &str,
    params: &TestParams,
    tally: &mut Tally,
) {
    let (ty, driver) = (info.alg_type(), info.driver());
    let Some((mut drv, mut reference)) =
        driver_and_reference(host, info, ref_name, params, tally, H::from_info)
    else {
        return;
    };
    let Some(shape) = probe(info, &mut reference) else {
        let msg = format!(
            "the reference {} accepts no key length in {}..={}",
            reference.driver(),
            info.sizes().min_key,
            info.sizes().max_key
        );
        return tally.failures.push(driver_line(ty, driver, &msg));
    };

    if params.replay {
        run_case(
            ty,
            driver,
            &mut drv,
            &mut reference,
            &shape,
            params.seed,
            tally,
        );
        return;
    }
    check_key_agreement(ty, info, &mut drv, &mut reference, &shape, tally);
    run_cases(params, driver, |seed| {
        run_case(ty, driver, &mut drv, &mut reference, &shape, seed, tally)
    });
}

/// The driver must accept exactly the keys the reference accepts: every candidate length,
/// one byte either side of the range, and keys whose two halves are equal (which XTS must
/// refuse and other algorithms must take).
fn check_key_agreement<H: Handle>(
    ty: AlgType,
    info: &DriverInfo,
    drv: &mut H,
    reference: &mut H,
    shape: &Shape,
    tally: &mut Tally,
) {
    let mut keys: Vec<(String, Vec<u8>)> = Vec::new();
    let mut lens = candidate_key_lens(info);
    if info.sizes().min_key > 0 {
        lens.push(info.sizes().min_key - 1);
    }
    lens.push(info.sizes().max_key + 1);
    for l in lens {
        keys.push((format!("setkey: klen={l}"), probe_key(l)));
    }
    for &l in shape.key_lens.iter().filter(|&&l| l > 0 && l % 2 == 0) {
        let half = probe_key(l / 2);
        let key = [half.as_slice(), half.as_slice()].concat();
        keys.push((format!("setkey: klen={l} equal halves"), key));
    }
    for (desc, key) in keys {
        let want = reference.set_key(&key).map(|()| Vec::new());
        let got = attempt(|| drv.set_key(&key).map(|()| Vec::new()));
        let case = Case {
            vector: &desc,
            cfg: None,
            seed: None,
        };
        tally.check(
            ty,
            info.driver(),
            Op::SetKey,
            judge(&Expected::of(&want), &got),
            &case,
        );
    }
}

/// Runs one case; returns whether it passed.
fn run_case<H: Handle>(
    ty: AlgType,
    driver: &str,
    drv: &mut H,
    reference: &mut H,
    shape: &Shape,
    seed: u64,
    tally: &mut Tally,
) -> bool {
    let case = RandomCase::generate(seed, shape, H::SINGLE_BUFFER);
    let desc = case.describe();
    let ctx = Case {
        vector: &desc,
        cfg: Some(&case.cfg),
        seed: Some(seed),
    };
    let key_buf = misaligned(&case.key, case.cfg.key_offset);
    let want_key = reference.set_key(&case.key).map(|()| Vec::new());
    let got_key = attempt(|| {
        drv.set_key(&key_buf[case.cfg.key_offset..])
            .map(|()| Vec::new())
    });
    if !tally.check(
        ty,
        driver,
        Op::SetKey,
        judge(&Expected::of(&want_key), &got_key),
        &ctx,
    ) {
        return false;
    }
    if want_key.is_err() {
        return true; // both refused the key alike
    }

    let pt = &case.plaintext;
    let expected = reference.crypt_contiguous(Direction::Encrypt, &case.iv, pt);
    let actual = attempt(|| drv.crypt_cfg(Direction::Encrypt, &case.iv, pt, &case.cfg));
    if !tally.check(
        ty,
        driver,
        Op::Encryption,
        judge(&Expected::of(&expected), &actual),
        &ctx,
    ) {
        return false;
    }

    // Decrypt the reference ciphertext; if encryption was (rightly) refused, decryption of
    // the same length must be refused alike.
    let (input, expected): (&[u8], Result<Vec<u8>>) = match &expected {
        Ok(ct) => (ct, Ok(pt.clone())),
        Err(_) => (
            pt,
            reference.crypt_contiguous(Direction::Decrypt, &case.iv, pt),
        ),
    };
    let actual = attempt(|| drv.crypt_cfg(Direction::Decrypt, &case.iv, input, &case.cfg));
    tally.check(
        ty,
        driver,
        Op::Decryption,
        judge(&Expected::of(&expected), &actual),
        &ctx,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xts_shape() -> Shape {
        Shape {
            key_lens: vec![32, 48, 64],
            iv_size: 16,
            block: 16,
            partial_ok: true,
            iv_counter: None,
        }
    }

    /// A quarter of `chacha20` cases start within a few blocks of the counter's wrap,
    /// some of them exactly at the edge and some past it; other algorithms' IVs are
    /// untouched.
    #[test]
    fn chacha_ivs_reach_the_counter_wrap() {
        assert_eq!(iv_counter_offset("chacha20"), Some(0));
        assert_eq!(iv_counter_offset("xchacha20"), Some(24));
        assert_eq!(iv_counter_offset("ctr(aes)"), None);
        let shape = Shape {
            key_lens: vec![32],
            iv_size: 16,
            block: 16,
            partial_ok: true,
            iv_counter: Some(0),
        };
        let (mut near, mut past, mut exact) = (0, 0, 0);
        for seed in 0..4000u64 {
            let c = RandomCase::generate(seed, &shape, false);
            let counter = u32::from_le_bytes(c.iv[..4].try_into().unwrap());
            let room = (1u64 << 32) - u64::from(counter);
            if room <= 1 + c.plaintext.len().div_ceil(64) as u64 + 2 {
                near += 1;
                let need = c.plaintext.len().div_ceil(64) as u64;
                if need > room {
                    past += 1;
                } else if need == room {
                    exact += 1;
                }
            }
        }
        assert!((800..1200).contains(&near), "{near}");
        assert!(past > 100 && exact > 20, "past {past}, exact {exact}");
    }

    #[test]
    fn case_seeds_are_distinct_and_stable() {
        let base = driver_base_seed(0x1234, "xts-aes-aesni");
        assert_ne!(base, driver_base_seed(0x1234, "xts-aes-vaes-avx2"));
        assert_eq!(base, driver_base_seed(0x1234, "xts-aes-aesni"));
        let seeds: std::collections::HashSet<u64> =
            (0..10_000).map(|i| case_seed(base, i)).collect();
        assert_eq!(seeds.len(), 10_000);
        assert_eq!(splitmix64(0), 0xe220_a839_7b1d_cdaf);
    }

    #[test]
    fn a_case_is_a_function_of_its_seed() {
        let shape = xts_shape();
        for seed in [0u64, 1, 0xdead_beef, u64::MAX] {
            let a = RandomCase::generate(seed, &shape, false);
            let b = RandomCase::generate(seed, &shape, false);
            assert_eq!(a, b);
            assert_eq!(a.describe(), b.describe());
            assert!(shape.key_lens.contains(&a.key.len()));
            assert_eq!(a.iv.len(), 16);
        }
        assert_ne!(
            RandomCase::generate(1, &shape, false),
            RandomCase::generate(2, &shape, false)
        );
    }

    #[test]
    fn lengths_favour_the_interesting_sizes() {
        let shape = xts_shape();
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let n = 20_000;
        let lens: Vec<usize> = (0..n).map(|_| draw_len(&mut rng, &shape)).collect();
        let frac =
            |f: &dyn Fn(usize) -> bool| lens.iter().filter(|&&l| f(l)).count() as f64 / n as f64;
        let mean = lens.iter().sum::<usize>() as f64 / n as f64;
        assert!((1024.0..2048.0).contains(&mean), "mean {mean}");
        assert!(frac(&|l| l > 512 && l % 16 != 0) >= 0.25);
        assert!(frac(&|l| l <= 64) >= 0.2);
        assert!(frac(&|l| l % 16 == 0 && l > 0) >= 0.1);
        assert!(frac(&|l| l % 16 == 1 || l % 16 == 15) >= 0.1);
        assert!(frac(&|l| l < 16) > 0.02, "refusals for XTS are drawn too");
        assert!(lens.iter().all(|&l| l <= 2 * 4096 + 1));

        // Whole-block modes: mostly whole blocks, a few refusals.
        let cbc = Shape {
            partial_ok: false,
            ..xts_shape()
        };
        let lens: Vec<usize> = (0..n).map(|_| draw_len(&mut rng, &cbc)).collect();
        let whole = lens.iter().filter(|&&l| l % 16 == 0).count() as f64 / n as f64;
        assert!((0.8..0.97).contains(&whole), "{whole}");
    }
}
