#!/usr/bin/env python3
"""Command-line combinations: every option either does what the man page
says or is refused with exit status 2 and a sentence saying why, never
silently left out; and a failed run does not replace the reports of an
earlier one.

Each case states the exit status, the message (or the part of it that
matters) and what must be on disk or on standard output after the run.
Where the outcome can be checked against an independent source it is: the
BPF filter that --qp's refusal suggests is run through tcpdump and its
frames counted against tshark's DestQP column.

    ROCESTAT=./rocestat python3 tests/check_cli.py
Exit status 0 when every case holds, 1 otherwise.
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcaprecs import read_pcap  # noqa: E402
from testlib import ROCESTAT, ROOT, SHARED, Checks  # noqa: E402

C = os.path.join(SHARED, "captures")
RPING = os.path.join(C, "rping_s64.pcap")
LOSS = os.path.join(C, "loss_write_bw.pcap")

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
    refused("--verdicts without --fields", ["--verdicts", RPING], "--verdicts adds columns to --fields")
    refused("--walk --verdicts", ["--walk", "--verdicts", RPING], "--verdicts adds columns to --fields")
    refused("-w - with a report to standard output", ["-r", RPING, "-w", "-", "--format", "json"],
            "-w - and the report would both go to standard output")
    for opt in ("--fields", "--walk"):
        refused("-w - with %s" % opt, ["-r", RPING, "-w", "-", opt], "-w - and %s would both write to standard output" % opt)
    for opt in (["--fields"], ["--walk"], ["-w", os.path.join(tmp, "q.pcap")]):
        r = refused("--qp with %s" % opt[0], opt + ["--qp", "18", LOSS], "--qp picks the connection")
    check("nothing written by a refused -w", not os.path.exists(os.path.join(tmp, "q.pcap")))
    # The filter --qp's refusal suggests picks QP 18's frames: as many as
    # tshark finds with DestQP 18.
    suggested = shlex.split(r.stderr.split("e.g. ", 1)[-1].split(" (RoCE v2", 1)[0])
    check("--qp: one filter suggested", len(suggested) == 1, repr(suggested))
    if len(suggested) == 1:
        td = subprocess.run(["tcpdump", "-r", LOSS, suggested[0]], capture_output=True, text=True)
        ts = subprocess.run(["tshark", "-r", LOSS, "-Y", "infiniband.bth.destqp == 18", "-T", "fields",
                             "-e", "frame.number"], capture_output=True, text=True)
        n_td, n_ts = len(td.stdout.splitlines()), len(ts.stdout.split())
        check("--qp: the suggested filter selects QP 18's frames (tcpdump %d, tshark %d)" % (n_td, n_ts),
              td.returncode == 0 and n_td == n_ts and n_ts > 1000)


def directories(tmp):
    d = os.path.join(tmp, "adir")
    os.mkdir(d)
    for args in ([d], ["-r", d]):
        r = run(args)
        check("%s: exit status 3" % " ".join(args), r.returncode == 3, "got %d" % r.returncode)
        check("%s: Is a directory" % " ".join(args), r.stderr.startswith("rocestat: %s: Is a directory" % d),
              repr(r.stderr))


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


def newcomer():
    """The first commands a new user types (issue 26)."""
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


def main():
    newcomer()
    with tempfile.TemporaryDirectory(prefix="rocestat-cli.") as tmp:
        usage_errors(tmp)
        directories(tmp)
    with tempfile.TemporaryDirectory(prefix="rocestat-cli.") as tmp:
        os.mkdir(os.path.join(tmp, "adir"))
        kept_when_nothing_read(tmp)
    with tempfile.TemporaryDirectory(prefix="rocestat-cli.") as tmp:
        extract_with_reports(tmp)
        frames_to_file(tmp)
    print("check_cli: %d checks, %d failed" % (check.checks, check.failures))
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
