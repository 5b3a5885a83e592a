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
    many frames at A as tshark reads from the cut file; the BTH packets after
    them are outside A's capture window (counted per half-flow from tshark),
    none seen at B only, and the report says A ended early at that frame;
  * capture windows (ib_write_bw_cm, as in the user's report): B = A's
    frames 300-end (editcap -r) has nothing seen at one point only and
    tshark's BTH frames 1-299 outside B's window, before it, per half-flow,
    exit status 0 (swapped the same for A); B = A's frames 1-250: the rest
    after B's window; B = frames 100-450 less 201 and 351: exactly those two
    seen at A only (exit 1), the others outside; B = the first 1,500,000
    bytes of loss_write_bw: the BTH frames after tshark's last outside, and
    "B ended early"; no packet in common: nothing counted outside, and the
    report says it cannot tell;
  * the delay spread as the windows' margin: B a delayed window of A with
    two packets lost, one within the spread of B's last frame (counted
    outside) and one well inside (listed), counts from the known delays;
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
from testlib import ROCESTAT, SHARED, Checks, tshark_fields, need_shared  # noqa: E402

need_shared("check_compare")

ck = Checks("check_compare")
A = os.path.join(SHARED, "captures", "loss_write_bw.pcap")
UNITS = {"ns": 1, "µs": 1000, "ms": 10 ** 6, "s": 10 ** 9}


def compare(a, b):
    p = subprocess.run([ROCESTAT, "-n", "--width", "0", "--compare", a, b], capture_output=True, text=True)
    out = {"rc": p.returncode, "stderr": p.stderr, "only": {"A": set(), "B": set()}, "b_first": set(),
           "outside_flow": {"A": {}, "B": {}}}
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
    m = re.search(r"^outside the other's capture window: A (\d+), B (\d+) packets, ", p.stdout, re.M)
    out["outside"] = {"A": int(m.group(1)), "B": int(m.group(2))} if m else None
    flow = None
    for ln in p.stdout.splitlines():
        m = re.match(r"^  (\S+) → (\S+) QP (0x[0-9a-f]+) \(", ln)
        if m:
            flow = (m.group(1), m.group(2), int(m.group(3), 16))
        m = re.match(r"^    seen at ([AB]) outside ([AB])'s capture window: (\d+), (?:(\d+) before its first frame and "
                     r"(\d+) after its last|(before its first frame)|(after its last frame))$", ln)
        if m:
            n = int(m.group(3))
            out["outside_flow"][m.group(1)][flow] = ((int(m.group(4)), int(m.group(5))) if m.group(4) else
                                                     (n, 0) if m.group(6) else (0, n))
    m = re.search(r"^B ended early: .*\. Its capture window ends at its last frame read, frame (\d+)$", p.stdout, re.M)
    out["b_ended"] = int(m.group(1)) if m else None
    m = re.search(r"^A ended early: .*\. Its capture window ends at its last frame read, frame (\d+)$", p.stdout, re.M)
    out["a_ended"] = int(m.group(1)) if m else None
    out["text"] = p.stdout
    return out


def per_flow(rows, frames):
    """tshark's BTH packets among `frames`, counted per half-flow."""
    n = {}
    for f in frames:
        if rows.get(f) is not None:
            n[rows[f][:3]] = n.get(rows[f][:3], 0) + 1
    return n


def outside_per_flow(r, who, side):
    """--compare's per-half-flow counts outside the window, `side` 0 before, 1 after."""
    return {k: v[side] for k, v in r["outside_flow"][who].items() if v[side]}


def ns(text):
    m = re.fullmatch(r"([+-])([\d.]+) (ns|µs|ms|s)", text.strip())
    v = round(float(m.group(2)) * UNITS[m.group(3)])
    return -v if m.group(1) == "-" else v


