//! The `ctr` template (SP 800-38A §6.5), as the kernel's `ctr(aes)`: the IV is the whole
//! initial counter block, incremented as one 128-bit big-endian integer per block (so
//! `ff..ff` wraps to `00..00`, as the kernel's `crypto_inc` does). For a nonce-and-counter
//! split, the caller lays out the IV; `rfc3686(ctr(aes))` is a separate template.
//!
//! CTR is a stream cipher: any length, the last partial block uses a prefix of one more
//! keystream block, and encryption and decryption are the same operation.

use cryptoreg_registry::{
    inventory, AlgType, BlockCipherImpl, ChainState, Child, DriverInfo, Error, Result,
    SkcipherImpl, Template,
};
use zeroize::Zeroize;

use super::common::{
    assert_whole_blocks, cipher_child_request, cipher_mode_instance, xor_in_place, BATCH_BYTES,
    BLOCK,
};

/// CTR over one block-cipher instance. The [`ChainState`] is the next counter block.
pub struct Ctr {
    cipher: Box<dyn BlockCipherImpl>,
}

impl Ctr {
    /// Wraps an unkeyed cipher with 16-byte blocks.
    pub fn new(cipher: Box<dyn BlockCipherImpl>) -> Ctr {
        Ctr { cipher }
    }

    /// Xors the keystream for whole blocks into `data`, advancing the counter. Counter
    /// blocks are laid out a batch at a time and encrypted in one child call, so a
    /// multi-block child keeps several blocks in flight. The increment is a plain 128-bit
    /// add: no branch on the (possibly secret) counter value.
    fn apply_keystream(&self, state: &mut ChainState, data: &mut [u8]) {
        let mut counter = u128::from_be_bytes(*state);
        let mut keystream = [0u8; BATCH_BYTES];
        for batch in data.chunks_mut(BATCH_BYTES) {
            let ks = &mut keystream[..batch.len()];
            for block in ks.chunks_exact_mut(BLOCK) {
                block.copy_from_slice(&counter.to_be_bytes());
                counter = counter.wrapping_add(1);
            }
            self.cipher.encrypt_blocks(ks);
            xor_in_place(batch, ks);
        }
        *state = counter.to_be_bytes();
        keystream.zeroize();
        counter.zeroize();
    }

    /// Whole blocks, then the partial block from a prefix of one more keystream block.
    fn apply_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        let whole = tail.len() - tail.len() % BLOCK;
        let (body, partial) = tail.split_at_mut(whole);
        self.apply_keystream(state, body);
        if partial.is_empty() {
            return;
        }
        let mut block = [0u8; BLOCK];
        self.apply_keystream(state, &mut block);
        xor_in_place(partial, &block);
        block.zeroize();
    }
}

impl SkcipherImpl for Ctr {
    /// Passes the key to the cipher unchanged (the cipher zeroizes its schedule on drop).
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.cipher.set_key(key)
    }

    /// Any length; the partial last block is the tail.
    fn tail_len(&self, total: usize) -> Result<usize> {
        Ok(total % BLOCK)
    }

    /// The state starts as the IV (the first counter block).
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
        self.apply_keystream(state, data);
    }

    /// Identical to encryption.
    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.encrypt_blocks(state, data);
    }

    /// Any length is handled (whole blocks first), although `tail_len` only ever asks
    /// for fewer than 16 bytes here.
    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.apply_tail(state, tail);
    }

    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.apply_tail(state, tail);
    }
}

/// CTR over a fresh instance from `make`, unkeyed.
pub fn ctr_over_cipher(make: fn() -> Box<dyn BlockCipherImpl>) -> Box<dyn SkcipherImpl> {
    Box::new(Ctr::new(make()))
}

/// Builds `ctr(<child>)`: algorithm `ctr(aes)`, driver `ctr(aes-generic)`, the child's
/// priority and key sizes, a 16-byte IV, and block size 1 (a stream cipher, as the
/// kernel reports it; the walker still feeds whole 16-byte chunks).
pub fn create(children: &[Child]) -> Result<DriverInfo> {
    cipher_mode_instance("ctr", children, BLOCK, 1, |c| Box::new(Ctr::new(c)))
}

inventory::submit! {
    Template {
        name: "ctr",
        child_request: cipher_child_request,
        child_types: &[AlgType::Cipher],
        create,
        rewrite: None,
    }
}
