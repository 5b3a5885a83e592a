#!/usr/bin/env python3
"""Check every committed RXE sample against its ground truth.

For each samples/NAME.pcap with a samples/NAME.truth.json (written by
rocegen inside the guests, see samples/README.md) this reads the frames as
the analyzer sees them and verifies, from the wire alone:

  * the data QPNs in both directions, and DETH source QPs / Q_Keys on UD;
  * the first request PSN of each side equals its starting send PSN;
  * every RETH and AtomicETH (VA, rkey, length, operands), in posting order,
    is a work request that rocegen posted; atomic ACKs return the original
    values the completions saw;
  * immediate values, in order;
  * per-opcode message counts and payload bytes (READ bytes counted from the
    responses) against the posted work requests;
  * remote access error NAKs (bad-rkey), RNR NAKs and their timer (rnr);
  * the CM exchange: REQ/REP QPNs and starting PSNs, REJ reason and private
    data, DREQ direction, SIDR REP QPN and Q_Key;
  * the ICRC of every frame (when the backend verifies it).

Frames come from `rocestat --fields FILE` (the default) or, for developing
the checker itself, from tshark (--backend tshark) mapped to the same CSV
columns. CM messages are decoded here from the raw pcap, since the --fields
CSV has no CM columns. --mode json is reserved for comparing the analyzer's
JSON report (`rocestat --format json`) once it exists; until then it fails.

Exit status 0 only if every sample passed; the last line is
"N passed, N failed".
"""
import argparse
import csv
import glob
import io
import json
import os
import struct
import subprocess
import sys

import pcaprecs  # tests/pcaprecs.py, beside this script
from testlib import tshark_fields  # tests/testlib.py, beside it too

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

FIELDS = ("frame,time,roce,src,dst,opcode,opname,destqp,psn,ackreq,se,migreq,"
          "padcnt,tver,pkey,fecn,becn,reth_va,reth_rkey,reth_dmalen,"
          "aeth_syndrome,aeth_msn,deth_qkey,deth_srcqp,immdt,ieth_rkey,"
          "atomic_va,atomic_rkey,atomic_swap,atomic_cmp,atomicack_orig,"
          "payload_len,icrc,icrc_status,sliced,dceth_flags,dceth_srcqp,dceth_session,"
          "dceth_dct,dcceth_dckey,dscp,ecn,udp_sport,cm_message,pause_enable,pause_quanta,ip_id,ttl,aeth_kind").split(",")

# BTH opcodes (IBA vol 1, table 38) for the transports RXE speaks here.
RC_OPS = {
    0x00: "SEND_FIRST", 0x01: "SEND_MIDDLE", 0x02: "SEND_LAST",
    0x03: "SEND_LAST_WITH_IMMEDIATE", 0x04: "SEND_ONLY",
    0x05: "SEND_ONLY_WITH_IMMEDIATE", 0x06: "RDMA_WRITE_FIRST",
    0x07: "RDMA_WRITE_MIDDLE", 0x08: "RDMA_WRITE_LAST",
    0x09: "RDMA_WRITE_LAST_WITH_IMMEDIATE", 0x0a: "RDMA_WRITE_ONLY",
    0x0b: "RDMA_WRITE_ONLY_WITH_IMMEDIATE", 0x0c: "RDMA_READ_REQUEST",
    0x0d: "RDMA_READ_RESPONSE_FIRST", 0x0e: "RDMA_READ_RESPONSE_MIDDLE",
    0x0f: "RDMA_READ_RESPONSE_LAST", 0x10: "RDMA_READ_RESPONSE_ONLY",
    0x11: "ACKNOWLEDGE", 0x12: "ATOMIC_ACKNOWLEDGE", 0x13: "COMPARE_SWAP",
    0x14: "FETCH_ADD", 0x16: "SEND_LAST_WITH_INVALIDATE",
    0x17: "SEND_ONLY_WITH_INVALIDATE",
}


def opname(op):
    if op is None:
        return ""
    if op < 0x20:
        return "RC_" + RC_OPS.get(op, "0x%02x" % op)
    if op == 0x64:
        return "UD_SEND_ONLY"
    if op == 0x65:
        return "UD_SEND_ONLY_WITH_IMMEDIATE"
    return "0x%02x" % op


