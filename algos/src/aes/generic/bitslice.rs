//! The bitsliced AES state: four blocks (64 bytes) as eight `u64` bit planes, and the
//! linear layers of the round function on that representation.
//!
//! Plane `b` holds bit `b` of every state byte. The byte in row `r`, column `c` of block
//! `k` sits at bit position `16*r + 4*c + k` of each plane, so that
//!
//! * a row is one 16-bit lane: `ShiftRows` rotates each lane by whole columns (4 bits);
//! * the next row of the same column is 16 bits up: `MixColumns` mixes a plane with its
//!   rotations by 16, 32 and 48 bits;
//! * the four blocks ride along in the low two bits and never interact.
//!
//! Every operation here is a fixed sequence of shifts, masks and XORs: timing does not
//! depend on the data.

/// `GATHER[w][j]`: which byte of the 64-byte batch goes to byte `j` of word `w` before the
/// 8x8 bit transposition. After [`transpose`], bit `8*j + w` of plane `b` is bit `b` of
/// that byte, so we choose the byte whose position is `p = 8*j + w`:
/// block `p % 4`, column `(p / 4) % 4`, row `p / 16`.
const GATHER: [[usize; 8]; 8] = {
    let mut t = [[0usize; 8]; 8];
    let mut w = 0;
    while w < 8 {
        let mut j = 0;
        while j < 8 {
            let p = 8 * j + w;
            let (block, col, row) = (p % 4, (p / 4) % 4, p / 16);
            t[w][j] = 16 * block + 4 * col + row;
            j += 1;
        }
        w += 1;
    }
    t
};

/// Exchanges the bits of `x[b]` selected by `mask` with the bits of `x[a]` selected by
/// `mask << n`.
#[inline(always)]
fn swap_move(x: &mut [u64; 8], a: usize, b: usize, mask: u64, n: u32) {
    let t = ((x[a] >> n) ^ x[b]) & mask;
    x[b] ^= t;
    x[a] ^= t << n;
}

/// Transposes, for each of the eight byte lanes, the 8x8 bit matrix (word index, bit
/// index): afterwards bit `8*j + w` of `x[b]` is what bit `8*j + b` of `x[w]` was. It is
/// its own inverse.
#[inline(always)]
fn transpose(x: &mut [u64; 8]) {
    for (a, b) in [(0, 1), (2, 3), (4, 5), (6, 7)] {
        swap_move(x, a, b, 0x5555_5555_5555_5555, 1);
    }
    for (a, b) in [(0, 2), (1, 3), (4, 6), (5, 7)] {
        swap_move(x, a, b, 0x3333_3333_3333_3333, 2);
    }
    for (a, b) in [(0, 4), (1, 5), (2, 6), (3, 7)] {
        swap_move(x, a, b, 0x0f0f_0f0f_0f0f_0f0f, 4);
    }
}

/// Four blocks into bit planes.
#[inline(always)]
pub(super) fn pack(batch: &[u8; 64]) -> [u64; 8] {
    let mut x = [0u64; 8];
    for (word, idx) in x.iter_mut().zip(&GATHER) {
        for (j, &i) in idx.iter().enumerate() {
            *word |= u64::from(batch[i]) << (8 * j);
        }
    }
    transpose(&mut x);
    x
}

/// Bit planes back into four blocks.
#[inline(always)]
pub(super) fn unpack(mut x: [u64; 8], batch: &mut [u8; 64]) {
    transpose(&mut x);
    for (word, idx) in x.iter().zip(&GATHER) {
        for (j, &i) in idx.iter().enumerate() {
            batch[i] = (word >> (8 * j)) as u8;
        }
    }
}

/// XORs a round key (already in plane form).
#[inline(always)]
pub(super) fn add_round_key(x: &mut [u64; 8], k: &[u64; 8]) {
    for (a, b) in x.iter_mut().zip(k) {
        *a ^= b;
    }
}

/// `ShiftRows`: row `r` moves left by `r` columns, i.e. its 16-bit lane rotates right by
/// `4*r` bits (column `c` takes what column `c + r` held).
#[inline(always)]
pub(super) fn shift_rows(x: &mut [u64; 8]) {
    for v in x.iter_mut() {
        let a = *v;
        *v = (a & 0x0000_0000_0000_ffff)
            | ((a >> 4) & 0x0000_0000_0fff_0000)
            | ((a << 12) & 0x0000_0000_f000_0000)
            | ((a >> 8) & 0x0000_00ff_0000_0000)
            | ((a << 8) & 0x0000_ff00_0000_0000)
            | ((a >> 12) & 0x000f_0000_0000_0000)
            | ((a << 4) & 0xfff0_0000_0000_0000);
    }
}

