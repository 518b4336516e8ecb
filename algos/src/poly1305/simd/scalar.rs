//! The scalar Poly1305 arithmetic every SIMD driver keeps beside its vector kernel: the
//! accumulator in three 64-bit limbs (radix 2^64), the one-block step for short inputs and
//! the last blocks, the final reduction, and the conversions to and from the vector
//! kernels' radices (2^26 for the AVX2 / AVX-512F kernels, 2^44 for the IFMA one).
//!
//! All of it is branch-free on secret data: carries come from `overflowing_add` and shifts,
//! the final `h >= p` choice is a mask. Full message blocks go through the assembly form
//! of the step ([`super::step`], `adc` carries), the padded ones through the Rust one.
//! The technique (64-bit limbs with `s1 = r1 + r1/4`, which the clamping of `r` allows) is
//! the one of OpenSSL's `poly1305.c`; the code is our own.

use zeroize::Zeroize;

/// 2^26 - 1.
pub(crate) const M26: u64 = (1 << 26) - 1;
/// 2^44 - 1.
pub(crate) const M44: u64 = (1 << 44) - 1;

/// The clamped `r` of a key, as two 64-bit limbs (`r0, r1 < 2^60`, `r1 % 4 == 0`), and
/// `s1 = r1 + r1 / 4` (so `h1 * r1 * 2^128 == h1 * s1 mod p`). `repr(C)`: the assembly
/// step ([`super::step`]) reads the three words at offsets 0, 8 and 16.
#[derive(Clone, Copy, Default, Zeroize)]
#[repr(C)]
pub(crate) struct R64 {
    pub(crate) r0: u64,
    pub(crate) r1: u64,
    pub(crate) s1: u64,
}

impl R64 {
    /// Clamps the first 16 bytes of a one-time key (RFC 8439, 2.5).
    pub(crate) fn from_key(r: &[u8; 16]) -> R64 {
        let lo = u64::from_le_bytes(r[..8].try_into().unwrap_or_default());
        let hi = u64::from_le_bytes(r[8..].try_into().unwrap_or_default());
        let r0 = lo & 0x0fff_fffc_0fff_ffff;
        let r1 = hi & 0x0fff_fffc_0fff_fffc;
        R64 {
            r0,
            r1,
            s1: r1 + (r1 >> 2),
        }
    }

    /// `r` as a field element in radix 2^26.
    pub(crate) fn to_fe26(self) -> Fe26 {
        Acc::from_limbs(self.r0, self.r1, 0).to_fe26()
    }
}

/// The accumulator `h` in radix 2^64: `h0 + h1 * 2^64 + h2 * 2^128`, partially reduced
/// (`h2` stays below 8 between blocks), not necessarily below `p`.
#[derive(Clone, Copy, Default, Zeroize, PartialEq, Eq, Debug)]
pub(crate) struct Acc {
    pub(crate) h: [u64; 3],
}

/// A field element in radix 2^26, five limbs in `u64`s, each below 2^27 after a carry
/// pass (the vector kernels' form).
pub(crate) type Fe26 = [u64; 5];

/// A field element in radix 2^44: limbs of 44, 44 and 42 bits (plus carries), the IFMA
/// kernel's form.
pub(crate) type Fe44 = [u64; 3];

/// `a + b` and the carry out, without a branch.
#[inline(always)]
fn adc(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let (s, c1) = a.overflowing_add(b);
    let (s, c2) = s.overflowing_add(carry);
    (s, u64::from(c1) + u64::from(c2))
}

impl Acc {
    /// From three 64-bit limbs.
    pub(crate) fn from_limbs(h0: u64, h1: u64, h2: u64) -> Acc {
        Acc { h: [h0, h1, h2] }
    }

    /// Absorbs whole 16-byte blocks of `data` (a multiple of 16 long; a stray tail is
    /// ignored), each with `hibit` (1 for full message blocks, 0 for a final block the
    /// caller already padded with its 0x01 byte): `h = (h + m) * r mod p`, partially.
    ///
    /// Full message blocks (`hibit == 1`) go through the assembly step ([`super::step`]),
    /// the same arithmetic as [`block`](Self::block) in fewer instructions: on Zen 4 the
    /// short requests that run their Poly1305 here after the keystream sealed about 4%
    /// faster at 256 to 1420 bytes (`cryptoctl speed 'rfc7539(chacha20,poly1305)' --aad
    /// 13`, three alternating runs of the two builds: `-avx512ifma` 256 bytes 1148-1151 ->
    /// 1192-1201 MB/s, `-avx2` 1004-1007 -> 1033-1037).
    #[inline(always)]
    pub(crate) fn blocks(&mut self, r: &R64, data: &[u8], hibit: u64) {
        for m in data.chunks_exact(16) {
            if hibit == 1 {
                // SAFETY: `m` is 16 readable bytes.
                unsafe { super::step::block(self, r, m.as_ptr()) };
            } else {
                let m0 = u64::from_le_bytes(m[..8].try_into().unwrap_or_default());
                let m1 = u64::from_le_bytes(m[8..].try_into().unwrap_or_default());
                self.block(r, [m0, m1], hibit);
            }
        }
    }

