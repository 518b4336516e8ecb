//! The segment walker and the handles' input checks, on the toy stream cipher.

mod toy;

use cryptoreg_registry::*;

fn keyed(reg: &Registry) -> Skcipher {
    let mut h = reg.alloc_skcipher("toystream").unwrap();
    h.set_key(&[7; 16]).unwrap();
    h
}

fn split<'a>(mut data: &'a mut [u8], cuts: &[usize]) -> Vec<&'a mut [u8]> {
    let mut out = Vec::new();
    for &c in cuts {
        let (a, b) = data.split_at_mut(c.min(data.len()));
        out.push(a);
        data = b;
    }
    out.push(data);
    out
}

#[test]
fn segmented_equals_contiguous_for_many_splits() {
    let reg = toy::boot("");
    let h = keyed(&reg);
    let iv = [5u8; 16];
    for len in [0usize, 1, 15, 16, 17, 31, 32, 33, 100, 257] {
        let plain: Vec<u8> = (0..len).map(|i| i as u8).collect();
        let mut want = plain.clone();
        h.encrypt_in_place(&iv, &mut want).unwrap();
        for cuts in [
            vec![],
            vec![0],
            vec![1],
            vec![7, 3],
            vec![15, 1, 0, 16],
            vec![3, 3, 3, 3, 3, 3, 3],
        ] {
            let mut got = plain.clone();
            let mut segs = split(&mut got, &cuts);
            h.encrypt_segments(&iv, &mut segs).unwrap();
            assert_eq!(got, want, "len {len} cuts {cuts:?}");
            // Out of place with differently divided source and destination.
            let src_parts: Vec<&[u8]> = {
                let c = cuts.first().copied().unwrap_or(0).min(len);
                vec![&plain[..c], &plain[c..]]
            };
            let mut dst = vec![0u8; len];
            let mut dsegs = split(&mut dst, &[len / 3, 1]);
            h.encrypt_to(&iv, &src_parts, &mut dsegs).unwrap();
            assert_eq!(dst, want, "out of place len {len}");
            let mut back = dst.clone();
            let mut bsegs = split(&mut back, &[5, 11]);
            h.decrypt_segments(&iv, &mut bsegs).unwrap();
            assert_eq!(back, plain);
        }
    }
}

#[test]
fn bad_input_is_an_error_value() {
    let reg = toy::boot("");
    let mut h = reg.alloc_skcipher("toystream").unwrap();
    let mut data = [0u8; 32];
    assert_eq!(h.encrypt_in_place(&[0; 16], &mut data), Err(Error::NoKey));
    assert!(matches!(
        h.set_key(&[1; 15]),
        Err(Error::InvalidKeyLength { len: 15, .. })
    ));
    h.set_key(&[1; 16]).unwrap();
    assert_eq!(
        h.encrypt_in_place(&[0; 12], &mut data),
        Err(Error::InvalidIvLength {
            len: 12,
            expected: 16
        })
    );
    let src = [0u8; 10];
    let mut dst = [0u8; 11];
    assert_eq!(
        h.encrypt_to(&[0; 16], &[&src], &mut [&mut dst]),
        Err(Error::LengthMismatch { src: 10, dst: 11 })
    );
    assert!(matches!(
        reg.alloc_skcipher("toy"),
        Err(Error::WrongType {
            wanted: "skcipher",
            actual: "cipher",
            ..
        })
    ));
    let c = reg.alloc_cipher("toy-generic").unwrap();
    assert_eq!(c.encrypt_blocks(&mut [0; 16]), Err(Error::NoKey));
    let mut c = c;
    c.set_key(&[2; 16]).unwrap();
    assert!(matches!(
        c.encrypt_blocks(&mut [0; 15]),
        Err(Error::InvalidLength { .. })
    ));
}

#[test]
fn refused_out_of_place_request_leaves_destination_untouched() {
    let reg = toy::boot("");
    let mut h = reg.alloc_skcipher("wrap(toy-generic)").unwrap();
    h.set_key(&[1; 16]).unwrap();
    let src = [0u8; 17];
    let mut dst = [0xAAu8; 17];
    assert!(matches!(
        h.encrypt_to(&[], &[&src], &mut [&mut dst]),
        Err(Error::InvalidLength { .. })
    ));
    assert_eq!(dst, [0xAA; 17]);
}
