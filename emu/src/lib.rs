//! # cryptoreg-emu
//!
//! A `cdylib` that exports the VAES XTS and CTR kernels of `cryptoreg-algos` with a C ABI,
//! so that `emu/harness/test_vaes.py` (run by `cargo xtask emu`) can execute the AVX-512
//! ones inside the Bochs CPU emulator on a machine without AVX-512, and compare them byte
//! for byte with native references exported from the same library.
//!
//! Two kinds of export:
//!
//! * **Emulated** (`cryptoreg_emu_xts`, `cryptoreg_emu_xts_split`, `cryptoreg_emu_ctr`):
//!   pointers, lengths and already expanded round keys in, bytes out. Each takes a source
//!   and a destination pointer, as the entries do: the same pointer for in place, two
//!   disjoint buffers for out of place. They allocate nothing, cannot panic and make
//!   no system call, because under the emulator only this library's pages, the caller's
//!   buffers and a stack are mapped.
//! * **Native** (`cryptoreg_emu_expand`, `cryptoreg_emu_ref_xts`, `cryptoreg_emu_ref_ctr`):
//!   the key schedule, and XTS / CTR written plainly over `aes-generic` (bitsliced,
//!   portable): an implementation that shares nothing with the kernels under test except
//!   the `gf128_mul_x_ble` doubling.
//!
//! GCM and GHASH (`cryptoreg_emu_gcm`, `cryptoreg_emu_gcm_split`, `cryptoreg_emu_ghash`,
//! `cryptoreg_emu_ghash_powers` emulated; `cryptoreg_emu_clmul_powers`, `cryptoreg_emu_ref_gcm`, `cryptoreg_emu_ref_gcm_h`,
//! `cryptoreg_emu_ref_ghash` native, over `aes-generic` and `ghash-generic`'s multiply)
//! follow the same rules.
//!
//! Driver numbers: 0 = `*-vaes-avx2`, 1 = `*-vaes-avx10_256`, 2 = `*-vaes-avx10_512` (for
//! GHASH: `ghash_vpclmulqdq_avx2`, `_avx10_256`, `_avx512`), and for GCM and GHASH only
//! 3 = the SSE drivers `gcm-aes-aesni` / `ghash-clmulni` (AES-NI, PCLMULQDQ, SSSE3; entries
//! in `cryptoreg_algos::aes::aesni::raw`). Driver 3 takes its own power table, H^1 ..= H^8
//! ([`CLMUL_POWERS_BYTES`], from [`cryptoreg_emu_clmul_powers`], native), where the others
//! take [`GHASH_POWERS_BYTES`]; its GHASH entry hashes whole blocks only.
//!
//! ChaCha20 (`cryptoreg_emu_chacha20`, reference `cryptoreg_emu_ref_chacha20`, cases in
//! `harness/test_chacha.py`): 0 = `chacha20-ssse3`, 1 = `-avx2`, 2 = `-avx512vl`,
//! 3 = `-avx512f`.

// The kernels it exports are x86-64 code: on another architecture the crate is empty
// (it still builds, so `cargo test --workspace` works there).
#![cfg(target_arch = "x86_64")]

use cryptoreg_algos::aes::aesni::raw as sse;
use cryptoreg_algos::aes::vaes::raw::{self, RoundKeyBytes};
use cryptoreg_algos::aes::xts_rules::gf128_mul_x_ble;
use cryptoreg_algos::aes::AesGeneric;
use cryptoreg_algos::ghash::generic::gf128_mul;
use cryptoreg_registry::BlockCipherImpl;

/// Bytes of a round-key schedule as passed across the C ABI (15 round keys).
pub const ROUND_KEY_BYTES: usize = 240;

/// Expands a 16/24/32-byte AES key into encryption and `AESDEC` schedules of 240 bytes
/// each; returns the number of rounds, or -1 for a bad key length. Native only.
///
/// # Safety
/// `key` is readable for `key_len` bytes; `enc` and `dec` are writable for 240 bytes.
#[no_mangle]
pub unsafe extern "C" fn cryptoreg_emu_expand(
    key: *const u8,
    key_len: usize,
    enc: *mut u8,
    dec: *mut u8,
) -> i32 {
    // SAFETY: per this function's contract.
    let key = unsafe { core::slice::from_raw_parts(key, key_len) };
    match raw::expand(key) {
        Ok((e, d, rounds)) => {
            // SAFETY: `enc` and `dec` are writable for 240 bytes, the size of each schedule.
            unsafe {
                enc.cast::<RoundKeyBytes>().write_unaligned(e);
                dec.cast::<RoundKeyBytes>().write_unaligned(d);
            }
            rounds as i32
        }
        Err(_) => -1,
    }
}

/// XTS with the kernel of driver `driver`, from `src` into `dst` (`len` bytes each; the same
/// pointer for in place, or disjoint), through the entry the
/// driver's one-shot `encrypt`/`decrypt` uses: it encrypts `iv` under `rk_tweak` itself and
/// processes the whole request (ciphertext stealing included) in one call. `rk_data` is the data key's encryption
/// schedule for `decrypt == 0`, its `AESDEC` schedule otherwise. Runs under emulation:
/// no allocation, no panic, no call outside this library. An unknown driver number does
/// nothing (the harness would see the mismatch).
///
/// # Safety
/// `rk_data`, `rk_tweak` are readable for 240 bytes, `iv` for 16, `src` readable and `dst`
/// writable for `len` bytes, `src == dst` or the two disjoint; the CPU (or emulator) has
/// the driver's features.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cryptoreg_emu_xts(
    driver: u32,
    decrypt: u32,
    rk_data: *const u8,
    rk_tweak: *const u8,
    rounds: usize,
    iv: *const u8,
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    // SAFETY: per this function's contract: 240 readable bytes behind each schedule
    // pointer (alignment 1, as for byte arrays), 16 behind `iv`, `len` behind `src` and
    // `dst`; the features are the caller's promise.
    unsafe {
        let data_keys = &*rk_data.cast::<RoundKeyBytes>();
        let tweak_keys = &*rk_tweak.cast::<RoundKeyBytes>();
        let mut tweak = iv.cast::<[u8; 16]>().read_unaligned();
        let f = match (driver, decrypt != 0) {
            (0, false) => raw::xts_enc_iv_vaes_avx2,
            (0, true) => raw::xts_dec_iv_vaes_avx2,
            (1, false) => raw::xts_enc_iv_vaes_avx10_256,
            (1, true) => raw::xts_dec_iv_vaes_avx10_256,
            (2, false) => raw::xts_enc_iv_vaes_avx10_512,
            (2, true) => raw::xts_dec_iv_vaes_avx10_512,
            _ => return,
        };
        f(data_keys, tweak_keys, rounds, &mut tweak, src, dst, len);
    }
}

