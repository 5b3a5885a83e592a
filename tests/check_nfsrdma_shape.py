#!/usr/bin/env python3
"""NFS/RDMA recognised by shape, without a CM handshake.

Captures without CM are made here from the NFS/RDMA samples that have it
(samples/rxe_nfs.pcap, rxe_nfs_loss.pcap): tshark lists the frames to QP 1
(the CM's MADs) and editcap deletes them. The oracle is tshark's decode of
the ORIGINAL (infiniband, rpcordma, rpc fields), mapped onto the copy's
frame numbers.

For each NFS/RDMA connection of the original, the copy must have a queue
without CM (JSON ulp_queues) told by shape, with the client and server QPs
of the CM connection as host and target, and the evidence the man page's
rule gives, computed here from tshark's RPC-over-RDMA headers (a header is
at the first packet of its SEND; tshark shows a SEND of several packets at
its last one): the first NFS call (program 100003 or 100227) says the
client; a reply from the server whose XID is a call of the client's still
waiting is a tie; the 4th tie tells it (told_frame); pdus_matched counts
the headers from the pair's first SEND to it; first_frame is the pair's
first SEND. Its figures (the JSON nfs_rdma member) equal the CM
connection's in the original (check_nfsrdma.py checks those against
tshark), frame numbers mapped: the queue is fed from the first call on, so
no call is lost. The text summary names it "queue without CM".

Negatives, none of which may be recognised as NFS/RDMA: NVMe-oF without CM
(samples/rxe_nvme_nocm.pcap), iSER, SMB Direct and NVMe-oF with their CM
cut (rxe_iser*, smbd_gen*, rxe_nvme), plain RC traffic with its CM cut
(rxe_send*, rxe_write, rxe_read, rxe_rnr, rxe_mixed, rping) and without
(rc_pingpong); the first 1, 2 and 3 ties of a queue (and 4 must be); and a
queue one of whose headers before the 4th tie was made to say 0 credits
(one wrong-looking header ends the look), the other queue still told.
Per frame (--fields --verdicts): no protocol columns up to the frame that
told it, nfs-rdma/shape after it, each SEND Only naming its XID. --ulp
qp:QPN=nfs names a pair (told at its first frame, the figures by shape);
a copy that starts at a reply is recognised, counting from its first NFS
call on.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcaprecs  # noqa: E402
import shapelib  # noqa: E402
from testlib import ROOT, SHARED, Checks  # noqa: E402
import check_nfsrdma as nfs  # noqa: E402  (its tshark reading; importing runs no check)
import jsonschema  # noqa: E402

ck = Checks("check_nfsrdma_shape")
S = os.path.join(ROOT, "samples")
TMP = tempfile.mkdtemp(prefix="check_nfsrdma_shape.")
SH = shapelib.Shape(ck, TMP)
run, doc, fields, without_cm, cut_frames = SH.run, SH.doc, SH.fields, SH.without_cm, SH.cut_frames
TIES = 4                      # the man page's rule: 4 replies tied by XID
NFS_PROGS = (100003, 100227)  # NFS, NFS_ACL: the calls that say which side is the client


def headers(c, fr):
    """The connection's RPC-over-RDMA headers in the order their SENDs
    began: (first frame, 'c'|'s', xid, what, program), what being 'call',
    'reply' or 'other'."""
    start, out = {}, []
    for t in fr:
        d = c.dir_of(t)
        if d is None:
            continue
        if t["op"] == nfs.SEND_FIRST or t["op"] in nfs.SEND_ONLY:
            start[d] = t
        if not t["rpcordma.xid"] or not (t["op"] in nfs.SEND_ONLY or t["op"] in nfs.SEND_LAST):
            continue
        s = start.get(d, t)
        mt, rt = nfs.first(t["rpcordma.msg_type"]), nfs.first(t["rpc.msgtyp"])
        if mt == 0 and rt is not None:
            what = "call" if rt == 0 else "reply"
        elif mt in (0, 1):
            # RDMA_NOMSG, or an RDMA_MSG whose RPC tshark did not decode: a
            # call from the client, a reply from the server
            what = "call" if d == "c" else "reply"
        elif mt == 4:      # RDMA_ERROR: the server's answer
            what = "reply"
        else:
            what = "other"
        prog = nfs.first(t["rpc.program"]) if what == "call" else None
        out.append((s["n"], d, nfs.first(t["rpcordma.xid"]), what, prog))
    return sorted(out)


def ties(hs):
    """The frames of the replies tied to a waiting call, from the first NFS call on."""
    pending, at, sides = set(), [], False
    for n, d, xid, what, prog in hs:
        if not sides and what == "call" and d == "c" and prog in NFS_PROGS:
            sides = True
        if not sides:
            continue
        if what == "call" and d == "c":
            pending.add(xid)
        elif what == "reply" and d == "s" and xid in pending:
            pending.discard(xid)
            at.append(n)
    return at


def mapped(o, m):
    """A JSON value with every *_frame number mapped onto the copy's."""
    if isinstance(o, dict):
        return {k: (m.get(v, -v) if k.endswith("_frame") and isinstance(v, int) else mapped(v, m)) for k, v in o.items()}
    if isinstance(o, list):
        return [mapped(v, m) for v in o]
    return o


