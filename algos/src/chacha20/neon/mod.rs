//! `chacha20-neon` and `xchacha20-neon` (priority 300, the kernel's
//! arch/arm64/crypto/chacha-neon-glue.c, torvalds/linux): ChaCha20 on Advanced SIMD,
//! four blocks at a time.
//!
//! Layout: "vertical", as the kernel's `chacha_4block_xor_neon` — state word `i` of the
//! four blocks in the four 32-bit lanes of vector `i`, so the quarter rounds run on whole
//! vectors with no shuffles (rotations: `REV32` on 16-bit halves for 16, shift-left then
//! shift-right-insert for 12, 8 and 7). After the rounds a 4x4 transpose of 32-bit words
//! (`TRN1`/`TRN2` on 32 and then 64 bits) turns each group of four word vectors into 16
//! bytes of each of the four blocks. A last run shorter than 256 bytes computes four
//! blocks into a stack buffer (wiped) and XORs what it needs.
//!
//! The x86 drivers share a `Word32Vec` core (`chacha20/simd/`) whose trait lives in the
//! x86 layer and carries x86-only operations (`pshufb` tables, `vprold`, mask stores); a
//! NEON implementation of it would have to move the trait and the core out of `x86/`
//! first. This self-contained four-block kernel (one width, so nothing to share) is the
//! smaller change; merging the two is a follow-up.
//!
//! Semantics are the shared rules of [`crate::chacha20`]: 32-byte key, 16-byte IV =
//! 32-bit little-endian counter then 96-bit nonce, any length, a request that would pass
//! block 2^32 of its nonce refused before any byte is written; `xchacha20-neon` derives
//! the HChaCha20 subkey (scalar) per request, then runs this kernel.

#![allow(unsafe_code)]

use core::arch::aarch64::{
    uint32x4_t, vaddq_u32, vdupq_n_u32, veorq_u32, veorq_u8, vld1q_u32, vld1q_u8,
    vreinterpretq_u16_u32, vreinterpretq_u32_u16, vreinterpretq_u32_u64, vreinterpretq_u64_u32,
    vreinterpretq_u8_u32, vrev32q_u16, vshlq_n_u32, vsriq_n_u32, vst1q_u8, vtrn1q_u32, vtrn1q_u64,
    vtrn2q_u32, vtrn2q_u64,
};

use cryptoreg_registry::{
    check_key_len, ChainState, Error, HostFeatures, InOut, Result, SkcipherImpl,
};
use zeroize::{Zeroize, Zeroizing};

use crate::aarch64::neon::output;
use crate::aarch64::token::Neon;
use crate::chacha20::{
    blocks_for, check_chacha_request, check_counter_room, hchacha20, init_state, iv_counter,
    xchacha_hchacha_nonce, xchacha_inner_iv, xchacha_iv, CHACHA_BLOCK_SIZE, CHACHA_IV_SIZE,
    CHACHA_KEY_SIZE, XCHACHA_IV_SIZE,
};

/// Bytes per four-block batch.
const BATCH: usize = 4 * CHACHA_BLOCK_SIZE;

/// `x <<< N` on every 32-bit lane (`M = 32 - N`).
#[inline(always)]
fn rotl<const N: i32, const M: i32>(x: uint32x4_t) -> uint32x4_t {
    // SAFETY: Advanced SIMD is baseline on aarch64; registers only.
    unsafe { vsriq_n_u32::<M>(vshlq_n_u32::<N>(x), x) }
}

/// `x <<< 16`: swap the 16-bit halves of every word.
#[inline(always)]
fn rotl16(x: uint32x4_t) -> uint32x4_t {
    // SAFETY: Advanced SIMD is baseline on aarch64; registers only.
    unsafe { vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(x))) }
}

#[inline(always)]
fn add(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
    // SAFETY: Advanced SIMD is baseline on aarch64; registers only.
    unsafe { vaddq_u32(a, b) }
}

#[inline(always)]
fn xor32(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
    // SAFETY: Advanced SIMD is baseline on aarch64; registers only.
    unsafe { veorq_u32(a, b) }
}

/// One quarter round on four vectors of the state (RFC 8439 §2.1).
#[inline(always)]
fn qr(x: &mut [uint32x4_t; 16], a: usize, b: usize, c: usize, d: usize) {
    x[a] = add(x[a], x[b]);
    x[d] = rotl16(xor32(x[d], x[a]));
    x[c] = add(x[c], x[d]);
    x[b] = rotl::<12, 20>(xor32(x[b], x[c]));
    x[a] = add(x[a], x[b]);
    x[d] = rotl::<8, 24>(xor32(x[d], x[a]));
    x[c] = add(x[c], x[d]);
    x[b] = rotl::<7, 25>(xor32(x[b], x[c]));
}

