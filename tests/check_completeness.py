#!/usr/bin/env python3
"""Capture completeness: a PSN the capture missed is never called lost.

Hardware sniffers drop packets under load and say nothing; the responder's
acknowledgements tell a capture drop from a network loss. The expected values
come from tshark's decode of the same bytes, classified here by the rules of
IBA vol 1 9.7.5 (cumulative ACKs; a PSN sequence error NAK names the PSN the
responder did not receive):

- a request PSN skipped by the stream and never seen is "not captured" when an
  ACK (or the implicit ACK of a NAK) of the paired responder covers it and no
  sequence error NAK named it; "lost (re-send not captured)" when a NAK named
  it; "undetermined" when nothing covers it;
- a skipped PSN seen later is a retransmission filling the gap, or, a single
  late packet between in-order ones, reordering.

1. Every RC capture among ../shared/hw-captures and ../shared/captures: the
   capture-wide request_psns object equals the oracle, and the text never says
   "lost" when the oracle finds no loss.
2. Capture drops made here: 5% of the request frames of the Soft-RoCE send and
   write captures deleted at random (seeded; the ACKs kept), the way ibdump
   drops them: the counts equal the oracle on the dropped file, and no more
   PSNs are called lost than the original's responder NAKed.
3. loss_write_bw with every copy of each PSN its responder NAKed deleted
   (the packets the responder never accepted, and their re-sends, missed by
   the capture): each of the 22 is lost, by its NAK, and nothing else is.
4. Messages stay exact under capture drops: the messages seen plus those
   the responders' ACK MSNs say the capture missed whole
   (request_psns.messages_not_captured) equal the original's messages,
   counted by tshark (first sightings of First/Only request opcodes) or by
   the sample's truth file (its work requests), on the dropped files of 2
   and on the samples (seeds 0-5, those that drop a frame). On ib_write_lat
   the count may fall short (5% drops: a drop before the first ACK that can
   be reckoned) but never exceeds. ib_send_bw_cm and ib_write_bw_cm (ACKs
   lag the requests) with 30% and 60% of their request frames deleted
   (seeds 0-3): the original's messages less those dropped whole that no
   ACK can count (ending at or before the first ACK after the stream's
   first kept request frame, or after its last ACK), exactly. The hardware
   captures rc-small (18: its two last WRITEs were not captured), rocev1
   and rocev2_test: what msn_oracle() says, the MSN's advance from each
   stream's first ACK to its last plus the messages its packets show that
   ended before the first or after the last (a range where one may have
   ended on either side of an ACK).

    ROCESTAT=./rocestat python3 tests/check_completeness.py
Exit status 0 when every check holds, 1 otherwise.
"""
import glob
import json
import os
import random
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcaprecs import read_pcap, write_pcap  # noqa: E402
from testlib import ROCESTAT, SHARED, Checks, tshark_fields, need_shared  # noqa: E402

need_shared("check_completeness")

FIELDS = ["ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "infiniband.grh.sgid", "infiniband.grh.dgid",
          "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.aeth.syndrome",
          "infiniband.cm.req.localqpn", "infiniband.cm.req.startpsn",
          "infiniband.cm.rep.localqpn", "infiniband.cm.rep.startpsn"]
# A stream whose first packets came late (or were not captured) starts at
# the Starting PSN its CM exchange announced, if its first captured PSN is
# at most this far ahead of it (reordering, not another PSN space).
START_LATE = 64
MASK = (1 << 24) - 1
# RC response opcodes (IBA Table 38): READ responses, ACK, atomic ACK.
RESPONSES = set(range(0x0D, 0x13))
READ_REQ = 0x0C

check = Checks("check_completeness")


def diff(a, b):
    """a - b for 24-bit PSNs, signed."""
    d = (a - b) & MASK
    return d - (1 << 24) if d >= 1 << 23 else d


def first(v):
    return v.split(",")[0] if v else ""


