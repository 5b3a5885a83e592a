"""tshark's decode of a capture, as tests/check_evidence.py reads it: the frames,
the RC request streams and their responders, the CM connections, the RoCE v2
ICRC (computed here), and the PSN arithmetic of IBA 9.7. Nothing here comes
from rocestat."""
import ipaddress
import os
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from testlib import ROOT, tshark_heuristics_off  # noqa: E402

F = ["frame.number", "frame.time_epoch", "ip.src", "ip.dst", "ip.id", "ip.dsfield.dscp", "ip.hdr_len",
     "ip.len", "ip.flags", "ip.frag_offset", "ip.proto", "ipv6.src", "ipv6.dst", "ipv6.plen", "ipv6.nxt",
     "udp.srcport", "udp.dstport", "udp.length", "udp.payload", "infiniband.grh.sgid", "infiniband.grh.dgid",
     "infiniband.grh.tclass", "ipv6.tclass.dscp",
     "infiniband.lrh.slid", "infiniband.lrh.dlid", "infiniband.bth.opcode", "infiniband.bth.destqp",
     "infiniband.bth.psn", "infiniband.bth.padcnt", "infiniband.aeth.syndrome", "infiniband.reth.dmalen",
     "infiniband.invariant.crc", "infiniband.mad.attributeid", "infiniband.cm.req", "infiniband.cm.req.localqpn",
     "infiniband.cm.req.retrcount", "infiniband.cm.req.rnrretrcount", "infiniband.cm.req.prim_localacktout",
     "infiniband.cm.req.pppmtu", "infiniband.cm.rep", "infiniband.cm.rep.remotecommid", "infiniband.cm.rep.localqpn",
     "infiniband.cm.rep.rnrretrcount", "infiniband.cm.rtu.remotecommid", "infiniband.cm.rej.remotecommid",
     "infiniband.cm.dreq.localcommid", "infiniband.cm.drsp.remotecommid"]
STR = {"ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "udp.payload", "infiniband.grh.sgid", "infiniband.grh.dgid",
       "frame.time_epoch", "ip.flags"}
RC_REQ = set(range(0x00, 0x0D)) | {0x13, 0x14, 0x16, 0x17, 0x1C, 0x1D}
RC_RESP = set(range(0x0D, 0x13))
READ_ATOMIC = {0x0C, 0x13, 0x14, 0x1D}
AETH_OPS = {0x0D, 0x0F, 0x10, 0x11, 0x12}
KNOWN_OPS = RC_REQ | RC_RESP | set(range(0x20, 0x2C)) | {0x64, 0x65, 0x81}
CAUSE = {"after_nak": "nak", "after_rnr_nak": "rnr", "timeout": "timeout", "read_retry": "read_retry",
         "unknown": "unknown"}
CM_NAME = {0x10: "REQ", 0x11: "MRA", 0x12: "REJ", 0x13: "REP", 0x14: "RTU", 0x15: "DREQ", 0x16: "DREP"}
US = 1000   # 1 us in ns


def num(v):
    if v == "":
        return None
    v = v.split(",")[0]
    try:
        return int(v, 16) if v.startswith("0x") else int(v)
    except ValueError:
        return None


def ns_of(s):
    a, _, b = s.partition(".")
    return int(a) * 10**9 + int((b + "000000000")[:9])


def pdiff(a, b):
    """a - b in 24-bit PSN space, as a signed number."""
    d = (a - b) & 0xFFFFFF
    return d - 0x1000000 if d >= 0x800000 else d


def host(gid):
    if gid and gid.startswith("::ffff:") and "." in gid:
        return gid[7:]
    return gid


