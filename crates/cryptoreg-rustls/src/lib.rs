//! A rustls [`CryptoProvider`] whose TLS and QUIC record protection comes from the
//! cryptoreg registry: the fastest self-tested driver of this CPU protects every record,
//! and an operator's priority change or `disable` reaches live connections at their next
//! record.
//!
//! ```no_run
//! // Every TLS and QUIC configuration built from the process default now seals and
//! // opens its records through the registry.
//! cryptoreg_rustls::default_provider()
//!     .expect("the registry boots and serves the TLS algorithms")
//!     .install_default()
//!     .expect("no other provider was installed first");
//! ```
//!
//! ## What comes from where
//!
//! A provider is `base`'s ([`provider_with`]; rustls's ring provider for [`provider`] and
//! [`default_provider`]) except for record protection:
//!
//! * **the registry's**: the AEAD of every record and QUIC packet (`gcm(aes)`,
//!   `rfc7539(chacha20,poly1305)`) and QUIC header protection (`aes`, one block;
//!   `chacha20`);
//! * **`base`'s**: key exchange, signature verification, key loading, randomness, the
//!   hashes, HKDF and the TLS 1.2 PRF of each suite, and session-ticket encryption (a
//!   `Ticketer` is built by the application from `base`'s crate).
//!
//! Suites, in `base`'s order of preference (a `base` suite not listed here is not
//! offered, so no record bypasses the registry):
//!
//! * TLS 1.3: `TLS13_AES_128_GCM_SHA256`, `TLS13_AES_256_GCM_SHA384`,
//!   `TLS13_CHACHA20_POLY1305_SHA256`, each with QUIC keys;
//! * TLS 1.2 (feature `tls12`, on by default): `TLS_ECDHE_{ECDSA,RSA}_WITH_AES_128_GCM_SHA256`,
//!   `..._AES_256_GCM_SHA384`, `..._CHACHA20_POLY1305_SHA256`.
//!
//! A suite whose algorithm no usable driver serves (the operator disabled them all, or a
//! configuration masked them) is not offered; a suite without a usable `aes` or
//! `chacha20` driver is offered without QUIC keys. Confidentiality limits are rustls's
//! own providers': 2^24 records for AES-GCM in TLS, none for ChaCha20-Poly1305; QUIC's
//! are RFC 9001's (2^23 packets for AES-GCM; integrity 2^52 for AES-GCM, 2^36 for
//! ChaCha20-Poly1305).
//!
//! ## Keys and handles
//!
//! A handle is allocated and keyed when rustls installs a key (TLS 1.3 handshake keys,
//! application keys, each `KeyUpdate`; TLS 1.2 at ChangeCipherSpec; each QUIC packet
//! space and key phase). Each keeps a zeroizing copy of its key, and before each record
//! looks at `is_current()`: after an operator's change it allocates again under the
//! registry's current choice and re-keys, so `cryptoctl stats` shows the TLS traffic
//! moving to the newly chosen driver. When no driver can be had any more (the operator
//! disabled every driver of the algorithm), a record is never protected by a driver the
//! operator took out, and neither is it an error (rustls and quinn panic on an
//! encrypter's error): it leaves with its plaintext and tag overwritten by zeros, the
//! peer's tag check fails and the connection ends; opening a TLS record fails with a
//! [`rustls::Error::General`] that names the algorithm (rustls then closes without an
//! alert, where a failed tag check sends `bad_record_mac`), and opening a QUIC packet
//! with [`rustls::Error::DecryptError`] (the packet is dropped). QUIC header protection
//! without a driver applies an all-zero mask, so the packet fails its check. Such a
//! refusal is logged at most once a second and not retried until the registry's
//! generation moves. A failed tag check is [`rustls::Error::DecryptError`] and leaves no plaintext.
//! [`rustls::ConnectionTrafficSecrets`] (`extract_keys`, for kernel TLS) returns the keys
//! as rustls's own providers do.
//!
//! ## Leaks
//!
//! rustls wants `&'static` suite parts. Each call of [`provider_with`] (and so of
//! [`provider`] and [`default_provider`]) leaks one small set: the suites and their
//! algorithm objects, a few hundred bytes holding an `Arc` of the registry. Build the
//! provider once per registry, not per connection.

// docs.rs builds with `--cfg docsrs` (see `[package.metadata.docs.rs]`): mark feature-gated items.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod key;
mod quic;
#[cfg(feature = "tls12")]
mod tls12;
mod tls13;

use std::sync::Arc;

