//! AES: the block cipher and its mode drivers, one backend per instruction set, and the
//! GCM and XTS rules every `gcm(aes)` / `xts(aes)` driver shares ([`gcm_rules`],
//! [`xts_rules`]).
//!
//! * [`AesGeneric`] (`aes-generic`, priority 100): portable, bitsliced, constant-time.
//! * `aesni` (x86-64): `aes-aesni` (300), `ecb-aes-aesni`, `cbc-aes-aesni`,
//!   `ctr-aes-aesni` (400), `xts-aes-aesni` (401), `gcm-aes-aesni` (400); `vaes`
//!   (x86-64): `{xts,ctr,gcm}-aes-vaes-*`; `x86`: the key schedule, round-key bytes and IV
//!   check both share.
//! * `ce` (arm64): `aes-ce` (250), `{ecb,cbc,ctr,xts,gcm}-aes-ce` (300).

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
mod cross_backend_tests;
#[cfg(all(test, target_arch = "x86_64"))]
mod out_of_place_tests;
#[cfg(test)]
mod tests;
