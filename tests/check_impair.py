#!/usr/bin/env python3
"""The impaired Soft-RoCE samples (samples/impair/) against their ground truth.

Each samples/impair/NAME.pcap was recorded in the server guest while netem
impaired one side's egress, or while a scenario made the responder refuse
(RNR) or vanish (dead-peer); see samples/README.md, "Impaired samples". The
expected values come ONLY from NAME.truth.json: the work requests rocegen
posted, their completions (status), the QP attributes, and both guests' RXE
counters (`rdma statistic`, before and after) and qdisc statistics. Nothing
is taken from rocestat's own output. Then `rocestat -n --format json` is
compared with them.

What is derived, per run (a replay's truth is a list of runs):

  * messages and payload per kind on the requester's half-flow: every WR
    that completed successfully was on the wire once as a message; so was
    the one that failed with retry/RNR-retry exceeded (status 12/13), and
    so were the WRs flushed behind it that had been posted before that
    failure (RXE transmits a WR as soon as it is posted; it sent every one
    of them at least once, and re-sent them on each retry). A WR posted
    after the failure is flushed without reaching the wire. A message
    counts once however often its packets were sent; its payload counts
    each PSN once, so a failed WRITE still contributes its full length.
  * the request packets the requester re-sent: client sent_pkts minus the
    unique request packets (each wire WR: ceil(length / path MTU), one for
    a READ request) minus the CM MADs the client sent (rdma_sends, which
    counts completed SEND-type WRs including the MADs on QP1, minus the
    client's own SEND WRs). They are all in the capture unless netem on
    the client dropped some (loss), so the check is exact only then.
  * requests the responder saw twice: the server's duplicate_request; with
    no requester re-send at all (R = 0) every one of them is a network
    duplicate (netem duplicate).
  * NAKs: PSN sequence error NAKs sent = the server's out_of_seq_request
    (RXE sends one per out-of-sequence run), RNR NAKs sent = send_rnr_err
    = the client's rcvd_rnr_err when nothing drops the server's frames.
  * retry exhaustion from the completion status (12 transport, 13 RNR),
    agreeing with retry_exceeded_err / retry_rnr_exceeded_err.
  * connections: one per run (a replay holds two).
  * latency: no request->ACK sample can exceed the longest time a
    successful WR took from posting to completion (client clock).

rocestat's fields for the causes (man/rocestat.schema.json), read under this
script's names (retransmissions(), retry_exhausted() below; a missing field
is a failure, never a skip):
  request_psn.resent_by_cause {nak, rnr, timeout, read_retry} -> go_back_n,
      rnr_retry, timeout_retry, read_retry; network_duplicates;
      out_of_order -> late_arrival; resent_episodes_by_cause -> episodes;
  request_psn.gave_up -> retry_exhausted {"kind": "transport" | "rnr"};
  latency_ns.resent_not_timed: samples left out by Karn's rule.

Part of `make check` (`make impair`).
Prints every mismatch with the file and QP, then "N passed, N failed"
(checks); exit status 1 if any failed.
"""
import argparse
import glob
import json
import math
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, ROOT, SHARED, Checks, tshark_fields as tshark_rows, need_shared  # noqa: E402

need_shared("check_impair")

WR_KIND = {"SEND": "send", "SEND_WITH_IMM": "send_imm", "RDMA_WRITE": "write",
           "RDMA_WRITE_WITH_IMM": "write_imm", "RDMA_READ": "read",
           "ATOMIC_CMP_AND_SWP": "atomic_cas", "ATOMIC_FETCH_AND_ADD": "atomic_faa"}
SEND_WRS = ("SEND", "SEND_WITH_IMM")
OK, FLUSH, RETRY_EXC, RNR_RETRY_EXC = 0, 5, 12, 13
CAUSES = ("network_duplicate", "go_back_n", "rnr_retry", "timeout_retry", "read_retry", "late_arrival")

check = Checks("check_impair")


def netem_drops(spec):
    """Whether a netem spec can drop frames before the wire."""
    return bool(spec) and "loss" in spec.split()


