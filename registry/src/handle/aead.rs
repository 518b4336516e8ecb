//! The AEAD handle: contiguous, segmented and out-of-place seal and open with a detached
//! tag of the handle's authsize.
//!
//! Every check (key set, nonce length, tag length = authsize, src/dst totals) happens
//! before the driver sees the request, and the driver's own refusals (a template's AAD
//! rule, a length limit) come before it writes — also before the copy into the
//! destination that short out-of-place requests take, through
//! [`AeadImpl::check_request`] — so a refused request writes nothing. A failed open
//! returns [`Error::BadMessage`] after wiping *every* output piece: the driver decrypts
//! before it can verify (one pass), so the handle wipes whatever it wrote. Only that
//! failure wipes: a refusal leaves the destination as it was.

use std::sync::Arc;

use zeroize::Zeroize;

use super::{wrong_type, Common, HandleGuard};
use crate::alg::{DriverInfo, Factory};
use crate::error::{Error, Result};
use crate::host::HostFeatures;
use crate::traits::{AeadImpl, AEAD_MAX_TAG_SIZE};
use crate::walk::{aead_walk, total_len, total_len_ro, Direction, Segs, TagOp};

/// An AEAD handle (`gcm(aes)`, `rfc7539(chacha20,poly1305)`). The tag is detached: it is
/// written to (seal) or read from (open) a buffer of exactly [`authsize`](Self::authsize)
/// bytes, which starts as the driver's largest (`info().out_size`).
pub struct Aead {
    imp: Box<dyn AeadImpl>,
    common: Common,
    authsize: usize,
    /// The driver's [`AeadImpl::has_one_shot_to`], asked once.
    has_one_shot_to: bool,
}

/// Like the other handles' `Debug` (names, generation, keyed; never key material), with
/// the tag size.
impl std::fmt::Debug for Aead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.common
            .debug_struct(f, "Aead")
            .field("authsize", &self.authsize)
            .finish()
    }
}

handle_clone!(Aead, Aead, authsize, has_one_shot_to);

impl Aead {
    pub(crate) fn build(
        info: Arc<DriverInfo>,
        host: &HostFeatures,
        guard: Option<HandleGuard>,
    ) -> Result<Aead> {
        let Factory::Aead(f) = &info.factory() else {
            return Err(wrong_type(&info, "aead"));
        };
        if info.out_size() == 0 || info.out_size() > AEAD_MAX_TAG_SIZE {
            return Err(Error::InvalidAuthsize {
                driver: info.driver().to_string(),
                len: info.out_size(),
            });
        }
        let imp = f(host)?;
        Ok(Aead {
            has_one_shot_to: imp.has_one_shot_to(),
            imp,
            authsize: info.out_size(),
            common: Common::new(info, false, host, guard),
        })
    }

    handle_accessors!();

    /// Nonce size in bytes.
    pub fn nonce_size(&self) -> usize {
        self.common.info.iv_size()
    }

    /// The tag size in use.
    pub fn authsize(&self) -> usize {
        self.authsize
    }

    /// The largest tag size the driver produces (its default authsize).
    pub fn max_authsize(&self) -> usize {
        self.common.info.out_size()
    }

