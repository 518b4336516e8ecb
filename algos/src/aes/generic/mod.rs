//! `aes-generic`: portable, constant-time AES by bitslicing.
//!
//! Four blocks are processed together as eight 64-bit bit planes ([`bitslice`]); the
//! S-box is a Boolean circuit ([`sbox`]). There are no table lookups and no branches on
//! key or data, so timing reveals nothing about either; the key schedule uses the same
//! circuit. A call with fewer than four blocks pads the batch, so the cost per call is
//! rounded up to a multiple of four blocks.
//!
//! Decryption is the straightforward inverse cipher (FIPS-197 §5.3), so one key schedule
//! serves both directions.

mod bitslice;
mod sbox;

use cryptoreg_registry::{inventory, AlgDef, BlockCipherImpl, Ctor, HostFeatures, Result};
use zeroize::{Zeroize, ZeroizeOnDrop};

use bitslice::{
    add_round_key, inv_mix_columns, inv_shift_rows, mix_columns, pack, shift_rows, unpack,
};

const DRIVER: &str = "aes-generic";

/// Bytes per bitsliced batch: four AES blocks.
const BATCH: usize = 64;

/// The portable constant-time AES block cipher (`aes-generic`), usable directly by
/// templates and tests as well as through the registry.
///
/// Until [`set_key`](BlockCipherImpl::set_key) succeeds it holds an all-zero AES-128
/// schedule (it never panics; the registry's handles refuse unkeyed use anyway). Round
/// keys are wiped on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct AesGeneric {
    /// Round keys `0..=rounds`, each replicated over the four blocks of a batch and in
    /// plane form, ready to XOR.
    round_keys: [[u64; 8]; 15],
    /// 10, 12 or 14.
    rounds: usize,
}

impl core::fmt::Debug for AesGeneric {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AesGeneric")
            .field("rounds", &self.rounds)
            .finish_non_exhaustive()
    }
}

impl Default for AesGeneric {
    fn default() -> Self {
        Self::new()
    }
}

impl AesGeneric {
    /// An unkeyed instance.
    pub fn new() -> AesGeneric {
        AesGeneric {
            round_keys: [[0; 8]; 15],
            rounds: 10,
        }
    }

    /// Encrypts one 64-byte batch (four blocks) in place.
    #[inline(always)]
    fn encrypt_batch(&self, batch: &mut [u8; BATCH]) {
        let mut s = pack(batch);
        add_round_key(&mut s, &self.round_keys[0]);
        for rk in &self.round_keys[1..self.rounds] {
            sbox::sub_bytes(&mut s);
            shift_rows(&mut s);
            mix_columns(&mut s);
            add_round_key(&mut s, rk);
        }
        sbox::sub_bytes(&mut s);
        shift_rows(&mut s);
        add_round_key(&mut s, &self.round_keys[self.rounds]);
        unpack(s, batch);
    }

    /// Decrypts one 64-byte batch (four blocks) in place.
    #[inline(always)]
    fn decrypt_batch(&self, batch: &mut [u8; BATCH]) {
        let mut s = pack(batch);
        add_round_key(&mut s, &self.round_keys[self.rounds]);
        for rk in self.round_keys[1..self.rounds].iter().rev() {
            inv_shift_rows(&mut s);
            sbox::inv_sub_bytes(&mut s);
            add_round_key(&mut s, rk);
            inv_mix_columns(&mut s);
        }
        inv_shift_rows(&mut s);
        sbox::inv_sub_bytes(&mut s);
        add_round_key(&mut s, &self.round_keys[0]);
        unpack(s, batch);
    }

    /// Runs `f` over `data` in 64-byte batches; a final partial batch (one to three
    /// blocks) goes through a zero-padded stack copy.
    #[inline(always)]
    fn for_each_batch(&self, data: &mut [u8], f: impl Fn(&Self, &mut [u8; BATCH])) {
        debug_assert_eq!(data.len() % 16, 0, "whole blocks only");
        let mut chunks = data.chunks_exact_mut(BATCH);
        for chunk in &mut chunks {
            let batch: &mut [u8; BATCH] = chunk.try_into().expect("64-byte chunk");
            f(self, batch);
        }
        let rest = chunks.into_remainder();
        if !rest.is_empty() {
            let mut batch = [0u8; BATCH];
            batch[..rest.len()].copy_from_slice(rest);
            f(self, &mut batch);
            rest.copy_from_slice(&batch[..rest.len()]);
            batch.zeroize();
        }
    }
}

/// `SubWord` of the key schedule through the S-box circuit: the four bytes of `w` (little
/// endian) become bit positions 0..4 of the planes.
fn sub_word(w: u32) -> u32 {
    let mut x = [0u64; 8];
    for (b, plane) in x.iter_mut().enumerate() {
        for j in 0..4 {
            *plane |= u64::from((w >> (8 * j + b)) & 1) << j;
        }
    }
    sbox::sub_bytes(&mut x);
    let mut out = 0u32;
    for (b, plane) in x.iter().enumerate() {
        for j in 0..4 {
            out |= (((plane >> j) & 1) as u32) << (8 * j + b);
        }
    }
    x.zeroize();
    out
}

/// The FIPS-197 round constants `Rcon[1..=10]`.
const RCON: [u8; 10] = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36];

impl BlockCipherImpl for AesGeneric {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        cryptoreg_registry::check_key_len(DRIVER, key, &[16, 24, 32])?;
        let nk = key.len() / 4;
        let rounds = nk + 6;
        let total = 4 * (rounds + 1);
        // FIPS-197 §5.2, word by word; branches depend on the word index only.
        let mut w = [0u32; 60];
        for (i, c) in key.chunks_exact(4).enumerate() {
            w[i] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        for i in nk..total {
            let mut t = w[i - 1];
            if i % nk == 0 {
                t = sub_word(t.rotate_right(8)) ^ u32::from(RCON[i / nk - 1]);
            } else if nk > 6 && i % nk == 4 {
                t = sub_word(t);
            }
            w[i] = w[i - nk] ^ t;
        }
        let mut batch = [0u8; BATCH];
        for (r, planes) in self.round_keys.iter_mut().enumerate() {
            if r > rounds {
                *planes = [0; 8];
                continue;
            }
            for (i, byte) in batch.iter_mut().enumerate() {
                // Block k, byte b of round key r: word 4r + b/4, byte b%4 of that word.
                let b = i % 16;
                *byte = w[4 * r + b / 4].to_le_bytes()[b % 4];
            }
            *planes = pack(&batch);
        }
        self.rounds = rounds;
        w.zeroize();
        batch.zeroize();
        Ok(())
    }

    fn encrypt_blocks(&self, data: &mut [u8]) {
        self.for_each_batch(data, Self::encrypt_batch);
    }

    fn decrypt_blocks(&self, data: &mut [u8]) {
        self.for_each_batch(data, Self::decrypt_batch);
    }
}

/// Portable: needs no CPU feature, so the token is not consulted.
fn new_generic(_: &HostFeatures) -> Result<Box<dyn BlockCipherImpl>> {
    Ok(Box::new(AesGeneric::new()))
}

inventory::submit! {
    AlgDef::new("aes", DRIVER, 100, Ctor::Cipher(new_generic))
        .block_size(16)
        .key_sizes(16, 32)
}
