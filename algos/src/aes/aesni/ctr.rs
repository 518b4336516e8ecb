//! `ctr-aes-aesni`: CTR mode as the kernel's `ctr(aes)` (SP 800-38A §6.5): the IV is the
//! initial counter block, and the whole 16-byte block is one 128-bit big-endian integer
//! incremented per block, so the carry runs across all 16 bytes and `ff..ff` wraps to
//! zero. Any length is accepted; the last partial block is the tail. Eight keystream
//! blocks are computed in flight. Encryption and decryption are the same operation.

use core::arch::x86_64::__m128i;

use crate::x86::token::AesNi;
use cryptoreg_registry::{inventory, AlgDef, ChainState, Ctor, HostFeatures, Result, SkcipherImpl};

use super::cipher::{iv16, load, load8, store, store8, xor, Keys, WIDE};
use super::key_schedule::{expand_key, AesRoundKeys};

const DRIVER: &str = "ctr-aes-aesni";

/// The driver: one key schedule, wiped on drop by [`AesRoundKeys`].
struct CtrAesni {
    /// Proves AES-NI on this CPU: what makes the `unsafe` entry calls sound.
    _token: AesNi,
    keys: AesRoundKeys,
}

/// The counter block for counter value `c`.
#[inline(always)]
fn counter_block(c: u128) -> __m128i {
    load(&c.to_be_bytes())
}

/// XORs the keystream into `data` (whole blocks first, then a partial block if `data`
/// does not end on a block boundary) and advances the counter past every block used.
///
/// # Safety
/// The CPU must support AES-NI (and SSE2).
#[target_feature(enable = "aes,sse2")]
unsafe fn ctr_xor(ks: &AesRoundKeys, counter: &mut ChainState, data: &mut [u8]) {
    let keys = Keys::enc(ks);
    let mut c = u128::from_be_bytes(*counter);
    let mut chunks = data.chunks_exact_mut(WIDE);
    for chunk in &mut chunks {
        let stream = keys.encrypt8(core::array::from_fn(|i| {
            counter_block(c.wrapping_add(i as u128))
        }));
        let mut d = load8(chunk);
        for (x, s) in d.iter_mut().zip(stream) {
            *x = xor(*x, s);
        }
        store8(chunk, &d);
        c = c.wrapping_add(8);
    }
    let mut blocks = chunks.into_remainder().chunks_exact_mut(16);
    for block in &mut blocks {
        store(block, xor(load(block), keys.encrypt1(counter_block(c))));
        c = c.wrapping_add(1);
    }
    let partial = blocks.into_remainder();
    if !partial.is_empty() {
        let mut stream = [0u8; 16];
        store(&mut stream, keys.encrypt1(counter_block(c)));
        for (x, s) in partial.iter_mut().zip(stream) {
            *x ^= s;
        }
        c = c.wrapping_add(1);
    }
    *counter = c.to_be_bytes();
}

impl SkcipherImpl for CtrAesni {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.keys = expand_key(self._token, DRIVER, key)?;
        Ok(())
    }

    fn tail_len(&self, total: usize) -> Result<usize> {
        Ok(total % 16)
    }

    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        *state = iv16(iv)?;
        Ok(())
    }

    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        // SAFETY: `self._token` proves AES-NI and SSE2, which is all the entry
        // functions are compiled for.
        unsafe { ctr_xor(&self.keys, state, data) }
    }

    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { ctr_xor(&self.keys, state, data) }
    }

    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { ctr_xor(&self.keys, state, tail) }
    }

    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { ctr_xor(&self.keys, state, tail) }
    }

    fn encrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        let mut state = iv16(iv)?;
        // SAFETY: as in `encrypt_blocks`.
        unsafe { ctr_xor(&self.keys, &mut state, data) };
        Ok(())
    }

    fn decrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.encrypt(iv, data)
    }
}

/// Builds an unkeyed `ctr-aes-aesni`.
pub(crate) fn new_ctr(host: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    Ok(Box::new(CtrAesni {
        _token: AesNi::new(host, DRIVER)?,
        keys: AesRoundKeys::empty(),
    }))
}

inventory::submit! {
    AlgDef::new("ctr(aes)", DRIVER, 400, Ctor::Skcipher(new_ctr))
        .requires(AesNi::FEATURES)
        .key_sizes(16, 32)
        .iv_size(16)
}
