//! The record layer alone, below any handshake: the RFC traces byte for byte (RFC 8448
//! §3 for TLS 1.3 AES-128-GCM; RFC 9001 A.5 and RFC 9369 A.3 for QUIC packet and
//! header protection), and every suite record by record against rustls's ring provider
//! given the same keys and sequence numbers, both ways, with tampered records refused.

mod common;

use rustls::crypto::cipher::{
    AeadKey, InboundOpaqueMessage, Iv, MessageDecrypter, MessageEncrypter, OutboundChunks,
    OutboundPlainMessage,
};
use rustls::crypto::tls13::OkmBlock;
use rustls::crypto::CryptoProvider;
use rustls::{CipherSuite, ContentType, ProtocolVersion, SupportedCipherSuite, Tls13CipherSuite};

use common::{bytes, hex, ours, ring};

fn tls13(p: &CryptoProvider, id: CipherSuite) -> &'static Tls13CipherSuite {
    match p.cipher_suites.iter().find(|s| s.suite() == id) {
        Some(SupportedCipherSuite::Tls13(s)) => s,
        _ => panic!("{id:?} is not a TLS 1.3 suite of the provider"),
    }
}

/// A 32-byte key as rustls's type (outside rustls it has no other length, so the
/// comparisons with the ring provider cover the suites with 32-byte keys; the AES-128
/// suites are checked against the RFC traces and, in `handshakes.rs`, end to end
/// against the ring provider).
fn aead_key(k: &[u8]) -> AeadKey {
    AeadKey::from(<[u8; 32]>::try_from(k).expect("a 32-byte key"))
}

/// The suites whose keys are 32 bytes.
const TLS13_SUITES_32: [CipherSuite; 2] = [
    CipherSuite::TLS13_AES_256_GCM_SHA384,
    CipherSuite::TLS13_CHACHA20_POLY1305_SHA256,
];

fn seal(
    e: &mut dyn MessageEncrypter,
    typ: ContentType,
    version: ProtocolVersion,
    payload: &[u8],
    seq: u64,
) -> Vec<u8> {
    let chunks = [payload];
    let msg = OutboundPlainMessage {
        typ,
        version,
        payload: OutboundChunks::new(&chunks),
    };
    e.encrypt(msg, seq).expect("seal").encode()
}

/// Opens an encoded record; `Ok((type, plaintext))`.
fn open(
    d: &mut dyn MessageDecrypter,
    record: &[u8],
    seq: u64,
) -> Result<(ContentType, Vec<u8>), rustls::Error> {
    let mut buf = record.to_vec();
    let typ = ContentType::from(buf[0]);
    let version = ProtocolVersion::from(u16::from_be_bytes([buf[1], buf[2]]));
    let msg = InboundOpaqueMessage::new(typ, version, &mut buf[5..]);
    let plain = d.decrypt(msg, seq)?;
    Ok((plain.typ, plain.payload.to_vec()))
}

#[test]
fn rfc8448_application_data_records() {
    let reg = common::registry("");
    let id = CipherSuite::TLS13_AES_128_GCM_SHA256;
    let payload: Vec<u8> = (0u8..0x32).collect();
    // RFC 8448 §3: the client's first application record (seq 0) and the server's
    // (seq 1, after its NewSessionTicket).
    let cases = [
        (
            "17422dda596ed5d9acd890e3c63f5051",
            "5b78923dee08579033e523d9",
            0,
            "1703030043a23f7054b62c94d0affafe8228ba55cbefacea42f914aa66bcab3f2b9819a8a5b46b395bd54a9a20441e2b62974e1f5a6292a2977014bd1e3deae63aeebb21694915e4",
        ),
        (
            "9f02283b6c9c07efc26bb9f2ac92e356",
            "cf782b88dd83549aadf1e984",
            1,
            "17030300432e937e11ef4ac740e538ad36005fc4a46932fc3225d05f82aa1b36e30efaf97d90e6dffc602dcb501a59a8fcc49c4bf2e5f0a21c0047c2abf332540dd032e167c2955d",
        ),
    ];
    for (key, iv, seq, record) in cases {
        let (key, iv, record) = (hex(key), hex(iv), hex(record));
        let mut e = cryptoreg_rustls::testing::tls13_encrypter(&reg, id, &key, Iv::copy(&iv));
        let got = seal(
            e.as_mut(),
            ContentType::ApplicationData,
            ProtocolVersion::TLSv1_3,
            &payload,
            seq,
        );
        assert_eq!(got, record, "RFC 8448 record, seq {seq}");
        let mut d = cryptoreg_rustls::testing::tls13_decrypter(&reg, id, &key, Iv::copy(&iv));
        let (typ, plain) = open(d.as_mut(), &record, seq).unwrap();
        assert_eq!(
            (typ, plain),
            (ContentType::ApplicationData, payload.clone())
        );
    }
}

