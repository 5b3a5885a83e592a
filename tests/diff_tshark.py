#!/usr/bin/env python3
"""Differential test: every field of `rocestat --fields` against tshark.

For every capture under ../shared/captures, ../shared/public-captures,
../shared/hw-captures (but the NVIDIA DC one: tshark reads DC as RD) and samples/, every RoCE frame that tshark decodes must be a line of ours and
every field must equal tshark's `-T fields` decode of the same frame.

tshark (Wireshark 4.0) is the independent oracle, with its payload
heuristics off (they claim perftest payloads as RPC-over-RDMA and report
them malformed). Where tshark 4.0 is provably wrong or silent, the check is
adjusted in one place below (EXCEPTIONS), each with the spec clause that
proves our decode; no frame is skipped.

Exit status 0 when every field of every frame matches, 1 otherwise.
"""
import glob
import ipaddress
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, ROOT, SHARED, need_shared, tshark_fields  # noqa: E402

# Why our expected value differs from what tshark prints. Each entry is used
# by name below, so an unused or wrong one cannot hide in the list.
EXCEPTIONS = {
    "icrc_byte_order":
        "tshark shows the ICRC as a big-endian read of the 4 wire bytes; the "
        "ICRC is transmitted least significant byte first (IBA vol 1 7.8.1, "
        "Annex A17.4.5.2), and --fields prints the value itself, so we "
        "compare against tshark's value byte-swapped.",
    "payload_excludes_pad":
        "tshark's data.len counts the PadCnt pad bytes as payload; IBA vol 1 "
        "9.2 (BTH PadCnt) says they only align the payload to 4 bytes and "
        "are not part of it (a 18-byte RDMA WRITE has DMA length 18, PadCnt "
        "2), so the expected payload is data.len - PadCnt.",
    "fecn_becn_from_bth_bytes":
        "tshark 4.0 shows BTH byte 4 as 'Reserved'; IBA Annex A10.2.2 and "
        "A17.9.1 define its bit 7 as FECN and bit 6 as BECN, so the expected "
        "values are taken from tshark's raw BTH bytes (infiniband.bth).",
    "payload_len_from_lengths":
        "tshark has no payload-length field when it decodes the payload "
        "further (MADs, IPoIB) or not at all (no payload), so the expected "
        "length is derived from tshark's own length fields (UDP length, GRH "
        "PayLen or LRH PktLen) minus the headers tshark decoded, the PadCnt "
        "and the 4-byte ICRC (IBA vol 1 9.2 Table 38).",
    "sliced_frame":
        "A frame the capture sliced (fewer bytes captured than its IP "
        "length, as hardware sniffers cut them, often with the record's "
        "original length rewritten to the cut): tshark's data.len counts "
        "the captured payload bytes and it reads the last four captured "
        "bytes as the ICRC. The payload on the wire is what tshark's own "
        "UDP length says (IBA Annex A17.4: the ICRC ends the UDP payload), "
        "and the ICRC was not captured, so none is expected. Sliced is "
        "decided from tshark's fields: frame.cap_len short of the Ethernet "
        "header, VLAN tags and ip.len (or 40 + ipv6.plen).",
    "cnp_unknown_to_tshark":
        "tshark 4.0 has no decoder for the RoCE v2 CNP opcode 0x81 (IBA Annex "
        "A17.9.3: BTH + 16 reserved bytes + ICRC): it reports no extension "
        "headers, so only the BTH and ICRC fields are compared for it.",
}
used = set()

TSHARK_FIELDS = [
    "frame.number", "frame.time_epoch", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst",
    "infiniband.grh.sgid", "infiniband.grh.dgid", "infiniband.grh.paylen",
    "infiniband.lrh.slid", "infiniband.lrh.dlid", "infiniband.lrh.pktlen", "udp.length",
    "infiniband.bth", "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
    "infiniband.bth.a", "infiniband.bth.se", "infiniband.bth.m", "infiniband.bth.padcnt",
    "infiniband.bth.tver", "infiniband.bth.p_key",
    "infiniband.reth", "infiniband.reth.va", "infiniband.reth.r_key", "infiniband.reth.dmalen",
    "infiniband.aeth", "infiniband.aeth.syndrome", "infiniband.aeth.msn",
    "infiniband.deth", "infiniband.deth.q_key", "infiniband.deth.srcqp",
    "infiniband.rdeth", "infiniband.immdt", "infiniband.ieth",
    "infiniband.atomiceth", "infiniband.atomiceth.swapdt", "infiniband.atomiceth.cmpdt",
    "infiniband.atomicacketh", "infiniband.atomicacketh.origremdt",
    "data.len", "infiniband.invariant.crc", "eth.type", "sll.etype",
    "frame.cap_len", "ip.len", "ipv6.plen", "vlan.id",
    "ip.dsfield.dscp", "ip.dsfield.ecn", "ipv6.tclass.dscp", "ipv6.tclass.ecn", "udp.srcport",
    "infiniband.mad.mgmtclass", "infiniband.mad.attributeid", "ip.id", "ip.ttl", "ipv6.hlim", "infiniband.grh.hoplmt",
]


