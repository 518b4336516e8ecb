//! The AEAD runner, after the kernel's `test_aead` and `test_aead_vs_generic_impl`.
//!
//! Known answers: every vector under [`AeadConfig::known_answer_configs`], with the
//! vector's tag length as the authsize: sealing gives ciphertext and tag, opening gives the
//! plaintext; a `fail` vector must be refused with `BadMessage` and leave zeros.
//!
//! Randomized cases (one seed each, as in `random`): a random key of a length the
//! reference takes, a random valid authsize (`set_authsize`), random AAD and text lengths
//! (favouring 0, block boundaries and small sizes), a random layout; the driver's seal
//! must match the reference's contiguous seal, its open must give the plaintext back, and
//! an inauthentic copy (one bit flipped in the AAD, the text or the tag) must fail with
//! `BadMessage` with every output piece wiped.

use std::sync::Arc;

use cryptoreg_registry::{
    Aead, AlgType, DriverInfo, Error, HostFeatures, Result, TestHost, TestParams,
};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::layout::AeadConfig;
use crate::config::Placement;
use crate::exec::{misaligned, Scattered, POISON};
use crate::kat::MAX_FAILING_VECTORS;
use crate::random::{candidate_key_lens, driver_and_reference, probe_key, run_cases};
use crate::report::{attempt, driver_line, judge, Case, Expected, Op, Problem, Tally};
use crate::vectors::AeadVector;

const TY: AlgType = AlgType::Aead;

/// Seals `pt` under `cfg`; returns ciphertext followed by the tag.
fn seal_cfg(h: &Aead, nonce: &[u8], aad: &[u8], pt: &[u8], cfg: &AeadConfig) -> Result<Vec<u8>> {
    let nonce_buf = misaligned(nonce, cfg.text.iv_offset);
    let nonce = &nonce_buf[cfg.text.iv_offset..];
    let aad = Scattered::with_data(aad, &cfg.aad_divs);
    let aad = aad.slices();
    let mut tag = vec![POISON; h.authsize()];
    let mut src = Scattered::with_data(pt, &cfg.text.src_divs);
    let mut out = match cfg.text.placement {
        Placement::InPlace => {
            let mut segs = src.slices_mut();
            match (aad.as_slice(), segs.as_mut_slice()) {
                ([a], [one]) => h.seal(nonce, a, one, &mut tag)?,
                _ => h.seal_segments(nonce, &aad, &mut segs, &mut tag)?,
            }
            src.gather()
        }
        Placement::OutOfPlace => {
            let mut dst = Scattered::poisoned(pt.len(), &cfg.text.dst_divs);
            h.seal_to(nonce, &aad, &src.slices(), &mut dst.slices_mut(), &mut tag)?;
            dst.gather()
        }
    };
    out.extend_from_slice(&tag);
    Ok(out)
}

/// Opens `ct` with `tag` under `cfg`; `output` receives what the output pieces hold
/// afterwards, whether the open succeeded or not (so a failed open can be checked for
/// leftover plaintext).
fn open_cfg(
    h: &Aead,
    nonce: &[u8],
    aad: &[u8],
    ct: &[u8],
    tag: &[u8],
    cfg: &AeadConfig,
    output: &mut Vec<u8>,
) -> Result<Vec<u8>> {
    let nonce_buf = misaligned(nonce, cfg.text.iv_offset);
    let nonce = &nonce_buf[cfg.text.iv_offset..];
    let aad = Scattered::with_data(aad, &cfg.aad_divs);
    let aad = aad.slices();
    let mut src = Scattered::with_data(ct, &cfg.text.src_divs);
    let result = match cfg.text.placement {
        Placement::InPlace => {
            let mut segs = src.slices_mut();
            let r = match (aad.as_slice(), segs.as_mut_slice()) {
                ([a], [one]) => h.open(nonce, a, one, tag),
                _ => h.open_segments(nonce, &aad, &mut segs, tag),
            };
            *output = src.gather();
            r
        }
        Placement::OutOfPlace => {
            let mut dst = Scattered::poisoned(ct.len(), &cfg.text.dst_divs);
            let r = h.open_to(nonce, &aad, &src.slices(), &mut dst.slices_mut(), tag);
            *output = dst.gather();
            r
        }
    };
    result.map(|()| output.clone())
}

/// Checks a decryption that must fail: `BadMessage`, and nothing but zeros left behind.
fn judge_refusal(got: &crate::report::Attempt, output: &[u8], text_len: usize) -> Option<Problem> {
    let problem = judge(&Expected::refused("BadMessage"), got);
    if problem.is_some() {
        return problem;
    }
    (output.len() != text_len || output.iter().any(|&b| b != 0)).then_some(Problem::PlaintextLeft)
}

