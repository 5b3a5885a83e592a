#!/usr/bin/env python3
"""SMB2 compounds (MS-SMB2 2.2.1, 3.2.4.1.4) on SMB Direct, on the GENERATED
sample samples/smbd_gen_compound.pcap (samples/lib/smbd_gen.py --compound;
Debian's kernel has no SMB Direct): a related CREATE + QUERY_INFO + CLOSE
answered by a related compound, an unrelated WRITE + FLUSH answered by a
compound of the WRITE's response and the FLUSH's interim STATUS_PENDING
(its final response alone), and six ECHOs in one message answered one by
one.

Oracles: tshark's smb2 decode, header by header (smb2.cmd, smb2.msg_id,
smb2.flags.response, smb2.flags.async, smb2.nt_status, smb2.response_to,
smb2.time), and the generator's plan (smbd_gen_compound.requests.json),
which must agree with each other first. rocestat keeps the first five
headers of a chain (the man page): the test computes from tshark which
headers are within them, and holds rocestat's JSON to it: requests,
responses and interims; per command the counts and the latency count, min,
median, p99 and max (nearest rank) of tshark's smb2.time; the slowest
requests with their frames; the compound counts per side (compounds,
headers after the first paired, headers dropped, chains cut); the dropped
header's response unmatched. Per frame (--fields --verdicts): a compound's
frame names its first request or response, and every final response's frame
tshark pairs names its request's frame, command, MessageId and latency. The
walkthrough (-V) of a compound's frame shows each header kept with its
command and MessageId. The same capture without its CM frames is
recognised by shape with the same figures. Exits 1 on any failure.
"""
import collections
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, ROOT, Checks, tshark_fields  # noqa: E402

ck = Checks("check_smbd_compound")
SAMPLE = os.path.join(ROOT, "samples", "smbd_gen_compound.pcap")
PLAN = os.path.join(ROOT, "samples", "smbd_gen_compound.requests.json")
KEPT = 5  # headers of a chain rocestat pairs (the man page)
STATUS_PENDING = 0x103
NAMES = {0: "NEGOTIATE", 1: "SESSION_SETUP", 3: "TREE_CONNECT", 5: "CREATE", 6: "CLOSE", 7: "FLUSH", 9: "WRITE",
         13: "ECHO", 16: "QUERY_INFO"}
TF = ["frame.number", "frame.time_epoch", "ip.src", "smb2.cmd", "smb2.msg_id", "smb2.flags.response",
      "smb2.flags.async", "smb2.nt_status", "smb2.response_to", "smb2.time"]


def run(*args):
    p = subprocess.run([ROCESTAT, "-n"] + list(args), capture_output=True, text=True)
    ck("rocestat %s runs" % " ".join(args[:-1]), p.returncode in (0, 1), p.stderr[:200])
    return p.stdout


def lst(s):
    return s.split("|") if s else []


def yes(x):
    return x in ("1", "True")


def nearest_rank(vals, p):
    v = sorted(vals)
    return v[max(1, math.ceil(p * len(v))) - 1]


def headers():
    """Every SMB2 header tshark shows, in order: frame, position in its
    message's chain, command, MessageId, response, async, status, the frame
    it answers, time from it (ns)."""
    out = []
    for r in tshark_fields(SAMPLE, TF, "smb2", occurrence="a", aggregator="|", heuristics_off=False):
        t = dict(zip(TF, r))
        cmds, mids, rsp, asy = lst(t["smb2.cmd"]), lst(t["smb2.msg_id"]), lst(t["smb2.flags.response"]), \
            lst(t["smb2.flags.async"])
        n = len(cmds)
        ck("frame %s: one command, MessageId, flag per header" % t["frame.number"],
           len(mids) == n and len(rsp) == n and len(asy) == n)
        is_rsp = [yes(x) for x in rsp]
        st = lst(t["smb2.nt_status"]) if all(is_rsp) else [""] * n  # tshark shows a status on responses only
        to, tm = lst(t["smb2.response_to"]), lst(t["smb2.time"])
        k = 0
        for i in range(n):
            h = dict(frame=int(t["frame.number"]), pos=i, n=n, cmd=int(cmds[i]), mid=int(mids[i]), rsp=is_rsp[i],
                     asy=yes(asy[i]), status=int(st[i], 16) if st[i] else None, to=None, ns=None)
            # response_to and time: on the final responses tshark pairs, in header order
            if h["rsp"] and not (h["status"] == STATUS_PENDING and h["asy"]) and k < len(to):
                h["to"], h["ns"] = int(to[k]), round(float(tm[k]) * 1e9)
                k += 1
            out.append(h)
    return out


