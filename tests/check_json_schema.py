#!/usr/bin/env python3
"""Every JSON document rocestat writes validates against the schema it ships
(man/rocestat.schema.json): one key set per object kind, nulls where a value
does not apply, the types and ranges the man page gives (make jsonschema;
part of make check).

Documents: every shared capture (plain, compact, under --max-flows, with
--qp), several files sequentially and with -j, a file that cannot be opened
beside one that can, an empty capture, generated captures with evicted
half-flows and connections, and the JSON goldens. The schema must also
refuse documents that break it (a missing key, an extra key, a wrong type),
or it proves nothing.
"""
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, ROOT, SHARED, Checks, need_shared  # noqa: E402

need_shared("check_json_schema")

try:
    import jsonschema
except ImportError:
    print("check_json_schema: python3-jsonschema is missing (sh scripts/deps.sh test installs it)")
    sys.exit(1)

ck = Checks("check_json_schema")
schema = json.load(open(os.path.join(ROOT, "man", "rocestat.schema.json")))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)


def errors(doc):
    return sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))


def validate(name, text):
    try:
        doc = json.loads(text)
    except ValueError as e:
        ck(name, False, "not JSON: %s" % e)
        return None
    errs = errors(doc)
    ck(name, not errs, "; ".join("%s: %s" % ("/".join(map(str, e.absolute_path)), e.message) for e in errs[:3]))
    return doc


def run(name, *args):
    p = subprocess.run([ROCESTAT, "-n", *args], capture_output=True, text=True)
    if p.returncode >= 2 and not p.stdout:
        ck(name, False, "rocestat exited %d: %s" % (p.returncode, p.stderr.strip()[:200]))
        return None
    return validate(name, p.stdout)


captures = sorted(glob.glob(os.path.join(SHARED, "captures", "*.pcap"))
                  + glob.glob(os.path.join(SHARED, "hw-captures", "*.pcap*"))
                  + glob.glob(os.path.join(SHARED, "public-captures", "*.pcap*")))
ck("captures found", len(captures) > 20, "%d" % len(captures))
kinds_seen = set()
for cap in captures:
    base = os.path.basename(cap)
    doc = run(base, "--format", "json", cap)
    run(base + " compact", "--format", "json-compact", cap)
    run(base + " --max-flows 4", "--max-flows", "4", "--format", "json", cap)
    if doc:
        for an in doc["anomalies"]:
            kinds_seen.add(an["subject"])
        qps = [q["dest_qp"] for q in doc["qps"] if q["qp_role"] == "data"]
        if qps:
            run(base + " --qp", "--qp", str(qps[0]), "--format", "json", cap)

c = os.path.join(SHARED, "captures")
run("two files", "--format", "json", os.path.join(c, "cm_reject.pcap"), os.path.join(c, "udaddy.pcap"))
run("two files -j 2", "-j", "2", "--format", "json", os.path.join(c, "ib_write_bw_cm.pcap"),
    os.path.join(c, "loss_write_bw.pcap"))
with tempfile.TemporaryDirectory() as tmp:
    missing = os.path.join(tmp, "missing.pcap")
    doc = run("an unopened file", "--format", "json", "-r", os.path.join(c, "rping_s64.pcap"), "-r", missing)
    if doc:
        ck("unopened file listed", any(f["link_type"] is None and f["error"] for f in doc["capture"]["files"]))
    empty = os.path.join(tmp, "empty.pcap")
    with open(empty, "wb") as f:  # a pcap header (microseconds, Ethernet) and no record
        f.write(bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000"))
    doc = run("an empty capture", "--format", "json", empty)
    if doc:
        ck("empty: no times", doc["capture"]["first_time_ns"] is None and doc["capture"]["frames"] == 0)
    # Evictions: ghosts of evicted half-flows and connections, and the sums
    # once more than 4096 are listed one by one.
    gen = os.path.join(ROOT, "build", "bench", "gen")
    if os.path.exists(gen):
        g = os.path.join(tmp, "gen.pcap")
        subprocess.run([gen, "-n", "60000", "--conns", "3000", "--hosts", "20", "--seed", "5", "-o", g],
                       check=True, capture_output=True)
        doc = run("generated, --max-flows 200", "--max-flows", "200", "--format", "json", g)
        if doc:
            ck("evicted subjects say so", any(a["evicted"] for a in doc["anomalies"]))
            ck("evicted half-flows keep their QP",
               all(a["dest_qp"] is not None for a in doc["anomalies"] if a["subject"] == "half_flow"))
    else:
        ck("bench generator built (make build/bench/gen)", False, gen)

for path in sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "*.json.out"))):
    validate("golden " + os.path.basename(path), open(path).read())

ck("anomaly subjects seen", {"half_flow", "connection"} <= kinds_seen, str(sorted(kinds_seen)))

# The schema refuses what breaks it.
doc = run("base for refusals", "--format", "json", os.path.join(c, "udaddy.pcap"))
if doc and doc["qps"] and doc["anomalies"] is not None:
    bad = copy.deepcopy(doc)
    del bad["qps"][0]["path_mtu"]
    ck("refuses a missing key", bool(errors(bad)))
    bad = copy.deepcopy(doc)
    bad["qps"][0]["surprise"] = 1
    ck("refuses an extra key", bool(errors(bad)))
    bad = copy.deepcopy(doc)
    bad["capture"]["frames"] = "many"
    ck("refuses a wrong type", bool(errors(bad)))
    bad = copy.deepcopy(doc)
    bad["qps"][0]["address_kind"] = "mac"
    ck("refuses an unknown address kind", bool(errors(bad)))

print("check_json_schema: %d checks, %d failed" % (ck.checks, ck.failures))
sys.exit(1 if ck.failures else 0)
