//! What a driver implements. The registry and its handles talk to drivers only through
//! these object-safe traits, so a template can wrap any child and a handle can hold any
//! driver.
//!
//! Every implementation must zeroize its key material on drop.
//!
//! Data path (skcipher and AEAD alike): a request is a start, whole *chunks* of the
//! driver's chunk size, and one tail call; the walker ([`crate::walk`]) feeds scattered
//! requests through these calls, and contiguous requests go through the one-shot methods
//! (`encrypt`, `seal`, `digest`) whose default impls compose the same calls.

use zeroize::Zeroize;

use crate::error::{Error, Result};
use crate::walk::Direction;

mod aead;
mod hash;

pub use aead::{
    open_to_by_copy, seal_to_by_copy, AeadImpl, AeadLens, AeadState, AEAD_MAX_TAG_SIZE,
    AEAD_STATE_SIZE,
};
pub use hash::{HashImpl, HashState};

/// The chaining value carried from one piece of a request to the next: the IV for CBC, the
/// counter block for CTR, the encrypted tweak for XTS. It depends on the key (XTS), so
/// whoever creates one zeroizes it when the request ends.
pub type ChainState = [u8; 16];

/// A block cipher (`AlgType::Cipher`): the primitive that the templates build modes from.
pub trait BlockCipherImpl: Send + Sync {
    /// Expands `key`; an unsupported length is [`Error::InvalidKeyLength`].
    fn set_key(&mut self, key: &[u8]) -> Result<()>;
    /// Encrypts whole blocks in place; `data.len()` is a multiple of the block size.
    /// Implementations may (and the fast ones do) keep several blocks in flight.
    fn encrypt_blocks(&self, data: &mut [u8]);
    /// Decrypts whole blocks in place; `data.len()` is a multiple of the block size.
    fn decrypt_blocks(&self, data: &mut [u8]);
}

/// A symmetric-key stream or block-mode cipher (`AlgType::Skcipher`).
///
/// A request is processed as: [`start`](Self::start) turns the IV into a [`ChainState`],
/// then any number of [`encrypt_blocks`](Self::encrypt_blocks) calls over pieces that are
/// multiples of [`chunk_size`](Self::chunk_size), then one
/// [`encrypt_tail`](Self::encrypt_tail) over the last [`tail_len`](Self::tail_len) bytes
/// (which may be zero bytes long). This is what lets the segment walker feed a request
/// that is scattered over many buffers, and lets XTS see its last full block together with
/// the partial one for ciphertext stealing.
pub trait SkcipherImpl: Send + Sync {
    /// Expands `key`; wrong length or weak key is an error.
    fn set_key(&mut self, key: &[u8]) -> Result<()>;
    /// The granularity of [`encrypt_blocks`](Self::encrypt_blocks), at most 64 bytes.
    fn chunk_size(&self) -> usize {
        16
    }
    /// Validates a request's total length and returns how many of its last bytes must be
    /// handed to the tail call in one piece (`<= 2 * chunk_size`).
    fn tail_len(&self, total: usize) -> Result<usize>;
    /// Derives the chaining state from the IV (already checked to have the driver's IV
    /// size). Called once per request, for either direction.
    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()>;

    /// Refuses a request of `total` bytes under `iv` that the cipher cannot process
    /// whole, before any byte is written: ChaCha20's 32-bit block counter must not pass
    /// 2^32 within one nonce ([`Error::InvalidLength`]). Called by the walker and the
    /// default one-shot methods after [`tail_len`](Self::tail_len) and before
    /// [`start`](Self::start); a driver that overrides a one-shot method calls it itself.
    /// The default accepts everything (block modes have no such limit).
    fn check_request(&self, iv: &[u8], total: usize) -> Result<()> {
        let _ = (iv, total);
        Ok(())
    }