# Message starts and the WR opcode they belong to, for counting messages.
MSG_START = {
    0x00: "SEND", 0x04: "SEND", 0x05: "SEND_WITH_IMM",
    0x06: "RDMA_WRITE", 0x0a: "RDMA_WRITE", 0x0b: "RDMA_WRITE_WITH_IMM",
    0x0c: "RDMA_READ", 0x13: "ATOMIC_CMP_AND_SWP", 0x14: "ATOMIC_FETCH_AND_ADD",
    0x64: "SEND", 0x65: "SEND_WITH_IMM",
}
READ_RESP = (0x0d, 0x0e, 0x0f, 0x10)
IS_REQUEST = set(range(0x00, 0x0d)) | {0x13, 0x14, 0x16, 0x17, 0x64, 0x65}


def to_int(v):
    if v is None or v == "":
        return None
    v = v.strip()
    if "," in v:      # tshark repeats a field for stacked headers
        v = v.split(",")[0]
    return int(v, 0) if v.lower().startswith("0x") else int(v)


# ---- frame sources ---------------------------------------------------------

def rows_from_csv(text):
    rd = csv.DictReader(io.StringIO(text))
    if rd.fieldnames != FIELDS:
        raise RuntimeError("unexpected --fields header: %s" % ",".join(rd.fieldnames or []))
    rows = []
    for r in rd:
        row = {}
        for k in FIELDS:
            v = r.get(k, "")
            if k in ("src", "dst", "opname", "icrc_status", "sliced", "time", "roce", "pause_quanta", "cm_message", "aeth_kind"):
                row[k] = v
            else:
                row[k] = to_int(v)
        rows.append(row)
    return rows


def frames_rocestat(pcap, rocestat):
    p = subprocess.run([rocestat, "--fields", pcap], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s --fields failed (%d): %s" % (rocestat, p.returncode,
                                                          p.stderr.strip()[:300]))
    return rows_from_csv(p.stdout)


TSHARK_MAP = [
    ("frame", "frame.number"), ("time", "frame.time_relative"),
    ("src4", "ip.src"), ("dst4", "ip.dst"), ("src6", "ipv6.src"), ("dst6", "ipv6.dst"),
    ("opcode", "infiniband.bth.opcode"), ("destqp", "infiniband.bth.destqp"),
    ("psn", "infiniband.bth.psn"), ("ackreq", "infiniband.bth.a"),
    ("se", "infiniband.bth.se"), ("migreq", "infiniband.bth.m"),
    ("padcnt", "infiniband.bth.padcnt"), ("tver", "infiniband.bth.tver"),
    ("pkey", "infiniband.bth.p_key"),
    ("reth_va", "infiniband.reth.va"), ("reth_rkey", "infiniband.reth.r_key"),
    ("reth_dmalen", "infiniband.reth.dmalen"),
    ("aeth_syndrome", "infiniband.aeth.syndrome"), ("aeth_msn", "infiniband.aeth.msn"),
    ("deth_qkey", "infiniband.deth.q_key"), ("deth_srcqp", "infiniband.deth.srcqp"),
    ("immdt", "infiniband.immdt"), ("ieth", "infiniband.ieth"),
    ("reth", "infiniband.reth"), ("atomiceth", "infiniband.atomiceth"),
    ("atomic_swap", "infiniband.atomiceth.swapdt"),
    ("atomic_cmp", "infiniband.atomiceth.cmpdt"),
    ("atomicack_orig", "infiniband.atomicacketh.origremdt"),
    ("payload", "infiniband.payload"), ("icrc", "infiniband.invariant.crc"),
]


def hexbytes(v):
    v = (v or "").replace(":", "").strip()
    return bytes.fromhex(v) if v else b""


# Extended header bytes after the BTH, per opcode, to size the payload.
EXT_LEN = {0x03: 4, 0x05: 4, 0x06: 16, 0x09: 4, 0x0a: 16, 0x0b: 20, 0x0c: 16,
           0x0d: 4, 0x0f: 4, 0x10: 4, 0x11: 4, 0x12: 12, 0x13: 28, 0x14: 28,
           0x16: 4, 0x17: 4, 0x64: 8, 0x65: 12}


def payload_len(roce, op, padcnt):
    """Payload bytes of a RoCEv2 packet: what is left after BTH, the extended
    headers, the pad and the 4-byte ICRC. READ requests carry none."""
    if roce is None or op is None or op == 0x0c:
        return 0
    return max(0, len(roce) - 12 - EXT_LEN.get(op, 0) - (padcnt or 0) - 4)


