//! One traffic key's AEAD handle, kept on the registry's current choice.
//!
//! rustls installs a key once per direction and epoch (TLS 1.3 handshake keys, then
//! application keys, then each `KeyUpdate`; TLS 1.2 at ChangeCipherSpec; QUIC per packet
//! space and key phase). A connection may live for days, and an operator who demotes or
//! disables a driver wants its traffic off that driver at the next record, not at the next
//! connection. So the key keeps a zeroizing copy of the key bytes, and before each record
//! asks its handle whether it is still current (one atomic load): when an operator's
//! change moved the registry's generation, it allocates again and re-keys from the copy.

use std::sync::Arc;

use cryptoreg::{Aead, Cipher, Registry, Skcipher};
use zeroize::Zeroizing;

/// A registry handle type this crate keys: AEADs for records and packets, the block
/// cipher and the stream cipher for QUIC header protection.
pub(crate) trait Handle: Sized {
    fn alloc(registry: &Registry, algorithm: &str) -> cryptoreg::Result<Self>;
    fn set_key(&mut self, key: &[u8]) -> cryptoreg::Result<()>;
    fn is_current(&self) -> bool;
}

macro_rules! handle {
    ($t:ty, $alloc:ident) => {
        impl Handle for $t {
            fn alloc(registry: &Registry, algorithm: &str) -> cryptoreg::Result<Self> {
                registry.$alloc(algorithm)
            }
            fn set_key(&mut self, key: &[u8]) -> cryptoreg::Result<()> {
                <$t>::set_key(self, key)
            }
            fn is_current(&self) -> bool {
                <$t>::is_current(self)
            }
        }
    };
}

handle!(Aead, alloc_aead);
handle!(Cipher, alloc_cipher);
handle!(Skcipher, alloc_skcipher);

/// A handle for one key, re-allocated under the registry's current choice when an
/// operator's change made it stale.
pub(crate) struct Fresh<H> {
    registry: Arc<Registry>,
    /// The algorithm name (`gcm(aes)`, `rfc7539(chacha20,poly1305)`, `aes`, `chacha20`).
    algorithm: &'static str,
    key: Zeroizing<Vec<u8>>,
    handle: H,
    /// The generation at which a re-allocation was last refused, and why.
    refused: Option<(u64, cryptoreg::Error)>,
}

/// The AEAD key of one direction of a TLS connection or QUIC packet space.
pub(crate) type RecordKey = Fresh<Aead>;

impl<H: Handle> Fresh<H> {
    /// Allocates the handle for `algorithm` and keys it.
    pub(crate) fn new(
        registry: Arc<Registry>,
        algorithm: &'static str,
        key: &[u8],
    ) -> cryptoreg::Result<Fresh<H>> {
        let key = Zeroizing::new(key.to_vec());
        let handle = keyed(&registry, algorithm, &key)?;
        Ok(Fresh {
            registry,
            algorithm,
            key,
            handle,
            refused: None,
        })
    }

    pub(crate) fn algorithm(&self) -> &'static str {
        self.algorithm
    }

    /// The handle to protect the next record with: the one already keyed while it is
    /// current, else a new allocation under the registry's current choice. When none can
    /// be had (the operator disabled every driver of the algorithm), the error: the
    /// record is refused (see [`crate::refuse`]) rather than protected by a driver the
    /// operator took out. A refusal is remembered until the registry's generation moves
    /// again, so a connection without a driver does not retry an allocation per record.
    pub(crate) fn current(&mut self) -> cryptoreg::Result<&H> {
        if !self.handle.is_current() {
            let generation = self.registry.generation();
            if let Some((at, e)) = &self.refused {
                if *at == generation {
                    return Err(e.clone());
                }
            }
            match keyed(&self.registry, self.algorithm, &self.key) {
                Ok(h) => {
                    self.handle = h;
                    self.refused = None;
                }
                Err(e) => {
                    self.refused = Some((generation, e.clone()));
                    return Err(e);
                }
            }
        }
        Ok(&self.handle)
    }
}

fn keyed<H: Handle>(registry: &Registry, algorithm: &str, key: &[u8]) -> cryptoreg::Result<H> {
    let mut h = H::alloc(registry, algorithm)?;
    h.set_key(key)?;
    Ok(h)
}
