#!/usr/bin/env python3
"""NVMe-oF against independent sources: tshark's nvme-rdma
dissector, and for the sample made between two QEMU guests
(samples/rxe_nvme.pcap, samples/rxe-vm.sh nvme) what the host guest did
and counted (samples/rxe_nvme.truth.txt: the dd commands issued, nvme-cli's
output, the block layer's request counts of the namespace's path device).

Per frame (`--fields --verdicts`): every command capsule tshark decodes is
a command here with its opcode, Fabrics type and CID, and nothing else is;
every completion tshark decodes is a response with its CID, answering the
frame tshark names, with latency = the two frames' time difference; every
RDMA READ request and first WRITE packet the target sent is tied to the
command tshark ties it to. Per queue (`--format json`): commands by kind and
their bytes equal tshark's counts and SGL lengths; the responses tshark
could not pair (captured before their command) are the ones reported as
such. For the sample: the I/O queue's Reads and Writes, in number and
bytes, equal the block layer's counts, the Writes' sizes are the dd sizes,
the target's RDMA READ and WRITE bytes equal the keyed data, nothing
failed or went unanswered on the I/O queue; and --ulp renames a port.
"""
import collections
import json
import os
import re
import subprocess
import sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcaprecs  # noqa: E402
from testlib import ROCESTAT, ROOT, SHARED, Checks, tshark_fields, need_shared  # noqa: E402

need_shared("check_nvme")

ck = Checks("check_nvme")
DISCOVER = os.path.join(SHARED, "hw-captures", "magnate3__linux-riscv-dev__nvme-discover.pcap")
SAMPLE = os.path.join(ROOT, "samples", "rxe_nvme.pcap")
TRUTH = os.path.join(ROOT, "samples", "rxe_nvme.truth.txt")

TF = ["frame.number", "frame.time_epoch", "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn", "nvme.cmd.opc",
      "nvme.fabrics.cmd.opc", "nvme.fabrics.cmd.fctype", "nvme.cmd.cid", "nvme.fabrics.cmd.cid", "nvme.cqe.cid",
      "nvme.cmd_pkt", "nvme.fabrics.cmd_pkt", "nvme.cmd.sgl1.len", "nvme.cmd.sgl.type"]
RETH_OPS = {0x06, 0x0A, 0x0B, 0x0C}   # RC RDMA WRITE First, Only, Only with Immediate; RDMA READ request


def num(s):
    s = s.strip()
    return None if s == "" else int(s, 16) if s.startswith("0x") else int(s)


def tshark(path):
    rows = {}
    # tshark's heuristic nvme-rdma dissector is the oracle here: left on.
    for vals in tshark_fields(path, TF, "infiniband", occurrence="f", heuristics_off=False):
        c = dict(zip(TF, vals))
        n = int(c["frame.number"])
        r = {"ts": int(Decimal(c["frame.time_epoch"]) * 1000000000), "op": num(c["infiniband.bth.opcode"]),
             "destqp": num(c["infiniband.bth.destqp"]), "psn": num(c["infiniband.bth.psn"])}
        if c["nvme.fabrics.cmd.opc"]:
            r["cmd"] = (0x7F, num(c["nvme.fabrics.cmd.fctype"]), num(c["nvme.fabrics.cmd.cid"]))
        elif c["nvme.cmd.opc"]:
            r["cmd"] = (num(c["nvme.cmd.opc"]), None, num(c["nvme.cmd.cid"]))
            r["len"] = num(c["nvme.cmd.sgl1.len"]) or 0
            r["sgl_type"] = num(c["nvme.cmd.sgl.type"])
        if c["nvme.cqe.cid"]:
            r["cqe"] = num(c["nvme.cqe.cid"])
        r["cmd_pkt"] = num(c["nvme.cmd_pkt"] or c["nvme.fabrics.cmd_pkt"])
        rows[n] = r
    return rows


