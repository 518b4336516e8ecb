//! The `rfc7539` AEAD template (RFC 8439 §2.8), after the kernel's
//! `crypto/chacha20poly1305.c`, and the state machine it shares with `rfc7539esp`.
//!
//! `rfc7539(chacha20,poly1305)` is built over a `chacha20` skcipher and a `poly1305`
//! hash: driver `rfc7539(<chacha driver>,<poly driver>)`, priority the average of the
//! children's (as the kernel through 6.15).
//!
//! - **Key** 32 bytes (the ChaCha20 key); **nonce** 12 bytes; **tag 16 bytes only**: the
//!   kernel's `chachapoly_setauthsize` refuses every other authsize, and so do we
//!   (a truncated Poly1305 tag is not what RFC 8439 defines).
//! - Block 0 of the keystream (counter 0, the nonce) gives the one-time Poly1305 key
//!   (its first 32 bytes); the text is encrypted from block 1. A request whose text would
//!   pass block 2^32 - 1 (more than (2^32 - 1) * 64 bytes) is
//!   [`Error::InvalidLength`] from `start`, before any byte is written.
//! - The MAC input is AAD, zeros to a 16-byte boundary, ciphertext, zeros to a 16-byte
//!   boundary, then the AAD and text lengths as 64-bit little-endian numbers.
//!
//! **Per-request state, decided.** The Poly1305 child is a [`HashImpl`] whose key is the
//! per-request one-time key, so the streaming path keeps in the caller's [`AeadState`]
//! the ChaCha20 chaining state, the one-time key and the child's *exported* running state
//! ([`HashState::export`]), and every streaming call builds a child state from them
//! (keyed with `set_key`, then `import`) and exports it again. That costs a few heap
//! allocations per call, never per byte, and keeps the instance itself immutable and
//! shareable. The contiguous `seal` / `open` keep one child state for the whole request
//! instead, and `open` verifies the tag before it decrypts anything. A child whose export
//! is larger than the room left in the state ([`EXPORT_ROOM`] bytes) is refused at
//! `start`.

use std::sync::Arc;

use cryptoreg_registry::{
    inventory, AeadImpl, AeadLens, AeadState, AlgType, Builder, ChainState, Child, DriverInfo,
    Error, Factory, HashImpl, HashState, HostFeatures, InOut, Result, Sizes, SkcipherImpl,
    Template,
};
use zeroize::{Zeroize, Zeroizing};

use crate::chacha20::{
    check_counter_room, CHACHA_BLOCK_SIZE, CHACHA_IV_SIZE, CHACHA_KEY_SIZE, CHACHA_NONCE_SIZE,
};
use crate::poly1305::{POLY1305_KEY_SIZE, POLY1305_TAG_SIZE};

/// The ESP salt length (RFC 7634 §2: the last 4 bytes of the key).
pub const ESP_SALT_SIZE: usize = 4;
/// The ESP explicit IV (the request's nonce) length.
pub const ESP_IV_SIZE: usize = 8;

/// State layout: ChaCha20 chaining state.
const CHAIN: std::ops::Range<usize> = 0..16;
/// State layout: the one-time Poly1305 key.
const POLY_KEY: std::ops::Range<usize> = 16..48;
/// State layout: AAD length, text length (u64 lanes 6 and 7).
const LANE_AAD: usize = 6;
const LANE_TEXT: usize = 7;
/// State layout: flags (bit 0: a child call failed; the tag will not verify).
const FLAGS: usize = 64;
/// State layout: the exported child state's length (u16 LE) and bytes.
const EXPORT_LEN: std::ops::Range<usize> = 66..68;
const EXPORT_AT: usize = 68;
/// Room for the Poly1305 child's exported state.
pub const EXPORT_ROOM: usize = cryptoreg_registry::AEAD_STATE_SIZE - EXPORT_AT;

/// Which of the two constructions an instance is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavor {
    /// RFC 8439: 32-byte key, 12-byte nonce.
    Rfc7539,
    /// RFC 7634: 36-byte key (key || salt), 8-byte explicit IV, nonce = salt || IV; AAD of
    /// 8 or 12 bytes (SPI and sequence number, or SPI, high and low ESN halves).
    Esp,
}

/// ChaCha20-Poly1305 over a `chacha20` child and a factory of `poly1305` children.
pub struct ChaChaPoly {
    chacha: Box<dyn SkcipherImpl>,
    make_poly: Builder<dyn HashImpl>,
    host: HostFeatures,
    flavor: Flavor,
    salt: Zeroizing<[u8; ESP_SALT_SIZE]>,
    keyed: bool,
}