def check_sample(name):
    path = os.path.join(S, name + ".pcap")
    orig = doc(path)
    conns = nfs.conns_of(orig)
    fr = nfs.frames(path)
    copy, m = without_cm(path, name + "_nocm")
    d = doc(copy)
    uqs = [u for u in d.get("ulp_queues", []) if u.get("ulp") == "NFS/RDMA"]
    ck(name + ": a queue without CM per NFS/RDMA connection", len(uqs) == len(conns) == 2 and not d["connections"],
       "%d vs %d" % (len(uqs), len(conns)))
    sends = [t["n"] for t in fr if t["op"] in (nfs.SEND_FIRST, 4, 5, 23)]
    told_at = {}
    for c in conns:
        j = next(x for x in orig["connections"] if x["id"] == c.id)
        uq = [u for u in uqs if u["host"]["qpn"] == c.cqp and u["target"]["qpn"] == c.sqp]
        if not ck(name + ": queue of QP 0x%x found" % c.sqp, len(uq) == 1):
            continue
        hs = headers(c, fr)
        tied = ties(hs)
        if not ck(name + ": at least %d ties" % TIES, len(tied) >= TIES, str(tied)):
            continue
        told = tied[TIES - 1]
        told_at[c.sqp] = (told, c)
        first = min(n for n in sends if c.dir_of(next(t for t in fr if t["n"] == n)))
        want = {"told_by": "shape", "ulp": "NFS/RDMA", "answers_tied": TIES, "told_frame": m[told],
                "pdus_matched": sum(1 for h in hs if h[0] <= told), "first_frame": m[first],
                "host": {"address": c.client, "qpn": c.cqp}, "target": {"address": c.server, "qpn": c.sqp}}
        got = {k: uq[0].get(k) for k in want}
        ck(name + ": QP 0x%x evidence and ends" % c.sqp, got == want, "%s vs %s" % (got, want))
        want_fig = mapped(j.get("nfs_rdma"), m)
        got_fig = uq[0].get("nfs_rdma")
        diff = sorted(k for k in set(want_fig or {}) | set(got_fig or {})
                      if (want_fig or {}).get(k) != (got_fig or {}).get(k))
        ck(name + ": QP 0x%x figures equal the CM connection's" % c.sqp, want_fig and got_fig == want_fig,
           "differ: %s" % diff[:6])
        check_columns(name, c, fr, m, told, copy)
        print("  %s QP 0x%x: told at frame %d (copy %d) by %d headers, %d calls" %
              (name, c.sqp, told, m[told], want["pdus_matched"], (got_fig or {}).get("calls", -1)))
    schema = json.load(open(os.path.join(ROOT, "man", "rocestat.schema.json")))
    errs = list(jsonschema.Draft202012Validator(schema).iter_errors(d))
    ck(name + ": the JSON validates", not errs, "; ".join(e.message[:150] for e in errs[:2]))
    text = run(copy).stdout
    ck(name + ": the text names the queues without CM", text.count("  queue without CM ") == 2
       and "NFS/RDMA recognised by" in text, text[-300:])
    return copy, m, told_at