class Expect:
    """What one run's truth says the capture must show."""

    def __init__(self, t):
        self.t = t
        srv, cli = t["server"], t["client"]
        self.sip, self.cip = srv["ip"], cli["ip"]
        self.srv_qpn, self.cli_qpn = srv["qpn"], cli["qpn"]
        self.mtu = t["params"].get("path_mtu") or 1024
        self.netem = t.get("netem") or {}
        cnt = t.get("rxe_counters") or {}
        self.sc = (cnt.get("server") or {}).get("delta")
        self.cc = (cnt.get("client") or {}).get("delta")
        side = "client"
        wrs = [w for w in t["work_requests"] if w["side"] == side]
        wcs = {c["wr_id"]: c for c in t["completions"] if c["side"] == side}
        errs = [c for c in t["completions"] if c["side"] == side and c["status"] not in (OK, FLUSH)]
        t_fail = min((c["t"] for c in errs), default=None)
        self.statuses = sorted({c["status"] for c in errs})
        self.wire = []
        for w in wrs:
            st = wcs.get(w["wr_id"], {}).get("status")
            if st == FLUSH and (t_fail is None or w["t"] > t_fail):
                continue        # flushed without having been sent
            if st is None:
                continue        # never completed: not claimed either way
            self.wire.append(w)
        self.msgs, self.bytes = {}, {}
        for w in self.wire:
            k = WR_KIND[w["opcode"]]
            self.msgs[k] = self.msgs.get(k, 0) + 1
            self.bytes[k] = self.bytes.get(k, 0) + (8 if k.startswith("atomic") else w["length"])
        self.unique_req_pkts = sum(1 if w["opcode"] == "RDMA_READ" or w["opcode"].startswith("ATOMIC")
                                   else max(1, math.ceil(w["length"] / self.mtu)) for w in self.wire)
        self.n_ok = sum(1 for w in wrs if wcs.get(w["wr_id"], {}).get("status") == OK)
        # PSNs on the wire whose WR did not complete: never acknowledged
        self.unacked = sum(1 if w["opcode"] == "RDMA_READ" or w["opcode"].startswith("ATOMIC")
                           else max(1, math.ceil(w["length"] / self.mtu))
                           for w in self.wire if wcs.get(w["wr_id"], {}).get("status") != OK)
        # ... and the first of them: after every PSN of the WRs before
        # the first that failed (a QP completes in order)
        first_bad = next((i for i, w in enumerate(self.wire) if wcs.get(w["wr_id"], {}).get("status") != OK), None)
        self.unacked_from = None if first_bad is None else (t["client"]["sq_psn"] + sum(
            1 if w["opcode"] == "RDMA_READ" or w["opcode"].startswith("ATOMIC") else max(1, math.ceil(w["length"] / self.mtu))
            for w in self.wire[:first_bad])) & 0xFFFFFF
        # the longest post->completion time of a successful WR
        life = [wcs[w["wr_id"]]["t"] - w["t"] for w in wrs if wcs.get(w["wr_id"], {}).get("status") == OK]
        self.max_life_ns = int(max(life) * 1e9) if life else None
        self.resent = None
        if self.cc:
            send_wcs = sum(1 for w in wrs if w["opcode"] in SEND_WRS and w["wr_id"] in wcs)
            self.mads = self.cc["rdma_sends"] - send_wcs
            self.resent = self.cc["sent_pkts"] - self.mads - self.unique_req_pkts
        # every re-sent request packet reached the capture point
        self.resent_exact = self.resent is not None and not netem_drops(self.netem.get("client"))
        self.server_drops = netem_drops(self.netem.get("server"))


def tshark_fields(pcap, flt, field):
    """One field's values in the frames tshark's display filter keeps."""
    return [v for r in tshark_rows(pcap, [field], flt, heuristics_off=False) for v in r[0].split() if v]


