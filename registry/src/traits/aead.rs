//! The streaming AEAD driver interface.
//!
//! One request is, in this order:
//!
//! 1. [`start`](AeadImpl::start): nonce and the request's lengths into a fresh
//!    [`AeadState`] (GCM derives J0 and the counter block; ChaCha20-Poly1305 derives the
//!    Poly1305 key from block 0);
//! 2. [`absorb_aad`](AeadImpl::absorb_aad) over whole chunks of AAD, any number of times,
//!    then exactly one [`absorb_aad_tail`](AeadImpl::absorb_aad_tail) with the last
//!    `aad_len % aad_chunk_size` bytes (possibly none) — where both MACs pad to 16 bytes;
//! 3. [`encrypt_chunks`](AeadImpl::encrypt_chunks) (or `decrypt_chunks`) over whole chunks of
//!    text, as [`InOut`] runs, then exactly one `encrypt_tail` / `decrypt_tail` with the last
//!    `text_len % chunk_size` bytes (possibly none);
//! 4. [`finish`](AeadImpl::finish) writes the tag (encryption), or
//!    [`verify`](AeadImpl::verify) compares it in constant time (decryption).
//!
//! **AAD granularity, decided:** the walker bounces AAD to the driver's
//! [`aad_chunk_size`](AeadImpl::aad_chunk_size) (by default its chunk size), exactly as it
//! does text, so no driver has to carry a partial-block buffer in its state or handle a
//! 3-byte piece followed by a 13-byte one: only the final AAD piece is partial. A driver
//! that buffers anyway (as a hash-style GHASH does) says 1 and gets the pieces unbounced.
//!
//! The state is owned by the caller, on its stack, and wiped when dropped, so it is
//! zeroized at the end of every request, whether it succeeded, failed or panicked.

use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use crate::error::{Error, Result};
use crate::inout::InOut;

/// Bytes of per-request AEAD state.
///
/// Sized for the largest state a planned driver keeps: GCM needs the GHASH accumulator,
/// the counter block, E(K, J0) and the length block (64 bytes; a stitched 8-block kernel
/// may keep a few more blocks in flight); ChaCha20-Poly1305 needs the Poly1305 accumulator
/// `h` (3 or 5 limbs), `r` and `s` (32 bytes), the ChaCha20 counter and nonce (16 bytes)
/// and, for vector Poly1305, precomputed powers of `r` (up to 4 x 5 limbs of u64 = 160
/// bytes). 256 bytes covers all of these; a driver that needs more keeps it in its key
/// schedule (precomputed powers of H) rather than per request.
pub const AEAD_STATE_SIZE: usize = 256;

/// The largest tag a driver may produce (an `authenc(hmac(sha512),...)` tag is 64 bytes).
/// `DriverInfo::out_size` of an AEAD must not exceed it.
pub const AEAD_MAX_TAG_SIZE: usize = 64;

/// The per-request state of an AEAD driver: [`AEAD_STATE_SIZE`] bytes, 16-byte aligned,
/// whose layout belongs to the driver. It zeroizes itself on drop.
#[repr(C, align(16))]
pub struct AeadState {
    /// The driver's scratch: counters, accumulators, key-dependent masks.
    pub bytes: [u8; AEAD_STATE_SIZE],
}

impl AeadState {
    /// A zeroed state.
    pub const fn new() -> AeadState {
        AeadState {
            bytes: [0; AEAD_STATE_SIZE],
        }
    }

    /// Reads the little-endian u64 lane `i` (`0..AEAD_STATE_SIZE / 8`).
    pub fn lane(&self, i: usize) -> u64 {
        let mut b = [0u8; 8];
        b.copy_from_slice(&self.bytes[8 * i..8 * i + 8]);
        u64::from_le_bytes(b)
    }

    /// Writes the little-endian u64 lane `i`.
    pub fn set_lane(&mut self, i: usize, v: u64) {
        self.bytes[8 * i..8 * i + 8].copy_from_slice(&v.to_le_bytes());
    }
}

impl Default for AeadState {
    fn default() -> Self {
        AeadState::new()
    }
}

impl Drop for AeadState {
    fn drop(&mut self) {
        self.bytes.zeroize();
    }
}

impl std::fmt::Debug for AeadState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AeadState(..)")
    }
}

/// The lengths of one request, known before it starts (CCM encodes them in its first
/// block; GCM and ChaCha20-Poly1305 may refuse over-long messages here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AeadLens {
    /// Total AAD bytes.
    pub aad: usize,
    /// Total text (plaintext or ciphertext) bytes, without the tag.
    pub text: usize,
    /// The tag size in use (the handle's authsize).
    pub authsize: usize,
}

/// An authenticated cipher (`AlgType::Aead`) with a detached tag. See the module docs for
/// the order of calls. The handle checks nonce length, key, authsize and buffer lengths
/// before the driver sees a request.
pub trait AeadImpl: Send + Sync {
    /// Expands `key`.
    fn set_key(&mut self, key: &[u8]) -> Result<()>;

