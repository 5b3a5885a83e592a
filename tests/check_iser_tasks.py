#!/usr/bin/env python3
"""The iSER module's tasks (proto/iser/iser_state.c) against tshark's decode
of the iSER samples (samples/rxe_iser*.pcap: LIO's ib_isert and open-iscsi
between two rdma_rxe guests, clean and with 2% loss on the target's egress)
and against the guests' own counts (NAME.truth.txt). make iser.

From tshark's fields alone (its iscsi and iser dissectors for the PDUs, its
InfiniBand fields for the packets), worked out here without rocestat:
- the tasks: every iSCSI request PDU with a task tag (SCSI Command, Login,
  Text, Logout, NOP-Out with an ITT, Task Management) from the initiator,
  each message once, paired by ITT with the next response PDU from the
  target; an operation is a SCSI Command's CDB opcode, or the request's
  iSCSI opcode;
- the fabric's re-sends: a request packet (SEND, RDMA WRITE, RDMA READ
  request) whose PSN is behind the highest PSN its stream has carried, and
  a READ response behind the highest of its responder's stream;
- the packets of a task: its command's SEND (First to Last by PSN), its
  response's SEND, the RDMA WRITEs whose R_Key is its command's read STag,
  the RDMA READ requests whose R_Key is its write STag and their response
  packets (the PSNs the request reserves, one per path-MTU of its DMA
  length);
- a task's latency: from the first sending of its command to the last
  sending of its response (a response the fabric re-sent reached the
  initiator then: go-back-N drops what follows a lost packet); its data:
  the command's immediate data and the first sending of each RDMA transfer;
  its wait for its RDMA READs: from its first READ request to the last
  sending of the last response packet to them.
Compared with rocestat's JSON ("iser" of the connection): the counts, every
operation's count, completions, errors, tasks re-sent, bytes and latency
figures (nearest rank, as the summary's), the slowest SCSI tasks (ITT,
frames, latency, re-sent, RDMA READ wait), the failed ones (status, sense), and the tasks never
answered. Per frame, rocestat --fields --verdicts: every frame of a task
(its SENDs, RDMA transfers, READ responses, re-sent packets) says what it
is to the task (request, response, transfer), the task's ITT and command
frame, a response's latency to that sending, and whether the fabric had
re-sent a packet of the task by then; no other frame names a task; and
--annotate's comments (read back by tshark) say the same. The capture
without its CM MADs (editcap): the pair is recognised as iSER by its shape
and its queue without CM has the same figures, frames renumbered. Against
the truth: the SCSI Commands and Responses are
open-iscsi's scsicmd_pdus / scsirsp_pdus, the READ(10)s and WRITE(10)s that
ended GOOD the block layer's I/Os, one READ(10) past the end ended CHECK
CONDITION ILLEGAL REQUEST; the clean sample re-sent nothing, the lossy one
re-sent packets of some task. The summary's iSER section fits 80, 120
and 200 columns, and a screen (40 lines) at 80.
"""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, ROOT, Checks, tshark_fields  # noqa: E402

ck = Checks("check_iser_tasks")
S = os.path.join(ROOT, "samples")
SAMPLES = ["rxe_iser", "rxe_iser_loss"]
SLOWEST = 5
ULP_COLS = ["ulp_pdu", "ulp_op", "ulp_tag", "ulp_request_frame", "ulp_latency_ns", "ulp_resent", "ulp_failed"]

F = ["frame.number", "frame.time_epoch", "ip.src", "infiniband.bth.opcode", "infiniband.bth.psn",
     "infiniband.bth.destqp", "infiniband.bth.padcnt", "udp.length", "infiniband.reth.r_key",
     "infiniband.reth.dmalen", "iser.flags.wsv", "iser.flags.rsv", "iser.write_stag", "iser.read_stag",
     "iscsi.opcode", "iscsi.initiatortasktag", "iscsi.datasegmentlength",
     "iscsi.scsicommand.expecteddatatransferlength", "scsi_sbc.opcode", "scsi.spc.opcode", "scsi_mmc.opcode",
     "iscsi.scsiresponse.status", "iscsi.scsiresponse.response", "iscsi.login.status", "iscsi.logout.response",
     "iscsi.taskmanfun.response", "scsi.sns.key", "scsi.sns.asc", "scsi.sns.ascq"]

