//! `xts(aes)` for storage, as a sector API (`cipher` 0.5 has no XTS trait): the rules
//! are on the types' documentation, [`Aes128Xts`]. Every refusal is decided by
//! [`check_sector`] / [`check_area`] before the handle is called, so a refused call
//! writes nothing; the handle keeps the only copy of the key, and wipes it.

use cipher::consts::{U32, U64};
use cipher::{Key, KeySizeUser};

use crate::{Direction, Error, Registry, Result, Skcipher};

/// The AES block, and so the shortest XTS data unit.
const BLOCK: usize = 16;

/// The tweak of sector number `sector` in the area functions: its 16 bytes little-endian
/// (`xts-mode`'s `get_tweak_default`; dm-crypt's `plain64` IV for numbers below 2^64).
pub fn sector_tweak(sector: u128) -> [u8; 16] {
    sector.to_le_bytes()
}

/// Refuses a data unit XTS cannot process: one under a block.
fn check_sector(len: usize) -> Result<()> {
    if len < BLOCK {
        return Err(Error::InvalidLength {
            len,
            reason: "an XTS sector needs at least one 16-byte block",
        });
    }
    Ok(())
}

/// Refuses an area before any of it is written: a sector size under a block, a last
/// (short) sector under a block, or sector numbers that pass `u128::MAX`. An empty area
/// is zero sectors, and accepted.
fn check_area(len: usize, sector_size: usize, first_sector: u128) -> Result<()> {
    if sector_size < BLOCK {
        return Err(Error::InvalidLength {
            len: sector_size,
            reason: "an XTS sector size must be at least 16 bytes",
        });
    }
    let tail = len % sector_size;
    if tail != 0 && tail < BLOCK {
        return Err(Error::InvalidLength {
            len,
            reason: "the area's last sector is shorter than 16 bytes",
        });
    }
    let sectors = len.div_ceil(sector_size) as u128;
    if sectors > 0 && first_sector.checked_add(sectors - 1).is_none() {
        return Err(Error::InvalidLength {
            len,
            reason: "the area's sector numbers pass 2^128 - 1",
        });
    }
    Ok(())
}

/// The handle, shared by the two key sizes.
struct Xts {
    skcipher: Skcipher,
}

impl Xts {
    fn new(registry: &Registry, name: &str, key: &[u8]) -> Result<Xts> {
        let mut skcipher = registry.alloc_skcipher(name)?;
        super::check_algorithm(skcipher.algorithm_name(), "xts(aes)", name)?;
        skcipher.set_key(key)?;
        Ok(Xts { skcipher })
    }

    fn sector(&self, dir: Direction, buf: &mut [u8], tweak: &[u8; 16]) -> Result<()> {
        check_sector(buf.len())?;
        match dir {
            Direction::Encrypt => self.skcipher.encrypt_in_place(tweak, buf),
            Direction::Decrypt => self.skcipher.decrypt_in_place(tweak, buf),
        }
    }

    /// After [`check_area`] passed, no sector can be refused (each is at least a block,
    /// the tweak is 16 bytes, the handle is keyed), so an area is written whole or not
    /// at all.
    fn area(
        &self,
        dir: Direction,
        area: &mut [u8],
        sector_size: usize,
        first_sector: u128,
    ) -> Result<()> {
        check_area(area.len(), sector_size, first_sector)?;
        for (i, buf) in area.chunks_mut(sector_size).enumerate() {
            // In range: `check_area` saw that the last number fits (and a `RangeFrom`
            // would overflow computing the successor of `u128::MAX`).
            let sector = first_sector + i as u128;
            self.sector(dir, buf, &sector_tweak(sector))?;
        }
        Ok(())
    }
}

