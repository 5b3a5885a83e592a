#!/usr/bin/env python3
"""Two rocestat binaries, the same bytes: the check for a change that must
not change behaviour (a rename, a move, a new header, a faster loop).

    python3 tests/same_output.py OLD NEW [CAPTURE...]
    python3 tests/same_output.py --base REV NEW [CAPTURE...]
    make same OLD=path/to/old/rocestat      (NEW is this tree's ./rocestat)
    make same BASE=main                     (OLD built from REV first)

Each binary runs every mode below over every capture in samples/ and in
../shared/ (or over the CAPTUREs named), each run in a directory of its own
so that the files it writes have the same names; the standard output, the
standard error, the exit status and every file a run writes must be equal
byte for byte. Each difference is printed with the capture, the mode and the
first lines that differ. Exit status: 0 every byte the same; 1 a difference
(or no capture to compare); 2 a usage error, or a baseline that would not
build.

--base REV builds REV (any git revision) in a temporary git worktree with
`make PGO=0 rocestat`, compares against it and removes the worktree.

This proves only that the two binaries agree on these inputs, not that
either is right: that is what the other tests are for. Without ../shared it
compares samples/ alone and says so on its last line; it is still a pass
for those, but not for the change (make check needs ../shared anyway).
"""
import argparse
import difflib
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
EXTS = (".pcap", ".pcapng", ".erf")

# name, arguments (CAPTURE stands for the capture, CAPTURE2 for a second
# one), files the run writes. The outputs of rocestat(1): the text summary,
# the three JSON forms, the Prometheus and OpenMetrics expositions, --expect
# with its JUnit file, --fields with and without the verdicts, -V, --ladder,
# --timeline with --plot, --annotate, -r/-w extraction, --compare; and the
# summary again laid out for another width, in bits, in one thread.
MODES = [
    ("text", ["-n", "CAPTURE"], []),
    ("text-wide-bits", ["-n", "--width", "0", "--bits", "CAPTURE"], []),
    ("json", ["-n", "--format", "json", "CAPTURE"], []),
    ("json-j1", ["-n", "-j", "1", "--format", "json", "CAPTURE"], []),
    ("json-compact", ["-n", "--format", "json-compact", "CAPTURE"], []),
    ("ndjson", ["-n", "--format", "ndjson", "--host", "same-output", "CAPTURE"], []),
    ("prometheus", ["-n", "--format", "prometheus", "CAPTURE"], []),
    ("openmetrics", ["-n", "--format", "openmetrics", "CAPTURE"], []),
    ("expect", ["-n", "--expect", "naks == 0", "--expect", "frames > 100", "--expect-junit", "j.xml",
                "-o", "/dev/null", "CAPTURE"], ["j.xml"]),
    ("fields", ["--fields", "CAPTURE"], []),
    ("fields-verdicts", ["--fields", "--verdicts", "CAPTURE"], []),
    ("walk", ["-n", "-V", "CAPTURE"], []),
    ("ladder", ["-n", "--ladder", "CAPTURE"], []),
    ("timeline-plot", ["-n", "--timeline", "t.csv", "--plot", "p.svg", "-o", "r.txt", "CAPTURE"],
     ["t.csv", "p.svg", "r.txt"]),
    ("timeline-1ms", ["-n", "--interval", "1ms", "--timeline", "-", "-o", "/dev/null", "CAPTURE"], []),
    ("annotate", ["-n", "--annotate", "a.pcapng", "CAPTURE"], ["a.pcapng"]),
    ("extract", ["-r", "CAPTURE", "-w", "w.pcap"], ["w.pcap"]),
    ("compare-self", ["-n", "--compare", "CAPTURE", "CAPTURE"], []),
    ("compare-next", ["-n", "--compare", "CAPTURE", "CAPTURE2"], []),
]


def captures():
    found = []
    for top in (os.path.join(ROOT, "samples"), SHARED):
        for d, _, files in os.walk(top):
            found += [os.path.join(d, f) for f in files if f.endswith(EXTS)]
    return sorted(found)


def run(binary, args, outs, cwd):
    for f in outs:
        p = os.path.join(cwd, f)
        if os.path.exists(p):
            os.unlink(p)
    p = subprocess.run([binary] + args, cwd=cwd, capture_output=True, timeout=600)
    files = {}
    for f in outs:
        path = os.path.join(cwd, f)
        files[f] = open(path, "rb").read() if os.path.exists(path) else None
    return {"exit status": str(p.returncode).encode(), "stdout": p.stdout, "stderr": p.stderr, **files}