    /// Whether the driver produces tags of `authsize` bytes. The handle has already checked
    /// `1..=out_size`; GCM narrows this to 4, 8 and 12..=16, ChaCha20-Poly1305 to 16.
    fn check_authsize(&self, authsize: usize) -> Result<()> {
        let _ = authsize;
        Ok(())
    }

    /// The granularity of text pieces, 1..=64 bytes.
    fn chunk_size(&self) -> usize {
        16
    }

    /// The granularity of AAD pieces, 1..=64 bytes; by default the chunk size. A driver
    /// that buffers partial blocks in its state itself may say 1 and get the caller's AAD
    /// pieces as they come, unbounced (then the AAD tail call is always empty).
    fn aad_chunk_size(&self) -> usize {
        self.chunk_size()
    }

    /// Every refusal [`start`](Self::start) would make for a request of these lengths and
    /// this nonce, without starting it: the handle asks before it copies a source into a
    /// destination for an in-place one-shot call, so that a refused request writes
    /// nothing. The default runs `start` on a scratch state (always right, but it may
    /// derive per-request keys); drivers whose checks are cheaper override it with exactly
    /// the checks their `start` makes.
    fn check_request(&self, nonce: &[u8], lens: AeadLens) -> Result<()> {
        let mut scratch = AeadState::new();
        self.start(&mut scratch, nonce, lens)
    }

    /// Begins a request: derives the per-request state from the nonce (already checked to
    /// have the driver's nonce size).
    fn start(&self, state: &mut AeadState, nonce: &[u8], lens: AeadLens) -> Result<()>;

    /// Absorbs AAD: a whole number of AAD chunks.
    fn absorb_aad(&self, state: &mut AeadState, aad: &[u8]);

    /// Absorbs the last `aad_len % aad_chunk_size` bytes of AAD (possibly none). Called
    /// once, and also marks the end of the AAD.
    fn absorb_aad_tail(&self, state: &mut AeadState, tail: &[u8]);

