//! The encrypted sector store: a file of 4 KiB sectors, each `xts(aes)` under its
//! sector number (dm-crypt's `plain64`, counted in 4 KiB sectors).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

use cryptoreg::{Registry, Skcipher};
use zeroize::Zeroizing;

pub const SECTOR: usize = 4096;

pub struct Store {
    file: File,
    sectors: u64,
    key: Zeroizing<Vec<u8>>,
    registry: Arc<Registry>,
}

/// The XTS tweak of a sector: its number, 64-bit little-endian, zero-padded to 16 bytes.
pub fn tweak(sector: u64) -> [u8; 16] {
    let mut iv = [0u8; 16];
    iv[..8].copy_from_slice(&sector.to_le_bytes());
    iv
}

impl Store {
    /// Opens (creating if missing) a store of `sectors` sectors. A new or short file is
    /// extended with zeros; an all-zero sector reads back as the decryption of zeros,
    /// as a fresh dm-crypt device does.
    pub fn open(
        path: &Path,
        sectors: u64,
        key: Zeroizing<Vec<u8>>,
        registry: Arc<Registry>,
    ) -> Result<Store, String> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| format!("store {}: {e}", path.display()))?;
        let want = sectors * SECTOR as u64;
        let have = file.metadata().map_err(|e| e.to_string())?.len();
        if have < want {
            file.set_len(want).map_err(|e| e.to_string())?;
        }
        let store = Store {
            file,
            sectors,
            key,
            registry,
        };
        // Refuse a bad key now, not on the first request.
        store.handle()?;
        Ok(store)
    }

    /// A new keyed `xts(aes)` handle: whatever the registry resolves now.
    pub fn handle(&self) -> Result<Skcipher, String> {
        let mut h = self
            .registry
            .alloc_skcipher("xts(aes)")
            .map_err(|e| e.to_string())?;
        h.set_key(&self.key).map_err(|e| e.to_string())?;
        Ok(h)
    }

    fn offset(&self, sector: u64) -> Result<u64, String> {
        if sector >= self.sectors {
            return Err(format!(
                "sector {sector} out of range (0..{})",
                self.sectors
            ));
        }
        Ok(sector * SECTOR as u64)
    }

    /// Encrypts `data` (one sector, consumed as the buffer) and writes it.
    pub fn write(&self, h: &Skcipher, sector: u64, data: &mut [u8; SECTOR]) -> Result<(), String> {
        let off = self.offset(sector)?;
        h.encrypt_in_place(&tweak(sector), data)
            .map_err(|e| e.to_string())?;
        self.file.write_all_at(data, off).map_err(|e| e.to_string())
    }

    /// Reads and decrypts one sector into `out`.
    pub fn read(&self, h: &Skcipher, sector: u64, out: &mut [u8; SECTOR]) -> Result<(), String> {
        let off = self.offset(sector)?;
        self.file
            .read_exact_at(out, off)
            .map_err(|e| e.to_string())?;
        h.decrypt_in_place(&tweak(sector), out)
            .map_err(|e| e.to_string())
    }
}
