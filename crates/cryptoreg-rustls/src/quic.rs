//! QUIC packet and header protection (RFC 9001 §5.3, §5.4) through registry handles.
//!
//! * Packets: the suite's AEAD, nonce = IV XOR packet number, the header as AAD.
//! * Headers: a 5-byte mask from a 16-byte sample of the ciphertext. For AES suites the
//!   mask is the first 5 bytes of AES-ECB(hp_key, sample), one block through the
//!   registry's `aes` cipher (§5.4.3); for ChaCha20 it is ChaCha20 keystream under the
//!   sample, whose first 4 bytes are the little-endian block counter and the other 12 the
//!   nonce (§5.4.4) — exactly the 16-byte IV of the registry's `chacha20` — over 5 zero
//!   bytes.
//!
//! rustls calls these keys through `&self` from any thread holding the connection, so each
//! keeps its handle behind a mutex: re-keying on an operator's change needs `&mut`, and
//! the lock is uncontended (one connection's packets are protected one at a time).

use std::sync::{Arc, Mutex};

use cryptoreg::{Cipher, Registry, Skcipher};
use rustls::crypto::cipher::{AeadKey, Iv, Nonce};
use rustls::quic::{Algorithm, HeaderProtectionKey, PacketKey, Tag};
use rustls::Error;

use crate::key::{Fresh, RecordKey};
use crate::{Suite, TAG_LEN};

/// The header protection sample's length (both kinds).
const SAMPLE_LEN: usize = 16;
/// Bytes of mask used: one for the first byte, up to four for the packet number.
const MASK_LEN: usize = 5;

/// One suite's QUIC keys, over the registry.
pub(crate) struct QuicAlgorithm {
    pub(crate) registry: Arc<Registry>,
    pub(crate) suite: Suite,
}

impl QuicAlgorithm {
    /// RFC 9001 §6.6 and appendix B: AES-GCM 2^23 packets (confidentiality) and 2^52
    /// forgery attempts (integrity); ChaCha20-Poly1305 no confidentiality limit and
    /// 2^36.
    fn limits(&self) -> (u64, u64) {
        match self.suite {
            Suite::ChaCha20Poly1305 => (u64::MAX, 1 << 36),
            _ => (1 << 23, 1 << 52),
        }
    }
}

impl QuicAlgorithm {
    pub(crate) fn packet_key_from(&self, key: &[u8], iv: Iv) -> Box<dyn PacketKey> {
        let (confidentiality_limit, integrity_limit) = self.limits();
        let key = RecordKey::new(Arc::clone(&self.registry), self.suite.algorithm(), key)
            .map_err(|e| crate::unavailable(self.suite, &e));
        Box::new(QuicPacketKey {
            key: Mutex::new(key),
            iv,
            confidentiality_limit,
            integrity_limit,
        })
    }

    pub(crate) fn header_key_from(&self, key: &[u8]) -> Box<dyn HeaderProtectionKey> {
        let mask = match self.suite {
            Suite::ChaCha20Poly1305 => {
                Fresh::<Skcipher>::new(Arc::clone(&self.registry), "chacha20", key)
                    .map(Mask::ChaCha20)
            }
            _ => Fresh::<Cipher>::new(Arc::clone(&self.registry), "aes", key).map(Mask::Aes),
        }
        .map_err(|e| crate::unavailable(self.suite, &e));
        Box::new(QuicHeaderKey {
            mask: Mutex::new(mask),
        })
    }
}

impl Algorithm for QuicAlgorithm {
    fn packet_key(&self, key: AeadKey, iv: Iv) -> Box<dyn PacketKey> {
        self.packet_key_from(key.as_ref(), iv)
    }

    fn header_protection_key(&self, key: AeadKey) -> Box<dyn HeaderProtectionKey> {
        self.header_key_from(key.as_ref())
    }

    fn aead_key_len(&self) -> usize {
        self.suite.key_len()
    }

    fn fips(&self) -> bool {
        false
    }
}

struct QuicPacketKey {
    /// The handle, or why none could be had when rustls installed the key.
    key: Mutex<Result<RecordKey, String>>,
    iv: Iv,
    confidentiality_limit: u64,
    integrity_limit: u64,
}

impl QuicPacketKey {
    fn with_handle<R>(
        &self,
        on_error: Error,
        f: impl FnOnce(&cryptoreg::Aead) -> Result<R, Error>,
    ) -> Result<R, Error> {
        let mut key = self.key.lock().unwrap_or_else(|p| p.into_inner());
        let key = key.as_mut().map_err(|_| on_error.clone())?;
        let handle = key.current().map_err(|_| on_error)?;
        f(handle)
    }
}

impl PacketKey for QuicPacketKey {
    fn encrypt_in_place(
        &self,
        packet_number: u64,
        header: &[u8],
        payload: &mut [u8],
    ) -> Result<Tag, Error> {
        let nonce = Nonce::new(&self.iv, packet_number).0;
        self.seal(nonce, header, payload)
    }

    fn encrypt_in_place_for_path(
        &self,
        path_id: u32,
        packet_number: u64,
        header: &[u8],
        payload: &mut [u8],
    ) -> Result<Tag, Error> {
        let nonce = Nonce::for_path(path_id, &self.iv, packet_number).0;
        self.seal(nonce, header, payload)
    }

