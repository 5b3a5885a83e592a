#!/usr/bin/env python3
"""v1rewrite.py SOURCE.pcap SOURCE.truth.json OUT_BASE

RXE sends RoCE v2 only. This derives a capture in which one connection
speaks both versions: every second ACK (opcode 0x11) from the responder
(the server of the source truth) becomes RoCE v1: Ethernet type 0x8915,
then a 40-byte GRH (IPv6 version 6, the IPv4 TOS as traffic class, flow
label 0, PayLen = BTH through ICRC, NxtHdr 0x1B, hop limit = the IPv4
TTL, GIDs ::ffff:a.b.c.d of the IPv4 addresses: what an RoCE v1 port uses
for its IPv4-mapped GIDs), then the same BTH and AETH with the ICRC
recomputed for v1 (roce_pcap.py). Every other frame is copied as it is.

Writes OUT_BASE.pcap, OUT_BASE.truth.json (the source truth, with
"derived" saying which frames were rewritten) and OUT_BASE.log.
"""
import ipaddress
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import roce_pcap as rp  # noqa: E402

OP_ACK = 0x11


def to_v1(f):
    ip_len = struct.unpack("!H", f[16:18])[0]
    tos, ttl, src, dst = f[15], f[22], f[26:30], f[30:34]
    ib = f[42:14 + ip_len]                      # BTH through ICRC
    grh = struct.pack("!IHBB", 6 << 28 | tos << 20, len(ib), 0x1B, ttl)
    grh += b"\0" * 10 + b"\xff\xff" + src + b"\0" * 10 + b"\xff\xff" + dst
    out = bytearray(f[:12]) + struct.pack("!H", rp.ETH_ROCE_V1) + grh + ib
    out[-4:] = rp.v1_icrc(out)
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src_pcap, src_truth, out = sys.argv[1:]
    header, end, frames = rp.read_pcap(src_pcap)
    with open(src_truth) as f:
        truth = json.load(f)
    responder = truth["server"]["ip"] if "ip" in (truth.get("server") or {}) else None
    acks = []
    for i, (rec, f) in enumerate(frames, 1):
        if not rp.roce_v2_ipv4(f) or f[42] != OP_ACK:
            continue
        if responder and str(ipaddress.IPv4Address(bytes(f[26:30]))) != responder:
            continue
        if rp.v2_ipv4_icrc(f[:14 + struct.unpack("!H", f[16:18])[0]]) != f[-4:]:
            sys.exit(f"frame {i}: ICRC of the source does not check; not rewriting")
        acks.append(i)
    rewritten = acks[1::2]
    for i in rewritten:
        frames[i - 1] = (frames[i - 1][0], to_v1(frames[i - 1][1]))
    rp.write_pcap(out + ".pcap", header, end, frames)
    rp.write_derived(out, "samples/lib/v1rewrite.py", [src_pcap, src_truth, out], truth,
                     {"rewrite": "roce_v1", "responder_acks": acks, "frames_v1": rewritten,
                      "frames_v2": [i for i in range(1, len(frames) + 1) if i not in rewritten],
                      "frame_count": len(frames)},
                     f"derived: frames {rewritten} (every second responder ACK) rewritten to RoCE v1 "
                     "(EtherType 0x8915, GRH with the IPv4-mapped GIDs, ICRC recomputed); every other "
                     "frame is the source's, RoCE v2. One connection, one pair of QPs: the v1 ACKs belong "
                     "to the same flow as the v2 traffic; every ICRC is correct.",
                     [f"responder ACKs in the source: frames {acks}", f"rewritten to RoCE v1: frames {rewritten}"])
    print(f"v1rewrite: {len(rewritten)} of {len(acks)} responder ACKs rewritten to RoCE v1: {rewritten}")


if __name__ == "__main__":
    main()
