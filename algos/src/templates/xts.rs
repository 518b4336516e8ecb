//! The `xts` template (IEEE 1619-2007, NIST SP 800-38E), as the kernel's `xts.c`: XTS over
//! an ECB skcipher of a 16-byte-block cipher, so `xts(aes)` is built on the best
//! `ecb(aes)` (the AES-NI ECB driver where there is one) and inherits its multi-block
//! throughput.
//!
//! Two child instances: the data key (first half of the XTS key) encrypts the data, the
//! tweak key (second half) encrypts the IV into the first tweak. Each following block's
//! tweak is the previous one times x in GF(2^128). A length that is not a multiple of 16
//! is finished with ciphertext stealing (IEEE 1619-2007 §5.3.2 / §5.4.2) in the tail call,
//! which sees the last full block together with the partial one.

use std::sync::Arc;

use cryptoreg_registry::{
    inventory, AlgType, BlockCipherImpl, Builder, ChainState, Child, DriverInfo, Error, Factory,
    HostFeatures, Result, Sizes, SkcipherImpl, Template,
};
use zeroize::Zeroize;

use super::common::{assert_whole_blocks, only_child, xor_in_place, BATCH_BYTES, BLOCK};
use super::ecb::Ecb;
use crate::aes::xts_rules::{gf128_mul_x_ble, verify_xts_key, xts_tail_len};

/// A shareable constructor of the ECB children.
type SkcipherFactory = Builder<dyn SkcipherImpl>;

/// Which way a block goes through the data cipher.
#[derive(Clone, Copy)]
enum Dir {
    Encrypt,
    Decrypt,
}

/// XTS over two ECB instances. The [`ChainState`] is the tweak of the next block.
pub struct Xts {
    /// Driver name, for key-length errors.
    driver: String,
    /// ECB keyed with the data key.
    data: Box<dyn SkcipherImpl>,
    /// ECB keyed with the tweak key; only ever encrypts.
    tweak: Box<dyn SkcipherImpl>,
}

impl Xts {
    /// Builds XTS over two unkeyed ECB instances of the same 16-byte-block cipher. Each
    /// must accept any whole number of blocks per `encrypt_blocks` call and carry no
    /// state (what every ECB does). `driver` names the instance in errors.
    pub fn new(driver: String, data: Box<dyn SkcipherImpl>, tweak: Box<dyn SkcipherImpl>) -> Xts {
        Xts {
            driver,
            data,
            tweak,
        }
    }

    /// One ECB call over whole blocks; ECB ignores its chaining state.
    fn ecb(&self, dir: Dir, data: &mut [u8]) {
        let mut unused = [0u8; 16];
        match dir {
            Dir::Encrypt => self.data.encrypt_blocks(&mut unused, data),
            Dir::Decrypt => self.data.decrypt_blocks(&mut unused, data),
        }
    }

    /// Whole blocks: a batch of tweaks is computed, xored in, the batch goes through the
    /// data cipher in one call, and the tweaks are xored again. The tweaks derive from the
    /// tweak key, so the buffer is wiped afterwards.
    fn crypt_blocks(&self, dir: Dir, state: &mut ChainState, data: &mut [u8]) {
        assert_whole_blocks(data.len());
        let mut tweaks = [0u8; BATCH_BYTES];
        for batch in data.chunks_mut(BATCH_BYTES) {
            let tw = &mut tweaks[..batch.len()];
            for t in tw.chunks_exact_mut(BLOCK) {
                t.copy_from_slice(state);
                gf128_mul_x_ble(state);
            }
            xor_in_place(batch, tw);
            self.ecb(dir, batch);
            xor_in_place(batch, tw);
        }
        tweaks.zeroize();
    }

    /// One block under an explicit tweak (for ciphertext stealing).
    fn crypt_one(&self, dir: Dir, block: &mut [u8; BLOCK], tweak: &[u8; BLOCK]) {
        xor_in_place(block, tweak);
        self.ecb(dir, block);
        xor_in_place(block, tweak);
    }

    /// The tail: whole blocks as usual, then, if the length is not a multiple of 16, the
    /// last full block and the partial one with ciphertext stealing.
    ///
    /// With `m` the last full block, `r` the partial length, `T` the current tweak and
    /// `T' = T·x`:
    /// * encrypt: `CC = E_T(P_m)`; `C_{m+1} = CC[..r]`; `C_m = E_T'(P_{m+1} || CC[r..])`;
    /// * decrypt: `PP = D_T'(C_m)`; `P_{m+1} = PP[..r]`; `P_m = D_T(C_{m+1} || PP[r..])`
    ///   — the tweak order flips, because encryption applied `T'` last.
    ///
    /// The choice between the two paths depends only on the public length.
    fn crypt_tail(&self, dir: Dir, state: &mut ChainState, tail: &mut [u8]) {
        let r = tail.len() % BLOCK;
        if r == 0 {
            self.crypt_blocks(dir, state, tail);
            return;
        }
        assert!(
            tail.len() > BLOCK,
            "XTS tail of {} bytes: stealing needs a full block before the partial one",
            tail.len()
        );
        let (head, last) = tail.split_at_mut(tail.len() - BLOCK - r);
        self.crypt_blocks(dir, state, head);
        let (full, partial) = last.split_at_mut(BLOCK);

        let mut first_tweak = *state;
        gf128_mul_x_ble(state);
        let mut second_tweak = *state;
        gf128_mul_x_ble(state);
        let (t_full, t_stolen) = match dir {
            Dir::Encrypt => (&first_tweak, &second_tweak),
            Dir::Decrypt => (&second_tweak, &first_tweak),
        };

        let mut cc = [0u8; BLOCK];
        cc.copy_from_slice(full);
        self.crypt_one(dir, &mut cc, t_full);
        let mut pp = cc;
        pp[..r].copy_from_slice(partial);
        partial.copy_from_slice(&cc[..r]);
        self.crypt_one(dir, &mut pp, t_stolen);
        full.copy_from_slice(&pp);

        cc.zeroize();
        pp.zeroize();
        first_tweak.zeroize();
        second_tweak.zeroize();
    }
}

