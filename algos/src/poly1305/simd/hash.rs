//! The `poly1305-*` SIMD drivers' hash face: a keyed [`HashImpl`] whose running state is
//! `poly1305-generic`'s frame ([`Poly1305`]: buffering, padding, reduction, export and
//! import, so the drivers export the same bytes as the generic one) over a block backend
//! that hands runs of whole blocks to the driver's width ([`Width::blocks`]), which picks
//! the scalar step or the vector entry by length.

use std::sync::Arc;

use cryptoreg_registry::{check_key_len, HashImpl, HashState, Result};
use zeroize::{Zeroize, Zeroizing};

use super::entry::{self, Poly1305Key};
use super::scalar::Acc;
use crate::poly1305::{Poly1305, Poly1305Blocks, POLY1305_KEY_SIZE, POLY1305_TAG_SIZE};
use crate::x86::token::{Avx2, Avx512, Avx512Ifma};

/// Which kernel a driver runs, with the token proving its features.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Width {
    /// `poly1305-avx2`.
    Avx2(Avx2),
    /// `poly1305-avx512`.
    Avx512(Avx512),
    /// `poly1305-avx512ifma`.
    Avx512Ifma(Avx512Ifma),
}

impl Width {
    /// The fewest whole blocks for which the vector entry runs; fewer go through the
    /// scalar step (one vector pass costs a setup of the powers and a final fold of the
    /// lanes, about as much as a handful of scalar blocks).
    pub(crate) fn min_blocks(self) -> usize {
        match self {
            Width::Avx2(_) | Width::Avx512(_) | Width::Avx512Ifma(_) => 16,
        }
    }

    /// Absorbs the whole 16-byte blocks of `data` (a stray tail is ignored) into `acc`.
    pub(crate) fn blocks(self, key: &Poly1305Key, acc: &mut Acc, data: &[u8]) {
        let n = data.len() / 16;
        if n < self.min_blocks() {
            acc.blocks(&key.r, &data[..16 * n], 1);
            return;
        }
        let f = match self {
            Width::Avx2(_) => entry::poly1305_blocks_avx2,
            Width::Avx512(_) => entry::poly1305_blocks_avx512,
            Width::Avx512Ifma(_) => entry::poly1305_blocks_avx512ifma,
        };
        // SAFETY: the token in `self` proves the features of that entry on this CPU;
        // `data` holds `16 * n` readable bytes.
        unsafe { f(&mut acc.h, key, data.as_ptr(), n) }
    }
}

/// The tag of a whole message: whole blocks through `blocks`, the rest padded.
pub(crate) fn tag_with(
    key: &Poly1305Key,
    msg: &[u8],
    blocks: impl FnOnce(&mut Acc, &[u8]),
) -> [u8; 16] {
    let mut acc = Acc::default();
    let whole = msg.len() - msg.len() % 16;
    blocks(&mut acc, &msg[..whole]);
    finish(key, acc, &msg[whole..])
}

/// Absorbs the last partial block `rest` (< 16 bytes; none for a message of whole blocks)
/// with its 0x01 pad byte and no 2^128 bit, and adds `s`.
pub(crate) fn finish(key: &Poly1305Key, mut acc: Acc, rest: &[u8]) -> [u8; 16] {
    if !rest.is_empty() && rest.len() < 16 {
        let mut last = [0u8; 16];
        last[..rest.len()].copy_from_slice(rest);
        last[rest.len()] = 1;
        acc.blocks(&key.r, &last, 0);
        last.zeroize();
    }
    let tag = acc.tag(&key.s);
    acc.zeroize();
    tag
}

/// The SIMD block backend of the shared [`Poly1305`] frame: converts the frame's radix-2^26
/// accumulator to the radix-2^64 one, runs the width's kernel (or the scalar step, by
/// length), converts back.
#[derive(Clone)]
pub(crate) struct SimdBlocks {
    width: Width,
    key: Arc<Poly1305Key>,
}

impl Poly1305Blocks for SimdBlocks {
    fn full_blocks(&self, _r: &[u64; 5], h: &mut [u64; 5], data: &[u8]) {
        let mut acc = Acc::from_fe26(*h);
        self.width.blocks(&self.key, &mut acc, data);
        *h = acc.to_fe26();
        acc.zeroize();
    }
}

/// A `poly1305-*` SIMD driver: its width, the one-time key (for the frame) and its
/// expansion with the powers of `r` (shared with the running states made from it; wiped
/// when the last one goes).
pub(crate) struct Poly1305Simd {
    driver: &'static str,
    width: Width,
    raw: Zeroizing<[u8; POLY1305_KEY_SIZE]>,
    key: Arc<Poly1305Key>,
}

impl Poly1305Simd {
    /// A driver of `width`, keyed with zeros until `set_key` (the handle refuses an
    /// unkeyed MAC first; a direct caller gets the all-zero key's tag, not a panic).
    pub(crate) fn new(driver: &'static str, width: Width) -> Poly1305Simd {
        Poly1305Simd {
            driver,
            width,
            raw: Zeroizing::new([0; POLY1305_KEY_SIZE]),
            key: Arc::new(Poly1305Key::default()),
        }
    }

    /// A running state in the shared frame.
    fn state(&self) -> Poly1305<SimdBlocks> {
        let blocks = SimdBlocks {
            width: self.width,
            key: Arc::clone(&self.key),
        };
        Poly1305::with_backend(&self.raw, blocks)
    }
}

impl HashImpl for Poly1305Simd {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        check_key_len(self.driver, key, &[POLY1305_KEY_SIZE])?;
        self.raw.copy_from_slice(key);
        self.key = Arc::new(Poly1305Key::new(&self.raw));
        Ok(())
    }

    fn init(&self) -> Box<dyn HashState> {
        Box::new(self.state())
    }

    /// One pass, no boxed state.
    fn digest(&self, data: &[u8], out: &mut [u8]) {
        let mut st = self.state();
        st.update(data);
        let mut tag = st.finalize();
        let n = out.len().min(POLY1305_TAG_SIZE);
        out[..n].copy_from_slice(&tag[..n]);
        tag.zeroize();
    }
}

// Constructors only: the records are in `crate::records::x86_64`.
crate::x86::width_ctors! {
    HashImpl:
    new_poly1305_avx2 = "poly1305-avx2", Avx2(Avx2), Poly1305Simd;
    new_poly1305_avx512 = "poly1305-avx512", Avx512(Avx512), Poly1305Simd;
    new_poly1305_avx512ifma = "poly1305-avx512ifma", Avx512Ifma(Avx512Ifma), Poly1305Simd;
}
