//! The stitched AES-GCM core, written once over [`AesVec`] and the GHASH core
//! (`ghash::x86::vpclmul_core`), for the three VAES widths.
//!
//! The main loop handles 16 blocks per group (`N` = 8 ymm or 4 zmm vectors): the AES
//! rounds of the next 16 counter blocks run interleaved with the GHASH multiplies of 16
//! ciphertext blocks, with one reduction per two groups (see [`gcm_crypt`]). When
//! encrypting, those are the previous group's, which it just wrote; when decrypting, the
//! group's own, read from memory before they are overwritten, or, on Intel and from
//! [`HELD_MIN_GROUPS`] groups, the previous group's, which it loaded for its own XOR and
//! hands over in registers. Which form runs, and whether GHASH multiplies schoolbook or
//! Karatsuba-style, is the driver's [`GcmTuning`] for its CPU's vendor. The two chains are
//! independent, so the AES and the carry-less multiply units work at the same time. Fewer
//! blocks than a group go through a short path: the keystream vector by vector (masked or
//! partial on the last one), and one GHASH of the zero-padded tail.
//!
//! Counters: the counter block `J0 + i` is kept as a reflected lane value (the block
//! byte-swapped), so one `vpaddq` steps it. GCM increments only the last 32 bits
//! (`inc32`); with a 12-byte nonce the counter starts at 2 and the SP 800-38D limit of
//! 2^32 - 2 blocks (checked in `start`, `gcm_rules::check_gcm_lens`) keeps it below 2^32,
//! so the 64-bit lane addition never carries out of those 32 bits. When the low byte of
//! the counter does not wrap inside a group (15 groups in 16), only the group's first
//! vector is byte-swapped and the others are made by adding to its last byte
//! ([`be_step`]), as OpenSSL's and aws-lc's AVX-512 code does.
//!
//! Same safety contract as the vector layer: `#[inline(always)]`, `unsafe`, only inlined
//! into the `#[target_feature]` entries of `gcm_entry`.

use super::rounds::{broadcast_keys, counter_step, encrypt, lane_counters, AesVec};
use crate::ghash::x86::vpclmul_core::{
    ghash_short, ghash_update, load_acc, mul_acc, power_at, reduce, store_acc, GhashPowers,
    AGG_BLOCKS,
};
use crate::x86::vector::SimdVec;

/// The per-lane addend that advances byte-swapped (big-endian) counter lanes by `blocks`:
/// `blocks` in the last byte of every lane, which holds the counter's least significant
/// byte. Adding it (`vpaddq`, no carry into byte 14) is only right while that byte does not
/// wrap; [`fast_counters`] checks it.
///
/// # Safety
/// Target features per the module contract.
#[inline(always)]
unsafe fn be_step<V: SimdVec>(blocks: usize) -> V {
    // SAFETY: target features per this function's contract.
    unsafe { V::broadcast(&((blocks as u128) << 120).to_le_bytes()) }
}

/// Whether the `blocks` counters of a group whose first counter has the low byte `low` can
/// be made by adding to the byte-swapped first vector ([`be_step`]): the low byte must not
/// wrap inside the group.
#[inline(always)]
fn fast_counters(low: u8, blocks: usize) -> bool {
    low as usize + blocks <= 256
}

/// One group of 16 blocks: the AES of the `N` counter vectors `ctr, ctr + step, ...`, with
/// (when `G`) the GHASH of the 16 blocks at `gh` (raw ciphertext, `acc` XORed into the
/// first) interleaved round by round: their partial products with the 16 powers at `pw`,
/// added to `sums` and returned unreduced (the caller reduces once per two groups); then
/// `dst = src ^ keystream`. `DEC` only places the GHASH work ([`ghash_first_round`]).
///
/// The middle round keys come from `schedule` (the 16-byte round keys) or from the
/// broadcast `k`, as [`keys_from_schedule`] says; the first and last always from `k`.
///
/// With `FAST` (the caller checked [`fast_counters`]), only the first counter vector is
/// byte-swapped and the others are made from it by adding [`be_step`]s, which saves
/// `N - 1` shuffles (the shuffle port is the one the carry-less multiplies need).
///
/// With `HELD` the GHASH blocks are the raw vectors `hv` instead of those at `gh` (which
/// is then not read): decryption hashes the previous group's ciphertext, loaded by that
/// group. Returns the unreduced sums and the `N` vectors of `src` the group loaded (its
/// ciphertext, when decrypting); in place, `dst == src` is stored vector by vector after
/// its own load.
///
/// Measured on the Sapphire Rapids VM, decryption reading its own group's ciphertext at
/// `gh == src` against hashing the previous group's from registers: `cargo xtask
/// tls-bench` (TLS 1.3 AES-128-GCM, 16 KiB writes, records opened in place 5 bytes past
/// the deframer buffer's start), five alternating runs of the two builds, 1.07-1.08x
/// aws-lc-rs before, 1.10-1.11x after; the raw open of a 16 KiB record and `cryptoctl
/// speed` read the same within noise. (Each source vector was loaded twice before, for
/// the multiply and for the XOR.) On the Zen 4 VM the held form reads slower:
/// `cryptoctl speed 'gcm(aes)' --aad 13`, open, twelve alternating runs of a build with it
/// and one without, median MB/s, `gcm-aes-vaes-avx10_512` at 4 / 8 / 16 KiB 9730 / 10532 /
/// 10857 without, 9387 / 10064 / 10327 with (-3.5 to -5%), `-avx2` at 2 / 16 KiB -8% /
/// -5%; so the drivers use it on Intel only ([`GcmTuning`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn group<
    V: AesVec,
    const R: usize,
    const N: usize,
    const G: bool,
    const FAST: bool,
    const DEC: bool,
    const HELD: bool,
    const KARA: bool,
