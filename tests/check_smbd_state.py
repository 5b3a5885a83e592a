#!/usr/bin/env python3
"""SMB Direct connections (proto/smbdirect/smbd_state.c) against two
independent sources, on the GENERATED samples (samples/smbd_gen*.pcap):

- the generator's own bookkeeping (samples/lib/smbd_gen.py writes
  NAME.truth.txt and NAME.requests.json as it plans the packets): the
  negotiate exchange, every SMB2 request with its command, MessageId,
  fragments, interim and final responses (their frames and status), the
  time from its last frame to its final response's last frame, its RDMA
  transfers, and which of its packets went on the wire twice;
- tshark's smb_direct and smb2 decode: per final response its MessageId,
  NT status, the request it answers (smb2.response_to) and the time from
  it (smb2.time); per request its buffer descriptors; the RETHs of the
  server's RDMA READ requests and WRITE First/Only packets; which request
  packets came again with a PSN below one seen before (re-sent).

What is compared is rocestat's JSON (--format json, a connection's
"smbd"): counts of requests, responses, interim responses; per command
requests, responses, interim, failed, re-sent and latency min/median/p99/
max (nearest rank); the slowest requests (order, frames, latency), the
failed ones (status), the re-sent ones (what was re-sent); RDMA READs and
WRITEs in number and bytes, every one tied; fragments; credits; the
negotiate limits; and the text summary of the loss sample names the
re-sent request with its frames. Exits 1 on any failure.
"""
import collections
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, ROOT, Checks, tshark_fields  # noqa: E402

ck = Checks("check_smbd_state")
S = os.path.join(ROOT, "samples")
SAMPLES = ["smbd_gen", "smbd_gen_loss"]
SIDE = {"192.0.2.2": "client", "192.0.2.1": "server"}
STATUS_PENDING = 0x103
TF = ["frame.number", "frame.time_epoch", "ip.src", "infiniband.bth.opcode", "infiniband.bth.psn", "smb2.cmd",
      "smb2.msg_id", "smb2.flags.response", "smb2.nt_status", "smb2.response_to", "smb2.time",
      "smb2.buffer_descriptor.token", "smb2.buffer_descriptor.length", "infiniband.reth.r_key",
      "infiniband.reth.dmalen", "smb_direct.fragment"]
OP_READ_REQ, OP_WRITE_FIRST, OP_WRITE_ONLY, OP_ACK = 0x0C, 0x06, 0x0A, 0x11
CMD = {0: "NEGOTIATE", 1: "SESSION_SETUP", 3: "TREE_CONNECT", 5: "CREATE", 6: "CLOSE", 8: "READ", 9: "WRITE"}



def failed_status(r):
    """A final response that says its request failed: an NTSTATUS of
    severity error (MS-ERREF 2.3.1: the top two bits 11), but the
    STATUS_MORE_PROCESSING_REQUIRED (0xC0000016) of a SESSION_SETUP: the
    authentication's next leg (MS-SMB2 3.3.5.5.3)."""
    st = int(r["status"], 16)
    return st >> 30 == 3 and not (r["command"] == "SESSION_SETUP" and st == 0xC0000016)

def num(s):
    s = s.split("|")[0]
    return int(s, 0) if s else None


def nearest_rank(vals, p):
    v = sorted(vals)
    return v[max(1, math.ceil(p * len(v))) - 1]


def rocestat_json(path):
    p = subprocess.run([ROCESTAT, "-n", "--format", "json", path], capture_output=True, text=True)
    if p.returncode not in (0, 1):  # 1: anomalies found
        raise RuntimeError("rocestat exited %d: %s" % (p.returncode, p.stderr))
    return json.loads(p.stdout)


def smbd_of(doc, name):
    conns = [c for c in doc["connections"] if c.get("ulp") == "SMB-Direct"]
    if not ck("%s: one SMB Direct connection" % name, len(conns) == 1, str([c.get("ulp") for c in doc["connections"]])):
        return None
    if not ck("%s: the connection has an smbd member" % name, "smbd" in conns[0], str(sorted(conns[0]))):
        return None
    return conns[0]["smbd"]


def text_truth(path):
    """The negotiate messages and every first sending of a SEND, from NAME.truth.txt."""
    sends, neg = [], {}
    for line in open(path):
        w = line.split()
        if len(w) > 8 and w[0] == "rc" and w[2] == "SEND":
            kv = dict(zip(w[9::2], w[10::2]))
            if w[8] in ("negotiate_request", "negotiate_response"):
                neg[w[8]] = kv
            else:
                sends.append(dict(side=w[1], **kv))
    return sends, neg


