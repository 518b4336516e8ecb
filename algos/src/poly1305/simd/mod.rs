//! Poly1305 on x86-64 vector units: three drivers of the `poly1305` keyed hash (32-byte
//! one-time key `r || s`, 16-byte tag, RFC 8439 section 2.5), the same semantics as
//! `poly1305-generic`.
//!
//! | driver | priority | kernel |
//! | --- | --- | --- |
//! | `poly1305-avx2` | 400 | ymm, 4 blocks at once, radix 2^26 (`vpmuludq`) |
//! | `poly1305-avx512` | 500 (`uses_zmm`) | zmm, 8 blocks at once, radix 2^26 |
//! | `poly1305-avx512ifma` | 550 (`uses_zmm`) | zmm, 8 blocks at once, radix 2^44 (`vpmadd52luq/huq`) |
//!
//! Layout: `scalar` is the arithmetic every driver keeps in general registers (the
//! accumulator in radix 2^64, the one-block step in Rust, the final reduction, the powers
//! of `r`); `step` the same one-block step as one inline-assembly block, which every run
//! of full blocks takes (checked against the Rust one); `vec26` the
//! radix-2^26 core written once over the vector layer (`PolyVec` on `Ymm<Vex>` and `Zmm`);
//! `ifma` the radix-2^44 core; `lanes` the trait over both that the fused
//! ChaCha20-Poly1305 core feeds group by group; `entry` the `#[target_feature]` instantiations; `hash` the
//! registered drivers, whose running state is `poly1305-generic`'s frame
//! ([`crate::poly1305::Poly1305`]) over a SIMD block backend.
//!
//! Length thresholds are inside each driver: an update of fewer than
//! `Width::min_blocks` whole blocks runs the scalar step (setting up the vector powers and
//! folding the lanes costs about as much as a few scalar blocks), longer ones the vector
//! entry. Between calls the state is the frame's (radix 2^26), so every driver, the generic
//! one included, exports the same bytes for the same input.
//!
//! The `raw` module (hidden from the docs) exposes the entries and the key expansion to the
//! `cryptoreg-emu` crate, which runs the AVX-512 entries under the Bochs emulator.

#![allow(unsafe_code)]

pub(crate) mod entry;
pub(crate) mod hash;
pub(crate) mod ifma;
pub(crate) mod lanes;
pub(crate) mod scalar;
pub(crate) mod step;
pub(crate) mod vec26;

#[cfg(test)]
mod tests;

#[allow(unused_imports)]
pub(crate) use hash::{Poly1305Simd, Width};

/// The raw entry points and key expansion, for the emulator test crate (`emu/`) and the
/// machine-code check. Not a public API: the registry's drivers are.
#[doc(hidden)]
pub mod raw {
    pub use super::entry::*;

    /// The whole Poly1305 tag of `msg` with this module's scalar code only.
    pub fn scalar_tag(key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
        let k = Poly1305Key::new(key);
        super::hash::tag_with(&k, msg, |acc, blocks| acc.blocks(&k.r, blocks, 1))
    }

    /// The tag of `msg` by `poly1305-generic`'s code (the emulator harness's reference:
    /// it shares nothing with the SIMD kernels).
    pub fn generic_tag(key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
        let mut st = crate::poly1305::Poly1305::new(key);
        st.update(msg);
        st.finalize()
    }

    /// Finishes a running sum `h` (as the entries leave it: its top limb at most 4, the
    /// scalar step's bound; another `h` gives a wrong tag, or a debug assertion) after
    /// `rest` (< 16 bytes): pads, absorbs and adds `s`.
    pub fn finish(key: &Poly1305Key, h: [u64; 3], rest: &[u8]) -> [u8; 16] {
        super::hash::finish(key, super::scalar::Acc { h }, rest)
    }
}
