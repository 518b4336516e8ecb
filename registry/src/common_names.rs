//! The names users already know — OpenSSL's cipher names (`openssl enc -list`,
//! `EVP_get_cipherbyname`), IANA's AEAD registry (RFC 5116: `AEAD_AES_128_GCM`) and TLS 1.3
//! cipher-suite names — mapped to the registry's algorithm name and key size.
//!
//! This is a lookup for tools and people, not a second grammar: [`lookup_common`] takes
//! any case and `_` for `-`, and answers `None` for everything else. Allocation, the
//! configuration and the admin API keep the strict name grammar (a common name given to
//! `alloc_aead` is `InvalidName` or `NotFound`); `cryptoctl explain` and `speed` accept
//! common names through this function.
//!
//! | common names | algorithm | key bits |
//! | --- | --- | --- |
//! | `aes-{128,192,256}-gcm`, `id-aes{128,192,256}-gcm`, `aead-aes-{128,256}-gcm` | `gcm(aes)` | 128, 192, 256 |
//! | `tls_aes_128_gcm_sha256`, `tls_aes_256_gcm_sha384` | `gcm(aes)` | 128, 256 |
//! | `aes-{128,192,256}-ctr`, `aes{128,192,256}-ctr` | `ctr(aes)` | 128, 192, 256 |
//! | `aes-{128,192,256}-cbc` | `cbc(aes)` | 128, 192, 256 |
//! | `aes-{128,192,256}-ecb` | `ecb(aes)` | 128, 192, 256 |
//! | `aes-{128,256}-xts` (each of the two keys) | `xts(aes)` | 128, 256 |
//! | `chacha20-poly1305`, `aead-chacha20-poly1305`, `tls_chacha20_poly1305_sha256` | `rfc7539(chacha20,poly1305)` | 256 |
//! | `xchacha20-poly1305`, `aead-xchacha20-poly1305` | `xchacha20poly1305` | 256 |
//!
//! OpenSSL's bare `aes128` (an alias of `aes-128-cbc` there) and SSH's
//! `chacha20-poly1305@openssh.com` (a different construction) are deliberately absent.
//! Key bits follow `cryptoctl speed --key-bits`: for XTS the size of each of the two keys,
//! as OpenSSL's `aes-256-xts` takes two 256-bit keys.

/// `(common name, algorithm name, key bits)`; the common name in lower case with `-`.
pub const COMMON_NAMES: &[(&str, &str, u32)] = &[
    ("aes-128-gcm", "gcm(aes)", 128),
    ("aes-192-gcm", "gcm(aes)", 192),
    ("aes-256-gcm", "gcm(aes)", 256),
    ("id-aes128-gcm", "gcm(aes)", 128),
    ("id-aes192-gcm", "gcm(aes)", 192),
    ("id-aes256-gcm", "gcm(aes)", 256),
    ("aead-aes-128-gcm", "gcm(aes)", 128),
    ("aead-aes-256-gcm", "gcm(aes)", 256),
    ("tls-aes-128-gcm-sha256", "gcm(aes)", 128),
    ("tls-aes-256-gcm-sha384", "gcm(aes)", 256),
    ("aes-128-ctr", "ctr(aes)", 128),
    ("aes-192-ctr", "ctr(aes)", 192),
    ("aes-256-ctr", "ctr(aes)", 256),
    ("aes128-ctr", "ctr(aes)", 128),
    ("aes192-ctr", "ctr(aes)", 192),
    ("aes256-ctr", "ctr(aes)", 256),
    ("aes-128-cbc", "cbc(aes)", 128),
    ("aes-192-cbc", "cbc(aes)", 192),
    ("aes-256-cbc", "cbc(aes)", 256),
    ("aes-128-ecb", "ecb(aes)", 128),
    ("aes-192-ecb", "ecb(aes)", 192),
    ("aes-256-ecb", "ecb(aes)", 256),
    ("aes-128-xts", "xts(aes)", 128),
    ("aes-256-xts", "xts(aes)", 256),
    ("chacha20-poly1305", "rfc7539(chacha20,poly1305)", 256),
    ("aead-chacha20-poly1305", "rfc7539(chacha20,poly1305)", 256),
    (
        "tls-chacha20-poly1305-sha256",
        "rfc7539(chacha20,poly1305)",
        256,
    ),
    ("xchacha20-poly1305", "xchacha20poly1305", 256),
    ("aead-xchacha20-poly1305", "xchacha20poly1305", 256),
];