    /// Sets the key.
    pub fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.common.set_key(key, |k| self.imp.set_key(k))
    }

    /// Sets the tag size (the kernel's `crypto_aead_setauthsize`): `1..=max_authsize()` and
    /// accepted by the driver (GCM: 4, 8, 12..=16). A refused size leaves the old one.
    pub fn set_authsize(&mut self, authsize: usize) -> Result<()> {
        if authsize == 0 || authsize > self.max_authsize() {
            return Err(Error::InvalidAuthsize {
                driver: self.common.info.driver().to_string(),
                len: authsize,
            });
        }
        self.imp.check_authsize(authsize)?;
        self.authsize = authsize;
        Ok(())
    }

    fn check(&self, nonce: &[u8], tag_len: usize) -> Result<()> {
        self.common.check_iv(nonce)?;
        if tag_len != self.authsize {
            return Err(Error::InvalidTagLength {
                len: tag_len,
                expected: self.authsize,
            });
        }
        Ok(())
    }

    /// Encrypts one contiguous buffer in place and writes the tag: the common path, with
    /// no walker.
    pub fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &mut [u8]) -> Result<()> {
        self.check(nonce, tag.len())?;
        self.common.count(aad.len() + data.len());
        self.imp.seal(nonce, aad, data, tag)
    }

    /// Verifies the tag and decrypts one contiguous buffer in place; on failure the buffer
    /// is wiped and the error is [`Error::BadMessage`].
    pub fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        self.check(nonce, tag.len())?;
        self.common.count(aad.len() + data.len());
        let r = self.imp.open(nonce, aad, data, tag);
        wiped_on_failure(r, || data.zeroize())
    }

    /// Seals a request whose AAD and text are scattered over pieces, text in place.
    pub fn seal_segments(
        &self,
        nonce: &[u8],
        aad: &[&[u8]],
        data: &mut [&mut [u8]],
        tag: &mut [u8],
    ) -> Result<()> {
        self.check(nonce, tag.len())?;
        self.common.count(total_len_ro(aad) + total_len(data));
        if let (Some(a), [one]) = (one_aad(aad), &mut *data) {
            return self.imp.seal(nonce, a, one, tag);
        }
        let len = total_len(data);
        let segs = Segs::InPlace(data);
        aead_walk(
            self.imp.as_ref(),
            Direction::Encrypt,
            nonce,
            aad,
            segs,
            len,
            TagOp::Write(tag),
        )
    }

    /// Opens a request whose AAD and text are scattered over pieces, text in place; on
    /// failure every piece of `data` is wiped.
    pub fn open_segments(
        &self,
        nonce: &[u8],
        aad: &[&[u8]],
        data: &mut [&mut [u8]],
        tag: &[u8],
    ) -> Result<()> {
        self.check(nonce, tag.len())?;
        self.common.count(total_len_ro(aad) + total_len(data));
        let r = match (one_aad(aad), &mut *data) {
            (Some(a), [one]) => self.imp.open(nonce, a, one, tag),
            _ => {
                let len = total_len(data);
                aead_walk(
                    self.imp.as_ref(),
                    Direction::Decrypt,
                    nonce,
                    aad,
                    Segs::InPlace(data),
                    len,
                    TagOp::Verify(tag),
                )
            }
        };
        wiped_on_failure(r, || wipe(data))
    }

    /// Seals from `src` pieces into `dst` pieces (out of place; the lists may be divided
    /// differently but must hold the same number of bytes). One piece each (and at most
    /// one AAD piece) goes to the driver's out-of-place one-shot call when it has one
    /// ([`AeadImpl::has_one_shot_to`]); otherwise, up to 2048 bytes, to the default one,
    /// which copies it into `dst` and seals it there with the in-place one-shot call.
    /// Anything else goes through the segment walker.
    pub fn seal_to(
        &self,
        nonce: &[u8],
        aad: &[&[u8]],
        src: &[&[u8]],
        dst: &mut [&mut [u8]],
        tag: &mut [u8],
    ) -> Result<()> {
        let len = self.check_to(nonce, tag.len(), src, dst)?;
        self.common.count(total_len_ro(aad) + len);
        if let (Some(a), [s], [d]) = (one_aad(aad), src, &mut *dst) {
            if self.one_shot_to(len) {
                // The driver's answer is returned as it is, never copied: see
                // `AeadImpl::seal_to`.
                return self.imp.seal_to(nonce, a, s, d, tag);
            }
        }
        aead_walk(
            self.imp.as_ref(),
            Direction::Encrypt,
            nonce,
            aad,
            Segs::Split { src, dst },
            len,
            TagOp::Write(tag),
        )
    }

    /// Opens from `src` pieces into `dst` pieces; when the tag does not match every piece
    /// of `dst` is wiped (`src` is left as it was), and a refused request writes nothing.
    /// Single pieces take the driver's out-of-place one-shot call, or the copy and the
    /// in-place one, as in [`seal_to`](Self::seal_to).
    pub fn open_to(
        &self,
        nonce: &[u8],
        aad: &[&[u8]],
        src: &[&[u8]],
        dst: &mut [&mut [u8]],
        tag: &[u8],
    ) -> Result<()> {
        let len = self.check_to(nonce, tag.len(), src, dst)?;
        self.common.count(total_len_ro(aad) + len);
        if let (Some(a), [s], [d]) = (one_aad(aad), src, &mut *dst) {
            if self.one_shot_to(len) {
                let r = self.imp.open_to(nonce, a, s, d, tag);
                return wiped_on_failure(r, || d.zeroize());
            }
        }
        let r = aead_walk(
            self.imp.as_ref(),
            Direction::Decrypt,
            nonce,
            aad,
            Segs::Split { src, dst },
            len,
            TagOp::Verify(tag),
        );
        wiped_on_failure(r, || wipe(dst))
    }

    /// Whether a one-piece out-of-place request of `len` bytes goes to the driver's
    /// `seal_to` / `open_to` (its own kernel, or the default copy for short requests)
    /// rather than to the walker.
    fn one_shot_to(&self, len: usize) -> bool {
        self.has_one_shot_to || len <= COPY_IN_PLACE_MAX
    }

    fn check_to(
        &self,
        nonce: &[u8],
        tag_len: usize,
        src: &[&[u8]],
        dst: &[&mut [u8]],
    ) -> Result<usize> {
        self.check(nonce, tag_len)?;
        let (s, d) = (total_len_ro(src), total_len(dst));
        if s != d {
            return Err(Error::LengthMismatch { src: s, dst: d });
        }
        Ok(s)
    }
}

