#!/usr/bin/env python3
"""Cross-checks every known-answer vector in this folder against OpenSSL.

A development aid, not part of the build: the Rust crate embeds the *.toml files with
`include_str!` and its unit tests only check that they parse and are self-consistent.
This script checks that they are *right*: every vector is encrypted and decrypted with
OpenSSL through Python's `cryptography` package (v42 or later; tested with v48), and the
XTS vectors additionally with a small independent XTS implementation written here over
AES-ECB (IEEE 1619-2007 section 5.3, ciphertext stealing included), which is also the
only check possible for IEEE vector 1: its two key halves are equal, which SP 800-38E
forbids, so OpenSSL (like our drivers) refuses that key and the file records the vector
as an expected key rejection.

AEAD files (`kind = "aead"`): gcm(aes) vectors are sealed and opened with OpenSSL's GCM
(the tag compared as the leading `len(tag)` bytes of the full tag, which is what a
truncated GCM tag is), `fail = true` vectors must be refused; rfc4106(gcm(aes)) vectors are
checked the same way after splitting the key into AES key || salt and building the GCM
nonce salt || IV (RFC 4106 section 4), and their AAD must be 8 or 12 bytes (SPI || sequence
number or extended sequence number: the API's layout, without the kernel's repeated IV).

Run it after editing a vector file:

    python3 selftest/vectors/check_vectors.py

It prints one line per vector and exits non-zero if any check fails.
"""

import pathlib
import sys
import tomllib

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

HERE = pathlib.Path(__file__).resolve().parent


def unhex(s):
    return bytes.fromhex("".join(s.split()))


def openssl(mode, key, data, encrypt):
    c = Cipher(algorithms.AES(key), mode)
    op = c.encryptor() if encrypt else c.decryptor()
    return op.update(data) + op.finalize()


def aes_block(key, block, encrypt=True):
    return openssl(modes.ECB(), key, block, encrypt)


def gf_mul_x(t):
    """Multiplies a tweak by x in GF(2^128), little-endian convention of IEEE 1619."""
    n = int.from_bytes(t, "little") << 1
    if n >> 128:
        n = (n & ((1 << 128) - 1)) ^ 0x87
    return n.to_bytes(16, "little")


def xor(a, b):
    return bytes(x ^ y for x, y in zip(a, b))


