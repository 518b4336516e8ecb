//! The typed handles users hold. A handle owns its own driver instance (and so its own
//! key schedule), is `Send + Sync`, and keeps working whatever happens to priorities in
//! the registry afterwards.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use crate::alg::{DriverInfo, Factory};
use crate::error::{Error, Result};
use crate::host::HostFeatures;
use crate::stats::{DriverStats, HandleCell};
use crate::traits::{BlockCipherImpl, SkcipherImpl};
use crate::walk::{walk_in_place, walk_to, Direction};
use zeroize::Zeroizing;

/// A registry handle's link to its entry: the handle's own counter cell (registered in
/// the entry's [`DriverStats`], folded in on drop) and the generation it was resolved
/// under.
pub(crate) struct HandleGuard {
    stats: Arc<DriverStats>,
    cell: Arc<HandleCell>,
    id: u64,
    generation: u64,
    current: Arc<AtomicU64>,
}

impl HandleGuard {
    pub(crate) fn new(
        stats: &Arc<DriverStats>,
        generation: u64,
        current: &Arc<AtomicU64>,
    ) -> HandleGuard {
        let cell = Arc::new(HandleCell::default());
        let id = stats.register(&cell);
        HandleGuard {
            stats: Arc::clone(stats),
            cell,
            id,
            generation,
            current: Arc::clone(current),
        }
    }

    /// The guard of a clone: a new allocation of the same entry (refcnt + 1) under the
    /// same generation, so `is_current()` answers for the clone as for the original.
    fn duplicate(&self) -> HandleGuard {
        HandleGuard::new(&self.stats, self.generation, &self.current)
    }
}

impl Drop for HandleGuard {
    fn drop(&mut self) {
        self.stats.retire(self.id);
    }
}

/// What every handle carries besides its driver instance.
struct Common {
    info: Arc<DriverInfo>,
    keyed: bool,
    guard: Option<HandleGuard>,
    /// The features the driver instance was built for (the registry's token, with the
    /// operator's mask), so a clone builds its own instance for the same ones.
    host: HostFeatures,
    /// The last key set, kept only so that `Clone` can key the clone's own instance (a
    /// driver's schedule cannot be copied through `dyn`); zeroized when replaced, when
    /// a `set_key` fails and on drop.
    key: Option<Zeroizing<Vec<u8>>>,
}

/// Why rebuilding a handle's driver instance for a clone cannot fail: the original was
/// built by the same factory for the same features and keyed with the same key.
pub(crate) const CLONE_REBUILDS: &str = "a clone's driver instance is built as the original's was";

impl Common {
    fn new(
        info: Arc<DriverInfo>,
        keyed: bool,
        host: &HostFeatures,
        guard: Option<HandleGuard>,
    ) -> Common {
        Common {
            info,
            keyed,
            guard,
            host: *host,
            key: None,
        }
    }

    /// Keys the handle through `set` (the driver's own `set_key`): unkeyed, with no key
    /// kept, until the range check and the driver accept `key`; then keyed, with the copy
    /// `Clone` needs. A refused key leaves the handle unkeyed, as the kernel's `setkey`
    /// does.
    fn set_key(&mut self, key: &[u8], set: impl FnOnce(&[u8]) -> Result<()>) -> Result<()> {
        self.keyed = false;
        self.key = None;
        self.check_key_range(key)?;
        set(key)?;
        self.keyed = true;
        self.key = Some(Zeroizing::new(key.to_vec()));
        Ok(())
    }

    /// The common part of a clone: the same driver, key state and features, its own
    /// counter cell (one more allocation of the entry) under the same generation.
    fn duplicate(&self) -> Common {
        Common {
            info: Arc::clone(&self.info),
            keyed: self.keyed,
            guard: self.guard.as_ref().map(HandleGuard::duplicate),
            host: self.host,
            key: self.key.clone(),
        }
    }

    /// Counts one request on this handle's own cell (nothing for handles built outside
    /// the registry).
    #[inline(always)]
    fn count(&self, bytes: usize) {
        if let Some(g) = &self.guard {
            g.cell.count(bytes);
        }
    }

    fn cell(&self) -> Option<Arc<HandleCell>> {
        self.guard.as_ref().map(|g| Arc::clone(&g.cell))
    }

