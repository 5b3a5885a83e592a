#!/usr/bin/env python3
"""SMB Direct recognised by shape, without a CM handshake, on the GENERATED
samples (samples/smbd_gen*.pcap; Debian's kernel has no SMB Direct).

Captures without CM are made here from the samples: tshark lists the
frames to QP 1 (the CM's MADs) and editcap deletes them. The oracles are
tshark's smb_direct/smb2 decode of the originals (mapped onto the copies'
frame numbers) and the generator's truth (samples/smbd_gen*.requests.json,
its frames mapped likewise):

- the told frame is the one of the 4th SMB2 response tshark shows whose
  MessageId a request seen before on the pair still waits for (interim
  STATUS_PENDING responses included, a SEND sent again counted once);
  pdus_matched counts the SENDs that start a message on the pair up to it;
  first_frame is the pair's first SEND; host and target are the CM
  connection's client and server;
- the queue's JSON smbd member is held to the generator's plan by
  check_smbd_state.check_truth (requests, responses, interim, per command
  counts and latencies, the slowest, failed and re-sent requests with their
  frames, RDMA transfers, fragments, credits, negotiate), so nothing before
  recognition is lost;
- per frame (--fields --verdicts): up to the told frame no protocol
  columns; after it the ulp column says smb-direct/shape, and every final
  response of the plan names its request's frame, command, MessageId and
  latency.

Negatives, none of which may be recognised as SMB Direct: RC SEND traffic
of other kinds (samples/rxe_send*.pcap, rping_s64), NFS/RDMA, iSER and
NVMe-oF without their CM; the first 1, 2 and 3 ties (4 must be: the rule's
number); a data transfer message with its reserved field set, an SMB2
request with the response flag (requests both ways) and one without its
protocol ID, each before the told frame. A request sent twice before the
told frame counts once, its packet re-sent. --ulp qp:QPN=smb names the pair
(told_by qp) with the same figures.
"""
import copy
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcaprecs  # noqa: E402
import shapelib  # noqa: E402
from testlib import ROOT, Checks, tshark_fields  # noqa: E402
import check_smbd_state  # noqa: E402  (its checks against the plan; importing runs none)
import jsonschema  # noqa: E402

ck = Checks("check_smbd_shape")
check_smbd_state.ck = ck
S = os.path.join(ROOT, "samples")
TMP = tempfile.mkdtemp(prefix="check_smbd_shape.")
SH = shapelib.Shape(ck, TMP)
run, doc, fields, without_cm, cut_frames = SH.run, SH.doc, SH.fields, SH.without_cm, SH.cut_frames
TIES = 4
SEND_STARTS = {0x00, 0x04, 0x05, 0x17, 0x03}  # SEND First, Only, Only with immediate, Only with invalidate; First w/ imm
STATUS_PENDING = 0x103
SMBD_AT = 14 + 20 + 8 + 12  # Ethernet, IPv4, UDP, BTH: the SEND's payload in the samples' frames
TF = ["frame.number", "ip.src", "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
      "smb_direct.credits.requested", "smb2.cmd", "smb2.msg_id", "smb2.flags.response", "smb2.nt_status",
      "smb_direct.data_length"]


def poke(path, name, frame, at, fn):
    """A copy with byte `at` of frame `frame` (1-based) replaced by fn(byte)."""
    linktype, recs, _ = pcaprecs.read_pcap(path)
    b = bytearray(recs[frame - 1][4])
    b[at] = fn(b[at])
    recs[frame - 1] = recs[frame - 1][:4] + (bytes(b),)
    out = os.path.join(TMP, name + ".pcap")
    pcaprecs.write_pcap(out, linktype, recs)
    return out


def num(s):
    s = s.split("|")[0]
    return int(s, 0) if s else None


def nums(s):
    return [int(x, 0) for x in s.split("|")] if s else []


