//! `ctr-aes-ce` (priority 300, the kernel's arch/arm64/crypto/aes-glue.c with
//! `MODE "ce"`): CTR as the kernel's `ctr(aes)` (SP 800-38A §6.5): the IV is the first
//! counter block, incremented as one 128-bit big-endian integer (`ff..ff` wraps to zero).
//! Any length; the last partial block is the tail. Four keystream blocks in flight.

use cryptoreg_registry::{ChainState, HostFeatures, InOut, Result, SkcipherImpl};
use zeroize::Zeroize;

use super::cipher::{iv16, LANES, WIDE};
use super::key_schedule::{expand_into, CeRoundKeys};
use super::rounds::Keys;
use crate::aarch64::neon::{load, load_at, load_n, read, store, store_at, store_n, write, xor};
use crate::aarch64::token::AesCe;

const DRIVER: &str = "ctr-aes-ce";

/// The driver: one key schedule, wiped on drop.
struct CtrCe {
    /// Proves AES and Advanced SIMD: what makes the `unsafe` entry calls sound.
    token: AesCe,
    keys: CeRoundKeys,
}

/// XORs the keystream into the run (whole blocks, then a partial block if the run does
/// not end on a block boundary) and advances the counter past every block used.
///
/// # Safety
/// The CPU must have the AES instructions.
#[target_feature(enable = "aes")]
unsafe fn ctr_xor(ks: &CeRoundKeys, counter: &mut ChainState, mut io: InOut<'_>) {
    // SAFETY: this kernel's contract: AES is present.
    let keys = unsafe { Keys::enc(ks) };
    let mut c = u128::from_be_bytes(*counter);
    let (len, mut off) = (io.len(), 0);
    while len - off >= WIDE {
        let stream = keys.encrypt_n::<LANES>(core::array::from_fn(|i| {
            load(&c.wrapping_add(i as u128).to_be_bytes())
        }));
        let mut d = load_n::<LANES>(&io, off);
        for (x, s) in d.iter_mut().zip(stream) {
            *x = xor(*x, s);
        }
        store_n(&mut io, off, &d);
        c = c.wrapping_add(LANES as u128);
        off += WIDE;
    }
    while len - off >= 16 {
        let s = keys.encrypt1(load(&c.to_be_bytes()));
        let d = xor(load_at(&io, off), s);
        store_at(&mut io, off, d);
        c = c.wrapping_add(1);
        off += 16;
    }
    let partial = len - off;
    if partial > 0 {
        let mut block = [0u8; 16];
        read(&io, off, &mut block[..partial]);
        let out = xor(load(&block), keys.encrypt1(load(&c.to_be_bytes())));
        store(&mut block, out);
        write(&mut io, off, &block[..partial]);
        block.zeroize();
        c = c.wrapping_add(1);
    }
    *counter = c.to_be_bytes();
}

impl CtrCe {
    fn run(&self, state: &mut ChainState, io: InOut<'_>) {
        // SAFETY: `self.token` proves the AES instructions.
        unsafe { ctr_xor(&self.keys, state, io) }
    }
}

impl SkcipherImpl for CtrCe {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        expand_into(self.token, DRIVER, key, &mut self.keys)
    }

    fn tail_len(&self, total: usize) -> Result<usize> {
        Ok(total % 16)
    }

    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        *state = iv16(iv)?;
        Ok(())
    }

    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.run(state, InOut::InPlace(data));
    }

    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.run(state, InOut::InPlace(data));
    }

    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.run(state, InOut::InPlace(tail));
    }

    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.run(state, InOut::InPlace(tail));
    }

    fn encrypt_blocks_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.run(state, InOut::Split { src, dst });
    }

    fn decrypt_blocks_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.run(state, InOut::Split { src, dst });
    }

    fn encrypt_tail_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.run(state, InOut::Split { src, dst });
    }

    fn decrypt_tail_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.run(state, InOut::Split { src, dst });
    }

    fn encrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        let mut state = iv16(iv)?;
        self.run(&mut state, InOut::InPlace(data));
        Ok(())
    }

    fn decrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.encrypt(iv, data)
    }
}

/// Builds an unkeyed `ctr-aes-ce`.
pub(crate) fn new_ctr(host: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    Ok(Box::new(CtrCe {
        token: AesCe::new(host, DRIVER)?,
        keys: CeRoundKeys::empty(),
    }))
}
