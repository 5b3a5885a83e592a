#!/usr/bin/env python3
"""The --timeline CSV against tshark: rows in time order across half-flows;
by default a row per (half-flow, interval) that had frames (tshark's
frames counted per interval), and no row of zeros; with --timeline-fill
the same rows plus a row of zeros for each idle interval between a
half-flow's first and last; the latency columns against request → ACK
times computed from tshark's fields (a request with the AckReq bit, the
first ACK on the reverse direction whose PSN covers it, first sightings
of a PSN only, counted in the interval of the ACK)."""
import csv
import io
import os
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, ROOT, SHARED, Checks, tshark_fields  # noqa: E402

PROG = "check_timeline"
IV_NS = 1000000  # --interval 1ms

# Write/send traffic without READs or atomics (the latency oracle follows
# ACKs only) and without retransmissions.
CAPTURES = ["samples/rxe_write_multi.pcap", "samples/rping_s64.pcap",
            SHARED + "/captures/rping_s5000.pcap", SHARED + "/captures/ib_write_bw_cm.pcap",
            SHARED + "/captures/ib_send_bw_cm.pcap", SHARED + "/captures/ib_write_lat.pcap",
            SHARED + "/captures/rc_pingpong.pcap"]

ACK_OPCODES = {17}  # RC Acknowledge


