//! The modes over real AES: the standards' known answers (SP 800-38A appendix F, IEEE
//! 1619-2007 annex B), longer vectors cross-checked with OpenSSL (Python `cryptography`),
//! the instances the templates build from the registered `aes-generic` record, and every
//! other registered AES driver that runs on this CPU against it.

use cryptoreg_registry::{
    inventory, AlgDef, BlockCipherImpl, Child, CpuInfo, DriverInfo, Factory, HostFeatures,
    SkcipherImpl,
};

use super::tests::as_child;
use super::{cbc, ctr, ecb, xts};
use crate::aes::AesGeneric;

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

const SP_PT: &str = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51\
                     30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
const SP_K128: &str = "2b7e151628aed2a6abf7158809cf4f3c";
const SP_K256: &str = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4";
const SP_CBC_IV: &str = "000102030405060708090a0b0c0d0e0f";
const SP_CTR_IV: &str = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/// SP 800-38A F.1.1/F.1.2 (ECB-AES128) and F.1.5/F.1.6 (ECB-AES256).
#[test]
fn sp800_38a_ecb() {
    for (key, ct) in [
        (
            SP_K128,
            "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf\
             43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4",
        ),
        (
            SP_K256,
            "f3eed1bdb5d2a03c064b5a7e3db181f8591ccb10d410ed26dc5ba74a31362870\
             b6ed21b99ca6f4f9f153e7b1beafed1d23304b7a39f9f3ff067d8d8f9e24ecc7",
        ),
    ] {
        let m = keyed(ecb::ecb_over_cipher(aes), &h(key));
        check(m.as_ref(), "ecb", &[], &h(SP_PT), &h(ct));
    }
}

/// SP 800-38A F.2.1/F.2.2 (CBC-AES128) and F.2.5/F.2.6 (CBC-AES256).
#[test]
fn sp800_38a_cbc() {
    for (key, ct) in [
        (
            SP_K128,
            "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2\
             73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7",
        ),
        (
            SP_K256,
            "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d\
             39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b",
        ),
    ] {
        let m = keyed(cbc::cbc_over_cipher(aes), &h(key));
        check(m.as_ref(), "cbc", &h(SP_CBC_IV), &h(SP_PT), &h(ct));
    }
}

/// SP 800-38A F.5.1/F.5.2 (CTR-AES128) and F.5.5/F.5.6 (CTR-AES256), whole and cut to
/// 61 bytes (a partial last block takes a keystream prefix).
#[test]
fn sp800_38a_ctr() {
    for (key, ct) in [
        (
            SP_K128,
            "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff\
             5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee",
        ),
        (
            SP_K256,
            "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5\
             2b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6",
        ),
    ] {
        let m = keyed(ctr::ctr_over_cipher(aes), &h(key));
        check(m.as_ref(), "ctr", &h(SP_CTR_IV), &h(SP_PT), &h(ct));
        check(
            m.as_ref(),
            "ctr 61",
            &h(SP_CTR_IV),
            &h(SP_PT)[..61],
            &h(ct)[..61],
        );
    }
}

const IEEE_V4_KEY: &str = "2718281828459045235360287471352631415926535897932384626433832795";
const IEEE_V4_CT: &str = "27a7479befa1d476489f308cd4cfa6e2a96e4bbe3208ff25287dd3819616e89c\
    c78cf7f5e543445f8333d8fa7f56000005279fa5d8b5e4ad40e736ddb4d35412328063fd2aab53e5ea1e0a9f33\
    2500a5df9487d07a5c92cc512c8866c7e860ce93fdf166a24912b422976146ae20ce846bb7dc9ba94a767aae\
    f20c0d61ad02655ea92dc4c4e41a8952c651d33174be51a10c421110e6d81588ede82103a252d8a750e8768d\
    efffed9122810aaeb99f9172af82b604dc4b8e51bcb08235a6f4341332e4ca60482a4ba1a03b3e65008fc5da\
    76b70bf1690db4eae29c5f1badd03c5ccf2a55d705ddcd86d449511ceb7ec30bf12b1fa35b913f9f747a8afd\
    1b130e94bff94effd01a91735ca1726acd0b197c4e5b03393697e126826fb6bbde8ecc1e08298516e2c9ed03\
    ff3c1b7860f6de76d4cecd94c8119855ef5297ca67e9f3e7ff72b1e99785ca0a7e7720c5b36dc6d72cac9574\
    c8cbbc2f801e23e56fd344b07f22154beba0f08ce8891e643ed995c94d9a69c9f1b5f499027a78572aeebd74\
    d20cc39881c213ee770b1010e4bea718846977ae119f7a023ab58cca0ad752afe656bb3c17256a9f6e9bf19f\
    dd5a38fc82bbe872c5539edb609ef4f79c203ebb140f2e583cb2ad15b4aa5b655016a8449277dbd477ef2c8d\
    6c017db738b18deb4a427d1923ce3ff262735779a418f20a282df920147beabe421ee5319d0568";