/// The longest out-of-place request `seal_to` / `open_to` copy into the output and then
/// run in place through the driver's one-shot call, when the driver has no out-of-place
/// one: below it the segment walker's
/// per-call costs outweigh the copy; above it the fused drivers' out-of-place streaming
/// calls save the copy's pass over the data.
const COPY_IN_PLACE_MAX: usize = 2048;

/// An open's answer, with the handle's own wipe (`wipe`) after any failure that may have
/// written. An `Ok` is answered with a new `Ok(())`, not passed on as the driver's value:
/// a `Result<()>` travels through memory, and copying it read back, in 16-byte pieces, the
/// 8-byte word the driver had just stored, which cannot be forwarded from the store (see
/// `AeadImpl::seal_to`).
#[inline(always)]
fn wiped_on_failure(r: Result<()>, wipe: impl FnOnce()) -> Result<()> {
    match r {
        Ok(()) => Ok(()),
        Err(e) => {
            if may_have_written(&e) {
                wipe();
            }
            Err(e)
        }
    }
}

/// The AAD as one slice when it is in at most one piece (the one-shot calls' form).
fn one_aad<'a>(aad: &[&'a [u8]]) -> Option<&'a [u8]> {
    match aad {
        [] => Some(&[]),
        [a] => Some(a),
        _ => None,
    }
}

/// Whether a failed open may have left output behind: everything but the refusals a
/// driver makes before it writes a byte (bad lengths, no key). Those leave an in-place
/// caller's ciphertext intact; any other failure — above all `BadMessage` — wipes every
/// output piece, so no plaintext of an inauthentic message survives.
fn may_have_written(e: &Error) -> bool {
    !matches!(
        e,
        Error::InvalidLength { .. }
            | Error::InvalidIvLength { .. }
            | Error::InvalidTagLength { .. }
            | Error::InvalidAuthsize { .. }
            | Error::LengthMismatch { .. }
            | Error::NoKey
    )
}

fn wipe(pieces: &mut [&mut [u8]]) {
    for p in pieces.iter_mut() {
        p.zeroize();
    }
}
