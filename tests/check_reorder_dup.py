#!/usr/bin/env python3
"""check_reorder_dup.py: network duplicates and reordering made on purpose.

Every request frame the requester put on the wire once (RoCE v2 over IPv4,
from the real Soft-RoCE captures in ../shared/captures) is copied right
after itself with some probability (what `netem duplicate` does), or moved
one to three request frames later (what `netem reorder` does, within a
burst of requests: never past a response). The script knows what it did,
so it knows what rocestat must say:

  - duplicates: capture.request_psns.network_duplicates equals the frames
    it copied; each copy has the same IP ID and bytes as its original.
  - reordering: out_of_order (summed over the request streams) equals the
    frames it moved, each a late first sighting whose IP ID is older than
    the frames it was moved behind (a moved frame that was itself a re-send
    of a PSN seen before is a late re-send, and counted apart).
  - IPv6 (no IP ID): copies 1 us after their original are copies; 20 us
    after, the file cannot tell them from re-sends: never called copies.
  - both: nothing the requester did changed, so every QP's messages by
    kind, message bytes, payload bytes, re-sent packets and their causes
    equal those of the untouched capture; with duplicates only, the number
    of latency samples too (a copy is not a re-send: Karn's rule keeps it).
"""
import csv
import io
import json
import os
import random
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcaprecs import read_pcap, write_pcap  # noqa: E402
from testlib import ROCESTAT, SHARED, Checks, need_shared  # noqa: E402

need_shared("check_reorder_dup")

check = Checks("check_reorder_dup")
CAPTURES = ["ib_write_bw_cm", "ib_send_bw_cm", "ib_read_bw_cm", "rping_s5000", "rping_s64", "ib_atomic_cas",
            "ib_write_lat", "rc_pingpong", "loss_write_bw", "uc_write_bw"]
MASK = (1 << 24) - 1
# Captures whose requesters go back N after NAKs (3 % netem loss).
GO_BACK_N = {"loss_write_bw"}


def bth(b):
    """(src, dst, opcode, destqp, psn) of a RoCE v2 / IPv4 frame, or None."""
    if len(b) < 14 + 20 + 8 + 12 or b[12:14] != b"\x08\x00":
        return None
    ihl = (b[14] & 15) * 4
    if b[23] != 17 or struct.unpack(">H", b[14 + ihl + 2:14 + ihl + 4])[0] != 4791:
        return None
    o = 14 + ihl + 8
    return (b[26:30], b[30:34], b[o], struct.unpack(">I", b[o + 4:o + 8])[0] & MASK,
            struct.unpack(">I", b[o + 8:o + 12])[0] & MASK)


