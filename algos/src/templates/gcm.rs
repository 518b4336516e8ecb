//! The `gcm_base` and `gcm` templates (NIST SP 800-38D), after the kernel's `crypto/gcm.c`:
//! GCM composed from a `ctr(aes)` skcipher and a `ghash` hash, whatever drivers serve them.
//!
//! | request | resolved as | algorithm name | driver name, e.g. | priority |
//! | --- | --- | --- | --- | --- |
//! | `gcm_base(ctr(aes),ghash)` | itself | `gcm(aes)` | `gcm_base(ctr-aes-aesni,ghash-clmulni)` | (ctr + ghash) / 2 |
//! | `gcm(aes)` | `gcm_base(ctr(aes),ghash)` | `gcm(aes)` | `gcm_base(ctr(aes-generic),ghash-generic)` | (ctr + ghash) / 2 |
//! | `gcm(aes-generic)` | `gcm_base(ctr(aes-generic),ghash-generic)` | `gcm(aes)` | the reference | 100 |
//!
//! `gcm(X)` is a rewriting template (`Template::rewrite`): one argument, two children. As
//! the kernel's, it asks for the best `ghash`, except that when every leaf of `X` is a
//! generic driver it asks for `ghash-generic`, so `gcm(aes-generic)` (what
//! `build_generic_driver_name("gcm(aes)")` gives) is the all-portable reference rather than
//! generic AES under a SIMD GHASH.
//!
//! The construction, with the rules of [`crate::aes::gcm_rules`] (12-byte nonce, tags of 4, 8,
//! 12..=16 bytes, SP 800-38D length limits checked in `start`, 16/24/32-byte keys):
//!
//! - `set_key`: the CTR child takes the AES key; H = E(K, 0^128) is the first keystream
//!   block of the CTR child under an all-zero counter block; the GHASH child is keyed with
//!   H, and H is wiped.
//! - a request: J0 = nonce || 1; E(K, J0) (the tag mask) is the keystream of counter J0;
//!   the text runs through CTR from J0 + 1 (the child's 128-bit increment equals GCM's
//!   32-bit one because at most 2^32 - 2 blocks are allowed); GHASH runs over the AAD
//!   padded with zeros to a block, the ciphertext padded likewise, and the length block;
//!   tag = (GHASH ^ E(K, J0)) truncated to the authsize.
//!
//! **Where the GHASH running state lives.** The streaming interface keeps the per-request
//! state in an [`AeadState`] (256 bytes, on the caller's stack, wiped on drop) and calls
//! the driver through `&self`, but a hash child's running state is a boxed
//! [`HashState`]. The template keeps the child's *exported* state (`HashState::export`)
//! in the `AeadState` and imports it into a fresh state around each streaming call: sound
//! (no pointer in the bytes, nothing shared between requests, everything wiped with the
//! `AeadState`) at the cost of an allocation and a copy per call — per contiguous run, not
//! per block, and this is the template, not the fast path. The one-shot `seal` and `open`
//! keep one live state instead and cost nothing extra. A child whose export does not fit
//! (over [`GHASH_STATE_MAX`] bytes) is refused by `start`; one whose `import` refuses its
//! own export marks the request poisoned, which fails verification and yields an all-zero
//! tag (a broken child, caught by the known answers).
//!
//! Constant time: the template adds no branch or index on secret data; the children are
//! the constant-time ones they are. Key-dependent values (H, E(K, J0), the GHASH state)
//! are wiped: H here, the rest with the `AeadState` and the children's states.

use std::sync::Arc;

use crate::aead::tag::tags_equal;
use cryptoreg_registry::names::leaves;
use cryptoreg_registry::{
    check_key_len, inventory, AeadImpl, AeadLens, AeadState, AlgType, Builder, ChainState, Child,
    DriverInfo, Error, Factory, HashImpl, HashState, HostFeatures, InOut, Result, Sizes,
    SkcipherImpl, Template,
};
use zeroize::{Zeroize, Zeroizing};

