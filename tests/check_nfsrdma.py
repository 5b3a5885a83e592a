#!/usr/bin/env python3
"""The NFS/RDMA module's analysis (proto/nfsrdma/) against independent
sources, on the two samples of real nfsd traffic between two QEMU guests
(samples/rxe_nfs.pcap, and rxe_nfs_loss.pcap with 2% netem loss on the
server's egress): every figure of a connection's "nfs_rdma" JSON member is
worked out here again from tshark's infiniband, rpcordma, rpc and nfs
fields, and the counts from the client's /proc/self/mountstats
(NAME.truth.txt).

From tshark, per CM connection (its two QPs):
  - a call is the first RPC-over-RDMA header the client sent with an XID
    (in the SEND's first packet: tshark shows a SEND of several packets in
    its last one, so the first is found by walking back), its reply the
    first header the server sent back with that XID; call -> reply latency
    runs from the call's first packet to the first packet of the reply's
    last sending (the requester took that one; a reply the fabric re-sent
    has the same PSN again), the timestamps read as decimal nanoseconds;
    calls never answered in the capture are listed;
  - a call's kind is its RPC program, version and procedure, and for an
    NFSv4 COMPOUND its operation list, from tshark's rpc and nfs fields;
    per kind: calls, replies, errors and the latency's nearest-rank
    minimum, median, 99th percentile and maximum; the slowest calls;
  - errors: a reply whose RPC was not accepted with SUCCESS, or whose NFS
    status (the NFSv3 status, the NFSv4 COMPOUND status) is not OK: the
    reply's RPC message inline (RDMA_MSG), or for one sent as RDMA_NOMSG
    in its reply chunk (moved by RDMA WRITE): tshark's decode of it put
    together, or where tshark could not (a WRITE of the chunk lost and
    re-sent) the RPC reply header read here from the bytes of the first
    WRITE to the chunk's start (its XID checked); a NOMSG reply whose
    chunk start was never written in the capture counts as one whose
    status was not read;
  - chunks: the read list, write chunks and reply chunk segments each call
    advertised (handle, length, offset); the server's RDMA READ requests
    and first WRITE packets tied to the call whose segment has the R_Key
    and holds the address (RETH VA), with their bytes (RETH DMA length);
  - re-sent: a request packet whose PSN is not above every PSN its QP sent
    before (rxe does not reorder: such a packet went over the wire again),
    and a READ response packet likewise; a call was re-sent for if any
    packet of its SEND, of its READ request and READ responses, of the
    WRITEs into its chunks or of its reply's SEND was.
From the truth file (mountstats before each umount): the NFSv3 calls per
procedure and the error replies, the NFSv4.1 COMPOUNDs holding READ,
WRITE, CLOSE, REMOVE, CREATE, READDIR, and the errors of those holding
OPEN, LOOKUP and READDIR.
Per frame (--fields --verdicts, and --annotate's comments read back by
tshark): each frame of a call (its SEND, its chunks' RDMA READ requests,
READ responses and WRITEs, its reply's SEND, as far as the messages seen
by then tell) names the call by XID and its frame, what it is to it, a
reply's latency and failure, and whether the fabric had re-sent a packet
of the call by then; no other frame of the connection names a call.
The text summary at 80 and 120 columns: no line of the section wider, and
each of the slowest calls (and of those re-sent for) named with its
frames and whether the fabric re-sent anything for it.
"""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcaprecs  # noqa: E402
from testlib import ROCESTAT, ROOT, Checks, tshark_fields  # noqa: E402

ck = Checks("check_nfsrdma")
S = os.path.join(ROOT, "samples")
SAMPLES = ["rxe_nfs", "rxe_nfs_loss"]
SLOWEST = 5          # the slowest calls rocestat lists per connection

TF = ["frame.number", "frame.time_epoch", "frame.len", "ip.src", "infiniband.bth.opcode", "infiniband.bth.destqp",
      "infiniband.bth.psn", "infiniband.reth.r_key", "infiniband.reth.va", "infiniband.reth.dmalen",
      "rpcordma.xid", "rpcordma.msg_type", "rpcordma.reads_count", "rpcordma.writes_count",
      "rpcordma.reply_count", "rpcordma.rdma_handle", "rpcordma.rdma_length", "rpcordma.rdma_offset",
      "rpcordma.segment_count", "rpc.xid", "rpc.msgtyp", "rpc.program", "rpc.programversion", "rpc.procedure",
      "rpc.replystat", "rpc.state_accept", "nfs.opcode", "nfs.status"]

