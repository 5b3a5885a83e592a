#!/usr/bin/env python3
"""Sniffer traits in the capture section: capture.sniffer in the
JSON and the Sniffer lines of the summary, held to tshark's decode.

1. Every capture in ../shared/hw-captures, captures and public-captures:
   - source_mac_frames / source_mac_changes: Ethernet RoCE frames (tshark's
     `infiniband` frames with an eth layer) from a source address seen
     before, and those whose eth.src is not that address's previous one.
     The RDMA sniffer (rdma-nccl2, rc-small, dc-small) writes a MAC of its
     own into every frame: there every such frame changes.
   - host_pairs / host_pairs_one_way: unordered (RoCE version, source,
     destination) pairs of RoCE frames, multicast destinations left out, and
     those with frames from one side only.
   - rc_qps_one_way / rc_request_packets_one_way: RC request half-flows
     (version, source, destination, DestQP; opcode < 0x20 and not a
     response, IBA 9.2) whose destination host sent no RoCE frame back.
2. The same captures cut to one direction (tshark -Y keeping the frames of
   the host that sent most RoCE frames): the same comparison, and the
   summary's "one direction only" line is there exactly when an RC QP lost
   its way back.
3. The words: "the capture wrote its own MACs" on the sniffer captures,
   on no other file.

    ROCESTAT=./rocestat python3 tests/check_sniffer.py
"""
import glob
import ipaddress
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, SHARED, Checks, tshark_fields, tshark_heuristics_off, need_shared  # noqa: E402

need_shared("check_sniffer")

check = Checks("check_sniffer")
RESPONSES = {0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12}
SNIFFED = {"magnate3__linux-riscv-dev__rdma-nccl2.pcap", "magnate3__linux-riscv-dev__rc-small.pcap",
           "magnate3__linux-riscv-dev__dc-small.pcap"}
FIELDS = ["eth.src", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "infiniband.grh.sgid", "infiniband.grh.dgid",
          "infiniband.lrh.slid", "infiniband.lrh.dlid", "infiniband.bth.opcode", "infiniband.bth.destqp", "eth.type"]


def tshark_rows(path):
    for v in tshark_fields(path, FIELDS, "infiniband", occurrence="f", disable_protocols=["tftp"]):
        yield dict(zip(FIELDS, v))


def endpoints(r):
    """(version, kind, src, dst) as rocestat keys a half-flow."""
    if r["ip.src"]:
        return ("v2", "ip", r["ip.src"], r["ip.dst"])
    if r["ipv6.src"]:
        return ("v2", "ip6", r["ipv6.src"], r["ipv6.dst"])
    ver = "v1" if r["eth.src"] else "ib"
    if r["infiniband.grh.sgid"]:
        return (ver, "gid", r["infiniband.grh.sgid"], r["infiniband.grh.dgid"])
    return (ver, "lid", r["infiniband.lrh.slid"], r["infiniband.lrh.dlid"])


def multicast(kind, dst):
    if kind == "lid":
        return int(dst, 0) >= 0xC000
    a = ipaddress.ip_address(dst)
    return a.is_multicast or dst == "255.255.255.255"


def oracle(path):
    last_mac, frames, changes = {}, 0, 0
    dirs, rc = set(), {}
    for r in tshark_rows(path):
        ver, kind, src, dst = endpoints(r)
        if r["eth.src"]:
            k = (kind, src)
            if k in last_mac:
                frames += 1
                changes += last_mac[k] != r["eth.src"]
            last_mac[k] = r["eth.src"]
        if multicast(kind, dst):
            continue
        dirs.add((ver, src, dst))
        op = r["infiniband.bth.opcode"]
        if op and int(op, 0) < 0x20 and int(op, 0) not in RESPONSES:
            k = (ver, src, dst, r["infiniband.bth.destqp"])
            rc[k] = rc.get(k, 0) + 1
    pairs = {frozenset([(v, s), (v, d)]) if s != d else (v, s) for v, s, d in dirs}
    one_way = sum(1 for v, s, d in dirs if (v, d, s) not in dirs)
    lone = [k for k in rc if (k[0], k[2], k[1]) not in dirs]
    return {"source_mac_frames": frames, "source_mac_changes": changes, "host_pairs": len(pairs),
            "host_pairs_one_way": one_way, "rc_qps_one_way": len(lone),
            "rc_request_packets_one_way": sum(rc[k] for k in lone)}


