//! `ctr-aes-aesni`: CTR mode as the kernel's `ctr(aes)` (SP 800-38A §6.5): the IV is the
//! initial counter block, and the whole 16-byte block is one 128-bit big-endian integer
//! incremented per block, so the carry runs across all 16 bytes and `ff..ff` wraps to
//! zero. Any length is accepted; the last partial block is the tail. Eight keystream
//! blocks are computed in flight. Encryption and decryption are the same operation. Out
//! of place, the keystream is XORed from the source into the destination in one pass.

use core::arch::x86_64::__m128i;

use crate::x86::inout::RawInOut;
use crate::x86::token::AesNi;
use cryptoreg_registry::{ChainState, HostFeatures, Result, SkcipherImpl};

use super::cipher::{iv16, load, load8, store, store8, xor, Keys, WIDE};
use crate::aes::x86::key_schedule::{expand_into, AesRoundKeys};
use zeroize::Zeroize;

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

/// XORs the keystream into the run `io` (whole blocks first, then a partial block if the
/// run does not end on a block boundary) and advances the counter past every block used.
///
/// # Safety
/// The CPU must support AES-NI (and SSE2).
#[target_feature(enable = "aes,sse2")]
unsafe fn ctr_xor(ks: &AesRoundKeys, counter: &mut ChainState, mut io: RawInOut<'_>) {
    // SAFETY: this kernel is only called with AES-NI present (its own contract).
    let keys = unsafe { Keys::enc(ks) };
    let mut c = u128::from_be_bytes(*counter);
    let (len, mut off) = (io.len(), 0);
    while len - off >= WIDE {
        let stream = keys.encrypt8(core::array::from_fn(|i| {
            counter_block(c.wrapping_add(i as u128))
        }));
        let mut d = load8(&io, off);
        for (x, s) in d.iter_mut().zip(stream) {
            *x = xor(*x, s);
        }
        store8(&mut io, off, &d);
        c = c.wrapping_add(8);
        off += WIDE;
    }
    while len - off >= 16 {
        io.store(off, xor(io.load(off), keys.encrypt1(counter_block(c))));
        c = c.wrapping_add(1);
        off += 16;
    }
    let partial = len - off;
    if partial > 0 {
        let mut block = [0u8; 16];
        io.read(off, &mut block[..partial]);
        let out = xor(load(&block), keys.encrypt1(counter_block(c)));
        store(&mut block, out);
        io.write(off, &block[..partial]);
        block.zeroize();
        c = c.wrapping_add(1);
    }
    *counter = c.to_be_bytes();
}

impl SkcipherImpl for CtrAesni {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        // In place into the field (wiped first, and left wiped on error).
        expand_into(self._token, DRIVER, key, &mut self.keys)
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
        unsafe { ctr_xor(&self.keys, state, RawInOut::in_place(data)) }
    }

    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { ctr_xor(&self.keys, state, RawInOut::in_place(data)) }
    }

    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { ctr_xor(&self.keys, state, RawInOut::in_place(tail)) }
    }

    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { ctr_xor(&self.keys, state, RawInOut::in_place(tail)) }
    }

    fn encrypt_blocks_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { ctr_xor(&self.keys, state, RawInOut::split(src, dst)) }
    }

    fn decrypt_blocks_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { ctr_xor(&self.keys, state, RawInOut::split(src, dst)) }
    }

    fn encrypt_tail_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { ctr_xor(&self.keys, state, RawInOut::split(src, dst)) }
    }

    fn decrypt_tail_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { ctr_xor(&self.keys, state, RawInOut::split(src, dst)) }
    }

    fn encrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        let mut state = iv16(iv)?;
        // SAFETY: as in `encrypt_blocks`.
        unsafe { ctr_xor(&self.keys, &mut state, RawInOut::in_place(data)) };
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
