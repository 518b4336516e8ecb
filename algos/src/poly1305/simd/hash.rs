//! The `poly1305-*` SIMD drivers' hash face: a keyed [`HashImpl`] whose running state
//! buffers a partial block between updates, exports and imports as bytes, and hands whole
//! blocks to the driver's width ([`Width::blocks`]), which picks the scalar step or the
//! vector entry by length.

use std::sync::Arc;

use cryptoreg_registry::{
    check_key_len, inventory, AlgDef, Ctor, Error, HashImpl, HashState, HostFeatures, Result,
};
use zeroize::{Zeroize, Zeroizing};

use super::entry::{self, Poly1305Key};
use super::scalar::Acc;
use crate::x86::token::{PolyAvx2, PolyAvx512, PolyAvx512Ifma};

/// Which kernel a driver runs, with the token proving its features.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Width {
    /// `poly1305-avx2`.
    Avx2(PolyAvx2),
    /// `poly1305-avx512`.
    Avx512(PolyAvx512),
    /// `poly1305-avx512ifma`.
    Avx512Ifma(PolyAvx512Ifma),
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

/// A `poly1305-*` SIMD driver: its width and the expanded key (shared with the running
/// states made from it; wiped when the last one goes).
pub(crate) struct Poly1305Simd {
    driver: &'static str,
    width: Width,
    key: Arc<Poly1305Key>,
}

impl Poly1305Simd {
    /// A driver of `width`, keyed with zeros until `set_key`.
    pub(crate) fn new(driver: &'static str, width: Width) -> Poly1305Simd {
        Poly1305Simd {
            driver,
            width,
            key: Arc::new(Poly1305Key::default()),
        }
    }
}

impl HashImpl for Poly1305Simd {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        check_key_len(self.driver, key, &[32])?;
        let mut k = [0u8; 32];
        k.copy_from_slice(key);
        self.key = Arc::new(Poly1305Key::new(&k));
        k.zeroize();
        Ok(())
    }

    fn init(&self) -> Box<dyn HashState> {
        Box::new(State {
            width: self.width,
            key: Arc::clone(&self.key),
            acc: Acc::default(),
            buf: [0; 16],
            have: 0,
        })
    }

    /// One pass, no boxed state.
    fn digest(&self, data: &[u8], out: &mut [u8]) {
        let tag = tag_with(&self.key, data, |acc, blocks| {
            self.width.blocks(&self.key, acc, blocks)
        });
        let n = out.len().min(16);
        out[..n].copy_from_slice(&tag[..n]);
    }
}

/// Bytes of an exported state: `h` as three little-endian u64, the count of buffered
/// bytes, the 16-byte buffer.
const EXPORT_LEN: usize = 24 + 1 + 16;

/// The running state of one computation; wiped on drop.
struct State {
    width: Width,
    key: Arc<Poly1305Key>,
    acc: Acc,
    buf: [u8; 16],
    have: usize,
}

impl Drop for State {
    fn drop(&mut self) {
        self.acc.zeroize();
        self.buf.zeroize();
        self.have = 0;
    }
}

impl HashState for State {
    fn update(&mut self, mut data: &[u8]) {
        if self.have > 0 {
            let n = (16 - self.have).min(data.len());
            self.buf[self.have..self.have + n].copy_from_slice(&data[..n]);
            self.have += n;
            data = &data[n..];
            if self.have < 16 {
                return;
            }
            self.acc.blocks(&self.key.r, &self.buf, 1);
            self.have = 0;
        }
        let whole = data.len() - data.len() % 16;
        self.width.blocks(&self.key, &mut self.acc, &data[..whole]);
        let rest = &data[whole..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.have = rest.len();
    }

    fn finalize(self: Box<Self>, out: &mut [u8]) {
        let tag = finish(&self.key, self.acc, &self.buf[..self.have]);
        let n = out.len().min(16);
        out[..n].copy_from_slice(&tag[..n]);
    }

    fn export(&self) -> Zeroizing<Vec<u8>> {
        let mut v = Zeroizing::new(Vec::with_capacity(EXPORT_LEN));
        for limb in self.acc.h {
            v.extend_from_slice(&limb.to_le_bytes());
        }
        v.push(self.have as u8);
        v.extend_from_slice(&self.buf);
        v
    }

    fn import(&mut self, state: &[u8]) -> Result<()> {
        let bad =
            Error::InvalidHashState("poly1305 state: 41 bytes, h2 < 8, fewer than 16 buffered");
        if state.len() != EXPORT_LEN {
            return Err(bad);
        }
        let mut h = [0u64; 3];
        for (i, limb) in h.iter_mut().enumerate() {
            let mut b = [0u8; 8];
            b.copy_from_slice(&state[8 * i..8 * i + 8]);
            *limb = u64::from_le_bytes(b);
        }
        let have = usize::from(state[24]);
        if h[2] >= 8 || have >= 16 {
            return Err(bad);
        }
        self.acc = Acc { h };
        self.have = have;
        self.buf.copy_from_slice(&state[25..]);
        Ok(())
    }
}

macro_rules! register {
    ($($driver:literal, $prio:expr, $kind:ident($token:ident) $(, $zmm:ident)?;)*) => {$(
        inventory::submit! {
            AlgDef::new("poly1305", $driver, $prio, Ctor::Hash(|host: &HostFeatures| {
                let width = Width::$kind($token::new(host, $driver)?);
                Ok(Box::new(Poly1305Simd::new($driver, width)))
            }))
            .requires($token::FEATURES)
            .block_size(16)
            .key_sizes(32, 32)
            .out_size(16)
            $(.$zmm())?
        }
    )*};
}

register! {
    "poly1305-avx2", 400, Avx2(PolyAvx2);
    "poly1305-avx512", 500, Avx512(PolyAvx512), uses_zmm;
    "poly1305-avx512ifma", 550, Avx512Ifma(PolyAvx512Ifma), uses_zmm;
}