/// XTS split into two calls of the entry the segment walker uses (`first` bytes, a
/// multiple of 16, then the rest; the tweak encrypted beforehand with AES-NI), the tweak
/// carried between them as the registry's chaining state: checks that the state an entry
/// leaves behind continues the request. Same contract as [`cryptoreg_emu_xts`].
///
/// # Safety
/// As [`cryptoreg_emu_xts`], and `first <= len`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cryptoreg_emu_xts_split(
    driver: u32,
    decrypt: u32,
    rk_data: *const u8,
    rk_tweak: *const u8,
    rounds: usize,
    iv: *const u8,
    src: *const u8,
    dst: *mut u8,
    len: usize,
    first: usize,
) {
    // SAFETY: as in `cryptoreg_emu_xts`; `first <= len` keeps both pieces in bounds.
    unsafe {
        let data_keys = &*rk_data.cast::<RoundKeyBytes>();
        let tweak_keys = &*rk_tweak.cast::<RoundKeyBytes>();
        let mut tweak = iv.cast::<[u8; 16]>().read_unaligned();
        raw::encrypt_block_aesni(tweak_keys, rounds, &mut tweak);
        let f = match (driver, decrypt != 0) {
            (0, false) => raw::xts_enc_vaes_avx2,
            (0, true) => raw::xts_dec_vaes_avx2,
            (1, false) => raw::xts_enc_vaes_avx10_256,
            (1, true) => raw::xts_dec_vaes_avx10_256,
            (2, false) => raw::xts_enc_vaes_avx10_512,
            (2, true) => raw::xts_dec_vaes_avx10_512,
            _ => return,
        };
        f(data_keys, rounds, &mut tweak, src, dst, first);
        f(
            data_keys,
            rounds,
            &mut tweak,
            src.add(first),
            dst.add(first),
            len - first,
        );
    }
}

/// CTR with the kernel of driver `driver`, from `src` into `dst` (`len` bytes each; the same
/// pointer for in place, or disjoint) from the big-endian counter block `iv`; the advanced counter is written to `ctr_out`. `rk` is the
/// encryption schedule. Runs under emulation (see [`cryptoreg_emu_xts`]).
///
/// # Safety
/// `rk` readable for 240 bytes, `iv` for 16, `ctr_out` writable for 16, `src` readable
/// and `dst` writable for `len`, `src == dst` or the two disjoint; the CPU (or emulator)
/// has the driver's features.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cryptoreg_emu_ctr(
    driver: u32,
    rk: *const u8,
    rounds: usize,
    iv: *const u8,
    src: *const u8,
    dst: *mut u8,
    len: usize,
    ctr_out: *mut u8,
) {
    // SAFETY: per this function's contract.
    unsafe {
        let keys = &*rk.cast::<RoundKeyBytes>();
        let mut ctr = iv.cast::<[u8; 16]>().read_unaligned();
        let f = match driver {
            0 => raw::ctr_vaes_avx2,
            1 => raw::ctr_vaes_avx10_256,
            2 => raw::ctr_vaes_avx10_512,
            _ => return,
        };
        f(keys, rounds, &mut ctr, src, dst, len);
        ctr_out.cast::<[u8; 16]>().write_unaligned(ctr);
    }
}

fn generic(key: &[u8]) -> Option<AesGeneric> {
    let mut c = AesGeneric::new();
    c.set_key(key).ok()?;
    Some(c)
}

/// Reference XTS (IEEE 1619-2007) over `aes-generic`, block by block with ciphertext
/// stealing, in place. Returns 0, or -1 for a bad key or a length under 16. Native only.
///
/// # Safety
/// `key` readable for `key_len` bytes, `iv` for 16, `data` readable and writable for `len`.
#[no_mangle]
pub unsafe extern "C" fn cryptoreg_emu_ref_xts(
    decrypt: u32,
    key: *const u8,
    key_len: usize,
    iv: *const u8,
    data: *mut u8,
    len: usize,
) -> i32 {
    // SAFETY: per this function's contract.
    let (key, iv, data) = unsafe {
        (
            core::slice::from_raw_parts(key, key_len),
            iv.cast::<[u8; 16]>().read_unaligned(),
            core::slice::from_raw_parts_mut(data, len),
        )
    };
    if len < 16 || !key_len.is_multiple_of(2) {
        return -1;
    }
    let (k1, k2) = key.split_at(key_len / 2);
    let (Some(c1), Some(c2)) = (generic(k1), generic(k2)) else {
        return -1;
    };
    let mut t = iv;
    c2.encrypt_blocks(&mut t);
    let crypt = |block: &mut [u8], t: &[u8; 16]| {
        block.iter_mut().zip(t).for_each(|(b, x)| *b ^= x);
        if decrypt != 0 {
            c1.decrypt_blocks(block);
        } else {
            c1.encrypt_blocks(block);
        }
        block.iter_mut().zip(t).for_each(|(b, x)| *b ^= x);
    };
    let r = len % 16;
    let full = len / 16 - usize::from(r != 0);
    for block in data[..16 * full].chunks_exact_mut(16) {
        crypt(block, &t);
        gf128_mul_x_ble(&mut t);
    }
    if r != 0 {
        let mut next = t;
        gf128_mul_x_ble(&mut next);
        let (first, second) = if decrypt != 0 { (next, t) } else { (t, next) };
        let (last, partial) = data[16 * full..].split_at_mut(16);
        let mut cc = [0u8; 16];
        cc.copy_from_slice(last);
        crypt(&mut cc, &first);
        let mut pp = cc;
        pp[..r].copy_from_slice(partial);
        partial.copy_from_slice(&cc[..r]);
        crypt(&mut pp, &second);
        last.copy_from_slice(&pp);
    }
    0
}

