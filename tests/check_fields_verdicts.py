#!/usr/bin/env python3
"""`rocestat --fields --verdicts` against tshark's decode (make verdicts).

The verdict columns say how frames belong together. Their expected values
are worked out here from tshark's `-T fields` decode of the same captures
and the IBA rules the verdicts follow, never from rocestat's own output:

  * the header columns are those of plain --fields, byte for byte (which
    tests/diff_tshark.py checks against tshark);
  * request PSNs (RC SEND and WRITE streams, IBA 9.7.4): "next" when the PSN
    is the one after the highest seen, "ahead" with the PSNs skipped,
    "duplicate" when seen before (retransmission_of: its newest earlier
    frame), "gap_fill" when behind but never seen;
  * PSN sequence error NAKs (AETH syndrome 011 00000, IBA 9.7.5.2.2): a
    request after one with the PSN the NAK names, or a resent one whose
    earlier sending came before the NAK, names that NAK (nak_frame,
    nak_psn) -- in loss_write_bw, whose NAKs and go-back-N are the facts
    checked by name below;
  * an ACK names the newest request frame with its PSN (response_to, IBA
    9.7.5.1: a response carries its request's PSN);
  * a WRITE or SEND packet names its message's First packet, its 1-based
    index, the payload before it and the message length (RETH DMA length);
    a packet re-sent from the middle of an earlier message (go-back-N)
    gets its place from PSN arithmetic (every packet but a message's last
    carries the path MTU), or none;
  * a CM REP, RTU, REJ or DREP names the message it answers by the
    Communication IDs (IBA 12.6.1): cm_response_to;
  * the first request to a QP with the Starting PSN a REQ or REP announced
    for it names that CM message (start_psn_of).

Exit status 0 when every value matches, 1 otherwise.
"""
import glob
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, ROOT, SHARED, Checks, tshark_fields, need_shared  # noqa: E402

need_shared("check_fields_verdicts")

ck = Checks("check_fields_verdicts")

HEADER_COLS = 49  # 34 header fields, sliced, 5 DCETH, dscp, ecn, udp_sport, cm_message, pause_enable, pause_quanta,
#                   ip_id, ttl, aeth_kind
VERDICT_COLS = ["icrc_verdict", "psn_verdict", "psn_gap", "retransmission_of", "nak_frame", "nak_psn",
                "late_frame", "resend", "resend_after", "resend_wait_ns", "msg_kind", "msg_index", "msg_offset", "msg_total", "msg_first", "msg_read_request",
                "response_to", "dup_ack", "cm_response_to", "start_psn_of", "ulp", "nvme", "nvme_opcode",
                "nvme_fctype", "nvme_cid", "nvme_command_frame", "nvme_latency_ns", "ulp_pdu", "ulp_op", "ulp_tag",
                "ulp_request_frame", "ulp_latency_ns", "ulp_resent", "ulp_failed"]

FIELDS = ["frame.number", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "infiniband.bth.opcode",
          "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.bth.padcnt", "infiniband.reth.dmalen",
          "infiniband.aeth.syndrome", "data.len", "infiniband.mad.attributeid", "infiniband.cm.req",
          "infiniband.cm.req.localqpn", "infiniband.cm.req.startpsn", "infiniband.cm.rep",
          "infiniband.cm.rep.remotecommid", "infiniband.cm.rep.localqpn", "infiniband.cm.rep.startpsn",
          "infiniband.cm.rtu.remotecommid", "infiniband.cm.rej.remotecommid", "infiniband.cm.dreq.localcommid",
          "infiniband.cm.drsp.remotecommid"]

# RC SEND and RDMA WRITE opcodes (IBA 9.2 Table 38), with SEND Last / Only
# with Invalidate (0x16, 0x17), which iSER targets send (samples/rxe_iser*).
SEND_WRITE = set(range(0x00, 0x0C)) | {0x16, 0x17}
FIRST, MIDDLE, LAST = {0x00, 0x06}, {0x01, 0x07}, {0x02, 0x03, 0x08, 0x09, 0x16}
ONLY = {0x04, 0x05, 0x0A, 0x0B, 0x17}
READ_OR_ATOMIC = {0x0C, 0x13, 0x14}
ACK = 0x11
SENT_KEPT = 256                          # RS_VERDICT_SENT: request packets remembered per half-flow


def num(v):
    v = v.split(",")[0] if v else ""
    if v == "":
        return None
    return int(v, 16) if v.startswith("0x") else int(v)


