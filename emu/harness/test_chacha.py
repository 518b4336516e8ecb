"""Runs the ChaCha20 SIMD entries of cryptoreg (chacha20-ssse3, -avx2, -avx512vl,
-avx512f, and the ChaCha20-Poly1305 short path's keyed entries, keyed-avx2 and
keyed-avx512f, up to their longest request) under the Bochs emulator and compares every
output byte with the native reference (the portable scalar core of chacha20-generic,
exported from the same library and run natively).

    python test_chacha.py path/to/libcryptoreg_emu.so [--model tigerlake] [--seed N]
        [--drivers ssse3,avx2,avx512vl,avx512f]

Cases: every driver, lengths 1..=1089 around each kernel switch (1, 2, 4, 8, 16 blocks and
their halves) plus random ones up to 8 KiB, at varying misalignments, random keys, nonces
and counters (also the last counters before 2^32); 64 guard bytes before and after each
buffer must come back untouched. Every case runs in place (source = destination) and out
of place (a separate, differently misaligned source that must come back unchanged, and a
destination pre-filled with junk). Also: a request split into two entry calls at a block
boundary, the counter advanced in between (the walker's chunk calls), buffers that end
right before an unmapped page (masked loads and stores must not touch it), and a
self-check that a corrupted byte is noticed.

Prints one line per failure and ends with `N passed, M failed`; exits 1 on any failure.
"""
import argparse
import ctypes
import os
import random
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostmap import GuestError, HostMappedGuest  # noqa: E402

DRIVERS = {"ssse3": 0, "avx2": 1, "avx512vl": 2, "avx512f": 3,
           "keyed-avx2": 4, "keyed-avx512f": 5}
# The keyed entries (the ChaCha20-Poly1305 short path's: key block, then the text) take
# at most this many bytes, key block included (`KEYED_MAX_TEXT_*` plus 64: `emu/src/lib.rs`,
# `keyed`); their cases are the lengths below up to that.
LONGEST = {"keyed-avx2": 64 * 8, "keyed-avx512f": 64 * 12}
# Kernel switches: 1, 2, 4, 8, 16 blocks (and half of each) on either side. No empty
# request: it executes no vector instruction, so it would pass the negative control (the
# unit tests cover it natively).
EDGES = sorted({64 * b + d for b in (0, 1, 2, 3, 4, 5, 8, 9, 12, 16, 17)
                for d in (-1, 0, 1)} - {-1, 0} | {15, 16, 17, 100, 255, 257, 511, 513})
GUARD = 64
MAX_LEN = 8192
GUARD_BYTE = 0xA5
CONSTANTS = (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574)


