#!/usr/bin/env python3
"""-j N against -j 1 with several files: the files are read and decoded in
one thread and analysed in another (cli/pipeline.c), one after the other in
time order, by one analyzer; the report must be the one a single thread
writes, byte for byte.

1. Independent captures (no host in two of them), given in time order: every
   report (text, JSON, --qp, --ladder, --max-flows, --timeline CSV, --plot
   SVG) of -j 2, -j 3 and -j 8 must equal -j 1's byte for byte.
2. Captures of the same two hosts (flows continue across files): the same,
   byte for byte (when each file had an analyzer of its own and the results
   were merged, only the counters could be compared here).
3. A file that cannot be opened among them: listed with its error in both,
   and the reports are equal byte for byte.
4. Every capture of ../shared/captures together, given out of time order
   (the same hosts and QP numbers recur in them, with and without CM): the
   files are analysed in the order of their first frames (read here by
   pcaprecs.py), -j 4 reports what -j 1 does byte for byte, and the
   anomalies are those of the files read one by one: a QP number reused by a
   later run is a new QP, not a gap or a retransmission of the earlier one.
5. One of the files on standard input (`-r -`), which can be read only
   once: -j 2 must still read it, and report what -j 1 reports for the same
   files by name (the file's name, "-", aside).

Exit status 0 when all hold, 1 otherwise. Run by `make jobs` (part of
`make check`).
"""
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROCESTAT = os.environ.get("ROCESTAT", os.path.join(ROOT, "rocestat"))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import need_shared  # noqa: E402

need_shared("check_jobs")
C = os.path.join(SHARED, "captures")
P = os.path.join(SHARED, "public-captures")

# Disjoint hosts, in time order (a sequential run counts a frame older than
# the current interval in that interval).
INDEPENDENT = [
    os.path.join(P, "PcapPlusPlus__InfiniBandPacket.pcap"),
    os.path.join(P, "rdma-softroce-demo__infiniband.pcap"),
    os.path.join(P, "rdma-roce-lab__roce_capture_read-write-ecn.pcap"),
    os.path.join(C, "ipv6_rping.pcap"),
    os.path.join(C, "loss_write_bw.pcap"),
]
# The same hosts and QPs in several files.
OVERLAPPING = [os.path.join(C, n) for n in
               ("rping_s64.pcap", "cm_reject.pcap", "ib_write_bw_cm.pcap", "ud_send_bw.pcap", "udaddy.pcap")]

failures = 0


def fail(msg):
    global failures
    failures += 1
    print("check_jobs: FAIL: " + msg)