def oracle(path):
    """tshark's decode: per frame its row; the pair's message starts (each
    PSN of a half-flow once), and the frames at which a response ties."""
    rows = [dict(zip(TF, r)) for r in tshark_fields(path, TF, None, occurrence="a", aggregator="|",
                                                     heuristics_off=False)]
    t = {int(r["frame.number"]): r for r in rows}
    seen, starts, ties, pending = set(), [], [], set()
    for n, r in sorted(t.items()):
        op = num(r["infiniband.bth.opcode"])
        if op is None or op not in SEND_STARTS:
            continue
        key = (r["ip.src"], num(r["infiniband.bth.psn"]))
        if key in seen:
            continue  # sent again: counted once
        seen.add(key)
        starts.append(n)
        for cmd, mid, rsp, st in zip(nums(r["smb2.cmd"]), nums(r["smb2.msg_id"]),
                                     [x in ("1", "True") for x in r["smb2.flags.response"].split("|") if x],
                                     nums(r["smb2.nt_status"]) or [0] * 64):
            if not rsp:
                if cmd != 12:  # CANCEL is never answered
                    pending.add(mid)
            elif mid in pending:
                ties.append(n)
                if st != STATUS_PENDING:
                    pending.discard(mid)
    return t, starts, ties


def remap_plan(plan, m):
    p = copy.deepcopy(plan)
    for r in p["requests"]:
        r["request_frames"] = [[m[f] for f in fs] for fs in r["request_frames"]]
        r["response_frames"] = [[m[f] for f in fs] for fs in r["response_frames"]]
        for i in r["interim"]:
            i["frames"] = [[m[f] for f in fs] for fs in i["frames"]]
        for x in r["transfers"]:
            x["first_frame"] = m[x["first_frame"]]
    return p


SCHEMA = json.load(open(os.path.join(ROOT, "man", "rocestat.schema.json")))


def check_sample(name):
    path = os.path.join(S, name + ".pcap")
    plan = json.load(open(os.path.join(S, name + ".requests.json")))
    sends, neg = check_smbd_state.text_truth(os.path.join(S, name + ".truth.txt"))
    t, starts, ties = oracle(path)
    cp, m = without_cm(path, name + "_nocm")
    conn = doc(path)["connections"][0]
    d = doc(cp)
    errs = list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(d))
    ck(name + ": the JSON validates", not errs, "; ".join(e.message[:150] for e in errs[:2]))
    uqs = d.get("ulp_queues", [])
    if not ck(name + ": one queue without CM, no connection", len(uqs) == 1 and not d["connections"], str(uqs)[:300]):
        return None
    uq = uqs[0]
    if not ck(name + ": at least %d ties" % TIES, len(ties) >= TIES, str(ties)):
        return None
    told = ties[TIES - 1]
    want = {"told_by": "shape", "ulp": "SMB-Direct", "answers_tied": TIES, "told_frame": m[told],
            "pdus_matched": sum(1 for n in starts if n <= told), "first_frame": m[starts[0]],
            "host": {"address": conn["client"]["address"], "qpn": conn["client"]["qpn"]},
            "target": {"address": conn["server"]["address"], "qpn": conn["server"]["qpn"]}}
    got = {k: uq.get(k) for k in want}
    ck(name + ": evidence and ends (tshark's ties, the CM connection's QPs)", got == want, "%s vs %s" % (got, want))
    q = uq.get("smbd")
    if not ck(name + ": the queue has an smbd member", q is not None):
        return None
    check_smbd_state.check_truth(name + " without CM", q, remap_plan(plan, m), sends, neg)
    text = run(cp).stdout
    ck(name + ": the text summary's SMB Direct section names the queue recognised by shape",
       "queue without CM 0, SMB-Direct recognised by shape" in " ".join(text.split()), text[-600:])
    f = fields(cp)
    inv = {v: k for k, v in m.items()}
    for n, r in f.items():
        if n <= m[told]:
            ck(name + ": frame %d up to the told one: no protocol columns" % n, r["ulp"] == "" and r["ulp_pdu"] == "",
               "%s %s" % (r["ulp"], r["ulp_pdu"]))
        else:
            ck(name + ": frame %d ulp smb-direct/shape" % n, r["ulp"] == "smb-direct/shape", r["ulp"])
    timed = 0
    for r in plan["requests"]:
        # The frame where its final response ended: its last sending's last packet.
        last = m[r["response_frames"][-1][-1]]
        if last <= m[told]:
            continue
        v = f[last]
        got = (v["ulp_pdu"], v["ulp_op"], num(v["ulp_tag"]), num(v["ulp_request_frame"]))
        exp = ("response", r["command"], r["message_id"], m[r["request_frames"][0][0]])
        if not r["resent"]["response"]:  # a response sent again is timed from its first sending, at its first frame
            got, exp = got + (num(v["ulp_latency_ns"]),), exp + (r["latency_ns"],)
        timed += ck(name + ": frame %d (original %d) answers its request" % (last, inv[last]), got == exp,
                    "%s vs %s" % (got, exp))
    # After the told frame, every frame's protocol columns are the CM connection's.
    fo = fields(path)
    cols = ("ulp_pdu", "ulp_op", "ulp_tag", "ulp_latency_ns", "ulp_resent", "ulp_failed")
    same = [n for n in f if n > m[told] and tuple(f[n][c] for c in cols) == tuple(fo[inv[n]][c] for c in cols)
            and num(f[n]["ulp_request_frame"]) == (m[num(fo[inv[n]]["ulp_request_frame"])]
                                                   if fo[inv[n]]["ulp_request_frame"] else None)]
    ck(name + ": after the told frame, the per-frame protocol columns are the CM connection's",
       len(same) == sum(1 for n in f if n > m[told]), str(sorted(set(n for n in f if n > m[told]) - set(same)))[:200])
    print("  %s: told at frame %d (copy %d) by %d PDUs, %d ties; %d responses after it timed per frame"
          % (name, told, m[told], want["pdus_matched"], TIES, timed))
    return cp, m, t, starts, ties, conn, q