#[test]
fn tls13_records_match_the_ring_provider() {
    let reg = common::registry("");
    let (p, r) = (ours(&reg), ring());
    for id in TLS13_SUITES_32 {
        let (a, b) = (tls13(&p, id), tls13(&r, id));
        let key = bytes(u16::from(id).into(), a.aead_alg.key_len());
        let iv = bytes(7, 12);
        let mut ours_e = a.aead_alg.encrypter(aead_key(&key), Iv::copy(&iv));
        let mut ring_e = b.aead_alg.encrypter(aead_key(&key), Iv::copy(&iv));
        let mut ours_d = a.aead_alg.decrypter(aead_key(&key), Iv::copy(&iv));
        let mut ring_d = b.aead_alg.decrypter(aead_key(&key), Iv::copy(&iv));
        for (i, len) in [0usize, 1, 15, 16, 17, 255, 1024, 1419, 16384]
            .into_iter()
            .enumerate()
        {
            for (j, typ) in [
                ContentType::ApplicationData,
                ContentType::Handshake,
                ContentType::Alert,
            ]
            .into_iter()
            .enumerate()
            {
                let seq = [0u64, 1, 1 << 32, u64::MAX >> 1][(i + j) % 4] + i as u64;
                let payload = bytes(100 + i as u64, len);
                let x = seal(
                    ours_e.as_mut(),
                    typ,
                    ProtocolVersion::TLSv1_3,
                    &payload,
                    seq,
                );
                let y = seal(
                    ring_e.as_mut(),
                    typ,
                    ProtocolVersion::TLSv1_3,
                    &payload,
                    seq,
                );
                assert_eq!(x, y, "{id:?}: record of {len} bytes, seq {seq}");
                assert_eq!(
                    open(ring_d.as_mut(), &x, seq).unwrap(),
                    (typ, payload.clone())
                );
                assert_eq!(
                    open(ours_d.as_mut(), &y, seq).unwrap(),
                    (typ, payload.clone())
                );
                // A flipped bit anywhere in the protected part, or the wrong sequence
                // number, is a DecryptError.
                let mut bad = x.clone();
                let at = 5 + (len * 7 + 3) % (bad.len() - 5);
                bad[at] ^= 0x20;
                assert_eq!(
                    open(ours_d.as_mut(), &bad, seq),
                    Err(rustls::Error::DecryptError)
                );
                assert_eq!(
                    open(ours_d.as_mut(), &x, seq + 1),
                    Err(rustls::Error::DecryptError)
                );
            }
        }
    }
}