def own_decode(path, t):
    """tshark's nvme-rdma decodes capsules in SEND Only packets only: a
    command whose in-capsule data needs several packets (SEND First) and
    the response to it are decoded here from the bytes instead, by the
    layouts of NVMe 1.4 4.2 and 4.6 (Ethernet, IPv4 without options, UDP,
    BTH, as in these captures; IETH before a SEND with Invalidate)."""
    _, recs, _ = pcaprecs.read_pcap(path)
    for n, r in t.items():
        b = recs[n - 1][4]
        if "cmd" in r or "cqe" in r or len(b) < 54 or b[12:14] != b"\x08\x00" or (b[14] & 0xF) != 5:
            continue
        p = b[54 + (4 if r["op"] == 0x17 else 0):]
        if r["op"] == 0x00 and len(p) >= 64 and p[1] >> 6 in (1, 2):
            r["own"] = True
            sgl_type = p[39] >> 4
            r["cmd"] = (p[0], p[4] if p[0] == 0x7F else None, int.from_bytes(p[2:4], "little"))
            r["len"] = int.from_bytes(p[32:35] if sgl_type == 4 else p[32:36], "little")
            r["sgl_type"] = sgl_type
        elif r["op"] in (0x04, 0x17) and len(p) == 16 + 4:   # the CQE and the ICRC
            r["own"] = True
            r["cqe"] = int.from_bytes(p[12:14], "little")


def rocestat(*args):
    p = subprocess.run([ROCESTAT] + list(args), capture_output=True, text=True)
    ck("rocestat %s exits 0 or 1" % " ".join(args[:-1]), p.returncode in (0, 1), p.stderr[:200])
    return p.stdout


def fields(path):
    lines = rocestat("--fields", "--verdicts", path).splitlines()
    head = lines[0].split(",")
    return {int(c[0]): dict(zip(head, c)) for c in (line.split(",") for line in lines[1:])}


def check_frames(name, t, f):
    cmds = {n for n, r in t.items() if "cmd" in r}
    mine = {n for n, r in f.items() if r.get("nvme") == "command"}
    ck(name + ": command capsules as tshark's", cmds == mine, "only tshark %s, only rocestat %s"
       % (sorted(cmds - mine)[:8], sorted(mine - cmds)[:8]))
    for n in sorted(cmds & mine):
        opc, fct, cid = t[n]["cmd"]
        r = f[n]
        ck(name + ": frame %d opcode/fctype/cid" % n,
           (num(r["nvme_opcode"]), num(r["nvme_fctype"]), num(r["nvme_cid"])) == (opc, fct, cid),
           "%s/%s/%s vs tshark %s" % (r["nvme_opcode"], r["nvme_fctype"], r["nvme_cid"], t[n]["cmd"]))
    cqes = {n for n, r in t.items() if "cqe" in r}
    rsps = {n for n, r in f.items() if r.get("nvme") == "response"}
    ck(name + ": every completion decoded is a response", cqes >= rsps and
       cqes - rsps <= {n for n in cqes if t[n].get("own")}, "only rocestat %s, only decoded %s"
       % (sorted(rsps - cqes)[:8], sorted(cqes - rsps)[:8]))
    timed = unpaired = 0
    for n in sorted(cqes & rsps):
        r = f[n]
        ck(name + ": frame %d CID" % n, num(r["nvme_cid"]) == t[n]["cqe"], "%s vs %s" % (r["nvme_cid"], t[n]["cqe"]))
        c = t[n]["cmd_pkt"]
        if not c and t[n].get("own") and num(r["nvme_command_frame"]):
            # Not paired by tshark: the command rocestat names must be an
            # earlier command capsule with this CID.
            c = num(r["nvme_command_frame"])
            ck(name + ": frame %d answers an earlier command with its CID" % n,
               c < n and "cmd" in t[c] and t[c]["cmd"][2] == t[n]["cqe"], str(t.get(c)))
        if c:
            timed += 1
            ck(name + ": frame %d answers frame %d" % (n, c), num(r["nvme_command_frame"]) == c, r["nvme_command_frame"])
            ck(name + ": frame %d latency" % n, num(r["nvme_latency_ns"]) == t[n]["ts"] - t[c]["ts"],
               "%s vs %d" % (r["nvme_latency_ns"], t[n]["ts"] - t[c]["ts"]))
        else:
            unpaired += 1
    tied = 0
    for n, r in sorted(t.items()):
        if r["op"] in RETH_OPS and r["cmd_pkt"] and f[n].get("ulp") == "nvme-of":
            tied += 1
            ck(name + ": RDMA frame %d tied to command frame %d" % (n, r["cmd_pkt"]),
               num(f[n]["nvme_command_frame"]) == r["cmd_pkt"], f[n]["nvme_command_frame"])
    print("  %s: %d commands (%d decoded here, not by tshark), %d responses (%d timed), %d RDMA transfers tied"
          % (name, len(mine), sum(1 for n in mine if t[n].get("own")), len(rsps), timed, tied))
    return unpaired


