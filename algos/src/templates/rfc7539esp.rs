//! The `rfc7539esp` AEAD template: ChaCha20-Poly1305 for IPsec ESP (RFC 7634), after the
//! kernel's `rfc7539esp(chacha20,poly1305)`.
//!
//! - **Key** 36 bytes: the 32-byte ChaCha20 key, then a 4-byte salt (RFC 7634 §2, the
//!   keying material's last 4 octets).
//! - **Nonce** the 8-byte explicit IV of the packet; the RFC 8439 nonce is salt || IV.
//! - **AAD, decided**: exactly the ESP AAD of RFC 7634 §2.1, 8 bytes (SPI, 32-bit sequence
//!   number) or 12 bytes (SPI, high and low halves of the extended sequence number); any
//!   other length is [`Error::InvalidLength`](cryptoreg_registry::Error::InvalidLength)
//!   from `start`. Unlike the kernel's AEAD interface, where the explicit IV travels at
//!   the end of the associated data and the template skips it, the IV is the nonce here
//!   and is not part of the AAD (it is not authenticated as AAD in RFC 7634 either).
//! - Tag 16 bytes; everything else as `rfc7539` ([`super::rfc7539`]).

use cryptoreg_registry::{inventory, AlgType, Template};

use super::rfc7539::{child_request_both, create_esp};

inventory::submit! {
    Template {
        name: "rfc7539esp",
        child_request: child_request_both,
        child_types: &[AlgType::Skcipher, AlgType::Hash],
        create: create_esp,
    }
}