def span(b):
    """PSNs a request takes: a READ request one per response packet
    (ceil(DMA length / path MTU); every capture here has a path MTU of
    1024, samples/README.md), any other request one."""
    h = bth(b)
    if h is None or h[2] & 0x1F != 0x0C:
        return 1
    ihl = (b[14] & 15) * 4
    reth = 14 + ihl + 8 + 12
    dmalen = struct.unpack(">I", b[reth + 12:reth + 16])[0]
    return max(1, -(-dmalen // 1024))


def is_request(h):
    # IBA Table 38: responses are opcodes 0x0D-0x12 of RC; UD and CNPs are not streams
    return h is not None and h[2] < 0x60 and (h[2] & 0x1F) not in range(0x0D, 0x13)


def duplicate(recs, p, rng):
    """The records with copies added, and the frame numbers of the copies."""
    out, copies = [], []
    for r in recs:
        out.append(r)
        if is_request(bth(r[4])) and rng.random() < p:
            ns = r[1] + 1000
            out.append((r[0] + ns // 10**9, ns % 10**9, r[2], r[3], r[4]))
            copies.append(len(out))
    return out, copies


def reorder(recs, p, rng):
    """Moves request frames later within runs of consecutive requests; how
    many of the moved frames were first sightings of their PSN."""
    res = list(recs)
    idx = [i for i, r in enumerate(res) if is_request(bth(r[4]))]
    moved_first = moved_resent = 0
    late = []  # frame numbers the late first sendings end up at
    k = 0
    while k < len(idx) - 4:
        j = k + rng.randint(1, 3)
        while j > k and idx[j] - idx[k] != j - k:
            j -= 1
        if j == k or rng.random() >= p:
            k += 1
            continue
        # A first sending is a PSN ahead of every one its stream sent before
        # (in the untouched order: the moves only ever delay a frame)
        h = bth(res[idx[k]][4])
        key = (h[0], h[1], h[3])
        earlier = [e for e in (bth(res[idx[m]][4]) for m in range(k)) if (e[0], e[1], e[3]) == key]
        # ... unless moved behind a re-send of its own PSN: then the re-send
        # is seen first, and the two sendings cannot be told apart by order
        passed = [bth(res[idx[m]][4]) for m in range(k + 1, j + 1)]
        overtaken = any((e[0], e[1], e[3]) == key and e[4] == h[4] for e in passed)
        ahead = any((e[0], e[1], e[3]) == key and 0 < ((e[4] - h[4]) & MASK) < 1 << 23 for e in passed)
        if overtaken or not ahead:
            pass  # not behind a later PSN of its own stream: still in order there
        elif not earlier or all(0 < ((h[4] - e[4]) & MASK) < 1 << 23 for e in earlier):
            moved_first += 1
            late.append(idx[j] + 1)
        else:
            moved_resent += 1
        seq = [res[idx[m]] for m in range(k + 1, j + 1)] + [res[idx[k]]]
        for m, r in zip(range(k, j + 1), seq):
            res[idx[m]] = r
        k = j + 1
    # timestamps keep their slots: the capture point saw them in this order
    return [(t[0], t[1], r[2], r[3], r[4]) for t, r in zip(recs, res)], moved_first, moved_resent, late


def report(path):
    out = subprocess.run([ROCESTAT, "--format", "json", path], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise RuntimeError("%s: rocestat exit %d: %s" % (path, out.returncode, out.stderr))
    return json.loads(out.stdout)


def resend_verdicts(path):
    """frame -> the `resend` verdict column of --fields --verdicts."""
    out = subprocess.run([ROCESTAT, "--fields", "--verdicts", path], capture_output=True, text=True)
    rows = csv.DictReader(io.StringIO(out.stdout))
    return {int(r["frame"]): r["resend"] for r in rows}


def per_qp(doc, samples):
    q = {}
    for x in doc["qps"]:
        k = (x["src"], x["dst"], x["dest_qp"])
        v = {"messages": x["messages"], "message_bytes": x["message_bytes"], "payload": x["payload_bytes"]}
        if x["request_psn"]:
            v["retransmitted"] = x["request_psn"]["retransmitted"]
            v["by_cause"] = x["request_psn"]["resent_by_cause"]
        if samples and x["latency_ns"]:
            v["samples"] = {k2: (s or {}).get("count", 0) for k2, s in x["latency_ns"].items()
                            if k2 in ("ack", "read_first_response", "read_last_response", "atomic")}
        q[k] = v
    return q


def main():
    tmp = tempfile.mkdtemp(prefix="reorder_dup.")
    for name in CAPTURES:
        path = os.path.join(SHARED, "captures", name + ".pcap")
        if not check("%s exists" % name, os.path.exists(path), path):
            continue
        lt, recs, _ = read_pcap(path)
        base = report(path)
        for seed in range(3):
            rng = random.Random(seed * 7919 + len(name))
            dup, copies = duplicate(recs, 0.15, rng)
            copied = len(copies)
            f = os.path.join(tmp, "%s_dup%d.pcap" % (name, seed))
            write_pcap(f, lt, dup)
            d = report(f)
            tag = "%s +%d copies (seed %d)" % (name, copied, seed)
            check(tag + ": network_duplicates", d["capture"]["request_psns"]["network_duplicates"] == copied,
                  "rocestat %d, expected %d" % (d["capture"]["request_psns"]["network_duplicates"], copied))
            v = resend_verdicts(f)
            marked = sorted(k for k, x in v.items() if x == "network_copy")
            check(tag + ": the frames --verdicts calls network copies", marked == copies,
                  "marked %s, copies %s" % (marked[:8], copies[:8]))
            want, got = per_qp(base, True), per_qp(d, True)
            for k in want:
                check("%s: %s QP %d unchanged" % (tag, k[0], k[2]), want[k] == got.get(k),
                      "expected %s, rocestat %s" % (want[k], got.get(k)))

            ro, first, resent, late_frames = reorder(recs, 0.3, rng)
            f = os.path.join(tmp, "%s_reorder%d.pcap" % (name, seed))
            write_pcap(f, lt, ro)
            r = report(f)
            tag = "%s, %d frames moved later (seed %d)" % (name, first + resent, seed)
            late = sum(x["request_psn"]["out_of_order"] - base_ooo(base, x)
                       for x in r["qps"] if x["request_psn"])
            check(tag + ": late first sightings", late == first, "rocestat %d, expected %d" % (late, first))
            if name not in GO_BACK_N:
                # how far behind its stream's newest PSN each late one came
                want_behind = {}
                for k in late_frames:
                    h = bth(ro[k - 1][4])
                    key = (h[0], h[1], h[3])
                    # (a READ request takes a PSN per response packet it asks for)
                    newer = [((e[4] + span(x[4]) - 1 - h[4]) & MASK) for x in ro[:k - 1] for e in [bth(x[4])]
                             if is_request(e) and (e[0], e[1], e[3]) == key and 0 < ((e[4] - h[4]) & MASK) < 1 << 23]
                    want_behind[key] = max(want_behind.get(key, 0), max(newer, default=0))
                got_behind = max((x["request_psn"]["late_by_psns_max"] for x in r["qps"] if x["request_psn"]),
                                 default=0)
                check(tag + ": late by up to N PSNs", got_behind == max(want_behind.values(), default=0),
                      "rocestat %d, expected %d" % (got_behind, max(want_behind.values(), default=0)))
            v = resend_verdicts(f)
            wrong = [k for k in late_frames if v.get(k) != "late"]
            check(tag + ": --verdicts calls the moved first sendings late", not wrong,
                  "frames %s: %s" % (wrong[:8], [v.get(k) for k in wrong[:8]]))
            want, got = per_qp(base, False), per_qp(r, False)
            for k in want:
                w, g = dict(want[k]), dict(got.get(k) or {})
                if name in GO_BACK_N and "retransmitted" in w:
                    # Known limit: reordering of a lossy link's re-sends can
                    # move the packet count by a few in a thousand (which of
                    # two sendings of a PSN was the late one). The causes are
                    # those of the runs in the sender's order (IP IDs): none
                    # the untouched capture did not have.
                    rw, rg = w.pop("retransmitted"), g.pop("retransmitted", 0)
                    w_by, g_by = w.pop("by_cause"), g.pop("by_cause", None)
                    check("%s: %s QP %d re-sent packets within 0.5%%" % (tag, k[0], k[2]),
                          abs(rw - rg) <= rw * 0.005, "expected %d, rocestat %d" % (rw, rg))
                    extra = [c for c in w_by if not w_by[c] and (g_by or {}).get(c)]
                    check("%s: %s QP %d no re-send given a cause the original lacks" % (tag, k[0], k[2]),
                          not extra, "expected %s, rocestat %s" % (w_by, g_by))
                check("%s: %s QP %d unchanged" % (tag, k[0], k[2]), w == g, "expected %s, rocestat %s" % (w, g))
    ipv6_copies(tmp)
    print("check_reorder_dup: %d checks, %d failed" % (check.checks, check.failures))
    return 1 if check.failures else 0


def bth6(b):
    """(src, dst, opcode, destqp, psn) of a RoCE v2 / IPv6 frame, or None."""
    if len(b) < 14 + 40 + 8 + 12 or b[12:14] != b"\x86\xdd" or b[20] != 17:
        return None
    if struct.unpack(">H", b[54 + 2:54 + 4])[0] != 4791:
        return None
    o = 14 + 40 + 8
    return (b[22:38], b[38:54], b[o], struct.unpack(">I", b[o + 4:o + 8])[0] & MASK,
            struct.unpack(">I", b[o + 8:o + 12])[0] & MASK)


def copy_after(recs, p, rng, delay_ns):
    """Copies of IPv6 request frames, delay_ns after their original (only
    where the next frame comes later still, so the order stays)."""
    out, copies = [], []
    for i, r in enumerate(recs):
        out.append(r)
        t = r[0] * 10**9 + r[1]
        nxt = recs[i + 1][0] * 10**9 + recs[i + 1][1] if i + 1 < len(recs) else t + 2 * delay_ns
        if is_request(bth6(r[4])) and nxt > t + delay_ns and rng.random() < p:
            t += delay_ns
            out.append((t // 10**9, t % 10**9, r[2], r[3], r[4]))
            copies.append(len(out))
    return out, copies


def ipv6_copies(tmp):
    """Without an IP ID a copy the network made has the bytes of a re-send;
    only timing tells them apart (man page, HOW ROCESTAT DECIDES): the same
    bytes right after the original, sooner than the shortest timer
    (4.096 us x 2^1) lets a requester re-send, is a copy (netem duplicate
    puts it there, the capture of samples/impair/dup_write shows 0.5-2.4 us);
    the same bytes 20 us later could be either, and is never called a copy."""
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(SHARED, "captures", "ipv6_rping.pcap"),
                 os.path.join(here, "..", "samples", "rxe_send_ipv6.pcap")):
        name = os.path.basename(path)[:-5]
        if not check("%s exists" % name, os.path.exists(path), path):
            continue
        lt, recs, _ = read_pcap(path)
        base = report(path)
        for delay, is_copy in ((1000, True), (20000, False)):
            rng = random.Random(len(name) + delay)
            dup, copies = copy_after(recs, 0.3 if len(recs) > 100 else 1.0, rng, delay)
            f = os.path.join(tmp, "%s_copy%d.pcap" % (name, delay))
            write_pcap(f, lt, dup)
            d = report(f)
            tag = "%s, IPv6, %d copies %d ns after their original" % (name, len(copies), delay)
            check(tag + ": some copies made", len(copies) > 0, "none")
            got = d["capture"]["request_psns"]["network_duplicates"]
            want = len(copies) if is_copy else 0
            check(tag + ": network_duplicates", got == want, "rocestat %d, expected %d" % (got, want))
            v = resend_verdicts(f)
            marked = sorted(k for k, x in v.items() if x == "network_copy")
            check(tag + ": the frames --verdicts calls network copies", marked == (copies if is_copy else []),
                  "marked %s, copies %s" % (marked[:8], copies[:8]))
            ev = sorted({a["details"].get("evidence") for a in d["anomalies"] if a["type"] == "network_duplicate"})
            check(tag + ": the evidence named", ev == (["same_bytes_sooner_than_any_timer"] if is_copy else []),
                  "rocestat %s" % ev)
            if is_copy:
                want_q, got_q = per_qp(base, True), per_qp(d, True)
                for k in want_q:
                    check("%s: %s QP %d unchanged" % (tag, k[0], k[2]), want_q[k] == got_q.get(k),
                          "expected %s, rocestat %s" % (want_q[k], got_q.get(k)))


def base_ooo(base, x):
    """Out-of-order packets the untouched capture already had on this QP."""
    for y in base["qps"]:
        if (y["src"], y["dst"], y["dest_qp"]) == (x["src"], x["dst"], x["dest_qp"]) and y["request_psn"]:
            return y["request_psn"]["out_of_order"]
    return 0


if __name__ == "__main__":
    sys.exit(main())
