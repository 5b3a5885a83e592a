#!/usr/bin/env python3
"""--plot against tshark: the rate axis in bits per second (SI) with --bits
and in bytes per second without; the time axis in the unit the capture's
length (tshark's) calls for; a CM marker at the time of each kind's first
CM message (tshark's frames of management class 0x07), each marker's time
that of a CM frame of its kind and drawn where the axis's ticks put that
time; a total line when more than one flow carries payload."""
import os
import re
import subprocess
import sys
import tempfile
import xml.dom.minidom

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, ROOT, SHARED, Checks, tshark_fields  # noqa: E402

PROG = "check_plot"
CM_KINDS = {0x10: "REQ", 0x12: "REJ", 0x13: "REP", 0x14: "RTU", 0x15: "DREQ", 0x16: "DREP"}
BYTE_UNITS = ("B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s")
BIT_UNITS = ("b/s", "kb/s", "Mb/s", "Gb/s", "Tb/s")


def plot(path, tmp, *extra):
    svg = os.path.join(tmp, "p.svg")
    subprocess.run([ROCESTAT, "-n", "-r", path, "-o", "/dev/null", "--plot", svg] + list(extra), check=False,
                   capture_output=True)
    return xml.dom.minidom.parse(svg)


def texts(doc):
    return [(t, t.firstChild.data) for t in doc.getElementsByTagName("text") if t.firstChild]


def axis_units(doc):
    rate = time = None
    for _, s in texts(doc):
        m = re.fullmatch(r"payload \((.*)\)", s)
        rate = m.group(1) if m else rate
        m = re.fullmatch(r"time since the first frame \((.*)\)", s)
        time = m.group(1) if m else time
    return rate, time


def x_ticks(doc):
    """(pixel, value) of the time axis's tick labels (under the chart)."""
    ys = {}
    for t, s in texts(doc):
        if t.getAttribute("text-anchor") == "middle" and re.fullmatch(r"[0-9.e+-]+", s):
            ys.setdefault(t.getAttribute("y"), []).append((float(t.getAttribute("x")), float(s)))
    return max(ys.values(), key=len) if ys else []


def main():
    c = Checks(PROG)
    short = None
    with tempfile.TemporaryDirectory() as tmp:
        # A capture shorter than a millisecond: frames 300-340 of a perftest run.
        short = os.path.join(tmp, "short.pcap")
        subprocess.run(["editcap", "-r", SHARED + "/captures/ib_write_bw_cm.pcap", short, "300-340"], check=True)
        caps = [os.path.join(ROOT, "samples/rxe_write_multi.pcap"), os.path.join(ROOT, "samples/rxe_reject.pcap"),
                SHARED + "/captures/loss_write_bw.pcap", SHARED + "/captures/cm_reject.pcap", short]
        for path in caps:
            name = os.path.basename(path)
            rows = tshark_fields(path, ["frame.time_relative", "infiniband.mad.mgmtclass", "infiniband.mad.attributeid"])
            dur = max(float(r[0]) for r in rows)
            want_t = "µs" if dur < 1e-3 else "ms" if dur < 1 else "s"
            doc = plot(path, tmp)
            rate, unit = axis_units(doc)
            c(name + ": time axis unit", unit == want_t, "%r, want %r for %.6f s" % (unit, want_t, dur))
            c(name + ": rate in bytes/s without --bits", rate in BYTE_UNITS, repr(rate))
            ticks = x_ticks(doc)
            c(name + ": the time axis reaches the capture's end",
              ticks and max(v for _, v in ticks) * {"s": 1, "ms": 1e-3, "µs": 1e-6}[want_t] >= dur - 1e-9)
            # CM markers against tshark's CM frames.
            cm = {}
            for r in rows:
                if r[1] and int(r[1], 0) == 7 and r[2] and int(r[2], 0) in CM_KINDS:
                    cm.setdefault(CM_KINDS[int(r[2], 0)], []).append(round(float(r[0]) * 1e9))
            marks = [(g.getAttribute("data-kind"), int(g.getAttribute("data-t-ns")), g)
                     for g in doc.getElementsByTagName("g") if g.getAttribute("class") == "cm"]
            c(name + ": every CM kind tshark sees is marked", {k for k, _, _ in marks} == set(cm),
              "marked %s, tshark %s" % (sorted({k for k, _, _ in marks}), sorted(cm)))
            for kind, times in cm.items():
                c(name + ": the first %s is marked" % kind, any(k == kind and abs(t - min(times)) <= 1000
                                                                for k, t, _ in marks))
            bad = [(k, t) for k, t, _ in marks if not any(abs(t - x) <= 1000 for x in cm.get(k, []))]
            c(name + ": each marker at a CM frame of its kind", not bad, repr(bad[:3]))
            if len(ticks) >= 2 and marks:
                (p0, v0), (p1, v1) = ticks[0], ticks[-1]
                scale = {"s": 1e9, "ms": 1e6, "µs": 1e3}[want_t]
                off = [abs(float(g.getElementsByTagName("line")[0].getAttribute("x1"))
                           - (p0 + (t / scale - v0) / (v1 - v0) * (p1 - p0))) for _, t, g in marks]
                c(name + ": markers drawn at their time on the axis", max(off) < 1.0, "off by %.1f px" % max(off))
            flows = [t for t in doc.getElementsByTagName("polyline") if t.getAttribute("class") != "total"]
            total = [t for t in doc.getElementsByTagName("polyline") if t.getAttribute("class") == "total"]
            c(name + ": a total line when more than one flow is drawn", bool(total) == (len(flows) > 1),
              "%d flows, %d total" % (len(flows), len(total)))
            bits = plot(path, tmp, "--bits")
            brate, _ = axis_units(bits)
            c(name + ": rate in bits/s (SI) with --bits", brate in BIT_UNITS, repr(brate))
            # The same top rate either way: the highest tick, in bytes/s.
            def top(d, units, base, per):
                vals = [float(s) for t, s in texts(d) if t.getAttribute("text-anchor") == "end" and re.fullmatch(r"[0-9.]+", s)]
                return max(vals) * base ** units.index(brate if units is BIT_UNITS else rate) / per
            if rate in BYTE_UNITS and brate in BIT_UNITS:
                hb, hB = top(bits, BIT_UNITS, 1000, 8), top(doc, BYTE_UNITS, 1024, 1)
                c(name + ": --bits axis is 8x the bytes one (within the ticks' rounding)", 0.4 < hb / hB < 2.5,
                  "%.0f B/s vs %.0f B/s" % (hb, hB))
    print("%s: %d checks, %d failed" % (PROG, c.checks, c.failures))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
