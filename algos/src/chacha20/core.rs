//! The scalar ChaCha20 core (RFC 8439 §2.1-2.3) and HChaCha20
//! (draft-irtf-cfrg-xchacha-03 §2.2): add, rotate, xor on `u32` words, no tables and no
//! data-dependent branches, so it is constant-time by construction.

use zeroize::Zeroize;

/// "expand 32-byte k" as four little-endian words (state words 0..4).
pub const CHACHA_CONSTANTS: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

/// The quarter round on words `a`, `b`, `c`, `d` of `s` (RFC 8439 §2.1).
#[inline(always)]
pub fn quarter_round(s: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    s[a] = s[a].wrapping_add(s[b]);
    s[d] = (s[d] ^ s[a]).rotate_left(16);
    s[c] = s[c].wrapping_add(s[d]);
    s[b] = (s[b] ^ s[c]).rotate_left(12);
    s[a] = s[a].wrapping_add(s[b]);
    s[d] = (s[d] ^ s[a]).rotate_left(8);
    s[c] = s[c].wrapping_add(s[d]);
    s[b] = (s[b] ^ s[c]).rotate_left(7);
}

/// The 20 rounds (10 double rounds: columns, then diagonals), without the final addition.
#[inline(always)]
fn rounds(s: &mut [u32; 16]) {
    for _ in 0..10 {
        quarter_round(s, 0, 4, 8, 12);
        quarter_round(s, 1, 5, 9, 13);
        quarter_round(s, 2, 6, 10, 14);
        quarter_round(s, 3, 7, 11, 15);
        quarter_round(s, 0, 5, 10, 15);
        quarter_round(s, 1, 6, 11, 12);
        quarter_round(s, 2, 7, 8, 13);
        quarter_round(s, 3, 4, 9, 14);
    }
}

/// The initial state for `key` and a 16-byte `chacha20` IV (counter LE, then nonce):
/// constants, key words, IV words (RFC 8439 §2.3). The caller zeroizes it.
pub fn init_state(key: &[u8; 32], iv: &[u8; 16]) -> [u32; 16] {
    let mut s = [0u32; 16];
    s[..4].copy_from_slice(&CHACHA_CONSTANTS);
    for (w, b) in s[4..12].iter_mut().zip(key.chunks_exact(4)) {
        *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    for (w, b) in s[12..].iter_mut().zip(iv.chunks_exact(4)) {
        *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    s
}

/// One 64-byte keystream block of `state` (RFC 8439 §2.3): the rounds plus the input,
/// serialized little-endian. The counter in word 12 is not advanced.
pub fn chacha20_block(state: &[u32; 16]) -> [u8; 64] {
    let mut w = *state;
    rounds(&mut w);
    let mut out = [0u8; 64];
    for ((o, x), i) in out.chunks_exact_mut(4).zip(w.iter()).zip(state.iter()) {
        o.copy_from_slice(&x.wrapping_add(*i).to_le_bytes());
    }
    w.zeroize();
    out
}

/// Xors the keystream of `state` into `data` (any length), block by block from word 12's
/// counter, and advances word 12 by the blocks used (wrapping, as the kernel does; the
/// counter-room rule is checked before a request starts). A partial last block uses a
/// prefix of one more keystream block and still advances the counter.
pub fn chacha20_xor(state: &mut [u32; 16], data: &mut [u8]) {
    for chunk in data.chunks_mut(64) {
        let mut ks = chacha20_block(state);
        for (d, k) in chunk.iter_mut().zip(ks.iter()) {
            *d ^= k;
        }
        ks.zeroize();
        state[12] = state[12].wrapping_add(1);
    }
}

/// HChaCha20 (draft-irtf-cfrg-xchacha-03 §2.2): the 20 rounds over constants, `key` and
/// the 16-byte `nonce` (all four IV words), without the final addition; the subkey is
/// words 0..4 and 12..16, little-endian.
pub fn hchacha20(key: &[u8; 32], nonce: &[u8; 16]) -> [u8; 32] {
    let mut out = [0u8; 32];
    hchacha20_into(key, nonce, &mut out);
    out
}

/// [`hchacha20`] into the caller's buffer, for a caller that keeps the subkey in wiped
/// storage of its own (a returned array is moved, and a move leaves its old bytes behind).
pub fn hchacha20_into(key: &[u8; 32], nonce: &[u8; 16], out: &mut [u8; 32]) {
    let mut s = init_state(key, nonce);
    rounds(&mut s);
    for (o, w) in out
        .chunks_exact_mut(4)
        .zip(s[..4].iter().chain(s[12..].iter()))
    {
        o.copy_from_slice(&w.to_le_bytes());
    }
    s.zeroize();
}
