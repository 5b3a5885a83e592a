#!/usr/bin/env python3
"""The walkthrough's buffer advertisements against tshark's fields.

rping sends its peer a struct rping_rdma_info {be64 buf; be32 rkey; be32
size;} in a SEND, and the peer then RDMA READs or WRITEs that buffer. For the
rping captures (samples/, ../shared, and one on native InfiniBand) and three made from samples/rping_s64
here (the first advertisement's rkey changed, its size cut below the READ's
length, the advertising SEND dropped), this reads every frame's addresses,
opcode, payload (data.data) and RETH (VA, R_Key, DMA length) with tshark and
ties them itself, by the rule the man page states (DEFINITIONS, "buffer
advertisements"): a READ request or WRITE First/Only from X to Y uses the
newest SEND from Y to X whose first 16 payload bytes name the RETH's rkey
and a buffer holding [VA, VA + DMA length); the SEND names the requests
that used it before its sender's next SEND to the same host (and within
1024 frames). Then
`rocestat -V` must name exactly those: the advertising frame on each READ or
WRITE, the using frames on each SEND, nothing elsewhere. Each real rping
capture must have ties (a test that finds none proves nothing), and the
three made ones must lose exactly the ties their change breaks.
"""
import os
import re
import struct
import subprocess
import sys
import tempfile

from testlib import ROCESTAT, ROOT, SHARED, Checks, need_shared, tshark_fields

PROG = "check_advert"
check = Checks(PROG)

FIELDS = ["frame.number", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "infiniband.lrh.slid", "infiniband.lrh.dlid",
          "infiniband.bth.opcode",
          "infiniband.reth.va", "infiniband.reth.r_key", "infiniband.reth.dmalen", "data.data"]
SEND_FIRST_ONLY = {0x00, 0x04, 0x05, 0x17}
USES = {0x0C, 0x06, 0x0A, 0x0B}   # READ request, WRITE First, WRITE Only, WRITE Only with Immediate


def model(path):
    """({READ/WRITE frame: SEND frame}, {SEND frame: [using frames]})"""
    adv, open_, tie, uses = {}, set(), {}, {}
    for row in tshark_fields(path, FIELDS, "infiniband.bth"):
        num, s4, d4, s6, d6, slid, dlid, op, va, rkey, dmalen, data = row
        num, op = int(num), int(op)
        src, dst = s4 or s6 or "LID " + slid, d4 or d6 or "LID " + dlid
        open_ = {k for k in open_ if k[3] + 1024 > num}   # a SEND waits 1024 frames for its uses at most
        if op in SEND_FIRST_ONLY:
            open_ = {k for k in open_ if not (k[0] == src and k[1] == dst)}
            raw = bytes.fromhex(data.split(",")[0].replace(":", "")) if data else b""
            if len(raw) >= 16:
                b, k, n = struct.unpack(">QII", raw[:16])
                if k and n and b + n <= 2**64 - 1:
                    adv[(src, dst, k)] = (b, n, num)
                    open_.add((src, dst, k, num))
            continue
        if op in USES and rkey:
            va, rkey, dmalen = int(va, 16), int(rkey, 16), int(dmalen)
            a = adv.get((dst, src, rkey))
            if a and a[0] <= va < a[0] + a[1] and dmalen <= a[1] - (va - a[0]):
                tie[num] = a[2]
                if (dst, src, rkey, a[2]) in open_:
                    uses.setdefault(a[2], []).append(num)
    return tie, uses


def walk(path):
    p = subprocess.run([ROCESTAT, "-n", "-V", path], capture_output=True, text=True)
    check(path + ": -V exits 0", p.returncode == 0, p.stderr[:300])
    tie, uses, cur = {}, {}, None
    # The explanations wrap: each run of "> " lines read as one text.
    lines = []
    for line in p.stdout.splitlines():
        if line.startswith("    > ") and lines and lines[-1].startswith("    > "):
            lines[-1] += " " + line[6:]
        else:
            lines.append(line)
    for line in lines:
        m = re.match(r"Frame (\d+) ", line)
        if m:
            cur = int(m.group(1))
            continue
        m = re.search(r"is the one the SEND in frame (\d+) advertised", line)
        if m:
            tie[cur] = int(m.group(1))
        m = re.search(r"RDMA requests? in frames? ([\d, and]+) used it", line)
        if m:
            uses[cur] = [int(x) for x in re.findall(r"\d+", m.group(1))]
    return tie, uses