def frames_tshark(pcap):
    raw = {frame: roce for frame, _, _, roce in roce_payloads(pcap)}
    rows = []
    for line in tshark_fields(pcap, [f for _, f in TSHARK_MAP], "infiniband", occurrence="f", heuristics_off=False):
        vals = dict(zip([k for k, _ in TSHARK_MAP], line))
        r = {k: None for k in FIELDS}
        r["frame"] = int(vals["frame"])
        r["time"] = vals["time"]
        r["src"] = vals["src4"] or vals["src6"]
        r["dst"] = vals["dst4"] or vals["dst6"]
        for k in ("opcode", "destqp", "psn", "padcnt", "tver", "pkey", "reth_dmalen",
                  "aeth_syndrome", "aeth_msn", "deth_qkey", "deth_srcqp",
                  "atomic_swap", "atomic_cmp", "atomicack_orig", "icrc"):
            r[k] = to_int(vals.get(k))
        for k in ("ackreq", "se", "migreq"):
            r[k] = {"True": 1, "False": 0, "1": 1, "0": 0}.get(vals.get(k), None)
        op = r["opcode"]
        r["opname"] = opname(op)
        # tshark files the AtomicETH VA/rkey under reth.*: sort them out.
        if op in (0x13, 0x14):
            ae = hexbytes(vals.get("atomiceth"))
            if len(ae) >= 12:
                r["atomic_va"], r["atomic_rkey"] = struct.unpack(">QI", ae[:12])
        elif vals.get("reth"):
            r["reth_va"] = to_int(vals.get("reth_va"))
            r["reth_rkey"] = to_int(vals.get("reth_rkey"))
        else:
            r["reth_dmalen"] = None
        imm = hexbytes(vals.get("immdt"))
        r["immdt"] = struct.unpack(">I", imm)[0] if len(imm) == 4 else None
        ieth = hexbytes(vals.get("ieth"))
        r["ieth_rkey"] = struct.unpack(">I", ieth)[0] if len(ieth) == 4 else None
        r["payload_len"] = payload_len(raw.get(r["frame"]), op, r["padcnt"])
        r["icrc_status"] = ""      # tshark does not verify the ICRC
        rows.append(r)
    return rows


# ---- CM messages straight from the pcap --------------------------------------

CM_ATTRS = {0x10: "REQ", 0x11: "MRA", 0x12: "REJ", 0x13: "REP", 0x14: "RTU",
            0x15: "DREQ", 0x16: "DREP", 0x17: "SIDR_REQ", 0x18: "SIDR_REP"}


def roce_payloads(pcap):
    """(frame number, src ip text, dst ip text, UDP payload) for RoCEv2 frames."""
    import ipaddress
    linktype, recs, _ = pcaprecs.read_pcap(pcap)
    if linktype != 1:
        raise RuntimeError("%s: link type %d, expected Ethernet" % (pcap, linktype))
    out = []
    for n, (_, _, _, _, pkt) in enumerate(recs, 1):
        et = struct.unpack(">H", pkt[12:14])[0] if len(pkt) >= 14 else 0
        p = pkt[14:]
        if et == 0x0800 and len(p) >= 20 and p[9] == 17:
            ihl = (p[0] & 15) * 4
            src, dst, udp = (str(ipaddress.IPv4Address(p[12:16])),
                             str(ipaddress.IPv4Address(p[16:20])), p[ihl:])
        elif et == 0x86DD and len(p) >= 40 and p[6] == 17:
            src, dst, udp = (str(ipaddress.IPv6Address(p[8:24])),
                             str(ipaddress.IPv6Address(p[24:40])), p[40:])
        else:
            continue
        if len(udp) >= 8 and struct.unpack(">H", udp[2:4])[0] == 4791:
            out.append((n, src, dst, udp[8:]))
    return out


def cm_messages(pcap):
    """CM MADs on QP1: dicts with the fields the checks need."""
    msgs = []
    for frame, src, dst, roce in roce_payloads(pcap):
        if len(roce) < 12 + 8 + 24:
            continue
        destqp = struct.unpack(">I", roce[4:8])[0] & 0xffffff
        if destqp != 1:
            continue
        mad = roce[20:]
        if mad[1] != 0x07:          # management class: CM
            continue
        attr = struct.unpack(">H", mad[16:18])[0]
        body = mad[24:]
        m = {"frame": frame, "src": src, "dst": dst, "type": CM_ATTRS.get(attr, hex(attr))}
        u24 = lambda o: struct.unpack(">I", body[o:o + 4])[0] >> 8
        if m["type"] == "REQ":
            m["qpn"], m["start_psn"] = u24(32), u24(44)
            m["private_data"] = body[132:132 + 92]
        elif m["type"] == "REP":
            m["qpn"], m["start_psn"] = u24(12), u24(20)
            m["private_data"] = body[36:36 + 196]
        elif m["type"] == "REJ":
            m["reason"] = struct.unpack(">H", body[10:12])[0]
            m["private_data"] = body[84:84 + 148]
        elif m["type"] == "SIDR_REP":
            m["status"], m["qpn"] = body[4], u24(8)
            m["qkey"] = struct.unpack(">I", body[20:24])[0]
        msgs.append(m)
    return msgs