def comments(path):
    """--annotate's comment of each frame, read back by tshark."""
    out = os.path.join(os.environ.get("TMPDIR", "/tmp"), "check_nvme.%d.pcapng" % os.getpid())
    try:
        rocestat("--annotate", out, path)
        got = {}
        for vals in tshark_fields(out, ["frame.number", "frame.comment"], None):
            got[int(vals[0])] = vals[1]
        return got
    finally:
        if os.path.exists(out):
            os.unlink(out)


def check_views(name, path, t, f):
    """The protocol-module columns of --fields --verdicts (ulp_pdu, ulp_tag,
    ulp_request_frame, ulp_latency_ns) and --annotate's sentence, frame by
    frame, against tshark's capsules: a command names its CID, a response
    its CID, the command frame tshark pairs it with and the time between,
    an RDMA transfer the command tshark ties it to."""
    notes = comments(path)
    n_cmd = n_rsp = n_xfer = 0
    for n, r in sorted(t.items()):
        v = f.get(n, {})
        note = notes.get(n, "")
        if "cmd" in r and v.get("nvme") == "command":
            n_cmd += 1
            ck(name + ": frame %d ulp columns of a command" % n,
               (v["ulp_pdu"], num(v["ulp_tag"]), bool(v["ulp_op"])) == ("request", r["cmd"][2], True), str(v)[:300])
            ck(name + ": frame %d annotated as a command with its CID" % n,
               re.search(r"NVMe-oF: .* command, CID %d\b" % r["cmd"][2], note) is not None, note)
        elif "cqe" in r and r["cmd_pkt"] and v.get("nvme") == "response":
            n_rsp += 1
            c = r["cmd_pkt"]
            ck(name + ": frame %d ulp columns of a response" % n,
               (v["ulp_pdu"], num(v["ulp_tag"]), num(v["ulp_request_frame"]), num(v["ulp_latency_ns"]))
               == ("response", r["cqe"], c, t[n]["ts"] - t[c]["ts"]), str(v)[:300])
            ck(name + ": frame %d annotated as the response to frame %d" % (n, c),
               re.search(r"NVMe-oF: response to .*, CID %d \(command frame %d\)" % (r["cqe"], c), note) is not None,
               note)
        elif r["op"] in RETH_OPS and r["cmd_pkt"] and v.get("ulp") == "nvme-of":
            n_xfer += 1
            ck(name + ": frame %d ulp columns of an RDMA transfer" % n,
               (v["ulp_pdu"], num(v["ulp_request_frame"])) == ("transfer", r["cmd_pkt"]), str(v)[:300])
            ck(name + ": frame %d annotated with its command frame" % n,
               "(command frame %d)" % r["cmd_pkt"] in note and "NVMe-oF: RDMA" in note, note)
    # A response capsule sent again (the same QP and PSN as an earlier
    # response frame, IBA 9.7.5.1.1: a re-sent packet keeps its PSN) names
    # what the first sending answered.
    again = 0
    first = {}
    for n, r in sorted(t.items()):
        if "cqe" not in r:
            continue
        k = (r["destqp"], r["psn"])
        if k not in first:
            first[k] = n
            continue
        # the first sending's command: tshark's pairing, or (a capsule
        # tshark left undecoded) the one rocestat named, if it is an earlier
        # command with this CID
        c = t[first[k]]["cmd_pkt"] or num(f.get(first[k], {}).get("ulp_request_frame"))
        if not c or c not in t or t[c].get("cmd", (None, None, None))[2] != r["cqe"] or c > first[k]:
            continue
        again += 1
        v, note = f.get(n, {}), notes.get(n, "")
        ck(name + ": frame %d, a response sent again, names frame %d's command" % (n, first[k]),
           v.get("ulp_resent") == "1" and num(v.get("ulp_request_frame")) == c and
           "sent again: response to " in note and "(command frame %d)" % c in note, "%s %s" % (v, note))
    ck(name + ": frames checked for the views", n_cmd > 0 and n_rsp > 0, "%d %d %d" % (n_cmd, n_rsp, n_xfer))
    print("  %s: %d responses sent again" % (name, again))
    print("  %s: views of %d commands, %d responses, %d transfers" % (name, n_cmd, n_rsp, n_xfer))


