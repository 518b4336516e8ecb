"""Runs the Poly1305 SIMD entries of cryptoreg (poly1305-avx2, -avx512, -avx512ifma) under
the Bochs emulator and compares every tag with the native reference exported from the
same library.

    python test_poly1305.py path/to/libcryptoreg_emu.so [--model sapphire_rapids]
        [--seed N] [--drivers avx2,avx512,avx512ifma] (a driver as name@N: see below)

Cases: every driver, random keys and carry-heavy ones (all-ones r and s, all-ones and
all-zero messages), lengths 0..300 around every vector boundary plus larger and random
ones, at varying misalignments, and messages that end right before an unmapped page (the
entries must not read past the message). The emulated export runs the entry on every
whole block whatever the length (no scalar shortcut), so short messages exercise the
vector steps' remainder handling too. A self-check proves a corrupted expectation is
noticed.

A driver given as `name@N` gets only messages of at least N whole blocks (the negative
control under a model without AVX-512: shorter messages never reach a vector instruction).

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

DRIVERS = {"avx2": 0, "avx512": 1, "avx512ifma": 2}
LENGTHS = sorted(set(list(range(0, 40)) + [47, 48, 49, 63, 64, 65, 111, 112, 127, 128, 129,
                                            143, 144, 191, 192, 255, 256, 257, 271, 272, 300,
                                            383, 384, 511, 512, 513, 1000, 1024, 2047, 4096,
                                            4111]))
MAX_LEN = 8192


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("library")
    ap.add_argument("--model", default="sapphire_rapids")
    ap.add_argument("--seed", type=int, default=0x1305)
    ap.add_argument("--random-lengths", type=int, default=6)
    ap.add_argument("--drivers", default=",".join(DRIVERS),
                    help="comma-separated subset of: " + ", ".join(DRIVERS))
    opts = ap.parse_args()

    path = os.path.realpath(opts.library)
    lib = ctypes.CDLL(path)
    emu = HostMappedGuest(opts.model)
    emu.map_library(path)

    vp, sz = ctypes.c_void_p, ctypes.c_size_t
    fn_poly = ctypes.cast(lib.cryptoreg_emu_poly1305, ctypes.c_void_p).value
    lib.cryptoreg_emu_poly1305_key_size.restype = sz
    lib.cryptoreg_emu_poly1305_expand.argtypes = [vp, vp]
    lib.cryptoreg_emu_ref_poly1305.argtypes = [vp, vp, sz, vp]
    lib.cryptoreg_emu_poly1305_finish.argtypes = [vp, vp, vp, sz, vp]
    key_size = lib.cryptoreg_emu_poly1305_key_size()

    key_buf = emu.alloc(max(key_size, 64))  # page-aligned, so 8-byte aligned
    h_buf = emu.alloc(64)
    work = emu.alloc(MAX_LEN + 64)
    fenced = emu.alloc(MAX_LEN, fence_after=True)
    fenced_end = fenced + ((MAX_LEN + 0xFFF) & ~0xFFF)
    emu.commit()

    ref_tag = ctypes.create_string_buffer(16)
    tag_buf = ctypes.create_string_buffer(16)
    rng = random.Random(opts.seed)
    lengths = LENGTHS + sorted(rng.randrange(1, MAX_LEN) for _ in range(opts.random_lengths))
    # "name@N": only messages of at least N whole blocks for that driver.
    drivers = []
    for spec in opts.drivers.split(","):
        name, _, min_blocks = spec.partition("@")
        drivers.append((name, DRIVERS[name], 16 * int(min_blocks or 0)))
    passed = failed = 0
    per_driver = {}

    def reference(key, msg):
        lib.cryptoreg_emu_ref_poly1305(key, msg, len(msg), ref_tag)
        return ref_tag.raw[:16]

    def run_case(label, num, key, msg, want, at_end=False, quiet=False):
        nonlocal passed, failed
        lib.cryptoreg_emu_poly1305_expand(key, key_buf)
        n = len(msg)
        ptr = fenced_end - n if at_end else work + rng.randrange(16)
        ctypes.memmove(ptr, msg, n)
        ctypes.memset(h_buf, 0, 24)
        whole = n // 16
        try:
            emu.call(fn_poly, num, key_buf, h_buf, ptr, whole)
            # Padding and the final reduction natively, from the running sum the entry left.
            lib.cryptoreg_emu_poly1305_finish(key_buf, h_buf, ptr + 16 * whole, n - 16 * whole,
                                              tag_buf)
            got = tag_buf.raw[:16]
            ok = got == want
            why = "" if ok else f"tag {got.hex()} != {want.hex()}"
        except GuestError as e:
            ok, why = False, str(e)
        if ok:
            passed += 1
        else:
            failed += 1
            if not quiet:
                print(f"FAIL {label}: {why}", flush=True)
        per_driver[label.split()[0]] = per_driver.get(label.split()[0], 0) + 1
        return ok

    started = time.perf_counter()
    heavy_keys = [bytes([0xFF] * 32), bytes([0xFF] * 16) + bytes(16)]
    for name, num, min_len in drivers:
        for n in (n for n in lengths if n >= min_len):
            key, msg = rng.randbytes(32), rng.randbytes(n)
            run_case(f"poly1305-{name} len={n}", num, key, msg, reference(key, msg))
        for key in heavy_keys:
            for n in (n for n in (16, 128, 256, 272, 1024) if n >= min_len):
                for fill in (0xFF, 0x00):
                    msg = bytes([fill]) * n
                    run_case(f"poly1305-{name} heavy key={key[:1].hex()}.. fill={fill:#x} len={n}",
                             num, key, msg, reference(key, msg))
        for n in (n for n in (15, 16, 129, 4095, 4096) if n >= min_len):
            key, msg = rng.randbytes(32), rng.randbytes(n)
            run_case(f"poly1305-{name} len={n} at end of mapping", num, key, msg,
                     reference(key, msg), at_end=True)

    compared = passed + failed
    saved = (passed, failed)
    key, msg = rng.randbytes(32), rng.randbytes(300)
    wrong = bytearray(reference(key, msg))
    wrong[5] ^= 1
    noticed = not run_case("self-check", drivers[0][1], key, msg, bytes(wrong), quiet=True)
    passed, failed = saved
    per_driver.pop("self-check", None)
    if not noticed:
        failed += 1
        print("FAIL self-check: a corrupted expectation was not noticed")

    elapsed = time.perf_counter() - started
    print(f"emu: model {opts.model}, {compared} poly1305 cases compared "
          f"({', '.join(n for n, _, _ in drivers)}), {elapsed:.1f} s ({emu.seconds:.1f} s in the emulator)")
    for driver in sorted(per_driver):
        print(f"emu:   {driver}: {per_driver[driver]} cases")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
