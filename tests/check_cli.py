#!/usr/bin/env python3
"""Command-line combinations: every option either does what the man page
says or is refused with exit status 2 and a sentence saying why, never
silently left out; and a failed run does not replace the reports of an
earlier one.

Each case states the exit status, the message (or the part of it that
matters) and what must be on disk or on standard output after the run.
Where the outcome can be checked against an independent source it is: the
frames --qp picks in the per-frame views and -w are tshark's: its DestQP
column and the CM messages whose Communication IDs are the connection's.

    ROCESTAT=./rocestat python3 tests/check_cli.py
Exit status 0 when every case holds, 1 otherwise.
"""
import csv
import io
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcaprecs import read_pcap  # noqa: E402
from testlib import ROCESTAT, ROOT, SHARED, Checks, tshark_fields as tshark_rows, need_shared  # noqa: E402

need_shared("check_cli")

C = os.path.join(SHARED, "captures")
RPING = os.path.join(C, "rping_s64.pcap")
LOSS = os.path.join(C, "loss_write_bw.pcap")
IPV6 = os.path.join(C, "ipv6_rping.pcap")
IB = os.path.join(SHARED, "hw-captures", "magnate3__linux-riscv-dev__ib2.pcap")

check = Checks("check_cli")


def run(args, **kw):
    return subprocess.run([ROCESTAT, "-n"] + args, capture_output=True, text=True, errors="replace", **kw)


def refused(name, args, says):
    r = run(args)
    check(name + ": exit status 2", r.returncode == 2, "got %d, stderr %r" % (r.returncode, r.stderr))
    check(name + ": says why", says in r.stderr, "stderr %r, want %r in it" % (r.stderr, says))
    check(name + ": no report", r.stdout == "", "stdout %r" % r.stdout[:200])
    return r


def usage_errors(tmp):
    refused("-c 0", ["-c", "0", RPING], "-c 0: must be a positive number of frames")
    refused("-W 0", ["-r", RPING, "-w", os.path.join(tmp, "w.pcap"), "-C", "1", "-W", "0"],
            "-G and -W take positive numbers")
    refused("--plot - without -o", ["--plot", "-", RPING], "--plot - and the report would both go to standard output")
    refused("--fields --timeline", ["--fields", "--timeline", os.path.join(tmp, "t.csv"), RPING],
            "--fields prints frames; --timeline belongs to the summary")
    refused("--walk --plot", ["--walk", "--plot", os.path.join(tmp, "p.svg"), RPING],
            "--walk prints frames; --plot belongs to the summary")
    refused("--fields --format json", ["--fields", "--format", "json", RPING], "--format belongs to the summary")
    refused("--ladder --format json", ["--ladder", "--format", "json", RPING], "--ladder is a text diagram")
    refused("--brief --full", ["--brief", "--full", RPING], "--brief and --full are two layouts of the summary")
    refused("--timeline-fill alone", ["--timeline-fill", RPING], "--timeline-fill adds rows to the CSV of --timeline")
    refused("--brief --format json", ["--brief", "--format", "json", RPING], "--brief lays out the text summary, not with --format")
    refused("--full --fields", ["--full", "--fields", RPING], "--full lays out the text summary, not with --fields")
    refused("--brief --ladder", ["--brief", "--ladder", RPING], "--brief lays out the text summary, not with --ladder")
    refused("--verdicts without --fields", ["--verdicts", RPING], "--verdicts adds columns to --fields")
    refused("--walk --verdicts", ["--walk", "--verdicts", RPING], "--verdicts adds columns to --fields")
    refused("-w - with a report to standard output", ["-r", RPING, "-w", "-", "--format", "json"],
            "-w - and the report would both go to standard output")
    for opt in ("--fields", "--walk"):
        refused("-w - with %s" % opt, ["-r", RPING, "-w", "-", opt], "-w - and %s would both write to standard output" % opt)
    refused("--plot-size 10x10", ["--plot-size", "10x10", "--plot", os.path.join(tmp, "s.svg"), RPING],
            "--plot-size \"10x10\": expected WIDTHxHEIGHT in pixels, at least 600x300")
    svg = os.path.join(tmp, "s.svg")
    r = run(["--plot-size", "800x400", "--plot", svg, "-o", os.devnull, RPING])
    head = open(svg).read(400) if os.path.exists(svg) else ""
    check("--plot-size 800x400: the SVG's size", r.returncode in (0, 1) and 'width="800" height="400"' in head,
          head[:200])
    refused("--qp with --conn", ["--qp", "18", "--conn", "1", RPING], "--qp and --conn both pick a connection")
    refused("--conn with --timeline", ["--conn", "1", "--timeline", os.path.join(tmp, "c.csv"), RPING],
            "--conn with --timeline: the timeline's rows are half-flows")
    refused("--qp with -i -w", ["-i", "lo", "-w", os.path.join(tmp, "q.pcap"), "--qp", "18"],
            "--qp with -i -w: a live capture writes every frame")
    check("nothing written by a refused -w", not os.path.exists(os.path.join(tmp, "q.pcap")))


