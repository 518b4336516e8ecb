//! The `cbc` template (SP 800-38A §6.2), as the kernel's `cbc(aes)`.
//!
//! Encryption is inherently serial (each block's input depends on the previous output),
//! so it calls the child once per block. Decryption is parallel: a batch of ciphertext is
//! copied aside, decrypted in one child call, then each block is xored with the ciphertext
//! block before it.

use cryptoreg_registry::{
    inventory, AlgType, BlockCipherImpl, ChainState, Child, DriverInfo, Error, Result,
    SkcipherImpl, Template,
};

use super::common::{
    assert_whole_blocks, cipher_child_request, cipher_mode_instance, whole_blocks, xor_in_place,
    BATCH_BYTES, BLOCK,
};

/// CBC over one block-cipher instance. The [`ChainState`] is the previous ciphertext
/// block (the IV at the start).
pub struct Cbc {
    cipher: Box<dyn BlockCipherImpl>,
}

impl Cbc {
    /// Wraps an unkeyed cipher with 16-byte blocks.
    pub fn new(cipher: Box<dyn BlockCipherImpl>) -> Cbc {
        Cbc { cipher }
    }
}

impl SkcipherImpl for Cbc {
    /// Passes the key to the cipher unchanged (the cipher zeroizes its schedule on drop).
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.cipher.set_key(key)
    }

    /// Whole blocks only (zero bytes is a valid, empty request, as in the kernel); CBC
    /// here has no ciphertext stealing (that is the kernel's separate `cts(cbc(aes))`).
    fn tail_len(&self, total: usize) -> Result<usize> {
        whole_blocks(total, "CBC needs a whole number of 16-byte blocks")
    }

    /// The state starts as the IV.
    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        if iv.len() != BLOCK {
            return Err(Error::InvalidIvLength {
                len: iv.len(),
                expected: BLOCK,
            });
        }
        state.copy_from_slice(iv);
        Ok(())
    }

    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        assert_whole_blocks(data.len());
        for block in data.chunks_exact_mut(BLOCK) {
            xor_in_place(block, state);
            self.cipher.encrypt_blocks(block);
            state.copy_from_slice(block);
        }
    }

    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        assert_whole_blocks(data.len());
        // Ciphertext is public, so the copy needs no wiping.
        let mut saved = [0u8; BATCH_BYTES];
        for batch in data.chunks_mut(BATCH_BYTES) {
            let n = batch.len();
            let saved = &mut saved[..n];
            saved.copy_from_slice(batch);
            self.cipher.decrypt_blocks(batch);
            xor_in_place(&mut batch[..BLOCK], state);
            xor_in_place(&mut batch[BLOCK..], &saved[..n - BLOCK]);
            state.copy_from_slice(&saved[n - BLOCK..]);
        }
    }

    /// The tail is always empty (`tail_len` is 0); treated as blocks for uniformity.
    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.encrypt_blocks(state, tail);
    }

    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.decrypt_blocks(state, tail);
    }
}

/// CBC over a fresh instance from `make`, unkeyed.
pub fn cbc_over_cipher(make: fn() -> Box<dyn BlockCipherImpl>) -> Box<dyn SkcipherImpl> {
    Box::new(Cbc::new(make()))
}

/// Builds `cbc(<child>)`: algorithm `cbc(aes)`, driver `cbc(aes-generic)`, the child's
/// priority and key sizes, a 16-byte IV, 16-byte blocks.
pub fn create(children: &[Child]) -> Result<DriverInfo> {
    cipher_mode_instance("cbc", children, BLOCK, BLOCK, |c| Box::new(Cbc::new(c)))
}

inventory::submit! {
    Template {
        name: "cbc",
        child_request: cipher_child_request,
        child_types: &[AlgType::Cipher],
        create,
        rewrite: None,
    }
}