OURS = ["frame", "time", "roce", "src", "dst", "opcode", "opname", "destqp", "psn", "ackreq", "se",
        "migreq", "padcnt", "tver", "pkey", "fecn", "becn", "reth_va", "reth_rkey", "reth_dmalen",
        "aeth_syndrome", "aeth_msn", "deth_qkey", "deth_srcqp", "immdt", "ieth_rkey", "atomic_va",
        "atomic_rkey", "atomic_swap", "atomic_cmp", "atomicack_orig", "payload_len", "icrc",
        "icrc_status", "sliced", "dceth_flags", "dceth_srcqp", "dceth_session", "dceth_dct", "dcceth_dckey", "dscp", "ecn",
        "udp_sport", "cm_message", "pause_enable", "pause_quanta", "ip_id", "ttl", "aeth_kind"]

# IBA vol 1 16.7.2 (Table 223? CM attributes): the CM messages by AttributeID.
CM_ATTRS = {0x10: "REQ", 0x11: "MRA", 0x12: "REJ", 0x13: "REP", 0x14: "RTU", 0x15: "DREQ", 0x16: "DREP",
            0x17: "SIDR_REQ", 0x18: "SIDR_REP", 0x19: "LAP", 0x1A: "APR"}



def unmap(gid):
    """::ffff:a.b.c.d -> a.b.c.d, as RFC 4291 2.5.5.2 maps it."""
    a = ipaddress.ip_address(gid) if gid else None
    return str(a.ipv4_mapped) if a is not None and a.version == 6 and a.ipv4_mapped else gid

def first(v):
    return v.split(",")[0] if v else ""


def num(v):
    """tshark prints integers in decimal or 0x-hex, booleans as 1/0 or True/False."""
    v = first(v)
    if v == "":
        return ""
    if v in ("True", "False"):
        return "1" if v == "True" else "0"
    return str(int(v, 16) if v.startswith("0x") else int(v))


def hexbytes(v):
    """An FT_BYTES field (ImmDt, IETH): the bytes as a big-endian integer."""
    v = first(v).replace(":", "")
    return str(int(v, 16)) if v else ""


def tshark_frames(path):
    # tftp: a Huawei NIC's RoCE v2 source port 69 (the QPN) is not TFTP.
    frames = {}
    for vals in tshark_fields(path, TSHARK_FIELDS, occurrence="a", aggregator=",", disable_protocols=["tftp"]):
        row = dict(zip(TSHARK_FIELDS, vals))
        if row["infiniband.bth.opcode"]:
            frames[int(row["frame.number"])] = row
    return frames