pub(crate) use crate::aead::tag::tags_equal;

/// The one tag size of every ChaCha20-Poly1305 driver: 16 bytes, as the kernel's
/// `chachapoly_setauthsize` (the template, the fused drivers, `xchacha20poly1305`).
pub(crate) fn check_chachapoly_authsize(driver: &str, authsize: usize) -> Result<()> {
    if authsize == POLY1305_TAG_SIZE {
        Ok(())
    } else {
        Err(Error::InvalidAuthsize {
            driver: driver.to_string(),
            len: authsize,
        })
    }
}

/// The MAC's last block: AAD and text lengths, 64-bit little-endian each.
pub(crate) fn len_block(aad: u64, text: u64) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&aad.to_le_bytes());
    b[8..].copy_from_slice(&text.to_le_bytes());
    b
}

/// Zeros to pad `len` bytes to a 16-byte boundary.
pub(crate) fn pad16(len: u64) -> &'static [u8] {
    const ZEROS: [u8; 16] = [0; 16];
    &ZEROS[..((16 - (len % 16)) % 16) as usize]
}

/// Refuses text that would pass block 2^32 - 1 when it starts at block 1.
pub(crate) fn check_aead_text(text: usize) -> Result<()> {
    check_counter_room(1, text)
}

impl ChaChaPoly {
    fn driver(&self) -> &'static str {
        match self.flavor {
            Flavor::Rfc7539 => "rfc7539",
            Flavor::Esp => "rfc7539esp",
        }
    }

    /// The 12-byte RFC 8439 nonce of a request.
    fn nonce12(&self, nonce: &[u8]) -> Result<[u8; CHACHA_NONCE_SIZE]> {
        let mut n = [0u8; CHACHA_NONCE_SIZE];
        match self.flavor {
            Flavor::Rfc7539 if nonce.len() == CHACHA_NONCE_SIZE => n.copy_from_slice(nonce),
            Flavor::Esp if nonce.len() == ESP_IV_SIZE => {
                n[..ESP_SALT_SIZE].copy_from_slice(&*self.salt);
                n[ESP_SALT_SIZE..].copy_from_slice(nonce);
            }
            _ => {
                return Err(Error::InvalidIvLength {
                    len: nonce.len(),
                    expected: match self.flavor {
                        Flavor::Rfc7539 => CHACHA_NONCE_SIZE,
                        Flavor::Esp => ESP_IV_SIZE,
                    },
                })
            }
        }
        Ok(n)
    }

    /// Checks a request's lengths (text counter room, the child's chunking, ESP's AAD).
    fn check_lens(&self, lens: &AeadLens) -> Result<()> {
        check_aead_text(lens.text)?;
        if self.flavor == Flavor::Esp && lens.aad != 8 && lens.aad != 12 {
            return Err(Error::InvalidLength {
                len: lens.aad,
                reason: "rfc7539esp AAD is 8 or 12 bytes (SPI, [ESN high,] sequence number)",
            });
        }
        let chunk = self.chacha.chunk_size();
        if chunk == 0
            || chunk > CHACHA_BLOCK_SIZE
            || self.chacha.tail_len(lens.text)? != lens.text % chunk
        {
            return Err(Error::InvalidLength {
                len: lens.text,
                reason: "chacha20 child chunks text unlike a stream cipher",
            });
        }
        Ok(())
    }

    /// The one-time Poly1305 key (block 0) and the IV of the text (block 1).
    fn derive(&self, nonce: &[u8]) -> Result<(Zeroizing<[u8; 64]>, [u8; CHACHA_IV_SIZE])> {
        if !self.keyed {
            return Err(Error::NoKey);
        }
        let n = self.nonce12(nonce)?;
        let mut iv = [0u8; CHACHA_IV_SIZE];
        iv[4..].copy_from_slice(&n);
        let mut block0 = Zeroizing::new([0u8; 64]);
        self.chacha.encrypt(&iv, &mut *block0)?;
        iv[..4].copy_from_slice(&1u32.to_le_bytes());
        Ok((block0, iv))
    }

    /// A keyed child Poly1305 state.
    fn poly_state(&self, key: &[u8]) -> Result<Box<dyn HashState>> {
        let mut h = (self.make_poly)(&self.host)?;
        h.set_key(key)?;
        Ok(h.init())
    }

    /// Runs `f` on the child state kept (exported) in `state`, and exports it back. A
    /// failure marks the state so the tag can never verify.
    fn with_poly(&self, state: &mut AeadState, f: impl FnOnce(&mut dyn HashState)) {
        let ok = (|| -> Result<()> {
            let mut st = self.poly_state(&state.bytes[POLY_KEY])?;
            let n = usize::from(u16::from_le_bytes([
                state.bytes[EXPORT_LEN.start],
                state.bytes[EXPORT_LEN.start + 1],
            ]));
            st.import(&state.bytes[EXPORT_AT..EXPORT_AT + n.min(EXPORT_ROOM)])?;
            f(st.as_mut());
            store_export(state, &st.export())
        })();
        if ok.is_err() {
            state.bytes[FLAGS] |= 1;
        }
    }

    fn text_len(state: &AeadState) -> u64 {
        state.lane(LANE_TEXT)
    }
}

