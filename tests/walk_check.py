#!/usr/bin/env python3
"""Check `rocestat --walk` against independent sources, not against itself.

For every RoCE / InfiniBand frame of several captures:
  * the key fields the walk prints (opcode and its name, DestQP, PSN, AckReq,
    P_Key, RETH VA/R_Key/DMA length, AETH syndrome/MSN, DETH Q_Key/source QP,
    ICRC value, CM attribute, REQ/REP local QPN and starting PSN) equal
    tshark's decode of the same frame (PDML);
  * every layer heading starts at the byte where tshark puts that header;
  * the ICRC (and VCRC) verdict equals a CRC computed here with zlib
    (IBA Annex A17.4.5.2 masking for RoCE v2, IBA 7.8 for native IB);
  * every field printed with an offset and a hex value of whole bytes equals
    the frame's bytes at that offset, and every bit field ("..10 ....")
    equals the bits of that byte and its own decimal value;
  * the hex dump shows exactly the captured bytes (read from the pcap file
    here), folded lines expanded, says how many bytes were not captured,
    and its "^LAYER" markers sit at the headings' offsets, in order;
  * no line is wider than 100 columns.
And for the command as a whole: -c 3 prints exactly frames 1-3, --frames 4-6
exactly 4-6, -V equals --walk, --color=never has no ANSI escape while
--color=always has some and reads the same once they are removed, every frame
of a file is accounted for (walked or one "not RoCE" line), a capture cut
with head -c prints every complete frame and then an error on stderr naming
the file and the frame (exit status 3), and a capture whose records were cut
to 58 bytes shows only those bytes and names the truncation.

Environment: ROCESTAT (binary, default ./rocestat), tshark on PATH.
Exit status 0 when everything matches, 1 otherwise (each mismatch printed).
"""
import collections
import os
import re
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

import pcaprecs  # tests/pcaprecs.py, beside this script

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROCESTAT = os.environ.get("ROCESTAT", os.path.join(ROOT, "rocestat"))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import need_shared  # noqa: E402

need_shared("walk_check")
LAB = os.path.join(SHARED, "public-captures", "rdma-roce-lab__roce_capture_read-write-ecn.pcap")
CAPTURES = [
    LAB,
    os.path.join(SHARED, "public-captures", "rdma-roce-lab__test.pcap"),
    os.path.join(SHARED, "public-captures", "rdma-softroce-demo__infiniband.pcap"),
    os.path.join(SHARED, "public-captures", "PcapPlusPlus__InfiniBandPacket.pcap"),
] + [os.path.join(SHARED, "captures", n + ".pcap") for n in (
    "cm_reject", "udaddy", "ib_atomic_cas", "rping_s5000", "ipv6_rping", "uc_write_bw", "ud_send_bw",
    "rc_pingpong", "loss_write_bw")] + [
    # NVMe-oF capsules: a hardware capture and the Soft-RoCE sample.
    os.path.join(SHARED, "hw-captures", "magnate3__linux-riscv-dev__nvme-discover.pcap"),
    os.path.join(ROOT, "samples", "rxe_nvme.pcap")]

HEURISTICS_OFF = ["rpcrdma_infiniband", "iser_infiniband", "smb_direct_infiniband", "nvme_rdma", "lnet_ib",
                  "smcr_infiniband"]
DLT_ERF = 197
ANSI = re.compile(r"\x1b\[[0-9;]*m")

# CM attribute IDs (IBA vol 1 chapter 12, CM and SIDR messages), written here from the spec.
CM_ATTR = {0x10: "REQ", 0x11: "MRA", 0x12: "REJ", 0x13: "REP", 0x14: "RTU", 0x15: "DREQ", 0x16: "DREP",
           0x17: "SIDR_REQ", 0x18: "SIDR_REP", 0x19: "LAP", 0x1A: "APR"}