    /// Absorbs `tail` (shorter than a block) zero-padded to one block with the 2^128 bit,
    /// as RFC 8439's `pad16` does to AEAD data; nothing when `tail` is empty.
    ///
    /// The block is assembled in registers from loads inside `tail` ([`padded_words`]),
    /// not copied into a zeroed stack block first: loads that span the pieces of a
    /// variable-length copy cannot take their data from the store buffer and wait for the
    /// copy to reach the cache, on the short requests where this runs.
    #[inline(always)]
    pub(crate) fn padded_block(&mut self, r: &R64, tail: &[u8]) {
        if !tail.is_empty() {
            self.block(r, padded_words(tail), 1);
        }
    }

    /// One block `m` (two little-endian words) with `hibit`: `h = (h + m) * r mod p`,
    /// partially. The reference the assembly step is tested against, and the step of the
    /// padded blocks (assembled in registers, not in memory).
    #[inline(always)]
    pub(super) fn block(&mut self, r: &R64, [m0, m1]: [u64; 2], hibit: u64) {
        let [mut h0, mut h1, mut h2] = self.h;
        let c;
        (h0, c) = adc(h0, m0, 0);
        let c2;
        (h1, c2) = adc(h1, m1, c);
        h2 += c2 + hibit;

        // h * r, with h1 * r1 * 2^128 folded as h1 * s1 and h2 * r1 * 2^192 as
        // h2 * s1 * 2^64; h2 < 8 keeps every sum inside u128. `h2` enters at most 6 (the
        // fold below leaves at most 4; the message's carry and `hibit` add at most 2), and
        // `s1 < 2^61`, `r0 < 2^60`: its two products fit in 64 bits, so they are 64-bit
        // multiplies, not widening ones. The widening form cost one more multiplier pass
        // and a few register moves per block, on the scalar chain that
        // `rfc7539-chacha20-poly1305-avx2` runs beside its rounds and that every short
        // request runs alone (Zen 4, `cryptoctl speed 'rfc7539(chacha20,poly1305)' --aad
        // 13`, seven alternating runs, median MB/s: `-avx2` seal at 512 / 1420 / 8192 bytes
        // 1202 / 1792 / 2411 -> 1258 / 1877 / 2631, open 1221 / 1779 / 2535 -> 1256 / 1898 /
        // 2625). Since then every run of full blocks ([`Acc::blocks`]) takes the same
        // arithmetic as one assembly block (`super::step`, tested against this one), and
        // this form serves the padded blocks and the tests.
        debug_assert!(h2 < 8);
        let d0 = u128::from(h0) * u128::from(r.r0) + u128::from(h1) * u128::from(r.s1);
        let d1 = u128::from(h0) * u128::from(r.r1)
            + u128::from(h1) * u128::from(r.r0)
            + u128::from(h2 * r.s1);
        let d2 = h2 * r.r0;

        h0 = d0 as u64;
        let d1 = d1 + (d0 >> 64);
        h1 = d1 as u64;
        h2 = d2 + (d1 >> 64) as u64;

        self.h = [h0, h1, h2];
        self.fold_top();
    }