#[cfg(feature = "tls12")]
#[test]
fn tls12_records_match_the_ring_provider() {
    use rustls::Tls12CipherSuite;
    fn tls12(p: &CryptoProvider, id: CipherSuite) -> &'static Tls12CipherSuite {
        match p.cipher_suites.iter().find(|s| s.suite() == id) {
            Some(SupportedCipherSuite::Tls12(s)) => s,
            _ => panic!("{id:?} is not a TLS 1.2 suite of the provider"),
        }
    }
    let reg = common::registry("");
    let (p, r) = (ours(&reg), ring());
    for id in [
        CipherSuite::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        CipherSuite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
        CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    ] {
        let (a, b) = (tls12(&p, id), tls12(&r, id));
        let shape = a.aead_alg.key_block_shape();
        let ring_shape = b.aead_alg.key_block_shape();
        assert_eq!(
            (
                shape.enc_key_len,
                shape.fixed_iv_len,
                shape.explicit_nonce_len
            ),
            (
                ring_shape.enc_key_len,
                ring_shape.fixed_iv_len,
                ring_shape.explicit_nonce_len
            ),
            "{id:?}"
        );
        let key = bytes(u16::from(id).into(), shape.enc_key_len);
        let iv = bytes(8, shape.fixed_iv_len);
        let explicit = bytes(9, shape.explicit_nonce_len);
        let mut ours_e = a.aead_alg.encrypter(aead_key(&key), &iv, &explicit);
        let mut ring_e = b.aead_alg.encrypter(aead_key(&key), &iv, &explicit);
        let mut ours_d = a.aead_alg.decrypter(aead_key(&key), &iv);
        let mut ring_d = b.aead_alg.decrypter(aead_key(&key), &iv);
        for (i, len) in [0usize, 1, 16, 17, 1024, 1419, 16384]
            .into_iter()
            .enumerate()
        {
            let typ = [ContentType::ApplicationData, ContentType::Handshake][i % 2];
            let seq = [0u64, 1, 1 << 40][i % 3] + i as u64;
            let payload = bytes(200 + i as u64, len);
            let v = ProtocolVersion::TLSv1_2;
            let x = seal(ours_e.as_mut(), typ, v, &payload, seq);
            let y = seal(ring_e.as_mut(), typ, v, &payload, seq);
            assert_eq!(x, y, "{id:?}: record of {len} bytes, seq {seq}");
            assert_eq!(
                open(ring_d.as_mut(), &x, seq).unwrap(),
                (typ, payload.clone())
            );
            assert_eq!(
                open(ours_d.as_mut(), &y, seq).unwrap(),
                (typ, payload.clone())
            );
            let mut bad = x.clone();
            let last = bad.len() - 1;
            bad[last] ^= 1;
            assert_eq!(
                open(ours_d.as_mut(), &bad, seq),
                Err(rustls::Error::DecryptError)
            );
            assert_eq!(
                open(ours_d.as_mut(), &x, seq + 1),
                Err(rustls::Error::DecryptError)
            );
        }
        // Shorter than the nonce and tag: refused, not a panic.
        assert_eq!(
            open(ours_d.as_mut(), &[0x17, 3, 3, 0, 3, 1, 2, 3], 0),
            Err(rustls::Error::DecryptError)
        );
    }
}

/// HKDF-Expand-Label (RFC 8446 §7.1) with an empty context, through the suite's HKDF.
fn expand_label(suite: &Tls13CipherSuite, secret: &[u8], label: &str, len: usize) -> Vec<u8> {
    let expander = suite.hkdf_provider.expander_for_okm(&OkmBlock::new(secret));
    let full = format!("tls13 {label}");
    let out_len = (len as u16).to_be_bytes();
    let label_len = [full.len() as u8];
    let mut out = vec![0u8; len];
    expander
        .expand_slice(&[&out_len, &label_len, full.as_bytes(), &[0u8]], &mut out)
        .unwrap();
    out
}

/// Protects a QUIC packet whose header is `header` (packet number at `pn_offset`, its
/// length in the first byte) and returns it.
fn protect(
    keys: (
        &dyn rustls::quic::PacketKey,
        &dyn rustls::quic::HeaderProtectionKey,
    ),
    pn: u64,
    header: &[u8],
    pn_offset: usize,
    payload: &[u8],
) -> Vec<u8> {
    let mut buf = header.to_vec();
    let mut body = payload.to_vec();
    let tag = keys.0.encrypt_in_place(pn, header, &mut body).unwrap();
    buf.extend_from_slice(&body);
    buf.extend_from_slice(tag.as_ref());
    let pn_len = usize::from(header[0] & 3) + 1;
    let sample_at = pn_offset + 4;
    let sample = buf[sample_at..sample_at + 16].to_vec();
    let (first, rest) = buf.split_at_mut(1);
    keys.1
        .encrypt_in_place(
            &sample,
            &mut first[0],
            &mut rest[pn_offset - 1..pn_offset - 1 + pn_len],
        )
        .unwrap();
    buf
}