/// Runs the known answers of `info`.
pub(crate) fn run_kat(
    info: &Arc<DriverInfo>,
    token: &HostFeatures,
    vectors: &[AeadVector],
    tally: &mut Tally,
) {
    let mut h = match Aead::from_info(Arc::clone(info), token) {
        Ok(h) => h,
        Err(e) => {
            let msg = format!("cannot build a handle: {e}");
            return tally.failures.push(driver_line(TY, info.driver(), &msg));
        }
    };
    let mut failing = 0;
    for v in vectors {
        if !kat_vector(info.driver(), &mut h, v, tally) {
            failing += 1;
            if failing >= MAX_FAILING_VECTORS {
                break;
            }
        }
    }
}

fn kat_vector(driver: &str, h: &mut Aead, v: &AeadVector, tally: &mut Tally) -> bool {
    for cfg in AeadConfig::known_answer_configs() {
        let case = Case {
            vector: &v.source,
            cfg: Some(&cfg),
            seed: None,
        };
        let key_buf = misaligned(&v.key, cfg.text.key_offset);
        let keyed = attempt(|| {
            h.set_key(&key_buf[cfg.text.key_offset..])
                .map(|()| Vec::new())
        });
        if !tally.check(
            TY,
            driver,
            Op::SetKey,
            judge(&Expected::accepted(), &keyed),
            &case,
        ) {
            return false;
        }
        let sized = attempt(|| h.set_authsize(v.tag.len()).map(|()| Vec::new()));
        if !tally.check(
            TY,
            driver,
            Op::SetAuthsize,
            judge(&Expected::accepted(), &sized),
            &case,
        ) {
            return false;
        }
        let mut output = Vec::new();
        if v.fail {
            let got = attempt(|| {
                open_cfg(
                    h,
                    &v.nonce,
                    &v.aad,
                    &v.ciphertext,
                    &v.tag,
                    &cfg,
                    &mut output,
                )
            });
            let problem = judge_refusal(&got, &output, v.ciphertext.len());
            if !tally.check(TY, driver, Op::Decryption, problem, &case) {
                return false;
            }
            continue;
        }
        let sealed = attempt(|| seal_cfg(h, &v.nonce, &v.aad, &v.plaintext, &cfg));
        let want = [v.ciphertext.as_slice(), &v.tag].concat();
        if !tally.check(
            TY,
            driver,
            Op::Encryption,
            judge(&Expected::Bytes(&want), &sealed),
            &case,
        ) {
            return false;
        }
        let opened = attempt(|| {
            open_cfg(
                h,
                &v.nonce,
                &v.aad,
                &v.ciphertext,
                &v.tag,
                &cfg,
                &mut output,
            )
        });
        if !tally.check(
            TY,
            driver,
            Op::Decryption,
            judge(&Expected::Bytes(&v.plaintext), &opened),
            &case,
        ) {
            return false;
        }
    }
    true
}

/// What the cases of one driver may draw, probed from the reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AeadShape {
    key_lens: Vec<usize>,
    authsizes: Vec<usize>,
    nonce_size: usize,
    block: usize,
    /// The only AAD lengths the algorithm takes, if it restricts them ([`aad_lens_of`]).
    aad_lens: Option<&'static [usize]>,
}

/// The AAD shaping hook: algorithms that take only some AAD lengths, by name (the
/// self-test knows algorithms only by name). `rfc7539esp` takes the ESP AAD of RFC 7634,
/// 8 or 12 bytes; without this nearly every random case would be a refusal. Seven cases
/// in eight then draw one of these lengths, the rest any length (refused by both).
fn aad_lens_of(algorithm: &str) -> Option<&'static [usize]> {
    match algorithm {
        "rfc7539esp(chacha20,poly1305)" => Some(&[8, 12]),
        _ => None,
    }
}

fn probe(info: &DriverInfo, reference: &mut Aead) -> Option<AeadShape> {
    let key_lens: Vec<usize> = candidate_key_lens(info)
        .into_iter()
        .filter(|&l| reference.set_key(&probe_key(l)).is_ok())
        .collect();
    let authsizes: Vec<usize> = (1..=reference.max_authsize())
        .filter(|&n| reference.set_authsize(n).is_ok())
        .collect();
    reference.set_authsize(reference.max_authsize()).ok()?;
    if key_lens.is_empty() || authsizes.is_empty() {
        return None;
    }
    Some(AeadShape {
        key_lens,
        authsizes,
        nonce_size: info.iv_size(),
        block: info.block_size().max(16),
        aad_lens: aad_lens_of(info.name()),
    })
}