# ---- the checks ---------------------------------------------------------------

class Checker:
    def __init__(self, name):
        self.name, self.failures, self.checks = name, [], 0

    def eq(self, what, got, want):
        self.checks += 1
        if got != want:
            self.failures.append("%s: got %r, want %r" % (what, got, want))

    def true(self, what, cond, detail=""):
        self.checks += 1
        if not cond:
            self.failures.append(what + (": " + detail if detail else ""))


def u64(v):
    return int(v, 16) if isinstance(v, str) else v


def unique_requests(rows, src):
    """Requests from src in wire order, retransmissions (same PSN) dropped."""
    seen, out = set(), []
    for r in rows:
        if r["src"] == src and r["opcode"] in IS_REQUEST and r["destqp"] != 1:
            if r["psn"] in seen:
                continue
            seen.add(r["psn"])
            out.append(r)
    return out


def message_tally(rows, src, read_src):
    """{wr opcode: [messages, payload bytes]} as seen on the wire.

    Packets are put back together into messages (FIRST, MIDDLE..., LAST or
    ONLY); a message's kind is decided by its last packet, since only that
    one says WITH_IMMEDIATE. READ bytes come from the READ responses."""
    tally = {}

    def add(kind, nbytes):
        t = tally.setdefault(kind, [0, 0])
        t[0] += 1
        t[1] += nbytes

    cur = None
    for r in unique_requests(rows, src):
        op, n = r["opcode"], r["payload_len"] or 0
        if op in (0x00, 0x06):
            cur = ["SEND" if op == 0x00 else "RDMA_WRITE", n]
        elif op in (0x01, 0x07):
            if cur:
                cur[1] += n
        elif op in (0x02, 0x03, 0x08, 0x09):
            if cur:
                add(cur[0] + ("_WITH_IMM" if op in (0x03, 0x09) else ""), cur[1] + n)
            cur = None
        elif op in MSG_START:
            add(MSG_START[op], 0 if op in (0x0c, 0x13, 0x14) else n)
    seen = set()
    for r in rows:
        if r["src"] == read_src and r["opcode"] in READ_RESP and r["psn"] not in seen:
            seen.add(r["psn"])
            tally.setdefault("RDMA_READ", [0, 0])[1] += r["payload_len"] or 0
    return tally


def expected_tally(wrs, completions, side):
    """(exact, minimum) {opcode: [messages, bytes]} from the posted WRs.

    A WR that completed successfully was on the wire. One that failed with a
    flush may or may not have left before the QP went to error, so it only
    widens the allowed range."""
    status = {(c["side"], c["wr_id"]): c["status"] for c in completions}
    lo, hi = {}, {}
    for w in wrs:
        if w["side"] != side:
            continue
        st = status.get((side, w["wr_id"]))
        for d in ([hi] if st not in (0, 10) else [lo, hi]):
            t = d.setdefault(w["opcode"], [0, 0])
            t[0] += 1
            # atomics carry operands in the AtomicETH, no payload
            t[1] += 0 if w["opcode"].startswith("ATOMIC") else w["length"]
    return lo, hi


