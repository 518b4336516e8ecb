//! `ctr(aes)` as a RustCrypto stream cipher, in place of `ctr::Ctr128BE<aes::Aes*>`: the
//! IV is the whole initial counter block, incremented as one 128-bit big-endian integer
//! (the kernel's `ctr(aes)` and `Ctr128BE` agree). The adapter keeps the keystream
//! position and hands the registry's handle the counter block for it, so seeking is free.

use cipher::consts::{U16, U24, U32};
use cipher::{
    InOutBuf, Iv, IvSizeUser, Key, KeyIvInit, KeySizeUser, OverflowError, SeekNum, StreamCipher,
    StreamCipherError, StreamCipherSeek,
};
use zeroize::Zeroize;

use crate::{Registry, Result, Skcipher};

const BLOCK: usize = 16;

/// The position and the handle, shared by the three key sizes.
struct CtrState {
    skcipher: Skcipher,
    /// The initial counter block, as an integer.
    iv: u128,
    /// Keystream blocks wholly or partly used.
    block: u128,
    /// Bytes used of the block `block` (0..16).
    byte: usize,
}

impl CtrState {
    fn new(registry: &Registry, name: &str, key: &[u8], iv: &[u8; BLOCK]) -> Result<CtrState> {
        let mut skcipher = registry.alloc_skcipher(name)?;
        super::check_algorithm(skcipher.algorithm_name(), "ctr(aes)", name)?;
        skcipher.set_key(key)?;
        Ok(CtrState {
            skcipher,
            iv: u128::from_be_bytes(*iv),
            block: 0,
            byte: 0,
        })
    }

    /// The block index after `len` more bytes, if it fits the counter.
    fn end_block(&self, len: usize) -> Option<u128> {
        let bytes = (self.byte as u128).checked_add(len as u128)?;
        self.block.checked_add(bytes / BLOCK as u128)
    }

    fn check(&self, len: usize) -> core::result::Result<(), StreamCipherError> {
        self.end_block(len).map(|_| ()).ok_or(StreamCipherError)
    }

    fn counter(&self, block: u128) -> [u8; BLOCK] {
        self.iv.wrapping_add(block).to_be_bytes()
    }

    /// Xors the keystream from the current position into `data` and advances. Called
    /// only after [`Self::check`] passed (the trait's `unchecked_*` contract). The handle
    /// was keyed at construction and the IV is 16 bytes, so it cannot refuse.
    fn apply(&mut self, data: &mut [u8]) {
        let sk = &self.skcipher;
        let mut data = data;
        if self.byte != 0 && !data.is_empty() {
            // Finish the partly used block: run it whole over a scratch copy.
            let n = (BLOCK - self.byte).min(data.len());
            let mut scratch = [0u8; BLOCK];
            scratch[self.byte..self.byte + n].copy_from_slice(&data[..n]);
            let r = sk.encrypt_in_place(&self.counter(self.block), &mut scratch);
            debug_assert!(r.is_ok(), "keyed ctr(aes) refused a block: {r:?}");
            data[..n].copy_from_slice(&scratch[self.byte..self.byte + n]);
            scratch.zeroize();
            self.byte += n;
            if self.byte == BLOCK {
                self.block = self.block.wrapping_add(1);
                self.byte = 0;
            }
            data = &mut data[n..];
        }
        if !data.is_empty() {
            let r = sk.encrypt_in_place(&self.counter(self.block), data);
            debug_assert!(r.is_ok(), "keyed ctr(aes) refused data: {r:?}");
            self.block = self.block.wrapping_add((data.len() / BLOCK) as u128);
            self.byte = data.len() % BLOCK;
        }
    }

    fn current_pos<T: SeekNum>(&self) -> core::result::Result<T, OverflowError> {
        // `SeekNum::from_block_byte(b, y, 16)` is `b * 16 - (16 - y)` with `y` in 1..=16.
        if self.byte == 0 {
            T::from_block_byte(self.block, BLOCK as u8, BLOCK as u8)
        } else {
            let next = self.block.checked_add(1).ok_or(OverflowError)?;
            T::from_block_byte(next, self.byte as u8, BLOCK as u8)
        }
    }

