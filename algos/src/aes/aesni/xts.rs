//! `xts-aes-aesni`: XTS-AES (IEEE 1619-2007, SP 800-38E) with ciphertext stealing for
//! any length of at least one block, as the kernel's `xts(aes)`.
//!
//! The key is the data key followed by the tweak key; [`verify_xts_key`] refuses equal
//! halves. [`start`](SkcipherImpl::start) encrypts the IV with the tweak key; the chaining
//! state is the tweak of the next block. Whole blocks run eight in flight with the eight
//! tweaks computed up front. The tail call gets the last full block together with the
//! partial one and performs the stealing in either direction.

use core::arch::x86_64::__m128i;

use crate::x86::token::AesNi;
use cryptoreg_registry::{inventory, AlgDef, ChainState, Ctor, HostFeatures, Result, SkcipherImpl};

use super::cipher::{iv16, load, load8, store, store8, xor, Keys, WIDE};
use super::key_schedule::{expand_key, AesRoundKeys};
use crate::xts_util::{gf128_mul_x_ble, verify_xts_key, xts_tail_len};

const DRIVER: &str = "xts-aes-aesni";

/// The driver: data-key and tweak-key schedules, wiped on drop by [`AesRoundKeys`].
struct XtsAesni {
    /// Proves AES-NI on this CPU: what makes the `unsafe` entry calls sound.
    _token: AesNi,
    data: AesRoundKeys,
    tweak: AesRoundKeys,
}

/// Which way a block goes through the cipher.
#[derive(Clone, Copy)]
enum Dir {
    Encrypt,
    Decrypt,
}

/// Returns the current tweak as a block and advances `t` to the next one.
#[inline(always)]
fn next_tweak(t: &mut [u8; 16]) -> __m128i {
    let v = load(t);
    gf128_mul_x_ble(t);
    v
}

/// `E(x ^ t) ^ t` or `D(x ^ t) ^ t` for one block.
#[inline(always)]
fn xts1(keys: &Keys, dir: Dir, x: __m128i, t: __m128i) -> __m128i {
    let x = xor(x, t);
    let y = match dir {
        Dir::Encrypt => keys.encrypt1(x),
        Dir::Decrypt => keys.decrypt1(x),
    };
    xor(y, t)
}

/// XTS over whole blocks, advancing the tweak in `state`.
#[inline(always)]
fn xts_blocks(keys: &Keys, dir: Dir, state: &mut ChainState, data: &mut [u8]) {
    let mut t = *state;
    let mut chunks = data.chunks_exact_mut(WIDE);
    for chunk in &mut chunks {
        let tw: [__m128i; 8] = core::array::from_fn(|_| next_tweak(&mut t));
        let mut x = load8(chunk);
        for (v, k) in x.iter_mut().zip(tw) {
            *v = xor(*v, k);
        }
        x = match dir {
            Dir::Encrypt => keys.encrypt8(x),
            Dir::Decrypt => keys.decrypt8(x),
        };
        for (v, k) in x.iter_mut().zip(tw) {
            *v = xor(*v, k);
        }
        store8(chunk, &x);
    }
    for block in chunks.into_remainder().chunks_exact_mut(16) {
        let tw = next_tweak(&mut t);
        store(block, xts1(keys, dir, load(block), tw));
    }
    *state = t;
}

/// The last full block and the partial one (`tail.len()` in `17..32`), IEEE 1619-2007
/// §5.3.2 / §5.4.2. Encryption: `CC = E_{T(m-1)}(P(m-1))`, the partial ciphertext is the
/// head of `CC`, and the full block is `E_{T(m)}(P(m) || tail of CC)`. Decryption uses
/// the two tweaks in the opposite order.
#[inline(always)]
fn xts_steal(keys: &Keys, dir: Dir, state: &mut ChainState, tail: &mut [u8]) {
    let r = tail.len() - 16;
    let mut t = *state;
    let t_prev = next_tweak(&mut t);
    let t_last = next_tweak(&mut t);
    let (first, second) = match dir {
        Dir::Encrypt => (t_prev, t_last),
        Dir::Decrypt => (t_last, t_prev),
    };
    let mut cc = [0u8; 16];
    store(&mut cc, xts1(keys, dir, load(tail), first));
    let mut pp = cc;
    pp[..r].copy_from_slice(&tail[16..]);
    tail[16..].copy_from_slice(&cc[..r]);
    store(tail, xts1(keys, dir, load(&pp), second));
    *state = t;
}

