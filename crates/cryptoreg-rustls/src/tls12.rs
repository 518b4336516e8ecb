//! TLS 1.2 record protection through registry AEAD handles.
//!
//! * AES-GCM (RFC 5288 §3, RFC 5289): the nonce is the 4-byte implicit salt from the key
//!   block followed by an 8-byte explicit part carried at the start of each record. As
//!   rustls's own providers do, the explicit part is the key block's 8 explicit bytes XOR
//!   the sequence number, so it never repeats under one key.
//! * ChaCha20-Poly1305 (RFC 7905): the nonce is the 12-byte IV XOR the sequence number;
//!   nothing explicit travels.
//!
//! Both take the 13-byte AAD `seq || type || version || length` (RFC 5246 §6.2.3.3).
//! It goes to `gcm(aes)` itself: `rfc4106(gcm(aes))` takes only 8 or 12 bytes of AAD.

use std::sync::Arc;

use cryptoreg::Registry;
use rustls::crypto::cipher::{
    make_tls12_aad, AeadKey, InboundOpaqueMessage, InboundPlainMessage, Iv, KeyBlockShape,
    MessageDecrypter, MessageEncrypter, Nonce, OutboundOpaqueMessage, OutboundPlainMessage,
    PrefixedPayload, Tls12AeadAlgorithm, UnsupportedOperationError, NONCE_LEN,
};
use rustls::{ConnectionTrafficSecrets, Error};

use crate::key::RecordKey;
use crate::{Suite, TAG_LEN};

/// GCM's explicit nonce bytes at the start of each record.
const GCM_EXPLICIT_LEN: usize = 8;
/// GCM's implicit salt from the key block.
const GCM_SALT_LEN: usize = 4;
/// The largest plaintext fragment a peer may send (RFC 5246 §6.2.1).
const MAX_FRAGMENT_LEN: usize = 16384;

/// A TLS 1.2 AEAD of one suite, over the registry.
pub(crate) struct Tls12Aead {
    pub(crate) registry: Arc<Registry>,
    pub(crate) suite: Suite,
}

impl Tls12Aead {
    fn is_gcm(&self) -> bool {
        self.suite != Suite::ChaCha20Poly1305
    }

    fn record_key(&self, key: &[u8]) -> cryptoreg::Result<RecordKey> {
        RecordKey::new(Arc::clone(&self.registry), self.suite.algorithm(), key)
    }

    pub(crate) fn encrypter_from(
        &self,
        key: &[u8],
        iv: &[u8],
        extra: &[u8],
    ) -> Box<dyn MessageEncrypter> {
        let key = match self.record_key(key) {
            Ok(k) => k,
            Err(e) => {
                let explicit = if self.is_gcm() { GCM_EXPLICIT_LEN } else { 0 };
                return Box::new(crate::Unavailable::new(self.suite, e, None, explicit));
            }
        };
        if self.is_gcm() {
            Box::new(GcmEncrypter {
                key,
                iv: gcm_iv(iv, extra),
            })
        } else {
            Box::new(ChaChaEncrypter {
                key,
                iv: Iv::copy(iv),
            })
        }
    }

    pub(crate) fn decrypter_from(&self, key: &[u8], iv: &[u8]) -> Box<dyn MessageDecrypter> {
        let key = match self.record_key(key) {
            Ok(k) => k,
            Err(e) => return Box::new(crate::Unavailable::new(self.suite, e, None, 0)),
        };
        if self.is_gcm() {
            let mut salt = [0u8; GCM_SALT_LEN];
            salt.copy_from_slice(iv);
            Box::new(GcmDecrypter { key, salt })
        } else {
            Box::new(ChaChaDecrypter {
                key,
                iv: Iv::copy(iv),
            })
        }
    }
}

/// The GCM nonce base: salt then explicit bytes.
fn gcm_iv(salt: &[u8], explicit: &[u8]) -> Iv {
    let mut iv = [0u8; NONCE_LEN];
    iv[..GCM_SALT_LEN].copy_from_slice(salt);
    iv[GCM_SALT_LEN..].copy_from_slice(explicit);
    Iv::new(iv)
}

impl Tls12AeadAlgorithm for Tls12Aead {
    fn encrypter(&self, key: AeadKey, iv: &[u8], extra: &[u8]) -> Box<dyn MessageEncrypter> {
        self.encrypter_from(key.as_ref(), iv, extra)
    }

    fn decrypter(&self, key: AeadKey, iv: &[u8]) -> Box<dyn MessageDecrypter> {
        self.decrypter_from(key.as_ref(), iv)
    }

    fn key_block_shape(&self) -> KeyBlockShape {
        if self.is_gcm() {
            KeyBlockShape {
                enc_key_len: self.suite.key_len(),
                fixed_iv_len: GCM_SALT_LEN,
                explicit_nonce_len: GCM_EXPLICIT_LEN,
            }
        } else {
            KeyBlockShape {
                enc_key_len: 32,
                fixed_iv_len: NONCE_LEN,
                explicit_nonce_len: 0,
            }
        }
    }

    fn extract_keys(
        &self,
        key: AeadKey,
        iv: &[u8],
        explicit: &[u8],
    ) -> Result<ConnectionTrafficSecrets, UnsupportedOperationError> {
        let iv = if self.is_gcm() {
            gcm_iv(iv, explicit)
        } else {
            Iv::copy(iv)
        };
        Ok(self.suite.traffic_secrets(key, iv))
    }