def our_frames(path):
    out = subprocess.run([ROCESTAT, "--fields", path], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise RuntimeError("rocestat --fields %s exited %d: %s" % (path, out.returncode, out.stderr))
    lines = out.stdout.splitlines()
    if not lines or lines[0] != ",".join(OURS):
        raise RuntimeError("%s: unexpected header %r" % (path, lines[:1]))
    frames = {}
    for line in lines[1:]:
        row = dict(zip(OURS, line.split(",")))
        frames[int(row["frame"])] = row
    return frames


def ext_bytes(t):
    """Bytes of extension headers tshark decoded (IBA vol 1 9.2 Table 38 sizes)."""
    sizes = {"infiniband.rdeth": 4, "infiniband.deth": 8, "infiniband.reth": 16, "infiniband.atomiceth": 28,
             "infiniband.aeth": 4, "infiniband.atomicacketh": 8, "infiniband.ieth": 4}
    n = sum(size for name, size in sizes.items() if t[name])
    if t["infiniband.immdt"]:
        n += 4
    return n


def sliced(t, roce):
    """The capture kept less than the IP datagram, by tshark's fields."""
    if roce != "v2" or not t["eth.type"] or not t["frame.cap_len"]:
        return False
    vlans = len(t["vlan.id"].split(",")) if t["vlan.id"] else 0
    ip = int(first(t["ip.len"])) if t["ip.len"] else 40 + int(first(t["ipv6.plen"]) or 0)
    return int(t["frame.cap_len"]) < 14 + 4 * vlans + ip


def expected(t, roce):
    """Our --fields row as tshark's decode says it must be."""
    e = {}
    e["time"] = first(t["frame.time_epoch"])
    if roce == "v2":
        e["src"] = first(t["ip.src"]) or first(t["ipv6.src"])
        e["dst"] = first(t["ip.dst"]) or first(t["ipv6.dst"])
    elif t["infiniband.grh.sgid"]:
        # An IPv4-mapped GID is shown as its IPv4 address (RFC 4291 2.5.5.2).
        e["src"], e["dst"] = (unmap(first(t["infiniband.grh.sgid"])), unmap(first(t["infiniband.grh.dgid"])))
    else:
        e["src"], e["dst"] = num(t["infiniband.lrh.slid"]), num(t["infiniband.lrh.dlid"])
    # The UDP source port (RoCE v2 only); a CM MAD's message (management
    # class 0x07). DSCP and ECN below.
    e["udp_sport"] = num(t["udp.srcport"]) if roce == "v2" else ""
    cm = t["infiniband.mad.mgmtclass"] and int(first(t["infiniband.mad.mgmtclass"]), 0) == 7
    e["cm_message"] = CM_ATTRS.get(int(first(t["infiniband.mad.attributeid"]), 0), "?") if cm else ""
    for ours, theirs in [("opcode", "bth.opcode"), ("destqp", "bth.destqp"), ("psn", "bth.psn"),
                         ("ackreq", "bth.a"), ("se", "bth.se"), ("migreq", "bth.m"), ("padcnt", "bth.padcnt"),
                         ("tver", "bth.tver"), ("pkey", "bth.p_key")]:
        e[ours] = num(t["infiniband." + theirs])
    # DSCP and ECN: RoCE v2's IP header (the outer one, tshark's first occurrence)
    v4 = roce == "v2" and bool(first(t["ip.dsfield.dscp"]))
    e["dscp"] = num(t["ip.dsfield.dscp"] if v4 else t["ipv6.tclass.dscp"]) if roce == "v2" else ""
    e["ecn"] = num(t["ip.dsfield.ecn"] if v4 else t["ipv6.tclass.ecn"]) if roce == "v2" else ""
    e["pause_enable"], e["pause_quanta"] = "", ""
    # The sender's IPv4 numbering; the TTL or hop limit of RoCE v2's IP header, else of the GRH.
    e["ip_id"] = num(t["ip.id"]) if roce == "v2" and t["ip.id"] else ""
    e["ttl"] = (num(t["ip.ttl"]) or num(t["ipv6.hlim"])) if roce == "v2" else num(t["infiniband.grh.hoplmt"])
    syn = num(t["infiniband.aeth.syndrome"])
    e["aeth_kind"] = ["ack", "rnr_nak", "reserved", "nak"][(int(syn) >> 5) & 3] if syn else ""
    bth = bytes.fromhex(first(t["infiniband.bth"]).replace(":", ""))
    used.add("fecn_becn_from_bth_bytes")
    e["fecn"], e["becn"] = str(bth[4] >> 7), str((bth[4] >> 6) & 1)

    opcode = int(e["opcode"])
    if opcode == 0x81:
        used.add("cnp_unknown_to_tshark")
        return e, {"reth_va", "reth_rkey", "reth_dmalen", "aeth_syndrome", "aeth_msn", "deth_qkey", "deth_srcqp",
                   "immdt", "ieth_rkey", "atomic_va", "atomic_rkey", "atomic_swap", "atomic_cmp",
                   "atomicack_orig", "payload_len"}

    atomic = bool(t["infiniband.atomiceth"])
    # tshark files the AtomicETH VA and R_Key under the RETH field names.
    vas, rkeys = t["infiniband.reth.va"], t["infiniband.reth.r_key"]
    e["reth_va"] = "" if atomic else num(vas)
    e["reth_rkey"] = "" if atomic else num(rkeys)
    e["reth_dmalen"] = num(t["infiniband.reth.dmalen"])
    e["atomic_va"] = num(vas) if atomic else ""
    e["atomic_rkey"] = num(rkeys) if atomic else ""
    e["atomic_swap"] = num(t["infiniband.atomiceth.swapdt"])
    e["atomic_cmp"] = num(t["infiniband.atomiceth.cmpdt"])
    e["aeth_syndrome"] = num(t["infiniband.aeth.syndrome"])
    e["aeth_msn"] = num(t["infiniband.aeth.msn"])
    e["deth_qkey"] = num(t["infiniband.deth.q_key"])
    e["deth_srcqp"] = num(t["infiniband.deth.srcqp"])
    e["immdt"] = hexbytes(t["infiniband.immdt"])
    e["ieth_rkey"] = hexbytes(t["infiniband.ieth"])
    e["atomicack_orig"] = num(t["infiniband.atomicacketh.origremdt"])

    # Payload length: from tshark's lengths, and from data.len when present.
    pad = int(e["padcnt"])
    if roce == "v2":
        transport = int(first(t["udp.length"])) - 8
    elif roce == "v1":
        transport = int(num(t["infiniband.grh.paylen"]))
    else:
        transport = int(num(t["infiniband.lrh.pktlen"])) * 4 - 8 - (40 if t["infiniband.grh.sgid"] else 0)
    used.add("payload_len_from_lengths")
    e["payload_len"] = str(transport - 12 - ext_bytes(t) - pad - 4)
    if sliced(t, roce):
        used.add("sliced_frame")
        e["icrc"] = ""
        return e, set()
    if t["data.len"]:
        used.add("payload_excludes_pad")
        data_len = str(int(first(t["data.len"])) - pad)
        if data_len != e["payload_len"]:
            e["payload_len"] = "tshark disagrees with itself: data.len-pad=%s, lengths=%s" % (data_len, e["payload_len"])

    crc = first(t["infiniband.invariant.crc"])
    used.add("icrc_byte_order")
    e["icrc"] = str(int.from_bytes(int(crc, 16).to_bytes(4, "big"), "little")) if crc else ""
    return e, set()


def check_file(path):
    theirs = tshark_frames(path)
    ours = our_frames(path)
    errors = []
    name = os.path.relpath(path, os.path.dirname(ROOT))
    for n in sorted(set(theirs) | set(ours)):
        if n not in ours:
            errors.append("%s frame %d: tshark decodes opcode %s, rocestat has no line" %
                          (name, n, theirs[n]["infiniband.bth.opcode"]))
            continue
        if n not in theirs:
            errors.append("%s frame %d: rocestat has a line (%s), tshark decodes no BTH" % (name, n, ours[n]["opname"]))
            continue
        o = ours[n]
        exp, skip = expected(theirs[n], o["roce"])
        for k, v in exp.items():
            if k in skip:
                continue
            if o[k] != v:
                errors.append("%s frame %d: %s is %r, tshark says %r" % (name, n, k, o[k], v))
    return len(ours), errors


def captures():
    paths = []
    for d in (os.path.join(SHARED, "captures"), os.path.join(SHARED, "public-captures"),
              os.path.join(SHARED, "hw-captures"), os.path.join(ROOT, "samples")):
        paths += sorted(glob.glob(os.path.join(d, "*.pcap")) + glob.glob(os.path.join(d, "*.pcapng")))
    # NVIDIA DC reuses the RD opcodes with its own header layout, which
    # tshark reads as RDETH+DETH: its fields cannot be compared with ours
    # (tests/check_dc.py checks that capture against the bytes).
    return [p for p in paths if not p.endswith("__dc-small.pcap")]


def main():
    paths = sys.argv[1:] or captures()
    if not paths:
        print("diff_tshark: no captures found under %s or samples/" % SHARED)
        return 1
    total, failed = 0, 0
    for p in paths:
        n, errors = check_file(p)
        total += n
        status = "ok" if not errors else "%d MISMATCHES" % len(errors)
        print("diff_tshark: %-58s %5d frames  %s" % (os.path.basename(p), n, status))
        for e in errors[:20]:
            print("  " + e)
        if len(errors) > 20:
            print("  ... %d more" % (len(errors) - 20))
        failed += bool(errors)
    unused = set(EXCEPTIONS) - used
    print("diff_tshark: %d frames in %d captures compared field by field; exceptions applied: %s" %
          (total, len(paths), ", ".join(sorted(used)) or "none"))
    if unused:
        print("diff_tshark: exceptions not exercised by these captures: %s" % ", ".join(sorted(unused)))
    if failed:
        print("diff_tshark: FAIL (%d of %d captures differ)" % (failed, len(paths)))
        return 1
    if need_shared("diff_tshark", exit=False):
        return 1
    print("diff_tshark: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
