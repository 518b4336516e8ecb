//! The negative control: code that is *not* constant-time, which memcheck must flag.
//! `cargo xtask ctgrind` runs it and requires Valgrind to fail with both kinds of
//! report, which proves the client requests really mark memory undefined and the checks
//! would catch a leaking driver (a check that cannot fail proves nothing).

use std::hint::black_box;

use crate::secret::{classify, declassify};

/// An S-box as a lookup table, the classic cache-timing leak (T-table AES).
static TABLE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).wrapping_mul(29).rotate_left(3) ^ 0x63;
        i += 1;
    }
    t
};

#[inline(never)]
fn when_odd(x: u8) -> u8 {
    black_box(x.wrapping_mul(3))
}

#[inline(never)]
fn when_even(x: u8) -> u8 {
    black_box(x ^ 0x5a)
}

/// A table lookup indexed by a secret byte ("Use of uninitialised value of size 8") and
/// a branch on a secret bit ("Conditional jump or move depends on uninitialised
/// value(s)"). Returns the declassified result.
pub fn leak() -> u8 {
    let secret = classify(vec![0x2a, 0x17]);
    let looked_up = TABLE[usize::from(black_box(secret[0]))];
    let branched = if black_box(secret[1]) & 1 == 1 {
        when_odd(looked_up)
    } else {
        when_even(looked_up)
    };
    let out = [branched];
    declassify(&out)[0]
}