def expected(hs):
    """What rocestat must say, from tshark's headers and the five-header rule."""
    reqs = {h["mid"]: h for h in hs if not h["rsp"]}
    kept = {m for m, h in reqs.items() if h["pos"] < KEPT}
    cmd = collections.defaultdict(lambda: dict(n=0, done=0, interim=0, lat=[]))
    for m in kept:
        cmd[reqs[m]["cmd"]]["n"] += 1
    interims = finals = unmatched = 0
    pairs = {}
    for h in hs:
        if not h["rsp"]:
            continue
        if h["pos"] >= KEPT or h["mid"] not in kept:
            unmatched += 1
            continue
        c = cmd[reqs[h["mid"]]["cmd"]]
        if h["status"] == STATUS_PENDING and h["asy"]:
            interims += 1
            c["interim"] += 1
            continue
        finals += 1
        c["done"] += 1
        c["lat"].append(h["ns"])
        pairs[h["mid"]] = h
    comp = {}
    for side, rsp in (("client", False), ("server", True)):
        firsts = [h for h in hs if h["rsp"] == rsp and h["pos"] == 0 and h["n"] > 1]
        comp[side] = (len(firsts), sum(min(h["n"], KEPT) - 1 for h in firsts),
                      sum(max(0, h["n"] - KEPT) for h in firsts), 0)
    return dict(requests=len(kept), responses=finals, interim=interims, unmatched=unmatched, cmd=cmd, pairs=pairs,
                comp=comp, reqs=reqs)


def check_plan(hs):
    """The two oracles agree: tshark's pairs and times are the plan's."""
    plan = json.load(open(PLAN))["requests"]
    by = {h["mid"]: h for h in hs if h["rsp"] and h["to"]}
    for r in plan:
        h = by.get(r["message_id"])
        ok = h and h["to"] == r["request_frames"][0][0] and h["frame"] == r["response_frames"][-1][0] \
            and h["ns"] == r["latency_ns"] and NAMES[h["cmd"]] == r["command"]
        ck("MessageId %d: tshark's pair and time = the plan's" % r["message_id"], ok, "%s vs %s" % (h, r))
    compounds = [h for h in hs if h["pos"] == 0 and h["n"] > 1]
    ck("the sample holds compounds (3 of requests, 2 of responses, one chain of 6)",
       sorted((h["rsp"], h["n"]) for h in compounds) == [(False, 2), (False, 3), (False, 6), (True, 2), (True, 3)],
       str([(h["frame"], h["n"]) for h in compounds]))


def check_json(q, e, what):
    got = (q["requests"], q["responses"], q["interim"], q["responses_unmatched"], q["unanswered"])
    exp = (e["requests"], e["responses"], e["interim"], e["unmatched"], 0)
    ck(what + ": requests, responses, interim, unmatched, unanswered = tshark's headers", got == exp,
       "%s vs %s" % (got, exp))
    by = {c["code"]: c for c in q["by_command"]}
    ck(what + ": the commands = tshark's", sorted(by) == sorted(e["cmd"]), "%s vs %s" % (sorted(by), sorted(e["cmd"])))
    for code, c in e["cmd"].items():
        g = by.get(code, {})
        got = (g.get("requests"), g.get("responses"), g.get("interim"), g.get("failed"))
        ck(what + ": %s requests, responses, interim, failed" % NAMES[code], got == (c["n"], c["done"], c["interim"], 0),
           "%s vs %s" % (got, c))
        lat = c["lat"]
        exp = dict(count=len(lat), min=min(lat), median=nearest_rank(lat, 0.5), p99=nearest_rank(lat, 0.99),
                   max=max(lat)) if lat else None
        ck(what + ": %s latency = tshark's smb2.time" % NAMES[code], g.get("latency_ns") == exp,
           "%s vs %s" % (g.get("latency_ns"), exp))
    for side in ("client", "server"):
        s = q[side]
        got = tuple(s.get(k) for k in ("smb2_compound", "smb2_compound_headers", "smb2_compound_dropped",
                                       "smb2_compound_cut"))
        ck(what + ": %s compounds, later headers paired, dropped, cut" % side, got == e["comp"][side],
           "%s vs %s" % (got, e["comp"][side]))
    slow = sorted(e["pairs"].values(), key=lambda h: (-h["ns"], h["to"]))[:5]
    got = [(x["message_id"], x["request_frame"], x["response_frame"], x["latency_ns"]) for x in q["slowest"]]
    exp = [(h["mid"], h["to"], h["frame"], h["ns"]) for h in slow]
    ck(what + ": the slowest = tshark's five longest", got == exp, "%s vs %s" % (got, exp))


