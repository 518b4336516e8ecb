//! One runner per algorithm type, behind one dispatch. Block ciphers and skciphers share
//! the generic known-answer (`kat`) and randomized (`random`) runners through the
//! `exec::Handle` trait; AEADs (`runner/aead.rs`) and hashes (`runner/hash.rs`) have their own, because
//! their operations and layouts differ (AAD, tags and inauthentic inputs; updates,
//! finalizations and export/import). All share the seeds, the tally and the replayable
//! line format of `report`.

use std::sync::Arc;

use cryptoreg_registry::names::build_generic_driver_name;
use cryptoreg_registry::{AlgType, DriverInfo, SelftestMode, TestHost, TestParams};

use crate::report::{driver_line, Tally};
use crate::vectors::VectorSet;
use crate::{kat, random};

mod aead;
mod hash;
pub mod layout;

/// Runs the test `params` asks for on `info`: the known answers then (mode `full`) the
/// randomized cases, or (replay) the one randomized case. An algorithm with no vectors of
/// its type fails with `no test vectors for NAME`.
pub(crate) fn run(
    host: &dyn TestHost,
    info: &Arc<DriverInfo>,
    vectors: &VectorSet,
    params: &TestParams,
    tally: &mut Tally,
) {
    let ty = info.alg_type();
    let reference = match vectors.generic_driver(info.name()) {
        Some(d) => d.to_string(),
        None => match build_generic_driver_name(info.name()) {
            Ok(n) => n,
            // A driver registered under an invalid algorithm name has no reference.
            Err(e) => {
                return tally
                    .failures
                    .push(driver_line(ty, info.driver(), &e.to_string()))
            }
        },
    };
    let full = params.replay || params.mode == SelftestMode::Full;
    let missing = || {
        let msg = format!("no test vectors for {}", info.name());
        driver_line(ty, info.driver(), &msg)
    };
    match ty {
        AlgType::Cipher | AlgType::Skcipher => {
            if !params.replay {
                let Some(v) = vectors.get(info.name()) else {
                    return tally.failures.push(missing());
                };
                kat::run(info, &host.host_token(), v, tally);
            }
            if full {
                random::run(host, info, &reference, params, tally);
            }
        }
        AlgType::Aead => {
            if !params.replay {
                let Some(v) = vectors.get_aead(info.name()) else {
                    return tally.failures.push(missing());
                };
                aead::run_kat(info, &host.host_token(), v, tally);
            }
            if full {
                aead::run_random(host, info, &reference, params, tally);
            }
        }
        AlgType::Hash => {
            if !params.replay {
                let Some(v) = vectors.get_hash(info.name()) else {
                    return tally.failures.push(missing());
                };
                hash::run_kat(info, &host.host_token(), v, tally);
            }
            if full {
                hash::run_random(host, info, &reference, params, tally);
            }
        }
        _ => {
            let msg = format!("no self-test runner for {ty} algorithms");
            tally.failures.push(driver_line(ty, info.driver(), &msg));
        }
    }
}