    /// The tag: `(h mod p) + s mod 2^128`, little-endian.
    pub(crate) fn tag(&self, s: &[u8; 16]) -> [u8; 16] {
        // h2's bits from 2^130 up folded once more, so h < 2^130 + small.
        let mut folded = *self;
        folded.fold_top();
        let [mut h0, mut h1, h2] = folded.h;
        // g = h + 5; if g >= 2^130 then h >= p and h - p = g - 2^130.
        let (g0, c) = adc(h0, 5, 0);
        let (g1, c) = adc(h1, 0, c);
        let g2 = h2 + c;
        let use_g = 0u64.wrapping_sub(g2 >> 2); // all ones when g >= 2^130
        h0 = (h0 & !use_g) | (g0 & use_g);
        h1 = (h1 & !use_g) | (g1 & use_g);
        let s0 = u64::from_le_bytes(s[..8].try_into().unwrap_or_default());
        let s1 = u64::from_le_bytes(s[8..].try_into().unwrap_or_default());
        let (t0, c) = adc(h0, s0, 0);
        let (t1, _) = adc(h1, s1, c);
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&t0.to_le_bytes());
        out[8..].copy_from_slice(&t1.to_le_bytes());
        out
    }

    /// `h` in radix 2^26 (limbs below 2^26 but the top one, which takes `h2`'s excess).
    #[inline(always)]
    pub(crate) fn to_fe26(self) -> Fe26 {
        let [h0, h1, h2] = self.h;
        [
            h0 & M26,
            (h0 >> 26) & M26,
            ((h0 >> 52) | (h1 << 12)) & M26,
            (h1 >> 14) & M26,
            (h1 >> 40) | (h2 << 24),
        ]
    }

    /// From radix 2^26 limbs below 2^32 each (any carries still pending are added in).
    #[inline(always)]
    pub(crate) fn from_fe26(l: Fe26) -> Acc {
        let l = carry26(l);
        let t = u128::from(l[0]) + (u128::from(l[1]) << 26) + (u128::from(l[2]) << 52);
        let h0 = t as u64;
        let t = (t >> 64) + (u128::from(l[3]) << 14) + (u128::from(l[4]) << 40);
        let mut acc = Acc::from_limbs(h0, t as u64, (t >> 64) as u64);
        acc.fold_top();
        acc
    }

    /// `h` in radix 2^44.
    #[inline(always)]
    pub(crate) fn to_fe44(self) -> Fe44 {
        let [h0, h1, h2] = self.h;
        [
            h0 & M44,
            ((h0 >> 44) | (h1 << 20)) & M44,
            (h1 >> 24) | (h2 << 40),
        ]
    }

    /// From radix 2^44 limbs below 2^60 each.
    #[inline(always)]
    pub(crate) fn from_fe44(l: Fe44) -> Acc {
        let l = carry44(l);
        let t = u128::from(l[0]) + (u128::from(l[1]) << 44);
        let h0 = t as u64;
        let t = (t >> 64) + (u128::from(l[2]) << 24);
        let mut acc = Acc::from_limbs(h0, t as u64, (t >> 64) as u64);
        acc.fold_top();
        acc
    }

    /// Folds the bits of `h2` from 2^130 up back in (times 5: `(h2 >> 2) * 5 = (h2 & !3) +
    /// (h2 >> 2)`), keeping `h2 < 8`. Inlined: every block step ends with it.
    #[inline(always)]
    fn fold_top(&mut self) {
        let [h0, h1, h2] = self.h;
        let fold = (h2 & !3) + (h2 >> 2);
        let (h0, c) = adc(h0, fold, 0);
        let (h1, c) = adc(h1, 0, c);
        self.h = [h0, h1, (h2 & 3) + c];
    }
}

/// `tail` (at most 16 bytes) zero-padded to 16 as two little-endian words, read with
/// loads that stay inside `tail`: for 8 or more bytes one load at the start and one that
/// ends at the last byte, shifted right past the bytes it shares with the first; for 4 to 7
/// the same with 4-byte loads; below 4 byte by byte. The branches depend on the length
/// only, never on the bytes.
#[inline(always)]
pub(crate) fn padded_words(tail: &[u8]) -> [u64; 2] {
    let n = tail.len();
    let le8 = |at: usize| u64::from_le_bytes(tail[at..at + 8].try_into().unwrap_or_default());
    let le4 = |at: usize| {
        u64::from(u32::from_le_bytes(
            tail[at..at + 4].try_into().unwrap_or_default(),
        ))
    };
    match n {
        16 => [le8(0), le8(8)],
        // The word ending at byte n holds bytes n-8..n; bytes 8..n are its top n-8.
        9..=15 => [le8(0), le8(n - 8) >> (8 * (16 - n))],
        8 => [le8(0), 0],
        // As above with 4-byte words: bytes 4..n are the top n-4 of the word ending at n.
        5..=7 => [le4(0) | (le4(n - 4) >> (8 * (8 - n))) << 32, 0],
        4 => [le4(0), 0],
        _ => {
            let mut w = 0u64;
            for (i, &b) in tail.iter().enumerate() {
                w |= u64::from(b) << (8 * i);
            }
            [w, 0]
        }
    }
}

/// One carry pass over radix 2^26 limbs (each below 2^63): limbs 0-3 end below 2^26, the
/// top one's excess folds into limb 0 (times 5), which carries once more into limb 1.
#[inline(always)]
pub(crate) fn carry26(mut l: Fe26) -> Fe26 {
    for i in 0..4 {
        l[i + 1] += l[i] >> 26;
        l[i] &= M26;
    }
    let c = l[4] >> 26;
    l[4] &= M26;
    l[0] += c * 5;
    l[1] += l[0] >> 26;
    l[0] &= M26;
    l
}

/// One carry pass over radix 2^44 limbs (44, 44, 42 bits), as [`carry26`].
#[inline(always)]
pub(crate) fn carry44(mut l: Fe44) -> Fe44 {
    l[1] += l[0] >> 44;
    l[0] &= M44;
    l[2] += l[1] >> 44;
    l[1] &= M44;
    let c = l[2] >> 42;
    l[2] &= (1 << 42) - 1;
    l[0] += c * 5;
    l[1] += l[0] >> 44;
    l[0] &= M44;
    l
}

