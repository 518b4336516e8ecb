//! AES: the block cipher (generic constant-time and AES-NI) and the AES-NI mode drivers.
//!
//! * [`AesGeneric`] (`aes-generic`, priority 100): portable, bitsliced, constant-time.
//! * `x86_64` (AES-NI): `aes-aesni` (300), `ecb-aes-aesni`, `cbc-aes-aesni`,
//!   `ctr-aes-aesni` (400) and `xts-aes-aesni` (401), plus the key schedule
//!   (`x86_64::key_schedule`) that the VAES drivers share.

#[cfg(target_arch = "x86_64")]
pub mod aesni;
#[cfg(target_arch = "aarch64")]
pub(crate) mod ce;
#[cfg(test)]
mod gcm_driver_tests;
pub mod gcm_rules;
mod generic;
#[cfg(target_arch = "x86_64")]
pub mod vaes;
#[cfg(target_arch = "x86_64")]
mod x86;
pub mod xts_rules;

pub use generic::AesGeneric;

#[cfg(all(test, target_arch = "x86_64"))]
mod out_of_place_tests;
#[cfg(test)]
mod tests;
