//! Runs one operation on a handle under a [`TestConfig`]: builds the division buffers at
//! their misalignments, calls the matching handle entry point, and gathers the output back
//! into one vector for comparison.
//!
//! Entry points by layout: one in-place division goes through the contiguous API
//! (`encrypt_in_place`), several in-place divisions through `crypt_segments` (the walker),
//! out of place through `crypt_to`. So every path a user can take is exercised.

use std::sync::Arc;

use cryptoreg_registry::{Cipher, Direction, DriverInfo, HostFeatures, Result, Skcipher};

use crate::config::{split_lengths, Division, Placement, TestConfig};

/// Byte written into destination buffers before an out-of-place operation, so bytes a
/// driver forgets to write cannot pass for output.
pub(crate) const POISON: u8 = 0x5c;

/// `bytes` copied into a fresh buffer `offset` bytes in; use `&buf[offset..]`.
pub(crate) fn misaligned(bytes: &[u8], offset: usize) -> Vec<u8> {
    let mut buf = vec![0u8; offset + bytes.len()];
    buf[offset..].copy_from_slice(bytes);
    buf
}

/// A list of divisions, each in its own buffer at its own offset.
pub(crate) struct Scattered {
    bufs: Vec<Vec<u8>>,
    offsets: Vec<usize>,
}

impl Scattered {
    /// Lays `data` out over `divs`.
    pub(crate) fn with_data(data: &[u8], divs: &[Division]) -> Scattered {
        let lens = split_lengths(data.len(), divs);
        let mut pos = 0;
        let mut bufs = Vec::with_capacity(divs.len());
        for (d, len) in divs.iter().zip(lens) {
            bufs.push(misaligned(&data[pos..pos + len], d.offset));
            pos += len;
        }
        Scattered {
            bufs,
            offsets: divs.iter().map(|d| d.offset).collect(),
        }
    }

    /// Empty (poisoned) buffers for `total` bytes over `divs`.
    pub(crate) fn poisoned(total: usize, divs: &[Division]) -> Scattered {
        let lens = split_lengths(total, divs);
        Scattered {
            bufs: divs
                .iter()
                .zip(lens)
                .map(|(d, len)| vec![POISON; d.offset + len])
                .collect(),
            offsets: divs.iter().map(|d| d.offset).collect(),
        }
    }

    pub(crate) fn slices(&self) -> Vec<&[u8]> {
        self.bufs
            .iter()
            .zip(&self.offsets)
            .map(|(b, &o)| &b[o..])
            .collect()
    }

    pub(crate) fn slices_mut(&mut self) -> Vec<&mut [u8]> {
        self.bufs
            .iter_mut()
            .zip(&self.offsets)
            .map(|(b, &o)| &mut b[o..])
            .collect()
    }

    pub(crate) fn gather(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bufs.iter().map(Vec::len).sum());
        for (b, &o) in self.bufs.iter().zip(&self.offsets) {
            out.extend_from_slice(&b[o..]);
        }
        out
    }
}

/// One skcipher operation over `input` in the layout `cfg`; the IV is read from a buffer
/// at `cfg.iv_offset`. The key must already be set.
fn skcipher_crypt(
    h: &Skcipher,
    dir: Direction,
    iv: &[u8],
    input: &[u8],
    cfg: &TestConfig,
) -> Result<Vec<u8>> {
    let iv_buf = misaligned(iv, cfg.iv_offset);
    let iv = &iv_buf[cfg.iv_offset..];
    let mut src = Scattered::with_data(input, &cfg.src_divs);
    match cfg.placement {
        Placement::InPlace => {
            let mut segs = src.slices_mut();
            if let [one] = segs.as_mut_slice() {
                match dir {
                    Direction::Encrypt => h.encrypt_in_place(iv, one)?,
                    Direction::Decrypt => h.decrypt_in_place(iv, one)?,
                }
            } else {
                h.crypt_segments(dir, iv, &mut segs)?;
            }
            Ok(src.gather())
        }
        Placement::OutOfPlace => {
            let mut dst = Scattered::poisoned(input.len(), &cfg.dst_divs);
            h.crypt_to(dir, iv, &src.slices(), &mut dst.slices_mut())?;
            Ok(dst.gather())
        }
    }
}