/// RFC 9001 A.5: ChaCha20-Poly1305 short header packet, both protections.
#[test]
fn rfc9001_a5_chacha20_short_header_packet() {
    let reg = common::registry("");
    let p = ours(&reg);
    let suite = tls13(&p, CipherSuite::TLS13_CHACHA20_POLY1305_SHA256);
    let quic = suite.quic.expect("QUIC keys");
    let secret = hex("9ac312a7f877468ebe69422748ad00a15443f18203a07d6060f688f30f21632b");
    let key = expand_label(suite, &secret, "quic key", 32);
    let iv = expand_label(suite, &secret, "quic iv", 12);
    let hp = expand_label(suite, &secret, "quic hp", 32);
    assert_eq!(
        key,
        hex("c6d98ff3441c3fe1b2182094f69caa2ed4b716b65488960a7a984979fb23e1c8")
    );
    let packet = quic.packet_key(aead_key(&key), Iv::copy(&iv));
    let header_key = quic.header_protection_key(aead_key(&hp));
    let header = hex("4200bff4");
    let got = protect(
        (packet.as_ref(), header_key.as_ref()),
        654_360_564,
        &header,
        1,
        &[0x01],
    );
    assert_eq!(got, hex("4cfe4189655e5cd55c41f69080575d7999c25a5bfb"));
    // And back: header first, then the packet.
    let mut buf = got.clone();
    let sample = buf[5..21].to_vec();
    let (first, rest) = buf.split_at_mut(1);
    header_key
        .decrypt_in_place(&sample, &mut first[0], &mut rest[..3])
        .unwrap();
    assert_eq!(&buf[..4], &header[..]);
    let (h, body) = buf.split_at_mut(4);
    assert_eq!(
        packet.decrypt_in_place(654_360_564, h, body).unwrap(),
        &[0x01]
    );
    let mut bad = got.clone();
    bad[10] ^= 1;
    let (h, body) = bad.split_at_mut(4);
    h.copy_from_slice(&header);
    assert_eq!(
        packet.decrypt_in_place(654_360_564, h, body).err(),
        Some(rustls::Error::DecryptError)
    );
}

/// RFC 9369 A.3 (QUIC version 2): the server Initial, AES-128-GCM packet and header
/// protection from keys derived by rustls from the connection ID.
#[test]
fn rfc9369_a3_server_initial() {
    let reg = common::registry("");
    let p = ours(&reg);
    let suite = tls13(&p, CipherSuite::TLS13_AES_128_GCM_SHA256);
    let keys = rustls::quic::Keys::initial(
        rustls::quic::Version::V2,
        suite,
        suite.quic.unwrap(),
        &hex("8394c8f03e515708"),
        rustls::Side::Server,
    );
    let payload = hex(
        "02000000000600405a020000560303eefce7f7b37ba1d1632e96677825ddf73988cfc79825df566dc5430b9a045a1200130100002e00330024001d00209d3c940d89690b84d08a60993c144eca684d1081287c834d5311bcf32bb9da1a002b00020304",
    );
    let header = hex("d16b3343cf0008f067a5502a4262b50040750001");
    let got = protect(
        (keys.local.packet.as_ref(), keys.local.header.as_ref()),
        1,
        &header,
        header.len() - 2,
        &payload,
    );
    let want = hex(
        "dc6b3343cf0008f067a5502a4262b5004075d92faaf16f05d8a4398c47089698baeea26b91eb761d9b89237bbf87263017915358230035f7fd3945d88965cf17f9af6e16886c61bfc703106fbaf3cb4cfa52382dd16a393e42757507698075b2c984c707f0a0812d8cd5a6881eaf21ceda98f4bd23f6fe1a3e2c43edd9ce7ca84bed8521e2e140",
    );
    assert_eq!(got, want);
}