def queues(path, *extra):
    d = json.loads(rocestat("--format", "json", *extra, path))
    return [c for c in d["connections"] if c.get("nvme")]


def check_queues(name, t, qs, unpaired):
    ck(name + ": NVMe-oF queues found", len(qs) > 0)
    early = 0
    for q in qs:
        nv = q["nvme"]
        early += nv["answered_before_seen"] + nv["responses_unmatched"] + nv["responses_resent"]
        ck(name + ": connection %d named NVMe-oF" % q["id"], q.get("ulp") == "NVMe-oF" and q["port"] == 4420, q.get("ulp"))
        want = collections.Counter()
        size = collections.Counter()
        for r in t.values():
            if "cmd" in r and r["destqp"] == q["server"]["qpn"]:
                k = (r["cmd"][0], r["cmd"][1])
                want[k] += 1
                size[k] += r.get("len", 0) if r["cmd"][0] != 0x7F else 0
        got = collections.Counter({(o["opcode"], o["fctype"]): o["commands"] for o in nv["by_command"]})
        ck(name + ": connection %d commands by kind" % q["id"], got == want, "%s vs tshark %s" % (dict(got), dict(want)))
        ck(name + ": connection %d commands total" % q["id"], nv["commands"] == sum(want.values()))
        for o in nv["by_command"]:
            k = (o["opcode"], o["fctype"])
            if o["opcode"] != 0x7F:
                ck(name + ": connection %d %s bytes" % (q["id"], o["name"]), o["bytes"] == size[k],
                   "%d vs tshark %d" % (o["bytes"], size[k]))
    ck(name + ": responses without their command are those counted early, unmatched or re-sent", early == unpaired,
       "%d vs %d" % (early, unpaired))