def tshark_frames(path):
    frames = []
    for v in tshark_fields(path, FIELDS, occurrence="f", disable_protocols=["tftp"]):
        if not v[6] or not v[8]:
            continue
        src = v[0] or v[2] or v[4]
        dst = v[1] or v[3] or v[5]
        syn = int(first(v[9]), 0) if v[9] else None
        # CM: the Starting PSN a REQ announces is that of the stream to the
        # client's QP (its Local QPN), a REP's that of the stream to the
        # server's QP, as rdma_cm sets them up (and every rdma_cm capture
        # here starts so).
        cm = None
        if v[10] and v[11]:
            cm = (dst, src, int(v[10], 0), int(v[11], 0))
        elif v[12] and v[13]:
            cm = (dst, src, int(v[12], 0), int(v[13], 0))
        frames.append((src, dst, int(v[6], 0), int(v[7], 0), int(v[8], 0), syn, cm))
    return frames


class Stream:
    """One request stream, and what its responder's AETHs said of it."""

    def __init__(self, psn):
        self.first = psn
        self.next = psn
        self.range = 0
        self.missing = set()
        self.skipped = self.fills = self.ooo = self.naked_fills = 0
        self.not_captured = self.unseen_lost = 0
        self.run = []       # the current run of packets behind the expected PSN: (was a fill, NAK named it)
        self.covered = None  # every PSN up to this one reached the responder
        self.named = None    # the PSN the newest sequence error NAK named, while missing here

    def end_run(self):
        if len(self.run) == 1 and self.run[0] == (True, False):
            self.ooo += 1
        self.run = []

    def settle(self, upto):
        """PSNs before upto reached the responder."""
        last = (upto - 1) & MASK
        if self.covered is None or diff(last, self.covered) > 0:
            self.covered = last
        for p in [p for p in self.missing if diff(p, upto) < 0]:
            self.missing.discard(p)
            if p == self.named:
                self.unseen_lost += 1
            else:
                self.not_captured += 1

    def request(self, psn):
        d = diff(psn, self.next)
        if d >= 0:
            self.end_run()
            for k in range(d):
                self.missing.add((self.next + k) & MASK)
            self.skipped += d
            self.range += d + 1
            self.next = (psn + 1) & MASK
            if d and self.covered is not None:
                self.settle((self.covered + 1) & MASK)
        else:
            fill = psn in self.missing
            naked = fill and psn == self.named
            if fill:
                self.missing.discard(psn)
                self.fills += 1
                self.naked_fills += naked
            self.run.append((fill, naked))

    def aeth(self, psn, syn):
        kind, value = syn >> 5, syn & 0x1F
        if kind == 0:
            self.settle((psn + 1) & MASK)
        elif kind == 1:
            self.settle(psn)
        elif kind == 3:
            if value == 0:
                self.settle(psn)
                if psn in self.missing:
                    self.named = psn
            else:
                self.settle((psn + 1) & MASK)


def oracle(frames):
    """The capture-wide request_psns object for RC, UC and DC traffic, or None if
    it holds a READ (whose PSN advance needs the path MTU)."""
    streams = {}
    starts = {}
    for src, dst, op, qp, psn, syn, cm in frames:
        if cm:
            # (sender of the stream, its receiver, the receiver's QP) -> start
            starts[(cm[0], cm[1], cm[2])] = cm[3]
        if op >= 0x60:  # RC, UC and the RD opcode range (NVIDIA DC); UD is not a stream
            continue
        op &= 0x1F
        if op == READ_REQ:
            return None
        if op not in RESPONSES:
            if (src, dst, qp) not in streams:
                start = starts.get((src, dst, qp))
                late = start is not None and 0 < diff(psn, start) <= START_LATE
                streams[(src, dst, qp)] = Stream(start if late else psn)
            streams[(src, dst, qp)].request(psn)
            continue
        if op != 0x11 or syn is None:
            continue
        # The responder answers the request stream of the other direction
        # that started closest before this PSN.
        cands = [(diff(psn, s.first), s) for (a, b, _), s in streams.items() if a == dst and b == src]
        cands = [c for c in cands if 0 <= c[0] < 1 << 20]
        if cands:
            min(cands, key=lambda c: c[0])[1].aeth(psn, syn)
    t = dict(range=0, skipped=0, not_captured=0, lost=0, resent=0, reordered=0, undetermined=0)
    for s in streams.values():
        s.end_run()
        t["range"] += s.range
        t["skipped"] += s.skipped
        t["reordered"] += s.ooo
        t["not_captured"] += s.not_captured
        t["lost"] += s.naked_fills + s.unseen_lost
        t["resent"] += s.fills - s.ooo - s.naked_fills
        t["undetermined"] += len(s.missing)
    t["in_capture"] = t["range"] - (t["skipped"] - t["resent"] - t["reordered"] - (t["lost"] - sum(
        s.unseen_lost for s in streams.values())))
    return t


