#!/usr/bin/env python3
"""Regression cases for the analyzer: small captures built by
tests/cases/make_cases.py (independent of rocestat: Python and zlib), run
through rocestat, with what IBA and the CM rules say must be reported.

Run with ROCESTAT pointing at the binary (the sanitizer build in
`make sanitize`, where the eviction cases once were use-after-frees).
Exit status 0 when every expectation holds.
"""
import collections
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROCESTAT = os.environ.get("ROCESTAT", os.path.join(ROOT, "rocestat"))
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)


def run(args):
    p = subprocess.run([ROCESTAT] + args, capture_output=True, text=True)
    check(p.returncode in (0, 1), "rocestat %s exited %d: %s" % (" ".join(args), p.returncode, p.stderr[-500:]))
    return p


def report(path, *extra):
    p = run(["-n", "--format", "json"] + list(extra) + [path])

    def no_dup_keys(pairs):
        keys = [k for k, _ in pairs]
        dup = [k for k, n in collections.Counter(keys).items() if n > 1]
        check(not dup, "%s: duplicate JSON keys %s" % (os.path.basename(path), dup))
        return dict(pairs)
    return json.loads(p.stdout, object_pairs_hook=no_dup_keys)


def flow(d, src, dst, qp):
    found = [q for q in d["qps"] if q["src"] == src and q["dst"] == dst and q["dest_qp"] == qp]
    return found