def truth():
    text = open(TRUTH).read()
    st = {k: [int(x) for x in v.split()] for k, v in re.findall(r"^(path-stat-(?:before|after)) (.*)$", text, re.M)}
    dd = [(m.group(1), int(m.group(2)) * int(m.group(3)) // int(m.group(3)), int(m.group(3)))
          for m in re.finditer(r"^step dd if=(\S+) of=\S+ bs=(\d+) count=(\d+)", text, re.M)]
    statuses = re.findall(r"^status (\d+)$", text, re.M)
    return st, dd, statuses, text


def check_sample(t, qs):
    st, dd, statuses, text = truth()
    ck("truth: every step succeeded", statuses and all(s == "0" for s in statuses), str(statuses))
    ck("truth: nvme discover listed the subsystem", "subnqn:  nqn.2026-11.org.rocestat:nvme-sample" in text)
    after = st["path-stat-after"]
    io = [q for q in qs if q["nvme"]["queue"] == "io"]
    ck("sample: one I/O queue", len(io) == 1, str(len(io)))
    if not io:
        return
    nv = io[0]["nvme"]
    ops = {o["name"]: o for o in nv["by_command"]}
    rd, wr = ops.get("Read"), ops.get("Write")
    ck("sample: Reads = the block layer's read requests", rd and rd["commands"] == after[0], "%s vs %d" % (rd and rd["commands"], after[0]))
    ck("sample: Read bytes = its sectors x 512", rd and rd["bytes"] == after[2] * 512, "%s vs %d" % (rd and rd["bytes"], after[2] * 512))
    ck("sample: Writes = the block layer's write requests", wr and wr["commands"] == after[4], "%s vs %d" % (wr and wr["commands"], after[4]))
    ck("sample: Write bytes = its sectors x 512", wr and wr["bytes"] == after[6] * 512, "%s vs %d" % (wr and wr["bytes"], after[6] * 512))
    wsizes = []
    for src, bs, count in dd:
        if src == "/dev/urandom":
            wsizes += [bs] * count
    tw = sorted(r["len"] for r in t.values() if r.get("cmd", (None,))[0] == 0x01 and r["destqp"] == io[0]["server"]["qpn"])
    ck("sample: the Writes on the wire are the dd writes (tshark)", tw == sorted(wsizes), "%s vs %s" % (tw, sorted(wsizes)))
    ck("sample: Write sizes min/max", wr and (wr["size_min"], wr["size_max"]) == (min(wsizes), max(wsizes)))
    rsizes = [bs for src, bs, count in dd if src == "/dev/nvme0n1" for _ in range(count)]
    kernel_reads = st["path-stat-before"][0]
    ck("sample: Reads = dd reads + the kernel's own before them", rd and rd["commands"] == len(rsizes) + kernel_reads)
    inc = sum(1 for r in t.values() if r.get("cmd", (None,))[0] == 0x01 and r.get("sgl_type") == 0
              and r["destqp"] == io[0]["server"]["qpn"])
    ck("sample: Writes with in-capsule data as tshark's SGL types", wr and wr["in_capsule"] == inc, "%s vs %d" % (wr and wr["in_capsule"], inc))
    keyed_w = sum(s for s in wsizes) - sum(r["len"] for r in t.values() if r.get("cmd", (None,))[0] == 0x01
                                              and r.get("sgl_type") == 0 and r["destqp"] == io[0]["server"]["qpn"])
    ck("sample: target RDMA READ bytes = keyed Write data", nv["rdma_read_bytes"] == keyed_w, "%d vs %d" % (nv["rdma_read_bytes"], keyed_w))
    ck("sample: target RDMA WRITE bytes = Read data", nv["rdma_write_bytes"] == after[2] * 512)
    ck("sample: no RDMA transfer without its command", all(q["nvme"]["rdma_untied"] == 0 for q in qs))
    ck("sample: every keyed command's transfers moved its SGL length", all(q["nvme"]["rdma_not_sgl_length"] == 0 for q in qs))
    ck("sample: I/O queue: nothing failed or unanswered", nv["failed_total"] == 0 and nv["unanswered"] == 0)
    answered = {r["cmd_pkt"] for r in t.values() if r.get("cmd_pkt")}
    for q in qs:
        if q["nvme"]["queue"] != "admin":
            continue
        aers = [n for n, r in t.items() if r.get("cmd", (None,))[0] == 0x0C and r["destqp"] == q["server"]["qpn"]
                and n not in answered]
        ck("sample: connection %d: unanswered = the Asynchronous Event Requests tshark sees no answer to" % q["id"],
           q["nvme"]["unanswered"] == q["nvme"]["unanswered_async_events"] == len(aers) == 1,
           "%d %d %s" % (q["nvme"]["unanswered"], q["nvme"]["unanswered_async_events"], aers))
    ck("sample: three queues: discovery admin, admin, I/O", [q["nvme"]["queue"] for q in qs] == ["admin", "admin", "io"],
       str([q["nvme"]["queue"] for q in qs]))


def check_ulp_option(path):
    d = json.loads(rocestat("--format", "json", "--ulp", "4420=MyProto", path))
    c = d["connections"][0]
    ck("--ulp 4420=MyProto names the connection", c.get("ulp") == "MyProto" and "nvme" not in c, str(c.get("ulp")))
    d = json.loads(rocestat("--format", "json", "--ulp", "4420=nvmf-test", path))
    c = d["connections"][0]
    ck("--ulp 4420=nvmf-test keeps NVMe-oF decoding", c.get("ulp") == "nvmf-test" and c.get("nvme"), str(c.get("ulp")))
    for bad in ["4420", "0=x", "70000=x", "4420=a b", "4420="]:
        p = subprocess.run([ROCESTAT, "--ulp", bad, path], capture_output=True, text=True)
        ck("--ulp %s refused" % bad, p.returncode == 2 and "--ulp" in p.stderr, p.stderr[:120])


def check_failure(t):
    """A response's status set here to LBA Out of Range (SCT 0, SC 80h,
    NVMe 1.4 Figure 128) on a copy of the sample: the command it answers is
    reported failed with that status, and nothing else is."""
    io_qp = None
    for q in queues(SAMPLE):
        if q["nvme"]["queue"] == "io":
            io_qp = q["client"]["qpn"]
    pick = [n for n, r in sorted(t.items()) if "cqe" in r and r["cmd_pkt"] and r["destqp"] == io_qp
            and t[r["cmd_pkt"]].get("cmd", (None,))[0] == 0x01]
    if not ck("failure: a Write's response to change", pick):
        return
    n = pick[0]
    linktype, recs, _ = pcaprecs.read_pcap(SAMPLE)
    b = bytearray(recs[n - 1][4])
    at = 54 + (4 if t[n]["op"] == 0x17 else 0) + 14
    b[at:at + 2] = ((0x80 << 1) | (b[at] & 1)).to_bytes(2, "little")
    recs[n - 1] = recs[n - 1][:4] + (bytes(b),)
    tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), "check_nvme.%d.pcap" % os.getpid())
    try:
        pcaprecs.write_pcap(tmp, linktype, recs)
        io = [q for q in queues(tmp) if q["nvme"]["queue"] == "io"][0]["nvme"]
        text = rocestat(tmp)
        fv, note = fields(tmp), comments(tmp)
        ck("failure: ulp_failed on the response and only there",
           [k for k, r in sorted(fv.items()) if r.get("ulp_failed") == "1"] == [n], str(fv.get(n, {}))[:300])
        ck("failure: annotated FAILED with the status", "FAILED: status 0x080" in note.get(n, ""), note.get(n, ""))
    finally:
        os.unlink(tmp)
    f = io["failed"]
    ck("failure: one failed command", io["failed_total"] == 1 and len(f) == 1, str(f))
    if f:
        e = f[0]
        ck("failure: the Write, its CID, frames and status",
           (e["command"], e["cid"], e["command_frame"], e["response_frame"], e["sct"], e["sc"], e["status_name"])
           == ("Write", t[n]["cqe"], t[n]["cmd_pkt"], n, 0, 0x80, "LBA Out of Range"), str(e))
    w = [o for o in io["by_command"] if o["name"] == "Write"]
    ck("failure: counted in the Write row", w and w[0]["errors"] == 1)
    # The same without its command (deleted): the failed response answers
    # no command seen: counted apart, never among the failed commands, and
    # the per-frame views say FAILED alike.
    cmd = t[n]["cmd_pkt"]
    gone = recs[:cmd - 1] + recs[cmd:]
    try:
        pcaprecs.write_pcap(tmp, linktype, gone)
        io = [q for q in queues(tmp) if q["nvme"]["queue"] == "io"][0]["nvme"]
        text2 = " ".join(rocestat(tmp).split())
        fv, note = fields(tmp), comments(tmp)
    finally:
        os.unlink(tmp)
    ck("failure without its command: counted apart, not failed",
       (io["responses_unmatched_failed"], io["failed_total"]) == (1, 0), str(io)[:300])
    ck("failure without its command: the text says so",
       "1 response to commands not seen carries an error status" in text2)
    ck("failure without its command: ulp_failed and FAILED on that frame only",
       [k for k, r in sorted(fv.items()) if r.get("ulp_failed") == "1"] == [n - 1] and
       "FAILED: status 0x080" in note.get(n - 1, ""), str(fv.get(n - 1, {}))[:200] + note.get(n - 1, ""))
    ck("failure: named in the text", "failed: Write CID %d" % t[n]["cqe"] in text and "LBA Out of Range" in text)