def directories(tmp):
    """A directory is named as one (man page, ERRORS AND EXIT STATUS), given
    by path, with -r, or as a bare leading word that would otherwise be
    taken for a filter."""
    d = os.path.join(tmp, "adir")
    os.mkdir(d)
    for args, cwd, name in (([d], None, d), (["-r", d], None, d), (["adir"], tmp, "adir")):
        r = run(args, cwd=cwd)
        what = " ".join(args)
        check("%s: exit status 3" % what, r.returncode == 3, "got %d" % r.returncode)
        check("%s: is a directory" % what,
              r.stderr.startswith("rocestat: %s: is a directory, not a capture file\n" % name), repr(r.stderr))
    r = run(["adir"], cwd=tmp)
    check("bare directory: stops before reading (no report)", r.stdout == "", repr(r.stdout[:200]))


def stdin_dash():
    """'-' as the capture file reads standard input, as -r - does (man
    page, SYNOPSIS); tshark counts the frames."""
    frames = len(tshark_fields(RPING, "frame.number"))
    with open(RPING, "rb") as f:
        a = subprocess.run([ROCESTAT, "--format", "json", "-"], stdin=f, capture_output=True, text=True)
    with open(RPING, "rb") as f:
        b = subprocess.run([ROCESTAT, "--format", "json", "-r", "-"], stdin=f, capture_output=True, text=True)
    got = json.loads(a.stdout)["capture"]["frames"] if a.stdout.startswith("{") else None
    check("rocestat - < rping_s64.pcap: tshark's %d frames" % frames, got == frames, a.stderr[:200])
    check("rocestat - is rocestat -r -", a.stdout == b.stdout and a.returncode == b.returncode, "")


def missing_among_others(tmp):
    """A missing file or a directory among capture files is named, listed
    in the reports with its reason and skipped; the others are analysed
    (man page, ERRORS AND EXIT STATUS): exit status 3; tshark counts the
    frames of the one that is read."""
    d = os.path.join(tmp, "adir2")
    os.mkdir(d)
    frames = len(tshark_fields(RPING, "frame.number"))
    for bad, says in ((os.path.join(tmp, "nonexistent.pcap"), "No such file or directory"),
                      (d, "is a directory, not a capture file")):
        r = run(["--format", "json", bad, RPING])
        doc = json.loads(r.stdout) if r.stdout.startswith("{") else {}
        files = {f["name"]: f for f in doc.get("capture", {}).get("files", [])}
        check("%s before a capture: exit 3, named" % says, r.returncode == 3 and says in r.stderr, r.stderr)
        check("%s before a capture: listed with its reason" % says,
              bad in files and files[bad]["link_type"] is None and says in (files[bad]["error"] or ""), repr(files))
        check("%s before a capture: the other's %d frames analysed" % (says, frames),
              doc.get("capture", {}).get("frames") == frames, repr(doc.get("capture", {}).get("frames")))


def not_captures(tmp):
    """Empty and non-capture files named for what they are (man page,
    ERRORS AND EXIT STATUS); the bytes quoted are the ones written here."""
    empty, text, short, gz = (os.path.join(tmp, n) for n in ("empty.pcap", "notes.txt", "ab.pcap", "c.pcap"))
    open(empty, "wb").close()
    with open(text, "wb") as f:
        f.write(b"hello, not a capture\n")
    with open(short, "wb") as f:
        f.write(b"ab")
    for path, says in ((empty, "%s: empty file (0 bytes): not a capture" % empty),
                       (text, "%s: not a pcap or pcapng file (first bytes 0x%s;" % (text, b"hell".hex())),
                       (short, "%s: not a pcap or pcapng file (first bytes 0x%s;" % (short, b"ab".hex()))):
        for args in ([path], ["-r", path]):
            r = run(args)
            what = "%s %s" % (" ".join(args[:-1]), os.path.basename(path))
            check("%s: exit status 3" % what, r.returncode == 3, "got %d" % r.returncode)
            check("%s: named for what it is" % what, r.stderr.startswith("rocestat: " + says), repr(r.stderr))
    # A real capture cut inside its file header is a capture: libpcap's
    # "truncated dump file" stands.
    with open(RPING, "rb") as f:
        head = f.read(10)
    with open(short, "wb") as f:
        f.write(head)
    r = run([short])
    check("a pcap cut in its header: libpcap's message", "truncated dump file" in r.stderr, repr(r.stderr))
    with open(gz, "wb") as f:
        f.write(bytes([0x1f, 0x8b, 8, 0]) + b"\0" * 20)
    r = run([gz])
    check("gzip: still named as compressed", "gzip-compressed" in r.stderr, repr(r.stderr))


def missing_interface():
    """An interface that does not exist: its error, exit status 3 and no
    summary after it (man page, ERRORS AND EXIT STATUS)."""
    for extra in ([], ["--format", "json"], ["--ladder"]):
        r = run(["-i", "rs-nosuch0"] + extra)
        what = " ".join(["-i rs-nosuch0"] + extra)
        check("%s: exit status 3" % what, r.returncode == 3, "got %d" % r.returncode)
        check("%s: names the interface" % what, r.stderr.startswith("rocestat: rs-nosuch0: "), repr(r.stderr))
        check("%s: no report on standard output" % what, r.stdout == "", repr(r.stdout[:200]))