def check_truth(name, q, plan, sends, neg):
    reqs = plan["requests"]
    final = [r for r in reqs]
    ck("%s: requests = the plan's" % name, q["requests"] == len(reqs), "%d vs %d" % (q["requests"], len(reqs)))
    ck("%s: final responses = the plan's" % name, q["responses"] == len(final))
    ck("%s: interim responses = the plan's" % name, q["interim"] == sum(len(r["interim"]) for r in reqs))
    ck("%s: nothing unanswered, unmatched, untied" % name,
       (q["unanswered"], q["responses_unmatched"], q["rdma_untied"], q["rdma_outside_descriptor"],
        q["rdma_not_descriptor_length"]) == (0, 0, 0, 0, 0))
    by = {c["command"]: c for c in q["by_command"]}
    want = collections.defaultdict(list)
    for r in reqs:
        want[r["command"]].append(r)
    ck("%s: the commands = the plan's" % name, sorted(by) == sorted(want), "%s vs %s" % (sorted(by), sorted(want)))
    for cmd, rs in want.items():
        c = by.get(cmd)
        if not c:
            continue
        lat = [r["latency_ns"] for r in rs]
        got = (c["requests"], c["responses"], c["interim"], c["failed"], c["resent"])
        exp = (len(rs), len(rs), sum(len(r["interim"]) for r in rs), sum(1 for r in rs if failed_status(r)),
               sum(1 for r in rs if any(r["resent"].values())))
        ck("%s: %s requests, responses, interim, failed, re-sent = the plan's" % (name, cmd), got == exp,
           "%s vs %s" % (got, exp))
        l = c["latency_ns"] or {}
        exp = dict(count=len(lat), min=min(lat), median=nearest_rank(lat, 0.5), p99=nearest_rank(lat, 0.99),
                   max=max(lat))
        ck("%s: %s latency = the plan's times" % (name, cmd), l == exp, "%s vs %s" % (l, exp))
        rdma = sum(t["length"] for r in rs for t in r["transfers"])
        ck("%s: %s RDMA bytes = the plan's" % (name, cmd), c["rdma_bytes"] == rdma, "%d vs %d" % (c["rdma_bytes"], rdma))

    def entry(r):
        return dict(command=r["command"], message_id=r["message_id"], status=int(r["status"], 16),
                    latency_ns=r["latency_ns"], request_frame=r["request_frames"][0][0],
                    response_frame=r["response_frames"][-1][0],
                    interim_frame=r["interim"][0]["frames"][-1][0] if r["interim"] else None,
                    rdma_transfers=len(r["transfers"]), rdma_bytes=sum(t["length"] for t in r["transfers"]),
                    resent_request=r["resent"]["request"], resent_response=r["resent"]["response"],
                    resent_rdma=r["resent"]["transfers"])

    def strip(e):
        return {k: v for k, v in e.items() if k != "status_name"}

    slow = sorted(reqs, key=lambda r: -r["latency_ns"])[:5]  # stable: the earlier of equal ones first
    ck("%s: the slowest = the plan's five longest" % name, [strip(e) for e in q["slowest"]] == [entry(r) for r in slow],
       "%s\nvs %s" % (q["slowest"], [entry(r) for r in slow]))
    failed = [r for r in reqs if failed_status(r)]
    ck("%s: the failed = the plan's with an error status (not SESSION_SETUP's MORE_PROCESSING_REQUIRED)" % name,
       [strip(e) for e in q["failed"]] == [entry(r) for r in failed] and q["failed_total"] == len(failed),
       "%s vs %s" % (q["failed"], [entry(r) for r in failed]))
    resent = [r for r in reqs if any(r["resent"].values())]
    ck("%s: the re-sent = the plan's requests with a packet sent twice" % name,
       [strip(e) for e in q["resent"]] == [entry(r) for r in resent] and q["resent_requests"] == len(resent),
       "%s vs %s" % (q["resent"], [entry(r) for r in resent]))
    xf = [t for r in reqs for t in r["transfers"]]
    got = (q["rdma_reads"], q["rdma_read_bytes"], q["rdma_writes"], q["rdma_write_bytes"])
    exp = (sum(1 for t in xf if t["kind"] == "RDMA_READ"), sum(t["length"] for t in xf if t["kind"] == "RDMA_READ"),
           sum(1 for t in xf if t["kind"] == "RDMA_WRITE"), sum(t["length"] for t in xf if t["kind"] == "RDMA_WRITE"))
    ck("%s: RDMA READs and WRITEs = the plan's transfers" % name, got == exp, "%s vs %s" % (got, exp))
    frag = [r for r in reqs if r["fragments"] > 1]
    cl = q["client"]
    ck("%s: fragmented messages = the plan's" % name,
       (cl["fragmented_messages"], cl["fragments"]) == (len(frag), sum(r["fragments"] for r in frag)),
       "%s vs %s" % ((cl["fragmented_messages"], cl["fragments"]), (len(frag), sum(r["fragments"] for r in frag))))
    for side in ("client", "server"):
        mine = [s for s in sends if s["side"] == side]
        got = (q[side]["data_messages"], q[side]["data_empty"], q[side]["credits_granted"],
               q[side]["credits_requested_max"], q[side]["sends_incomplete"], q[side]["not_smbd"])
        granted = sum(int(s["credits_granted"]) for s in mine)
        if side == "server":
            granted += int(neg["negotiate_response"]["credits_granted"])
        exp = (len(mine), sum(1 for s in mine if s["data_length"] == "0"), granted,
               max(int(s["credits_requested"]) for s in mine), 0, 0)
        ck("%s: %s data messages, empty ones, credits = the plan's" % (name, side), got == exp, "%s vs %s" % (got, exp))
    n = q["negotiate"]
    rq, rp = neg["negotiate_request"], neg["negotiate_response"]
    got = (n["client_credits_requested"], n["client_max_receive_size"], n["client_max_fragmented_size"],
           n["credits_granted"], n["max_read_write_size"], n["server_max_receive_size"], n["negotiated_version"])
    exp = (int(rq["credits_requested"]), int(rq["max_receive"]), int(rq["max_fragmented"]), int(rp["credits_granted"]),
           int(rp["max_read_write"]), int(rp["max_receive"]), int(rp["negotiated"], 16))
    ck("%s: negotiate = the plan's" % name, got == exp, "%s vs %s" % (got, exp))