    fn seek<T: SeekNum>(&mut self, pos: T) -> core::result::Result<(), StreamCipherError> {
        let (block, byte): (u128, u8) = pos
            .into_block_byte(BLOCK as u8)
            .map_err(|_| StreamCipherError)?;
        self.block = block;
        self.byte = byte.into();
        Ok(())
    }
}

macro_rules! ctr_adapter {
    ($name:ident, $key:ty, $bits:literal) => {
        #[doc = concat!("AES-", $bits, " in CTR mode from the registry's `ctr(aes)`, in place of `ctr::Ctr128BE<aes::Aes", $bits, ">`.")]
        pub struct $name {
            state: CtrState,
        }

        impl $name {
            /// Allocates `ctr(aes)` from `registry`, sets the key, starts at `iv`.
            pub fn with_registry(registry: &Registry, key: &Key<Self>, iv: &Iv<Self>) -> Result<Self> {
                Self::with_driver(registry, "ctr(aes)", key, iv)
            }

            /// Allocates one driver of `ctr(aes)` by its driver name (`ctr-aes-aesni`).
            pub fn with_driver(registry: &Registry, driver: &str, key: &Key<Self>, iv: &Iv<Self>) -> Result<Self> {
                Ok(Self {
                    state: CtrState::new(registry, driver, key, &(*iv).into())?,
                })
            }

            /// [`Self::with_registry`] over the process-default registry.
            pub fn try_new(key: &Key<Self>, iv: &Iv<Self>) -> Result<Self> {
                Self::with_registry(&*crate::registry()?, key, iv)
            }

            /// The registry handle underneath (driver name, `is_current`, ...).
            pub fn handle(&self) -> &Skcipher {
                &self.state.skcipher
            }
        }

        impl KeySizeUser for $name {
            type KeySize = $key;
        }

        impl IvSizeUser for $name {
            type IvSize = U16;
        }

        impl KeyIvInit for $name {
            /// Over the process-default registry.
            ///
            /// # Panics
            /// If that registry cannot serve `ctr(aes)` (boot failed, every driver
            /// disabled). A stream that could not encrypt would pass data through
            /// unchanged on the traits' `unchecked_*` paths, so it is never built; use
            /// [`Self::try_new`] to get the error instead.
            fn new(key: &Key<Self>, iv: &Iv<Self>) -> Self {
                match Self::try_new(key, iv) {
                    Ok(c) => c,
                    Err(e) => panic!("cryptoreg cannot serve ctr(aes): {e}"),
                }
            }
        }

        impl StreamCipher for $name {
            fn check_remaining(&self, data_len: usize) -> core::result::Result<(), StreamCipherError> {
                self.state.check(data_len)
            }

            fn unchecked_apply_keystream_inout(&mut self, buf: InOutBuf<'_, '_, u8>) {
                self.state.apply(buf.into_out_with_copied_in());
            }

            fn unchecked_write_keystream(&mut self, buf: &mut [u8]) {
                buf.fill(0);
                self.state.apply(buf);
            }
        }

        impl StreamCipherSeek for $name {
            fn try_current_pos<T: SeekNum>(&self) -> core::result::Result<T, OverflowError> {
                self.state.current_pos()
            }

            fn try_seek<T: SeekNum>(&mut self, pos: T) -> core::result::Result<(), StreamCipherError> {
                self.state.seek(pos)
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("driver", &self.state.skcipher.driver_name())
                    .finish_non_exhaustive()
            }
        }
    };
}

ctr_adapter!(Aes128Ctr, U16, "128");
ctr_adapter!(Aes192Ctr, U24, "192");
ctr_adapter!(Aes256Ctr, U32, "256");