/// Draws an AAD or text length up to `max`: 0 (one in five), small, a block multiple +-1,
/// or anything up to `max`.
fn draw_len<R: Rng + ?Sized>(rng: &mut R, block: usize, max: usize) -> usize {
    match rng.gen_range(0..10) {
        0 | 1 => 0,
        2..=4 => rng.gen_range(1..=2 * block + 1),
        5..=7 => (rng.gen_range(1..=max / block) * block + rng.gen_range(0..=2)).saturating_sub(1),
        _ => rng.gen_range(0..=max),
    }
}

/// Which part of an inauthentic input has a flipped bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flip {
    Aad(usize),
    Text(usize),
    Tag(usize),
}

/// One randomized AEAD case, entirely determined by its seed.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RandomAeadCase {
    key: Vec<u8>,
    nonce: Vec<u8>,
    aad: Vec<u8>,
    plaintext: Vec<u8>,
    authsize: usize,
    flip: Flip,
    cfg: AeadConfig,
}

impl RandomAeadCase {
    fn generate(seed: u64, shape: &AeadShape) -> RandomAeadCase {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let klen = shape.key_lens[rng.gen_range(0..shape.key_lens.len())];
        let authsize = if rng.gen_bool(0.5) {
            *shape.authsizes.last().unwrap_or(&16)
        } else {
            shape.authsizes[rng.gen_range(0..shape.authsizes.len())]
        };
        let alen = match shape.aad_lens {
            Some(lens) if rng.gen_range(0..8) != 0 => lens[rng.gen_range(0..lens.len())],
            _ => draw_len(&mut rng, shape.block, 512),
        };
        let plen = draw_len(&mut rng, shape.block, 4096);
        let mut bytes = |n: usize| {
            let mut v = vec![0u8; n];
            rng.fill_bytes(&mut v);
            v
        };
        let key = bytes(klen);
        let nonce = bytes(shape.nonce_size);
        let aad = bytes(alen);
        let plaintext = bytes(plen);
        let flip = match rng.gen_range(0..3) {
            0 if alen > 0 => Flip::Aad(rng.gen_range(0..8 * alen)),
            1 if plen > 0 => Flip::Text(rng.gen_range(0..8 * plen)),
            _ => Flip::Tag(rng.gen_range(0..8 * authsize)),
        };
        let cfg = AeadConfig::generate(&mut rng);
        RandomAeadCase {
            key,
            nonce,
            aad,
            plaintext,
            authsize,
            flip,
            cfg,
        }
    }

    fn describe(&self) -> String {
        format!(
            "random: alen={} plen={} authsize={} klen={}",
            self.aad.len(),
            self.plaintext.len(),
            self.authsize,
            self.key.len()
        )
    }

    fn describe_inauthentic(&self) -> String {
        let (part, bit) = match self.flip {
            Flip::Aad(b) => ("aad", b),
            Flip::Text(b) => ("text", b),
            Flip::Tag(b) => ("tag", b),
        };
        format!("{} novrfy=1 flip={part}:{bit}", self.describe())
    }
}