def tshark(path):
    rows = []
    for vals in tshark_fields(path, FIELDS, occurrence="f", disable_protocols=["tftp"]):
        r = dict(zip(FIELDS, vals))
        if r["infiniband.bth.opcode"] == "":
            continue
        r["src"] = r["ip.src"] or r["ipv6.src"]
        r["dst"] = r["ip.dst"] or r["ipv6.dst"]
        for k in FIELDS:
            if k not in ("ip.src", "ip.dst", "ipv6.src", "ipv6.dst"):
                r[k] = num(r[k])
        rows.append(r)
    return rows


def ours(path):
    plain = subprocess.run([ROCESTAT, "--fields", path], capture_output=True, text=True).stdout.splitlines()
    out = subprocess.run([ROCESTAT, "--fields", "--verdicts", path], capture_output=True, text=True)
    lines = out.stdout.splitlines()
    ck("exit status", out.returncode in (0, 1), "%s: %d %s" % (path, out.returncode, out.stderr[:200]))
    ck("header", lines and lines[0].split(",")[HEADER_COLS:] == VERDICT_COLS, "%s: %r" % (path, lines[:1]))
    ck("one line per frame", len(lines) == len(plain), "%s: %d lines, plain --fields %d" % (path, len(lines), len(plain)))
    rows = {}
    for i, line in enumerate(lines[1:], 1):
        cols = line.split(",")
        ck("header columns unchanged", i < len(plain) and ",".join(cols[:HEADER_COLS]) == plain[i],
           "%s line %d" % (path, i + 1))
        rows[int(cols[0])] = dict(zip(VERDICT_COLS, cols[HEADER_COLS:]))
    return rows


def psn_diff(a, b):
    d = (a - b) & 0xFFFFFF
    return d - 0x1000000 if d & 0x800000 else d


def s(v):
    return "" if v is None else str(v)


def expect_requests(rows):
    """Frame -> {column: expected} for RC SEND/WRITE request streams."""
    exp = {}
    streams = {}
    for r in rows:
        op = r["infiniband.bth.opcode"]
        if op in READ_OR_ATOMIC:
            streams.setdefault((r["src"], r["dst"], r["infiniband.bth.destqp"]), {})["skip"] = True
    naks = {}  # (requester, responder) -> (frame, psn) of the newest PSN sequence error NAK
    for r in rows:
        op, psn, fr = r["infiniband.bth.opcode"], r["infiniband.bth.psn"], r["frame.number"]
        syn = r["infiniband.aeth.syndrome"]
        if op == ACK and syn is not None and syn == 0x60:
            naks[(r["dst"], r["src"])] = (fr, psn)
            continue
        if op not in SEND_WRITE:
            continue
        st = streams.setdefault((r["src"], r["dst"], r["infiniband.bth.destqp"]), {})
        if st.get("skip"):
            continue
        sent = st.setdefault("sent", {})      # psn -> (frame, packet count when sent)
        n = st.get("n", 0)
        e = {}
        if "next" not in st:
            e["psn_verdict"], st["next"] = "next", (psn + 1) & 0xFFFFFF
        else:
            d = psn_diff(psn, st["next"])
            if d >= 0:
                e["psn_verdict"] = "next" if d == 0 else "ahead"
                e["psn_gap"] = s(d) if d else ""
                st["next"] = (psn + 1) & 0xFFFFFF
            elif psn in sent:
                e["psn_verdict"] = "duplicate"
                was, at = sent[psn]
                e["retransmission_of"] = s(was) if n - at < SENT_KEPT else ""
            else:
                e["psn_verdict"] = "gap_fill"
        nak = naks.get((r["src"], r["dst"]))
        resent = e.get("retransmission_of") or ""
        if nak and (nak[1] == psn or (resent and nak[0] > int(resent))):
            e["nak_frame"], e["nak_psn"] = s(nak[0]), s(nak[1])
        else:
            e["nak_frame"] = e["nak_psn"] = ""
        sent[psn] = (fr, n)
        st["n"] = n + 1
        exp[fr] = e
    return exp


def expect_acks(rows):
    """An ACK's request: the newest request frame with its PSN, the other way."""
    exp, last = {}, {}
    for r in rows:
        op, psn, fr = r["infiniband.bth.opcode"], r["infiniband.bth.psn"], r["frame.number"]
        if op in SEND_WRITE or op in READ_OR_ATOMIC:
            last[(r["src"], r["dst"], psn)] = fr
        elif op == ACK:
            exp[fr] = {"response_to": s(last.get((r["dst"], r["src"], psn)))}
    return exp