# tshark 4.0 spells three opcodes differently from IBA Table 38's wording.
OPCODE_ALIASES = {"cmpswap": "atomic compare & swap", "fetchadd": "atomic fetch & add"}
# Walk layer heading -> where tshark has that header (field or protocol name).
TSHARK_LAYER = {"Ethernet": "eth", "IPv4": "ip", "IPv6": "ipv6", "UDP": "udp", "LRH": "infiniband.lrh",
                "GRH": "infiniband.grh", "BTH": "infiniband.bth", "RETH": "infiniband.reth",
                "AETH": "infiniband.aeth", "DETH": "infiniband.deth", "ImmDt": "infiniband.immdt",
                "AtomicETH": "infiniband.atomiceth", "AtomicAckETH": "infiniband.atomicacketh",
                "IETH": "infiniband.ieth", "RDETH": "infiniband.rdeth", "MAD": "infiniband.mad",
                "ICRC": "infiniband.invariant.crc", "VCRC": "infiniband.variant.crc"}

checks = collections.Counter()
failures = []


def check(ok, where, what):
    checks[re.sub(r"\d+", "N", what.split(":")[0])] += 1
    if not ok:
        failures.append(f"{where}: {what}")
    return ok


# ---- the capture file, read here ------------------------------------------------

def read_pcap(path):
    """(linktype, [(caplen, wirelen, bytes)], complete) of a classic pcap file."""
    try:
        linktype, recs, complete = pcaprecs.read_pcap(path)
    except ValueError as e:
        raise SystemExit(str(e))
    return linktype, [(caplen, wirelen, b) for _, _, caplen, wirelen, b in recs], complete


def write_pcap(path, linktype, frames, snap=1 << 30):
    with open(path, "wb") as fh:
        fh.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype))
        for i, (_, wirelen, b) in enumerate(frames):
            b = b[:snap]
            fh.write(struct.pack("<IIII", 1700000000, i * 1000, len(b), wirelen) + b)


# ---- captures made here from the lab one: what no stored capture has -------------

def roce_v1(b):
    """An Ethernet/IPv4/UDP RoCE v2 frame as RoCE v1: EtherType 0x8915, a GRH
    with IPv4-mapped GIDs, the same transport, the ICRC recomputed."""
    ip, rest = b[14:34], b[42:]
    grh = struct.pack(">IHBB", 6 << 28, len(rest), 0x1B, 64) + \
        b"\0" * 10 + b"\xff\xff" + ip[12:16] + b"\0" * 10 + b"\xff\xff" + ip[16:20]
    body = rest[:-4]
    g = bytearray(grh)
    g[0] |= 0x0F
    g[1:4] = b"\xff\xff\xff"
    g[7] = 0xFF
    bth = bytearray(body[:12])
    bth[4] = 0xFF
    crc = zlib.crc32(b"\xff" * 8 + bytes(g) + bytes(bth) + body[12:]) & 0xFFFFFFFF
    return b[:12] + b"\x89\x15" + grh + body + struct.pack("<I", crc)


def vlan(b, tci):
    return b[:12] + struct.pack(">HH", 0x8100, tci) + b[12:]


def synth_captures(d):
    """802.1Q-tagged RoCE v2 and RoCE v1 (Ethernet), and RoCE v2 in Linux cooked captures."""
    _, recs, _ = read_pcap(LAB)
    eth = [vlan(b, 0x6064) for _, _, b in recs]
    for _, _, b in recs[3:10]:
        eth += [roce_v1(b), vlan(roce_v1(b), 0x8002)]
    a = os.path.join(d, "synth-vlan-rocev1.pcap")
    write_pcap(a, 1, [(len(b), len(b), b) for b in eth])
    sll = [struct.pack(">HHH8sH", 4 if i % 2 else 0, 1, 6, b[6:12], 0x0800) + b[14:] for i, (_, _, b) in
           enumerate(recs)]
    c = os.path.join(d, "synth-sll.pcap")
    write_pcap(c, 113, [(len(b), len(b), b) for b in sll])
    return [a, c]