>(
    schedule: *const [u8; 16],
    k: &[V; 15],
    pw: *const [u8; 16],
    ctr: V,
    step: V,
    sums: Sums<V>,
    acc: V,
    gh: *const u8,
    hv: [V; N],
    src: *const u8,
    dst: *mut u8,
) -> (Sums<V>, [V; N]) {
    // SAFETY: 256 bytes at `gh` (read only without `HELD`), `src` and `dst` are valid,
    // 16 powers at `pw` and the round keys `1..R` at `schedule` readable (caller,
    // `N * LANES == 16`); target features per the module contract.
    unsafe {
        let mut x = [V::zero(); N];
        if FAST {
            let c0 = ctr.bswap_lanes();
            for (j, xj) in x.iter_mut().enumerate() {
                *xj = if j == 0 {
                    c0
                } else {
                    c0.add_epi64(be_step::<V>(j * V::LANES))
                }
                .xor(k[0]);
            }
        } else {
            let mut c = ctr;
            for xj in x.iter_mut() {
                *xj = c.bswap_lanes().xor(k[0]);
                c = c.add_epi64(step);
            }
        }
        let mut sums = sums;
        let schedule = crate::x86::opaque_ptr(schedule);
        for r in 1..R {
            let key = if keys_from_schedule::<V>() {
                V::broadcast(&*schedule.add(r))
            } else {
                V::round_key(k, r)
            };
            for xj in x.iter_mut() {
                *xj = xj.aesenc(key);
            }
            // One GHASH vector per round, in N consecutive middle rounds from
            // `ghash_first_round`.
            let first = ghash_first_round::<V>(DEC);
            const {
                assert!(
                    ghash_first_round::<V>(DEC) + N <= R,
                    "GHASH past the middle rounds"
                )
            };
            if G && r >= first && r < first + N {
                let j = r - first;
                let raw = if HELD {
                    hv[j]
                } else {
                    V::load(gh.add(j * V::BYTES))
                };
                let mut b = raw.bswap_lanes();
                if j == 0 {
                    b = b.xor(acc);
                }
                mul_acc_main::<V, KARA>(&mut sums, b, V::load(pw.add(j * V::LANES).cast()));
            }
        }
        let last = k[R];
        let mut loaded = [V::zero(); N];
        for (j, xj) in x.iter().enumerate() {
            let off = j * V::BYTES;
            loaded[j] = V::load(src.add(off));
            loaded[j].xor(xj.aesenclast(last)).store(dst.add(off));
        }
        (sums, loaded)
    }
}

/// The fewest groups for which decryption hashes each group's ciphertext during the next
/// group from registers ([`group`]'s held vectors) rather than during its own group from
/// memory, where the driver's [`GcmTuning`] asks for the held form at all. The
/// held form leaves the first group's AES and the last group's multiplies without a
/// partner, which a request of a few groups feels: `cryptoctl speed 'gcm(aes)'` open at
/// 256 bytes read about 5% slower with it on zmm and ymm; at 16 KiB it gains on Intel
/// (see [`group`]).
const HELD_MIN_GROUPS: usize = 8;

/// Whether a run of `len` bytes holds at least [`HELD_MIN_GROUPS`] groups: where the held
/// decryption and the zmm decryption's Karatsuba form start.
#[inline(always)]
const fn long_run<V: SimdVec, const N: usize>(len: usize) -> bool {
    len >= HELD_MIN_GROUPS * N * V::BYTES
}

