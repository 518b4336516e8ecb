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
//! one inauthentic input per case must be refused:
//!
//! - one bit flipped in the AAD, the text or the tag, or a random ciphertext of the same
//!   length with a random tag: `BadMessage`, with every output piece wiped (the reference
//!   must refuse it too, else the case has nothing to ask: a short tag may collide);
//! - the tag truncated (a tag buffer of 0 to authsize - 1 bytes): `InvalidTagLength`, and
//!   the output untouched (the ciphertext still in place, the destination still poisoned).
//!   Why that error and not `BadMessage`: the handle checks that the tag buffer is exactly
//!   the authsize before the driver sees the request (the kernel's `crypto_aead_decrypt`
//!   takes the tag length from the tfm, so a short tag cannot even be expressed there),
//!   which also proves that nothing was decrypted.

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
    let mut h = match cryptoreg_registry::driver::build_aead(Arc::clone(info), token) {
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
/// or anything up to `max` (a block multiple + 1 above `max` is clamped to it).
fn draw_len<R: Rng + ?Sized>(rng: &mut R, block: usize, max: usize) -> usize {
    match rng.gen_range(0..10) {
        0 | 1 => 0,
        2..=4 => rng.gen_range(1..=2 * block + 1),
        5..=7 => (rng.gen_range(1..=max / block) * block + rng.gen_range(0..=2))
            .saturating_sub(1)
            .min(max),
        _ => rng.gen_range(0..=max),
    }
}

/// The inauthentic input of a case: a flipped bit (its index) in one part, a tag cut to
/// a length below the authsize, or a random ciphertext and tag.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Inauthentic {
    Aad(usize),
    Text(usize),
    Tag(usize),
    TruncatedTag(usize),
    Random { ciphertext: Vec<u8>, tag: Vec<u8> },
}