def rocestat_json(path):
    p = subprocess.run([ROCESTAT, "-n", "--format", "json", path], capture_output=True, text=True)
    if p.returncode not in (0, 1):  # 1: anomalies found
        return None
    return json.loads(p.stdout)


def rocestat_text(path):
    return subprocess.run([ROCESTAT, "-n", "--width", "0", path], capture_output=True, text=True).stdout


def compare(name, path):
    want = oracle(tshark_frames(path))
    if want is None:
        return None
    j = rocestat_json(path)
    check(name + ": rocestat reads it", j is not None)
    if j is None:
        return want
    got = j["capture"]["request_psns"]
    for k, v in want.items():
        check("%s: request_psns.%s" % (name, k), got.get(k) == v, "rocestat %s, expected %s" % (got.get(k), v))
    if want["lost"] == 0:
        text = rocestat_text(path)
        bad = [ln for ln in text.splitlines() if " lost" in ln]
        check(name + ": the text never says lost", not bad, bad[0].strip() if bad else "")
    return want


def drop_requests(src, dst, frac, seed, psns=None, kept=None):
    """Delete RC request frames (not ACKs, not CM) of src into dst: frac of
    them at random, or every copy of the PSNs in psns. Returns how many
    were deleted; the request frames kept go into the set kept, as (ip.src,
    ip.dst, destination QP, PSN)."""
    linktype, recs, _ = read_pcap(src)
    rng = random.Random(seed)
    keep, dropped = [], 0
    for rec in recs:
        b = rec[4]
        # Ethernet, IPv4 without options, UDP 4791: the BTH opcode is at 42.
        roce = (linktype == 1 and len(b) > 42 + 12 and b[12:14] == b"\x08\x00" and b[23] == 17
                and b[14] & 0x0F == 5 and struct.unpack(">H", b[36:38])[0] == 4791)
        if roce and b[42] < 0x20 and b[42] not in RESPONSES:
            psn = struct.unpack(">I", b[50:54])[0] & MASK
            if (psns is not None and psn in psns) or (psns is None and rng.random() < frac):
                dropped += 1
                continue
            if kept is not None:
                kept.add((".".join(map(str, b[26:30])), ".".join(map(str, b[30:34])),
                          struct.unpack(">I", b[46:50])[0] & MASK, psn))
        keep.append(rec)
    write_pcap(dst, linktype, keep)
    return dropped


# RC request opcodes that begin a message (IBA Table 38): SEND First/Only
# (with immediate, with invalidate), WRITE First/Only (with immediate),
# READ request, atomics, FLUSH, ATOMIC WRITE; and those that end one.
STARTS = {0x00, 0x04, 0x05, 0x06, 0x0A, 0x0B, 0x0C, 0x13, 0x14, 0x17, 0x1C, 0x1D}
ENDS = {0x02, 0x03, 0x04, 0x05, 0x08, 0x0A, 0x0B, 0x16, 0x17}


def tshark_messages(path):
    seen = set()
    for s_, d, op, qp, psn, syn, _ in tshark_frames(path):
        if op in STARTS:
            seen.add((s_, d, qp, psn))
    return len(seen)