def check_tshark(name, path, q):
    rows = [dict(zip(TF, r)) for r in tshark_fields(path, TF, None, occurrence="a", aggregator="|",
                                                     heuristics_off=False)]
    byframe = {int(t["frame.number"]): t for t in rows}
    # Final responses tshark pairs with their request.
    lat = collections.defaultdict(list)
    finals = {}
    for t in rows:
        if t["smb2.flags.response"].split("|")[0] in ("1", "True") and t["smb2.response_to"]:
            status = num(t["smb2.nt_status"])
            if status == STATUS_PENDING:
                continue
            ns = round(float(t["smb2.time"]) * 1e9)
            lat[CMD[num(t["smb2.cmd"])]].append(ns)
            finals[num(t["smb2.msg_id"])] = dict(frame=int(t["frame.number"]), ns=ns, status=status,
                                                 to=num(t["smb2.response_to"]))
    by = {c["command"]: c for c in q["by_command"]}
    for cmd, v in lat.items():
        l = (by.get(cmd) or {}).get("latency_ns") or {}
        exp = dict(count=len(v), min=min(v), median=nearest_rank(v, 0.5), p99=nearest_rank(v, 0.99), max=max(v))
        ck("%s: %s latency = tshark's smb2.time" % (name, cmd), l == exp, "%s vs %s" % (l, exp))
    for e in q["slowest"] + q["failed"] + q["resent"]:
        f = finals.get(e["message_id"])
        if not ck("%s: MessageId %d: tshark pairs a final response" % (name, e["message_id"]), f is not None):
            continue
        ck("%s: MessageId %d: response frame, latency, status = tshark's" % (name, e["message_id"]),
           (e["response_frame"], e["latency_ns"], e["status"]) == (f["frame"], f["ns"], f["status"]),
           "%s vs %s" % ((e["response_frame"], e["latency_ns"], e["status"]), f))
        # tshark names the frame where the request became whole; rocestat its first.
        t = byframe[f["to"]]
        first = min(map(int, t["smb_direct.fragment"].split("|"))) if t["smb_direct.fragment"] else f["to"]
        ck("%s: MessageId %d: request frame = tshark's request's first fragment" % (name, e["message_id"]),
           e["request_frame"] == first, "%d vs %d" % (e["request_frame"], first))
    # The server's RDMA transfers whose R_Key is a request's descriptor token.
    tokens = {num(x) for t in rows for x in t["smb2.buffer_descriptor.token"].split("|") if x}
    seen, reads, writes = set(), [], []
    for t in rows:
        if SIDE.get(t["ip.src"].split("|")[0]) != "server" or not t["infiniband.reth.r_key"]:
            continue
        op, psn = num(t["infiniband.bth.opcode"]), num(t["infiniband.bth.psn"])
        if num(t["infiniband.reth.r_key"]) not in tokens or psn in seen:
            continue
        seen.add(psn)
        if op == OP_READ_REQ:
            reads.append(num(t["infiniband.reth.dmalen"]))
        elif op in (OP_WRITE_FIRST, OP_WRITE_ONLY):
            writes.append(num(t["infiniband.reth.dmalen"]))
    got = (q["rdma_reads"], q["rdma_read_bytes"], q["rdma_writes"], q["rdma_write_bytes"])
    exp = (len(reads), sum(reads), len(writes), sum(writes))
    ck("%s: RDMA READs and WRITEs with a descriptor's token = tshark's RETHs" % name, got == exp, "%s vs %s" % (got, exp))
    # Request packets with a PSN below one their sender sent before: sent again.
    top, again = {}, 0
    for t in rows:
        who, op = t["ip.src"].split("|")[0], num(t["infiniband.bth.opcode"])
        if op is None or op == OP_ACK or op >= 0x0D and op <= 0x10 or op == 0x64:
            continue
        psn = num(t["infiniband.bth.psn"])
        if who in top and (psn == top[who] or ((psn - top[who]) & 0xFFFFFF) >= 0x800000):
            again += 1
        else:
            top[who] = psn
    ck("%s: frames re-sent = tshark's request packets behind their sender's newest PSN" % name,
       q["resent_frames"] == again and q["resent_frames_untied"] == 0, "%d vs %d" % (q["resent_frames"], again))