def run(path, *extra):
    p = subprocess.run([ROCESTAT, "-n", "-r", path, "-o", "/dev/null", "--interval", "1ms", "--timeline", "-"]
                       + list(extra), capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError("rocestat exited %d: %s" % (p.returncode, p.stderr[:300]))
    return list(csv.DictReader(io.StringIO(p.stdout)))


def ns(text):
    s, f = text.split(".")
    return int(s) * 1000000000 + int(f)


def tshark_view(path):
    """Per (src, dst, dest_qp, interval): frames; and the latency samples per
    (requester src, dst, dest_qp, interval of the answer)."""
    rows = tshark_fields(path, ["frame.time_epoch", "ip.src", "ipv6.src", "ip.dst", "ipv6.dst",
                                "infiniband.bth.destqp", "infiniband.bth.opcode", "infiniband.bth.psn",
                                "infiniband.bth.a", "infiniband.aeth.syndrome"])
    t0 = None
    frames = defaultdict(int)
    lat = defaultdict(list)
    pending = defaultdict(list)   # (src, dst) → [(psn, ts, (src, dst, qp))]
    seen = defaultdict(set)       # half-flow → PSNs seen
    reads = {}                    # (src, dst, PSN) → (ts, requester)
    for r in rows:
        sec, _, frac = r[0].partition(".")
        ts = int(sec) * 1000000000 + int((frac + "000000000")[:9])
        if t0 is None:
            t0 = ts
        if not r[5]:
            continue
        src, dst = r[1] or r[2], r[3] or r[4]
        qp, op, psn = int(r[5], 0), int(r[6], 0), int(r[7], 0)
        key = (src, dst, "0x%x" % qp)
        iv = (ts - t0) // IV_NS
        frames[key + (iv,)] += 1
        if op in (13, 16):  # the first (or only) READ response: its READ's latency
            req = reads.pop((dst, src, psn), None)
            if req:
                lat[req[1] + (iv,)].append(ts - req[0])
            continue
        if op in ACK_OPCODES and r[9] and int(r[9], 0) >> 5 == 0:
            waiting = pending[(dst, src)]
            while waiting and ((psn - waiting[0][0]) & 0xFFFFFF) < 0x800000:
                p, t, req, resent = waiting.pop(0)
                if not resent:  # Karn: an answer to a request sent twice measures nothing
                    lat[req + (iv,)].append(ts - t)
            continue
        fresh = psn not in seen[key]
        seen[key].add(psn)
        if not fresh:
            pending[(src, dst)] = [(p, t, k, resent or p == psn) for p, t, k, resent in pending[(src, dst)]]
            reads.pop((src, dst, psn), None)
        if op == 12 and fresh:
            reads[(src, dst, psn)] = (ts, key)
        elif r[8] in ("1", "True") and fresh and op < 12:  # SEND/WRITE with AckReq
            pending[(src, dst)].append((psn, ts, key, False))
    return frames, lat


def main():
    c = Checks(PROG)
    ran = 0
    for rel in CAPTURES:
        path = rel if rel.startswith("/") else os.path.join(ROOT, rel)
        if not os.path.exists(path):
            c("capture present", False, path)
            continue
        ran += 1
        name = os.path.basename(path)
        rows = run(path)
        fill = run(path, "--timeline-fill")
        starts = [ns(r["interval_start"]) for r in rows]
        c(name + ": rows in time order", starts == sorted(starts),
          "first out of order at row %d" % next((i for i in range(1, len(starts)) if starts[i] < starts[i - 1]), -1))
        fstarts = [ns(r["interval_start"]) for r in fill]
        c(name + ": --timeline-fill rows in time order", fstarts == sorted(fstarts))
        zero = [r for r in rows if r["dest_qp"] and r["packets"] == "0" and r["latency_samples"] in ("0", "")]
        c(name + ": no row of zeros by default", not zero, "%d of %d" % (len(zero), len(rows)))

        frames, lat = tshark_view(path)
        got = {(r["src"], r["dst"], r["dest_qp"], ns(r["interval_start"]) // IV_NS): int(r["packets"])
               for r in rows if r["dest_qp"] and r["packets"] != "0"}
        c(name + ": a row per half-flow and interval with frames (tshark)", got == dict(frames),
          "only rocestat %s, only tshark %s" % (sorted(set(got) - set(frames))[:3], sorted(set(frames) - set(got))[:3]))
        # --timeline-fill: the default rows, plus zeros for every idle interval in a half-flow's span.
        want_fill = set(got)
        spans = defaultdict(list)
        for k in got:
            spans[k[:3]].append(k[3])
        for r in rows:
            if r["dest_qp"] and r["packets"] == "0":
                spans[(r["src"], r["dst"], r["dest_qp"])].append(ns(r["interval_start"]) // IV_NS)
        for k, ivs in spans.items():
            ivs = sorted(set(ivs))
            for a, b in zip(ivs, ivs[1:]):
                gap = range(a + 1, b) if b - a - 1 <= 1000 else (a + 1, b - 1)  # longer: its first and last
                for iv in gap:
                    want_fill.add(k + (iv,))
        fill_keys = {(r["src"], r["dest_qp"] and r["dst"], r["dest_qp"], ns(r["interval_start"]) // IV_NS)
                     for r in fill if r["dest_qp"]}
        lat_only = {(r["src"], r["dst"], r["dest_qp"], ns(r["interval_start"]) // IV_NS)
                    for r in fill if r["dest_qp"] and r["packets"] == "0" and r["latency_samples"] not in ("0", "")}
        c(name + ": --timeline-fill: every interval of each half-flow's span", fill_keys - lat_only == want_fill,
          "missing %s extra %s" % (sorted(want_fill - fill_keys)[:3], sorted(fill_keys - lat_only - want_fill)[:3]))
        c(name + ": --timeline-fill adds rows of zeros where there are gaps",
          len(fill) > len(rows) or len(want_fill) == len(got))

        # Latency columns against tshark's request → ACK times.
        glat = {}
        for r in rows:
            if r["dest_qp"] and r["latency_samples"] not in ("", "0"):
                glat[(r["src"], r["dst"], r["dest_qp"], ns(r["interval_start"]) // IV_NS)] = (
                    int(r["latency_samples"]), int(r["latency_min_ns"]), int(r["latency_mean_ns"]),
                    int(r["latency_max_ns"]))
        want = {k: (len(v), min(v), (sum(v) + len(v) // 2) // len(v), max(v)) for k, v in lat.items()}
        c(name + ": latency columns = tshark's request → ACK times", glat == want and want,
          "%d rows vs %d; first differing: %s" % (len(glat), len(want), next(
              ((k, glat.get(k), want.get(k)) for k in sorted(set(glat) | set(want)) if glat.get(k) != want.get(k)),
              None)))
    c("captures checked", ran == len(CAPTURES))
    print("%s: %d checks, %d failed" % (PROG, c.checks, c.failures))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
