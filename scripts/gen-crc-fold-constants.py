#!/usr/bin/env python3
"""Write dissect/crc_fold_constants.h: the constants of the carry-less
multiplication (PCLMULQDQ / VPCLMULQDQ) CRC-32 in dissect/crc_fold.c.

The CRC is the ICRC's: IEEE 802.3 CRC-32, polynomial
P(x) = 0x104C11DB7 (x^32 + x^26 + ... + 1), processed reflected (0xEDB88320).

Representation (all derivations below use it). Sixteen message bytes loaded
little-endian into a 128-bit integer A hold polynomial coefficients reflected:
bit j of A is the coefficient of x^(127-j) (the first bit on the wire is the
highest power). A 64-bit half h is "reflected64": bit i <-> x^(63-i).
clmul(a, b) of two reflected64 values has bit m <-> x^(126-m); read as a
128-bit reflected value (bit m <-> x^(127-m)) it is a*b*x. Hence a constant
meant to multiply by x^n is stored as reflect64(x^(n-1) mod P).

Folding. With A the accumulated 128 bits and B the 128 bits that follow D
bits later in the message, A*x^D + B has the same remainder mod P as
  clmul(lo64(A), x^(D+64) const) ^ clmul(hi64(A), x^D const) ^ B,
where lo64(A) is the first 8 bytes (degrees 127..64, hence the extra 64).
Each product has degree <= 63 + 31 + 1 = 95, so it fits in 128 bits.
  fold128: D = 128   (one 16-byte lane to the next)
  fold512: D = 512   (four lanes at once; also zmm to the next zmm)
  fold2048: D = 2048 (four zmm accumulators, 256 bytes per step)
Joining accumulators in one step rather than one after the other (their
folds are independent, so they overlap in the pipeline):
  lanes: the lanes of one zmm, 48, 32 and 16 bytes before the last lane,
    fold onto it with fold384, fold256 and fold128 in one VPCLMULQDQ each
    for the low and high halves (one constant per lane);
  zmm: four zmm accumulators, 192, 128 and 64 bytes before the last one,
    fold onto it with fold1536, fold1024 and fold512.

The last 1..15 bytes T of a run (vpclmul): with A the accumulator of the
16 bytes before them, the message ends A[0..r) A[r..16) T. Read as two
16-byte blocks, C = (zeros, A[0..r)) and B = (A[r..16), T): zero bytes
before the first non-zero one do not change a CRC whose register they
meet as zero, so fold(C, B, fold128) is the accumulator of the whole
message, 16-byte aligned at its end. The same argument lets a header
whose length is not a multiple of 16 be padded in front with zeros, the
CRC register XORed into its first four real bytes.

Reduction of the final 128-bit A to the 32-bit CRC R = A*x^32 mod P:
  1. T = clmul(lo64(A), x^96 const) ^ (hi64(A) << 32): T = A*x^32 (mod P),
     degree <= 95 (the bits 32..127 of T).
  2. U = clmul(lo64(T), x^64 const) ^ hi64(T): degree <= 63, in hi64(U) = u.
  3. Barrett: with mu = floor(x^64 / P), q = floor(U / P) is the bits 31..62
     of clmul(u & 0xFFFFFFFF, reflect64(mu)) (reflected32), and
     R = (u >> 32) ^ bits 95..126 of clmul(q << 32, reflect64(P)).

This script checks the whole algorithm on random data against zlib.crc32
before writing the header, so a wrong constant cannot be written.

Run: python3 scripts/gen-crc-fold-constants.py > dissect/crc_fold_constants.h
"""
import random
import sys
import zlib

P = 0x104C11DB7


def pmod(a, p=P):
    """a mod p over GF(2)."""
    dp = p.bit_length() - 1
    while a.bit_length() - 1 >= dp:
        a ^= p << (a.bit_length() - 1 - dp)
    return a


def pdiv(a, p=P):
    """floor(a / p) over GF(2)."""
    dp = p.bit_length() - 1
    q = 0
    while a.bit_length() - 1 >= dp:
        s = a.bit_length() - 1 - dp
        q |= 1 << s
        a ^= p << s
    return q


