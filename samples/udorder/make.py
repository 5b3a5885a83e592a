#!/usr/bin/env python3
"""Make the UD ping-pong captures of this folder from samples/rxe_ud.pcap.

rxe_ud's client sends four UD SENDs (PSN 0..3) from QP 0x11 to the server's
QP 0x11, then the server sends four back: real datagrams, each with its valid
ICRC. Written in ping-pong order (request k, then reply k, as
ibv_ud_pingpong's exchange goes: its QPs are swapped over TCP, so there is no
SIDR here either) they make a conversation whose pairs are known by
construction; the variants break it the ways a capture can:

  ud_pingpong.pcap       R0 P0 R1 P1 R2 P2 R3 P3    four pairs
  ud_pingpong_swap.pcap  R0 P0 R1 R2 P1 P2 R3 P3    P1 written after R2: R2-P1 must not pair
  ud_pingpong_drop.pcap  R0 P0 R1 R2 P2 R3 P3       P1 lost: R1 unpaired, R2-P2 a pair
  ud_pingpong_drop2.pcap R0 P0 R1 P2 R3 P3          P1 and R2 lost: R1-P2 must not pair

The records keep the original capture's timestamps in their original order,
slot by slot, so time never runs backwards in any of them. Frames 1 and 2
(SIDR_REQ/SIDR_REP) are left out. Run from the project root:
python3 samples/udorder/make.py
"""
import os
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = os.path.join(ROOT, "samples", "rxe_ud.pcap")
OUT = os.path.dirname(os.path.abspath(__file__))


def records(path):
    data = open(path, "rb").read()
    hdr, off, recs = data[:24], 24, []
    assert struct.unpack("<I", hdr[:4])[0] in (0xA1B2C3D4, 0xA1B23C4D), "little-endian classic pcap expected"
    while off < len(data):
        sec, frac, incl, orig = struct.unpack("<IIII", data[off:off + 16])
        recs.append([sec, frac, incl, orig, data[off + 16:off + 16 + incl]])
        off += 16 + incl
    return hdr, recs


def write(name, hdr, stamps, pkts):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(hdr)
        for (sec, frac), p in zip(stamps, pkts):
            f.write(struct.pack("<IIII", sec, frac, len(p), len(p)) + p)


def main():
    hdr, recs = records(SRC)
    data = recs[2:10]                    # frames 3..10: R0..R3, then P0..P3
    assert len(data) == 8
    stamps = [(r[0], r[1]) for r in data]
    req, rep = [r[4] for r in data[:4]], [r[4] for r in data[4:]]
    R = dict(("R%d" % i, p) for i, p in enumerate(req))
    R.update(("P%d" % i, p) for i, p in enumerate(rep))
    for name, order in (("ud_pingpong.pcap", "R0 P0 R1 P1 R2 P2 R3 P3"),
                        ("ud_pingpong_swap.pcap", "R0 P0 R1 R2 P1 P2 R3 P3"),
                        ("ud_pingpong_drop.pcap", "R0 P0 R1 R2 P2 R3 P3"),
                        ("ud_pingpong_drop2.pcap", "R0 P0 R1 P2 R3 P3")):
        write(name, hdr, stamps, [R[k] for k in order.split()])


if __name__ == "__main__":
    main()
