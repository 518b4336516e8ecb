//! `xchacha20poly1305-generic` (priority 100): XChaCha20-Poly1305
//! (draft-irtf-cfrg-xchacha-03 §2), an algorithm name of its own (`xchacha20poly1305`).
//!
//! - **Key** 32 bytes; **nonce** 24 bytes; **tag** 16 bytes only (as `rfc7539`).
//! - The subkey is HChaCha20(key, nonce[0..16]); the request is then RFC 8439's
//!   ChaCha20-Poly1305 under the subkey with the 12-byte nonce `0^4 || nonce[16..24]`:
//!   block 0 gives the Poly1305 key, the text starts at block 1, and text that would pass
//!   block 2^32 - 1 is [`Error::InvalidLength`] from `start`.
//! - Portable and constant-time: the scalar ChaCha20 core and [`Poly1305`], the subkey and
//!   one-time key kept in the caller's [`AeadState`] (wiped by it) and in stack copies
//!   wiped after use. The one-shot `open` verifies before it decrypts.

use cryptoreg_registry::{
    check_key_len, inventory, AeadImpl, AeadLens, AeadState, AlgDef, ChainState, Ctor, Error,
    HostFeatures, InOut, Result, SkcipherImpl,
};
use zeroize::{Zeroize, Zeroizing};

use crate::chacha20::{
    hchacha20, ChaCha20Generic, CHACHA_BLOCK_SIZE, CHACHA_IV_SIZE, CHACHA_KEY_SIZE,
    XCHACHA_NONCE_SIZE,
};
use crate::poly1305::{Poly1305, POLY1305_EXPORT_LEN, POLY1305_KEY_SIZE, POLY1305_TAG_SIZE};
use crate::templates::rfc7539::{
    check_aead_text, check_chachapoly_authsize, len_block, pad16, tags_equal,
};

const DRIVER: &str = "xchacha20poly1305-generic";

/// State layout: ChaCha20 chaining state (inner IV, counter advanced).
const CHAIN: std::ops::Range<usize> = 0..16;
/// State layout: the HChaCha20 subkey.
const SUBKEY: std::ops::Range<usize> = 16..48;
/// State layout: the one-time Poly1305 key.
const POLY_KEY: std::ops::Range<usize> = 48..80;
/// State layout: AAD and text lengths (u64 lanes).
const LANE_AAD: usize = 10;
const LANE_TEXT: usize = 11;
/// State layout: the running Poly1305 state, exported.
const POLY_AT: usize = 96;
const POLY: std::ops::Range<usize> = POLY_AT..POLY_AT + POLY1305_EXPORT_LEN;

/// The two halves of a 24-byte nonce (draft-irtf-cfrg-xchacha-03 §2): the HChaCha20 input
/// `nonce[0..16]`, and the 12-byte RFC 8439 nonce `0^4 || nonce[16..24]` of the request
/// under the subkey. Every `xchacha20poly1305` driver splits its nonce here.
pub(crate) fn split_nonce(nonce: &[u8; XCHACHA_NONCE_SIZE]) -> ([u8; 16], [u8; 12]) {
    let mut hchacha = [0u8; 16];
    hchacha.copy_from_slice(&nonce[..16]);
    let mut inner = [0u8; 12];
    inner[4..].copy_from_slice(&nonce[16..]);
    (hchacha, inner)
}

/// The portable XChaCha20-Poly1305 AEAD.
#[derive(Default)]
pub struct XChaCha20Poly1305Generic {
    key: Zeroizing<[u8; CHACHA_KEY_SIZE]>,
    keyed: bool,
}

impl XChaCha20Poly1305Generic {
    /// An unkeyed driver.
    pub fn new() -> XChaCha20Poly1305Generic {
        XChaCha20Poly1305Generic::default()
    }