def tshark_rows(path):
    rows = {}
    for n, s, d, q, psn in tshark_fields(path, ["frame.number", "ip.src", "ip.dst", "infiniband.bth.destqp",
                                                "infiniband.bth.psn"]):
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

    # 2a. The delay spread as the windows' margin (man page: a packet is
    # inside B's window only when its time at A + every (time at B - time at
    # A) of the matched packets is strictly between B's first and last
    # frame). B: A's frames [lo, hi) at the known delays, less two lost: one
    # well inside, and one whose time + offset is before B's last frame but
    # within the spread of it (it may have passed B after B stopped).
    lo, hi = 400, 2600
    t_a = [sec * 10 ** 9 + nsec for sec, nsec, _, _, _ in recs]
    t_b = {i: t_a[i] + one_way(i, None) for i in range(lo, hi)}
    last_b = max(t_b.values())
    bth = [i for i in range(lo, hi) if rows[i + 1] is not None]
    spread = max(one_way(i, None) for i in bth) - min(one_way(i, None) for i in bth)
    edge = max(i for i in bth if t_a[i] + S < last_b <= t_a[i] + S + spread and t_b[i] < last_b)
    inner = bth[len(bth) // 2]
    lost = {edge, inner}
    kept = [i for i in range(lo, hi) if i not in lost]
    write_pcap(B, linktype, [r for _, _, r in sorted((t_b[i], i, (t_b[i] // 10 ** 9, t_b[i] % 10 ** 9) + recs[i][2:])
                                                      for i in kept)])
    first_b, last_b = min(t_b[i] for i in kept), max(t_b[i] for i in kept)
    d_k = [one_way(i, None) for i in kept if rows[i + 1] is not None]
    rlo, rhi = min(d_k), max(d_k)
    want_only, want_out = set(), [0, 0]
    for i in range(len(recs)):
        if rows[i + 1] is None or i in kept:
            continue
        if t_a[i] + rlo <= first_b:
            want_out[0] += 1
        elif t_a[i] + rhi >= last_b:
            want_out[1] += 1
        else:
            want_only.add((i + 1, rows[i + 1][3]))
    r = compare(A, B)
    ck("spread: the lost packet within the spread of B's end counted outside, the other listed",
       r["rc"] == 1 and r["only"]["A"] == {(inner + 1, rows[inner + 1][3])} == want_only and not r["only"]["B"],
       "%d %r want %r" % (r["rc"], sorted(r["only"]["A"]), sorted(want_only)))
    ck("spread: the counts outside B's window", r["outside"] == {"A": sum(want_out), "B": 0}
       and sum(v[0] for v in r["outside_flow"]["A"].values()) == want_out[0]
       and sum(v[1] for v in r["outside_flow"]["A"].values()) == want_out[1],
       "%r vs %r" % (r["outside"], want_out))

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
    # A stopped capturing at the cut: B's packets after it are outside A's
    # window, not seen at B only.
    ck("cut short: the packets after the cut outside A's window, none seen at one point only",
       r["outside"] == {"A": 0, "B": len(want)} and not r["only"]["B"] and not r["only"]["A"]
       and outside_per_flow(r, "B", 1) == per_flow(rows, [n for n, _ in want]) and not outside_per_flow(r, "B", 0),
       "%r vs %d, only %d/%d" % (r["outside"], len(want), len(r["only"]["A"]), len(r["only"]["B"])))
    ck("cut short: the report says A ended early, at tshark's last frame", r["a_ended"] == n_cut
       and r["b_ended"] is None, "%r vs %d" % (r["a_ended"], n_cut))

    # 4b. Capture windows: B begun later, stopped earlier, or cut short is not
    # a loss. W is the capture of the user's report; expected values from
    # editcap's frame ranges and tshark's BTH packets.
    W = os.path.join(SHARED, "captures", "ib_write_bw_cm.pcap")
    wrows = tshark_rows(W)
    nw = len(wrows)
    late = os.path.join(tmp, "late.pcap")
    subprocess.run(["editcap", "-r", W, late, "300-%d" % nw], check=True, capture_output=True)
    before = per_flow(wrows, range(1, 300))
    r = compare(W, late)
    ck("late B: exit status 0, nothing seen at one point only", r["rc"] == 0 and not r["only"]["A"]
       and not r["only"]["B"], "%d, %d/%d" % (r["rc"], len(r["only"]["A"]), len(r["only"]["B"])))
    ck("late B: tshark's BTH frames 1-299 outside B's window", r["outside"] == {"A": sum(before.values()), "B": 0}
       and sum(before.values()) > 200, "%r vs %d" % (r["outside"], sum(before.values())))
    ck("late B: per half-flow, all before B's first frame", outside_per_flow(r, "A", 0) == before
       and not outside_per_flow(r, "A", 1) and not r["outside_flow"]["B"], "%r vs %r" % (r["outside_flow"], before))
    r = compare(late, W)
    ck("late A (swapped): the same packets outside A's window, exit status 0", r["rc"] == 0
       and r["outside"] == {"A": 0, "B": sum(before.values())} and outside_per_flow(r, "B", 0) == before
       and not r["only"]["A"] and not r["only"]["B"], "%d %r" % (r["rc"], r["outside"]))

    early = os.path.join(tmp, "early.pcap")
    subprocess.run(["editcap", "-r", W, early, "1-250"], check=True, capture_output=True)
    after = per_flow(wrows, range(251, nw + 1))
    r = compare(W, early)
    ck("early B: exit status 0, nothing seen at one point only, tshark's BTH frames 251- after B's last",
       r["rc"] == 0 and not r["only"]["A"] and not r["only"]["B"]
       and r["outside"] == {"A": sum(after.values()), "B": 0} and outside_per_flow(r, "A", 1) == after
       and not outside_per_flow(r, "A", 0), "%d %r vs %r" % (r["rc"], r["outside_flow"], after))

    # A window of W with two frames deleted inside it: those two are lost.
    gone = [201, 351]
    ck("window: the deleted frames are BTH packets (tshark)", all(wrows[n] is not None for n in gone))
    mid = os.path.join(tmp, "mid.pcap")
    subprocess.run(["editcap", "-r", W, mid, "100-200", "202-350", "352-450"], check=True, capture_output=True)
    outside = per_flow(wrows, list(range(1, 100)) + list(range(451, nw + 1)))
    r = compare(W, mid)
    window_text = r["text"]
    ck("window: exit status 1, exactly the two deleted frames seen at A only", r["rc"] == 1
       and r["only"]["A"] == {(n, wrows[n][3]) for n in gone} and not r["only"]["B"],
       "%d %r" % (r["rc"], sorted(r["only"]["A"])))
    ck("window: the frames before 100 and after 450 outside B's window", r["outside"] ==
       {"A": sum(outside.values()), "B": 0} and outside_per_flow(r, "A", 0) == per_flow(wrows, range(1, 100))
       and outside_per_flow(r, "A", 1) == per_flow(wrows, range(451, nw + 1)),
       "%r vs %d" % (r["outside"], sum(outside.values())))

    # B cut short (as a capture killed mid-write): its window ends at its
    # last good frame (tshark's count), and the report says so.
    short = os.path.join(tmp, "short.pcap")
    with open(A, "rb") as f, open(short, "wb") as g:
        g.write(f.read(1500000))
    k = len(subprocess.run(["tshark", "-n", "-r", short, "-T", "fields", "-e", "frame.number"],
                           capture_output=True, text=True).stdout.split())
    after = per_flow(rows, range(k + 1, len(rows) + 1))
    r = compare(A, short)
    ck("short B: exit status 3 (the cut), nothing seen at one point only", r["rc"] == 3 and not r["only"]["A"]
       and not r["only"]["B"], "%d, %d/%d" % (r["rc"], len(r["only"]["A"]), len(r["only"]["B"])))
    ck("short B: tshark's BTH frames after its last outside its window", 0 < k < len(rows)
       and r["outside"] == {"A": sum(after.values()), "B": 0} and outside_per_flow(r, "A", 1) == after,
       "%r vs %d (k %d)" % (r["outside"], sum(after.values()), k))
    ck("short B: the report says B ended early, at tshark's last frame", r["b_ended"] == k and r["a_ended"] is None
       and "truncated" in r["text"], "%r vs %d" % (r["b_ended"], k))

    # No packet in common: the clocks cannot be put together, and the report
    # says that what was seen at one point only may be outside the window.
    r = compare(os.path.join(SHARED, "captures", "udaddy.pcap"), W)
    ck("nothing matched: nothing counted outside, the report says it cannot tell", r["rc"] == 1
       and r["outside"] is None and "cannot be told from one lost" in r["text"].replace("\n", " "),
       r["text"][:600])

    # 5. Notation and width.
    r = compare(A, B)
    heads = re.findall(r"^  (\S+) → (\S+) QP (0x[0-9a-f]+) \(", r["text"], re.M)
    ck("notation: half-flows as src → dst QP 0x%x, tshark's", heads and
       {(s_, d_, int(q, 16)) for s_, d_, q in heads} == {row[:3] for row in rows.values() if row}
       and all(q == "0x%x" % int(q, 16) for _, _, q in heads), "%r" % heads[:4])
    cutr = compare(cut, A)["text"]
    ck("notation: no ASCII arrow, no decimal PSN", " -> " not in r["text"] + cutr + window_text
       and not re.search(r"PSN (?!0x)\d", r["text"] + cutr + window_text) and "PSN 0x" in window_text,
       r["text"][:300])
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