    /// The fields every handle's `Debug` shows: names, generation and whether a key is
    /// set; never the key, its schedule or any other state of the driver.
    fn debug_struct<'a, 'b>(
        &self,
        f: &'a mut std::fmt::Formatter<'b>,
        name: &str,
    ) -> std::fmt::DebugStruct<'a, 'b> {
        let mut d = f.debug_struct(name);
        d.field("driver", &self.info.driver())
            .field("algorithm", &self.info.name())
            .field(
                "generation",
                &self.guard.as_ref().map_or(0, |g| g.generation),
            )
            .field("keyed", &self.keyed);
        d
    }

    /// Refuses a length outside the record's declared range before the driver sees it;
    /// the driver itself refuses the lengths inside it that it does not take (and names
    /// the exact ones).
    fn check_key_range(&self, key: &[u8]) -> Result<()> {
        let (min, max) = (self.info.sizes().min_key, self.info.sizes().max_key);
        if key.len() < min || key.len() > max {
            return Err(Error::InvalidKeyLength {
                driver: self.info.driver().to_string(),
                len: key.len(),
                valid: crate::KeyLengths::range(min, max),
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
        /// The registry generation this handle was resolved under (0 for a handle built
        /// with `driver::build_*`, outside the registry). See [`Self::is_current`].
        pub fn generation(&self) -> u64 {
            self.common.guard.as_ref().map_or(0, |g| g.generation)
        }
        /// Whether no priority, disable or enable change has happened in the registry
        /// since this handle was allocated: `false` means a new allocation *may* get
        /// another driver. The handle keeps working either way; re-allocate when you
        /// choose. One atomic load; always `false` for a handle built with
        /// `driver::build_*`.
        pub fn is_current(&self) -> bool {
            self.common.guard.as_ref().is_some_and(|g| {
                g.current.load(std::sync::atomic::Ordering::Acquire) == g.generation
            })
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

/// `Debug` for a handle: driver and algorithm names, the generation it was resolved
/// under and whether it is keyed (`Skcipher { driver: "xts-aes-aesni", algorithm:
/// "xts(aes)", generation: 1, keyed: true }`). Never key material: the driver instance,
/// which holds the key schedule, is not printed.
macro_rules! handle_debug {
    ($ty:ident) => {
        impl std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.common.debug_struct(f, stringify!($ty)).finish()
            }
        }
    };
}

handle_debug!(Cipher);
handle_debug!(Skcipher);

/// `Clone` for a handle type (`$factory`: its `Factory` variant; `$field`: the handle's
/// own plain fields besides `imp` and `common`). What a clone is: the impl's docs.
macro_rules! handle_clone {
    ($ty:ident, $factory:ident $(, $field:ident)*) => {
        /// A second handle on the same driver: its own driver instance, built for the same
        /// features and keyed with the same key (the handle's kept copy, zeroized with it)
        /// and tag size; one more allocation (`refcnt` + 1) under the original's generation,
        /// so `is_current()` answers alike. Like the original, it keeps its driver after an
        /// operator's change, a disable included: it is a copy of a handle already out.
        ///
        /// **The clone is the same key.** An AEAD nonce used on one may never be used on
        /// the other: share one nonce source between them, never one per clone.
        ///
        /// Rebuilding cannot fail for the registry's drivers (their constructors and
        /// `set_key` answer the same for the same features and key). A driver registered
        /// through `cryptoreg::driver` must keep to that too: a constructor or `set_key`
        /// that refuses the second time makes `clone` panic.
        impl Clone for $ty {
            fn clone(&self) -> $ty {
                let Factory::$factory(f) = &self.common.info.factory() else {
                    unreachable!("{}", $crate::handle::CLONE_REBUILDS);
                };
                let mut imp = f(&self.common.host).expect($crate::handle::CLONE_REBUILDS);
                if let Some(key) = &self.common.key {
                    imp.set_key(key).expect($crate::handle::CLONE_REBUILDS);
                }
                $ty {
                    imp,
                    common: self.common.duplicate(),
                    $($field: self.$field,)*
                }
            }
        }
    };
}

handle_clone!(Cipher, Cipher);
handle_clone!(Skcipher, Skcipher);

// After the macros above: the AEAD and hash handles use them (textual macro scope).
mod aead;
mod hash;

pub use aead::Aead;
pub use hash::{Hash, HashRequest};

/// A single-block cipher handle (`aes`).
pub struct Cipher {
    imp: Box<dyn BlockCipherImpl>,
    common: Common,
}

impl Cipher {
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
            common: Common::new(info, false, host, guard),
        })
    }

    handle_accessors!();

    /// Sets the key.
    pub fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.common.set_key(key, |k| self.imp.set_key(k))
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
        self.common.count(data.len());
        self.imp.encrypt_blocks(data);
        Ok(())
    }

