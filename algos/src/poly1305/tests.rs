//! Poly1305: the standards' vectors (from `selftest/vectors/poly1305.toml`) through every
//! path, random update splits, and export / import, including refused states.

use super::*;
use cryptoreg_registry::{Error, HashImpl};
use cryptoreg_selftest::VectorSet;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn keyed(key: &[u8]) -> Poly1305Generic {
    let mut p = Poly1305Generic::new();
    p.set_key(key).unwrap();
    p
}

#[test]
fn standard_vectors_one_shot_and_byte_by_byte() {
    let set = VectorSet::embedded();
    let vs = set.get_hash("poly1305").unwrap();
    assert!(vs.len() >= 12, "RFC 8439 2.5.2 and A.3 #1-#11");
    for v in vs {
        let p = keyed(&v.key);
        let mut out = [0u8; 16];
        p.digest(&v.message, &mut out);
        assert_eq!(out.to_vec(), v.digest, "{}", v.source);
        let mut st = p.init();
        for b in &v.message {
            st.update(std::slice::from_ref(b));
        }
        let mut out2 = [0u8; 16];
        st.finalize(&mut out2);
        assert_eq!(out2.to_vec(), v.digest, "{} byte by byte", v.source);
    }
}

#[test]
fn key_length_is_32() {
    let mut p = Poly1305Generic::new();
    for len in [0, 16, 31, 33, 64] {
        assert!(matches!(
            p.set_key(&vec![1; len]),
            Err(Error::InvalidKeyLength { .. })
        ));
    }
}

/// Random splits, with export / import into a fresh state between updates and a finup at
/// the end, always give the one-shot tag.
#[test]
fn random_splits_and_export_import() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x0090_1305);
    for _ in 0..300 {
        let key: [u8; 32] = rng.gen();
        let len = rng.gen_range(0..300);
        let msg: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let p = keyed(&key);
        let mut want = [0u8; 16];
        p.digest(&msg, &mut want);
        let mut st = p.init();
        let mut at = 0;
        while at < len {
            let n = rng.gen_range(0..=(len - at).min(40));
            st.update(&msg[at..at + n]);
            at += n;
            if rng.gen_bool(0.3) {
                let saved = st.export();
                assert_eq!(saved.len(), POLY1305_EXPORT_LEN);
                let mut fresh = p.init();
                fresh.import(&saved).unwrap();
                st = fresh;
            }
            if rng.gen_bool(0.2) && at < len {
                break;
            }
        }
        let mut got = [0u8; 16];
        st.finup(&msg[at..], &mut got);
        assert_eq!(got, want, "len {len}");
    }
}

#[test]
fn import_refuses_what_export_cannot_produce() {
    let p = keyed(&[7; 32]);
    let mut st = p.init();
    st.update(&[1, 2, 3]);
    let good = st.export();
    let mut fresh = p.init();
    assert!(fresh.import(&good).is_ok());
    let bad = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = good.to_vec();
        f(&mut b);
        matches!(p.init().import(&b), Err(Error::InvalidHashState(_)))
    };
    assert!(bad(&|b| b.truncate(36)));
    assert!(bad(&|b| b.push(0)));
    assert!(bad(&|b| b[36] = 16));
    assert!(bad(&|b| b[36] = 255));
    assert!(bad(&|b| b[3] = 0x04)); // limb 0 at 2^26
    assert!(bad(&|b| b[30] = 1)); // a byte past the 3-byte partial block
    assert!(p.init().import(&[]).is_err());
    // A refused import leaves the state as it was.
    let mut st2 = p.init();
    st2.update(&[1, 2, 3]);
    assert!(st2.import(&[0; 5]).is_err());
    let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
    st2.finalize(&mut a);
    st.finalize(&mut b);
    assert_eq!(a, b);
}

/// The accumulator export is fully carried: a state with h close to 2^130 survives the
/// round trip (limbs all at their maximum are a valid state).
#[test]
fn import_accepts_every_carried_accumulator() {
    let p = keyed(&[3; 32]);
    let mut max = [0xff, 0xff, 0xff, 0x03].repeat(5);
    max.extend_from_slice(&[0; 17]);
    let mut st = p.init();
    st.import(&max).unwrap();
    let mut other = p.init();
    other.import(&st.export()).unwrap();
    let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
    st.finup(&[9; 20], &mut a);
    other.finup(&[9; 20], &mut b);
    assert_eq!(a, b);
}
