//! `aes` as a RustCrypto block cipher: `BlockCipherEncrypt` / `BlockCipherDecrypt` over a
//! registry [`Cipher`] handle. Blocks go to the driver eight at a time, so a multi-block
//! driver (AES-NI, VAES) keeps several in flight.

use cipher::consts::{U16, U24, U32, U8};
use cipher::{
    Array, Block, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherDecrypt,
    BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, InOut,
    InOutBuf, Key, KeyInit, KeySizeUser, ParBlocks, ParBlocksSizeUser,
};

use crate::{Cipher, Registry, Result};

/// Runs one direction of the handle over whole 16-byte blocks, in place. The handle was
/// keyed when the adapter was built and every slice here is whole blocks, so the
/// handle's only errors (no key, partial block) cannot occur.
fn crypt(cipher: &Cipher, encrypt: bool, data: &mut [u8]) {
    let r = if encrypt {
        cipher.encrypt_blocks(data)
    } else {
        cipher.decrypt_blocks(data)
    };
    debug_assert!(r.is_ok(), "keyed handle refused whole blocks: {r:?}");
}

/// The backend handed to the `cipher` crate's closures: a borrowed handle.
struct Backend<'a> {
    cipher: &'a Cipher,
}

impl BlockSizeUser for Backend<'_> {
    type BlockSize = U16;
}

impl ParBlocksSizeUser for Backend<'_> {
    type ParBlocksSize = U8;
}

impl BlockCipherEncBackend for Backend<'_> {
    fn encrypt_block(&self, block: InOut<'_, '_, Block<Self>>) {
        crypt(self.cipher, true, block.into_out_with_copied_in());
    }
    fn encrypt_par_blocks(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
        crypt(
            self.cipher,
            true,
            blocks.into_out_with_copied_in().as_flattened_mut(),
        );
    }
    fn encrypt_tail_blocks(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
        let out = blocks.into_out_with_copied_in();
        crypt(self.cipher, true, Array::slice_as_flattened_mut(out));
    }
}

impl BlockCipherDecBackend for Backend<'_> {
    fn decrypt_block(&self, block: InOut<'_, '_, Block<Self>>) {
        crypt(self.cipher, false, block.into_out_with_copied_in());
    }
    fn decrypt_par_blocks(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
        crypt(
            self.cipher,
            false,
            blocks.into_out_with_copied_in().as_flattened_mut(),
        );
    }
    fn decrypt_tail_blocks(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
        let out = blocks.into_out_with_copied_in();
        crypt(self.cipher, false, Array::slice_as_flattened_mut(out));
    }
}

macro_rules! aes_adapter {
    ($name:ident, $key:ty, $bits:literal) => {
        #[doc = concat!("AES-", $bits, " from the registry's `aes`, in place of `aes::", stringify!($name), "`.")]
        pub struct $name {
            cipher: Cipher,
        }

        impl $name {
            /// Allocates `aes` from `registry` and sets the key.
            pub fn with_registry(registry: &Registry, key: &Key<Self>) -> Result<Self> {
                Self::with_driver(registry, "aes", key)
            }

            /// Allocates one driver of `aes` by its driver name (`aes-aesni`).
            pub fn with_driver(registry: &Registry, driver: &str, key: &Key<Self>) -> Result<Self> {
                let mut cipher = registry.alloc_cipher(driver)?;
                super::check_algorithm(cipher.algorithm_name(), "aes", driver)?;
                cipher.set_key(key)?;
                Ok(Self { cipher })
            }

            /// [`Self::with_registry`] over the process-default registry.
            pub fn try_new(key: &Key<Self>) -> Result<Self> {
                Self::with_registry(&*crate::registry()?, key)
            }

            /// The registry handle underneath (driver name, `is_current`, ...).
            pub fn handle(&self) -> &Cipher {
                &self.cipher
            }
        }

        impl KeySizeUser for $name {
            type KeySize = $key;
        }

        impl KeyInit for $name {
            /// # Panics
            /// If the process-default registry cannot serve `aes` (boot failed, every
            /// driver disabled): the block-cipher traits have no error channel. Use
            /// [`Self::try_new`] to get the error instead.
            fn new(key: &Key<Self>) -> Self {
                match Self::try_new(key) {
                    Ok(a) => a,
                    Err(e) => panic!("cryptoreg cannot serve aes: {e}"),
                }
            }
        }

        impl BlockSizeUser for $name {
            type BlockSize = U16;
        }

        impl BlockCipherEncrypt for $name {
            fn encrypt_with_backend(
                &self,
                f: impl BlockCipherEncClosure<BlockSize = Self::BlockSize>,
            ) {
                f.call(&Backend {
                    cipher: &self.cipher,
                });
            }
        }

        impl BlockCipherDecrypt for $name {
            fn decrypt_with_backend(
                &self,
                f: impl BlockCipherDecClosure<BlockSize = Self::BlockSize>,
            ) {
                f.call(&Backend {
                    cipher: &self.cipher,
                });
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("driver", &self.cipher.driver_name())
                    .finish_non_exhaustive()
            }
        }
    };
}

aes_adapter!(Aes128, U16, "128");
aes_adapter!(Aes192, U24, "192");
aes_adapter!(Aes256, U32, "256");