    /// The subkey, the one-time Poly1305 key and the text's IV (block 1) of a request
    /// under `nonce`.
    #[allow(clippy::type_complexity)]
    fn derive(
        &self,
        nonce: &[u8],
    ) -> Result<(
        Zeroizing<[u8; CHACHA_KEY_SIZE]>,
        Zeroizing<[u8; POLY1305_KEY_SIZE]>,
        [u8; CHACHA_IV_SIZE],
    )> {
        if !self.keyed {
            return Err(Error::NoKey);
        }
        let nonce: &[u8; XCHACHA_NONCE_SIZE] =
            nonce.try_into().map_err(|_| Error::InvalidIvLength {
                len: nonce.len(),
                expected: XCHACHA_NONCE_SIZE,
            })?;
        let (hn, inner) = split_nonce(nonce);
        let subkey = Zeroizing::new(hchacha20(&self.key, &hn));
        let mut iv = [0u8; CHACHA_IV_SIZE];
        iv[4..].copy_from_slice(&inner);
        let mut block0 = Zeroizing::new([0u8; CHACHA_BLOCK_SIZE]);
        ChaCha20Generic::with_key(&subkey).encrypt(&iv, &mut *block0)?;
        let mut pk = Zeroizing::new([0u8; POLY1305_KEY_SIZE]);
        pk.copy_from_slice(&block0[..POLY1305_KEY_SIZE]);
        iv[..4].copy_from_slice(&1u32.to_le_bytes());
        Ok((subkey, pk, iv))
    }

    /// The request's cipher from the subkey kept in `state`.
    fn chacha(state: &AeadState) -> ChaCha20Generic {
        let mut k = Zeroizing::new([0u8; CHACHA_KEY_SIZE]);
        k.copy_from_slice(&state.bytes[SUBKEY]);
        ChaCha20Generic::with_key(&k)
    }

    /// Runs `f` on the Poly1305 state kept in `state`, and stores it back.
    fn with_poly(state: &mut AeadState, f: impl FnOnce(&mut Poly1305)) {
        let mut k = Zeroizing::new([0u8; POLY1305_KEY_SIZE]);
        k.copy_from_slice(&state.bytes[POLY_KEY]);
        let mut p = Poly1305::new(&k);
        // Always our own export: it cannot fail.
        let imported = p.import(&state.bytes[POLY]);
        debug_assert!(imported.is_ok());
        f(&mut p);
        state.bytes[POLY].copy_from_slice(&p.export());
    }

    /// Applies the keystream to a run, advancing the chaining state in `state`.
    fn crypt(state: &mut AeadState, data: InOut<'_>, tail: bool) {
        let c = Self::chacha(state);
        let mut chain: ChainState = [0; 16];
        chain.copy_from_slice(&state.bytes[CHAIN]);
        match (data, tail) {
            (InOut::InPlace(b), false) => c.encrypt_blocks(&mut chain, b),
            (InOut::InPlace(b), true) => c.encrypt_tail(&mut chain, b),
            (InOut::Split { src, dst }, false) => c.encrypt_blocks_to(&mut chain, src, dst),
            (InOut::Split { src, dst }, true) => c.encrypt_tail_to(&mut chain, src, dst),
        }
        state.bytes[CHAIN].copy_from_slice(&chain);
        chain.zeroize();
    }

    fn output<'a>(data: &'a InOut<'_>) -> &'a [u8] {
        match data {
            InOut::InPlace(b) => b,
            InOut::Split { dst, .. } => dst,
        }
    }
}

