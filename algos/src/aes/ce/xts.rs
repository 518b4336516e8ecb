//! `xts-aes-ce` (priority 300, the kernel's arch/arm64/crypto/aes-glue.c with
//! `MODE "ce"`): XTS-AES (IEEE 1619-2007, SP 800-38E) with ciphertext stealing for any
//! length of at least one block, the same request semantics as `xts-aes-aesni`.
//!
//! The key is the data key then the tweak key ([`verify_xts_key`](crate::aes::xts_rules::verify_xts_key)
//! refuses equal halves). [`start`](SkcipherImpl::start) encrypts the IV with the tweak
//! key; the chaining state is the tweak of the next block. Whole blocks run four in
//! flight; the tail call gets the last full block with the partial one and steals in
//! either direction, reading both input blocks before writing either output block (right
//! in place and out of place).

use core::arch::aarch64::uint8x16_t;

use cryptoreg_registry::{ChainState, HostFeatures, InOut, Result, SkcipherImpl};
use zeroize::Zeroize;

use super::cipher::{iv16, LANES, WIDE};
use super::key_schedule::{expand_xts_into, CeRoundKeys};
use super::rounds::Keys;
use crate::aarch64::neon::{load, load_at, load_n, read, store, store_at, store_n, write, xor};
use crate::aarch64::token::AesCe;
use crate::aes::xts_rules::{gf128_mul_x_ble, xts_tail_len};

const DRIVER: &str = "xts-aes-ce";

/// The driver: data-key and tweak-key schedules, wiped on drop.
struct XtsCe {
    /// Proves AES and Advanced SIMD: what makes the `unsafe` entry calls sound.
    token: AesCe,
    data: CeRoundKeys,
    tweak: CeRoundKeys,
}

/// Returns the current tweak as a block and advances `t` to the next one.
#[inline(always)]
fn next_tweak(t: &mut [u8; 16]) -> uint8x16_t {
    let v = load(t);
    gf128_mul_x_ble(t);
    v
}

/// `E(x ^ t) ^ t` or `D(x ^ t) ^ t` for one block.
#[inline]
#[target_feature(enable = "aes")]
fn xts1(keys: &Keys, decrypt: bool, x: uint8x16_t, t: uint8x16_t) -> uint8x16_t {
    let x = xor(x, t);
    let y = if decrypt {
        keys.decrypt1(x)
    } else {
        keys.encrypt1(x)
    };
    xor(y, t)
}

/// XTS over the whole blocks of `io`, advancing the tweak in `state`.
#[inline]
#[target_feature(enable = "aes")]
fn xts_blocks(keys: &Keys, decrypt: bool, state: &mut ChainState, mut io: InOut<'_>) {
    let mut t = *state;
    let (len, mut off) = (io.len(), 0);
    while len - off >= WIDE {
        let tw: [uint8x16_t; LANES] = core::array::from_fn(|_| next_tweak(&mut t));
        let mut x = load_n::<LANES>(&io, off);
        for (v, k) in x.iter_mut().zip(tw) {
            *v = xor(*v, k);
        }
        x = if decrypt {
            keys.decrypt_n(x)
        } else {
            keys.encrypt_n(x)
        };
        for (v, k) in x.iter_mut().zip(tw) {
            *v = xor(*v, k);
        }
        store_n(&mut io, off, &x);
        off += WIDE;
    }
    while len - off >= 16 {
        let tw = next_tweak(&mut t);
        let y = xts1(keys, decrypt, load_at(&io, off), tw);
        store_at(&mut io, off, y);
        off += 16;
    }
    *state = t;
    t.zeroize();
}

/// The last full block and the partial one (`tail.len()` in `17..32`), IEEE 1619-2007
/// §5.3.2 / §5.4.2: encryption uses the tweaks in order, decryption swapped.
#[inline]
#[target_feature(enable = "aes")]
fn xts_steal(keys: &Keys, decrypt: bool, state: &mut ChainState, mut tail: InOut<'_>) {
    let r = tail.len() - 16;
    let mut t = *state;
    let t_prev = next_tweak(&mut t);
    let t_last = next_tweak(&mut t);
    let (first, second) = if decrypt {
        (t_last, t_prev)
    } else {
        (t_prev, t_last)
    };
    let mut cc = [0u8; 16];
    store(&mut cc, xts1(keys, decrypt, load_at(&tail, 0), first));
    let mut pp = cc;
    read(&tail, 16, &mut pp[..r]);
    write(&mut tail, 16, &cc[..r]);
    store_at(&mut tail, 0, xts1(keys, decrypt, load(&pp), second));
    cc.zeroize();
    pp.zeroize();
    *state = t;
    t.zeroize();
}