/// Saves an exported child state into the AEAD state.
fn store_export(state: &mut AeadState, export: &[u8]) -> Result<()> {
    if export.len() > EXPORT_ROOM {
        return Err(Error::InvalidLength {
            len: export.len(),
            reason: "poly1305 child's exported state does not fit the AEAD state",
        });
    }
    state.bytes[EXPORT_LEN].copy_from_slice(&(export.len() as u16).to_le_bytes());
    state.bytes[EXPORT_AT..EXPORT_AT + export.len()].copy_from_slice(export);
    Ok(())
}

impl AeadImpl for ChaChaPoly {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        let want = match self.flavor {
            Flavor::Rfc7539 => CHACHA_KEY_SIZE,
            Flavor::Esp => CHACHA_KEY_SIZE + ESP_SALT_SIZE,
        };
        cryptoreg_registry::check_key_len(self.driver(), key, &[want])?;
        self.keyed = false;
        self.chacha.set_key(&key[..CHACHA_KEY_SIZE])?;
        if self.flavor == Flavor::Esp {
            self.salt.copy_from_slice(&key[CHACHA_KEY_SIZE..]);
        }
        self.keyed = true;
        Ok(())
    }

    /// 16 only, as the kernel's `chachapoly_setauthsize`.
    fn check_authsize(&self, authsize: usize) -> Result<()> {
        check_chachapoly_authsize(self.driver(), authsize)
    }

    fn chunk_size(&self) -> usize {
        self.chacha.chunk_size()
    }

    /// AAD only feeds Poly1305, which buffers: pieces as they come.
    fn aad_chunk_size(&self) -> usize {
        1
    }

    fn start(&self, state: &mut AeadState, nonce: &[u8], lens: AeadLens) -> Result<()> {
        self.check_lens(&lens)?;
        let (block0, iv) = self.derive(nonce)?;
        self.chacha.check_request(&iv, lens.text)?;
        let mut chain: ChainState = [0; 16];
        self.chacha.start(&iv, &mut chain)?;
        state.bytes[CHAIN].copy_from_slice(&chain);
        chain.zeroize();
        state.bytes[POLY_KEY].copy_from_slice(&block0[..POLY1305_KEY_SIZE]);
        state.set_lane(LANE_AAD, lens.aad as u64);
        state.set_lane(LANE_TEXT, lens.text as u64);
        let st = self.poly_state(&block0[..POLY1305_KEY_SIZE])?;
        store_export(state, &st.export())
    }

    fn absorb_aad(&self, state: &mut AeadState, aad: &[u8]) {
        self.with_poly(state, |p| p.update(aad));
    }

    fn absorb_aad_tail(&self, state: &mut AeadState, tail: &[u8]) {
        let pad = pad16(state.lane(LANE_AAD));
        self.with_poly(state, |p| {
            p.update(tail);
            p.update(pad);
        });
    }

    fn encrypt_chunks(&self, state: &mut AeadState, data: InOut<'_>) {
        let mut chain: ChainState = [0; 16];
        chain.copy_from_slice(&state.bytes[CHAIN]);
        let ct: &[u8] = match data {
            InOut::InPlace(b) => {
                self.chacha.encrypt_blocks(&mut chain, b);
                b
            }
            InOut::Split { src, dst } => {
                self.chacha.encrypt_blocks_to(&mut chain, src, dst);
                dst
            }
        };
        self.with_poly(state, |p| p.update(ct));
        state.bytes[CHAIN].copy_from_slice(&chain);
        chain.zeroize();
    }

    fn decrypt_chunks(&self, state: &mut AeadState, data: InOut<'_>) {
        self.with_poly(state, |p| p.update(data.input()));
        let mut chain: ChainState = [0; 16];
        chain.copy_from_slice(&state.bytes[CHAIN]);
        match data {
            InOut::InPlace(b) => self.chacha.decrypt_blocks(&mut chain, b),
            InOut::Split { src, dst } => self.chacha.decrypt_blocks_to(&mut chain, src, dst),
        }
        state.bytes[CHAIN].copy_from_slice(&chain);
        chain.zeroize();
    }

    fn encrypt_tail(&self, state: &mut AeadState, data: InOut<'_>) {
        let mut chain: ChainState = [0; 16];
        chain.copy_from_slice(&state.bytes[CHAIN]);
        let ct: &[u8] = match data {
            InOut::InPlace(b) => {
                self.chacha.encrypt_tail(&mut chain, b);
                b
            }
            InOut::Split { src, dst } => {
                self.chacha.encrypt_tail_to(&mut chain, src, dst);
                dst
            }
        };
        let pad = pad16(Self::text_len(state));
        self.with_poly(state, |p| {
            p.update(ct);
            p.update(pad);
        });
        state.bytes[CHAIN].zeroize();
        chain.zeroize();
    }

    fn decrypt_tail(&self, state: &mut AeadState, data: InOut<'_>) {
        let pad = pad16(Self::text_len(state));
        self.with_poly(state, |p| {
            p.update(data.input());
            p.update(pad);
        });
        let mut chain: ChainState = [0; 16];
        chain.copy_from_slice(&state.bytes[CHAIN]);
        match data {
            InOut::InPlace(b) => self.chacha.decrypt_tail(&mut chain, b),
            InOut::Split { src, dst } => self.chacha.decrypt_tail_to(&mut chain, src, dst),
        }
        state.bytes[CHAIN].zeroize();
        chain.zeroize();
    }

    fn finish(&self, state: &mut AeadState, tag: &mut [u8]) {
        let lens = len_block(state.lane(LANE_AAD), Self::text_len(state));
        let mut full = [0u8; POLY1305_TAG_SIZE];
        let ok = (|| -> Result<()> {
            let mut st = self.poly_state(&state.bytes[POLY_KEY])?;
            let n = usize::from(u16::from_le_bytes([
                state.bytes[EXPORT_LEN.start],
                state.bytes[EXPORT_LEN.start + 1],
            ]));
            st.import(&state.bytes[EXPORT_AT..EXPORT_AT + n.min(EXPORT_ROOM)])?;
            st.finup(&lens, &mut full);
            Ok(())
        })();
        if ok.is_err() || state.bytes[FLAGS] & 1 != 0 {
            // A child failed mid-request: a tag of zeros, and `verify` refuses.
            full.zeroize();
            state.bytes[FLAGS] |= 1;
        }
        let n = tag.len().min(POLY1305_TAG_SIZE);
        tag[..n].copy_from_slice(&full[..n]);
        full.zeroize();
    }

    fn verify(&self, state: &mut AeadState, tag: &[u8]) -> Result<()> {
        let mut mine = [0u8; POLY1305_TAG_SIZE];
        self.finish(state, &mut mine);
        let ok = state.bytes[FLAGS] & 1 == 0 && tags_equal(&mine, tag);
        mine[..].zeroize();
        if ok {
            Ok(())
        } else {
            Err(Error::BadMessage)
        }
    }

    /// One child Poly1305 state for the whole request.
    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &mut [u8]) -> Result<()> {
        self.check_authsize(tag.len())?;
        let lens = AeadLens {
            aad: aad.len(),
            text: data.len(),
            authsize: tag.len(),
        };
        self.check_lens(&lens)?;
        let (block0, iv) = self.derive(nonce)?;
        let mut st = self.poly_state(&block0[..POLY1305_KEY_SIZE])?;
        self.chacha.encrypt(&iv, data)?;
        mac(st.as_mut(), aad, data);
        st.finup(&len_block(aad.len() as u64, data.len() as u64), tag);
        Ok(())
    }

    /// Verifies the tag over the ciphertext first; decrypts only when it matches (no
    /// plaintext is ever written; on failure `data` is wiped).
    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        self.check_authsize(tag.len())?;
        let lens = AeadLens {
            aad: aad.len(),
            text: data.len(),
            authsize: tag.len(),
        };
        self.check_lens(&lens)?;
        let (block0, iv) = self.derive(nonce)?;
        let mut st = self.poly_state(&block0[..POLY1305_KEY_SIZE])?;
        mac(st.as_mut(), aad, data);
        let mut mine = [0u8; POLY1305_TAG_SIZE];
        st.finup(&len_block(aad.len() as u64, data.len() as u64), &mut mine);
        let ok = tags_equal(&mine, tag);
        mine[..].zeroize();
        if !ok {
            // Nothing was decrypted; the buffer is wiped as the trait's contract says.
            data.zeroize();
            return Err(Error::BadMessage);
        }
        self.chacha.decrypt(&iv, data)
    }
}

