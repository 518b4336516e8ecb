//! `ghash-generic` (priority 100): GHASH on the portable constant-time carry-less multiply
//! of [`crate::clmul::portable`], one reduction per block. No table, no branch on the key
//! or the data.
//!
//! Bit order (SP 800-38D §6.3): GHASH numbers the bits of a block from the most significant
//! bit of byte 0, and bit i is the coefficient of x^i. Read as a big-endian `u128`, a block
//! is therefore its polynomial *bit-reflected*. The carry-less product of two reflected
//! 128-bit values is the reflected product over 255 bits, so one shift left by one makes it
//! the reflected 256-bit product: the high half holds the coefficients of x^0..x^127, the
//! low half those of x^128..x^255. Those fold back with x^128 = x^7 + x^2 + x + 1, where
//! "times x" is a right shift in this order (BearSSL's `ghash_ctmul64` works the same way).

use cryptoreg_registry::{inventory, AlgDef, Ctor, HashImpl, HostFeatures, Result};
use zeroize::{Zeroize, ZeroizeOnDrop};

use super::{GhashBackend, GhashDriver};
use crate::clmul::clmul128;

/// The driver name.
pub const DRIVER: &str = "ghash-generic";

/// Multiplication in GF(2^128) with GHASH's bit order, on big-endian `u128` values.
#[inline]
pub fn gf128_mul(a: u128, b: u128) -> u128 {
    let (hi, lo) = clmul128(a, b);
    // Reflected 256-bit product: high = x^0..x^127, low = x^128..x^255.
    let high = (hi << 1) | (lo >> 127);
    let low = lo << 1;
    // low · x^128 = low · (1 + x + x^2 + x^7). The bits that `>> 1, 2, 7` push past x^127
    // (degree 128..134) fold once more; they occupy the top seven bits and fold no further.
    let spill = (low << 127) ^ (low << 126) ^ (low << 121);
    let t = low ^ spill;
    high ^ t ^ (t >> 1) ^ (t >> 2) ^ (t >> 7)
}

/// The precomputed key of `ghash-generic`: H alone. Wiped on drop.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct GenericKey {
    h: u128,
}

impl GhashBackend for GenericKey {
    type Token = ();

    fn new(_: (), h: &[u8; 16]) -> Self {
        GenericKey {
            h: u128::from_be_bytes(*h),
        }
    }

    fn update_blocks(&self, acc: &mut [u8; 16], blocks: &[u8]) {
        let mut y = u128::from_be_bytes(*acc);
        for block in blocks.chunks_exact(16) {
            let x = u128::from_be_bytes(block.try_into().unwrap_or([0; 16]));
            y = gf128_mul(y ^ x, self.h);
        }
        *acc = y.to_be_bytes();
    }
}

/// `ghash-generic` as a boxed hash driver.
pub fn ghash_generic() -> GhashDriver<GenericKey> {
    GhashDriver::new(DRIVER, ())
}

/// Portable: needs no CPU feature.
fn new_generic(_: &HostFeatures) -> Result<Box<dyn HashImpl>> {
    Ok(Box::new(ghash_generic()))
}

inventory::submit! {
    AlgDef::new("ghash", DRIVER, 100, Ctor::Hash(new_generic))
        .block_size(16)
        .key_sizes(16, 16)
        .out_size(16)
}