def run(args, files, allowed=(0, 1)):
    r = subprocess.run([ROCESTAT, "-n"] + args + files, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode not in allowed:
        fail("rocestat %s exited %d: %s" % (" ".join(args), r.returncode, r.stderr.decode()[:300]))
    return r.stdout, r.returncode


def independent(tmp):
    missing = [f for f in INDEPENDENT if not os.path.exists(f)]
    if missing:
        fail("captures missing: %s" % missing)
        return
    cases = [["--format", "json"], [], ["--qp", "0x12"], ["--format", "json", "--qp", "0x11"], ["--ladder"],
             ["--max-flows", "4", "--format", "json"]]
    for jobs in ("2", "3", "8"):
        for args in cases:
            want, rc1 = run(["-j", "1"] + args, INDEPENDENT)
            got, rc2 = run(["-j", jobs] + args, INDEPENDENT)
            if want != got or rc1 != rc2:
                fail("-j %s %s differs from -j 1 (exit %d vs %d)" % (jobs, " ".join(args), rc2, rc1))
        outs = {}
        for j in ("1", jobs):
            tl = os.path.join(tmp, "tl%s.csv" % j)
            svg = os.path.join(tmp, "plot%s.svg" % j)
            run(["-j", j, "--timeline", tl, "--plot", svg, "-o", os.devnull], INDEPENDENT)
            outs[j] = (open(tl, "rb").read(), open(svg, "rb").read())
        if outs["1"][0] != outs[jobs][0]:
            fail("-j %s --timeline differs from -j 1" % jobs)
        if outs["1"][1] != outs[jobs][1]:
            fail("-j %s --plot differs from -j 1" % jobs)
        if outs["1"][0].count(b"\n") < 10:
            fail("the timeline has almost no rows")


def overlapping():
    for args in (["--format", "json"], [], ["--ladder"], ["--max-flows", "6", "--format", "json"]):
        seq = run(["-j", "1"] + args, OVERLAPPING)
        par = run(["-j", "2"] + args, OVERLAPPING)
        if seq != par:
            fail("overlapping files: -j 2 %s differs from -j 1" % " ".join(args))


def with_unreadable(tmp):
    bad = os.path.join(tmp, "not-a-capture.pcap")
    with open(bad, "wb") as f:
        f.write(b"GET / HTTP/1.1\r\n\r\n")
    files = INDEPENDENT[:2] + [bad] + INDEPENDENT[2:]
    for args in ([], ["--format", "json"]):
        want, rc1 = run(["-j", "1"] + args, files, allowed=(3,))
        got, rc2 = run(["-j", "2"] + args, files, allowed=(3,))
        if (want, rc1) != (got, rc2) or rc1 != 3:
            fail("-j 2 %s with an unreadable file differs from -j 1 (exit %d vs %d)" % (" ".join(args), rc2, rc1))
    listed = [(f["name"], f["error"] is None) for f in json.loads(got)["capture"]["files"]]
    if listed != [(f, f != bad) for f in files]:
        fail("with an unreadable file: files listed %s" % listed)


def together():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pcaprecs import read_pcap
    files = sorted(glob.glob(os.path.join(C, "*.pcap")), reverse=True)
    if len(files) < 10:
        fail("together: only %d captures" % len(files))
        return
    first = {f: read_pcap(f)[1][0][:2] for f in files}
    seq, rc1 = run(["-j", "1", "--format", "json"], files)
    par, rc2 = run(["-j", "4", "--format", "json"], files)
    if (seq, rc1) != (par, rc2):
        fail("together: -j 4 differs from -j 1")
    js = json.loads(seq)
    order = [f["name"] for f in js["capture"]["files"]]
    if order != sorted(files, key=lambda f: first[f]):
        fail("together: files not analysed in time order: %s" % [os.path.basename(f) for f in order])
    alone = collections.Counter()
    for f in files:
        for an in json.loads(run(["--format", "json"], [f])[0])["anomalies"]:
            alone[(an["type"], an["code"], an["count"])] += 1
    both = collections.Counter((an["type"], an["code"], an["count"]) for an in js["anomalies"])
    if both != alone:
        fail("together: anomalies %s, read one by one %s" % (sorted(both.items()), sorted(alone.items())))
    if sum(alone.values()) < 5:
        fail("together: only %d anomalies in the captures" % sum(alone.values()))
    # With one of them on standard input the files cannot be put in time
    # order: read as given, later runs first, QP numbers reused by the
    # earlier runs must still start new QPs (a REP setting them up again,
    # packets from before the flow's last one, a closed connection's QPN).
    late_first = [os.path.join(C, n) for n in ("ib_atomic_cas.pcap", "ib_send_bw_cm.pcap", "ib_write_bw_cm.pcap")]
    alone, conns = collections.Counter(), []
    conn_key = lambda c: json.dumps([c["client"], c["server"], c.get("data_seen")], sort_keys=True)
    for f in late_first:
        one = json.loads(run(["--format", "json"], [f])[0])
        for an in one["anomalies"]:
            alone[(an["type"], an["code"], an["count"])] += 1
        conns += [conn_key(c) for c in one["connections"]]
    args = [ROCESTAT, "-n", "--format", "json", "-r", late_first[0], "-r", "-"] + \
        [w for f in late_first[2:] for w in ("-r", f)]
    with open(late_first[1], "rb") as fh:
        r = subprocess.run(args, stdin=fh, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    js = json.loads(r.stdout) if r.returncode < 2 else {"anomalies": [], "capture": {"files": []}}
    both = collections.Counter((an["type"], an["code"], an["count"]) for an in js["anomalies"])
    if r.returncode >= 2 or both != alone:
        fail("out of time order through stdin: exit %d, anomalies %s, read one by one %s" %
             (r.returncode, sorted(both.items()), sorted(alone.items())))
    # ... and each connection keeps its own data (its first request PSN).
    if sorted(conn_key(c) for c in js.get("connections", [])) != sorted(conns) or len(conns) < 4:
        fail("out of time order through stdin: the connections differ from the files read one by one")


def from_stdin():
    first, rest = INDEPENDENT[0], INDEPENDENT[1:]
    want = json.loads(run(["-j", "1", "--format", "json"], INDEPENDENT)[0])
    for jobs in ("1", "2"):
        args = [ROCESTAT, "-n", "-j", jobs, "--format", "json", "-r", "-"]
        for f in rest:
            args += ["-r", f]
        with open(first, "rb") as fh:
            r = subprocess.run(args, stdin=fh, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode >= 2:
            fail("-j %s with -r -: exited %d: %s" % (jobs, r.returncode, r.stderr.decode()[:300]))
            continue
        got = json.loads(r.stdout)
        names = [f["name"] for f in got["capture"]["files"]]
        if names != ["-"] + rest:
            fail("-j %s with -r -: files %s" % (jobs, names))
        for f in got["capture"]["files"]:
            f["name"] = first if f["name"] == "-" else f["name"]
        if got != want:
            fail("-j %s with -r -: the report differs from the run on the files by name" % jobs)


with tempfile.TemporaryDirectory() as tmp:
    independent(tmp)
    overlapping()
    with_unreadable(tmp)
    together()
    from_stdin()
print("check_jobs: %s" % ("PASS" if failures == 0 else "%d failures" % failures))
sys.exit(1 if failures else 0)
