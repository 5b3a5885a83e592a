#!/usr/bin/env python3
"""UD conversations, and replies paired with requests by order, against
tshark's fields.

For every capture with UD datagrams (samples/udorder/*.pcap, made from
rxe_ud by samples/udorder/make.py, the UD samples and the UD captures of
../shared) this reads each datagram's time, addresses, BTH destination QP,
DETH source QP and PSN with tshark, and pairs them itself by the rule the
man page states (DEFINITIONS, "UD latency, paired by order"): the side whose
datagram comes first sends the requests; a datagram of the other side
answers the conversation's datagram just before it if that is a request, and
only at the same count into both streams by PSN. Then:

  * rocestat --ladder draws each conversation seen both ways as one diagram
    (every frame of it under one header), and names, under each reply, the
    request frame it was paired with: exactly the pairs worked out here;
  * the JSON's latency_ns.ud_reply (count, min, median, p99, max, nearest
    rank) on the requests' half-flow is those pairs' times from tshark's
    frame.time_epoch, and ud_requests / ud_unpaired their counts;
  * on the ping-pong captures, whose pairs are known by construction (request
    k and reply k, PSN k on both sides), the pairs are exactly those the
    construction leaves: the reordered and dropped variants pair no reply with
    a request it does not answer.
"""
import glob
import json
import os
import re
import subprocess
import sys

from testlib import ROCESTAT, ROOT, SHARED, Checks, need_shared, tshark_fields

PROG = "check_udpair"
check = Checks(PROG)

# By construction (samples/udorder/make.py): (request frame, reply frame).
TRUTH = {
    "ud_pingpong.pcap": {(1, 2), (3, 4), (5, 6), (7, 8)},
    "ud_pingpong_swap.pcap": {(1, 2), (7, 8)},
    "ud_pingpong_drop.pcap": {(1, 2), (4, 5), (6, 7)},
    "ud_pingpong_drop2.pcap": {(1, 2), (5, 6)},
}

FIELDS = ["frame.number", "frame.time_epoch", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst",
          "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.deth.srcqp", "infiniband.bth.psn"]


def ns(epoch):
    sec, _, frac = epoch.partition(".")
    return int(sec) * 10**9 + int((frac + "000000000")[:9])


def datagrams(path):
    out = []
    for row in tshark_fields(path, FIELDS, "infiniband.deth"):
        num, t, s4, d4, s6, d6, op, dqp, sqp, psn = row
        dqp, sqp = int(dqp, 16), int(sqp, 16)
        if not (96 <= int(op) <= 127) or dqp in (0, 1, 0xFFFFFF):
            continue
        out.append({"frame": int(num), "ns": ns(t), "src": (s4 or s6, sqp), "dst": (d4 or d6, dqp),
                    "psn": int(psn)})
    return out


def model(dgs):
    """{conversation: {"req": (host, qp), "pairs": [(req frame, reply frame, ns)], "requests": n}}"""
    convs = {}
    for d in dgs:
        key = frozenset((d["src"], d["dst"]))
        c = convs.setdefault(key, {"req": d["src"], "first": {}, "open": None, "pairs": [], "requests": 0,
                                   "frames": []})
        c["frames"].append(d["frame"])
        c["first"].setdefault(d["src"], d["psn"])
        if d["src"] == c["req"]:
            c["requests"] += 1
            c["open"] = d
            continue
        r, c["open"] = c["open"], None
        if r is None:
            continue
        kreq = (r["psn"] - c["first"][r["src"]]) & 0xFFFFFF
        krep = (d["psn"] - c["first"][d["src"]]) & 0xFFFFFF
        if kreq == krep and d["ns"] >= r["ns"]:
            c["pairs"].append((r["frame"], d["frame"], d["ns"] - r["ns"]))
    return {k: c for k, c in convs.items() if len(c["first"]) == 2}


