//! The registry's AEADs as RustCrypto [`AeadInOut`] (and so `AeadInPlace` and `Aead`):
//! `gcm(aes)` with AES-128 and AES-256 and `rfc7539(chacha20,poly1305)`, each with a
//! 12-byte nonce, and `xchacha20poly1305` with a 24-byte one; all with a 16-byte tag
//! appended to the ciphertext, as the RustCrypto types.

use aead::consts::{U12, U16, U24, U32};
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, Nonce, Tag, TagPosition};

use crate::{Aead, Registry, Result};

/// Allocates `name` (the algorithm, or one of its drivers) from `registry`, keyed, with
/// a 16-byte tag.
fn alloc(registry: &Registry, alg: &str, name: &str, key: &[u8]) -> Result<Aead> {
    let mut aead = registry.alloc_aead(name)?;
    super::check_algorithm(aead.algorithm_name(), alg, name)?;
    aead.set_key(key)?;
    aead.set_authsize(16)?;
    Ok(aead)
}

/// Seals `buf` (copied to its output first when it is out of place) and returns the tag.
fn seal(
    aead: Option<&Aead>,
    nonce: &[u8],
    aad: &[u8],
    buf: InOutBuf<'_, '_, u8>,
) -> aead::Result<[u8; 16]> {
    let aead = aead.ok_or(aead::Error)?;
    let mut tag = [0u8; 16];
    aead.seal(nonce, aad, buf.into_out_with_copied_in(), &mut tag)
        .map_err(|_| aead::Error)?;
    Ok(tag)
}

/// Verifies and opens `buf`; on any failure the output holds no plaintext (the handle
/// wipes it).
fn open(
    aead: Option<&Aead>,
    nonce: &[u8],
    aad: &[u8],
    buf: InOutBuf<'_, '_, u8>,
    tag: &[u8],
) -> aead::Result<()> {
    let Some(aead) = aead else {
        // Nothing was decrypted, but the caller may expect the output to have been
        // written: leave it zeroed rather than stale.
        buf.into_out().fill(0);
        return Err(aead::Error);
    };
    aead.open(nonce, aad, buf.into_out_with_copied_in(), tag)
        .map_err(|_| aead::Error)
}

macro_rules! aead_adapter {
    ($name:ident, $alg:literal, $key:ty, $nonce:ty, $doc:literal) => {
        #[doc = $doc]
        pub struct $name {
            /// `None` when the registry could not serve the algorithm at `KeyInit::new`:
            /// every call then returns [`aead::Error`].
            aead: Option<Aead>,
        }

        impl $name {
            #[doc = concat!("Allocates `", $alg, "` from `registry` and sets the key.")]
            pub fn with_registry(registry: &Registry, key: &Key<Self>) -> Result<Self> {
                Self::with_driver(registry, $alg, key)
            }

            #[doc = concat!("Allocates one driver of `", $alg, "` by its driver name (an exact driver name wins outright, as everywhere in the registry).")]
            pub fn with_driver(registry: &Registry, driver: &str, key: &Key<Self>) -> Result<Self> {
                Ok(Self {
                    aead: Some(alloc(registry, $alg, driver, key)?),
                })
            }

            /// [`Self::with_registry`] over the process-default registry.
            pub fn try_new(key: &Key<Self>) -> Result<Self> {
                Self::with_registry(&*crate::registry()?, key)
            }

            /// The registry handle underneath; `None` if the registry could not serve
            /// the algorithm when this was built with `KeyInit::new`.
            pub fn handle(&self) -> Option<&Aead> {
                self.aead.as_ref()
            }
        }

        impl KeySizeUser for $name {
            type KeySize = $key;
        }

        impl KeyInit for $name {
            /// Over the process-default registry. If it cannot serve the algorithm, the
            /// result fails closed: every call returns [`aead::Error`].
            fn new(key: &Key<Self>) -> Self {
                Self::try_new(key).unwrap_or(Self { aead: None })
            }
        }

        impl AeadCore for $name {
            type NonceSize = $nonce;
            type TagSize = U16;
            const TAG_POSITION: TagPosition = TagPosition::Postfix;
        }

        impl AeadInOut for $name {
            fn encrypt_inout_detached(
                &self,
                nonce: &Nonce<Self>,
                associated_data: &[u8],
                buffer: InOutBuf<'_, '_, u8>,
            ) -> aead::Result<Tag<Self>> {
                seal(self.aead.as_ref(), nonce, associated_data, buffer).map(Tag::<Self>::from)
            }

            fn decrypt_inout_detached(
                &self,
                nonce: &Nonce<Self>,
                associated_data: &[u8],
                buffer: InOutBuf<'_, '_, u8>,
                tag: &Tag<Self>,
            ) -> aead::Result<()> {
                open(self.aead.as_ref(), nonce, associated_data, buffer, tag)
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("driver", &self.aead.as_ref().map(|a| a.driver_name()))
                    .finish_non_exhaustive()
            }
        }
    };
}

aead_adapter!(
    Aes128Gcm,
    "gcm(aes)",
    U16,
    U12,
    "AES-128-GCM from the registry's `gcm(aes)`, in place of `aes_gcm::Aes128Gcm`."
);
aead_adapter!(
    Aes256Gcm,
    "gcm(aes)",
    U32,
    U12,
    "AES-256-GCM from the registry's `gcm(aes)`, in place of `aes_gcm::Aes256Gcm`."
);
aead_adapter!(
    ChaCha20Poly1305,
    "rfc7539(chacha20,poly1305)",
    U32,
    U12,
    "ChaCha20-Poly1305 (RFC 8439) from the registry's `rfc7539(chacha20,poly1305)`, in place of `chacha20poly1305::ChaCha20Poly1305`."
);
aead_adapter!(
    XChaCha20Poly1305,
    "xchacha20poly1305",
    U32,
    U24,
    "XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha-03: a 24-byte nonce, so random nonces are safe) from the registry's `xchacha20poly1305`, in place of `chacha20poly1305::XChaCha20Poly1305`."
);
