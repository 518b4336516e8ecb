//! `cbc-aes-ce` (priority 300, the kernel's arch/arm64/crypto/aes-glue.c with
//! `MODE "ce"`): CBC (SP 800-38A §6.2). Encryption is serial; decryption runs four blocks
//! in flight. The chaining state is the last ciphertext block, so a request split into
//! pieces gives the same bytes as one call. All four ciphertext blocks of a group are
//! loaded before anything is stored, so in place is safe.

use core::arch::aarch64::uint8x16_t;

use crate::templates::common::whole_blocks;
use cryptoreg_registry::{ChainState, HostFeatures, InOut, Result, SkcipherImpl};

use super::cipher::{iv16, LANES, WIDE};
use super::key_schedule::{expand_into, CeRoundKeys};
use super::rounds::Keys;
use crate::aarch64::neon::{load, load_at, load_n, store, store_at, store_n, xor};
use crate::aarch64::token::AesCe;

const DRIVER: &str = "cbc-aes-ce";

/// The driver: one key schedule, wiped on drop.
struct CbcCe {
    /// Proves AES and Advanced SIMD: what makes the `unsafe` entry calls sound.
    token: AesCe,
    keys: CeRoundKeys,
}

/// CBC encryption of whole blocks, chaining through `iv`.
///
/// # Safety
/// The CPU must have the AES instructions.
#[target_feature(enable = "aes")]
unsafe fn cbc_encrypt(ks: &CeRoundKeys, iv: &mut ChainState, mut io: InOut<'_>) {
    // SAFETY: this kernel's contract: AES is present.
    let keys = unsafe { Keys::enc(ks) };
    let mut prev = load(iv);
    let (len, mut off) = (io.len(), 0);
    while len - off >= 16 {
        prev = keys.encrypt1(xor(load_at(&io, off), prev));
        store_at(&mut io, off, prev);
        off += 16;
    }
    store(iv, prev);
}

/// CBC decryption of whole blocks, four at a time, chaining through `iv`.
///
/// # Safety
/// The CPU must have the AES instructions.
#[target_feature(enable = "aes")]
unsafe fn cbc_decrypt(ks: &CeRoundKeys, iv: &mut ChainState, mut io: InOut<'_>) {
    // SAFETY: this kernel's contract: AES is present.
    let keys = unsafe { Keys::dec(ks) };
    let mut prev = load(iv);
    let (len, mut off) = (io.len(), 0);
    while len - off >= WIDE {
        let c = load_n::<LANES>(&io, off);
        let mut p = keys.decrypt_n(c);
        let chain: [uint8x16_t; LANES] =
            core::array::from_fn(|i| if i == 0 { prev } else { c[i - 1] });
        for (x, k) in p.iter_mut().zip(chain) {
            *x = xor(*x, k);
        }
        prev = c[LANES - 1];
        store_n(&mut io, off, &p);
        off += WIDE;
    }
    while len - off >= 16 {
        let c = load_at(&io, off);
        store_at(&mut io, off, xor(keys.decrypt1(c), prev));
        prev = c;
        off += 16;
    }
    store(iv, prev);
}

impl CbcCe {
    fn run(&self, decrypt: bool, state: &mut ChainState, io: InOut<'_>) {
        // SAFETY: `self.token` proves the AES instructions.
        unsafe {
            if decrypt {
                cbc_decrypt(&self.keys, state, io)
            } else {
                cbc_encrypt(&self.keys, state, io)
            }
        }
    }
}

impl SkcipherImpl for CbcCe {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        expand_into(self.token, DRIVER, key, &mut self.keys)
    }

    fn tail_len(&self, total: usize) -> Result<usize> {
        whole_blocks(total, "CBC needs a whole number of 16-byte blocks")
    }

    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        *state = iv16(iv)?;
        Ok(())
    }

    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.run(false, state, InOut::InPlace(data));
    }

    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.run(true, state, InOut::InPlace(data));
    }

    fn encrypt_blocks_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.run(false, state, InOut::Split { src, dst });
    }

    fn decrypt_blocks_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.run(true, state, InOut::Split { src, dst });
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

/// Builds an unkeyed `cbc-aes-ce`.
pub(crate) fn new_cbc(host: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    Ok(Box::new(CbcCe {
        token: AesCe::new(host, DRIVER)?,
        keys: CeRoundKeys::empty(),
    }))
}
