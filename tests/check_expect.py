#!/usr/bin/env python3
"""check_expect.py — --expect, --expect-junit and --expect-names.

Expected values come from tshark's decode of the captures (frames, RoCE
frames, NAKs by AETH syndrome, packets to one destination QP, CNPs), never
from rocestat's output:
  * every operator, with an assertion that must hold and one that must fail,
    on a capture-wide name and on a qp(N) name; the exit status (0 all hold,
    1 one fails) and the measured value printed for each;
  * parse errors exit 2 and name the column where the expression goes wrong
    (worked out here from the expression's text);
  * the JUnit XML parses (xml.etree) into one testsuite whose counts and
    testcases match the assertions, a failure element for each failing one,
    names with <, > and & escaped;
  * every name --expect-names lists names JSON fields that the JSON schema
    (man/rocestat.schema.json) defines, and the man page lists every name.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, ROOT, Checks, tshark_fields  # noqa: E402

check = Checks("check_expect")


def run(args):
    return subprocess.run([ROCESTAT] + args, capture_output=True, text=True)


def truth(path):
    rows = tshark_fields(path, ["infiniband.bth.destqp", "infiniband.aeth.syndrome", "infiniband.bth.opcode"])
    roce = [r for r in rows if r[0]]
    naks = sum(1 for r in roce if r[1] and int(r[1], 0) >> 5 == 3)
    qps = {}
    for r in roce:
        qps[int(r[0], 0)] = qps.get(int(r[0], 0), 0) + 1
    cnps = sum(1 for r in roce if r[2] and int(r[2], 0) == 0x81)
    return {"frames": len(rows), "roce_frames": len(roce), "naks": naks, "cnps": cnps}, qps


def measured(stderr, expr):
    m = re.search(r"^rocestat: expect %s: (holds|FAILS) \(measured (\d+)\)$" % re.escape(expr), stderr, re.M)
    return (m.group(1), int(m.group(2))) if m else (None, None)


def operators(path):
    tag = os.path.relpath(path, ROOT)
    t, qps = truth(path)
    qp = max(qps, key=qps.get)
    cases = [(n, t[n]) for n in ("frames", "roce_frames", "naks", "cnps")] + [("qp(0x%x).packets" % qp, qps[qp])]
    for name, v in cases:
        for op, holds, fails in (("==", v, v + 1), ("!=", v + 1, v), ("<", v + 1, v), ("<=", v, v - 1),
                                 (">", v - 1, v), (">=", v, v + 1)):
            for want, ok in ((holds, True), (fails, False)):
                if want < 0:
                    continue
                expr = "%s %s %d" % (name, op, want)
                p = run(["--expect", expr, path])
                st, val = measured(p.stderr, expr)
                check("%s: %s exits %d" % (tag, expr, 0 if ok else 1), p.returncode == (0 if ok else 1),
                      "exit %d: %s" % (p.returncode, p.stderr[-200:]))
                check("%s: %s is said to %s, measured %d (tshark)" % (tag, expr, "hold" if ok else "fail", v),
                      st == ("holds" if ok else "FAILS") and val == v, "%r %r" % (st, val))
    # Several at once: one failing makes the exit 1, all are printed.
    exprs = ["frames == %d" % t["frames"], "naks > %d" % t["naks"]]
    p = run(sum((["--expect", e] for e in exprs), []) + [path])
    check(tag + ": one of two failing: exit 1, both printed", p.returncode == 1 and
          all(measured(p.stderr, e)[0] for e in exprs), p.stderr[-300:])


def parse_errors(path):
    bad = {"naks =! 0": "=", "": None, "nak == 0": "nak", "naks == ": None, "naks == 0 0": "0", "qp(0x12.packets > 1": ".",
           "qp(zz).packets > 1": "zz", "qp(0x12).pakets > 1": "pakets", "naks >> 0": ">", "qp(0x12)packets > 1": "packets"}
    for expr, at in bad.items():
        p = run(["--expect", expr, path])
        m = re.search(r"column (\d+)", p.stderr)
        col = (expr.rfind(at) if at in (">", "0") else expr.find(at)) + 1 if at else len(expr.rstrip()) + (1 if expr.endswith(" ") else 1)
        check("parse error %r: exit 2" % expr, p.returncode == 2, "exit %d" % p.returncode)
        if at:
            check("parse error %r: column %d named" % (expr, col), m and int(m.group(1)) == col,
                  p.stderr.strip()[:200])
        else:
            check("parse error %r: a column named" % expr, bool(m), p.stderr.strip()[:200])
    p = run(["--expect-junit", "/tmp/x.xml", path])
    check("--expect-junit without --expect: exit 2", p.returncode == 2)


def junit(path, tmp):
    t, qps = truth(path)
    exprs = ["frames == %d" % t["frames"], "naks < %d" % t["naks"], "roce_frames > 0 ", "cnps >= 0"]
    out = os.path.join(tmp, "j.xml")
    p = run(sum((["--expect", e] for e in exprs), []) + ["--expect-junit", out, path])
    check("junit: exit 1 (one fails)", p.returncode == (1 if t["naks"] >= 0 else 0))
    try:
        root = ET.parse(out).getroot()
    except Exception as e:
        check("junit: the XML parses", False, str(e))
        return
    suites = root.findall("testsuite")
    check("junit: one testsuite", root.tag == "testsuites" and len(suites) == 1)
    s = suites[0]
    cases = s.findall("testcase")
    fails = [c for c in cases if c.find("failure") is not None]
    check("junit: tests and failures counted", s.get("tests") == str(len(exprs)) and s.get("failures") == "1" and
          root.get("failures") == "1", "%r" % s.attrib)
    check("junit: a testcase per assertion, named by its text", [c.get("name") for c in cases] == exprs,
          repr([c.get("name") for c in cases]))
    check("junit: the failing one carries its measured value", len(fails) == 1 and
          fails[0].get("name") == exprs[1] and "measured %d" % t["naks"] in fails[0].find("failure").get("message"))


def names():
    p = run(["--expect-names"])
    check("--expect-names exits 0", p.returncode == 0)
    schema = json.load(open(os.path.join(ROOT, "man", "rocestat.schema.json")))
    defs = schema["$defs"]

    def props(obj):
        if "$ref" in obj:
            obj = defs[obj["$ref"].split("/")[-1]]
        if obj.get("type") == "array" or "items" in obj:
            return props(obj["items"])
        return obj.get("properties", {})

    top = schema["properties"]
    man = open(os.path.join(ROOT, "man", "rocestat.1")).read().replace("\\-", "-").replace("\\fB", "").replace("\\fR", "")
    listed = 0
    for line in p.stdout.splitlines():
        name, _, rest = line.partition(" ")
        ref = re.search(r"\(JSON: (.*)\)$", line)
        check("--expect-names %s: says its JSON field" % name, bool(ref), line)
        check("the man page lists %s" % name, name in man)
        listed += 1
        if not ref:
            continue
        for part in re.split(r"\s*\+\s*|,\s*", ref.group(1)):
            path = re.sub(r"^sum of ", "", part).split(" ")[0]
            if "." not in path and not path.endswith("[]"):
                # "roce_v2": a sibling of the first part's parent object
                path = re.sub(r"[^.]*$", path, count=1, string=re.split(r"\s*\+\s*", re.sub(r"^sum of ", "", ref.group(1)))[0].split(" ")[0])
            node = {"properties": top}
            ok = True
            for seg in path.replace("[]", "").split("."):
                pr = props(node)
                if seg not in pr:
                    ok = False
                    break
                node = pr[seg]
            check("--expect-names %s: JSON %s is in the schema" % (name, path), ok)
    check("--expect-names lists names", listed >= 20, "%d" % listed)


def main():
    path = os.path.join(ROOT, "samples", "impair", "loss_req_write.pcap")
    operators(path)
    operators(os.path.join(ROOT, "samples", "rxe_send_multi.pcap"))
    parse_errors(path)
    with tempfile.TemporaryDirectory() as tmp:
        junit(path, tmp)
    names()
    print("check_expect: %d checks, %d failed" % (check.checks, check.failures))
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
