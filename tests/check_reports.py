#!/usr/bin/env python3
"""Justify every count of the golden reports against independent sources.

tests/golden.sh proves rocestat still prints what tests/golden/ holds; this
test proves what tests/golden/ holds is true, from sources that owe nothing
to rocestat (tests/TESTLIST's goldens on samples/ against tshark; those of
tests/TESTLIST.shared against tshark and the logs and checks below):

  * tshark's decode of the same capture (run here): opcode histogram, RoCE
    and non-RoCE frame counts, IPv4/IPv6, CM messages, packets per half-flow,
    NAKs and RNR NAKs per half-flow, and retransmissions / duplicates per
    half-flow computed from tshark's PSN column;
  * the tools' console logs in ../shared/captures/*.log: the command lines
    (iterations, message sizes) and perftest's result table, giving the
    message counts and bytes on the data QPs;
  * the ICRC verdicts of ../shared/captures/*.tshark.txt (a separate ICRC
    checker run when the captures were made).

It also checks the shape of the JSON (required keys and types), the text
goldens against the JSON goldens, the timeline CSV (columns, rows, per-flow
sums against tshark) and that --plot writes well-formed SVG.
Exit status 0 if everything holds.
"""
import csv
import glob
import io
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import xml.dom.minidom

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, ROOT, SHARED, tshark_fields as tshark_rows  # noqa: E402

GOLDEN = os.path.join(ROOT, "tests", "golden")

failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)


def tshark(path, fields):
    return [dict(zip(fields, v)) for v in tshark_rows(path, fields, occurrence="f")]


def num(v):
    return int(v, 16) if v.startswith("0x") else int(v)


# Opcodes a responder sends (IBA Table 38): READ responses, ACK, atomic ACK.
def is_response(op):
    return (op & 0xE0) in (0x00, 0x40, 0xA0) and 13 <= (op & 0x1F) <= 18


# ---- JSON shape -------------------------------------------------------------------------

QP_KEYS = {"src": str, "dst": str, "dest_qp": int, "transport": str, "packets": int, "payload_bytes": int,
           "messages": dict, "retransmitted_packets": int, "naks": dict, "rnr_naks": int, "ecn_ce": int,
           "cnps": int, "icrc_bad": int}
MSG_KEYS = ["send", "send_imm", "send_inv", "write", "write_imm", "read", "atomic_cas", "atomic_faa"]
NAK_KEYS = ["psn_sequence_error", "invalid_request", "remote_access_error", "remote_operational_error"]


def check_shape(name, d):
    for k in ("capture", "connections", "qps", "anomalies"):
        check(k in d, "%s: top-level key %r missing" % (name, k))
    for q in d["qps"]:
        for k, t in QP_KEYS.items():
            check(isinstance(q.get(k), t) and not isinstance(q.get(k), bool),
                  "%s: qps entry key %r missing or not %s" % (name, k, t.__name__))
        for k in MSG_KEYS:
            check(isinstance(q["messages"].get(k), int), "%s: qps.messages.%s missing" % (name, k))
        for k in NAK_KEYS:
            check(isinstance(q["naks"].get(k), int), "%s: qps.naks.%s missing" % (name, k))
    for c in d["connections"]:
        for k in ("state", "service_id", "client", "server"):
            check(k in c, "%s: connections entry key %r missing" % (name, k))
        for side in ("client", "server"):
            for k in ("address", "qpn", "start_psn"):
                check(k in c[side], "%s: connections.%s.%s missing" % (name, side, k))


# ---- tshark ------------------------------------------------------------------------------

FIELDS = ["frame.number", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "infiniband.lrh.slid",
          "infiniband.lrh.dlid", "infiniband.grh.sgid", "infiniband.grh.dgid", "infiniband.bth.opcode",
          "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.aeth.syndrome", "infiniband.reth.dmalen",
          "infiniband.mad.attributeid", "infiniband.mad.mgmtclass", "udp.dstport", "frame.protocols", "frame.len"]


def flow_of(r):
    if r["infiniband.grh.sgid"] and not r["ip.src"] and not r["ipv6.src"]:
        return r["infiniband.grh.sgid"], r["infiniband.grh.dgid"]
    if r["ip.src"]:
        return r["ip.src"], r["ip.dst"]
    if r["ipv6.src"]:
        return r["ipv6.src"], r["ipv6.dst"]
    return r["infiniband.lrh.slid"], r["infiniband.lrh.dlid"]