fn flip_bit(bytes: &mut [u8], bit: usize) {
    if let Some(b) = bytes.get_mut(bit / 8) {
        *b ^= 1 << (bit % 8);
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
    let Some((mut drv, mut reference)) =
        driver_and_reference(host, info, ref_name, params, tally, Aead::from_info)
    else {
        return;
    };
    let Some(shape) = probe(info, &mut reference) else {
        let msg = format!(
            "the reference {} accepts no key length in {}..={} or no authsize",
            reference.driver_name(),
            info.sizes().min_key,
            info.sizes().max_key
        );
        return tally.failures.push(driver_line(TY, driver, &msg));
    };
    if params.replay {
        run_case(driver, &mut drv, &mut reference, &shape, params.seed, tally);
        return;
    }
    run_cases(params, driver, |seed| {
        run_case(driver, &mut drv, &mut reference, &shape, seed, tally)
    });
}

/// Runs one case; returns whether it passed.
fn run_case(
    driver: &str,
    drv: &mut Aead,
    reference: &mut Aead,
    shape: &AeadShape,
    seed: u64,
    tally: &mut Tally,
) -> bool {
    let case = RandomAeadCase::generate(seed, shape);
    let desc = case.describe();
    let ctx = Case {
        vector: &desc,
        cfg: Some(&case.cfg),
        seed: Some(seed),
    };
    let koff = case.cfg.text.key_offset;
    let key_buf = misaligned(&case.key, koff);
    let want_key = reference.set_key(&case.key).map(|()| Vec::new());
    let got_key = attempt(|| drv.set_key(&key_buf[koff..]).map(|()| Vec::new()));
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
    let want_size = reference.set_authsize(case.authsize).map(|()| Vec::new());
    let got_size = attempt(|| drv.set_authsize(case.authsize).map(|()| Vec::new()));
    if !tally.check(
        TY,
        driver,
        Op::SetAuthsize,
        judge(&Expected::of(&want_size), &got_size),
        &ctx,
    ) {
        return false;
    }

    let (nonce, aad, pt) = (&case.nonce, &case.aad, &case.plaintext);
    let expected = reference_seal(reference, nonce, aad, pt);
    let actual = attempt(|| seal_cfg(drv, nonce, aad, pt, &case.cfg));
    if !tally.check(
        TY,
        driver,
        Op::Encryption,
        judge(&Expected::of(&expected), &actual),
        &ctx,
    ) {
        return false;
    }
    let Ok(sealed) = expected else {
        return true; // both refused alike
    };
    let (ct, tag) = sealed.split_at(pt.len());
    let mut output = Vec::new();
    let opened = attempt(|| open_cfg(drv, nonce, aad, ct, tag, &case.cfg, &mut output));
    if !tally.check(
        TY,
        driver,
        Op::Decryption,
        judge(&Expected::Bytes(pt), &opened),
        &ctx,
    ) {
        return false;
    }

    // The inauthentic copy: one flipped bit must be refused, by the reference too (with a
    // short authsize a flip in the AAD or text may collide; then there is nothing to ask).
    let (mut aad2, mut ct2, mut tag2) = (aad.clone(), ct.to_vec(), tag.to_vec());
    match case.flip {
        Flip::Aad(b) => flip_bit(&mut aad2, b),
        Flip::Text(b) => flip_bit(&mut ct2, b),
        Flip::Tag(b) => flip_bit(&mut tag2, b),
    }
    let mut plain = ct2.clone();
    if reference.open(nonce, &aad2, &mut plain, &tag2).is_ok() {
        return true;
    }
    let desc = case.describe_inauthentic();
    let ctx = Case {
        vector: &desc,
        cfg: Some(&case.cfg),
        seed: Some(seed),
    };
    let got = attempt(|| open_cfg(drv, nonce, &aad2, &ct2, &tag2, &case.cfg, &mut output));
    let problem = judge_refusal(&got, &output, ct2.len());
    tally.check(TY, driver, Op::Decryption, problem, &ctx)
}

/// The reference's contiguous seal: ciphertext followed by the tag.
fn reference_seal(h: &Aead, nonce: &[u8], aad: &[u8], pt: &[u8]) -> Result<Vec<u8>, Error> {
    let mut data = pt.to_vec();
    let mut tag = vec![0u8; h.authsize()];
    h.seal(nonce, aad, &mut data, &mut tag)?;
    data.extend_from_slice(&tag);
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape() -> AeadShape {
        AeadShape {
            key_lens: vec![16, 32],
            authsizes: vec![4, 8, 12, 13, 14, 15, 16],
            nonce_size: 12,
            block: 16,
            aad_lens: None,
        }
    }

    /// `rfc7539esp` cases mostly carry an ESP AAD (8 or 12 bytes), some any length.
    #[test]
    fn esp_cases_mostly_carry_esp_aad() {
        assert_eq!(
            aad_lens_of("rfc7539esp(chacha20,poly1305)"),
            Some(&[8, 12][..])
        );
        assert_eq!(aad_lens_of("rfc7539(chacha20,poly1305)"), None);
        let s = AeadShape {
            aad_lens: Some(&[8, 12]),
            ..shape()
        };
        let n = 2000;
        let esp = (0..n)
            .map(|i| RandomAeadCase::generate(i, &s))
            .filter(|c| c.aad.len() == 8 || c.aad.len() == 12)
            .count();
        assert!((1650..1850).contains(&esp), "{esp}");
    }

    #[test]
    fn a_case_is_a_function_of_its_seed_and_varied() {
        let s = shape();
        assert_eq!(
            RandomAeadCase::generate(7, &s),
            RandomAeadCase::generate(7, &s)
        );
        let cases: Vec<RandomAeadCase> =
            (0..2000).map(|i| RandomAeadCase::generate(i, &s)).collect();
        let frac = |f: &dyn Fn(&RandomAeadCase) -> bool| {
            cases.iter().filter(|c| f(c)).count() as f64 / cases.len() as f64
        };
        assert!(frac(&|c| c.aad.is_empty()) > 0.1);
        assert!(frac(&|c| c.plaintext.is_empty()) > 0.1);
        assert!(frac(&|c| !c.plaintext.is_empty() && c.plaintext.len() % 16 == 0) > 0.05);
        assert!(frac(&|c| c.authsize != 16) > 0.2);
        assert!(frac(&|c| matches!(c.flip, Flip::Aad(_))) > 0.15);
        assert!(frac(&|c| matches!(c.flip, Flip::Text(_))) > 0.15);
        assert!(frac(&|c| matches!(c.flip, Flip::Tag(_))) > 0.15);
        assert!(cases.iter().all(|c| c.nonce.len() == 12));
    }
}