def kept_when_nothing_read(tmp):
    """A misspelt input: the report files of an earlier run stay as they were."""
    paths = {o: os.path.join(tmp, "keep" + ext) for o, ext in (("-o", ".txt"), ("--timeline", ".csv"),
                                                              ("--plot", ".svg"))}
    for p in paths.values():
        with open(p, "w") as f:
            f.write("KEEP\n")
    args = ["-r", os.path.join(tmp, "no-such.pcap")]
    for o, p in paths.items():
        args += [o, p]
    r = run(args)
    check("nothing read: exit status 3", r.returncode == 3, "got %d" % r.returncode)
    for o, p in paths.items():
        check("nothing read: %s file kept" % o, open(p).read() == "KEEP\n")
    check("nothing read: no temporary file left", sorted(os.listdir(tmp)) == sorted(
        [os.path.basename(p) for p in paths.values()] + ["adir"]), repr(os.listdir(tmp)))
    # One input read among them: the reports are written (and name the other).
    r = run(["-r", os.path.join(tmp, "no-such.pcap"), "-r", RPING, "-o", paths["-o"]])
    text = open(paths["-o"]).read()
    check("one input read: the report is written", r.returncode == 3 and "127 frames" in text, text[:300])
    check("one input read: the other is named in it", "no-such.pcap: could not be read" in text)


def extract_with_reports(tmp):
    """-r ... -w with report options: frames written and reports made in one pass."""
    out, rep, tl, svg = (os.path.join(tmp, n) for n in ("x.pcap", "x.json", "x.csv", "x.svg"))
    r = run(["-r", LOSS, "-w", out, "-o", rep, "--timeline", tl, "--plot", svg, "--format", "json"])
    check("-w with reports: exit status 1 (the capture has anomalies)", r.returncode == 1,
          "got %d: %s" % (r.returncode, r.stderr))
    want = run(["--format", "json", LOSS]).stdout
    check("-w with reports: the JSON report is `rocestat --format json`'s", os.path.exists(rep) and
          open(rep).read() == want)
    want_tl = run(["--timeline", "-", "-o", os.devnull, LOSS]).stdout
    check("-w with reports: the timeline is --timeline's", os.path.exists(tl) and open(tl).read() == want_tl)
    check("-w with reports: an SVG plot", os.path.exists(svg) and open(svg).read().startswith("<?xml"))
    got, src = read_pcap(out)[1] if os.path.exists(out) else [], read_pcap(LOSS)[1]
    check("-w with reports: every frame written", [r[2:] for r in got] == [r[2:] for r in src],
          "%d records of %d" % (len(got), len(src)))
    r = run(["-r", LOSS, "-w", out, "--format", "json"])
    check("-w with --format json: the report on standard output", r.stdout == want)
    r = run(["-r", LOSS, "-w", out])
    check("-w alone: nothing on standard output, as tcpdump", r.stdout == "" and r.returncode in (0, 1))


def frames_to_file(tmp):
    for opt in ("--fields", "--walk"):
        path = os.path.join(tmp, "frames" + opt)
        want = run([opt, "--frames", "1-40", RPING])
        r = run([opt, "--frames", "1-40", "-o", path, RPING])
        check("%s -o: the file holds what standard output gets" % opt,
              r.returncode == want.returncode and r.stdout == "" and open(path).read() == want.stdout and
              len(want.stdout) > 1000)


def tshark_fields(path, *fields, filt=None):
    return tshark_rows(path, fields, filt, heuristics_off=False)