# Request opcodes (IBA Table 38) by their place in a message: First, Last,
# and those that are a whole message (Only, READ request, atomics, FLUSH,
# ATOMIC WRITE).
FIRSTS = {0x00, 0x06}
LASTS = {0x02, 0x03, 0x08, 0x09}
WHOLE = {0x04, 0x05, 0x0A, 0x0B, 0x0C, 0x13, 0x14, 0x16, 0x17, 0x1C, 0x1D}
REQUESTS = FIRSTS | LASTS | WHOLE | {0x01, 0x07}


def shown(packets, start=None):
    """The messages a request stream's packets show (IBA 9.7.4: a message
    is First, Middles, Last on consecutive PSNs, or one packet; a QP's
    messages follow one another): packets without a message boundary seen
    between them are one message (the fewest there can be). Each is given
    as (lo, hi, orphan): it ended in [lo, hi] (hi: the PSN before the next
    message's first packet seen, when its Last was not); a last one with no
    Last seen is left out (it may never have ended), and one the stream
    begins inside without a First is orphan packets unless the CM's
    Starting PSN (`start`) says the stream began a little before it (the
    way rocestat reads the capture's start, man page "PSN gaps")."""
    out, cur = [], None
    for i, (p, op) in enumerate(packets):
        if cur is None or op in FIRSTS or op in WHOLE:
            if cur is not None:
                out.append((cur[0], (p - 1) & MASK, cur[1]))
            orphan = i == 0 and op not in FIRSTS and op not in WHOLE
            cur = (p, orphan and not (start is not None and 0 < diff(p, start) <= START_LATE))
        else:
            cur = (p, cur[1])
        if op in LASTS or op in WHOLE:
            out.append((p, p, cur[1]))
            cur = None
    return out


def msn_oracle(path):
    """The messages a capture shows, counted with the responders' ACKs (IBA
    9.7.5: an ACK's MSN is the responder's count of completed messages),
    as (fewest, most): per request stream, the MSN's advance from its first
    ACK to its last, plus the messages its packets show (shown()) that
    ended at or before the first ACK's PSN or after the last's. A message
    that may have ended on either side of one of those two PSNs makes the
    two counts differ. Streams pair with their ACK flows by PSN (PSN spaces
    are random 24-bit numbers)."""
    starts, reqs, acks = {}, {}, {}
    for s_, d, op, qp, psn, syn, cm in tshark_frames(path):
        if cm:
            starts[(cm[0], cm[1], cm[2])] = cm[3]
    for s_, d, op, qp, psn, syn, _ in tshark_frames_msn(path):
        if op == 0x11 and syn is not None and syn[0] >> 5 == 0:
            acks.setdefault((s_, d, qp), []).append((psn, syn[1]))
        elif op in REQUESTS:
            reqs.setdefault((s_, d, qp), {}).setdefault(psn, op)
    lo = hi = 0
    for (s_, d, qp), pk in reqs.items():
        ref = next(iter(pk))
        msgs = shown(sorted(pk.items(), key=lambda x: diff(x[0], ref)), starts.get((s_, d, qp)))
        cand = [v for (a, b, _), v in acks.items() if (a, b) == (d, s_)
                and any(abs(diff(x[0], p)) < 4096 for x in v[:3] for p in pk)]
        if len(cand) != 1:
            n = sum(1 for m in msgs if not m[2])
            lo, hi = lo + n, hi + n
            continue
        (p1, m1), (p2, m2) = cand[0][0], cand[0][-1]
        lo, hi = lo + ((m2 - m1) & MASK), hi + ((m2 - m1) & MASK)
        for m_lo, m_hi, orphan in msgs:
            if orphan:
                continue
            lo += diff(m_hi, p1) <= 0 or diff(m_lo, p2) > 0
            hi += diff(m_lo, p1) <= 0 or diff(m_hi, p2) > 0
    return lo, hi