    fn fips(&self) -> bool {
        false
    }
}

struct GcmEncrypter {
    key: RecordKey,
    iv: Iv,
}

impl MessageEncrypter for GcmEncrypter {
    fn encrypt(
        &mut self,
        msg: OutboundPlainMessage<'_>,
        seq: u64,
    ) -> Result<OutboundOpaqueMessage, Error> {
        let len = msg.payload.len();
        let mut payload = PrefixedPayload::with_capacity(self.encrypted_payload_len(len));
        let nonce = Nonce::new(&self.iv, seq).0;
        let aad = make_tls12_aad(seq, msg.typ, msg.version, len);
        payload.extend_from_slice(&nonce[GCM_SALT_LEN..]);
        payload.extend_from_chunks(&msg.payload);
        let mut tag = [0u8; TAG_LEN];
        let text = &mut payload.as_mut()[GCM_EXPLICIT_LEN..];
        let sealed = (self.key.current()).and_then(|h| h.seal(&nonce, &aad, text, &mut tag));
        if let Err(e) = sealed {
            crate::refuse(self.key.algorithm(), &e, text, &mut tag);
        }
        payload.extend_from_slice(&tag);
        Ok(OutboundOpaqueMessage::new(msg.typ, msg.version, payload))
    }

    fn encrypted_payload_len(&self, payload_len: usize) -> usize {
        payload_len + GCM_EXPLICIT_LEN + TAG_LEN
    }
}

struct GcmDecrypter {
    key: RecordKey,
    salt: [u8; GCM_SALT_LEN],
}

impl MessageDecrypter for GcmDecrypter {
    fn decrypt<'a>(
        &mut self,
        mut msg: InboundOpaqueMessage<'a>,
        seq: u64,
    ) -> Result<InboundPlainMessage<'a>, Error> {
        let len = msg.payload.len();
        if len < GCM_EXPLICIT_LEN + TAG_LEN {
            return Err(Error::DecryptError);
        }
        let text_len = len - GCM_EXPLICIT_LEN - TAG_LEN;
        let mut nonce = [0u8; NONCE_LEN];
        nonce[..GCM_SALT_LEN].copy_from_slice(&self.salt);
        nonce[GCM_SALT_LEN..].copy_from_slice(&msg.payload[..GCM_EXPLICIT_LEN]);
        let aad = make_tls12_aad(seq, msg.typ, msg.version, text_len);
        let handle = self.key.current().map_err(crate::no_driver)?;
        let payload = &mut msg.payload;
        let (text, tag) = payload[GCM_EXPLICIT_LEN..].split_at_mut(text_len);
        handle
            .open(&nonce, &aad, text, tag)
            .map_err(|_| Error::DecryptError)?;
        if text_len > MAX_FRAGMENT_LEN {
            return Err(Error::PeerSentOversizedRecord);
        }
        // The plaintext moves to the front, over the explicit nonce.
        payload.copy_within(GCM_EXPLICIT_LEN..GCM_EXPLICIT_LEN + text_len, 0);
        payload.truncate(text_len);
        Ok(msg.into_plain_message())
    }
}

struct ChaChaEncrypter {
    key: RecordKey,
    iv: Iv,
}

impl MessageEncrypter for ChaChaEncrypter {
    fn encrypt(
        &mut self,
        msg: OutboundPlainMessage<'_>,
        seq: u64,
    ) -> Result<OutboundOpaqueMessage, Error> {
        let len = msg.payload.len();
        let mut payload = PrefixedPayload::with_capacity(self.encrypted_payload_len(len));
        let nonce = Nonce::new(&self.iv, seq).0;
        let aad = make_tls12_aad(seq, msg.typ, msg.version, len);
        payload.extend_from_chunks(&msg.payload);
        let mut tag = [0u8; TAG_LEN];
        let sealed =
            (self.key.current()).and_then(|h| h.seal(&nonce, &aad, payload.as_mut(), &mut tag));
        if let Err(e) = sealed {
            crate::refuse(self.key.algorithm(), &e, payload.as_mut(), &mut tag);
        }
        payload.extend_from_slice(&tag);
        Ok(OutboundOpaqueMessage::new(msg.typ, msg.version, payload))
    }

    fn encrypted_payload_len(&self, payload_len: usize) -> usize {
        payload_len + TAG_LEN
    }
}

struct ChaChaDecrypter {
    key: RecordKey,
    iv: Iv,
}

impl MessageDecrypter for ChaChaDecrypter {
    fn decrypt<'a>(
        &mut self,
        mut msg: InboundOpaqueMessage<'a>,
        seq: u64,
    ) -> Result<InboundPlainMessage<'a>, Error> {
        let len = msg.payload.len();
        if len < TAG_LEN {
            return Err(Error::DecryptError);
        }
        let text_len = len - TAG_LEN;
        let nonce = Nonce::new(&self.iv, seq).0;
        let aad = make_tls12_aad(seq, msg.typ, msg.version, text_len);
        let handle = self.key.current().map_err(crate::no_driver)?;
        let payload = &mut msg.payload;
        let (text, tag) = payload.split_at_mut(text_len);
        handle
            .open(&nonce, &aad, text, tag)
            .map_err(|_| Error::DecryptError)?;
        if text_len > MAX_FRAGMENT_LEN {
            return Err(Error::PeerSentOversizedRecord);
        }
        payload.truncate(text_len);
        Ok(msg.into_plain_message())
    }
}