SEND_START = {0, 4, 5, 23}             # RC SEND First, Only, Only with Immediate, Only with Invalidate
SEND_ANY = {0, 1, 2, 3, 4, 5, 22, 23}
WRITE_START = {6, 10, 11}              # RC RDMA WRITE First, Only, Only with Immediate
WRITE_ANY = {6, 7, 8, 9, 10, 11}
READ_REQ = 12
READ_RESP = {13, 14, 15, 16}
REQUEST_PDUS = {0x00: "NOP-Out", 0x02: "Task Management", 0x03: "Login", 0x04: "Text", 0x06: "Logout"}
NO_TASK = 0xFFFFFFFF


def num(s):
    s = s.split(",")[0].strip()
    if s == "":
        return None
    return int(s, 16) if s.startswith("0x") else int(s)


def ns(epoch):
    sec, _, frac = epoch.partition(".")
    return int(sec) * 10 ** 9 + int((frac + "000000000")[:9])


def psn_diff(a, b):
    d = (a - b) & 0xFFFFFF
    return d - 0x1000000 if d >= 0x800000 else d


def nearest_rank(vals, q):
    v = sorted(vals)
    n = len(v)
    r = q * n
    i = int(r)
    if i < r:
        i += 1
    return v[max(1, min(i, n)) - 1]


class Task:
    def __init__(self, itt, op, name, frame, ts, edtl, imm, rstag, wstag):
        self.itt, self.op, self.name = itt, op, name
        self.cmd_frame, self.cmd_ts = frame, ts
        self.edtl, self.moved = edtl, imm
        self.rstag, self.wstag = rstag, wstag
        self.rsp_frame = self.rsp_ts = None
        self.status = self.response = None
        self.sense = None
        self.failed = False
        self.resent = False
        self.done = False
        self.rd_first = self.rd_last = None