FIELDS = {}


def check_columns(name, c, fr, m, told, copy):
    """Per frame with a payload: no protocol columns up to the frame that
    told it, the ulp column nfs-rdma/shape after it; each SEND tshark
    shows with an XID (a SEND Only) names that XID after it."""
    f = FIELDS.setdefault(copy, fields(copy))
    bad_before = bad_after = bad_xid = n_after = 0
    for t in fr:
        if c.dir_of(t) is None or t["op"] == nfs.ACK:
            continue
        r = f.get(m[t["n"]], {})
        if t["n"] <= told:
            bad_before += r.get("ulp") != "" or r.get("ulp_tag") != ""
            continue
        n_after += 1
        bad_after += r.get("ulp") != "nfs-rdma/shape"
        if t["op"] in nfs.SEND_ONLY and t["rpcordma.xid"]:
            bad_xid += nfs.num(r.get("ulp_tag")) != nfs.first(t["rpcordma.xid"])
    ck(name + ": QP 0x%x: no protocol columns up to the frame that told it" % c.sqp, not bad_before, str(bad_before))
    ck(name + ": QP 0x%x: %d frames after it say nfs-rdma/shape" % (c.sqp, n_after), n_after and not bad_after,
       str(bad_after))
    ck(name + ": QP 0x%x: SEND Onlys after it name their XID" % c.sqp, not bad_xid, str(bad_xid))


def check_qp_rule(copy, told_at):
    """--ulp qp:QPN=nfs names the pair from its first NFS call on: told
    there (the client's side known), the figures those by shape give."""
    by_shape = {u["target"]["qpn"]: u for u in doc(copy).get("ulp_queues", [])}
    for qp in told_at:
        d = doc("--ulp", "qp:0x%x=nfs" % qp, copy)
        uq = [u for u in d.get("ulp_queues", []) if u["target"]["qpn"] == qp]
        ck("qp:0x%x=nfs names the pair, told by qp" % qp, len(uq) == 1 and uq[0]["told_by"] == "qp"
           and uq[0]["qp_rule"] == qp and uq[0]["ulp"] == "nfs", str(uq)[:200])
        if uq and qp in by_shape:
            ck("qp:0x%x=nfs: the figures by shape" % qp, uq[0].get("nfs_rdma") == by_shape[qp].get("nfs_rdma"))
            ck("qp:0x%x=nfs: told at the first frame" % qp, uq[0]["told_frame"] == uq[0]["first_frame"],
               "%s %s" % (uq[0]["told_frame"], uq[0]["first_frame"]))


def check_mid_stream(copy, m, told_at):
    """A capture that starts after the first calls (its first SENDs replies
    to calls before it): recognised later, those replies unmatched."""
    told, c = max(told_at.values(), key=lambda x: x[0])
    hs = headers(c, nfs.frames(os.path.join(S, "rxe_nfs.pcap")))
    first_reply = next(h[0] for h in hs if h[3] == "reply" and h[0] > hs[2][0])
    start = m[first_reply]
    part = cut_frames(copy, "mid", set(range(start, max(m.values()) + 1)))
    uq = [u for u in doc(part).get("ulp_queues", []) if u["target"]["qpn"] == c.sqp]
    ck("started at a reply (copy frame %d): recognised" % start, len(uq) == 1 and uq[0]["told_by"] == "shape", str(uq)[:200])
    if uq:
        # The queue counts from the first NFS call on (the man page): the
        # replies before it are the shape's evidence only.
        kept = [h for h in hs if h[0] >= first_reply]
        first_call = next(h[0] for h in kept if h[3] == "call" and h[1] == "c" and h[4] in NFS_PROGS)
        calls = len({h[2] for h in kept if h[3] == "call" and h[1] == "c" and h[0] >= first_call})
        n = uq[0].get("nfs_rdma", {})
        got = (n.get("calls"), n.get("replies_unmatched"), uq[0]["pdus_matched"] >= 1 + hs.index(
            next(h for h in hs if h[0] == first_call)) - hs.index(next(h for h in hs if h[0] == first_reply)))
        ck("started at a reply: the calls from the first NFS call on, no reply unmatched, the replies before "
           "counted as evidence", got == (calls, 0, True), "%s vs %s" % (got, (calls, 0, True)))


