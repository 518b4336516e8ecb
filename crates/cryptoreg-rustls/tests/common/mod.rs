//! Helpers the provider's tests share: registries on every rung of the ladder, the two
//! providers, certificates, and deterministic bytes.

#![allow(dead_code)]

use std::sync::Arc;

use cryptoreg::{Config, Registry};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// The CPU features a run masks, from `CRYPTOREG_RUSTLS_TEST_MASK` (comma-separated):
/// `cargo xtask test` runs these tests on the host's chosen drivers, again with
/// `avx512f` masked (the ymm drivers) and again with `sse2` (every x86 SIMD driver off:
/// the generic drivers), so the TLS paths cover every rung of the ladder.
pub fn mask() -> Vec<String> {
    std::env::var("CRYPTOREG_RUSTLS_TEST_MASK")
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

/// A registry booted with known-answer self-tests, the run's mask and `extra` TOML.
pub fn registry(extra: &str) -> Arc<Registry> {
    let mut text = String::from("[selftest]\nmode = \"kat\"\n");
    let mask = mask();
    if !mask.is_empty() {
        let list: Vec<String> = mask.iter().map(|m| format!("{m:?}")).collect();
        text.push_str(&format!("[cpu]\ndisable = [{}]\n", list.join(", ")));
    }
    text.push_str(extra);
    let config = Config::parse(&text, "test").expect("test config parses");
    Arc::new(cryptoreg::boot(config, None).expect("boot"))
}

/// This crate's provider over `reg`.
pub fn ours(reg: &Arc<Registry>) -> CryptoProvider {
    cryptoreg_rustls::provider(Arc::clone(reg)).expect("provider")
}

/// rustls's own ring provider.
pub fn ring() -> CryptoProvider {
    rustls::crypto::ring::default_provider()
}

/// Deterministic pseudo-random bytes (test inputs only).
pub fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

pub fn hex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex length: {s}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// The test certificates (`tests/data`): a CA and, under it, an ECDSA P-256 and an
/// RSA-2048 leaf for `localhost` and 127.0.0.1, valid until 2126.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    Ecdsa,
    Rsa,
}

fn data(name: &str) -> Vec<u8> {
    let path = data_path(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub fn data_path(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

pub fn chain(kind: KeyKind) -> Vec<CertificateDer<'static>> {
    let name = match kind {
        KeyKind::Ecdsa => "ecdsa.pem",
        KeyKind::Rsa => "rsa.pem",
    };
    rustls_pemfile::certs(&mut &data(name)[..])
        .collect::<Result<_, _>>()
        .expect("certificates")
}

pub fn key(kind: KeyKind) -> PrivateKeyDer<'static> {
    let name = match kind {
        KeyKind::Ecdsa => "ecdsa.key",
        KeyKind::Rsa => "rsa.key",
    };
    rustls_pemfile::private_key(&mut &data(name)[..])
        .expect("key file")
        .expect("a key")
}

pub fn roots() -> rustls::RootCertStore {
    let mut roots = rustls::RootCertStore::empty();
    for c in rustls_pemfile::certs(&mut &data("ca.pem")[..]) {
        roots.add(c.expect("CA")).expect("CA added");
    }
    roots
}
