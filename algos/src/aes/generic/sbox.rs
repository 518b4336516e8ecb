//! The AES S-box and its inverse as Boolean circuits over bit planes.
//!
//! Each of the eight `u64` words holds one bit position (plane 0 = least significant bit)
//! of 64 independent bytes, so one evaluation substitutes 64 bytes with nothing but AND,
//! XOR and NOT: no table, no branch, hence constant time.
//!
//! The gates follow Boyar and Peralta, "A depth-16 circuit for the AES S-box" (2012): a
//! linear top layer, a shared non-linear middle layer (the inversion in GF(2^8) through
//! GF(2^4)), and a linear bottom layer. The inverse S-box uses their inverse top and bottom
//! layers around the same middle layer, which is cheaper than composing the forward
//! circuit with two inverse affine maps. In the paper's numbering `U0` is the most
//! significant input bit and `S0` the most significant output bit; the functions below
//! translate from and to plane order.

/// The 22 values the top layer hands to the middle layer (the paper's `T` names, with `d`
/// the extra input of the forward/inverse shared circuit).
struct Top {
    t1: u64,
    t2: u64,
    t3: u64,
    t4: u64,
    t6: u64,
    t8: u64,
    t9: u64,
    t10: u64,
    t13: u64,
    t14: u64,
    t15: u64,
    t16: u64,
    t17: u64,
    t19: u64,
    t20: u64,
    t22: u64,
    t23: u64,
    t24: u64,
    t25: u64,
    t26: u64,
    t27: u64,
    d: u64,
}

/// The 18 products the middle layer hands to the bottom layers (`M46..M63`).
struct Mid([u64; 18]);

impl Mid {
    /// `M{n}` in the paper's numbering.
    #[inline(always)]
    fn m(&self, n: usize) -> u64 {
        self.0[n - 46]
    }
}

/// Reorders planes into the paper's input bits: `u[i]` is bit `7 - i`.
#[inline(always)]
fn inputs(x: &[u64; 8]) -> [u64; 8] {
    [x[7], x[6], x[5], x[4], x[3], x[2], x[1], x[0]]
}

/// The forward top layer: 23 XORs into the middle layer's inputs.
#[inline(always)]
fn top_forward(u: &[u64; 8]) -> Top {
    let t1 = u[0] ^ u[3];
    let t2 = u[0] ^ u[5];
    let t3 = u[0] ^ u[6];
    let t4 = u[3] ^ u[5];
    let t5 = u[4] ^ u[6];
    let t6 = t1 ^ t5;
    let t7 = u[1] ^ u[2];
    let t8 = u[7] ^ t6;
    let t9 = u[7] ^ t7;
    let t10 = t6 ^ t7;
    let t11 = u[1] ^ u[5];
    let t12 = u[2] ^ u[5];
    let t13 = t3 ^ t4;
    let t14 = t6 ^ t11;
    let t15 = t5 ^ t11;
    let t16 = t5 ^ t12;
    let t17 = t9 ^ t16;
    let t18 = u[3] ^ u[7];
    let t19 = t7 ^ t18;
    let t20 = t1 ^ t19;
    let t21 = u[6] ^ u[7];
    let t22 = t7 ^ t21;
    let t23 = t2 ^ t22;
    let t24 = t2 ^ t10;
    let t25 = t20 ^ t17;
    let t26 = t3 ^ t16;
    let t27 = t1 ^ t12;
    Top {
        t1,
        t2,
        t3,
        t4,
        t6,
        t8,
        t9,
        t10,
        t13,
        t14,
        t15,
        t16,
        t17,
        t19,
        t20,
        t22,
        t23,
        t24,
        t25,
        t26,
        t27,
        d: u[7],
    }
}

/// The inverse top layer (it folds in the inverse affine map; `!` is the XNOR's NOT).
#[inline(always)]
fn top_inverse(u: &[u64; 8]) -> Top {
    let r5 = u[6] ^ u[7];
    let r13 = u[1] ^ u[6];
    let r17 = !(u[2] ^ u[5]);
    let r18 = !(u[5] ^ u[6]);
    let r19 = !(u[2] ^ u[4]);
    let t1 = u[3] ^ u[4];
    let t2 = !(u[0] ^ u[1]);
    let t22 = !(u[1] ^ u[3]);
    let t23 = u[0] ^ u[3];
    let t24 = !(u[4] ^ u[7]);
    let t3 = t1 ^ r5;
    let t8 = !(u[1] ^ t23);
    let t4 = u[4] ^ t8;
    let t6 = t22 ^ r17;
    let t9 = !(u[7] ^ t1);
    let t10 = t2 ^ t24;
    let t13 = t2 ^ r5;
    let t27 = t1 ^ r18;
    let t14 = t10 ^ r18;
    let t15 = t10 ^ t27;
    let t16 = r13 ^ r19;
    let t19 = t22 ^ r5;
    let t17 = !(u[2] ^ t19);
    let t20 = t24 ^ r13;
    let t25 = !(u[2] ^ t1);
    let t26 = t3 ^ t16;
    Top {
        t1,
        t2,
        t3,
        t4,
        t6,
        t8,
        t9,
        t10,
        t13,
        t14,
        t15,
        t16,
        t17,
        t19,
        t20,
        t22,
        t23,
        t24,
        t25,
        t26,
        t27,
        d: u[0] ^ r17,
    }
}