def erf_header_len(b):
    n, t = 16, b[8]
    while t & 0x80 and n + 8 <= len(b):
        t = b[n]
        n += 8
    return n


# ---- independent CRCs -----------------------------------------------------------

def icrc(pkt, t, shift):
    """CRC-32 of the invariant fields, from tshark's header positions."""
    def pos(name):
        return t[name][0]["pos"] + shift if name in t else None
    bth, end = pos("infiniband.bth"), pos("infiniband.invariant.crc")
    if bth is None or end is None:
        return None
    pre = b""
    if pos("udp") is not None and pos("udp") < bth:
        ip = pos("ip") if pos("ip") is not None and pos("ip") < bth else pos("ipv6")
        hdr = bytearray(pkt[ip:pos("udp")])
        if pkt[ip] >> 4 == 4:
            hdr[1] = 0xFF
            hdr[8] = 0xFF
            hdr[10:12] = b"\xff\xff"
        else:
            hdr[0] |= 0x0F
            hdr[1:4] = b"\xff\xff\xff"
            hdr[7] = 0xFF
        udp = bytearray(pkt[pos("udp"):pos("udp") + 8])
        udp[6:8] = b"\xff\xff"
        pre = b"\xff" * 8 + bytes(hdr) + bytes(udp)
    elif pos("infiniband.grh") is not None:
        g = bytearray(pkt[pos("infiniband.grh"):pos("infiniband.grh") + 40])
        g[0] |= 0x0F
        g[1:4] = b"\xff\xff\xff"
        g[7] = 0xFF
        pre = b"\xff" * 8 + bytes(g)
    elif pos("infiniband.lrh") is not None:
        lrh = bytearray(pkt[pos("infiniband.lrh"):pos("infiniband.lrh") + 8])
        lrh[0] |= 0xF0
        pre = bytes(lrh)
    b = bytearray(pkt[bth:bth + 12])
    b[4] = 0xFF
    return zlib.crc32(pre + bytes(b) + pkt[bth + 12:end]) & 0xFFFFFFFF


def vcrc(data):
    crc = 0xFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xD008 if crc & 1 else crc >> 1
    return crc ^ 0xFFFF


# ---- tshark -------------------------------------------------------------------

def tshark(path):
    """frame number -> {field or protocol name: [{pos, size, show, value, showname}]}"""
    cmd = ["tshark", "-n", "-r", path, "-T", "pdml"]
    for h in HEURISTICS_OFF:
        cmd += ["--disable-heuristic", h]
    err = tempfile.TemporaryFile()  # a file, not a pipe: tshark never blocks on it
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err)
    frames, cur = {}, None
    for ev, el in ET.iterparse(proc.stdout, events=("start", "end")):
        if ev == "start" and el.tag == "packet":
            cur = collections.defaultdict(list)
        elif ev == "end" and el.tag in ("field", "proto") and cur is not None:
            name = el.get("name")
            if name:
                cur[name].append({"pos": int(el.get("pos") or 0), "size": int(el.get("size") or 0),
                                  "show": el.get("show") or "", "value": el.get("value") or "",
                                  "showname": el.get("showname") or ""})
        elif ev == "end" and el.tag == "packet":
            frames[int(cur["frame.number"][0]["show"])] = cur
            cur = None
            el.clear()
    rc = proc.wait()
    err.seek(0)
    why = err.read().decode(errors="replace").strip()[:500]
    err.close()
    # An oracle that failed (a file cut short, an argument tshark refuses)
    # must fail the check, not read as a file without frames.
    if rc != 0:
        raise RuntimeError("tshark exited %d on %s: %s" % (rc, path, why))
    return frames


def traw(t, name):
    """A tshark field as an integer from its raw bytes (big-endian)."""
    return int(t[name][0]["value"], 16) if name in t and t[name][0]["value"] else None


