//! The `rfc4106` template: GCM as IPsec ESP uses it (RFC 4106), over any `gcm(aes)` driver
//! (`rfc4106(gcm-aes-aesni)`, `rfc4106(gcm_base(ctr(aes-generic),ghash-generic))`), at the
//! child's priority, as the kernel's `crypto_rfc4106`.
//!
//! - **Key**: the AES key followed by a 4-byte salt (20, 28 or 36 bytes; RFC 4106 §8.1).
//! - **Nonce**: the 8-byte explicit IV of the ESP packet; the GCM nonce is salt || IV
//!   (§4).
//! - **Tag**: 8, 12 or 16 bytes (`set_authsize`; §8.1 "ICV of 8, 12 and 16 octets").
//! - **AAD**: SPI || 32-bit sequence number (8 bytes) or SPI || 64-bit extended sequence
//!   number (12 bytes) (§5); any other length is [`Error::InvalidLength`].
//!
//! **AAD layout, decided:** the AAD is exactly what RFC 4106 authenticates; the IV is
//! *not* repeated in it. The kernel's `rfc4106(gcm(aes))` takes an associated-data area of
//! 16 or 20 bytes whose last 8 bytes are the IV again (an artefact of the ESP packet
//! layout in its scatterlist) and drops them before GCM. Kernel vectors
//! (`testmgr.h` `aes_gcm_rfc4106_tv_template`) convert to this API by checking that the
//! last 8 AAD bytes equal the IV and stripping them (see `selftest/vectors/rfc4106_gcm_aes.toml`).

use std::sync::Arc;

use cryptoreg_registry::{
    inventory, AeadImpl, AeadLens, AeadState, AlgType, Child, DriverInfo, Error, Factory,
    HostFeatures, InOut, KeyLengths, Result, Sizes, Template,
};
use zeroize::Zeroize;

/// Salt bytes at the end of the key.
pub const RFC4106_SALT_LEN: usize = 4;

/// The explicit IV (the handle's nonce).
pub const RFC4106_IV_LEN: usize = 8;

/// The GCM nonce of the child: salt || IV.
const CHILD_NONCE_LEN: usize = RFC4106_SALT_LEN + RFC4106_IV_LEN;

/// RFC 4106 over a `gcm(aes)` child.
pub struct Rfc4106 {
    /// The instance's driver name, for errors.
    driver: String,
    child: Box<dyn AeadImpl>,
    /// Part of the key: wiped on drop.
    salt: [u8; RFC4106_SALT_LEN],
}

impl Rfc4106 {
    /// Wraps an unkeyed `gcm(aes)` AEAD; `driver` names the result in errors.
    pub fn new(driver: String, child: Box<dyn AeadImpl>) -> Rfc4106 {
        Rfc4106 {
            driver,
            child,
            salt: [0; RFC4106_SALT_LEN],
        }
    }

    /// Checks the AAD length and builds the child's nonce; the caller wipes it.
    fn child_nonce(&self, iv: &[u8], aad_len: usize) -> Result<[u8; CHILD_NONCE_LEN]> {
        if aad_len != 8 && aad_len != 12 {
            return Err(Error::InvalidLength {
                len: aad_len,
                reason: "RFC 4106 AAD is SPI || sequence number (8 bytes) or SPI || extended \
                         sequence number (12 bytes)",
            });
        }
        if iv.len() != RFC4106_IV_LEN {
            return Err(Error::InvalidIvLength {
                len: iv.len(),
                expected: RFC4106_IV_LEN,
            });
        }
        let mut nonce = [0u8; CHILD_NONCE_LEN];
        nonce[..RFC4106_SALT_LEN].copy_from_slice(&self.salt);
        nonce[RFC4106_SALT_LEN..].copy_from_slice(iv);
        Ok(nonce)
    }
}

impl Drop for Rfc4106 {
    fn drop(&mut self) {
        self.salt.zeroize();
    }
}

