#!/usr/bin/env python3
"""The man page says what the tool does (make jsonschema runs it too).

Against the schema rocestat ships (man/rocestat.schema.json) and its output,
in the page as man(1) renders it (groff -man -Tutf8):
- JSON OUTPUT names every top-level key and every key of a connection;
- NDJSON OUTPUT names every line kind of $defs/ndjson_line, and every kind
  a run on a capture with a congestion section writes;
- --ladder's description shows the mark the ladder puts before skipped PSNs;
- OUTPUTS describes each format of report/formats.c's table, in the table's
  order and no other, and the table's names are those rocestat refuses a
  wrong --format with.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, ROOT, Checks  # noqa: E402

ck = Checks("check_man")
env = dict(os.environ, LC_ALL="C.UTF-8")
page = subprocess.run(["groff", "-man", "-Tutf8", "-P", "-cbou", "-rLL=200n", "-rHY=0", os.path.join(ROOT, "man", "rocestat.1")],
                      capture_output=True, text=True, env=env, check=True).stdout
page = re.sub(r".\x08", "", page)


def section(title):
    m = re.search(r"^%s\n(.*?)(?=^[A-Z][A-Z ()-]+\n)" % re.escape(title), page, re.S | re.M)
    return " ".join(m.group(1).split()) if m else ""


def words(text):
    return set(re.findall(r"[A-Za-z_$][A-Za-z0-9_/$]*", text))


schema = json.load(open(os.path.join(ROOT, "man", "rocestat.schema.json")))
defs = schema["$defs"]
js, nd = section("JSON OUTPUT"), section("NDJSON OUTPUT")
ck("JSON OUTPUT and NDJSON OUTPUT rendered", js and nd)

for k in schema["properties"]:
    ck("JSON OUTPUT names top-level key %s" % k, k in words(js[:js.find("Times are")]))
start = js.find("Each connections entry")
conn_par = js[start:js.find("congestion (only", start)] if start >= 0 else ""
for k in defs["connection"]["properties"]:
    ck("JSON OUTPUT names connection key %s" % k, k in words(conn_par), conn_par[-300:])

kinds = [defs[r["$ref"].split("/")[-1]]["properties"]["kind"]["const"] for r in defs["ndjson_line"]["oneOf"]]
ck("the schema's NDJSON kinds", len(kinds) >= 5, str(kinds))
intro = nd[:nd.find("The schema")]
for k in kinds:
    ck("NDJSON OUTPUT names kind %s" % k, k in words(intro), intro[:400])

# A capture with PFC frames and CNPs: its congestion line.
gen = os.environ.get("BENCH_GEN", os.path.join(ROOT, "build", "bench", "gen"))
tmp = os.environ.get("TMPDIR", "/tmp")
cap = os.path.join(tmp, "check_man_cong.pcap")
subprocess.run([gen, "-o", cap, "-n", "2000", "--conns", "8", "--hosts", "4", "--congestion", "--seed", "5"],
               check=True, capture_output=True)
seen = {json.loads(ln)["kind"] for ln in subprocess.run([ROCESTAT, "-n", "--format", "ndjson", cap],
                                                        capture_output=True, text=True).stdout.splitlines()}
os.unlink(cap)
ck("ndjson run writes a congestion line", "congestion" in seen, str(seen))
for k in seen:
    ck("NDJSON OUTPUT names the kind %s a run writes" % k, k in words(intro))

lad = subprocess.run([ROCESTAT, "-n", "--ladder", os.path.join(ROOT, "samples", "impair", "loss_req_write.pcap")],
                     capture_output=True, text=True, env=env).stdout
mark = re.search(r"(\S) (?:PSN 0x[0-9a-f]+|\d+ PSNs) skipped", lad)
ck("the ladder marks skipped PSNs", mark is not None)
m = re.search(r"--ladder\n(.*?)\n\s*--timeline", page, re.S)
desc = " ".join(m.group(1).split()) if m else ""
if mark:
    ck("--ladder in the man page shows the mark %s" % mark.group(1), "\"%s PSN" % mark.group(1) in desc, desc)

# The format table, read from its source: the man page must follow it.
src = open(os.path.join(ROOT, "report", "formats.c")).read()
table = re.findall(r'^\s*\{ "([a-z-]+)", rs_report_\w+,', src, re.M)
ck("report/formats.c has the format table", len(table) >= 6, str(table))
outputs = re.search(r"^OUTPUTS\n(.*?)(?=^[A-Z][A-Z ()-]+\n)", page, re.S | re.M)
entries = re.findall(r"^\s{7}--format (\S+)\s*$", outputs.group(1) if outputs else "", re.M)
ck("OUTPUTS describes the table's formats but text (the default), in its order", entries == table[1:],
   "man %s, table %s" % (entries, table))
err = subprocess.run([ROCESTAT, "--format", "nonesuch", os.path.join(ROOT, "samples", "rxe_read.pcap")],
                     capture_output=True, text=True, env=env).stderr
named = re.findall(r"[a-z][a-z-]+", err.split("nonesuch", 1)[-1])
ck("the refusal of a wrong --format names the table's formats", [n for n in named if n in table] == table,
   err.strip())

# Every long option --help lists without a short one is named in the page, and the summary's
# layouts have entries where the summary is (OUTPUTS).
helptext = subprocess.run([ROCESTAT, "--help"], capture_output=True, text=True, env=env).stdout
# (Those with a short form the page names by it.)
opts = sorted(set(re.findall(r"^\s+--([a-z][a-z-]+)", helptext, re.M)))
ck("--help lists --brief and --full", "brief" in opts and "full" in opts, str(opts))
for o in opts:
    ck("the man page names --%s" % o, re.search(r"--%s\b" % re.escape(o), page) is not None)
for o in ("brief", "full"):
    ck("OUTPUTS describes --%s" % o, outputs is not None and re.search(r"^\s{7}--%s\b" % o, outputs.group(1), re.M)
       is not None)

print("check_man: %d checks, %d failed" % (ck.checks, ck.failures))
sys.exit(1 if ck.failures else 0)
