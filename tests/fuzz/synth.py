"""Synthetic seed frames for the fuzzers: every defined BTH opcode with every
plausible extension-header length (0..48 bytes) and with and without
payload, carried as RoCE v2 over IPv4 (correct ICRC), RoCE v2 over IPv6,
RoCE v1 (Ethernet 0x8915 + GRH) and native InfiniBand (LRH, LRH + GRH),
plus VLAN stacks. The shared captures have no RoCE v1, no immediate data,
no atomics on every transport, no PadCnt, ..., so without these the fuzzers
rarely reach those paths. Wrong lengths simply make malformed seeds, which
are useful too. Used by mkseeds.py.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'hostile'))
import gen  # noqa: E402

GID_A = bytes(10) + b'\xff\xff' + gen.IP_A
GID_B = bytes(10) + b'\xff\xff' + gen.IP_B

# Opcodes with a defined header layout: RC, UC, RD, UD, CNP, XRC.
OPCODES = [t | o for t in (0x00, 0x20, 0x40, 0xA0) for o in range(0x20)] + [0x64, 0x65, 0x81]


def transport(op, hlen, payload, padcnt=0):
    ext = bytes((i * 37 + op) & 0xFF for i in range(hlen))
    return gen.bth(op, 0x12, 0x100, padcnt=padcnt, ackreq=1) + ext + payload + bytes(padcnt)


def grh(paylen):
    return struct.pack('>IHBB', (6 << 28) | (0x20 << 20) | 0x12345, paylen, 0x1B, 64) + GID_A + GID_B


def roce_v1(t):
    return gen.MAC_B + gen.MAC_A + b'\x89\x15' + grh(len(t) + 4) + t + b'\0\0\0\0'


def roce_v2_ipv6(t):
    udp = struct.pack('>HHHH', 49152, 4791, 8 + len(t) + 4, 0)
    ip6 = struct.pack('>IHBB', 6 << 28, len(udp) + len(t) + 4, 17, 64) + GID_A + GID_B
    return gen.MAC_B + gen.MAC_A + b'\x86\xdd' + ip6 + udp + t + b'\0\0\0\0'


def ib(t, with_grh):
    body = (grh(len(t) + 4) if with_grh else b'') + t + b'\0\0\0\0'
    words = (8 + len(body)) // 4
    lrh = struct.pack('>BBHHH', 0x00, 0x03 if with_grh else 0x02, 0x0002, words & 0x7FF, 0x0001)
    return lrh + body + b'\0\0'


def vlan(frame, tags):
    """Insert 802.1Q/802.1ad tags after the MAC addresses."""
    return frame[:12] + b''.join(struct.pack('>HH', tpid, 100 + i) for i, tpid in enumerate(tags)) + frame[12:]


def frames():
    """(fuzz_frame link-type index, frame) pairs."""
    out = []
    for op in OPCODES:
        for hlen in range(0, 52, 4):
            for payload in (b'', b'p' * 16):
                t = transport(op, hlen, payload)
                out.append((0, gen.roce_v2(t)))
                if payload:
                    out.append((0, roce_v1(t)))
                    out.append((6, ib(t, hlen % 8 == 0)))
            if hlen in (0, 4, 8, 16, 20, 28):
                out.append((0, gen.roce_v2(transport(op, hlen, b'q' * 13, padcnt=3))))
                out.append((0, roce_v2_ipv6(transport(op, hlen, b'r' * 16))))
    t = transport(0x04, 0, b'v' * 16)
    for tags in ([0x8100], [0x88A8, 0x8100], [0x8100] * 9):
        out.append((0, vlan(gen.roce_v2(t), tags)))
    return out


def captures():
    """Small whole captures: one per header length, every opcode once."""
    caps = []
    for hlen in range(0, 52, 4):
        fr = [gen.roce_v2(transport(op, hlen, b'p' * 16 if hlen % 8 else b'')) for op in OPCODES]
        caps.append(gen.pcap(fr))
    caps.append(gen.pcap([ib(transport(op, 12, b'p' * 8), True) for op in OPCODES[:64]], linktype=247))
    caps.append(gen.pcap([roce_v1(transport(op, 16, b'p' * 8)) for op in OPCODES[:64]]))
    return caps
