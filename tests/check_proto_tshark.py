#!/usr/bin/env python3
"""proto/'s decoders against independent sources, on every frame of the
storage samples made between two QEMU guests (samples/rxe-vm.sh iser / nfs,
clean and under netem loss).

The decoders' reading comes from tests/protodump (PROTODUMP): the first
packet of every RC SEND message through proto/iser/iser_dissect.c or
proto/nfsrdma/rpcrdma_dissect.c.

iSER (samples/rxe_iser*.pcap), per frame against tshark's iser and iscsi
dissectors: the iSER flags, write and read STags and addresses, the iSCSI
opcode, ITT, DataSegmentLength, and for SCSI commands the CDB opcode,
expected length and READ/WRITE(10) LBA and block count, for responses the
status, the iSCSI response and the sense key/ASC/ASCQ. Against the guests'
own counts (NAME.truth.txt): SCSI Command and Response PDUs (each message
once, RC re-sends aside) = open-iscsi's scsicmd_pdus / scsirsp_pdus and
LIO's num_cmds; the READ(10)s and WRITE(10)s that ended GOOD = the block
layer's read / write I/Os and sectors of the run; the WRITEs' LBAs and
sizes are the dd commands'; exactly one READ past the end (sg_raw) ended
CHECK CONDITION, ILLEGAL REQUEST, LBA OUT OF RANGE.

RPC-over-RDMA (samples/rxe_nfs*.pcap), against tshark's rpcordma, rpc and
nfs dissectors, matched by direction and XID (tshark shows a message whose
data came by RDMA READ, or whose SEND spans several packets, in a later
frame): the transport header (XID, version, credits, procedure, the read
list, write chunks and reply chunk with every segment's handle, length,
offset and read position), and for every RPC message carried inline: its
type, program, version and procedure, the NFSv3 status, the NFSv4 COMPOUND
operation list and each operation's status. Against the client's
/proc/self/mountstats taken before each umount: the NFSv3 calls per
procedure and the replies that were errors, the NFSv4.1 COMPOUNDs holding
READ, WRITE, CLOSE, REMOVE, CREATE, READDIR, and the read, write and reply
chunk segments the client's transport counted.
"""
import collections
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROOT, Checks, tshark_fields  # noqa: E402

ck = Checks("check_proto_tshark")
PROTODUMP = os.environ.get("PROTODUMP", os.path.join(ROOT, "build", "tests", "protodump"))
S = os.path.join(ROOT, "samples")
ISER = ["rxe_iser", "rxe_iser_loss"]
NFS = ["rxe_nfs", "rxe_nfs_loss"]
SEND_FIRST_ONLY = {0, 4, 5, 23}   # RC SEND First, Only, Only with Immediate, Only with Invalidate


def num(s):
    s = s.strip()
    if s == "":
        return None
    return int(s, 16) if s.startswith("0x") else int(s)


def first(s):
    return num(s.split("|")[0]) if s else None


def nums(s):
    return [num(v) for v in s.split("|")] if s else []


