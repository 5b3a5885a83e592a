#!/usr/bin/env python3
"""The summary of a production capture fits a screen, and loses nothing
(make summary; part of make check).

For every capture in samples/ and ../shared:
- --brief fits 80 columns by 24 lines (and 120 columns at --width 120),
  plain and coloured (every escape closed on its line), with no number
  parted from its unit;
- nothing lost to grouping: the JSON lists every anomaly one by one, and
  the groups are rebuilt from it here by the rule the man page states (the
  same type, code and cause on RS_GROUP_MIN half-flows or more; the cause
  of skipped PSNs: which of the JSON's settled counts are non-zero, and
  whether the transport has ACKs; of requests re-sent, which causes have
  packets and whether some retries came sooner than a timer allows; of a
  DSCP asymmetry, the two DSCPs).
  The summary has one item per group; a group's item names its count
  (QPs when each goes to a QP of its own, else half-flows), the range of
  the members' sizes and their sum, all from the JSON; a finding alone is
  its JSON description word for word;
- nothing lost to folding: the queue-pair table's rows and its fold line's
  count are the JSON's queue pairs, and the fold's packets their sum;
- --full lists each JSON anomaly on its own.
The same for a capture of production size the benchmark's generator makes.
And the 32-QP ConnectX capture's summary is under 80 lines at 80 columns.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, ROOT, SHARED, Checks, need_shared  # noqa: E402

need_shared("check_summary")
ck = Checks("check_summary")
ESC = re.compile(r"\x1b\[[0-9;]*m")
UNIT = re.compile(r"\s*(?:ns|µs|ms|s|B|[KMGTP]iB|[KMGT]iB/s|B/s|[kMGT]?b/s)(?:[,;:)\]]*)(?:\s|$)")
GROUP_MIN = 3
# The kinds whose sentence depends on their type, code and cause alone.
GROUPABLE = {"psn_gap", "dscp_unexpected", "retransmission", "out_of_order", "nak", "rnr_nak", "duplicate_ack", "bad_icrc", "ecn_ce", "cnp",
             "not_ect_under_congestion", "reth_length_mismatch", "psn_start_mismatch"}
UNSIZED = {("psn_start_mismatch", None), ("dscp_unexpected", "directions_differ")}


def run(*args):
    return subprocess.run([ROCESTAT, "-n", *args], capture_output=True, text=True).stdout


def cause(a, qps):
    """The cause of a JSON anomaly, or None if it stays alone."""
    if a["type"] not in GROUPABLE or a["subject"] != "half_flow" or a["evicted"] or a["dest_qp"] is None:
        return None
    d = a.get("details") or {}
    if a["type"] == "psn_gap":
        parts = ("not_captured", "lost", "resent", "resent_before_first_copy", "reordered", "undetermined")
        q = qps.get((a["src"], a["dst"], a["dest_qp"]))
        return (tuple(bool(d[p]) for p in parts), q is not None and q["transport"] in ("UC", "UD"))
    if a["type"] == "retransmission":
        if a["code"]:
            return None  # a responder's: its sentence names what was asked again
        by = d["resent_by_cause"]
        early = (d.get("timeout_wait_ns") or {}).get("sooner_than_cm_timeout", 0)
        return (tuple(bool(by[c]) for c in ("nak", "rnr", "timeout", "read_retry", "unknown")), bool(early),
                bool(d.get("rnr_retries_early")))
    if a["type"] == "dscp_unexpected":
        kind = d.get("kind")
        if kind == "directions_differ":
            if not d.get("dscps") or not d.get("peer_dscps"):
                return None
            return (kind, d["dscps"][0]["dscp"], d["peer_dscps"][0]["dscp"])
        return (kind,) if kind == "data_not_as_given" else None
    return ()


def measure(a):
    return a["details"]["skipped"] if a["type"] == "psn_gap" else a["count"]


def groups_of(doc):
    """[(members)] in the order of their first member, from the JSON."""
    qps = {(q["src"], q["dst"], q["dest_qp"]): q for q in doc["qps"]}
    out, taken = [], set()
    an = doc["anomalies"]
    for i, a in enumerate(an):
        if i in taken:
            continue
        c = cause(a, qps)
        members = [i]
        if c is not None:
            members += [k for k in range(i + 1, len(an)) if k not in taken and an[k]["type"] == a["type"]
                        and an[k]["code"] == a["code"] and cause(an[k], qps) == c]
        if len(members) < GROUP_MIN:
            members = [i]
        taken.update(members)
        out.append([an[k] for k in members])
    return out


def items(text, section="Anomalies"):
    part = ESC.sub("", text).split("\n%s\n" % section, 1)
    if len(part) < 2:
        return []
    body = part[1].split("\n\n", 1)[0]
    return [" ".join(x.split()) for x in re.split(r"\n  - ", "\n" + body)[1:]]


def words(s):
    return " ".join(s.split())


def check_brief(name, cap):
    for width in (80, 120):
        for colour in ("never", "always"):
            args = ["--brief", "--color", colour] + (["--width", str(width)] if width != 80 else [])
            text = run(*args, cap)
            lines = text.rstrip("\n").split("\n")
            tag = "%s --brief at %d, colour %s" % (name, width, colour)
            ck(tag + ": at most 24 lines", ESC.sub("", text).startswith("rocestat ") and len(lines) <= 24,
               "%d lines: %r" % (len(lines), text[:60]))
            wide = [ln for ln in lines if len(ESC.sub("", ln)) > width]
            ck(tag + ": no line wider", not wide, repr(wide[:1]))
            plain = [ESC.sub("", ln) for ln in lines]
            split = [(a, b) for a, b in zip(plain, plain[1:]) if re.search(r"\d$", a) and UNIT.match(b)]
            ck(tag + ": no number parted from its unit", not split, repr(split[:1]))
            # "Look closer" suggests each command once (--qp names a QP
            # number, both directions: two half-flows may share it).
            cmds = [ln.split("   ")[0].strip() for ln in plain if ln.startswith("  rocestat ")]
            ck(tag + ": no command suggested twice", len(cmds) == len(set(cmds)), repr(cmds))
            for ln in lines:
                codes = re.findall(r"\x1b\[([0-9;]*)m", ln)
                ck(tag + ": escapes closed on their line", not codes or codes[-1] == "0", repr(ln[:100]))


# --brief's line per upper-layer protocol against the JSON's sections of
# its connections and queues without CM: JSON key, name, unit, the count
# of operations, of those unanswered (an NVMe-oF target holds its
# Asynchronous Event Requests by design: not counted), and the key naming
# an operation kind.
MODULES = (("nvme", "NVMe-oF", "commands", "commands", lambda m: m["unanswered"] - m["unanswered_async_events"],
            "by_command", "name"),
           ("iser", "iSER", "tasks", "requests", lambda m: m["unanswered"], "by_operation", "name"),
           ("smbd", "SMB-Direct", "requests", "requests", lambda m: m["unanswered"], "by_command", "command"),
           ("nfs_rdma", "NFS/RDMA", "calls", "calls", lambda m: m["unanswered"], "by_operation", "name"))
PROTO_LINE = re.compile(r"^(?:Protocols)?\s+([^:]+): (\d+) (\w+), (\d+) failed(?:, (\d+) unanswered)?"
                        r"(?:, (\d+) without CM)?(?:; slowest [^;]+ at p99: (.*))?$")
ALSO = re.compile(r"([^:;]+): (\d+) (\w+), (\d+) failed")


def check_protocols(name, cap, doc, *more):
    """--brief's protocol lines against the JSON's sections: the modules
    with the most failed and unanswered operations first, then the most
    operations, then the table's order (MODULES'); two whole lines, or the
    first whole and the rest named on an 'also' line."""
    text = ESC.sub("", run("--brief", "--width", "400", cap, *more))
    lines = text.split("\n")
    at = [i for i, ln in enumerate(lines) if ln.startswith("Protocols  ")]
    got = []
    if at:
        i = at[0]
        while i < len(lines) and (i == at[0] or lines[i].startswith("           ")):
            got.append(lines[i])
            i += 1
    want = []
    for order, (key, pname, unit, ops, unans, kinds, kname) in enumerate(MODULES):
        conns = [c for c in doc.get("connections", []) + doc.get("ulp_queues", []) if c.get(key)]
        if not conns:
            continue
        nocm = sum(1 for c in doc.get("ulp_queues", []) if c.get(key))
        timed = [(k["latency_ns"]["p99"], k[kname]) for c in conns for k in c[key][kinds]
                 if (k["latency_ns"] or {}).get("count")]
        failed = sum(c[key].get("failed_total", c[key].get("errors_total", 0)) for c in conns)
        want.append(dict(name=pname, ops=sum(c[key][ops] for c in conns), unit=unit, failed=failed,
                         unanswered=sum(unans(c[key]) for c in conns), nocm=nocm,
                         slowest=[t[1] for t in timed if t[0] == max(timed)[0]] if timed else None, order=order))
    want.sort(key=lambda w: (-(w["failed"] + w["unanswered"]), -w["ops"], w["order"]))
    ck(name + ": --brief has protocol lines for the modules with connections, and none without",
       len(got) == min(len(want), 2), "lines %r, JSON %r" % (got, [w["name"] for w in want]))
    whole = want if len(want) <= 2 else want[:1]
    for ln, w in zip(got, whole):
        m = PROTO_LINE.match(ln)
        ok = m is not None and (m.group(1), int(m.group(2)), m.group(3), int(m.group(4)), int(m.group(5) or 0),
                                int(m.group(6) or 0)) == (w["name"], w["ops"], w["unit"], w["failed"],
                                                          w["unanswered"], w["nocm"]) and \
            ((m.group(7) is None) == (w["slowest"] is None)) and (w["slowest"] is None or m.group(7) in w["slowest"])
        ck("%s: --brief's %s line as the JSON's sections" % (name, w["name"]), ok, "%r, JSON %r" % (ln, w))
    if len(want) > 2 and len(got) == 2:
        also = got[1].strip()
        rest = [(m.group(1).strip(), int(m.group(2)), m.group(3), int(m.group(4)))
                for m in ALSO.finditer(also[len("also "):])] if also.startswith("also ") else []
        ck("%s: --brief's 'also' line names the rest as the JSON's sections" % name,
           rest == [(w["name"], w["ops"], w["unit"], w["failed"]) for w in want[1:]], "%r, JSON %r" % (also, want[1:]))


def check_groups(name, cap, doc, text):
    groups = groups_of(doc)
    got = items(text)
    ck(name + ": one item per group of the JSON's anomalies", len(got) == len(groups) or (not groups and got == []),
       "text %d items, JSON %d anomalies in %d groups" % (len(got), len(doc["anomalies"]), len(groups)))
    ck(name + ": the groups stand for every JSON anomaly", sum(len(g) for g in groups) == len(doc["anomalies"]))
    for k, g in enumerate(groups):
        if k >= len(got):
            break
        item = got[k]
        if len(g) == 1:
            ck(name + ": a finding alone is its JSON sentence", item.startswith(words(g[0]["description"])),
               "text %r, JSON %r" % (item[:120], g[0]["description"][:120]))
            continue
        dests = {(a["dst"], a["dest_qp"]) for a in g}
        noun = "QPs" if len(dests) == len(g) else "half-flows"
        m = re.match(r"(\d+) (QPs|half-flows) ", item)
        ck(name + ": a group names how many JSON anomalies it stands for",
           m is not None and int(m.group(1)) == len(g) and m.group(2) == noun,
           "text %r, JSON %d %s" % (item[:80], len(g), noun))
        kind = (g[0]["type"], (g[0].get("details") or {}).get("kind") if g[0]["type"] == "dscp_unexpected" else None)
        if kind in UNSIZED:
            continue
        sizes = [measure(a) for a in g]
        lo, hi, total = min(sizes), max(sizes), sum(sizes)
        want = "%d each" % lo if lo == hi else "%d–%d each (%d in all)" % (lo, hi, total)
        ck(name + ": a group's sizes are its members' in the JSON", want in item, "want %r in %r" % (want, item[:160]))
        if lo != hi:
            top = sorted(g, key=lambda a: -measure(a))[0]
            ck(name + ": a group names its largest", "worst: QP 0x%x %d" % (top["dest_qp"], measure(top)) in item
               or "QP 0x%x %d" % (top["dest_qp"], measure(top)) in item, item[:200])


def check_folds(name, doc, text):
    plain = ESC.sub("", text)
    if "\nQueue pairs" not in plain:
        return
    table = plain.split("\nQueue pairs", 1)[1].split("\n\n", 1)[0]
    rows = {}
    for line in table.splitlines()[2:]:
        m = re.match(r"\s+(\S+) → (\S+) 0x([0-9a-f]+)\s+\S+\s+(?:(?:cm|inferred|none)\s+)?(\d+)\s", line)
        if m:
            rows[(m.group(1), m.group(2), int(m.group(3), 16))] = int(m.group(4))
    fold = re.search(r"… (\d+) more half-flows, smaller: (\d+) packets", " ".join(table.split()))
    qps = [q for q in doc["qps"] if not q["src"].isdigit()]
    shown = [q for q in qps if (q["src"], q["dst"], q["dest_qp"]) in rows]
    rest = [q for q in qps if (q["src"], q["dst"], q["dest_qp"]) not in rows]
    lids = len(doc["qps"]) - len(qps)
    if fold:
        ck(name + ": the table's rows and its fold are the JSON's queue pairs",
           len(rows) + lids + int(fold.group(1)) == len(doc["qps"]) and len(shown) == len(rows),
           "rows %d, folded %s, JSON %d" % (len(rows), fold.group(1), len(doc["qps"])))
        ck(name + ": the fold's packets are the folded queue pairs'", int(fold.group(2)) == sum(q["packets"] for q in rest),
           "fold %s, JSON %d" % (fold.group(2), sum(q["packets"] for q in rest)))
    elif len(doc["qps"]) > 20:
        ck(name + ": a table of more than 20 queue pairs folds", False, str(len(doc["qps"])))


captures = sorted(glob.glob(os.path.join(ROOT, "samples", "*.pcap")) + glob.glob(os.path.join(ROOT, "samples", "*", "*.pcap"))
                  + glob.glob(os.path.join(SHARED, "*", "*.pcap*")))
ck("captures found", len(captures) > 40, str(len(captures)))
# And a production's size: the benchmark's generator, 8000 connections
# between 32 hosts with losses, re-sends and congestion marks.
tmp = tempfile.TemporaryDirectory()
gen = os.environ.get("BENCH_GEN", os.path.join(ROOT, "build", "bench", "gen"))
big_gen = os.path.join(tmp.name, "gen.pcap")
r = subprocess.run([gen, "-n", "300000", "--conns", "8000", "--hosts", "32", "--congestion", "--slice", "128",
                    "-o", big_gen], capture_output=True, text=True)
ck("the generator made a capture (make build/bench/gen)", r.returncode == 0, r.stderr.strip())
if r.returncode == 0:
    captures.append(big_gen)
for cap in captures:
    name = os.path.relpath(cap, os.path.dirname(ROOT))
    check_brief(name, cap)
    doc = json.loads(run("--format", "json", cap) or "null")
    if not doc:
        continue
    check_protocols(name, cap, doc)
    for width in ("80", "0"):
        text = run("--width", width, cap)
        check_groups("%s at %s" % (name, width), cap, doc, text)
        if width == "80":
            check_folds(name, doc, text)
    full = items(run("--full", "--width", "0", cap))
    ck(name + ": --full lists each anomaly", len(full) == len(doc["anomalies"]) or (not doc["anomalies"] and full == []),
       "%d items, JSON %d" % (len(full), len(doc["anomalies"])))

if r.returncode == 0:
    anoms = items(run("--width", "80", big_gen))
    ck("the generated capture has groups", sum(1 for a in anoms if re.match(r"\d+ (QPs|half-flows) ", a)) >= 3,
       str(len(anoms)))
# Four protocol modules in one analysis (four samples read as one): the
# brief's lines and their order against the JSON of the same four.
four = [os.path.join(ROOT, "samples", n) for n in ("smbd_gen.pcap", "rxe_iser.pcap", "rxe_nvme.pcap", "rxe_nfs.pcap")]
doc4 = json.loads(run("--format", "json", *four))
ck("four modules in the four samples", sum(1 for k in ("nvme", "iser", "smbd", "nfs_rdma")
                                           if any(c.get(k) for c in doc4["connections"])) == 4)
check_protocols("the four samples", four[0], doc4, *four[1:])
big = os.path.join(SHARED, "hw-captures", "magnate3__linux-riscv-dev__rocev2_test.pcap")
n = len(run("--width", "80", big).rstrip("\n").split("\n"))
ck("the 32-QP ConnectX capture's summary is under 80 lines at 80 columns", n < 80, "%d lines" % n)

print("check_summary: %d checks, %d failed" % (ck.checks, ck.failures))
sys.exit(1 if ck.failures else 0)