use crate::aes::gcm_rules::{
    check_gcm_authsize, check_gcm_lens, gcm_j0, gcm_len_block, GCM_KEY_SIZES, GCM_NONCE_LEN,
    GCM_TAG_LEN,
};

/// GHASH works on 16-byte blocks, and H and the counter blocks are one block.
const BLOCK: usize = 16;

/// The most bytes of exported GHASH state the [`AeadState`] holds (its bytes 64..256).
pub const GHASH_STATE_MAX: usize = 192;

// The layout of the `AeadState` bytes (see the module docs).
/// The CTR child's chaining state (its next counter block, opaque to the template).
const CTR_AT: usize = 0;
/// E(K, J0), the tag mask.
const MASK_AT: usize = 16;
/// u64 lanes: AAD length, text length, exported GHASH length, poisoned flag.
const AAD_LANE: usize = 4;
const TEXT_LANE: usize = 5;
const GHASH_LEN_LANE: usize = 6;
const POISON_LANE: usize = 7;
/// Where the exported GHASH state starts.
const GHASH_AT: usize = 64;

/// Zeros for padding AAD and ciphertext to a block.
const ZEROS: [u8; BLOCK] = [0; BLOCK];

/// Bytes of zero padding after `len` bytes.
fn pad_len(len: u64) -> usize {
    (BLOCK - (len % BLOCK as u64) as usize) % BLOCK
}

/// A one-shot request under way: E(K, J0), the first text counter block (both wiped on
/// drop) and the live GHASH state.
type OneShot = (
    Zeroizing<[u8; BLOCK]>,
    Zeroizing<[u8; BLOCK]>,
    Box<dyn HashState>,
);

/// GCM over a CTR skcipher and a GHASH hash (the kernel's `gcm_base`).
pub struct GcmBase {
    /// The instance's driver name, for errors.
    driver: String,
    ctr: Box<dyn SkcipherImpl>,
    ghash: Box<dyn HashImpl>,
}

impl GcmBase {
    /// Wraps an unkeyed `ctr(aes)` skcipher and an unkeyed `ghash`; `driver` names the
    /// result in errors. The CTR child must take 16-byte IVs and chunks of at most 64
    /// bytes; `start` refuses requests the child would split differently.
    pub fn new(driver: String, ctr: Box<dyn SkcipherImpl>, ghash: Box<dyn HashImpl>) -> GcmBase {
        GcmBase { driver, ctr, ghash }
    }

    /// The keystream block of counter block `counter` (E(K, counter)), from the CTR child.
    fn keystream_block(&self, counter: &[u8; BLOCK]) -> Result<[u8; BLOCK]> {
        let mut block = [0u8; BLOCK];
        self.ctr.encrypt(counter, &mut block)?;
        Ok(block)
    }

    /// The request setup shared by the streaming and one-shot paths: the checks, E(K, J0)
    /// and the first text counter block J0 + 1. The caller wipes both.
    fn begin(&self, nonce: &[u8], lens: &AeadLens) -> Result<([u8; BLOCK], [u8; BLOCK])> {
        check_gcm_lens(lens)?;
        check_gcm_authsize(&self.driver, lens.authsize)?;
        let Some(j0) = gcm_j0(nonce) else {
            return Err(Error::InvalidIvLength {
                len: nonce.len(),
                expected: GCM_NONCE_LEN,
            });
        };
        // The walker hands the text tail (the last `text % chunk` bytes) to one tail call;
        // a CTR child that wants a different split is not one GCM can drive.
        let chunk = self.chunk_size();
        if self.ctr.tail_len(lens.text)? != lens.text % chunk {
            return Err(Error::InvalidLength {
                len: lens.text,
                reason: "the ctr child of gcm_base splits its tail unlike its chunk size",
            });
        }
        let mask = self.keystream_block(&j0)?;
        let mut first = j0;
        first[15] = 2;
        Ok((mask, first))
    }

