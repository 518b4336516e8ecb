//! The shared rules and the scalar core: the counter-room edge, the IV layouts, and the
//! core against RFC 8439 §2.3.2 (block function) and draft-irtf-cfrg-xchacha-03 §2.2.1
//! (HChaCha20), which are not registered algorithms and so have no vector file. The
//! drivers' vectors live in `selftest/vectors/{chacha20,xchacha20}.toml`.

use super::*;
use cryptoreg_registry::SkcipherImpl;

fn h(s: &str) -> Vec<u8> {
    hex::decode(s.replace(' ', "")).unwrap()
}

fn seq_key() -> [u8; 32] {
    std::array::from_fn(|i| i as u8)
}

#[test]
fn counter_room_edge() {
    // Starting at 2^32 - 1: one block fits, a 65th byte does not.
    assert!(check_counter_room(u32::MAX, 64).is_ok());
    assert!(check_counter_room(u32::MAX, 1).is_ok());
    assert!(matches!(
        check_counter_room(u32::MAX, 65),
        Err(Error::InvalidLength { len: 65, .. })
    ));
    // Starting at 0, 2^32 blocks fit exactly (ceil, not floor).
    assert!(check_counter_room(0, 0).is_ok());
    let max = (1usize << 32) * 64;
    assert!(check_counter_room(0, max).is_ok());
    assert!(check_counter_room(0, max + 1).is_err());
    assert!(check_counter_room(1, max).is_err());
    assert!(check_counter_room(u32::MAX - 1, 129).is_err());
    assert!(check_counter_room(u32::MAX - 1, 128).is_ok());
    assert!(check_counter_room(u32::MAX, 0).is_ok());
}

#[test]
fn chacha_request_reads_the_le_counter() {
    let mut iv = [0u8; 16];
    iv[..4].copy_from_slice(&(u32::MAX - 2).to_le_bytes());
    assert!(check_chacha_request(&iv, 3 * 64).is_ok());
    assert!(check_chacha_request(&iv, 3 * 64 + 1).is_err());
    assert!(matches!(
        check_chacha_request(&[0u8; 12], 1),
        Err(Error::InvalidIvLength {
            len: 12,
            expected: 16
        })
    ));
}

#[test]
fn block_function_rfc8439_2_3_2() {
    let iv = h("01000000 000000090000004a00000000");
    let mut s = init_state(&seq_key(), &iv.try_into().unwrap());
    let block = chacha20_block(&s);
    let want = h(
        "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e\
                  d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e",
    );
    assert_eq!(block.to_vec(), want);
    // The xor path advances the counter by whole and partial blocks alike.
    let mut data = [0u8; 65];
    chacha20_xor(&mut s, &mut data);
    assert_eq!(s[12], 3);
    assert_eq!(data[..64].to_vec(), want);
}

#[test]
fn hchacha20_draft_2_2_1() {
    let nonce: [u8; 16] = h("000000090000004a0000000031415927").try_into().unwrap();
    assert_eq!(
        hchacha20(&seq_key(), &nonce).to_vec(),
        h("82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc")
    );
}

#[test]
fn xchacha_iv_layout_is_the_kernels() {
    let iv: [u8; 32] = std::array::from_fn(|i| i as u8);
    assert_eq!(
        xchacha_hchacha_nonce(&iv).to_vec(),
        (0u8..16).collect::<Vec<_>>()
    );
    let inner = xchacha_inner_iv(&iv);
    assert_eq!(inner[..8], iv[24..32]);
    assert_eq!(inner[8..], iv[16..24]);
}

/// The generic driver refuses a request crossing block 2^32 on every path (one-shot in
/// place, one-shot out of place, the walker) and writes nothing; exactly at the edge it
/// runs, and its last block is the keystream block at counter 2^32 - 1.
#[test]
fn generic_driver_applies_the_counter_rule() {
    let mut c = ChaCha20Generic::new();
    c.set_key(&seq_key()).unwrap();
    let mut iv = [7u8; 16];
    iv[..4].copy_from_slice(&(u32::MAX - 1).to_le_bytes());
    let mut data = vec![0xa5u8; 129];
    assert!(matches!(
        c.encrypt(&iv, &mut data),
        Err(Error::InvalidLength { .. })
    ));
    assert!(data.iter().all(|&b| b == 0xa5));
    let src = data.clone();
    assert!(c.encrypt_to(&iv, &src, &mut data).is_err());
    assert!(data.iter().all(|&b| b == 0xa5));
    {
        let (a, b) = data.split_at_mut(70);
        let mut segs: Vec<&mut [u8]> = vec![a, b];
        let r = cryptoreg_registry::walk::walk_in_place(
            &c,
            cryptoreg_registry::Direction::Encrypt,
            &iv,
            &mut segs,
        );
        assert!(r.is_err());
    }
    assert!(data.iter().all(|&b| b == 0xa5));

    let mut edge = vec![0u8; 128];
    c.encrypt(&iv, &mut edge).unwrap();
    let mut last_iv = iv;
    last_iv[..4].copy_from_slice(&u32::MAX.to_le_bytes());
    let s = init_state(&seq_key(), &last_iv);
    assert_eq!(edge[64..], chacha20_block(&s));
}

/// XChaCha20 is ChaCha20 under the HChaCha20 subkey and the kernel's inner IV, on the
/// one-shot path and through the walker alike.
#[test]
fn xchacha_is_chacha_under_the_subkey() {
    let key = seq_key();
    let iv: [u8; 32] = std::array::from_fn(|i| (i * 7 + 3) as u8);
    let mut x = XChaCha20Generic::new();
    x.set_key(&key).unwrap();
    let mut c = ChaCha20Generic::new();
    c.set_key(&hchacha20(&key, &xchacha_hchacha_nonce(&iv)))
        .unwrap();
    let pt: Vec<u8> = (0..300).map(|i| i as u8).collect();
    let mut want = pt.clone();
    c.encrypt(&xchacha_inner_iv(&iv), &mut want).unwrap();
    let mut got = pt.clone();
    x.encrypt(&iv, &mut got).unwrap();
    assert_eq!(got, want);
    let mut walked = pt.clone();
    {
        let (a, rest) = walked.split_at_mut(3);
        let (b, d) = rest.split_at_mut(100);
        let mut segs: Vec<&mut [u8]> = vec![a, b, d];
        cryptoreg_registry::walk::walk_in_place(
            &x,
            cryptoreg_registry::Direction::Encrypt,
            &iv,
            &mut segs,
        )
        .unwrap();
    }
    assert_eq!(walked, want);
}