/// The shared non-linear middle layer: 32 ANDs and the XORs between them.
#[inline(always)]
fn middle(t: &Top) -> Mid {
    let m1 = t.t13 & t.t6;
    let m2 = t.t23 & t.t8;
    let m3 = t.t14 ^ m1;
    let m4 = t.t19 & t.d;
    let m5 = m4 ^ m1;
    let m6 = t.t3 & t.t16;
    let m7 = t.t22 & t.t9;
    let m8 = t.t26 ^ m6;
    let m9 = t.t20 & t.t17;
    let m10 = m9 ^ m6;
    let m11 = t.t1 & t.t15;
    let m12 = t.t4 & t.t27;
    let m13 = m12 ^ m11;
    let m14 = t.t2 & t.t10;
    let m15 = m14 ^ m11;
    let m16 = m3 ^ m2;
    let m17 = m5 ^ t.t24;
    let m18 = m8 ^ m7;
    let m19 = m10 ^ m15;
    let m20 = m16 ^ m13;
    let m21 = m17 ^ m15;
    let m22 = m18 ^ m13;
    let m23 = m19 ^ t.t25;
    let m24 = m22 ^ m23;
    let m25 = m22 & m20;
    let m26 = m21 ^ m25;
    let m27 = m20 ^ m21;
    let m28 = m23 ^ m25;
    let m29 = m28 & m27;
    let m30 = m26 & m24;
    let m31 = m20 & m23;
    let m32 = m27 & m31;
    let m33 = m27 ^ m25;
    let m34 = m21 & m22;
    let m35 = m24 & m34;
    let m36 = m24 ^ m25;
    let m37 = m21 ^ m29;
    let m38 = m32 ^ m33;
    let m39 = m23 ^ m30;
    let m40 = m35 ^ m36;
    let m41 = m38 ^ m40;
    let m42 = m37 ^ m39;
    let m43 = m37 ^ m38;
    let m44 = m39 ^ m40;
    let m45 = m42 ^ m41;
    Mid([
        m44 & t.t6,
        m40 & t.t8,
        m39 & t.d,
        m43 & t.t16,
        m38 & t.t9,
        m37 & t.t17,
        m42 & t.t15,
        m45 & t.t27,
        m41 & t.t10,
        m44 & t.t13,
        m40 & t.t23,
        m39 & t.t19,
        m43 & t.t3,
        m38 & t.t22,
        m37 & t.t20,
        m42 & t.t1,
        m45 & t.t4,
        m41 & t.t2,
    ])
}

/// The forward bottom layer (with the S-box's affine constant as NOTs); writes planes.
#[inline(always)]
fn bottom_forward(m: &Mid, x: &mut [u64; 8]) {
    let l0 = m.m(61) ^ m.m(62);
    let l1 = m.m(50) ^ m.m(56);
    let l2 = m.m(46) ^ m.m(48);
    let l3 = m.m(47) ^ m.m(55);
    let l4 = m.m(54) ^ m.m(58);
    let l5 = m.m(49) ^ m.m(61);
    let l6 = m.m(62) ^ l5;
    let l7 = m.m(46) ^ l3;
    let l8 = m.m(51) ^ m.m(59);
    let l9 = m.m(52) ^ m.m(53);
    let l10 = m.m(53) ^ l4;
    let l11 = m.m(60) ^ l2;
    let l12 = m.m(48) ^ m.m(51);
    let l13 = m.m(50) ^ l0;
    let l14 = m.m(52) ^ m.m(61);
    let l15 = m.m(55) ^ l1;
    let l16 = m.m(56) ^ l0;
    let l17 = m.m(57) ^ l1;
    let l18 = m.m(58) ^ l8;
    let l19 = m.m(63) ^ l4;
    let l20 = l0 ^ l1;
    let l21 = l1 ^ l7;
    let l22 = l3 ^ l12;
    let l23 = l18 ^ l2;
    let l24 = l15 ^ l9;
    let l25 = l6 ^ l10;
    let l26 = l7 ^ l9;
    let l27 = l8 ^ l10;
    let l28 = l11 ^ l14;
    let l29 = l11 ^ l17;
    // S0 is the most significant bit, plane 7.
    x[7] = l6 ^ l24;
    x[6] = !(l16 ^ l26);
    x[5] = !(l19 ^ l28);
    x[4] = l6 ^ l21;
    x[3] = l20 ^ l22;
    x[2] = l25 ^ l29;
    x[1] = !(l13 ^ l27);
    x[0] = !(l6 ^ l23);
}