    /// Decrypts whole blocks in place.
    pub fn decrypt_blocks(&self, data: &mut [u8]) -> Result<()> {
        self.check_blocks(data)?;
        self.common.count(data.len());
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
            common: Common::new(info, false, host, guard),
        })
    }

    handle_accessors!();

    /// IV size in bytes.
    pub fn iv_size(&self) -> usize {
        self.common.info.iv_size()
    }

    /// Sets the key. For XTS this is both halves; equal halves are refused.
    pub fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.common.set_key(key, |k| self.imp.set_key(k))
    }

    /// Encrypts one contiguous buffer in place: the common path, with no walker.
    pub fn encrypt_in_place(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.common.check_iv(iv)?;
        self.common.count(data.len());
        self.imp.encrypt(iv, data)
    }

    /// Decrypts one contiguous buffer in place.
    pub fn decrypt_in_place(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.common.check_iv(iv)?;
        self.common.count(data.len());
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
        self.common.count(segs.iter().map(|s| s.len()).sum());
        if let [one] = segs {
            return match dir {
                Direction::Encrypt => self.imp.encrypt(iv, one),
                Direction::Decrypt => self.imp.decrypt(iv, one),
            };
        }
        walk_in_place(self.imp.as_ref(), dir, iv, segs)
    }

    /// Either direction, out of place: the walker hands the driver (source, destination)
    /// runs, so nothing is copied first. The length checks happen before anything is
    /// written, so a refused request leaves `dst` untouched.
    pub fn crypt_to(
        &self,
        dir: Direction,
        iv: &[u8],
        src: &[&[u8]],
        dst: &mut [&mut [u8]],
    ) -> Result<()> {
        self.common.check_iv(iv)?;
        self.common.count(src.iter().map(|s| s.len()).sum());
        if let ([s], [d]) = (src, &mut *dst) {
            if s.len() == d.len() {
                // The common out-of-place case: one buffer each, no walker.
                return match dir {
                    Direction::Encrypt => self.imp.encrypt_to(iv, s, d),
                    Direction::Decrypt => self.imp.decrypt_to(iv, s, d),
                };
            }
        }
        walk_to(self.imp.as_ref(), dir, iv, src, dst)
    }
}

// ---------------------------------------------------------------------------------------
// Handles outside the registry: the driver author's API (`cryptoreg::driver`).

/// Builds a block-cipher handle straight from a driver description, outside the
/// registry's bookkeeping: not counted in `stats`, no generation, no self-test gate (the
/// self-test runner builds the driver under test this way).
///
/// `token` decides which instructions the driver may use, and the driver's constructor
/// refuses a description whose features it lacks. Pass [`Registry::host_token`]
/// (this machine's features less the operator's `[cpu] disable` mask, limited to the
/// planned CPU) to stay within what the operator allowed;
/// [`HostFeatures::detect`] ignores any operator mask and only guarantees that the CPU
/// has the instructions.
///
/// [`Registry::host_token`]: crate::Registry::host_token
pub fn build_cipher(info: Arc<DriverInfo>, token: &HostFeatures) -> Result<Cipher> {
    Cipher::build(info, token, None)
}

/// An skcipher handle outside the registry; see [`build_cipher`] for the token.
pub fn build_skcipher(info: Arc<DriverInfo>, token: &HostFeatures) -> Result<Skcipher> {
    Skcipher::build(info, token, None)
}

/// An AEAD handle outside the registry; see [`build_cipher`] for the token.
pub fn build_aead(info: Arc<DriverInfo>, token: &HostFeatures) -> Result<Aead> {
    Aead::build(info, token, None)
}

/// A hash handle outside the registry; see [`build_cipher`] for the token.
pub fn build_hash(info: Arc<DriverInfo>, token: &HostFeatures) -> Result<Hash> {
    Hash::build(info, token, None)
}
