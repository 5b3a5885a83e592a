#!/usr/bin/env python3
"""Headers the capture rewrote are not corruption; bit errors still are.

The RDMA sniffer and ibdump write UDP source port 4791 over the port the NIC
used when it computed the ICRC. rocestat finds the port that makes the ICRC
match (the CRC is linear in the port's bits) and reports the frame as
port_rewritten, not bad. Expected values come from the bytes: this script
computes the RoCE v2 ICRC itself (zlib's CRC-32 over the masked headers,
IBA Annex A17.3.3) with the port rocestat names.

1. ../shared/hw-captures: every RoCE v2 frame rocestat calls port_rewritten
   has source port 4791 and an ICRC that matches, computed here, with the
   port rocestat gives (read back with -V); none is called bad; rc-small and
   dc-small have every frame rewritten (SOURCES.md).
2. Every RoCE v2 IPv4 capture in ../shared/captures with the source port of
   every RoCE frame rewritten to 4791: every such frame is port_rewritten, no
   ICRC is bad, and the summary says neither "bad ICRC" nor "corrupted".
3. The same files with one payload bit flipped in every 20th RoCE frame (a
   corrupting link), with and without the port rewrite: exactly those frames
   are bad.

    ROCESTAT=./rocestat python3 tests/check_icrc_rewrite.py
Exit status 0 when every check holds, 1 otherwise.
"""
import glob
import os
import re
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcaprecs import read_pcap, write_pcap  # noqa: E402
from testlib import ROCESTAT, SHARED, Checks, need_shared  # noqa: E402

need_shared("check_icrc_rewrite")

check = Checks("check_icrc_rewrite")


def roce_v2_ipv4(b):
    """Offset of the BTH of an untagged Ethernet/IPv4 (no options)/UDP 4791
    frame, else None."""
    if len(b) < 14 + 20 + 8 + 12 or b[12:14] != b"\x08\x00" or b[14] != 0x45 or b[23] != 17:
        return None
    if struct.unpack(">H", b[36:38])[0] != 4791:
        return None
    return 42


def icrc_ok(b, sport):
    """The frame's ICRC, computed here with UDP source port `sport`, against
    the one it carries (IPv4: Annex A17.3.3 masks)."""
    ip_len = struct.unpack(">H", b[16:18])[0]
    end = 14 + ip_len
    if end > len(b):
        return None
    m = bytearray(b"\xff" * 8 + b[14:end - 4])
    ip = 8
    m[ip + 1] = 0xFF               # DSCP, ECN
    m[ip + 8] = 0xFF               # TTL
    m[ip + 10:ip + 12] = b"\xff\xff"  # header checksum
    m[ip + 20:ip + 22] = struct.pack(">H", sport)
    m[ip + 26:ip + 28] = b"\xff\xff"  # UDP checksum
    m[ip + 28 + 4] = 0xFF          # BTH FECN, BECN, Resv6
    return zlib.crc32(bytes(m)) == struct.unpack("<I", b[end - 4:end])[0]


def fields(path):
    out = subprocess.run([ROCESTAT, "-n", "--fields", path], capture_output=True, text=True).stdout
    lines = out.splitlines()
    col = lines[0].split(",").index("icrc_status") if lines else 0
    return {int(ln.split(",")[0]): ln.split(",")[col] for ln in lines[1:] if ln}


def walk_port(path, frame):
    out = subprocess.run([ROCESTAT, "-n", "-V", "--frames", str(frame), path], capture_output=True, text=True).stdout
    m = re.search(r"with source port (\d+) the ICRC matches", out)
    return int(m.group(1)) if m else None


def hw():
    for path in sorted(glob.glob(os.path.join(SHARED, "hw-captures", "*.pcap"))):
        name = os.path.basename(path)
        st = fields(path)
        check(name + ": no bad ICRC", "bad" not in st.values(),
              "frames %s" % [k for k, v in st.items() if v == "bad"][:5])
        linktype, recs, _ = read_pcap(path)
        rewritten = [k for k, v in st.items() if v == "port_rewritten"]
        if "rc-small" in name or "dc-small" in name:
            check(name + ": every frame rewritten", len(rewritten) == len(recs), "%d of %d" % (len(rewritten), len(recs)))
        for k in rewritten[:8]:
            b = recs[k - 1][4]
            port = walk_port(path, k)
            check("%s frame %d: captured source port 4791" % (name, k), struct.unpack(">H", b[34:36])[0] == 4791)
            check("%s frame %d: ICRC matches with port %s" % (name, k, port), port is not None and icrc_ok(b, port))


def derived(tmp):
    for path in sorted(glob.glob(os.path.join(SHARED, "captures", "*.pcap"))):
        name = os.path.basename(path)
        linktype, recs, _ = read_pcap(path)
        if linktype != 1:
            continue
        roce = [i for i, r in enumerate(recs) if roce_v2_ipv4(r[4]) is not None and icrc_ok(r[4], struct.unpack(
            ">H", r[4][34:36])[0])]
        if not roce:
            continue
        for rewrite in (True, False):
            for corrupt in ((False, True) if rewrite else (True,)):
                out, flipped = [], set()
                for i, (sec, ns, caplen, wirelen, b) in enumerate(recs):
                    b = bytearray(b)
                    if i in roce:
                        if rewrite:
                            b[34:36] = b"\x12\xb7"  # 4791
                        n = roce.index(i)
                        if corrupt and n % 20 == 7:
                            ip_len = struct.unpack(">H", b[16:18])[0]
                            at = 14 + ip_len - 5  # the last byte before the ICRC
                            b[at] ^= 0x10
                            flipped.add(i + 1)
                    out.append((sec, ns, caplen, wirelen, bytes(b)))
                dst = os.path.join(tmp, "%s-%d%d.pcap" % (name, rewrite, corrupt))
                write_pcap(dst, linktype, out)
                st = fields(dst)
                what = "%s%s%s" % (name, " port 4791" if rewrite else "", " corrupted" if corrupt else "")
                bad = {k for k, v in st.items() if v == "bad"}
                check(what + ": the corrupted frames are bad, no other", bad == flipped,
                      "bad %s, flipped %s" % (sorted(bad)[:6], sorted(flipped)[:6]))
                if rewrite:
                    rw = {k for k, v in st.items() if v == "port_rewritten"}
                    check(what + ": every other RoCE frame port_rewritten",
                          rw == {i + 1 for i in roce} - flipped, "%d vs %d" % (len(rw), len(roce) - len(flipped)))
                if not corrupt:
                    text = subprocess.run([ROCESTAT, "-n", "--width", "0", dst], capture_output=True, text=True).stdout
                    check(what + ": the summary blames nothing", "bad ICRC" not in text and "corrupted" not in text)


def main():
    hw()
    with tempfile.TemporaryDirectory() as tmp:
        derived(tmp)
    print("check_icrc_rewrite: %d checks, %d failed" % (check.checks, check.failures))
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
