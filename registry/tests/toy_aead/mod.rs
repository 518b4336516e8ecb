//! A toy AEAD and a toy MAC for the tests of the AEAD and hash data paths, before any real
//! AEAD or hash driver exists. Shared by the registry's handle tests and the self-test
//! runner's tests (`#[path]`-included there); each test binary registers the variants it
//! wants with `inventory::submit!`.
//!
//! Not cryptography, only the properties the runners check: a keyed XOR stream, and a MAC
//! that is a chain of bijective steps over two u64 lanes per 16-byte block (so one flipped
//! bit in the AAD, the text or the lengths changes the accumulator with certainty) and a
//! multiply-xorshift finalizer producing a full 16-byte tag.

#![allow(dead_code)]

use cryptoreg_registry::{
    check_key_len, AeadImpl, AeadLens, AeadState, AlgDef, Ctor, Error, HashImpl, HashState,
    HostFeatures, InOut, Result,
};
use zeroize::Zeroizing;

pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

pub fn fold(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |h, &b| mix(h ^ u64::from(b)))
}

/// Key-derived constants of the MAC.
#[derive(Clone, Copy)]
struct MacKey {
    ra: u64,
    rb: u64,
    sa: u64,
    sb: u64,
}

impl MacKey {
    fn new(kfold: u64) -> MacKey {
        MacKey {
            ra: mix(kfold ^ 1) | 1,
            rb: mix(kfold ^ 2) | 1,
            sa: mix(kfold ^ 3),
            sb: mix(kfold ^ 4),
        }
    }
}

/// One MAC step: bijective in the accumulators and in each word of the block.
fn absorb_block(k: &MacKey, acc: (u64, u64), block: &[u8; 16]) -> (u64, u64) {
    let w0 = u64::from_le_bytes(block[..8].try_into().unwrap());
    let w1 = u64::from_le_bytes(block[8..].try_into().unwrap());
    let mut a = (acc.0 ^ w0).wrapping_mul(k.ra);
    a ^= a >> 31;
    let mut b = (acc.1 ^ w1 ^ a).wrapping_mul(k.rb);
    b ^= b >> 29;
    (a, b)
}

/// Absorbs `data` as 16-byte blocks, the last one zero-padded.
fn absorb_padded(k: &MacKey, mut acc: (u64, u64), data: &[u8]) -> (u64, u64) {
    for c in data.chunks(16) {
        let mut block = [0u8; 16];
        block[..c.len()].copy_from_slice(c);
        acc = absorb_block(k, acc, &block);
    }
    acc
}

fn tag_of(k: &MacKey, acc: (u64, u64), l0: u64, l1: u64) -> [u8; 16] {
    let mut lens = [0u8; 16];
    lens[..8].copy_from_slice(&l0.to_le_bytes());
    lens[8..].copy_from_slice(&l1.to_le_bytes());
    let (a, b) = absorb_block(k, acc, &lens);
    let t0 = mix(a ^ mix(b) ^ k.sa);
    let t1 = mix(b ^ t0 ^ k.sb);
    let mut tag = [0u8; 16];
    tag[..8].copy_from_slice(&t0.to_le_bytes());
    tag[8..].copy_from_slice(&t1.to_le_bytes());
    tag
}

fn keystream(kfold: u64, seed: u64, block: u64) -> [u8; 16] {
    let a = mix(kfold ^ seed ^ block.wrapping_mul(0x2545_f491_4f6c_dd1d));
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&a.to_le_bytes());
    out[8..].copy_from_slice(&mix(a).to_le_bytes());
    out
}