/// AAD, padding, ciphertext, padding into a MAC state (the lengths block follows).
fn mac(st: &mut dyn HashState, aad: &[u8], ct: &[u8]) {
    st.update(aad);
    st.update(pad16(aad.len() as u64));
    st.update(ct);
    st.update(pad16(ct.len() as u64));
}

/// Both arguments are asked for as written.
fn child_request(arg: &str) -> String {
    arg.to_string()
}

/// Builds an instance of `tmpl` (`rfc7539` or `rfc7539esp`) over a resolved `chacha20`
/// skcipher and `poly1305` hash.
fn instance(tmpl: &str, flavor: Flavor, children: &[Child]) -> Result<DriverInfo> {
    let [c, p] = children else {
        return Err(Error::NotFound(format!(
            "{tmpl}: takes two arguments (chacha20, poly1305), got {}",
            children.len()
        )));
    };
    let (ci, pi) = (c.info(), p.info());
    if ci.alg_type() != AlgType::Skcipher || ci.name() != "chacha20" || ci.iv_size() != 16 {
        return Err(Error::NotFound(format!(
            "{tmpl}({},{}): the first argument must be a chacha20 skcipher",
            ci.driver(),
            pi.driver()
        )));
    }
    if pi.alg_type() != AlgType::Hash || pi.name() != "poly1305" || pi.out_size() != 16 {
        return Err(Error::NotFound(format!(
            "{tmpl}({},{}): the second argument must be a poly1305 hash",
            ci.driver(),
            pi.driver()
        )));
    }
    let (Factory::Skcipher(make_chacha), Factory::Hash(make_poly)) = (ci.factory(), pi.factory())
    else {
        return Err(Error::NotFound(format!(
            "{tmpl}: children of the wrong type"
        )));
    };
    let make_chacha = Arc::clone(make_chacha);
    let make_poly = Arc::clone(make_poly);
    let (key, iv) = match flavor {
        Flavor::Rfc7539 => (CHACHA_KEY_SIZE, CHACHA_NONCE_SIZE),
        Flavor::Esp => (CHACHA_KEY_SIZE + ESP_SALT_SIZE, ESP_IV_SIZE),
    };
    Ok(DriverInfo::instance(
        format!("{tmpl}({},{})", ci.name(), pi.name()),
        format!("{tmpl}({},{})", ci.driver(), pi.driver()),
        (c.priority() + p.priority()) / 2,
        Sizes {
            block: 1,
            min_key: key,
            max_key: key,
            iv,
            out: POLY1305_TAG_SIZE,
        },
        Factory::Aead(Arc::new(move |host: &HostFeatures| {
            // Built once here so a missing CPU feature of either child refuses now.
            let chacha = make_chacha(host)?;
            drop(make_poly(host)?);
            Ok(Box::new(ChaChaPoly {
                chacha,
                make_poly: Arc::clone(&make_poly),
                host: *host,
                flavor,
                salt: Zeroizing::new([0; ESP_SALT_SIZE]),
                keyed: false,
            }) as Box<dyn AeadImpl>)
        })),
        children,
    ))
}

/// Builds `rfc7539(<chacha20 driver>,<poly1305 driver>)`.
pub fn create(children: &[Child]) -> Result<DriverInfo> {
    instance("rfc7539", Flavor::Rfc7539, children)
}

/// Builds `rfc7539esp(<chacha20 driver>,<poly1305 driver>)` (see `rfc7539esp`).
pub(crate) fn create_esp(children: &[Child]) -> Result<DriverInfo> {
    instance("rfc7539esp", Flavor::Esp, children)
}

pub(crate) fn child_request_both(arg: &str) -> String {
    child_request(arg)
}

inventory::submit! {
    Template {
        name: "rfc7539",
        child_request,
        child_types: &[AlgType::Skcipher, AlgType::Hash],
        create,
        rewrite: None,
    }
}