/// Whether the stitched loop reads its middle round keys from the key schedule in every
/// group (one broadcast load per round, through [`opaque_ptr`](crate::x86::opaque_ptr) so
/// that the loads stay in the loop) instead of holding them all in registers.
///
/// On zmm it does. Held in registers, the round keys, the GHASH powers that LLVM hoisted
/// out of the two-group loop and the partial sums did not fit in the 32 registers; the
/// spilled values were reloaded from the stack in every group, and how much that cost
/// depended on where the buffer lay relative to the stack. Measured with a probe that
/// seals 8 KiB through a handle, AES-256: 61 to 69 cycles per 16 blocks over buffer
/// offsets before, about 60.5 at every offset after; `cryptoreg-peers --suite aes-gcm`,
/// builds before and after measured back to back at buffer offsets 16 and 0: AES-256
/// from 1.06x and 1.10x aws-lc-rs to 1.10x and 1.13x, AES-128 from 1.11x and 1.13x to
/// 1.18x and 1.17x (the README's figures are later runs).
///
/// On ymm the vector type's own choice ([`AesVec::KEYS_IN_MEMORY`]) stands: reading the
/// schedule made `gcm-aes-vaes-avx10_256` about 5% slower at AES-128.
#[inline(always)]
const fn keys_from_schedule<V: SimdVec>() -> bool {
    V::BYTES == 64
}

/// The middle AES round of a group from which its GHASH multiplies run, one vector per
/// round (so rounds `first .. first + N`; `R - 1 >= 9` middle rounds leave room for
/// `first + N - 1 <= 9`: ymm `N = 8` from the first or second round, zmm `N = 4` from the
/// first or third).
///
/// The second round for encryption on ymm, the third for decryption on zmm, the first
/// otherwise. Where the multiplies sit
/// in the source only steers LLVM's schedule, not the work done, and the effect was
/// measured, not derived. `gcm-aes-vaes-avx2` sealing 8 KiB (a probe calling the entry,
/// builds interleaved, best of 30): about 72 to 69.5 cycles per 16 blocks at AES-128 and
/// 86 to 82 at AES-256; `cryptoreg-peers --suite aes-gcm` at buffer offsets 0, 32 and
/// 48, builds interleaved: `-avx2` / ring from 1.19-1.21x to 1.24-1.27x at AES-128. The
/// other ymm driver, `gcm-aes-vaes-avx10_256`, measured the same or slightly faster with
/// it (same probe: about 63.5 to 63 cycles at AES-128, 77 to 74.5 at AES-256). The same
/// move made zmm AES-256 about 10% slower (best / aws-lc-rs from 1.13x to 1.03x) and
/// decryption on ymm no faster, so those keep the first round. Decryption on zmm starts
/// them at the third round: when its multiplies read the ciphertext straight from the
/// source (before the held vectors of [`group`]), from the first round they measured
/// 2-3% slower than sealing (`cryptoreg-peers --suite aes-gcm`, open out of place / seal
/// in place at 8 KiB, three alternating runs of the two builds on Zen 4: 0.96-0.97x at
/// both key sizes with the first round, 0.98-1.00x with the third; `cryptoctl speed` open
/// at 1420 / 16384 bytes 9411-9462 / 12252-12323 -> 9496-9583 / 12364-12406 MB/s).
/// `group` asserts at compile time that the multiplies end by the last middle round.
#[inline(always)]
const fn ghash_first_round<V: SimdVec>(dec: bool) -> usize {
    if V::BYTES == 64 && dec {
        3
    } else if V::BYTES == 64 || dec {
        1
    } else {
        2
    }
}

/// Either form of [`group`], as [`fast_counters`] says for the low counter byte `low`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn any_group<
    V: AesVec,
    const R: usize,
    const N: usize,
    const G: bool,
    const DEC: bool,
    const HELD: bool,
    const KARA: bool,
>(
    schedule: *const [u8; 16],
    low: u8,
    k: &[V; 15],
    pw: *const [u8; 16],
    ctr: V,
    step: V,
    sums: Sums<V>,
    acc: V,
    gh: *const u8,
    hv: [V; N],
    src: *const u8,
    dst: *mut u8,
) -> (Sums<V>, [V; N]) {
    // SAFETY: forwarded from `group`'s contract; `FAST` only when `fast_counters` holds.
    unsafe {
        if fast_counters(low, AGG_BLOCKS) {
            group::<V, R, N, G, true, DEC, HELD, KARA>(
                schedule, k, pw, ctr, step, sums, acc, gh, hv, src, dst,
            )
        } else {
            group::<V, R, N, G, false, DEC, HELD, KARA>(
                schedule, k, pw, ctr, step, sums, acc, gh, hv, src, dst,
            )
        }
    }
}