use cryptoreg::Registry;
use rustls::crypto::cipher::{
    AeadKey, InboundOpaqueMessage, InboundPlainMessage, Iv, MessageDecrypter, MessageEncrypter,
    OutboundOpaqueMessage, OutboundPlainMessage, PrefixedPayload,
};
use rustls::crypto::CryptoProvider;
use rustls::{CipherSuite, ConnectionTrafficSecrets, SupportedCipherSuite, Tls13CipherSuite};
use rustls::{ContentType, ProtocolVersion};

/// The tag length of both AEADs.
pub(crate) const TAG_LEN: usize = 16;

/// The algorithm names each call prepares (builds and self-tests), so that no self-test
/// runs on a connection's thread — unless a runtime change later drops the template
/// instance that serves one of them: then the first record to re-allocate builds and
/// tests it there, once.
pub const PREPARED: [&str; 4] = ["gcm(aes)", "rfc7539(chacha20,poly1305)", "aes", "chacha20"];

/// The AEAD of a suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Suite {
    Aes128Gcm,
    Aes256Gcm,
    ChaCha20Poly1305,
}

impl Suite {
    /// The registry's algorithm name for the record AEAD.
    pub(crate) fn algorithm(self) -> &'static str {
        match self {
            Suite::Aes128Gcm | Suite::Aes256Gcm => "gcm(aes)",
            Suite::ChaCha20Poly1305 => "rfc7539(chacha20,poly1305)",
        }
    }

    /// The registry's algorithm name for QUIC header protection.
    fn header_algorithm(self) -> &'static str {
        match self {
            Suite::Aes128Gcm | Suite::Aes256Gcm => "aes",
            Suite::ChaCha20Poly1305 => "chacha20",
        }
    }

    pub(crate) fn key_len(self) -> usize {
        match self {
            Suite::Aes128Gcm => 16,
            Suite::Aes256Gcm | Suite::ChaCha20Poly1305 => 32,
        }
    }

    /// TLS confidentiality limit in records, as rustls's own providers set it.
    fn confidentiality_limit(self) -> u64 {
        match self {
            Suite::ChaCha20Poly1305 => u64::MAX,
            _ => 1 << 24,
        }
    }

    pub(crate) fn traffic_secrets(self, key: AeadKey, iv: Iv) -> ConnectionTrafficSecrets {
        match self {
            Suite::Aes128Gcm => ConnectionTrafficSecrets::Aes128Gcm { key, iv },
            Suite::Aes256Gcm => ConnectionTrafficSecrets::Aes256Gcm { key, iv },
            Suite::ChaCha20Poly1305 => ConnectionTrafficSecrets::Chacha20Poly1305 { key, iv },
        }
    }

    /// The suite a rustls suite identifier names, if this crate protects it.
    fn of(id: CipherSuite) -> Option<Suite> {
        use CipherSuite as C;
        Some(match id {
            C::TLS13_AES_128_GCM_SHA256
            | C::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256
            | C::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 => Suite::Aes128Gcm,
            C::TLS13_AES_256_GCM_SHA384
            | C::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384
            | C::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 => Suite::Aes256Gcm,
            C::TLS13_CHACHA20_POLY1305_SHA256
            | C::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256
            | C::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256 => Suite::ChaCha20Poly1305,
            _ => return None,
        })
    }
}

/// `base` with cipher suites whose record protection is `registry`'s (see the crate
/// docs). Prepares [`PREPARED`] first; an algorithm no usable driver serves leaves its
/// suites out, and the error is returned only when no suite at all can be offered.
pub fn provider_with(
    registry: Arc<Registry>,
    base: CryptoProvider,
) -> Result<CryptoProvider, cryptoreg::Error> {
    let mut first_error = None;
    let usable: Vec<&str> = PREPARED
        .into_iter()
        .filter(|name| match registry.prepare(&[name]) {
            Ok(_) => true,
            Err(e) => {
                first_error.get_or_insert(e);
                false
            }
        })
        .collect();
    let cipher_suites: Vec<SupportedCipherSuite> = base
        .cipher_suites
        .iter()
        .filter_map(|base_suite| {
            let suite = Suite::of(base_suite.suite())?;
            if !usable.contains(&suite.algorithm()) {
                return None;
            }
            let with_quic = usable.contains(&suite.header_algorithm());
            Some(replace(&registry, *base_suite, suite, with_quic))
        })
        .collect();
    if cipher_suites.is_empty() {
        return Err(first_error.unwrap_or_else(|| {
            cryptoreg::Error::NotFound("no TLS cipher suite of the base provider".to_string())
        }));
    }
    Ok(CryptoProvider {
        cipher_suites,
        ..base
    })
}

/// [`provider_with`] over rustls's ring provider.
pub fn provider(registry: Arc<Registry>) -> Result<CryptoProvider, cryptoreg::Error> {
    provider_with(registry, rustls::crypto::ring::default_provider())
}