    /// Runs `f` on the request's GHASH running state, imported from and exported back to
    /// `state` (see the module docs).
    fn with_ghash(&self, state: &mut AeadState, f: impl FnOnce(&mut dyn HashState)) {
        let mut st = self.ghash.init();
        let len = (state.lane(GHASH_LEN_LANE) as usize).min(GHASH_STATE_MAX);
        if st.import(&state.bytes[GHASH_AT..GHASH_AT + len]).is_err() {
            state.set_lane(POISON_LANE, 1);
            return;
        }
        f(st.as_mut());
        save_ghash(state, st.as_ref());
    }

    /// The tag into `tag` (its length, at most 16 bytes), ending the GHASH state `st`.
    fn tag_from(st: Box<dyn HashState>, lens: (u64, u64), mask: &[u8], tag: &mut [u8]) {
        let mut st = st;
        st.update(&gcm_len_block(lens.0, lens.1));
        let mut s = [0u8; BLOCK];
        st.finalize(&mut s);
        for (t, (x, m)) in tag.iter_mut().zip(s.iter().zip(mask)) {
            *t = x ^ m;
        }
        s.zeroize();
    }

    /// CTR over whole chunks of `data`, in place or from source to destination.
    fn ctr_chunks(&self, chain: &mut ChainState, data: InOut<'_>) {
        match data {
            InOut::InPlace(buf) => self.ctr.encrypt_blocks(chain, buf),
            InOut::Split { src, dst } => {
                let n = src.len().min(dst.len());
                self.ctr.encrypt_blocks_to(chain, &src[..n], &mut dst[..n]);
            }
        }
    }

    /// CTR over the text tail.
    fn ctr_tail(&self, chain: &mut ChainState, data: InOut<'_>) {
        match data {
            InOut::InPlace(buf) => self.ctr.encrypt_tail(chain, buf),
            InOut::Split { src, dst } => {
                let n = src.len().min(dst.len());
                self.ctr.encrypt_tail_to(chain, &src[..n], &mut dst[..n]);
            }
        }
    }

    /// Runs `f` with the CTR chaining state kept in `state`.
    fn with_ctr(&self, state: &mut AeadState, f: impl FnOnce(&mut ChainState)) {
        let mut chain: ChainState = [0; BLOCK];
        chain.copy_from_slice(&state.bytes[CTR_AT..CTR_AT + BLOCK]);
        f(&mut chain);
        state.bytes[CTR_AT..CTR_AT + BLOCK].copy_from_slice(&chain);
        chain.zeroize();
    }

    /// The AAD and text lengths of the request.
    fn lens_of(state: &AeadState) -> (u64, u64) {
        (state.lane(AAD_LANE), state.lane(TEXT_LANE))
    }

    /// Starts a one-shot request: the checks, the mask, the first counter, a live GHASH
    /// state that has absorbed the padded AAD.
    fn one_shot_start(
        &self,
        nonce: &[u8],
        aad: &[u8],
        text: usize,
        authsize: usize,
    ) -> Result<OneShot> {
        let lens = AeadLens {
            aad: aad.len(),
            text,
            authsize,
        };
        let (mask, first) = self.begin(nonce, &lens)?;
        let mut st = self.ghash.init();
        st.update(aad);
        st.update(&ZEROS[..pad_len(aad.len() as u64)]);
        Ok((Zeroizing::new(mask), Zeroizing::new(first), st))
    }
}

/// Stores the exported GHASH state in `state`, or poisons the request if it does not fit.
fn save_ghash(state: &mut AeadState, st: &dyn HashState) {
    let exported = st.export();
    if exported.len() > GHASH_STATE_MAX {
        state.set_lane(POISON_LANE, 1);
        return;
    }
    state.bytes[GHASH_AT..GHASH_AT + exported.len()].copy_from_slice(&exported);
    state.set_lane(GHASH_LEN_LANE, exported.len() as u64);
}