/// The toy AEAD computed the obvious way over contiguous buffers: the reference for the
/// vectors. Returns ciphertext and the full 16-byte tag.
pub fn toy_seal(key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, [u8; 16]) {
    let kfold = fold(key);
    let seed = fold(nonce);
    let ct: Vec<u8> = pt
        .iter()
        .enumerate()
        .map(|(j, b)| b ^ keystream(kfold, seed, (j / 16) as u64)[j % 16])
        .collect();
    let k = MacKey::new(kfold ^ seed);
    let acc = absorb_padded(&k, (0, 0), aad);
    let acc = absorb_padded(&k, acc, &ct);
    let tag = tag_of(&k, acc, aad.len() as u64, ct.len() as u64);
    (ct, tag)
}

/// What is wrong with a toy AEAD variant.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AeadFlaw {
    None,
    /// Streams AAD unbounced but pads the partial block at the end of *every* piece
    /// instead of buffering it: wrong only when the AAD is split off a 16-byte boundary.
    AadSplit,
    /// Authenticates the source run instead of the ciphertext when encrypting out of
    /// place: wrong only out of place.
    OutOfPlace,
    /// Accepts a tag with one flipped bit (a broken comparison in a fused `verify`).
    LaxTag,
}

/// State layout (lanes of [`AeadState`]).
const SEED: usize = 0;
const COUNTER: usize = 1;
const ACC_A: usize = 2;
const ACC_B: usize = 3;
const AAD_LEN: usize = 4;
const TEXT_LEN: usize = 5;
const BUF_LEN: usize = 6;
/// Bytes 64..80: the partial AAD block of the streaming variant.
const BUF: usize = 64;

pub struct ToyAead {
    kfold: Option<u64>,
    /// Text chunk size: 16 (generic) or 64 (fast).
    chunk: usize,
    /// Take AAD pieces unbounced and buffer partial blocks in the state.
    stream_aad: bool,
    flaw: AeadFlaw,
}

impl ToyAead {
    pub fn new(chunk: usize, stream_aad: bool, flaw: AeadFlaw) -> ToyAead {
        ToyAead {
            kfold: None,
            chunk,
            stream_aad,
            flaw,
        }
    }

    fn mac_key(&self, st: &AeadState) -> MacKey {
        MacKey::new(self.kfold.unwrap_or(0) ^ st.lane(SEED))
    }

    fn absorb(&self, st: &mut AeadState, data: &[u8]) {
        let k = self.mac_key(st);
        let acc = absorb_padded(&k, (st.lane(ACC_A), st.lane(ACC_B)), data);
        st.set_lane(ACC_A, acc.0);
        st.set_lane(ACC_B, acc.1);
    }

    /// Streaming AAD: complete the buffered block, absorb whole blocks, buffer the rest.
    fn absorb_stream(&self, st: &mut AeadState, mut data: &[u8]) {
        let mut have = st.lane(BUF_LEN) as usize;
        if have > 0 {
            let n = (16 - have).min(data.len());
            st.bytes[BUF + have..BUF + have + n].copy_from_slice(&data[..n]);
            have += n;
            data = &data[n..];
            if have == 16 {
                let block: [u8; 16] = st.bytes[BUF..BUF + 16].try_into().unwrap();
                self.absorb(st, &block);
                have = 0;
            }
        }
        let whole = data.len() - data.len() % 16;
        self.absorb(st, &data[..whole]);
        let rest = &data[whole..];
        if self.flaw == AeadFlaw::AadSplit {
            // The bug: the piece's partial block is padded and absorbed now.
            self.absorb(st, rest);
        } else {
            st.bytes[BUF + have..BUF + have + rest.len()].copy_from_slice(rest);
            have += rest.len();
        }
        st.set_lane(BUF_LEN, have as u64);
    }