/// [`provider`] over the process's default registry ([`cryptoreg::registry`]).
pub fn default_provider() -> Result<CryptoProvider, cryptoreg::Error> {
    provider(cryptoreg::registry()?)
}

/// `base_suite` with the registry's record protection (leaked: rustls wants `'static`).
fn replace(
    registry: &Arc<Registry>,
    base_suite: SupportedCipherSuite,
    suite: Suite,
    with_quic: bool,
) -> SupportedCipherSuite {
    match base_suite {
        SupportedCipherSuite::Tls13(b) => {
            let aead_alg = leak(tls13::Tls13Aead {
                registry: Arc::clone(registry),
                suite,
            });
            let quic: Option<&'static dyn rustls::quic::Algorithm> = if with_quic {
                Some(leak(quic::QuicAlgorithm {
                    registry: Arc::clone(registry),
                    suite,
                }))
            } else {
                None
            };
            SupportedCipherSuite::Tls13(leak(Tls13CipherSuite {
                common: rustls::crypto::CipherSuiteCommon {
                    suite: b.common.suite,
                    hash_provider: b.common.hash_provider,
                    confidentiality_limit: suite.confidentiality_limit(),
                },
                hkdf_provider: b.hkdf_provider,
                aead_alg,
                quic,
            }))
        }
        #[cfg(feature = "tls12")]
        SupportedCipherSuite::Tls12(b) => {
            let aead_alg = leak(tls12::Tls12Aead {
                registry: Arc::clone(registry),
                suite,
            });
            SupportedCipherSuite::Tls12(leak(rustls::Tls12CipherSuite {
                common: rustls::crypto::CipherSuiteCommon {
                    suite: b.common.suite,
                    hash_provider: b.common.hash_provider,
                    confidentiality_limit: suite.confidentiality_limit(),
                },
                prf_provider: b.prf_provider,
                kx: b.kx,
                sign: b.sign,
                aead_alg,
            }))
        }
        #[allow(unreachable_patterns)]
        other => other,
    }
}

fn leak<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

/// Record and packet keys from raw key bytes, for tests of the record layer below a
/// handshake: rustls's `AeadKey` can be made only 32 bytes long outside rustls, so the
/// AES-128 suites' keys cannot reach the trait methods from a test. Not an API.
#[doc(hidden)]
pub mod testing {
    use std::sync::Arc;

    use cryptoreg::Registry;
    use rustls::crypto::cipher::{Iv, MessageDecrypter, MessageEncrypter};
    use rustls::quic::{HeaderProtectionKey, PacketKey};
    use rustls::CipherSuite;

    use crate::Suite;

    fn suite(id: CipherSuite) -> Suite {
        Suite::of(id).expect("a suite this crate protects")
    }

    /// A TLS 1.3 encrypter of suite `id`.
    pub fn tls13_encrypter(
        reg: &Arc<Registry>,
        id: CipherSuite,
        key: &[u8],
        iv: Iv,
    ) -> Box<dyn MessageEncrypter> {
        crate::tls13::Tls13Aead {
            registry: Arc::clone(reg),
            suite: suite(id),
        }
        .encrypter_from(key, iv)
    }

    /// A TLS 1.3 decrypter of suite `id`.
    pub fn tls13_decrypter(
        reg: &Arc<Registry>,
        id: CipherSuite,
        key: &[u8],
        iv: Iv,
    ) -> Box<dyn MessageDecrypter> {
        crate::tls13::Tls13Aead {
            registry: Arc::clone(reg),
            suite: suite(id),
        }
        .decrypter_from(key, iv)
    }

    /// A TLS 1.2 encrypter of suite `id`.
    #[cfg(feature = "tls12")]
    pub fn tls12_encrypter(
        reg: &Arc<Registry>,
        id: CipherSuite,
        key: &[u8],
        iv: &[u8],
        explicit: &[u8],
    ) -> Box<dyn MessageEncrypter> {
        crate::tls12::Tls12Aead {
            registry: Arc::clone(reg),
            suite: suite(id),
        }
        .encrypter_from(key, iv, explicit)
    }

    /// A TLS 1.2 decrypter of suite `id`.
    #[cfg(feature = "tls12")]
    pub fn tls12_decrypter(
        reg: &Arc<Registry>,
        id: CipherSuite,
        key: &[u8],
        iv: &[u8],
    ) -> Box<dyn MessageDecrypter> {
        crate::tls12::Tls12Aead {
            registry: Arc::clone(reg),
            suite: suite(id),
        }
        .decrypter_from(key, iv)
    }