def rocestat_json(pcap, rocestat):
    p = subprocess.run([rocestat, "-n", "--format", "json", pcap], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError("rocestat --format json exited %d: %s" % (p.returncode, p.stderr.strip()))
    return json.loads(p.stdout)


def get(d, *path):
    """d[path[0]][path[1]]..., or the KeyError text naming the missing field."""
    for k in path:
        if not isinstance(d, dict) or k not in d:
            return KeyError("no field " + ".".join(path))
        d = d[k]
    return d


def eq(what, got, want):
    if isinstance(got, KeyError):
        return check(what, False, "%s (want %r)" % (got.args[0], want))
    return check(what, got == want, "got %r, want %r" % (got, want))


def check_run(name, run_no, e, conn, rep, verbose):
    t = e.t
    tag = "%s%s" % (name, " run %d" % run_no if run_no else "")
    qps = [q for q in rep["qps"] if conn is not None and q.get("connection") == conn["id"]]
    fwd = [q for q in qps if q["src"] == e.cip and q["dest_qp"] == e.srv_qpn]
    back = [q for q in qps if q["src"] == e.sip and q["dest_qp"] == e.cli_qpn]
    qtag = "%s: %s -> %s QP 0x%x" % (tag, e.cip, e.sip, e.srv_qpn)
    btag = "%s: %s -> %s QP 0x%x" % (tag, e.sip, e.cip, e.cli_qpn)
    if not check("%s: one requester half-flow in this run's connection" % qtag, len(fwd) == 1,
                 "found %d" % len(fwd)):
        return
    q = fwd[0]
    b = back[0] if back else None
    if verbose:
        print("%s: expect messages %s bytes %s, re-sent %s (exact: %s), counters client %s server %s" % (
            tag, e.msgs, e.bytes, e.resent, e.resent_exact,
            {k: v for k, v in (e.cc or {}).items() if v}, {k: v for k, v in (e.sc or {}).items() if v}))

    eq("%s: paired by CM" % qtag, q["pairing"], "cm")
    eq("%s: first request PSN is the client's sq_psn" % qtag, q["request_psn"]["first_psn"], t["client"]["sq_psn"])

    # messages and payload
    for k in sorted(set(WR_KIND.values())):
        eq("%s: %s messages" % (qtag, k), q["messages"].get(k), e.msgs.get(k, 0))
        eq("%s: %s message bytes" % (qtag, k), q["message_bytes"].get(k), e.bytes.get(k, 0))
    if e.msgs.get("read"):
        eq("%s: READ response payload" % btag, b and b["payload_bytes"], e.bytes["read"])
    else:
        eq("%s: payload bytes (each PSN once)" % qtag, q["payload_bytes"], sum(e.bytes.values()))

    # re-sent request packets, and their causes
    causes = retransmissions(q)
    if e.resent is not None:
        if e.resent_exact:
            eq("%s: request packets the requester re-sent (client sent_pkts - MADs - unique)" % qtag,
               q["retransmitted_packets"], e.resent)
        else:
            check("%s: re-sent request packets at most what the requester re-sent (%d)" % (qtag, e.resent),
                  q["retransmitted_packets"] <= e.resent, "got %d" % q["retransmitted_packets"])
        if isinstance(causes, KeyError):
            check("%s: retransmission causes" % qtag, False, causes.args[0] + " (proposed: qps[].retransmissions)")
        else:
            requester = sum(causes.get(c, 0) for c in ("go_back_n", "rnr_retry", "timeout_retry", "read_retry"))
            if e.resent_exact:
                eq("%s: causes of the requester's re-sends add up" % qtag, requester, e.resent)
            cc = e.cc
            if cc["rcvd_rnr_err"] == 0:
                eq("%s: no RNR retries (client rcvd_rnr_err 0)" % qtag, causes.get("rnr_retry"), 0)
            if cc["rcvd_rnr_err"] == 0 and e.cip.count(".") == 3:
                # rdma_rxe counts one completer_retry_err each time it goes
                # back (after a NAK, or on its timer); IPv4 numbers the
                # packets, so reordering must not split a run into several.
                eq("%s: go-back runs (client completer_retry_err)" % qtag,
                   sum(causes.get(k, 0) for k in ("go_back_n_episodes", "timeout_retry_episodes")),
                   cc["completer_retry_err"])
                if e.sc and not e.server_drops:
                    check("%s: go-back runs after a NAK at most the NAKs sent (server out_of_seq_request %d)"
                          % (qtag, e.sc["out_of_seq_request"]),
                          causes.get("go_back_n_episodes", 0) <= e.sc["out_of_seq_request"],
                          "got %r" % causes.get("go_back_n_episodes"))
            if cc["completer_retry_err"] == 0:
                eq("%s: no timeout retries (client completer_retry_err 0)" % qtag, causes.get("timeout_retry"), 0)
                eq("%s: no go-back-N (client completer_retry_err 0)" % qtag, causes.get("go_back_n"), 0)
                if e.resent_exact:
                    eq("%s: every re-send is an RNR retry" % qtag, causes.get("rnr_retry"), e.resent)
                eq("%s: RNR retry episodes (client rcvd_rnr_err - retry_rnr_exceeded_err)" % qtag,
                   causes.get("rnr_retry_episodes"), cc["rcvd_rnr_err"] - cc["retry_rnr_exceeded_err"])
            if cc["rcvd_seq_err"] == 0 and e.sc and e.sc["out_of_seq_request"] == 0 and cc["rcvd_rnr_err"] == 0:
                eq("%s: no go-back-N without a NAK" % qtag, causes.get("go_back_n"), 0)
                if e.resent_exact and not e.msgs.get("read"):
                    eq("%s: every re-send is a timeout retry" % qtag, causes.get("timeout_retry"), e.resent)
                eq("%s: timeout retry episodes (client completer_retry_err)" % qtag,
                   causes.get("timeout_retry_episodes"), cc["completer_retry_err"])
            if e.resent == 0 and e.sc:
                eq("%s: network duplicates (server duplicate_request, requester re-sent nothing)" % qtag,
                   causes.get("network_duplicate"), e.sc["duplicate_request"])
            if "duplicate" not in (e.netem.get("client") or ""):
                eq("%s: no network duplicates (no netem duplicate)" % qtag, causes.get("network_duplicate"), 0)
            if "reorder" not in (e.netem.get("client") or ""):
                eq("%s: no late arrivals (no netem reorder)" % qtag, causes.get("late_arrival"), 0)

    # NAKs, from the responder's counters (all its frames are captured
    # unless its own netem drops some)
    if e.sc and b is not None:
        seq = b["naks"]["psn_sequence_error"]
        if e.server_drops:
            check("%s: PSN sequence error NAKs at most server out_of_seq_request (%d)" % (btag, e.sc["out_of_seq_request"]),
                  seq <= e.sc["out_of_seq_request"], "got %d" % seq)
        else:
            eq("%s: PSN sequence error NAKs (server out_of_seq_request)" % btag, seq, e.sc["out_of_seq_request"])
            eq("%s: RNR NAKs (server send_rnr_err)" % btag, b["rnr_naks"], e.sc["send_rnr_err"])
            eq("%s: RNR NAKs (client rcvd_rnr_err)" % btag, b["rnr_naks"], e.cc["rcvd_rnr_err"])
    elif e.sc and (e.sc["send_rnr_err"] or e.sc["out_of_seq_request"]):
        check("%s: the responder's NAKs are in the capture" % btag, False, "no half-flow")

    # corruption: every frame the client sent reached the server's NIC
    # (netem corrupt drops nothing) and is in the capture; the ones rxe's
    # checks refused are the difference between the two counters. A bit
    # flipped where the ICRC does not look (IP/UDP checksum, TTL) would
    # make them differ: then look at that frame.
    if "corrupt" in (e.netem.get("client") or "") and e.cc and e.sc:
        eq("%s: bad-ICRC frames (client sent_pkts - server rcvd_pkts)" % qtag,
           q["icrc_bad"], e.cc["sent_pkts"] - e.sc["rcvd_pkts"])
    elif not e.netem.get("client") and not e.netem.get("server"):
        eq("%s: no bad-ICRC frame" % qtag, q["icrc_bad"], 0)

    # retry exhaustion
    want = None
    if RETRY_EXC in e.statuses:
        want = "transport"
    elif RNR_RETRY_EXC in e.statuses:
        want = "rnr"
    if e.cc:
        eq("%s: truth: retry_exceeded_err agrees with the completions" % tag,
           e.cc["retry_exceeded_err"], 1 if want == "transport" else 0)
        eq("%s: truth: retry_rnr_exceeded_err agrees with the completions" % tag,
           e.cc["retry_rnr_exceeded_err"], 1 if want == "rnr" else 0)
    if want == "transport":
        eq("%s: request PSNs never acknowledged (the wire WRs that did not complete)" % qtag,
           q.get("unacknowledged_psns"), e.unacked)
        eq("%s: first request PSN never acknowledged (sq_psn + PSNs of the WRs that completed)" % qtag,
           q.get("unacknowledged_from_psn"), e.unacked_from)
    ex = retry_exhausted(q)
    if isinstance(ex, KeyError):
        check("%s: retry exhaustion %s" % (qtag, want or "none"), False, ex.args[0] + " (proposed: qps[].retry_exhausted)")
    else:
        eq("%s: retry exhaustion" % qtag, ex and ex.get("kind"), want)

    # latency: no sample spans more than a WR's whole life
    ack = q["latency_ns"]["ack"]
    if ack and e.max_life_ns is not None:
        check("%s: request->ACK latency max <= longest WR post->completion (%.1f ms)" % (qtag, e.max_life_ns / 1e6),
              ack["max"] <= e.max_life_ns, "max %.1f ms" % (ack["max"] / 1e6))
        check("%s: at most one ACK latency sample per successful message (%d)" % (qtag, e.n_ok),
              ack["count"] <= e.n_ok, "got %d" % ack["count"])
    if e.resent and want is None:  # a requester that gave up got no answers to leave out
        ex = get(q, "latency_ns", "resent_not_timed")
        check("%s: Karn's rule: retried requests left out of the latency" % qtag,
              not isinstance(ex, KeyError) and ex > 0,
              ex.args[0] if isinstance(ex, KeyError) else "got %r" % ex)


def retransmissions(q):
    """The requester half-flow's re-sends by cause, under the names this
    script uses, from rocestat's request_psn object (man/rocestat.schema.json)."""
    r = get(q, "request_psn")
    if isinstance(r, KeyError) or r is None:
        return KeyError("no request_psn")
    try:
        by, ep = r["resent_by_cause"], r["resent_episodes_by_cause"]
        return {"network_duplicate": r["network_duplicates"], "go_back_n": by["nak"], "rnr_retry": by["rnr"],
                "timeout_retry": by["timeout"], "read_retry": by["read_retry"], "late_arrival": r["out_of_order"],
                "rnr_retry_episodes": ep["rnr"], "timeout_retry_episodes": ep["timeout"] + ep["read_retry"],
                "go_back_n_episodes": ep["nak"]}
    except KeyError as k:
        return KeyError("no field request_psn.%s" % k.args[0])


def retry_exhausted(q):
    """None, or {"kind": "transport" | "rnr"}: the requester gave up."""
    r = get(q, "request_psn")
    if isinstance(r, KeyError) or r is None or "gave_up" not in r:
        return KeyError("no field request_psn.gave_up")
    return {"retry_exhausted": {"kind": "transport"}, "rnr_retry_exhausted": {"kind": "rnr"}}.get(r["gave_up"])


def check_file(path, rocestat, verbose):
    name = os.path.basename(path)[:-len(".truth.json")]
    pcap = path[:-len(".truth.json")] + ".pcap"
    with open(path) as f:
        t = json.load(f)
    runs = t if isinstance(t, list) else [t]
    for i, r in enumerate(runs):
        check("%s: truth of run %d says both sides did what the scenario says" % (name, i + 1), r.get("ok") is True)
    rep = rocestat_json(pcap, rocestat)
    conns = sorted((c for c in rep["connections"] if c["kind"] == "connected"),
                   key=lambda c: c["first_frames"].get("REQ") or 0)
    eq("%s: connections (one per run)" % name, len(conns), len(runs))
    for i, r in enumerate(runs):
        e = Expect(r)
        conn = conns[i] if i < len(conns) else None
        tag = "%s%s" % (name, " run %d" % (i + 1) if len(runs) > 1 else "")
        if conn is None:
            check("%s: a connection for this run" % tag, False)
            continue
        eq("%s: client QPN" % tag, conn["client"]["qpn"], e.cli_qpn)
        eq("%s: client start PSN" % tag, conn["client"]["start_psn"], r["client"]["sq_psn"])
        # a QP that ran out of retries failed, whatever teardown followed
        failed = RETRY_EXC in e.statuses or RNR_RETRY_EXC in e.statuses
        eq("%s: state" % tag, conn["state"], "failed" if failed else "closed")
        check_run(name, i + 1 if len(runs) > 1 else 0, e, conn, rep, verbose)
    # A gap's re-sent PSNs name who re-sent them: the server is the responder
    # in every scenario (truth: the client posts the WRs), so on its half-flows
    # (READ responses) the responder, on the client's the requester.
    for r in runs:
        for a in rep["anomalies"]:
            d = a.get("description", "")
            if "PSNs skipped" not in d or " re-sent by the " not in d:
                continue
            who = "responder" if a.get("src") == r["server"]["ip"] else "requester"
            if a.get("src") in (r["server"]["ip"], r["client"]["ip"]):
                check("%s: gap re-sends on %s's half-flow named as the %s's" % (name, a.get("src"), who),
                      " re-sent by the %s" % who in d, d)

    # A requester that gave up after timeouts: the CM REQ's Local ACK Timeout
    # (tshark) against the client QP's timeout in the truth (ibv_query_qp).
    # When they differ by 2 or more (4x in time, beyond RXE's jitter) the
    # sentence names the truth's timeout as the one the re-sends match; when
    # equal, it claims no change.
    cm = {int(x, 0) for x in tshark_fields(pcap, "infiniband.cm.req", "infiniband.cm.req.prim_localacktout")}
    for r in runs:
        tc = r["client"].get("timeout")
        for a in rep["anomalies"]:
            d = a.get("description", "")
            if a.get("type") != "qp_gave_up" or a.get("src") != r["client"]["ip"] or "Local ACK Timeout" not in d:
                continue
            if len(cm) != 1 or tc is None:
                check("%s: one CM REQ Local ACK Timeout and the client's timeout known" % name, False, "%s %s" % (cm, tc))
                continue
            t = cm.pop()
            cm.add(t)
            said = "the period observed matches Local ACK Timeout %d (" % tc
            if abs(t - tc) >= 2:
                check("%s: gave-up sentence names the QP's timeout %d (CM REQ %d)" % (name, tc, t), said in d, d)
            elif t == tc:
                check("%s: gave-up sentence claims no timeout change (CM REQ %d = QP %d)" % (name, t, tc),
                      "the period observed matches" not in d, d)
    starts = [a for a in rep["anomalies"] if "Starting PSN" in a.get("description", "")]
    eq("%s: no Starting-PSN anomaly" % name, [a["description"] for a in starts], [])


def log_counter(log, role, name):
    """A counter from the 'rdma statistic' lines of a rxe-lab log, in the
    console section of the server or the client guest."""
    part = re.split(r"=+ (server|client) guest console =+", open(log).read())
    text = dict(zip(part[1::2], part[2::2])).get(role, "")
    m = re.search(r"^\s*%s (\d+)$" % name, text, re.M)
    return int(m.group(1)) if m else None


def uncertain_causes(tmp, rocestat):
    """A re-send is put down to the requester's timer only when the capture
    could have shown a NAK. Truth: loss_write_bw's log, where the client
    went back (completer_retry_err) exactly as often as the server NAKed
    (out_of_seq_request), so no go-back was a timeout; and a capture of one
    direction, which holds no NAK at all."""
    src = os.path.join(SHARED, "captures", "loss_write_bw.pcap")
    log = src[:-len(".pcap")] + ".log"
    naks, backs = log_counter(log, "server", "out_of_seq_request"), log_counter(log, "client", "completer_retry_err")
    check("loss_write_bw.log: every go-back after a NAK (%s = %s)" % (backs, naks), naks is not None and naks == backs)
    key = ("192.0.2.2", "192.0.2.1", 0x12)
    what = re.search(r"^# what: netem (\S+ \S+) on the client", open(log).read(), re.M)
    what = what.group(1) if what else None
    check("loss_write_bw.log: netem loss only (%s)" % what, bool(what) and what.split()[0] == "loss")
    for first in (224, 60, 1000):
        cut = os.path.join(tmp, "cut.pcap")
        subprocess.run(["editcap", "-r", src, cut, "%d-99999999" % first], check=True, capture_output=True)
        d = rocestat_json(cut, rocestat)
        q = [q for q in d["qps"] if (q["src"], q["dst"], q["dest_qp"]) == key]
        rb = get(q[0], "request_psn", "resent_by_cause") if q else KeyError("no QP 0x12 requester")
        eq("loss_write_bw from frame %d: no re-send put down to a timeout" % first,
           rb.get("timeout") if isinstance(rb, dict) else rb, 0)
        # netem only dropped (the log's 'what' line): nothing came late.
        eq("loss_write_bw from frame %d: nothing called late (netem: %s)" % (first, what),
           get(q[0], "request_psn", "out_of_order") if q else KeyError("no QP 0x12"), 0)
        gap = [an for an in d["anomalies"] if an["type"] == "psn_gap" and an.get("dest_qp") == 0x12
               and an.get("src") == key[0]]
        missing = get(q[0], "request_psn", "missing_psns") if q else None
        check("loss_write_bw from frame %d: the gap sentence counts the stream's %s skipped PSNs" % (first, missing),
              bool(gap) and gap[0]["description"].split(": ", 1)[1].startswith("%s PSNs skipped" % missing),
              repr(gap[0]["description"][:120] if gap else None))
    src = os.path.join(ROOT, "samples", "impair", "loss_req_write.pcap")
    one = os.path.join(tmp, "oneway.pcap")
    subprocess.run([rocestat, "-r", src, "-w", one, "src host 192.0.2.2"], capture_output=True)
    d = rocestat_json(one, rocestat)
    total = {"timeout": 0, "read_retry": 0, "nak": 0, "rnr": 0, "unknown": 0}
    for q in d["qps"]:
        for k, v in q["request_psn"]["resent_by_cause"].items():
            total[k] += v
    check("loss_req_write, the requester's direction only: re-sends, all of unknown cause (%r)" % total,
          total["unknown"] > 0 and total["unknown"] == sum(total.values()))
    # Each direction of ib_write_bw_cm alone: every exchange finished in the
    # whole file (tshark: each side's REQ/REP and DREQ answered), so neither
    # half may call a handshake incomplete.
    src = os.path.join(SHARED, "captures", "ib_write_bw_cm.pcap")
    attrs = tshark_fields(src, "infiniband.mad", "infiniband.mad.attributeid")
    check("ib_write_bw_cm: tshark sees REPs and DREPs", "0x0013" in attrs and "0x0016" in attrs, repr(attrs))
    for host in ("192.0.2.1", "192.0.2.2"):
        subprocess.run([rocestat, "-r", src, "-w", one, "src host " + host], capture_output=True)
        d = rocestat_json(one, rocestat)
        bad = [an["description"] for an in d["anomalies"] if an["type"] == "cm_incomplete"]
        check("ib_write_bw_cm, only what %s sent: no handshake called incomplete" % host, not bad, repr(bad[:2]))


def overtaken_sendings(tmp, rocestat):
    """netem reorder without loss (truth: no netem 'loss' on either side):
    every sending of every request is in the capture, so no skipped PSN's
    first copy is missing. A copy that arrives after another copy of its
    PSN with a newer IP ID (tshark) is an earlier sending overtaken by its
    re-send: JSON late_after_resend counts them; those of a PSN that first
    came behind a higher one (skipped, then filled by the re-send) are said
    in the gap sentence as re-sent before their first copy, never 'first
    copy not in the capture'."""
    for name in ("reorder_send", "reorder_write"):
        base = os.path.join(ROOT, "samples", "impair", name)
        t = json.load(open(base + ".truth.json"))
        if any(netem_drops(v) for v in (t.get("netem") or {}).values()):
            check("%s: no netem loss in its truth" % name, False)
            continue
        cip, sip = t["client"]["ip"], t["server"]["ip"]
        out = subprocess.run(["tshark", "-r", base + ".pcap", "-Y",
                              "ip.src==%s && infiniband.bth.opcode < 13" % cip, "-T", "fields",
                              "-e", "infiniband.bth.psn", "-e", "ip.id"], capture_output=True, text=True,
                             check=True).stdout
        newest, first, top, overtaken, filled = {}, {}, None, 0, set()
        for line in out.splitlines():
            psn, ipid = line.split("\t")
            ipid, p = int(ipid, 0), int(psn)
            if psn in newest and ((newest[psn] - ipid) & 0xffff) < 0x8000 and newest[psn] != ipid:
                overtaken += 1
                # Its PSN came first behind a higher one (skipped, then
                # filled) by a later sending: re-sent before this first copy.
                if first[psn][1] and ((first[psn][0] - ipid) & 0xffff) < 0x8000:
                    filled.add(psn)
            if psn not in first:
                first[psn] = (ipid, top is not None and ((top - p) & 0xffffff) < 0x800000)
            if top is None or ((p - top) & 0xffffff) < 0x800000:
                top = p
            newest[psn] = ipid if psn not in newest or ((ipid - newest[psn]) & 0xffff) < 0x8000 else newest[psn]
        d = rocestat_json(base + ".pcap", rocestat)
        q = [q for q in d["qps"] if q["src"] == cip and q["dst"] == sip and q["request_psn"]["packets"]]
        eq("%s: late_after_resend = tshark's overtaken sendings" % name,
           q[0]["request_psn"]["late_after_resend"] if q else KeyError("no requester"), overtaken)
        text = subprocess.run([rocestat, "-n", "--width", "0", base + ".pcap"], capture_output=True,
                              text=True).stdout
        check("%s: never 'first copy not in the capture' (or 'not captured')" % name,
              "first copy not in the capture" not in text and "first copy not captured" not in text)
        check("%s: the PSNs line says the same" % name, len(filled) > 0 and re.search(
            r"^PSNs .*\n\s+%d re-sent by the requester before their first copy" % len(filled), text, re.M))
        check("%s: %d skipped PSNs re-sent before their first copy" % (name, len(filled)),
              len(filled) > 0 and "%d re-sent by the requester before their first copy" % len(filled) in text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("truth", nargs="*", help="NAME.truth.json (default: samples/impair/*.truth.json)")
    ap.add_argument("--rocestat", default=ROCESTAT)
    ap.add_argument("-v", "--verbose", action="store_true", help="print what each run's truth expects")
    a = ap.parse_args()
    files = a.truth or sorted(glob.glob(os.path.join(ROOT, "samples", "impair", "*.truth.json")))
    check("impaired samples found", bool(files), "none under samples/impair")
    for path in files:
        before = check.failures
        try:
            check_file(path, a.rocestat, a.verbose)
        except (RuntimeError, OSError, ValueError, KeyError, TypeError) as err:
            check("%s: checked" % os.path.basename(path), False, "%s: %s" % (type(err).__name__, err))
        print("check_impair: %-22s %s" % (os.path.basename(path)[:-len(".truth.json")],
                                          "ok" if check.failures == before else
                                          "%d failed" % (check.failures - before)))
    if not a.truth:
        with tempfile.TemporaryDirectory() as tmp:
            uncertain_causes(tmp, a.rocestat)
            overtaken_sendings(tmp, a.rocestat)
    print("check_impair: %d passed, %d failed" % (check.checks - check.failures, check.failures))
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
