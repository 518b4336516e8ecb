//! The hash driver interface: digests and keyed MACs (`AlgType::Hash`).
//!
//! A hash whose `max_key` is 0 is an unkeyed digest; any other must be keyed with
//! `set_key` before use (the kernel's `CRYPTO_TFM_NEED_KEY`), which the handle enforces.

use zeroize::Zeroizing;

use crate::error::Result;

/// A digest or keyed MAC (`AlgType::Hash`).
pub trait HashImpl: Send + Sync {
    /// Sets the MAC key; unkeyed digests return
    /// [`Error::InvalidKeyLength`](crate::Error::InvalidKeyLength) for any key.
    fn set_key(&mut self, key: &[u8]) -> Result<()>;

    /// A fresh running state (`init`).
    fn init(&self) -> Box<dyn HashState>;

    /// One-shot digest of contiguous `data` into `out` (`out.len()` is the digest size,
    /// checked by the handle). Drivers may override this to skip the boxed running state:
    /// the one-shot call is the common path.
    fn digest(&self, data: &[u8], out: &mut [u8]) {
        let mut st = self.init();
        st.update(data);
        st.finalize(out);
    }
}

/// The running state of one hash computation. Implementations zeroize it on drop (it is
/// key-dependent for MACs and message-dependent for all).
pub trait HashState: Send {
    /// Absorbs more data (any length, any number of times).
    fn update(&mut self, data: &[u8]);

    /// Writes the digest (`out.len()` is the digest size) and ends the computation.
    fn finalize(self: Box<Self>, out: &mut [u8]);

    /// `update(data)` then `finalize(out)` (the kernel's `finup`); drivers may fuse them.
    fn finup(mut self: Box<Self>, data: &[u8], out: &mut [u8]) {
        self.update(data);
        self.finalize(out);
    }

    /// The running state as bytes, for [`import`](Self::import) into another state of the
    /// same driver or of any other driver of the same algorithm: every driver of one
    /// algorithm exports the same format (GHASH and Poly1305 drivers share their family's
    /// frame, which owns it). Zeroized when dropped: it may hold key-dependent values.
    fn export(&self) -> Zeroizing<Vec<u8>>;

    /// Replaces the running state with an exported one; bytes that are not such a state
    /// (wrong length, impossible values) are an error, never a panic.
    fn import(&mut self, state: &[u8]) -> Result<()>;
}