def xpow_mod(n):
    return pmod(1 << n)


def reflect(v, bits):
    """Coefficient of x^d -> bit (bits-1-d)."""
    r = 0
    for d in range(bits):
        if v >> d & 1:
            r |= 1 << (bits - 1 - d)
    return r


def k(n):
    """reflect64 constant that multiplies a reflected64 half by x^n (see above)."""
    return reflect(xpow_mod(n - 1), 64)


def clmul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        b >>= 1
    return r


MASK64 = (1 << 64) - 1
CONST = {
    "fold128": (k(128 + 64), k(128)),
    "fold512": (k(512 + 64), k(512)),
    "fold2048": (k(2048 + 64), k(2048)),
    "fold256": (k(256 + 64), k(256)),
    "fold384": (k(384 + 64), k(384)),
    "fold1024": (k(1024 + 64), k(1024)),
    "fold1536": (k(1536 + 64), k(1536)),
    "reduce96_64": (k(96), k(64)),
    "barrett": (reflect(pdiv(1 << 64), 64), reflect(P, 64)),
}


# ---- a model of crc_fold.c, checked against zlib -------------------------

def fold(a, b, c):
    lo, hi = a & MASK64, a >> 64
    return clmul(lo, c[0]) ^ clmul(hi, c[1]) ^ b


def reduce128(a):
    lo, hi = a & MASK64, a >> 64
    t = clmul(lo, CONST["reduce96_64"][0]) ^ (hi << 32)
    u = (clmul(t & MASK64, CONST["reduce96_64"][1]) ^ t) >> 64
    prod = clmul(u & 0xFFFFFFFF, CONST["barrett"][0])
    q = (prod >> 31) & 0xFFFFFFFF
    r = clmul(q << 32, CONST["barrett"][1])
    return (u >> 32) ^ ((r >> 95) & 0xFFFFFFFF)


def table_update(crc, data):
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 if crc & 1 else 0)
    return crc


def fold_steps(acc, chunks, i, k):
    """The accumulators acc folded over chunks from i on, len(acc) chunks per
    step with constant k, while a whole step is left; and where they stop."""
    w = len(acc)
    while len(chunks) - i >= w:
        acc = [fold(acc[j], chunks[i + j], CONST[k]) for j in range(w)]
        i += w
    return acc, i


def fold_rest(a, chunks, i):
    """One accumulator folded over chunks from i on, 16 bytes at a time."""
    for c in chunks[i:]:
        a = fold(a, c, CONST["fold128"])
    return a


def model_update(crc, data, lanes):
    """crc_fold.c's pclmul path: lanes = 1 (one 16-byte accumulator) or 4
    (four, 64 bytes per step, joined one after the other)."""
    n = len(data)
    if n < 16:
        return table_update(crc, data)
    chunks = [int.from_bytes(data[i:i + 16], "little") for i in range(0, n - n % 16, 16)]
    chunks[0] ^= crc
    if lanes == 4 and len(chunks) >= 4:
        acc, i = fold_steps(chunks[0:4], chunks, 4, "fold512")
        a = acc[0]
        for j in range(1, 4):
            a = fold(a, acc[j], CONST["fold128"])
    else:
        a, i = chunks[0], 1
    return table_update(reduce128(fold_rest(a, chunks, i)), data[n - n % 16:])


MASK128 = (1 << 128) - 1


def join_lanes(acc):
    """Four 16-byte accumulators, in message order, into one (in one step)."""
    return (fold(acc[0], 0, CONST["fold384"]) ^ fold(acc[1], 0, CONST["fold256"]) ^
            fold(acc[2], 0, CONST["fold128"]) ^ acc[3])


def tail_block(a, t):
    """The accumulator a of the 16 bytes before the 1..15 bytes t, and t: the
    accumulator of the message through t (see the top)."""
    r = len(t)
    b = (a >> (8 * r)) | (int.from_bytes(t, "little") << (8 * (16 - r)))
    c = (a << (8 * (16 - r))) & MASK128
    return fold(c, b, CONST["fold128"])