def check_against_tshark(name, path, d, pmtu):
    rows = tshark(path, FIELDS)
    roce = [r for r in rows if r["infiniband.bth.opcode"]]
    cap = d["capture"]
    check(cap["frames"] == len(rows), "%s: frames %d, tshark %d" % (name, cap["frames"], len(rows)))
    # Bytes on the wire (an ERF record's packet, without the ERF header).
    wire = sum(int(r["frame.len"]) for r in rows)
    check(cap["bytes"] == wire, "%s: bytes %d, tshark's frame lengths add up to %d" % (name, cap["bytes"], wire))
    n_roce = cap["roce_v1"] + cap["roce_v2"] + cap["infiniband"]
    check(n_roce == len(roce), "%s: RoCE frames %d, tshark %d" % (name, n_roce, len(roce)))
    check(cap["non_roce"] == len(rows) - len(roce), "%s: non-RoCE %d, tshark %d" % (name, cap["non_roce"],
                                                                                   len(rows) - len(roce)))
    v2 = [r for r in roce if r["udp.dstport"]]
    check(cap["roce_v2"] == len(v2), "%s: RoCE v2 %d, tshark %d" % (name, cap["roce_v2"], len(v2)))
    check(cap["ipv4"] == sum(1 for r in v2 if r["ip.src"]), "%s: IPv4 count" % name)
    check(cap["ipv6"] == sum(1 for r in v2 if r["ipv6.src"] and not r["ip.src"]), "%s: IPv6 count" % name)

    # Opcode histogram.
    hist = {}
    for r in roce:
        op = int(r["infiniband.bth.opcode"])
        hist[op] = hist.get(op, 0) + 1
    ours = {}
    names = {}
    for k, v in cap["opcodes"].items():
        ours[k] = v
    check(sum(ours.values()) == sum(hist.values()), "%s: opcode histogram total %d, tshark %d" %
          (name, sum(ours.values()), sum(hist.values())))
    check(sorted(ours.values()) == sorted(hist.values()), "%s: opcode histogram %s, tshark %s" %
          (name, sorted(ours.values()), sorted(hist.values())))

    # CM messages (class 0x07) by attribute.
    cm = {}
    for r in roce:
        if r["infiniband.mad.mgmtclass"] and num(r["infiniband.mad.mgmtclass"]) == 7 and r["infiniband.mad.attributeid"]:
            a = num(r["infiniband.mad.attributeid"])
            cm[a] = cm.get(a, 0) + 1
    attr_names = {0x10: "REQ", 0x11: "MRA", 0x12: "REJ", 0x13: "REP", 0x14: "RTU", 0x15: "DREQ", 0x16: "DREP",
                  0x17: "SIDR_REQ", 0x18: "SIDR_REP"}
    ours_cm = {}
    for c in d["connections"]:
        for k, v in c["messages"].items():
            ours_cm[k] = ours_cm.get(k, 0) + v
    theirs_cm = {attr_names[a]: n for a, n in cm.items() if a in attr_names}
    check(ours_cm == theirs_cm, "%s: CM messages %s, tshark %s" % (name, ours_cm, theirs_cm))

    # Per half-flow: packets, NAKs, RNR NAKs, retransmissions from the PSN column.
    flows = {}
    for r in roce:
        s, t = flow_of(r)
        key = (s, t, num(r["infiniband.bth.destqp"]))
        flows.setdefault(key, []).append(r)
    qps = {(q["src"], q["dst"], q["dest_qp"]): q for q in d["qps"]}
    check(set(qps) == set(flows), "%s: half-flows %s, tshark %s" % (name, sorted(qps), sorted(flows)))
    for key, frs in flows.items():
        q = qps.get(key)
        if not q:
            continue
        check(q["packets"] == len(frs), "%s %s: packets %d, tshark %d" % (name, key, q["packets"], len(frs)))
        wire = sum(int(r["frame.len"]) for r in frs)
        check(q["wire_bytes"] == wire, "%s %s: wire bytes %d, tshark %d" % (name, key, q["wire_bytes"], wire))
        naks = {}
        rnr = 0
        for r in frs:
            if r["infiniband.aeth.syndrome"]:
                syn = int(r["infiniband.aeth.syndrome"])
                if syn >> 5 & 3 == 3:
                    naks[syn & 0x1F] = naks.get(syn & 0x1F, 0) + 1
                elif syn >> 5 & 3 == 1 and int(r["infiniband.bth.opcode"]) & 0x1F == 17:
                    rnr += 1
        theirs = {c: naks.get(i, 0) for i, c in enumerate(NAK_KEYS)}
        check({k: q["naks"][k] for k in NAK_KEYS} == theirs, "%s %s: NAKs %s, tshark %s" % (name, key, q["naks"], theirs))
        check(q["rnr_naks"] == rnr, "%s %s: RNR NAKs %d, tshark %d" % (name, key, q["rnr_naks"], rnr))
        if q["transport"] in ("UD",) or key[2] <= 1:
            continue
        # Requests: PSN below the next expected one = sent before. A READ
        # request advances the PSN by its response packet count.
        nxt, back, seen, dups = None, 0, set(), 0
        for r in frs:
            op = int(r["infiniband.bth.opcode"])
            if is_response(op):
                continue
            psn = int(r["infiniband.bth.psn"])
            adv = 1
            if op & 0x1F == 12 and r["infiniband.reth.dmalen"]:
                dl = int(r["infiniband.reth.dmalen"])
                adv = max(1, -(-dl // pmtu))
            if (psn, op) in seen:
                dups += 1
            seen.add((psn, op))
            if nxt is None:
                nxt = (psn + adv) & 0xFFFFFF
                continue
            diff = ((psn - nxt) << 8 & 0xFFFFFFFF)
            diff = diff - (1 << 32) if diff >= 1 << 31 else diff
            if diff < 0:
                back += 1
            else:
                nxt = (psn + adv) & 0xFFFFFF
        rp = q["request_psn"]
        check(rp["retransmitted"] + rp["out_of_order"] == back,
              "%s %s: request packets below the expected PSN: ours %d+%d, tshark's PSNs say %d" %
              (name, key, rp["retransmitted"], rp["out_of_order"], back))
        check(rp["duplicates"] == dups, "%s %s: repeated (PSN, opcode): ours %d, tshark %d" %
              (name, key, rp["duplicates"], dups))


# ---- console logs ------------------------------------------------------------------------

def log_info(path):
    text = open(path, errors="replace").read()
    m = re.search(r"client runs: (.*)", text)
    cmd = m.group(1) if m else ""
    m = re.search(r"server runs: (.*)", text)
    scmd = m.group(1) if m else ""
    mtu = re.search(r"active_mtu:\s+(\d+)", text)
    res = re.search(r"#bytes\s+#iterations.*\n\s*(\d+)\s+(\d+)", text)
    return text, cmd or scmd, int(mtu.group(1)) if mtu else 1024, (int(res.group(1)), int(res.group(2))) if res else None


def opt(cmd, flag, default=None):
    m = re.search(r"(?:^|\s)%s\s+(\S+)" % re.escape(flag), cmd)
    return m.group(1) if m else default


def data_flows(d):
    return [q for q in d["qps"] if q["dest_qp"] > 1]


def check_against_log(name, d, logpath):
    text, cmd, mtu, res = log_info(logpath)
    tool = os.path.basename(cmd.split()[0]) if cmd else ""
    flows = data_flows(d)

    def best(kind):
        return max(flows, key=lambda q: q["messages"][kind]) if flows else None

    if tool in ("ib_write_bw", "ib_read_bw", "ib_send_bw", "ib_atomic_bw", "ib_write_lat"):
        n = int(opt(cmd, "-n"))
        size, iters = res if res else (None, None)
        check(iters == n, "%s: perftest printed %s iterations, command line -n %d" % (name, iters, n))
        kind = {"ib_write_bw": "write", "ib_read_bw": "read", "ib_send_bw": "send", "ib_write_lat": "write"}.get(tool)
        if tool == "ib_atomic_bw":
            kind = "atomic_cas" if opt(cmd, "-A") == "CMP_AND_SWAP" else "atomic_faa"
        q = best(kind)
        check(q is not None and q["messages"][kind] == n, "%s: %s messages on the data QP %s, log says %d" %
              (name, kind, q and q["messages"][kind], n))
        if kind in ("write", "read", "send") and q:
            want = n * size
            got = q["message_bytes"][kind]
            check(got == want, "%s: %s bytes on the data QP %d, log says %d x %d = %d" % (name, kind, got, n, size, want))
        if tool == "ib_write_lat" and q:
            # ping-pong: both sides write n times
            others = [f for f in flows if f is not q and f["messages"]["write"]]
            check(others and others[0]["messages"]["write"] == n, "%s: the reply direction did not write %d times" % (name, n))
    elif tool == "ibv_rc_pingpong":
        n = int(opt(cmd, "-n", "1000"))
        size = int(opt(cmd, "-s", "4096"))
        sends = sorted(q["messages"]["send"] for q in flows)
        check(sends[-2:] == [n, n], "%s: SENDs per direction %s, log says %d each" % (name, sends, n))
        for q in flows:
            if q["messages"]["send"]:
                check(q["message_bytes"]["send"] == n * size, "%s: SEND bytes %d, want %d" % (name, q["message_bytes"]["send"], n * size))
    elif tool == "rping":
        n = int(opt(cmd, "-C"))
        size = int(opt(cmd, "-S"))
        if "-p 7777" in cmd:  # the reject scenario
            m = re.search(r"RDMA_CM_EVENT_REJECTED, error (\d+)", text)
            c = d["connections"][0]
            check(c["state"] == "rejected" and m and c["reject"]["reason"] == int(m.group(1)),
                  "%s: REJ reason %s, the client saw error %s" % (name, c.get("reject"), m and m.group(1)))
            return
        # rping: per iteration the client SENDs its buffer info, the server
        # RDMA READs `size` bytes, SENDs, the client SENDs again and the server
        # RDMA WRITEs `size` bytes and SENDs (rping.c's protocol).
        srv = best("read")
        check(srv["messages"]["read"] == n and srv["messages"]["write"] == n and srv["messages"]["send"] == 2 * n,
              "%s: server READ/WRITE/SEND %s, rping -C %d implies %d/%d/%d" %
              (name, srv["messages"], n, n, n, 2 * n))
        check(srv["message_bytes"]["read"] == n * size and srv["message_bytes"]["write"] == n * size,
              "%s: READ/WRITE bytes %d/%d, want %d each" % (name, srv["message_bytes"]["read"],
                                                              srv["message_bytes"]["write"], n * size))
        cli = [q for q in flows if q is not srv and q["messages"]["send"]]
        check(cli and cli[0]["messages"]["send"] == 2 * n, "%s: client SENDs %s, want %d" % (name, cli and cli[0]["messages"], 2 * n))
    elif tool == "udaddy":
        m = re.search(r"UD SENDs each way", open(logpath).read())
        for q in flows:
            check(q["messages"]["send_imm"] == 10, "%s: UD SENDs %d, udaddy sends 10" % (name, q["messages"]["send_imm"]))
        check(d["connections"][0]["state"] == "resolved", "%s: SIDR not resolved" % name)
    else:
        check(False, "%s: no expectation for the tool %r in %s" % (name, tool, logpath))


def check_icrc_summary(name, d, tsharktxt):
    text = open(tsharktxt).read()
    m = re.search(r"ICRC valid.*?: (\d+)", text)
    if m:
        check(d["capture"]["icrc"]["ok"] == int(m.group(1)) and d["capture"]["icrc"]["bad"] == 0,
              "%s: ICRC ok %d, the capture's ICRC check says %s valid" % (name, d["capture"]["icrc"]["ok"], m.group(1)))


# ---- text vs JSON, timeline, SVG ---------------------------------------------------------------

def check_text_vs_json(name, textpath, d):
    text = open(textpath).read()
    table = text.split("Queue pairs", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    rows = {}
    for line in table:
        # label, transport, optional pairing (empty for QP0/QP1), packets
        m = re.match(r"\s+(\S+) → (\S+) 0x([0-9a-f]+)\s+\S+\s+(?:(?:cm|inferred|none)\s+)?(\d+)\s", line)
        if m:
            rows[(m.group(1), m.group(2), int(m.group(3), 16))] = int(m.group(4))
    for q in d["qps"]:
        key = (q["src"] if not q["src"].isdigit() else "LID", q["dst"], q["dest_qp"])
        if q["src"].isdigit() or len("%s → %s 0x%x" % (q["src"], q["dst"], q["dest_qp"])) > 42:
            continue  # LIDs print as "LID n"; labels wider than the column are cut
        check(rows.get((q["src"], q["dst"], q["dest_qp"])) == q["packets"],
              "%s: text summary packets for %s differ from JSON %d" % (name, key, q["packets"]))


def tshark_fields(path, *fields):
    return tshark_rows(path, fields, heuristics_off=False)


def timeline_rows(path, interval):
    out = subprocess.run([ROCESTAT, "-n", "--interval", interval, "--timeline", "-", "-o", "/dev/null", path],
                         capture_output=True, text=True).stdout
    return list(csv.reader(io.StringIO(out)))


def check_timeline(name, path, d, interval="10ms", rows=None):
    """The timeline CSV of path (rows: a golden one, else rocestat's now)."""
    rows = rows if rows is not None else timeline_rows(path, interval)
    header = ["interval_start", "interval_start_epoch", "src", "dst", "dest_qp", "packets", "bytes",
              "payload_bytes_on_wire", "payload_bytes", "messages", "retransmissions", "naks", "ecn_ce", "cnps",
              "pause_priority", "paused_ns", "latency_samples", "latency_min_ns", "latency_mean_ns", "latency_max_ns"]
    check(rows and rows[0] == header, "%s: timeline header %s" % (name, rows[:1]))
    sums, wire, good, busy, idle = {}, {}, {}, {}, {}
    secs = {"10ms": 10**7, "1ms": 10**6}[interval]
    for r in rows[1:]:
        check(len(r) == len(header), "%s: timeline row with %d columns" % (name, len(r)))
        check(r[4].startswith("0x"), "%s: dest_qp %r not in hex as the text summary's" % (name, r[4]))
        key = (r[2], r[3], int(r[4], 16))
        sums[key] = sums.get(key, 0) + int(r[5])
        wire[key] = wire.get(key, 0) + int(r[7])
        good[key] = good.get(key, 0) + int(r[8])
        iv = round(float(r[0]) * 1e9) // secs
        if int(r[5]) > 0:
            busy.setdefault(key, set()).add(iv)
        elif r[16] in ("", "0"):  # a row of zeros (not one of latencies alone)
            idle.setdefault(key, set()).add(iv)
    # Zero rows: none (--timeline-fill writes them; check_timeline.py).
    frames = {}
    t0 = None
    for t, s4, d4, s6, d6, slid, dlid, qp in tshark_fields(path, "frame.time_epoch", "ip.src", "ip.dst", "ipv6.src",
                                                            "ipv6.dst", "infiniband.lrh.slid", "infiniband.lrh.dlid",
                                                            "infiniband.bth.destqp"):
        whole, _, frac = t.partition(".")
        ns = int(whole) * 10**9 + int((frac + "000000000")[:9])
        t0 = ns if t0 is None else t0
        if qp:
            frames.setdefault((s4 or s6, d4 or d6, int(qp.split(",")[0], 16)), set()).add((ns - t0) // secs)
    for key, ivs in frames.items():
        k = next((x for x in busy if x[2] == key[2] and x[0].strip("[]") == key[0] and x[1].strip("[]") == key[1]), None)
        if k is None:
            continue  # native IB (LIDs) and GIDs are named otherwise; the sums below cover them
        want_idle = set()
        check(busy.get(k) == ivs and idle.get(k, set()) == want_idle,
              "%s: timeline of %s: %d intervals with frames, %d zero rows; tshark %d and %d" %
              (name, k, len(busy.get(k, ())), len(idle.get(k, ())), len(ivs), len(want_idle)))
    for q in d["qps"]:
        check(sums.get((q["src"], q["dst"], q["dest_qp"])) == q["packets"],
              "%s: timeline packets of %s/%s/%d sum to %s, not %d" % (name, q["src"], q["dst"], q["dest_qp"],
                                                                      sums.get((q["src"], q["dst"], q["dest_qp"])), q["packets"]))
        # The same name means the same thing in the CSV and the JSON.
        k = (q["src"], q["dst"], q["dest_qp"])
        check(wire.get(k) == q["payload_bytes_on_wire"], "%s: timeline payload_bytes_on_wire of %s/%s/%d sum to %s, "
              "JSON says %d" % ((name,) + k + (wire.get(k), q["payload_bytes_on_wire"])))
        # Each PSN once: the summary's payload (goodput) rebuilt from the rows.
        check(good.get(k) == q["payload_bytes"], "%s: timeline payload_bytes of %s/%s/%d sum to %s, "
              "JSON says %d" % ((name,) + k + (good.get(k), q["payload_bytes"])))
    check_peak(name, path, interval, rows)


def check_peak(name, path, interval, rows):
    """A half-flow's peak rate is its most goodput bytes (each PSN once) in one
    interval, peak_on_wire its most payload bytes on the wire. With
    --timeline they come from the rows the CSV is written from; without, from
    counters in the flow: the two must agree, and with the CSV's own rows."""
    secs = {"10ms": 0.01, "1ms": 0.001}[interval]
    most, most_wire = {}, {}
    for r in rows[1:]:
        key = (r[2], r[3], int(r[4], 16))
        most[key] = max(most.get(key, 0), int(r[8]))
        most_wire[key] = max(most_wire.get(key, 0), int(r[7]))
    with tempfile.TemporaryDirectory() as tmp:
        for extra in ([], ["--timeline", os.path.join(tmp, "t.csv")]):
            js = os.path.join(tmp, "r.json")
            subprocess.run([ROCESTAT, "-n", "--interval", interval, "--format", "json", "-o", js] + extra + [path],
                           check=False)
            for q in json.load(open(js))["qps"]:
                key = (q["src"], q["dst"], q["dest_qp"])
                want = most.get(key, 0) / secs
                got = q["throughput_Bps"]["peak"]
                # Unknown for a half-flow shorter than one interval (man
                # page, DEFINITIONS: average and peak rate).
                if q["last_time_ns"] - q["first_time_ns"] < secs * 1e9:
                    check(got is None, "%s: %s/%s/%d shorter than %s: peak %s, want null" %
                          (name, key[0], key[1], key[2], interval, got))
                    continue
                check(got is not None and abs(got - want) <= 1e-6 * max(1.0, want),
                      "%s: peak of %s/%s/%d at %s%s is %s B/s, the timeline's busiest interval says %s" %
                      (name, key[0], key[1], key[2], interval, " with --timeline" if extra else "", got, want))
                ww, gw = most_wire.get(key, 0) / secs, q["throughput_Bps"]["peak_on_wire"]
                check(gw is not None and abs(gw - ww) <= 1e-6 * max(1.0, ww),
                      "%s: peak_on_wire of %s/%s/%d at %s%s is %s B/s, the timeline's busiest interval says %s" %
                      (name, key[0], key[1], key[2], interval, " with --timeline" if extra else "", gw, ww))


def tshark_events(path):
    """NAKs, RNR NAKs (AETH syndrome 011xxxxx, 001xxxxx: IBA 9.7.5.2.8),
    CNPs (opcode 0x81) and retransmitted request packets (a PSN behind the
    highest its stream has sent, 24-bit serial arithmetic) in tshark's
    decode of path."""
    rows = tshark_rows(path, ["ip.src", "ipv6.src", "infiniband.lrh.slid", "infiniband.bth.destqp",
                              "infiniband.bth.opcode", "infiniband.bth.psn", "infiniband.aeth.syndrome"],
                       "infiniband.bth", heuristics_off=False)
    ev = {"NAKs": 0, "RNR NAKs": 0, "CNPs": 0, "retransmitted packets": 0}
    top = {}
    for src4, src6, slid, qp, op, psn, syn in rows:
        op, qp, psn = int(op), int(qp, 16), int(psn)
        if syn:
            v = int(syn, 0)
            ev["NAKs"] += (v >> 5) == 3
            ev["RNR NAKs"] += (v >> 5) == 1
        if op == 0x81:
            ev["CNPs"] += 1
            continue
        # QP0/QP1 and UD, READ responses, ACKs, atomic ACKs: no request stream
        if qp <= 1 or (op & 0xe0) == 0x60 or (op & 0x1f) in (13, 14, 15, 16, 17, 18):
            continue
        key = (src4 or src6 or slid, qp)
        if key in top and ((top[key] - psn) & 0xffffff) < 0x800000:
            ev["retransmitted packets"] += 1
        else:
            top[key] = psn
    return ev


def font_advances():
    """{character: advance in ems} of the font a browser draws the plot's
    sans-serif with here (fc-match), from its TrueType hmtx and cmap
    (format 4) tables; None without one."""
    try:
        font = subprocess.run(["fc-match", "-f", "%{file}", "sans-serif"], capture_output=True, text=True).stdout
        data = open(font, "rb").read()
    except OSError:
        return None
    if not font.endswith(".ttf"):
        return None
    tables = {data[12 + 16 * i:16 + 16 * i].decode("latin-1"): struct.unpack(">I", data[20 + 16 * i:24 + 16 * i])[0]
              for i in range(struct.unpack(">H", data[4:6])[0])}
    upem = struct.unpack(">H", data[tables["head"] + 18:tables["head"] + 20])[0]
    nhm = struct.unpack(">H", data[tables["hhea"] + 34:tables["hhea"] + 36])[0]
    hmtx = tables["hmtx"]
    adv = [struct.unpack(">H", data[hmtx + 4 * i:hmtx + 4 * i + 2])[0] for i in range(nhm)]
    cmap = tables["cmap"]
    sub = None
    for i in range(struct.unpack(">H", data[cmap + 2:cmap + 4])[0]):
        plat, enc, off = struct.unpack(">HHI", data[cmap + 4 + 8 * i:cmap + 12 + 8 * i])
        if plat == 3 and enc == 1:
            sub = cmap + off
    if sub is None or struct.unpack(">H", data[sub:sub + 2])[0] != 4:
        return None
    segs = struct.unpack(">H", data[sub + 6:sub + 8])[0] // 2
    arr = lambda k: struct.unpack(">%dH" % segs, data[sub + 14 + k * 2 * segs + (2 if k else 0):
                                                       sub + 14 + (k + 1) * 2 * segs + (2 if k else 0)])
    ends, starts, deltas, ranges = arr(0), arr(1), arr(2), arr(3)
    ro = sub + 16 + 6 * segs
    out = {}
    for j in range(segs):
        for c in range(starts[j], ends[j] + 1):
            if c == 0xFFFF:
                continue
            if ranges[j] == 0:
                g = (c + deltas[j]) & 0xFFFF
            else:
                at = ro + 2 * j + ranges[j] + 2 * (c - starts[j])
                g = struct.unpack(">H", data[at:at + 2])[0]
                g = (g + deltas[j]) & 0xFFFF if g else 0
            out[chr(c)] = adv[min(g, nhm - 1)] / upem
    return out


ADVANCES = font_advances()


def legend_entries(doc):
    """The legend's entries of a --plot SVG: the text after each legend
    swatch (a line of stroke-width 3), with the smaller line under it if
    any, as [(texts, [(x, font size, text)])]."""
    kids = [n for n in doc.documentElement.childNodes if n.nodeType == n.ELEMENT_NODE]
    out = []
    for i, n in enumerate(kids):
        if n.tagName != "line" or n.getAttribute("stroke-width") != "3":
            continue
        parts = []
        for t in kids[i + 1:i + 3]:
            if t.tagName != "text" or (parts and not t.getAttribute("font-size")) or not t.firstChild:
                break
            parts.append((float(t.getAttribute("x")), float(t.getAttribute("font-size") or 12), t.firstChild.data))
        out.append((" / ".join(p[2] for p in parts), parts))
    return out


def check_legend(name, doc):
    """Legend labels told apart, and each inside the image by the font's
    own advance widths (what it would take to draw them)."""
    entries = legend_entries(doc)
    labels = [e[0] for e in entries]
    dup = sorted({x for x in labels if labels.count(x) > 1})
    check(not dup, "%s: the plot's legend has identical labels %r" % (name, dup[:2]))
    if ADVANCES is None:
        check(False, "%s: no TrueType sans-serif font to measure the legend with" % name)
        return
    w = float(doc.documentElement.getAttribute("width"))
    for _, parts in entries:
        for x, size, text in parts:
            right = x + size * sum(ADVANCES.get(c, 1.0) for c in text)
            check(right <= w, "%s: legend text %r ends at %.0f px, the image is %.0f wide" % (name, text, right, w))


def check_svg(name, path):
    """--plot: well-formed SVG whose title names the file and whose legend
    counts the marks drawn: tshark's NAKs, RNR NAKs, CNPs and retransmitted
    requests (--top large enough to draw every flow that has payload)."""
    with tempfile.TemporaryDirectory() as tmp:
        svg = os.path.join(tmp, "p.svg")
        subprocess.run([ROCESTAT, "-n", "--top", "1000", "--plot", svg, "-o", "/dev/null", path], check=False)
        try:
            doc = xml.dom.minidom.parse(svg)
            ok = doc.documentElement.tagName == "svg"
        except Exception as e:  # noqa: BLE001 - any parse error fails the check
            ok = False
            print("  %s: %s" % (name, e))
        check(ok, "%s: --plot did not write well-formed SVG" % name)
        if not ok:
            return
        texts = [t.firstChild.data for t in doc.getElementsByTagName("text") if t.firstChild]
        check(any(os.path.basename(path) in t for t in texts), "%s: the plot's title does not name the file" % name)
        got = {k: 0 for k in ("NAKs", "RNR NAKs", "CNPs", "retransmitted packets")}
        for t in texts:
            k, _, n = t.rpartition(": ")
            if k in got and n.isdigit():
                got[k] = int(n)
        # marks in the chart, by the count in each one's tooltip (not the
        # total line's nor the CM messages')
        drawn = sum(int(t.firstChild.data.split(": ")[1].split()[0]) for t in doc.getElementsByTagName("title")
                    if t.parentNode.tagName in ("circle", "path", "rect"))
        want = tshark_events(path)
        check(got == want, "%s: the plot's legend counts %r, tshark %r" % (name, got, want))
        check(drawn == sum(want.values()), "%s: %d events marked, tshark %d" % (name, drawn, sum(want.values())))
        check_legend(name, doc)


def check_svg_files(paths):
    """--plot of several files (one read twice): every entry of the legend
    told apart (the same addresses and QP in two files are two series), and
    every entry of a file naming it; inside the image."""
    with tempfile.TemporaryDirectory() as tmp:
        svg = os.path.join(tmp, "p.svg")
        subprocess.run([ROCESTAT, "-n", "--top", "1000", "--plot", svg, "-o", "/dev/null"] + paths, check=False)
        doc = xml.dom.minidom.parse(svg)
        name = "--plot of " + ", ".join(os.path.basename(p) for p in paths)
        entries = legend_entries(doc)
        check(len(entries) > 2, "%s: %d legend entries" % (name, len(entries)))
        check_legend(name, doc)
        # The file an entry names: one of the inputs, by the tail the legend keeps.
        bases = {os.path.basename(p) for p in paths}
        unnamed = [e[0] for e in entries if not any(b[-8:] in e[0] for b in bases)]
        check(not unnamed, "%s: legend entries naming no file %r" % (name, unnamed[:2]))


def check_compact(name, path):
    """--format json-compact: the same document as --format json (as
    Python's parser reads both; the golden tests pin --format json), on one
    line with no whitespace outside strings (RFC 8259 allows it only around
    structural characters)."""
    pretty = subprocess.run([ROCESTAT, "-n", "--format", "json", path], capture_output=True, text=True).stdout
    r = subprocess.run([ROCESTAT, "-n", "--format", "json-compact", path], capture_output=True, text=True)
    check(r.returncode in (0, 1), "%s: --format json-compact exit status %d" % (name, r.returncode))
    out = r.stdout
    check(out.endswith("\n") and out.count("\n") == 1, "%s: json-compact is not one line" % name)
    try:
        c = json.loads(out)
    except ValueError as e:
        check(False, "%s: json-compact does not parse: %s" % (name, e))
        return
    check(c == json.loads(pretty), "%s: json-compact differs from --format json" % name)
    check(not whitespace_outside_strings(out.rstrip("\n")), "%s: json-compact has whitespace outside strings" % name)


def whitespace_outside_strings(text):
    in_str = esc = False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in " \t\r\n":
            return True
    return False


def check_dreq_drep(name, path, d):
    """durations_ms.dreq_to_drep: from a DREQ to the DREP that answers it,
    the other side's, whose Remote Communication ID is the DREQ's Local one
    (IBA 12.6.9-10). When both sides disconnect at once the two DREQs cross:
    each pairs with the other side's DREP, never with its own side's."""
    f = ["frame.time_epoch", "ip.src", "ipv6.src", "infiniband.mad.attributeid", "infiniband.cm.dreq.localcommid",
         "infiniband.cm.drsp.remotecommid"]
    rows = tshark(path, f + ["frame.number"])
    dreqs, pairs = {}, set()
    for r in rows:
        if not r["infiniband.mad.attributeid"]:
            continue
        attr = num(r["infiniband.mad.attributeid"])
        t = float(r["frame.time_epoch"])
        if attr == 0x15 and r["infiniband.cm.dreq.localcommid"]:
            dreqs.setdefault(num(r["infiniband.cm.dreq.localcommid"]), t)
        elif attr == 0x16 and r["infiniband.cm.drsp.remotecommid"]:
            x = num(r["infiniband.cm.drsp.remotecommid"])
            if x in dreqs:
                pairs.add(round((t - dreqs[x]) * 1e3, 3))
    for c in d["connections"]:
        v = c["durations_ms"].get("dreq_to_drep")
        if v is not None:
            check(any(abs(v - p) <= 0.0015 for p in pairs),
                  "%s: connection %s dreq_to_drep %s is no DREQ→answering DREP pair %s" % (name, c["id"], v, sorted(pairs)))


def testlist(path):
    """tests/TESTLIST's lines: {capture: {arguments: expected output}}."""
    tests = {}
    for line in open(path):
        f = line.split(None, 3)
        if len(f) < 3 or f[0].startswith("#"):
            continue
        tests.setdefault(f[1], {})[f[3].strip() if len(f) > 3 else ""] = os.path.join(GOLDEN, f[2])
    return tests


def check_samples():
    """The goldens of tests/TESTLIST on the clean samples/*.pcap: the JSON
    against tshark, the text summary against the JSON, the timeline against
    tshark and the JSON. (The impaired samples' reports are checked against
    their ground truth by make impair and make evidence: tshark's PSN column
    cannot tell a network copy or a replay from a re-send.)"""
    for capture, goldens in sorted(testlist(os.path.join(ROOT, "tests", "TESTLIST")).items()):
        if os.path.dirname(capture) != "samples":
            continue
        path = os.path.join(ROOT, capture)
        name = capture
        gj = goldens.get("-n --format json")
        check(gj is not None, "%s: no JSON golden in tests/TESTLIST" % name)
        if gj is None:
            continue
        d = json.load(open(gj))
        check_shape(name, d)
        check_compact(name, path)
        check_against_tshark(name, path, d, 1024)
        check_dreq_drep(name, path, d)
        gt = goldens.get("-n")
        check(gt is not None, "%s: no text golden in tests/TESTLIST" % name)
        if gt is not None and "Queue pairs" in open(gt).read():
            check_text_vs_json(name, gt, d)
        tl = goldens.get("-n --timeline - -o /dev/null")
        if tl is not None:
            check_timeline(name, path, d, rows=list(csv.reader(open(tl, newline=""))))
        print("check_reports: %-55s checked" % name)


def main():
    check_samples()
    caps = sorted(glob.glob(os.path.join(SHARED, "captures", "*.pcap")))
    pub = sorted(glob.glob(os.path.join(SHARED, "public-captures", "*.pcap")))
    if not caps:
        print("check_reports: no captures under %s: their goldens were not checked, and that is a failure" % SHARED)
        return 1
    for path in caps + pub:
        base = os.path.splitext(os.path.basename(path))[0]
        gj = os.path.join(GOLDEN, base + ".json.out")
        if not os.path.exists(gj):
            check(False, "%s: no JSON golden %s" % (base, gj))
            continue
        d = json.load(open(gj))
        check_shape(base, d)
        check_compact(base, path)
        logpath = os.path.join(os.path.dirname(path), base + ".log")
        mtu = log_info(logpath)[2] if os.path.exists(logpath) else 1024
        check_against_tshark(base, path, d, mtu)
        check_dreq_drep(base, path, d)
        if os.path.exists(logpath):
            check_against_log(base, d, logpath)
            check_icrc_summary(base, d, os.path.join(os.path.dirname(path), base + ".tshark.txt"))
        gt = os.path.join(GOLDEN, base + ".summary.out")
        if os.path.exists(gt):
            check_text_vs_json(base, gt, d)
        check_timeline(base, path, d)
        check_peak(base, path, "1ms", timeline_rows(path, "1ms"))
        check_svg(base, path)
        print("check_reports: %-55s checked" % base)
    for path in sorted(glob.glob(os.path.join(SHARED, "hw-captures", "*.pcap"))):
        with tempfile.TemporaryDirectory() as tmp:
            svg = os.path.join(tmp, "p.svg")
            subprocess.run([ROCESTAT, "-n", "--top", "1000", "--plot", svg, "-o", "/dev/null", path], check=False)
            check_legend(os.path.basename(path), xml.dom.minidom.parse(svg))
    loss = os.path.join(SHARED, "captures", "loss_write_bw.pcap")
    check_svg_files([loss, loss, os.path.join(SHARED, "hw-captures", "magnate3__linux-riscv-dev__ib2.pcap")])
    print("check_reports: %d checks, %d failed" % (checks, len(failures)))
    for f in failures:
        print("  FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
