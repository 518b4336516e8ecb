//! `ecb-aes-aesni`: ECB as an skcipher, eight blocks in flight.
//!
//! ECB has no chaining state and no tail: a request must be whole blocks. Out of place,
//! blocks are read from the source and written to the destination in one pass.

use crate::templates::common::whole_blocks;
use crate::x86::inout::RawInOut;
use crate::x86::token::AesNi;
use cryptoreg_registry::{ChainState, HostFeatures, Result, SkcipherImpl};

use super::cipher::{ecb_decrypt, ecb_encrypt};
use crate::aes::x86::key_schedule::{expand_into, AesRoundKeys};

const DRIVER: &str = "ecb-aes-aesni";

/// The driver: one key schedule, wiped on drop by [`AesRoundKeys`].
struct EcbAesni {
    /// Proves AES-NI on this CPU: what makes the `unsafe` entry calls sound.
    _token: AesNi,
    keys: AesRoundKeys,
}

impl SkcipherImpl for EcbAesni {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        // In place into the field (wiped first, and left wiped on error).
        expand_into(self._token, DRIVER, key, &mut self.keys)
    }

    fn tail_len(&self, total: usize) -> Result<usize> {
        whole_blocks(total, "ECB needs a whole number of 16-byte blocks")
    }

    fn start(&self, _iv: &[u8], _state: &mut ChainState) -> Result<()> {
        Ok(())
    }

    fn encrypt_blocks(&self, _state: &mut ChainState, data: &mut [u8]) {
        // SAFETY: `self._token` proves AES-NI and SSE2, which is all the entry
        // functions are compiled for.
        unsafe { ecb_encrypt(&self.keys, RawInOut::in_place(data)) }
    }

    fn decrypt_blocks(&self, _state: &mut ChainState, data: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { ecb_decrypt(&self.keys, RawInOut::in_place(data)) }
    }

    fn encrypt_blocks_to(&self, _state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { ecb_encrypt(&self.keys, RawInOut::split(src, dst)) }
    }

    fn decrypt_blocks_to(&self, _state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { ecb_decrypt(&self.keys, RawInOut::split(src, dst)) }
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

/// Builds an unkeyed `ecb-aes-aesni`.
pub(crate) fn new_ecb(host: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    Ok(Box::new(EcbAesni {
        _token: AesNi::new(host, DRIVER)?,
        keys: AesRoundKeys::empty(),
    }))
}