def not_nfs(what, path):
    d = doc(path)
    ck(what + ": not recognised as NFS/RDMA", not [u for u in d.get("ulp_queues", []) if u["ulp"] == "NFS/RDMA"],
       str([u["ulp"] for u in d.get("ulp_queues", [])]))


def check_few_ties(copy, m, told_at, fr_copy):
    """Up to the 1st, 2nd, 3rd tie: not told; up to the 4th: told there."""
    told, c = min(told_at.values(), key=lambda x: x[0])
    hs = headers(c, nfs.frames(os.path.join(S, "rxe_nfs.pcap")))
    tied = ties(hs)
    for k in range(1, TIES + 1):
        upto = m[tied[k - 1]]
        d = doc(cut_frames(copy, "first_%d" % k, set(range(1, upto + 1))))
        got = [u["told_frame"] for u in d.get("ulp_queues", []) if u["ulp"] == "NFS/RDMA"]
        if k < TIES:
            ck("%d tie(s) only: not recognised" % k, not got, str(got))
        else:
            ck("%d ties: recognised at that frame" % k, got == [upto], str(got))
    # One header that lies (credits 0) before the 4th tie: that queue is refused.
    n = m[hs[2][0]]
    linktype, recs, _ = pcaprecs.read_pcap(copy)
    b = bytearray(recs[n - 1][4])
    off = next(i for i in range(len(b) - 16) if b[i:i + 8] == hs[2][2].to_bytes(4, "big") + b"\0\0\0\1")
    ck("the third header's credits are not 0", b[off + 8:off + 12] != b"\0\0\0\0")
    b[off + 8:off + 12] = b"\0\0\0\0"
    recs[n - 1] = recs[n - 1][:4] + (bytes(b),)
    bad = os.path.join(TMP, "credits0.pcap")
    pcaprecs.write_pcap(bad, linktype, recs)
    left = sorted(u["target"]["qpn"] for u in doc(bad).get("ulp_queues", []) if u["ulp"] == "NFS/RDMA")
    ck("a header with 0 credits: its queue not recognised, the other is",
       left == sorted(q for q in told_at if q != c.sqp), str(left))


def check_negatives():
    not_nfs("rxe_nvme_nocm", os.path.join(S, "rxe_nvme_nocm.pcap"))
    for s in ["rxe_iser", "rxe_iser_loss", "smbd_gen", "smbd_gen_loss", "rxe_nvme", "rxe_mixed", "rxe_send",
              "rxe_send_imm", "rxe_send_inline", "rxe_send_ipv6", "rxe_send_multi", "rxe_write", "rxe_read",
              "rxe_rnr", "rping_s64"]:
        c, _ = without_cm(os.path.join(S, s + ".pcap"), s + "_nocm")
        not_nfs(s + " without CM", c)
    for s in ["rping_s5000", "ib_send_bw_cm"]:
        p = os.path.join(SHARED, "captures", s + ".pcap")
        if os.path.exists(p):
            c, _ = without_cm(p, s + "_nocm")
            not_nfs(s + " without CM", c)
    p = os.path.join(SHARED, "captures", "rc_pingpong.pcap")
    if os.path.exists(p):
        not_nfs("rc_pingpong (no CM)", p)


def main():
    copy = None
    for name in nfs.SAMPLES:
        c, m, told_at = check_sample(name)
        if name == "rxe_nfs":
            copy, cm, ct = c, m, told_at
    if copy and len(ct) == 2:
        check_few_ties(copy, cm, ct, None)
        check_qp_rule(copy, ct)
        check_mid_stream(copy, cm, ct)
    check_negatives()
    failures = ck.failures + nfs.ck.failures
    print("check_nfsrdma_shape: %d checks, %d failed" % (ck.checks + nfs.ck.checks, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
