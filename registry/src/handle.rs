//! The typed handles users hold. A handle owns its own driver instance (and so its own
//! key schedule), is `Send + Sync`, and keeps working whatever happens to priorities in
//! the registry afterwards.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::alg::{DriverInfo, Factory};
use crate::error::{Error, Result};
use crate::host::HostFeatures;
use crate::traits::{AeadImpl, BlockCipherImpl, HashImpl, HashState, SkcipherImpl};
use crate::walk::{copy_segments, total_len, walk_in_place, Direction};

/// Counts live handles of one registry entry; dropped with the handle.
pub(crate) struct HandleGuard(Arc<AtomicUsize>);

impl HandleGuard {
    pub(crate) fn new(count: &Arc<AtomicUsize>) -> HandleGuard {
        count.fetch_add(1, Ordering::Relaxed);
        HandleGuard(Arc::clone(count))
    }
}

impl Drop for HandleGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// What every handle carries besides its driver instance.
struct Common {
    info: Arc<DriverInfo>,
    keyed: bool,
    _guard: Option<HandleGuard>,
}

impl Common {
    fn check_key_range(&self, key: &[u8]) -> Result<()> {
        if key.len() < self.info.sizes().min_key || key.len() > self.info.sizes().max_key {
            return Err(Error::InvalidKeyLength {
                driver: self.info.driver().to_string(),
                len: key.len(),
            });
        }
        Ok(())
    }

    fn check_iv(&self, iv: &[u8]) -> Result<()> {
        if !self.keyed {
            return Err(Error::NoKey);
        }
        if iv.len() != self.info.iv_size() {
            return Err(Error::InvalidIvLength {
                len: iv.len(),
                expected: self.info.iv_size(),
            });
        }
        Ok(())
    }
}

macro_rules! handle_accessors {
    () => {
        /// The algorithm name (`xts(aes)`).
        pub fn algorithm_name(&self) -> &str {
            &self.common.info.name()
        }
        /// The driver that serves this handle (`xts-aes-aesni`).
        pub fn driver_name(&self) -> &str {
            &self.common.info.driver()
        }
        /// The full description of the driver.
        pub fn info(&self) -> &DriverInfo {
            &self.common.info
        }
    };
}

fn wrong_type(info: &DriverInfo, wanted: &'static str) -> Error {
    Error::WrongType {
        name: info.driver().to_string(),
        wanted,
        actual: info.alg_type().name(),
    }
}

/// A single-block cipher handle (`aes`).
pub struct Cipher {
    imp: Box<dyn BlockCipherImpl>,
    common: Common,
}

impl Cipher {
    /// Builds a handle straight from a description, outside the registry's bookkeeping
    /// (the self-test runner exercises drivers that have not passed yet this way). The
    /// driver's constructor checks `host` and refuses with [`Error::Unsupported`] if the
    /// CPU lacks one of its instructions.
    pub fn from_info(info: Arc<DriverInfo>, host: &HostFeatures) -> Result<Cipher> {
        Self::build(info, host, None)
    }

    pub(crate) fn build(
        info: Arc<DriverInfo>,
        host: &HostFeatures,
        guard: Option<HandleGuard>,
    ) -> Result<Cipher> {
        let Factory::Cipher(f) = &info.factory() else {
            return Err(wrong_type(&info, "cipher"));
        };
        Ok(Cipher {
            imp: f(host)?,
            common: Common {
                info,
                keyed: false,
                _guard: guard,
            },
        })
    }

    handle_accessors!();

    /// Sets the key.
    pub fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.common.keyed = false;
        self.common.check_key_range(key)?;
        self.imp.set_key(key)?;
        self.common.keyed = true;
        Ok(())
    }

    fn check_blocks(&self, data: &[u8]) -> Result<()> {
        if !self.common.keyed {
            return Err(Error::NoKey);
        }
        if !data.len().is_multiple_of(self.common.info.block_size()) {
            return Err(Error::InvalidLength {
                len: data.len(),
                reason: "not a multiple of the block size",
            });
        }
        Ok(())
    }

    /// Encrypts whole blocks in place.
    pub fn encrypt_blocks(&self, data: &mut [u8]) -> Result<()> {
        self.check_blocks(data)?;
        self.imp.encrypt_blocks(data);
        Ok(())
    }

    /// Decrypts whole blocks in place.
    pub fn decrypt_blocks(&self, data: &mut [u8]) -> Result<()> {
        self.check_blocks(data)?;
        self.imp.decrypt_blocks(data);
        Ok(())
    }
}

/// A mode or stream-cipher handle (`xts(aes)`, `ctr(aes)`).
pub struct Skcipher {
    imp: Box<dyn SkcipherImpl>,
    common: Common,
}

impl Skcipher {
    /// Builds a handle straight from a description, outside the registry's bookkeeping.
    pub fn from_info(info: Arc<DriverInfo>, host: &HostFeatures) -> Result<Skcipher> {
        Self::build(info, host, None)
    }

    pub(crate) fn build(
        info: Arc<DriverInfo>,
        host: &HostFeatures,
        guard: Option<HandleGuard>,
    ) -> Result<Skcipher> {
        let Factory::Skcipher(f) = &info.factory() else {
            return Err(wrong_type(&info, "skcipher"));
        };
        Ok(Skcipher {
            imp: f(host)?,
            common: Common {
                info,
                keyed: false,
                _guard: guard,
            },
        })
    }

    handle_accessors!();

    /// IV size in bytes.
    pub fn iv_size(&self) -> usize {
        self.common.info.iv_size()
    }