    fn decrypt_in_place<'a>(
        &self,
        packet_number: u64,
        header: &[u8],
        payload: &'a mut [u8],
    ) -> Result<&'a [u8], Error> {
        let nonce = Nonce::new(&self.iv, packet_number).0;
        self.open(nonce, header, payload)
    }

    fn decrypt_in_place_for_path<'a>(
        &self,
        path_id: u32,
        packet_number: u64,
        header: &[u8],
        payload: &'a mut [u8],
    ) -> Result<&'a [u8], Error> {
        let nonce = Nonce::for_path(path_id, &self.iv, packet_number).0;
        self.open(nonce, header, payload)
    }

    fn tag_len(&self) -> usize {
        TAG_LEN
    }

    fn confidentiality_limit(&self) -> u64 {
        self.confidentiality_limit
    }

    fn integrity_limit(&self) -> u64 {
        self.integrity_limit
    }
}

impl QuicPacketKey {
    /// Seals in place. With no usable driver the packet is refused the way records are
    /// ([`crate::refuse`]): quinn, like rustls, takes an error here for a bug.
    fn seal(&self, nonce: [u8; 12], header: &[u8], payload: &mut [u8]) -> Result<Tag, Error> {
        let mut tag = [0u8; TAG_LEN];
        let mut key = self.key.lock().unwrap_or_else(|p| p.into_inner());
        let sealed = match key.as_mut() {
            Ok(k) => {
                let algorithm = k.algorithm();
                let r = k
                    .current()
                    .and_then(|h| h.seal(&nonce, header, payload, &mut tag));
                r.map_err(|e| (algorithm, e.to_string()))
            }
            Err(why) => Err(("QUIC packet protection", why.clone())),
        };
        if let Err((algorithm, why)) = sealed {
            crate::refuse_with(algorithm, &why, payload, &mut tag);
        }
        Ok(Tag::from(&tag[..]))
    }

    fn open<'a>(
        &self,
        nonce: [u8; 12],
        header: &[u8],
        payload: &'a mut [u8],
    ) -> Result<&'a [u8], Error> {
        let len = payload.len();
        if len < TAG_LEN {
            return Err(Error::DecryptError);
        }
        let text_len = len - TAG_LEN;
        self.with_handle(Error::DecryptError, |h| {
            let (text, tag) = payload.split_at_mut(text_len);
            h.open(&nonce, header, text, tag)
                .map_err(|_| Error::DecryptError)
        })?;
        Ok(&payload[..text_len])
    }
}

/// The header protection handle of a suite.
enum Mask {
    Aes(Fresh<Cipher>),
    ChaCha20(Fresh<Skcipher>),
}

impl Mask {
    fn mask(&mut self, sample: &[u8; SAMPLE_LEN]) -> cryptoreg::Result<[u8; MASK_LEN]> {
        let mut out = [0u8; MASK_LEN];
        match self {
            Mask::Aes(c) => {
                let mut block = *sample;
                c.current()?.encrypt_blocks(&mut block)?;
                out.copy_from_slice(&block[..MASK_LEN]);
            }
            Mask::ChaCha20(s) => s.current()?.encrypt_in_place(sample, &mut out)?,
        }
        Ok(out)
    }
}

struct QuicHeaderKey {
    mask: Mutex<Result<Mask, String>>,
}

impl QuicHeaderKey {
    fn xor_in_place(
        &self,
        sample: &[u8],
        first: &mut u8,
        packet_number: &mut [u8],
        masked: bool,
    ) -> Result<(), Error> {
        let sample: &[u8; SAMPLE_LEN] = sample.try_into().map_err(|_| {
            Error::General("QUIC header protection: sample of invalid length".into())
        })?;
        if packet_number.len() > MASK_LEN - 1 {
            return Err(Error::General(
                "QUIC header protection: packet number too long".into(),
            ));
        }
        // Without a usable driver the mask is all zero and the call still succeeds:
        // quinn, like rustls for records, takes an error here for a bug and panics. An
        // unmasked packet number then fails the peer's (or this end's) packet check, so
        // the packet is dropped, as a refused record is ([`crate::refuse`]).
        let mask = {
            let mut guard = self.mask.lock().unwrap_or_else(|p| p.into_inner());
            let m = match guard.as_mut() {
                Ok(m) => m.mask(sample).map_err(|e| e.to_string()),
                Err(why) => Err(why.clone()),
            };
            m.unwrap_or_else(|why| {
                crate::refuse_with("QUIC header protection", &why, &mut [], &mut []);
                [0u8; MASK_LEN]
            })
        };
        // Long headers protect the low 4 bits of the first byte, short headers 5 (§5.4.1).
        let bits = if *first & 0x80 != 0 { 0x0f } else { 0x1f };
        let first_plain = if masked {
            *first ^ (mask[0] & bits)
        } else {
            *first
        };
        let pn_len = usize::from(first_plain & 0x03) + 1;
        *first ^= mask[0] & bits;
        for (b, m) in packet_number.iter_mut().zip(&mask[1..]).take(pn_len) {
            *b ^= m;
        }
        Ok(())
    }
}

impl HeaderProtectionKey for QuicHeaderKey {
    fn encrypt_in_place(
        &self,
        sample: &[u8],
        first: &mut u8,
        packet_number: &mut [u8],
    ) -> Result<(), Error> {
        self.xor_in_place(sample, first, packet_number, false)
    }

    fn decrypt_in_place(
        &self,
        sample: &[u8],
        first: &mut u8,
        packet_number: &mut [u8],
    ) -> Result<(), Error> {
        self.xor_in_place(sample, first, packet_number, true)
    }

    fn sample_len(&self) -> usize {
        SAMPLE_LEN
    }
}
