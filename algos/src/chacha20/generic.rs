//! `chacha20-generic` and `xchacha20-generic` (priority 100): the portable drivers over
//! the scalar core, constant-time by construction (add-rotate-xor only).
//!
//! The [`ChainState`] of a `chacha20` request is the 16-byte IV itself with its counter
//! advanced: counter (LE) || nonce. `xchacha20` runs each request on a `chacha20` cipher
//! keyed with the HChaCha20 subkey ([`SkcipherImpl::per_request_cipher`]); its one-shot
//! methods build that cipher on the stack instead of the heap.

use cryptoreg_registry::{
    check_key_len, inventory, AlgDef, ChainState, Ctor, Error, HostFeatures, Result, SkcipherImpl,
};
use zeroize::{Zeroize, Zeroizing};

use super::{
    chacha20_xor, check_chacha_request, hchacha20, init_state, xchacha_hchacha_nonce,
    xchacha_inner_iv, xchacha_iv, CHACHA_BLOCK_SIZE, CHACHA_IV_SIZE, CHACHA_KEY_SIZE,
    XCHACHA_IV_SIZE,
};

/// The portable ChaCha20 stream cipher (`chacha20-generic`).
#[derive(Default)]
pub struct ChaCha20Generic {
    key: Zeroizing<[u8; CHACHA_KEY_SIZE]>,
    keyed: bool,
}

impl ChaCha20Generic {
    /// An unkeyed cipher.
    pub fn new() -> ChaCha20Generic {
        ChaCha20Generic::default()
    }

    /// A cipher keyed with `key` (the XChaCha20 subkey path).
    pub fn with_key(key: &[u8; CHACHA_KEY_SIZE]) -> ChaCha20Generic {
        ChaCha20Generic {
            key: Zeroizing::new(*key),
            keyed: true,
        }
    }

    /// Xors the keystream of the request at `state` into `data` and advances the counter
    /// in `state` by the blocks used.
    fn apply(&self, state: &mut ChainState, data: &mut [u8]) {
        let mut s = init_state(&self.key, state);
        chacha20_xor(&mut s, data);
        state[..4].copy_from_slice(&s[12].to_le_bytes());
        s.zeroize();
    }
}

impl SkcipherImpl for ChaCha20Generic {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        check_key_len("chacha20-generic", key, &[CHACHA_KEY_SIZE])?;
        self.key.copy_from_slice(key);
        self.keyed = true;
        Ok(())
    }

    /// One keystream block.
    fn chunk_size(&self) -> usize {
        CHACHA_BLOCK_SIZE
    }

    /// Any length; the partial last block is the tail.
    fn tail_len(&self, total: usize) -> Result<usize> {
        Ok(total % CHACHA_BLOCK_SIZE)
    }

    /// The counter must have room for the whole request.
    fn check_request(&self, iv: &[u8], total: usize) -> Result<()> {
        check_chacha_request(iv, total)
    }

    /// The state is the IV: counter (LE) then nonce.
    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        if !self.keyed {
            return Err(Error::NoKey);
        }
        if iv.len() != CHACHA_IV_SIZE {
            return Err(Error::InvalidIvLength {
                len: iv.len(),
                expected: CHACHA_IV_SIZE,
            });
        }
        state.copy_from_slice(iv);
        Ok(())
    }

    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.apply(state, data);
    }

    /// Identical to encryption.
    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.apply(state, data);
    }

    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.apply(state, tail);
    }

    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.apply(state, tail);
    }
}

/// The portable XChaCha20 stream cipher (`xchacha20-generic`): HChaCha20 subkey, then
/// ChaCha20 (see the module docs of [`super`] for the IV layout).
#[derive(Default)]
pub struct XChaCha20Generic {
    key: Zeroizing<[u8; CHACHA_KEY_SIZE]>,
    keyed: bool,
}

impl XChaCha20Generic {
    /// An unkeyed cipher.
    pub fn new() -> XChaCha20Generic {
        XChaCha20Generic::default()
    }