impl AeadImpl for GcmBase {
    /// Keys the CTR child with the AES key and the GHASH child with H = E(K, 0^128).
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        check_key_len(&self.driver, key, &GCM_KEY_SIZES)?;
        self.ctr.set_key(key)?;
        let mut h = self.keystream_block(&[0; BLOCK])?;
        let keyed = self.ghash.set_key(&h);
        h.zeroize();
        keyed
    }

    /// 4, 8 and 12..=16 bytes.
    fn check_authsize(&self, authsize: usize) -> Result<()> {
        check_gcm_authsize(&self.driver, authsize)
    }

    /// The CTR child's granularity (16 bytes for the `ctr` template).
    fn chunk_size(&self) -> usize {
        self.ctr.chunk_size().clamp(1, 64)
    }

    /// 1: the GHASH child buffers partial blocks itself, so AAD pieces come unbounced
    /// (and the padding goes in after the last one, where the total length says).
    fn aad_chunk_size(&self) -> usize {
        1
    }

    fn start(&self, state: &mut AeadState, nonce: &[u8], lens: AeadLens) -> Result<()> {
        let (mut mask, mut first) = self.begin(nonce, &lens)?;
        let mut chain: ChainState = [0; BLOCK];
        let started = self.ctr.start(&first, &mut chain);
        state.bytes[CTR_AT..CTR_AT + BLOCK].copy_from_slice(&chain);
        state.bytes[MASK_AT..MASK_AT + BLOCK].copy_from_slice(&mask);
        mask.zeroize();
        first.zeroize();
        chain.zeroize();
        started?;
        state.set_lane(AAD_LANE, lens.aad as u64);
        state.set_lane(TEXT_LANE, lens.text as u64);
        state.set_lane(POISON_LANE, 0);
        let exported = self.ghash.init().export();
        if exported.len() > GHASH_STATE_MAX {
            return Err(Error::InvalidLength {
                len: exported.len(),
                reason: "the ghash child's running state does not fit gcm_base's request state",
            });
        }
        state.bytes[GHASH_AT..GHASH_AT + exported.len()].copy_from_slice(&exported);
        state.set_lane(GHASH_LEN_LANE, exported.len() as u64);
        Ok(())
    }

    fn absorb_aad(&self, state: &mut AeadState, aad: &[u8]) {
        self.with_ghash(state, |st| st.update(aad));
    }

    fn absorb_aad_tail(&self, state: &mut AeadState, tail: &[u8]) {
        let pad = pad_len(Self::lens_of(state).0);
        self.with_ghash(state, |st| {
            st.update(tail);
            st.update(&ZEROS[..pad]);
        });
    }

    /// CTR, then GHASH over the ciphertext just written.
    fn encrypt_chunks(&self, state: &mut AeadState, mut data: InOut<'_>) {
        self.with_ctr(state, |chain| self.ctr_chunks(chain, data.reborrow()));
        let out = data.into_output();
        self.with_ghash(state, |st| st.update(out));
    }

    /// GHASH over the ciphertext, then CTR.
    fn decrypt_chunks(&self, state: &mut AeadState, data: InOut<'_>) {
        self.with_ghash(state, |st| st.update(data.input()));
        self.with_ctr(state, |chain| self.ctr_chunks(chain, data));
    }

    fn encrypt_tail(&self, state: &mut AeadState, mut data: InOut<'_>) {
        self.with_ctr(state, |chain| self.ctr_tail(chain, data.reborrow()));
        let pad = pad_len(Self::lens_of(state).1);
        let out = data.into_output();
        self.with_ghash(state, |st| {
            st.update(out);
            st.update(&ZEROS[..pad]);
        });
    }

    fn decrypt_tail(&self, state: &mut AeadState, data: InOut<'_>) {
        let pad = pad_len(Self::lens_of(state).1);
        self.with_ghash(state, |st| {
            st.update(data.input());
            st.update(&ZEROS[..pad]);
        });
        self.with_ctr(state, |chain| self.ctr_tail(chain, data));
    }

    fn finish(&self, state: &mut AeadState, tag: &mut [u8]) {
        let mut st = self.ghash.init();
        let len = (state.lane(GHASH_LEN_LANE) as usize).min(GHASH_STATE_MAX);
        if state.lane(POISON_LANE) != 0
            || st.import(&state.bytes[GHASH_AT..GHASH_AT + len]).is_err()
        {
            state.set_lane(POISON_LANE, 1);
            tag.fill(0);
            return;
        }
        let mask = state.bytes[MASK_AT..MASK_AT + BLOCK].to_vec();
        let mask = Zeroizing::new(mask);
        Self::tag_from(st, Self::lens_of(state), &mask, tag);
    }

    /// The default comparison, refusing a poisoned request whatever the tag.
    fn verify(&self, state: &mut AeadState, tag: &[u8]) -> Result<()> {
        let mut computed = Zeroizing::new([0u8; GCM_TAG_LEN]);
        let Some(mine) = computed.get_mut(..tag.len()) else {
            return Err(Error::BadMessage);
        };
        self.finish(state, mine);
        let equal = tags_equal(mine, tag);
        if equal && state.lane(POISON_LANE) == 0 {
            Ok(())
        } else {
            Err(Error::BadMessage)
        }
    }

    /// One pass of the CTR child's own one-shot call, GHASH over the result, with one live
    /// GHASH state (no export/import).
    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &mut [u8]) -> Result<()> {
        let (mask, first, mut st) = self.one_shot_start(nonce, aad, data.len(), tag.len())?;
        self.ctr.encrypt(&first[..], data)?;
        st.update(data);
        st.update(&ZEROS[..pad_len(data.len() as u64)]);
        Self::tag_from(st, (aad.len() as u64, data.len() as u64), &mask[..], tag);
        Ok(())
    }

    /// Verifies first and decrypts only an authentic message, so a forgery never has its
    /// plaintext computed; `data` is wiped on failure all the same (the trait's contract).
    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        let (mask, first, mut st) = self.one_shot_start(nonce, aad, data.len(), tag.len())?;
        st.update(data);
        st.update(&ZEROS[..pad_len(data.len() as u64)]);
        let mut computed = Zeroizing::new([0u8; GCM_TAG_LEN]);
        let Some(mine) = computed.get_mut(..tag.len()) else {
            data.zeroize();
            return Err(Error::BadMessage);
        };
        Self::tag_from(st, (aad.len() as u64, data.len() as u64), &mask[..], mine);
        if !tags_equal(mine, tag) {
            data.zeroize();
            return Err(Error::BadMessage);
        }
        self.ctr.decrypt(&first[..], data)
    }
}

