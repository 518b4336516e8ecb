//! Secret inputs and public outputs, in memcheck's terms.
//!
//! A secret is marked *undefined*: memcheck then tracks everything computed from it and
//! reports the first conditional jump, conditional move or memory address that depends
//! on it ("Conditional jump or move depends on uninitialised value(s)", "Use of
//! uninitialised value of size N"). That is exactly a timing channel: a branch or a
//! cache line chosen by a secret. An output is *declassified* (marked defined) just
//! before the check compares it, the point where it becomes public anyway.

use crate::valgrind;

/// Deterministic filler bytes; the values do not matter to memcheck, only to the
/// correctness checks that show the code really ran.
pub fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect()
}

/// Marks `bytes` secret (undefined) and hands them back.
pub fn classify(bytes: Vec<u8>) -> Vec<u8> {
    valgrind::make_undefined(&bytes);
    bytes
}

/// Marks `bytes` public (defined) before they are compared or printed.
pub fn declassify(bytes: &[u8]) -> &[u8] {
    valgrind::make_defined(bytes);
    bytes
}
