#!/usr/bin/env python3
"""Congestion and QoS against independent sources (make congestion).

1. The bench generator's truth (bench/gen.c --congestion --truth): it
   writes CE marks, ConnectX-style CNPs, a half-flow sent Not-ECT, one with
   DSCP 10, CNPs with DSCP 46, PFC and PAUSE frames and one pause storm, and
   counts what it wrote. Every DSCP, ECN, CE, CNP, CE->CNP and pause count of
   rocestat's JSON is checked against it, and so are the flags.
2. tshark: the PAUSE/PFC frames of that capture (macc.* fields) and the
   DSCP/ECN of every RoCE v2 frame of the real captures in
   ../shared/hw-captures, counted per half-flow from tshark's fields.
3. The exit status: CE marks and CNPs alone exit 0; past --cnp-threshold, 1.
"""
import collections
import glob
import json
import re
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, ROOT, SHARED, Checks, tshark_fields, need_shared  # noqa: E402

need_shared("check_congestion")

ck = Checks("check_congestion")
GEN = os.environ.get("BENCH_GEN", os.path.join(ROOT, "build", "bench", "gen"))
tmp = tempfile.mkdtemp(prefix="rs-cong-")


def run(*args, rc=None):
    p = subprocess.run([ROCESTAT] + list(args), capture_output=True, text=True)
    if rc is not None:
        ck("exit status %d: %s" % (rc, " ".join(args)), p.returncode == rc, "got %d: %s" % (p.returncode, p.stderr[:300]))
    return p


def gen(name, *args):
    pcap, truth = os.path.join(tmp, name + ".pcap"), os.path.join(tmp, name + ".truth.json")
    subprocess.run([GEN, "-o", pcap, "--truth", truth] + list(args), check=True, capture_output=True)
    return pcap, json.load(open(truth))


# ---- 1. the generator's truth ---------------------------------------------
pcap, truth = gen("cong", "-n", "30000", "--conns", "40", "--hosts", "6", "--congestion", "--seed", "7")
doc = json.loads(run("--format", "json", pcap).stdout)
cg = doc.get("congestion")
ck("congestion section present", cg is not None)
cg = cg or {"half_flows": [], "pauses": []}
ck("CNPs in the capture", cg.get("cnps") == truth["cnps"], "%s != %s" % (cg.get("cnps"), truth["cnps"]))
ck("CE marks in the capture", cg.get("ecn_ce") == truth["ecn"]["3"], "%s != %s" % (cg.get("ecn_ce"), truth["ecn"]["3"]))
ck("ECN in use", cg.get("ecn_in_use") is True)

got = {(h["src"], h["dst"], h["dest_qp"]): h for h in cg["half_flows"]}
listed = 0
for t in truth["half_flows"]:
    key = (t["src"], t["dst"], t["dst_qp"])
    name = "%s > %s QP %#x" % key
    # The truth counts every packet of the half-flow, CNPs included; rocestat
    # gives packets other than CNPs by DSCP and ECN, and the CNPs apart (the
    # generator's CNPs are ECT(0)).
    dscp = collections.Counter({int(k): v for k, v in t["dscp"].items()})
    dscp.subtract({int(k): v for k, v in t["cnp_dscp"].items()})
    dscp = {k: v for k, v in dscp.items() if v}
    ecn = {int(k): v for k, v in t["ecn"].items()}
    ecn[2] -= t["cnps"]
    plain = set(dscp) <= {26} and not ecn[0] and not ecn[1] and not ecn[3] and not t["cnps"]
    h = got.get(key)
    if h is None:
        ck(name + ": not listed, so all DSCP 26 and ECT(0), no CNP", plain, str(t))
        continue
    listed += 1
    ck(name + ": packets", h["packets"] == t["packets"] - t["cnps"], "%d != %d" % (h["packets"], t["packets"] - t["cnps"]))
    ck(name + ": DSCP", {int(k): v for k, v in h["dscp"].items()} == dscp, "%s != %s" % (h["dscp"], dscp))
    want = {"not_ect": ecn[0], "ect1": ecn[1], "ect0": ecn[2], "ce": ecn[3]}
    ck(name + ": ECN", h["ecn"] == want, "%s != %s" % (h["ecn"], want))
    ck(name + ": CNPs", h["cnps"] == t["cnps"], "%d != %d" % (h["cnps"], t["cnps"]))
    ck(name + ": CNP DSCP", {int(k): v for k, v in h["cnp_dscp"].items()} == {int(k): v for k, v in t["cnp_dscp"].items()},
       "%s != %s" % (h["cnp_dscp"], t["cnp_dscp"]))