def show(old, new):
    """The first lines where old and new differ, as a unified diff."""
    if old is None or new is None:
        return ["    %s" % ("written by NEW only" if old is None else "written by OLD only")]
    if b"\0" in old[:4096] or b"\0" in new[:4096]:
        at = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
        return ["    binary: %d and %d bytes, first difference at byte %d" % (len(old), len(new), at)]
    a = old.decode("utf-8", "replace").splitlines()
    b = new.decode("utf-8", "replace").splitlines()
    lines = list(difflib.unified_diff(a, b, "OLD", "NEW", n=1, lineterm=""))
    return ["    " + line[:200] for line in lines[:12]] + (["    ..."] if len(lines) > 12 else [])


def build_base(rev, tmp):
    src = os.path.join(tmp, "base")
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", src, rev], check=True,
                   stdout=subprocess.DEVNULL)
    print("same_output: building %s in %s" % (rev, src), flush=True)
    subprocess.run(["make", "-s", "-C", src, "PGO=0", "-j2", "rocestat"], check=True, stdout=subprocess.DEVNULL)
    return src, os.path.join(src, "rocestat")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", metavar="REV", help="build OLD from this git revision")
    ap.add_argument("binaries", nargs="+", metavar="OLD NEW [CAPTURE...]")
    a = ap.parse_args()
    rest = a.binaries
    tmp = tempfile.mkdtemp(prefix="same_output.")
    base_src = None
    try:
        if a.base:
            try:
                base_src, old = build_base(a.base, tmp)
            except (subprocess.CalledProcessError, OSError) as e:
                print("same_output: could not build %s: %s" % (a.base, e))
                return 2
        else:
            if len(rest) < 2:
                ap.error("OLD and NEW binaries needed (or --base REV NEW)")
            old, rest = rest[0], rest[1:]
        new, named = rest[0], rest[1:]
        old, new = os.path.abspath(old), os.path.abspath(new)
        for b in (old, new):
            if not os.access(b, os.X_OK):
                print("same_output: %s is not an executable" % b)
                return 2
        caps = [os.path.abspath(c) for c in named] or captures()
        if not caps:
            print("same_output: no capture to compare")
            return 1
        where = ("the captures named" if named else
                 "samples/ and ../shared/" if os.path.isdir(SHARED) else None)
        return compare(old, new, caps, tmp, where)
    finally:
        if base_src:
            subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", base_src], check=False)
        shutil.rmtree(tmp, ignore_errors=True)


def compare(old, new, caps, tmp, where):
    """Every mode over every capture by both binaries; the differences printed."""
    dirs = {}
    for side in ("old", "new"):
        dirs[side] = os.path.join(tmp, side)
        os.makedirs(dirs[side], exist_ok=True)
    runs = diffs = 0
    refused = {name: 0 for name, _, _ in MODES}
    for i, cap in enumerate(caps):
        cap2 = caps[(i + 1) % len(caps)]
        shown = os.path.relpath(cap, ROOT)
        for name, args, outs in MODES:
            args = [cap if x == "CAPTURE" else cap2 if x == "CAPTURE2" else x for x in args]
            r_old = run(old, args, outs, dirs["old"])
            r_new = run(new, args, outs, dirs["new"])
            runs += 1
            refused[name] += r_old["exit status"] == b"2"
            for what in r_old:
                if r_old[what] != r_new[what]:
                    diffs += 1
                    print("same_output: DIFFERENT %s [%s] %s" % (shown, name, what))
                    print("    rocestat %s" % " ".join(os.path.relpath(x, ROOT) if x.startswith("/") else x
                                                      for x in args))
                    print("\n".join(show(r_old[what], r_new[what])))
    # A mode OLD refuses on every capture (exit status 2, a usage error)
    # compares nothing: the list above is wrong for these binaries.
    for name, n in refused.items():
        if n == len(caps):
            diffs += 1
            print("same_output: mode %s is refused (exit status 2) on every capture: it compares nothing" % name)
    where = where or "samples/ only: ../shared is absent"
    print("same_output: %d captures x %d modes = %d runs (%s), %d differences" %
          (len(caps), len(MODES), runs, where, diffs))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
