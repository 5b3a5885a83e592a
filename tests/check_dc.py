#!/usr/bin/env python3
"""NVIDIA DC: dc-small.pcap is named DC, counted per QP and never
read as IBTA RD (make dc).

Expected values come from the bytes, read here (BTH, then the 20-byte DCETH
whose flags byte is 0x10/0x11 and whose bytes 4, 8, 12 and 16-19 are zero,
then the headers of the RC operation with the same low opcode bits), and
from tshark, which decodes the BTH (it reads the rest as RD):
  * every frame is RoCE v2 with tshark's opcode, DestQP and PSN;
  * per destination QP, the DC packets counted from the bytes are the
    packets of a QP whose transport is DC in the JSON report;
  * --fields: DC_* opcode names, the DCETH columns as the bytes hold them,
    the RETH (WRITE) and AETH (ACK) after the DCETH, as the bytes say;
  * nothing malformed, and no RETH length anomaly (read as RD, the WRITEs
    would claim gigabytes of DMA length while carrying 8 bytes);
  * -V names the DC operation and shows the DCETH section.

    ROCESTAT=./rocestat python3 tests/check_dc.py
"""
import csv
import io
import json
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcaprecs import read_pcap  # noqa: E402
from testlib import ROCESTAT, SHARED, Checks, tshark_heuristics_off, need_shared  # noqa: E402

need_shared("check_dc")

DC = os.path.join(SHARED, "hw-captures", "magnate3__linux-riscv-dev__dc-small.pcap")
check = Checks("check_dc")


def from_bytes():
    """frame -> the BTH and DC fields the bytes hold (IPv4 RoCE v2 only)."""
    _, recs, _ = read_pcap(DC)
    out = {}
    for n, (_, _, _, _, b) in enumerate(recs, 1):
        ip = 14
        udp = ip + (b[ip] & 15) * 4
        bth = udp + 8
        op = b[bth]
        r = {"opcode": op, "destqp": struct.unpack(">I", b[bth + 4:bth + 8])[0] & 0xFFFFFF,
             "psn": struct.unpack(">I", b[bth + 8:bth + 12])[0] & 0xFFFFFF}
        d = b[bth + 12:bth + 32]
        dc = 0x40 <= op < 0x60 and d[0] in (0x10, 0x11) and d[4] == d[8] == d[12] == 0 and d[16:20] == b"\0" * 4
        r["dc"] = dc
        if dc:
            r.update(dceth_flags=d[0], dceth_srcqp=int.from_bytes(d[1:4], "big"),
                     dceth_session=int.from_bytes(d[9:12], "big"), dceth_dct=int.from_bytes(d[13:16], "big"))
            ext = bth + 32
            if op & 0x1F == 0x0A:  # RDMA WRITE Only: RETH
                r["reth_va"], r["reth_rkey"], r["reth_dmalen"] = struct.unpack(">QII", b[ext:ext + 16])
                r["payload_len"] = len(b) - (ext + 16) - 4
            elif op & 0x1F == 0x11:  # Acknowledge: AETH
                r["aeth_syndrome"] = b[ext]
                r["aeth_msn"] = int.from_bytes(b[ext + 1:ext + 4], "big")
        out[n] = r
    return out


def main():
    want = from_bytes()
    check("every frame is DC by its bytes (SOURCES.md: 19 frames of DC)",
          len(want) == 19 and all(r["dc"] for r in want.values()), str(len(want)))

    ts = subprocess.run(["tshark", "-n", "-r", DC, "-T", "fields", "-E", "separator=,", "-e", "frame.number",
                         "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.destqp", "-e", "infiniband.bth.psn"]
                        + tshark_heuristics_off(), capture_output=True, text=True, check=True).stdout
    tsh = {int(a): (int(o), int(q, 0), int(p)) for a, o, q, p in (ln.split(",") for ln in ts.split())}
    check("tshark's BTH (opcode, DestQP, PSN) is the bytes'",
          tsh == {n: (r["opcode"], r["destqp"], r["psn"]) for n, r in want.items()})

    out = subprocess.run([ROCESTAT, "-n", "--fields", DC], capture_output=True, text=True).stdout
    rows = {int(r["frame"]): r for r in csv.DictReader(io.StringIO(out))}
    check("--fields: one line per frame", sorted(rows) == sorted(want), str(sorted(rows)))
    bad = []
    for n, w in want.items():
        r = rows.get(n, {})
        rc = {0x0A: "RDMA_WRITE_ONLY", 0x11: "ACKNOWLEDGE"}.get(w["opcode"] & 0x1F)
        if r.get("opname") != "DC_%s" % rc:
            bad.append((n, "opname", r.get("opname")))
        for k, v in w.items():
            if k in ("dc", "opcode"):
                continue
            if r.get(k) != str(v):
                bad.append((n, k, r.get(k), v))
        if r.get("dcceth_dckey") != "" or r.get("sliced") != "":
            bad.append((n, "dcceth_dckey/sliced", r.get("dcceth_dckey"), r.get("sliced")))
    check("--fields: DC opcode names, DCETH, RETH and AETH as the bytes hold them", not bad, str(bad[:4]))

    rep = json.loads(subprocess.run([ROCESTAT, "-n", "--format", "json", DC], capture_output=True,
                                    text=True).stdout)
    per_qp = {}
    for r in want.values():
        per_qp[r["destqp"]] = per_qp.get(r["destqp"], 0) + 1
    got = {q["dest_qp"]: q["packets"] for q in rep["qps"] if q["transport"] == "DC"}
    check("DC packets per destination QP as the bytes count them", got == per_qp, "%s, bytes %s" % (got, per_qp))
    c = rep["capture"]
    check("nothing malformed, truncated or unsupported",
          (c["malformed"], c["truncated"], c["unsupported"]) == (0, 0, 0),
          str((c["malformed"], c["truncated"], c["unsupported"])))
    kinds = [a["type"] for a in rep["anomalies"]]
    check("no RETH length anomaly (the RD reading's gigabyte WRITEs)", "reth_length_mismatch" not in kinds, str(kinds))
    writes = sum(q["messages"]["write"] for q in rep["qps"])
    check("12 WRITE messages (one per WRITE Only the bytes hold)",
          writes == sum(1 for r in want.values() if r["opcode"] & 0x1F == 0x0A), str(writes))

    walk = subprocess.run([ROCESTAT, "-n", "-V", "--frames", "1,3", DC], capture_output=True, text=True).stdout
    check("-V: the DC operation named", "DC RDMA WRITE Only QP 0x807fff PSN 0x0440fc" in walk
          and "DC Acknowledge QP 0x9035" in walk)
    check("-V: the DCETH section with the bytes' source QP, session and DCT",
          "DC Extended Transport Header" in walk and "0x009036 (36918)" in walk and "0x61e24e" in walk
          and "0x00c0dc" in walk)
    check("-V: never called RD", "RD RDMA" not in walk and "RD Acknowledge" not in walk)

    print("check_dc: %d passed, %d failed" % (check.checks - check.failures, check.failures))
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
