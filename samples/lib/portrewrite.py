#!/usr/bin/env python3
"""portrewrite.py SOURCE.pcap SOURCE.truth.json OUT_BASE [PORT]

Derives a capture of RoCE v2 on another UDP port (default 4792), as a
deployment that moved the port, or a tunnel that carries RoCE, would show
it: every IPv4 UDP datagram to port 4791 gets destination port PORT, its
UDP checksum recomputed if it had one (RXE sends 0: none) and its ICRC
recomputed (the ICRC covers the UDP header, with only the checksum
masked: roce_pcap.py). Nothing else changes.

Writes OUT_BASE.pcap, OUT_BASE.truth.json (the source truth with
"derived" naming the port and the frames) and OUT_BASE.log.
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import roce_pcap as rp  # noqa: E402


def udp_checksum(f, end):
    """The IPv4 UDP checksum of the datagram at f[34:end]."""
    udp = bytearray(f[34:end])
    udp[6:8] = b"\0\0"
    data = bytes(f[26:34]) + struct.pack("!BBH", 0, 17, len(udp)) + bytes(udp)
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s & 0xFFFF) or 0xFFFF


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    src_pcap, src_truth, out = sys.argv[1:4]
    port = int(sys.argv[4]) if len(sys.argv) == 5 else 4792
    header, end, frames = rp.read_pcap(src_pcap)
    with open(src_truth) as f:
        truth = json.load(f)
    changed = []
    for i, (rec, f) in enumerate(frames, 1):
        if not rp.roce_v2_ipv4(f):
            continue
        stop = 14 + struct.unpack("!H", f[16:18])[0]
        if rp.v2_ipv4_icrc(f[:stop]) != f[stop - 4:stop]:
            sys.exit(f"frame {i}: ICRC of the source does not check; not rewriting")
        f[36:38] = struct.pack("!H", port)
        if f[40:42] != b"\0\0":
            f[40:42] = struct.pack("!H", udp_checksum(f, stop))
        f[stop - 4:stop] = rp.v2_ipv4_icrc(f[:stop])
        changed.append(i)
    rp.write_pcap(out + ".pcap", header, end, frames)
    rp.write_derived(out, "samples/lib/portrewrite.py", [src_pcap, src_truth, out, str(port)], truth,
                     {"rewrite": "udp_port", "roce_udp_port": port, "frames_rewritten": changed,
                      "frame_count": len(frames)},
                     f"derived: every RoCE v2 datagram ({len(changed)} of {len(frames)} frames) has UDP "
                     f"destination port {port} instead of 4791, ICRC recomputed: the traffic is RoCE v2 "
                     f"on port {port} (valid BTH, correct ICRC); nothing is on port 4791.",
                     [f"frames rewritten to UDP destination port {port}: {changed}"])
    print(f"portrewrite: {len(changed)} of {len(frames)} frames moved to UDP port {port}")


if __name__ == "__main__":
    main()