/// Reference CTR over `aes-generic` (128-bit big-endian counter), in place; writes the
/// advanced counter to `ctr_out`. Returns 0, or -1 for a bad key. Native only.
///
/// # Safety
/// `key` readable for `key_len` bytes, `iv` for 16, `ctr_out` writable for 16, `data`
/// readable and writable for `len`.
#[no_mangle]
pub unsafe extern "C" fn cryptoreg_emu_ref_ctr(
    key: *const u8,
    key_len: usize,
    iv: *const u8,
    data: *mut u8,
    len: usize,
    ctr_out: *mut u8,
) -> i32 {
    // SAFETY: per this function's contract.
    let (key, iv, data) = unsafe {
        (
            core::slice::from_raw_parts(key, key_len),
            iv.cast::<[u8; 16]>().read_unaligned(),
            core::slice::from_raw_parts_mut(data, len),
        )
    };
    let Some(c) = generic(key) else {
        return -1;
    };
    let mut ctr = u128::from_be_bytes(iv);
    for chunk in data.chunks_mut(16) {
        let mut ks = ctr.to_be_bytes();
        c.encrypt_blocks(&mut ks);
        chunk.iter_mut().zip(ks).for_each(|(b, k)| *b ^= k);
        ctr = ctr.wrapping_add(1);
    }
    // SAFETY: `ctr_out` is writable for 16 bytes.
    unsafe {
        ctr_out
            .cast::<[u8; 16]>()
            .write_unaligned(ctr.to_be_bytes())
    };
    0
}

/// Bytes of a GHASH power table across the C ABI (`H^16 .. H^1`, four zero entries, then
/// `H^32 .. H^17` for the stitched GCM loop).
pub const GHASH_POWERS_BYTES: usize = core::mem::size_of::<raw::GhashPowers>();

/// The power table behind `p`, used in place: a copy of its 576 bytes would be a `memcpy`
/// call into libc, which is not mapped under the emulator.
///
/// # Safety
/// `p` is 64-byte aligned, readable for [`GHASH_POWERS_BYTES`] and alive for `'a`.
unsafe fn powers_at<'a>(p: *const u8) -> &'a raw::GhashPowers {
    // SAFETY: aligned, readable and alive (caller); every bit pattern is a valid table.
    unsafe { &*p.cast::<raw::GhashPowers>() }
}

/// Bytes of the SSE drivers' power table across the C ABI (H^1 ..= H^8).
pub const CLMUL_POWERS_BYTES: usize = core::mem::size_of::<sse::HPowers>();

/// The SSE drivers' table behind `p`, used in place (no `memcpy`).
///
/// # Safety
/// `p` is readable for [`CLMUL_POWERS_BYTES`] and alive for `'a` (alignment 1: the table
/// is bytes).
unsafe fn clmul_powers_at<'a>(p: *const u8) -> &'a sse::HPowers {
    // SAFETY: readable and alive (caller); `HPowers` is `repr(transparent)` over
    // `[[u8; 16]; 8]`, for which every bit pattern is valid and the alignment is 1.
    unsafe { &*p.cast::<sse::HPowers>() }
}

/// The SSE drivers' power table (H^1 ..= H^8) for the hash key `h`, written to `out`
/// ([`CLMUL_POWERS_BYTES`]), with the drivers' own key preparation (portable, constant
/// time). Native only.
///
/// # Safety
/// `h` readable for 16 bytes, `out` writable for [`CLMUL_POWERS_BYTES`].
#[no_mangle]
pub unsafe extern "C" fn cryptoreg_emu_clmul_powers(h: *const u8, out: *mut u8) {
    // SAFETY: per this function's contract.
    unsafe {
        let p = sse::HPowers::new(&h.cast::<[u8; 16]>().read_unaligned());
        out.cast::<[[u8; 16]; 8]>().write_unaligned(*p.as_bytes());
    }
}

/// The GHASH power table for the hash key `h` (16 bytes), written to `out`
/// ([`GHASH_POWERS_BYTES`], 64-byte aligned), with the drivers' own key preparation and
/// the VPCLMULQDQ entry. Runs under emulation (AVX2 + VPCLMULQDQ).
///
/// # Safety
/// `h` readable for 16 bytes, `out` 64-byte aligned and writable for
/// [`GHASH_POWERS_BYTES`]; the CPU (or emulator) has AVX2 and VPCLMULQDQ.
#[no_mangle]
pub unsafe extern "C" fn cryptoreg_emu_ghash_powers(h: *const u8, out: *mut u8) {
    // SAFETY: per this function's contract; the table is written in place.
    unsafe {
        let k1 = raw::ghash_key(&h.cast::<[u8; 16]>().read_unaligned());
        raw::ghash_powers_vpclmulqdq(&k1, &mut *out.cast::<raw::GhashPowers>());
    }
}

/// GHASH of `len` bytes at `data` (zero-padded) into the 16-byte accumulator `acc`, with
/// the entry of `driver` (0 = `ghash_vpclmulqdq_avx2`, 1 = `_avx10_256`, 2 = `_avx512`,
/// 3 = `ghash_clmulni`: whole blocks only, a trailing partial block ignored, and its own
/// table). Runs under emulation.
///
/// # Safety
/// `powers` 64-byte aligned and readable for [`GHASH_POWERS_BYTES`], `acc` readable and writable for 16,
/// `data` readable for `len`; the CPU (or emulator) has the entry's features.
#[no_mangle]
pub unsafe extern "C" fn cryptoreg_emu_ghash(
    driver: u32,
    powers: *const u8,
    acc: *mut u8,
    data: *const u8,
    len: usize,
) {
    // SAFETY: per this function's contract.
    unsafe {
        let mut a = acc.cast::<[u8; 16]>().read_unaligned();
        if driver == 3 {
            sse::ghash_clmulni(clmul_powers_at(powers), &mut a, data, len);
            acc.cast::<[u8; 16]>().write_unaligned(a);
            return;
        }
        let powers = powers_at(powers);
        let f = match driver {
            0 => raw::ghash_vpclmulqdq_avx2,
            1 => raw::ghash_vpclmulqdq_avx10_256,
            2 => raw::ghash_vpclmulqdq_avx512,
            _ => return,
        };
        f(powers, &mut a, data, len);
        acc.cast::<[u8; 16]>().write_unaligned(a);
    }
}