def xts_reference(key, tweak_in, data, encrypt):
    """XTS-AES per IEEE 1619-2007 5.3.2 / 5.4.2, independent of OpenSSL's XTS code."""
    if len(data) < 16:
        raise ValueError("XTS needs at least one block")
    k1, k2 = key[: len(key) // 2], key[len(key) // 2 :]
    t = aes_block(k2, tweak_in)
    m, r = divmod(len(data), 16)
    blocks = [data[i * 16 : (i + 1) * 16] for i in range(m)]
    tweaks = []
    for _ in range(m + 1):
        tweaks.append(t)
        t = gf_mul_x(t)

    def one(block, tw, enc):
        return xor(aes_block(k1, xor(block, tw), enc), tw)

    out = []
    if r == 0:
        for i, b in enumerate(blocks):
            out.append(one(b, tweaks[i], encrypt))
        return b"".join(out)
    # Ciphertext stealing over the last full block and the partial one.
    for i in range(m - 1):
        out.append(one(blocks[i], tweaks[i], encrypt))
    last_full, partial = blocks[m - 1], data[m * 16 :]
    if encrypt:
        cc = one(last_full, tweaks[m - 1], True)
        pp = partial + cc[r:]
        out.append(one(pp, tweaks[m], True))
        out.append(cc[:r])
    else:
        pp = one(last_full, tweaks[m], False)
        cc = partial + pp[r:]
        out.append(one(cc, tweaks[m - 1], False))
        out.append(pp[:r])
    return b"".join(out)


def ghash_reference(h, msg):
    """GHASH per SP 800-38D Algorithm 1 on Python integers, the last block zero-padded
    (the kernel's ghash-generic semantics: no length block)."""
    r = 0xE1 << 120
    hh = int.from_bytes(h, "big")
    y = 0
    for i in range(0, len(msg), 16):
        x = y ^ int.from_bytes(msg[i : i + 16].ljust(16, b"\0"), "big")
        z, v = 0, hh
        for bit in range(127, -1, -1):
            if (x >> bit) & 1:
                z ^= v
            v = (v >> 1) ^ r if v & 1 else v >> 1
        y = z
    return y.to_bytes(16, "big")


def check_hash_vector(alg, v):
    key = unhex(v.get("key", ""))
    msg = unhex(v["message"])
    digest = unhex(v["digest"])
    if alg != "ghash":
        return [f"no checker for hash algorithm {alg!r}"]
    got = ghash_reference(key, msg)
    return [] if got == digest else [f"ghash: got {got.hex()} want {digest.hex()}"]


def check_vector(alg, v):
    key = unhex(v["key"])
    iv = unhex(v.get("iv", ""))
    pt = unhex(v["plaintext"])
    ct = unhex(v["ciphertext"])
    expect = v.get("expect", "ok")
    problems = []

    def same(what, got, want):
        if got != want:
            problems.append(f"{what}: got {got.hex()} want {want.hex()}")

    if len(pt) != len(ct):
        problems.append("plaintext and ciphertext lengths differ")
        return problems

    if alg in ("aes", "ecb(aes)"):
        same("openssl ecb encrypt", openssl(modes.ECB(), key, pt, True), ct)
        same("openssl ecb decrypt", openssl(modes.ECB(), key, ct, False), pt)
    elif alg == "cbc(aes)":
        same("openssl cbc encrypt", openssl(modes.CBC(iv), key, pt, True), ct)
        same("openssl cbc decrypt", openssl(modes.CBC(iv), key, ct, False), pt)
    elif alg == "ctr(aes)":
        same("openssl ctr encrypt", openssl(modes.CTR(iv), key, pt, True), ct)
        same("openssl ctr decrypt", openssl(modes.CTR(iv), key, ct, False), pt)
    elif alg == "xts(aes)":
        half = len(key) // 2
        if expect == "weak_key":
            if key[:half] != key[half:]:
                problems.append("weak_key vector but the key halves differ")
            try:
                openssl(modes.XTS(iv), key, pt, True)
                problems.append("OpenSSL accepted a key that should be refused")
            except ValueError:
                pass
        else:
            same("openssl xts encrypt", openssl(modes.XTS(iv), key, pt, True), ct)
            same("openssl xts decrypt", openssl(modes.XTS(iv), key, ct, False), pt)
        same("reference xts encrypt", xts_reference(key, iv, pt, True), ct)
        same("reference xts decrypt", xts_reference(key, iv, ct, False), pt)
    else:
        problems.append(f"no checker for algorithm {alg!r}")
    return problems


def gcm_seal(key, nonce, aad, pt):
    enc = Cipher(algorithms.AES(key), modes.GCM(nonce)).encryptor()
    enc.authenticate_additional_data(aad)
    ct = enc.update(pt) + enc.finalize()
    return ct, enc.tag


def gcm_open(key, nonce, aad, ct, tag):
    """The plaintext, or None when OpenSSL refuses the tag (any length from 4 bytes)."""
    dec = Cipher(algorithms.AES(key), modes.GCM(nonce, tag, min_tag_length=4)).decryptor()
    dec.authenticate_additional_data(aad)
    try:
        return dec.update(ct) + dec.finalize()
    except InvalidTag:
        return None


def check_aead_vector(alg, v):
    key = unhex(v["key"])
    nonce = unhex(v["nonce"])
    aad = unhex(v.get("aad", ""))
    pt = unhex(v.get("plaintext", ""))
    ct = unhex(v["ciphertext"])
    tag = unhex(v["tag"])
    fail = v.get("fail", False)
    problems = []
    if alg == "rfc4106(gcm(aes))":
        if len(key) not in (20, 28, 36):
            problems.append(f"key of {len(key)} bytes: AES key || 4-byte salt expected")
        if len(nonce) != 8:
            problems.append(f"explicit IV of {len(nonce)} bytes, 8 expected")
        if len(aad) not in (8, 12):
            problems.append(f"AAD of {len(aad)} bytes: SPI || (E)SN is 8 or 12")
        if len(tag) not in (8, 12, 16):
            problems.append(f"ICV of {len(tag)} bytes: RFC 4106 allows 8, 12, 16")
        key, nonce = key[:-4], key[-4:] + nonce
    elif alg == "gcm(aes)":
        if len(nonce) != 12:
            problems.append(f"nonce of {len(nonce)} bytes: the drivers take 12")
        if len(tag) not in (4, 8, 12, 13, 14, 15, 16):
            problems.append(f"tag of {len(tag)} bytes is not a GCM authsize")
    else:
        return [f"no checker for AEAD algorithm {alg!r}"]
    if problems:
        return problems
    opened = gcm_open(key, nonce, aad, ct, tag)
    if fail:
        if opened is not None:
            problems.append("OpenSSL accepted a vector marked fail = true")
        return problems
    got_ct, full_tag = gcm_seal(key, nonce, aad, pt)
    if got_ct != ct:
        problems.append(f"openssl gcm encrypt: got {got_ct.hex()} want {ct.hex()}")
    if full_tag[: len(tag)] != tag:
        problems.append(f"openssl gcm tag: got {full_tag[: len(tag)].hex()} want {tag.hex()}")
    if opened != pt:
        problems.append("openssl gcm decrypt refused or gave another plaintext")
    return problems


def main():
    failed = 0
    total = 0
    for path in sorted(HERE.glob("*.toml")):
        doc = tomllib.loads(path.read_text())
        alg = doc["algorithm"]
        for v in doc["vector"]:
            total += 1
            if doc.get("kind") == "aead":
                problems = check_aead_vector(alg, v)
            elif doc.get("kind") == "hash":
                problems = check_hash_vector(alg, v)
            else:
                problems = check_vector(alg, v)
            status = "ok  " if not problems else "FAIL"
            print(f"{status} {path.name}: {alg}: {v['source']}")
            for p in problems:
                print(f"       {p}")
            failed += bool(problems)
    print(f"{total - failed}/{total} vectors agree with OpenSSL")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
