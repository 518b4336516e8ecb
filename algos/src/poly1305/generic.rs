//! `poly1305-generic` (priority 100): radix-2^26 Poly1305 in portable, constant-time code.

use cryptoreg_registry::{
    check_key_len, inventory, AlgDef, Ctor, Error, HashImpl, HashState, HostFeatures, Result,
};
use subtle::{Choice, ConditionallySelectable};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use super::{POLY1305_BLOCK_SIZE, POLY1305_KEY_SIZE, POLY1305_TAG_SIZE};

const MASK26: u64 = 0x3ff_ffff;
/// The 2^128 bit of a full block, in limb 4 (bit 104 + 24).
const HIBIT: u64 = 1 << 24;

/// The clamped r in five 26-bit limbs, and s.
#[derive(Clone, Default, Zeroize, ZeroizeOnDrop)]
struct Key {
    r: [u64; 5],
    s: [u8; 16],
}

impl Key {
    fn new(key: &[u8; POLY1305_KEY_SIZE]) -> Key {
        let mut rb = [0u8; 16];
        rb.copy_from_slice(&key[..16]);
        let mut r = u128::from_le_bytes(rb) & 0x0fff_fffc_0fff_fffc_0fff_fffc_0fff_ffff;
        let mut limbs = [0u64; 5];
        for (i, l) in limbs.iter_mut().enumerate() {
            *l = ((r >> (26 * i)) as u64) & MASK26;
        }
        r.zeroize();
        rb.zeroize();
        let mut s = [0u8; 16];
        s.copy_from_slice(&key[16..]);
        Key { r: limbs, s }
    }
}

/// What absorbs runs of whole message blocks for a [`Poly1305`] frame: the portable
/// radix-2^26 step ([`Portable`]) or a SIMD driver's kernels (`poly1305::simd`). The frame
/// keeps everything else (the buffering of partial blocks, the final padded block, the
/// reduction, export and import), so every driver shares its semantics and its exported
/// bytes.
pub trait Poly1305Blocks: Clone + Send + Sync + 'static {
    /// Absorbs the whole 16-byte blocks of `data` (a multiple of 16 long), each with the
    /// 2^128 bit, into `h` (radix 2^26, each limb below 2^27 before and after) under the
    /// clamped `r` (radix 2^26, limbs below 2^26).
    fn full_blocks(&self, r: &[u64; 5], h: &mut [u64; 5], data: &[u8]);
}

/// The portable, constant-time radix-2^26 block step of `poly1305-generic`.
#[derive(Clone, Copy, Default, Debug)]
pub struct Portable;

impl Poly1305Blocks for Portable {
    fn full_blocks(&self, r: &[u64; 5], h: &mut [u64; 5], data: &[u8]) {
        portable_blocks(r, h, data, HIBIT);
    }
}

/// A running Poly1305 computation over a key: the accumulator `h` (five limbs, each below
/// 2^26 plus a small carry between blocks) and the partial block, with runs of whole
/// blocks absorbed by `B`. The portable core that `poly1305-generic` and
/// `xchacha20poly1305-generic` share (`B` = [`Portable`]), and the frame of the SIMD
/// drivers. Zeroized on drop.
#[derive(Clone, Default, Zeroize, ZeroizeOnDrop)]
pub struct Poly1305<B: Poly1305Blocks = Portable> {
    key: Key,
    h: [u64; 5],
    buf: [u8; POLY1305_BLOCK_SIZE],
    buf_len: usize,
    /// Holds no secret of its own (a SIMD backend's expanded key wipes itself).
    #[zeroize(skip)]
    backend: B,
}

/// Bytes of an exported state: h as five little-endian u32 limbs (each below 2^26), the
/// partial block (16 bytes, zero past its length) and its length (one byte, below 16).
pub const POLY1305_EXPORT_LEN: usize = 20 + 16 + 1;

impl Poly1305 {
    /// A fresh computation under the 32-byte one-time key `r || s`.
    pub fn new(key: &[u8; POLY1305_KEY_SIZE]) -> Poly1305 {
        Poly1305::with_backend(key, Portable)
    }
}

impl<B: Poly1305Blocks> Poly1305<B> {
    /// A fresh computation under `key` whose runs of whole blocks go to `backend`.
    pub fn with_backend(key: &[u8; POLY1305_KEY_SIZE], backend: B) -> Poly1305<B> {
        Poly1305 {
            key: Key::new(key),
            h: [0; 5],
            buf: [0; POLY1305_BLOCK_SIZE],
            buf_len: 0,
            backend,
        }
    }

    /// Absorbs whole 16-byte blocks, each with `hibit` (2^128, or 0 for a padded final
    /// block) added, with the portable step.
    fn blocks(&mut self, data: &[u8], hibit: u64) {
        portable_blocks(&self.key.r, &mut self.h, data, hibit);
    }