VCOLS = ["ulp_pdu", "ulp_op", "ulp_tag", "ulp_request_frame", "ulp_latency_ns", "ulp_resent", "ulp_failed"]


def check_frames(name, path, plan, sends, neg):
    """--fields --verdicts' ulp columns, frame by frame, against the plan
    (which frames are whose SENDs, responses and transfer PSNs) and tshark
    (the frames each PSN came in)."""
    rows = [dict(zip(TF, r)) for r in tshark_fields(path, TF, None, occurrence="a", aggregator="|")]
    frames = collections.defaultdict(list)   # (side, psn) -> frame numbers of its request packets, in order
    for t in rows:
        op = num(t["infiniband.bth.opcode"])
        if op is None or op == OP_ACK or op == 0x64:
            continue
        side = SIDE[t["ip.src"].split("|")[0]]
        if 0x0D <= op <= 0x10:  # a READ response carries the PSN of the other side's READ
            side = ("server" if side == "client" else "client") + " READ response"
        frames[(side, num(t["infiniband.bth.psn"]))].append(int(t["frame.number"]))
    resends = {f for fs in frames.values() for f in fs[1:]}
    lost = [(l["side"], int(l["psn"], 16)) for l in plan["lost"]]
    resends |= {frames[x][0] for x in lost if frames.get(x)}
    fill = {x[0]: frames[x][0] for x in lost if frames.get(x)}
    want = {}
    for r in plan["requests"]:
        first = r["request_frames"][0][0]
        base = dict(ulp_op=r["command"], ulp_tag=str(r["message_id"]), ulp_request_frame=str(first), ulp_latency_ns="",
                    ulp_resent="", ulp_failed="")
        mine = [f for fs in r["request_frames"] + r["response_frames"] for f in fs]
        mine += [f for i in r["interim"] for fs in i["frames"] for f in fs]
        def xfer_frames(t):
            p0 = int(t["psn_first"], 16)
            keys = [("server", p0)] if t["kind"] == "RDMA_READ" else []
            keys += [("server READ response" if t["kind"] == "RDMA_READ" else "server", (p0 + k) & 0xFFFFFF)
                     for k in range(t["packets"])]
            return [f for key in keys for f in frames.get(key, [])]
        for t in r["transfers"]:
            mine += xfer_frames(t)
        first_resend = min([f for f in mine if f in resends], default=None)

        def put(f, **kv):
            w = dict(base, **kv)
            if first_resend is not None and f >= first_resend:
                w["ulp_resent"] = "1"
            want[f] = w
        for fs in r["request_frames"]:
            put(fs[0], ulp_pdu="request", ulp_request_frame="")
        for i in r["interim"]:
            put(i["frames"][-1][0], ulp_pdu="other")
        last = r["response_frames"][-1]
        put(last[0], ulp_pdu="response", ulp_latency_ns=str(r["latency_ns"]), ulp_failed="1" if failed_status(r) else "")
        for f in last[1:]:
            put(f, ulp_pdu="response")
        for t in r["transfers"]:
            for f in xfer_frames(t):
                put(f, ulp_pdu="transfer")
    # A SEND that came after a lost PSN of its side and before the re-send
    # that filled the gap ends where the gap fills: no reading on its frame.
    for t in rows:
        op, f = num(t["infiniband.bth.opcode"]), int(t["frame.number"])
        side = SIDE.get(t["ip.src"].split("|")[0])
        if op == 0x04 and side in fill and f < fill[side] and any(
                s == side and ((num(t["infiniband.bth.psn"]) - p) & 0xFFFFFF) < 0x800000 for s, p in lost):
            if f in want and f not in resends:
                want[f] = dict(ulp_pdu="other", ulp_op="", ulp_tag="", ulp_request_frame="", ulp_latency_ns="",
                               ulp_resent="", ulp_failed="")
    p = subprocess.run([ROCESTAT, "-n", "--fields", "--verdicts", path], capture_output=True, text=True)
    lines = p.stdout.splitlines()
    head = lines[0].split(",")
    idx = [head.index(c) for c in ["frame"] + VCOLS]
    got = {}
    for ln in lines[1:]:
        c = ln.split(",")
        v = dict(zip(VCOLS, [c[i] for i in idx[1:]]))
        if any(v.values()):
            got[int(c[idx[0]])] = v
    bad = []
    for f in sorted(set(got) | set(want)):
        w = want.get(f)
        g = got.get(f)
        if w is None and g is not None and g["ulp_pdu"] == "other" and not g["ulp_tag"]:
            continue  # a negotiate message or a credit grant
        if w != g:
            bad.append((f, w, g))
    ck("%s: --fields --verdicts ulp columns = the plan's frames (%d frames of requests)" % (name, len(want)), not bad,
       "\n".join("frame %d: want %s, got %s" % b for b in bad[:6]))
    nego = [f for f, g in got.items() if g["ulp_pdu"] == "other" and not g["ulp_tag"] and f not in want]
    empty = sum(1 for s in sends if s["data_length"] == "0")
    ck("%s: SMB Direct messages of no request: the two negotiate messages and the credit grants" % name,
       len(nego) == 2 + empty, "%s vs %d" % (nego, 2 + empty))