def run(path, *args):
    r = subprocess.run([ROCESTAT, "-n", *args, path], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise RuntimeError("rocestat %s exited %d: %s" % (path, r.returncode, r.stderr))
    return r.stdout


def compare(path, label):
    want = oracle(path)
    got = json.loads(run(path, "--format", "json"))["capture"]["sniffer"]
    for k, v in want.items():
        check("%s: %s" % (label, k), got.get(k) == v, "rocestat %s, tshark %s" % (got.get(k), v))
    text = run(path)
    check("%s: one-direction line" % label, ("one direction only" in text) == (want["rc_qps_one_way"] > 0),
          "rc_qps_one_way %d" % want["rc_qps_one_way"])
    return want, text


def main():
    files = []
    for d in ("hw-captures", "captures", "public-captures"):
        files += sorted(glob.glob(os.path.join(SHARED, d, "*.pcap")) + glob.glob(os.path.join(SHARED, d, "*.pcapng")))
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            name = os.path.basename(path)
            want, text = compare(path, name)
            own = "the capture wrote its own MACs" in text
            check("%s: per-frame MAC words" % name, own == (name in SNIFFED))
            if name in SNIFFED:
                check("%s: every frame changes MAC" % name,
                      want["source_mac_frames"] > 0 and want["source_mac_changes"] == want["source_mac_frames"])
            # The walkthrough of the first RoCE v2 frame: a source MAC with
            # the group bit set, and UDP source port 4791, are named as the
            # capture tool's (tshark reads both fields).
            first = subprocess.run(["tshark", "-r", path, "-Y", "udp.dstport == 4791", "-c", "1", "-T", "fields",
                                    "-e", "frame.number", "-e", "eth.src", "-e", "udp.srcport"] +
                                   tshark_heuristics_off(), capture_output=True, text=True).stdout.split()
            if len(first) == 3:
                walk = run(path, "-V", "--frames", first[0], "--width", "200")
                group = int(first[1].split(":")[0], 16) & 1 == 1
                check("%s frame %s: group-bit source MAC named (%s)" % (name, first[0], first[1]),
                      ("group bit set: not a station's address" in walk) == group)
                line = [ln for ln in walk.splitlines() if "Source port" in ln and "(%s)" % first[2] in ln]
                line = line[0] if line else ""
                check("%s frame %s: source port %s named as the tool's or the sender's" % (name, first[0], first[2]),
                      line.endswith("4791: likely written by the capture tool" if first[2] == "4791"
                                    else "chosen by the sender"), repr(line))
            # One direction: the host that sent most RoCE frames, alone.
            senders = {}
            for r in tshark_rows(path):
                s = endpoints(r)[2]
                senders[s] = senders.get(s, 0) + 1
            if len(senders) < 2:
                continue
            top = max(senders, key=lambda s: (senders[s], s))
            e = [x for x in (tshark_rows(path)) if endpoints(x)[2] == top][0]
            kind = endpoints(e)[1]
            flt = {"ip": "ip.src==%s", "ip6": "ipv6.src==%s", "gid": "infiniband.grh.sgid==%s",
                   "lid": "infiniband.lrh.slid==%s"}[kind] % top
            cut = os.path.join(tmp, "oneway-" + name.replace(".pcapng", ".pcap"))
            subprocess.run(["tshark", "-r", path, "-Y", flt, "-F", "pcap", "-w", cut], capture_output=True, check=True)
            compare(cut, name + " one way")
    print("check_sniffer: %d passed, %d failed" % (check.checks - check.failures, check.failures))
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
