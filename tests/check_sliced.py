#!/usr/bin/env python3
"""Sliced frames: what a capture cut short is still analysed whole.

Hardware sniffers capture RDMA header-only: ibdump and the RDMA sniffer cut
each frame and, often, write the cut length as the frame's original length
too, so the record no longer admits the cut. rocestat takes the lengths from
the IP/UDP headers instead; this test holds it to that.

1. ../shared/hw-captures/...rdma-nccl2.pcap (489 frames cut to 243 bytes,
   record lengths rewritten): per destination QP, the packets and the payload
   bytes tshark's lengths give (UDP length less the headers tshark decoded,
   PadCnt and ICRC), the frames sliced and rewritten (tshark's frame.cap_len
   and frame.len against ip.len), and no malformed frame.
2. Every RoCE v2 capture in ../shared/captures, cut here the two ways
   sniffers cut (a) to 128 bytes keeping the original length (tcpdump -s),
   (b) to 128 bytes with the original length rewritten to the cut: every data
   queue pair's packets, bytes, messages, PSN accounting, NAKs, latency and
   rkeys must equal the uncut file's (whose counts tests/check_reports.py
   holds to tshark and the tools' logs); only the ICRC becomes unchecked.
   The sliced-frame counts must be the frames this script cut, counted from
   the bytes. The CM MADs (256 bytes on QP1) cannot survive a 128-byte cut
   and are reported truncated: QP1 and the CM pairing are not compared.
3. The same two cuts of the RoCE v1 and native InfiniBand captures
   (../shared/hw-captures rocev1.pcap, ib2.pcap): there the GRH PayLen
   (v1) and the LRH PktLen (IB), read here from the bytes, say where the
   packet ends.

    ROCESTAT=./rocestat python3 tests/check_sliced.py
Exit status 0 when every check holds, 1 otherwise.
"""
import glob
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcaprecs import read_pcap  # noqa: E402

from testlib import ROCESTAT, SHARED, Checks, tshark_fields, need_shared  # noqa: E402

need_shared("check_sliced")
NCCL = os.path.join(SHARED, "hw-captures", "magnate3__linux-riscv-dev__rdma-nccl2.pcap")
CUT = 128

# What a cut may change in a queue pair's JSON entry: the ICRC verdicts, and
# what the CM exchange (cut as well) told about the connection.
NOT_COMPARED = {"icrc_bad", "icrc_unchecked", "pairing", "connection", "peer_dest_qp"}

check = Checks("check_sliced")


