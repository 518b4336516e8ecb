//! `cbc-aes-aesni`: CBC (SP 800-38A §6.2). Encryption is serial by nature (each block
//! needs the previous ciphertext); decryption runs eight blocks in flight because all
//! the ciphertext is known up front.
//!
//! The chaining state is the last ciphertext block (the IV at the start), so a request
//! split into pieces gives the same bytes as one call. Out of place, blocks are read from
//! the source and written to the destination in one pass.

use core::arch::x86_64::__m128i;

use crate::templates::common::whole_blocks;
use crate::x86::inout::RawInOut;
use crate::x86::token::AesNi;
use cryptoreg_registry::{ChainState, HostFeatures, Result, SkcipherImpl};

use super::cipher::{iv16, load, load8, store, store8, xor, Keys, WIDE};
use crate::aes::x86::key_schedule::{expand_into, AesRoundKeys};

const DRIVER: &str = "cbc-aes-aesni";

/// The driver: one key schedule, wiped on drop by [`AesRoundKeys`].
struct CbcAesni {
    /// Proves AES-NI on this CPU: what makes the `unsafe` entry calls sound.
    _token: AesNi,
    keys: AesRoundKeys,
}

/// CBC encryption of whole blocks, chaining through `iv`.
///
/// # Safety
/// The CPU must support AES-NI (and SSE2).
#[target_feature(enable = "aes,sse2")]
unsafe fn cbc_encrypt(ks: &AesRoundKeys, iv: &mut ChainState, mut io: RawInOut<'_>) {
    // SAFETY: this kernel is only called with AES-NI present (its own contract).
    let keys = unsafe { Keys::enc(ks) };
    let mut prev = load(iv);
    let (len, mut off) = (io.len(), 0);
    while len - off >= 16 {
        prev = keys.encrypt1(xor(io.load(off), prev));
        io.store(off, prev);
        off += 16;
    }
    store(iv, prev);
}

/// CBC decryption of whole blocks, eight at a time, chaining through `iv`. All eight
/// ciphertext blocks are loaded (and the chaining value kept in a register) before
/// anything is stored, so in place is safe; out of place reads only the source.
///
/// # Safety
/// The CPU must support AES-NI (and SSE2).
#[target_feature(enable = "aes,sse2")]
unsafe fn cbc_decrypt(ks: &AesRoundKeys, iv: &mut ChainState, mut io: RawInOut<'_>) {
    // SAFETY: this kernel is only called with AES-NI present (its own contract).
    let keys = unsafe { Keys::dec(ks) };
    let mut prev = load(iv);
    let (len, mut off) = (io.len(), 0);
    while len - off >= WIDE {
        let c = load8(&io, off);
        let mut p = keys.decrypt8(c);
        let chain: [__m128i; 8] = core::array::from_fn(|i| if i == 0 { prev } else { c[i - 1] });
        for (x, k) in p.iter_mut().zip(chain) {
            *x = xor(*x, k);
        }
        prev = c[7];
        store8(&mut io, off, &p);
        off += WIDE;
    }
    while len - off >= 16 {
        let c = io.load(off);
        io.store(off, xor(keys.decrypt1(c), prev));
        prev = c;
        off += 16;
    }
    store(iv, prev);
}

impl SkcipherImpl for CbcAesni {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        // In place into the field (wiped first, and left wiped on error).
        expand_into(self._token, DRIVER, key, &mut self.keys)
    }

    fn tail_len(&self, total: usize) -> Result<usize> {
        whole_blocks(total, "CBC needs a whole number of 16-byte blocks")
    }

    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        *state = iv16(iv)?;
        Ok(())
    }

    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        // SAFETY: `self._token` proves AES-NI and SSE2, which is all the entry
        // functions are compiled for.
        unsafe { cbc_encrypt(&self.keys, state, RawInOut::in_place(data)) }
    }

    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { cbc_decrypt(&self.keys, state, RawInOut::in_place(data)) }
    }

    fn encrypt_blocks_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { cbc_encrypt(&self.keys, state, RawInOut::split(src, dst)) }
    }

    fn decrypt_blocks_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { cbc_decrypt(&self.keys, state, RawInOut::split(src, dst)) }
    }

    fn encrypt_tail(&self, _state: &mut ChainState, tail: &mut [u8]) {
        debug_assert!(tail.is_empty(), "CBC has no tail");
    }

    fn decrypt_tail(&self, _state: &mut ChainState, tail: &mut [u8]) {
        debug_assert!(tail.is_empty(), "CBC has no tail");
    }

    fn encrypt_tail_to(&self, _state: &mut ChainState, src: &[u8], _dst: &mut [u8]) {
        debug_assert!(src.is_empty(), "CBC has no tail");
    }

    fn decrypt_tail_to(&self, _state: &mut ChainState, src: &[u8], _dst: &mut [u8]) {
        debug_assert!(src.is_empty(), "CBC has no tail");
    }
}

/// Builds an unkeyed `cbc-aes-aesni`.
pub(crate) fn new_cbc(host: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    Ok(Box::new(CbcAesni {
        _token: AesNi::new(host, DRIVER)?,
        keys: AesRoundKeys::empty(),
    }))
}