    fn crypt(&self, st: &mut AeadState, mut io: InOut<'_>, encrypt: bool) {
        let kfold = self.kfold.unwrap_or(0);
        let seed = st.lane(SEED);
        let mut counter = st.lane(COUNTER);
        if !encrypt {
            let input = io.input().to_vec();
            self.absorb(st, &input);
        }
        let mac_src = if encrypt && self.flaw == AeadFlaw::OutOfPlace {
            match &io {
                InOut::Split { src, .. } => Some(src.to_vec()),
                InOut::InPlace(_) => None,
            }
        } else {
            None
        };
        let len = io.len();
        let mut done = 0;
        while done < len {
            let n = (len - done).min(16);
            let ks = keystream(kfold, seed, counter);
            let (_, rest) = io.reborrow().split_at(done);
            let (mut piece, _) = rest.split_at(n);
            piece.xor_keystream(&ks[..n]);
            counter += 1;
            done += n;
        }
        st.set_lane(COUNTER, counter);
        if encrypt {
            let out: Vec<u8> = match mac_src {
                Some(src) => src,
                None => match &io {
                    InOut::InPlace(b) => b.to_vec(),
                    InOut::Split { dst, .. } => dst.to_vec(),
                },
            };
            self.absorb(st, &out);
        }
        st.set_lane(TEXT_LEN, st.lane(TEXT_LEN) + len as u64);
    }
}

impl AeadImpl for ToyAead {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        check_key_len("toyaead", key, &[16, 32])?;
        self.kfold = Some(fold(key));
        Ok(())
    }
    fn check_authsize(&self, authsize: usize) -> Result<()> {
        if matches!(authsize, 4 | 8 | 12..=16) {
            Ok(())
        } else {
            Err(Error::InvalidAuthsize {
                driver: "toyaead".into(),
                len: authsize,
            })
        }
    }
    fn chunk_size(&self) -> usize {
        self.chunk
    }
    fn aad_chunk_size(&self) -> usize {
        if self.stream_aad {
            1
        } else {
            self.chunk
        }
    }
    fn start(&self, st: &mut AeadState, nonce: &[u8], _lens: AeadLens) -> Result<()> {
        st.set_lane(SEED, fold(nonce));
        Ok(())
    }
    fn absorb_aad(&self, st: &mut AeadState, aad: &[u8]) {
        assert_eq!(aad.len() % self.aad_chunk_size(), 0, "partial AAD chunk");
        if self.stream_aad {
            self.absorb_stream(st, aad);
        } else {
            self.absorb(st, aad);
        }
        st.set_lane(AAD_LEN, st.lane(AAD_LEN) + aad.len() as u64);
    }
    fn absorb_aad_tail(&self, st: &mut AeadState, tail: &[u8]) {
        assert!(
            tail.len() < self.aad_chunk_size().max(2),
            "AAD tail too long"
        );
        if self.stream_aad {
            self.absorb_stream(st, tail);
            let have = st.lane(BUF_LEN) as usize;
            let buf = st.bytes[BUF..BUF + have].to_vec();
            self.absorb(st, &buf);
            st.set_lane(BUF_LEN, 0);
        } else {
            self.absorb(st, tail);
        }
        st.set_lane(AAD_LEN, st.lane(AAD_LEN) + tail.len() as u64);
    }
    fn encrypt_chunks(&self, st: &mut AeadState, data: InOut<'_>) {
        assert_eq!(data.len() % self.chunk, 0, "walker handed a partial chunk");
        self.crypt(st, data, true)
    }
    fn decrypt_chunks(&self, st: &mut AeadState, data: InOut<'_>) {
        assert_eq!(data.len() % self.chunk, 0, "walker handed a partial chunk");
        self.crypt(st, data, false)
    }
    fn encrypt_tail(&self, st: &mut AeadState, data: InOut<'_>) {
        assert!(data.len() < self.chunk, "tail too long");
        self.crypt(st, data, true)
    }
    fn decrypt_tail(&self, st: &mut AeadState, data: InOut<'_>) {
        assert!(data.len() < self.chunk, "tail too long");
        self.crypt(st, data, false)
    }
    fn finish(&self, st: &mut AeadState, tag: &mut [u8]) {
        let k = self.mac_key(st);
        let full = tag_of(
            &k,
            (st.lane(ACC_A), st.lane(ACC_B)),
            st.lane(AAD_LEN),
            st.lane(TEXT_LEN),
        );
        tag.copy_from_slice(&full[..tag.len()]);
    }
    fn verify(&self, st: &mut AeadState, tag: &[u8]) -> Result<()> {
        if self.flaw != AeadFlaw::LaxTag {
            let mut mine = vec![0u8; tag.len()];
            self.finish(st, &mut mine);
            return if mine == tag {
                Ok(())
            } else {
                Err(Error::BadMessage)
            };
        }
        let mut mine = vec![0u8; tag.len()];
        self.finish(st, &mut mine);
        let differing: u32 = mine
            .iter()
            .zip(tag)
            .map(|(a, b)| (a ^ b).count_ones())
            .sum();
        if differing <= 1 {
            Ok(())
        } else {
            Err(Error::BadMessage)
        }
    }
}