def not_smbd(what, path):
    d = doc(path)
    ck(what + ": not recognised as SMB Direct", not [u for u in d.get("ulp_queues", []) if u["ulp"] == "SMB-Direct"],
       str([u["ulp"] for u in d.get("ulp_queues", [])]))
    f = fields(path)
    ck(what + ": no frame's ulp says smb-direct/shape", not any(r.get("ulp") == "smb-direct/shape" for r in f.values()))


def first_request(t, m, k):
    """The copy's frame of the k-th (0-based) SMB2 request of the original."""
    reqs = [n for n, r in sorted(t.items()) if r["smb2.flags.response"].split("|")[0] in ("0", "False")]
    return m[reqs[k]]


def check_negatives(cp, m, t, ties):
    for s in ["rxe_send", "rxe_send_imm", "rxe_send_inline", "rxe_send_ipv6", "rxe_send_multi", "rxe_nfs",
              "rxe_nfs_loss", "rxe_iser", "rxe_iser_loss", "rping_s64"]:
        c, _ = without_cm(os.path.join(S, s + ".pcap"), s + "_nocm")
        not_smbd(s + " without CM", c)
    not_smbd("rxe_nvme_nocm", os.path.join(S, "rxe_nvme_nocm.pcap"))
    for k in range(1, TIES + 1):
        upto = m[ties[k - 1]]
        d = doc(cut_frames(cp, "first_%d" % k, set(range(1, upto + 1))))
        uq = d.get("ulp_queues", [])
        if k < TIES:
            ck("%d tie(s) only: not recognised" % k, not uq, str(uq)[:200])
        else:
            ck("%d ties: recognised at the last frame" % k, len(uq) == 1 and uq[0]["told_frame"] == upto, str(uq)[:200])
    second = first_request(t, m, 1)
    ck("the second request is before the told frame", second < m[ties[TIES - 1]])
    bad = poke(cp, "reserved", second, SMBD_AT + 6, lambda b: b | 1)
    not_smbd("a data transfer message with its reserved field set", bad)
    bad = poke(cp, "both_ways", second, SMBD_AT + 24 + 16, lambda b: b | 1)
    not_smbd("an SMB2 request flagged a response (requests both ways)", bad)
    bad = poke(cp, "no_id", second, SMBD_AT + 24 + 1, lambda b: ord("X"))
    not_smbd("an SMB2 message without its protocol ID after the first", bad)
    # A request sent twice before the told frame (a copy right behind it): counted once, its
    # packet re-sent, as the CM connection's analysis does (the transport judges it sent again).
    third = first_request(t, m, 2)
    linktype, recs, _ = pcaprecs.read_pcap(cp)
    twice = os.path.join(TMP, "twice.pcap")
    pcaprecs.write_pcap(twice, linktype, recs[:third] + [recs[third - 1]] + recs[third:])
    uq = doc(twice).get("ulp_queues", [])
    q = uq[0].get("smbd", {}) if uq else {}
    by = {c["command"]: c for c in q.get("by_command", [])}
    got = (len(uq), uq[0]["told_frame"] if uq else None, q.get("requests"), q.get("resent_frames"),
           q.get("resent_requests"), by.get("SESSION_SETUP", {}).get("resent"), q.get("message_id_again"))
    exp = (1, m[ties[TIES - 1]] + 1, 11, 1, 1, 1, 0)
    ck("a request sent twice before the told frame: counted once, re-sent once", got == exp, "%s vs %s" % (got, exp))


