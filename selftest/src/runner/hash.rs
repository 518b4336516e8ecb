//! The hash runner, after the kernel's `test_hash` and `test_hash_vs_generic_impl`.
//!
//! Known answers: every vector under [`HashConfig::known_answer_configs`] (`digest`;
//! three updates with an export/import between them and `final`; `finup`).
//!
//! Randomized cases (one seed each, as in `random`): a random key for MACs, a random
//! message (favouring small sizes and block boundaries) and a random [`HashConfig`]; the
//! result must equal the reference's one-shot `digest`. Once per driver, importing bytes
//! that are not an exported state (truncated, empty, with a damaged header) must be an
//! error, never a panic.

use std::sync::Arc;

use cryptoreg_registry::{AlgType, DriverInfo, Hash, HostFeatures, Result, TestHost, TestParams};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::layout::{Finalization, HashConfig};
use crate::exec::{misaligned, Scattered, POISON};
use crate::kat::MAX_FAILING_VECTORS;
use crate::random::{candidate_key_lens, driver_and_reference, probe_key, run_cases};
use crate::report::{attempt, driver_line, judge, Case, Expected, Op, Problem, Tally};
use crate::vectors::HashVector;

const TY: AlgType = AlgType::Hash;

/// Hashes `msg` under `cfg` (the key, if any, is already set).
fn hash_cfg(h: &Hash, msg: &[u8], cfg: &HashConfig) -> Result<Vec<u8>> {
    let mut out = vec![POISON; h.digest_size()];
    if cfg.finalization == Finalization::Digest {
        let off = cfg.divs.first().map_or(0, |d| d.offset);
        let buf = misaligned(msg, off);
        h.digest(&buf[off..], &mut out)?;
        return Ok(out);
    }
    let pieces = Scattered::with_data(msg, &cfg.divs);
    let pieces = pieces.slices();
    let mut req = h.init()?;
    for (i, piece) in pieces.iter().enumerate() {
        if cfg.reimport.get(i).copied().unwrap_or(false) {
            let exported = req.export();
            req = h.import(&exported)?;
        }
        if i + 1 == pieces.len() && cfg.finalization == Finalization::Finup {
            req.finup(piece, &mut out)?;
            return Ok(out);
        }
        req.update(piece);
    }
    req.finalize(&mut out)?;
    Ok(out)
}

/// Sets `key` from a buffer misaligned by `offset`, unless the hash is an unkeyed digest.
fn set_key(h: &mut Hash, key: &[u8], offset: usize) -> Result<Vec<u8>> {
    if !h.is_keyed() {
        return Ok(Vec::new());
    }
    let buf = misaligned(key, offset);
    h.set_key(&buf[offset..]).map(|()| Vec::new())
}

/// Runs the known answers of `info`.
pub(crate) fn run_kat(
    info: &Arc<DriverInfo>,
    token: &HostFeatures,
    vectors: &[HashVector],
    tally: &mut Tally,
) {
    let mut h = match cryptoreg_registry::driver::build_hash(Arc::clone(info), token) {
        Ok(h) => h,
        Err(e) => {
            let msg = format!("cannot build a handle: {e}");
            return tally.failures.push(driver_line(TY, info.driver(), &msg));
        }
    };
    let driver = info.driver();
    let mut failing = 0;
    'vectors: for v in vectors {
        for cfg in HashConfig::known_answer_configs() {
            let case = Case {
                vector: &v.source,
                cfg: Some(&cfg),
                seed: None,
            };
            let keyed = attempt(|| set_key(&mut h, &v.key, cfg.key_offset));
            let ok = tally.check(
                TY,
                driver,
                Op::SetKey,
                judge(&Expected::accepted(), &keyed),
                &case,
            ) && {
                let got = attempt(|| hash_cfg(&h, &v.message, &cfg));
                tally.check(
                    TY,
                    driver,
                    Op::Hash,
                    judge(&Expected::Bytes(&v.digest), &got),
                    &case,
                )
            };
            if !ok {
                failing += 1;
                if failing >= MAX_FAILING_VECTORS {
                    break 'vectors;
                }
                continue 'vectors;
            }
        }
    }
}

/// What the cases of one driver may draw, probed from the reference.
#[derive(Debug, Clone, PartialEq, Eq)]
struct HashShape {
    /// Key lengths the reference takes; empty for unkeyed digests.
    key_lens: Vec<usize>,
    block: usize,
}

/// One randomized hash case, entirely determined by its seed.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RandomHashCase {
    key: Vec<u8>,
    message: Vec<u8>,
    cfg: HashConfig,
}