impl SkcipherImpl for Xts {
    /// Splits the key into data key and tweak key after [`verify_xts_key`]: a double AES
    /// key length, and halves that differ (FIPS; equal halves are [`Error::WeakKey`]).
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        verify_xts_key(&self.driver, key)?;
        let (data_key, tweak_key) = key.split_at(key.len() / 2);
        self.data.set_key(data_key)?;
        self.tweak.set_key(tweak_key)
    }

    /// At least one block; a partial last block makes the tail the last full block plus
    /// the partial one.
    fn tail_len(&self, total: usize) -> Result<usize> {
        xts_tail_len(total)
    }

    /// The first tweak: the IV (the data unit number, little-endian in IEEE 1619)
    /// encrypted under the tweak key.
    fn start(&self, iv: &[u8], state: &mut ChainState) -> Result<()> {
        if iv.len() != BLOCK {
            return Err(Error::InvalidIvLength {
                len: iv.len(),
                expected: BLOCK,
            });
        }
        state.copy_from_slice(iv);
        let mut unused = [0u8; 16];
        self.tweak.encrypt_blocks(&mut unused, state);
        Ok(())
    }

    fn encrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.crypt_blocks(Dir::Encrypt, state, data);
    }

    fn decrypt_blocks(&self, state: &mut ChainState, data: &mut [u8]) {
        self.crypt_blocks(Dir::Decrypt, state, data);
    }

    fn encrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.crypt_tail(Dir::Encrypt, state, tail);
    }

    fn decrypt_tail(&self, state: &mut ChainState, tail: &mut [u8]) {
        self.crypt_tail(Dir::Decrypt, state, tail);
    }
}

/// XTS over ECB over fresh instances from `make`, unkeyed, whatever the cipher's driver:
/// the facade's fault-injection driver and tests build on it. Errors name it `xts`.
pub fn xts_over_cipher(make: fn() -> Box<dyn BlockCipherImpl>) -> Box<dyn SkcipherImpl> {
    Box::new(Xts::new(
        "xts".to_string(),
        Box::new(Ecb::new(make())),
        Box::new(Ecb::new(make())),
    ))
}

/// Whether a name asks for an ECB: the template form `ecb(...)` or a concrete ECB
/// driver such as `ecb-aes-aesni`.
fn names_ecb(arg: &str) -> bool {
    (arg.starts_with("ecb(") && arg.ends_with(')')) || arg.starts_with("ecb-")
}

/// `xts(aes)` asks for `ecb(aes)`, and `xts(aes-generic)` for `ecb(aes-generic)`; an
/// argument that already names an ECB (`xts(ecb(aes))`, `xts(ecb-aes-aesni)`) is taken
/// as it is, as the kernel's `xts_create` does.
pub fn child_request(arg: &str) -> String {
    if names_ecb(arg) {
        arg.to_string()
    } else {
        format!("ecb({arg})")
    }
}

/// Builds `xts(<child>)` over a resolved ECB skcipher: algorithm `xts(aes)` (the child's
/// algorithm name without its `ecb(...)`), driver `xts(<child driver>)` such as
/// `xts(ecb-aes-aesni)` or `xts(ecb(aes-generic))`, the child's priority, keys of twice
/// the child's sizes, a 16-byte IV and 16-byte blocks. A child that is not an ECB of a
/// 16-byte-block cipher, or whose chunk size is not one block, is refused.
pub fn create(children: &[Child]) -> Result<DriverInfo> {
    let resolved = only_child("xts", children, AlgType::Skcipher)?;
    let child = resolved.info();
    let inner = child
        .name()
        .strip_prefix("ecb(")
        .and_then(|s| s.strip_suffix(')'))
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            Error::NotFound(format!(
                "xts({}): the child must be an ECB, {} is {}",
                child.driver(),
                child.driver(),
                child.name()
            ))
        })?;
    if child.iv_size() != 0 {
        return Err(Error::NotFound(format!(
            "xts({}): the ECB child must take no IV",
            child.driver()
        )));
    }
    let Factory::Skcipher(make) = child.factory() else {
        unreachable!("only_child checked the type");
    };
    let make: SkcipherFactory = Arc::clone(make);
    let driver = format!("xts({})", child.driver());
    let error_name = driver.clone();
    let sizes = child.sizes();
    Ok(DriverInfo::instance(
        format!("xts({inner})"),
        driver,
        resolved.priority(),
        Sizes {
            block: BLOCK,
            min_key: 2 * sizes.min_key,
            max_key: 2 * sizes.max_key,
            iv: BLOCK,
            out: 0,
        },
        Factory::Skcipher(Arc::new(move |host: &HostFeatures| {
            let (data, tweak) = (make(host)?, make(host)?);
            // The tweak batches assume one block per chunk, what every ECB has; refuse
            // anything else rather than mis-chain.
            if data.chunk_size() != BLOCK {
                return Err(Error::NotFound(format!(
                    "{error_name}: the ECB child must take 16-byte chunks"
                )));
            }
            Ok(Box::new(Xts::new(error_name.clone(), data, tweak)) as Box<dyn SkcipherImpl>)
        })),
        children,
    ))
}

inventory::submit! {
    Template {
        name: "xts",
        child_request,
        child_types: &[AlgType::Skcipher],
        create,
        rewrite: None,
    }
}