/// The output of a run after the cipher wrote it (the buffer, or the destination).
trait IntoOutput<'a> {
    fn into_output(self) -> &'a [u8];
}

impl<'a> IntoOutput<'a> for InOut<'a> {
    fn into_output(self) -> &'a [u8] {
        match self {
            InOut::InPlace(b) => b,
            InOut::Split { src, dst } => &dst[..src.len().min(dst.len())],
        }
    }
}

/// GCM straight over a CTR and a GHASH constructor, outside the registry (tests and the
/// test-only drivers).
pub fn gcm_over(
    driver: &str,
    ctr: Box<dyn SkcipherImpl>,
    ghash: Box<dyn HashImpl>,
) -> Box<dyn AeadImpl> {
    Box::new(GcmBase::new(driver.to_string(), ctr, ghash))
}

/// Builds `gcm_base(<ctr>,<ghash>)` over a resolved `ctr(...)` skcipher and a `ghash`:
/// algorithm `gcm(<cipher>)` (the CTR child's algorithm name with `ctr` replaced by
/// `gcm`, as the kernel's `crypto_gcm_create_common` does), driver
/// `gcm_base(<ctr driver>,<ghash driver>)`, priority (ctr + ghash) / 2, keys of 16 to 32
/// bytes, a 12-byte nonce, a 16-byte tag, block size 1.
pub fn create_base(children: &[Child]) -> Result<DriverInfo> {
    let [ctr, ghash] = children else {
        return Err(Error::NotFound(format!(
            "gcm_base: takes two arguments, got {}",
            children.len()
        )));
    };
    let (ci, gi) = (ctr.info(), ghash.info());
    let driver = format!("gcm_base({},{})", ci.driver(), gi.driver());
    let refuse = |why: String| Err(Error::NotFound(format!("{driver}: {why}")));
    let Factory::Skcipher(make_ctr) = ci.factory() else {
        return refuse(format!("{} is not an skcipher", ci.driver()));
    };
    let Factory::Hash(make_ghash) = gi.factory() else {
        return refuse(format!("{} is not a hash", gi.driver()));
    };
    let Some(cipher) = ci
        .name()
        .strip_prefix("ctr(")
        .and_then(|s| s.strip_suffix(')'))
        .filter(|s| !s.is_empty())
    else {
        return refuse(format!("{} is {}, not a ctr(...)", ci.driver(), ci.name()));
    };
    if ci.iv_size() != BLOCK {
        return refuse(format!("{} takes no 16-byte counter block", ci.driver()));
    }
    if gi.name() != "ghash" || gi.out_size() != BLOCK {
        return refuse(format!("{} is not a 16-byte ghash", gi.driver()));
    }
    let (make_ctr, make_ghash): (Builder<dyn SkcipherImpl>, Builder<dyn HashImpl>) =
        (Arc::clone(make_ctr), Arc::clone(make_ghash));
    let error_name = driver.clone();
    Ok(DriverInfo::instance(
        format!("gcm({cipher})"),
        driver,
        (ctr.priority() + ghash.priority()) / 2,
        Sizes {
            block: 1,
            min_key: GCM_KEY_SIZES[0],
            max_key: GCM_KEY_SIZES[2],
            iv: GCM_NONCE_LEN,
            out: GCM_TAG_LEN,
        },
        Factory::Aead(Arc::new(move |host: &HostFeatures| {
            Ok(gcm_over(&error_name, make_ctr(host)?, make_ghash(host)?))
        })),
        children,
    ))
}