/// The partial products (low, middle, high) of a GHASH multiply, summed until a reduction.
type Sums<V> = (V, V, V);

/// Whether the main loop may multiply its GHASH blocks Karatsuba-style ([`mul_acc_main`]
/// with `KARA`) for a call of `len` bytes, where the driver's [`GcmTuning`] says so: on
/// the VEX ymm driver (`gcm-aes-vaes-avx2`, the one a Zen 3 or an Alder Lake runs), and on
/// zmm when decrypting at least [`HELD_MIN_GROUPS`] groups ([`long_run`]).
///
/// Measured on Zen 4. zmm sealing with it read slower against aws-lc-rs (`cargo xtask
/// peers --suite aes-gcm`, three alternating runs: 8 KiB 1.17-1.19x -> 1.15-1.17x, 1420
/// bytes 1.79-1.80x -> 1.61-1.78x); zmm opening faster from 8 KiB on and about 1% slower
/// at 1420 bytes (`cryptoctl speed 'gcm(aes)' --driver gcm-aes-vaes-avx10_512 --aad 13`,
/// twelve alternating runs, best three MB/s: 8 / 16 KiB 12127-12215 / 12216-12323 ->
/// 12460-12515 / 12788-12802, 1420 bytes 9484-9526 -> 9361-9437). `-avx10_256` measured
/// 8-20% faster, but LLVM then zeroed a stack slot with a zmm store, which `cargo xtask
/// asm` refuses in a ymm entry (and no AMD core picks that driver unless zmm is demoted).
#[inline(always)]
const fn karatsuba<V: SimdVec, const N: usize, const DEC: bool>(len: usize) -> bool {
    (V::BYTES == 32 && !V::EVEX) || (V::BYTES == 64 && DEC && long_run::<V, N>(len))
}

/// Adds the partial products of the GHASH block `b` times the power `p` to the main
/// loop's sums: with `KARA` three carry-less multiplies instead of four (low, high, and
/// the product of each side's halves XORed together, which is the middle term plus the
/// low and high ones: [`reduce_main`] takes those off once per reduction).
#[inline(always)]
unsafe fn mul_acc_main<V: SimdVec, const KARA: bool>(sums: &mut Sums<V>, b: V, p: V) {
    // SAFETY: target features per the module contract.
    unsafe {
        if KARA {
            sums.0 = sums.0.xor(b.clmul::<0x00>(p));
            sums.2 = sums.2.xor(b.clmul::<0x11>(p));
            let bm = b.xor(b.swap_qwords());
            let pm = p.xor(p.swap_qwords());
            sums.1 = sums.1.xor(bm.clmul::<0x00>(pm));
        } else {
            mul_acc(sums, b, p);
        }
    }
}

/// Reduces the main loop's sums ([`mul_acc_main`]): a Karatsuba middle sum is the
/// schoolbook one plus the low and high sums, which come off first.
#[inline(always)]
unsafe fn reduce_main<V: SimdVec, const KARA: bool>((lo, mi, hi): Sums<V>) -> V {
    // SAFETY: target features per the module contract.
    unsafe {
        if KARA {
            reduce((lo, mi.xor3(lo, hi), hi))
        } else {
            reduce((lo, mi, hi))
        }
    }
}

/// No partial products yet.
#[inline(always)]
unsafe fn no_sums<V: SimdVec>() -> Sums<V> {
    // SAFETY: target features per the module contract.
    unsafe { (V::zero(), V::zero(), V::zero()) }
}

/// `sums` plus the partial products of one group of 16 raw blocks held in `hv` (`acc`
/// XORed into the first) times the 16 powers at `pw`, unreduced.
#[inline(always)]
unsafe fn mul_held<V: SimdVec, const N: usize, const KARA: bool>(
    sums: Sums<V>,
    pw: *const [u8; 16],
    acc: V,
    hv: &[V; N],
) -> Sums<V> {
    // SAFETY: `N * LANES == 16` entries at `pw` (caller); target features per the module
    // contract.
    unsafe {
        let mut sums = sums;
        for (j, v) in hv.iter().enumerate() {
            let mut b = v.bswap_lanes();
            if j == 0 {
                b = b.xor(acc);
            }
            mul_acc_main::<V, KARA>(&mut sums, b, V::load(pw.add(j * V::LANES).cast()));
        }
        sums
    }
}