def tasks_of(path, frames=None):
    """The tasks tshark's fields show, and the capture's figures; into
    frames (a dict), frame number -> its packet with "want": what it is to
    its task (kind, task, a response's latency) and "resent_so_far"."""
    frames = {} if frames is None else frames
    rows = [dict(zip(F, r)) for r in tshark_fields(path, F, "infiniband", occurrence="f", heuristics_off=False)]
    pkts = []
    for t in rows:
        p = {"frame": int(t["frame.number"]), "ts": ns(t["frame.time_epoch"]), "src": t["ip.src"],
             "op": num(t["infiniband.bth.opcode"]), "psn": num(t["infiniband.bth.psn"]), "t": t}
        if p["op"] is None or p["psn"] is None or p["op"] >= 0x20:
            continue  # UD (CM) and other transports
        pkts.append(p)
    initiator = next(p["src"] for p in pkts if p["t"]["iscsi.opcode"] and num(p["t"]["iscsi.opcode"]) in (0x01, 0x03))
    # The path MTU: a Middle packet's payload (UDP length - UDP 8 - BTH 12 - ICRC 4 - pad).
    pmtu = max(num(p["t"]["udp.length"]) - 24 - (num(p["t"]["infiniband.bth.padcnt"]) or 0)
               for p in pkts if p["op"] in (1, 7, 14))
    # Re-sent: behind the highest PSN its stream carried so far.
    high = {}
    for p in pkts:
        resp = p["op"] in READ_RESP
        if p["op"] == 17:
            p["resent"] = False
            continue  # ACKs
        key = (p["src"], resp)
        h = high.get(key)
        p["resent"] = h is not None and psn_diff(p["psn"], h) <= 0
        if h is None or psn_diff(p["psn"], h) > 0:
            high[key] = p["psn"]
    tasks, pending, by_rstag, by_wstag = [], {}, {}, {}
    unmatched = resent_cmds = 0
    spans = {initiator: [], "target": []}   # (start PSN, packets, task) per request stream
    read_spans = []                          # (READ request PSN, packets, task)
    for p in pkts:
        t, op = p["t"], p["op"]
        from_init = p["src"] == initiator
        stream = spans[initiator if from_init else "target"]
        task = None
        if op in SEND_START and t["iscsi.opcode"]:
            code, itt = num(t["iscsi.opcode"]), num(t["iscsi.initiatortasktag"])
            if from_init and (code == 0x01 or code in REQUEST_PDUS) and itt != NO_TASK:
                old = pending.get(itt)
                if old and any(s[0] == p["psn"] and s[2] is old for s in stream):
                    resent_cmds += p["resent"]   # else a copy the network made
                    task = old
                else:
                    if code == 0x01:
                        cdb = num(t["scsi_sbc.opcode"] or t["scsi.spc.opcode"] or t["scsi_mmc.opcode"])
                        name = cdb
                        edtl = num(t["iscsi.scsicommand.expecteddatatransferlength"]) or 0
                        imm = num(t["iscsi.datasegmentlength"]) or 0
                    else:
                        name, edtl, imm = REQUEST_PDUS[code], 0, 0
                    rst = num(t["iser.read_stag"]) if t["iser.flags.rsv"] in ("1", "True") else None
                    wst = num(t["iser.write_stag"]) if t["iser.flags.wsv"] in ("1", "True") else None
                    task = Task(itt, code, name, p["frame"], p["ts"], edtl, imm, rst, wst)
                    tasks.append(task)
                    pending[itt] = task
                    if rst is not None:
                        by_rstag[rst] = task
                    if wst is not None:
                        by_wstag[wst] = task
            elif not from_init and code in (0x21, 0x22, 0x23, 0x24, 0x26, 0x20) and itt != NO_TASK:
                task = pending.get(itt)
                if task is None:
                    # the last task with this ITT, re-sent after it was answered
                    done = [k for k in tasks if k.itt == itt and k.done]
                    task = done[-1] if done and p["resent"] else None
                    if task is None:
                        unmatched += 1
                if task is not None:
                    p["want"] = ("response", task, p["ts"] - task.cmd_ts)
                    if not task.done or p["resent"]:
                        task.rsp_frame, task.rsp_ts = p["frame"], p["ts"]
                    if not task.done:
                        task.done = True
                        del pending[itt]
                        if code == 0x21:
                            task.status = num(t["iscsi.scsiresponse.status"])
                            task.response = num(t["iscsi.scsiresponse.response"])
                            task.failed = task.status != 0 or task.response != 0
                            if t["scsi.sns.key"]:
                                task.sense = (num(t["scsi.sns.key"]), num(t["scsi.sns.asc"]), num(t["scsi.sns.ascq"]))
                        elif code == 0x23:
                            task.failed = (num(t["iscsi.login.status"]) or 0) != 0
                        elif code == 0x26:
                            task.failed = (num(t["iscsi.logout.response"]) or 0) != 0
                        elif code == 0x22:
                            task.failed = (num(t["iscsi.taskmanfun.response"]) or 0) != 0
            if task is not None and "want" not in p:
                p["want"] = ("request", task, None)
            if op == 0:   # a SEND First: its packets, by the PDU's length
                length = 28 + 48 + ((num(t["iscsi.datasegmentlength"]) or 0) + 3) // 4 * 4
                stream.append((p["psn"], (length + pmtu - 1) // pmtu, task))
            else:
                stream.append((p["psn"], 1, task))
        elif op in WRITE_START and not from_init:
            rkey, dmalen = num(t["infiniband.reth.r_key"]), num(t["infiniband.reth.dmalen"]) or 0
            task = by_rstag.get(rkey)
            seen = any(s[0] == p["psn"] for s in stream)
            if task is not None and not seen:
                task.moved += dmalen
            if not seen:
                stream.append((p["psn"], max(1, (dmalen + pmtu - 1) // pmtu), task))
        elif op == READ_REQ and not from_init:
            rkey, dmalen = num(t["infiniband.reth.r_key"]), num(t["infiniband.reth.dmalen"]) or 0
            task = by_wstag.get(rkey)
            seen = any(s[0] == p["psn"] for s in read_spans)
            if task is not None and not seen:
                task.moved += dmalen
                if task.rd_first is None:
                    task.rd_first = p["ts"]
            if not seen:
                n = max(1, (dmalen + pmtu - 1) // pmtu)
                stream.append((p["psn"], n, task))
                read_spans.append((p["psn"], n, task))
        if op in READ_RESP and from_init:
            for s0, n, tk in reversed(read_spans):
                if 0 <= psn_diff(p["psn"], s0) < n:
                    if tk is not None:
                        tk.rd_last = p["ts"]   # the last sending of the last response packet
                        task = tk
                    break
        if task is not None and "want" not in p:
            p["want"] = ("transfer", task, None)
        if p["resent"]:
            # Which task's message this re-sent packet belongs to.
            if task is None:
                where = read_spans if op in READ_RESP else stream
                for s0, n, tk in reversed(where):
                    if 0 <= psn_diff(p["psn"], s0) < n:
                        task = tk
                        break
            if task is not None:
                task.resent = True
                if "want" not in p:
                    p["want"] = ("transfer" if op in WRITE_ANY else "request" if from_init else "response", task, None)
        if "want" in p:
            p["resent_so_far"] = p["want"][1].resent
    frames.update((p["frame"], p) for p in pkts if "want" in p)
    unanswered = [k for k in tasks if not k.done]
    return tasks, unanswered, unmatched, resent_cmds


def label(op, name):
    return name if isinstance(name, str) else None


def figures(vals):
    if not vals:
        return None
    return {"count": len(vals), "min": min(vals), "median": nearest_rank(vals, 0.5),
            "p99": nearest_rank(vals, 0.99), "max": max(vals)}


def rocestat_iser(path):
    p = subprocess.run([ROCESTAT, "-n", "--format", "json", path], capture_output=True, text=True)
    if not ck("%s: rocestat --format json ran" % os.path.basename(path), p.returncode in (0, 1), p.stderr[-400:]):
        return None
    d = json.loads(p.stdout)
    conns = [c for c in d["connections"] if c.get("ulp") == "iSER"]
    if not ck("%s: one iSER connection" % os.path.basename(path), len(conns) == 1, str(len(conns))):
        return None
    return conns[0].get("iser")


def check(name):
    path = os.path.join(S, name + ".pcap")
    frames = {}
    tasks, unanswered, unmatched, resent_cmds = tasks_of(path, frames)
    per_frame(name, frames)
    annotate(name, frames)
    j = rocestat_iser(path)
    if not ck("%s: the connection has an \"iser\" member" % name, j is not None):
        return tasks
    without_cm(name, j)
    scsi = [k for k in tasks if k.op == 0x01]
    ck("%s: SCSI commands" % name, j["scsi_commands"] == len(scsi), "%r vs %d" % (j["scsi_commands"], len(scsi)))
    ck("%s: SCSI responses" % name, j["scsi_responses"] == sum(k.done for k in scsi),
       "%r vs %d" % (j["scsi_responses"], sum(k.done for k in scsi)))
    ck("%s: requests (every task)" % name, j["requests"] == len(tasks), "%r vs %d" % (j["requests"], len(tasks)))
    ck("%s: tasks never answered" % name, j["unanswered"] == len(unanswered),
       "%r vs %r" % (j["unanswered"], [(k.itt, k.cmd_frame) for k in unanswered]))
    ck("%s: responses to no command seen" % name, j["responses_unmatched"] == unmatched)
    ck("%s: commands re-sent by the fabric (counted once)" % name, j["commands_resent"] == resent_cmds,
       "%r vs %d" % (j["commands_resent"], resent_cmds))
    ck("%s: tasks with a re-sent packet" % name, j["tasks_resent"] == sum(k.resent for k in tasks),
       "%r vs %r" % (j["tasks_resent"], [(k.itt, k.cmd_frame) for k in tasks if k.resent]))
    ck("%s: tasks whose data moved other than their expected length" % name,
       j["not_expected_length"] == sum(1 for k in scsi if k.done and not k.failed and k.moved != k.edtl),
       "%r vs %r" % (j["not_expected_length"], [(k.itt, k.edtl, k.moved) for k in scsi if k.done and k.moved != k.edtl]))
    # Operations: SCSI by CDB opcode, the rest by iSCSI opcode.
    ops = collections.OrderedDict()
    for k in tasks:
        key = ("scsi", k.name) if k.op == 0x01 else ("iscsi", k.op)
        ops.setdefault(key, []).append(k)
    got = {}
    for o in j["by_operation"]:
        got[("scsi", o["cdb_opcode"]) if o["opcode"] == 0x01 else ("iscsi", o["opcode"])] = o
    ck("%s: the operations" % name, set(got) == set(ops), "%s vs %s" % (sorted(got), sorted(ops)))
    for key, ts in ops.items():
        o = got.get(key)
        if o is None:
            continue
        lat = [k.rsp_ts - k.cmd_ts for k in ts if k.done]
        want = {"count": len(ts), "completed": sum(k.done for k in ts), "errors": sum(k.failed for k in ts),
                "resent": sum(k.resent for k in ts), "bytes_expected": sum(k.edtl for k in ts),
                "bytes_moved": sum(k.moved for k in ts)}
        for f, v in want.items():
            ck("%s: %s: %s" % (name, o["name"], f), o[f] == v, "rocestat %r, tshark %r" % (o[f], v))
        ck("%s: %s: latency" % (name, o["name"]), o["latency_ns"] == figures(lat),
           "rocestat %r, tshark %r" % (o["latency_ns"], figures(lat)))
    done = sorted((k for k in tasks if k.done and k.op == 0x01), key=lambda k: (-(k.rsp_ts - k.cmd_ts), k.cmd_frame))
    want = [(k.itt, k.cmd_frame, k.rsp_frame, k.rsp_ts - k.cmd_ts, k.resent,
             None if k.rd_first is None else k.rd_last - k.rd_first) for k in done[:SLOWEST]]
    have = [(s["itt"], s["command_frame"], s["response_frame"], s["latency_ns"], s["resent"], s["rdma_read_wait_ns"])
            for s in j["slowest"]]
    ck("%s: the slowest SCSI tasks" % name, have == want, "rocestat %r, tshark %r" % (have, want))
    failed = [k for k in tasks if k.failed]
    ck("%s: failed total" % name, j["failed_total"] == len(failed))
    have = [(e["itt"], e["command_frame"], e["response_frame"], e["status"],
             (e["sense_key"], e["asc"], e["ascq"]) if e["sense_key"] is not None else None) for e in j["failed"]]
    want = [(k.itt, k.cmd_frame, k.rsp_frame, k.status, k.sense) for k in failed[:len(have)]]
    ck("%s: the failed tasks" % name, have == want and len(have) == min(len(failed), 8),
       "rocestat %r, tshark %r" % (have, want))
    return tasks


def per_frame(name, frames):
    """--fields --verdicts: every frame of a task says which task (ITT, its
    command's frame), what it is (request, response, transfer), a
    response's latency, and whether the fabric had re-sent a packet of the
    task by then; no other frame names a task."""
    path = os.path.join(S, name + ".pcap")
    p = subprocess.run([ROCESTAT, "--fields", "--verdicts", path], capture_output=True, text=True)
    lines = p.stdout.splitlines()
    if not ck("%s: --fields --verdicts ran" % name, p.returncode == 0 and lines, p.stderr[-300:]):
        return
    head = lines[0].split(",")
    if not ck("%s: the ulp_* columns" % name, all(c in head for c in ULP_COLS), str(head[-10:])):
        return
    bad = collections.Counter()
    n = 0
    for line in lines[1:]:
        row = dict(zip(head, line.split(",")))
        fr = int(row["frame"])
        w = frames.get(fr)
        if w is None:
            if not ck("%s: frame %d names no task" % (name, fr), row["ulp_tag"] == "" and row["ulp_pdu"] in ("", "other"),
                      "%r" % {c: row[c] for c in ULP_COLS}):
                bad["no task"] += 1
            continue
        kind, task, lat = w["want"]
        n += 1
        want = {"ulp_pdu": kind, "ulp_tag": str(task.itt),
                "ulp_request_frame": "" if kind == "request" else str(task.cmd_frame),
                "ulp_resent": "1" if w["resent_so_far"] else ""}
        if kind == "response":
            want["ulp_latency_ns"] = str(lat)
        for c, v in want.items():
            if not ck("%s: frame %d: %s" % (name, fr, c), row[c] == v, "rocestat %r, tshark %r" % (row[c], v)):
                bad[c] += 1
    print("%s: %d frames of tasks compared column by column, %d differences" % (name, n, sum(bad.values())))


def annotate(name, frames):
    """--annotate: each frame of a task has its sentence in its comment, as
    tshark reads it back: a response names its command's frame, a frame
    of a task the fabric had re-sent a packet of says so."""
    path = os.path.join(S, name + ".pcap")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "a.pcapng")
        p = subprocess.run([ROCESTAT, "--annotate", out, path], capture_output=True, text=True)
        if not ck("%s: --annotate ran" % name, p.returncode == 0 and os.path.exists(out), p.stderr[-300:]):
            return
        comments = {int(r[0]): r[1] for r in tshark_fields(out, ["frame.number", "frame.comment"])}
    for fr, w in sorted(frames.items()):
        kind, task, _ = w["want"]
        c = comments.get(fr, "")
        ok = ("iSER: " in c and ("ITT 0x%08x" % task.itt) in c
              and (kind != "response" or ("(command frame %d)" % task.cmd_frame) in c)
              and (("the fabric re-sent a packet of this task" in c) == bool(w["resent_so_far"])))
        ck("%s: frame %d: its comment" % (name, fr), ok, repr(c[-200:]))


def shifted(x, removed):
    """x with every frame number (keys ending in _frame) renumbered as in a
    copy of the capture without the frames `removed`."""
    if isinstance(x, list):
        return [shifted(e, removed) for e in x]
    if isinstance(x, dict):
        return {k: (v - sum(r < v for r in removed) if k.endswith("_frame") and isinstance(v, int) else shifted(v, removed))
                for k, v in x.items()}
    return x


def without_cm(name, want):
    """The capture without its CM MADs (editcap): no port says iSER, so the
    pair is recognised by its shape, and its queue without CM has the same
    "iser" member as the connection had, frames renumbered."""
    path = os.path.join(S, name + ".pcap")
    ud = [int(r[0]) for r in tshark_fields(path, ["frame.number"], "infiniband.bth.opcode == 100")]
    with tempfile.TemporaryDirectory() as d:
        cut = os.path.join(d, "nocm.pcap")
        subprocess.run(["editcap", path, cut] + [str(n) for n in ud], check=True, capture_output=True)
        p = subprocess.run([ROCESTAT, "-n", "--format", "json", cut], capture_output=True, text=True)
    if not ck("%s without CM: rocestat ran" % name, p.returncode in (0, 1) and p.stdout, p.stderr[-300:]):
        return
    doc = json.loads(p.stdout)
    qs = [q for q in doc.get("ulp_queues", []) if q.get("ulp") == "iSER"]
    if not ck("%s without CM (%d CM MADs cut): one iSER queue, told by shape" % (name, len(ud)),
              len(qs) == 1 and qs[0]["told_by"] == "shape", str(doc.get("ulp_queues"))[:300]):
        return
    q = qs[0]
    ck("%s without CM: the host is the initiator" % name,
       q["host"]["address"] == next(c["client"]["address"] for c in doc_conns(path) if c.get("ulp") == "iSER"))
    got, exp = q.get("iser"), shifted(want, ud)
    diff = sorted(k for k in exp if got is None or got.get(k) != exp[k])
    ck("%s without CM: the \"iser\" member is the connection's" % name, not diff,
       "; ".join("%s: %r vs %r" % (k, None if got is None else got.get(k), exp[k]) for k in diff)[:600])


def doc_conns(path):
    return json.loads(subprocess.run([ROCESTAT, "-n", "--format", "json", path], capture_output=True,
                                     text=True).stdout)["connections"]


def truth(name, tasks):
    t = open(os.path.join(S, name + ".truth.txt")).read()
    cmd = int(re.search(r"\bscsicmd_pdus: (\d+)", t).group(1))
    rsp = int(re.search(r"\bscsirsp_pdus: (\d+)", t).group(1))
    after = list(map(int, re.search(r"^stat-after\s+(.*)$", t, re.M).group(1).split()))
    scsi = [k for k in tasks if k.op == 0x01]
    ck("%s: SCSI commands = open-iscsi's scsicmd_pdus" % name, len(scsi) == cmd, "%d vs %d" % (len(scsi), cmd))
    ck("%s: SCSI responses = open-iscsi's scsirsp_pdus" % name, sum(k.done for k in scsi) == rsp)
    good = [k for k in scsi if k.done and not k.failed]
    ck("%s: READ(10) GOOD = the block layer's read I/Os" % name, sum(k.name == 0x28 for k in good) == after[0])
    ck("%s: WRITE(10) GOOD = the block layer's write I/Os" % name, sum(k.name == 0x2a for k in good) == after[4])
    past = [k for k in scsi if k.name == 0x28 and k.failed]
    ck("%s: one READ(10) ended CHECK CONDITION, ILLEGAL REQUEST 21h/00h" % name,
       len(past) == 1 and past[0].status == 2 and past[0].sense == (5, 0x21, 0), str([(k.itt, k.sense) for k in past]))
    lossy = "loss" in name
    ck("%s: %s" % (name, "some task had a packet re-sent" if lossy else "no task had a packet re-sent"),
       any(k.resent for k in tasks) == lossy)


def dwidth(line):
    return len(re.sub(r"\x1b\[[0-9;]*m", "", line))


def layout(name):
    """The summary's iSER section fits the width it is laid out for, and
    one screen at 80 columns."""
    path = os.path.join(S, name + ".pcap")
    for width in (80, 120, 200):
        for color in ([], ["--color=always"]):
            p = subprocess.run([ROCESTAT, "-n", "--width", str(width)] + color + [path], capture_output=True, text=True)
            out = p.stdout
            sec = out[out.find("iSER tasks"):]
            sec = sec[:sec.find("\n\n")] if "\n\n" in sec else sec
            wide = [l for l in sec.split("\n") if dwidth(l) > width]
            ck("%s: the iSER section fits %d columns%s" % (name, width, " (colour)" if color else ""),
               "iSER tasks" in out and not wide, "%r" % wide[:3])
            if width == 80 and not color:
                n = sec.count("\n") + 1
                ck("%s: the iSER section fits a screen at 80 columns" % name, n <= 40, "%d lines" % n)


for name in SAMPLES:
    before = ck.checks, ck.failures
    tasks = check(name)
    truth(name, tasks)
    layout(name)
    print("%s: %d tasks, %d checks, %d failed" % (name, len(tasks), ck.checks - before[0], ck.failures - before[1]))
print("check_iser_tasks: %d checks, %d failed" % (ck.checks, ck.failures))
sys.exit(1 if ck.failures else 0)