def tshark(path):
    cmd = ["tshark", "-n", "-r", path, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=f"]
    cmd += tshark_heuristics_off() + ["--disable-protocol", "tftp"]
    for f in F:
        cmd += ["-e", f]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("tshark exited %d on %s: %s" % (p.returncode, path, p.stderr.strip()[:300]))
    frames = []
    for line in p.stdout.splitlines():
        v = (line.split("\t") + [""] * len(F))[:len(F)]
        r = {}
        for k, x in zip(F, v):
            r[k] = x if k in STR else num(x)
        r["n"] = r["frame.number"]
        r["t"] = ns_of(r["frame.time_epoch"]) if r["frame.time_epoch"] else 0
        if r["ip.src"]:
            r["src"], r["dst"], r["ipid"] = r["ip.src"], r["ip.dst"], r["ip.id"]
        elif r["ipv6.src"]:
            r["src"], r["dst"], r["ipid"] = host(r["ipv6.src"]), host(r["ipv6.dst"]), None
        elif r["infiniband.grh.sgid"]:
            r["src"], r["dst"], r["ipid"] = host(r["infiniband.grh.sgid"]), host(r["infiniband.grh.dgid"]), None
        elif r["infiniband.lrh.slid"] is not None:
            r["src"], r["dst"], r["ipid"] = str(r["infiniband.lrh.slid"]), str(r["infiniband.lrh.dlid"]), None
        else:
            r["src"] = r["dst"] = r["ipid"] = None
        r["op"], r["qp"], r["psn"] = r["infiniband.bth.opcode"], r["infiniband.bth.destqp"], r["infiniband.bth.psn"]
        r["syn"] = r["infiniband.aeth.syndrome"]
        r["dscp"] = r["ip.dsfield.dscp"] if r["ip.src"] else r["ipv6.tclass.dscp"] if r["ipv6.src"] else \
            r["infiniband.grh.tclass"] >> 2 if r["infiniband.grh.tclass"] is not None else None
        r["v2"] = r["udp.dstport"] == 4791 and r["op"] is not None
        frames.append(r)
    return frames


def icrc(r, payload):
    """The RoCE v2 ICRC of a datagram (IBA A17.4.4.2): CRC-32 over 8 bytes of 1s,
    the IP header with its variant fields (IPv4 TOS, TTL, checksum; IPv6 traffic
    class, flow label, hop limit) set to 1s, the UDP header with its checksum
    set to 1s, the BTH with its reserved byte 4 set to 1s, and the rest up to
    the ICRC. None when the frame lacks what it needs."""
    if len(payload) < 16:
        return None
    if r["ip.src"]:
        if r["ip.hdr_len"] != 20 or r["ip.len"] is None:
            return None
        flags = int(r["ip.flags"], 16) if r["ip.flags"] else 0
        ff = ((flags << 13) if flags < 8 else (flags << 8) if flags < 0x100 else flags) & 0xE000 | \
            (r["ip.frag_offset"] or 0) // 8 & 0x1FFF
        src = bytes(int(x) for x in r["ip.src"].split("."))
        dst = bytes(int(x) for x in r["ip.dst"].split("."))
        iph = bytes([0x45, 0xFF]) + r["ip.len"].to_bytes(2, "big") + r["ip.id"].to_bytes(2, "big") + \
            ff.to_bytes(2, "big") + bytes([0xFF, r["ip.proto"]]) + b"\xff\xff" + src + dst
    elif r["ipv6.src"]:
        iph = b"\x6f\xff\xff\xff" + r["ipv6.plen"].to_bytes(2, "big") + bytes([r["ipv6.nxt"], 0xFF]) + \
            ipaddress.IPv6Address(r["ipv6.src"]).packed + ipaddress.IPv6Address(r["ipv6.dst"]).packed
    else:
        return None
    udph = r["udp.srcport"].to_bytes(2, "big") + r["udp.dstport"].to_bytes(2, "big") + \
        r["udp.length"].to_bytes(2, "big") + b"\xff\xff"
    body = payload[:4] + b"\xff" + payload[5:-4]
    return zlib.crc32(b"\xff" * 8 + iph + udph + body), int.from_bytes(payload[-4:], "little")


def ival(s):
    return int(s) if s not in (None, "") else None


class Cap:
    """One capture as tshark decodes it, with what the rules need."""

    def __init__(self, path, frames):
        self.path, self.name = path, os.path.relpath(path, ROOT)
        self.frames = frames
        self.byn = {r["n"]: r for r in frames}
        self.streams = {}      # (src, dst, qp) -> RC request frames in capture order
        self.resp = {}         # (src, dst, qp) -> RC response frames
        self.cm = {}           # frame -> CM message name
        self.conns = []
        for r in frames:
            if r["op"] is None or r["src"] is None:
                continue
            key = (r["src"], r["dst"], r["qp"])
            if r["op"] in RC_REQ:
                self.streams.setdefault(key, []).append(r)
            elif r["op"] in RC_RESP:
                self.resp.setdefault(key, []).append(r)
            a = r["infiniband.mad.attributeid"]
            if r["qp"] == 1 and a in CM_NAME:
                self.cm[r["n"]] = CM_NAME[a]
        self._connections()
        self.peer = {k: self._peer(k) for k in self.streams}

    def _connections(self):
        reps = [r for r in self.frames if self.cm.get(r["n"]) == "REP"]
        for q in self.frames:
            if self.cm.get(q["n"]) != "REQ":
                continue
            rep = next((p for p in reps if p["infiniband.cm.rep.remotecommid"] == q["infiniband.cm.req"]), None)
            mtu = q["infiniband.cm.req.pppmtu"]
            self.conns.append({
                "client": q["src"], "server": q["dst"], "cqp": q["infiniband.cm.req.localqpn"],
                "sqp": rep["infiniband.cm.rep.localqpn"] if rep else None,
                "retry": q["infiniband.cm.req.retrcount"], "rnr_req": q["infiniband.cm.req.rnrretrcount"],
                "rnr_rep": rep["infiniband.cm.rep.rnrretrcount"] if rep else None,
                "T": 4096 * 2 ** q["infiniband.cm.req.prim_localacktout"]
                if q["infiniband.cm.req.prim_localacktout"] else None,
                "mtu": 128 << mtu if mtu else None})

    def conn_of(self, key):
        """(connection, requester is the client) of a request stream, from its CM REQ/REP."""
        src, dst, qp = key
        for c in self.conns:
            if (src, dst, qp) == (c["client"], c["server"], c["sqp"]):
                return c, True
            if (src, dst, qp) == (c["server"], c["client"], c["cqp"]):
                return c, False
        return None, None

    def _peer(self, key):
        """The responder's frames of a stream: its peer QP from the CM, else the
        reverse-direction QP whose responses carry most of the stream's PSNs."""
        src, dst, qp = key
        c, client = self.conn_of(key)
        if c is not None and c["cqp"] is not None and c["sqp"] is not None:
            pq = c["cqp"] if client else c["sqp"]
            return self.resp.get((dst, src, pq), [])
        st = self.streams[key]
        lo, hi = st[0]["psn"], max((r["psn"] for r in st), key=lambda p: pdiff(p, st[0]["psn"]))
        best, score = [], 0
        for (s, d, q), rs in self.resp.items():
            if (s, d) == (dst, src):
                sc = sum(1 for r in rs if pdiff(r["psn"], lo) >= -256 and pdiff(hi, r["psn"]) >= -256)
                if sc > score:
                    best, score = rs, sc
        return best

    def mtu(self, key):
        c, _ = self.conn_of(key)
        if c and c["mtu"]:
            return c["mtu"]
        m = 0
        for r in self.peer[key]:
            if r["op"] in (0x0D, 0x0E) and r["udp.length"]:
                m = max(m, r["udp.length"] - 8 - 12 - 4 - (4 if r["op"] == 0x0D else 0) - (r["infiniband.bth.padcnt"] or 0))
        return m if m in (256, 512, 1024, 2048, 4096) else 4096


def span(r, mtu):
    """The PSNs a request takes: a READ of length L ceil(L/MTU), any other one."""
    if r["op"] == 0x0C:
        return max(1, -(-(r["infiniband.reth.dmalen"] or 0) // mtu))
    return 1


def is_nak(r, rnr=False):
    s = r["syn"]
    if s is None or r["op"] not in AETH_OPS:
        return False
    return 0x20 <= s <= 0x3F if rnr else s == 0x60


def sender_order(frames):
    """The stream in the order its sender sent it: IPv4 IP ID (unwrapped in
    capture order), otherwise capture order."""
    if not frames or any(r["ipid"] is None for r in frames):
        return list(frames)
    out, prev = [], None
    for r in frames:
        u = r["ipid"] if prev is None else prev + ((r["ipid"] - prev + 0x8000) & 0xFFFF) - 0x8000
        out.append((u, r["n"], r))
        prev = u
    return [r for _, _, r in sorted(out, key=lambda x: (x[0], x[1]))]


def run_firsts(frames):
    """frame -> (the PSN its run starts at, that first frame), a run beginning
    where the sender went back (its PSN not above the one it sent before)."""
    first, prev, start = {}, None, None
    for r in sender_order(frames):
        if prev is None or pdiff(r["psn"], prev) <= 0:
            start = (r["psn"], r)
        first[r["n"]] = start
        prev = r["psn"]
    return first


def id_below(a, b):
    return ((b - a) & 0xFFFF) in range(1, 0x8000)


def skipped(cap, key):
    """(not captured, lost at most) PSNs of a request stream as the rules give
    them: never in the file, covered by an ACK, never NAKed, not READ-reserved;
    and skipped PSNs (first seen after a higher one, or never) a NAK named."""
    frames, resp = cap.streams[key], cap.peer[key]
    mtu = cap.mtu(key)
    base = frames[0]["psn"]
    present, reserved, skipped_ = set(), set(), set()
    hi = 0
    for r in frames:
        d = pdiff(r["psn"], base)
        if d < 0:
            continue
        if d not in present and d < hi:
            skipped_.add(d)
        present.add(d)
        n = span(r, mtu)
        for j in range(1, n):
            reserved.add(d + j)
        hi = max(hi, d + n)
    naked = {pdiff(k["psn"], base) for k in resp if is_nak(k)}
    acked = max((pdiff(k["psn"], base) for k in resp if k["op"] in AETH_OPS and k["syn"] is not None
                 and k["syn"] < 0x20), default=-1)
    missing = [d for d in range(0, hi) if d not in present and d not in reserved]
    nc = sum(1 for d in missing if d <= acked and d not in naked)
    return nc, sum(1 for d in skipped_ | set(missing) if d in naked)
