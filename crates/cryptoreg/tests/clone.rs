//! `Clone` on every handle type: a clone is one more allocation of the same driver
//! (`refcnt` + 1, same generation and `is_current()`), keyed as the original was, and
//! independent of it afterwards (re-keying or dropping one leaves the other as it was).

mod common;

use cryptoreg::{Error, Registry};

fn registry() -> Registry {
    common::boot(&common::kat_config(""), None)
}

/// `(allocations, refcnt)` of `driver` under the algorithm `name`.
fn counts(reg: &Registry, name: &str, driver: &str) -> (u64, usize) {
    let row = reg
        .stats()
        .into_iter()
        .find(|r| r.name == name && r.driver == driver)
        .unwrap_or_else(|| panic!("no stats row for {driver}"));
    (row.allocations, row.refcnt)
}

#[test]
fn a_cloned_skcipher_is_one_more_allocation_keyed_like_the_original() {
    let reg = registry();
    let mut h = reg.alloc_skcipher("xts(aes)").unwrap();
    let driver = h.driver_name().to_string();
    let key = common::xts_key(1, 64);
    h.set_key(&key).unwrap();
    let before = counts(&reg, "xts(aes)", &driver);

    let c = h.clone();
    assert_eq!(c.driver_name(), driver);
    assert_eq!(
        counts(&reg, "xts(aes)", &driver),
        (before.0 + 1, before.1 + 1)
    );
    assert_eq!(
        (c.generation(), c.is_current()),
        (h.generation(), h.is_current())
    );
    assert!(c.is_current());

    let iv = [9u8; 16];
    let plain = common::bytes(2, 4096);
    let (mut a, mut b) = (plain.clone(), plain.clone());
    h.encrypt_in_place(&iv, &mut a).unwrap();
    c.encrypt_in_place(&iv, &mut b).unwrap();
    assert_ne!(a, plain);
    assert_eq!(a, b, "the clone encrypts as the original");

    // Re-keying the clone leaves the original's key alone.
    let mut c = c;
    c.set_key(&common::xts_key(3, 64)).unwrap();
    let mut d = plain.clone();
    c.encrypt_in_place(&iv, &mut d).unwrap();
    assert_ne!(d, a);
    let mut e = plain.clone();
    h.encrypt_in_place(&iv, &mut e).unwrap();
    assert_eq!(e, a);

    drop(c);
    assert_eq!(counts(&reg, "xts(aes)", &driver).1, before.1);

    // An operator's change makes both not current, as it does the original.
    let c = h.clone();
    reg.set_priority(&driver, 1).unwrap();
    assert!(!h.is_current() && !c.is_current());
    // ... and both keep serving the driver they were allocated on.
    let mut f = plain.clone();
    c.encrypt_in_place(&iv, &mut f).unwrap();
    assert_eq!((c.driver_name(), &f), (driver.as_str(), &a));
}

#[test]
fn a_clone_of_an_unkeyed_or_refused_handle_has_no_key() {
    let reg = registry();
    let h = reg.alloc_skcipher("ctr(aes)").unwrap();
    let c = h.clone();
    let mut data = [0u8; 16];
    assert!(matches!(
        c.encrypt_in_place(&[0; 16], &mut data),
        Err(Error::NoKey)
    ));

    // A refused set_key leaves the handle unkeyed, and so its clone.
    let mut h = reg.alloc_skcipher("ctr(aes)").unwrap();
    h.set_key(&[1; 16]).unwrap();
    assert!(h.set_key(&[1; 17]).is_err());
    let c = h.clone();
    assert!(matches!(
        c.encrypt_in_place(&[0; 16], &mut data),
        Err(Error::NoKey)
    ));
}

#[test]
fn a_cloned_aead_keeps_its_key_and_tag_size() {
    let reg = registry();
    // GCM takes a shorter tag (the clone keeps it); ChaCha20-Poly1305 only 16 bytes.
    for (name, authsize) in [("gcm(aes)", 12), ("rfc7539(chacha20,poly1305)", 16)] {
        let mut h = reg.alloc_aead(name).unwrap();
        h.set_key(&common::bytes(4, 32)).unwrap();
        h.set_authsize(authsize).unwrap();
        let driver = h.driver_name().to_string();
        let before = counts(&reg, name, &driver);
        let c = h.clone();
        assert_eq!(counts(&reg, name, &driver), (before.0 + 1, before.1 + 1));
        assert_eq!(c.authsize(), authsize, "{name}");

        let nonce = [5u8; 12];
        let plain = common::bytes(6, 1000);
        let (mut a, mut b) = (plain.clone(), plain.clone());
        let (mut ta, mut tb) = (vec![0u8; authsize], vec![0u8; authsize]);
        h.seal(&nonce, b"aad", &mut a, &mut ta).unwrap();
        c.seal(&nonce, b"aad", &mut b, &mut tb).unwrap();
        assert_eq!((&a, &ta), (&b, &tb), "{name}");
        // Sealed by the original, opened by the clone.
        c.open(&nonce, b"aad", &mut a, &ta).unwrap();
        assert_eq!(a, plain, "{name}");
    }
}

#[test]
fn cloned_cipher_and_mac_handles_compute_as_the_original() {
    let reg = registry();
    let mut aes = reg.alloc_cipher("aes").unwrap();
    aes.set_key(&common::bytes(7, 32)).unwrap();
    let c = aes.clone();
    let (mut a, mut b) = ([3u8; 64], [3u8; 64]);
    aes.encrypt_blocks(&mut a).unwrap();
    c.encrypt_blocks(&mut b).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, [3u8; 64]);

    let mut mac = reg.alloc_hash("poly1305").unwrap();
    mac.set_key(&common::bytes(8, 32)).unwrap();
    let c = mac.clone();
    let data = common::bytes(9, 333);
    let (mut ta, mut tb) = ([0u8; 16], [0u8; 16]);
    mac.digest(&data, &mut ta).unwrap();
    c.digest(&data, &mut tb).unwrap();
    assert_eq!(ta, tb);
    assert_ne!(ta, [0u8; 16]);
}

#[test]
fn a_handle_built_outside_the_registry_clones_outside_it() {
    let reg = registry();
    let info = reg.resolve("ctr(aes)").unwrap();
    let mut h = cryptoreg::driver::build_skcipher(info, &reg.host_token()).unwrap();
    h.set_key(&[2; 16]).unwrap();
    let c = h.clone();
    assert_eq!((c.generation(), c.is_current()), (0, false));
    let (mut a, mut b) = ([0u8; 40], [0u8; 40]);
    h.encrypt_in_place(&[1; 16], &mut a).unwrap();
    c.encrypt_in_place(&[1; 16], &mut b).unwrap();
    assert_eq!(a, b);
}
