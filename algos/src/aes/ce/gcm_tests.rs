//! `gcm-aes-ce`: the tests every architecture's `gcm(aes)` driver runs
//! (`crate::aes::gcm_driver_tests`: the GCM specification's cases, the differential test
//! against a plain reference, tampering, refusals, the out-of-place one-shot calls), and
//! its own overlapping-tail test.

use super::*;
use crate::aes::gcm_driver_tests::{self as shared, reference};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

fn driver() -> Option<Box<dyn AeadImpl>> {
    let host = HostFeatures::detect();
    if !host.has_all(AesPmull::FEATURES) {
        eprintln!("SKIPPED gcm-aes-ce: no AES/PMULL on this CPU");
        return None;
    }
    Some(new_gcm(&host).unwrap())
}

#[test]
fn passes_the_spec_one_shot_and_streaming() {
    if let Some(d) = driver() {
        shared::passes_the_spec_one_shot_and_streaming(d);
    }
}

#[test]
fn agrees_with_the_reference_and_refuses_tampering() {
    if let Some(d) = driver() {
        shared::agrees_with_the_reference_and_refuses_tampering(d);
    }
}

#[test]
fn refusals_are_errors() {
    if let Some(d) = driver() {
        shared::refusals_are_errors(d);
    }
}

#[test]
fn writes_exactly_the_tag() {
    if let Some(d) = driver() {
        shared::writes_exactly_the_tag(d);
    }
}

#[test]
fn out_of_place_one_shot() {
    if let Some(d) = driver() {
        shared::out_of_place_one_shot(d, DRIVER);
    }
}

/// The overlapping tail (`Gcm::tail_overlapped`): a whole text in one streaming call, in
/// place and out of place into a destination full of other bytes, for every length with
/// a partial last block from 17 to 200, both directions, against the reference.
#[test]
fn overlapping_tail_in_place_and_out_of_place() {
    let Some(mut d) = driver() else { return };
    let mut rng = ChaCha20Rng::seed_from_u64(0x7a11);
    for len in (17..=200).filter(|l| l % 16 != 0) {
        let key: Vec<u8> = (0..16).map(|_| rng.gen()).collect();
        d.set_key(&key).unwrap();
        let nonce: [u8; 12] = rng.gen();
        let aad: Vec<u8> = (0..rng.gen_range(0..40)).map(|_| rng.gen()).collect();
        let pt: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let (want_ct, want_tag) = reference(&key, &nonce, &aad, &pt);
        for (encrypt, input, want) in [(true, &pt, &want_ct), (false, &want_ct, &pt)] {
            for split in [false, true] {
                let lens = AeadLens {
                    aad: aad.len(),
                    text: len,
                    authsize: 16,
                };
                let mut st = AeadState::new();
                d.start(&mut st, &nonce, lens).unwrap();
                d.absorb_aad_tail(&mut st, &aad);
                let mut out: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                let io = if split {
                    InOut::split(input, &mut out).unwrap()
                } else {
                    out.copy_from_slice(input);
                    InOut::InPlace(&mut out)
                };
                if encrypt {
                    d.encrypt_tail(&mut st, io)
                } else {
                    d.decrypt_tail(&mut st, io)
                }
                let mut tag = [0u8; 16];
                d.finish(&mut st, &mut tag);
                let what = format!("len={len} encrypt={encrypt} split={split}");
                assert_eq!(&out, want, "{what}");
                assert_eq!(tag, want_tag, "{what}: tag");
            }
        }
    }
}