ck("half-flows listed", listed > 10, "%d" % listed)
ck("no half-flow listed the generator did not write",
   set(got) <= {(t["src"], t["dst"], t["dst_qp"]) for t in truth["half_flows"]},
   str(set(got) - {(t["src"], t["dst"], t["dst_qp"]) for t in truth["half_flows"]}))

# the data sender's rate before the first CNP it was sent and after it
tkey = {(t["src"], t["dst"], t["dst_qp"]): t for t in truth["half_flows"]}
rated = 0
for h in cg["half_flows"]:
    t = tkey.get((h["src"], h["dst"], h["dest_qp"]))
    if not h["cnp"] or not t:
        continue
    ck("%s: at most %d CNPs in a second (the capture is shorter)" % (h["dst"], h["cnps"]),
       h["cnp"]["peak_per_s"] == h["cnps"] and truth["last_ns"] - truth["first_ns"] < 10**9)
    r = h["cnp"]["sender_rate_bps"]
    # the peer: the half-flow the other way on the same connection (the generator's QPs go in pairs: n, n+1)
    cands = [x for x in truth["half_flows"] if x["src"] == t["dst"] and x["dst"] == t["src"] and x["dst_qp"] ^ 1 == t["dst_qp"]]
    if r is None or len(cands) != 1:
        continue
    p = cands[0]
    before = t["peer_payload_at_cnp"] * 8e9 / (t["first_cnp_ns"] - p["first_ns"])
    after = (p["payload"] - t["peer_payload_at_cnp"]) * 8e9 / (p["last_ns"] - t["first_cnp_ns"])
    ck("%s QP %#x: rate before the first CNP" % (h["dst"], h["dest_qp"]), abs(r["before"] - before) <= 1e-6 * before + 1e-9,
       "%r != %r" % (r["before"], before))
    ck("%s QP %#x: rate after it" % (h["dst"], h["dest_qp"]), abs(r["after"] - after) <= 1e-6 * after + 1e-9,
       "%r != %r" % (r["after"], after))
    rated += 1
ck("rates checked", rated > 10, str(rated))

react = [h["cnp"]["ce_to_cnp_ns"] for h in cg["half_flows"] if h["cnp"] and h["cnp"]["ce_to_cnp_ns"]["count"]]
tr = truth["ce_to_cnp"]
ck("CE->CNP reactions", sum(r["count"] for r in react) == tr["count"], "%d != %d" % (sum(r["count"] for r in react), tr["count"]))
ck("CE->CNP min", react and min(r["min"] for r in react) == tr["min_ns"])
ck("CE->CNP max", react and max(r["max"] for r in react) == tr["max_ns"])
for h in cg["half_flows"]:
    if h["cnps"] > 1:
        iv = h["cnp"]["interval_ns"]
        ck("CNP intervals: %d for %d CNPs" % (iv["count"], h["cnps"]), iv["count"] == h["cnps"] - 1)
        ck("CNP intervals ordered", iv["min"] <= iv["median"] <= iv["p99"] <= iv["max"], str(iv))
    elif h["cnps"] == 1:
        iv = h["cnp"]["interval_ns"]
        ck("one CNP: no interval, so its statistics are null, not 0",
           iv["count"] == 0 and all(iv[k] is None for k in ("min", "median", "p99", "max")), str(iv))

