"""Runs the AVX-512 (and, for good measure, the AVX2) VAES kernels of cryptoreg under the
Bochs emulator and compares every output byte with the native reference (XTS / CTR over
aes-generic, exported from the same library and run natively).

    python test_vaes.py path/to/libcryptoreg_emu.so [--model tigerlake] [--seed N]
        [--drivers avx2,avx10_256,avx10_512]

Cases: drivers avx10_256 and avx10_512 (and avx2), XTS encrypt and decrypt, CTR, AES-128,
-192 and -256, lengths 16, 17, 31, ..., 4111 plus random ones, at varying misalignments;
64 guard bytes before and after each buffer must come back untouched. Every case runs
twice: in place (source pointer = destination pointer) and out of place (a separate,
differently misaligned source buffer, which must come back unchanged, and a destination
pre-filled with junk). Also: XTS split
into two entry calls (the chaining state), CTR counters that wrap (all 16 bytes, and the
low 64 bits), buffers that end right before an unmapped page (masked loads and stores
must not touch it), and a self-check that a corrupted byte is noticed.

GCM (`gcm-aes-vaes-*`): the fused seal/open entry and the streaming entries (AAD and text
each split in two calls), in place and out of place, AES-128/192/256, text lengths 0 ..
4111 with AADs of 0 .. 600 bytes, against a native GCM over aes-generic and ghash-generic's
multiply, the 16-byte tag compared too; the GHASH power table is computed under emulation.
The VAES drivers run in both forms of their loop (`GcmTuning`: the one they use on Intel
CPUs, schoolbook GHASH and, from 8 groups = 2 KiB on, decryption hashing ciphertext held
in registers; and the one they use elsewhere, Karatsuba GHASH on avx2 and on avx10_512
decrypting 2 KiB or more, and each group's own ciphertext hashed from memory).
GHASH (`ghash_vpclmulqdq_*`, driver numbers as above): lengths 1 .. 4111 into a random
accumulator, against the native reference. `--suites` picks a subset of xts, ctr, gcm,
ghash (all by default).

Driver `aesni` (number 3) is the SSE pair `gcm-aes-aesni` / `ghash-clmulni` (AES-NI,
PCLMULQDQ, SSSE3: every emulated model has them): GCM and GHASH suites only (it has no
VAES XTS/CTR), with its own power table (H^1 .. H^8, computed natively by the driver's
key preparation) and GHASH over whole blocks (its entry's contract).

A driver given as `name@N` gets only cases whose text (or GHASH input) is at least N bytes
long: the negative control (`avx10_512@17` under a model without AVX-512) must fail every
case, and requests of one block or less run only on the narrow type's whole-block loads
and stores and ymm VAES, which the assembler encodes without EVEX (they run on any
AVX2 + VAES CPU, as they should).

Prints one line per failure and ends with `N passed, M failed`; exits 1 on any failure.
"""
import argparse
import ctypes
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostmap import GuestError, HostMappedGuest  # noqa: E402

LENGTHS = [16, 17, 31, 32, 33, 47, 48, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512,
           513, 1000, 4095, 4096, 4111]
DRIVERS = {"avx2": 0, "avx10_256": 1, "avx10_512": 2, "aesni": 3}
SSE = 3  # gcm-aes-aesni / ghash-clmulni: GCM and GHASH only
CLMUL_POWERS_BYTES = 8 * 16  # H^1 .. H^8
GUARD = 64
MAX_LEN = 8192
GUARD_BYTE = 0xA5
GCM_LENGTHS = [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 272,
               511, 512, 513, 1000, 2047, 2048, 2049, 2304, 4095, 4096, 4111]