# ---- the walk, parsed -----------------------------------------------------------

TITLE = re.compile(r"^  (?P<name>\S+(?: \S+)?)  (?P<long>\S.*?) +(?:at 0x(?P<one>[0-9a-f]+), 1 byte|"
                   r"0x(?P<s>[0-9a-f]+)-0x(?P<e>[0-9a-f]+), (?P<n>\d+) bytes)(?: \((?P<cap>\d+) captured\))?$")
FRAME = re.compile(r"^Frame (\d+)  ")
HEXLINE = re.compile(r"^    ([0-9a-f]{4,})  ((?:[0-9a-f]{2} {1,2}){1,16})")
FOLD = re.compile(r"^    \*     (\d+) more lines the same as the one above, up to 0x([0-9a-f]+)$")
NOTCAP = re.compile(r"^    \((\d+) more bytes? on the wire (?:was|were) not captured\)$")


def byte_of_col(col):
    j = (col - 10) // 3 if col < 34 else (col - 11) // 3
    return j if 0 <= j < 16 and col == 10 + 3 * j + (1 if j >= 8 else 0) else None


def parse_walk(text):
    """frame number -> dict(kind, layers, fields, marks, dump, notcap, problem, header)"""
    frames, cur, layer, in_dump, last_hex = {}, None, None, False, None
    for line in text.splitlines():
        m = FRAME.match(line)
        if m:
            n = int(m.group(1))
            if line.endswith("- not RoCE, skipped"):
                frames[n] = {"kind": "other", "line": line}
                cur = None
                continue
            cur = frames[n] = {"kind": "roce", "layers": [], "fields": [], "marks": [], "dump": bytearray(),
                               "notcap": 0, "problem": None, "header": line, "dumpstart": None}
            layer, in_dump, last_hex = None, False, None
            continue
        if cur is None:
            continue
        if line.startswith("=" * 20) or line.startswith("End of "):
            cur = None
            continue
        if line.startswith("  Hex dump:"):
            in_dump = True
            continue
        if in_dump:
            m = HEXLINE.match(line)
            if m:
                off = int(m.group(1), 16)
                if cur["dumpstart"] is None:
                    cur["dumpstart"] = off
                if off != len(cur["dump"]):
                    failures.append(f"hex line at 0x{off:04x} follows {len(cur['dump'])} bytes")
                last_hex = bytes.fromhex(m.group(2).replace(" ", ""))
                cur["dump"] += last_hex
                line_base = off
                continue
            m = FOLD.match(line)
            if m:
                cur["dump"] += last_hex * int(m.group(1))
                if len(cur["dump"]) - 1 != int(m.group(2), 16):
                    failures.append(f"fold line says up to 0x{m.group(2)}, bytes reach {len(cur['dump']) - 1}")
                continue
            m = NOTCAP.match(line)
            if m:
                cur["notcap"] = int(m.group(1))
                continue
            if "^" in line and line.strip().startswith("^"):
                # Marker rows under one hex line: a crowded line uses more than one
                # row, so the line's markers are put in byte order once all are read.
                for mm in re.finditer(r"\^([^^]*)", line):
                    j = byte_of_col(mm.start())
                    cur["marks"].append((mm.group(1).strip(), -1 if j is None else line_base + j))
                cur["marks"].sort(key=lambda x: (x[1] >= line_base, x[1]))
            continue
        m = TITLE.match(line)
        if m:
            start = int(m.group("one") or m.group("s"), 16)
            length = 1 if m.group("one") else int(m.group("n"))
            layer = {"name": m.group("name"), "off": start, "len": length}
            cur["layers"].append(layer)
            continue
        if line.startswith("    !! "):
            cur["problem"] = line[7:]
            continue
        if layer and len(line) > 32 and line.startswith("    ") and line[8:10] == "  " and \
                re.match(r"^([0-9a-f]{4,}|    )$", line[4:8]) and line[10:32].strip():
            off = int(line[4:8], 16) if line[4:8].strip() else None
            parts = re.split(r" {2,}", line[32:], maxsplit=1)
            cur["fields"].append({"layer": layer["name"], "off": off, "label": line[10:32].strip(),
                                  "value": parts[0], "note": parts[1] if len(parts) > 1 else ""})
    return frames


