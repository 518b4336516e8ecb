//! `ecb-aes-aesni`: ECB as an skcipher, eight blocks in flight.
//!
//! ECB has no chaining state and no tail: a request must be whole blocks.

use crate::modes::common::whole_blocks;
use cryptoreg_registry::{inventory, AlgDef, ChainState, Ctor, Result, SkcipherImpl};

use super::cipher::{assert_aesni, ecb_decrypt, ecb_encrypt, REQUIRES};
use super::key_schedule::{expand_key, AesRoundKeys};

const DRIVER: &str = "ecb-aes-aesni";

/// The driver: one key schedule, wiped on drop by [`AesRoundKeys`].
struct EcbAesni {
    keys: AesRoundKeys,
}

impl SkcipherImpl for EcbAesni {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.keys = expand_key(DRIVER, key)?;
        Ok(())
    }

    fn tail_len(&self, total: usize) -> Result<usize> {
        whole_blocks(total, "ECB needs a whole number of 16-byte blocks")
    }

    fn start(&self, _iv: &[u8], _state: &mut ChainState) -> Result<()> {
        Ok(())
    }

    fn encrypt_blocks(&self, _state: &mut ChainState, data: &mut [u8]) {
        // SAFETY: instances come only from `new_ecb`, which checked for AES-NI (and the
        // registry builds them only after checking `REQUIRES`).
        unsafe { ecb_encrypt(&self.keys, data) }
    }

    fn decrypt_blocks(&self, _state: &mut ChainState, data: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { ecb_decrypt(&self.keys, data) }
    }

    fn encrypt_tail(&self, _state: &mut ChainState, tail: &mut [u8]) {
        debug_assert!(tail.is_empty(), "ECB has no tail");
    }

    fn decrypt_tail(&self, _state: &mut ChainState, tail: &mut [u8]) {
        debug_assert!(tail.is_empty(), "ECB has no tail");
    }
}

/// Builds an unkeyed `ecb-aes-aesni`.
pub(crate) fn new_ecb() -> Box<dyn SkcipherImpl> {
    assert_aesni(DRIVER);
    Box::new(EcbAesni {
        keys: AesRoundKeys::empty(),
    })
}

inventory::submit! {
    AlgDef {
        name: "ecb(aes)",
        driver: DRIVER,
        priority: 400,
        requires: REQUIRES,
        uses_zmm: false,
        block_size: 16,
        min_key: 16,
        max_key: 32,
        iv_size: 0,
        out_size: 0,
        ctor: Ctor::Skcipher(new_ecb),
    }
}
