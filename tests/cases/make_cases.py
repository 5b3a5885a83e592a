#!/usr/bin/env python3
"""Write the analyzer's regression captures into a directory.

Each case is a situation a reviewer or a bug report brought up; the
expectations (what IBA or the CM rules say must be reported) are in
tests/check_cases.py. Usage: make_cases.py OUTDIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from roce import *  # noqa: E402,F401,F403

A, B, C, D = '10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'
SID_TCP = 0x0000000001060000 | 7471
SID_UDP = 0x0000000001110000 | 7174


def connection(p, ccomm, scomm, cpsn, spsn, n=6, disconnect=True):
    """Client A QP 0x11 to server B QP 0x22; the REP's PSN starts the client's
    requests, the REQ's the server's (Linux CM)."""
    p.add(cm_frame(A, B, REQ, cm_req(ccomm, SID_TCP, 0x11, spsn), tid=ccomm))
    p.add(cm_frame(B, A, REP, cm_rep(scomm, ccomm, 0x22, cpsn), tid=ccomm))
    p.add(cm_frame(A, B, RTU, cm_ids(ccomm, scomm), tid=ccomm))
    for i in range(n):
        p.add(frame(A, B, bth(0x04, 0x22, cpsn + i, ackreq=1) + b'c' * 64))
        p.add(frame(B, A, bth(0x11, 0x11, cpsn + i) + aeth(0x1f, i + 1)))
        p.add(frame(B, A, bth(0x04, 0x11, spsn + i, ackreq=1) + b's' * 64))
        p.add(frame(A, B, bth(0x11, 0x22, spsn + i) + aeth(0x1f, i + 1)))
    if disconnect:
        p.add(cm_frame(A, B, DREQ, cm_ids(ccomm, scomm) + be24(0x22), tid=ccomm + 100))
        p.add(cm_frame(B, A, DREP, cm_ids(scomm, ccomm), tid=ccomm + 100))


def ud_noise(p, n=64):
    for q in range(0x100, 0x100 + n):
        p.add(frame('10.0.1.1', '10.0.1.2', bth(0x64, q, 0) + deth(0x1234, 5) + b'u' * 32), dt_ns=10**6)


def main(out):
    os.makedirs(out, exist_ok=True)
    path = lambda n: os.path.join(out, n + '.pcap')  # noqa: E731

    # Two connections one after the other reusing QPNs 0x11/0x22.
    p = Pcap(path('qpn_reuse'))
    connection(p, 0x1000, 0x2000, 0x000200, 0x100000)
    connection(p, 0x1001, 0x2001, 0x900000, 0x500000)
    p.close()

    # The same, then enough other flows that --max-flows 8 evicts the first ones.
    p = Pcap(path('qpn_reuse_evict'))
    connection(p, 0x1000, 0x2000, 0x000200, 0x100000)
    connection(p, 0x1001, 0x2001, 0x900000, 0x500000)
    ud_noise(p)
    p.close()

    # Two SIDR lookups of one UD QP, then eviction.
    p = Pcap(path('sidr_twice_evict'))
    for rid in (0x51, 0x52):
        p.add(cm_frame(A, B, SIDR_REQ, cm_sidr_req(rid, SID_UDP), tid=rid))
        p.add(cm_frame(B, A, SIDR_REP, cm_sidr_rep(rid, 0, 0x33, SID_UDP, 0x1111), tid=rid))
        for i in range(3):
            p.add(frame(A, B, bth(0x64, 0x33, i) + deth(0x1111, 0x44) + b'd' * 32))
    ud_noise(p)
    p.close()

    # Connection churn for --max-flows: 40 CM exchanges one after the other,
    # each on QPNs of its own, every one finished before the next begins.
    # The outcomes, by construction (check_cases.py expects exactly these):
    # 10 closed, 15 established (5 of them after a REQ retry), 5 rejected,
    # 5 incomplete (a REQ and nothing else), 5 SIDR lookups resolved.
    p = Pcap(path('conn_churn'))
    for i in range(40):
        cc, sc, cq, sq = 0x3000 + i, 0x4000 + i, 0x1000 + 2 * i, 0x1001 + 2 * i
        kind = ('closed', 'established', 'retry', 'rejected', 'incomplete', 'sidr', 'closed', 'established')[i % 8]
        if kind == 'sidr':
            p.add(cm_frame(A, B, SIDR_REQ, cm_sidr_req(cc, SID_UDP), tid=cc))
            p.add(cm_frame(B, A, SIDR_REP, cm_sidr_rep(cc, 0, sq, SID_UDP, 0x1111), tid=cc))
            p.add(frame(A, B, bth(0x64, sq, 0) + deth(0x1111, cq) + b'd' * 32))
            continue
        p.add(cm_frame(A, B, REQ, cm_req(cc, SID_TCP, cq, 0x100), tid=cc))
        if kind == 'incomplete':
            continue
        if kind == 'rejected':
            p.add(cm_frame(B, A, REJ, cm_rej(sc, cc, 0, 28), tid=cc))
            continue
        if kind == 'retry':
            p.add(cm_frame(A, B, REQ, cm_req(cc, SID_TCP, cq, 0x100), tid=cc), dt_ns=10**6)
        p.add(cm_frame(B, A, REP, cm_rep(sc, cc, sq, 0x200), tid=cc))
        p.add(cm_frame(A, B, RTU, cm_ids(cc, sc), tid=cc))
        p.add(frame(A, B, bth(0x04, sq, 0x200, ackreq=1) + b'c' * 64))
        p.add(frame(B, A, bth(0x11, cq, 0x200) + aeth(0x1f, 1)))
        if kind == 'closed':
            p.add(cm_frame(A, B, DREQ, cm_ids(cc, sc) + be24(sq), tid=cc + 0x100))
            p.add(cm_frame(B, A, DREP, cm_ids(sc, cc), tid=cc + 0x100))
    p.close()

    # Half-flow churn: 5000 UD half-flows one after the other, each a single
    # frame marked ECN CE (one anomaly each), frame i + 1 on QP 0x10000 + i.
    # Under --max-flows 100 they are evicted idlest (oldest) first, so the
    # RS_DETACHED_MAX (4096) listed one by one are the first 4096 exactly.
    p = Pcap(path('flow_churn'))
    for i in range(5000):
        p.add(frame(C, D, bth(0x64, 0x10000 + i, 0) + deth(0x1111, 7) + b'e' * 32, ecn=3), dt_ns=1000)
    p.close()

    # Both sides send a DREQ at once, each its own transaction: not a retry.
    # Then the client really retries its DREQ (same transaction ID).
    p = Pcap(path('dreq_both_sides'))
    connection(p, 0x1000, 0x2000, 0x000200, 0x100000, n=2, disconnect=False)
    p.add(cm_frame(A, B, DREQ, cm_ids(0x1000, 0x2000) + be24(0x22), tid=0x500))
    p.add(cm_frame(B, A, DREQ, cm_ids(0x2000, 0x1000) + be24(0x11), tid=0x600))
    p.add(cm_frame(B, A, DREP, cm_ids(0x2000, 0x1000), tid=0x500))
    p.add(cm_frame(A, B, DREP, cm_ids(0x1000, 0x2000), tid=0x600))
    connection(p, 0x1002, 0x2002, 0x300000, 0x400000, n=2, disconnect=False)
    p.add(cm_frame(A, B, DREQ, cm_ids(0x1002, 0x2002) + be24(0x22), tid=0x700))
    p.add(cm_frame(A, B, DREQ, cm_ids(0x1002, 0x2002) + be24(0x22), tid=0x700), dt_ns=10**9)
    p.add(cm_frame(B, A, DREP, cm_ids(0x2002, 0x1002), tid=0x700))
    p.close()

    # CM corner cases: a REJ of a REP; a REP without its REQ and a DREQ from
    # the server naming the client's QP; data flowing before any RTU.
    p = Pcap(path('cm_cases'))
    p.add(cm_frame(A, B, REQ, cm_req(0x10, SID_TCP, 0x11, 0x100)))
    p.add(cm_frame(B, A, REP, cm_rep(0x20, 0x10, 0x22, 0x200)))
    p.add(cm_frame(A, B, REJ, cm_rej(0x10, 0x20, 1, 28)))
    p.add(cm_frame(B, A, REP, cm_rep(0x21, 0x11, 0x23, 0x300)))
    p.add(cm_frame(A, B, RTU, cm_ids(0x11, 0x21)))
    for i in range(3):
        p.add(frame(A, B, bth(0x04, 0x23, 0x300 + i, ackreq=1) + b'x' * 32))
        p.add(frame(B, A, bth(0x11, 0x12, 0x300 + i) + aeth(0x1f, i + 1)))
    p.add(cm_frame(B, A, DREQ, cm_ids(0x21, 0x11) + be24(0x12)))
    p.add(cm_frame(A, B, DREP, cm_ids(0x11, 0x21)))
    p.add(cm_frame(C, D, REQ, cm_req(0x12, SID_TCP, 0x13, 0x500)))
    p.add(cm_frame(D, C, REP, cm_rep(0x22, 0x12, 0x24, 0x400)))
    for i in range(3):
        p.add(frame(C, D, bth(0x04, 0x24, 0x400 + i, ackreq=1) + b'x' * 32))
        p.add(frame(D, C, bth(0x11, 0x13, 0x400 + i) + aeth(0x1f, i + 1)))
    p.close()

    # Reserved (0x18, 0xC5) and manufacturer-specific (0xE5) opcodes.
    p = Pcap(path('reserved_ops'))
    for op in (0x18, 0xC5, 0xE5, 0x04):
        p.add(frame(A, B, bth(op, 0x22, 1) + b'z' * 32))
    p.close()

    # A READ on a 1024-MTU connection while another connection runs a
    # 4096-byte MTU: the READ's PSN count must come from its own path.
    p = Pcap(path('pmtu_two_paths'))
    p.add(frame(C, D, bth(0x06, 0x44, 1) + reth(0x1, 1, 8192) + b'x' * 4096))
    p.add(frame(C, D, bth(0x08, 0x44, 2, ackreq=1) + b'x' * 4096))
    p.add(frame(D, C, bth(0x11, 0x33, 2) + aeth(0x1f, 1)))
    p.add(frame(A, B, bth(0x0c, 0x22, 100) + reth(0x9000, 5, 8192)))
    for i in range(8):
        op = 0x0d if i == 0 else 0x0f if i == 7 else 0x0e
        ext = aeth(0x1f, 1) if op != 0x0e else b''
        p.add(frame(B, A, bth(op, 0x11, 100 + i) + ext + b'r' * 1024))
    p.add(frame(A, B, bth(0x04, 0x22, 108, ackreq=1) + b's' * 64))
    p.add(frame(B, A, bth(0x11, 0x11, 108) + aeth(0x1f, 2)))
    p.close()

    # CNPs on the half-flow that also carries the ACKs (same hosts and QP).
    cnp = bth(0x81, 0x11, 0, becn=1) + b'\0' * 16
    p = Pcap(path('cnp_first'))
    p.add(frame(B, A, cnp))
    for i in range(4):
        p.add(frame(A, B, bth(0x0a, 0x22, 10 + i, ackreq=1) + reth(0x1000, 0x99, 64) + b'w' * 64))
        p.add(frame(B, A, bth(0x11, 0x11, 10 + i) + aeth(0x1f, i + 1)))
    p.close()
    p = Pcap(path('cnp_after_ack'))
    for i in range(4):
        p.add(frame(A, B, bth(0x0a, 0x22, 10 + i, ackreq=1) + reth(0x1000, 0x99, 64) + b'w' * 64,
                    ecn=3 if i == 1 else 2))
        p.add(frame(B, A, bth(0x11, 0x11, 10 + i) + aeth(0x1f, i + 1)))
        if i == 1:
            p.add(frame(B, A, cnp))
    p.close()

    # An ACK time-stamped before its request (capture clocks do this).
    p = Pcap(path('ts_inversion'))
    t = 1_700_000_000 * 10**9
    p.add(frame(A, B, bth(0x04, 0x22, 1, ackreq=1) + b'x' * 32), ts=t)
    p.add(frame(B, A, bth(0x11, 0x11, 1) + aeth(0x1f, 1)), ts=t - 1000)
    p.close()

    # A message whose First was lost before the capture point, then resent.
    M = 256
    p = Pcap(path('lost_first'))

    def w(op, psn, extra=b'', ack=0):
        return frame(A, B, bth(op, 0x22, psn, ackreq=ack) + extra + b'w' * M)
    p.add(w(0x06, 10, reth(0x1000, 7, 3 * M))); p.add(w(0x07, 11)); p.add(w(0x08, 12, ack=1))
    p.add(w(0x07, 14)); p.add(w(0x08, 15, ack=1))
    p.add(frame(B, A, bth(0x11, 0x11, 12) + aeth(0x60, 0)))
    p.add(w(0x06, 13, reth(0x2000, 7, 3 * M))); p.add(w(0x07, 14)); p.add(w(0x08, 15, ack=1))
    p.add(frame(B, A, bth(0x11, 0x11, 15) + aeth(0x1f, 2)))
    p.close()

    # RNR NAKs with timers 0 (655.36 ms, the longest) and 14 (1.28 ms).
    p = Pcap(path('rnr_mix'))
    for i, timer in enumerate((14, 0)):
        p.add(frame(A, B, bth(0x04, 0x22, 1, ackreq=1) + b'x' * 32))
        p.add(frame(B, A, bth(0x11, 0x11, 1) + aeth(0x20 | timer, 0)))
    p.add(frame(A, B, bth(0x04, 0x22, 1, ackreq=1) + b'x' * 32))
    p.add(frame(B, A, bth(0x11, 0x11, 1) + aeth(0x1f, 1)))
    p.close()


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'cases')