def drill_down():
    """--frames lists and ranges, context kept by the per-frame views, an
    absent --qp refused with the QPs present (man page, --qp and --frames);
    tshark says which frames are RoCE, their PSNs and destination QPs."""
    want = [int(r[0]) for r in tshark_fields(LOSS, "frame.number", filt="infiniband and frame.number in {176,177,223}")]
    r = run(["--fields", "--frames", "176-177,223", LOSS])
    got = [int(ln.split(",", 1)[0]) for ln in r.stdout.splitlines()[1:]]
    check("--frames 176-177,223: exit status", r.returncode in (0, 1), r.stderr)
    check("--frames 176-177,223: tshark's RoCE frames among them (%s)" % want, got == want and len(want) == 3,
          repr(got))
    r = run(["--fields", "--frames", "3", "--frames", "10-12,40-", RPING])
    want = [int(x[0]) for x in tshark_fields(RPING, "frame.number", filt="infiniband")]
    want = [n for n in want if n == 3 or 10 <= n <= 12 or n >= 40]
    got = [int(ln.split(",", 1)[0]) for ln in r.stdout.splitlines()[1:]]
    check("--frames repeated, with an open end", got == want, "%d frames, want %d" % (len(got), len(want)))
    # A range past the end of the file is said (tshark counts the frames).
    total = len(tshark_fields(RPING, "frame.number"))
    for args, beyond in ((["-V", "--frames", "%d-%d" % (total + 5, total + 9)], total + 5),
                         (["--fields", "--frames", "2,%d" % (total + 1)], total + 1),
                         (["--frames", "%d-" % (total + 1)], total + 1)):
        r = run(args + [RPING])
        says = "has %d frames: --frames asks for frame %d, past its end" % (total, beyond)
        check("%s past the end: said" % " ".join(args), says in r.stderr and r.returncode in (0, 1), r.stderr)
    r = run(["-V", "--frames", "1-%d" % (total + 100), RPING])
    check("--frames running past the end: nothing said", "past its end" not in r.stderr, r.stderr)
    for bad in ("5-3", "1,,2", "0", "3-x", "1,-2"):
        refused("--frames %s" % bad, ["--frames", bad, RPING], "--frames \"%s\": expected ranges" % bad)
    # Frame 284 alone: the newest earlier frame with its PSN and
    # destination QP (tshark) is the one it re-sends.
    rows = tshark_fields(LOSS, "frame.number", "infiniband.bth.destqp", "infiniband.bth.psn",
                         filt="infiniband.bth.opcode != 17 and frame.number <= 284")
    key = {int(n): (q, p) for n, q, p in rows}
    earlier = max(n for n, k in key.items() if k == key[284] and n < 284)
    r = run(["-V", "--frames", "284", LOSS])
    check("-V --frames 284: still a retransmission of frame %d" % earlier,
          "[retransmission of frame %d]" % earlier in r.stdout, r.stdout[:600])
    r = run(["--fields", "--verdicts", "--frames", "284", LOSS])
    lines = r.stdout.splitlines()
    rec = dict(zip(lines[0].split(","), lines[1].split(","))) if len(lines) == 2 else {}
    check("--fields --verdicts --frames 284: one frame, retransmission_of %d" % earlier,
          rec.get("frame") == "284" and rec.get("retransmission_of") == str(earlier), repr(lines[:2]))
    for path in (LOSS, IPV6, IB):
        qps = sorted({int(r[0], 16) for r in tshark_fields(path, "infiniband.bth.destqp") if r[0]})
        says = "the destination QPs present: %s\n" % ", ".join("0x%x" % q for q in qps)
        for extra in ([], ["--ladder"], ["--format", "json"]):
            what = "--qp 0x99 %s%s" % (" ".join(extra) + " " if extra else "", os.path.basename(path))
            r = run(["--qp", "0x99"] + extra + [path])
            check(what + ": exit status 2", r.returncode == 2, "got %d" % r.returncode)
            check(what + ": lists tshark's QPs", r.stderr.startswith("rocestat: --qp 0x99 (153): no such QP") and
                  r.stderr.endswith(says), "%r, want %r" % (r.stderr, says))
            check(what + ": no report", r.stdout == "", repr(r.stdout[:200]))
        # the per-frame views stream as they read: nothing shown, then the same error
        out = os.path.join(tempfile.mkdtemp(prefix="rocestat-qp-"), "out.pcap")
        for extra in (["-V"], ["--fields"], ["--fields", "--verdicts"], ["-w", out], ["-w", out, "--format", "json"]):
            what = "%s --qp 0x99 %s" % (" ".join(extra).replace(out, "OUT"), os.path.basename(path))
            r = run(extra + ["--qp", "0x99"] + (["-r", path] if "-w" in extra else [path]))
            check(what + ": exit status 2", r.returncode == 2, "got %d" % r.returncode)
            check(what + ": lists tshark's QPs", r.stderr.startswith("rocestat: --qp 0x99 (153): no such QP") and
                  r.stderr.endswith(says), "%r, want %r" % (r.stderr, says))
        # an ordinary QP (not 0xFFFFFF, the IB multicast QP, nor QP0/QP1)
        some = [q for q in qps if 1 < q < 0xFFFFFF]
        r = run(["--qp", str(some[0]), path])
        check("--qp %d %s: present, a report" % (some[0], os.path.basename(path)),
              r.returncode in (0, 1) and r.stdout.startswith("rocestat "), r.stderr)
        # the capture-wide lines above say so: their frame count is the file's (tshark)
        nframes = len(tshark_fields(path, "frame.number"))
        check("--qp %d %s: the Selected line names it, the Capture line counts all %d frames" %
              (some[0], os.path.basename(path), nframes),
              ("Selected   the connection of QP 0x%x (--qp)" % some[0]) in r.stdout and
              re.search(r"^Capture +%d frames" % nframes, r.stdout, re.M) is not None, r.stdout[:400])


CM_IDS = ("infiniband.cm.req", "infiniband.cm.rep", "infiniband.cm.rep.remotecommid",
          "infiniband.cm.rtu.localcommid", "infiniband.cm.rtu.remotecommid",
          "infiniband.cm.rej.localcommid", "infiniband.cm.rej.remotecommid",
          "infiniband.cm.dreq.localcommid", "infiniband.cm.dreq.remotecommid",
          "infiniband.cm.drsp.localcommid", "infiniband.cm.drsp.remotecommid")