SEND_FIRST, SEND_MIDDLE = 0, 1
SEND_LAST = {2, 3, 22}
SEND_ONLY = {4, 5, 23}
WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM, WRITE_ONLY, WRITE_ONLY_IMM = 6, 7, 8, 9, 10, 11
READ_REQ = 12
READ_RSP = {13, 14, 15, 16}
ACK = 17
MIDDLES = {SEND_MIDDLE, WRITE_MIDDLE, 14}
HDR_LEN = 14 + 20 + 8 + 12 + 4      # Ethernet, IPv4, UDP, BTH, ICRC around a Middle packet's payload

NFS3 = ["NULL", "GETATTR", "SETATTR", "LOOKUP", "ACCESS", "READLINK", "READ", "WRITE", "CREATE", "MKDIR",
        "SYMLINK", "MKNOD", "REMOVE", "RMDIR", "RENAME", "LINK", "READDIR", "READDIRPLUS", "FSSTAT",
        "FSINFO", "PATHCONF", "COMMIT"]
V4_MAIN = {"READ": 25, "WRITE": 38, "CLOSE": 4, "REMOVE": 28, "CREATE": 6, "READDIR": 26}


def num(s):
    s = s.strip()
    if s == "":
        return None
    return int(s, 16) if s.startswith("0x") else int(s)


def nums(s):
    return [num(v) for v in s.split("|")] if s else []


def first(s):
    v = nums(s)
    return v[0] if v else None


def ns(epoch):
    return int(Decimal(epoch) * 1000000000)


def psn_after(a, b):
    """a comes after b in 24-bit PSN order."""
    d = (a - b) & 0xFFFFFF
    return d != 0 and d < 0x800000