pauses = {(p["sender"], p["priority"] if p["kind"] == "pfc" else -1): p for p in cg["pauses"]}
ck("pause rows", len(pauses) == len(truth["pauses"]), "%d != %d" % (len(pauses), len(truth["pauses"])))
for t in truth["pauses"]:
    p = pauses.get((t["sender"], t["priority"]))
    name = "pause %s priority %d" % (t["sender"], t["priority"])
    if not ck(name + ": present", p is not None):
        continue
    for a, b in (("frames", "frames"), ("pause_frames", "xoff"), ("release_frames", "xon"), ("quanta", "quanta"),
                 ("paused_ns", "pause_ns"), ("storms", "storms")):
        ck(name + ": " + a, p[a] == t[b], "%s != %s" % (p[a], t[b]))

an = collections.Counter((a["type"], a["code"]) for a in doc["anomalies"])
ck("one pause storm anomaly", an[("pause_storm", 8)] + sum(an[("pause_storm", p)] for p in range(8)) == 1, str(an))
# DSCP 26 and 48 are a convention: without --dscp, a half-flow all in DSCP
# 10 and CNPs with DSCP 46 are reported, not flagged; the asymmetric
# connection contradicts itself, and is.
ck("no data DSCP flag without --dscp", an[("dscp_unexpected", 1)] == 0, str(an))
ck("no CNP DSCP flag without --dscp", an[("dscp_unexpected", 2)] == 0, str(an))
ck("no split-DSCP flag: each half-flow keeps one DSCP", an[("dscp_unexpected", 3)] == 0, str(an))
ck("asymmetric DSCP flag", an[("dscp_unexpected", 0)] == 1, str(an))
doc26 = json.loads(run("--format", "json", "--dscp", "data=26,cnp=48", pcap).stdout)
an26 = collections.Counter((a["type"], a["code"]) for a in doc26["anomalies"])
ck("--dscp data=26: the DSCP 10 half-flow flagged", an26[("dscp_unexpected", 1)] == 1, str(an26))
ck("--dscp cnp=48: the DSCP 46 CNPs flagged", an26[("dscp_unexpected", 2)] == 1, str(an26))
ck("Not-ECT flag", an[("not_ect_under_congestion", 0)] == 1, str(an))
notect = [a for a in doc["anomalies"] if a["type"] == "not_ect_under_congestion"]
t0 = [t for t in truth["half_flows"] if t["ecn"]["0"]]
ck("Not-ECT flag names the Not-ECT half-flow", len(t0) == 1 and notect and
   (notect[0]["src"], notect[0]["dst"], notect[0]["dest_qp"]) == (t0[0]["src"], t0[0]["dst"], t0[0]["dst_qp"])
   and notect[0]["count"] == t0[0]["ecn"]["0"])

# --dscp moves the expectation; --link-speed the pause times.
doc2 = json.loads(run("--format", "json", "--dscp", "data=10,cnp=46", "--link-speed", "400", pcap).stdout)
an2 = collections.Counter((a["type"], a["code"]) for a in doc2["anomalies"])
ck("--dscp data=10: the DSCP 26 half-flows flagged instead", an2[("dscp_unexpected", 1)] > 10, str(an2))
ck("--dscp cnp=46: the CNPs with 48 flagged", an2[("dscp_unexpected", 2)] > 5, str(an2))
p400 = {(p["sender"], p["priority"]): p for p in doc2["congestion"]["pauses"]}
for t in truth["pauses"]:
    if t["storms"] or t["xon"]:
        continue
    p = p400.get((t["sender"], t["priority"] if t["priority"] >= 0 else None))
    # isolated at 100 Gb/s (the generator waits for each pause to end), so at
    # 400 Gb/s too: each lasts quanta x 512 bit times, 1.28 ns a quantum
    ck("400 Gb/s pause time %s/%d" % (t["sender"], t["priority"]), p and abs(p["paused_ns"] - t["quanta"] * 512 / 400) <= t["frames"],
       "%s vs %s" % (p and p["paused_ns"], t["quanta"] * 512 / 400))