def qp_frames_tshark(path, qpn):
    """The frames of the connection of QP qpn, from tshark's decode: its
    destination QP is qpn, or it is a CM message of the exchange whose REQ
    or REP named qpn as the sender's QP (matched by Communication ID)."""
    rows = tshark_fields(path, "frame.number", "infiniband.bth.destqp", "infiniband.cm.req.localqpn",
                         "infiniband.cm.rep.localqpn", *CM_IDS, filt="infiniband")
    ids = set()
    for r in rows:
        if int(r[2] or "-1", 16) == qpn:
            ids.add(int(r[4], 16))
        if int(r[3] or "-1", 16) == qpn:
            ids |= {int(r[5], 16), int(r[6], 16)}
    for r in rows:  # the other side's ID, from a REP answering a REQ of ours
        if r[5] and int(r[6], 16) in ids:
            ids.add(int(r[5], 16))
    want = []
    for r in rows:
        cm = {int(x, 16) for x in r[4:] if x}
        if int(r[1], 16) == qpn or (int(r[1], 16) == 1 and cm & ids):
            want.append(int(r[0]))
    return want


def qp_views(tmp):
    """--qp with -V, --fields and -w (man page, --qp) over IPv4, IPv6 and
    native InfiniBand picks tshark's frames of the connection."""
    for path, qpn in ((LOSS, 0x12), (IPV6, 0x11), (IB, 0x29)):
        name = os.path.basename(path)
        want = qp_frames_tshark(path, qpn)
        check("--qp 0x%x %s: tshark finds data and CM frames" % (qpn, name), len(want) > 5, repr(want))
        r = run(["--fields", "--qp", "0x%x" % qpn, path])
        got = [int(ln.split(",", 1)[0]) for ln in r.stdout.splitlines()[1:]]
        check("--fields --qp 0x%x %s: exit status" % (qpn, name), r.returncode in (0, 1), r.stderr)
        check("--fields --qp 0x%x %s: tshark's %d frames" % (qpn, name, len(want)), got == want,
              "%d frames, first differences %r" % (len(got), sorted(set(got) ^ set(want))[:5]))
        r = run(["-V", "--qp", "0x%x" % qpn, path])
        got = [int(ln.split()[1]) for ln in r.stdout.splitlines() if ln.startswith("Frame ")]
        check("-V --qp 0x%x %s: exit status" % (qpn, name), r.returncode in (0, 1), r.stderr)
        check("-V --qp 0x%x %s: walks tshark's %d frames" % (qpn, name, len(want)), got == want,
              "%d frames, first differences %r" % (len(got), sorted(set(got) ^ set(want))[:5]))
        out = os.path.join(tmp, "qp.pcap")
        r = run(["-r", path, "-w", out, "--qp", "0x%x" % qpn])
        n = len(tshark_fields(out, "frame.number")) if os.path.exists(out) else -1
        check("-r %s -w OUT --qp 0x%x: exit status 0" % (name, qpn), r.returncode == 0, r.stderr)
        check("-r %s -w OUT --qp 0x%x: tshark's %d frames written" % (name, qpn, len(want)), n == len(want),
              "%d written" % n)
    # --conn N: the connection of the Nth CM REQ (tshark's order, from 0),
    # the frames of the QP its REQ names
    for path in (LOSS, IPV6, IB):
        name = os.path.basename(path)
        reqs = [int(q, 16) for _, q in tshark_fields(path, "frame.number", "infiniband.cm.req.localqpn",
                                                      filt="infiniband.cm.req.localqpn")]
        for n, qpn in enumerate(reqs):
            want = qp_frames_tshark(path, qpn)
            r = run(["--fields", "--conn", str(n), path])
            got = [int(ln.split(",", 1)[0]) for ln in r.stdout.splitlines()[1:]]
            check("--fields --conn %d %s: the frames of QP 0x%x's connection (%d)" % (n, name, qpn, len(want)),
                  got == want, "%d frames" % len(got))
            r = run(["-V", "--conn", str(n), path])
            got = [int(ln.split()[1]) for ln in r.stdout.splitlines() if ln.startswith("Frame ")]
            check("-V --conn %d %s: the frames of QP 0x%x's connection" % (n, name, qpn), got == want,
                  "%d frames" % len(got))
            r = run(["--conn", str(n), path])
            check("--conn %d %s: the summary of that connection" % (n, name),
                  r.returncode in (0, 1) and ("\n  %-3d " % n) in r.stdout and r.stdout.count(" QP 0x%x " % qpn) > 0,
                  r.stdout[:300])
        r = run(["--conn", str(len(reqs)), path])
        check("--conn %d %s: absent, exit status 2 naming the numbers" % (len(reqs), name),
              r.returncode == 2 and "no such CM connection; the summary numbers them 0 to %d" % (len(reqs) - 1)
              in r.stderr and r.stdout == "", r.stderr)
    # frame 284 of loss_write_bw re-sends an earlier one: --qp keeps that context too
    r = run(["-V", "--qp", "0x12", "--frames", "284", LOSS])
    check("-V --qp 0x12 --frames 284: one frame, still a retransmission",
          r.stdout.count("\nFrame ") == 1 and "[retransmission of frame" in r.stdout, r.stdout[:400])