    /// Encrypts whole chunks of text and authenticates the ciphertext.
    fn encrypt_chunks(&self, state: &mut AeadState, data: InOut<'_>);

    /// Authenticates and decrypts whole chunks of text.
    fn decrypt_chunks(&self, state: &mut AeadState, data: InOut<'_>);

    /// Encrypts the last `text_len % chunk_size` bytes (possibly none). Called once.
    fn encrypt_tail(&self, state: &mut AeadState, data: InOut<'_>);

    /// Decrypts the last `text_len % chunk_size` bytes (possibly none). Called once.
    fn decrypt_tail(&self, state: &mut AeadState, data: InOut<'_>);

    /// Computes the tag, truncated to `tag.len()` (the authsize), into `tag`.
    fn finish(&self, state: &mut AeadState, tag: &mut [u8]);

    /// Computes the tag and compares it with `tag` in constant time: [`Error::BadMessage`]
    /// when they differ. Overriding this is for fused drivers only; the default is what
    /// every driver should use.
    fn verify(&self, state: &mut AeadState, tag: &[u8]) -> Result<()> {
        let mut computed = [0u8; AEAD_MAX_TAG_SIZE];
        let Some(mine) = computed.get_mut(..tag.len()) else {
            return Err(Error::BadMessage);
        };
        self.finish(state, mine);
        let equal = bool::from(mine.ct_eq(tag));
        computed.zeroize();
        if equal {
            Ok(())
        } else {
            Err(Error::BadMessage)
        }
    }

    /// Whether [`seal_to`](Self::seal_to) and [`open_to`](Self::open_to) are the driver's
    /// own one-pass kernels (read `src`, write `dst`). The handle sends every one-piece
    /// out-of-place request to such a driver; to one without (`false`, the default) only
    /// short ones, which the default methods copy and run in place, and longer ones
    /// through the streaming calls, which read one buffer and write the other. Asked once,
    /// when the handle is built: the answer must not change for the driver's lifetime.
    fn has_one_shot_to(&self) -> bool {
        false
    }

    /// One contiguous request read from `src` and written to `dst` (two buffers of one
    /// length, else [`Error::LengthMismatch`]), the tag into `tag`. Drivers with a fused
    /// one-shot kernel that makes one pass from one buffer to the other override it (and
    /// [`has_one_shot_to`](Self::has_one_shot_to)); the default is [`seal_to_by_copy`].
    ///
    /// It returns `Result<()>` itself, not wrapped, so that the handle can return the
    /// driver's answer as its own: a `Result<()>` travels through memory, and a handle
    /// that copied it read back, in 16-byte pieces, the 8-byte word the driver had just
    /// stored, which cannot be forwarded from the store and waited for it to retire
    /// (about 60 cycles of every out-of-place call on Zen 4).
    fn seal_to(
        &self,
        nonce: &[u8],
        aad: &[u8],
        src: &[u8],
        dst: &mut [u8],
        tag: &mut [u8],
    ) -> Result<()> {
        seal_to_by_copy(self, nonce, aad, src, dst, tag)
    }

    /// The opening counterpart of [`seal_to`](Self::seal_to): verifies `tag` and decrypts
    /// `src` into `dst`, or returns [`Error::BadMessage`] with `dst` wiped (`src` is only
    /// read). The default is [`open_to_by_copy`].
    fn open_to(
        &self,
        nonce: &[u8],
        aad: &[u8],
        src: &[u8],
        dst: &mut [u8],
        tag: &[u8],
    ) -> Result<()> {
        open_to_by_copy(self, nonce, aad, src, dst, tag)
    }

    /// One contiguous request, in place, with the tag written to `tag` (`tag.len()` is the
    /// authsize). Drivers may override this with a fused one-shot kernel; the default
    /// composes the streaming calls with no copies.
    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &mut [u8]) -> Result<()> {
        let mut state = AeadState::new();
        let body = start_one_shot(self, &mut state, nonce, aad, data.len(), tag.len())?;
        let (whole, rest) = data.split_at_mut(body);
        self.encrypt_chunks(&mut state, InOut::InPlace(whole));
        self.encrypt_tail(&mut state, InOut::InPlace(rest));
        self.finish(&mut state, tag);
        Ok(())
    }

    /// One contiguous request, in place: verifies `tag` and decrypts, or returns
    /// [`Error::BadMessage`] with `data` wiped (no plaintext escapes; the handle wipes it
    /// again, so an override that forgets cannot leak).
    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        let mut state = AeadState::new();
        let body = start_one_shot(self, &mut state, nonce, aad, data.len(), tag.len())?;
        let (whole, rest) = data.split_at_mut(body);
        self.decrypt_chunks(&mut state, InOut::InPlace(whole));
        self.decrypt_tail(&mut state, InOut::InPlace(rest));
        let verdict = self.verify(&mut state, tag);
        if verdict.is_err() {
            data.zeroize();
        }
        verdict
    }
}

/// An out-of-place seal for a driver with only in-place one-shot calls: the driver's
/// refusals first ([`AeadImpl::check_request`]), so a refused request writes nothing, then
/// `src` copied into `dst` and sealed there. The default [`AeadImpl::seal_to`].
pub fn seal_to_by_copy<A: AeadImpl + ?Sized>(
    imp: &A,
    nonce: &[u8],
    aad: &[u8],
    src: &[u8],
    dst: &mut [u8],
    tag: &mut [u8],
) -> Result<()> {
    copy_checked(imp, nonce, aad, src, dst, tag.len())?;
    imp.seal(nonce, aad, dst, tag)
}

/// The opening counterpart of [`seal_to_by_copy`]: checked, copied, opened in place
/// (which wipes `dst` when the tag does not match). The default [`AeadImpl::open_to`].
///
/// The handle wipes `dst` after any error of an open but the refusals a driver makes
/// before writing (`InvalidLength`, `InvalidIvLength`, `InvalidTagLength`,
/// `InvalidAuthsize`, `LengthMismatch`, `NoKey`): a `check_request` that refuses with
/// another error leaves `dst` zeroed, not as it was.
pub fn open_to_by_copy<A: AeadImpl + ?Sized>(
    imp: &A,
    nonce: &[u8],
    aad: &[u8],
    src: &[u8],
    dst: &mut [u8],
    tag: &[u8],
) -> Result<()> {
    copy_checked(imp, nonce, aad, src, dst, tag.len())?;
    imp.open(nonce, aad, dst, tag)
}

/// `src` into `dst` once the request is known to be one the driver takes: buffers of one
/// length and [`AeadImpl::check_request`] passed.
fn copy_checked<A: AeadImpl + ?Sized>(
    imp: &A,
    nonce: &[u8],
    aad: &[u8],
    src: &[u8],
    dst: &mut [u8],
    authsize: usize,
) -> Result<()> {
    if src.len() != dst.len() {
        return Err(Error::LengthMismatch {
            src: src.len(),
            dst: dst.len(),
        });
    }
    let lens = AeadLens {
        aad: aad.len(),
        text: src.len(),
        authsize,
    };
    imp.check_request(nonce, lens)?;
    dst.copy_from_slice(src);
    Ok(())
}

/// What the one-shot `seal` and `open` share: start the request, absorb the whole AAD
/// (chunks, then the tail), and return how many text bytes go through the chunk calls
/// before the tail.
fn start_one_shot<A: AeadImpl + ?Sized>(
    imp: &A,
    state: &mut AeadState,
    nonce: &[u8],
    aad: &[u8],
    text: usize,
    authsize: usize,
) -> Result<usize> {
    let lens = AeadLens {
        aad: aad.len(),
        text,
        authsize,
    };
    imp.start(state, nonce, lens)?;
    let achunk = imp.aad_chunk_size().max(1);
    let (whole, rest) = aad.split_at(aad.len() - aad.len() % achunk);
    imp.absorb_aad(state, whole);
    imp.absorb_aad_tail(state, rest);
    let chunk = imp.chunk_size().max(1);
    Ok(text - text % chunk)
}