# One PAUSE/PFC frame alone (the first tshark sees): its row says "1 frame".
pf = subprocess.run(["tshark", "-r", pcap, "-Y", "macc", "-T", "fields", "-e", "frame.number"],
                    capture_output=True, text=True).stdout.split()
if ck("a PAUSE/PFC frame by tshark", bool(pf)):
    one = os.path.join(tmp, "one_pause.pcap")
    subprocess.run(["editcap", "-r", pcap, one, pf[0]], check=True, capture_output=True)
    txt = run("--width", "0", one).stdout
    ck("one pause frame: '1 frame (' in its row", re.search(r": 1 frame \(", txt) is not None, txt[-400:])
    ck("one pause frame: no '1 frames'", "1 frames" not in txt, txt[-400:])
run("--dscp", "data=64", pcap, rc=2)
run("--dscp", "voice=3", pcap, rc=2)
run("--link-speed", "0", pcap, rc=2)

# ---- 2. tshark -------------------------------------------------------------
def tshark(path, fields, flt):
    return tshark_fields(path, fields, flt)


rows = tshark(pcap, ["eth.src", "macc.opcode", "macc.cbfc.enbv", "macc.pause_time"] +
              ["macc.cbfc.pause_time.c%d" % i for i in range(8)] + ["frame.number"], "macc")
ts_frames = collections.Counter()
ts_quanta = collections.Counter()
for r in rows:
    mac, op = r[0], int(r[1], 0)
    if op == 1:
        ts_frames[(mac, -1)] += 1
        ts_quanta[(mac, -1)] += int(r[3])
        continue
    en = int(r[2], 0)
    for i in range(8):
        if en >> i & 1:
            ts_frames[(mac, i)] += 1
            ts_quanta[(mac, i)] += int(r[4 + i])
ck("tshark: PAUSE/PFC frames decoded", len(rows) == cg["pfc_frames"] + cg["pause_frames"],
   "%d != %d" % (len(rows), cg["pfc_frames"] + cg["pause_frames"]))
for k, n in ts_frames.items():
    p = pauses.get(k)
    ck("tshark: %s/%d frames and quanta" % k, p and p["frames"] == n and p["quanta"] == ts_quanta[k],
       "%s vs %d/%d" % (p and (p["frames"], p["quanta"]), n, ts_quanta[k]))

# --fields: a line per PAUSE/PFC frame with its enable vector and times, as tshark decodes them
import csv  # noqa: E402
lines = list(csv.DictReader(run("--fields", pcap).stdout.splitlines()))
mine = {int(r["frame"]): r for r in lines if r["roce"] in ("pfc", "pause")}
ck("--fields: a line per PAUSE/PFC frame", len(mine) == len(rows), "%d != %d" % (len(mine), len(rows)))
bad = []
for r in rows:
    m = mine.get(int(r[12]))
    op = int(r[1], 0)
    want = ("pause", "255", r[3]) if op == 1 else ("pfc", str(int(r[2], 0)), ";".join(str(int(x)) for x in r[4:12]))
    if not m or (m["roce"], m["pause_enable"], m["pause_quanta"]) != want or m["src"] != r[0]:
        bad.append((r[12], m and (m["roce"], m["pause_enable"], m["pause_quanta"]), want))
ck("--fields: PAUSE/PFC enable and times as tshark's", not bad, str(bad[:3]))
v2 = [r for r in lines if r["roce"] == "v2"]
ck("--fields: DSCP/ECN of RoCE v2 lines", v2 and all(r["dscp"] != "" and r["ecn"] != "" for r in v2))
walk = run("-V", "--frames", rows[0][12], pcap).stdout
ck("-V explains a PFC frame", "Priority-based Flow Control" in walk or "PAUSE (IEEE 802.3" in walk, walk[:300])

# the timeline's pause rows add up to the truth's paused time; the plot shades them
tl, svg = os.path.join(tmp, "t.csv"), os.path.join(tmp, "p.svg")
run("--timeline", tl, "--plot", svg, "-o", os.devnull, pcap)
trows = list(csv.DictReader(open(tl)))
paused = collections.Counter()
for r in trows:
    if r["pause_priority"] != "":
        paused[(r["src"], -1 if r["pause_priority"] == "all" else int(r["pause_priority"]))] += int(r["paused_ns"])
