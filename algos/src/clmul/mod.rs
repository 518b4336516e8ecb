//! Carry-less multiplication: products of polynomials over GF(2), the arithmetic of GHASH
//! (and of CRCs and POLYVAL).
//!
//! * [`portable`]: constant-time integer code for 8x8, 16x16, 32x32 and 64x64 bits (the
//!   widths and lane layouts of QEMU's `crypto/clmul.c`), plus the 128x128 product that
//!   `ghash-generic` uses.
//! * `pclmul` (x86-64): the 64x64 product on PCLMULQDQ.
//! * [`Clmul`]: a 64x64 multiplier picked once by the CPU check: PCLMULQDQ when the host
//!   has it (and the operator did not mask it), else the portable code. Both give the same
//!   answer for every input (tested); choose by speed, never by correctness.
//!
//! The GHASH drivers do not go through [`Clmul`] per multiply: `ghash-generic` stays on
//! the portable code so that its constant-time property does not depend on the CPU, and
//! `ghash-clmulni` inlines PCLMULQDQ into its own `#[target_feature]` kernel.

#[cfg(target_arch = "x86_64")]
mod pclmul;
pub mod portable;

use cryptoreg_registry::HostFeatures;

pub use portable::{clmul128, clmul16, clmul32, clmul64, clmul8};

/// A 64x64 -> 128 carry-less multiplier, picked by the CPU check.
#[derive(Clone, Copy, Debug)]
pub struct Clmul(Path);

#[derive(Clone, Copy, Debug)]
enum Path {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Pclmul(crate::x86::token::Pclmul),
}

impl Clmul {
    /// PCLMULQDQ when `host` has it, else the portable code.
    pub fn new(host: &HostFeatures) -> Clmul {
        #[cfg(target_arch = "x86_64")]
        if let Ok(token) = crate::x86::token::Pclmul::new(host, "clmul") {
            return Clmul(Path::Pclmul(token));
        }
        let _ = host;
        Clmul(Path::Portable)
    }

    /// The portable path whatever the CPU (for comparisons and constant-time checks).
    pub fn portable() -> Clmul {
        Clmul(Path::Portable)
    }

    /// Whether the PCLMULQDQ path was picked.
    pub fn is_accelerated(&self) -> bool {
        !matches!(self.0, Path::Portable)
    }

    /// The 128-bit carry-less product of `n` and `m`.
    #[inline]
    pub fn mul64(&self, n: u64, m: u64) -> u128 {
        match self.0 {
            Path::Portable => clmul64(n, m),
            #[cfg(target_arch = "x86_64")]
            Path::Pclmul(token) => pclmul::clmul64(token, n, m),
        }
    }
}

#[cfg(test)]
mod tests;