/// A whole GCM request with the fused entry of `driver` (0 = `gcm-aes-vaes-avx2`, 1 =
/// `_avx10_256`, 2 = `_avx10_512`), the one `seal` / `open` use: from `src` into `dst`
/// (`len` bytes, the same pointer or disjoint), the full 16-byte tag (computed over the
/// ciphertext) into `tag`. `rk` is the encryption schedule, `j0` the 16-byte J0, of which
/// the entries read the first 12 bytes (the nonce: they build J0 themselves). `decrypt`:
/// bit 0 decrypts (else encrypts), bit 1 runs the VAES loop in the form the drivers pick
/// on Intel CPUs (`GcmTuning::Intel`; else `GcmTuning::Other`, the one they pick
/// elsewhere); the AES-NI driver (3) has one form and is passed 0 or 1 only. Runs under
/// emulation.
///
/// # Safety
/// `rk` readable for 240 bytes, `powers` for [`GHASH_POWERS_BYTES`], `j0` for 16, `aad`
/// for `aad_len`, `src` readable and `dst` writable for `len` (equal or disjoint), `tag`
/// writable for 16; the CPU (or emulator) has the driver's features.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cryptoreg_emu_gcm(
    driver: u32,
    decrypt: u32,
    rk: *const u8,
    rounds: usize,
    powers: *const u8,
    j0: *const u8,
    aad: *const u8,
    aad_len: usize,
    src: *const u8,
    dst: *mut u8,
    len: usize,
    tag: *mut u8,
) {
    // SAFETY: per this function's contract.
    unsafe {
        let keys = &*rk.cast::<RoundKeyBytes>();
        // The one-shot entries read the 12-byte nonce (the first 12 bytes of J0) and
        // append the 32-bit 1 themselves.
        if driver == 3 {
            let f = if decrypt & 1 != 0 {
                sse::gcm_open_aesni
            } else {
                sse::gcm_seal_aesni
            };
            let powers = clmul_powers_at(powers);
            f(
                keys, rounds, powers, j0, aad, aad_len, src, dst, len, tag, 16,
            );
            return;
        }
        let powers = powers_at(powers);
        let tuning = tuning_of(decrypt);
        let f = match (driver, decrypt & 1 != 0) {
            (0, false) => raw::gcm_seal_vaes_avx2,
            (0, true) => raw::gcm_open_vaes_avx2,
            (1, false) => raw::gcm_seal_vaes_avx10_256,
            (1, true) => raw::gcm_open_vaes_avx10_256,
            (2, false) => raw::gcm_seal_vaes_avx10_512,
            (2, true) => raw::gcm_open_vaes_avx10_512,
            _ => return,
        };
        f(
            keys, rounds, powers, j0, aad, aad_len, src, dst, len, tag, 16, tuning,
        );
    }
}

/// The VAES GCM loop's form that bit 1 of a `decrypt` argument names (see
/// [`cryptoreg_emu_gcm`]).
fn tuning_of(decrypt: u32) -> raw::GcmTuning {
    if decrypt & 2 != 0 {
        raw::GcmTuning::Intel
    } else {
        raw::GcmTuning::Other
    }
}

/// The same request through the streaming entries the registry's walker uses: the AAD in
/// two GHASH calls (`aad_first`, a multiple of 16, then the rest), the text in two calls
/// (`first`, a multiple of 16, then the rest) with the counter and accumulator carried
/// between them, then the length block and `E(K, J0)` (AES-NI), as the driver's `finish`.
/// Same contract as [`cryptoreg_emu_gcm`].
///
/// # Safety
/// As [`cryptoreg_emu_gcm`], and `aad_first <= aad_len`, `first <= len`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cryptoreg_emu_gcm_split(
    driver: u32,
    decrypt: u32,
    rk: *const u8,
    rounds: usize,
    powers: *const u8,
    j0: *const u8,
    aad: *const u8,
    aad_len: usize,
    aad_first: usize,
    src: *const u8,
    dst: *mut u8,
    len: usize,
    first: usize,
    tag: *mut u8,
) {
    // SAFETY: per this function's contract; both pieces of each input stay in bounds.
    unsafe {
        if driver == 3 {
            gcm_split_sse(
                decrypt, rk, rounds, powers, j0, aad, aad_len, aad_first, src, dst, len, first, tag,
            );
            return;
        }
        let keys = &*rk.cast::<RoundKeyBytes>();
        let powers = powers_at(powers);
        let j0 = j0.cast::<[u8; 16]>().read_unaligned();
        let tuning = tuning_of(decrypt);
        let (ghash, crypt) = match (driver, decrypt & 1 != 0) {
            (0, false) => (
                raw::ghash_vpclmulqdq_avx2 as raw::GhashEntry,
                raw::gcm_enc_vaes_avx2 as raw::GcmEntry,
            ),
            (0, true) => (
                raw::ghash_vpclmulqdq_avx2 as raw::GhashEntry,
                raw::gcm_dec_vaes_avx2 as raw::GcmEntry,
            ),
            (1, false) => (
                raw::ghash_vpclmulqdq_avx10_256 as raw::GhashEntry,
                raw::gcm_enc_vaes_avx10_256 as raw::GcmEntry,
            ),
            (1, true) => (
                raw::ghash_vpclmulqdq_avx10_256 as raw::GhashEntry,
                raw::gcm_dec_vaes_avx10_256 as raw::GcmEntry,
            ),
            (2, false) => (
                raw::ghash_vpclmulqdq_avx512 as raw::GhashEntry,
                raw::gcm_enc_vaes_avx10_512 as raw::GcmEntry,
            ),
            (2, true) => (
                raw::ghash_vpclmulqdq_avx512 as raw::GhashEntry,
                raw::gcm_dec_vaes_avx10_512 as raw::GcmEntry,
            ),
            _ => return,
        };
        let mut acc = [0u8; 16];
        ghash(powers, &mut acc, aad, aad_first);
        ghash(powers, &mut acc, aad.add(aad_first), aad_len - aad_first);
        let mut ctr = u128::from_be_bytes(j0).wrapping_add(1).to_be_bytes();
        crypt(
            keys, rounds, powers, &mut ctr, &mut acc, src, dst, first, tuning,
        );
        crypt(
            keys,
            rounds,
            powers,
            &mut ctr,
            &mut acc,
            src.add(first),
            dst.add(first),
            len - first,
            tuning,
        );
        let lens = cryptoreg_algos::aes::gcm_rules::gcm_len_block(aad_len as u64, len as u64);
        ghash(powers, &mut acc, lens.as_ptr(), 16);
        let mut ek = j0;
        raw::encrypt_block_aesni(keys, rounds, &mut ek);
        for (a, e) in acc.iter_mut().zip(ek) {
            *a ^= e;
        }
        tag.cast::<[u8; 16]>().write_unaligned(acc);
    }
}

