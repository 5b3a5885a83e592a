#!/usr/bin/env python3
"""Every verdict rocestat emits against the evidence the capture holds (make evidence).

For every capture (samples/*.pcap, samples/impair/*.pcap, samples/evidence/*.pcap,
../shared/captures/*.pcap, ../shared/hw-captures/*.pcap*, ../shared/public-captures/*
that are capture files) this runs `rocestat -n --fields -e ...` (the verdict
columns) and `rocestat -n --format json`, decodes the file once with tshark
(`-T fields`; the UDP payload for the ICRC, which this script computes itself
with zlib.crc32 as IBA A16/A17 define it for RoCE v2) and re-derives each verdict
from that decode and the rules of rocestat(1) "HOW ROCESTAT DECIDES". Nothing
here is shared with the analyzer: only tshark's fields, the IBA opcode and AETH
encodings and the man page's rules. A verdict whose evidence is not in the file
is a failure naming the file, the frame (or half-flow) and the verdict.

Checked, per frame (--fields --verdicts):
  * resend=network_copy: an earlier frame with the same IPv4 source, IP ID, dest
    QP, PSN and ICRC (never IPv6, RoCE v1 or InfiniBand); per half-flow the
    network_duplicate count equals this script's count of such repeats;
  * retransmission_of=N: N earlier, same source, destination, QP and PSN;
  * nak_frame/nak_psn: a PSN sequence error NAK (AETH 0x60) of the responder,
    earlier, naming nak_psn, which is this PSN or was NAKed after this PSN was
    first sent;
  * resend=after_nak/after_rnr_nak, resend_after=M: M a sequence error NAK
    (0x60) / RNR NAK (0x20-0x3f) of the responder before the run, naming a PSN
    at or before the run's first PSN in the sender's order (IPv4: IP ID order;
    otherwise capture order), resend_wait_ns the time from M to the run's first
    packet (1 us), not longer than T (the REQ's Local ACK Timeout) for a
    sequence error NAK;
  * resend=timeout: resend_wait_ns the time from the copy the run's first
    packet repeats to it (1 us; in a stream's first re-send run, for a READ
    resumed at a reserved PSN, and without IP IDs, from its last packet or the responder's last answer, the later); no sequence error NAK owed (not answered by a
    request of its PSN, not older than T) naming a PSN at or before the run's
    first; responder's packets in the file before the run;
  * every re-send cause: the frame is a re-send (IPv4: its PSN seen before
    under another IP ID, or its IP ID above that of a packet with a higher
    PSN; otherwise its PSN seen before or behind the highest);
  * resend=read_retry: a READ or atomic whose PSN an earlier READ or atomic
    of the stream reserved (READ of length L: ceil(L/MTU) PSNs); an answer
    to a higher PSN than the run's first between the copy it repeats and the
    run; resend_wait_ns the time from the responder's last packet, less than
    T/2 where the REQ gives T;
  * resend=unknown: none of the responder's packets before it;
  * resend=late, late_frame: the PSN seen after a higher PSN; with IPv4 its IP
    ID below an earlier packet's of the stream;
  * icrc_verdict ok/bad (RoCE v2): the ICRC computed here matches / does not;
  * cm_response_to: REP->REQ, RTU->REP, REJ->REQ/REP, DREP->DREQ by the
    Communication IDs (a DREP from the other side than its DREQ).
Per half-flow / connection / file (JSON):
  * retransmission: resent_by_cause equals the per-frame causes; timeout_wait_ns
    min and max are waits measured from a copy as above;
  * out_of_order count: its late gap fills;
  * psn_gap not_captured (and qps[].request_psn.not_captured, capture totals)
    at most the PSNs this script finds never in the file, covered by a later
    ACK, never NAKed and not reserved by a READ (MTU: CM REQ, READ responses
    or 4096); lost at most the skipped PSNs a sequence error NAK named;
  * qp_gave_up retry_exhausted: retry_count the REQ's Retry Count, as many
    re-send episodes after the last answer, then silence;
    rnr_retry_exhausted: the RNR Retry Count (REP's for the client's requests,
    REQ's for the server's), never 7, one RNR NAK more in a row, then silence;
  * capture.sniffer host_pairs_one_way / rc_qps_one_way: pairs and RC request
    half-flows whose other host sent no RoCE frame back;
  * dscp_unexpected (never run with --dscp): only directions_differ (DSCP sets
    of the half-flow and its reverse differ, as tshark reads them) or split
    (several DSCPs in one half-flow);
  * roce_on_other_port: per port at most the UDP datagrams to it whose payload
    is a BTH of a known opcode with a matching ICRC;
  * connections' durations_ms.dreq_to_drep: a DREQ and the other side's DREP
    naming its Local Communication ID, that far apart (1 us).
Negative cases: reorder_* (netem reordering only) captures: no network
duplicates, no lost PSNs. The Soft-RoCE samples (captured in the server guest,
samples/README.md): nothing blamed on the capture (not_captured 0), and
resends_not_captured at most the frames netem dropped on the way (the RXE
sent_pkts of the side minus the frames the capture holds from it; 0 without
netem on that side).

Not re-derived here (and why): latency, goodput and message reassembly
(tests/check_latency.py, check_reports.py, check_fields_verdicts.py do);
repeated READ responses / first_answer_not_captured and messages not captured
(the MSN arithmetic needs the responder's message boundaries: no tshark
field); "undetermined" and "resent before first copy" PSNs (a statement that
the file cannot tell); ECN/CNP/PFC counts (tests/check_congestion.py);
evictions, file errors, undecodable frames, NVMe (not about the capture's
evidence of the network).
"""
import csv
import glob
import io
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, ROOT, SHARED, need_shared  # noqa: E402
from evidence.decode import (AETH_OPS, CAUSE, KNOWN_OPS, RC_REQ, READ_ATOMIC, US, Cap, icrc, id_below, ival,  # noqa: E402
                             is_nak, pdiff, run_firsts, sender_order, skipped, span, tshark)
