#!/usr/bin/env python3
"""Cross-checks the ChaCha20 / Poly1305 vector files of this folder.

A development aid, not part of the build (the sibling of check_vectors.py, which does
the AES files). Every vector is recomputed independently of the Rust code:

- chacha20: OpenSSL's ChaCha20 through Python's `cryptography` (its 16-byte nonce is the
  kernel's IV layout: 32-bit little-endian counter, then the 96-bit nonce), both ways;
- xchacha20: a pure-Python HChaCha20 written here (draft-irtf-cfrg-xchacha-03 2.2), then
  OpenSSL's ChaCha20 with the kernel's inner IV (IV[24..32] || IV[16..24]);
- poly1305: a pure-Python Poly1305 written here (RFC 8439 2.5, Python integers);
- rfc7539 / rfc7539esp / xchacha20poly1305: OpenSSL's ChaCha20-Poly1305 (nonce = salt ||
  IV for ESP; HChaCha20 subkey and 0^4 || nonce[16..24] for XChaCha); `fail` records must
  be refused. The pure-Python MAC over the RFC 8439 2.8 layout is checked against it too.

Run it after editing a vector file (needs `cryptography`, v42 or later):

    python3 selftest/vectors/check_chacha_vectors.py

It prints one line per vector and exits non-zero if any check fails.
"""

import pathlib
import struct
import sys
import tomllib

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

HERE = pathlib.Path(__file__).resolve().parent


def unhex(s):
    return bytes.fromhex("".join(s.split()))


def chacha20(key, iv16, data):
    op = Cipher(algorithms.ChaCha20(key, iv16), mode=None).encryptor()
    return op.update(data) + op.finalize()


def rotl(v, n):
    return ((v << n) & 0xFFFFFFFF) | (v >> (32 - n))


def hchacha20(key, nonce16):
    s = list(struct.unpack("<4I", b"expand 32-byte k"))
    s += list(struct.unpack("<8I", key)) + list(struct.unpack("<4I", nonce16))

    def qr(a, b, c, d):
        s[a] = (s[a] + s[b]) & 0xFFFFFFFF; s[d] = rotl(s[d] ^ s[a], 16)
        s[c] = (s[c] + s[d]) & 0xFFFFFFFF; s[b] = rotl(s[b] ^ s[c], 12)
        s[a] = (s[a] + s[b]) & 0xFFFFFFFF; s[d] = rotl(s[d] ^ s[a], 8)
        s[c] = (s[c] + s[d]) & 0xFFFFFFFF; s[b] = rotl(s[b] ^ s[c], 7)

    for _ in range(10):
        qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15)
        qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14)
    return struct.pack("<8I", *(s[0:4] + s[12:16]))


def poly1305(key, msg):
    r = int.from_bytes(key[:16], "little") & 0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF
    s = int.from_bytes(key[16:], "little")
    p = (1 << 130) - 5
    acc = 0
    for i in range(0, len(msg), 16):
        block = msg[i : i + 16] + b"\x01"
        acc = (acc + int.from_bytes(block, "little")) * r % p
    return ((acc + s) & ((1 << 128) - 1)).to_bytes(16, "little")


def pad16(b):
    return b"\x00" * (-len(b) % 16)


def aead_mac(key, nonce12, aad, ct):
    otk = chacha20(key, b"\x00" * 4 + nonce12, b"\x00" * 32)
    data = aad + pad16(aad) + ct + pad16(ct) + struct.pack("<QQ", len(aad), len(ct))
    return poly1305(otk, data)


def load(name):
    return tomllib.loads((HERE / name).read_text())


failures = 0


def report(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures += 1


def check_chacha20():
    for v in load("chacha20.toml")["vector"]:
        k, iv, pt, ct = (unhex(v[f]) for f in ("key", "iv", "plaintext", "ciphertext"))
        ok = chacha20(k, iv, pt) == ct and chacha20(k, iv, ct) == pt and len(iv) == 16
        report(ok, f"chacha20: {v['source']}")


def check_xchacha20():
    for v in load("xchacha20.toml")["vector"]:
        k, iv, pt, ct = (unhex(v[f]) for f in ("key", "iv", "plaintext", "ciphertext"))
        sub = hchacha20(k, iv[:16])
        ok = len(iv) == 32 and chacha20(sub, iv[24:32] + iv[16:24], pt) == ct
        report(ok, f"xchacha20: {v['source']}")


def check_hchacha20_vector():
    # draft-irtf-cfrg-xchacha-03 2.2.1 (the Rust unit test has the same vector).
    got = hchacha20(bytes(range(32)), unhex("000000090000004a0000000031415927"))
    want = unhex("82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc")
    report(got == want, "hchacha20: draft-irtf-cfrg-xchacha-03 2.2.1 (the Python HChaCha20)")


def check_poly1305():
    for v in load("poly1305.toml")["vector"]:
        k, m, d = (unhex(v[f]) for f in ("key", "message", "digest"))
        report(poly1305(k, m) == d, f"poly1305: {v['source']}")


def check_aead(file, nonce12_of, key_of):
    doc = load(file)
    for v in doc["vector"]:
        key, nonce, aad, ct, tag = (unhex(v.get(f, "")) for f in ("key", "nonce", "aad", "ciphertext", "tag"))
        pt = unhex(v.get("plaintext", ""))
        k, n12 = key_of(key, nonce), nonce12_of(key, nonce)
        c = ChaCha20Poly1305(k)
        if v.get("fail", False):
            try:
                c.decrypt(n12, ct + tag, aad)
                ok = False
            except InvalidTag:
                ok = True
        else:
            ok = c.encrypt(n12, pt, aad) == ct + tag and aead_mac(k, n12, aad, ct) == tag
        report(ok, f"{doc['algorithm']}: {v['source']}")


def main():
    check_chacha20()
    check_hchacha20_vector()
    check_xchacha20()
    check_poly1305()
    check_aead("rfc7539.toml", lambda k, n: n, lambda k, n: k)
    check_aead("rfc7539esp.toml", lambda k, n: k[32:36] + n, lambda k, n: k[:32])
    check_aead(
        "xchacha20poly1305.toml",
        lambda k, n: b"\x00" * 4 + n[16:24],
        lambda k, n: hchacha20(k, n[:16]),
    )
    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