/// [`cryptoreg_emu_gcm_split`] for driver 3 (`gcm-aes-aesni`), with the calls its
/// streaming path makes: the AAD through `ghash_clmulni` (whole blocks, then the last
/// partial block zero-padded, as the driver's `absorb_aad_tail`), the text through
/// `gcm_enc_aesni` / `gcm_dec_aesni` from the counter block `J0 + 1`, the tag through
/// `gcm_tag_aesni`.
///
/// # Safety
/// As [`cryptoreg_emu_gcm_split`], with the SSE power table.
#[allow(clippy::too_many_arguments)]
unsafe fn gcm_split_sse(
    decrypt: u32,
    rk: *const u8,
    rounds: usize,
    powers: *const u8,
    j0: *const u8,
    aad: *const u8,
    aad_len: usize,
    aad_first: usize,
    src: *const u8,
    dst: *mut u8,
    len: usize,
    first: usize,
    tag: *mut u8,
) {
    // SAFETY: per this function's contract; both pieces of each input stay in bounds, and
    // the partial AAD block is read byte by byte below `aad_len`.
    unsafe {
        let keys = &*rk.cast::<RoundKeyBytes>();
        let powers = clmul_powers_at(powers);
        let j0 = j0.cast::<[u8; 16]>().read_unaligned();
        let mut acc = [0u8; 16];
        let whole = aad_len - aad_len % 16;
        let aad_first = aad_first.min(whole);
        sse::ghash_clmulni(powers, &mut acc, aad, aad_first);
        sse::ghash_clmulni(powers, &mut acc, aad.add(aad_first), whole - aad_first);
        if whole < aad_len {
            let mut block = [0u8; 16];
            for (i, b) in block.iter_mut().enumerate().take(aad_len - whole) {
                // Volatile: a plain byte loop may become a `memcpy` call, which the
                // emulator cannot follow (libc is not mapped).
                *b = core::ptr::read_volatile(aad.add(whole + i));
            }
            sse::ghash_clmulni(powers, &mut acc, block.as_ptr(), 16);
        }
        let f = if decrypt & 1 != 0 {
            sse::gcm_dec_aesni
        } else {
            sse::gcm_enc_aesni
        };
        let mut ctr = u128::from_be_bytes(j0).wrapping_add(1).to_be_bytes();
        f(keys, rounds, powers, &mut ctr, &mut acc, src, dst, first);
        f(
            keys,
            rounds,
            powers,
            &mut ctr,
            &mut acc,
            src.add(first),
            dst.add(first),
            len - first,
        );
        let mut t = [0u8; 16];
        sse::gcm_tag_aesni(
            keys,
            rounds,
            powers,
            &j0,
            &acc,
            aad_len as u64,
            len as u64,
            &mut t,
        );
        tag.cast::<[u8; 16]>().write_unaligned(t);
    }
}

/// H = E(K, 0^128) over `aes-generic`, into `h_out` (16 bytes). Returns 0, or -1 for a bad
/// key. Native only.
///
/// # Safety
/// `key` readable for `key_len` bytes, `h_out` writable for 16.
#[no_mangle]
pub unsafe extern "C" fn cryptoreg_emu_ref_gcm_h(
    key: *const u8,
    key_len: usize,
    h_out: *mut u8,
) -> i32 {
    // SAFETY: per this function's contract.
    let key = unsafe { core::slice::from_raw_parts(key, key_len) };
    let Some(c) = generic(key) else {
        return -1;
    };
    let mut h = [0u8; 16];
    c.encrypt_blocks(&mut h);
    // SAFETY: `h_out` is writable for 16 bytes.
    unsafe { h_out.cast::<[u8; 16]>().write_unaligned(h) };
    0
}

/// Reference GHASH (`ghash-generic`'s portable multiply, one block at a time) of `len`
/// bytes (zero-padded) into the accumulator `acc` under the hash key `h`. Native only.
///
/// # Safety
/// `h` readable for 16 bytes, `acc` readable and writable for 16, `data` readable for `len`.
#[no_mangle]
pub unsafe extern "C" fn cryptoreg_emu_ref_ghash(
    h: *const u8,
    acc: *mut u8,
    data: *const u8,
    len: usize,
) {
    // SAFETY: per this function's contract.
    unsafe {
        let h = u128::from_be_bytes(h.cast::<[u8; 16]>().read_unaligned());
        let mut y = u128::from_be_bytes(acc.cast::<[u8; 16]>().read_unaligned());
        y = ref_ghash(h, y, core::slice::from_raw_parts(data, len));
        acc.cast::<[u8; 16]>().write_unaligned(y.to_be_bytes());
    }
}

fn ref_ghash(h: u128, mut y: u128, data: &[u8]) -> u128 {
    for chunk in data.chunks(16) {
        let mut b = [0u8; 16];
        b[..chunk.len()].copy_from_slice(chunk);
        y = gf128_mul(y ^ u128::from_be_bytes(b), h);
    }
    y
}

/// Reference GCM (SP 800-38D) over `aes-generic` and `ghash-generic`'s multiply, in place:
/// encrypts (`decrypt == 0`) or decrypts `data` under the 12-byte `nonce`, and writes the
/// full tag (over the ciphertext) to `tag`. Returns 0, or -1 for a bad key. Native only.
///
/// # Safety
/// `key` readable for `key_len` bytes, `nonce` for 12, `aad` for `aad_len`, `data`
/// readable and writable for `len`, `tag` writable for 16.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cryptoreg_emu_ref_gcm(
    decrypt: u32,
    key: *const u8,
    key_len: usize,
    nonce: *const u8,
    aad: *const u8,
    aad_len: usize,
    data: *mut u8,
    len: usize,
    tag: *mut u8,
) -> i32 {
    // SAFETY: per this function's contract.
    let (key, nonce, aad, data) = unsafe {
        (
            core::slice::from_raw_parts(key, key_len),
            core::slice::from_raw_parts(nonce, 12),
            core::slice::from_raw_parts(aad, aad_len),
            core::slice::from_raw_parts_mut(data, len),
        )
    };
    let Some(c) = generic(key) else {
        return -1;
    };
    let mut hb = [0u8; 16];
    c.encrypt_blocks(&mut hb);
    let h = u128::from_be_bytes(hb);
    let mut j0 = [0u8; 16];
    j0[..12].copy_from_slice(nonce);
    j0[15] = 1;
    let mut y = ref_ghash(h, 0, aad);
    if decrypt != 0 {
        y = ref_ghash(h, y, data);
    }
    for (i, chunk) in data.chunks_mut(16).enumerate() {
        let mut cb = j0;
        let n = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]).wrapping_add(1 + i as u32);
        cb[12..].copy_from_slice(&n.to_be_bytes());
        c.encrypt_blocks(&mut cb);
        chunk.iter_mut().zip(cb).for_each(|(x, k)| *x ^= k);
    }
    if decrypt == 0 {
        y = ref_ghash(h, y, data);
    }
    y = ref_ghash(
        h,
        y,
        &cryptoreg_algos::aes::gcm_rules::gcm_len_block(aad_len as u64, len as u64),
    );
    let mut ek = j0;
    c.encrypt_blocks(&mut ek);
    // SAFETY: `tag` is writable for 16 bytes.
    unsafe {
        tag.cast::<[u8; 16]>()
            .write_unaligned((y ^ u128::from_be_bytes(ek)).to_be_bytes())
    };
    0
}

