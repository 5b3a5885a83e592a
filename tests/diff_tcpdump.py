#!/usr/bin/env python3
"""Differential test: `rocestat -r IN -w OUT` against `tcpdump -r IN -w OUT`.

rocestat promises tcpdump's habits for extraction: `-r`, `-w`, `-c` and a
BPF filter as trailing arguments select the same frames. tcpdump (libpcap's
reader, filter compiler and writer) is the independent oracle here, as
tshark is for the decode (diff_tshark.py). For every capture under
../shared/captures, ../shared/public-captures and samples/, and for each
case below, both tools write a file and the two must hold the same records:
time stamp to the nanosecond (tcpdump is asked for nanosecond precision,
rocestat always writes it), captured length, wire length and every byte, in
the same order, with the same link type and the same snapshot length in the
file header. A filter libpcap cannot compile is refused by both, and
rocestat then writes no file.

Also, on a few captures:
  - `-r -` (the capture on standard input) gives what reading the file gives;
  - `-w OUT.pcapng` holds the same records, read back by tcpdump;
  - a pcapng input (converted by editcap) gives what its pcap original gives.

The records are read by tests/pcaprecs.py, which shares no code with
rocestat. Exit status 0 when every case matches, 1 otherwise.
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcaprecs import read_pcap  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROCESTAT = os.environ.get("ROCESTAT", os.path.join(ROOT, "rocestat"))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import need_shared  # noqa: E402

need_shared("diff_tcpdump")

# (-c count or None, filter words): RoCE v2 and v1, CM on QP1 (BTH DestQP
# 1 at UDP payload bytes 5-7), lengths, IPv6, negation, byte tests, and -c
# before, inside and beyond the matching frames.
CASES = [
    (None, []),
    (7, []),
    (None, ["udp", "dst", "port", "4791"]),
    (3, ["udp", "src", "port", "4791", "and", "len", ">", "100"]),
    (None, ["ip6"]),
    (None, ["not", "udp"]),
    (1000, ["ether", "proto", "0x8915"]),
    (None, ["udp[8]", "==", "0x64"]),
    (None, ["udp", "and", "udp[13:2]", "==", "0", "and", "udp[15]", "==", "1"]),
    (2, ["udp[8]", "==", "0x0a", "or", "udp[8]", "==", "0x11"]),
    (100000, ["greater", "1000"]),
]
BAD_FILTER = ["udp", "port"]

failures = 0
checked = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL " + msg)


def header_snaplen(path):
    with open(path, "rb") as fh:
        head = fh.read(24)
    order = "<" if head[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    return int.from_bytes(head[16:20], "little" if order == "<" else "big")


def tcpdump(args, out, stdin=None):
    return subprocess.run(["tcpdump", "--time-stamp-precision=nano"] + args + ["-w", out],
                          stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def rocestat(args, out, stdin=None):
    return subprocess.run([ROCESTAT] + args + ["-w", out],
                          stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def same_records(what, ref, got, snaplen=True):
    """Both files hold the same records (and header snapshot length)."""
    global checked
    checked += 1
    try:
        lr, rr, cr = read_pcap(ref)
        lg, rg, cg = read_pcap(got)
    except (OSError, ValueError) as e:
        fail("%s: %s" % (what, e))
        return
    if not cg:
        fail("%s: rocestat's file ends inside a record" % what)
    if lr != lg:
        fail("%s: link type %d, tcpdump's %d" % (what, lg, lr))
    if snaplen and header_snaplen(ref) != header_snaplen(got):
        fail("%s: header snaplen %d, tcpdump's %d" % (what, header_snaplen(got), header_snaplen(ref)))
    if rr != rg:
        first = next((i for i, (a, b) in enumerate(zip(rr, rg)) if a != b), min(len(rr), len(rg)))
        fail("%s: %d records, tcpdump's %d; the first difference is record %d" % (what, len(rg), len(rr), first + 1))


def cases_for(cap, tmp):
    name = os.path.basename(cap)
    for count, flt in CASES:
        opts = ["-c", str(count)] if count else []
        what = "%s [%s]" % (name, " ".join(opts + flt))
        ref, got = os.path.join(tmp, "ref.pcap"), os.path.join(tmp, "got.pcap")
        for p in (ref, got):
            if os.path.exists(p):
                os.unlink(p)
        t = tcpdump(["-r", cap] + opts + flt, ref)
        r = rocestat(["-r", cap] + opts + flt, got)
        if t.returncode != 0:
            # tcpdump cannot read it (an ERF file with a link-layer filter):
            # rocestat must refuse too, and write nothing.
            if r.returncode == 0 or os.path.exists(got):
                fail("%s: tcpdump refused (%s) but rocestat exited %d" %
                     (what, t.stderr.decode().strip().splitlines()[-1], r.returncode))
            continue
        if r.returncode not in (0, 1):
            fail("%s: rocestat exited %d: %s" % (what, r.returncode, r.stderr.decode().strip()))
            continue
        same_records(what, ref, got)

    # A filter libpcap cannot compile: both refuse; rocestat with status 2
    # (usage) and no output file.
    bad = os.path.join(tmp, "bad.pcap")
    t = tcpdump(["-r", cap] + BAD_FILTER, os.path.join(tmp, "badref.pcap"))
    r = rocestat(["-r", cap] + BAD_FILTER, bad)
    if t.returncode == 0 or r.returncode != 2 or os.path.exists(bad):
        fail("%s: bad filter: tcpdump exited %d, rocestat %d%s" %
             (name, t.returncode, r.returncode, ", and wrote a file" if os.path.exists(bad) else ""))


def main():
    for tool in ("tcpdump", "editcap"):
        if not shutil.which(tool):
            print("FAIL %s is not installed (sh scripts/deps.sh test)" % tool)
            return 1
    caps = sorted(glob.glob(os.path.join(SHARED, "captures", "*.pcap")) +
                  glob.glob(os.path.join(SHARED, "public-captures", "*.pcap")) +
                  glob.glob(os.path.join(ROOT, "samples", "*.pcap")))
    if len(caps) < 20:
        print("FAIL only %d captures found (is ../shared beside the project?)" % len(caps))
        return 1
    tmp = tempfile.mkdtemp(prefix="rocestat-difftcpdump.")
    try:
        for cap in caps:
            cases_for(cap, tmp)

        few = [c for c in caps if os.path.basename(c) in
               ("rping_s64.pcap", "loss_write_bw.pcap", "ipv6_rping.pcap", "rxe_mixed.pcap")]
        if len(few) < 4:
            fail("the captures for the stdin and pcapng cases are missing: %s" % few)
        for cap in few:
            name = os.path.basename(cap)
            ref = os.path.join(tmp, "ref.pcap")
            tcpdump(["-r", cap, "udp"], ref)

            # Standard input: read once, as tcpdump reads it. libpcap does
            # not know a pipe's snapshot length ahead: the header may differ.
            got = os.path.join(tmp, "stdin.pcap")
            with open(cap, "rb") as fh:
                r = rocestat(["-r", "-", "udp"], got, stdin=fh)
            if r.returncode not in (0, 1):
                fail("%s on stdin: rocestat exited %d: %s" % (name, r.returncode, r.stderr.decode().strip()))
            else:
                same_records(name + " on stdin [udp]", ref, got, snaplen=False)

            # pcapng out, read back by tcpdump.
            ng, back = os.path.join(tmp, "got.pcapng"), os.path.join(tmp, "back.pcap")
            r = rocestat(["-r", cap, "udp"], ng)
            t = tcpdump(["-r", ng], back)
            if r.returncode not in (0, 1) or t.returncode != 0:
                fail("%s -w .pcapng: rocestat exited %d, tcpdump reading it %d: %s" %
                     (name, r.returncode, t.returncode, t.stderr.decode().strip()))
            else:
                same_records(name + " -w .pcapng [udp]", ref, back, snaplen=False)

            # pcapng in (editcap converts), filtered and counted.
            ngin, got = os.path.join(tmp, "in.pcapng"), os.path.join(tmp, "got.pcap")
            subprocess.run(["editcap", "-F", "pcapng", cap, ngin], check=True)
            ref5 = os.path.join(tmp, "ref5.pcap")
            tcpdump(["-r", cap, "-c", "5", "udp"], ref5)
            r = rocestat(["-r", ngin, "-c", "5", "udp"], got)
            if r.returncode not in (0, 1):
                fail("%s as pcapng: rocestat exited %d: %s" % (name, r.returncode, r.stderr.decode().strip()))
            else:
                same_records(name + " as pcapng [-c 5 udp]", ref5, got, snaplen=False)
    finally:
        shutil.rmtree(tmp)

    print("diff_tcpdump: %d comparisons over %d captures, %d failed" % (checked, len(caps), failures))
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