const IEEE_V10_KEY: &str = "2718281828459045235360287471352662497757247093699959574966967627\
    3141592653589793238462643383279502884197169399375105820974944592";
const IEEE_V10_CT: &str = "1c3b3a102f770386e4836c99e370cf9bea00803f5e482357a4ae12d414a3e63b\
    5d31e276f8fe4a8d66b317f9ac683f44680a86ac35adfc3345befecb4bb188fd5776926c49a3095eb108fd10\
    98baec70aaa66999a72a82f27d848b21d4a741b0c5cd4d5fff9dac89aeba122961d03a757123e9870f8acf10\
    00020887891429ca2a3e7a7d7df7b10355165c8b9a6d0a7de8b062c4500dc4cd120c0f7418dae3d0b5781c34\
    803fa75421c790dfe1de1834f280d7667b327f6c8cd7557e12ac3a0f93ec05c52e0493ef31a12d3d9260f79a\
    289d6a379bc70c50841473d1a8cc81ec583e9645e07b8d9670655ba5bbcfecc6dc3966380ad8fecb17b6ba02\
    469a020a84e18e8f84252070c13e9f1f289be54fbc481457778f616015e1327a02b140f1505eb309326d6837\
    8f8374595c849d84f4c333ec4423885143cb47bd71c5edae9be69a2ffeceb1bec9de244fbe15992b11b77c04\
    0f12bd8f6a975a44a0f90c29a9abc3d4d893927284c58754cce294529f8614dcd2aba991925fedc4ae74ffac\
    6e333b93eb4aff0479da9a410e4450e0dd7ae4c6e2910900575da401fc07059f645e8b7e9bfdef33943054ff\
    84011493c27b3429eaedb4ed5376441a77ed43851ad77f16f541dfd269d50d6a5f14fb0aab1cbb4c1550be97\
    f7ab4066193c4caa773dad38014bd2092fa755c824bb5e54c4f36ffda9fcea70b9c6e693e148c151";
const IEEE_CTS_KEY: &str = "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0";
const IEEE_CTS_IV: &str = "9a785634120000000000000000000000";

/// 512 bytes: 0..=255 twice, the plaintext of vectors 4 to 14.
fn ieee_512() -> Vec<u8> {
    (0..512).map(|i| i as u8).collect()
}

/// IEEE 1619-2007 annex B vectors 2 (two blocks), 4 (AES-128, 512 bytes), 10 (AES-256,
/// data unit 0xff) and 15 to 18 (17 to 20 bytes: ciphertext stealing).
/// One vector: name, key, IV, plaintext, ciphertext.
type Vector = (&'static str, Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>);

fn ieee1619_vectors() -> Vec<Vector> {
    let cts_pt = h("000102030405060708090a0b0c0d0e0f10111213");
    let mut v = vec![
        (
            "vector 2",
            h("1111111111111111111111111111111122222222222222222222222222222222"),
            h("33333333330000000000000000000000"),
            vec![0x44; 32],
            h("c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0"),
        ),
        (
            "vector 4",
            h(IEEE_V4_KEY),
            vec![0; 16],
            ieee_512(),
            h(IEEE_V4_CT),
        ),
        (
            "vector 10",
            h(IEEE_V10_KEY),
            h("ff000000000000000000000000000000"),
            ieee_512(),
            h(IEEE_V10_CT),
        ),
    ];
    for (name, len, ct) in [
        ("vector 15", 17, "6c1625db4671522d3d7599601de7ca09ed"),
        ("vector 16", 18, "d069444b7a7e0cab09e24447d24deb1fedbf"),
        ("vector 17", 19, "e5df1351c0544ba1350b3363cd8ef4beedbf9d"),
        ("vector 18", 20, "9d84c813f719aa2c7be3f66171c7c5c2edbf9dac"),
    ] {
        v.push((
            name,
            h(IEEE_CTS_KEY),
            h(IEEE_CTS_IV),
            cts_pt[..len].to_vec(),
            h(ct),
        ));
    }
    v
}

#[test]
fn ieee1619_xts() {
    for (what, key, iv, pt, ct) in ieee1619_vectors() {
        let m = keyed(xts::xts_over_cipher(aes), &key);
        check(m.as_ref(), what, &iv, &pt, &ct);
    }
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
    for (what, key, iv, pt, ct) in ieee1619_vectors() {
        check(skcipher(&xts_inst, &key).as_ref(), what, &iv, &pt, &ct);
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