def resent_place(past, key, psn):
    """A packet re-sent from the middle of an earlier message (go-back-N
    after a NAK or a timeout: RXE re-sends from the missing PSN): its
    place from PSN arithmetic, since every packet of a message but its last
    carries the path MTU (IBA 9.7.? / 10.7.?: the First's payload). Only for
    a message whose extent is known: a WRITE's DMA length, or a Last seen."""
    for m in reversed(past.get(key, [])):
        d = psn_diff(psn, m["first_psn"])
        if d <= 0 or m["pmtu"] <= 0:
            continue
        npk = m.get("npackets")
        if npk is None and m["total"]:
            npk = -(-m["total"] // m["pmtu"])
        if npk is not None and d < npk:
            return dict(m, index=d + 1, done=d * m["pmtu"], next=psn, resent=True)
    return None


def expect_messages(rows):
    """A SEND or WRITE packet's place in its message, from the First on."""
    exp, cur, past, newest_next = {}, {}, {}, {}
    for r in rows:
        op, psn, fr = r["infiniband.bth.opcode"], r["infiniband.bth.psn"], r["frame.number"]
        if op not in SEND_WRITE:
            continue
        kind = "send" if op < 0x06 or op in (0x16, 0x17) else "write"
        key = (r["src"], r["dst"], r["infiniband.bth.destqp"], kind)
        payload = (r["data.len"] or 0) - (r["infiniband.bth.padcnt"] or 0)
        newest = newest_next.get(key)
        if newest is None or psn_diff((psn + 1) & 0xFFFFFF, newest) > 0:
            newest_next[key] = (psn + 1) & 0xFFFFFF
        if op in FIRST or op in ONLY:
            total = r["infiniband.reth.dmalen"] if kind == "write" else (payload if op in ONLY else None)
            m = {"first": fr, "index": 1, "done": 0, "total": total, "next": (psn + 1) & 0xFFFFFF,
                 "first_psn": psn, "pmtu": payload}
            past.setdefault(key, []).append(m)
        else:
            m = cur.get(key)
            if m and m["next"] == psn:
                m = dict(m, index=m["index"] + 1)
            else:
                # A packet past a gap (one lost before it) has no known
                # place; one behind the newest PSN is a re-send.
                m = resent_place(past, key, psn) if newest is not None and psn_diff(psn, newest) < 0 else None
                if not m:
                    exp[fr] = {"msg_kind": kind, "msg_index": "", "msg_first": ""}
                    cur.pop(key, None)
                    continue
        exp[fr] = {"msg_kind": kind, "msg_index": s(m["index"]), "msg_offset": s(m["done"]),
                   "msg_first": s(m["first"]), "msg_total": s(m["total"] or None)}
        if m.get("resent"):
            # Placed by PSN arithmetic, or not placed (an earlier message
            # the analysis need not have kept): both are true.
            exp[fr] = {k: (v if k == "msg_kind" else ("", v)) for k, v in exp[fr].items()}
        m["done"] += payload
        m["next"] = (psn + 1) & 0xFFFFFF
        if op in LAST or op in ONLY:
            cur.pop(key, None)
            for pm in past.get(key, []):
                if pm["first"] == m["first"]:
                    pm["npackets"] = m["index"]
        else:
            cur[key] = m
    return exp


def expect_cm(rows):
    """What each CM reply answers, and the requests that start at a Starting PSN."""
    exp, newest, starts = {}, {}, {}
    for r in rows:
        attr, fr = r["infiniband.mad.attributeid"], r["frame.number"]
        if attr is None:
            continue
        answers = None
        if attr == 0x10:
            newest[(r["src"], "REQ", r["infiniband.cm.req"])] = fr
            starts[(r["infiniband.cm.req.localqpn"], r["infiniband.cm.req.startpsn"])] = fr
        elif attr == 0x13:
            answers = newest.get((r["dst"], "REQ", r["infiniband.cm.rep.remotecommid"]))
            newest[(r["src"], "REP", r["infiniband.cm.rep"])] = fr
            starts[(r["infiniband.cm.rep.localqpn"], r["infiniband.cm.rep.startpsn"])] = fr
        elif attr == 0x14:
            answers = newest.get((r["dst"], "REP", r["infiniband.cm.rtu.remotecommid"]))
        elif attr == 0x12:
            rid = r["infiniband.cm.rej.remotecommid"]
            answers = newest.get((r["dst"], "REP", rid)) or newest.get((r["dst"], "REQ", rid))
        elif attr == 0x15:
            newest[(r["src"], "DREQ", r["infiniband.cm.dreq.localcommid"])] = fr
        elif attr == 0x16:
            answers = newest.get((r["dst"], "DREQ", r["infiniband.cm.drsp.remotecommid"]))
        if attr in (0x12, 0x13, 0x14, 0x16):
            exp[fr] = {"cm_response_to": s(answers)}
    seen = set()
    for r in rows:
        op, fr = r["infiniband.bth.opcode"], r["frame.number"]
        if op not in SEND_WRITE and op not in READ_OR_ATOMIC:
            continue
        key = (r["infiniband.bth.destqp"], r["infiniband.bth.psn"])
        if key in starts and key not in seen and starts[key] < fr:
            exp.setdefault(fr, {})["start_psn_of"] = s(starts[key])
        seen.add(key)
    return exp


def compare(path, got, exp, what):
    bad = 0
    for fr, cols in sorted(exp.items()):
        row = got.get(fr)
        for col, want in cols.items():
            ok = row is not None and (row[col] in want if isinstance(want, tuple) else row[col] == want)
            if not ok and bad < 5:
                ck("%s %s" % (what, col), False, "%s frame %d: %r, expected %r" %
                   (os.path.basename(path), fr, row and row[col], want))
            bad += not ok
            if ok:
                ck.checks += 1
    if bad > 5:
        ck("%s" % what, False, "%s: %d more mismatches" % (os.path.basename(path), bad - 5))
    return len(exp)


CAPTURES = sorted(glob.glob(os.path.join(SHARED, "captures", "*.pcap")) + glob.glob(os.path.join(ROOT, "samples", "*.pcap")))
ck("captures found", len(CAPTURES) >= 10, "%d" % len(CAPTURES))
totals = {"requests": 0, "acks": 0, "messages": 0, "cm": 0}
for path in CAPTURES:
    rows, got = tshark(path), ours(path)
    totals["requests"] += compare(path, got, expect_requests(rows), "request")
    # One QP each way between two hosts: an ACK's request is then known
    # from the addresses and the PSN alone.
    qps = {}
    for r in rows:
        qps.setdefault((r["src"], r["dst"]), set()).add(r["infiniband.bth.destqp"])
    if all(len(q - {1}) <= 1 for q in qps.values()):
        totals["acks"] += compare(path, got, expect_acks(rows), "ack")
    totals["messages"] += compare(path, got, expect_messages(rows), "message")
    totals["cm"] += compare(path, got, expect_cm(rows), "cm")

# The facts of loss_write_bw, by name (tshark -Y 'infiniband.aeth.syndrome == 0x60'):
# the responder NAKs PSN 8333992 in frame 223 and the requester goes back to
# it: frame 283 is PSN 8333992 (never seen before: a gap filled), 284 resends
# 8333993 first sent in frame 177, both after the NAK in frame 223.
loss = os.path.join(SHARED, "captures", "loss_write_bw.pcap")
if os.path.exists(loss):
    nak = [r for r in tshark(loss) if r["infiniband.aeth.syndrome"] == 0x60]
    ck("loss_write_bw NAKs", [(r["frame.number"], r["infiniband.bth.psn"]) for r in nak][:1] == [(223, 8333992)],
       "%r" % [(r["frame.number"], r["infiniband.bth.psn"]) for r in nak][:3])
    got = ours(loss)
    ck("loss_write_bw 283", got[283]["psn_verdict"] == "gap_fill" and got[283]["nak_frame"] == "223"
       and got[283]["nak_psn"] == "8333992", "%r" % got.get(283))
    ck("loss_write_bw 284", got[284]["psn_verdict"] == "duplicate" and got[284]["retransmission_of"] == "177"
       and got[284]["nak_frame"] == "223", "%r" % got.get(284))
else:
    ck("loss_write_bw present", False, loss)
for k, n in totals.items():
    ck("frames with expectations: %s" % k, n > 0, "none found")

print("check_fields_verdicts: %d checks, %d failed (%s)" % (ck.checks, ck.failures,
      ", ".join("%d %s" % (n, k) for k, n in totals.items())))
sys.exit(1 if ck.failures else 0)
