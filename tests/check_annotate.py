#!/usr/bin/env python3
"""`rocestat --annotate OUT.pcapng` (make annotate).

What is expected comes from tshark and from a pcap/pcapng reader of this
file's own, never from rocestat's other outputs:

  * tshark reads the output, and `-Y 'frame.comment contains
    "retransmission"'` picks in loss_write_bw (netem 3% loss) exactly the
    request packets that, by tshark's decode, carry a PSN already seen in
    their half-flow (re-sent), or a PSN behind the highest seen and never
    seen before (re-sent, its first sending lost before the capture point);
    each names the newest earlier frame with that PSN, and a comment giving
    the cause "nak" names a frame that tshark decodes as a PSN sequence
    error NAK (AETH syndrome 0x60) of the responder;
  * the NAK frames' comments say "NAK: PSN sequence error (the responder
    expects PSN 0x%06x)" with tshark's PSN of the NAK; a comment naming a
    gap says "(PSN 0x%06x expected, 0x%06x here)" with tshark's PSN of the
    frame after the gap (the notation of the text outputs: man page,
    Notation);
  * the first packet (First or Only) of each SEND and WRITE message says
    "packet 1 of KIND message k ... to QP 0x%x" (tshark's destination QP,
    no leading zeros): k counts, per half-flow and kind, the
    first packets whose PSN tshark shows for the first time; a re-sent one
    keeps the number of its first sending;
  * every frame of several inputs (pcap with microsecond timestamps,
    pcapng, ERF link type, a capture cut to 100 bytes) is in the output in
    order with the same bytes, captured and wire lengths and timestamps
    (the reader below), and tshark's frame.time_epoch and lengths agree;
    each input file's frames sit on an interface of its own link type;
  * every frame cut short by the snapshot length carries a comment saying so.

Exit status 0 when every check passes, 1 otherwise.
"""
import os
import re
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcaprecs import read_pcap  # noqa: E402
from testlib import ROCESTAT, ROOT, SHARED, Checks, tshark_fields, need_shared  # noqa: E402

need_shared("check_annotate")

ck = Checks("check_annotate")
REQUESTS = set(range(0x00, 0x0C))  # RC SEND and RDMA WRITE packets
# RS_VERDICT_SENT (analyzer/analyzer.h): request packets the analyzer remembers
# per half-flow; a re-sent packet sent earlier than that is not named.
SENT_KEPT = 256
ERF = 197