/// `InvShiftRows`: each row's lane rotates left by `4*r` bits.
#[inline(always)]
pub(super) fn inv_shift_rows(x: &mut [u64; 8]) {
    for v in x.iter_mut() {
        let a = *v;
        *v = (a & 0x0000_0000_0000_ffff)
            | ((a << 4) & 0x0000_0000_fff0_0000)
            | ((a >> 12) & 0x0000_0000_000f_0000)
            | ((a << 8) & 0x0000_ff00_0000_0000)
            | ((a >> 8) & 0x0000_00ff_0000_0000)
            | ((a << 12) & 0xf000_0000_0000_0000)
            | ((a >> 4) & 0x0fff_0000_0000_0000);
    }
}

/// Multiplies every byte by `x` (`xtime`) in plane form: a shift of the planes with the
/// reduction polynomial `x^8 = x^4 + x^3 + x + 1` folding plane 7 back in.
#[inline(always)]
fn xtime(t: &[u64; 8]) -> [u64; 8] {
    [
        t[7],
        t[0] ^ t[7],
        t[1],
        t[2] ^ t[7],
        t[3] ^ t[7],
        t[4],
        t[5],
        t[6],
    ]
}

/// `MixColumns`: `b_r = 2*a_r ^ 3*a_{r+1} ^ a_{r+2} ^ a_{r+3}`, computed as
/// `xtime(t) ^ a_{r+1} ^ t_{r+2}` with `t_r = a_r ^ a_{r+1}`. "Row `r + k`" of the same
/// column is the plane rotated right by `16*k` bits.
#[inline(always)]
pub(super) fn mix_columns(x: &mut [u64; 8]) {
    let r1: [u64; 8] = core::array::from_fn(|i| x[i].rotate_right(16));
    let t: [u64; 8] = core::array::from_fn(|i| x[i] ^ r1[i]);
    let xt = xtime(&t);
    for i in 0..8 {
        x[i] = xt[i] ^ r1[i] ^ t[i].rotate_right(32);
    }
}

/// `InvMixColumns`, factored as `MixColumns` after multiplying each column by the
/// circulant `(05, 00, 04, 00)`: `u_r = a_r ^ 4*(a_r ^ a_{r+2})`. The product of the two
/// circulants is `(0e, 0b, 0d, 09)`, the inverse matrix of FIPS-197 §5.3.3.
#[inline(always)]
pub(super) fn inv_mix_columns(x: &mut [u64; 8]) {
    let s: [u64; 8] = core::array::from_fn(|i| x[i] ^ x[i].rotate_right(32));
    let s4 = xtime(&xtime(&s));
    for i in 0..8 {
        x[i] ^= s4[i];
    }
    mix_columns(x);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch() -> [u8; 64] {
        core::array::from_fn(|i| (i as u8).wrapping_mul(73).wrapping_add(11))
    }

    #[test]
    fn pack_places_bytes_as_documented() {
        let b = batch();
        let x = pack(&b);
        for block in 0..4 {
            for col in 0..4 {
                for row in 0..4 {
                    let byte = b[16 * block + 4 * col + row];
                    let p = 16 * row + 4 * col + block;
                    for (bit, plane) in x.iter().enumerate() {
                        assert_eq!((plane >> p) & 1, u64::from((byte >> bit) & 1));
                    }
                }
            }
        }
        let mut back = [0u8; 64];
        unpack(x, &mut back);
        assert_eq!(back, b);
    }

    #[test]
    fn shift_rows_matches_definition_and_inverts() {
        let b = batch();
        let mut x = pack(&b);
        shift_rows(&mut x);
        let mut out = [0u8; 64];
        unpack(x, &mut out);
        for block in 0..4 {
            for col in 0..4 {
                for row in 0..4 {
                    assert_eq!(
                        out[16 * block + 4 * col + row],
                        b[16 * block + 4 * ((col + row) % 4) + row]
                    );
                }
            }
        }
        inv_shift_rows(&mut x);
        unpack(x, &mut out);
        assert_eq!(out, b);
    }

    #[test]
    fn mix_columns_known_column_and_inverts() {
        // A well-known MixColumns test column: db 13 53 45 -> 8e 4d a1 bc.
        let mut b = [0u8; 64];
        b[..4].copy_from_slice(&[0xdb, 0x13, 0x53, 0x45]);
        b[20..24].copy_from_slice(&[0xdb, 0x13, 0x53, 0x45]);
        let mut x = pack(&b);
        mix_columns(&mut x);
        let mut out = [0u8; 64];
        unpack(x, &mut out);
        assert_eq!(out[..4], [0x8e, 0x4d, 0xa1, 0xbc]);
        assert_eq!(out[20..24], [0x8e, 0x4d, 0xa1, 0xbc]);
        inv_mix_columns(&mut x);
        unpack(x, &mut out);
        assert_eq!(out, b);
        let b = batch();
        let mut x = pack(&b);
        mix_columns(&mut x);
        inv_mix_columns(&mut x);
        unpack(x, &mut out);
        assert_eq!(out, b);
    }
}