def check_cut(t):
    """The hardware capture with every command capsule's frame cut 40 bytes
    into its SQE (as a snap length would, the wire length kept): each is
    counted cut, none taken for a command; the responses are still read."""
    linktype, recs, _ = pcaprecs.read_pcap(DISCOVER)
    for n, r in t.items():
        if "cmd" in r:
            recs[n - 1] = recs[n - 1][:4] + (recs[n - 1][4][:54 + 40],)
    tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), "check_nvme_cut.%d.pcap" % os.getpid())
    try:
        pcaprecs.write_pcap(tmp, linktype, recs)
        q = queues(tmp)[0]["nvme"]
    finally:
        os.unlink(tmp)
    ncmd = sum(1 for r in t.values() if "cmd" in r)
    ck("cut: every command capsule counted cut, none taken", q["capsules_cut"] == ncmd and q["commands"] == 0,
       "cut %d commands %d vs %d" % (q["capsules_cut"], q["commands"], ncmd))
    ck("cut: responses still read", q["responses"] == sum(1 for r in t.values() if "cqe" in r or r.get("own")),
       str(q["responses"]))


def check_short(t):
    """The RETH DMA length of the target's RDMA WRITE for the Identify
    command set here to half its 4096 bytes, on a copy of the hardware
    capture: that one command is reported as having moved other than its
    SGL length, and the WRITE bytes drop by 2048."""
    pick = [n for n, r in sorted(t.items()) if r["op"] in (0x06, 0x0A) and r["cmd_pkt"]
            and t[r["cmd_pkt"]].get("cmd", (None,))[0] == 0x06]
    if not ck("short: the Identify's RDMA WRITE", pick):
        return
    before = queues(DISCOVER)[0]["nvme"]
    linktype, recs, _ = pcaprecs.read_pcap(DISCOVER)
    b = bytearray(recs[pick[0] - 1][4])
    ck("short: its RETH says 4096", int.from_bytes(b[66:70], "big") == 4096)
    b[66:70] = (2048).to_bytes(4, "big")
    recs[pick[0] - 1] = recs[pick[0] - 1][:4] + (bytes(b),)
    tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), "check_nvme_short.%d.pcap" % os.getpid())
    try:
        pcaprecs.write_pcap(tmp, linktype, recs)
        q = queues(tmp)[0]["nvme"]
    finally:
        os.unlink(tmp)
    ck("short: one command moved other than its SGL length",
       before["rdma_not_sgl_length"] == 0 and q["rdma_not_sgl_length"] == 1, str(q["rdma_not_sgl_length"]))
    ck("short: WRITE bytes 2048 fewer", q["rdma_write_bytes"] == before["rdma_write_bytes"] - 2048)


def main():
    for path in (DISCOVER, SAMPLE):
        if not os.path.exists(path):
            ck("capture present: " + path, False)
            continue
        name = os.path.basename(path)
        t, f = tshark(path), fields(path)
        own_decode(path, t)
        extra = check_frames(name, t, f)
        check_views(name, path, t, f)
        qs = queues(path)
        check_queues(name, t, qs, extra)
        if path == SAMPLE:
            check_sample(t, qs)
            check_failure(t)
        else:
            check_cut(t)
            check_short(t)
    check_ulp_option(DISCOVER)
    print("check_nvme: %d checks, %d failed" % (ck.checks, ck.failures))
    return 1 if ck.failures else 0


if __name__ == "__main__":
    sys.exit(main())