/// XTS over `data`: whole blocks, then (when the length is not a multiple of 16) the
/// stolen last two blocks. Lengths under 16 are refused before this point.
///
/// # Safety
/// The CPU must support AES-NI (and SSE2).
#[target_feature(enable = "aes,sse2")]
unsafe fn xts_crypt(ks: &AesRoundKeys, dir: Dir, state: &mut ChainState, data: &mut [u8]) {
    if data.is_empty() {
        return;
    }
    let keys = match dir {
        Dir::Encrypt => Keys::enc(ks),
        Dir::Decrypt => Keys::dec(ks),
    };
    let r = data.len() % 16;
    if r == 0 {
        xts_blocks(&keys, dir, state, data);
    } else if data.len() > 16 {
        let (body, tail) = data.split_at_mut(data.len() - 16 - r);
        xts_blocks(&keys, dir, state, body);
        xts_steal(&keys, dir, state, tail);
    } else {
        debug_assert!(false, "XTS tail under one block: tail_len refuses this");
    }
}

/// The initial tweak: the IV encrypted with the tweak key.
///
/// # Safety
/// The CPU must support AES-NI (and SSE2).
#[target_feature(enable = "aes,sse2")]
unsafe fn encrypt_iv(ks: &AesRoundKeys, state: &mut ChainState) {
    let keys = Keys::enc(ks);
    let t = keys.encrypt1(load(state));
    store(state, t);
}

impl SkcipherImpl for XtsAesni {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        verify_xts_key(DRIVER, key)?;
        let (k1, k2) = key.split_at(key.len() / 2);
        self.data = expand_key(self._token, DRIVER, k1)?;
        self.tweak = expand_key(self._token, DRIVER, k2)?;
        Ok(())
    }

    fn tail_len(&self, total: usize) -> Result<usize> {
        xts_tail_len(total)
    }

    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        *state = iv16(iv)?;
        // SAFETY: `self._token` proves AES-NI and SSE2, which is all the entry
        // functions are compiled for.
        unsafe { encrypt_iv(&self.tweak, state) };
        Ok(())
    }

    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        debug_assert_eq!(data.len() % 16, 0);
        // SAFETY: as in `start`.
        unsafe { xts_crypt(&self.data, Dir::Encrypt, state, data) }
    }

    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        debug_assert_eq!(data.len() % 16, 0);
        // SAFETY: as in `start`.
        unsafe { xts_crypt(&self.data, Dir::Decrypt, state, data) }
    }

    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        // SAFETY: as in `start`.
        unsafe { xts_crypt(&self.data, Dir::Encrypt, state, tail) }
    }

    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        // SAFETY: as in `start`.
        unsafe { xts_crypt(&self.data, Dir::Decrypt, state, tail) }
    }

    fn encrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        xts_tail_len(data.len())?;
        let mut state = [0u8; 16];
        self.start(iv, &mut state)?;
        // SAFETY: as in `start`.
        unsafe { xts_crypt(&self.data, Dir::Encrypt, &mut state, data) };
        Ok(())
    }

    fn decrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        xts_tail_len(data.len())?;
        let mut state = [0u8; 16];
        self.start(iv, &mut state)?;
        // SAFETY: as in `start`.
        unsafe { xts_crypt(&self.data, Dir::Decrypt, &mut state, data) };
        Ok(())
    }
}

/// Builds an unkeyed `xts-aes-aesni`.
pub(crate) fn new_xts(host: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    Ok(Box::new(XtsAesni {
        _token: AesNi::new(host, DRIVER)?,
        data: AesRoundKeys::empty(),
        tweak: AesRoundKeys::empty(),
    }))
}

inventory::submit! {
    AlgDef::new("xts(aes)", DRIVER, 401, Ctor::Skcipher(new_xts))
        .requires(AesNi::FEATURES)
        .block_size(16)
        .key_sizes(32, 64)
        .iv_size(16)
}
