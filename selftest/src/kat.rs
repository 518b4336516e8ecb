//! The known-answer runner: every vector of the driver's algorithm, both directions, under
//! each of [`TestConfig::known_answer_configs`] (contiguous, segmented in place at odd
//! points, out of place), plus the key refusals some vectors expect.
//!
//! Handles are built with `from_info`: the driver under test is not resolvable yet.

use std::sync::Arc;

use cryptoreg_registry::{AlgType, Cipher, Direction, DriverInfo, HostFeatures, Skcipher};

use crate::config::TestConfig;
use crate::exec::{misaligned, Handle};
use crate::report::{attempt, driver_line, judge, Case, Expected, Op, Tally};
use crate::vectors::Vector;

/// Runs the known answers for `info` and adds the checks to `tally`. `vectors` is the
/// algorithm's list, already found non-empty.
pub(crate) fn run(
    info: &Arc<DriverInfo>,
    token: &HostFeatures,
    vectors: &[Vector],
    tally: &mut Tally,
) {
    match info.alg_type() {
        AlgType::Skcipher => run_vectors::<Skcipher>(
            info,
            token,
            vectors,
            &TestConfig::known_answer_configs(),
            tally,
        ),
        AlgType::Cipher => run_vectors::<Cipher>(info, token, vectors, &cipher_configs(), tally),
        ty => tally.failures.push(driver_line(
            ty,
            info.driver(),
            &format!("the cipher runner cannot test a {ty} ({})", info.name()),
        )),
    }
}

/// The known-answer run of a driver stops after this many failing vectors; each failing
/// vector reports only its first failing check (one line per failing case).
pub const MAX_FAILING_VECTORS: usize = 5;

/// Runs every vector under every layout in `configs`, stopping after
/// [`MAX_FAILING_VECTORS`] failing vectors.
fn run_vectors<H: Handle>(
    info: &Arc<DriverInfo>,
    token: &HostFeatures,
    vectors: &[Vector],
    configs: &[TestConfig],
    tally: &mut Tally,
) {
    let mut handle = match H::from_info(Arc::clone(info), token) {
        Ok(h) => h,
        Err(e) => {
            let msg = format!("cannot build a handle: {e}");
            return tally
                .failures
                .push(driver_line(info.alg_type(), info.driver(), &msg));
        }
    };
    let mut failing = 0;
    for v in vectors {
        if !run_vector(info, &mut handle, v, configs, tally) {
            failing += 1;
            if failing >= MAX_FAILING_VECTORS {
                break;
            }
        }
    }
}

/// One vector under every layout; returns whether it passed.
fn run_vector<H: Handle>(
    info: &DriverInfo,
    handle: &mut H,
    v: &Vector,
    configs: &[TestConfig],
    tally: &mut Tally,
) -> bool {
    let (ty, driver) = (info.alg_type(), info.driver());
    for cfg in configs {
        let case = Case {
            vector: &v.source,
            cfg: Some(cfg),
            seed: None,
        };
        let key_buf = misaligned(&v.key, cfg.key_offset);
        let keyed = attempt(|| {
            handle
                .set_key(&key_buf[cfg.key_offset..])
                .map(|()| Vec::new())
        });
        if v.expect.rejects_key() {
            // A refused key needs no other layout.
            let want = Expected::refused(v.expect.error_kind().unwrap_or_default());
            return tally.check(ty, driver, Op::SetKey, judge(&want, &keyed), &case);
        }
        if !tally.check(
            ty,
            driver,
            Op::SetKey,
            judge(&Expected::accepted(), &keyed),
            &case,
        ) {
            return false;
        }
        let refusal = v.expect.error_kind();
        let enc = attempt(|| handle.crypt_cfg(Direction::Encrypt, &v.iv, &v.plaintext, cfg));
        let want = refusal.map_or(Expected::Bytes(&v.ciphertext), Expected::refused);
        if !tally.check(ty, driver, Op::Encryption, judge(&want, &enc), &case) {
            return false;
        }
        let dec = attempt(|| handle.crypt_cfg(Direction::Decrypt, &v.iv, &v.ciphertext, cfg));
        let want = refusal.map_or(Expected::Bytes(&v.plaintext), Expected::refused);
        if !tally.check(ty, driver, Op::Decryption, judge(&want, &dec), &case) {
            return false;
        }
    }
    true
}

/// A block cipher takes one buffer: aligned, and misaligned with a misaligned key.
fn cipher_configs() -> Vec<TestConfig> {
    let mut misaligned = TestConfig::contiguous();
    misaligned.src_divs[0].offset = 7;
    misaligned.key_offset = 3;
    vec![TestConfig::contiguous(), misaligned]
}