/// `a * b mod p`, partially reduced, in radix 2^26 (both with limbs below 2^27): the
/// powers of `r` the vector kernels multiply by. Inlined: the fused entries compute
/// powers inside their loop.
#[inline(always)]
pub(crate) fn mul26(a: &Fe26, b: &Fe26) -> Fe26 {
    let s = [0, b[1] * 5, b[2] * 5, b[3] * 5, b[4] * 5];
    let d = [
        a[0] * b[0] + a[1] * s[4] + a[2] * s[3] + a[3] * s[2] + a[4] * s[1],
        a[0] * b[1] + a[1] * b[0] + a[2] * s[4] + a[3] * s[3] + a[4] * s[2],
        a[0] * b[2] + a[1] * b[1] + a[2] * b[0] + a[3] * s[4] + a[4] * s[3],
        a[0] * b[3] + a[1] * b[2] + a[2] * b[1] + a[3] * b[0] + a[4] * s[4],
        a[0] * b[4] + a[1] * b[3] + a[2] * b[2] + a[3] * b[1] + a[4] * b[0],
    ];
    carry26(d)
}

/// `[r, r^2, ..., r^n]` in radix 2^26, limbs below 2^26 but limb 1 (below 2^26 + 2^5).
pub(crate) fn powers26<const N: usize>(r: &R64) -> [Fe26; N] {
    let mut out = [[0u64; 5]; N];
    let r26 = r.to_fe26();
    out[0] = r26;
    for k in 1..N {
        out[k] = mul26(&out[k - 1], &r26);
    }
    out
}

/// A radix-2^26 element, reduced by a carry pass, in radix 2^44 (for the IFMA powers).
pub(crate) fn fe26_to_fe44(l: &Fe26) -> Fe44 {
    Acc::from_fe26(*l).to_fe44()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8439 section 2.5.2's example, the one test of this file that is not
    /// differential: it pins the scalar path the other tests compare against.
    #[test]
    fn rfc8439_2_5_2() {
        let key = hex::decode("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b")
            .unwrap();
        let msg = b"Cryptographic Forum Research Group";
        let r = R64::from_key(key[..16].try_into().unwrap());
        let mut acc = Acc::default();
        let whole = msg.len() / 16 * 16;
        acc.blocks(&r, &msg[..whole], 1);
        let mut last = [0u8; 16];
        last[..msg.len() - whole].copy_from_slice(&msg[whole..]);
        last[msg.len() - whole] = 1;
        acc.blocks(&r, &last, 0);
        let tag = acc.tag(key[16..].try_into().unwrap());
        assert_eq!(hex::encode(tag), "a8061dc1305136c6c22b8baf0c0127a9");
    }

    /// `padded_words` against a copy into a zeroed block, at every length and with bytes
    /// that tell every position apart.
    #[test]
    fn padded_words_match_a_zero_padded_copy() {
        let data: [u8; 16] = core::array::from_fn(|i| 0xa0 + i as u8);
        for n in 0..=16 {
            let mut block = [0u8; 16];
            block[..n].copy_from_slice(&data[..n]);
            let want = [
                u64::from_le_bytes(block[..8].try_into().unwrap()),
                u64::from_le_bytes(block[8..].try_into().unwrap()),
            ];
            assert_eq!(padded_words(&data[..n]), want, "length {n}");
        }
    }

    #[test]
    fn radix_conversions_round_trip() {
        for h in [
            [0u64, 0, 0],
            [u64::MAX, u64::MAX, 3],
            [0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210, 2],
            [1, 1 << 63, 1],
        ] {
            let a = Acc::from_limbs(h[0], h[1], h[2]);
            assert_eq!(Acc::from_fe26(a.to_fe26()), a);
            assert_eq!(Acc::from_fe44(a.to_fe44()), a);
        }
    }

    #[test]
    fn powers_match_repeated_blocks() {
        // h = r^k is what absorbing (1, 0, 0, ...) then k - 1 zero blocks with no hibit
        // gives: (1 * r) * r ... ; compare by tag with s = 0.
        let key: [u8; 16] = core::array::from_fn(|i| (i * 37 + 11) as u8);
        let r = R64::from_key(&key);
        let pw = powers26::<8>(&r);
        let mut acc = Acc::default();
        let mut one = [0u8; 16];
        one[0] = 1;
        acc.blocks(&r, &one, 0);
        for p in pw {
            assert_eq!(Acc::from_fe26(p).tag(&[0; 16]), acc.tag(&[0; 16]));
            acc.blocks(&r, &[0; 16], 0);
        }
    }
}