def field(fr, layer, label):
    for f in fr["fields"]:
        if f["layer"] == layer and f["label"] == label:
            return f
    return None


def num(value, where):
    """'0x0a (10)' -> 10 (checking hex and decimal agree); '..10 .... = 2' -> 2."""
    m = re.match(r"^[01. ]+ = (\d+)$", value)
    if m:
        return int(m.group(1))
    m = re.match(r"^0x([0-9a-f]+)(?: \((\d+)\))?$", value)
    if not m:
        return None
    v = int(m.group(1), 16)
    if m.group(2) is not None:
        check(v == int(m.group(2)), where, f"hex and decimal agree: {value}")
    return v


def run(args):
    p = subprocess.run([ROCESTAT] + args, capture_output=True)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


# ---- per frame ------------------------------------------------------------------

def check_bytes(fr, pkt, where):
    """Printed values against the frame's own bytes."""
    for f in fr["fields"]:
        if f["off"] is None or f["label"] in ("ICRC", "VCRC", "Timestamp") or f["value"] == "not captured":
            continue
        v = f["value"]
        m = re.match(r"^([01. ]+) = (\d+)$", v)
        if m:
            bits = m.group(1).replace(" ", "")
            raw = pkt[f["off"]:f["off"] + len(bits) // 8]
            if len(raw) * 8 != len(bits):
                check(False, where, f"bit field bytes captured: {f['label']}")
                continue
            allbits = "".join(f"{b:08b}" for b in raw)
            digits = [(i, c) for i, c in enumerate(bits) if c != "."]
            ok = all(allbits[i] == c for i, c in digits)
            check(ok and int("".join(c for _, c in digits), 2) == int(m.group(2)), where,
                  f"bit field matches its byte: {f['label']} {v} at 0x{f['off']:04x}")
            continue
        m = re.match(r"^0x([0-9a-f]+)(?: \(\d+\))?$", v)
        if m and len(m.group(1)) % 2 == 0:
            n = len(m.group(1)) // 2
            check(pkt[f["off"]:f["off"] + n].hex() == m.group(1), where,
                  f"field value equals the bytes at its offset: {f['label']} {v} at 0x{f['off']:04x}")


def check_dump(fr, rec, where):
    caplen, wirelen, pkt = rec
    check(fr["dumpstart"] == 0 or caplen == 0, where, "hex dump starts at offset 0")
    check(bytes(fr["dump"]) == pkt, where, f"hex dump shows exactly the {caplen} captured bytes")
    check(fr["notcap"] == wirelen - caplen, where,
          f"hex dump names the {wirelen - caplen} bytes not captured (says {fr['notcap']})")
    heads = [(lay["name"], lay["off"]) for lay in fr["layers"] if lay["off"] < caplen]
    marks = [(n, o) for n, o in fr["marks"] if n != "not decoded"]
    # The payload heading is replaced by MAD + CM/MAD data for management datagrams.
    check(all(o >= 0 for _, o in marks), where, "hex dump markers sit under a byte column")
    names = {"payload": "payload"}
    exp = [(names.get(n, n), o) for n, o in heads]
    check(marks == exp, where, f"hex dump markers at the layer offsets: {marks} vs {exp}")


def check_tshark(fr, t, rec, linktype, where):
    caplen, wirelen, pkt = rec
    shift = erf_header_len(pkt) if linktype == DLT_ERF else 0
    # Layer headings against tshark's header positions.
    for lay in fr["layers"]:
        tn = TSHARK_LAYER.get(lay["name"])
        if tn and tn in t:
            cands = [x["pos"] + shift for x in t[tn]]
            check(lay["off"] in cands, where, f"{lay['name']} starts where tshark has it: "
                                              f"0x{lay['off']:04x} vs {[hex(c) for c in cands]}")
    if fr["problem"]:
        return
    b = lambda label: field(fr, "BTH", label)  # noqa: E731
    op = b("OpCode")
    if not check(op is not None and "infiniband.bth.opcode" in t, where, "BTH present in both"):
        return
    opv = num(op["value"], where)
    check(opv == traw(t, "infiniband.bth.opcode"), where, f"opcode: {opv} vs tshark")
    tname = re.match(r"Opcode: .*?\((\w+)\) - (.*) \(\d+\)$", t["infiniband.bth.opcode"][0]["showname"])
    if tname:
        exp = (tname.group(1) + " " + OPCODE_ALIASES.get(tname.group(2).lower(), tname.group(2))).lower()
        check(op["note"].lower() == exp, where, f"opcode name: {op['note']!r} vs tshark {exp!r}")
    for label, tf, raw in (("DestQP", "infiniband.bth.destqp", True), ("PSN", "infiniband.bth.psn", True),
                           ("P_Key", "infiniband.bth.p_key", True), ("AckReq", "infiniband.bth.a", False)):
        f = b(label)
        tv = traw(t, tf) if raw else int(t[tf][0]["show"] in ("1", "True"))
        check(f is not None and num(f["value"], where) == tv, where,
              f"{label}: {f and f['value']} vs tshark {tv}")
    pairs = [("RETH", "Virtual address", "infiniband.reth.va"), ("RETH", "R_Key", "infiniband.reth.r_key"),
             ("RETH", "DMA length", "infiniband.reth.dmalen"), ("AETH", "Syndrome", "infiniband.aeth.syndrome"),
             ("AETH", "MSN", "infiniband.aeth.msn"), ("DETH", "Q_Key", "infiniband.deth.q_key"),
             ("DETH", "Source QP", "infiniband.deth.srcqp")]
    if field(fr, "AtomicETH", "Virtual address"):
        # tshark 4.0 files the AtomicETH address and key under the RETH's field names.
        pairs = [("AtomicETH" if p[0] == "RETH" else p[0],) + p[1:] for p in pairs if p[1] != "DMA length"]
        pairs += [("AtomicETH", "Swap data", "infiniband.atomiceth.swapdt"),
                  ("AtomicETH", "Compare data", "infiniband.atomiceth.cmpdt")]
    pairs.append(("AtomicAckETH", "Original data", "infiniband.atomicacketh.origremdt"))
    for layer, label, tf in pairs:
        f = field(fr, layer, label)
        if tf in t or f:
            check(f is not None and tf in t and num(f["value"], where) == traw(t, tf), where,
                  f"{layer} {label}: {f and f['value']} vs tshark {traw(t, tf)}")
    # ICRC: the walk's value is the little-endian reading of the wire bytes;
    # tshark shows a big-endian reading, so it is byte-swapped here.
    f = field(fr, "ICRC", "ICRC")
    if "infiniband.invariant.crc" in t and f and f["value"] != "not captured":
        wire = bytes.fromhex(t["infiniband.invariant.crc"][0]["value"])
        check(num(f["value"], where) == int.from_bytes(wire, "little"), where,
              f"ICRC value: {f['value']} vs tshark byte-swapped {wire[::-1].hex()}")
        mine = icrc(pkt, t, shift)
        comp = field(fr, "ICRC", "Computed")
        verdict = comp["note"] if comp else ""
        ok = mine == int.from_bytes(wire, "little")
        check(("matches" in verdict) == ok and (not ok) == ("NOT MATCH" in verdict), where,
              f"ICRC verdict: walk says {verdict!r}, zlib says {'match' if ok else 'mismatch'}")
    f = field(fr, "VCRC", "VCRC")
    if "infiniband.variant.crc" in t and f:
        lrh, end = t["infiniband.lrh"][0]["pos"] + shift, t["infiniband.variant.crc"][0]["pos"] + shift
        ok = vcrc(pkt[lrh:end]) == int.from_bytes(pkt[end:end + 2], "little")
        comp = field(fr, "VCRC", "Computed")
        check(comp is not None and ("DOES NOT" not in comp["note"]) == ok, where, "VCRC verdict vs CRC-16 here")
    # CM: attribute, and the QPN / starting PSN of REQ and REP.
    if traw(t, "infiniband.mad.mgmtclass") == 7 and "infiniband.mad.attributeid" in t:
        attr = CM_ATTR.get(traw(t, "infiniband.mad.attributeid"), "?")
        cm = [lay["name"] for lay in fr["layers"] if lay["name"].startswith("CM ")]
        check(cm == ["CM " + attr], where, f"CM attribute: {cm} vs tshark {attr}")
        for a, lab, tf in (("REQ", "Local QPN", "infiniband.cm.req.localqpn"),
                           ("REQ", "Starting PSN", "infiniband.cm.req.startpsn"),
                           ("REP", "Local QPN", "infiniband.cm.rep.localqpn"),
                           ("REP", "Starting PSN", "infiniband.cm.rep.startpsn")):
            if attr == a:
                f = field(fr, "CM " + a, lab)
                check(f is not None and num(f["value"], where) == traw(t, tf), where,
                      f"CM {a} {lab}: {f and f['value']} vs tshark {traw(t, tf)}")


def check_capture(path):
    name = os.path.basename(path)
    linktype, recs, _ = read_pcap(path)
    rc, out, err = run(["--walk", "--color=never", path])
    check(rc in (0, 1), name, f"exit status 0 or 1: {rc} {err.strip()[:200]}")
    for i, line in enumerate(out.splitlines()):
        # The capture's path is as long as the checkout's location makes
        # it (the title names it): measured as its file name, so that a
        # clone in a deep directory does not fail the layout check.
        line = line.replace(path, name)
        check(len(line) <= 100, name, f"line at most 100 columns: line {i + 1} has {len(line)}")
    walk = parse_walk(out)
    ts = tshark(path)
    check(sorted(walk) == list(range(1, len(recs) + 1)), name, "every frame walked or named, once")
    roce_t = {n for n, t in ts.items() if "infiniband.bth" in t}
    roce_w = {n for n, fr in walk.items() if fr["kind"] == "roce"}
    check(roce_t == roce_w, name, f"RoCE frames as tshark: only walk {sorted(roce_w - roce_t)[:5]}, "
                                  f"only tshark {sorted(roce_t - roce_w)[:5]}")
    for n in sorted(roce_w):
        where = f"{name} frame {n}"
        fr, rec = walk[n], recs[n - 1]
        check_dump(fr, rec, where)
        check_bytes(fr, rec[2], where)
        if n in ts:
            check_tshark(fr, ts[n], rec, linktype, where)
    print(f"  {name}: {len(roce_w)} RoCE/IB frames, {len(walk) - len(roce_w)} others")
    return out


def frames_of(text):
    return [int(m.group(1)) for m in (FRAME.match(x) for x in text.splitlines()) if m]


def check_options(lab_out):
    rc, out, _ = run(["--walk", "--color=never", "-c", "3", LAB])
    check(frames_of(out) == [1, 2, 3], "-c 3", f"-c 3 prints frames 1-3: {frames_of(out)}")
    rc, out, _ = run(["--walk", "--color=never", "--frames", "4-6", LAB])
    check(frames_of(out) == [4, 5, 6], "--frames 4-6", f"--frames 4-6 prints frames 4-6: {frames_of(out)}")
    rc, out, _ = run(["-V", "--color=never", LAB])
    check(out == lab_out, "-V", "-V prints the same as --walk")
    check("\x1b" not in lab_out, "--color=never", "no ANSI escape without colour")
    rc, col, _ = run(["--walk", "--color=always", LAB])
    check("\x1b[" in col, "--color=always", "ANSI escapes with --color=always")
    check(ANSI.sub("", col) == lab_out, "--color=always", "colour changes nothing but the escapes")
    rc, auto, _ = run(["--walk", LAB])  # stdout is a pipe here: auto means no colour
    check("\x1b" not in auto, "--color=auto", "no ANSI escape when stdout is not a terminal")


def check_cut_file():
    linktype, recs, _ = read_pcap(LAB)
    with tempfile.TemporaryDirectory() as d:
        cut = os.path.join(d, "cut.pcap")
        with open(cut, "wb") as fh:
            fh.write(open(LAB, "rb").read()[:3000])
        _, whole, complete = read_pcap(cut)
        check(not complete, "head -c", "the cut file ends inside a record")
        rc, out, err = run(["--walk", "--color=never", cut])
        k = len(whole)
        check(frames_of(out) == list(range(1, k + 1)), "head -c", f"all {k} complete frames: {frames_of(out)}")
        check(rc == 3, "head -c", f"exit status 3 for a cut file: {rc}")
        check(cut in err and f"frame {k + 1}" in err, "head -c",
              f"stderr names the file and frame {k + 1}: {err.strip()!r}")
        walk = parse_walk(out)
        for n in range(1, k + 1):
            check(n in walk and bytes(walk[n].get("dump", b"")) == whole[n - 1][2], "head -c",
                  f"frame {n} dump complete")

        snap = os.path.join(d, "snap58.pcap")
        write_pcap(snap, linktype, recs, 58)
        rc, out, err = run(["--walk", "--color=never", snap])
        walk = parse_walk(out)
        check(rc == 1, "snap 58", f"exit status 1 when frames are cut: {rc}")
        for n, fr in walk.items():
            caplen, wirelen = min(58, recs[n - 1][0]), recs[n - 1][1]
            where = f"snap 58 frame {n}"
            check(bytes(fr["dump"]) == recs[n - 1][2][:58], where, "dump shows only the 58 captured bytes")
            check(fr["notcap"] == wirelen - caplen, where, f"names the {wirelen - caplen} bytes not captured")
            if fr["problem"]:
                m = re.match(r"TRUNCATED at offset 0x([0-9a-f]+)", fr["problem"])
                check(m is not None and int(m.group(1), 16) <= caplen, where,
                      f"truncation named inside the capture: {fr['problem']}")
                check(f"{snap}: frame {n}: truncated" in err, where, "stderr names the file and frame")
            elif caplen < wirelen:
                f = field(fr, "ICRC", "ICRC")
                check(f is not None and f["value"] == "not captured", where, "uncaptured ICRC said so")
        check(any(fr["problem"] for fr in walk.values()), "snap 58", "some frame is reported TRUNCATED")


def main():
    if not os.access(ROCESTAT, os.X_OK):
        raise SystemExit(f"no rocestat binary at {ROCESTAT} (set ROCESTAT)")
    print(f"walk_check: {ROCESTAT}")
    lab_out = None
    for path in CAPTURES:
        out = check_capture(path)
        if path == LAB:
            lab_out = out
    with tempfile.TemporaryDirectory() as d:
        for path in synth_captures(d):
            check_capture(path)
    check_options(lab_out)
    check_cut_file()
    print("checked:")
    for what, n in sorted(checks.items()):
        print(f"  {n:7d}  {what}")
    if failures:
        print(f"\n{len(failures)} MISMATCHES:")
        for f in failures[:60]:
            print("  " + f)
        if len(failures) > 60:
            print(f"  ... and {len(failures) - 60} more")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