#[test]
fn quic_packets_match_the_ring_provider() {
    let reg = common::registry("");
    let (p, r) = (ours(&reg), ring());
    for id in TLS13_SUITES_32 {
        let (a, b) = (tls13(&p, id).quic.unwrap(), tls13(&r, id).quic.unwrap());
        let klen = a.aead_key_len();
        assert_eq!(klen, b.aead_key_len());
        let (key, iv, hp) = (bytes(1, klen), bytes(2, 12), bytes(3, klen));
        let (pa, pb) = (
            a.packet_key(aead_key(&key), Iv::copy(&iv)),
            b.packet_key(aead_key(&key), Iv::copy(&iv)),
        );
        let (ha, hb) = (
            a.header_protection_key(aead_key(&hp)),
            b.header_protection_key(aead_key(&hp)),
        );
        assert_eq!(
            (
                pa.confidentiality_limit(),
                pa.integrity_limit(),
                pa.tag_len()
            ),
            (
                pb.confidentiality_limit(),
                pb.integrity_limit(),
                pb.tag_len()
            ),
            "{id:?}: limits"
        );
        for (i, len) in [1usize, 20, 1200, 1452].into_iter().enumerate() {
            let pn = [0u64, 1, 1 << 30, (1 << 62) - 1][i];
            let first = [0xc3u8, 0x43, 0xc1, 0x40][i];
            let mut header = bytes(i as u64, 20);
            header[0] = first;
            let payload = bytes(30 + i as u64, len);
            let x = protect((pa.as_ref(), ha.as_ref()), pn, &header, 16, &payload);
            let y = protect((pb.as_ref(), hb.as_ref()), pn, &header, 16, &payload);
            assert_eq!(x, y, "{id:?}: packet {len} bytes, pn {pn}");
            // Ours opens ring's packet: header first, then the payload.
            let mut buf = y.clone();
            let sample = buf[20..36].to_vec();
            let (h, rest) = buf.split_at_mut(1);
            ha.decrypt_in_place(&sample, &mut h[0], &mut rest[15..19])
                .unwrap();
            assert_eq!(&buf[..20], &header[..], "{id:?}: header unprotected");
            let (h, body) = buf.split_at_mut(20);
            assert_eq!(
                pa.decrypt_in_place(pn, h, body).unwrap(),
                &payload[..],
                "{id:?}"
            );
            let mut bad = y.clone();
            bad[25] ^= 4;
            let (h, body) = bad.split_at_mut(20);
            h.copy_from_slice(&header);
            assert_eq!(
                pa.decrypt_in_place(pn, h, body).err(),
                Some(rustls::Error::DecryptError)
            );
        }
    }
}

/// Opens in place and hands the buffer back whatever happened, to see what a failure
/// left in it.
fn open_in_place(
    d: &mut dyn MessageDecrypter,
    record: &[u8],
    seq: u64,
) -> (Result<(), rustls::Error>, Vec<u8>) {
    let mut buf = record.to_vec();
    let typ = ContentType::from(buf[0]);
    let version = ProtocolVersion::from(u16::from_be_bytes([buf[1], buf[2]]));
    let r = d
        .decrypt(InboundOpaqueMessage::new(typ, version, &mut buf[5..]), seq)
        .map(drop);
    (r, buf)
}