def check_fields(t, rows, cms, ck):
    srv, cli = t["server"], t["client"]
    sip, cip = srv["ip"], cli["ip"]
    scen = t["scenario"]
    wrs, wcs = t["work_requests"], t["completions"]
    data = [r for r in rows if r["destqp"] != 1]

    # ICRC, when the backend checks it
    bad = [r["frame"] for r in rows if r["icrc_status"] not in ("", "ok", "good", "valid")]
    ck.true("ICRC valid on every frame", not bad, "frames %s" % bad[:5])

    # --- CM ---
    kinds = [(m["type"], m["src"]) for m in cms]
    if scen == "reject":
        rej = [m for m in cms if m["type"] == "REJ"]
        ck.true("a REJ from the server", rej and rej[0]["src"] == sip, str(kinds))
        if rej:
            want = t["cm"]["reject"]
            ck.eq("REJ reason", rej[0]["reason"], want["reason"])
            pd = bytes.fromhex(want["private_data"])
            ck.eq("REJ private data", rej[0]["private_data"][:len(pd)].hex(), pd.hex())
        ck.eq("data frames after a REJ", len(data), 0)
        return
    if scen == "ud":
        rep = [m for m in cms if m["type"] == "SIDR_REP"]
        ck.true("SIDR_REQ from the client",
                any(m["type"] == "SIDR_REQ" and m["src"] == cip for m in cms), str(kinds))
        ck.true("a SIDR_REP from the server", rep and rep[0]["src"] == sip, str(kinds))
        if rep:
            sidr = t["cm"]["sidr"]
            ck.eq("SIDR_REP status", rep[0]["status"], sidr["status"])
            ck.eq("SIDR_REP QPN", rep[0]["qpn"], sidr["remote_qpn"])
            ck.eq("SIDR_REP QPN is the server's QP", rep[0]["qpn"], srv["qpn"])
            ck.eq("SIDR_REP Q_Key", rep[0]["qkey"], sidr["qkey"])
    else:
        req = [m for m in cms if m["type"] == "REQ"]
        rep = [m for m in cms if m["type"] == "REP"]
        ck.true("REQ client->server", req and req[0]["src"] == cip, str(kinds))
        ck.true("REP server->client", rep and rep[0]["src"] == sip, str(kinds))
        ck.true("RTU client->server", ("RTU", cip) in kinds, str(kinds))
        if req and rep:
            ck.eq("REQ local QPN", req[0]["qpn"], cli["qpn"])
            ck.eq("REP local QPN", rep[0]["qpn"], srv["qpn"])
            # Linux CM: the REQ's starting PSN becomes the passive side's
            # send PSN and the REP's the active side's (see README).
            ck.eq("REQ starting PSN = server send PSN", req[0]["start_psn"], srv["sq_psn"])
            ck.eq("REP starting PSN = client send PSN", rep[0]["start_psn"], cli["sq_psn"])
        init = t["cm"].get("disconnect_initiator")
        if init:
            first = next((m for m in cms if m["type"] == "DREQ"), None)
            ck.true("DREQ from the %s" % init,
                    first and first["src"] == (sip if init == "server" else cip), str(kinds))
            ck.true("DREP answers it", any(m["type"] == "DREP" for m in cms), str(kinds))

    # --- QPNs ---
    c2s = [r for r in data if r["src"] == cip]
    s2c = [r for r in data if r["src"] == sip]
    ck.eq("destination QPs client->server", sorted({r["destqp"] for r in c2s}),
          [srv["qpn"]] if c2s else [])
    ck.eq("destination QPs server->client", sorted({r["destqp"] for r in s2c}),
          [cli["qpn"]] if s2c else [])
    if scen == "ud":
        ck.eq("DETH source QP client->server", {r["deth_srcqp"] for r in c2s}, {cli["qpn"]})
        ck.eq("DETH source QP server->client", {r["deth_srcqp"] for r in s2c}, {srv["qpn"]})
        ck.eq("DETH Q_Key", {r["deth_qkey"] for r in data}, {t["cm"]["sidr"]["qkey"]})

    # --- first PSNs ---
    for side, ip in (("client", cip), ("server", sip)):
        reqs = unique_requests(rows, ip)
        if reqs:
            ck.eq("first %s request PSN" % side, reqs[0]["psn"], t[side]["sq_psn"])

    # --- RETH / AtomicETH / ImmDt against the WRs, in order ---
    for side, ip in (("client", cip), ("server", sip)):
        reqs = unique_requests(rows, ip)
        posted = [w for w in wrs if w["side"] == side]
        rdma = [w for w in posted if w["opcode"] in ("RDMA_WRITE", "RDMA_WRITE_WITH_IMM", "RDMA_READ")]
        reth = [r for r in reqs if r["reth_rkey"] is not None]
        ck.true("%s: no more RETHs than RDMA WRs" % side, len(reth) <= len(rdma),
                "%d > %d" % (len(reth), len(rdma)))
        for r, w in zip(reth, rdma):
            ck.eq("frame %d RETH VA" % r["frame"], r["reth_va"], u64(w["remote_addr"]))
            ck.eq("frame %d RETH rkey" % r["frame"], r["reth_rkey"], w["rkey"])
            ck.eq("frame %d RETH length" % r["frame"], r["reth_dmalen"], w["length"])
        atom = [w for w in posted if w["opcode"].startswith("ATOMIC")]
        aeth = [r for r in reqs if r["opcode"] in (0x13, 0x14)]
        ck.eq("%s: atomic requests on the wire" % side, len(aeth), len(atom))
        for r, w in zip(aeth, atom):
            ck.eq("frame %d AtomicETH VA" % r["frame"], r["atomic_va"], u64(w["remote_addr"]))
            ck.eq("frame %d AtomicETH rkey" % r["frame"], r["atomic_rkey"], w["rkey"])
            if w["opcode"] == "ATOMIC_CMP_AND_SWP":
                ck.eq("frame %d compare" % r["frame"], r["atomic_cmp"], u64(w["compare"]))
                ck.eq("frame %d swap" % r["frame"], r["atomic_swap"], u64(w["swap"]))
            else:
                ck.eq("frame %d add" % r["frame"], r["atomic_swap"], u64(w["add"]))
        imm_wr = [w["imm_data"] for w in posted if "imm_data" in w]
        imm_wire = [r["immdt"] for r in reqs if r["immdt"] is not None]
        ck.eq("%s: immediate values in order" % side, imm_wire, imm_wr)
        # received immediates as the completions reported them
        other = "server" if side == "client" else "client"
        imm_wc = [c["imm_data"] for c in wcs if c["side"] == other and "imm_data" in c]
        ck.eq("%s->%s: immediates in receive completions" % (side, other), imm_wire, imm_wc)

    # atomic ACK original values, in order, against the completions
    orig_wire = []
    seen = set()
    for r in rows:
        if r["src"] == sip and r["opcode"] == 0x12 and r["psn"] not in seen:
            seen.add(r["psn"])
            orig_wire.append(r["atomicack_orig"])
    orig_wc = [u64(c["atomic_orig"]) for c in wcs if "atomic_orig" in c]
    ck.eq("atomic ACK original values", orig_wire, orig_wc)

    # --- message counts and bytes per opcode ---
    for side, ip, peer in (("client", cip, sip), ("server", sip, cip)):
        got = message_tally(rows, ip, peer)
        lo, hi = expected_tally(wrs, wcs, side)
        for op in sorted(set(got) | set(hi)):
            g = got.get(op, [0, 0])
            a, b = lo.get(op, [0, 0]), hi.get(op, [0, 0])
            if a == b:
                ck.eq("%s %s messages/bytes" % (side, op), g, b)
            else:
                ck.true("%s %s messages/bytes within %s..%s" % (side, op, a, b),
                        a[0] <= g[0] <= b[0] and a[1] <= g[1] <= b[1], str(g))

    # --- NAKs ---
    naks = [r for r in data if r["opcode"] == 0x11 and r["aeth_syndrome"] is not None
            and (r["aeth_syndrome"] >> 5) != 0]
    if scen == "bad-rkey":
        bad_wc = [c for c in wcs if c["side"] == "client" and c["status"] == 10]
        ck.eq("REM_ACCESS_ERR completions", len(bad_wc), 1)
        rae = [r for r in naks if r["aeth_syndrome"] == 0x62]
        ck.true("a remote access error NAK (syndrome 0x62) server->client",
                rae and rae[0]["src"] == sip, str([hex(r["aeth_syndrome"]) for r in naks]))
        first = unique_requests(rows, cip)
        if rae and first:
            ck.eq("the NAK names the bad WRITE's PSN", rae[0]["psn"], first[0]["psn"])
            bad_wr = next(w for w in wrs if w["side"] == "client" and w["wr_id"] == bad_wc[0]["wr_id"])
            ck.eq("the NAKed WRITE carried the bad rkey", first[0]["reth_rkey"], bad_wr["rkey"])
            ck.true("the bad rkey is not the advertised one",
                    bad_wr["rkey"] != srv["mr"]["rkey"])
    elif scen == "rnr":
        rnr = [r for r in naks if (r["aeth_syndrome"] >> 5) == 1]
        ck.true("RNR NAKs server->client", rnr and all(r["src"] == sip for r in rnr),
                str([hex(r["aeth_syndrome"]) for r in naks]))
        ck.eq("RNR NAK timer = server min_rnr_timer",
              {r["aeth_syndrome"] & 0x1f for r in rnr}, {srv["min_rnr_timer"]})
        # RXE keeps streaming the SENDs behind the one it got an RNR NAK
        # for; the responder answers those with PSN sequence error NAKs.
        ck.eq("only RNR and PSN sequence error NAKs",
              [hex(r["aeth_syndrome"]) for r in naks
               if (r["aeth_syndrome"] >> 5) != 1 and r["aeth_syndrome"] != 0x60], [])
    else:
        ck.eq("NAKs", [hex(r["aeth_syndrome"]) for r in naks], [])

    # --- completions in the truth agree with the scenario ---
    st = {}
    for c in wcs:
        st[c["status_name"]] = st.get(c["status_name"], 0) + 1
    if scen not in ("bad-rkey", "disconnect"):
        ck.eq("completion statuses", set(st), {"success"} if wcs else set())


