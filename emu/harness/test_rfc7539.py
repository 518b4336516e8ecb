"""Runs the fused ChaCha20-Poly1305 entries of cryptoreg (rfc7539-chacha20-poly1305-avx2,
-avx512 and -avx512ifma) under the Bochs emulator and compares ciphertext, decrypted text
and tag with the native reference (portable ChaCha20 + poly1305-generic) from the same library.

    python test_rfc7539.py path/to/libcryptoreg_emu.so [--model sapphire_rapids]
        [--seed N] [--drivers avx2,avx512,avx512ifma]

Cases: every driver, AAD lengths 0..300 and text lengths 0..6144 around the 16-byte,
64-byte, chunk (512 / 1024 bytes), vector-threshold (256 bytes) and first-full-queue (2048,
3008, 3072 bytes on zmm) boundaries plus random ones below 5000, encryption and
decryption, in place and out of place (the source must come back unchanged), with and
without the powers of r (the one-shot calls pass none unless the AAD is long: a long
text's entry then computes them, during its first batch when encrypting);
and, for texts at least as long as its first batch, the whole-seal entry (`rfc7539_seal_*`:
the one-time key from that first batch, `r` and `s` it writes checked through the tag), and
for a first batch and a tail shorter than a batch the whole-open entry (`rfc7539_open_*`).
A driver given as `name@N` gets only requests of at least N text bytes (the negative
control under a model without AVX-512). A self-check proves a corrupted expectation is
noticed.

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
# The shortest text of each driver's whole-seal entry (its first batch: 7 or 15 blocks).
SEAL_MIN = {"avx2": 448, "avx512": 960, "avx512ifma": 960}
# The text lengths of each driver's whole-open entry: a first batch and a tail.
OPEN_LENS = {"avx2": range(448, 960), "avx512": range(960, 1984), "avx512ifma": range(960, 1984)}
# The last four: a whole zmm batch, then a tail on each kernel the stitched tail can take
# (zmm vertical, ymm vertical, horizontal), and three batches with a zmm vertical tail.
TEXT = [0, 1, 15, 16, 17, 63, 64, 65, 255, 256, 257, 511, 512, 513, 1023, 1024, 1025,
        1536, 2048, 2049, 4100, 1624, 1324, 1124, 3772,
        # Around the whole-seal entries' first batch, and one batch after it.
        447, 448, 449, 959, 960, 961, 1420, 1983, 1984, 1985,
        # Where an open (2048), a whole seal (3008) and a streaming seal (3072) first queue
        # a full zmm batch of ciphertext before a full batch; two in a row (6144).
        2047, 3007, 3008, 3009, 3071, 3072, 3073, 6144]
AAD = [0, 1, 16, 255, 256, 300]
MAX_LEN = 8192


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("library")
    ap.add_argument("--model", default="sapphire_rapids")
    ap.add_argument("--seed", type=int, default=0x7539)
    ap.add_argument("--random-lengths", type=int, default=8)
    ap.add_argument("--drivers", default=",".join(DRIVERS))
    opts = ap.parse_args()

    path = os.path.realpath(opts.library)
    lib = ctypes.CDLL(path)
    emu = HostMappedGuest(opts.model)
    emu.map_library(path)

    vp, sz = ctypes.c_void_p, ctypes.c_size_t
    fn = ctypes.cast(lib.cryptoreg_emu_rfc7539, ctypes.c_void_p).value
    whole_fn = ctypes.cast(lib.cryptoreg_emu_rfc7539_whole, ctypes.c_void_p).value
    lib.cryptoreg_emu_rfc7539_setup.argtypes = [vp] * 6
    lib.cryptoreg_emu_rfc7539_finish.argtypes = [vp, vp, vp, sz, sz, vp]
    lib.cryptoreg_emu_ref_rfc7539.argtypes = [vp, vp, vp, sz, vp, sz, vp]

    state, rbuf, powbuf, sbuf, hbuf = (emu.alloc(64), emu.alloc(64), emu.alloc(512),
                                       emu.alloc(64), emu.alloc(64))
    aad_buf = emu.alloc(1024)
    work = emu.alloc(MAX_LEN + 64)
    work_src = emu.alloc(MAX_LEN + 64)
    emu.commit()

    ref = ctypes.create_string_buffer(MAX_LEN + 64)
    ref_tag = ctypes.create_string_buffer(16)
    tag_buf = ctypes.create_string_buffer(16)
    rng = random.Random(opts.seed)
    drivers = []
    for spec in opts.drivers.split(","):
        name, _, min_len = spec.partition("@")
        drivers.append((name, DRIVERS[name], int(min_len or 0)))
    cases = [(a, t) for t in TEXT for a in AAD]
    cases += [(rng.randrange(0, 600), rng.randrange(0, 5000)) for _ in range(opts.random_lengths)]
    passed = failed = 0
    per_driver = {}

    def request(key, nonce, aad, data, oop, call):
        """Sets one request up (setup, AAD, source and destination at random offsets),
        runs `call(src, dst, n)` under emulation and returns (output bytes, tag)."""
        lib.cryptoreg_emu_rfc7539_setup(key, nonce, state, rbuf, powbuf, sbuf)
        ctypes.memset(hbuf, 0, 24)
        ctypes.memmove(aad_buf, aad, len(aad))
        n = len(data)
        dst = work + rng.randrange(16)
        src = work_src + rng.randrange(16) if oop else dst
        ctypes.memmove(src, data, n)
        if oop:
            ctypes.memmove(dst, bytes((i * 7 + 1) & 0xFF for i in range(n)), n)
        call(src, dst, n)
        if oop and ctypes.string_at(src, n) != data:
            raise GuestError("the source buffer changed")
        lib.cryptoreg_emu_rfc7539_finish(rbuf, sbuf, hbuf, len(aad), n, tag_buf)
        return ctypes.string_at(dst, n), tag_buf.raw[:16]

    def run(num, decrypt, key, nonce, aad, data, with_pow, oop):
        """Runs one request through the AAD and text entries; returns (output, tag)."""
        return request(key, nonce, aad, data, oop, lambda src, dst, n: emu.call(
            fn, num, decrypt, state, rbuf, powbuf if with_pow else 0, hbuf, aad_buf,
            len(aad), src, dst, n))

    def run_whole(num, decrypt, key, nonce, aad, data, oop):
        """The whole-seal (or whole-open) entry; returns (output, tag)."""
        def call(src, dst, n):
            # The entry must write r, s and h itself: spoil what setup wrote.
            ctypes.memset(rbuf, 0, 24)
            ctypes.memset(sbuf, 0, 16)
            ctypes.memset(hbuf, 0xA5, 24)
            rc = emu.call(whole_fn, num, decrypt, state, rbuf, sbuf, hbuf, aad_buf, len(aad),
                          src, dst, n) & 0xFFFF_FFFF
            if rc != 0:
                raise GuestError(f"the whole-request entry refused {n} bytes (returned {rc})")
        return request(key, nonce, aad, data, oop, call)

    def check(label, got, want, quiet=False):
        nonlocal passed, failed
        if got == want:
            passed += 1
            return True
        failed += 1
        if not quiet:
            print(f"FAIL {label}", flush=True)
        return False

    started = time.perf_counter()
    for name, num, min_len in drivers:
        for alen, tlen in cases:
            if tlen < min_len:
                continue
            key, nonce = rng.randbytes(32), rng.randbytes(12)
            aad, pt = rng.randbytes(alen), rng.randbytes(tlen)
            ctypes.memmove(ref, pt, tlen)
            lib.cryptoreg_emu_ref_rfc7539(key, nonce, aad, alen, ref, tlen, ref_tag)
            ct, want_tag = ref.raw[:tlen], ref_tag.raw[:16]
            # Without the powers, a long text's entry computes them itself (the one-shot
            # calls pass none unless the AAD is long): both ways on every length.
            for with_pow, oop in [(p, o) for p in (False, True) for o in (False, True)
                                  if p or alen < 256]:
                label = f"rfc7539-chacha20-poly1305-{name} alen={alen} tlen={tlen} pow={with_pow} oop={oop}"
                per_driver[name] = per_driver.get(name, 0) + 2
                try:
                    got, tag = run(num, 0, key, nonce, aad, pt, with_pow, oop)
                    check(label + " enc", (got, tag), (ct, want_tag))
                    got, tag = run(num, 1, key, nonce, aad, ct, with_pow, oop)
                    check(label + " dec", (got, tag), (pt, want_tag))
                except GuestError as e:
                    failed += 2
                    print(f"FAIL {label}: {e}", flush=True)
            for decrypt, wanted in ((0, tlen >= SEAL_MIN[name]), (1, tlen in OPEN_LENS[name])):
                if not wanted:
                    continue
                data, want = (ct, pt) if decrypt else (pt, ct)
                for oop in (False, True):
                    label = (f"rfc7539-chacha20-poly1305-{name} alen={alen} tlen={tlen} oop={oop} "
                             f"whole {'open' if decrypt else 'seal'}")
                    per_driver[name] = per_driver.get(name, 0) + 1
                    try:
                        check(label, run_whole(num, decrypt, key, nonce, aad, data, oop),
                              (want, want_tag))
                    except GuestError as e:
                        failed += 1
                        print(f"FAIL {label}: {e}", flush=True)

    compared = passed + failed
    saved = (passed, failed)
    key, nonce, aad, pt = rng.randbytes(32), rng.randbytes(12), b"", rng.randbytes(300)
    ctypes.memmove(ref, pt, 300)
    lib.cryptoreg_emu_ref_rfc7539(key, nonce, aad, 0, ref, 300, ref_tag)
    wrong = bytearray(ref_tag.raw[:16])
    wrong[3] ^= 1
    try:
        got = run(drivers[0][1], 0, key, nonce, aad, pt, True, False)
        noticed = not check("self-check", got, (ref.raw[:300], bytes(wrong)), quiet=True)
    except GuestError:
        noticed = True
    passed, failed = saved
    if not noticed:
        failed += 1
        print("FAIL self-check: a corrupted expectation was not noticed")

    elapsed = time.perf_counter() - started
    print(f"emu: model {opts.model}, {compared} rfc7539 cases compared "
          f"({', '.join(n for n, _, _ in drivers)}), {elapsed:.1f} s ({emu.seconds:.1f} s in the emulator)")
    for driver in sorted(per_driver):
        print(f"emu:   rfc7539-chacha20-poly1305-{driver}: {per_driver[driver]} cases")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