/// GHASH of one group of 16 raw blocks at `p` into `acc`.
#[inline(always)]
unsafe fn ghash_group_at<V: SimdVec, const N: usize, const KARA: bool>(
    powers: &GhashPowers,
    acc: V,
    p: *const u8,
) -> V {
    // SAFETY: 256 readable bytes at `p` (caller); the powers are the table's first 16
    // entries (`N * LANES == 16`).
    unsafe {
        let blocks: [V; N] = core::array::from_fn(|j| V::load(p.add(j * V::BYTES)));
        reduce_main::<V, KARA>(mul_held::<V, N, KARA>(
            no_sums(),
            powers.p.as_ptr(),
            acc,
            &blocks,
        ))
        .fold_lanes()
    }
}

/// The last `0 < len < 256` bytes on the vector type `W`: GHASH of the ciphertext (before
/// decrypting, after encrypting), the keystream from the counter lane value `c`, one
/// vector at a time, the last one partial.
///
/// Encrypting, the ciphertext is hashed from the registers it is stored from, not read
/// back from `dst`: the last vector is stored by a masked store (or in pieces), and a load
/// of bytes such a store just wrote cannot take them from the store buffer, so it waits
/// until the store retires. Measured with `cryptoctl speed 'gcm(aes)' --key-bits 128`,
/// seal, two alternating runs of the builds before and after, MB/s at 16 / 48 / 100 /
/// 1420 bytes: `gcm-aes-vaes-avx10_512` 730 / 1120-1310 / 2690-2840 / 13560-13980 ->
/// 1057 / 2730 / 4430 / 14320-14580, `-avx10_256` 490 / 1460 / 2860 / 11020 -> 1030 /
/// 2590 / 3610-4200 / 12010. (`-avx2` keeps the reload: see `from_regs`.)
#[inline(always)]
unsafe fn tail<W: AesVec, const R: usize, const DEC: bool>(
    keys: &[[u8; 16]; 15],
    powers: &GhashPowers,
    c: u128,
    acc: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    // SAFETY: `len` bytes at `src` and `dst` are valid, equal or disjoint (caller); every
    // access stays below `len`; the power entries are those `ghash_short` reads for `len`
    // bytes (below 20); target features per the module contract.
    unsafe {
        let mut a = load_acc::<W>(acc);
        if DEC {
            a = ghash_short(powers, a, src, len);
        }
        let step = counter_step::<W>(W::LANES);
        let mut ctr = lane_counters::<W>(c);
        // GHASH of the ciphertext as `ghash_short` computes it: block `i` of `m` times
        // the power at table entry `AGG_BLOCKS - m + i`.
        // Only on EVEX types: on VEX (`gcm-aes-vaes-avx2`) the partial store is done in
        // general-register pieces and the reload measured no slower than the register
        // path (which cost it 5% at 64 bytes).
        let from_regs = !DEC && W::EVEX;
        let first = AGG_BLOCKS - len.div_ceil(16);
        let mut sums = no_sums::<W>();
        let mut off = 0;
        while off < len {
            let ks = encrypt_lanes::<W, R>(keys, ctr);
            let n = len - off;
            let out = if n >= W::BYTES {
                let o = W::load(src.add(off)).xor(ks);
                o.store(dst.add(off));
                o
            } else if n == 16 {
                // One whole block: a plain store, which a caller reading the block soon
                // can be forwarded from (a masked one cannot).
                let o = W::load_block(src.add(off)).xor(ks);
                o.store_block(dst.add(off));
                keep_first(o, n)
            } else {
                let o = W::load_partial(src.add(off), n).xor(ks);
                o.store_partial(dst.add(off), n);
                keep_first(o, n)
            };
            if from_regs {
                let mut x = out.bswap_lanes();
                if off == 0 {
                    x = x.xor(a);
                }
                mul_acc(&mut sums, x, power_at(powers, first + off / 16));
            }
            ctr = ctr.add_epi64(step);
            off += W::BYTES;
        }
        if from_regs {
            a = reduce(sums).fold_lanes();
        } else if !DEC {
            a = ghash_short(powers, a, dst, len);
        }
        store_acc(a, acc);
    }
}

/// `0x00` then `0x80` bytes: a window of `W::BYTES` at `64 - n` marks the bytes from `n`
/// on ([`keep_first`]).
static PAST_N: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut i = 64;
    while i < 128 {
        t[i] = 0x80;
        i += 1;
    }
    t
};

/// The byte index within a lane, in every lane: `vpshufb`'s identity.
const LANE_IDENTITY: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

