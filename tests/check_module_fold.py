#!/usr/bin/env python3
"""A protocol module's text section folds as the connections table does
(make modfold; part of make check): past 12 connections and queues, the 8
that most ask to be looked at and one line summing the rest; --full shows
every one.

The capture: samples/rxe_nvme_nocm.pcap (three NVMe-oF queues without a
CM handshake) copied five times, each copy between its own two hosts
(10.K.0.1 and 10.K.0.2: IPv4 header checksum and ICRC computed anew by
IBA A17.3.3 and RFC 791), and one response capsule of the last copy given
the status LBA Out of Range (NVMe 1.4 Figure 128): 15 queues, one failed
command. Checked against tshark's decode of the copy and the JSON:
- the summary's NVMe-oF section shows 8 queues, the one with the failed
  command among them, the others in their order, and a line saying
  '7 more ...: N commands, 0 failed' (the failed one is shown),
  with N the command capsules on the folded queues' target QPs and hosts
  (tshark cannot decode capsules without the CM handshake: counted by
  their layout, NVMe-oF 1.1 7.3.1, each PSN once);
- the section of queues without CM the first 8 and a line for the rest;
- --full shows all 15;
- the JSON lists all 15 (folding is the text's alone).
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "samples", "lib"))
import pcaprecs  # noqa: E402
import roce_pcap  # noqa: E402
from testlib import ROCESTAT, ROOT, Checks, tshark_fields  # noqa: E402

ck = Checks("check_module_fold")
SRC = os.path.join(ROOT, "samples", "rxe_nvme_nocm.pcap")
COPIES = 5


def ip_sum(hdr):
    s = sum(struct.unpack("!10H", bytes(hdr)))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def readdress(b, k):
    b = bytearray(b)
    if len(b) < 58 or b[12:14] != b"\x08\x00" or b[14] != 0x45:
        return bytes(b)
    b[26:30] = bytes([10, k, 0, b[29]])
    b[30:34] = bytes([10, k, 0, b[33]])
    b[24:26] = b"\0\0"
    b[24:26] = struct.pack("!H", ip_sum(b[14:34]))
    if struct.unpack("!H", b[36:38])[0] == 4791:
        b[-4:] = roce_pcap.v2_ipv4_icrc(bytes(b))
    return bytes(b)


def run(*args):
    p = subprocess.run([ROCESTAT, "-n", *args], capture_output=True, text=True)
    ck("rocestat %s: exit 0 or 1" % " ".join(args[:-1]), p.returncode in (0, 1), p.stderr[:200])
    return p.stdout


def main():
    linktype, recs, _ = pcaprecs.read_pcap(SRC)
    tmp = tempfile.TemporaryDirectory()
    path = os.path.join(tmp.name, "nvme15.pcap")
    out = []
    for k in range(COPIES):
        out += [(r[0], r[1], r[2], r[3], readdress(r[4], k + 1)) for r in recs]
    # The last copy's first I/O response capsule (16 bytes after the BTH: a
    # SEND Only of 20 bytes with the ICRC) gets status SC 80h.
    base = len(recs) * (COPIES - 1)
    t = tshark_fields(SRC, ["frame.number", "infiniband.bth.opcode", "udp.length"], "infiniband")
    sends = [int(r[0]) for r in t if r[1] in ("4", "0x04") and r[2] and int(r[2]) == 8 + 12 + 16 + 4]
    ck("response capsules found in the source", len(sends) > 10, str(len(sends)))
    n = base + sends[-1]
    b = bytearray(out[n - 1][4])
    at = 54 + 14
    b[at:at + 2] = ((0x80 << 1) | (b[at] & 1)).to_bytes(2, "little")
    b[-4:] = roce_pcap.v2_ipv4_icrc(bytes(b))
    out[n - 1] = out[n - 1][:4] + (bytes(b),)
    pcaprecs.write_pcap(path, linktype, out)

    doc = json.loads(run("--format", "json", path))
    qs = [q for q in doc.get("ulp_queues", []) if q.get("nvme")]
    ck("the JSON lists all 15 queues", len(qs) == 3 * COPIES, str(len(qs)))
    failed_q = [q["id"] for q in qs if q["nvme"]["failed_total"]]
    ck("one queue with a failed command", len(failed_q) == 1, str(failed_q))
    text = run(path)
    sec = text.split("\nNVMe-oF queues", 1)[-1].split("\n\n", 1)[0]
    shown = [int(m) for m in re.findall(r"^  queue without CM (\d+),", sec, re.M)]
    ck("8 queues shown", len(shown) == 8, str(shown))
    ck("the one with the failed command among them", failed_q and failed_q[0] in shown, "%s %s" % (failed_q, shown))
    ck("the shown in their order", shown == sorted(shown), str(shown))
    rest = [q for q in qs if q["id"] not in shown]
    # Command capsules by the layout (NVMe-oF 1.1 7.3.1: a SEND that starts
    # a message, 64 bytes or more, host to target; each PSN once), to the
    # folded queues' target QPs on their hosts.
    caps = set()
    for r in out:
        f = r[4]
        if len(f) < 58 or f[12:14] != b"\x08\x00" or struct.unpack("!H", f[36:38])[0] != 4791:
            continue
        payload = struct.unpack("!H", f[38:40])[0] - 8 - 12 - 4
        if f[42] in (0x00, 0x04) and payload >= 64:
            caps.add((".".join(map(str, f[30:34])), int.from_bytes(f[46:50], "big") & 0xFFFFFF,
                      int.from_bytes(f[50:54], "big") & 0xFFFFFF))
    folded = {(q["target"]["address"], q["target"]["qpn"]) for q in rest}
    want = sum(1 for c in caps if c[:2] in folded)
    ck("the capsules counted", want > 0 and len(caps) > want, "%d of %d" % (want, len(caps)))
    m = re.search(r"… (\d+) more NVMe-oF connections and queues: (\d+) commands, (\d+) failed, (\d+) unanswered",
                  " ".join(sec.split()))
    # unanswered: commands without a response capsule by the end, but the
    # Asynchronous Event Requests a target holds by design (NVMe 1.4 5.2)
    ck("the fold line", m is not None and (int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)))
       == (len(rest), want, sum(q["nvme"]["failed_total"] for q in rest),
           sum(q["nvme"]["unanswered"] - q["nvme"]["unanswered_async_events"] for q in rest)),
       m.group(0) if m else sec[-300:])
    qsec = text.split("\nQueues without CM", 1)[-1].split("\n\n", 1)[0]
    ck("the queues without CM: the first 8 and a line for the 7 more",
       [int(x) for x in re.findall(r"^  (\d+)  host ", qsec, re.M)] == [q["id"] for q in qs[:8]]
       and "… 7 more queues without CM" in qsec, qsec[-200:])
    full = run("--full", path).split("\nNVMe-oF queues", 1)[-1].split("\n\n", 1)[0]
    ck("--full shows all 15", len(re.findall(r"^  queue without CM \d+,", full, re.M)) == 15)
    ck("--full has no fold line", "more NVMe-oF connections" not in full)
    print("check_module_fold: %d checks, %d failed" % (ck.checks, ck.failures))
    return 1 if ck.failures else 0


if __name__ == "__main__":
    sys.exit(main())