impl AeadImpl for Rfc4106 {
    /// AES key || 4-byte salt: the child takes the AES key (and refuses a wrong length).
    /// A wrong length is reported as the child's valid lengths plus the salt.
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        let invalid = |child_valid: KeyLengths| Error::InvalidKeyLength {
            driver: self.driver.clone(),
            len: key.len(),
            valid: child_valid.plus(RFC4106_SALT_LEN),
        };
        let Some(split) = key.len().checked_sub(RFC4106_SALT_LEN) else {
            // Too short for the salt: the child is a `gcm(aes)` (the template checks),
            // which takes AES keys.
            return Err(invalid(KeyLengths::list(
                &crate::aes::gcm_rules::GCM_KEY_SIZES,
            )));
        };
        let (aes, salt) = key.split_at(split);
        self.child.set_key(aes).map_err(|e| match e {
            Error::InvalidKeyLength { valid, .. } => invalid(valid),
            other => other,
        })?;
        self.salt.copy_from_slice(salt);
        Ok(())
    }

    /// 8, 12 or 16 bytes (and whatever the child accepts of those).
    fn check_authsize(&self, authsize: usize) -> Result<()> {
        match authsize {
            8 | 12 | 16 => self.child.check_authsize(authsize),
            len => Err(Error::InvalidAuthsize {
                driver: self.driver.clone(),
                len,
            }),
        }
    }

    fn chunk_size(&self) -> usize {
        self.child.chunk_size()
    }

    fn aad_chunk_size(&self) -> usize {
        self.child.aad_chunk_size()
    }

    fn start(&self, state: &mut AeadState, nonce: &[u8], lens: AeadLens) -> Result<()> {
        self.check_authsize(lens.authsize)?;
        let mut full = self.child_nonce(nonce, lens.aad)?;
        let r = self.child.start(state, &full, lens);
        full.zeroize();
        r
    }

    /// `start`'s checks (tag size, AAD length, IV length), then the child's own.
    fn check_request(&self, nonce: &[u8], lens: AeadLens) -> Result<()> {
        self.check_authsize(lens.authsize)?;
        let mut full = self.child_nonce(nonce, lens.aad)?;
        let r = self.child.check_request(&full, lens);
        full.zeroize();
        r
    }

    fn absorb_aad(&self, state: &mut AeadState, aad: &[u8]) {
        self.child.absorb_aad(state, aad)
    }

    fn absorb_aad_tail(&self, state: &mut AeadState, tail: &[u8]) {
        self.child.absorb_aad_tail(state, tail)
    }

    fn encrypt_chunks(&self, state: &mut AeadState, data: InOut<'_>) {
        self.child.encrypt_chunks(state, data)
    }

    fn decrypt_chunks(&self, state: &mut AeadState, data: InOut<'_>) {
        self.child.decrypt_chunks(state, data)
    }

    fn encrypt_tail(&self, state: &mut AeadState, data: InOut<'_>) {
        self.child.encrypt_tail(state, data)
    }

    fn decrypt_tail(&self, state: &mut AeadState, data: InOut<'_>) {
        self.child.decrypt_tail(state, data)
    }

    fn finish(&self, state: &mut AeadState, tag: &mut [u8]) {
        self.child.finish(state, tag)
    }

    fn verify(&self, state: &mut AeadState, tag: &[u8]) -> Result<()> {
        self.child.verify(state, tag)
    }

    /// The child's one-shot seal (its fused kernel, if it has one) under salt || IV.
    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &mut [u8]) -> Result<()> {
        self.check_authsize(tag.len())?;
        let mut full = self.child_nonce(nonce, aad.len())?;
        let r = self.child.seal(&full, aad, data, tag);
        full.zeroize();
        r
    }

    /// The child's one-shot open under salt || IV (it wipes `data` on failure).
    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        self.check_authsize(tag.len())?;
        let mut full = self.child_nonce(nonce, aad.len())?;
        let r = self.child.open(&full, aad, data, tag);
        full.zeroize();
        r
    }
}

/// Builds `rfc4106(<child>)` over a resolved `gcm(...)` AEAD: algorithm
/// `rfc4106(gcm(aes))`, driver `rfc4106(<child driver>)`, the child's priority, keys 4
/// bytes longer than the child's, an 8-byte nonce, a 16-byte tag, block size 1.
pub fn create(children: &[Child]) -> Result<DriverInfo> {
    let [resolved] = children else {
        return Err(Error::NotFound(format!(
            "rfc4106: takes one argument, got {}",
            children.len()
        )));
    };
    let child = resolved.info();
    let driver = format!("rfc4106({})", child.driver());
    let Factory::Aead(make) = child.factory() else {
        return Err(Error::WrongType {
            name: child.driver().to_string(),
            wanted: AlgType::Aead.name(),
            actual: child.alg_type().name(),
        });
    };
    if !child.name().starts_with("gcm(")
        || child.iv_size() != CHILD_NONCE_LEN
        || child.out_size() != 16
    {
        return Err(Error::NotFound(format!(
            "{driver}: the child must be a gcm(...) with a 12-byte nonce and 16-byte tags, {} is \
             {}",
            child.driver(),
            child.name()
        )));
    }
    let make = Arc::clone(make);
    let error_name = driver.clone();
    let sizes = child.sizes();
    Ok(DriverInfo::instance(
        format!("rfc4106({})", child.name()),
        driver,
        resolved.priority(),
        Sizes {
            block: 1,
            min_key: sizes.min_key + RFC4106_SALT_LEN,
            max_key: sizes.max_key + RFC4106_SALT_LEN,
            iv: RFC4106_IV_LEN,
            out: 16,
        },
        Factory::Aead(Arc::new(move |host: &HostFeatures| {
            Ok(Box::new(Rfc4106::new(error_name.clone(), make(host)?)) as Box<dyn AeadImpl>)
        })),
        children,
    ))
}

inventory::submit! {
    Template {
        name: "rfc4106",
        child_request: |arg| arg.to_string(),
        child_types: &[AlgType::Aead],
        create,
        rewrite: None,
    }
}
