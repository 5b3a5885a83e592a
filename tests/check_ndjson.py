#!/usr/bin/env python3
"""`rocestat --format ndjson` (make ndjson).

  * every line of every shared capture's NDJSON validates against the
    shipped schema's ndjson_line (man/rocestat.schema.json), and the schema
    refuses a line with an extra key, a missing key or an unknown kind;
  * the lines carry the objects of the JSON document of the same run, in
    its order: capture, connections, queue pairs, congestion, anomalies (one format,
    two shapes: what each key means is checked by check_reports.py);
  * a queue pair's "file" is the input file whose frame first_frame is, by
    tshark's decode, a packet of its half-flow (source, destination,
    destination QP), for two files in one run that share addresses and QPs;
  * NDJSON from two runs (--host h1, --host h2) concatenated loads with
    `jq -s`, and the man page's sqlite3 example reads the queue pairs of
    both hosts.

Exit status 0 when every check passes, 1 otherwise.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, ROOT, SHARED, Checks, tshark_heuristics_off, need_shared  # noqa: E402

need_shared("check_ndjson")

try:
    import jsonschema
except ImportError:
    print("check_ndjson: python3-jsonschema is missing (sh scripts/deps.sh test installs it)")
    sys.exit(1)

ck = Checks("check_ndjson")
schema = json.load(open(os.path.join(ROOT, "man", "rocestat.schema.json")))
line_schema = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/ndjson_line"}
jsonschema.Draft202012Validator.check_schema(line_schema)
validator = jsonschema.Draft202012Validator(line_schema)
KIND_OF = {"capture": "capture", "connection": "connections", "ulp_queue": "ulp_queues", "queue_pair": "qps",
           "congestion": "congestion", "anomaly": "anomalies"}


def run(*args):
    p = subprocess.run([ROCESTAT, "-n", *args], capture_output=True, text=True)
    ck("exit status %s" % (args,), p.returncode in (0, 1), "%d %s" % (p.returncode, p.stderr[:200]))
    return p.stdout


def lines_of(name, text):
    out = []
    for i, ln in enumerate(text.splitlines(), 1):
        try:
            obj = json.loads(ln)
        except ValueError as e:
            ck("%s line %d is JSON" % (name, i), False, str(e))
            continue
        errs = list(validator.iter_errors(obj))
        ck("%s line %d validates" % (name, i), not errs, "; ".join(e.message[:150] for e in errs[:2]))
        out.append(obj)
    ck("%s ends with a newline" % name, text.endswith("\n"))
    return out


def same_as_document(name, lines, doc):
    want = [("capture", doc["capture"])]
    for kind in ("connection", "ulp_queue", "queue_pair"):
        want += [(kind, o) for o in doc.get(KIND_OF[kind], [])]
    if "congestion" in doc:  # the optional section: one line, whole
        want.append(("congestion", doc["congestion"]))
    want += [("anomaly", o) for o in doc["anomalies"]]
    got = [(ln["kind"], ln[ln["kind"]]) for ln in lines]
    ck("%s: the document's objects, in order" % name, got == want,
       "%d lines, %d objects; first difference at %r" % (
           len(got), len(want), next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), None)))


captures = sorted(glob.glob(os.path.join(SHARED, "captures", "*.pcap"))
                  + glob.glob(os.path.join(SHARED, "hw-captures", "*.pcap*"))
                  + glob.glob(os.path.join(SHARED, "public-captures", "*.pcap*")))
ck("captures found", len(captures) > 20, "%d" % len(captures))
# A capture without its CM frames: its NVMe-oF queue is one without CM (ulp_queue).
nocm = os.path.join(tempfile.mkdtemp(prefix="check_ndjson."), "nvme-discover-nocm.pcap")
disc = os.path.join(SHARED, "hw-captures", "magnate3__linux-riscv-dev__nvme-discover.pcap")
subprocess.run(["tshark", "-r", disc, "-Y", "!(infiniband.bth.destqp == 1)", "-F", "nsecpcap", "-w", nocm],
               check=True, capture_output=True)
captures.append(nocm)
kinds = set()
for cap in captures:
    base = os.path.basename(cap)
    lines = lines_of(base, run("--format", "ndjson", "--host", "h", cap))
    doc = json.loads(run("--format", "json-compact", cap))
    same_as_document(base, lines, doc)
    ck(base + ": file and host", all(ln["file"] == cap and ln["host"] == "h" for ln in lines))
    kinds |= {ln["kind"] for ln in lines}
ck("every kind seen", kinds == set(KIND_OF), str(sorted(kinds)))

c = os.path.join(SHARED, "captures")
a, b = os.path.join(c, "rping_s64.pcap"), os.path.join(c, "ib_write_bw_cm.pcap")

# Two files in one run: a queue pair's file holds its first frame.
frames_in = {}
for p in (a, b):
    out = subprocess.run(["tshark", "-n", "-r", p, "-T", "fields", "-e", "frame.number", "-e", "ip.src", "-e",
                          "ip.dst", "-e", "infiniband.bth.destqp", "-Y", "infiniband.bth"] + tshark_heuristics_off(),
                         capture_output=True, text=True, check=True).stdout
    frames_in[p] = {int(n): (s, d, int(q, 16) if q.startswith("0x") else int(q))
                    for n, s, d, q in (ln.split("\t") for ln in out.splitlines()) if q}
lines = lines_of("two files", run("--format", "ndjson", a, b))
same_as_document("two files", lines, json.loads(run("--format", "json-compact", a, b)))
cap_line = [ln for ln in lines if ln["kind"] == "capture"]
ck("two files: the capture line names none", len(cap_line) == 1 and cap_line[0]["file"] is None)
qps = [ln for ln in lines if ln["kind"] == "queue_pair"]
wrong = []
for ln in qps:
    q = ln["queue_pair"]
    key = (q["src"], q["dst"], q["dest_qp"])
    if frames_in.get(ln["file"], {}).get(q["first_frame"]) != key:
        wrong.append((key, ln["file"], q["first_frame"]))
ck("two files: queue pairs found", len(qps) > 4 and {ln["file"] for ln in qps} == {a, b},
   "%r" % {ln["file"] for ln in qps})
ck("two files: each queue pair's file holds its first frame", not wrong, "%r" % wrong[:3])
host = subprocess.run(["hostname"], capture_output=True, text=True).stdout.strip()
ck("default host: this machine's", all(ln["host"] == host for ln in lines), "%r" % lines[0]["host"])

with tempfile.TemporaryDirectory() as tmp:
    pa, pb, both = (os.path.join(tmp, n) for n in ("a.ndjson", "b.ndjson", "all.json"))
    subprocess.run([ROCESTAT, "--format", "ndjson", "--host", "h1", "-o", pa, a], check=False)
    subprocess.run([ROCESTAT, "--format", "ndjson", "--host", "h2", "-o", pb, b], check=False)
    na, nb = (len(open(p).read().splitlines()) for p in (pa, pb))
    j = subprocess.run("cat %s %s | jq -s ." % (pa, pb), shell=True, capture_output=True, text=True)
    ck("jq -s loads the two concatenated", j.returncode == 0, j.stderr[:200])
    arr = json.loads(j.stdout) if j.returncode == 0 else []
    ck("jq -s: every line an element", len(arr) == na + nb and na > 0 and nb > 0, "%d vs %d+%d" % (len(arr), na, nb))
    ck("jq -s: the hosts", [x["host"] for x in arr] == ["h1"] * na + ["h2"] * nb)
    with open(both, "w") as f:
        f.write(j.stdout)
    # The man page's sqlite3 example.
    q = ("SELECT json_extract(value, '$.host'), json_extract(value, '$.queue_pair.dest_qp'), "
         "json_extract(value, '$.queue_pair.packets') FROM json_each(readfile('%s')) "
         "WHERE json_extract(value, '$.kind') = 'queue_pair'" % both)
    s = subprocess.run(["sqlite3", ":memory:", q], capture_output=True, text=True)
    rows = [r.split("|") for r in s.stdout.splitlines()]
    want = [[x["host"], str(x["queue_pair"]["dest_qp"]), str(x["queue_pair"]["packets"])]
            for x in arr if x["kind"] == "queue_pair"]
    ck("sqlite3 reads the queue pairs of both hosts", s.returncode == 0 and rows == want and
       {r[0] for r in rows} == {"h1", "h2"}, s.stderr[:200] or "%r vs %r" % (rows[:2], want[:2]))

# The schema refuses what breaks it.
base = lines_of("base", run("--format", "ndjson", os.path.join(c, "udaddy.pcap")))
qp = next(ln for ln in base if ln["kind"] == "queue_pair")
ck("refuses an extra key", not validator.is_valid(dict(qp, surprise=1)))
ck("refuses a missing key", not validator.is_valid({k: v for k, v in qp.items() if k != "host"}))
ck("refuses an unknown kind", not validator.is_valid(dict(qp, kind="qp")))
ck("refuses a kind that names another object", not validator.is_valid(dict(qp, kind="anomaly")))
inner = dict(qp["queue_pair"])
del inner["path_mtu"]
ck("refuses an object missing a key of its kind", not validator.is_valid(dict(qp, queue_pair=inner)))

print("check_ndjson: %d checks, %d failed" % (ck.checks, ck.failures))
sys.exit(1 if ck.failures else 0)