def model_vpclmul(crc, head, data):
    """crc_fold.c's vpclmul path for a header (16 bytes or more, padded in
    front to a multiple of 16) and a run of any length after it."""
    if len(head) % 16:
        z = 16 - len(head) % 16
        head = bytearray(z) + bytearray(head)
        for i in range(4):
            head[z + i] ^= crc >> (8 * i) & 0xFF
        crc = 0
    chunks = [int.from_bytes(head[i:i + 16], "little") for i in range(0, len(head), 16)]
    chunks[0] ^= crc
    a = fold_rest(chunks[0], chunks, 1)
    n = len(data)
    full = [int.from_bytes(data[i:i + 16], "little") for i in range(0, n - n % 16, 16)]
    if full:
        full[0] ^= fold(a, 0, CONST["fold128"])
        if len(full) >= 4:
            if len(full) >= 16:
                # four zmm of four lanes (lane 4 * z + m), joined onto the last
                z, i = fold_steps(full[0:16], full, 16, "fold2048")
                z3 = [fold(z[m], 0, CONST["fold1536"]) ^ fold(z[4 + m], 0, CONST["fold1024"]) ^
                      fold(z[8 + m], 0, CONST["fold512"]) ^ z[12 + m] for m in range(4)]
            else:
                z3, i = full[0:4], 4
            z3, i = fold_steps(z3, full, i, "fold512")
            a = join_lanes(z3)
        else:
            a, i = full[0], 1
        a = fold_rest(a, full, i)
    if n % 16:
        a = tail_block(a, data[n - n % 16:])
    return reduce128(a)


def selfcheck():
    rnd = random.Random(6)
    for n in list(range(0, 80)) + [255, 256, 257, 271, 300, 511, 512, 600, 700, 1024, 1035, 1100, 4000]:
        for lanes in (1, 4):
            data = bytes(rnd.randrange(256) for _ in range(n))
            init = rnd.randrange(1 << 32)
            want = table_update(init, data)
            got = model_update(init, data, lanes)
            if got != want:
                sys.exit("gen-crc-fold-constants: model disagrees (n=%d lanes=%d)" % (n, lanes))
            if (~table_update(0xFFFFFFFF, data)) & 0xFFFFFFFF != zlib.crc32(data):
                sys.exit("gen-crc-fold-constants: table model disagrees with zlib")
        for nh in (16, 20, 32, 48, 60, 68, 76, 88):
            head = bytes(rnd.randrange(256) for _ in range(nh))
            init = rnd.randrange(1 << 32)
            want = table_update(init, head + data)
            if model_vpclmul(init, head, data) != want:
                sys.exit("gen-crc-fold-constants: vpclmul model disagrees (head %d, n=%d)" % (nh, n))


selfcheck()
out = ["/* Generated by scripts/gen-crc-fold-constants.py: do not edit. The script",
       " * explains each constant and checks them against zlib.crc32 first. */",
       "#ifndef RS_CRC_FOLD_CONSTANTS_H", "#define RS_CRC_FOLD_CONSTANTS_H", "#include <stdint.h>", ""]
notes = {
    "fold128": "fold 16 bytes onto the next 16: x^(128+64), x^128",
    "fold512": "fold four lanes (64 bytes) ahead: x^(512+64), x^512",
    "fold2048": "fold four zmm accumulators (256 bytes) ahead: x^(2048+64), x^2048",
    "fold256": "join lanes: 32 bytes ahead, x^(256+64), x^256",
    "fold384": "join lanes: 48 bytes ahead, x^(384+64), x^384",
    "fold1024": "join zmm accumulators: 128 bytes ahead, x^(1024+64), x^1024",
    "fold1536": "join zmm accumulators: 192 bytes ahead, x^(1536+64), x^1536",
    "reduce96_64": "128 -> 96 -> 64 bits: x^96, x^64",
    "barrett": "Barrett: floor(x^64 / P), P (both reflect64)",
}
for name, (a, b) in CONST.items():
    out.append("/* %s */" % notes[name])
    out.append("static const uint64_t rs_crc_k_%s[2] = { 0x%016xull, 0x%016xull };" % (name, a, b))
out.append("#endif")
print("\n".join(out))