for t in truth["pauses"]:
    k = (t["sender"], t["priority"])
    ck("timeline: paused ns of %s/%d" % k, paused[k] == t["pause_ns"], "%d != %d" % (paused[k], t["pause_ns"]))
ck("timeline: half-flow rows leave the pause columns empty",
   all(r["paused_ns"] == "" for r in trows if r["dest_qp"] != ""))
plot = open(svg).read()
ck("plot: the storm shaded", "02:00:5e:ff:ff:00 PFC priority 3 paused" in plot)

# IBTA 9.2 / table 38: the extended headers after the BTH by the low five
# bits of an RC opcode (UC, RD, UD and XRC add their own below); None: not a
# data packet (READ request, ACK, atomics) or reserved.
EXT = {0: 0, 1: 0, 2: 0, 3: 4, 4: 0, 5: 4, 6: 16, 7: 0, 8: 0, 9: 4, 10: 16, 11: 20,
       13: 4, 14: 0, 15: 4, 16: 4, 22: 4, 23: 4}
READ_RESP = {13, 14, 15, 16}


def carries_data(opcode, udp_len):
    """A request with payload or a READ response (what the data DSCP is for)."""
    transport, op = opcode >> 5, opcode & 31
    extra = {0: 0, 1: 0, 2: 12, 3: 8, 5: 4}.get(transport)
    if extra is None or op not in EXT or (transport == 3 and op not in (4, 5)):
        return False
    if op in READ_RESP:
        return True
    # UDP 8, BTH 12, the ICRC 4: what is left is the payload and its pad (0-3,
    # none on an empty payload)
    return udp_len - 8 - 12 - EXT[op] - extra - 4 > 0


hw = sorted(glob.glob(os.path.join(SHARED, "hw-captures", "*.pcap")) +
            glob.glob(os.path.join(SHARED, "public-captures", "*.pcap")))