/// `gcm(X)` is `gcm_base(ctr(X),ghash)`, or `gcm_base(ctr(X),ghash-generic)` when every
/// leaf of `X` is generic (see the module docs).
pub fn rewrite_gcm(args: &[&str]) -> String {
    let arg = args.first().copied().unwrap_or_default();
    let all_generic = leaves(arg).is_ok_and(|l| l.iter().all(|l| l.ends_with("-generic")));
    let ghash = if all_generic {
        "ghash-generic"
    } else {
        "ghash"
    };
    format!("gcm_base(ctr({arg}),{ghash})")
}

/// `gcm` is only ever resolved through [`rewrite_gcm`].
fn create_gcm(_: &[Child]) -> Result<DriverInfo> {
    Err(Error::NotFound(
        "gcm(X) is resolved as gcm_base(ctr(X),ghash)".to_string(),
    ))
}

inventory::submit! {
    Template {
        name: "gcm_base",
        child_request: |arg| arg.to_string(),
        child_types: &[AlgType::Skcipher, AlgType::Hash],
        create: create_base,
        rewrite: None,
    }
}

inventory::submit! {
    Template {
        name: "gcm",
        child_request: |arg| arg.to_string(),
        child_types: &[AlgType::Skcipher],
        create: create_gcm,
        rewrite: Some(rewrite_gcm),
    }
}