from evidence.known import EvChecks  # noqa: E402

ck = EvChecks("check_evidence")

COLS = ["frame", "icrc_verdict", "psn_verdict", "retransmission_of", "nak_frame", "nak_psn", "late_frame", "resend",
        "resend_after", "resend_wait_ns", "cm_response_to"]



def rocestat_rows(path):
    cmd = [ROCESTAT, "-n", "--fields"]
    for c in COLS:
        cmd += ["-e", c]
    p = subprocess.run(cmd + [path], capture_output=True, text=True)
    rows = {}
    for r in csv.DictReader(io.StringIO(p.stdout)):
        rows[int(r["frame"])] = r
    return rows


def rocestat_json(path):
    p = subprocess.run([ROCESTAT, "-n", "--format", "json", path], capture_output=True, text=True)
    try:
        return json.loads(p.stdout)
    except ValueError:
        return None


def check_frames(cap, rows):
    name = cap.name
    copies = set()          # frames that repeat an earlier datagram byte for byte (oracle)
    seen = {}
    for r in cap.frames:
        if r["v2"] and r["ipid"] is not None and r["op"] in RC_REQ | set(range(0x20, 0x2C)):
            k = (r["src"], r["ipid"], r["qp"], r["psn"])
            if k in seen and (seen[k] is None or r["infiniband.invariant.crc"] is None
                              or seen[k] == r["infiniband.invariant.crc"]):
                copies.add(r["n"])
            seen.setdefault(k, r["infiniband.invariant.crc"])
    for r in cap.frames:        # the ICRC verdict
        v = rows.get(r["n"], {}).get("icrc_verdict")
        if r["v2"] and r["udp.payload"] and v in ("ok", "bad"):
            c = icrc(r, bytes.fromhex(r["udp.payload"].replace(":", "")))
            if c:
                ck("%s frame %d icrc_verdict=%s" % (name, r["n"], v), (c[0] == c[1]) == (v == "ok"),
                   "computed 0x%08x, carried 0x%08x" % c)
    per_stream = {}
    for key, frames in cap.streams.items():
        resp = cap.peer[key]
        conn, _ = cap.conn_of(key)
        T = conn["T"] if conn else None
        firsts = run_firsts(frames)
        mtu = cap.mtu(key)
        causes = dict.fromkeys(CAUSE.values(), 0)
        late_fills, waits = 0, []
        groups = {}
        seen_psns, first_repeat = set(), None
        for r in frames:
            if r["psn"] in seen_psns and first_repeat is None:
                first_repeat = r["n"]
            seen_psns.add(r["psn"])
        for r in frames:
            v = rows.get(r["n"])
            if v and v["resend"] in ("after_nak", "after_rnr_nak", "timeout", "read_retry"):
                groups.setdefault((v["resend"], v["resend_after"], v["resend_wait_ns"]), []).append(r)
        for i, r in enumerate(frames):
            v = rows.get(r["n"])
            if not v:
                continue
            n, psn, tag = r["n"], r["psn"], "%s frame %d" % (name, r["n"])
            before = frames[:i]
            ro = ival(v["retransmission_of"])
            if ro is not None:
                o = cap.byn.get(ro)
                ck(tag + " retransmission_of=%d" % ro, o is not None and ro < n and o["op"] in RC_REQ and
                   (o["src"], o["dst"], o["qp"], o["psn"]) == (r["src"], r["dst"], r["qp"], psn),
                   "frame %d is not an earlier sending of PSN %d to QP %d" % (ro, psn, r["qp"]))
            nf = ival(v["nak_frame"])
            if nf is not None:
                k = cap.byn.get(nf)
                first_sent = next((b for b in before if b["psn"] == psn), None)
                ck(tag + " nak_frame=%d nak_psn=%s" % (nf, v["nak_psn"]),
                   k is not None and k in resp and is_nak(k) and nf < n and k["psn"] == ival(v["nak_psn"]) and
                   (k["psn"] == psn or (first_sent is not None and first_sent["n"] < nf)),
                   "not a sequence error NAK of the responder, before it, naming this PSN or sent after it")
            res = v["resend"]
            if res == "network_copy":
                ck(tag + " resend=network_copy", n in copies,
                   "no earlier frame with the same IPv4 source, IP ID, QP, PSN and ICRC" if r["ipid"] is not None
                   else "no IP identification: a copy cannot be told from a re-send")
                continue
            if not res:
                continue
            if res == "late":
                hi = any(pdiff(b["psn"], psn) > 0 for b in before)
                idok = r["ipid"] is None or any(id_below(r["ipid"], b["ipid"]) for b in before)
                ck(tag + " resend=late", hi and idok, "no higher PSN before it" if not hi
                   else "its IP ID is above every earlier packet's: sent again, not late")
                lf = ival(v["late_frame"])
                if lf is not None:
                    ck(tag + " late_frame=%d" % lf, lf <= n and cap.byn.get(lf) in frames,
                       "not a packet of this stream at or before it")
                if v["psn_verdict"] == "gap_fill":
                    late_fills += 1
                continue
            if res in CAUSE:
                causes[CAUSE[res]] += 1
            # a re-send at all
            if r["ipid"] is not None:
                resent = any(id_below(b["ipid"], r["ipid"]) and pdiff(b["psn"], psn) + span(b, mtu) > 0
                             for b in frames)
            else:
                resent = any(pdiff(b["psn"], psn) + span(b, mtu) > 0 for b in before)
            ck(tag + " resend=%s (re-sent)" % res, resent, "an original sending: no packet numbered below it carries this"
               " PSN or a higher one" if r["ipid"] is not None else "neither seen before nor behind a higher PSN")
            resp_before = [k for k in resp if k["t"] < r["t"]]
            if res in ("after_nak", "after_rnr_nak"):
                m = ival(v["resend_after"])
                k = cap.byn.get(m) if m is not None else None
                g = groups[(res, v["resend_after"], v["resend_wait_ns"])]
                start = min(g, key=lambda x: x["t"])
                rf = firsts[n][0]
                ok = k is not None and k in resp and is_nak(k, res == "after_rnr_nak") and k["t"] <= start["t"] \
                    and pdiff(rf, k["psn"]) >= 0
                ck(tag + " resend=%s resend_after=%s" % (res, m), ok,
                   ("frame %s is not a %s of the responder before the run" % (m, "RNR NAK" if res != "after_nak"
                                                                              else "sequence error NAK"))
                   if not (k is not None and k in resp and is_nak(k, res == "after_rnr_nak") and k["t"] <= start["t"])
                   else "it names PSN %d, after the run's first PSN %d (sender's order)" % (k["psn"], rf))
                if k is not None:
                    w = ival(v["resend_wait_ns"])
                    ck(tag + " resend_wait_ns=%s" % w, w is not None and
                       min(abs(w - (x["t"] - k["t"])) for x in g) <= US,
                       "not the time from frame %d to the run's first packet" % m)
                    if T and res == "after_nak":
                        ck(tag + " resend_after=%d (within T)" % m, start["t"] - k["t"] <= T,
                           "the NAK was owed %d ns, longer than T=%d ns" % (start["t"] - k["t"], T))
            elif res == "timeout":
                g = groups[(res, v["resend_after"], v["resend_wait_ns"])]
                w = ival(v["resend_wait_ns"])
                start = min(g, key=lambda x: x["t"])
                rf, rfr = firsts[n]
                meas = []
                for x in {start["n"]: start, rfr["n"]: rfr if rfr in g else start}.values():
                    # IPv4: from the copy its first packet repeats, except in
                    # the stream's first re-send run (nothing remembered yet)
                    prev = [b for b in frames if b["psn"] == x["psn"] and b["n"] < x["n"]]
                    if r["ipid"] is not None and x["n"] != first_repeat and prev:
                        meas += [x["t"] - prev[-1]["t"]]
                    else:                           # else (or no sending of its PSN: a READ resumed at a PSN its
                        # request reserved) its last packet or the responder's last answer
                        mine = [b for b in cap.frames if b["n"] < x["n"] and b["op"] is not None and
                                (b["src"], b["dst"]) == (r["src"], r["dst"])]
                        ans = [k for k in resp if k["n"] < x["n"]]
                        meas += [x["t"] - y[-1]["t"] for y in (mine, ans) if y]
                ck(tag + " resend=timeout resend_wait_ns=%s" % w,
                   w is not None and any(abs(w - d) <= US for d in meas),
                   "not the time %s (%s)" % ("from the copy the run's first packet repeats" if r["ipid"] is not None
                                             else "from its last packet or the responder's last answer", meas[:3]))
                if r is start:
                    waits.append(meas)

                def answered(k):
                    return any(b["psn"] == k["psn"] and b["t"] > k["t"] and
                               (id_below(b["ipid"], rfr["ipid"]) if r["ipid"] is not None else b["t"] < start["t"])
                               for b in frames)
                owed = [k for k in resp if is_nak(k) and k["t"] < start["t"] and pdiff(rf, k["psn"]) >= 0 and
                        not (T and start["t"] - k["t"] > T) and not answered(k)]
                ck(tag + " resend=timeout (no NAK owed)", not owed,
                   "sequence error NAK in frame %d (PSN %d) owed" % (owed[0]["n"], owed[0]["psn"]) if owed else "")
                ck(tag + " resend=timeout (responder heard)", bool(resp_before), "no responder packet before it")
            elif res == "read_retry":
                ok = r["op"] in READ_ATOMIC and any(
                    b["op"] in READ_ATOMIC and 0 <= pdiff(psn, b["psn"]) <
                    max(1, -(-(b["infiniband.reth.dmalen"] or 0) // mtu) if b["op"] == 0x0C else 1)
                    for b in before)
                ck(tag + " resend=read_retry", ok, "not a READ or atomic whose PSN an earlier one reserved")
                # prompted by a later answer: one to a higher PSN than the run's first, after the copy
                # that first packet repeats and before the run; the wait from the responder's last packet
                g = groups[(res, v["resend_after"], v["resend_wait_ns"])]
                start = min(g, key=lambda x: x["t"])
                rf = firsts[n][0]
                copy = [b for b in cap.frames if b["t"] < start["t"] and b["op"] is not None and b["psn"] == rf and
                        (b["src"], b["dst"], b["qp"]) == (r["src"], r["dst"], r["qp"])]
                since = copy[-1]["t"] if copy else None
                later = [k for k in resp if k["t"] <= start["t"] and pdiff(k["psn"], rf) > 0 and
                         (since is None or k["t"] >= since)]
                ck(tag + " resend=read_retry (a later answer first)", bool(later),
                   "no answer of the responder to a PSN after %d came between its copy and the run" % rf)
                last = [k for k in resp if k["t"] <= start["t"]]
                w = ival(v["resend_wait_ns"])
                ck(tag + " resend=read_retry resend_wait_ns=%s" % w, bool(last) and w is not None and
                   abs(w - (start["t"] - last[-1]["t"])) <= US, "not the time from the responder's last packet")
                if T and last:
                    ck(tag + " resend=read_retry (sooner than T/2 after it)", start["t"] - last[-1]["t"] < T / 2,
                       "%d ns after the last answer, T=%d ns: the timer's" % (start["t"] - last[-1]["t"], T))
            elif res == "unknown":
                ck(tag + " resend=unknown", not resp_before,
                   "frame %d of the responder is before it" % resp_before[0]["n"] if resp_before else "")
        ncopies = sum(1 for r in frames if r["n"] in copies)
        per_stream[key] = {"causes": causes, "late_fills": late_fills, "copies": ncopies, "waits": waits}
    return per_stream, copies


def hf_key(a):
    return (a.get("src"), a.get("dst"), a.get("dest_qp"))


def dscp_kind(a):
    d = a.get("details") or {}
    if d.get("kind"):
        return d["kind"]
    s = a.get("description", "")
    if "different traffic classes" in s:
        return "directions_differ"
    if "expected data DSCP" in s:
        return "data_not_as_given"
    if "expected CNP" in s or "CNP DSCP" in s:
        return "cnps_not_as_given"
    return "split"


def check_json(cap, js, per_stream, copies, truth_budget, is_sample, is_reorder):
    name = cap.name
    qps = {(q["src"], q["dst"], q["dest_qp"]): q for q in js.get("qps", [])}
    oracle_nc = {}
    for key in cap.streams:
        oracle_nc[key] = skipped(cap, key)
    tot_nc = sum(x[0] for x in oracle_nc.values())
    rp = js.get("capture", {}).get("request_psns") or {}
    ck("%s capture.request_psns.not_captured=%s" % (name, rp.get("not_captured")),
       (rp.get("not_captured") or 0) <= tot_nc, "the file shows %d PSNs not captured" % tot_nc)
    for key, q in qps.items():
        rq = q.get("request_psn") or {}
        o = oracle_nc.get(key, (0, 0))
        tag = "%s half-flow %s > %s QP %s" % (name, key[0], key[1], key[2])
        ck(tag + " request_psn.not_captured=%s" % rq.get("not_captured"), (rq.get("not_captured") or 0) <= o[0],
           "the file shows %d" % o[0])
        if is_sample:
            for part in ("request_psn", "response_psn"):
                x = q.get(part) or {}
                ck(tag + " %s.not_captured=%s (every frame captured)" % (part, x.get("not_captured")),
                   not x.get("not_captured"), "a Soft-RoCE sample captured in the server guest")
            b = truth_budget(key[0])
            ck(tag + " resends_not_captured=%s" % rq.get("resends_not_captured"),
               (rq.get("resends_not_captured") or 0) <= b, "only %d frames were lost on the way" % b)
        if is_reorder:
            ck(tag + " request_psn.lost=%s (reordering only)" % rq.get("lost"), not rq.get("lost"))
            ck(tag + " network_duplicates=%s (reordering only)" % rq.get("network_duplicates"),
               not rq.get("network_duplicates"))
    if is_sample:
        ck("%s capture.request_psns.not_captured=%s (every frame captured)" % (name, rp.get("not_captured")),
           not rp.get("not_captured"))
    if is_reorder:
        ck("%s capture.request_psns lost=%s network_duplicates=%s (reordering only)" % (
            name, rp.get("lost"), rp.get("network_duplicates")), not rp.get("lost") and not rp.get("network_duplicates"))
    for a in js.get("anomalies", []):
        t, d, key = a["type"], a.get("details") or {}, hf_key(a)
        tag = "%s %s %s > %s QP %s" % (name, t, key[0], key[1], key[2])
        ps = per_stream.get(key)
        if t == "network_duplicate":
            got = ps["copies"] if ps else 0
            ck(tag + " count=%d" % a["count"], a["count"] == got, "the file holds %d repeated datagrams" % got)
            ck(tag + " (reordering only)", not is_reorder, "netem only reordered this capture")
        elif t == "retransmission" and a["code"] == 0 and d.get("resent_by_cause") and ps:
            ck(tag + " resent_by_cause=%s" % json.dumps(d["resent_by_cause"], separators=(",", ":")),
               d["resent_by_cause"] == ps["causes"],
               "its frames' causes are %s" % ps["causes"])
            tw = d.get("timeout_wait_ns") or {}
            meas = [m for ms in ps["waits"] for m in ms]
            for k in ("min", "max"):
                if tw.get(k) is not None:
                    ck(tag + " timeout_wait_ns.%s=%s" % (k, tw[k]), any(abs(tw[k] - m) <= US for m in meas),
                       "no timeout run waited that long after the copy it repeats")
        elif t == "retransmission" and a["code"] == 0 and not d and ps:
            ck(tag + " resend causes", True)
        elif t == "out_of_order" and ps:
            ck(tag + " count=%d" % a["count"], a["count"] == ps["late_fills"],
               "%d late gap fills verified" % ps["late_fills"])
        elif t == "psn_gap" and a["code"] == 0:
            o = oracle_nc.get(key, (0, 0))
            nc = d.get("not_captured")
            if nc is None:
                q = qps.get(key) or {}
                nc = (q.get("request_psn") or {}).get("not_captured")
            ck(tag + " not_captured=%s" % nc, (nc or 0) <= o[0],
               "the file shows %d PSNs never seen, ACKed, never NAKed, not READ-reserved" % o[0])
            ck(tag + " lost=%s" % d.get("lost"), (d.get("lost") or 0) <= o[1], "%d skipped PSNs NAKed" % o[1])
            if is_reorder:
                ck(tag + " lost=%s (reordering only)" % d.get("lost"), not d.get("lost"))
            if is_sample:
                ck(tag + " not_captured=%s (every frame captured)" % nc, not nc)
        elif t == "qp_gave_up":
            check_gave_up(cap, a, key, tag)
        elif t == "dscp_unexpected":
            check_dscp(cap, a, key, tag)
        elif t == "roce_on_other_port":
            got = other_port(cap).get(a["code"], 0)
            ck("%s roce_on_other_port port %d count=%d" % (name, a["code"], a["count"]), a["count"] <= got,
               "%d datagrams to it carry a BTH with a matching ICRC" % got)
        if t == "retransmission" and is_sample and d:
            b = truth_budget(key[0])
            ck(tag + " resends_not_captured=%s" % d.get("resends_not_captured"),
               (d.get("resends_not_captured") or 0) <= b, "only %d frames were lost on the way" % b)
    check_oneway(cap, js)
    check_dreq(cap, js)


def check_gave_up(cap, a, key, tag):
    d = a.get("details") or {}
    out = d.get("outcome")
    if out is None:
        s = a.get("description", "")
        out = "rnr_retry_exhausted" if "RNR retry count ran out" in s else \
            "retry_exhausted" if "retry count ran out" in s else None
    if out not in ("retry_exhausted", "rnr_retry_exhausted"):
        return
    frames = cap.streams.get(key, [])
    resp = cap.peer.get(key, [])
    conn, client = cap.conn_of(key)
    if conn is None:
        ck(tag + " outcome=%s" % out, False, "no CM REQ for this connection in the file: the count is not known")
        return
    if out == "retry_exhausted":
        cnt = conn["retry"]
        last = max((k["t"] for k in resp), default=0)
        after = [r for r in frames if r["t"] > last]
        eps, hi = 0, None
        seen = {r["psn"] for r in frames if r["t"] <= last}
        for r in after:
            if r["psn"] in seen and (hi is None or pdiff(r["psn"], hi) <= 0):
                eps += 1
            seen.add(r["psn"])
            hi = r["psn"]
        ck(tag + " retry_exhausted retry_count=%s" % d.get("retry_count", "?"),
           d.get("retry_count", cnt) == cnt and eps == cnt,
           "the REQ's Retry Count is %s and %d re-send episodes came after the last answer" % (cnt, eps))
    else:
        cnt = conn["rnr_rep"] if client else conn["rnr_req"]
        rn, inrow = None, 0
        for k in resp:
            if is_nak(k, True):
                inrow += 1
                rn = k
            elif k["syn"] is not None and k["syn"] < 0x20:
                inrow = 0
        later = [r for r in sender_order(frames) if rn is not None and r["t"] > rn["t"]]
        # silence: no re-send run begins after the last RNR NAK (packets in flight may finish their run)
        silent = rn is not None and all(pdiff(b["psn"], a["psn"]) > 0 for a, b in zip(later, later[1:]))
        ck(tag + " rnr_retry_exhausted rnr_retry_count=%s" % d.get("rnr_retry_count", "?"),
           cnt is not None and cnt != 7 and d.get("rnr_retry_count", cnt) == cnt and inrow == cnt + 1 and silent,
           "RNR Retry Count %s, %d RNR NAKs in a row at the end, silence after: %s" % (cnt, inrow, silent))


def check_dscp(cap, a, key, tag):
    kind = dscp_kind(a)
    if kind not in ("directions_differ", "split"):
        ck(tag + " kind=%s" % kind, False, "a DSCP finding against a --dscp this run did not give")
        return
    mine = {}
    for r in cap.frames:
        if r["op"] is not None and r["op"] != 0x81 and r["dscp"] is not None:
            mine.setdefault((r["src"], r["dst"], r["qp"]), set()).add(r["dscp"])
    own = mine.get(key, set())
    if kind == "split":
        ck(tag + " kind=split", len(own) > 1, "tshark reads DSCPs %s" % sorted(own))
        return
    d = a.get("details") or {}
    peer = {x["dscp"] for x in d.get("peer_dscps", [])} or None
    rev = [v for (s, t, q), v in mine.items() if (s, t) == (key[1], key[0])]
    ck(tag + " kind=directions_differ", own and any(v != own and (peer is None or v == peer) for v in rev),
       "DSCPs %s; the reverse direction's: %s" % (sorted(own), [sorted(v) for v in rev]))


_OTHER = {}


def other_port(cap):
    if cap.path in _OTHER:
        return _OTHER[cap.path]
    cnt = {}
    for r in cap.frames:
        p = r["udp.dstport"]
        if p is None or p == 4791 or r["op"] is not None or not r["udp.payload"]:
            continue
        b = bytes.fromhex(r["udp.payload"].replace(":", ""))
        if len(b) >= 16 and b[0] in KNOWN_OPS:
            c = icrc(r, b)
            if c and c[0] == c[1]:
                cnt[p] = cnt.get(p, 0) + 1
    _OTHER[cap.path] = cnt
    return cnt


def check_oneway(cap, js):
    sn = js.get("capture", {}).get("sniffer") or {}
    back = {(r["src"], r["dst"]) for r in cap.frames if r["op"] is not None and r["src"]}
    rc1 = sum(1 for (s, d, q) in cap.streams if (d, s) not in back)
    pairs = {frozenset(p) for p in back if len(set(p)) == 2 and not p[1].startswith(("224.", "239.", "ff"))}
    ow = sum(1 for p in pairs if len({x for x in back if frozenset(x) == p}) == 1)
    ck("%s sniffer.rc_qps_one_way=%s" % (cap.name, sn.get("rc_qps_one_way")), (sn.get("rc_qps_one_way") or 0) <= rc1,
       "%d RC request half-flows whose responder's host sent nothing back" % rc1)
    ck("%s sniffer.host_pairs_one_way=%s" % (cap.name, sn.get("host_pairs_one_way")),
       (sn.get("host_pairs_one_way") or 0) <= ow, "%d host pairs with RoCE frames from one side only" % ow)


def check_dreq(cap, js):
    dreqs = [r for r in cap.frames if cap.cm.get(r["n"]) == "DREQ"]
    dreps = [r for r in cap.frames if cap.cm.get(r["n"]) == "DREP"]
    pairs = [(q, p) for q in dreqs for p in dreps if p["n"] > q["n"] and p["src"] == q["dst"] and
             p["infiniband.cm.drsp.remotecommid"] == q["infiniband.cm.dreq.localcommid"]]
    for c in js.get("connections", []):
        ms = (c.get("durations_ms") or {}).get("dreq_to_drep")
        if ms is None:
            continue
        ok = any(abs((p["t"] - q["t"]) / 1e6 - ms) <= 0.001 for q, p in pairs)
        ck("%s connection %s dreq_to_drep=%s" % (cap.name, c.get("id"), ms), ok,
           "no DREQ and the other side's DREP naming it that far apart (%s)" %
           ["%d->%d" % (q["n"], p["n"]) for q, p in pairs][:4])


def check_cm_rows(cap, rows):
    for n, v in rows.items():
        m = ival(v.get("cm_response_to"))
        kind = cap.cm.get(n)
        if m is None or kind not in ("REP", "RTU", "REJ", "DREP"):
            continue
        r, q = cap.byn.get(n), cap.byn.get(m)
        qk = cap.cm.get(m)
        if kind == "REP":
            ok = qk == "REQ" and r["infiniband.cm.rep.remotecommid"] == q["infiniband.cm.req"]
        elif kind == "RTU":
            ok = qk == "REP" and r["infiniband.cm.rtu.remotecommid"] == q["infiniband.cm.rep"]
        elif kind == "REJ":
            ok = (qk == "REQ" and r["infiniband.cm.rej.remotecommid"] == q["infiniband.cm.req"]) or \
                (qk == "REP" and r["infiniband.cm.rej.remotecommid"] == q["infiniband.cm.rep"])
        else:
            ok = qk == "DREQ" and r["infiniband.cm.drsp.remotecommid"] == q["infiniband.cm.dreq.localcommid"] \
                and r["src"] == q["dst"]
        ck("%s frame %d %s cm_response_to=%d" % (cap.name, n, kind, m), ok and m < n,
           "frame %d (%s) is not the message it answers by the Communication IDs" % (m, qk))


def truth_txt_budgets(path, cap):
    """The same from a NAME.truth.txt (the kernel storage samples, rxe-vm.sh
    iser/nfs): its netem line and each guest's `rdma statistic` sent_pkts
    before and after the workload (samples/README.md)."""
    text = open(path[:-5] + ".truth.txt").read()
    m = re.search(r"^# \S+: .*netem server=(.*) client=(.*)$", text, re.M)
    out = {}
    for side, ip in (("server", "192.0.2.1"), ("client", "192.0.2.2")):
        if not m or m.group(1 if side == "server" else 2) == "none":
            continue
        sent = []
        for when in ("before the workload", "after it"):
            sec = re.search(r"^%s rxe0 counters %s:\n((?:  \|.*\n)*)" % (side, when), text, re.M)
            n = sec and re.search(r"sent_pkts\s+(\d+)", sec.group(1))
            sent.append(int(n.group(1)) if n else None)
        if None in sent:
            continue
        held = sum(1 for r in cap.frames if r["src"] == ip and r["op"] is not None)
        out[ip] = max(0, sent[1] - sent[0] - held)
    return lambda h: out.get(h, 0)


def truth_budgets(path, cap):
    """source host -> frames netem dropped on the way from it (RXE sent_pkts minus frames held)."""
    tp = path[:-5] + ".truth.json"
    out = {}
    if not os.path.exists(tp):
        if os.path.exists(path[:-5] + ".truth.txt"):
            return truth_txt_budgets(path, cap)
        return lambda h: 0
    try:
        truths = json.load(open(tp))
    except ValueError:
        return lambda h: 0
    for t in truths if isinstance(truths, list) else [truths]:
        net, rc = t.get("netem") or {}, t.get("rxe_counters") or {}
        for side in ("client", "server"):
            ip = (t.get(side) or {}).get("ip")
            if not ip and t.get("connections"):        # a --qps run: the first connection's hosts
                srv = t["connections"][0].get("server") or {}
                ip = srv.get("ip") if side == "server" else srv.get("peer_ip")
            if not ip or not net.get(side) or side not in rc:
                continue
            sent = (rc[side].get("delta") or {}).get("sent_pkts", 0)
            held = sum(1 for r in cap.frames if r["src"] == ip and r["op"] is not None)
            out[ip] = out.get(ip, 0) + max(0, sent - held)
    return lambda h: out.get(h, 0)


def captures():
    pats = ["samples/*.pcap", "samples/impair/*.pcap", "samples/evidence/*.pcap"]
    out = [p for pat in pats for p in sorted(glob.glob(os.path.join(ROOT, pat)))]
    for pat in ("captures/*.pcap", "hw-captures/*.pcap*", "public-captures/*"):
        for p in sorted(glob.glob(os.path.join(SHARED, pat))):
            with open(p, "rb") as f:
                magic = f.read(4)
            if magic in (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d",
                         b"\x0a\x0d\x0d\x0a"):
                out.append(p)
    return out


def one(path):
    ck.files.add(os.path.basename(path))
    frames = tshark(path)
    cap = Cap(path, frames)
    rows = rocestat_rows(path)
    js = rocestat_json(path)
    ck("%s: rocestat --fields gave a row per frame" % cap.name, len(rows) >= len([r for r in frames if r["op"]]),
       "%d rows, %d RoCE frames" % (len(rows), len([r for r in frames if r["op"]])))
    ck("%s: rocestat --format json parsed" % cap.name, js is not None)
    per_stream, copies = check_frames(cap, rows)
    check_cm_rows(cap, rows)
    rel = os.path.relpath(path, ROOT)
    is_sample = rel.startswith("samples/")
    is_reorder = is_sample and os.path.basename(path).startswith("reorder_")
    if js is not None:
        check_json(cap, js, per_stream, copies, truth_budgets(path, cap), is_sample, is_reorder)


def main():
    t0 = time.time()
    files = captures()
    for p in files:
        one(p)
    ck.settle()
    print("check_evidence: %d captures, %d checks, %d failed (%.1f s)" % (
        len(files), ck.checks, ck.failures, time.time() - t0))
    if need_shared("check_evidence", exit=False):
        return 1
    return 1 if ck.failures else 0


if __name__ == "__main__":
    sys.exit(main())