def records(path):
    data = open(path, "rb").read()
    hdr, off, recs = data[:24], 24, []
    while off < len(data):
        incl = struct.unpack("<I", data[off + 8:off + 12])[0]
        recs.append(bytearray(data[off:off + 16 + incl]))
        off += 16 + incl
    return hdr, recs


def made(tmp):
    """Three captures from samples/rping_s64.pcap, each breaking one tie."""
    src = os.path.join(ROOT, "samples", "rping_s64.pcap")
    rows = tshark_fields(src, ["frame.number", "infiniband.bth.opcode", "data.data"], "infiniband.bth")
    first = next(int(n) for n, op, d in rows if int(op) == 4 and d and len(d.replace(":", "")) == 32)
    hdr, recs = records(src)
    rec = recs[first - 1]
    pay = len(rec) - 4 - 16   # the 16 payload bytes sit just before the 4-byte ICRC
    out = {}
    for name, change in (("rkey", lambda r: struct.pack_into(">I", r, pay + 8, struct.unpack_from(">I", r, pay + 8)[0] ^ 1)),
                         ("size", lambda r: struct.pack_into(">I", r, pay + 12, 32)),
                         ("drop", None)):
        rs = [bytearray(r) for r in recs]
        if change:
            change(rs[first - 1])
        else:
            del rs[first - 1]
        path = os.path.join(tmp, "rping_adv_%s.pcap" % name)
        with open(path, "wb") as f:
            f.write(hdr + b"".join(rs))
        out[name] = path
    return first, out


def one(path, want_ties=True):
    name = os.path.relpath(path, os.path.dirname(ROOT))
    mt, mu = model(path)
    wt, wu = walk(path)
    if want_ties:
        check(name + ": tshark's fields tie some request to an advertisement", len(mt) > 0)
    check(name + ": the READs and WRITEs name the advertising SEND that tshark's fields give", wt == mt,
          "walkthrough %s, tshark %s" % (sorted(wt.items())[:8], sorted(mt.items())[:8]))
    mu = {k: v[:4] for k, v in mu.items()}
    check(name + ": the SENDs name the requests that used them", wu == mu,
          "walkthrough %s, tshark %s" % (sorted(wu.items())[:8], sorted(mu.items())[:8]))
    return wt


def main():
    caps = [os.path.join(ROOT, "samples", "rping_s64.pcap")]
    if not need_shared(PROG, exit=False):
        caps += [os.path.join(SHARED, "captures", n) for n in ("rping_s64.pcap", "rping_s5000.pcap", "ipv6_rping.pcap")]
        # rping on native InfiniBand (LIDs, no IP), from a hardware sniffer
        caps.append(os.path.join(SHARED, "hw-captures", "magnate3__linux-riscv-dev__ib2.pcap"))
    else:
        check("../shared is there", False)
    for c in caps:
        one(c)
    base, _ = model(caps[0])   # tshark's ties on the unchanged capture
    with tempfile.TemporaryDirectory() as tmp:
        first, paths = made(tmp)
        # The request that used frame `first`, by the unchanged capture's fields.
        users = [r for r, s in base.items() if s == first]
        check("samples/rping_s64: the first advertisement was used", len(users) >= 1, "%s" % base)
        for name, p in sorted(paths.items()):
            t = one(p, want_ties=False)
            shift = 1 if name == "drop" else 0
            lost = [u - shift for u in users]
            check("made %s: the requests that used frame %d are tied to nothing now" % (name, first),
                  all(u not in t for u in lost), "%s" % sorted(t.items())[:6])
            check("made %s: the other ties stay" % name,
                  len(t) == len(base) - len(users), "%d ties, %d before" % (len(t), len(base)))
    print("%s: %d checks, %d failed" % (PROG, check.checks, check.failures))
    sys.exit(1 if check.failures else 0)


if __name__ == "__main__":
    main()