    /// The `chacha20` cipher and IV of the request under `iv`.
    fn inner(&self, iv: &[u8]) -> Result<(ChaCha20Generic, ChainState)> {
        if !self.keyed {
            return Err(Error::NoKey);
        }
        let iv = xchacha_iv(iv)?;
        let subkey = Zeroizing::new(hchacha20(&self.key, &xchacha_hchacha_nonce(iv)));
        Ok((ChaCha20Generic::with_key(&subkey), xchacha_inner_iv(iv)))
    }
}

/// Why `start` refuses: every request goes through [`SkcipherImpl::per_request_cipher`].
/// The chunk calls, never reached after a refused `start`, wipe their data rather than
/// panic or leave plaintext where ciphertext is expected.
const XCHACHA_DIRECT: &str = "xchacha20 runs each request on its per-request cipher";

impl SkcipherImpl for XChaCha20Generic {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        check_key_len("xchacha20-generic", key, &[CHACHA_KEY_SIZE])?;
        self.key.copy_from_slice(key);
        self.keyed = true;
        Ok(())
    }

    fn chunk_size(&self) -> usize {
        CHACHA_BLOCK_SIZE
    }

    fn tail_len(&self, total: usize) -> Result<usize> {
        Ok(total % CHACHA_BLOCK_SIZE)
    }

    fn per_request_cipher(&self, iv: &[u8]) -> Result<Option<(Box<dyn SkcipherImpl>, ChainState)>> {
        let (c, iv) = self.inner(iv)?;
        Ok(Some((Box::new(c), iv)))
    }

    /// Refused: a 16-byte chain state cannot carry the subkey (the walker and the one-shot
    /// methods never call this; see [`SkcipherImpl::per_request_cipher`]).
    fn start(&self, _iv: &[u8], _state: &mut ChainState) -> Result<()> {
        Err(Error::InvalidLength {
            len: 0,
            reason: XCHACHA_DIRECT,
        })
    }

    fn encrypt_blocks(&self, _state: &mut ChainState, data: &mut [u8]) {
        data.zeroize();
    }

    fn decrypt_blocks(&self, _state: &mut ChainState, data: &mut [u8]) {
        data.zeroize();
    }

    fn encrypt_tail(&self, _state: &mut ChainState, tail: &mut [u8]) {
        tail.zeroize();
    }

    fn decrypt_tail(&self, _state: &mut ChainState, tail: &mut [u8]) {
        tail.zeroize();
    }

    fn encrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        let (c, iv) = self.inner(iv)?;
        c.encrypt(&iv, data)
    }

    fn decrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        let (c, iv) = self.inner(iv)?;
        c.decrypt(&iv, data)
    }

    fn encrypt_to(&self, iv: &[u8], src: &[u8], dst: &mut [u8]) -> Result<()> {
        let (c, iv) = self.inner(iv)?;
        c.encrypt_to(&iv, src, dst)
    }

    fn decrypt_to(&self, iv: &[u8], src: &[u8], dst: &mut [u8]) -> Result<()> {
        let (c, iv) = self.inner(iv)?;
        c.decrypt_to(&iv, src, dst)
    }
}

/// Portable: needs no CPU feature.
fn make_chacha20(_: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    Ok(Box::new(ChaCha20Generic::new()))
}

/// Portable: needs no CPU feature.
fn make_xchacha20(_: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    Ok(Box::new(XChaCha20Generic::new()))
}

inventory::submit! {
    AlgDef::new("chacha20", "chacha20-generic", 100, Ctor::Skcipher(make_chacha20))
        .block_size(1)
        .key_sizes(CHACHA_KEY_SIZE, CHACHA_KEY_SIZE)
        .iv_size(CHACHA_IV_SIZE)
}

inventory::submit! {
    AlgDef::new("xchacha20", "xchacha20-generic", 100, Ctor::Skcipher(make_xchacha20))
        .block_size(1)
        .key_sizes(CHACHA_KEY_SIZE, CHACHA_KEY_SIZE)
        .iv_size(XCHACHA_IV_SIZE)
}