def ladder_gaps_and_ud():
    """--ladder (man page): a request after skipped PSNs has a gap line
    naming them, as many PSNs as tshark's request streams skip (a PSN beyond
    the highest sent + 1); UD datagrams are drawn, one arrow each (or in a
    collapsed run's count), as many as tshark's UD SEND frames."""
    want = 0
    top = {}
    for src, qp, op, psn in tshark_fields(LOSS, "ip.src", "infiniband.bth.destqp", "infiniband.bth.opcode",
                                          "infiniband.bth.psn", filt="infiniband.bth.destqp == 0x12"):
        op, psn = int(op), int(psn)
        if op in (13, 14, 15, 16, 17, 18):  # responses, ACKs
            continue
        k = (src, qp)
        if k in top:
            ahead = (psn - top[k] - 1) & 0xffffff
            if 0 < ahead < 0x800000:
                want += ahead
            if ((psn - top[k]) & 0xffffff) < 0x800000:
                top[k] = psn
        else:
            top[k] = psn
    r = run(["--width", "200", "--ladder", "--qp", "0x12", LOSS])
    got = 0
    for ln in r.stdout.splitlines():
        if "✕ PSN 0x" in ln and "skipped" in ln:
            got += 1
        elif "✕ " in ln and " PSNs skipped" in ln:
            got += int(ln.split("✕ ")[1].split()[0])
    check("--ladder --qp 0x12: the gap lines name tshark's %d skipped PSNs" % want, got == want and want > 0,
          "ladder %d" % got)
    walk = run(["-V", "--width", "200", "--qp", "0x12", LOSS]).stdout
    got = sum(int(n) for n in re.findall(r"✕ (\d+) PSNs? (?:was|were) skipped just before this one", walk))
    check("-V --qp 0x12: the gap sentences name tshark's %d skipped PSNs" % want, got == want, "walk %d" % got)
    # Every request arrow drawn or counted in a collapsed run, and those
    # marked RETX (alone or a run's) are tshark's request frames whose PSN
    # the same sender had sent before: seen before, or behind the highest
    # PSN it had sent (skipped, then sent: the first sending was lost; the
    # capture has no reordering, so nothing behind is merely late).
    top2, reqs, again = {}, 0, 0
    for src, qp, op, psn in tshark_fields(LOSS, "ip.src", "infiniband.bth.destqp", "infiniband.bth.opcode",
                                          "infiniband.bth.psn", filt="infiniband.bth.destqp == 0x12"):
        if int(op) in (13, 14, 15, 16, 17, 18):
            continue
        reqs += 1
        psn = int(psn)
        behind = src in top2 and ((top2[src] - psn) & 0xffffff) < 0x800000
        again += behind
        if not behind:
            top2[src] = psn
    drawn = retx = 0
    for ln in r.stdout.splitlines():
        if re.search(r"\|-- RDMA WRITE|\|<-- RDMA WRITE|SEND Only PSN", ln):
            drawn += 1
            retx += " RETX " in ln
        elif ln.strip().startswith("|    … "):
            n = sum(int(x) for x in re.findall(r"(\d+) (?:RDMA WRITE|SEND)", ln))
            drawn += n
            retx += n if "… RETX: " in ln else 0
    check("--ladder --qp 0x12: tshark's %d requests drawn or counted" % reqs, drawn == reqs, "ladder %d" % drawn)
    check("--ladder --qp 0x12: tshark's %d requests sent before marked RETX" % again, retx == again and again > 0,
          "ladder %d" % retx)
    ud = os.path.join(C, "ud_send_bw.pcap")
    want = len(tshark_fields(ud, "frame.number", filt="infiniband.bth.opcode == 100 and infiniband.bth.destqp != 1"))
    r = run(["--width", "200", "--ladder", ud])
    got = 0
    for ln in r.stdout.splitlines():
        if "|-- SEND Only PSN" in ln or "|<-- SEND Only PSN" in ln:
            got += 1
        elif "… " in ln and " SEND Only (PSN" in ln:
            got += int(ln.split("… ")[1].split()[0])
    check("--ladder ud_send_bw: tshark's %d UD SENDs drawn" % want, got == want and want > 0, "ladder %d" % got)