/// The keystream of blocks `state[12] .. state[12] + 4` as four 64-byte blocks, each as
/// four 16-byte rows.
#[inline(always)]
fn four_blocks(state: &[u32; 16]) -> [[uint32x4_t; 4]; 4] {
    // SAFETY: Advanced SIMD is baseline on aarch64; `lanes` is 4 readable words.
    let init: [uint32x4_t; 16] = core::array::from_fn(|i| unsafe {
        if i == 12 {
            let c = state[12];
            let lanes = [c, c.wrapping_add(1), c.wrapping_add(2), c.wrapping_add(3)];
            vld1q_u32(lanes.as_ptr())
        } else {
            vdupq_n_u32(state[i])
        }
    });
    let mut x = init;
    for _ in 0..10 {
        qr(&mut x, 0, 4, 8, 12);
        qr(&mut x, 1, 5, 9, 13);
        qr(&mut x, 2, 6, 10, 14);
        qr(&mut x, 3, 7, 11, 15);
        qr(&mut x, 0, 5, 10, 15);
        qr(&mut x, 1, 6, 11, 12);
        qr(&mut x, 2, 7, 8, 13);
        qr(&mut x, 3, 4, 9, 14);
    }
    for (v, s) in x.iter_mut().zip(init) {
        *v = add(*v, s);
    }
    // Transpose each group of four word vectors: row `g` of block `b` is words
    // 4g .. 4g+4 of block `b`, i.e. lane `b` of vectors 4g .. 4g+4.
    let mut out = [[x[0]; 4]; 4];
    for g in 0..4 {
        let (a, b, c, d) = (x[4 * g], x[4 * g + 1], x[4 * g + 2], x[4 * g + 3]);
        // SAFETY: Advanced SIMD is baseline on aarch64; registers only.
        unsafe {
            let t0 = vreinterpretq_u64_u32(vtrn1q_u32(a, b));
            let t1 = vreinterpretq_u64_u32(vtrn2q_u32(a, b));
            let t2 = vreinterpretq_u64_u32(vtrn1q_u32(c, d));
            let t3 = vreinterpretq_u64_u32(vtrn2q_u32(c, d));
            out[0][g] = vreinterpretq_u32_u64(vtrn1q_u64(t0, t2));
            out[1][g] = vreinterpretq_u32_u64(vtrn1q_u64(t1, t3));
            out[2][g] = vreinterpretq_u32_u64(vtrn2q_u64(t0, t2));
            out[3][g] = vreinterpretq_u32_u64(vtrn2q_u64(t1, t3));
        }
    }
    out
}

/// XORs the keystream of `state` (counter in word 12) into the run. Needs nothing beyond
/// the aarch64 baseline (Advanced SIMD); `#[inline(never)]` so the kernel is compiled
/// once for all the drivers' paths.
#[inline(never)]
fn chacha20_neon_xor(state: &[u32; 16], mut io: InOut<'_>) {
    let mut s = *state;
    let (len, mut off) = (io.len(), 0);
    while len - off >= BATCH {
        let ks = four_blocks(&s);
        let src = &io.input()[off..off + BATCH];
        let mut out = [[0u8; 16]; 16];
        for (b, rows) in ks.iter().enumerate() {
            for (g, row) in rows.iter().enumerate() {
                let at = 64 * b + 16 * g;
                // SAFETY: 16 readable bytes at `at` of `src` (bounded by the slice above)
                // and 16 writable bytes of `out`; Advanced SIMD is baseline.
                unsafe {
                    let v = veorq_u8(
                        vld1q_u8(src[at..at + 16].as_ptr()),
                        vreinterpretq_u8_u32(*row),
                    );
                    vst1q_u8(out[4 * b + g].as_mut_ptr(), v);
                }
            }
        }
        let dst = &mut output(&mut io)[off..off + BATCH];
        for (chunk, o) in dst.chunks_exact_mut(16).zip(&out) {
            chunk.copy_from_slice(o);
        }
        out.zeroize();
        s[12] = s[12].wrapping_add(4);
        off += BATCH;
    }
    if off < len {
        let ks = four_blocks(&s);
        let mut buf = [0u8; BATCH];
        for (b, rows) in ks.iter().enumerate() {
            for (g, row) in rows.iter().enumerate() {
                let at = 64 * b + 16 * g;
                // SAFETY: 16 writable bytes at `at` of `buf`; Advanced SIMD is baseline.
                unsafe { vst1q_u8(buf[at..at + 16].as_mut_ptr(), vreinterpretq_u8_u32(*row)) };
            }
        }
        let n = len - off;
        for (k, x) in buf[..n].iter_mut().zip(&io.input()[off..]) {
            *k ^= x;
        }
        output(&mut io)[off..].copy_from_slice(&buf[..n]);
        buf.zeroize();
    }
    s.zeroize();
}