pub const fn toyaead_def(
    driver: &'static str,
    priority: u32,
    ctor: fn(&HostFeatures) -> Result<Box<dyn AeadImpl>>,
) -> AlgDef {
    toyaead_def_named("toyaead", driver, priority, ctor)
}

pub const fn toyaead_def_named(
    name: &'static str,
    driver: &'static str,
    priority: u32,
    ctor: fn(&HostFeatures) -> Result<Box<dyn AeadImpl>>,
) -> AlgDef {
    AlgDef::new(name, driver, priority, Ctor::Aead(ctor))
        .key_sizes(16, 32)
        .iv_size(12)
        .out_size(16)
}

pub fn toyaead_generic(_: &HostFeatures) -> Result<Box<dyn AeadImpl>> {
    Ok(Box::new(ToyAead::new(16, false, AeadFlaw::None)))
}
pub fn toyaead_fast(_: &HostFeatures) -> Result<Box<dyn AeadImpl>> {
    Ok(Box::new(ToyAead::new(64, true, AeadFlaw::None)))
}
pub fn toyaead_aadsplit(_: &HostFeatures) -> Result<Box<dyn AeadImpl>> {
    Ok(Box::new(ToyAead::new(64, true, AeadFlaw::AadSplit)))
}
pub fn toyaead_oop(_: &HostFeatures) -> Result<Box<dyn AeadImpl>> {
    Ok(Box::new(ToyAead::new(16, false, AeadFlaw::OutOfPlace)))
}
pub fn toyaead_lax(_: &HostFeatures) -> Result<Box<dyn AeadImpl>> {
    Ok(Box::new(ToyAead::new(16, false, AeadFlaw::LaxTag)))
}

// ---------------------------------------------------------------------------------------
// toymac: a keyed hash (16- or 32-byte key, 16-byte digest) over 16-byte blocks, with a
// partial block buffered between updates; `toysum`: the same without a key.

/// Second length word of the MAC's final block: separates it from the AEAD's tags.
const MAC_DOMAIN: u64 = 0x004d_4143;

/// The toy MAC computed the obvious way: the reference for the vectors.
pub fn toy_mac(key: &[u8], msg: &[u8]) -> [u8; 16] {
    let k = MacKey::new(fold(key));
    let acc = absorb_padded(&k, (0, 0), msg);
    tag_of(&k, acc, msg.len() as u64, MAC_DOMAIN)
}

pub struct ToyMac {
    key: Option<MacKey>,
    keyed: bool,
    /// Import drops the buffered partial block.
    lossy_import: bool,
    fused: bool,
}

impl ToyMac {
    pub fn new(keyed: bool, lossy_import: bool, fused: bool) -> ToyMac {
        ToyMac {
            key: (!keyed).then(|| MacKey::new(fold(&[]))),
            keyed,
            lossy_import,
            fused,
        }
    }
}

struct MacState {
    k: MacKey,
    acc: (u64, u64),
    total: u64,
    buf: [u8; 16],
    have: usize,
    lossy_import: bool,
}