def bits():
    """--bits (man page): the summary's rates in SI bits per second, 8 times
    JSON's bytes per second (perftest's and a NIC's unit)."""
    d = json.loads(run(["--format", "json", LOSS]).stdout)
    r = run(["--bits", "--width", "200", LOSS])
    units = {"b/s": 1, "kb/s": 1e3, "Mb/s": 1e6, "Gb/s": 1e9}
    rows = {}
    for ln in r.stdout.split("Queue pairs", 1)[-1].splitlines()[2:]:
        if not ln.strip():
            break
        f = ln.split()
        # src → dst QP tr pairing pkts payload(2) messages... avg(2) peak(2) then 6 counts
        rows[(f[0], f[2], int(f[3], 16))] = float(f[-10]) * units[f[-9]]
    for q in d["qps"]:
        got, want = rows.get((q["src"], q["dst"], q["dest_qp"])), q["throughput_Bps"]["average"] * 8
        check("--bits: %s → %s 0x%x avg %s b/s, JSON's bytes x 8 = %.0f" % (q["src"], q["dst"], q["dest_qp"], got, want),
              got is not None and abs(got - want) <= 0.01 * max(want, 1) + 0.5, "")


def average_rate():
    """avg rate (man page, DEFINITIONS): a half-flow's payload over its
    span, first frame to last by tshark's frame times, whatever --interval
    is; the peak is unknown (null) for a half-flow shorter than one
    interval."""
    ud = os.path.join(C, "ud_send_bw.pcap")
    span = {}
    for src, dst, qp, t in tshark_fields(ud, "ip.src", "ip.dst", "infiniband.bth.destqp", "frame.time_epoch",
                                         filt="infiniband.bth.destqp != 1"):
        k = (src, dst, int(qp, 0))
        lo, hi = span.get(k, (None, None))
        span[k] = (min(lo, float(t)) if lo else float(t), max(hi, float(t)) if hi else float(t))
    for iv in ("1ms", "10ms", "1s"):
        d = json.loads(run(["--interval", iv, "--format", "json", ud]).stdout)
        for q in d["qps"]:
            k = (q["src"], q["dst"], q["dest_qp"])
            if k not in span or not q["payload_bytes"]:
                continue
            lo, hi = span[k]
            want = q["payload_bytes"] / (hi - lo)
            t = q["throughput_Bps"]
            check("--interval %s: %s avg %s = payload / tshark's span %.6f s (%.0f)" % (iv, k, t["average"], hi - lo, want),
                  t["average"] is not None and abs(t["average"] - want) <= 1e-4 * want, "")
            check("--interval %s: %s peak %s known iff the span reaches one interval" % (iv, k, t["peak"]),
                  (t["peak"] is None) == (hi - lo < {"1ms": 1e-3, "10ms": 1e-2, "1s": 1.0}[iv]), "")


def field_selection():
    """--fields -e NAME (man page, --fields): only the columns named, in
    that order; their values are tshark's (frame, PSN) and the re-send of
    frame 284 names tshark's earlier frame with its PSN and QP."""
    r = run(["--fields", "-e", "psn", "-e", "frame", "-e", "retransmission_of", "-e", "cm_message", LOSS])
    lines = r.stdout.splitlines()
    check("-e psn -e frame -e retransmission_of -e cm_message: the header", lines[:1] == [
        "psn,frame,retransmission_of,cm_message"], repr(lines[:1]))
    rows = [ln.split(",") for ln in lines[1:]]
    want = [(p, n) for n, p in tshark_fields(LOSS, "frame.number", "infiniband.bth.psn", filt="infiniband")]
    check("-e psn -e frame: tshark's %d (PSN, frame) pairs" % len(want),
          [(x[0], x[1]) for x in rows] == want, repr(rows[:3]))
    resend = {x[1]: x[2] for x in rows}
    check("-e retransmission_of: frame 284 re-sends frame 177", resend.get("284") == "177", repr(resend.get("284")))
    cms = {x[1]: x[3] for x in rows if x[3]}
    check("-e cm_message: frames 3, 4, 5 are REQ, REP, RTU (tshark: ConnectRequest, ConnectReply, ReadyToUse)",
          [cms.get(k) for k in ("3", "4", "5")] == ["REQ", "REP", "RTU"], repr(cms))
    refused("-e bogus", ["--fields", "-e", "bogus", RPING], "-e bogus: no such column")
    refused("-e without --fields", ["-e", "psn", RPING], "-e psn selects a column of --fields")


def timeline_files():
    """--timeline of several files (man page, TIMELINE CSV): a file column,
    and a half-flow's rows per file: their packets are tshark's count of
    that file's frames of it, and no zero rows bridge the two files."""
    s5000 = os.path.join(C, "rping_s5000.pcap")
    r = run(["--timeline", "-", "-o", os.devnull, RPING, s5000])
    rows = list(csv.reader(io.StringIO(r.stdout)))
    check("--timeline of 2 files: a file column", rows and rows[0][:2] == ["file", "interval_start"], repr(rows[:1]))
    got = {}
    for row in rows[1:]:
        k = (row[0], row[3], row[4], int(row[5], 16))
        got[k] = got.get(k, 0) + int(row[6])
    want = {}
    for path in (RPING, s5000):
        for src, dst, qp in tshark_fields(path, "ip.src", "ip.dst", "infiniband.bth.destqp", filt="infiniband"):
            k = (path, src, dst, int(qp, 16))
            want[k] = want.get(k, 0) + 1
    check("--timeline of 2 files: packets per file and half-flow are tshark's (%d half-flows)" % len(want),
          got == want, "%r\n%r" % (sorted(got.items())[:4], sorted(want.items())[:4]))