    /// Absorbs `data` (any length).
    pub fn update(&mut self, mut data: &[u8]) {
        if self.buf_len > 0 {
            let n = (POLY1305_BLOCK_SIZE - self.buf_len).min(data.len());
            self.buf[self.buf_len..self.buf_len + n].copy_from_slice(&data[..n]);
            self.buf_len += n;
            data = &data[n..];
            if self.buf_len < POLY1305_BLOCK_SIZE {
                return;
            }
            let block = self.buf;
            self.blocks(&block, HIBIT);
            self.buf.zeroize();
            self.buf_len = 0;
        }
        let whole = data.len() - data.len() % POLY1305_BLOCK_SIZE;
        self.backend
            .full_blocks(&self.key.r, &mut self.h, &data[..whole]);
        let rest = &data[whole..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.buf_len = rest.len();
    }

    /// Absorbs zeros up to the next 16-byte boundary of the data absorbed so far (the
    /// AEAD's padding), if it is not on one.
    pub fn pad16(&mut self) {
        if self.buf_len > 0 {
            let zeros = [0u8; POLY1305_BLOCK_SIZE];
            self.update(&zeros[..POLY1305_BLOCK_SIZE - self.buf_len]);
        }
    }

    /// The tag: pads and absorbs the partial block, reduces h mod 2^130 - 5 fully, adds s
    /// mod 2^128.
    pub fn finalize(mut self) -> [u8; POLY1305_TAG_SIZE] {
        if self.buf_len > 0 {
            let mut block = [0u8; POLY1305_BLOCK_SIZE];
            block[..self.buf_len].copy_from_slice(&self.buf[..self.buf_len]);
            block[self.buf_len] = 1;
            self.blocks(&block, 0);
            block.zeroize();
        }
        let mut h = carried(self.h);
        // g = h + 5 - 2^130; h >= p exactly when g does not go negative.
        let mut g = [0u64; 5];
        let mut c = 5u64;
        for i in 0..4 {
            let t = h[i] + c;
            g[i] = t & MASK26;
            c = t >> 26;
        }
        g[4] = (h[4] + c).wrapping_sub(1 << 26);
        // Take g when g4 >= 0, keep h when it went negative. A plain mask select here was
        // turned into a branch on the (secret) comparison by the optimizer, which the
        // Valgrind constant-time check (`cargo xtask ctgrind`) reported; `subtle`'s select
        // sits behind an optimization barrier.
        let take_g = Choice::from(((g[4] >> 63) as u8) ^ 1);
        for i in 0..5 {
            h[i] = u64::conditional_select(&h[i], &(g[i] & MASK26), take_g);
        }
        let mut acc: u128 = 0;
        for (i, l) in h.iter().enumerate() {
            acc = acc.wrapping_add(u128::from(*l) << (26 * i));
        }
        let tag = acc.wrapping_add(u128::from_le_bytes(self.key.s));
        acc.zeroize();
        h.zeroize();
        g.zeroize();
        tag.to_le_bytes()
    }

    /// The running state as [`POLY1305_EXPORT_LEN`] bytes (see there).
    pub fn export(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(POLY1305_EXPORT_LEN));
        let mut h = carried(self.h);
        for l in &h {
            out.extend_from_slice(&(*l as u32).to_le_bytes());
        }
        h.zeroize();
        out.extend_from_slice(&self.buf);
        out.push(self.buf_len as u8);
        out
    }

    /// Replaces the running state (keeping the key) with one from [`export`](Self::export);
    /// anything else is an error and leaves the state as it was.
    pub fn import(&mut self, state: &[u8]) -> Result<()> {
        let bad = Error::InvalidHashState;
        if state.len() != POLY1305_EXPORT_LEN {
            return Err(bad("poly1305 state is 37 bytes"));
        }
        let buf_len = usize::from(state[36]);
        if buf_len >= POLY1305_BLOCK_SIZE {
            return Err(bad("poly1305 partial block length over 15"));
        }
        if state[20 + buf_len..36].iter().any(|&b| b != 0) {
            return Err(bad("poly1305 bytes past the partial block are not zero"));
        }
        let mut h = [0u64; 5];
        for (i, l) in h.iter_mut().enumerate() {
            let mut w = [0u8; 4];
            w.copy_from_slice(&state[4 * i..4 * i + 4]);
            *l = u64::from(u32::from_le_bytes(w));
        }
        if h.iter().any(|&l| l > MASK26) {
            return Err(bad("poly1305 accumulator limb over 26 bits"));
        }
        self.h = h;
        self.buf.copy_from_slice(&state[20..36]);
        self.buf_len = buf_len;
        Ok(())
    }
}

