//! A deliberately wrong driver that proves the self-test gate. Compiled only under the
//! compiler flag `--cfg cryptoreg_fault_injection` (as tokio does with `tokio_unstable`):
//!
//! ```sh
//! RUSTFLAGS="--cfg cryptoreg_fault_injection" CARGO_TARGET_DIR=target/fault-injection \
//!     cargo test -p cryptoreg -p cryptoctl
//! ```
//!
//! It is deliberately not a Cargo feature: Cargo unifies features across a dependency
//! graph, so a feature turned on by any crate in a service's build (or by
//! `--all-features`) would link this driver into the service, where it wins every
//! `xts(aes)` lookup under `mode = "kat"` or `"off"`. A cfg is set only by whoever runs
//! the build. `cargo xtask ci` proves that a `cryptoctl` built with `--all-features`
//! lists no faulty driver.
//!
//! `xts-aes-faulty` registers for `xts(aes)` at priority 10000 — above every real driver —
//! and is a correct XTS over the generic AES except on requests longer than 512 bytes
//! that are not a multiple of 16 (the ciphertext-stealing path), where it flips one bit of
//! the stolen block. The standards' known answers (at most 512 bytes) pass it; the
//! randomized differential tests must catch it, exclude it, and print a replayable line.

use std::sync::atomic::{AtomicUsize, Ordering};

use cryptoreg_algos::aes::AesGeneric;
use cryptoreg_algos::templates::xts_over_cipher;
use cryptoreg_registry::{inventory, AlgDef, ChainState, Ctor, HostFeatures, Result, SkcipherImpl};

struct FaultyXts {
    inner: Box<dyn SkcipherImpl>,
    /// Length of the request in progress, noted by `tail_len` (called once per request
    /// before any data moves). Racy across threads sharing a handle; this driver exists
    /// for the single-threaded self-test only.
    request_len: AtomicUsize,
}

impl SkcipherImpl for FaultyXts {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.inner.set_key(key)
    }
    fn tail_len(&self, total: usize) -> Result<usize> {
        self.request_len.store(total, Ordering::Relaxed);
        self.inner.tail_len(total)
    }
    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        self.inner.start(iv, state)
    }
    fn check_request(&self, iv: &[u8], total: usize) -> Result<()> {
        self.inner.check_request(iv, total)
    }
    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.inner.encrypt_blocks(state, data)
    }
    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.inner.decrypt_blocks(state, data)
    }
    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.inner.encrypt_tail(state, tail);
        if self.request_len.load(Ordering::Relaxed) > 512 && !tail.is_empty() {
            tail[0] ^= 0x01;
        }
    }
    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.inner.decrypt_tail(state, tail)
    }
}

/// Portable: needs no CPU feature.
fn faulty(_: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    Ok(Box::new(FaultyXts {
        inner: xts_over_cipher(|| Box::new(AesGeneric::new())),
        request_len: AtomicUsize::new(0),
    }))
}

inventory::submit! {
    AlgDef::new("xts(aes)", "xts-aes-faulty", 10000, Ctor::Skcipher(faulty))
        .block_size(16)
        .key_sizes(32, 64)
        .iv_size(16)
}