/// `v` with its bytes from `n` on (`0 < n < W::BYTES`) zeroed, as a partial load
/// zero-fills them: one `vpshufb` whose control is the identity with the top bit set from
/// byte `n` on (a shuffle control byte with its top bit set makes a zero).
#[inline(always)]
unsafe fn keep_first<W: SimdVec>(v: W, n: usize) -> W {
    // SAFETY: `0 < n < W::BYTES <= 64`, so the window `64 - n .. 64 - n + W::BYTES` lies
    // inside the 128-byte table; target features per the module contract.
    unsafe {
        let past = W::load(PAST_N.as_ptr().add(64 - n));
        v.shuffle_bytes(W::broadcast(&LANE_IDENTITY).xor(past))
    }
}

/// The keystream of one vector of counter lane values.
#[inline(always)]
unsafe fn encrypt_lanes<W: AesVec, const R: usize>(keys: &[[u8; 16]; 15], ctr: W) -> W {
    // SAFETY: target features per the module contract.
    unsafe { encrypt::<W, R>(keys, ctr.bswap_lanes()) }
}

/// Encrypts (`DEC = false`) or decrypts `len` bytes from `src` into `dst` with the
/// encryption schedule `keys` of `R` rounds, GHASHing the ciphertext into `acc` (a block
/// in standard byte order) with `powers`, from the counter block `ctr` (advanced by the
/// blocks used; a partial last block counts as one and is zero-padded for GHASH). A
/// partial block is only allowed at the end of the request (the streaming contract).
///
/// The main loop takes groups of 16 blocks in pairs: each group hashes the ciphertext of
/// the group before it, the first of a pair multiplying by `H^32 .. H^17`, the second by
/// `H^16 .. H^1`, and the summed partial products are reduced once per pair (one reduction
/// and one lane fold per 32 blocks, as aws-lc's AVX-512 code defers them; measured about
/// 10% faster on zmm). The last group's ciphertext is hashed after the loop, with a last
/// odd group's when there is one. (Decryption in its own-group form hashes each group's
/// own ciphertext instead: see [`gcm_crypt_form`].)
///
/// `tuning` picks between forms of the loop that measured faster on different CPUs
/// ([`GcmTuning`]); every form gives the same bytes.
///
/// # Safety
/// `src` is valid for reads and `dst` for writes of `len` bytes, equal or disjoint;
/// `N * V::LANES == 16`; target features per the module contract.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gcm_crypt<V: AesVec, const R: usize, const N: usize, const DEC: bool>(
    keys: &[[u8; 16]; 15],
    powers: &GhashPowers,
    ctr: &mut [u8; 16],
    acc: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    tuning: GcmTuning,
) where
    V::Half: AesVec,
{
    let intel = tuning == GcmTuning::Intel;
    // SAFETY: forwarded from this function's contract. (Where `karatsuba` is false for
    // every length, the first branch is dead and only one loop is compiled.)
    unsafe {
        if karatsuba::<V, N, DEC>(len) && !intel {
            gcm_crypt_form::<V, R, N, DEC, true>(keys, powers, ctr, acc, src, dst, len, false)
        } else {
            gcm_crypt_form::<V, R, N, DEC, false>(keys, powers, ctr, acc, src, dst, len, intel)
        }
    }
}

/// Which measured form of the stitched loop a driver runs, by the CPU it runs on (the
/// driver reads the CPUID vendor once, `x86::vendor`). Forms that measured faster on one
/// vendor's cores and slower on the other's; both give the same bytes, and the tests and
/// `cargo xtask emu` run both on every CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GcmTuning {
    /// Intel: decryption of at least `HELD_MIN_GROUPS` (8) groups hashes each group's
    /// ciphertext from the registers the previous group loaded it into (`group`'s
    /// `HELD`; Sapphire Rapids: TLS 1.3 AES-128-GCM 16 KiB 1.07-1.08x -> 1.10-1.11x
    /// aws-lc-rs); GHASH multiplies schoolbook (four `vpclmulqdq` a vector) on every width.
    Intel,
    /// Other vendors (measured on AMD Zen 4): decryption hashes each group's own ciphertext
    /// from memory during that group (the held form read 3.5-5% slower on zmm, 5-8% on
    /// ymm), and the VEX ymm loop, and the zmm one decrypting 2 KiB or more, multiply
    /// Karatsuba-style (`mul_acc_main`, `karatsuba`: three `vpclmulqdq` a vector; AMD's
    /// cores run `vpclmulqdq` at half a vector per cycle; BoringSSL's AVX2 AES-GCM found
    /// the same trade worth about 5% on Zen 3).
    Other,
}

impl GcmTuning {
    /// This CPU's.
    pub(crate) fn native() -> GcmTuning {
        if crate::x86::vendor::is_intel() {
            GcmTuning::Intel
        } else {
            GcmTuning::Other
        }
    }
}