    /// Sets the key. For XTS this is both halves; equal halves are refused.
    pub fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.common.keyed = false;
        self.common.check_key_range(key)?;
        self.imp.set_key(key)?;
        self.common.keyed = true;
        Ok(())
    }

    /// Encrypts one contiguous buffer in place: the common path, with no walker.
    pub fn encrypt_in_place(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.common.check_iv(iv)?;
        self.imp.encrypt(iv, data)
    }

    /// Decrypts one contiguous buffer in place.
    pub fn decrypt_in_place(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.common.check_iv(iv)?;
        self.imp.decrypt(iv, data)
    }

    /// Encrypts a request scattered over `segs`, in place.
    pub fn encrypt_segments(&self, iv: &[u8], segs: &mut [&mut [u8]]) -> Result<()> {
        self.crypt_segments(Direction::Encrypt, iv, segs)
    }

    /// Decrypts a request scattered over `segs`, in place.
    pub fn decrypt_segments(&self, iv: &[u8], segs: &mut [&mut [u8]]) -> Result<()> {
        self.crypt_segments(Direction::Decrypt, iv, segs)
    }

    /// Encrypts from `src` segments into `dst` segments (out of place; the two lists may
    /// be divided differently but must hold the same number of bytes).
    pub fn encrypt_to(&self, iv: &[u8], src: &[&[u8]], dst: &mut [&mut [u8]]) -> Result<()> {
        self.crypt_to(Direction::Encrypt, iv, src, dst)
    }

    /// Decrypts from `src` segments into `dst` segments.
    pub fn decrypt_to(&self, iv: &[u8], src: &[&[u8]], dst: &mut [&mut [u8]]) -> Result<()> {
        self.crypt_to(Direction::Decrypt, iv, src, dst)
    }

    /// Either direction over in-place segments.
    pub fn crypt_segments(&self, dir: Direction, iv: &[u8], segs: &mut [&mut [u8]]) -> Result<()> {
        self.common.check_iv(iv)?;
        if let [one] = segs {
            return match dir {
                Direction::Encrypt => self.imp.encrypt(iv, one),
                Direction::Decrypt => self.imp.decrypt(iv, one),
            };
        }
        walk_in_place(self.imp.as_ref(), dir, iv, segs)
    }

    /// Either direction, out of place. The length checks happen before anything is
    /// written, so a refused request leaves `dst` untouched.
    pub fn crypt_to(
        &self,
        dir: Direction,
        iv: &[u8],
        src: &[&[u8]],
        dst: &mut [&mut [u8]],
    ) -> Result<()> {
        self.common.check_iv(iv)?;
        let src_len: usize = src.iter().map(|s| s.len()).sum();
        let dst_len = total_len(dst);
        if src_len != dst_len {
            return Err(Error::LengthMismatch {
                src: src_len,
                dst: dst_len,
            });
        }
        self.imp.tail_len(src_len)?;
        copy_segments(src, dst);
        self.crypt_segments(dir, iv, dst)
    }
}

/// An AEAD handle. On a failed `open` the buffer is wiped: no partial plaintext escapes.
pub struct Aead {
    imp: Box<dyn AeadImpl>,
    common: Common,
}

impl Aead {
    /// Builds a handle straight from a description, outside the registry's bookkeeping.
    pub fn from_info(info: Arc<DriverInfo>, host: &HostFeatures) -> Result<Aead> {
        Self::build(info, host, None)
    }

    pub(crate) fn build(
        info: Arc<DriverInfo>,
        host: &HostFeatures,
        guard: Option<HandleGuard>,
    ) -> Result<Aead> {
        let Factory::Aead(f) = &info.factory() else {
            return Err(wrong_type(&info, "aead"));
        };
        Ok(Aead {
            imp: f(host)?,
            common: Common {
                info,
                keyed: false,
                _guard: guard,
            },
        })
    }

    handle_accessors!();

    /// Sets the key.
    pub fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.common.keyed = false;
        self.common.check_key_range(key)?;
        self.imp.set_key(key)?;
        self.common.keyed = true;
        Ok(())
    }

    /// Encrypts `data` in place and writes the detached tag.
    pub fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &mut [u8]) -> Result<()> {
        self.common.check_iv(nonce)?;
        self.imp.seal(nonce, aad, data, tag)
    }

    /// Verifies the tag and decrypts in place; on failure `data` is zeroed.
    pub fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        self.common.check_iv(nonce)?;
        let r = self.imp.open(nonce, aad, data, tag);
        if r.is_err() {
            data.fill(0);
        }
        r
    }
}

/// A digest or MAC handle.
pub struct Hash {
    imp: Box<dyn HashImpl>,
    common: Common,
}

impl Hash {
    /// Builds a handle straight from a description, outside the registry's bookkeeping.
    pub fn from_info(info: Arc<DriverInfo>, host: &HostFeatures) -> Result<Hash> {
        Self::build(info, host, None)
    }

    pub(crate) fn build(
        info: Arc<DriverInfo>,
        host: &HostFeatures,
        guard: Option<HandleGuard>,
    ) -> Result<Hash> {
        let Factory::Hash(f) = &info.factory() else {
            return Err(wrong_type(&info, "hash"));
        };
        Ok(Hash {
            imp: f(host)?,
            common: Common {
                info,
                keyed: true,
                _guard: guard,
            },
        })
    }

    handle_accessors!();

    /// Sets a MAC key.
    pub fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.imp.set_key(key)
    }

    /// Starts a running computation.
    pub fn init(&self) -> Box<dyn HashState> {
        self.imp.init()
    }

    /// One-shot digest into `out` (digest size bytes).
    pub fn digest(&self, data: &[u8], out: &mut [u8]) -> Result<()> {
        if out.len() != self.common.info.out_size() {
            return Err(Error::InvalidLength {
                len: out.len(),
                reason: "output is not the digest size",
            });
        }
        let mut st = self.imp.init();
        st.update(data);
        st.finalize(out);
        Ok(())
    }
}