/// XTS over the run: whole blocks, then (when the length is not a multiple of 16) the
/// stolen last two blocks. Lengths under 16 are refused before this point.
///
/// # Safety
/// The CPU must have the AES instructions.
#[target_feature(enable = "aes")]
unsafe fn xts_crypt(ks: &CeRoundKeys, decrypt: bool, state: &mut ChainState, io: InOut<'_>) {
    let len = io.len();
    if len == 0 {
        return;
    }
    // SAFETY: this kernel's contract: AES is present.
    let keys = unsafe {
        if decrypt {
            Keys::dec(ks)
        } else {
            Keys::enc(ks)
        }
    };
    let r = len % 16;
    if r == 0 {
        xts_blocks(&keys, decrypt, state, io);
    } else if len > 16 {
        let (body, tail) = io.split_at(len - 16 - r);
        xts_blocks(&keys, decrypt, state, body);
        xts_steal(&keys, decrypt, state, tail);
    } else {
        debug_assert!(false, "XTS tail under one block: tail_len refuses this");
    }
}

/// The initial tweak: the IV encrypted with the tweak key, in place in `state`.
///
/// # Safety
/// The CPU must have the AES instructions.
#[target_feature(enable = "aes")]
unsafe fn encrypt_iv(ks: &CeRoundKeys, state: &mut ChainState) {
    // SAFETY: this kernel's contract: AES is present.
    let keys = unsafe { Keys::enc(ks) };
    let t = keys.encrypt1(load(state));
    store(state, t);
}

impl XtsCe {
    fn run(&self, decrypt: bool, state: &mut ChainState, io: InOut<'_>) {
        // SAFETY: `self.token` proves the AES instructions.
        unsafe { xts_crypt(&self.data, decrypt, state, io) }
    }

    fn one_shot(&self, decrypt: bool, iv: &[u8], data: &mut [u8]) -> Result<()> {
        xts_tail_len(data.len())?;
        let mut state = [0u8; 16];
        self.start(iv, &mut state)?;
        self.run(decrypt, &mut state, InOut::InPlace(data));
        // The final tweak derives from the tweak key.
        state.zeroize();
        Ok(())
    }
}

impl SkcipherImpl for XtsCe {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        expand_xts_into(self.token, DRIVER, key, &mut self.data, &mut self.tweak)
    }

    fn tail_len(&self, total: usize) -> Result<usize> {
        xts_tail_len(total)
    }

    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        *state = iv16(iv)?;
        // SAFETY: `self.token` proves the AES instructions.
        unsafe { encrypt_iv(&self.tweak, state) };
        Ok(())
    }

    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        debug_assert_eq!(data.len() % 16, 0);
        self.run(false, state, InOut::InPlace(data));
    }

    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        debug_assert_eq!(data.len() % 16, 0);
        self.run(true, state, InOut::InPlace(data));
    }

    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.run(false, state, InOut::InPlace(tail));
    }

    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.run(true, state, InOut::InPlace(tail));
    }

    fn encrypt_blocks_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        debug_assert_eq!(src.len() % 16, 0);
        self.run(false, state, InOut::Split { src, dst });
    }

    fn decrypt_blocks_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        debug_assert_eq!(src.len() % 16, 0);
        self.run(true, state, InOut::Split { src, dst });
    }

    fn encrypt_tail_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.run(false, state, InOut::Split { src, dst });
    }

    fn decrypt_tail_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.run(true, state, InOut::Split { src, dst });
    }

    fn encrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.one_shot(false, iv, data)
    }

    fn decrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.one_shot(true, iv, data)
    }
}

/// Builds an unkeyed `xts-aes-ce`.
pub(crate) fn new_xts(host: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    Ok(Box::new(XtsCe {
        token: AesCe::new(host, DRIVER)?,
        data: CeRoundKeys::empty(),
        tweak: CeRoundKeys::empty(),
    }))
}