/// `chacha20-neon`: the key (wiped on drop).
pub(crate) struct ChaCha20Neon {
    driver: &'static str,
    _token: Neon,
    key: Zeroizing<[u8; CHACHA_KEY_SIZE]>,
    keyed: bool,
}

impl ChaCha20Neon {
    fn new(driver: &'static str, token: Neon) -> ChaCha20Neon {
        ChaCha20Neon {
            driver,
            _token: token,
            key: Zeroizing::new([0; CHACHA_KEY_SIZE]),
            keyed: false,
        }
    }

    /// XORs the keystream at chaining state `iv` into `io` and advances the counter in
    /// `iv` by the blocks used (a partial block counts as one).
    fn crypt(&self, iv: &mut ChainState, io: InOut<'_>) {
        let blocks = blocks_for(io.len()) as u32;
        let mut s = init_state(&self.key, iv);
        chacha20_neon_xor(&s, io);
        iv[..4].copy_from_slice(&s[12].wrapping_add(blocks).to_le_bytes());
        s.zeroize();
    }

    fn one_shot(&self, iv: &[u8], io: InOut<'_>) -> Result<()> {
        if !self.keyed {
            return Err(Error::NoKey);
        }
        check_chacha_request(iv, io.len())?;
        let mut state: ChainState = [0; CHACHA_IV_SIZE];
        state.copy_from_slice(iv);
        self.crypt(&mut state, io);
        state.zeroize();
        Ok(())
    }
}

/// Out-of-place requests need equal lengths.
fn check_same_len(src: &[u8], dst: &[u8]) -> Result<()> {
    if src.len() == dst.len() {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            src: src.len(),
            dst: dst.len(),
        })
    }
}

impl SkcipherImpl for ChaCha20Neon {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.key.zeroize();
        self.keyed = false;
        check_key_len(self.driver, key, &[CHACHA_KEY_SIZE])?;
        self.key.copy_from_slice(key);
        self.keyed = true;
        Ok(())
    }

    fn chunk_size(&self) -> usize {
        CHACHA_BLOCK_SIZE
    }

    fn tail_len(&self, total: usize) -> Result<usize> {
        Ok(total % CHACHA_BLOCK_SIZE)
    }

    fn check_request(&self, iv: &[u8], total: usize) -> Result<()> {
        check_chacha_request(iv, total)
    }

    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        if !self.keyed {
            return Err(Error::NoKey);
        }
        if iv_counter(iv).is_none() {
            return Err(Error::InvalidIvLength {
                len: iv.len(),
                expected: CHACHA_IV_SIZE,
            });
        }
        state.copy_from_slice(iv);
        Ok(())
    }

    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.crypt(state, InOut::InPlace(data));
    }

    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.crypt(state, InOut::InPlace(data));
    }

    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.crypt(state, InOut::InPlace(tail));
    }

    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.crypt(state, InOut::InPlace(tail));
    }

    fn encrypt_blocks_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.crypt(state, InOut::Split { src, dst });
    }

    fn decrypt_blocks_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.crypt(state, InOut::Split { src, dst });
    }

    fn encrypt_tail_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.crypt(state, InOut::Split { src, dst });
    }

    fn decrypt_tail_to(&self, state: &mut ChainState, src: &[u8], dst: &mut [u8]) {
        self.crypt(state, InOut::Split { src, dst });
    }

    fn encrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.one_shot(iv, InOut::InPlace(data))
    }

    fn decrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.one_shot(iv, InOut::InPlace(data))
    }

    fn encrypt_to(&self, iv: &[u8], src: &[u8], dst: &mut [u8]) -> Result<()> {
        check_same_len(src, dst)?;
        self.one_shot(iv, InOut::Split { src, dst })
    }

    fn decrypt_to(&self, iv: &[u8], src: &[u8], dst: &mut [u8]) -> Result<()> {
        self.encrypt_to(iv, src, dst)
    }
}