def check_frames(hs, e):
    lines = run("--fields", "--verdicts", SAMPLE).splitlines()
    head = lines[0].split(",")
    f = {int(c[0]): dict(zip(head, c)) for c in (ln.split(",") for ln in lines[1:])}
    firsts = {}
    for h in hs:
        firsts.setdefault(h["frame"], h)
    n = 0
    for fr, h in firsts.items():
        v = f[fr]
        want_pdu = "request" if not h["rsp"] else "other" if h["status"] == STATUS_PENDING and h["asy"] else "response"
        if h["rsp"] and (h["pos"] >= KEPT or h["mid"] not in {m for m in e["reqs"] if e["reqs"][m]["pos"] < KEPT}):
            continue
        got = (v["ulp_pdu"], v["ulp_op"], int(v["ulp_tag"] or -1))
        exp = (want_pdu, NAMES[h["cmd"]], h["mid"])
        if want_pdu == "response":
            got += (int(v["ulp_request_frame"] or 0), int(v["ulp_latency_ns"] or 0))
            exp += (h["to"], h["ns"])
        n += ck("frame %d (%d header%s): its first header's verdict" % (fr, h["n"], "s" if h["n"] > 1 else ""),
                got == exp, "%s vs %s" % (got, exp))
    print("  %d frames with SMB2 headers checked per frame" % n)


def check_walk(hs):
    """-V: a compound's frame shows every header kept, its command and MessageId (tshark's)."""
    frames = collections.defaultdict(list)
    for h in hs:
        frames[h["frame"]].append(h)
    for fr, lst_ in frames.items():
        if len(lst_) < 2:
            continue
        w = run("-V", "--frames=%d" % fr, SAMPLE).splitlines()
        cmds = [ln.split()[3] for ln in w if len(ln.split()) > 3 and ln.split()[1] == "Command"]
        mids = [int(ln.split()[2]) for ln in w if len(ln.split()) > 2 and ln.split()[1] == "MessageId"]
        exp = [h for h in lst_ if h["pos"] < KEPT]
        ck("-V frame %d: its %d headers' commands and MessageIds (tshark's)" % (fr, len(exp)),
           cmds == [NAMES[h["cmd"]] for h in exp] and mids == [h["mid"] for h in exp], "%s %s" % (cmds, mids))


def check_nocm(q):
    cm = [r[0] for r in tshark_fields(SAMPLE, ["frame.number"], "infiniband.bth.destqp == 1")]
    tmp = tempfile.mkdtemp(prefix="check_smbd_compound.")
    cp = os.path.join(tmp, "nocm.pcap")
    subprocess.run(["editcap", "-F", "nsecpcap", SAMPLE, cp] + cm, check=True, capture_output=True)
    d = json.loads(run("--format", "json", cp) or "{}")
    uq = d.get("ulp_queues", [])
    ck("without CM: one queue recognised by shape", len(uq) == 1 and uq[0]["told_by"] == "shape", str(uq)[:200])
    if uq:
        a, b = dict(uq[0]["smbd"]), dict(q)
        for x in (a, b):
            for k in ("slowest", "failed", "resent"):
                x[k] = [(y["message_id"], y["latency_ns"]) for y in x[k]]
        ck("without CM: the figures are the CM connection's (but frame numbers)", a == b)


def main():
    if not ck("sample present", os.path.exists(SAMPLE) and os.path.exists(PLAN)):
        return 1
    hs = headers()
    check_plan(hs)
    e = expected(hs)
    doc = json.loads(run("--format", "json", SAMPLE) or "{}")
    conns = [c for c in doc.get("connections", []) if c.get("smbd")]
    if ck("one SMB Direct connection", len(conns) == 1):
        q = conns[0]["smbd"]
        check_json(q, e, "smbd_gen_compound")
        check_frames(hs, e)
        check_walk(hs)
        check_nocm(q)
    text = run(SAMPLE)
    ck("the text says the header past five is not paired",
       "compounds: 1 headers past the first 5 of their chain counted, not paired" in " ".join(text.split()))
    print("check_smbd_compound: %d checks, %d failed" % (ck.checks, ck.failures))
    return 1 if ck.failures else 0


if __name__ == "__main__":
    sys.exit(main())