// --- Poly1305 (issue 9): the poly1305-* SIMD entries, for emu/harness/test_poly1305.py ---
//
// Driver numbers: 0 = `poly1305-avx2`, 1 = `poly1305-avx512`, 2 = `poly1305-avx512ifma`.

use cryptoreg_algos::poly1305::simd::raw::{
    self as poly_raw, poly1305_blocks_avx2, poly1305_blocks_avx512, poly1305_blocks_avx512ifma,
    Poly1305Key,
};

/// Bytes (and alignment, at most 8) of an expanded Poly1305 key: the buffer the harness
/// passes to [`cryptoreg_emu_poly1305_expand`] and the emulated calls. Native only.
#[no_mangle]
pub extern "C" fn cryptoreg_emu_poly1305_key_size() -> usize {
    core::mem::size_of::<Poly1305Key>()
}

/// Expands the 32-byte one-time key at `key` into an entries' key at `out` (8-byte aligned,
/// [`cryptoreg_emu_poly1305_key_size`] bytes): `r` clamped, its powers in both radices,
/// `s`. Native only.
///
/// # Safety
/// `key` readable for 32 bytes; `out` writable for the key size and 8-byte aligned.
#[no_mangle]
pub unsafe extern "C" fn cryptoreg_emu_poly1305_expand(key: *const u8, out: *mut u8) {
    // SAFETY: per this function's contract (32 readable bytes; an aligned, writable slot).
    unsafe {
        let k = key.cast::<[u8; 32]>().read_unaligned();
        out.cast::<Poly1305Key>().write(Poly1305Key::new(&k));
    }
}

/// Absorbs `nblocks` whole 16-byte blocks at `msg` into the running sum `h` (three u64,
/// radix 2^64, in and out) with the entry of driver `driver`: the vector steps and the
/// scalar rest, at any count (the drivers' length thresholds are not applied, so short
/// messages exercise the entries too). Runs under emulation: only the entry and this shell
/// execute (no allocation, no panic, no call outside this library); the padding and the
/// final reduction run natively ([`cryptoreg_emu_poly1305_finish`]). An unknown driver
/// number leaves `h` untouched.
///
/// # Safety
/// `key` is an expanded key from [`cryptoreg_emu_poly1305_expand`], `h` readable and
/// writable for 24 bytes (8-byte aligned), `msg` readable for `16 * nblocks` bytes; the CPU
/// (or emulator) has the driver's features.
#[no_mangle]
pub unsafe extern "C" fn cryptoreg_emu_poly1305(
    driver: u32,
    key: *const u8,
    h: *mut u64,
    msg: *const u8,
    nblocks: usize,
) {
    let f = match driver {
        0 => poly1305_blocks_avx2,
        1 => poly1305_blocks_avx512,
        2 => poly1305_blocks_avx512ifma,
        _ => return,
    };
    // SAFETY: per this function's contract: an expanded key, 24 aligned bytes at `h`,
    // `16 * nblocks` readable bytes at `msg`.
    unsafe {
        f(
            &mut *h.cast::<[u64; 3]>(),
            &*key.cast::<Poly1305Key>(),
            msg,
            nblocks,
        )
    }
}

/// Finishes a running sum `h` (24 bytes) after the last `rest_len < 16` bytes at `rest`:
/// pads, absorbs, reduces, adds `s`, writes the tag (16 bytes). Native only.
///
/// # Safety
/// `key` an expanded key, `h` readable for 24 bytes (8-byte aligned), `rest` for `rest_len`
/// (below 16), `tag` writable for 16.
#[no_mangle]
pub unsafe extern "C" fn cryptoreg_emu_poly1305_finish(
    key: *const u8,
    h: *const u64,
    rest: *const u8,
    rest_len: usize,
    tag: *mut u8,
) {
    // SAFETY: per this function's contract.
    unsafe {
        let key = &*key.cast::<Poly1305Key>();
        let rest = core::slice::from_raw_parts(rest, rest_len.min(15));
        tag.cast::<[u8; 16]>().write_unaligned(poly_raw::finish(
            key,
            h.cast::<[u64; 3]>().read(),
            rest,
        ));
    }
}

/// Reference Poly1305 tag over `poly1305-generic`'s code, written to `tag`. Native only.
///
/// # Safety
/// `key` readable for 32 bytes, `msg` for `len`, `tag` writable for 16.
#[no_mangle]
pub unsafe extern "C" fn cryptoreg_emu_ref_poly1305(
    key: *const u8,
    msg: *const u8,
    len: usize,
    tag: *mut u8,
) {
    // SAFETY: per this function's contract.
    unsafe {
        let k = key.cast::<[u8; 32]>().read_unaligned();
        let m = core::slice::from_raw_parts(msg, len);
        tag.cast::<[u8; 16]>()
            .write_unaligned(poly_raw::generic_tag(&k, m));
    }
}
// --- end Poly1305 ---

// --- ChaCha20 (issue 9): the `chacha20-{ssse3,avx2,avx512vl,avx512f}` entries ---------

use cryptoreg_algos::chacha20::simd::raw as chacha_raw;

/// ChaCha20 with the entry of driver `driver` (0 = `chacha20-ssse3`, 1 = `-avx2`,
/// 2 = `-avx512vl`, 3 = `-avx512f`; 4 and 5 the keyed entries, [`keyed`]), from `src`
/// into `dst` (`len` bytes each; the same pointer for in place, or disjoint). `state` is
/// the 16-word ChaCha20 state (constants, key, block counter, nonce), as the drivers build
/// it; the entry does not write it back.
/// Runs under emulation: no allocation, no panic, no call outside this library. An
/// unknown driver number does nothing (the harness would see the mismatch).
///
/// # Safety
/// `state` readable for 64 bytes, `src` readable and `dst` writable for `len` bytes,
/// `src == dst` or the two disjoint; the CPU (or emulator) has the driver's features.
#[no_mangle]
pub unsafe extern "C" fn cryptoreg_emu_chacha20(
    driver: u32,
    state: *const u8,
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    // SAFETY: per this function's contract (64 readable bytes behind `state`, read as
    // unaligned words).
    unsafe {
        let s = state.cast::<[u32; 16]>().read_unaligned();
        let f = match driver {
            0 => chacha_raw::chacha20_ssse3,
            1 => chacha_raw::chacha20_avx2,
            2 => chacha_raw::chacha20_avx512vl,
            3 => chacha_raw::chacha20_avx512f,
            4 | 5 => return keyed(driver, &s, src, dst, len),
            _ => return,
        };
        f(&s, src, dst, len);
    }
}