const EXPORT_LEN: usize = 8 + 8 + 8 + 1 + 16;

impl HashImpl for ToyMac {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        if !self.keyed {
            return Err(Error::InvalidKeyLength {
                driver: "toysum".into(),
                len: key.len(),
                valid: cryptoreg_registry::KeyLengths::list(&[]),
            });
        }
        check_key_len("toymac", key, &[16, 32])?;
        self.key = Some(MacKey::new(fold(key)));
        Ok(())
    }
    fn init(&self) -> Box<dyn HashState> {
        Box::new(MacState {
            k: self.key.unwrap_or(MacKey::new(0)),
            acc: (0, 0),
            total: 0,
            buf: [0; 16],
            have: 0,
            lossy_import: self.lossy_import,
        })
    }
    fn digest(&self, data: &[u8], out: &mut [u8]) {
        if self.fused {
            let k = self.key.unwrap_or(MacKey::new(0));
            let acc = absorb_padded(&k, (0, 0), data);
            out.copy_from_slice(&tag_of(&k, acc, data.len() as u64, MAC_DOMAIN)[..out.len()]);
        } else {
            let mut st = self.init();
            st.update(data);
            st.finalize(out);
        }
    }
}

impl HashState for MacState {
    fn update(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        if self.have > 0 {
            let n = (16 - self.have).min(data.len());
            self.buf[self.have..self.have + n].copy_from_slice(&data[..n]);
            self.have += n;
            data = &data[n..];
            if self.have == 16 {
                self.acc = absorb_block(&self.k, self.acc, &self.buf);
                self.have = 0;
            }
        }
        let whole = data.len() - data.len() % 16;
        self.acc = absorb_padded(&self.k, self.acc, &data[..whole]);
        let rest = &data[whole..];
        self.buf[self.have..self.have + rest.len()].copy_from_slice(rest);
        self.have += rest.len();
    }
    fn finalize(self: Box<Self>, out: &mut [u8]) {
        let acc = absorb_padded(&self.k, self.acc, &self.buf[..self.have]);
        out.copy_from_slice(&tag_of(&self.k, acc, self.total, MAC_DOMAIN)[..out.len()]);
    }
    fn export(&self) -> Zeroizing<Vec<u8>> {
        let mut v = Zeroizing::new(Vec::with_capacity(EXPORT_LEN));
        v.extend_from_slice(&self.acc.0.to_le_bytes());
        v.extend_from_slice(&self.acc.1.to_le_bytes());
        v.extend_from_slice(&self.total.to_le_bytes());
        v.push(self.have as u8);
        v.extend_from_slice(&self.buf);
        v
    }
    fn import(&mut self, state: &[u8]) -> Result<()> {
        if state.len() != EXPORT_LEN || state[24] >= 16 {
            return Err(Error::InvalidHashState("toymac state is 41 bytes"));
        }
        let word = |i: usize| u64::from_le_bytes(state[8 * i..8 * i + 8].try_into().unwrap());
        self.acc = (word(0), word(1));
        self.total = word(2);
        self.have = if self.lossy_import {
            0
        } else {
            state[24] as usize
        };
        self.buf.copy_from_slice(&state[25..41]);
        Ok(())
    }
}

pub const fn toymac_def(
    name: &'static str,
    driver: &'static str,
    priority: u32,
    keyed: bool,
    ctor: fn(&HostFeatures) -> Result<Box<dyn HashImpl>>,
) -> AlgDef {
    let def = AlgDef::new(name, driver, priority, Ctor::Hash(ctor))
        .block_size(16)
        .out_size(16);
    if keyed {
        def.key_sizes(16, 32)
    } else {
        def
    }
}

