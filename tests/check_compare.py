#!/usr/bin/env python3
"""`rocestat --compare A B` (make compare).

B is derived from A with known changes, and --compare must find exactly them:

  * editcap drops known frame numbers of loss_write_bw (3% loss: among them
    first sendings of PSNs re-sent later with the same bytes, and a frame
    without a BTH) and shifts the time (-t 5.5): --compare names exactly the
    dropped frames that tshark decodes as BTH packets, with tshark's PSNs,
    nothing the other way, and a clock offset of exactly +5.5 s; swapped
    (B A), the same frames are "seen at B" and the offset is -5.5 s; the
    exit status is 1, and 0 for a file against itself;
  * B with a known delay per frame (A's time + 2.25 s + d, d a multiple of
    100 ns from 0 to 0.8 ms, written in time order): no frame unmatched,
    the offset exactly 2.25 s and the delay distribution (nearest-rank min,
    median, p90, p99, max) that of the d's;
  * B with FECN and BECN set in some packets (a switch marks congestion
    there) matches A; B with one payload byte changed names that frame at
    A only and at B only;
  * both directions (client to server d later, server to client d earlier,
    d at least 10 us each way): the offset estimated from both directions,
    exactly the shift, the server-to-client half-flows "pass B first", the
    delays those of the d's;
  * A cut short (head -c, as a capture stopped mid-record): the report of the
    frames before the cut is written all the same, exit status 3, with as
    many frames at A as tshark reads from the cut file and exactly the BTH
    packets after them, with tshark's PSNs, seen at B only;
  * the notation of the other text outputs: "src → dst QP 0x11", PSNs as
    six hex digits (values from tshark), and the text laid out for 80
    columns through a pipe (--width N otherwise), words as at --width 0.

Exit status 0 when every check passes, 1 otherwise.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcaprecs import read_pcap, write_pcap  # noqa: E402
from testlib import ROCESTAT, SHARED, Checks, tshark_heuristics_off  # noqa: E402

ck = Checks("check_compare")
A = os.path.join(SHARED, "captures", "loss_write_bw.pcap")
UNITS = {"ns": 1, "µs": 1000, "ms": 10 ** 6, "s": 10 ** 9}


def compare(a, b):
    p = subprocess.run([ROCESTAT, "-n", "--width", "0", "--compare", a, b], capture_output=True, text=True)
    out = {"rc": p.returncode, "stderr": p.stderr, "only": {"A": set(), "B": set()}, "b_first": set()}
    m = re.search(r"^clock offset \(B - A\): .*? \((-?\d+) ns\)$", p.stdout, re.M)
    out["offset"] = int(m.group(1)) if m else None
    out["two_way"] = "estimated from both directions" in p.stdout
    m = re.search(r"^one-way delay over (\d+) packets: min (.*), median (.*), p90 (.*), p99 (.*), max (.*)$",
                  p.stdout, re.M)
    out["delay"] = [int(m.group(1))] + [ns(x) for x in m.groups()[1:]] if m else None
    m = re.search(r"^A: .*: (\d+) frames, ", p.stdout, re.M)
    out["frames_a"] = int(m.group(1)) if m else None
    for who, fr, psn in re.findall(r"^      ([AB]) frame (\d+), PSN (0x[0-9a-f]{6}), ", p.stdout, re.M):
        out["only"][who].add((int(fr), int(psn, 16)))
    for src, dst, qp in re.findall(r"^  (\S+) → (\S+) QP (0x[1-9a-f][0-9a-f]*|0x0) .*passes B first$", p.stdout,
                                   re.M):
        out["b_first"].add((src, dst, int(qp, 16)))
    out["text"] = p.stdout
    return out


def ns(text):
    m = re.fullmatch(r"([+-])([\d.]+) (ns|µs|ms|s)", text.strip())
    v = round(float(m.group(2)) * UNITS[m.group(3)])
    return -v if m.group(1) == "-" else v


def tshark_rows(path):
    out = subprocess.run(["tshark", "-n", "-r", path, "-T", "fields", "-e", "frame.number", "-e", "ip.src", "-e",
                          "ip.dst", "-e", "infiniband.bth.destqp", "-e", "infiniband.bth.psn"]
                         + tshark_heuristics_off(), capture_output=True, text=True, check=True).stdout
    rows = {}
    for ln in out.splitlines():
        n, s, d, q, psn = (ln.split("\t") + [""] * 5)[:5]
        rows[int(n)] = (s, d, int(q, 16) if q.startswith("0x") else int(q), int(psn)) if psn else None
    return rows


def nearest_rank(v, p):
    v = sorted(v)
    return v[max(0, -(-len(v) * p // 100) - 1)]


def distribution(d):
    return [len(d), min(d), nearest_rank(d, 50), nearest_rank(d, 90), nearest_rank(d, 99), max(d)]


def derive(path, recs, linktype, delay_of):
    """B: each record of A at A's time + delay_of(index, record) ns, in time order."""
    moved = []
    for i, (sec, nsec, cap, wire, b) in enumerate(recs):
        t = sec * 10 ** 9 + nsec + delay_of(i, b)
        moved.append((t, i, (t // 10 ** 9, t % 10 ** 9, cap, wire, b)))
    moved.sort()
    write_pcap(path, linktype, [r for _, _, r in moved])


if not ck("loss_write_bw present", os.path.exists(A), A):
    sys.exit(1)
rows = tshark_rows(A)
linktype, recs, _ = read_pcap(A)
with tempfile.TemporaryDirectory() as tmp:
    # 1. editcap: dropped frames and a time shift.
    no_bth = sorted(n for n, r in rows.items() if r is None)
    resent_first = [300, 301]  # first sendings of PSNs 8334010 and 8334012, re-sent in frames 419 and 421
    ck("frames 300/301 were re-sent with the same PSN (tshark)",
       rows[300] == rows[419][:3] + (rows[300][3],) and rows[300][3] == rows[419][3] and rows[301][3] == rows[421][3],
       "%r %r %r %r" % (rows[300], rows[419], rows[301], rows[421]))
    dropped = sorted({10, 20, 2000, 3047, no_bth[0]} | set(resent_first))
    B = os.path.join(tmp, "B.pcap")
    subprocess.run(["editcap", "-t", "5.5", A, B] + [str(n) for n in dropped], check=True, capture_output=True)
    want = {(n, rows[n][3]) for n in dropped if rows[n] is not None}
    r = compare(A, B)
    ck("dropped: exit status 1", r["rc"] == 1, "%d %s" % (r["rc"], r["stderr"][:200]))
    ck("dropped: exactly the dropped frames seen at A only", r["only"]["A"] == want,
       "got %r, want %r" % (sorted(r["only"]["A"]), sorted(want)))
    ck("dropped: nothing seen at B only", not r["only"]["B"], "%r" % sorted(r["only"]["B"])[:5])
    ck("dropped: the shift", r["offset"] == 5500000000, "%r" % r["offset"])
    ck("dropped: no delay", r["delay"] and r["delay"][1:] == [0] * 5, "%r" % r["delay"])
    r = compare(B, A)
    ck("swapped: the same frames seen at B only", r["only"]["B"] == want and not r["only"]["A"],
       "%r / %r" % (sorted(r["only"]["B"]), sorted(r["only"]["A"])))
    ck("swapped: the shift negated", r["offset"] == -5500000000, "%r" % r["offset"])
    r = compare(A, A)
    ck("itself: exit status 0, nothing unmatched", r["rc"] == 0 and not r["only"]["A"] and not r["only"]["B"],
       "%d" % r["rc"])

    # 2. A known delay per frame, B always later.
    S = 2250000000

    def one_way(i, b):
        return S + (0 if i % 10 == 0 else ((i * 7919) % 8000) * 100)
    derive(B, recs, linktype, one_way)
    r = compare(A, B)
    d = [one_way(i, None) - S for i in range(len(recs)) if rows[i + 1] is not None]
    ck("delayed: nothing unmatched", r["rc"] == 0 and not r["only"]["A"] and not r["only"]["B"],
       "%d %r %r" % (r["rc"], sorted(r["only"]["A"])[:5], sorted(r["only"]["B"])[:5]))
    ck("delayed: the shift, from the minimum", r["offset"] == S and not r["two_way"], "%r" % r["offset"])
    ck("delayed: the delay distribution", r["delay"] == distribution(d), "%r vs %r" % (r["delay"], distribution(d)))

    # 2b. Bytes changed on the way: FECN/BECN (ignored) and payload (not).
    def bth_at(b):
        """The BTH's offset in an Ethernet/IPv4/UDP 4791 frame (None otherwise)."""
        if b[12:14] != b"\x08\x00" or b[23] != 17:
            return None
        ihl = (b[14] & 0x0F) * 4
        return 14 + ihl + 8 if b[14 + ihl + 2:14 + ihl + 4] == b"\x12\xb7" else None
    changed = []
    marked = 0
    payload_frame = None
    for i, (sec, nsec, cap, wire, b) in enumerate(recs):
        at = bth_at(b)
        if at is not None and 50 <= i < 60:
            b = b[:at + 8] + bytes([b[at + 8] | 0xC0]) + b[at + 9:]
            marked += 1
        elif at is not None and payload_frame is None and i >= 500 and len(b) > at + 12 + 4 + 64:
            k = at + 12 + 32  # inside the extension headers or payload of a data packet
            b = b[:k] + bytes([b[k] ^ 0xFF]) + b[k + 1:]
            payload_frame = i + 1
        changed.append((sec, nsec, cap, wire, b))
    write_pcap(B, linktype, changed)
    r = compare(A, B)
    want = {(payload_frame, rows[payload_frame][3])}
    ck("marked: FECN/BECN set in ten packets", marked == 10, "%d" % marked)
    ck("changed payload: that frame at A only and at B only", r["only"]["A"] == want and r["only"]["B"] == want,
       "%r / %r (want %r)" % (sorted(r["only"]["A"]), sorted(r["only"]["B"]), want))

    # 3. Both directions: the server's answers pass B first.
    server = "192.0.2.1"

    def two_way(i, b):
        row = rows[i + 1]
        extra = 10000 + (0 if i % 10 == 0 else ((i * 104729) % 5000) * 100)  # 10 us the least, each way
        return S - extra if row and row[0] == server else S + extra
    derive(B, recs, linktype, two_way)
    r = compare(A, B)
    d = [abs(two_way(i, None) - S) for i in range(len(recs)) if rows[i + 1] is not None]
    flows_back = {row[:3] for row in rows.values() if row and row[0] == server}
    ck("two-way: nothing unmatched", r["rc"] == 0 and not r["only"]["A"] and not r["only"]["B"], "%d" % r["rc"])
    ck("two-way: estimated from both directions", r["two_way"], r["text"][:600])
    ck("two-way: the shift", r["offset"] == S, "%r" % r["offset"])
    ck("two-way: the server's half-flows pass B first", r["b_first"] == flows_back,
       "%r vs %r" % (r["b_first"], flows_back))
    ck("two-way: the delay distribution", r["delay"] == distribution(d), "%r vs %r" % (r["delay"], distribution(d)))

    # 4. A cut short: the frames before the cut reported, exit status 3.
    cut = os.path.join(tmp, "cut.pcap")
    with open(A, "rb") as f, open(cut, "wb") as g:
        g.write(f.read(os.path.getsize(A) - 150000))  # mid-record, and fewer packets after than are listed
    kept = subprocess.run(["tshark", "-n", "-r", cut, "-T", "fields", "-e", "frame.number"],
                          capture_output=True, text=True).stdout.split()
    n_cut = len(kept)
    want = {(n, rows[n][3]) for n in rows if n > n_cut and rows[n] is not None}
    r = compare(cut, A)
    ck("cut short: exit status 3, the cut named", r["rc"] == 3 and "truncated" in r["stderr"],
       "%d %s" % (r["rc"], r["stderr"][:200]))
    ck("cut short: a report of the frames read (tshark's count)", r["frames_a"] == n_cut and 0 < n_cut < len(rows),
       "%r vs %d" % (r["frames_a"], n_cut))
    ck("cut short: the packets after the cut seen at B only", r["only"]["B"] == want and not r["only"]["A"],
       "%d vs %d, A %r" % (len(r["only"]["B"]), len(want), sorted(r["only"]["A"])[:3]))

    # 5. Notation and width.
    r = compare(A, B)
    heads = re.findall(r"^  (\S+) → (\S+) QP (0x[0-9a-f]+) \(", r["text"], re.M)
    ck("notation: half-flows as src → dst QP 0x%x, tshark's", heads and
       {(s_, d_, int(q, 16)) for s_, d_, q in heads} == {row[:3] for row in rows.values() if row}
       and all(q == "0x%x" % int(q, 16) for _, _, q in heads), "%r" % heads[:4])
    cutr = compare(cut, A)["text"]
    ck("notation: no ASCII arrow, no decimal PSN", " -> " not in r["text"] + cutr
       and not re.search(r"PSN (?!0x)\d", r["text"] + cutr) and "PSN 0x" in cutr, r["text"][:300])
    for args, width in (([], 80), (["--width", "80"], 80), (["--width", "120"], 120)):
        for a_, b_, whole in ((A, B, r["text"]), (cut, A, cutr)):
            t = subprocess.run([ROCESTAT, "-n", *args, "--compare", a_, b_], capture_output=True, text=True).stdout
            wide = [ln for ln in t.split("\n") if len(ln) > width]
            ck("width %d%s: no line wider" % (width, "" if args else " (a pipe)"), t and not wide,
               "%d wider: %r" % (len(wide), wide[:1]))
            ck("width %d%s: the words of --width 0" % (width, "" if args else " (a pipe)"),
               t.split() == whole.split())

    # Usage: two files, no other output.
    u = subprocess.run([ROCESTAT, "--compare", A], capture_output=True, text=True)
    ck("one file is refused", u.returncode == 2 and "two capture files" in u.stderr, u.stderr)
    u = subprocess.run([ROCESTAT, "--compare", "--fields", A, A], capture_output=True, text=True)
    ck("with another output is refused", u.returncode == 2, u.stderr)

print("check_compare: %d checks, %d failed" % (ck.checks, ck.failures))
sys.exit(1 if ck.failures else 0)