WR_KIND = {"SEND": "send", "SEND_WITH_IMM": "send_imm", "RDMA_WRITE": "write",
           "RDMA_WRITE_WITH_IMM": "write_imm", "RDMA_READ": "read",
           "ATOMIC_CMP_AND_SWP": "atomic_cas", "ATOMIC_FETCH_AND_ADD": "atomic_faa"}


def report_json(pcap, rocestat):
    p = subprocess.run([rocestat, "-n", "--format", "json", pcap], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError("rocestat --format json exited %d: %s" % (p.returncode, p.stderr.strip()))
    return json.loads(p.stdout)


def check_json(t, rep, ck):
    """The analyzer's own report (rocestat --format json) against the truth:
    connection outcome, QPNs and starting PSNs, message counts and bytes per
    kind on each half-flow, immediates, rkeys, NAK codes, UD Q_Key/source QP."""
    srv, cli = t["server"], t["client"]
    sip, cip = srv["ip"], cli["ip"]
    scen = t["scenario"]
    wrs, wcs = t["work_requests"], t["completions"]
    qps = {(q["src"], q["dst"], q["dest_qp"]): q for q in rep["qps"]}
    conns = rep["connections"]

    ck.eq("ICRC: none bad", rep["capture"]["icrc"]["bad"], 0)

    # --- the CM outcome ---
    if scen == "ud":
        sidr = [c for c in conns if c["kind"] == "sidr"]
        ck.eq("one SIDR exchange", len(sidr), 1)
        if sidr:
            c = sidr[0]
            ck.eq("SIDR state", c["state"], "resolved" if t["cm"]["sidr"]["status"] == 0 else "rejected")
            ck.eq("SIDR QPN", c["sidr"]["qpn"], srv["qpn"])
            ck.eq("SIDR Q_Key", c["sidr"]["q_key"], t["cm"]["sidr"]["qkey"])
            ck.eq("SIDR client address", c["client"]["address"], cip)
            ck.eq("SIDR client QP (from its datagrams)", c["client"]["qpn"], cli["qpn"])
    else:
        rc = [c for c in conns if c["kind"] == "connected"]
        ck.eq("one connection", len(rc), 1)
        if not rc:
            return
        c = rc[0]
        ck.eq("client address", c["client"]["address"], cip)
        ck.eq("server address", c["server"]["address"], sip)
        ck.eq("client QPN", c["client"]["qpn"], cli["qpn"])
        if scen == "reject":
            ck.eq("state", c["state"], "rejected")
            ck.eq("REJ reason", c["reject"] and c["reject"]["reason"], t["cm"]["reject"]["reason"])
            ck.eq("rejected by", c["reject"] and c["reject"]["by"], "server")
            ck.eq("no data half-flow", [q for q in rep["qps"] if q["dest_qp"] > 1], [])
            return
        ck.eq("server QPN", c["server"]["qpn"], srv["qpn"])
        ck.eq("client start PSN", c["client"]["start_psn"], cli["sq_psn"])
        ck.eq("server start PSN", c["server"]["start_psn"], srv["sq_psn"])
        want = "closed" if t["cm"].get("disconnect_initiator") else "established"
        ck.eq("connection state", c["state"], want)
        ck.eq("RDMA CM port", c["port"], srv["cm_port"])

    # --- per half-flow: messages, bytes, immediates, rkeys ---
    for side, ip, peer_ip, peer in (("client", cip, sip, srv), ("server", sip, cip, cli)):
        q = qps.get((ip, peer_ip, peer["qpn"]))
        status = {(c["side"], c["wr_id"]): c["status"] for c in wcs}
        posted = [w for w in wrs if w["side"] == side]
        done = [w for w in posted if status.get((side, w["wr_id"])) == 0]
        maybe = [w for w in posted if status.get((side, w["wr_id"])) not in (0, None)]
        if not posted:
            continue
        if q is None:
            ck.true("%s's half-flow to QP %d exists" % (side, peer["qpn"]), not done)
            continue
        if scen != "ud":
            ck.eq("%s's half-flow first request PSN" % side, q["request_psn"]["first_psn"], t[side]["sq_psn"])
            ck.eq("%s pairing" % side, q["pairing"], "cm")
        for kind in sorted(set(WR_KIND.values())):
            ok_n = sum(1 for w in done if WR_KIND.get(w["opcode"]) == kind)
            may_n = sum(1 for w in maybe if WR_KIND.get(w["opcode"]) == kind)
            ok_b = sum(8 if kind.startswith("atomic") else w["length"] for w in done if WR_KIND.get(w["opcode"]) == kind)
            may_b = sum(8 if kind.startswith("atomic") else w["length"] for w in maybe if WR_KIND.get(w["opcode"]) == kind)
            got_n, got_b = q["messages"][kind], q["message_bytes"][kind]
            if may_n:
                ck.true("%s %s messages within %d..%d" % (side, kind, ok_n, ok_n + may_n),
                        ok_n <= got_n <= ok_n + may_n, str(got_n))
                ck.true("%s %s bytes within %d..%d" % (side, kind, ok_b, ok_b + may_b),
                        ok_b <= got_b <= ok_b + may_b, str(got_b))
            else:
                ck.eq("%s %s messages" % (side, kind), got_n, ok_n)
                ck.eq("%s %s bytes" % (side, kind), got_b, ok_b)
        imm = [w["imm_data"] for w in done if "imm_data" in w]
        ck.eq("%s immediates in order" % side, q["immediates"]["values"], imm)
        rkeys = {w["rkey"] for w in done if "rkey" in w}
        got_rkeys = {r["rkey"] for r in q["rkeys"]}
        if maybe:
            ck.true("%s rkeys" % side, rkeys <= got_rkeys <= rkeys | {w["rkey"] for w in maybe if "rkey" in w},
                    str(got_rkeys))
        else:
            ck.eq("%s rkeys" % side, got_rkeys, rkeys)
        for r in q["rkeys"]:
            for w in done:
                if w.get("rkey") == r["rkey"]:
                    va = u64(w["remote_addr"])
                    ck.true("%s rkey 0x%x covers the WR's remote range" % (side, r["rkey"]),
                            r["va_start"] <= va and va + (8 if w["opcode"].startswith("ATOMIC") else w["length"]) <= r["va_end"])
        if scen == "ud":
            ck.eq("%s UD Q_Key" % side, q["ud"]["q_key"], t["cm"]["sidr"]["qkey"])
            ck.eq("%s UD source QP" % side, q["ud"]["src_qp"], t[side]["qpn"])

    # --- NAKs: on the half-flow that carries the server's responses ---
    back = qps.get((sip, cip, cli["qpn"]))
    naks = back["naks"] if back else {}
    if scen == "bad-rkey":
        bad_wc = [c for c in wcs if c["side"] == "client" and c["status"] == 10]
        ck.eq("remote access error NAKs", naks.get("remote_access_error"), len(bad_wc))
    elif scen == "rnr":
        ck.true("RNR NAKs from the server", back and back["rnr_naks"] >= 1, str(back and back["rnr_naks"]))
        if back and back["rnr_naks"]:
            want_us = {0: 655360}.get(srv["min_rnr_timer"])
            if want_us:
                ck.eq("RNR timer (µs)", back["rnr_timer_us"]["min"], want_us)
    elif back:
        ck.eq("no NAKs", sum(naks.values()), 0)
        ck.eq("no RNR NAKs", back["rnr_naks"], 0)


MODES = {"fields": check_fields, "json": check_json}


def check_sample(truth_path, args):
    name = os.path.basename(truth_path)[:-len(".truth.json")]
    pcap = truth_path[:-len(".truth.json")] + ".pcap"
    ck = Checker(name)
    with open(truth_path) as f:
        t = json.load(f)
    ck.true("truth says both sides succeeded", t.get("ok") is True)
    if not os.path.exists(pcap):
        ck.true("capture exists", False, pcap)
        return ck
    if args.mode == "json":
        check_json(t, report_json(pcap, args.rocestat), ck)
        return ck
    if args.backend == "tshark":
        rows = frames_tshark(pcap)
    else:
        rows = frames_rocestat(pcap, args.rocestat)
    MODES[args.mode](t, rows, cm_messages(pcap), ck)
    return ck


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("truth", nargs="*", help="NAME.truth.json files (default: samples/*.truth.json)")
    ap.add_argument("--backend", choices=("rocestat", "tshark"), default="rocestat")
    ap.add_argument("--rocestat", default=os.path.join(ROOT, "rocestat"))
    ap.add_argument("--mode", choices=("fields", "json"), default="fields")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    files = args.truth or sorted(glob.glob(os.path.join(ROOT, "samples", "*.truth.json")))
    if not files:
        print("samples_truth: no samples found")
        print("0 passed, 1 failed")
        return 1
    passed = failed = 0
    for path in files:
        try:
            ck = check_sample(path, args)
        except (RuntimeError, OSError, ValueError, KeyError) as e:
            ck = Checker(os.path.basename(path))
            ck.failures.append("error: %s: %s" % (type(e).__name__, e))
        if ck.failures:
            failed += 1
            print("FAIL %s (%d checks)" % (ck.name, ck.checks))
            for f in ck.failures[:20]:
                print("     " + f)
        else:
            passed += 1
            print("ok   %s (%d checks)" % (ck.name, ck.checks))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