impl AeadImpl for XChaCha20Poly1305Generic {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        check_key_len(DRIVER, key, &[CHACHA_KEY_SIZE])?;
        self.key.copy_from_slice(key);
        self.keyed = true;
        Ok(())
    }

    fn check_authsize(&self, authsize: usize) -> Result<()> {
        check_chachapoly_authsize(DRIVER, authsize)
    }

    fn chunk_size(&self) -> usize {
        CHACHA_BLOCK_SIZE
    }

    /// Poly1305 buffers partial blocks itself.
    fn aad_chunk_size(&self) -> usize {
        1
    }

    fn start(&self, state: &mut AeadState, nonce: &[u8], lens: AeadLens) -> Result<()> {
        check_aead_text(lens.text)?;
        let (subkey, pk, iv) = self.derive(nonce)?;
        state.bytes[CHAIN].copy_from_slice(&iv);
        state.bytes[SUBKEY].copy_from_slice(&*subkey);
        state.bytes[POLY_KEY].copy_from_slice(&*pk);
        state.set_lane(LANE_AAD, lens.aad as u64);
        state.set_lane(LANE_TEXT, lens.text as u64);
        state.bytes[POLY].copy_from_slice(&Poly1305::new(&pk).export());
        Ok(())
    }

    fn absorb_aad(&self, state: &mut AeadState, aad: &[u8]) {
        Self::with_poly(state, |p| p.update(aad));
    }

    fn absorb_aad_tail(&self, state: &mut AeadState, tail: &[u8]) {
        let pad = pad16(state.lane(LANE_AAD));
        Self::with_poly(state, |p| {
            p.update(tail);
            p.update(pad);
        });
    }

    fn encrypt_chunks(&self, state: &mut AeadState, mut data: InOut<'_>) {
        Self::crypt(state, data.reborrow(), false);
        Self::with_poly(state, |p| p.update(Self::output(&data)));
    }

    fn decrypt_chunks(&self, state: &mut AeadState, data: InOut<'_>) {
        Self::with_poly(state, |p| p.update(data.input()));
        Self::crypt(state, data, false);
    }

    fn encrypt_tail(&self, state: &mut AeadState, mut data: InOut<'_>) {
        Self::crypt(state, data.reborrow(), true);
        let pad = pad16(state.lane(LANE_TEXT));
        Self::with_poly(state, |p| {
            p.update(Self::output(&data));
            p.update(pad);
        });
    }

    fn decrypt_tail(&self, state: &mut AeadState, data: InOut<'_>) {
        let pad = pad16(state.lane(LANE_TEXT));
        Self::with_poly(state, |p| {
            p.update(data.input());
            p.update(pad);
        });
        Self::crypt(state, data, true);
    }

    fn finish(&self, state: &mut AeadState, tag: &mut [u8]) {
        let lens = len_block(state.lane(LANE_AAD), state.lane(LANE_TEXT));
        let mut out = [0u8; POLY1305_TAG_SIZE];
        Self::with_poly(state, |p| {
            p.update(&lens);
            out = p.clone().finalize();
        });
        let n = tag.len().min(POLY1305_TAG_SIZE);
        tag[..n].copy_from_slice(&out[..n]);
        out.zeroize();
    }

    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &mut [u8]) -> Result<()> {
        self.check_authsize(tag.len())?;
        check_aead_text(data.len())?;
        let (subkey, pk, iv) = self.derive(nonce)?;
        let mut poly = Poly1305::new(&pk);
        ChaCha20Generic::with_key(&subkey).encrypt(&iv, data)?;
        mac(&mut poly, aad, data);
        tag.copy_from_slice(&poly.finalize());
        Ok(())
    }

    /// Verifies before decrypting; on failure `data` is wiped (it never held plaintext).
    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        self.check_authsize(tag.len())?;
        check_aead_text(data.len())?;
        let (subkey, pk, iv) = self.derive(nonce)?;
        let mut poly = Poly1305::new(&pk);
        mac(&mut poly, aad, data);
        let mut mine = poly.finalize();
        let ok = tags_equal(&mine, tag);
        mine[..].zeroize();
        if !ok {
            // Nothing was decrypted; the buffer is wiped as the trait's contract says.
            data.zeroize();
            return Err(Error::BadMessage);
        }
        ChaCha20Generic::with_key(&subkey).decrypt(&iv, data)
    }
}

/// AAD, padding, ciphertext, padding, lengths.
fn mac(p: &mut Poly1305, aad: &[u8], ct: &[u8]) {
    p.update(aad);
    p.update(pad16(aad.len() as u64));
    p.update(ct);
    p.update(pad16(ct.len() as u64));
    p.update(&len_block(aad.len() as u64, ct.len() as u64));
}

/// Portable: needs no CPU feature.
fn make(_: &HostFeatures) -> Result<Box<dyn AeadImpl>> {
    Ok(Box::new(XChaCha20Poly1305Generic::new()))
}

inventory::submit! {
    AlgDef::new("xchacha20poly1305", DRIVER, 100, Ctor::Aead(make))
        .block_size(1)
        .key_sizes(CHACHA_KEY_SIZE, CHACHA_KEY_SIZE)
        .iv_size(XCHACHA_NONCE_SIZE)
        .out_size(POLY1305_TAG_SIZE)
}