impl RandomHashCase {
    fn generate(seed: u64, shape: &HashShape) -> RandomHashCase {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let klen = if shape.key_lens.is_empty() {
            0
        } else {
            shape.key_lens[rng.gen_range(0..shape.key_lens.len())]
        };
        let b = shape.block;
        let len = match rng.gen_range(0..10) {
            0 => 0,
            1..=3 => rng.gen_range(1..=2 * b + 1),
            4..=6 => (rng.gen_range(1..=64) * b + rng.gen_range(0..=2)).saturating_sub(1),
            _ => rng.gen_range(0..=4096),
        };
        let mut key = vec![0u8; klen];
        rng.fill_bytes(&mut key);
        let mut message = vec![0u8; len];
        rng.fill_bytes(&mut message);
        let cfg = HashConfig::generate(&mut rng);
        RandomHashCase { key, message, cfg }
    }

    fn describe(&self) -> String {
        format!(
            "random: psize={} ksize={}",
            self.message.len(),
            self.key.len()
        )
    }
}

/// Runs the randomized cases of `info` against `ref_name` (or the one replayed case).
pub(crate) fn run_random(
    host: &dyn TestHost,
    info: &Arc<DriverInfo>,
    ref_name: &str,
    params: &TestParams,
    tally: &mut Tally,
) {
    let driver = info.driver();
    let Some((mut drv, mut reference)) = driver_and_reference(
        host,
        info,
        ref_name,
        params,
        tally,
        cryptoreg_registry::driver::build_hash,
    ) else {
        return;
    };
    let key_lens: Vec<usize> = if reference.is_keyed() {
        candidate_key_lens(info)
            .into_iter()
            .filter(|&l| reference.set_key(&probe_key(l)).is_ok())
            .collect()
    } else {
        Vec::new()
    };
    if reference.is_keyed() && key_lens.is_empty() {
        let msg = format!(
            "the reference {} accepts no key length in {}..={}",
            reference.driver_name(),
            info.sizes().min_key,
            info.sizes().max_key
        );
        return tally.failures.push(driver_line(TY, driver, &msg));
    }
    let shape = HashShape {
        key_lens,
        block: info.block_size().clamp(16, 128),
    };
    if params.replay {
        run_case(driver, &mut drv, &mut reference, &shape, params.seed, tally);
        return;
    }
    check_garbage_import(driver, &mut drv, &shape, tally);
    run_cases(params, driver, |seed| {
        run_case(driver, &mut drv, &mut reference, &shape, seed, tally)
    });
}

/// Importing bytes that no `export` of this driver produced must be refused.
fn check_garbage_import(driver: &str, drv: &mut Hash, shape: &HashShape, tally: &mut Tally) {
    if let Some(&l) = shape.key_lens.first() {
        if drv.set_key(&probe_key(l)).is_err() {
            return; // the key agreement shows up in the cases
        }
    }
    let Ok(mut req) = drv.init() else {
        return;
    };
    req.update(b"abcde");
    let good = req.export();
    let mut bad_magic = good.to_vec();
    bad_magic[0] ^= 1;
    let garbage: [(&str, Vec<u8>); 4] = [
        ("import: truncated export", good[..good.len() - 1].to_vec()),
        (
            "import: export plus a byte",
            [good.as_slice(), &[0]].concat(),
        ),
        ("import: empty", Vec::new()),
        ("import: damaged header", bad_magic),
    ];
    for (desc, bytes) in garbage {
        let got = attempt(|| drv.import(&bytes).map(|_| Vec::new()));
        let problem = match got {
            Ok(Err(_)) => None,
            Ok(Ok(_)) => Some(Problem::UnexpectedSuccess {
                expected: "InvalidHashState".into(),
            }),
            Err(message) => Some(Problem::Panicked(message)),
        };
        let case = Case {
            vector: desc,
            cfg: None,
            seed: None,
        };
        tally.check(TY, driver, Op::Import, problem, &case);
    }
}

/// Runs one case; returns whether it passed.
fn run_case(
    driver: &str,
    drv: &mut Hash,
    reference: &mut Hash,
    shape: &HashShape,
    seed: u64,
    tally: &mut Tally,
) -> bool {
    let case = RandomHashCase::generate(seed, shape);
    let desc = case.describe();
    let ctx = Case {
        vector: &desc,
        cfg: Some(&case.cfg),
        seed: Some(seed),
    };
    let want_key = set_key(reference, &case.key, 0);
    let got_key = attempt(|| set_key(drv, &case.key, case.cfg.key_offset));
    if !tally.check(
        TY,
        driver,
        Op::SetKey,
        judge(&Expected::of(&want_key), &got_key),
        &ctx,
    ) {
        return false;
    }
    if want_key.is_err() {
        return true;
    }
    let mut want = vec![0u8; reference.digest_size()];
    let expected = reference
        .digest(&case.message, &mut want)
        .map(|()| want.clone());
    let actual = attempt(|| hash_cfg(drv, &case.message, &case.cfg));
    tally.check(
        TY,
        driver,
        Op::Hash,
        judge(&Expected::of(&expected), &actual),
        &ctx,
    )
}
