//! The standards' known answers for this crate's unit tests, read from the self-test data
//! files (`selftest/vectors/*.toml`, embedded by `cryptoreg-selftest`). Those files are the
//! only copy of the vectors; tests here never keep their own.
//!
//! Every accessor takes the smallest number of vectors the calling test expects and fails
//! when the file holds fewer, so an emptied or truncated file cannot make a test pass
//! without checking anything.

use cryptoreg_registry::{Error, SkcipherImpl};
use cryptoreg_selftest::VectorSet;
pub(crate) use cryptoreg_selftest::{Expect, Vector};

/// Every vector of `algorithm`, those that must be refused included; at least `min`.
pub(crate) fn all(algorithm: &str, min: usize) -> Vec<Vector> {
    let set = VectorSet::embedded();
    let v = set.get(algorithm).unwrap_or_default().to_vec();
    assert!(
        v.len() >= min,
        "{algorithm}: {} embedded vectors, the test expects at least {min}",
        v.len()
    );
    v
}

fn filtered(algorithm: &str, min: usize, keep: impl Fn(Expect) -> bool, what: &str) -> Vec<Vector> {
    let v: Vec<Vector> = all(algorithm, 0)
        .into_iter()
        .filter(|v| keep(v.expect))
        .collect();
    assert!(
        v.len() >= min,
        "{algorithm}: {} {what} vectors, the test expects at least {min}",
        v.len()
    );
    v
}

/// The vectors of `algorithm` that must encrypt to their ciphertext; at least `min`.
pub(crate) fn ok(algorithm: &str, min: usize) -> Vec<Vector> {
    filtered(algorithm, min, |e| e == Expect::Ok, "known-answer")
}

/// The vectors of `algorithm` that a driver must refuse (a weak or wrongly sized key, a
/// bad data length); at least `min`.
pub(crate) fn refused(algorithm: &str, min: usize) -> Vec<Vector> {
    filtered(algorithm, min, |e| e != Expect::Ok, "refusal")
}

/// Checks that `drv` refuses `v` the way the vector says: at `set_key` for a weak or
/// wrongly sized key, in both directions (data untouched) for a bad data length.
pub(crate) fn check_refused(drv: &mut dyn SkcipherImpl, v: &Vector) {
    let what = &v.source;
    let keyed = drv.set_key(&v.key);
    match v.expect {
        Expect::Ok => panic!("{what}: not a refusal vector"),
        Expect::WeakKey => assert!(matches!(keyed, Err(Error::WeakKey(_))), "{what}: {keyed:?}"),
        Expect::InvalidKeyLength => assert!(
            matches!(keyed, Err(Error::InvalidKeyLength { .. })),
            "{what}: {keyed:?}"
        ),
        Expect::InvalidLength => {
            keyed.unwrap_or_else(|e| panic!("{what}: set_key: {e}"));
            for encrypt in [true, false] {
                let mut buf = v.plaintext.clone();
                let r = if encrypt {
                    drv.encrypt(&v.iv, &mut buf)
                } else {
                    drv.decrypt(&v.iv, &mut buf)
                };
                assert!(
                    matches!(r, Err(Error::InvalidLength { .. })),
                    "{what}: encrypt={encrypt}: {r:?}"
                );
                assert_eq!(buf, v.plaintext, "{what}: data untouched on error");
            }
        }
    }
}

/// The AEAD vectors of `algorithm` (authentic and `fail` ones); at least `min`.
pub(crate) fn aead(algorithm: &str, min: usize) -> Vec<cryptoreg_selftest::AeadVector> {
    let set = VectorSet::embedded();
    let v = set.get_aead(algorithm).unwrap_or_default().to_vec();
    assert!(
        v.len() >= min,
        "{algorithm}: {} embedded AEAD vectors, the test expects at least {min}",
        v.len()
    );
    v
}