    /// A QUIC packet key of suite `id`.
    pub fn quic_packet_key(
        reg: &Arc<Registry>,
        id: CipherSuite,
        key: &[u8],
        iv: Iv,
    ) -> Box<dyn PacketKey> {
        crate::quic::QuicAlgorithm {
            registry: Arc::clone(reg),
            suite: suite(id),
        }
        .packet_key_from(key, iv)
    }

    /// A QUIC header protection key of suite `id`.
    pub fn quic_header_key(
        reg: &Arc<Registry>,
        id: CipherSuite,
        key: &[u8],
    ) -> Box<dyn HeaderProtectionKey> {
        crate::quic::QuicAlgorithm {
            registry: Arc::clone(reg),
            suite: suite(id),
        }
        .header_key_from(key)
    }
}

/// Why a key could not be installed, in rustls's words.
pub(crate) fn unavailable(suite: Suite, e: &cryptoreg::Error) -> String {
    format!(
        "cryptoreg: no usable driver for {} ({suite:?}): {e}",
        suite.algorithm()
    )
}

/// The error of a record that found no usable driver when it re-allocated.
pub(crate) fn no_driver(e: cryptoreg::Error) -> rustls::Error {
    rustls::Error::General(format!("cryptoreg: no usable driver any more: {e}"))
}

/// Refuses to protect a record whose handle could not be had or failed: the plaintext
/// and the tag are overwritten with zeros, so the record leaves with no plaintext in it
/// and the peer's tag check fails, which ends the connection (TLS: `bad_record_mac`;
/// QUIC drops the packet). rustls 0.23 (and quinn) treat an error from an encrypter as a
/// bug and panic, so an error is not an option here; this fails closed instead.
pub(crate) fn refuse(algorithm: &str, e: &cryptoreg::Error, text: &mut [u8], tag: &mut [u8]) {
    refuse_with(algorithm, &e.to_string(), text, tag);
}

pub(crate) fn refuse_with(algorithm: &str, why: &str, text: &mut [u8], tag: &mut [u8]) {
    use std::sync::atomic::{AtomicU64, Ordering};
    use zeroize::Zeroize;
    /// When the last refusal was logged, in seconds since the Unix epoch: at most one
    /// line a second, as every record of every connection without a driver gets here.
    static LOGGED_AT: AtomicU64 = AtomicU64::new(0);
    text.zeroize();
    tag.zeroize();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    if LOGGED_AT.swap(now, Ordering::Relaxed) == now {
        return;
    }
    tracing::error!(
        target: "cryptoreg::rustls",
        algorithm,
        "record refused, sent without its plaintext: no usable driver ({why}); the peer \
         will end the connection"
    );
}

/// The encrypter and decrypter of a key that found no usable driver when rustls
/// installed it: every record is refused ([`refuse`]) on the way out, and fails with the
/// reason on the way in.
pub(crate) struct Unavailable {
    why: String,
    /// The outer type and version of a TLS 1.3 record; `None` for TLS 1.2 (the
    /// message's own).
    outer: Option<(ContentType, ProtocolVersion)>,
    /// Bytes before the text (TLS 1.2 GCM's explicit nonce) or after it (TLS 1.3's
    /// content type), besides the tag.
    extra: usize,
}

impl Unavailable {
    pub(crate) fn new(
        suite: Suite,
        e: cryptoreg::Error,
        outer: Option<(ContentType, ProtocolVersion)>,
        extra: usize,
    ) -> Unavailable {
        Unavailable {
            why: unavailable(suite, &e),
            outer,
            extra,
        }
    }
}

impl MessageEncrypter for Unavailable {
    fn encrypt(
        &mut self,
        msg: OutboundPlainMessage<'_>,
        _: u64,
    ) -> Result<OutboundOpaqueMessage, rustls::Error> {
        let len = self.encrypted_payload_len(msg.payload.len());
        let mut payload = PrefixedPayload::with_capacity(len);
        payload.extend_from_slice(&vec![0u8; len]);
        refuse_with("TLS record protection", &self.why, &mut [], &mut []);
        let (typ, version) = self.outer.unwrap_or((msg.typ, msg.version));
        Ok(OutboundOpaqueMessage::new(typ, version, payload))
    }

    fn encrypted_payload_len(&self, payload_len: usize) -> usize {
        payload_len + self.extra + TAG_LEN
    }
}

impl MessageDecrypter for Unavailable {
    fn decrypt<'a>(
        &mut self,
        _: InboundOpaqueMessage<'a>,
        _: u64,
    ) -> Result<InboundPlainMessage<'a>, rustls::Error> {
        Err(rustls::Error::General(self.why.clone()))
    }
}