/// Drivers 4 and 5 of [`cryptoreg_emu_chacha20`]: the keyed entries of the ChaCha20-Poly1305
/// short path (`chacha20_keyed_avx2`, `chacha20_keyed_avx512f`), the request's first 64
/// bytes as the key block (stored by the entry into a buffer here, then XORed from `src`
/// into `dst`, as many of them as `len` has) and the rest as the text, so that the output
/// is the keystream XOR of all `len` bytes like the other drivers'. A `len` past the
/// entry's longest text plus 64 does nothing (the harness keeps to it).
///
/// # Safety
/// As for [`cryptoreg_emu_chacha20`].
unsafe fn keyed(driver: u32, s: &[u32; 16], src: *const u8, dst: *mut u8, len: usize) {
    let (f, max): (chacha_raw::KeyedFn, usize) = if driver == 4 {
        (
            chacha_raw::chacha20_keyed_avx2,
            chacha_raw::KEYED_MAX_TEXT_AVX2,
        )
    } else {
        (
            chacha_raw::chacha20_keyed_avx512f,
            chacha_raw::KEYED_MAX_TEXT_AVX512F,
        )
    };
    let text = len.saturating_sub(64);
    if text > max {
        return;
    }
    let mut key = [0u8; 64];
    // SAFETY: per the caller's contract; `key` is 64 writable bytes; the text's `text`
    // bytes follow the first 64 of `src` / `dst` (with no text nothing is read or written
    // there, so the wrapped pointers are never used).
    unsafe {
        f(
            s,
            key.as_mut_ptr(),
            src.wrapping_add(64),
            dst.wrapping_add(64),
            text,
        );
        for (i, k) in key.iter().enumerate().take(len) {
            dst.add(i).write(src.add(i).read() ^ k);
        }
    }
}

/// Reference ChaCha20 over the portable scalar core of `chacha20-generic` (RFC 8439 §2.3,
/// block by block), in place, from the 16-word `state`. Native only.
///
/// # Safety
/// `state` readable for 64 bytes, `data` readable and writable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn cryptoreg_emu_ref_chacha20(state: *const u8, data: *mut u8, len: usize) {
    // SAFETY: per this function's contract.
    let (mut s, data) = unsafe {
        (
            state.cast::<[u32; 16]>().read_unaligned(),
            core::slice::from_raw_parts_mut(data, len),
        )
    };
    cryptoreg_algos::chacha20::chacha20_xor(&mut s, data);
}

// --- Fused ChaCha20-Poly1305 (issue 9): for emu/harness/test_rfc7539.py ---
//
// Driver numbers: 0 = `rfc7539-chacha20-poly1305-avx2`, 1 = `-avx512`, 2 = `-avx512ifma`.

use cryptoreg_algos::chacha20poly1305::simd::raw as fused_raw;

/// Derives a request's values natively: the ChaCha20 state at block 1 (`state`, 16 u32),
/// `r` as `[r0, r1, s1]` (`r`, 3 u64), `r^1..r^8` in radix 2^26 (`pow`, 40 u64), `s` (16
/// bytes). Native only.
///
/// # Safety
/// `key` readable for 32 bytes, `nonce` for 12; the outputs writable for their sizes and
/// aligned for their element types.
#[no_mangle]
pub unsafe extern "C" fn cryptoreg_emu_rfc7539_setup(
    key: *const u8,
    nonce: *const u8,
    state: *mut u32,
    r: *mut u64,
    pow: *mut u64,
    s: *mut u8,
) {
    // SAFETY: per this function's contract.
    unsafe {
        let (st, rl, pw, sb) = fused_raw::setup(
            &key.cast::<[u8; 32]>().read_unaligned(),
            &nonce.cast::<[u8; 12]>().read_unaligned(),
        );
        state.cast::<[u32; 16]>().write(st);
        r.cast::<fused_raw::RLimbs>().write(rl);
        pow.cast::<fused_raw::Powers>().write(pw);
        s.cast::<[u8; 16]>().write_unaligned(sb);
    }
}

/// One request through the entries of driver `driver`: the AAD (`alen` bytes at `aad`)
/// into `h`, then `len` bytes from `src` into `dst` encrypted (`decrypt == 0`) or
/// decrypted, their ciphertext into `h`; `state` (16 u32) advances. `pow` may be null (no
/// vector Poly1305 path, as the drivers do for short requests). Runs under emulation:
/// only the entries and this shell execute. An unknown driver does nothing.
///
/// # Safety
/// `state`, `r`, `pow` (unless null) and `h` as written by
/// [`cryptoreg_emu_rfc7539_setup`] (`h`: 3 u64, zero to start); `aad` readable for
/// `alen`, `src` readable and `dst` writable for `len`, equal or disjoint; the CPU (or
/// emulator) has the driver's features.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cryptoreg_emu_rfc7539(
    driver: u32,
    decrypt: u32,
    state: *mut u32,
    r: *const u64,
    pow: *const u64,
    h: *mut u64,
    aad: *const u8,
    alen: usize,
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    let (enc, dec, absorb) = match driver {
        0 => (
            fused_raw::rfc7539_enc_avx2 as unsafe fn(_, _, _, _, _, _, _),
            fused_raw::rfc7539_dec_avx2 as unsafe fn(_, _, _, _, _, _, _),
            fused_raw::rfc7539_aad_avx2 as unsafe fn(_, _, _, _, _),
        ),
        1 => (
            fused_raw::rfc7539_enc_avx512 as unsafe fn(_, _, _, _, _, _, _),
            fused_raw::rfc7539_dec_avx512 as unsafe fn(_, _, _, _, _, _, _),
            fused_raw::rfc7539_aad_avx512 as unsafe fn(_, _, _, _, _),
        ),
        2 => (
            fused_raw::rfc7539_enc_avx512ifma as unsafe fn(_, _, _, _, _, _, _),
            fused_raw::rfc7539_dec_avx512ifma as unsafe fn(_, _, _, _, _, _, _),
            fused_raw::rfc7539_aad_avx512ifma as unsafe fn(_, _, _, _, _),
        ),
        _ => return,
    };
    // SAFETY: per this function's contract.
    unsafe {
        let st = &mut *state.cast::<[u32; 16]>();
        let r = &*r.cast::<fused_raw::RLimbs>();
        let pow = pow.cast::<fused_raw::Powers>().as_ref();
        let h = &mut *h.cast::<[u64; 3]>();
        if alen > 0 {
            absorb(r, pow, &mut *h, aad, alen);
        }
        let f = if decrypt != 0 { dec } else { enc };
        f(st, r, pow, h, src, dst, len);
    }
}