AAD_LENGTHS = [0, 1, 13, 16, 20, 32, 100, 255, 256, 257, 600]
MAX_AAD = 600
POWERS_BYTES = 36 * 16  # GHASH_POWERS_BYTES: H^16 .. H^1, four zero entries, H^32 .. H^17


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("library")
    ap.add_argument("--model", default="tigerlake")
    ap.add_argument("--seed", type=int, default=0x5EED)
    ap.add_argument("--random-lengths", type=int, default=4)
    ap.add_argument("--drivers", default=",".join(DRIVERS),
                    help="comma-separated subset of: " + ", ".join(DRIVERS))
    ap.add_argument("--suites", default="xts,ctr,gcm,ghash",
                    help="comma-separated subset of: xts, ctr, gcm, ghash")
    opts = ap.parse_args()

    path = os.path.realpath(opts.library)
    lib = ctypes.CDLL(path)
    emu = HostMappedGuest(opts.model)
    emu.map_library(path)

    def addr(name):
        return ctypes.cast(getattr(lib, name), ctypes.c_void_p).value

    fn_xts, fn_xts_split, fn_ctr = (addr("cryptoreg_emu_xts"), addr("cryptoreg_emu_xts_split"),
                                    addr("cryptoreg_emu_ctr"))
    vp, sz = ctypes.c_void_p, ctypes.c_size_t
    lib.cryptoreg_emu_expand.argtypes = [vp, sz, vp, vp]
    lib.cryptoreg_emu_expand.restype = ctypes.c_int32
    lib.cryptoreg_emu_ref_xts.argtypes = [ctypes.c_uint32, vp, sz, vp, vp, sz]
    lib.cryptoreg_emu_ref_xts.restype = ctypes.c_int32
    lib.cryptoreg_emu_ref_ctr.argtypes = [vp, sz, vp, vp, sz, vp]
    lib.cryptoreg_emu_ref_ctr.restype = ctypes.c_int32
    fn_gcm, fn_gcm_split, fn_ghash, fn_powers = (
        addr("cryptoreg_emu_gcm"), addr("cryptoreg_emu_gcm_split"), addr("cryptoreg_emu_ghash"),
        addr("cryptoreg_emu_ghash_powers"))
    lib.cryptoreg_emu_ref_gcm.argtypes = [ctypes.c_uint32, vp, sz, vp, vp, sz, vp, sz, vp]
    lib.cryptoreg_emu_ref_gcm.restype = ctypes.c_int32
    lib.cryptoreg_emu_ref_gcm_h.argtypes = [vp, sz, vp]
    lib.cryptoreg_emu_ref_gcm_h.restype = ctypes.c_int32
    lib.cryptoreg_emu_ref_ghash.argtypes = [vp, vp, vp, sz]
    lib.cryptoreg_emu_ref_ghash.restype = None
    lib.cryptoreg_emu_clmul_powers.argtypes = [vp, vp]
    lib.cryptoreg_emu_clmul_powers.restype = None
    suites = set(opts.suites.split(","))

    # Guest-visible buffers (host memory mapped at the same addresses).
    rk_data, rk_tweak, rk_dec = emu.alloc(256), emu.alloc(256), emu.alloc(256)
    iv_buf, ctr_out = emu.alloc(16), emu.alloc(16)
    work = emu.alloc(MAX_LEN + 2 * GUARD + 64)
    work_src = emu.alloc(MAX_LEN + 2 * GUARD + 64)  # the source of out-of-place cases
    fenced = emu.alloc(MAX_LEN, fence_after=True)  # ends right before an unmapped page
    fenced_end = fenced + ((MAX_LEN + 0xFFF) & ~0xFFF)
    fenced_src = emu.alloc(MAX_LEN, fence_after=True)
    fenced_src_end = fenced_src + ((MAX_LEN + 0xFFF) & ~0xFFF)
    h_buf, j0_buf, tag_buf, acc_buf = emu.alloc(16), emu.alloc(16), emu.alloc(16), emu.alloc(16)
    powers_buf = emu.alloc(POWERS_BYTES)
    aad_buf = emu.alloc(MAX_AAD + 64)
    emu.commit()

    # Native-only buffers for the reference.
    key_buf = ctypes.create_string_buffer(64)
    ref = ctypes.create_string_buffer(MAX_LEN + 64)
    ref_ctr = ctypes.create_string_buffer(16)
    enc_tmp = ctypes.create_string_buffer(256)
    dec_tmp = ctypes.create_string_buffer(256)

    rng = random.Random(opts.seed)
    lengths = LENGTHS + sorted(rng.randrange(16, MAX_LEN) for _ in range(opts.random_lengths))
    passed = failed = 0
    failures = []
    per_driver = {}

    def expand(key):
        ctypes.memmove(key_buf, key, len(key))
        rounds = lib.cryptoreg_emu_expand(key_buf, len(key), enc_tmp, dec_tmp)
        if rounds < 0:
            raise RuntimeError(f"key expansion refused a {len(key)}-byte key")
        return rounds, enc_tmp.raw[:240], dec_tmp.raw[:240]

    def put(address, data):
        ctypes.memmove(address, data, len(data))

    def run_case(label, expected, call, data, where=None, quiet=False, oop=False):
        """Places `data` (with guards) in guest memory, runs `call(src, dst)`, compares
        the destination and the guards with `expected`. In place (`oop` false) `src` and
        `dst` are the same pointer; out of place the source is a separate buffer that must
        come back unchanged. Returns True when equal."""
        nonlocal passed, failed
        n = len(data)
        before = bytes([GUARD_BYTE]) * GUARD
        if where is None:
            ptr = work + GUARD + rng.randrange(16)  # misaligned on purpose
            put(ptr - GUARD, before)
            put(ptr + n, before)
            src = work_src + GUARD + rng.randrange(16) if oop else ptr
            if oop:
                put(src - GUARD, before)
                put(src + n, before)
        else:
            ptr = where - n  # the buffer's last byte is the last mapped byte
            src = fenced_src_end - n if oop else ptr
        if oop:
            put(src, data)
            put(ptr, bytes((i * 7 + 0x3C) & 0xFF for i in range(n)))  # junk to overwrite
            label += " out-of-place"
        else:
            put(ptr, data)
        try:
            call(src, ptr)
            got = ctypes.string_at(ptr, n)
            ok = got == expected
            why = "" if ok else first_difference(got, expected)
            if ok and where is None:
                if ctypes.string_at(ptr - GUARD, GUARD) != before:
                    ok, why = False, "guard bytes before the buffer changed"
                elif ctypes.string_at(ptr + n, GUARD) != before:
                    ok, why = False, "guard bytes after the buffer changed"
            if ok and oop:
                if ctypes.string_at(src, n) != data:
                    ok, why = False, "the source buffer changed"
                elif where is None and (ctypes.string_at(src - GUARD, GUARD) != before
                                        or ctypes.string_at(src + n, GUARD) != before):
                    ok, why = False, "guard bytes around the source changed"
        except GuestError as e:
            ok, why = False, str(e)
        driver = label.split()[0]
        per_driver[driver] = per_driver.get(driver, 0) + 1
        if ok:
            passed += 1
        else:
            failed += 1
            failures.append(f"FAIL {label}: {why}")
            if not quiet:
                print(failures[-1], flush=True)
        return ok

    def xts_key(klen):
        while True:
            key = rng.randbytes(klen)
            if key[: klen // 2] != key[klen // 2:]:
                return key

    started = time.perf_counter()
    drivers, min_len = [], {}
    for spec in opts.drivers.split(","):
        name, _, least = spec.partition("@")
        drivers.append((name, DRIVERS[name]))
        min_len[name] = int(least or 0)

    def skip(name, n):
        """Whether the case of `n` bytes is below the driver's `@N`."""
        return n < min_len[name]

    # XTS: every driver, both directions, three key sizes, every length.
    vaes_drivers = [(name, num) for name, num in drivers if num != SSE]
    for name, num in (vaes_drivers if "xts" in suites else []):
        for klen in (32, 48, 64):
            key = xts_key(klen)
            rounds, enc1, dec1 = expand(key[: klen // 2])
            _, enc2, _ = expand(key[klen // 2:])
            put(rk_tweak, enc2)
            for decrypt in (0, 1):
                put(rk_data, dec1 if decrypt else enc1)
                for n in lengths:
                    if skip(name, n):
                        continue
                    iv, data = rng.randbytes(16), rng.randbytes(n)
                    put(iv_buf, iv)
                    ctypes.memmove(ref, data, n)
                    assert lib.cryptoreg_emu_ref_xts(decrypt, key, klen, iv, ref, n) == 0
                    want = ref.raw[:n]
                    label = f"xts-aes-vaes-{name} {'dec' if decrypt else 'enc'} klen={klen} len={n}"
                    for oop in (False, True):
                        run_case(label, want, lambda s, d: emu.call(
                            fn_xts, num, decrypt, rk_data, rk_tweak, rounds, iv_buf, s, d, n),
                            data, oop=oop)
                    # The same request as two entry calls, the tweak carried over.
                    if n >= 32:
                        first = 16 * rng.randrange(1, n // 16)
                        if n % 16 and first == 16 * (n // 16):
                            first -= 16
                        for oop in (False, True):
                            run_case(label + f" split@{first}", want, lambda s, d: emu.call(
                                fn_xts_split, num, decrypt, rk_data, rk_tweak, rounds, iv_buf,
                                s, d, n, first), data, oop=oop)
                # Right before an unmapped page: masked accesses must not touch it.
                for n in (17, 31, 4095, 4111):
                    iv, data = rng.randbytes(16), rng.randbytes(n)
                    put(iv_buf, iv)
                    ctypes.memmove(ref, data, n)
                    lib.cryptoreg_emu_ref_xts(decrypt, key, klen, iv, ref, n)
                    for oop in (False, True):
                        run_case(f"xts-aes-vaes-{name} {'dec' if decrypt else 'enc'} klen={klen} "
                                 f"len={n} at end of mapping", ref.raw[:n], lambda s, d: emu.call(
                                     fn_xts, num, decrypt, rk_data, rk_tweak, rounds, iv_buf, s,
                                     d, n), data, where=fenced_end, oop=oop)

    # CTR: every driver, three key sizes, every length (encryption = decryption), plus
    # counters that wrap, and the counter state left behind.
    special_ivs = [bytes([0xFF] * 16), bytes(8) + bytes([0xFF] * 7) + b"\xfa",
                   bytes([0xFF] * 15) + b"\xf0"]
    for name, num in (vaes_drivers if "ctr" in suites else []):
        for klen in (16, 24, 32):
            key = rng.randbytes(klen)
            rounds, enc1, _ = expand(key)
            put(rk_data, enc1)
            cases = [(n, rng.randbytes(16)) for n in lengths + [1, 15]]
            cases += [(n, iv) for iv in special_ivs for n in (16, 100, 257, 1040)]
            for direction in ("enc", "dec"):
                for n, iv in cases:
                    if skip(name, n):
                        continue
                    data = rng.randbytes(n)
                    put(iv_buf, iv)
                    ctypes.memmove(ref, data, n)
                    assert lib.cryptoreg_emu_ref_ctr(key, klen, iv, ref, n, ref_ctr) == 0
                    want, want_ctr = ref.raw[:n], ref_ctr.raw[:16]
                    label = f"ctr-aes-vaes-{name} {direction} klen={klen} len={n} iv={iv.hex()}"
                    for oop in (False, True):
                        if run_case(label, want, lambda s, d: emu.call(
                                fn_ctr, num, rk_data, rounds, iv_buf, s, d, n, ctr_out), data,
                                oop=oop):
                            got_ctr = ctypes.string_at(ctr_out, 16)
                            if got_ctr != want_ctr:
                                passed -= 1
                                failed += 1
                                failures.append(f"FAIL {label} oop={oop}: counter state "
                                                f"{got_ctr.hex()} != {want_ctr.hex()}")
                                print(failures[-1], flush=True)
            for n in (1, 15, 63, 4095):
                data = rng.randbytes(n)
                iv = rng.randbytes(16)
                put(iv_buf, iv)
                ctypes.memmove(ref, data, n)
                lib.cryptoreg_emu_ref_ctr(key, klen, iv, ref, n, ref_ctr)
                for oop in (False, True):
                    run_case(f"ctr-aes-vaes-{name} klen={klen} len={n} at end of mapping",
                             ref.raw[:n], lambda s, d: emu.call(
                                 fn_ctr, num, rk_data, rounds, iv_buf, s, d, n, ctr_out),
                             data, where=fenced_end, oop=oop)

    def extra_check(label, got, want):
        """A second output of a case that passed (a tag, a counter): a mismatch turns it
        into a failure."""
        nonlocal passed, failed
        if got != want:
            passed -= 1
            failed += 1
            failures.append(f"FAIL {label}: {got.hex()} != {want.hex()}")
            print(failures[-1], flush=True)

    def record(label, ok, why):
        nonlocal passed, failed
        driver = label.split()[0]
        per_driver[driver] = per_driver.get(driver, 0) + 1
        if ok:
            passed += 1
        else:
            failed += 1
            failures.append(f"FAIL {label}: {why}")
            print(failures[-1], flush=True)

    def gcm_powers(key, num):
        """H natively over aes-generic; the power table of driver `num` into `powers_buf`:
        under emulation for the VAES drivers (their own preparation), natively for the SSE
        ones (portable code). Returns H."""
        h = ctypes.create_string_buffer(16)
        assert lib.cryptoreg_emu_ref_gcm_h(key, len(key), h) == 0
        put(h_buf, h.raw[:16])
        if num == SSE:
            lib.cryptoreg_emu_clmul_powers(h, powers_buf)
        else:
            emu.call(fn_powers, h_buf, powers_buf)
        return h.raw[:16]

    def gcm_driver(name):
        return "gcm-aes-aesni" if name == "aesni" else f"gcm-aes-vaes-{name}"

    # GCM: every driver, three key sizes, both directions, fused and streaming entries.
    ref_tag = ctypes.create_string_buffer(16)
    aad_native = ctypes.create_string_buffer(MAX_AAD + 16)
    for name, num in (drivers if "gcm" in suites else []):
        for klen in (16, 24, 32):
            key = rng.randbytes(klen)
            rounds, enc1, _ = expand(key)
            put(rk_data, enc1)
            try:
                gcm_powers(key, num)
            except GuestError as e:
                record(f"{gcm_driver(name)} klen={klen} power table", False, str(e))
                continue
            # Bit 0: open (else seal). Bit 1, VAES drivers only: the loop in the form the
            # drivers run on Intel CPUs (GcmTuning::Intel: schoolbook GHASH, and from 8
            # groups on decryption hashing ciphertext held in registers); without it the
            # form they run elsewhere (Karatsuba GHASH on avx2 and on avx10_512 decrypting
            # 2 KiB or more, each group's own ciphertext hashed from memory).
            for decrypt in ((0, 1) if num == SSE else (0, 1, 2, 3)):
                direction = ("seal", "open", "seal Intel form", "open Intel form")[decrypt]
                if num != SSE and decrypt < 2:
                    direction += " other form"
                for i, n in enumerate(GCM_LENGTHS + [rng.randrange(1, MAX_LEN)
                                                     for _ in range(opts.random_lengths)]):
                    alen = AAD_LENGTHS[(i + klen + decrypt) % len(AAD_LENGTHS)]
                    if skip(name, n):
                        continue
                    aad, nonce, pt = rng.randbytes(alen), rng.randbytes(12), rng.randbytes(n)
                    ctypes.memmove(aad_native, aad, alen)
                    ctypes.memmove(ref, pt, n)
                    assert lib.cryptoreg_emu_ref_gcm(0, key, klen, nonce, aad_native, alen, ref,
                                                     n, ref_tag) == 0
                    ct, tag = ref.raw[:n], ref_tag.raw[:16]
                    data, want = (ct, pt) if decrypt & 1 else (pt, ct)
                    put(aad_buf, aad)
                    put(j0_buf, nonce + b"\0\0\0\1")
                    label = f"{gcm_driver(name)} {direction} klen={klen} alen={alen} len={n}"
                    for oop in (False, True):
                        if run_case(label, want, lambda s, d: emu.call(
                                fn_gcm, num, decrypt, rk_data, rounds, powers_buf, j0_buf,
                                aad_buf, alen, s, d, n, tag_buf), data, oop=oop):
                            extra_check(label + f" oop={oop} tag", ctypes.string_at(tag_buf, 16),
                                        tag)
                    first = 16 * rng.randrange(0, n // 16 + 1)
                    aad_first = 16 * rng.randrange(0, alen // 16 + 1)
                    split = label + f" streaming aad@{aad_first} text@{first}"
                    for oop in (False, True):
                        if run_case(split, want, lambda s, d: emu.call(
                                fn_gcm_split, num, decrypt, rk_data, rounds, powers_buf, j0_buf,
                                aad_buf, alen, aad_first, s, d, n, first, tag_buf), data,
                                oop=oop):
                            extra_check(split + f" oop={oop} tag", ctypes.string_at(tag_buf, 16),
                                        tag)
                # Right before an unmapped page: masked accesses must not touch it.
                for n in (1, 15, 33, 4095):
                    nonce, pt = rng.randbytes(12), rng.randbytes(n)
                    ctypes.memmove(ref, pt, n)
                    lib.cryptoreg_emu_ref_gcm(0, key, klen, nonce, aad_native, 0, ref, n, ref_tag)
                    ct, tag = ref.raw[:n], ref_tag.raw[:16]
                    data, want = (ct, pt) if decrypt & 1 else (pt, ct)
                    put(j0_buf, nonce + b"\0\0\0\1")
                    label = (f"{gcm_driver(name)} {direction} klen={klen} len={n} "
                             "at end of mapping")
                    for oop in (False, True):
                        if run_case(label, want, lambda s, d: emu.call(
                                fn_gcm, num, decrypt, rk_data, rounds, powers_buf, j0_buf,
                                aad_buf, 0, s, d, n, tag_buf), data, where=fenced_end,
                                oop=oop):
                            extra_check(label + " tag", ctypes.string_at(tag_buf, 16), tag)

    # GHASH: every driver (0 = avx2, 1 = avx10_256 EVEX ymm, 2 = avx512), a few keys, into a
    # random accumulator. Length 0 is left out: it touches no vector width, so it would pass
    # the negative control (the native unit tests cover it).
    ghash_lengths = [1, 15, 16, 17, 31, 32, 33, 64, 255, 256, 257, 511, 512, 513, 4095, 4096,
                     4111]
    acc_native = ctypes.create_string_buffer(16)
    for name, num in (drivers if "ghash" in suites else []):
        gname = {"avx2": "vpclmulqdq-avx2", "avx10_256": "vpclmulqdq-avx10_256",
                 "avx10_512": "vpclmulqdq-avx512", "aesni": "clmulni"}[name]
        for trial in range(3):
            key = rng.randbytes(16)
            try:
                h = gcm_powers(key, num)
            except GuestError as e:
                record(f"ghash-{gname} power table", False, str(e))
                continue
            for n in ghash_lengths + [rng.randrange(1, MAX_LEN) for _ in range(2)]:
                if skip(name, n):
                    continue
                if num == SSE:
                    n -= n % 16  # its entry's contract: whole blocks
                    if n == 0:
                        continue
                for at_end in (False, True):
                    acc0, data = rng.randbytes(16), rng.randbytes(n)
                    ctypes.memmove(acc_native, acc0, 16)
                    ctypes.memmove(ref, data, n)
                    lib.cryptoreg_emu_ref_ghash(h, acc_native, ref, n)
                    want = acc_native.raw[:16]
                    ptr = fenced_end - n if at_end else work + GUARD + rng.randrange(16)
                    put(ptr, data)
                    put(acc_buf, acc0)
                    label = f"ghash-{gname} trial={trial} len={n}" + (
                        " at end of mapping" if at_end else "")
                    try:
                        emu.call(fn_ghash, num, powers_buf, acc_buf, ptr, n)
                        got = ctypes.string_at(acc_buf, 16)
                        ok = got == want and ctypes.string_at(ptr, n) == data
                        why = "" if ok else f"accumulator {got.hex()} != {want.hex()}"
                    except GuestError as e:
                        ok, why = False, str(e)
                    record(label, ok, why)

    # Self-check of the comparison: a wrong expectation must be reported as a failure.
    compared = passed + failed
    saved = (passed, failed, list(failures))
    key = rng.randbytes(16)
    rounds, enc1, _ = expand(key)
    put(rk_data, enc1)
    put(iv_buf, bytes(16))
    data = bytes(100)
    ctypes.memmove(ref, data, 100)
    lib.cryptoreg_emu_ref_ctr(key, 16, bytes(16), ref, 100, ref_ctr)
    wrong = bytearray(ref.raw[:100])
    wrong[50] ^= 1
    noticed = not run_case("self-check", bytes(wrong), lambda s, d: emu.call(
        fn_ctr, 0, rk_data, rounds, iv_buf, s, d, 100, ctr_out), data,
        quiet=True)
    passed, failed, failures = saved
    per_driver.pop("self-check", None)
    if not noticed:
        failed += 1
        print("FAIL self-check: a corrupted expectation was not noticed")

    elapsed = time.perf_counter() - started
    print(f"emu: model {opts.model}, {compared} cases compared "
          f"({', '.join(n for n, _ in drivers)}), {elapsed:.1f} s ({emu.seconds:.1f} s in the emulator)")
    for driver in sorted(per_driver):
        print(f"emu:   {driver}: {per_driver[driver]} cases")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


def first_difference(got, want):
    for i, (a, b) in enumerate(zip(got, want)):
        if a != b:
            return f"first difference at byte {i}: got {a:#04x}, want {b:#04x}"
    return f"lengths differ: {len(got)} vs {len(want)}"


if __name__ == "__main__":
    sys.exit(main())
