//! The `ecb` template: each block encrypted on its own, as the kernel's `ecb(aes)`.
//!
//! ECB leaks equal plaintext blocks and is not meant for data; it exists because XTS (and
//! the kernel's naming) is built on it: `xts(aes)` resolves its child as `ecb(aes)`.

use cryptoreg_registry::{
    inventory, AlgType, BlockCipherImpl, ChainState, Child, DriverInfo, Result, SkcipherImpl,
    Template,
};

use super::common::{
    assert_whole_blocks, cipher_child_request, cipher_mode_instance, whole_blocks, BLOCK,
};

/// ECB over one block-cipher instance. The whole request goes to the child in one call,
/// so a multi-block child (AES-NI) keeps as many blocks in flight as it can.
pub struct Ecb {
    cipher: Box<dyn BlockCipherImpl>,
}

impl Ecb {
    /// Wraps an unkeyed cipher with 16-byte blocks.
    pub fn new(cipher: Box<dyn BlockCipherImpl>) -> Ecb {
        Ecb { cipher }
    }
}

impl SkcipherImpl for Ecb {
    /// Passes the key to the cipher unchanged (the cipher zeroizes its schedule on drop).
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.cipher.set_key(key)
    }

    /// Whole blocks only (zero bytes is a valid, empty request, as in the kernel).
    fn tail_len(&self, total: usize) -> Result<usize> {
        whole_blocks(total, "ECB needs a whole number of 16-byte blocks")
    }

    /// ECB has no IV and carries no state.
    fn start(&self, _iv: &[u8], _state: &mut ChainState) -> Result<()> {
        Ok(())
    }

    fn encrypt_blocks(&self, _state: &mut ChainState, data: &mut [u8]) {
        assert_whole_blocks(data.len());
        self.cipher.encrypt_blocks(data);
    }

    fn decrypt_blocks(&self, _state: &mut ChainState, data: &mut [u8]) {
        assert_whole_blocks(data.len());
        self.cipher.decrypt_blocks(data);
    }

    /// The tail is always empty (`tail_len` is 0); treated as blocks for uniformity.
    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.encrypt_blocks(state, tail);
    }

    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.decrypt_blocks(state, tail);
    }
}

/// ECB over a fresh instance from `make`, unkeyed: for tests and for drivers that build
/// on a cipher outside the registry.
pub fn ecb_over_cipher(make: fn() -> Box<dyn BlockCipherImpl>) -> Box<dyn SkcipherImpl> {
    Box::new(Ecb::new(make()))
}

/// Builds `ecb(<child>)`: algorithm `ecb(aes)`, driver `ecb(aes-generic)`, the child's
/// priority and key sizes, no IV, 16-byte blocks.
pub fn create(children: &[Child]) -> Result<DriverInfo> {
    cipher_mode_instance("ecb", children, 0, BLOCK, |c| Box::new(Ecb::new(c)))
}

inventory::submit! {
    Template {
        name: "ecb",
        child_request: cipher_child_request,
        child_types: &[AlgType::Cipher],
        create,
        rewrite: None,
    }
}
