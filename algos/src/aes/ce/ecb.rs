//! `ecb-aes-ce` (priority 300: `PRIO` with `MODE "ce"` in the kernel's
//! arch/arm64/crypto/aes-glue.c, torvalds/linux): ECB as an skcipher, four blocks in
//! flight. Whole blocks only; no chaining state, no tail.

use crate::templates::common::whole_blocks;
use cryptoreg_registry::{ChainState, HostFeatures, InOut, Result, SkcipherImpl};

use super::cipher::ecb_crypt;
use super::key_schedule::{expand_into, CeRoundKeys};
use crate::aarch64::token::AesCe;

const DRIVER: &str = "ecb-aes-ce";

/// The driver: one key schedule, wiped on drop.
struct EcbCe {
    /// Proves AES and Advanced SIMD: what makes the `unsafe` entry calls sound.
    token: AesCe,
    keys: CeRoundKeys,
}

impl EcbCe {
    fn run(&self, decrypt: bool, io: InOut<'_>) {
        // SAFETY: `self.token` proves the AES instructions.
        unsafe { ecb_crypt(&self.keys, decrypt, io) }
    }
}

impl SkcipherImpl for EcbCe {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        expand_into(self.token, DRIVER, key, &mut self.keys)
    }

    fn tail_len(&self, total: usize) -> Result<usize> {
        whole_blocks(total, "ECB needs a whole number of 16-byte blocks")
    }

    fn start(&self, _iv: &[u8], _state: &mut ChainState) -> Result<()> {
        Ok(())
    }

    fn encrypt_blocks(&self, _state: &mut ChainState, data: &mut [u8]) {
        self.run(false, InOut::InPlace(data));
    }

    fn decrypt_blocks(&self, _state: &mut ChainState, data: &mut [u8]) {
        self.run(true, InOut::InPlace(data));
    }

    fn encrypt_blocks_to(&self, _state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.run(false, InOut::Split { src, dst });
    }

    fn decrypt_blocks_to(&self, _state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.run(true, InOut::Split { src, dst });
    }

    fn encrypt_tail(&self, _state: &mut ChainState, tail: &mut [u8]) {
        debug_assert!(tail.is_empty(), "ECB has no tail");
    }

    fn decrypt_tail(&self, _state: &mut ChainState, tail: &mut [u8]) {
        debug_assert!(tail.is_empty(), "ECB has no tail");
    }

    fn encrypt_tail_to(&self, _state: &mut ChainState, src: &[u8], _dst: &mut [u8]) {
        debug_assert!(src.is_empty(), "ECB has no tail");
    }

    fn decrypt_tail_to(&self, _state: &mut ChainState, src: &[u8], _dst: &mut [u8]) {
        debug_assert!(src.is_empty(), "ECB has no tail");
    }
}

/// Builds an unkeyed `ecb-aes-ce`.
pub(crate) fn new_ecb(host: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    Ok(Box::new(EcbCe {
        token: AesCe::new(host, DRIVER)?,
        keys: CeRoundKeys::empty(),
    }))
}