def report(path):
    r = subprocess.run([ROCESTAT, "-n", "--format", "json", path], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise RuntimeError("rocestat %s exited %d: %s" % (path, r.returncode, r.stderr))
    return json.loads(r.stdout)


def sliced_totals(rep):
    s = [f["sliced"] for f in rep["capture"]["files"]]
    return sum(x["frames"] for x in s), sum(x["record_length_rewritten"] for x in s)


def tshark(path, fields):
    return [dict(zip(fields, v)) for v in tshark_fields(path, fields, "infiniband.bth", occurrence="f",
                                                         heuristics_off=False)]


EXT = {"infiniband.rdeth": 4, "infiniband.deth": 8, "infiniband.reth": 16, "infiniband.atomiceth": 28,
       "infiniband.aeth": 4, "infiniband.atomicacketh": 8, "infiniband.ieth": 4, "infiniband.immdt": 4}


def hw_nccl():
    fields = ["frame.len", "frame.cap_len", "ip.len", "udp.length", "infiniband.bth.destqp",
              "infiniband.bth.padcnt"] + list(EXT)
    rows = tshark(NCCL, fields)
    want = {}
    sliced = rewritten = 0
    for t in rows:
        qp = int(t["infiniband.bth.destqp"], 0)
        payload = (int(t["udp.length"]) - 8 - 12 - sum(n for k, n in EXT.items() if t[k])
                   - int(t["infiniband.bth.padcnt"]) - 4)
        p, b = want.get(qp, (0, 0))
        want[qp] = (p + 1, b + payload)
        if int(t["frame.cap_len"]) < 14 + int(t["ip.len"]):
            sliced += 1
            rewritten += t["frame.len"] == t["frame.cap_len"]
    rep = report(NCCL)
    got = {}
    for q in rep["qps"]:
        p, b = got.get(q["dest_qp"], (0, 0))
        got[q["dest_qp"]] = (p + q["packets"], b + q["payload_bytes_on_wire"])
    check("rdma-nccl2: packets and payload per destination QP as tshark's lengths say", got == want,
          "%d QPs differ, e.g. %s" % (len(set(got.items()) ^ set(want.items())),
                                       sorted(set(got.items()) ^ set(want.items()))[:3]))
    check("rdma-nccl2: RoCE frames", rep["capture"]["roce_v2"] == len(rows),
          "%d, tshark %d" % (rep["capture"]["roce_v2"], len(rows)))
    check("rdma-nccl2: sliced frames counted", sliced_totals(rep) == (sliced, rewritten),
          "%s, tshark's lengths say %s" % (sliced_totals(rep), (sliced, rewritten)))
    check("rdma-nccl2: no frame called malformed", rep["capture"]["malformed"] == 0, str(rep["capture"]["malformed"]))
    check("rdma-nccl2: 489 sliced (SOURCES.md)", sliced == 489, str(sliced))


def ip_end(frame):
    """Where a RoCE v2 frame's IP datagram ends and its BTH DestQP, from its
    bytes (Ethernet, VLAN tags), or None if it is not RoCE v2."""
    off = 12
    et = struct.unpack(">H", frame[off:off + 2])[0]
    while et in (0x8100, 0x88A8):
        off += 4
        et = struct.unpack(">H", frame[off:off + 2])[0]
    off += 2
    if et == 0x0800:
        ihl = (frame[off] & 15) * 4
        end, udp = off + struct.unpack(">H", frame[off + 2:off + 4])[0], off + ihl
        proto = frame[off + 9]
    elif et == 0x86DD:
        end, udp, proto = off + 40 + struct.unpack(">H", frame[off + 4:off + 6])[0], off + 40, frame[off + 6]
    else:
        return None
    if proto != 17 or struct.unpack(">H", frame[udp + 2:udp + 4])[0] != 4791:
        return None
    return end, struct.unpack(">I", frame[udp + 12:udp + 16])[0] & 0xFFFFFF


def v1_ib_end(linktype, frame):
    """Where a RoCE v1 (Ethernet, EtherType 0x8915) or native IB (ERF type
    21, LINKTYPE_INFINIBAND) packet ends by its GRH PayLen or LRH PktLen
    (plus VCRC), and its BTH DestQP; None for anything else."""
    if linktype == 1:
        off = 12
        et = struct.unpack(">H", frame[off:off + 2])[0]
        while et in (0x8100, 0x88A8):
            off += 4
            et = struct.unpack(">H", frame[off:off + 2])[0]
        off += 2
        if et != 0x8915 or frame[off + 6] != 0x1B:
            return None
        end = off + 40 + struct.unpack(">H", frame[off + 4:off + 6])[0]
        return end, struct.unpack(">I", frame[off + 44:off + 48])[0] & 0xFFFFFF
    off = 0
    if linktype == 197:
        if frame[8] & 0x7F != 21:
            return None
        off, t = 16, frame[8]
        while t & 0x80:
            t, off = frame[off], off + 8
    elif linktype != 247:
        return None
    lnh = frame[off + 1] & 3
    if lnh < 2:
        return None
    end = off + (struct.unpack(">H", frame[off + 4:off + 6])[0] & 0x7FF) * 4 + 2
    bth = off + 8 + (40 if lnh == 3 else 0)
    return end, struct.unpack(">I", frame[bth + 4:bth + 8])[0] & 0xFFFFFF


def write_cut(src, dst, rewrite, locate=None):
    """Cut every frame to CUT bytes; with rewrite, the record's original
    length becomes the cut length too. Returns the RoCE v2 frames cut short
    of their IP end on data QPs and on QP0/1 (whose 256-byte MADs a cut
    leaves truncated), and the bytes the rewritten lengths of other frames
    hide for good (nothing in a non-RoCE frame is read for its length)."""
    with open(src, "rb") as fh:
        header = fh.read(24)
    linktype, recs, _ = read_pcap(src)
    endian = "<" if header[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    nano = header[:4] in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    cut = mads = hidden = 0
    with open(dst, "wb") as out:
        out.write(header)
        for sec, ns, caplen, wirelen, data in recs:
            keep = data[:CUT]
            roce = locate(linktype, data) if locate else ip_end(data)
            if roce is not None and roce[0] > CUT:
                if roce[1] > 1:
                    cut += 1
                else:
                    mads += 1
            orig = len(keep) if rewrite and len(keep) < caplen else wirelen
            if roce is None:
                hidden += wirelen - orig
            out.write(struct.pack(endian + "IIII", sec, ns if nano else ns // 1000, len(keep), orig) + keep)
    return cut, mads, hidden


def data_qps(rep):
    out = {}
    for q in rep["qps"]:
        if q["dest_qp"] <= 1:
            continue
        d = {k: v for k, v in q.items() if k not in NOT_COMPARED}
        # Whether timeout waits are sooner than the CM REQ's Local ACK
        # Timeout allows needs the REQ's fields, which a cut to 128 bytes
        # leaves out: not compared (the waits themselves are).
        for s in ("request_psn", "response_psn"):
            t = (d.get(s) or {}).get("timeout_wait_ns")
            if t:
                d[s] = dict(d[s], timeout_wait_ns={k: v for k, v in t.items() if k != "sooner_than_cm_timeout"})
        out[(q["src"], q["dst"], q["dest_qp"])] = d
    return out


# (public-captures' native IB capture is left out: its own capture already
# cut its MADs to 112 bytes, so a second cut is not compared with a whole one.)
V1_IB = [os.path.join(SHARED, "hw-captures", "magnate3__linux-riscv-dev__%s.pcap" % n) for n in ("rocev1", "ib2")]


def derived(tmp, sources, locate=None, min_cut=0):
    for src in sources:
        name = os.path.basename(src)[:-5]
        whole = report(src)
        for rewrite in (False, True):
            kind = "rewritten" if rewrite else "snaplen"
            dst = os.path.join(tmp, "%s.%s.pcap" % (name, kind))
            cut, mads, hidden = write_cut(src, dst, rewrite, locate)
            check("%s (%s): the cut leaves at least %d data frames sliced" % (name, kind, min_cut), cut >= min_cut,
                  str(cut))
            rep = report(dst)
            a, b = data_qps(whole), data_qps(rep)
            diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            detail = ""
            if diff:
                k = diff[0]
                x, y = a.get(k, {}), b.get(k, {})
                detail = "%s: %s" % (k, {f: (x.get(f), y.get(f)) for f in set(x) | set(y) if x.get(f) != y.get(f)})
            check("%s cut to %d (%s): data QPs as in the whole capture" % (name, CUT, kind), not diff, detail)
            check("%s (%s): sliced frames are the %d this test cut" % (name, kind, cut),
                  sliced_totals(rep) == (cut, cut if rewrite else 0), str(sliced_totals(rep)))
            c0, c1 = whole["capture"], rep["capture"]
            w = (c0["frames"], c0["bytes"] - hidden, c0["roce_v2"])
            g = (c1["frames"], c1["bytes"], c1["roce_v2"])
            check("%s (%s): frames, bytes (less %d of non-RoCE frames) and RoCE frames as in the whole capture"
                  % (name, kind, hidden), w == g, "%s != %s" % (g, w))
            check("%s (%s): the %d cut MADs are truncated, not sliced" % (name, kind, mads),
                  c1["truncated"] == c0["truncated"] + mads, str(c1["truncated"]))
            check("%s (%s): nothing malformed" % (name, kind), c1["malformed"] == 0, str(c1["malformed"]))


def main():
    hw_nccl()
    with tempfile.TemporaryDirectory(prefix="rocestat-sliced.") as tmp:
        derived(tmp, sorted(glob.glob(os.path.join(SHARED, "captures", "*.pcap"))))
        derived(tmp, V1_IB, v1_ib_end, 1)
    print("check_sliced: %d passed, %d failed" % (check.checks - check.failures, check.failures))
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