/// [`gcm_crypt`] in one form: GHASH multiplies Karatsuba-style with `KARA`
/// ([`mul_acc_main`]); decryption reads each group's ciphertext for its GHASH either from
/// memory during that same group, or, with `held_form` and at least [`HELD_MIN_GROUPS`]
/// groups, from the registers the previous group loaded it into, during the next group as
/// encryption does ([`group`]'s `HELD`). Encryption ignores `held_form`.
///
/// # Safety
/// As for [`gcm_crypt`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn gcm_crypt_form<
    V: AesVec,
    const R: usize,
    const N: usize,
    const DEC: bool,
    const KARA: bool,
>(
    keys: &[[u8; 16]; 15],
    powers: &GhashPowers,
    ctr: &mut [u8; 16],
    acc: &mut [u8; 16],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    held_form: bool,
) where
    V::Half: AesVec,
{
    // SAFETY: the pointers advance together through the `len` valid bytes; `keys` (the
    // groups' `schedule`) holds all 15 round keys; target features per this function's
    // contract.
    unsafe {
        let blocks = AGG_BLOCKS;
        let bytes = N * V::BYTES;
        let mut c = u128::from_be_bytes(*ctr);
        let (mut s, mut d, mut left) = (src, dst, len);
        if left >= bytes {
            let k = broadcast_keys::<V, R>(keys);
            let step = counter_step::<V>(V::LANES);
            let big = counter_step::<V>(blocks);
            let (far, near) = (powers.far.as_ptr(), powers.p.as_ptr());
            let zero = V::zero();
            let mut ctrv = lane_counters::<V>(c);
            // The low byte of the group's first counter (for `fast_counters`).
            let mut low = c as u8;
            let mut a = load_acc::<V>(acc);
            let groups = left / bytes;
            // One group: AES of the counters at `ctrv` on `s` into `d`, with the GHASH of
            // `$gh` (with `$held`, of the vectors `$hv`; powers `$pw`, added to `$sums`,
            // `$acc` into the first block); then everything advances by a group. The short
            // form gives the sums, the long one the sums and the source vectors loaded.
            macro_rules! step_group {
                ($g:literal, $pw:expr, $sums:expr, $acc:expr, $gh:expr) => {
                    step_group!($g, false, $pw, $sums, $acc, $gh, [zero; N]).0
                };
                ($g:literal, $held:literal, $pw:expr, $sums:expr, $acc:expr, $gh:expr, $hv:expr) => {{
                    let r = any_group::<V, R, N, $g, DEC, $held, KARA>(
                        keys.as_ptr(),
                        low,
                        &k,
                        $pw,
                        ctrv,
                        step,
                        $sums,
                        $acc,
                        $gh,
                        $hv,
                        s,
                        d,
                    );
                    ctrv = ctrv.add_epi64(big);
                    low = low.wrapping_add(blocks as u8);
                    s = s.add(bytes);
                    d = d.add(bytes);
                    left -= bytes;
                    r
                }};
            }
            if DEC && held_form && long_run::<V, N>(left) {
                // As encryption: each group hashes the previous group's ciphertext, which
                // it loaded for its own XOR and hands over in registers (in place it is
                // overwritten by then); pairs of groups reduced once.
                let (_, mut held) = step_group!(false, false, near, no_sums(), zero, s, [zero; N]);
                while left >= 2 * bytes {
                    let (t, h1) = step_group!(true, true, far, no_sums(), a, s, held);
                    let (t, h2) = step_group!(true, true, near, t, zero, s, h1);
                    a = reduce_main::<V, KARA>(t).fold_lanes();
                    held = h2;
                }
                if left >= bytes {
                    // (The last group's counter and pointer advances are not used.)
                    #[allow(unused_assignments)]
                    let (t, h1) = step_group!(true, true, far, no_sums(), a, s, held);
                    a = reduce_main::<V, KARA>(mul_held::<V, N, KARA>(t, near, zero, &h1))
                        .fold_lanes();
                } else {
                    a = reduce_main::<V, KARA>(mul_held::<V, N, KARA>(no_sums(), near, a, &held))
                        .fold_lanes();
                }
            } else if DEC {
                // Fewer groups: each hashes its own ciphertext (read before it is
                // overwritten), so that no group's multiplies are left outside the rounds.
                while left >= 2 * bytes {
                    let t = step_group!(true, far, no_sums(), a, s);
                    let t = step_group!(true, near, t, zero, s);
                    a = reduce_main::<V, KARA>(t).fold_lanes();
                }
                if left >= bytes {
                    // (The last group's counter and pointer advances are not used.)
                    #[allow(unused_assignments)]
                    let t = step_group!(true, near, no_sums(), a, s);
                    a = reduce_main::<V, KARA>(t).fold_lanes();
                }
            } else {
                // The ciphertext of each group is hashed with the next group's AES.
                let mut prev = d.cast_const();
                let _ = step_group!(false, near, no_sums(), zero, s);
                while left >= 2 * bytes {
                    let p1 = d.cast_const();
                    let t = step_group!(true, far, no_sums(), a, prev);
                    prev = d.cast_const();
                    let t = step_group!(true, near, t, zero, p1);
                    a = reduce_main::<V, KARA>(t).fold_lanes();
                }
                if left >= bytes {
                    let p1 = d.cast_const();
                    #[allow(unused_assignments)]
                    let t = step_group!(true, near, no_sums(), a, prev);
                    a = reduce_main::<V, KARA>(t).fold_lanes();
                    prev = p1;
                }
                a = ghash_group_at::<V, N, KARA>(powers, a, prev);
            }
            store_acc(a, acc);
            c = c.wrapping_add((groups * blocks) as u128);
        }
        if left > 0 {
            if left <= <V::Half as SimdVec>::BYTES {
                tail::<V::Half, R, DEC>(keys, powers, c, acc, s, d, left);
            } else {
                tail::<V, R, DEC>(keys, powers, c, acc, s, d, left);
            }
            c = c.wrapping_add(left.div_ceil(16) as u128);
        }
        *ctr = c.to_be_bytes();
    }
}

