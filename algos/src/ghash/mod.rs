//! GHASH (NIST SP 800-38D §6.4) as a keyed hash, algorithm name `ghash`: the frame every
//! GHASH driver shares, and the drivers.
//!
//! Semantics are the kernel's `ghash-generic` (`crypto/ghash-generic.c`), so the `gcm_base`
//! template can drive any of them:
//!
//! * the key is H, exactly 16 bytes (else [`Error::InvalidKeyLength`]);
//! * `update` absorbs bytes as 16-byte blocks, `Y = (Y ^ X) · H` in GF(2^128), buffering a
//!   partial block between calls;
//! * `final` pads a buffered partial block with zeros, multiplies it in, and outputs the
//!   accumulator Y (16 bytes). No length block is appended: GCM appends its own.
//!
//! A driver only writes a [`GhashBackend`]: its precomputation from H (powers of H for
//! aggregated reduction) and its function over whole blocks. [`GhashDriver`] does the rest
//! (key length, buffering, one-shot digest, export/import), identically for every driver,
//! so exported states move between drivers and the randomized self-tests compare only the
//! block function.
//!
//! Drivers: [`generic`] (`ghash-generic`, 100, portable constant-time) and, on x86-64,
//! `clmulni` (`ghash-clmulni`, 400, PCLMULQDQ), `vpclmulqdq` (`ghash-vpclmulqdq-avx2`,
//! 600, ymm; `ghash-vpclmulqdq-avx512`, 800, zmm, `uses_zmm`), over the cores in `x86`;
//! on arm64, `ce` (`ghash-ce`, 200, PMULL), over the core in `aarch64`.

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
#[cfg(target_arch = "aarch64")]
pub(crate) mod ce;
#[cfg(target_arch = "x86_64")]
pub(crate) mod clmulni;
pub mod generic;
#[cfg(target_arch = "x86_64")]
pub(crate) mod vpclmulqdq;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

use std::sync::Arc;

use cryptoreg_registry::{check_key_len, Error, HashImpl, HashState, Result};
use zeroize::{Zeroize, Zeroizing};

/// GHASH's block, key and digest size.
pub const GHASH_BLOCK: usize = 16;

/// The part of a GHASH driver that differs between drivers: keyed precomputation and the
/// multiply-accumulate over whole blocks.
///
/// Byte order: `acc`, `h` and the blocks are in GHASH's own order (the digest's bytes;
/// read as a big-endian 128-bit integer, the most significant bit is the coefficient of
/// x^0). Implementations keep H and everything derived from it wiped on drop (`zeroize`).
pub trait GhashBackend: Send + Sync + 'static {
    /// What keying needs besides H: `()` for portable code, a CPU token for SIMD code
    /// (taken by the driver's constructor, so holding a driver proves the features).
    type Token: Copy + Send + Sync + 'static;

    /// Precomputes from H.
    fn new(token: Self::Token, h: &[u8; 16]) -> Self;

    /// `acc = (...((acc ^ X1) · H ^ X2) · H ... ^ Xn) · H` for the 16-byte blocks `Xi` of
    /// `blocks`, whose length is a multiple of 16 (the frame guarantees it).
    fn update_blocks(&self, acc: &mut [u8; 16], blocks: &[u8]);
}

/// A `ghash` hash driver over a backend: see the module docs.
pub struct GhashDriver<B: GhashBackend> {
    driver: &'static str,
    token: B::Token,
    /// Shared with the running states made from it; wiped when the last one drops. Keyed
    /// with H = 0 until `set_key` (the handle refuses an unkeyed use before that).
    key: Arc<B>,
}

impl<B: GhashBackend> GhashDriver<B> {
    /// A driver named `driver` (used in errors), keyed with H = 0 until `set_key`.
    pub fn new(driver: &'static str, token: B::Token) -> Self {
        GhashDriver {
            driver,
            token,
            key: Arc::new(B::new(token, &[0; 16])),
        }
    }
}