def unknowable(path, kept):
    """Messages of the capture at path none of whose request frames are in
    kept (drop_requests()) that no ACK can count: those that ended at or
    before the PSN of the first ACK after the stream's first kept request
    frame (nothing tells how many messages the responder had completed
    before), or after its last ACK's."""
    frames = tshark_frames(path)
    msgs, first_ack, last_ack, begun = {}, {}, {}, set()
    for s_, d, op, qp, psn, syn, _ in frames:
        if op in REQUESTS and op not in RESPONSES:
            m = msgs.setdefault((s_, d, qp), {})
            if op in FIRSTS or op in WHOLE:
                m.setdefault(psn, [psn, None, False])
            cur = max((v for v in m.values() if diff(psn, v[0]) >= 0), key=lambda v: -diff(psn, v[0]), default=None)
            if cur is not None:
                cur[2] = cur[2] or (s_, d, qp, psn) in kept
                if op in LASTS or op in WHOLE:
                    cur[1] = psn
            if (s_, d, qp, psn) in kept:
                begun.add((s_, d, qp))
        elif op == 0x11 and syn is not None and syn >> 5 == 0:
            for k in msgs:
                if (k[1], k[0]) == (s_, d) and any(abs(diff(psn, p)) < 4096 for p in msgs[k]):
                    if k in begun and k not in first_ack:
                        first_ack[k] = psn
                    last_ack[k] = psn
    n = 0
    for k, m in msgs.items():
        if ":" in k[0]:
            continue  # IPv6: drop_requests() deletes none of its frames
        for start, end, seen in m.values():
            if seen or end is None:
                continue
            if k not in first_ack or diff(end, first_ack[k]) <= 0 or diff(end, last_ack[k]) > 0:
                n += 1
    return n


def tshark_frames_msn(path):
    fields = ["ip.src", "ip.dst", "infiniband.grh.sgid", "infiniband.grh.dgid", "infiniband.bth.opcode",
              "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.aeth.syndrome", "infiniband.aeth.msn"]
    for v in tshark_fields(path, fields, "infiniband.bth", occurrence="f", disable_protocols=["tftp"]):
        syn = int(v[7], 0) if v[7] else None
        yield (v[0] or v[2], v[1] or v[3], int(v[4], 0), int(v[5], 0), int(v[6], 0),
               None if syn is None else (syn, int(v[8], 0)), None)


def seen_inferred(path):
    r = rocestat_json(path)
    seen = sum(sum(q["messages"].values()) for q in r["qps"] if q["transport"] in ("RC", "DC"))
    return seen, r["capture"]["request_psns"].get("messages_not_captured", 0)


def messages(tmp):
    exact = ["ib_send_bw_cm", "ib_write_bw_cm", "rping_s5000", "rping_s64", "rc_pingpong"]
    for name in exact + ["ib_write_lat"]:
        src = os.path.join(SHARED, "captures", name + ".pcap")
        want = tshark_messages(src)
        for seed in range(4):
            dst = os.path.join(tmp, "%s-msgs%d.pcap" % (name, seed))
            n = drop_requests(src, dst, 0.05, seed)
            seen, inf = seen_inferred(dst)
            what = "%s minus %d request frames (seed %d): %d seen + %d inferred" % (name, n, seed, seen, inf)
            if name in exact:
                check(what + " = the original's %d messages" % want, seen + inf == want)
            else:
                check(what + " <= the original's %d messages" % want, seen + inf <= want)
    # Many more drops where the ACKs lag the requests (pipelined): exact,
    # but for the messages dropped whole that no ACK can count.
    for name in ["ib_send_bw_cm", "ib_write_bw_cm"]:
        src = os.path.join(SHARED, "captures", name + ".pcap")
        want = tshark_messages(src)
        for frac in (0.3, 0.6):
            for seed in range(4):
                dst = os.path.join(tmp, "%s-msgs%d.pcap" % (name, seed))
                kept = set()
                n = drop_requests(src, dst, frac, seed, kept=kept)
                lost = unknowable(src, kept)
                seen, inf = seen_inferred(dst)
                check("%s minus %d%% of its request frames (%d, seed %d): %d seen + %d inferred = the original's %d"
                      " messages less the %d dropped whole before its first ACK or after its last"
                      % (name, frac * 100, n, seed, seen, inf, want, lost), seen + inf == want - lost)
    for truth in sorted(glob.glob(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                               "samples", "rxe_*.truth.json"))):
        t = json.load(open(truth))
        if t["server"].get("qp_type") != "RC" or not t["work_requests"]:
            continue
        src = truth[:-len(".truth.json")] + ".pcap"
        for seed in range(6):
            dst = os.path.join(tmp, "sample-msgs.pcap")
            n = drop_requests(src, dst, 0.05, seed)
            if not n:
                continue
            seen, inf = seen_inferred(dst)
            check("%s minus %d request frames (seed %d): %d seen + %d inferred = the truth's %d work requests"
                  % (os.path.basename(src), n, seed, seen, inf, len(t["work_requests"])),
                  seen + inf == len(t["work_requests"]))
    hw = os.path.join(SHARED, "hw-captures", "magnate3__linux-riscv-dev__%s.pcap")
    for name in ("rc-small", "rocev2_test", "rocev1"):
        seen, inf = seen_inferred(hw % name)
        lo, hi = msn_oracle(hw % name)
        check("%s: %d seen + %d inferred = %d, the MSNs and the messages shown say %s" % (
            name, seen, inf, seen + inf, lo if lo == hi else "%d to %d" % (lo, hi)),
            0 < inf and lo <= seen + inf <= hi and (name != "rc-small" or seen + inf == 18))