/// The registry's algorithm name and key size for a common name (`aes-256-gcm`,
/// `AES_128_GCM`, `TLS_CHACHA20_POLY1305_SHA256`), in any case and with `_` or `-`;
/// `None` for any other name, the registry's own names included.
///
/// ```
/// use cryptoreg_registry::lookup_common;
/// assert_eq!(lookup_common("AES-256-GCM"), Some(("gcm(aes)", 256)));
/// assert_eq!(lookup_common("aes_128_ctr"), Some(("ctr(aes)", 128)));
/// assert_eq!(lookup_common("gcm(aes)"), None);
/// ```
pub fn lookup_common(name: &str) -> Option<(&'static str, u32)> {
    // Longer than any entry: not worth normalizing (and bounds the work).
    if name.len() > 32 {
        return None;
    }
    let folded = fold(name);
    COMMON_NAMES
        .iter()
        .find(|(n, ..)| *n == folded)
        .map(|&(_, alg, bits)| (alg, bits))
}

/// `name` as the table spells names: ASCII lower case, `_` read as `-`. Tools comparing
/// what a user typed with known names (`cryptoctl`'s suggestions) fold the same way.
pub fn fold(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c == '_' {
                '-'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_names_in_any_case_and_either_separator() {
        for (name, want) in [
            ("aes-256-gcm", Some(("gcm(aes)", 256))),
            ("AES_128_GCM", Some(("gcm(aes)", 128))),
            ("AEAD_AES_256_GCM", Some(("gcm(aes)", 256))),
            ("id-aes192-GCM", Some(("gcm(aes)", 192))),
            ("TLS_AES_256_GCM_SHA384", Some(("gcm(aes)", 256))),
            ("aes-128-ctr", Some(("ctr(aes)", 128))),
            ("aes256-ctr", Some(("ctr(aes)", 256))),
            ("Aes-192-Cbc", Some(("cbc(aes)", 192))),
            ("aes-128-ecb", Some(("ecb(aes)", 128))),
            ("aes-256-xts", Some(("xts(aes)", 256))),
            (
                "chacha20-poly1305",
                Some(("rfc7539(chacha20,poly1305)", 256)),
            ),
            (
                "AEAD_CHACHA20_POLY1305",
                Some(("rfc7539(chacha20,poly1305)", 256)),
            ),
            (
                "TLS_CHACHA20_POLY1305_SHA256",
                Some(("rfc7539(chacha20,poly1305)", 256)),
            ),
            ("XChaCha20-Poly1305", Some(("xchacha20poly1305", 256))),
            ("aes128", None),
            ("chacha20-poly1305@openssh.com", None),
            ("gcm(aes)", None),
            ("xts(aes)", None),
            ("aes-512-gcm", None),
            ("", None),
            ("aes-256-gcm ", None),
        ] {
            assert_eq!(lookup_common(name), want, "{name:?}");
        }
        assert_eq!(lookup_common(&"a".repeat(10_000)), None);
    }

    #[test]
    fn the_table_is_lower_case_unique_and_names_no_registry_grammar() {
        let mut seen = std::collections::BTreeSet::new();
        for (name, alg, bits) in COMMON_NAMES {
            assert_eq!(*name, name.to_ascii_lowercase());
            assert!(!name.contains('_') && !name.contains('('), "{name}");
            assert!(seen.insert(*name), "{name} twice");
            assert!(matches!(bits, 128 | 192 | 256), "{name}");
            assert!(crate::names::validate(alg).is_ok(), "{alg}");
        }
    }
}