/// `J0 = nonce || 00 00 00 01` for the 12-byte nonce at `nonce`, as an integer (the block
/// read big-endian). Read straight from the caller's nonce, not from a `J0` block built in
/// memory by the driver: that block was written in pieces and read back whole, which
/// missed store forwarding on every request (measured: a stall of tens of cycles).
///
/// # Safety
/// 12 readable bytes at `nonce`.
#[inline(always)]
unsafe fn j0_of_nonce(nonce: *const u8) -> u128 {
    // SAFETY: 12 readable bytes (caller): 8 at `nonce`, 4 at `nonce + 8`.
    let (hi, lo) = unsafe {
        (
            u64::from_be_bytes(nonce.cast::<[u8; 8]>().read_unaligned()),
            u32::from_be_bytes(nonce.add(8).cast::<[u8; 4]>().read_unaligned()),
        )
    };
    (u128::from(hi) << 64) | (u128::from(lo) << 32) | 1
}

/// One whole GCM request (the fused `seal` / `open`): GHASH of the AAD, the text from
/// counter `J0 + 1`, the length block, and the first `tag_len` bytes of the tag
/// `E(K, J0) ^ GHASH` into `tag` (the caller compares it when decrypting). `tuning` as for
/// [`gcm_crypt`].
///
/// # Safety
/// `nonce` is valid for reads of 12 bytes, `aad` of `aad_len` bytes, `tag` for writes of
/// `tag_len <= 16` bytes; `src`/`dst` as for [`gcm_crypt`]; target features per the module
/// contract.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gcm_one_shot<V: AesVec, const R: usize, const N: usize, const DEC: bool>(
    keys: &[[u8; 16]; 15],
    powers: &GhashPowers,
    nonce: *const u8,
    aad: *const u8,
    aad_len: usize,
    src: *const u8,
    dst: *mut u8,
    len: usize,
    tag: *mut u8,
    tag_len: usize,
    tuning: GcmTuning,
) where
    V::Half: AesVec,
{
    // SAFETY: forwarded from this function's contract.
    unsafe {
        type H<V> = <V as SimdVec>::Half;
        let j0 = j0_of_nonce(nonce);
        let mut acc = [0u8; 16];
        ghash_update::<V, N>(powers, &mut acc, aad, aad_len);
        let mut ctr = j0.wrapping_add(1).to_be_bytes();
        gcm_crypt::<V, R, N, DEC>(keys, powers, &mut ctr, &mut acc, src, dst, len, tuning);
        let lens = crate::aes::gcm_rules::gcm_len_block(aad_len as u64, len as u64);
        let a = ghash_short::<H<V>>(powers, load_acc(&acc), lens.as_ptr(), 16);
        let ek = encrypt_lanes::<H<V>, R>(keys, lane_counters(j0));
        let t = a.bswap_lanes().xor(ek);
        if tag_len >= 16 {
            // (A larger `tag_len` breaks the contract, but writes no further.)
            t.store_block(tag);
        } else {
            t.store_partial(tag, tag_len);
        }
    }
}