ck("hardware captures found", bool(hw))
for path in hw:
    base = os.path.basename(path)
    rows = tshark(path, ["ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "infiniband.bth.destqp", "infiniband.bth.opcode",
                         "ip.dsfield.dscp", "ip.dsfield.ecn", "ipv6.tclass.dscp", "ipv6.tclass.ecn", "udp.length"],
                "udp.dstport == 4791 && infiniband.bth")
    if not rows:
        continue
    want = collections.defaultdict(lambda: {"dscp": collections.Counter(), "ecn": collections.Counter(), "cnps": 0,
                                            "data_not26": 0})
    for r in rows:
        src, dst = (r[0], r[1]) if r[0] else (r[2], r[3])
        dscp, ecn = (r[6], r[7]) if r[6] else (r[8], r[9])
        w = want[(src, dst, int(r[4], 0))]
        if int(r[5], 0) == 0x81:
            w["cnps"] += 1
            continue
        w["dscp"][int(dscp)] += 1
        w["ecn"][int(ecn)] += 1
        if int(dscp) != 26 and int(r[4], 0) > 1 and carries_data(int(r[5], 0), int(r[10])):
            w["data_not26"] += 1
    doc = json.loads(run("--format", "json", path).stdout)
    given = json.loads(run("--format", "json", "--dscp", "data=26", path).stdout)
    cg = doc.get("congestion")
    ecn_used = any(w["ecn"][1] + w["ecn"][2] + w["ecn"][3] for w in want.values())
    ck(base + ": congestion section when ECN is in use", (cg is not None) == (ecn_used or any(w["cnps"] for w in want.values())))
    if cg is None:
        continue
    listed = {(h["src"], h["dst"], h["dest_qp"]): h for h in cg["half_flows"]}
    for key, w in want.items():
        h = listed.get(key)
        if h is None:
            ck("%s %s: unlisted means DSCP 26 ECT(0)" % (base, key), set(w["dscp"]) == {26} and set(w["ecn"]) == {2}, str(w))
            continue
        ck("%s %s: DSCP" % (base, key), {int(k): v for k, v in h["dscp"].items()} == dict(w["dscp"]), "%s != %s" % (h["dscp"], dict(w["dscp"])))
        got_ecn = [h["ecn"]["not_ect"], h["ecn"]["ect1"], h["ecn"]["ect0"], h["ecn"]["ce"]]
        ck("%s %s: ECN" % (base, key), got_ecn == [w["ecn"][i] for i in range(4)], "%s != %s" % (got_ecn, dict(w["ecn"])))
    # The data DSCP is judged on the packets that carry RDMA data only (not
    # QP0/QP1 MADs, ACKs, CNPs), counted here from tshark's opcode, QP and
    # UDP length with the IBTA's header sizes.
    # Only where --dscp data=26 states it; never on the convention alone.
    def data_flags(d):
        return {(a["src"], a["dst"], a["dest_qp"]): a["count"] for a in d["anomalies"]
                if a["type"] == "dscp_unexpected" and a["code"] == 1}
    ck(base + ": no data DSCP flag without --dscp", not data_flags(doc), str(data_flags(doc)))
    flagged = data_flags(given)
    for key, w in want.items():
        n = w["data_not26"]
        ck("%s %s: --dscp data=26 flags %d data packets" % (base, key, n), flagged.get(key, 0) == n,
           "%s != %s" % (flagged.get(key), n))
    ck(base + ": no data DSCP flag on QP0/QP1", not any(k[2] <= 1 for k in flagged), str(flagged))
    # One half-flow's packets (CNPs apart) over several DSCPs: the capture contradicts itself.
    split = {(a["src"], a["dst"], a["dest_qp"]) for a in doc["anomalies"]
             if a["type"] == "dscp_unexpected" and a["code"] == 3}
    want_split = {k for k, w in want.items() if len(w["dscp"]) > 1}
    ck(base + ": split-DSCP flags on the half-flows tshark shows in several DSCPs", split == want_split,
       "%s != %s" % (sorted(split), sorted(want_split)))

# ---- 3. the exit status ---------------------------------------------------
plain, ptruth = gen("plain", "-n", "4000", "--conns", "400", "--hosts", "8", "--seed", "3", "--no-cm")
d = json.loads(run("--format", "json", plain).stdout)
others = [a for a in d["anomalies"] if a["type"] not in ("ecn_ce", "cnp")]
if ck("a capture whose only anomalies are CE and CNPs", not others and ptruth["cnps"] > 0, str(others[:2])):
    run(plain, rc=0)
    most = max(h["cnp"]["peak_per_s"] for h in d["congestion"]["half_flows"] if h["cnp"])
    run("--cnp-threshold", str(most), plain, rc=0)
    p = run("--cnp-threshold", str(most - 1) if most > 1 else "1", plain, rc=1 if most > 1 else 0)
    if most > 1:
        ck("cnp_rate anomaly named", "more than --cnp-threshold" in p.stdout)
    # 0 (the man page: more than N): every half-flow that received a CNP
    d0 = json.loads(run("--cnp-threshold", "0", "--format", "json", plain, rc=1).stdout)
    rate = {(a["src"], a["dst"], a["dest_qp"]) for a in d0["anomalies"] if a["type"] == "cnp_rate"}
    want = {(t["src"], t["dst"], t["dst_qp"]) for t in ptruth["half_flows"] if t["cnps"]}
    ck("--cnp-threshold 0: a cnp_rate anomaly on each half-flow with a CNP (truth)", rate == want,
       "%d != %d" % (len(rate), len(want)))
    ck("--cnp-threshold 0 in the JSON", d0["congestion"]["cnp_threshold_per_s"] == 0)
run("--cnp-threshold", "-1", pcap, rc=2)
run("--cnp-threshold", "x", pcap, rc=2)

print("check_congestion: %d checks, %d failed" % (ck.checks, ck.failures))
sys.exit(1 if ck.failures else 0)
