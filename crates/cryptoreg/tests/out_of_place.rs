//! `seal_to` / `open_to` with one source and one destination piece: a driver with an
//! out-of-place one-shot kernel (`AeadImpl::has_one_shot_to`: the x86-64 GCM drivers,
//! arm64's `gcm-aes-ce`, the fused ChaCha20-Poly1305 drivers) takes them at any length;
//! otherwise, up to 2048 bytes, the default `seal_to` / `open_to` copy the source into the
//! destination and make the driver's one-shot call in place; longer or scattered requests go through the
//! segment walker. Either way the result must be what the in-place calls give, the source
//! must stay as it was, and a failed tag check must leave the destination wiped.

mod common;

use cryptoreg::Error;

#[test]
fn single_piece_out_of_place_matches_in_place() {
    let reg = common::boot("", None);
    for (alg, klen, nlen, aad_lens) in [
        ("gcm(aes)", 16, 12, &[0usize, 13][..]),
        ("gcm(aes)", 32, 12, &[0, 13][..]),
        ("rfc4106(gcm(aes))", 20, 8, &[8][..]),
        ("rfc7539(chacha20,poly1305)", 32, 12, &[0, 13][..]),
        ("xchacha20poly1305", 32, 24, &[0, 13][..]),
    ] {
        let mut h = reg.alloc_aead(alg).unwrap();
        h.set_key(&common::bytes(klen as u64, klen)).unwrap();
        for (i, &alen) in aad_lens.iter().enumerate() {
            for (j, tlen) in [0usize, 1, 16, 100, 1420, 2047, 2048, 2049, 5000]
                .into_iter()
                .enumerate()
            {
                let seed = (i * 100 + j) as u64;
                let what = format!("{alg} ({}) alen={alen} tlen={tlen}", h.driver_name());
                let nonce = common::bytes(seed + 1, nlen);
                let aad = common::bytes(seed + 2, alen);
                let pt = common::bytes(seed + 3, tlen);
                // One AAD piece, or none for an empty AAD (both shapes take the copy).
                let aad_s: Vec<&[u8]> = if alen == 0 { vec![] } else { vec![&aad] };
                let mut ct = pt.clone();
                let mut tag = [0u8; 16];
                h.seal(&nonce, &aad, &mut ct, &mut tag).unwrap();

                let mut out = vec![0x77u8; tlen];
                let mut tag2 = [0u8; 16];
                h.seal_to(&nonce, &aad_s, &[&pt], &mut [&mut out], &mut tag2)
                    .unwrap();
                assert_eq!((&out, tag2), (&ct, tag), "{what}: seal_to");

                let src = ct.clone();
                let mut back = vec![0x77u8; tlen];
                h.open_to(&nonce, &aad_s, &[&src], &mut [&mut back], &tag)
                    .unwrap();
                assert_eq!(back, pt, "{what}: open_to");
                assert_eq!(src, ct, "{what}: open_to changed its source");

                let mut bad_tag = tag;
                bad_tag[0] ^= 1;
                let mut wiped = vec![0x77u8; tlen];
                assert_eq!(
                    h.open_to(&nonce, &aad_s, &[&src], &mut [&mut wiped], &bad_tag),
                    Err(Error::BadMessage),
                    "{what}: open_to with a wrong tag"
                );
                assert!(wiped.iter().all(|&b| b == 0), "{what}: output not wiped");
                assert_eq!(src, ct, "{what}: a failed open_to changed its source");
            }
        }
    }
}