def dump(kind, path):
    p = subprocess.run([PROTODUMP, kind, path], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("protodump %s %s exited %d: %s" % (kind, path, p.returncode, p.stderr[:300]))
    return [json.loads(line) for line in p.stdout.splitlines()]


def unique_messages(recs):
    """Each message once: an RC re-send repeats the (QP, PSN) of its first packet."""
    seen, out = set(), []
    for r in recs:
        k = (r["qp"], r["psn"])
        if k not in seen:
            seen.add(k)
            out.append(r)
    return out


# ---- iSER -------------------------------------------------------------------

ISER_TF = ["frame.number", "infiniband.bth.opcode", "iser.flags", "iser.write_stag", "iser.write_base_offset",
           "iser.read_stag", "iser.read_base_offset", "iscsi.opcode", "iscsi.initiatortasktag",
           "iscsi.datasegmentlength", "iscsi.scsicommand.expecteddatatransferlength", "scsi_sbc.opcode",
           "scsi.spc.opcode", "iscsi.scsiresponse.status", "iscsi.scsiresponse.response", "scsi.sns.key",
           "scsi.sns.asc", "scsi.sns.ascq", "scsi_sbc.rdwr10.lba", "scsi_sbc.rdwr10.xferlen"]


def check_iser_frames(name, path, recs):
    # tshark's heuristic iSER dissector is the oracle here: left on.
    rows = tshark_fields(path, ISER_TF, "infiniband", occurrence="f", heuristics_off=False)
    ours = {r["frame"]: r for r in recs}
    agree = collections.Counter()
    for vals in rows:
        t = dict(zip(ISER_TF, vals))
        n, op = int(t["frame.number"]), num(t["infiniband.bth.opcode"])
        if op not in SEND_FIRST_ONLY:
            continue  # tshark's heuristic also fires on SEND Middle and data packets; iSER starts a message
        r = ours.get(n)
        if not ck("%s: frame %d: decoded" % (name, n), r is not None):
            continue
        if not t["iscsi.opcode"]:
            ck("%s: frame %d: tshark has no iSCSI PDU, neither does the decoder" % (name, n),
               r["outcome"] != "ok" or "opcode" not in r, str(r))
            continue
        ck("%s: frame %d: outcome ok" % (name, n), r["outcome"] == "ok", r["outcome"] + " " + r["why"])
        pairs = [("iSER flags", r["flags"], num(t["iser.flags"])),
                 ("write STag", r["wstag"], num(t["iser.write_stag"])),
                 ("write VA", int(r["wva"], 16), num(t["iser.write_base_offset"])),
                 ("read STag", r["rstag"], num(t["iser.read_stag"])),
                 ("read VA", int(r["rva"], 16), num(t["iser.read_base_offset"])),
                 ("opcode", r.get("opcode"), num(t["iscsi.opcode"])),
                 ("ITT", r.get("itt"), num(t["iscsi.initiatortasktag"])),
                 ("DataSegmentLength", r.get("dsl"), num(t["iscsi.datasegmentlength"]))]
        if r.get("opcode") == 0x01:
            cdb = num(t["scsi_sbc.opcode"]) if t["scsi_sbc.opcode"] else num(t["scsi.spc.opcode"])
            pairs += [("CDB opcode", r["cdb"], cdb),
                      ("expected length", r["edtl"], num(t["iscsi.scsicommand.expecteddatatransferlength"]))]
            if r["cdb"] in (0x28, 0x2a):
                pairs += [("LBA", r["lba"], num(t["scsi_sbc.rdwr10.lba"])),
                          ("blocks", r["blocks"], num(t["scsi_sbc.rdwr10.xferlen"]))]
        if r.get("opcode") == 0x21:
            pairs += [("status", r["status"], num(t["iscsi.scsiresponse.status"])),
                      ("response", r["response"], num(t["iscsi.scsiresponse.response"]))]
            if t["scsi.sns.key"]:
                pairs += [("sense key", r["sense_key"], num(t["scsi.sns.key"])),
                          ("ASC", r["asc"], num(t["scsi.sns.asc"])), ("ASCQ", r["ascq"], num(t["scsi.sns.ascq"]))]
            else:
                pairs.append(("no sense", r["has_sense"], False))
        for what, a, b in pairs:
            if ck("%s: frame %d: %s" % (name, n, what), a == b, "decoder %r, tshark %r" % (a, b)):
                agree[what] += 1
    missing = [r["frame"] for r in recs if r["outcome"] == "ok" and "opcode" in r
               and r["frame"] not in {int(v[0]) for v in rows if v[7]}]
    ck("%s: every PDU the decoder read, tshark read" % name, not missing, str(missing[:10]))
    return agree


def iser_truth(path):
    t = open(path).read()
    out = {"dd": re.findall(r"^step dd if=(\S+) of=(\S+) bs=(\d+) count=(\d+) (seek|skip)=(\d+)", t, re.M)}
    for k in ("scsicmd_pdus", "scsirsp_pdus"):
        out[k] = int(re.search(r"\b%s: (\d+)" % k, t).group(1))
    out["num_cmds"] = int(re.search(r"scsi_lu/num_cmds: (\d+)", t).group(1))
    b, a = (list(map(int, re.search(r"^%s\s+(.*)$" % w, t, re.M).group(1).split())) for w in ("stat-before", "stat-after"))
    out["stat_before"], out["stat_after"] = b, a
    return out


def check_iser_truth(name, recs, truth):
    before = ck.checks, ck.failures
    try:
        iser_truth_checks(name, recs, truth)
    finally:
        print("%s: %d checks against the truth file, %d failed" % (name, ck.checks - before[0], ck.failures - before[1]))


def iser_truth_checks(name, recs, truth):
    msgs = unique_messages([r for r in recs if r["outcome"] == "ok" and "opcode" in r])
    cmds = [r for r in msgs if r["opcode"] == 0x01]
    rsps = {r["itt"]: r for r in msgs if r["opcode"] == 0x21}
    ck("%s: SCSI Commands = open-iscsi's scsicmd_pdus" % name, len(cmds) == truth["scsicmd_pdus"],
       "%d vs %d" % (len(cmds), truth["scsicmd_pdus"]))
    ck("%s: SCSI Responses = open-iscsi's scsirsp_pdus" % name, len(rsps) == truth["scsirsp_pdus"],
       "%d vs %d" % (len(rsps), truth["scsirsp_pdus"]))
    ck("%s: SCSI Commands = LIO's num_cmds" % name, len(cmds) == truth["num_cmds"])
    good = [c for c in cmds if c["itt"] in rsps and rsps[c["itt"]]["status"] == 0]
    reads = [c for c in good if c["cdb"] == 0x28]
    writes = [c for c in good if c["cdb"] == 0x2a]
    a = truth["stat_after"]
    # The block layer counts from the disk's appearance: the kernel's own
    # reads, then the workload; SG_IO (sg_raw) is not counted there.
    ck("%s: READ(10) GOOD = block layer read I/Os" % name, len(reads) == a[0], "%d vs %d" % (len(reads), a[0]))
    ck("%s: READ(10) blocks = read sectors" % name, sum(c["blocks"] for c in reads) == a[2])
    ck("%s: WRITE(10) GOOD = block layer write I/Os" % name, len(writes) == a[4], "%d vs %d" % (len(writes), a[4]))
    ck("%s: WRITE(10) blocks = write sectors" % name, sum(c["blocks"] for c in writes) == a[6])
    want_w, want_r = [], []
    for src, dst, bs, count, kind, where in truth["dd"]:
        bs, count, where = int(bs), int(count), int(where)
        for i in range(count):
            (want_w if kind == "seek" else want_r).append(((where + i) * bs // 512, bs // 512))
    ck("%s: WRITEs are the dd writes (LBA, blocks)" % name, [(c["lba"], c["blocks"]) for c in writes] == want_w,
       "%s vs %s" % ([(c["lba"], c["blocks"]) for c in writes], want_w))
    got_r = [(c["lba"], c["blocks"]) for c in reads]
    ck("%s: the dd reads are the last READs" % name, got_r[-len(want_r):] == want_r, "%s vs %s" % (got_r, want_r))
    bad = [(c["cdb"], rsps[c["itt"]]) for c in cmds if c["itt"] in rsps and rsps[c["itt"]]["status"] != 0]
    past_end = [(c, r) for c, r in bad if c == 0x28]
    ck("%s: one READ(10) ended CHECK CONDITION, ILLEGAL REQUEST, 21h/00h" % name,
       len(past_end) == 1 and past_end[0][1]["status"] == 2 and past_end[0][1]["sense_key"] == 5
       and past_end[0][1]["asc"] == 0x21 and past_end[0][1]["ascq"] == 0, str(bad))


# ---- RPC-over-RDMA ---------------------------------------------------------

NFS_TF = ["frame.number", "ip.src", "rpcordma.xid", "rpcordma.version", "rpcordma.flow_control",
          "rpcordma.msg_type", "rpcordma.reads_count", "rpcordma.writes_count", "rpcordma.reply_count",
          "rpcordma.rdma_handle", "rpcordma.rdma_length", "rpcordma.rdma_offset", "rpcordma.position",
          "rpc.xid", "rpc.msgtyp", "rpc.program", "rpc.programversion", "rpc.procedure", "nfs.opcode",
          "nfs.status"]


def tshark_nfs(path):
    rows = tshark_fields(path, NFS_TF, "rpcordma || rpc", occurrence="a", aggregator="|", heuristics_off=False)
    hdr, rpc = collections.defaultdict(list), {}
    for vals in rows:
        t = dict(zip(NFS_TF, vals))
        src = t["ip.src"].split("|")[0]
        if t["rpcordma.xid"]:
            hdr[(src, first(t["rpcordma.xid"]))].append(t)
        if t["rpc.xid"]:
            k = (src, first(t["rpc.xid"]), first(t["rpc.msgtyp"]))
            rpc.setdefault(k, t)
    return hdr, rpc


def check_header(name, r, t):
    n = r["frame"]
    segs = r["segs"]
    pairs = [("version", r["vers"], first(t["rpcordma.version"])),
             ("credits", r["credits"], first(t["rpcordma.flow_control"])),
             ("procedure", r["proc"], first(t["rpcordma.msg_type"])),
             ("read list", r["n_read"], first(t["rpcordma.reads_count"])),
             ("write chunks", r["n_write"], first(t["rpcordma.writes_count"])),
             ("reply chunk", 1 if r["reply_chunk"] else 0, first(t["rpcordma.reply_count"])),
             ("handles", [s[3] for s in segs], nums(t["rpcordma.rdma_handle"])),
             ("lengths", [s[4] for s in segs], nums(t["rpcordma.rdma_length"])),
             ("offsets", [int(s[5], 16) for s in segs], nums(t["rpcordma.rdma_offset"])),
             ("positions", [s[2] for s in segs if s[0] == 0], nums(t["rpcordma.position"]))]
    ok = True
    for what, a, b in pairs:
        ok &= ck("%s: frame %d: %s" % (name, n, what), a == b, "decoder %r, tshark %r" % (a, b))
    return ok


def check_rpc(name, r, t):
    n, m = r["frame"], r["rpc"]
    pairs = [("RPC type", m["type"], first(t["rpc.msgtyp"]))]
    ops_t, st_t = nums(t["nfs.opcode"]), nums(t["nfs.status"])
    # A READ reply whose data came by RDMA WRITE: tshark decodes its RPC
    # message twice in the frame (once with the data joined): the copies
    # must agree, and one is compared.
    copies = len(nums(t["rpc.xid"]))
    if copies > 1 and len(ops_t) % copies == 0 and len(st_t) % copies == 0:
        k, j = len(ops_t) // copies, len(st_t) // copies
        ck("%s: frame %d: tshark's %d decodes agree" % (name, n, copies),
           ops_t == ops_t[:k] * copies and st_t == st_t[:j] * copies, "%s %s" % (ops_t, st_t))
        ops_t, st_t = ops_t[:k], st_t[:j]
    if m["type"] == 0:
        pairs += [("program", m["prog"], first(t["rpc.program"])),
                  ("program version", m["vers"], first(t["rpc.programversion"])),
                  ("procedure", m["proc"], first(t["rpc.procedure"]))]
        v4 = m["prog"] == 100003 and m["vers"] == 4 and m["proc"] == 1
    else:
        v4 = bool(ops_t)
        if "status" in m:
            pairs.append(("status", m["status"], st_t[0] if st_t else None))
        if v4:
            pairs.append(("operation statuses", m["op_status"], st_t[1:1 + len(m["op_status"])]))
    if v4:
        got = m["ops"]
        want = ops_t[:len(got)] if m["partial"] or r["outcome"] != "ok" else ops_t
        pairs.append(("COMPOUND operations", got, want))
        pairs.append(("COMPOUND count", m["nops"] >= len(ops_t), True))
    ok = True
    for what, a, b in pairs:
        ok &= ck("%s: frame %d: %s" % (name, n, what), a == b, "decoder %r, tshark %r" % (a, b))
    return ok


def check_nfs_frames(name, path, recs):
    hdr, rpc = tshark_nfs(path)
    agree = collections.Counter()
    seen_rpc = set()
    for r in recs:
        n = r["frame"]
        if not ck("%s: frame %d: an RPC-over-RDMA header" % (name, n), r["outcome"] in ("ok", "continued"),
                  r["outcome"] + " " + r["why"]):
            continue
        if r["outcome"] == "continued":
            agree["continued (SEND First)"] += 1
        t = hdr.get((r["src"], r["xid"]))
        if not ck("%s: frame %d: tshark has its header" % (name, n), t is not None):
            continue
        if check_header(name, r, t[0]):
            agree["transport headers"] += 1
        if "rpc" not in r:
            ck("%s: frame %d: no inline RPC only in RDMA_NOMSG" % (name, n), r["proc"] == 1)
            agree["RDMA_NOMSG (RPC in a chunk)"] += 1
            continue
        k = (r["src"], r["rpc"]["xid"], r["rpc"]["type"])
        seen_rpc.add(k)
        tr = rpc.get(k)
        if ck("%s: frame %d: tshark has its RPC message" % (name, n), tr is not None) and check_rpc(name, r, tr):
            agree["RPC messages"] += 1
            if r["rpc"]["ops"]:
                agree["COMPOUNDs"] += 1
                agree["NFSv4 operations"] += len(r["rpc"]["ops"])
    nomsg = {(r["src"], r["xid"]) for r in recs if r["proc"] == 1}
    missing = [k for k in rpc if k not in seen_rpc and (k[0], k[1]) not in nomsg]
    ck("%s: every inline RPC message tshark read, the decoder read" % name, not missing, str(missing[:5]))
    return agree


def mountstats(path):
    """The two mounts' per-op counts {name: (ops, errors)} and xprt rdma counters, in order."""
    mounts, cur = [], None
    for line in open(path):
        line = line.strip().lstrip("|").strip()
        if line.startswith("device ") and " fstype nfs" in line:
            cur = {"ops": {}, "xprt": None}
            mounts.append(cur)
        elif cur is not None and line.startswith("xprt:"):
            cur["xprt"] = list(map(int, line.split()[2:]))
        elif cur is not None:
            m = re.match(r"^([A-Z_0-9]+): (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)(?: (\d+))?$", line)
            if m:
                cur["ops"][m.group(1)] = (int(m.group(2)), int(m.group(10) or 0))
    return mounts


NFS3_NAMES = ["NULL", "GETATTR", "SETATTR", "LOOKUP", "ACCESS", "READLINK", "READ", "WRITE", "CREATE", "MKDIR",
              "SYMLINK", "MKNOD", "REMOVE", "RMDIR", "RENAME", "LINK", "READDIR", "READDIRPLUS", "FSSTAT",
              "FSINFO", "PATHCONF", "COMMIT"]
V4_MAIN = {"READ": 25, "WRITE": 38, "CLOSE": 4, "REMOVE": 28, "CREATE": 6, "READDIR": 26}


def check_nfs_truth(name, recs, truth_path):
    before = ck.checks, ck.failures
    try:
        nfs_truth_checks(name, recs, truth_path)
    finally:
        print("%s: %d checks against the truth file, %d failed" % (name, ck.checks - before[0], ck.failures - before[1]))


def nfs_truth_checks(name, recs, truth_path):
    mounts = mountstats(truth_path)
    if not ck("%s: two mounts in the truth" % name, len(mounts) == 2, str(len(mounts))):
        return
    calls = [r for r in unique_messages(recs) if r["src"] == "192.0.2.2"]
    conns = []
    for r in calls:
        if r["qp"] not in conns:
            conns.append(r["qp"])
    if not ck("%s: two connections" % name, len(conns) == 2, str(conns)):
        return
    byxid = collections.OrderedDict()
    for r in calls:
        if "rpc" in r and r["rpc"]["type"] == 0:
            byxid.setdefault((r["qp"], r["xid"]), r)
    replies = {(r["xid"]): r for r in unique_messages(recs) if "rpc" in r and r["rpc"]["type"] == 1}
    # NFSv3: the calls per procedure and the error replies, up to the
    # mountstats reading (the last call of that mount: nothing follows it).
    v3 = [r for (qp, _), r in byxid.items() if qp == conns[0] and r["rpc"]["prog"] == 100003]
    per = collections.Counter(NFS3_NAMES[r["rpc"]["proc"]] for r in v3)
    errs = collections.Counter(NFS3_NAMES[r["rpc"]["proc"]] for r in v3
                               if replies.get(r["xid"], {}).get("rpc", {}).get("status", 0) != 0)
    for op, (count, errors) in mounts[0]["ops"].items():
        ck("%s: NFSv3 %s calls = mountstats" % (name, op), per[op] == count, "%d vs %d" % (per[op], count))
        ck("%s: NFSv3 %s error replies = mountstats" % (name, op), errs[op] == errors, "%d vs %d" % (errs[op], errors))
    # NFSv4.1: the COMPOUNDs holding an operation only they hold.
    v4 = [r for (qp, _), r in byxid.items() if qp == conns[1] and r["rpc"]["prog"] == 100003 and r["rpc"]["vers"] == 4]
    for op, code in V4_MAIN.items():
        got = sum(1 for r in v4 if code in r["rpc"]["ops"])
        want = mounts[1]["ops"].get(op, (None,))[0]
        ck("%s: NFSv4.1 COMPOUNDs with %s = mountstats %s" % (name, op, op), got == want, "%d vs %s" % (got, want))
    # The client transport's own chunk counts: read, write, reply chunk
    # segments it encoded (xprtrdma's read/write/reply_chunk_count).
    for i, qp in enumerate(conns):
        segs = [s for r in calls if r["qp"] == qp for s in r["segs"]]
        got = [sum(1 for s in segs if s[0] == k) for k in (0, 1, 2)]
        want = mounts[i]["xprt"][10:13]
        ck("%s: mount %d: read/write/reply chunk segments = the client's counts" % (name, i + 1), got == want,
           "%s vs %s" % (got, want))


def main():
    if not os.path.exists(PROTODUMP):
        print("check_proto_tshark: %s is missing (make %s): nothing was checked, a failure"
              % (PROTODUMP, os.path.relpath(PROTODUMP, ROOT)))
        return 1
    for name in ISER:
        path = os.path.join(S, name + ".pcap")
        if not ck("sample present: " + name, os.path.exists(path)):
            continue
        recs = dump("iser", path)
        agree = check_iser_frames(name, path, recs)
        check_iser_truth(name, recs, iser_truth(os.path.join(S, name + ".truth.txt")))
        print("%s: tshark agreed on %s" % (name, ", ".join("%s %d" % kv for kv in sorted(agree.items()))))
    for name in NFS:
        path = os.path.join(S, name + ".pcap")
        if not ck("sample present: " + name, os.path.exists(path)):
            continue
        recs = dump("rpcrdma", path)
        agree = check_nfs_frames(name, path, recs)
        check_nfs_truth(name, recs, os.path.join(S, name + ".truth.txt"))
        print("%s: tshark agreed on %s" % (name, ", ".join("%s %d" % kv for kv in sorted(agree.items()))))
    print("check_proto_tshark: %d checks, %d failed" % (ck.checks, ck.failures))
    return 1 if ck.failures else 0


if __name__ == "__main__":
    sys.exit(main())