/// A failed tag check leaves no plaintext in the record buffer (the handle wipes what it
/// decrypted), for every suite; records too short to hold a tag, and TLS 1.2 records
/// longer than 2^14 bytes of plaintext, are refused without a panic.
#[test]
fn refused_records_leave_nothing_and_never_panic() {
    let reg = common::registry("");
    let key32 = bytes(41, 32);
    let iv = bytes(42, 12);
    let ids = [
        CipherSuite::TLS13_AES_128_GCM_SHA256,
        CipherSuite::TLS13_AES_256_GCM_SHA384,
        CipherSuite::TLS13_CHACHA20_POLY1305_SHA256,
    ];
    for id in ids {
        let key = if id == CipherSuite::TLS13_AES_128_GCM_SHA256 {
            &key32[..16]
        } else {
            &key32[..]
        };
        let mut e = cryptoreg_rustls::testing::tls13_encrypter(&reg, id, key, Iv::copy(&iv));
        let mut d = cryptoreg_rustls::testing::tls13_decrypter(&reg, id, key, Iv::copy(&iv));
        let plain = vec![0xabu8; 1000];
        let mut rec = seal(
            e.as_mut(),
            ContentType::ApplicationData,
            ProtocolVersion::TLSv1_3,
            &plain,
            5,
        );
        let last = rec.len() - 1;
        rec[last] ^= 1;
        let (r, buf) = open_in_place(d.as_mut(), &rec, 5);
        assert_eq!(r, Err(rustls::Error::DecryptError), "{id:?}");
        assert!(
            !buf[5..].windows(16).any(|w| w == [0xab; 16]),
            "{id:?}: plaintext left in the buffer after a failed tag check"
        );
        for short in [0usize, 1, 15] {
            let mut rec = vec![0x17, 3, 3, 0, short as u8];
            rec.extend(std::iter::repeat_n(0u8, short));
            assert_eq!(
                open(d.as_mut(), &rec, 0),
                Err(rustls::Error::DecryptError),
                "{id:?}: {short} bytes"
            );
        }
    }
    #[cfg(feature = "tls12")]
    for id in [
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
        CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    ] {
        let gcm = id != CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256;
        let (key, iv) = if gcm {
            (&key32[..16], &iv[..4])
        } else {
            (&key32[..], &iv[..])
        };
        let explicit = bytes(43, if gcm { 8 } else { 0 });
        let mut e = cryptoreg_rustls::testing::tls12_encrypter(&reg, id, key, iv, &explicit);
        let mut d = cryptoreg_rustls::testing::tls12_decrypter(&reg, id, key, iv);
        let v = ProtocolVersion::TLSv1_2;
        let over = seal(
            e.as_mut(),
            ContentType::ApplicationData,
            v,
            &vec![1u8; 16385],
            0,
        );
        assert_eq!(
            open(d.as_mut(), &over, 0),
            Err(rustls::Error::PeerSentOversizedRecord),
            "{id:?}"
        );
        let plain = vec![0xcdu8; 1000];
        let mut rec = seal(e.as_mut(), ContentType::ApplicationData, v, &plain, 1);
        rec[20] ^= 1;
        let (r, buf) = open_in_place(d.as_mut(), &rec, 1);
        assert_eq!(r, Err(rustls::Error::DecryptError), "{id:?}");
        assert!(
            !buf[5..].windows(16).any(|w| w == [0xcd; 16]),
            "{id:?}: plaintext left"
        );
        for short in [0usize, 8, 23] {
            let mut rec = vec![0x17, 3, 3, 0, short as u8];
            rec.extend(std::iter::repeat_n(0u8, short));
            assert_eq!(
                open(d.as_mut(), &rec, 0),
                Err(rustls::Error::DecryptError),
                "{id:?}: {short} bytes"
            );
        }
    }
}

/// QUIC: a packet shorter than its tag is refused; header protection with no usable
/// `aes` driver (disabled before the key was installed, or after) masks nothing and
/// does not fail (quinn panics on an error there), so the packet fails its check instead.
#[test]
fn quic_refusals_never_panic() {
    let reg = common::registry("");
    let id = CipherSuite::TLS13_AES_128_GCM_SHA256;
    let p = cryptoreg_rustls::testing::quic_packet_key(
        &reg,
        id,
        &bytes(1, 16),
        Iv::copy(&bytes(2, 12)),
    );
    let mut short = [0u8; 10];
    assert_eq!(
        p.decrypt_in_place(0, &[0xc0], &mut short).err(),
        Some(rustls::Error::DecryptError)
    );
    let hp = cryptoreg_rustls::testing::quic_header_key(&reg, id, &bytes(3, 16));
    let sample = bytes(4, 16);
    let (mut first, mut pn) = (0xc3u8, [1u8, 2, 3, 4]);
    hp.encrypt_in_place(&sample, &mut first, &mut pn).unwrap();
    assert_ne!((first, pn), (0xc3, [1, 2, 3, 4]), "a mask was applied");
    // Every `aes` driver disabled at run time: the installed key finds none.
    let aes: Vec<String> = reg
        .list()
        .into_iter()
        .filter(|e| e.name == "aes" && !e.instance)
        .map(|e| e.driver)
        .collect();
    for d in &aes {
        reg.disable(d).unwrap();
    }
    let (mut first, mut pn) = (0xc3u8, [1u8, 2, 3, 4]);
    hp.encrypt_in_place(&sample, &mut first, &mut pn).unwrap();
    assert_eq!(
        (first, pn),
        (0xc3, [1, 2, 3, 4]),
        "no driver: an all-zero mask"
    );
    hp.decrypt_in_place(&sample, &mut first, &mut pn).unwrap();
    // And a key installed while none is usable.
    let late = cryptoreg_rustls::testing::quic_header_key(&reg, id, &bytes(5, 16));
    late.encrypt_in_place(&sample, &mut first, &mut pn).unwrap();
    assert_eq!((first, pn), (0xc3, [1, 2, 3, 4]));
}