def nearest_rank(sorted_vals, q):
    n = len(sorted_vals)
    i = -(-q * n // 1)                  # ceil(q * n)
    i = int(min(max(i, 1), n))
    return sorted_vals[i - 1]


def rocestat_json(path):
    p = subprocess.run([ROCESTAT, "--format", "json", path], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError("rocestat exited %d on %s: %s" % (p.returncode, path, p.stderr[:300]))
    return json.loads(p.stdout)


def frames(path):
    rows = tshark_fields(path, TF, None, occurrence="a", aggregator="|", heuristics_off=False)
    out = []
    for vals in rows:
        t = dict(zip(TF, vals))
        if not t["infiniband.bth.opcode"]:
            continue
        t["n"] = int(t["frame.number"])
        t["ts"] = ns(t["frame.time_epoch"])
        t["op"] = first(t["infiniband.bth.opcode"])
        t["qp"] = first(t["infiniband.bth.destqp"])
        t["psn"] = first(t["infiniband.bth.psn"])
        t["src"] = t["ip.src"].split("|")[0]
        out.append(t)
    return out


def path_mtu(fr):
    return max((int(t["frame.len"]) - HDR_LEN for t in fr if t["op"] in MIDDLES), default=1024)


def packets(size, mtu):
    return max(1, -(-size // mtu))


class Conn:
    """One CM connection as tshark's fields show it."""

    def __init__(self, cid, client, cqp, server, sqp):
        self.id, self.client, self.cqp, self.server, self.sqp = cid, client, cqp, server, sqp
        self.calls = collections.OrderedDict()   # xid -> call
        self.replies_unmatched = 0
        self.resent = set()                      # (stream, psn) of packets that went again
        self.resent_at = []                      # (frame, stream, psn) of each such packet
        self.ranges = []                         # (stream, first psn, packets, xid)
        self.reads = self.read_bytes = self.writes = self.write_bytes = self.untied = 0

    def dir_of(self, t):
        if t["src"] == self.client and t["qp"] == self.sqp:
            return "c"
        if t["src"] == self.server and t["qp"] == self.cqp:
            return "s"
        return None


def segments(t):
    """(list, handle, length, offset) of a header: read list, write chunks, reply chunk, in order."""
    h, ln, off = nums(t["rpcordma.rdma_handle"]), nums(t["rpcordma.rdma_length"]), nums(t["rpcordma.rdma_offset"])
    nr, nw, nrep = first(t["rpcordma.reads_count"]) or 0, first(t["rpcordma.writes_count"]) or 0, \
        first(t["rpcordma.reply_count"]) or 0
    counts = nums(t["rpcordma.segment_count"])
    kinds = [0] * nr
    for i in range(nw):
        kinds += [1] * (counts[i] if i < len(counts) else 0)
    if nrep:
        kinds += [2] * (counts[nw] if nw < len(counts) else 0)
    return [(kinds[i] if i < len(kinds) else -1, h[i], ln[i], off[i]) for i in range(len(h))]


def analyse(fr, conns, mtu):
    """Walk the frames once: calls, replies, transfers, re-sent packets."""
    rpc = {}                   # (src, xid, msgtyp) -> the first rpc decode tshark made
    for t in fr:
        if t["rpc.xid"]:
            rpc.setdefault((t["src"], first(t["rpc.xid"]), first(t["rpc.msgtyp"])), t)
    top = {}                   # (connection, stream) -> highest PSN seen
    send_start = {}            # (connection, stream) -> the first packet of the SEND under way
    seen = set()               # (connection, stream, PSN) of every packet so far
    for t in fr:
        c = next((c for c in conns if c.dir_of(t)), None)
        if c is None or t["op"] == ACK:
            continue
        d = c.dir_of(t)
        stream = (d, "rsp" if t["op"] in READ_RSP else "req")
        psn, key = t["psn"], (c.id, stream)
        again = key in top and not psn_after(psn, top[key])
        if again:
            c.resent.add((stream, psn))
            c.resent_at.append((t["n"], stream, psn))
        else:
            top[key] = psn
        first_sight = (c.id, stream, psn) not in seen
        seen.add((c.id, stream, psn))
        if t["op"] == SEND_FIRST or t["op"] in SEND_ONLY:
            send_start[key] = t
        if first_sight and (t["op"] == READ_REQ or t["op"] in (WRITE_FIRST, WRITE_ONLY, WRITE_ONLY_IMM)):
            transfer(c, t, d, mtu)
        if not t["rpcordma.xid"] or not (t["op"] in SEND_ONLY or t["op"] in SEND_LAST):
            continue
        start = send_start.get(key, t)
        npk = ((psn - start["psn"]) & 0xFFFFFF) + 1
        xid = first(t["rpcordma.xid"])
        if d == "c":
            call(c, t, start, npk, xid, rpc, stream)
        else:
            reply(c, t, start, npk, xid, rpc, stream)


def call(c, t, start, npk, xid, rpc, stream):
    if xid in c.calls:
        return                 # the same call's SEND again
    m = rpc.get((c.client, xid, 0))
    kind = None
    if m:
        prog, vers, proc = first(m["rpc.program"]), first(m["rpc.programversion"]), first(m["rpc.procedure"])
        ops = nums(m["nfs.opcode"]) if prog == 100003 and vers == 4 and proc == 1 else []
        kind = (prog, vers, proc, tuple(ops))
    c.calls[xid] = {"xid": xid, "frame": start["n"], "ts": start["ts"], "kind": kind, "segs": segments(t), "npk": npk,
                    "reply": None, "resent": False, "read_bytes": 0, "write_bytes": 0}
    c.ranges.append((stream, start["psn"], npk, xid, "request", start["n"]))


def reply(c, t, start, npk, xid, rpc, stream):
    k = c.calls.get(xid)
    if k is None:
        c.replies_unmatched += 1
        return
    if k["reply"] is not None:
        # The reply's SEND again: the requester took the last sending, so
        # the call's latency runs to it.
        if start["psn"] == k["reply"]["psn"]:
            k["reply"]["frame"], k["reply"]["ts"] = start["n"], start["ts"]
            k["reply"]["sendings"][start["n"]] = start["ts"]
        return
    nomsg = first(t["rpcordma.msg_type"]) == 1
    m = rpc.get((c.server, xid, 1))
    err, status, read = None, None, True
    if m:
        # tshark's decode: inline (RDMA_MSG), or for RDMA_NOMSG the RPC
        # message it put together from the WRITEs into the reply chunk.
        rs, acc, st = first(m["rpc.replystat"]), first(m["rpc.state_accept"]), nums(m["nfs.status"])
    elif nomsg and k.get("chunk_first"):
        rs, acc, st = chunk_reply(k)   # tshark could not put it together: the first WRITE's bytes
    else:
        read, rs, acc, st = not nomsg, 0, 0, []
    if rs != 0 or acc != 0:
        err = "rpc"
    elif st and st[0] != 0:
        err, status = "nfs", st[0]
    elif st:
        status = st[0]
    k["reply"] = {"frame": start["n"], "ts": start["ts"], "nomsg": not read, "err": err, "status": status,
                  "first_frame": start["n"], "psn": start["psn"], "sendings": {start["n"]: start["ts"]}}
    c.ranges.append((stream, start["psn"], npk, xid, "response", start["n"]))


RAW = []   # the sample's frames' bytes (pcaprecs), for what tshark does not decode


def chunk_reply(k):
    """The RPC reply at the start of a reply chunk (RFC 8166 3.5.4), read
    here from the bytes of the first WRITE into it (RFC 5531 9: xid, REPLY,
    reply_stat, verifier, accept_stat; then the results' first word, the
    NFS status, for an NFS procedure other than NULL): reply_stat,
    accept_stat, [status]."""
    b = RAW[k["chunk_first"] - 1][4]
    off = 14 + (b[14] & 0xF) * 4 + 8 + 12 + 16      # Ethernet, IPv4, UDP, BTH, RETH
    w = [int.from_bytes(b[off + 4 * i:off + 4 * i + 4], "big") for i in range((len(b) - off - 4) // 4)]
    ck("call %d: its reply chunk begins with its RPC reply" % k["frame"], w[0] == k["xid"] and w[1] == 1, str(w[:3]))
    if w[2] != 0:
        return w[2], 0, []
    i = 5 + (w[4] + 3) // 4                          # past the verifier
    kind = k["kind"] or (0, 0, 0, ())
    nfs = kind[0] == 100003 and kind[2] != 0
    return 0, w[i], [w[i + 1]] if nfs and w[i] == 0 else []


def transfer(c, t, d, mtu):
    """A READ request or first WRITE packet the server sent: the pending call whose segment it uses."""
    if d != "s":
        return
    read = t["op"] == READ_REQ
    rkey, va, ln = first(t["infiniband.reth.r_key"]), first(t["infiniband.reth.va"]), \
        first(t["infiniband.reth.dmalen"]) or 0
    if read:
        c.reads += 1
        c.read_bytes += ln
    else:
        c.writes += 1
        c.write_bytes += ln
    want = (0,) if read else (1, 2)
    # The waiting calls, newest first; then those answered, the latest
    # answered first (a transfer re-sent after the reply, its first sending
    # not captured).
    calls = list(c.calls.values())
    waiting = [k for k in reversed(calls) if k["reply"] is None]
    answered = sorted((k for k in calls if k["reply"] is not None), key=lambda k: -k["reply"]["first_frame"])
    for k in waiting + answered:
        if any(s[0] in want and s[1] == rkey and s[3] <= va < s[3] + max(s[2], 1) for s in k["segs"]):
            k["read_bytes" if read else "write_bytes"] += ln
            rc = [s for s in k["segs"] if s[0] == 2][:1]
            if not read and k["reply"] is None and rc and rc[0][1] == rkey and rc[0][3] == va:
                k.setdefault("chunk_first", t["n"])     # the first WRITE to the reply chunk's start
            npk = packets(ln, mtu)
            c.ranges.append((("s", "req"), t["psn"], 1 if read else npk, k["xid"], "transfer", t["n"]))
            k["transfers_late"] = k["reply"] is not None
            if read:
                c.ranges.append((("c", "rsp"), t["psn"], npk, k["xid"], "transfer", t["n"]))
            return
    c.untied += 1


def mark_resent(c):
    for stream, p0, npk, xid, _, _ in c.ranges:
        if any((stream, (p0 + i) & 0xFFFFFF) in c.resent for i in range(npk)):
            c.calls[xid]["resent"] = True


def range_of(c, stream, psn, frame):
    """The newest range known by `frame` (registered at or before it) that holds the packet."""
    for r in reversed(c.ranges):
        if r[0] == stream and r[5] <= frame and ((psn - r[1]) & 0xFFFFFF) < r[2]:
            return r
    return None


ULP_COLS = ["ulp_pdu", "ulp_op", "ulp_tag", "ulp_request_frame", "ulp_latency_ns", "ulp_resent", "ulp_failed"]


def expected_frames(c, fr):
    """Per frame of the connection: what it is to its call, as the ranges
    known by then say, and whether the fabric had re-sent a packet of the
    call by then (a packet of its ranges, counted from that packet on)."""
    first_resent = {}
    for n, stream, psn in c.resent_at:
        for r in c.ranges:
            if r[0] == stream and ((psn - r[1]) & 0xFFFFFF) < r[2]:
                first_resent.setdefault(r[3], n)
    want = {}
    for t in fr:
        d = c.dir_of(t)
        if d is None:
            continue
        if t["op"] == ACK:
            want[t["n"]] = None
            continue
        stream = (d, "rsp" if t["op"] in READ_RSP else "req")
        r = range_of(c, stream, t["psn"], t["n"])
        if r is None:
            want[t["n"]] = None
            continue
        k = c.calls[r[3]]
        w = {"ulp_pdu": r[4], "ulp_tag": str(k["xid"]),
             "ulp_request_frame": "" if r[4] == "request" else str(k["frame"]),
             "ulp_resent": "1" if first_resent.get(k["xid"], 1 << 60) <= t["n"] else ""}
        if r[4] == "response" and k["reply"] and t["n"] in k["reply"]["sendings"]:
            w["ulp_latency_ns"] = str(k["reply"]["sendings"][t["n"]] - k["ts"])
            w["ulp_failed"] = "1" if k["reply"]["err"] else ""
        want[t["n"]] = w
    return want


def check_frames(name, conns, fr):
    """--fields --verdicts: every frame of a call says which call (XID, the
    call's frame), what it is (call, transfer of its chunks, reply), a
    reply's latency and failure, and whether the fabric had re-sent a
    packet of the call by then; no other frame of the connection names a
    call. --annotate's comments, read back by tshark, say the same."""
    path = os.path.join(S, name + ".pcap")
    p = subprocess.run([ROCESTAT, "--fields", "--verdicts", path], capture_output=True, text=True)
    lines = p.stdout.splitlines()
    if not ck("%s: --fields --verdicts ran" % name, p.returncode == 0 and lines, p.stderr[-300:]):
        return
    head = lines[0].split(",")
    if not ck("%s: the ulp_* columns" % name, all(col in head for col in ULP_COLS), str(head[-10:])):
        return
    rows = {}
    for line in lines[1:]:
        row = dict(zip(head, line.split(",")))
        rows[int(row["frame"])] = row
    want = {}
    for c in conns:
        want.update(expected_frames(c, fr))
    bad = 0
    for n, w in sorted(want.items()):
        row = rows.get(n, {})
        if w is None:
            bad += not ck("%s: frame %d names no call" % (name, n), row.get("ulp_tag") == "" and row.get("ulp_pdu") == "",
                          "%r" % {col: row.get(col) for col in ULP_COLS})
            continue
        for col, v in w.items():
            bad += not ck("%s: frame %d: %s" % (name, n, col), row.get(col) == v, "rocestat %r, tshark %r" % (row.get(col), v))
    print("%s: %d frames compared column by column, %d differences" % (name, len(want), bad))
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "a.pcapng")
        p = subprocess.run([ROCESTAT, "--annotate", out, path], capture_output=True, text=True)
        if not ck("%s: --annotate ran" % name, p.returncode == 0 and os.path.exists(out), p.stderr[-300:]):
            return
        comments = {int(r[0]): r[1] for r in tshark_fields(out, ["frame.number", "frame.comment"])}
    for n, w in sorted(want.items()):
        if w is None:
            continue
        cm = comments.get(n, "")
        ok = ("NFS/RDMA: " in cm and ("XID 0x%08x" % int(w["ulp_tag"])) in cm
              and (w["ulp_pdu"] == "request" or ("(call frame %s)" % w["ulp_request_frame"]) in cm)
              and (("the fabric re-sent a packet of this call" in cm) == bool(w["ulp_resent"])))
        ck("%s: frame %d: its comment" % (name, n), ok, repr(cm[-200:]))


def conns_of(doc):
    out = []
    for j in doc["connections"]:
        if j.get("ulp") != "NFS/RDMA":
            continue
        out.append(Conn(j["id"], j["client"]["address"], j["client"]["qpn"], j["server"]["address"],
                        j["server"]["qpn"]))
    return out


def kind_key(o):
    return (o["program"], o["version"], o["procedure"], tuple(o.get("operations") or []), o.get("operations_more"))


def resolve_kinds(c, got):
    """A call whose SEND took several packets: rocestat reads its first
    packet only (reassembly is not its job here), so its kind is the
    operations there, a prefix of tshark's, marked operations_more."""
    for k in c.calls.values():
        if k["kind"] is None:
            continue
        prog, vers, proc, ops = k["kind"]
        k["key"] = (prog, vers, proc, ops, False)
        if k["npk"] > 1 and ops:
            for g in got:
                if g[:3] == (prog, vers, proc) and g[4] and len(g[3]) < len(ops) and ops[:len(g[3])] == g[3]:
                    k["key"] = g


def lat_of(vals):
    if not vals:
        return None
    v = sorted(vals)
    return {"count": len(v), "min": v[0], "median": nearest_rank(v, 0.5), "p99": nearest_rank(v, 0.99),
            "max": v[-1]}


def expected_kinds(c):
    per = collections.OrderedDict()
    for k in c.calls.values():
        if k["kind"] is None:
            continue
        e = per.setdefault(k["key"], {"calls": 0, "replies": 0, "errors": 0, "resent": 0, "lat": [],
                                       "rdma_read_bytes": 0, "rdma_write_bytes": 0})
        e["calls"] += 1
        e["resent"] += k["resent"]
        e["rdma_read_bytes"] += k["read_bytes"]
        e["rdma_write_bytes"] += k["write_bytes"]
        if k["reply"]:
            e["replies"] += 1
            e["errors"] += k["reply"]["err"] is not None
            e["lat"].append(k["reply"]["ts"] - k["ts"])
    return per


def check_conn(name, c, j):
    w = "%s: connection %d" % (name, c.id)
    calls = list(c.calls.values())
    answered = [k for k in calls if k["reply"]]
    segs = [s for k in calls for s in k["segs"]]
    want = {
        "calls": len(calls),
        "replies": len(answered),
        "unanswered": len(calls) - len(answered),
        "replies_unmatched": c.replies_unmatched,
        "calls_resent_for": sum(k["resent"] for k in calls),
        "rpc_errors": sum(1 for k in answered if k["reply"]["err"] == "rpc"),
        "nfs_errors": sum(1 for k in answered if k["reply"]["err"] == "nfs"),
        "status_not_read": sum(1 for k in answered if k["reply"]["nomsg"]),
        "read_segments": sum(1 for s in segs if s[0] == 0),
        "read_chunk_bytes": sum(s[2] for s in segs if s[0] == 0),
        "write_segments": sum(1 for s in segs if s[0] == 1),
        "write_chunk_bytes": sum(s[2] for s in segs if s[0] == 1),
        "reply_segments": sum(1 for s in segs if s[0] == 2),
        "reply_chunk_bytes": sum(s[2] for s in segs if s[0] == 2),
        "rdma_reads": c.reads, "rdma_read_bytes": c.read_bytes,
        "rdma_writes": c.writes, "rdma_write_bytes": c.write_bytes, "rdma_untied": c.untied,
    }
    for key, v in want.items():
        ck("%s: %s" % (w, key), j.get(key) == v, "rocestat %r, tshark %r" % (j.get(key), v))
    ck("%s: no outstanding calls forgotten" % w, j.get("calls_forgotten") == 0, str(j.get("calls_forgotten")))
    # per kind
    got = {kind_key(o): o for o in j.get("by_operation", [])}
    resolve_kinds(c, got)
    per = expected_kinds(c)
    ck("%s: the kinds of calls" % w, set(got) == set(per),
       "rocestat only %s; tshark only %s" % (sorted(set(got) - set(per))[:4], sorted(set(per) - set(got))[:4]))
    for kind, e in per.items():
        o = got.get(kind)
        if o is None:
            continue
        for key in ("calls", "replies", "errors", "resent", "rdma_read_bytes", "rdma_write_bytes"):
            ck("%s: %s: %s" % (w, o.get("name"), key), o.get(key) == e[key], "rocestat %r, tshark %r" % (o.get(key), e[key]))
        ck("%s: %s: latency" % (w, o.get("name")), o.get("latency_ns") == lat_of(e["lat"]),
           "rocestat %r, tshark %r" % (o.get("latency_ns"), lat_of(e["lat"])))
    # the slowest calls
    slow = sorted(answered, key=lambda k: (-(k["reply"]["ts"] - k["ts"]), k["frame"]))[:SLOWEST]
    want_slow = [(k["frame"], k["reply"]["frame"], k["reply"]["ts"] - k["ts"], k["xid"], k["resent"]) for k in slow]
    got_slow = [(s.get("call_frame"), s.get("reply_frame"), s.get("latency_ns"), s.get("xid"), s.get("resent"))
                for s in j.get("slowest", [])]
    ck("%s: the slowest calls" % w, got_slow == want_slow, "rocestat %r, tshark %r" % (got_slow, want_slow))
    slow = sorted((k for k in answered if k["resent"]), key=lambda k: (-(k["reply"]["ts"] - k["ts"]), k["frame"]))
    want_slow = [(k["frame"], k["reply"]["frame"], k["reply"]["ts"] - k["ts"], k["xid"], True) for k in slow[:SLOWEST]]
    got_slow = [(s.get("call_frame"), s.get("reply_frame"), s.get("latency_ns"), s.get("xid"), s.get("resent"))
                for s in j.get("slowest_resent", [])]
    ck("%s: the slowest calls re-sent for" % w, got_slow == want_slow, "rocestat %r, tshark %r" % (got_slow, want_slow))
    # errors and unanswered calls
    want_err = sorted((k["frame"], k["reply"]["frame"], k["xid"], k["reply"]["status"])
                      for k in answered if k["reply"]["err"])
    want_err.sort(key=lambda e: [k["reply"]["first_frame"] for k in answered if k["xid"] == e[2]][0])  # replies' order
    got_err = [(e.get("call_frame"), e.get("reply_frame"), e.get("xid"), e.get("status")) for e in j.get("errors", [])]
    ck("%s: the failed calls" % w, got_err == want_err[:len(got_err)] and j.get("errors_total") == len(want_err),
       "rocestat %r (%r), tshark %r" % (got_err, j.get("errors_total"), want_err))
    want_un = [(k["frame"], k["xid"]) for k in calls if not k["reply"]]
    got_un = [(u.get("call_frame"), u.get("xid")) for u in j.get("unanswered_calls", [])]
    ck("%s: the calls never answered" % w, got_un == want_un[:len(got_un)] and len(got_un) == min(len(want_un), 8),
       "rocestat %r, tshark %r" % (got_un, want_un))
    return per


def mountstats(path):
    """Each mount's per-op counts {name: (ops, errors)}, in order."""
    mounts, cur = [], None
    for line in open(path):
        line = line.strip().lstrip("|").strip()
        if line.startswith("device ") and " fstype nfs" in line:
            cur = {}
            mounts.append(cur)
        elif cur is not None:
            m = re.match(r"^([A-Z_0-9]+): (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)(?: (\d+))?$", line)
            if m:
                cur[m.group(1)] = (int(m.group(2)), int(m.group(10) or 0))
    return mounts


def check_truth(name, js):
    """The JSON's kinds against the client's own counts."""
    mounts = mountstats(os.path.join(S, name + ".truth.txt"))
    if not ck("%s: two mounts in the truth, two NFS/RDMA connections" % name, len(mounts) == 2 and len(js) == 2,
              "%d mounts, %d connections" % (len(mounts), len(js))):
        return
    v3 = {o["procedure"]: o for o in js[0].get("by_operation", []) if o["program"] == 100003 and o["version"] == 3}
    for op, (count, errors) in mounts[0].items():
        o = v3.get(NFS3.index(op), {})
        ck("%s: NFSv3 %s calls = mountstats" % (name, op), o.get("calls", 0) == count, "%r vs %d" % (o.get("calls"), count))
        ck("%s: NFSv3 %s errors = mountstats" % (name, op), o.get("errors", 0) == errors, "%r vs %d" % (o.get("errors"), errors))
    v4 = [o for o in js[1].get("by_operation", []) if o["program"] == 100003 and o["version"] == 4]
    for op, code in V4_MAIN.items():
        got = sum(o["calls"] for o in v4 if code in (o.get("operations") or []))
        want = mounts[1].get(op, (None,))[0]
        ck("%s: NFSv4.1 COMPOUNDs with %s = mountstats" % (name, op), got == want, "%d vs %s" % (got, want))
    # The failed OPENs (NFS4ERR_GRACE: the server just started) and
    # LOOKUPs, whose replies went in a reply chunk (OPEN) or inline, and
    # the READDIR whose reply chunk tshark could not put together: errors
    # as the client counted them.
    for op, code in (("OPEN", 18), ("LOOKUP", 15), ("READDIR", 26)):
        got = sum(o["errors"] for o in v4 if code in (o.get("operations") or []))
        want = mounts[1].get(op, (None, None))[1]
        ck("%s: NFSv4.1 COMPOUNDs with %s: errors = mountstats" % (name, op), got == want, "%d vs %s" % (got, want))


def check_text(name, js):
    """The summary's NFS/RDMA section fits the width, names the slowest
    calls with their frames and says, for each, whether anything was re-sent."""
    path = os.path.join(S, name + ".pcap")
    for width in (80, 120):
        out = subprocess.run([ROCESTAT, "-n", "--width", str(width), path], capture_output=True, text=True).stdout
        sec = out.split("\nNFS/RDMA (", 1)
        if not ck("%s: --width %d: an NFS/RDMA section" % (name, width), len(sec) == 2):
            continue
        body = sec[1].split("\n\n", 1)[0]
        wide = [ln for ln in body.split("\n") if len(ln) > width]
        ck("%s: --width %d: no line wider" % (name, width), not wide, str(wide[:2]))
        flat = " ".join(body.split())
        for j in js:
            for c in j.get("slowest", [])[:3] + j.get("slowest_resent", [])[:3]:
                said = "%d → %d %s; %s" % (c["call_frame"], c["reply_frame"], c["operation"],
                                           "packets re-sent" if c["resent"] else "nothing re-sent")
                ck("%s: --width %d: the text says %r" % (name, width, said), said in flat)


def main():
    for name in SAMPLES:
        path = os.path.join(S, name + ".pcap")
        doc = rocestat_json(path)
        conns = conns_of(doc)
        fr = frames(path)
        RAW[:] = pcaprecs.read_pcap(path)[1]
        analyse(fr, conns, path_mtu(fr))
        js = []
        for c in conns:
            mark_resent(c)
            j = next(x for x in doc["connections"] if x["id"] == c.id).get("nfs_rdma")
            if not ck("%s: connection %d has an nfs_rdma member" % (name, c.id), isinstance(j, dict)):
                js.append({})
                continue
            js.append(j)
            check_conn(name, c, j)
        ck("%s: two NFS/RDMA connections" % name, len(conns) == 2, str(len(conns)))
        check_truth(name, js)
        check_text(name, js)
        check_frames(name, conns, fr)
        resent = sum(k["resent"] for c in conns for k in c.calls.values())
        print("%s: %d calls, %d re-sent for (tshark's fields)" % (name, sum(len(c.calls) for c in conns), resent))
        if name == "rxe_nfs":
            ck("%s: nothing re-sent on the clean run" % name, resent == 0, str(resent))
        else:
            ck("%s: the loss run re-sent for some calls" % name, resent > 0, str(resent))
    print("check_nfsrdma: %d checks, %d failed" % (ck.checks, ck.failures))
    return 1 if ck.failures else 0


if __name__ == "__main__":
    sys.exit(main())