    /// For a cipher whose IV also selects the key (XChaCha20: HChaCha20 of the key and
    /// the first 16 IV bytes is the ChaCha20 key of the request), the keyed cipher that
    /// runs this request and the IV to give it; the walker and the default one-shot
    /// methods then run the whole request on that cipher. A [`ChainState`] (16 bytes)
    /// cannot carry a 32-byte subkey from one chunk call to the next, hence this hook.
    /// It allocates once per request; a driver may override the one-shot methods to
    /// avoid that. The default is `None`: the cipher itself runs the request.
    #[allow(clippy::type_complexity)]
    fn per_request_cipher(&self, iv: &[u8]) -> Result<Option<(Box<dyn SkcipherImpl>, ChainState)>> {
        let _ = iv;
        Ok(None)
    }
    /// Encrypts whole chunks, advancing `state`.
    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]);
    /// Decrypts whole chunks, advancing `state`.
    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]);
    /// Encrypts the last `tail_len(total)` bytes.
    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]);
    /// Decrypts the last `tail_len(total)` bytes.
    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]);

    /// Encrypts whole chunks from `src` into `dst` (same length), advancing `state`: the
    /// out-of-place path of the walker, one memory pass when overridden. The default copies
    /// `src` to `dst` and encrypts there, so drivers that only work in place need nothing.
    fn encrypt_blocks_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        dst.copy_from_slice(src);
        self.encrypt_blocks(state, dst);
    }
    /// Decrypts whole chunks from `src` into `dst` (same length), advancing `state`.
    fn decrypt_blocks_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        dst.copy_from_slice(src);
        self.decrypt_blocks(state, dst);
    }
    /// Encrypts the tail from `src` into `dst` (same length).
    fn encrypt_tail_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        dst.copy_from_slice(src);
        self.encrypt_tail(state, dst);
    }
    /// Decrypts the tail from `src` into `dst` (same length).
    fn decrypt_tail_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        dst.copy_from_slice(src);
        self.decrypt_tail(state, dst);
    }

    /// One contiguous request, in place. Drivers may override this to skip the split into
    /// calls; the default composes the methods above and costs nothing extra.
    fn encrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        if let Some((inner, iv)) = self.per_request_cipher(iv)? {
            return inner.encrypt(&iv, data);
        }
        let tail = self.tail_len(data.len())?;
        self.check_request(iv, data.len())?;
        let mut state = [0u8; 16];
        self.start(iv, &mut state)?;
        let (body, rest) = data.split_at_mut(data.len() - tail);
        self.encrypt_blocks(&mut state, body);
        self.encrypt_tail(&mut state, rest);
        state.zeroize();
        Ok(())
    }

    /// One contiguous request, in place, decrypting.
    fn decrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        if let Some((inner, iv)) = self.per_request_cipher(iv)? {
            return inner.decrypt(&iv, data);
        }
        let tail = self.tail_len(data.len())?;
        self.check_request(iv, data.len())?;
        let mut state = [0u8; 16];
        self.start(iv, &mut state)?;
        let (body, rest) = data.split_at_mut(data.len() - tail);
        self.decrypt_blocks(&mut state, body);
        self.decrypt_tail(&mut state, rest);
        state.zeroize();
        Ok(())
    }

    /// One contiguous request out of place, from `src` into `dst` (same length, checked
    /// by the caller): the out-of-place twin of [`encrypt`](Self::encrypt), so a
    /// one-segment `encrypt_to` costs no walker either. Drivers may override it with a
    /// single kernel call; the default composes the `*_to` methods.
    fn encrypt_to(&self, iv: &[u8], src: &[u8], dst: &mut [u8]) -> Result<()> {
        one_shot_to(self, Direction::Encrypt, iv, src, dst)
    }

    /// One contiguous request out of place, decrypting.
    fn decrypt_to(&self, iv: &[u8], src: &[u8], dst: &mut [u8]) -> Result<()> {
        one_shot_to(self, Direction::Decrypt, iv, src, dst)
    }
}

/// The default `encrypt_to`/`decrypt_to`: start, the body through `*_blocks_to`, the
/// tail through `*_tail_to`, the chaining state wiped.
fn one_shot_to<S: SkcipherImpl + ?Sized>(
    imp: &S,
    dir: Direction,
    iv: &[u8],
    src: &[u8],
    dst: &mut [u8],
) -> Result<()> {
    if let Some((inner, iv)) = imp.per_request_cipher(iv)? {
        return one_shot_to(inner.as_ref(), dir, &iv, src, dst);
    }
    let tail = imp.tail_len(src.len())?;
    if dst.len() != src.len() {
        return Err(Error::LengthMismatch {
            src: src.len(),
            dst: dst.len(),
        });
    }
    imp.check_request(iv, src.len())?;
    let mut state = [0u8; 16];
    imp.start(iv, &mut state)?;
    let cut = src.len() - tail;
    let (body, rest) = dst.split_at_mut(cut);
    match dir {
        Direction::Encrypt => {
            imp.encrypt_blocks_to(&mut state, &src[..cut], body);
            imp.encrypt_tail_to(&mut state, &src[cut..], rest);
        }
        Direction::Decrypt => {
            imp.decrypt_blocks_to(&mut state, &src[..cut], body);
            imp.decrypt_tail_to(&mut state, &src[cut..], rest);
        }
    }
    state.zeroize();
    Ok(())
}

/// Checks a key length against the lengths a driver takes, for `set_key` bodies; the
/// error lists them.
pub fn check_key_len(driver: &str, key: &[u8], allowed: &[usize]) -> Result<()> {
    if allowed.contains(&key.len()) {
        Ok(())
    } else {
        Err(Error::InvalidKeyLength {
            driver: driver.to_string(),
            len: key.len(),
            valid: crate::KeyLengths::list(allowed),
        })
    }
}