macro_rules! xts_adapter {
    ($name:ident, $key:ty, $bits:literal, $klen:literal) => {
        #[doc = concat!("XTS-AES-", $bits, " from the registry's `xts(aes)`, in place of `xts_mode::Xts128<aes::Aes", $bits, ">`: a ", $klen, "-byte key, the data key then the tweak key (IEEE 1619's and the kernel's order).")]
        ///
        /// `cipher` 0.5 has no XTS trait (its `TweakBlockCipher*` traits are one-block
        /// tweakable ciphers, not XTS data units with ciphertext stealing), so this is a
        /// sector API in the shape of the `xts-mode` crate's:
        ///
        /// * `encrypt_sector` / `decrypt_sector` process one data unit of at least 16
        ///   bytes (ciphertext stealing when it is not a multiple of 16) under the tweak
        ///   given;
        /// * `encrypt_area` / `decrypt_area` split a buffer into sectors of `sector_size`
        ///   bytes numbered from `first_sector`, sector `n` under [`sector_tweak`]`(n)`:
        ///   the number as 16 bytes little-endian, which is `xts-mode`'s
        ///   `get_tweak_default` and dm-crypt's `plain64` IV.
        ///
        /// Refusals are error values decided before anything is written, so a refused
        /// call leaves the buffer as it was: a sector under 16 bytes, a sector size under
        /// 16, an area whose last (short) sector is under 16 bytes, sector numbers past
        /// 2^128 - 1 ([`Error::InvalidLength`]); equal key halves at construction
        /// ([`Error::WeakKey`], SP 800-38E). The registry handle keeps the only copy of
        /// the key, and wipes it.
        ///
        /// ```
        #[doc = concat!("use cryptoreg::rustcrypto::", stringify!($name), ";")]
        /// # fn main() -> cryptoreg::Result<()> {
        #[doc = concat!("let key: [u8; ", $klen, "] = std::array::from_fn(|i| i as u8);")]
        #[doc = concat!("let xts = ", stringify!($name), "::try_new(&key.into())?;")]
        /// let mut disk = vec![0u8; 4 * 512];
        /// xts.encrypt_area(&mut disk, 512, 1000)?; // sectors 1000..1004
        /// // The same as one call per sector with its plain64 tweak:
        /// let mut third = vec![0u8; 512];
        /// xts.encrypt_sector(&mut third, cryptoreg::rustcrypto::sector_tweak(1002))?;
        /// assert_eq!(&disk[1024..1536], &third[..]);
        /// xts.decrypt_area(&mut disk, 512, 1000)?;
        /// assert_eq!(disk, vec![0u8; 4 * 512]);
        /// // Refusals are errors, and write nothing.
        /// assert!(xts.encrypt_sector(&mut [0u8; 15], [0; 16]).is_err());
        /// # Ok(()) }
        /// ```
        pub struct $name {
            xts: Xts,
        }

        impl $name {
            /// Allocates `xts(aes)` from `registry` and sets the key; equal halves are
            /// refused ([`Error::WeakKey`]).
            pub fn with_registry(registry: &Registry, key: &Key<Self>) -> Result<Self> {
                Self::with_driver(registry, "xts(aes)", key)
            }

            /// Allocates one driver of `xts(aes)` by its driver name (`xts-aes-aesni`; an
            /// exact driver name wins outright, as everywhere in the registry).
            pub fn with_driver(registry: &Registry, driver: &str, key: &Key<Self>) -> Result<Self> {
                Ok(Self {
                    xts: Xts::new(registry, driver, key)?,
                })
            }

            /// [`Self::with_registry`] over the process-default registry.
            pub fn try_new(key: &Key<Self>) -> Result<Self> {
                Self::with_registry(&*crate::registry()?, key)
            }

            /// The registry handle underneath (driver name, `is_current`, ...).
            pub fn handle(&self) -> &Skcipher {
                &self.xts.skcipher
            }

            /// Encrypts one data unit (at least 16 bytes) in place under `tweak`. A
            /// refused length writes nothing.
            pub fn encrypt_sector(&self, buf: &mut [u8], tweak: [u8; 16]) -> Result<()> {
                self.xts.sector(Direction::Encrypt, buf, &tweak)
            }

            /// Decrypts one data unit (at least 16 bytes) in place under `tweak`. A
            /// refused length writes nothing.
            pub fn decrypt_sector(&self, buf: &mut [u8], tweak: [u8; 16]) -> Result<()> {
                self.xts.sector(Direction::Decrypt, buf, &tweak)
            }

            /// Encrypts `area` in place as consecutive sectors of `sector_size` bytes
            /// (the last may be shorter, but at least 16 bytes) numbered from
            /// `first_sector`, sector `n` under [`sector_tweak`]`(n)`. The same as
            /// [`Self::encrypt_sector`] on each sector; a refused area writes nothing.
            pub fn encrypt_area(&self, area: &mut [u8], sector_size: usize, first_sector: u128) -> Result<()> {
                self.xts.area(Direction::Encrypt, area, sector_size, first_sector)
            }

            /// Decrypts an area [`Self::encrypt_area`] wrote, with the same sector size
            /// and first sector; a refused area writes nothing.
            pub fn decrypt_area(&self, area: &mut [u8], sector_size: usize, first_sector: u128) -> Result<()> {
                self.xts.area(Direction::Decrypt, area, sector_size, first_sector)
            }
        }

        /// So that `Key<Self>` names the key type (and `Key::<Self>::generate()` works
        /// with the `getrandom` feature).
        impl KeySizeUser for $name {
            type KeySize = $key;
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("driver", &self.xts.skcipher.driver_name())
                    .finish_non_exhaustive()
            }
        }
    };
}

xts_adapter!(Aes128Xts, U32, "128", "32");
xts_adapter!(Aes256Xts, U64, "256", "64");