def main():
    files = sorted(glob.glob(os.path.join(SHARED, "hw-captures", "*.pcap")) +
                   glob.glob(os.path.join(SHARED, "captures", "*.pcap")))
    compared = 0
    for path in files:
        if compare(os.path.basename(path), path) is not None:
            compared += 1
    check("RC captures compared", compared >= 8, "%d" % compared)

    with tempfile.TemporaryDirectory() as tmp:
        for name in ["ib_send_bw_cm", "ib_write_bw_cm", "rping_s5000", "rc_pingpong", "loss_write_bw"]:
            src = os.path.join(SHARED, "captures", name + ".pcap")
            frames = tshark_frames(src)
            orig = oracle(frames)
            # A PSN may only be called lost if the responder NAKed it (a PSN
            # sequence error names it): the original's NAKs bound the losses.
            naked = {(d, p) for s_, d, op, q, p, syn, _ in frames if op == 0x11 and syn == 0x60}
            for seed in range(3):
                dst = os.path.join(tmp, "%s-drop%d.pcap" % (name, seed))
                n = drop_requests(src, dst, 0.05, seed)
                want = compare("%s minus %d request frames (seed %d)" % (name, n, seed), dst)
                check("%s seed %d: frames dropped" % (name, seed), n > 0)
                if want is None or orig is None:
                    continue
                # The oracle itself must see the drops as drops, not losses.
                check("%s seed %d: oracle sees no new loss" % (name, seed), want["lost"] <= len(naked))
                got = rocestat_json(dst)
                if got is None:
                    continue
                t = got["capture"]["request_psns"]
                check("%s seed %d: lost only what the responder NAKed" % (name, seed), t["lost"] <= len(naked),
                      "%s vs %d NAKed" % (t, len(naked)))
        # Every copy of each PSN the responder NAKed deleted (loss after the
        # capture point, and the re-sends missed): each is lost, by the NAK.
        src = os.path.join(SHARED, "captures", "loss_write_bw.pcap")
        named = {p for s_, d, op, q, p, syn, _ in tshark_frames(src) if op == 0x11 and syn == 0x60}
        dst = os.path.join(tmp, "loss_write_bw-naked.pcap")
        n = drop_requests(src, dst, 0, 0, named)
        want = compare("loss_write_bw minus every copy of its %d NAKed PSNs (%d frames)" % (len(named), n), dst)
        check("loss_write_bw minus its NAKed PSNs: each is lost", want is not None and want["lost"] == len(named),
              "oracle %s, %d NAKed" % (want and want["lost"], len(named)))
        messages(tmp)
    print("check_completeness: %d checks, %d failed" % (check.checks, check.failures))
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