/// One whole seal or open through driver `driver`'s whole-request entry (`rfc7539_seal_*`,
/// or `rfc7539_open_*` when `decrypt` is nonzero): from `state` (16 u32, as
/// [`cryptoreg_emu_rfc7539_setup`] wrote it; used at block 0, not changed), the one-time
/// key out of the entry's first batch into `r` (3 u64) and `s` (16 bytes), the AAD (`alen`
/// bytes at `aad`) and `len` bytes from `src` en- or decrypted into `dst`, the ciphertext
/// absorbed into `h` (3 u64). Returns 0, or 1 without running anything for an unknown
/// driver or a text length the entry does not take. Runs under emulation.
///
/// # Safety
/// `state` readable, `r`, `s` and `h` writable for their sizes (`r`, `h` aligned); `aad`
/// readable for `alen`, `src` readable and `dst` writable for `len`, equal or disjoint;
/// the CPU (or emulator) has the driver's features.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cryptoreg_emu_rfc7539_whole(
    driver: u32,
    decrypt: u32,
    state: *const u32,
    r: *mut u64,
    s: *mut u8,
    h: *mut u64,
    aad: *const u8,
    alen: usize,
    src: *const u8,
    dst: *mut u8,
    len: usize,
) -> u32 {
    type Whole = unsafe fn(
        &mut [u32; 16],
        &mut fused_raw::RLimbs,
        &mut [u8; 16],
        &mut [u64; 3],
        *const u8,
        usize,
        *const u8,
        *mut u8,
        usize,
    );
    let seal_min = |min: usize| min..usize::MAX;
    let (whole, lens): (Whole, core::ops::Range<usize>) = match (driver, decrypt != 0) {
        (0, false) => (
            fused_raw::rfc7539_seal_avx2,
            seal_min(fused_raw::SEAL_MIN_AVX2),
        ),
        (1, false) => (
            fused_raw::rfc7539_seal_avx512,
            seal_min(fused_raw::SEAL_MIN_ZMM),
        ),
        (2, false) => (
            fused_raw::rfc7539_seal_avx512ifma,
            seal_min(fused_raw::SEAL_MIN_ZMM),
        ),
        (0, true) => (fused_raw::rfc7539_open_avx2, fused_raw::OPEN_AVX2),
        (1, true) => (fused_raw::rfc7539_open_avx512, fused_raw::OPEN_ZMM),
        (2, true) => (fused_raw::rfc7539_open_avx512ifma, fused_raw::OPEN_ZMM),
        _ => return 1,
    };
    if !lens.contains(&len) {
        return 1;
    }
    // SAFETY: per this function's contract; the text length is one the entry takes.
    unsafe {
        let mut st = state.cast::<[u32; 16]>().read();
        st[12] = 0;
        let mut tag_s = [0u8; 16];
        whole(
            &mut st,
            &mut *r.cast::<fused_raw::RLimbs>(),
            &mut tag_s,
            &mut *h.cast::<[u64; 3]>(),
            aad,
            alen,
            src,
            dst,
            len,
        );
        s.cast::<[u8; 16]>().write_unaligned(tag_s);
    }
    0
}

/// The tag from the sum `h` after `alen` bytes of AAD and `len` of text, into `tag` (16
/// bytes). Native only.
///
/// # Safety
/// `r` (3 u64) and `h` (3 u64) readable and aligned, `s` readable for 16, `tag` writable for
/// 16.
#[no_mangle]
pub unsafe extern "C" fn cryptoreg_emu_rfc7539_finish(
    r: *const u64,
    s: *const u8,
    h: *const u64,
    alen: usize,
    len: usize,
    tag: *mut u8,
) {
    // SAFETY: per this function's contract.
    unsafe {
        let t = fused_raw::finish(
            &r.cast::<fused_raw::RLimbs>().read(),
            &s.cast::<[u8; 16]>().read_unaligned(),
            h.cast::<[u64; 3]>().read(),
            alen,
            len,
        );
        tag.cast::<[u8; 16]>().write_unaligned(t);
    }
}

/// Reference ChaCha20-Poly1305 seal (RFC 8439 2.8) over the portable ChaCha20 block and
/// `poly1305-generic`'s code, in place on `data` (`len` bytes), the tag into `tag`.
/// Native only.
///
/// # Safety
/// `key` readable for 32 bytes, `nonce` for 12, `aad` for `alen`, `data` readable and
/// writable for `len`, `tag` writable for 16.
#[no_mangle]
pub unsafe extern "C" fn cryptoreg_emu_ref_rfc7539(
    key: *const u8,
    nonce: *const u8,
    aad: *const u8,
    alen: usize,
    data: *mut u8,
    len: usize,
    tag: *mut u8,
) {
    use cryptoreg_algos::chacha20::{chacha20_block, chacha20_xor, init_state};
    use cryptoreg_algos::poly1305::Poly1305;
    // SAFETY: per this function's contract.
    unsafe {
        let key = key.cast::<[u8; 32]>().read_unaligned();
        let mut iv = [0u8; 16];
        iv[4..].copy_from_slice(core::slice::from_raw_parts(nonce, 12));
        let mut st = init_state(&key, &iv);
        let block0 = chacha20_block(&st);
        let mut pk = [0u8; 32];
        pk.copy_from_slice(&block0[..32]);
        st[12] = 1;
        let data = core::slice::from_raw_parts_mut(data, len);
        chacha20_xor(&mut st, data);
        let aad = core::slice::from_raw_parts(aad, alen);
        let mut p = Poly1305::new(&pk);
        let zeros = [0u8; 16];
        p.update(aad);
        p.update(&zeros[..(16 - alen % 16) % 16]);
        p.update(data);
        p.update(&zeros[..(16 - len % 16) % 16]);
        p.update(&(alen as u64).to_le_bytes());
        p.update(&(len as u64).to_le_bytes());
        tag.cast::<[u8; 16]>().write_unaligned(p.finalize());
    }
}
// --- end fused ChaCha20-Poly1305 ---