/// `xchacha20-neon`: HChaCha20 subkey per request, then the `chacha20-neon` kernel.
pub(crate) struct XChaCha20Neon {
    driver: &'static str,
    token: Neon,
    key: Zeroizing<[u8; CHACHA_KEY_SIZE]>,
    keyed: bool,
}

/// Why the chunk calls of `xchacha20-neon` are never reached.
const XCHACHA_DIRECT: &str = "xchacha20 runs each request on its per-request cipher";

impl XChaCha20Neon {
    fn new(driver: &'static str, token: Neon) -> XChaCha20Neon {
        XChaCha20Neon {
            driver,
            token,
            key: Zeroizing::new([0; CHACHA_KEY_SIZE]),
            keyed: false,
        }
    }

    fn inner(&self, iv: &[u8]) -> Result<(ChaCha20Neon, ChainState)> {
        if !self.keyed {
            return Err(Error::NoKey);
        }
        let iv: &[u8; XCHACHA_IV_SIZE] = xchacha_iv(iv)?;
        let mut c = ChaCha20Neon::new(self.driver, self.token);
        *c.key = hchacha20(&self.key, &xchacha_hchacha_nonce(iv));
        c.keyed = true;
        Ok((c, xchacha_inner_iv(iv)))
    }

    fn one_shot(&self, iv: &[u8], io: InOut<'_>) -> Result<()> {
        let (c, mut state) = self.inner(iv)?;
        let counter = u32::from_le_bytes([state[0], state[1], state[2], state[3]]);
        let r = check_counter_room(counter, io.len());
        if r.is_ok() {
            c.crypt(&mut state, io);
        }
        state.zeroize();
        r
    }
}

impl SkcipherImpl for XChaCha20Neon {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.key.zeroize();
        self.keyed = false;
        check_key_len(self.driver, key, &[CHACHA_KEY_SIZE])?;
        self.key.copy_from_slice(key);
        self.keyed = true;
        Ok(())
    }

    fn chunk_size(&self) -> usize {
        CHACHA_BLOCK_SIZE
    }

    fn tail_len(&self, total: usize) -> Result<usize> {
        Ok(total % CHACHA_BLOCK_SIZE)
    }

    fn per_request_cipher(&self, iv: &[u8]) -> Result<Option<(Box<dyn SkcipherImpl>, ChainState)>> {
        let (c, iv) = self.inner(iv)?;
        Ok(Some((Box::new(c), iv)))
    }

    fn start(&self, _iv: &[u8], _state: &mut ChainState) -> Result<()> {
        Err(Error::InvalidLength {
            len: 0,
            reason: XCHACHA_DIRECT,
        })
    }

    fn encrypt_blocks(&self, _state: &mut ChainState, data: &mut [u8]) {
        data.zeroize();
    }

    fn decrypt_blocks(&self, _state: &mut ChainState, data: &mut [u8]) {
        data.zeroize();
    }

    fn encrypt_tail(&self, _state: &mut ChainState, tail: &mut [u8]) {
        tail.zeroize();
    }

    fn decrypt_tail(&self, _state: &mut ChainState, tail: &mut [u8]) {
        tail.zeroize();
    }

    fn encrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.one_shot(iv, InOut::InPlace(data))
    }

    fn decrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.one_shot(iv, InOut::InPlace(data))
    }

    fn encrypt_to(&self, iv: &[u8], src: &[u8], dst: &mut [u8]) -> Result<()> {
        check_same_len(src, dst)?;
        self.one_shot(iv, InOut::Split { src, dst })
    }

    fn decrypt_to(&self, iv: &[u8], src: &[u8], dst: &mut [u8]) -> Result<()> {
        self.encrypt_to(iv, src, dst)
    }
}

const CHACHA_DRIVER: &str = "chacha20-neon";
const XCHACHA_DRIVER: &str = "xchacha20-neon";

/// Builds an unkeyed `chacha20-neon`.
pub(crate) fn new_chacha20_neon(host: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    let token = Neon::new(host, CHACHA_DRIVER)?;
    Ok(Box::new(ChaCha20Neon::new(CHACHA_DRIVER, token)))
}

/// Builds an unkeyed `xchacha20-neon`.
pub(crate) fn new_xchacha20_neon(host: &HostFeatures) -> Result<Box<dyn SkcipherImpl>> {
    let token = Neon::new(host, XCHACHA_DRIVER)?;
    Ok(Box::new(XChaCha20Neon::new(XCHACHA_DRIVER, token)))
}

#[cfg(test)]
mod tests;
