//! The GHASH frame and `ghash-generic`: the standard vectors (read from
//! `selftest/vectors/ghash.toml`), an independent bitwise reference (SP 800-38D Algorithm 1),
//! every split of the input, export/import and the refusals.

use super::generic::{gf128_mul, ghash_generic};
use super::*;
use cryptoreg_selftest::VectorSet;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// SP 800-38D Algorithm 1, one bit at a time: the reference multiply.
fn gf128_mul_bitwise(x: u128, y: u128) -> u128 {
    const R: u128 = 0xe1 << 120;
    let mut z = 0;
    let mut v = y;
    for i in (0..128).rev() {
        if (x >> i) & 1 == 1 {
            z ^= v;
        }
        v = if v & 1 == 1 { (v >> 1) ^ R } else { v >> 1 };
    }
    z
}

/// GHASH with the reference multiply, zero-padding the last block.
fn ghash_reference(h: &[u8; 16], msg: &[u8]) -> [u8; 16] {
    let h = u128::from_be_bytes(*h);
    let mut y = 0u128;
    for c in msg.chunks(16) {
        let mut b = [0u8; 16];
        b[..c.len()].copy_from_slice(c);
        y = gf128_mul_bitwise(y ^ u128::from_be_bytes(b), h);
    }
    y.to_be_bytes()
}

pub(crate) fn ghash_vectors() -> Vec<cryptoreg_selftest::HashVector> {
    let v = VectorSet::embedded()
        .get_hash("ghash")
        .unwrap_or_default()
        .to_vec();
    assert!(v.len() >= 11, "ghash.toml holds {} vectors", v.len());
    v
}

#[test]
fn gf128_mul_matches_algorithm_1() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    for i in 0..3000 {
        let (a, b): (u128, u128) = match i {
            0 => (u128::MAX, u128::MAX),
            1 => (1, 1 << 127),
            2 => (1 << 127, rng.gen()),
            _ => (rng.gen(), rng.gen()),
        };
        assert_eq!(gf128_mul(a, b), gf128_mul_bitwise(a, b), "{a:x} {b:x}");
    }
    // x^0 (the MSB) is the multiplicative identity.
    assert_eq!(gf128_mul(1 << 127, 0x1234), 0x1234);
}

#[test]
fn generic_passes_the_standard_vectors() {
    for v in ghash_vectors() {
        let mut d = ghash_generic();
        d.set_key(&v.key).unwrap();
        let mut out = [0u8; 16];
        d.digest(&v.message, &mut out);
        assert_eq!(out[..], v.digest[..], "{}", v.source);
        let h: [u8; 16] = v.key[..].try_into().unwrap();
        assert_eq!(
            ghash_reference(&h, &v.message)[..],
            v.digest[..],
            "{}",
            v.source
        );
    }
}

/// `digest`, every two-way split through `update`, byte-by-byte, and export/import at each
/// split point agree with the reference.
pub(crate) fn check_driver_splits(d: &dyn HashImpl, h: &[u8; 16], msg: &[u8]) {
    let want = ghash_reference(h, msg);
    let mut out = [0u8; 16];
    d.digest(msg, &mut out);
    assert_eq!(out, want, "digest len {}", msg.len());
    for cut in 0..=msg.len() {
        let mut st = d.init();
        st.update(&msg[..cut]);
        let exported = st.export();
        st.update(&msg[cut..]);
        st.finalize(&mut out);
        assert_eq!(out, want, "split at {cut} of {}", msg.len());
        let mut other = d.init();
        other.update(b"garbage that import replaces");
        other.import(&exported).unwrap();
        other.finup(&msg[cut..], &mut out);
        assert_eq!(out, want, "import at {cut} of {}", msg.len());
    }
    let mut st = d.init();
    for b in msg {
        st.update(std::slice::from_ref(b));
    }
    st.finalize(&mut out);
    assert_eq!(out, want, "bytewise len {}", msg.len());
}

#[test]
fn generic_agrees_with_the_reference_on_every_split() {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let mut d = ghash_generic();
    for len in [0usize, 1, 15, 16, 17, 31, 32, 33, 64, 100, 129, 257] {
        let h: [u8; 16] = rng.gen();
        d.set_key(&h).unwrap();
        let msg: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        check_driver_splits(&d, &h, &msg);
    }
}

#[test]
fn refusals_are_errors() {
    let mut d = ghash_generic();
    for len in [0, 15, 17, 32] {
        assert!(matches!(
            d.set_key(&vec![1; len]),
            Err(Error::InvalidKeyLength { len: l, .. }) if l == len
        ));
    }
    // A refused key also drops the previous one (H = 0 hashes everything to zero).
    d.set_key(&[9; 16]).unwrap();
    assert!(d.set_key(&[9; 15]).is_err());
    let mut out = [1u8; 16];
    d.digest(b"some message", &mut out);
    assert_eq!(out, [0; 16]);
    d.set_key(&[7; 16]).unwrap();
    let mut st = d.init();
    st.update(b"abc");
    let good = st.export();
    assert_eq!(good.len(), 33);
    assert_eq!(good[16], 3);
    let mut bad = good.to_vec();
    assert!(matches!(
        st.import(&bad[..32]),
        Err(Error::InvalidHashState(_))
    ));
    bad[16] = 16;
    assert!(matches!(st.import(&bad), Err(Error::InvalidHashState(_))));
    bad[16] = 2; // claims 2 buffered bytes but byte 3 is set
    assert!(matches!(st.import(&bad), Err(Error::InvalidHashState(_))));
    // A refused import leaves the state as it was.
    let mut out = [0u8; 16];
    st.finup(b"def", &mut out);
    let mut want = [0u8; 16];
    d.digest(b"abcdef", &mut want);
    assert_eq!(out, want);
}