def read_pcapng(path):
    """(interfaces [(linktype, ns per tick)], [(iface, ts_ns, caplen, wirelen, bytes, [comments])])."""
    data = open(path, "rb").read()
    ifaces, recs, off, e = [], [], 0, "<"
    while off + 12 <= len(data):
        if data[off:off + 4] == b"\x0a\x0d\x0d\x0a":
            e = "<" if data[off + 8:off + 12] == b"\x4d\x3c\x2b\x1a" else ">"
            ifaces = []
        btype, blen = struct.unpack(e + "II", data[off:off + 8])
        body = data[off + 8:off + blen - 4]
        if btype == 1:
            linktype = struct.unpack(e + "H", body[:2])[0]
            tick = 1000  # if_tsresol absent: microseconds
            for code, val in options(body[8:], e):
                if code == 9:
                    r = val[0]
                    tick = 10 ** 9 // (10 ** r) if not r & 0x80 else 10 ** 9 // (2 ** (r & 0x7F))
            ifaces.append((linktype, tick))
        elif btype == 6:
            iface, hi, lo, cap, wire = struct.unpack(e + "IIIII", body[:20])
            pkt = body[20:20 + cap]
            comments = [v.decode() for c, v in options(body[20 + (cap + 3) // 4 * 4:], e) if c == 1]
            recs.append((iface, ((hi << 32) | lo) * ifaces[iface][1], cap, wire, pkt, comments))
        off += blen
    return ifaces, recs


def options(b, e):
    out, i = [], 0
    while i + 4 <= len(b):
        code, ln = struct.unpack(e + "HH", b[i:i + 4])
        if code == 0:
            break
        out.append((code, b[i + 4:i + 4 + ln]))
        i += 4 + (ln + 3) // 4 * 4
    return out


def read_any(path):
    """(linktype, [(ts_ns, caplen, wirelen, bytes)]) of a pcap or single-interface pcapng file."""
    if open(path, "rb").read(4) == b"\x0a\x0d\x0d\x0a":
        ifaces, recs = read_pcapng(path)
        return ifaces[0][0], [(r[1], r[2], r[3], r[4]) for r in recs]
    lt, recs, _ = read_pcap(path)
    return lt, [(s * 10 ** 9 + ns, cap, wire, b) for s, ns, cap, wire, b in recs]


def tshark(path, fields, flt=None):
    return [dict(zip(fields, r)) for r in tshark_fields(path, fields, flt, occurrence="f")]


def num(v):
    return int(v, 16) if v.startswith("0x") else int(v)


def annotate(out, *inputs):
    r = subprocess.run([ROCESTAT, "--annotate", out] + list(inputs), capture_output=True, text=True)
    ck("exit status", r.returncode in (0, 1), "%s: %d %s" % (inputs, r.returncode, r.stderr[:300]))
    return r


def check_loss(tmp):
    loss = os.path.join(SHARED, "captures", "loss_write_bw.pcap")
    if not ck("loss_write_bw present", os.path.exists(loss), loss):
        return
    out = os.path.join(tmp, "loss.pcapng")
    annotate(out, loss)
    rows = tshark(loss, ["frame.number", "ip.src", "ip.dst", "infiniband.bth.opcode", "infiniband.bth.destqp",
                         "infiniband.bth.psn", "infiniband.aeth.syndrome"])
    resent, filled, naks, newest = {}, set(), set(), {}
    highest, count, forgotten = {}, {}, set()
    for r in rows:
        if r["infiniband.bth.opcode"] == "":
            continue
        op, fr = num(r["infiniband.bth.opcode"]), int(r["frame.number"])
        if op == 0x11 and r["infiniband.aeth.syndrome"] and num(r["infiniband.aeth.syndrome"]) == 0x60:
            naks.add(fr)
        if op not in REQUESTS:
            continue
        key = (r["ip.src"], r["ip.dst"], num(r["infiniband.bth.destqp"]))
        psn = num(r["infiniband.bth.psn"])
        seen = newest.setdefault(key, {})
        n = count.get(key, 0)
        count[key] = n + 1
        if psn in seen:
            resent[fr] = seen[psn][0]
            if n - seen[psn][1] >= SENT_KEPT:
                forgotten.add(fr)
        elif key in highest and 0 < (highest[key] - psn) & 0xFFFFFF < 0x800000:
            filled.add(fr)
        if key not in highest or 0 < (psn - highest[key]) & 0xFFFFFF < 0x800000:
            highest[key] = psn
        seen[psn] = (fr, n)
    got = {int(r["frame.number"]): r["frame.comment"]
           for r in tshark(out, ["frame.number", "frame.comment"], 'frame.comment contains "retransmission"')}
    want = set(resent) | filled
    ck("loss: retransmitted frames found by tshark", len(resent) > 100, "%d" % len(resent))
    ck("loss: every re-sent frame carries a retransmission comment", not (want - set(got)),
       "missing %s" % sorted(want - set(got))[:10])
    ck("loss: no other frame does", not (set(got) - want), "extra %s" % sorted(set(got) - want)[:10])
    wrong_of, wrong_nak, causes = [], [], {}
    for fr, c in got.items():
        m = re.search(r"retransmission of frame (\d+)", c)
        if fr in resent and fr not in forgotten and (not m or int(m.group(1)) != resent[fr]):
            wrong_of.append((fr, c))
        cause = re.search(r"cause: (\w+)", c)
        causes[cause.group(1) if cause else None] = causes.get(cause.group(1) if cause else None, 0) + 1
        n = re.search(r"cause: nak \(go-back-N after the NAK in frame (\d+)", c)
        if n and int(n.group(1)) not in naks:
            wrong_nak.append((fr, c))
    ck("loss: each names the newest earlier frame with its PSN", not wrong_of, "%r" % wrong_of[:3])
    ck("loss: re-sent frames named (within the packets remembered)", len(resent) - len(forgotten) > 100,
       "%d" % (len(resent) - len(forgotten)))
    ck("loss: a nak cause names a tshark PSN sequence error NAK", not wrong_nak, "%r" % wrong_nak[:3])
    ck("loss: every one has a cause", None not in causes and causes.get("nak", 0) > 0, "%r" % causes)
    check_message_numbers(out, rows, count)
    nak_comments = {int(r["frame.number"]) for r in tshark(out, ["frame.number"],
                                                            'frame.comment contains "NAK: PSN sequence error"')}
    ck("loss: the NAKs say so", nak_comments == naks and naks, "%r vs %r" % (sorted(nak_comments), sorted(naks)))
    psn_of = {int(r["frame.number"]): num(r["infiniband.bth.psn"]) for r in rows if r["infiniband.bth.psn"]}
    comments = {int(r["frame.number"]): r["frame.comment"] for r in tshark(out, ["frame.number", "frame.comment"])}
    wrong = [(fr, comments.get(fr)) for fr in naks
             if "(the responder expects PSN 0x%06x)" % psn_of[fr] not in comments.get(fr, "")]
    ck("loss: the NAKs name tshark's PSN, 0x%06x", not wrong, "%r" % wrong[:3])
    gaps = {fr: c for fr, c in comments.items() if "gap before" in c}
    wrong = [(fr, c) for fr, c in gaps.items()
             if not re.search(r"\(PSN 0x[0-9a-f]{6} expected, 0x%06x here\)" % psn_of.get(fr, -1), c)]
    ck("loss: the gaps name tshark's PSN, 0x%06x", gaps and not wrong, "%d gaps; %r" % (len(gaps), wrong[:3]))
    ck("loss: no decimal PSN in a comment", not [c for c in comments.values() if re.search(r"PSN (?!0x)\d", c)])
    print("check_annotate: loss_write_bw: %d frames re-sent (%d seen before, %d first sighting), causes %r, %d NAKs"
          % (len(want), len(resent), len(filled), causes, len(naks)))


FIRST_OR_ONLY = {0x00: "SEND", 0x04: "SEND", 0x05: "SEND", 0x06: "WRITE", 0x0A: "WRITE", 0x0B: "WRITE"}


def check_message_numbers(out, rows, count):
    comments = {int(r["frame.number"]): r["frame.comment"] for r in tshark(out, ["frame.number", "frame.comment"])}
    numbered, seen, n, kept = {}, {}, {}, {}
    for r in rows:
        if r["infiniband.bth.opcode"] == "" or num(r["infiniband.bth.opcode"]) not in REQUESTS:
            continue
        op, fr = num(r["infiniband.bth.opcode"]), int(r["frame.number"])
        key = (r["ip.src"], r["ip.dst"], num(r["infiniband.bth.destqp"]))
        psn = num(r["infiniband.bth.psn"])
        k = kept.setdefault(key, 0)
        kept[key] = k + 1
        first = seen.setdefault(key, {})
        if op in FIRST_OR_ONLY:
            kind = FIRST_OR_ONLY[op]
            if psn in first:
                was_no, at = first[psn]
                numbered[fr] = (kind, was_no if k - at < SENT_KEPT else None)
            else:
                n[key + (kind,)] = n.get(key + (kind,), 0) + 1
                numbered[fr] = (kind, n[key + (kind,)])
        if psn not in first:
            first[psn] = (numbered.get(fr, (None, None))[1], k)
    wrong, qp_wrong = [], []
    qp_of = {int(r["frame.number"]): num(r["infiniband.bth.destqp"]) for r in rows if r["infiniband.bth.destqp"]}
    for fr, (kind, no) in numbered.items():
        m = re.search(r"packet 1 of (\w+) message (\d+) ", comments.get(fr, ""))
        if no is not None and (not m or m.group(1) != kind or int(m.group(2)) != no):
            wrong.append((fr, kind, no, comments.get(fr)))
        q = re.search(r"packet 1 of \w+ message[^;]* to QP (0x[0-9a-f]+)", comments.get(fr, ""))
        if not q or q.group(1) != "0x%x" % qp_of[fr]:
            qp_wrong.append((fr, comments.get(fr)))
    ck("loss: message numbers of first packets", len(numbered) > 400 and not wrong,
       "%d numbered; %r" % (len(numbered), wrong[:3]))
    ck("loss: first packets name tshark's destination QP, 0x%x", numbered and not qp_wrong, "%r" % qp_wrong[:3])


def check_bytes(tmp):
    caps = os.path.join(SHARED, "captures")
    ib2 = os.path.join(SHARED, "hw-captures", "magnate3__linux-riscv-dev__ib2.pcap")
    ng = os.path.join(tmp, "rping.pcapng")
    cut = os.path.join(tmp, "cut.pcap")
    subprocess.run(["editcap", "-F", "pcapng", os.path.join(caps, "rping_s64.pcap"), ng], check=True,
                   capture_output=True)
    subprocess.run(["editcap", "-s", "100", os.path.join(caps, "ib_write_bw_cm.pcap"), cut], check=True,
                   capture_output=True)
    inputs = [os.path.join(caps, "loss_write_bw.pcap"), ng, ib2, cut, os.path.join(caps, "ipv6_rping.pcap")]
    inputs = [p for p in inputs if ck("input present", os.path.exists(p), p)]
    out = os.path.join(tmp, "many.pcapng")
    annotate(out, *inputs)
    ifaces, recs = read_pcapng(out)
    ck("one interface per input", len(ifaces) == len(inputs), "%d for %d" % (len(ifaces), len(inputs)))
    at, total = 0, 0
    for i, p in enumerate(inputs):
        lt, want = read_any(p)
        got = [r for r in recs if r[0] == i]
        ck("link type of %s" % os.path.basename(p), i < len(ifaces) and ifaces[i][0] == lt,
           "%r vs %d" % (ifaces[i] if i < len(ifaces) else None, lt))
        ck("frames of %s" % os.path.basename(p), len(got) == len(want), "%d vs %d" % (len(got), len(want)))
        # ERF records carry their own nanosecond time, which the output
        # keeps (tshark shows it for both, checked below); the pcap record's
        # microseconds are that time cut.
        bad = [k + 1 for k, (w, g) in enumerate(zip(want, got))
               if w[1:] != g[2:5] or (w[0] != g[1] if lt != ERF else w[0] != g[1] // 1000 * 1000)]
        ck("bytes, lengths and timestamps of %s" % os.path.basename(p), not bad, "frames %s" % bad[:10])
        ck("frames of %s in order, together" % os.path.basename(p), recs[at:at + len(want)] == got)
        at += len(want)
        total += len(want)
    ck("nothing else", len(recs) == total, "%d vs %d" % (len(recs), total))
    # tshark's view of the same: time, lengths, frame by frame.
    f = ["frame.time_epoch", "frame.len", "frame.cap_len"]
    want = [r for p in inputs for r in tshark(p, f)]
    got = tshark(out, f)
    ck("tshark: times and lengths", want == got and len(got) == total,
       "%d vs %d rows, first difference %r" % (len(want), len(got),
                                               next(((a, b) for a, b in zip(want, got) if a != b), None)))
    # The frames the snapshot length cut (tshark: cap_len < len) say so.
    cutrows = tshark(out, ["frame.number", "frame.len", "frame.cap_len", "frame.comment", "frame.interface_id"])
    short = [r for r in cutrows if int(r["frame.cap_len"]) < int(r["frame.len"])]
    unsaid = [r["frame.number"] for r in short if "sliced" not in r["frame.comment"] and
              "not captured" not in r["frame.comment"]]
    ck("cut frames found", len(short) > 100, "%d" % len(short))
    ck("every cut frame's comment says so", not unsaid, "frames %s" % unsaid[:10])


def check_read_responses(tmp):
    """Each READ response (IBA 9.4.4.4: the answer to an RDMA READ request)
    names the request tshark ties it to once: 'answers the READ request in
    frame N', and no second, generic 'answers the request in frame N'."""
    cap = os.path.join(ROOT, "samples", "rxe_read.pcap")
    out = os.path.join(tmp, "read.pcapng")
    annotate(out, cap)
    rows = tshark(out, ["frame.number", "infiniband.bth.opcode", "frame.comment"])
    reads = [r for r in rows if num(r["infiniband.bth.opcode"]) in (0x0D, 0x0E, 0x0F, 0x10)]
    ck("read responses found", len(reads) > 0, str(len(reads)))
    twice = [r["frame.number"] for r in reads if re.search(r"answers the READ request in frame (\d+);.*"
                                                           r"answers the request in frame \1\b", r["frame.comment"])]
    named = [r for r in reads if "answers the READ request in frame" in r["frame.comment"]]
    ck("read responses name their request once", named and not twice, "twice in frames %s" % twice[:5])


with tempfile.TemporaryDirectory() as tmp:
    check_loss(tmp)
    check_bytes(tmp)
    check_read_responses(tmp)
    bad = subprocess.run([ROCESTAT, "--annotate", os.path.join(tmp, "x.pcap"),
                          os.path.join(SHARED, "captures", "rping_s64.pcap")], capture_output=True, text=True)
    ck("a pcap output name is refused", bad.returncode == 2 and "pcapng" in bad.stderr, bad.stderr)

print("check_annotate: %d checks, %d failed" % (ck.checks, ck.failures))
sys.exit(1 if ck.failures else 0)
