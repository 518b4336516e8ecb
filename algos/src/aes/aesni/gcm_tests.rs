//! `gcm-aes-aesni`: the tests every architecture's `gcm(aes)` driver runs
//! (`crate::aes::gcm_driver_tests`: the GCM specification's cases, the differential test
//! against a plain reference, tampering, refusals).

use super::*;
use crate::aes::gcm_driver_tests as shared;

fn driver() -> Option<Box<dyn AeadImpl>> {
    let host = HostFeatures::detect();
    if !host.has_all(AesNiPclmul::FEATURES) {
        eprintln!("gcm-aes-aesni: no AES-NI/PCLMULQDQ on this CPU, not tested here");
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
        shared::out_of_place_one_shot(d, "gcm-aes-aesni");
    }
}