def check_qp(cp, conn, q):
    qp = conn["server"]["qpn"]
    d = doc("--ulp", "qp:0x%x=smb" % qp, cp)
    uq = d.get("ulp_queues", [])
    ck("qp: names the pair", len(uq) == 1 and uq[0]["told_by"] == "qp" and uq[0]["qp_rule"] == qp
       and uq[0]["host"]["qpn"] == conn["client"]["qpn"], str(uq)[:300])
    if uq:
        ck("qp: the figures equal those told by shape", uq[0].get("smbd") == q)


def check_mid_message(cp):
    """A capture that starts inside a fragmented message (MS-SMBD 3.1.5.2:
    its continuation fragments carry data without an SMB2 header): the
    fragments before the first SMB2 header are let pass, and the pair is
    recognised from the messages after them. The cut copy starts at the
    first such fragment; its SMB2 requests (tshark's smb2 decode of the
    copy, each PSN once) are the queue's."""
    t, starts, _ = oracle(cp)
    frag = [n for n in starts if not t[n]["smb2.cmd"] and t[n]["smb_direct.data_length"] not in ("", "0")]
    if not ck("mid-message: a continuation fragment in the capture", frag, str(starts[:10])):
        return
    total = max(t)
    # from each fragment, and from the frame after it (its ACK, which pairs
    # the half-flows before the next fragment comes)
    for n0 in sorted({x for f in frag for x in (f, f + 1)}):
        out = cut_frames(cp, "smbd_mid%d" % n0, set(range(n0, total + 1)))
        tm, sm, _ = oracle(out)
        ck("mid-message from frame %d: the copy's first SEND a fragment" % n0,
           sm and not tm[sm[0]]["smb2.cmd"], str(sm[:3]))
        want = sum(1 for n in sm for rsp in tm[n]["smb2.flags.response"].split("|") if rsp in ("0", "False"))
        d = doc(out)
        qs = [q for q in d.get("ulp_queues", []) if q.get("smbd")]
        ck("mid-message from frame %d: recognised, its requests tshark's" % n0,
           len(qs) == 1 and qs[0]["smbd"]["requests"] == want,
           "%d queues; want %d requests: %s" % (len(qs), want, [q["smbd"]["requests"] for q in qs]))

def main():
    res = None
    for name in ("smbd_gen", "smbd_gen_loss"):
        r = check_sample(name)
        res = res or r
    if res:
        cp, m, t, starts, ties, conn, q = res
        check_negatives(cp, m, t, ties)
        check_qp(cp, conn, q)
        check_mid_message(cp)
    print("check_smbd_shape: %d checks, %d failed" % (ck.checks, ck.failures))
    return 1 if ck.failures else 0


if __name__ == "__main__":
    sys.exit(main())