def main():
    tmp = tempfile.mkdtemp(prefix="rocestat-cases.")
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "cases", "make_cases.py"), tmp], check=True)
    c = lambda n: os.path.join(tmp, n + ".pcap")  # noqa: E731
    A, B = "10.0.0.1", "10.0.0.2"

    # QPNs reused by a second connection: two connections, each with its own
    # half-flows; no fake retransmissions, gaps or duplicate ACKs.
    d = report(c("qpn_reuse"))
    check(len(d["connections"]) == 2, "qpn_reuse: %d connections, want 2" % len(d["connections"]))
    for conn, (cpsn, spsn) in zip(d["connections"], ((0x000200, 0x100000), (0x900000, 0x500000))):
        check(conn["state"] == "closed" and conn["data_seen"], "qpn_reuse: connection %s" % conn["id"])
        check(conn["client"]["first_request_psn"] == cpsn == conn["client"]["start_psn"],
              "qpn_reuse: client's first PSN %s, want %#x" % (conn["client"]["first_request_psn"], cpsn))
        check(conn["server"]["first_request_psn"] == spsn == conn["server"]["start_psn"],
              "qpn_reuse: server's first PSN %s, want %#x" % (conn["server"]["first_request_psn"], spsn))
    data = [q for q in d["qps"] if q["dest_qp"] > 1]
    check(len(data) == 4, "qpn_reuse: %d data half-flows, want 4 (two per connection)" % len(data))
    for q in data:
        check(q["retransmitted_packets"] == 0 and q["request_psn"]["gaps"] == 0 and q["duplicate_acks"] == 0,
              "qpn_reuse: %s->%s 0x%x retx %d gaps %d dup ACKs %d" % (q["src"], q["dst"], q["dest_qp"],
                                                                     q["retransmitted_packets"],
                                                                     q["request_psn"]["gaps"], q["duplicate_acks"]))
        check(q["pairing"] == "cm" and q["messages"]["send"] == 6, "qpn_reuse: %s pairing %s sends %d" %
              (q["dest_qp"], q["pairing"], q["messages"]["send"]))
    check(not d["anomalies"], "qpn_reuse: anomalies %s" % [a["type"] for a in d["anomalies"]])

    # Evicting flows that a connection (or two SIDR lookups) pointed at: no
    # dangling pointer (the sanitizer build aborts on one), evictions reported.
    for name in ("qpn_reuse_evict", "sidr_twice_evict"):
        for mode in (["--format", "json"], ["--ladder"], ["--plot", os.path.join(tmp, name + ".svg")]):
            run(["-n", "--max-flows", "8"] + mode + [c(name)])
        d = report(c(name), "--max-flows", "8")
        check(any(a["type"] == "flows_evicted" for a in d["anomalies"]), "%s: evictions not reported" % name)
        check(d["capture"]["half_flows"] <= 8, "%s: %d half-flows kept, cap 8" % (name, d["capture"]["half_flows"]))

    # Connection churn (make_cases.py builds 40 exchanges with known outcomes)
    # under --max-flows 8, which keeps at most 4 connections: the rest are
    # evicted idlest first, counted by the state they ended in, and their
    # anomalies kept. Without a cap, and with --ladder (which never evicts
    # connections), all 40 are listed.
    truth = {"established": 15, "closed": 10, "rejected": 5, "incomplete": 5, "resolved": 5}
    want_anoms = {"cm_reject": 5, "cm_incomplete": 5, "cm_retry": 5}
    for extra in ([], ["--max-flows", "8"]):
        d = report(c("conn_churn"), *extra)
        cap = d["capture"]
        kept = collections.Counter(x["state"] for x in d["connections"])
        total = {s: kept[s] + cap["connections_evicted_by_state"].get(s, 0) for s in set(kept) | set(truth)}
        label = "conn_churn %s" % (" ".join(extra) or "(no cap)")
        check(total == truth, "%s: states, kept + evicted: %s" % (label, total))
        check(len(d["connections"]) + cap["connections_evicted"] == 40,
              "%s: %d kept + %d evicted connections, want 40" % (label, len(d["connections"]),
                                                                  cap["connections_evicted"]))
        check(len({x["id"] for x in d["connections"]}) == len(d["connections"]), "%s: connection ids repeat" % label)
        got = collections.Counter()
        for a in d["anomalies"]:
            if a["type"] in want_anoms:
                got[a["type"]] += a["count"]
        check(dict(got) == want_anoms, "%s: CM anomalies %s, want %s" % (label, dict(got), want_anoms))
        if extra:
            check(len(d["connections"]) <= 4, "%s: %d connections kept, cap 4" % (label, len(d["connections"])))
            check(cap["connections_evicted"] >= 36, "%s: evicted %d" % (label, cap["connections_evicted"]))
            check(sum(a["description"].endswith("(connection since evicted)") for a in d["anomalies"]) >= 12,
                  "%s: anomalies of evicted connections not worded as such" % label)
            text = run(["-n", "--max-flows", "8", c("conn_churn")]).stdout
            line = "(%d evicted connections: " % cap["connections_evicted"]
            check(line in text, "%s: the text report lacks %r" % (label, line))
        else:
            check(cap["connections_evicted"] == 0, "%s: evicted without a cap" % label)
    ladder = run(["-n", "--ladder", "--max-flows", "8", c("conn_churn")]).stdout
    check(ladder.count("REQ") >= 40, "conn_churn --ladder --max-flows 8: connections evicted from the ladder")

    # Half-flow churn (5000 half-flows, one ECN CE anomaly each, frame i + 1 on
    # QP 0x10000 + i) under --max-flows 100: evicted in batches of 6, idlest
    # first. The first 4096 anomalies of evicted flows are listed one by one:
    # those of the first 4096 flows, whatever addresses the flows had (the
    # cut falls inside a batch); the rest are summed, with the first frames
    # in capture order; every anomaly is accounted for.
    d = report(c("flow_churn"), "--max-flows", "100")
    an = d["anomalies"]
    listed = sorted(int(a["description"].split(" QP 0x")[1].split(":")[0], 16) - 0x10000 for a in an
                    if a["type"] == "ecn_ce" and a["description"].endswith("(half-flow since evicted)"))
    summed = [a for a in an if a["type"] == "ecn_ce" and "more in evicted half-flows" in a["description"]]
    live = [a for a in an if a["type"] == "ecn_ce" and "evicted" not in a["description"]]
    check(listed == list(range(4096)), "flow_churn: the listed anomalies of evicted flows are not the first 4096 "
          "(%d listed, first missing %s)" % (len(listed), next((i for i in range(4096) if i not in set(listed)), None)))
    check(len(summed) == 1 and summed[0]["frames"] == list(range(4097, 4097 + len(summed[0]["frames"]))),
          "flow_churn: the summed anomaly's frames %s, want 4097, 4098, ..." % [x["frames"] for x in summed])
    total = len(listed) + sum(x["count"] for x in summed) + sum(x["count"] for x in live)
    check(total == 5000, "flow_churn: %d ECN CE anomalies accounted for, want 5000" % total)
    check(d["capture"]["half_flows"] <= 100, "flow_churn: %d half-flows kept" % d["capture"]["half_flows"])

    # Both sides sending a DREQ, each its own transaction, is no retry; the
    # same sender repeating its transaction is (IBA 12.9.2).
    d = report(c("dreq_both_sides"))
    retries = [a for a in d["anomalies"] if a["type"] == "cm_retry"]
    check(len(retries) == 1 and retries[0]["count"] == 1 and retries[0]["frames"][0] == 28,
          "dreq_both_sides: retries %s, want one DREQ retry at frame 28" % retries)
    check([x["state"] for x in d["connections"]] == ["closed", "closed"], "dreq_both_sides: states")

    # CM corner cases.
    d = report(c("cm_cases"))
    st = [x["state"] for x in d["connections"]]
    check(st == ["rejected", "closed", "established"], "cm_cases: states %s" % st)
    rej = d["connections"][0]["reject"]
    check(rej and rej["reason"] == 28 and rej["by"] == "client", "cm_cases: REJ of a REP %s" % rej)
    # REP without its REQ: the server's DREQ names the client's QP 0x12.
    check(d["connections"][1]["client"]["qpn"] == 0x12, "cm_cases: client QPN from the DREQ: %s" %
          d["connections"][1]["client"]["qpn"])
    check(all(q["pairing"] == "cm" for q in d["qps"] if q["dest_qp"] > 1), "cm_cases: pairing %s" %
          [(q["dest_qp"], q["pairing"]) for q in d["qps"]])

    # Reserved and vendor opcodes: numbered keys, no duplicates.
    d = report(c("reserved_ops"))
    ops = d["capture"]["opcodes"]
    check(ops == {"0x18": 1, "0xc5": 1, "0xe5": 1, "RC_SEND_ONLY": 1}, "reserved_ops: opcodes %s" % ops)
    check(d["capture"]["unsupported"] == 3, "reserved_ops: unsupported %d" % d["capture"]["unsupported"])

    # A READ's PSN count comes from its own path: 8 KiB at MTU 1024 is 8
    # response packets (IBA 9.7.4.1.4), whatever MTU another connection uses.
    d = report(c("pmtu_two_paths"))
    (req,) = flow(d, A, B, 0x22)
    check(req["request_psn"]["gaps"] == 0 and req["retransmitted_packets"] == 0,
          "pmtu_two_paths: gaps %d retx %d" % (req["request_psn"]["gaps"], req["retransmitted_packets"]))
    lat = req["latency_ns"]["read_last_response"]
    check(lat is not None and lat["count"] == 1, "pmtu_two_paths: READ -> last response not timed: %s" % lat)
    check(req["message_bytes"]["read"] == 8192, "pmtu_two_paths: READ bytes %d" % req["message_bytes"]["read"])

    # CNPs on the ACKs' half-flow: counted as CNPs, not as an opcode of the
    # QP's transport; the flow keeps its transport and its pairing.
    for name in ("cnp_first", "cnp_after_ack"):
        d = report(c(name))
        (back,) = flow(d, B, A, 0x11)
        check(back["transport"] == "RC", "%s: transport %s" % (name, back["transport"]))
        check(back["cnps"] == 1, "%s: cnps %d" % (name, back["cnps"]))
        check(back["opcodes"] == {"RC_ACKNOWLEDGE": 4}, "%s: opcodes %s" % (name, back["opcodes"]))
        check(back["pairing"] == "inferred", "%s: pairing %s" % (name, back["pairing"]))
        (fwd,) = flow(d, A, B, 0x22)
        check(fwd["latency_ns"]["ack"] is not None and fwd["latency_ns"]["ack"]["count"] == 4,
              "%s: ACK latency %s" % (name, fwd["latency_ns"]["ack"]))
    check(flow(report(c("cnp_after_ack")), A, B, 0x22)[0]["ecn_ce"] == 1, "cnp_after_ack: ECN CE count")

    # An answer time-stamped before its request is not a latency.
    d = report(c("ts_inversion"))
    (req,) = flow(d, A, B, 0x22)
    check(req["latency_ns"]["ack"] is None and req["latency_ns"]["clock_went_backwards"] == 1,
          "ts_inversion: %s" % req["latency_ns"])

    # RNR timers are compared as waits: code 0 is 655.36 ms, the longest
    # (IBA Table 45); code 14 is 1.28 ms.
    d = report(c("rnr_mix"))
    (back,) = flow(d, B, A, 0x11)
    check(back["rnr_naks"] == 2 and back["rnr_timer_us"] == {"min": 1280, "max": 655360},
          "rnr_mix: %s %s" % (back["rnr_naks"], back.get("rnr_timer_us")))

    # A message whose First was lost and resent completes once.
    d = report(c("lost_first"))
    (w,) = flow(d, A, B, 0x22)
    check(w["messages"]["write"] == 2 and w["message_bytes"]["write"] == 6 * 256 and w["incomplete_messages"] == 0,
          "lost_first: %s %s %s" % (w["messages"]["write"], w["message_bytes"]["write"], w["incomplete_messages"]))

    # The average is the payload over the half-flow's span (unknown for a
    # span of 0); the peak is unknown for a half-flow shorter than an
    # interval (10 ms).
    for name in ("qpn_reuse", "cm_cases", "lost_first"):
        for q in report(c(name))["qps"]:
            t, span = q["throughput_Bps"], q["last_time_ns"] - q["first_time_ns"]
            want = q["payload_bytes"] * 1e9 / span if span > 0 else None
            check(t["average"] == want if want is None else abs(t["average"] - want) <= 1e-6 * want + 0.01,
                  "%s: average %s, payload over span %s" % (name, t["average"], want))
            check((t["peak"] is None) == (span < 10000000), "%s: peak %s over a span of %d ns" % (name, t["peak"], span))

    print("check_cases: %d checks, %d failed" % (checks, len(failures)))
    for f in failures:
        print("  FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