/// Absorbs whole 16-byte blocks into `h` under `r`, each with `hibit` (2^128, or 0 for a
/// padded final block) added: the portable radix-2^26 step.
fn portable_blocks(r: &[u64; 5], h: &mut [u64; 5], data: &[u8], hibit: u64) {
    let [r0, r1, r2, r3, r4] = *r;
    let (s1, s2, s3, s4) = (r1 * 5, r2 * 5, r3 * 5, r4 * 5);
    let [mut h0, mut h1, mut h2, mut h3, mut h4] = *h;
    for b in data.chunks_exact(POLY1305_BLOCK_SIZE) {
        let mut m = [0u8; 16];
        m.copy_from_slice(b);
        let m = u128::from_le_bytes(m);
        h0 += (m as u64) & MASK26;
        h1 += ((m >> 26) as u64) & MASK26;
        h2 += ((m >> 52) as u64) & MASK26;
        h3 += ((m >> 78) as u64) & MASK26;
        h4 += ((m >> 104) as u64) | hibit;

        let d0 = h0 * r0 + h1 * s4 + h2 * s3 + h3 * s2 + h4 * s1;
        let mut d1 = h0 * r1 + h1 * r0 + h2 * s4 + h3 * s3 + h4 * s2;
        let mut d2 = h0 * r2 + h1 * r1 + h2 * r0 + h3 * s4 + h4 * s3;
        let mut d3 = h0 * r3 + h1 * r2 + h2 * r1 + h3 * r0 + h4 * s4;
        let mut d4 = h0 * r4 + h1 * r3 + h2 * r2 + h3 * r1 + h4 * r0;

        d1 += d0 >> 26;
        h0 = d0 & MASK26;
        d2 += d1 >> 26;
        h1 = d1 & MASK26;
        d3 += d2 >> 26;
        h2 = d2 & MASK26;
        d4 += d3 >> 26;
        h3 = d3 & MASK26;
        h0 += (d4 >> 26) * 5;
        h4 = d4 & MASK26;
        h1 += h0 >> 26;
        h0 &= MASK26;
    }
    *h = [h0, h1, h2, h3, h4];
}

/// `h` with every limb below 2^26, the value mod 2^130 - 5 kept. The carry out of limb 4
/// comes back times 5 into limb 0, which can start one more ripple; after the second pass
/// that ripple leaves limb 0 below 2^26 + 5, so the third pass ends with every limb
/// settled (a fixed count: no branch on the value).
fn carried(mut h: [u64; 5]) -> [u64; 5] {
    for _ in 0..3 {
        for i in 0..4 {
            h[i + 1] += h[i] >> 26;
            h[i] &= MASK26;
        }
        h[0] += (h[4] >> 26) * 5;
        h[4] &= MASK26;
    }
    h
}

/// The `poly1305-generic` driver: holds the key, hands out [`Poly1305`] states.
#[derive(Default)]
pub struct Poly1305Generic {
    key: Option<Zeroizing<[u8; POLY1305_KEY_SIZE]>>,
}

impl Poly1305Generic {
    /// An unkeyed driver.
    pub fn new() -> Poly1305Generic {
        Poly1305Generic::default()
    }

    fn state(&self) -> Poly1305 {
        match &self.key {
            Some(k) => Poly1305::new(k),
            // The handle refuses an unkeyed MAC before it gets here; a direct caller gets
            // the tag of the all-zero key rather than a panic.
            None => Poly1305::new(&[0u8; POLY1305_KEY_SIZE]),
        }
    }
}

impl HashImpl for Poly1305Generic {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        check_key_len("poly1305-generic", key, &[POLY1305_KEY_SIZE])?;
        let mut k = Zeroizing::new([0u8; POLY1305_KEY_SIZE]);
        k.copy_from_slice(key);
        self.key = Some(k);
        Ok(())
    }

    fn init(&self) -> Box<dyn HashState> {
        Box::new(self.state())
    }

    fn digest(&self, data: &[u8], out: &mut [u8]) {
        let mut st = self.state();
        st.update(data);
        write_tag(st.finalize(), out);
    }
}

/// Copies the tag into `out` (the handle checks `out.len()` is the digest size; a
/// shorter buffer gets a prefix rather than a panic).
fn write_tag(mut tag: [u8; POLY1305_TAG_SIZE], out: &mut [u8]) {
    let n = out.len().min(POLY1305_TAG_SIZE);
    out[..n].copy_from_slice(&tag[..n]);
    tag.zeroize();
}

impl<B: Poly1305Blocks> HashState for Poly1305<B> {
    fn update(&mut self, data: &[u8]) {
        Poly1305::<B>::update(self, data);
    }

    fn finalize(self: Box<Self>, out: &mut [u8]) {
        let st = *self;
        write_tag(Poly1305::<B>::finalize(st), out);
    }

    fn export(&self) -> Zeroizing<Vec<u8>> {
        Poly1305::<B>::export(self)
    }

    fn import(&mut self, state: &[u8]) -> Result<()> {
        Poly1305::<B>::import(self, state)
    }
}

/// Portable: needs no CPU feature.
fn make(_: &HostFeatures) -> Result<Box<dyn HashImpl>> {
    Ok(Box::new(Poly1305Generic::new()))
}

inventory::submit! {
    AlgDef::new("poly1305", "poly1305-generic", 100, Ctor::Hash(make))
        .block_size(POLY1305_BLOCK_SIZE)
        .key_sizes(POLY1305_KEY_SIZE, POLY1305_KEY_SIZE)
        .out_size(POLY1305_TAG_SIZE)
}
