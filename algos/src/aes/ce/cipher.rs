//! `aes-ce` (priority 250, as `aes_alg` in the kernel's arch/arm64/crypto/aes-ce-glue.c,
//! torvalds/linux): the single-block cipher on the Crypto Extensions, for templates that
//! wrap `aes`, and the ECB kernels `ecb-aes-ce` shares.

use cryptoreg_registry::{BlockCipherImpl, ChainState, Error, HostFeatures, InOut, Result};

use super::key_schedule::{expand_into, CeRoundKeys};
use super::rounds::Keys;
use crate::aarch64::neon::{load_at, load_n, store_at, store_n};
use crate::aarch64::token::AesCe;

/// Blocks in flight in the wide loops.
pub(crate) const LANES: usize = 4;

/// Bytes per wide iteration.
pub(crate) const WIDE: usize = LANES * 16;

/// Copies a 16-byte IV into a chaining state; any other length is
/// [`Error::InvalidIvLength`].
pub(crate) fn iv16(iv: &[u8]) -> Result<ChainState> {
    iv.try_into().map_err(|_| Error::InvalidIvLength {
        len: iv.len(),
        expected: 16,
    })
}

/// ECB over the whole blocks of `io` (a trailing partial block is left alone), four at a
/// time, in either direction.
///
/// # Safety
/// The CPU must have the AES instructions.
#[target_feature(enable = "aes")]
pub(crate) unsafe fn ecb_crypt(ks: &CeRoundKeys, decrypt: bool, mut io: InOut<'_>) {
    // SAFETY: this kernel's contract: AES is present.
    let keys = unsafe {
        if decrypt {
            Keys::dec(ks)
        } else {
            Keys::enc(ks)
        }
    };
    let (len, mut off) = (io.len(), 0);
    while len - off >= WIDE {
        let b = load_n::<LANES>(&io, off);
        let b = if decrypt {
            keys.decrypt_n(b)
        } else {
            keys.encrypt_n(b)
        };
        store_n(&mut io, off, &b);
        off += WIDE;
    }
    while len - off >= 16 {
        let b = load_at(&io, off);
        let b = if decrypt {
            keys.decrypt1(b)
        } else {
            keys.encrypt1(b)
        };
        store_at(&mut io, off, b);
        off += 16;
    }
}

const DRIVER: &str = "aes-ce";

/// `aes-ce`: the single-block cipher.
pub(crate) struct AesCeCipher {
    /// Proves AES and Advanced SIMD: what makes the `unsafe` entry calls sound.
    token: AesCe,
    keys: CeRoundKeys,
}

impl BlockCipherImpl for AesCeCipher {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        expand_into(self.token, DRIVER, key, &mut self.keys)
    }

    fn encrypt_blocks(&self, data: &mut [u8]) {
        debug_assert_eq!(data.len() % 16, 0);
        // SAFETY: `self.token` proves the AES instructions.
        unsafe { ecb_crypt(&self.keys, false, InOut::InPlace(data)) }
    }

    fn decrypt_blocks(&self, data: &mut [u8]) {
        debug_assert_eq!(data.len() % 16, 0);
        // SAFETY: as in `encrypt_blocks`.
        unsafe { ecb_crypt(&self.keys, true, InOut::InPlace(data)) }
    }
}

/// Builds an unkeyed `aes-ce`, or refuses without AES/Advanced SIMD.
pub(crate) fn new_aes_ce(host: &HostFeatures) -> Result<Box<dyn BlockCipherImpl>> {
    Ok(Box::new(AesCeCipher {
        token: AesCe::new(host, DRIVER)?,
        keys: CeRoundKeys::empty(),
    }))
}