/// One block-cipher operation over `input` (whole blocks) in the first division's buffer
/// of `cfg` (a block cipher takes one contiguous buffer).
fn cipher_crypt(h: &Cipher, dir: Direction, input: &[u8], cfg: &TestConfig) -> Result<Vec<u8>> {
    let offset = cfg.src_divs.first().map_or(0, |d| d.offset);
    let mut buf = misaligned(input, offset);
    match dir {
        Direction::Encrypt => h.encrypt_blocks(&mut buf[offset..])?,
        Direction::Decrypt => h.decrypt_blocks(&mut buf[offset..])?,
    }
    buf.drain(..offset);
    Ok(buf)
}

/// What the runners need of a handle type, so the known-answer and randomized runners
/// are written once for block ciphers and skciphers.
pub(crate) trait Handle: Sized {
    /// Whether the type takes one contiguous buffer only (a block cipher).
    const SINGLE_BUFFER: bool;
    /// The driver under test, outside the registry's bookkeeping.
    fn from_info(info: Arc<DriverInfo>, token: &HostFeatures) -> Result<Self>;
    fn driver(&self) -> &str;
    fn set_key(&mut self, key: &[u8]) -> Result<()>;
    /// The reference path: one contiguous, aligned buffer.
    fn crypt_contiguous(&self, dir: Direction, iv: &[u8], data: &[u8]) -> Result<Vec<u8>>;
    /// The path under test: the layout of `cfg`.
    fn crypt_cfg(
        &self,
        dir: Direction,
        iv: &[u8],
        data: &[u8],
        cfg: &TestConfig,
    ) -> Result<Vec<u8>>;
}

impl Handle for Skcipher {
    const SINGLE_BUFFER: bool = false;
    fn from_info(info: Arc<DriverInfo>, token: &HostFeatures) -> Result<Self> {
        cryptoreg_registry::driver::build_skcipher(info, token)
    }
    fn driver(&self) -> &str {
        self.driver_name()
    }
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        Skcipher::set_key(self, key)
    }
    fn crypt_contiguous(&self, dir: Direction, iv: &[u8], data: &[u8]) -> Result<Vec<u8>> {
        let mut buf = data.to_vec();
        match dir {
            Direction::Encrypt => self.encrypt_in_place(iv, &mut buf)?,
            Direction::Decrypt => self.decrypt_in_place(iv, &mut buf)?,
        }
        Ok(buf)
    }
    fn crypt_cfg(
        &self,
        dir: Direction,
        iv: &[u8],
        data: &[u8],
        cfg: &TestConfig,
    ) -> Result<Vec<u8>> {
        skcipher_crypt(self, dir, iv, data, cfg)
    }
}

impl Handle for Cipher {
    const SINGLE_BUFFER: bool = true;
    fn from_info(info: Arc<DriverInfo>, token: &HostFeatures) -> Result<Self> {
        cryptoreg_registry::driver::build_cipher(info, token)
    }
    fn driver(&self) -> &str {
        self.driver_name()
    }
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        Cipher::set_key(self, key)
    }
    fn crypt_contiguous(&self, dir: Direction, _iv: &[u8], data: &[u8]) -> Result<Vec<u8>> {
        let mut buf = data.to_vec();
        match dir {
            Direction::Encrypt => self.encrypt_blocks(&mut buf)?,
            Direction::Decrypt => self.decrypt_blocks(&mut buf)?,
        }
        Ok(buf)
    }
    fn crypt_cfg(
        &self,
        dir: Direction,
        _iv: &[u8],
        data: &[u8],
        cfg: &TestConfig,
    ) -> Result<Vec<u8>> {
        cipher_crypt(self, dir, data, cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scatter_and_gather_round_trip() {
        let data: Vec<u8> = (0..100u8).collect();
        let divs = [
            Division {
                proportion: 333,
                offset: 5,
            },
            Division {
                proportion: 0,
                offset: 1,
            },
            Division {
                proportion: 667,
                offset: 4000,
            },
        ];
        let s = Scattered::with_data(&data, &divs);
        assert_eq!(s.gather(), data);
        assert_eq!(
            s.slices().iter().map(|x| x.len()).collect::<Vec<_>>(),
            [33, 0, 67]
        );
        assert_eq!(s.bufs[2].len(), 4067);
        let p = Scattered::poisoned(10, &divs);
        assert_eq!(p.gather(), [POISON; 10]);
        assert_eq!(misaligned(&[1, 2], 3), [0, 0, 0, 1, 2]);
    }
}