/// One randomized AEAD case, entirely determined by its seed.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RandomAeadCase {
    key: Vec<u8>,
    nonce: Vec<u8>,
    aad: Vec<u8>,
    plaintext: Vec<u8>,
    authsize: usize,
    inauthentic: Inauthentic,
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
        let bytes = |rng: &mut ChaCha8Rng, n: usize| {
            let mut v = vec![0u8; n];
            rng.fill_bytes(&mut v);
            v
        };
        let key = bytes(&mut rng, klen);
        let nonce = bytes(&mut rng, shape.nonce_size);
        let aad = bytes(&mut rng, alen);
        let plaintext = bytes(&mut rng, plen);
        let inauthentic = match rng.gen_range(0..8) {
            0 | 1 if alen > 0 => Inauthentic::Aad(rng.gen_range(0..8 * alen)),
            2 | 3 if plen > 0 => Inauthentic::Text(rng.gen_range(0..8 * plen)),
            6 => Inauthentic::TruncatedTag(rng.gen_range(0..authsize)),
            7 => Inauthentic::Random {
                ciphertext: bytes(&mut rng, plen),
                tag: bytes(&mut rng, authsize),
            },
            _ => Inauthentic::Tag(rng.gen_range(0..8 * authsize)),
        };
        let cfg = AeadConfig::generate(&mut rng);
        RandomAeadCase {
            key,
            nonce,
            aad,
            plaintext,
            authsize,
            inauthentic,
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
        let what = match &self.inauthentic {
            Inauthentic::Aad(b) => format!("flip=aad:{b}"),
            Inauthentic::Text(b) => format!("flip=text:{b}"),
            Inauthentic::Tag(b) => format!("flip=tag:{b}"),
            Inauthentic::TruncatedTag(n) => format!("tag=truncated:{n}"),
            Inauthentic::Random { .. } => "random=ciphertext+tag".to_string(),
        };
        format!("{} novrfy=1 {what}", self.describe())
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
    let Some((mut drv, mut reference)) = driver_and_reference(
        host,
        info,
        ref_name,
        params,
        tally,
        cryptoreg_registry::driver::build_aead,
    ) else {
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

    // The inauthentic input (see the module docs).
    let desc = case.describe_inauthentic();
    let ctx = Case {
        vector: &desc,
        cfg: Some(&case.cfg),
        seed: Some(seed),
    };
    let (mut aad2, mut ct2, mut tag2) = (aad.clone(), ct.to_vec(), tag.to_vec());
    match &case.inauthentic {
        Inauthentic::Aad(b) => flip_bit(&mut aad2, *b),
        Inauthentic::Text(b) => flip_bit(&mut ct2, *b),
        Inauthentic::Tag(b) => flip_bit(&mut tag2, *b),
        Inauthentic::Random { ciphertext, tag } => (ct2, tag2) = (ciphertext.clone(), tag.clone()),
        Inauthentic::TruncatedTag(n) => {
            let short = &tag[..*n];
            let got = attempt(|| open_cfg(drv, nonce, aad, ct, short, &case.cfg, &mut output));
            let problem = judge(&Expected::refused("InvalidTagLength"), &got)
                .or_else(|| untouched(&case.cfg, ct, &output));
            return tally.check(TY, driver, Op::Decryption, problem, &ctx);
        }
    }
    // The reference must refuse it too: with a short authsize a flip or a random tag may
    // collide, and then there is nothing to ask.
    let mut plain = ct2.clone();
    if reference.open(nonce, &aad2, &mut plain, &tag2).is_ok() {
        return true;
    }
    let got = attempt(|| open_cfg(drv, nonce, &aad2, &ct2, &tag2, &case.cfg, &mut output));
    let problem = judge_refusal(&got, &output, ct2.len());
    tally.check(TY, driver, Op::Decryption, problem, &ctx)
}

/// Checks that a request refused before it started left its output as it was: the
/// ciphertext in place, or the poisoned destination out of place.
fn untouched(cfg: &AeadConfig, ct: &[u8], output: &[u8]) -> Option<Problem> {
    let intact = match cfg.text.placement {
        Placement::InPlace => output == ct,
        Placement::OutOfPlace => output.len() == ct.len() && output.iter().all(|&b| b == POISON),
    };
    (!intact).then_some(Problem::OutputWritten)
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
        let kind = |f: fn(&Inauthentic) -> bool| frac(&|c: &RandomAeadCase| f(&c.inauthentic));
        assert!(kind(|i| matches!(i, Inauthentic::Aad(_))) > 0.15);
        assert!(kind(|i| matches!(i, Inauthentic::Text(_))) > 0.15);
        assert!(kind(|i| matches!(i, Inauthentic::Tag(_))) > 0.15);
        assert!(kind(|i| matches!(i, Inauthentic::TruncatedTag(_))) > 0.08);
        assert!(kind(|i| matches!(i, Inauthentic::Random { .. })) > 0.08);
        assert!(cases.iter().all(|c| c.nonce.len() == 12));
        for c in &cases {
            match &c.inauthentic {
                Inauthentic::TruncatedTag(n) => assert!(*n < c.authsize),
                Inauthentic::Random { ciphertext, tag } => {
                    assert_eq!(
                        (ciphertext.len(), tag.len()),
                        (c.plaintext.len(), c.authsize)
                    );
                }
                Inauthentic::Aad(b) => assert!(*b < 8 * c.aad.len()),
                Inauthentic::Text(b) => assert!(*b < 8 * c.plaintext.len()),
                Inauthentic::Tag(b) => assert!(*b < 8 * c.authsize),
            }
        }
        // An empty tag buffer is among the truncations.
        assert!(cases
            .iter()
            .any(|c| c.inauthentic == Inauthentic::TruncatedTag(0)));
    }

    #[test]
    fn lengths_favour_zero_small_and_block_boundaries() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let lens: Vec<usize> = (0..5000).map(|_| draw_len(&mut rng, 16, 4096)).collect();
        let frac = |f: &dyn Fn(usize) -> bool| {
            lens.iter().filter(|&&l| f(l)).count() as f64 / lens.len() as f64
        };
        assert!(lens.iter().all(|&l| l <= 4096));
        assert!(frac(&|l| l == 0) > 0.15);
        assert!(frac(&|l| l > 0 && l < 48) > 0.25);
        assert!(frac(&|l| l > 0 && [15, 0, 1].contains(&(l % 16))) > 0.4);
        assert!(frac(&|l| l > 512) > 0.3);
    }

    #[test]
    fn a_refused_request_must_leave_its_output_alone() {
        let ct = [1u8, 2, 3];
        let mut in_place = AeadConfig::contiguous();
        in_place.text.placement = Placement::InPlace;
        assert_eq!(untouched(&in_place, &ct, &ct), None);
        assert_eq!(
            untouched(&in_place, &ct, &[0, 0, 0]),
            Some(Problem::OutputWritten)
        );
        let mut oop = AeadConfig::contiguous();
        oop.text.placement = Placement::OutOfPlace;
        assert_eq!(untouched(&oop, &ct, &[POISON; 3]), None);
        assert_eq!(
            untouched(&oop, &ct, &[POISON, 0, POISON]),
            Some(Problem::OutputWritten)
        );
        assert_eq!(
            untouched(&oop, &ct, &[POISON; 2]),
            Some(Problem::OutputWritten)
        );
    }

    #[test]
    fn inauthentic_descriptions_name_the_input() {
        let s = shape();
        let descs: Vec<String> = (0..400)
            .map(|i| RandomAeadCase::generate(i, &s).describe_inauthentic())
            .collect();
        for want in [
            "novrfy=1 flip=aad:",
            "novrfy=1 flip=text:",
            "novrfy=1 flip=tag:",
            "novrfy=1 tag=truncated:",
            "novrfy=1 random=ciphertext+tag",
        ] {
            assert!(descs.iter().any(|d| d.contains(want)), "{want}");
        }
    }
}
