//! The hash handle and its running request, with the kernel's shash operations:
//! `init / update / final / finup / digest` and `export / import`.
//!
//! `final` is a Rust keyword, so the method is [`HashRequest::finalize`].
//!
//! Exported states carry a small header (magic, format version, a fingerprint of the
//! *algorithm* name), so importing bytes that another algorithm's driver, or nobody,
//! exported is an error rather than a silently wrong digest. The bytes that follow are the
//! algorithm's running state in the one format every driver of that algorithm uses (the
//! shared GHASH and Poly1305 frames), so a state exported by one driver resumes on any
//! other driver of the same algorithm: a service that re-allocates after a priority
//! change usually lands on another driver. The importing driver checks the bytes too.
//! Exports are [`Zeroizing`]: a MAC's running state is key material.

use std::sync::Arc;

use zeroize::Zeroizing;

use super::{wrong_type, Common, HandleGuard};
use crate::alg::{DriverInfo, Factory};
use crate::error::{Error, Result};
use crate::host::HostFeatures;
use crate::stats::HandleCell;
use crate::traits::{HashImpl, HashState};

/// First bytes of every exported hash state.
const EXPORT_MAGIC: &[u8; 4] = b"CRHS";
/// Format version of the header: 2 names the algorithm (1, never read now, named the
/// driver).
const EXPORT_VERSION: u8 = 2;
/// Magic + version + algorithm fingerprint.
const HEADER_LEN: usize = 4 + 1 + 8;

/// FNV-1a of the algorithm name: ties an export to the algorithm whose format it is in.
fn fingerprint(driver: &str) -> u64 {
    driver.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn check_out(out: &[u8], size: usize) -> Result<()> {
    if out.len() != size {
        return Err(Error::InvalidLength {
            len: out.len(),
            reason: "output is not the digest size",
        });
    }
    Ok(())
}

/// A digest or MAC handle (`sha256`, `ghash`, `poly1305`, `hmac(sha256)`). Unkeyed
/// digests (`max_key == 0`) are ready at once; keyed hashes need `set_key` first.
pub struct Hash {
    imp: Box<dyn HashImpl>,
    common: Common,
}

handle_debug!(Hash);
handle_clone!(Hash, Hash);

impl Hash {
    pub(crate) fn build(
        info: Arc<DriverInfo>,
        host: &HostFeatures,
        guard: Option<HandleGuard>,
    ) -> Result<Hash> {
        let Factory::Hash(f) = &info.factory() else {
            return Err(wrong_type(&info, "hash"));
        };
        // An unkeyed digest is ready at once.
        let keyed = info.sizes().max_key == 0;
        Ok(Hash {
            imp: f(host)?,
            common: Common::new(info, keyed, host, guard),
        })
    }

    handle_accessors!();

    /// Digest size in bytes.
    pub fn digest_size(&self) -> usize {
        self.common.info.out_size()
    }

    /// Whether the hash takes a key (a MAC).
    pub fn is_keyed(&self) -> bool {
        self.common.info.sizes().max_key > 0
    }

    /// Sets a MAC key. Unkeyed digests refuse every key with
    /// [`Error::InvalidKeyLength`].
    pub fn set_key(&mut self, key: &[u8]) -> Result<()> {
        if !self.is_keyed() {
            return Err(Error::InvalidKeyLength {
                driver: self.common.info.driver().to_string(),
                len: key.len(),
                valid: crate::KeyLengths::list(&[]),
            });
        }
        self.common.set_key(key, |k| self.imp.set_key(k))
    }

    fn ready(&self) -> Result<()> {
        if self.common.keyed {
            Ok(())
        } else {
            Err(Error::NoKey)
        }
    }

    /// Starts a running computation (`init`).
    pub fn init(&self) -> Result<HashRequest> {
        self.ready()?;
        Ok(HashRequest {
            state: self.imp.init(),
            out_size: self.digest_size(),
            fingerprint: fingerprint(self.algorithm_name()),
            cell: self.common.cell(),
        })
    }

    /// One-shot digest into `out` (digest-size bytes): the common path, no running state
    /// unless the driver needs one.
    pub fn digest(&self, data: &[u8], out: &mut [u8]) -> Result<()> {
        self.ready()?;
        check_out(out, self.digest_size())?;
        self.common.count(data.len());
        self.imp.digest(data, out);
        Ok(())
    }

    /// Resumes a computation from bytes that [`HashRequest::export`] of any driver of this
    /// algorithm produced (`import`); anything else is [`Error::InvalidHashState`].
    pub fn import(&self, exported: &[u8]) -> Result<HashRequest> {
        self.ready()?;
        if exported.len() < HEADER_LEN || &exported[..4] != EXPORT_MAGIC {
            return Err(Error::InvalidHashState("no export header"));
        }
        if exported[4] != EXPORT_VERSION {
            return Err(Error::InvalidHashState("unknown export version"));
        }
        let mut fp = [0u8; 8];
        fp.copy_from_slice(&exported[5..HEADER_LEN]);
        if u64::from_le_bytes(fp) != fingerprint(self.algorithm_name()) {
            return Err(Error::InvalidHashState("exported by another algorithm"));
        }
        let mut req = self.init()?;
        req.state.import(&exported[HEADER_LEN..])?;
        Ok(req)
    }
}

/// One running hash computation (the kernel's `shash_desc`): `update` any number of
/// times, then `finalize` or `finup`, or `export` to resume later.
pub struct HashRequest {
    state: Box<dyn HashState>,
    out_size: usize,
    fingerprint: u64,
    /// The handle's counter cell: one request per computation (counted when it ends),
    /// bytes per update.
    cell: Option<Arc<HandleCell>>,
}

impl std::fmt::Debug for HashRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HashRequest(..)")
    }
}

impl HashRequest {
    /// Absorbs more data.
    pub fn update(&mut self, data: &[u8]) {
        self.count_bytes(data.len());
        self.state.update(data);
    }

    /// Writes the digest (the kernel's `final`) and ends the computation. A wrong output
    /// length is refused before anything is written, and ends the computation too.
    pub fn finalize(self, out: &mut [u8]) -> Result<()> {
        check_out(out, self.out_size)?;
        if let Some(c) = &self.cell {
            c.count(0);
        }
        self.state.finalize(out);
        Ok(())
    }

    /// `update(data)` then `finalize(out)`, in one driver call (`finup`).
    pub fn finup(self, data: &[u8], out: &mut [u8]) -> Result<()> {
        check_out(out, self.out_size)?;
        if let Some(c) = &self.cell {
            c.count(data.len());
        }
        self.state.finup(data, out);
        Ok(())
    }

    fn count_bytes(&self, bytes: usize) {
        if let Some(c) = &self.cell {
            c.count_bytes(bytes);
        }
    }

    /// The running state, for [`Hash::import`] on a handle of any driver of the same
    /// algorithm.
    pub fn export(&self) -> Zeroizing<Vec<u8>> {
        let inner = self.state.export();
        let mut out = Zeroizing::new(Vec::with_capacity(HEADER_LEN + inner.len()));
        out.extend_from_slice(EXPORT_MAGIC);
        out.push(EXPORT_VERSION);
        out.extend_from_slice(&self.fingerprint.to_le_bytes());
        out.extend_from_slice(&inner);
        out
    }
}