pub fn toymac_generic(_: &HostFeatures) -> Result<Box<dyn HashImpl>> {
    Ok(Box::new(ToyMac::new(true, false, false)))
}
pub fn toymac_fast(_: &HostFeatures) -> Result<Box<dyn HashImpl>> {
    Ok(Box::new(ToyMac::new(true, false, true)))
}
pub fn toymac_reimport(_: &HostFeatures) -> Result<Box<dyn HashImpl>> {
    Ok(Box::new(ToyMac::new(true, true, true)))
}
pub fn toysum_generic(_: &HostFeatures) -> Result<Box<dyn HashImpl>> {
    Ok(Box::new(ToyMac::new(false, false, false)))
}

// ---------------------------------------------------------------------------------------
// Vector files for the toys, computed by the obvious contiguous code above.

fn hexs(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A `kind = "aead"` vector file for `toyaead`: several lengths and tag sizes, and two
/// vectors that must fail (a flipped tag bit, a flipped AAD bit).
pub fn toyaead_file() -> String {
    let mut s = "algorithm = \"toyaead\"\nkind = \"aead\"\n".to_string();
    let cases = [
        (16, 0, 0, 16),
        (32, 13, 1, 16),
        (16, 16, 31, 12),
        (32, 40, 64, 8),
        (16, 5, 100, 4),
        (32, 0, 300, 16),
    ];
    for (n, (klen, alen, plen, authsize)) in cases.into_iter().enumerate() {
        let key: Vec<u8> = (0..klen).map(|i| (i * 7 + n) as u8).collect();
        let nonce: Vec<u8> = (0..12).map(|i| (i * 3 + n) as u8).collect();
        let aad: Vec<u8> = (0..alen).map(|i| (i * 5 + n) as u8).collect();
        let pt: Vec<u8> = (0..plen).map(|i| (i * 11 + n) as u8).collect();
        let (ct, tag) = toy_seal(&key, &nonce, &aad, &pt);
        s += &format!(
            "[[vector]]\nsource = \"toy aead {n}\"\nkey = \"{}\"\nnonce = \"{}\"\naad = \"{}\"\nplaintext = \"{}\"\nciphertext = \"{}\"\ntag = \"{}\"\n",
            hexs(&key), hexs(&nonce), hexs(&aad), hexs(&pt), hexs(&ct), hexs(&tag[..authsize])
        );
        if n == 1 || n == 3 {
            let mut bad_tag = tag[..authsize].to_vec();
            let mut bad_aad = aad.clone();
            if n == 1 {
                bad_tag[0] ^= 0x10;
            } else {
                bad_aad[7] ^= 1;
            }
            s += &format!(
                "[[vector]]\nsource = \"toy aead {n} inauthentic\"\nkey = \"{}\"\nnonce = \"{}\"\naad = \"{}\"\nciphertext = \"{}\"\ntag = \"{}\"\nfail = true\n",
                hexs(&key), hexs(&nonce), hexs(&bad_aad), hexs(&ct), hexs(&bad_tag)
            );
        }
    }
    s
}

/// A `kind = "hash"` vector file for `toymac` (keyed) or `toysum` (unkeyed).
pub fn toymac_file(algorithm: &str, keyed: bool) -> String {
    let mut s = format!("algorithm = \"{algorithm}\"\nkind = \"hash\"\n");
    for (n, (klen, len)) in [(16, 0), (32, 3), (16, 16), (32, 17), (16, 100), (32, 1000)]
        .into_iter()
        .enumerate()
    {
        let key: Vec<u8> = if keyed {
            (0..klen).map(|i| (i * 7 + n) as u8).collect()
        } else {
            Vec::new()
        };
        let msg: Vec<u8> = (0..len).map(|i| (i * 13 + n) as u8).collect();
        let digest = toy_mac(&key, &msg);
        s += &format!(
            "[[vector]]\nsource = \"toy mac {n}\"\nkey = \"{}\"\nmessage = \"{}\"\ndigest = \"{}\"\n",
            hexs(&key),
            hexs(&msg),
            hexs(&digest)
        );
    }
    s
}