/// The inverse bottom layer; writes planes.
#[inline(always)]
fn bottom_inverse(m: &Mid, x: &mut [u64; 8]) {
    let p0 = m.m(52) ^ m.m(61);
    let p1 = m.m(58) ^ m.m(59);
    let p2 = m.m(54) ^ m.m(62);
    let p3 = m.m(47) ^ m.m(50);
    let p4 = m.m(48) ^ m.m(56);
    let p5 = m.m(46) ^ m.m(51);
    let p6 = m.m(49) ^ m.m(60);
    let p7 = p0 ^ p1;
    let p8 = m.m(50) ^ m.m(53);
    let p9 = m.m(55) ^ m.m(63);
    let p10 = m.m(57) ^ p4;
    let p11 = p0 ^ p3;
    let p12 = m.m(46) ^ m.m(48);
    let p13 = m.m(49) ^ m.m(51);
    let p14 = m.m(49) ^ m.m(62);
    let p15 = m.m(54) ^ m.m(59);
    let p16 = m.m(57) ^ m.m(61);
    let p17 = m.m(58) ^ p2;
    let p18 = m.m(63) ^ p5;
    let p19 = p2 ^ p3;
    let p20 = p4 ^ p6;
    let p22 = p2 ^ p7;
    let p23 = p7 ^ p8;
    let p24 = p5 ^ p7;
    let p25 = p6 ^ p10;
    let p26 = p9 ^ p11;
    let p27 = p10 ^ p18;
    let p28 = p11 ^ p25;
    let p29 = p15 ^ p20;
    x[7] = p13 ^ p22;
    x[6] = p26 ^ p29;
    x[5] = p17 ^ p28;
    x[4] = p12 ^ p22;
    x[3] = p23 ^ p27;
    x[2] = p19 ^ p24;
    x[1] = p14 ^ p23;
    x[0] = p9 ^ p16;
}

/// `SubBytes` on 64 bytes held as eight bit planes.
#[inline(always)]
pub(super) fn sub_bytes(x: &mut [u64; 8]) {
    let top = top_forward(&inputs(x));
    bottom_forward(&middle(&top), x);
}

/// `InvSubBytes` on 64 bytes held as eight bit planes.
#[inline(always)]
pub(super) fn inv_sub_bytes(x: &mut [u64; 8]) {
    let top = top_inverse(&inputs(x));
    bottom_inverse(&middle(&top), x);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1, the slow obvious way.
    fn gmul(mut a: u8, mut b: u8) -> u8 {
        let mut p = 0;
        while b != 0 {
            if b & 1 != 0 {
                p ^= a;
            }
            a = (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 };
            b >>= 1;
        }
        p
    }

    /// The S-box from its definition (FIPS-197 §5.1.1): inversion, then the affine map.
    fn sbox_reference(v: u8) -> u8 {
        let inv = (1..=255u8).find(|&y| gmul(v, y) == 1).unwrap_or(0);
        inv ^ inv.rotate_left(1)
            ^ inv.rotate_left(2)
            ^ inv.rotate_left(3)
            ^ inv.rotate_left(4)
            ^ 0x63
    }

    fn planes_of(bytes: &[u8; 64]) -> [u64; 8] {
        let mut x = [0u64; 8];
        for (j, &v) in bytes.iter().enumerate() {
            for (b, plane) in x.iter_mut().enumerate() {
                *plane |= u64::from((v >> b) & 1) << j;
            }
        }
        x
    }

    fn bytes_of(x: &[u64; 8]) -> [u8; 64] {
        let mut out = [0u8; 64];
        for (j, v) in out.iter_mut().enumerate() {
            for (b, plane) in x.iter().enumerate() {
                *v |= (((plane >> j) & 1) as u8) << b;
            }
        }
        out
    }

    #[test]
    fn all_256_values_both_directions() {
        for quarter in 0..4u8 {
            let input: [u8; 64] = core::array::from_fn(|j| quarter * 64 + j as u8);
            let mut x = planes_of(&input);
            sub_bytes(&mut x);
            let fwd = bytes_of(&x);
            for (&v, &s) in input.iter().zip(&fwd) {
                assert_eq!(s, sbox_reference(v), "S({v:#04x})");
            }
            let mut y = planes_of(&fwd);
            inv_sub_bytes(&mut y);
            assert_eq!(bytes_of(&y), input);
        }
    }
}