def nearest(sorted_v, q):
    n = len(sorted_v)
    k = max(1, -(-int(q * n * 1000000) // 1000000))  # ceil(q*n), 1-based
    return sorted_v[min(k, n) - 1]


def ladder(path):
    p = subprocess.run([ROCESTAT, "-n", "--width", "0", "--ladder", path], capture_output=True, text=True)
    check(path + ": --ladder exits 0", p.returncode == 0, p.stderr[:300])
    diagrams, pairs, cur, last = [], set(), None, None
    for line in p.stdout.splitlines():
        if "⇄" in line:
            cur = set()
            diagrams.append(cur)
            continue
        m = re.match(r"\s*(\d+)\s+[\d.]+\s+\|", line)
        if m and cur is not None:
            last = int(m.group(1))
            cur.add(last)
            continue
        m = re.search(r"↳ reply to frame (\d+) after", line)
        if m:
            pairs.add((int(m.group(1)), last))
    return diagrams, pairs


def qps(path):
    p = subprocess.run([ROCESTAT, "-n", "--format", "json", path], capture_output=True, text=True)
    check(path + ": --format json exits 0", p.returncode == 0, p.stderr[:300])
    return json.loads(p.stdout)["qps"] if p.returncode == 0 else []


def one(path):
    name = os.path.relpath(path, os.path.dirname(ROOT))
    convs = model(datagrams(path))
    diagrams, pairs = ladder(path)
    want = set()
    for c in convs.values():
        want |= {(a, b) for a, b, _ in c["pairs"]}
        frames = set(c["frames"])
        # Runs of one kind collapse: the frames drawn, all under one header.
        hit = [d for d in diagrams if d & frames]
        check(name + ": one diagram for the conversation of frames %d.." % min(frames),
              len(hit) == 1, "diagrams: %s" % [sorted(d)[:6] for d in hit])
    check(name + ": the ladder's pairs are tshark's by order", pairs == want,
          "ladder %s, tshark %s" % (sorted(pairs), sorted(want)))
    base = os.path.basename(path)
    if base in TRUTH:
        check(name + ": the pairs are those of the construction", pairs == TRUTH[base],
              "ladder %s, construction %s" % (sorted(pairs), sorted(TRUTH[base])))
    rows = qps(path)
    for c in convs.values():
        host, qp = c["req"]
        (other,) = [e for e in c["first"] if e != c["req"]]
        row = [q for q in rows if q.get("src") == host and q.get("dst") == other[0] and q.get("dest_qp") == other[1]]
        if not check(name + ": a JSON row for the requests %s QP 0x%x" % (host, qp), len(row) == 1,
                     "%d rows" % len(row)):
            continue
        lat = row[0]["latency_ns"]
        check(name + ": ud_requests", lat.get("ud_requests") == c["requests"],
              "%s, tshark %d" % (lat.get("ud_requests"), c["requests"]))
        check(name + ": ud_unpaired", lat.get("ud_unpaired") == c["requests"] - len(c["pairs"]),
              "%s, tshark %d" % (lat.get("ud_unpaired"), c["requests"] - len(c["pairs"])))
        v = sorted(t for _, _, t in c["pairs"])
        exp = None if not v else {"count": len(v), "min": v[0], "median": nearest(v, 0.5), "p99": nearest(v, 0.99),
                                  "max": v[-1]}
        check(name + ": ud_reply from tshark's times", lat.get("ud_reply", "absent") == exp,
              "%s, tshark %s" % (lat.get("ud_reply", "absent"), exp))


def main():
    caps = sorted(glob.glob(os.path.join(ROOT, "samples", "udorder", "*.pcap")))
    check("the ping-pong captures are there", {os.path.basename(c) for c in caps} == set(TRUTH),
          "%s" % [os.path.basename(c) for c in caps])
    caps += [os.path.join(ROOT, "samples", n) for n in ("rxe_ud.pcap", "rxe_ud_ipv6.pcap")]
    if not need_shared(PROG, exit=False):
        caps += [os.path.join(SHARED, "captures", n) for n in ("udaddy.pcap", "ud_send_bw.pcap")]
        caps += sorted(glob.glob(os.path.join(SHARED, "hw-captures", "*nccl*.pcap")))
    else:
        check("../shared is there", False)
    for c in caps:
        one(c)
    print("%s: %d checks, %d failed" % (PROG, check.checks, check.failures))
    sys.exit(1 if check.failures else 0)


if __name__ == "__main__":
    main()