def newcomer():
    """The first commands a new user types: rocestat alone, --help, --version."""
    r = subprocess.run([ROCESTAT], capture_output=True, text=True)
    check("bare rocestat: exit status 2", r.returncode == 2, "got %d" % r.returncode)
    check("bare rocestat: the usage, and where to read more",
          r.stderr.startswith("Usage:\n  rocestat ") and "rocestat --help" in r.stderr and r.stdout == "",
          repr(r.stderr[:300]))
    r = subprocess.run([ROCESTAT, "--help"], capture_output=True, text=True)
    lines = r.stdout.splitlines()
    check("--help: exit status 0", r.returncode == 0, "got %d" % r.returncode)
    wide = [ln for ln in lines if len(ln) > 80]
    check("--help through a pipe fits 80 columns", not wide, "%d wider lines, e.g. %r" % (len(wide), wide[:2]))
    check("--help: no '?' where GLib's locale lacks the ellipsis", "[OPTION?]" not in r.stdout)
    # The man page sends readers to --help for the whole list: every option
    # it names on its own must be in it, and so must -h and --version.
    man = open(os.path.join(ROOT, "man", "rocestat.1")).read().replace("\\-", "-")
    named = set(w for w in man.split() if w.startswith("--") and w[2:3].isalpha())
    named = {w.split("=")[0].rstrip(".,;:)") for w in named}
    named = {w for w in named if all(c.isalnum() or c == "-" for c in w)}
    for opt in sorted(named | {"--help", "--version"}):
        check("--help lists %s, which the man page names" % opt, opt in r.stdout)
    make = open(os.path.join(ROOT, "Makefile")).read()
    version = make.split("VERSION  := ", 1)[1].split()[0]
    r = subprocess.run([ROCESTAT, "--version"], capture_output=True, text=True)
    check("--version says the Makefile's version", r.returncode == 0 and r.stdout == "rocestat %s\n" % version,
          repr(r.stdout))


def attached_values(tmp):
    """tcpdump's -c5, -s0, -nrFILE: a short option's value in its own word
    (GLib's parser alone reads -c5 as -c and -5). Expected values are the
    options' meaning: -c N frames, -s N in the written file's header."""
    def frames(args):
        r = run(args + ["--format", "json"])
        check("%s: exit status" % " ".join(args), r.returncode in (0, 1), "got %d, %r" % (r.returncode, r.stderr))
        return json.loads(r.stdout)["capture"]["frames"] if r.returncode in (0, 1) else None
    check("-c5: 5 frames", frames(["-c5", RPING]) == 5)
    check("-nc3: 3 frames", frames(["-nc3", RPING]) == 3)
    check("-nr FILE as -n -r FILE", run(["-nr", RPING]).stdout == run(["-r", RPING]).stdout)
    glued = run(["-nr" + RPING])
    check("-nrFILE as -n -r FILE", glued.returncode in (0, 1) and glued.stdout == run(["-r", RPING]).stdout,
          "exit %d, stderr %r" % (glued.returncode, glued.stderr))
    check("-j1 as -j 1", run(["-j1", LOSS]).stdout == run(["-j", "1", LOSS]).stdout != "")
    out = os.path.join(tmp, "s128.pcap")
    r = run(["-s128", "-r", RPING, "-w", out])
    head = open(out, "rb").read(24) if os.path.exists(out) else b""
    check("-s128 -w: the header's snapshot length is 128", r.returncode == 0 and len(head) == 24 and
          int.from_bytes(head[16:20], "little") == 128, "exit %d, stderr %r" % (r.returncode, r.stderr))
    r = run(["--fields", "-epsn", "-c", "40", RPING])
    check("-epsn: the psn column", r.returncode == 0 and r.stdout.splitlines()[:1] == ["psn"], repr(r.stdout[:80]))
    # A word that is an option's value stays whole, even if it looks like one.
    for args in (["-e", "-c5"], ["--field", "-c5"]):
        refused(" ".join(args), ["--fields"] + args + [RPING], "-e -c5: no such column")


def main():
    newcomer()
    with tempfile.TemporaryDirectory(prefix="rocestat-cli.") as tmp:
        usage_errors(tmp)
        directories(tmp)
        not_captures(tmp)
        missing_among_others(tmp)
        stdin_dash()
    missing_interface()
    drill_down()
    with tempfile.TemporaryDirectory(prefix="rocestat-cli.") as tmp:
        qp_views(tmp)
    timeline_files()
    ladder_gaps_and_ud()
    average_rate()
    bits()
    field_selection()
    with tempfile.TemporaryDirectory(prefix="rocestat-cli.") as tmp:
        os.mkdir(os.path.join(tmp, "adir"))
        kept_when_nothing_read(tmp)
    with tempfile.TemporaryDirectory(prefix="rocestat-cli.") as tmp:
        extract_with_reports(tmp)
        frames_to_file(tmp)
        attached_values(tmp)
    print("check_cli: %d checks, %d failed" % (check.checks, check.failures))
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
