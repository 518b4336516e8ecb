//! TLS 1.3 record protection (RFC 8446 §5.2): `TLSInnerPlaintext` (content, then the
//! real content type) sealed under the nonce IV XOR sequence number (§5.3), with the
//! record header as AAD, through a registry AEAD handle.

use std::sync::Arc;

use cryptoreg::Registry;
use rustls::crypto::cipher::{
    make_tls13_aad, AeadKey, InboundOpaqueMessage, InboundPlainMessage, Iv, MessageDecrypter,
    MessageEncrypter, Nonce, OutboundOpaqueMessage, OutboundPlainMessage, PrefixedPayload,
    Tls13AeadAlgorithm, UnsupportedOperationError,
};
use rustls::{ConnectionTrafficSecrets, ContentType, Error, ProtocolVersion};

use crate::key::RecordKey;
use crate::{Suite, TAG_LEN};

/// A TLS 1.3 AEAD of one suite, over the registry.
pub(crate) struct Tls13Aead {
    pub(crate) registry: Arc<Registry>,
    pub(crate) suite: Suite,
}

impl Tls13Aead {
    pub(crate) fn encrypter_from(&self, key: &[u8], iv: Iv) -> Box<dyn MessageEncrypter> {
        match RecordKey::new(Arc::clone(&self.registry), self.suite.algorithm(), key) {
            Ok(key) => Box::new(Tls13Encrypter { key, iv }),
            Err(e) => Box::new(crate::Unavailable::new(
                self.suite,
                e,
                Some((ContentType::ApplicationData, ProtocolVersion::TLSv1_2)),
                1,
            )),
        }
    }

    pub(crate) fn decrypter_from(&self, key: &[u8], iv: Iv) -> Box<dyn MessageDecrypter> {
        match RecordKey::new(Arc::clone(&self.registry), self.suite.algorithm(), key) {
            Ok(key) => Box::new(Tls13Decrypter { key, iv }),
            Err(e) => Box::new(crate::Unavailable::new(self.suite, e, None, 0)),
        }
    }
}

impl Tls13AeadAlgorithm for Tls13Aead {
    fn encrypter(&self, key: AeadKey, iv: Iv) -> Box<dyn MessageEncrypter> {
        self.encrypter_from(key.as_ref(), iv)
    }

    fn decrypter(&self, key: AeadKey, iv: Iv) -> Box<dyn MessageDecrypter> {
        self.decrypter_from(key.as_ref(), iv)
    }

    fn key_len(&self) -> usize {
        self.suite.key_len()
    }

    fn extract_keys(
        &self,
        key: AeadKey,
        iv: Iv,
    ) -> Result<ConnectionTrafficSecrets, UnsupportedOperationError> {
        Ok(self.suite.traffic_secrets(key, iv))
    }

    fn fips(&self) -> bool {
        false
    }
}

struct Tls13Encrypter {
    key: RecordKey,
    iv: Iv,
}

impl MessageEncrypter for Tls13Encrypter {
    fn encrypt(
        &mut self,
        msg: OutboundPlainMessage<'_>,
        seq: u64,
    ) -> Result<OutboundOpaqueMessage, Error> {
        let total_len = self.encrypted_payload_len(msg.payload.len());
        let mut payload = PrefixedPayload::with_capacity(total_len);
        payload.extend_from_chunks(&msg.payload);
        payload.extend_from_slice(&msg.typ.to_array());
        let nonce = Nonce::new(&self.iv, seq).0;
        let aad = make_tls13_aad(total_len);
        let mut tag = [0u8; TAG_LEN];
        let sealed =
            (self.key.current()).and_then(|h| h.seal(&nonce, &aad, payload.as_mut(), &mut tag));
        if let Err(e) = sealed {
            crate::refuse(self.key.algorithm(), &e, payload.as_mut(), &mut tag);
        }
        payload.extend_from_slice(&tag);
        // Every TLS 1.3 protected record says application data and TLS 1.2 (§5.1).
        Ok(OutboundOpaqueMessage::new(
            ContentType::ApplicationData,
            ProtocolVersion::TLSv1_2,
            payload,
        ))
    }

    fn encrypted_payload_len(&self, payload_len: usize) -> usize {
        payload_len + 1 + TAG_LEN
    }
}

struct Tls13Decrypter {
    key: RecordKey,
    iv: Iv,
}

impl MessageDecrypter for Tls13Decrypter {
    fn decrypt<'a>(
        &mut self,
        mut msg: InboundOpaqueMessage<'a>,
        seq: u64,
    ) -> Result<InboundPlainMessage<'a>, Error> {
        let payload = &mut msg.payload;
        let len = payload.len();
        if len < TAG_LEN {
            return Err(Error::DecryptError);
        }
        let nonce = Nonce::new(&self.iv, seq).0;
        let aad = make_tls13_aad(len);
        let handle = self.key.current().map_err(crate::no_driver)?;
        let (text, tag) = payload.split_at_mut(len - TAG_LEN);
        // A failed tag check leaves no plaintext: the handle wipes `text`.
        handle
            .open(&nonce, &aad, text, tag)
            .map_err(|_| Error::DecryptError)?;
        payload.truncate(len - TAG_LEN);
        msg.into_tls13_unpadded_message()
    }
}
