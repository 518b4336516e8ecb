//! The modes over real AES: the standards' known answers (SP 800-38A appendix F, RFC 3686,
//! IEEE 1619-2007 annex B, read from the self-test data files, at least as many as each
//! test names), longer vectors cross-checked with OpenSSL (Python `cryptography`), the
//! instances the templates build from the registered `aes-generic` record, and every
//! other registered AES driver that runs on this CPU against it.

use cryptoreg_registry::{
    inventory, AlgDef, BlockCipherImpl, Child, CpuInfo, DriverInfo, Factory, HostFeatures,
    SkcipherImpl,
};

use super::tests::as_child;
use super::{cbc, ctr, ecb, xts};
use crate::aes::AesGeneric;
use crate::testing::vectors as test_vectors;

fn aes() -> Box<dyn BlockCipherImpl> {
    Box::new(AesGeneric::new())
}

fn h(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

fn keyed(mut m: Box<dyn SkcipherImpl>, key: &[u8]) -> Box<dyn SkcipherImpl> {
    m.set_key(key).unwrap();
    m
}

/// Encrypts and decrypts one vector: one-shot, and split at every block boundary of the
/// body into two `*_blocks` calls followed by the tail call.
fn check(m: &dyn SkcipherImpl, what: &str, iv: &[u8], pt: &[u8], ct: &[u8]) {
    let mut buf = pt.to_vec();
    m.encrypt(iv, &mut buf).unwrap();
    assert_eq!(hex::encode(&buf), hex::encode(ct), "{what}: encrypt");
    m.decrypt(iv, &mut buf).unwrap();
    assert_eq!(hex::encode(&buf), hex::encode(pt), "{what}: decrypt");

    let tail = m.tail_len(pt.len()).unwrap();
    let body = pt.len() - tail;
    for cut in (0..=body).step_by(16) {
        for (encrypt, input, want) in [(true, pt, ct), (false, ct, pt)] {
            let mut buf = input.to_vec();
            let mut state = [0u8; 16];
            m.start(iv, &mut state).unwrap();
            let (a, rest) = buf.split_at_mut(cut);
            let (b, t) = rest.split_at_mut(body - cut);
            if encrypt {
                m.encrypt_blocks(&mut state, a);
                m.encrypt_blocks(&mut state, b);
                m.encrypt_tail(&mut state, t);
            } else {
                m.decrypt_blocks(&mut state, a);
                m.decrypt_blocks(&mut state, b);
                m.decrypt_tail(&mut state, t);
            }
            assert_eq!(buf, want, "{what}: split at {cut}, encrypt={encrypt}");
        }
    }
}

/// Runs every known answer of `alg` through a fresh instance from `make`: the ones that
/// must succeed with [`check`] (and, when `cut` is set, cut three bytes short so a
/// partial last block takes a keystream prefix), the ones that must be refused with
/// [`test_vectors::check_refused`]. `min_ok` and `min_refused` are the counts
/// the test expects at least (the accessors assert them).
fn check_standard(
    alg: &str,
    min_ok: usize,
    min_refused: usize,
    cut: bool,
    make: impl Fn() -> Box<dyn SkcipherImpl>,
) {
    let ok = test_vectors::ok(alg, min_ok);
    for v in &ok {
        let m = keyed(make(), &v.key);
        check(m.as_ref(), &v.source, &v.iv, &v.plaintext, &v.ciphertext);
        if cut {
            let n = v.plaintext.len() - 3;
            let what = format!("{} cut to {n}", v.source);
            check(
                m.as_ref(),
                &what,
                &v.iv,
                &v.plaintext[..n],
                &v.ciphertext[..n],
            );
        }
    }
    for v in &test_vectors::refused(alg, min_refused) {
        test_vectors::check_refused(make().as_mut(), v);
    }
}

/// SP 800-38A F.1.1-F.1.6 (ECB-AES128/192/256), from `selftest/vectors/ecb_aes.toml`.
#[test]
fn sp800_38a_ecb() {
    check_standard("ecb(aes)", 3, 0, false, || ecb::ecb_over_cipher(aes));
}

/// SP 800-38A F.2.1-F.2.6 (CBC-AES128/192/256), from `selftest/vectors/cbc_aes.toml`.
#[test]
fn sp800_38a_cbc() {
    check_standard("cbc(aes)", 3, 0, false, || cbc::cbc_over_cipher(aes));
}

/// SP 800-38A F.5.1-F.5.6 (CTR-AES128/192/256) and RFC 3686 vectors 3, 6, 9, from
/// `selftest/vectors/ctr_aes.toml`: whole and cut three bytes short.
#[test]
fn sp800_38a_ctr() {
    check_standard("ctr(aes)", 6, 0, true, || ctr::ctr_over_cipher(aes));
}

/// Every IEEE 1619-2007 annex B vector in `selftest/vectors/xts_aes.toml`: 18 known
/// answers (whole blocks, 512-byte units with AES-128 and AES-256, ciphertext stealing)
/// and vector 1, whose equal key halves must be refused.
#[test]
fn ieee1619_xts() {
    check_standard("xts(aes)", 18, 1, false, || xts::xts_over_cipher(aes));
}

/// Longer requests that cross the 32-block batch, checked against OpenSSL through
/// Python `cryptography` 48 (first block and last 48 bytes), with the key `00..1f`, the
/// plaintext `(7i + 3) mod 256` and, for CTR, a counter that wraps from `ff..ff` to zero
/// at block 32.
#[test]
fn long_requests_match_openssl() {
    let key: Vec<u8> = (0..32).collect();
    let pt: Vec<u8> = (0..1037).map(|i| ((i * 7 + 3) % 256) as u8).collect();
    let iv = h("0123456789abcdeffedcba9876543210");
    let cases = [
        (
            xts::xts_over_cipher(aes),
            iv.clone(),
            1037,
            "e9da10585db3f62b88d4a50ceb8a5b52",
            "bdaccde7096fedf6675cc992385fa431ca2687ff7ebd901094fd031cf07b241b\
             6f6f45737e26a17eedc2bc1a67852419",
        ),
        (
            ctr::ctr_over_cipher(aes),
            h("ffffffffffffffffffffffffffffffe0"),
            1037,
            "9409aa26d87a9f68a8b5c3bbcf42a825",
            "74e0f28c12077f011c48519f944f357bca8a6472b5dd4098cda877c698162870\
             97f58ee1da2a3193e599e8880dd2b954",
        ),
        (
            cbc::cbc_over_cipher(aes),
            iv.clone(),
            1024,
            "b1ef41eb08a62522a8c9938ed805d9b5",
            "353bfe7ac5eabf12852c5ebe0fa3fce7fda9ba494e8408890718ca3de2d505ab\
             44e93bfdbfd525462b836af8b2aa934f",
        ),
    ];
    for (m, iv, len, head, end) in cases {
        let m = keyed(m, &key);
        let mut buf = pt[..len].to_vec();
        m.encrypt(&iv, &mut buf).unwrap();
        assert_eq!(hex::encode(&buf[..16]), head, "len {len}");
        assert_eq!(hex::encode(&buf[len - 48..]), end, "len {len}");
        m.decrypt(&iv, &mut buf).unwrap();
        assert_eq!(buf, pt[..len]);
    }
}

/// Round trips for every length 16..=100 and some large ones, all key sizes.
#[test]
fn aes_round_trips() {
    let lens = (16..=100).chain([255, 256, 511, 512, 513, 4096, 4111, 65536 + 31]);
    for (klen, xklen) in [(16, 32), (24, 48), (32, 64)] {
        let key: Vec<u8> = (0..xklen as u8)
            .map(|b| b.wrapping_mul(29) ^ 0x5c)
            .collect();
        let modes = [
            (keyed(ecb::ecb_over_cipher(aes), &key[..klen]), 0, 16),
            (keyed(cbc::cbc_over_cipher(aes), &key[..klen]), 16, 16),
            (keyed(ctr::ctr_over_cipher(aes), &key[..klen]), 16, 1),
            (keyed(xts::xts_over_cipher(aes), &key), 16, 1),
        ];
        for (m, iv_len, granule) in &modes {
            let iv = &key[..*iv_len];
            for len in lens.clone().filter(|l| l % granule == 0) {
                let pt: Vec<u8> = (0..len).map(|i| (i * 13 + len) as u8).collect();
                let mut buf = pt.clone();
                m.encrypt(iv, &mut buf).unwrap();
                assert_ne!(buf, pt);
                m.decrypt(iv, &mut buf).unwrap();
                assert_eq!(buf, pt, "len {len} klen {klen}");
            }
        }
    }
}

fn registered(driver: &str) -> Option<DriverInfo> {
    inventory::iter::<AlgDef>
        .into_iter()
        .find(|d| d.driver() == driver)
        .map(AlgDef::to_info)
}

fn skcipher(info: &DriverInfo, key: &[u8]) -> Box<dyn SkcipherImpl> {
    let Factory::Skcipher(f) = &info.factory() else {
        panic!("{} is not an skcipher", info.driver())
    };
    keyed(f(&HostFeatures::detect()).unwrap(), key)
}

/// The instances built from the registered `aes-generic` record carry the kernel's
/// names and priority 100 and compute the standard answers.
#[test]
fn instances_over_registered_aes_generic() {
    let aes = registered("aes-generic").expect("aes-generic is registered");
    let ecb_inst = ecb::create(&[as_child(&aes)]).unwrap();
    assert_eq!(
        (ecb_inst.name(), ecb_inst.driver()),
        ("ecb(aes)", "ecb(aes-generic)")
    );
    let xts_inst = xts::create(&[as_child(&ecb_inst)]).unwrap();
    assert_eq!(
        (xts_inst.name(), xts_inst.driver(), xts_inst.base_priority()),
        ("xts(aes)", "xts(ecb(aes-generic))", 100)
    );
    assert_eq!(
        (xts_inst.sizes().min_key, xts_inst.sizes().max_key),
        (32, 64)
    );
    for v in test_vectors::ok("xts(aes)", 18) {
        let m = skcipher(&xts_inst, &v.key);
        check(m.as_ref(), &v.source, &v.iv, &v.plaintext, &v.ciphertext);
    }
    for v in test_vectors::refused("xts(aes)", 1) {
        let Factory::Skcipher(f) = &xts_inst.factory() else {
            unreachable!("checked by skcipher() above")
        };
        test_vectors::check_refused(f(&HostFeatures::detect()).unwrap().as_mut(), &v);
    }
    let cbc_inst = cbc::create(&[as_child(&aes)]).unwrap();
    assert_eq!(cbc_inst.driver(), "cbc(aes-generic)");
    let ctr_inst = ctr::create(&[as_child(&aes)]).unwrap();
    assert_eq!(
        (ctr_inst.driver(), ctr_inst.block_size()),
        ("ctr(aes-generic)", 1)
    );
}

/// Every other registered `aes` cipher and `ecb(aes)` skcipher that this CPU runs gives
/// the same answers as the generic path when the templates wrap it (the AES-NI drivers,
/// once they exist; vacuous otherwise).
#[test]
fn instances_over_other_registered_aes_drivers_agree() {
    let cpu = CpuInfo::native();
    let runs = |d: &AlgDef| d.to_info().requires().minus(cpu.features).is_empty();
    let key: Vec<u8> = (0..64u8).map(|b| b.wrapping_mul(57) ^ 0xa3).collect();
    let iv = &key[40..56];
    let data: Vec<u8> = (0..4096 + 45).map(|i| (i * 31 + 7) as u8).collect();
    let reference = |m: Box<dyn SkcipherImpl>, len: usize| {
        let mut buf = data[..len].to_vec();
        m.encrypt(iv, &mut buf).unwrap();
        buf
    };
    for def in inventory::iter::<AlgDef>.into_iter().filter(|d| runs(d)) {
        let info = def.to_info();
        let xts_over = match (def.name(), &info.factory()) {
            ("aes", Factory::Cipher(_)) if def.driver() != "aes-generic" => {
                for (create, generic, len) in [
                    (
                        ecb::create as fn(&[Child]) -> _,
                        ecb::ecb_over_cipher as fn(_) -> _,
                        4096,
                    ),
                    (cbc::create, cbc::cbc_over_cipher, 4096),
                    (ctr::create, ctr::ctr_over_cipher, 4096 + 45),
                ] {
                    let inst = create(&[as_child(&info)]).unwrap();
                    let ivl = inst.iv_size();
                    let mut got = data[..len].to_vec();
                    skcipher(&inst, &key[..32])
                        .encrypt(&iv[..ivl], &mut got)
                        .unwrap();
                    let mut want = data[..len].to_vec();
                    keyed(generic(aes), &key[..32])
                        .encrypt(&iv[..ivl], &mut want)
                        .unwrap();
                    assert_eq!(got, want, "{}", inst.driver());
                }
                ecb::create(&[as_child(&info)]).unwrap()
            }
            ("ecb(aes)", Factory::Skcipher(_)) => info,
            _ => continue,
        };
        let inst = xts::create(&[as_child(&xts_over)]).unwrap();
        assert_eq!(inst.name(), "xts(aes)");
        for len in [16, 17, 31, 512, 527, 4096 + 45] {
            let mut got = data[..len].to_vec();
            skcipher(&inst, &key).encrypt(iv, &mut got).unwrap();
            assert_eq!(
                got,
                reference(keyed(xts::xts_over_cipher(aes), &key), len),
                "{} len {len}",
                inst.driver()
            );
        }
    }
}