impl<B: GhashBackend> HashImpl for GhashDriver<B> {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        if let Err(e) = check_key_len(self.driver, key, &[GHASH_BLOCK]) {
            // As the AES drivers: a failed `set_key` leaves no usable key behind.
            self.key = Arc::new(B::new(self.token, &[0; 16]));
            return Err(e);
        }
        let mut h = [0u8; 16];
        h.copy_from_slice(key);
        self.key = Arc::new(B::new(self.token, &h));
        h.zeroize();
        Ok(())
    }

    fn init(&self) -> Box<dyn HashState> {
        Box::new(GhashState {
            key: Arc::clone(&self.key),
            acc: [0; 16],
            buf: [0; 16],
            have: 0,
        })
    }

    fn digest(&self, data: &[u8], out: &mut [u8]) {
        let mut acc = Zeroizing::new([0u8; 16]);
        let whole = data.len() - data.len() % GHASH_BLOCK;
        self.key.update_blocks(&mut acc, &data[..whole]);
        absorb_padded(&*self.key, &mut acc, &data[whole..]);
        out.copy_from_slice(&acc[..out.len()]);
    }
}

/// Absorbs a partial block (`tail.len() < 16`), zero-padded; nothing when it is empty.
fn absorb_padded<B: GhashBackend>(key: &B, acc: &mut [u8; 16], tail: &[u8]) {
    if !tail.is_empty() {
        let mut block = Zeroizing::new([0u8; 16]);
        block[..tail.len()].copy_from_slice(tail);
        key.update_blocks(acc, &block[..]);
    }
}

/// The running state: accumulator, buffered partial block. Wiped on drop.
struct GhashState<B: GhashBackend> {
    key: Arc<B>,
    acc: [u8; 16],
    /// Bytes `have..` are always zero (so the padding is already in place).
    buf: [u8; 16],
    have: usize,
}

impl<B: GhashBackend> Drop for GhashState<B> {
    fn drop(&mut self) {
        self.acc.zeroize();
        self.buf.zeroize();
    }
}

/// Exported state: `acc (16) || have (1) || buf (16)`, the same for every GHASH driver.
const EXPORT_LEN: usize = 33;

impl<B: GhashBackend> HashState for GhashState<B> {
    fn update(&mut self, mut data: &[u8]) {
        if self.have > 0 {
            let n = (GHASH_BLOCK - self.have).min(data.len());
            self.buf[self.have..self.have + n].copy_from_slice(&data[..n]);
            self.have += n;
            data = &data[n..];
            if self.have < GHASH_BLOCK {
                return;
            }
            self.key.update_blocks(&mut self.acc, &self.buf);
            self.buf.zeroize();
            self.have = 0;
        }
        let whole = data.len() - data.len() % GHASH_BLOCK;
        self.key.update_blocks(&mut self.acc, &data[..whole]);
        let rest = &data[whole..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.have = rest.len();
    }

    fn finalize(mut self: Box<Self>, out: &mut [u8]) {
        if self.have > 0 {
            // Bytes past `have` are zero: the buffer is the padded block.
            let st = &mut *self;
            st.key.update_blocks(&mut st.acc, &st.buf);
        }
        out.copy_from_slice(&self.acc[..out.len()]);
    }

    fn export(&self) -> Zeroizing<Vec<u8>> {
        let mut v = Zeroizing::new(Vec::with_capacity(EXPORT_LEN));
        v.extend_from_slice(&self.acc);
        v.push(self.have as u8);
        v.extend_from_slice(&self.buf);
        v
    }

    fn import(&mut self, state: &[u8]) -> Result<()> {
        if state.len() != EXPORT_LEN {
            return Err(Error::InvalidHashState("a ghash state is 33 bytes"));
        }
        let have = usize::from(state[16]);
        let buf = &state[17..];
        if have >= GHASH_BLOCK || buf[have..].iter().any(|&b| b != 0) {
            return Err(Error::InvalidHashState(
                "ghash state: buffered count over 15 or bytes past it not zero",
            ));
        }
        self.acc.copy_from_slice(&state[..16]);
        self.buf.copy_from_slice(buf);
        self.have = have;
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests;