def check_text(name, path, plan):
    p = subprocess.run([ROCESTAT, "-n", path], capture_output=True, text=True)
    out = p.stdout
    ck("%s: the summary has an SMB Direct section" % name, "\nSMB Direct" in out)
    for r in plan["requests"]:
        if any(r["resent"].values()):
            want = "%s MessageId %d " % (r["command"], r["message_id"])
            sec = out.split("re-sent by the fabric:", 1)[-1]
            ck("%s: the summary lists %sas re-sent, with its frames" % (name, want),
               "re-sent by the fabric:" in out and want in sec and
               "frames %d → %d" % (r["request_frames"][0][0], r["response_frames"][-1][0]) in sec)


def main():
    for name in SAMPLES:
        path = os.path.join(S, name + ".pcap")
        if not ck("sample present: " + name, os.path.exists(path)):
            continue
        before = ck.checks, ck.failures
        plan = json.load(open(os.path.join(S, name + ".requests.json")))
        sends, neg = text_truth(os.path.join(S, name + ".truth.txt"))
        q = smbd_of(rocestat_json(path), name)
        if q is not None:
            check_truth(name, q, plan, sends, neg)
            check_tshark(name, path, q)
            check_frames(name, path, plan, sends, neg)
        check_text(name, path, plan)
        print("%s: %d checks, %d failed" % (name, ck.checks - before[0], ck.failures - before[1]))
    print("check_smbd_state: %d checks, %d failed" % (ck.checks, ck.failures))
    return 1 if ck.failures else 0


if __name__ == "__main__":
    sys.exit(main())