def state_bytes(key_words, counter, nonce_words):
    return struct.pack("<16I", *CONSTANTS, *key_words, counter & 0xFFFFFFFF, *nonce_words)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("library")
    ap.add_argument("--model", default="tigerlake")
    ap.add_argument("--seed", type=int, default=0xC4AC4A)
    ap.add_argument("--random-lengths", type=int, default=24)
    ap.add_argument("--drivers", default=",".join(DRIVERS),
                    help="comma-separated subset of: " + ", ".join(DRIVERS))
    opts = ap.parse_args()

    path = os.path.realpath(opts.library)
    lib = ctypes.CDLL(path)
    emu = HostMappedGuest(opts.model)
    emu.map_library(path)

    fn = ctypes.cast(lib.cryptoreg_emu_chacha20, ctypes.c_void_p).value
    vp, sz = ctypes.c_void_p, ctypes.c_size_t
    lib.cryptoreg_emu_ref_chacha20.argtypes = [vp, vp, sz]
    lib.cryptoreg_emu_ref_chacha20.restype = None

    state_buf, state2_buf = emu.alloc(64), emu.alloc(64)
    work = emu.alloc(MAX_LEN + 2 * GUARD + 64)
    work_src = emu.alloc(MAX_LEN + 2 * GUARD + 64)
    fenced = emu.alloc(MAX_LEN, fence_after=True)  # ends right before an unmapped page
    fenced_end = fenced + ((MAX_LEN + 0xFFF) & ~0xFFF)
    fenced_src = emu.alloc(MAX_LEN, fence_after=True)
    fenced_src_end = fenced_src + ((MAX_LEN + 0xFFF) & ~0xFFF)
    emu.commit()

    ref = ctypes.create_string_buffer(MAX_LEN + 64)
    ref_state = ctypes.create_string_buffer(64)
    rng = random.Random(opts.seed)
    lengths = EDGES + sorted(rng.randrange(1, MAX_LEN) for _ in range(opts.random_lengths))
    passed = failed = 0
    failures = []
    per_driver = {}

    def put(address, data):
        ctypes.memmove(address, data, len(data))

    def reference(state, data):
        ctypes.memmove(ref_state, state, 64)
        ctypes.memmove(ref, data, len(data))
        lib.cryptoreg_emu_ref_chacha20(ref_state, ref, len(data))
        return ref.raw[:len(data)]

    def run_case(label, expected, call, data, where=None, quiet=False, oop=False):
        """Places `data` (with guards) in guest memory, runs `call(src, dst)`, compares
        the destination and the guards with `expected`; out of place the source must come
        back unchanged. Returns True when equal."""
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

    def random_state(n):
        key = [rng.getrandbits(32) for _ in range(8)]
        nonce = [rng.getrandbits(32) for _ in range(3)]
        blocks = (n + 63) // 64
        counter = rng.choice([rng.getrandbits(32) % ((1 << 32) - blocks + 1),
                              (1 << 32) - blocks, 0, 1])
        return key, counter, nonce

    started = time.perf_counter()
    drivers = [(name, DRIVERS[name]) for name in opts.drivers.split(",")]
    for name, num in drivers:
        label0 = f"chacha20-{name}"
        longest = LONGEST.get(name, MAX_LEN)
        for n in (n for n in lengths if n <= longest):
            key, counter, nonce = random_state(n)
            st = state_bytes(key, counter, nonce)
            data = rng.randbytes(n)
            want = reference(st, data)
            put(state_buf, st)
            label = f"{label0} len={n} counter={counter:#x}"
            for oop in (False, True):
                run_case(label, want, lambda s, d: emu.call(fn, num, state_buf, s, d, n),
                         data, oop=oop)
            # Two entry calls split at a block boundary, the counter advanced in between.
            if n > 64:
                first = 64 * rng.randrange(1, (n - 1) // 64 + 1)
                put(state2_buf, state_bytes(key, counter + first // 64, nonce))

                def split(s, d, first=first, n=n):
                    emu.call(fn, num, state_buf, s, d, first)
                    emu.call(fn, num, state2_buf, s + first, d + first, n - first)
                for oop in (False, True):
                    run_case(label + f" split@{first}", want, split, data, oop=oop)
        # Right before an unmapped page: masked / piecewise tails must not touch it.
        for n in (n for n in (1, 15, 63, 100, 200, 500, 1000, 1100, 4095) if n <= longest):
            key, counter, nonce = random_state(n)
            st = state_bytes(key, counter, nonce)
            data = rng.randbytes(n)
            want = reference(st, data)
            put(state_buf, st)
            for oop in (False, True):
                run_case(f"{label0} len={n} at end of mapping", want,
                         lambda s, d: emu.call(fn, num, state_buf, s, d, n),
                         data, where=fenced_end, oop=oop)

    # Self-check of the comparison: a wrong expectation must be reported as a failure.
    compared = passed + failed
    saved = (passed, failed, list(failures))
    st = state_bytes([1] * 8, 0, [2] * 3)
    data = bytes(100)
    wrong = bytearray(reference(st, data))
    wrong[50] ^= 1
    put(state_buf, st)
    noticed = not run_case("self-check", bytes(wrong), lambda s, d: emu.call(
        fn, drivers[0][1], state_buf, s, d, 100), data, quiet=True)
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
