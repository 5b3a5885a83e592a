#!/usr/bin/env python3
"""NVMe-oF recognised by shape, without a CM handshake, and --ulp qp:.

Captures without CM are made here from the NVMe-oF captures that have it
(samples/rxe_nvme.pcap, ../shared/hw-captures/...nvme-discover.pcap):
tshark lists the frames to QP 1 (the CM's MADs) and editcap deletes them
(samples/rxe_nvme_nocm.pcap, of the golden tests, must be that copy).
tshark's nvme-rdma dissector needs the CM handshake (its conversations
come from the REQ's private data; there is no decode-as for it), so the
oracle is tshark's decode of the original, mapped onto the copy's frame
numbers (the test checks that tshark decodes no capsule in the copy).

For each NVMe-oF queue of the original, the copy must have a queue without
CM (JSON ulp_queues) told by shape, with the host and target QPs of the
CM connection, and with the evidence the man page's rule gives computed
here from tshark's capsules: the 4th response tied to a command by its CID
(a response captured before its command ties when the command comes)
tells it; pdus_matched counts the capsules up to that frame, first_frame
is the pair's first SEND. The queue's figures (the JSON nvme member) equal
the CM connection's in the original: nothing before recognition is lost;
per command kind, the counts and the latencies' count, min and max equal
those computed from tshark's command -> response pairs. Per frame (--fields
--verdicts): after the frame that told it, every response tshark pairs
names its command frame with latency = the two frames' time difference,
every command its opcode and CID, and the ulp column says nvme-of/shape;
up to that frame no frame carries the protocol's columns.

Negatives, none of which may be recognised: RC SEND traffic of other kinds
(samples/rxe_send*.pcap, rping, rc_pingpong), iSER and NFS/RDMA without
their CM (recognised as their own protocols, never NVMe-oF), the first 1, 2 and 3 command/response exchanges of a queue (and
4 must be: the rule's number), a single capsule-shaped SEND written alone,
and a queue whose second command's flags were made to say no SGL (one
wrong-looking PDU ends the look). --ulp qp:QPN=NAME: on the copy it names
a pair (told_by qp, figures equal to the CM connection's), a NAME of no
module gives a pair that name and no NVMe-oF decoding; on the original it
renames a CM connection ahead of its port; bad forms are refused.
"""
import collections
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcaprecs  # noqa: E402
import shapelib  # noqa: E402
from testlib import ROOT, SHARED, Checks, tshark_fields, need_shared  # noqa: E402
import check_nvme  # noqa: E402  (its tshark oracle; importing runs no check)
import jsonschema  # noqa: E402

need_shared("check_nvme_shape")
ck = Checks("check_nvme_shape")
SAMPLE = os.path.join(ROOT, "samples", "rxe_nvme.pcap")
DISCOVER = os.path.join(SHARED, "hw-captures", "magnate3__linux-riscv-dev__nvme-discover.pcap")
NOCM_SAMPLE = os.path.join(ROOT, "samples", "rxe_nvme_nocm.pcap")
TMP = tempfile.mkdtemp(prefix="check_nvme_shape.")
SH = shapelib.Shape(ck, TMP)
run, doc, fields, without_cm, cut_frames = SH.run, SH.doc, SH.fields, SH.without_cm, SH.cut_frames
TIES = 4  # the man page's rule (--ulp): 4 responses tied to their commands by CID
STALE_NS = 1000000000  # a response before its command ties within a second (the NVMe-oF queues' rule)


def num(s):
    return check_nvme.num(s)


def pair_capsules(t, target_qp, host_qp):
    """The queue's capsules in frame order: (frame, 'cmd'|'cqe', cid)."""
    out = []
    for n, r in sorted(t.items()):
        if "cmd" in r and r["destqp"] == target_qp:
            out.append((n, "cmd", r["cmd"][2]))
        elif "cqe" in r and r["destqp"] == host_qp:
            out.append((n, "cqe", r["cqe"]))
    return out


def ties(t, caps):
    """Frames at which a response is tied to its command, in order: at the
    response when its command came before, else at the next command with
    its CID within a second."""
    pending, early, at = {}, collections.defaultdict(list), []
    for n, kind, cid in caps:
        if kind == "cmd":
            e = [x for x in early[cid] if t[n]["ts"] - t[x]["ts"] <= STALE_NS]
            if e:
                early[cid] = e[1:]
                at.append(n)
            else:
                pending[cid] = n
        elif cid in pending:
            del pending[cid]
            at.append(n)
        else:
            early[cid].append(n)
    return at


def timed_pairs(t, caps):
    """command frame -> response frame, for the responses after their command."""
    pending, out = {}, {}
    for n, kind, cid in caps:
        if kind == "cmd":
            pending[cid] = n
        elif cid in pending:
            out[pending.pop(cid)] = n
    return out


def check_queue(name, t, m, conn, uq, f, first_send):
    """One queue: the copy's ulp_queue uq against the original's CM connection conn."""
    target, host = conn["server"]["qpn"], conn["client"]["qpn"]
    caps = pair_capsules(t, target, host)
    tied = ties(t, caps)
    if not ck(name + ": at least %d ties in the queue" % TIES, len(tied) >= TIES, str(tied)):
        return
    told = tied[TIES - 1]
    want = {"told_by": "shape", "ulp": "NVMe-oF", "answers_tied": TIES, "told_frame": m[told],
            "pdus_matched": sum(1 for c in caps if c[0] <= told), "first_frame": m[first_send],
            "host": {"address": conn["client"]["address"], "qpn": host},
            "target": {"address": conn["server"]["address"], "qpn": target}}
    got = {k: uq.get(k) for k in want}
    ck(name + ": QP 0x%x evidence and ends" % target, got == want, "%s vs %s" % (got, want))
    ck(name + ": QP 0x%x figures equal the CM connection's" % target, uq.get("nvme") == conn["nvme"],
       json.dumps(uq.get("nvme"))[:300])
    # Per command kind, from tshark's pairs (those before recognition too).
    pairs = timed_pairs(t, caps)
    lat = collections.defaultdict(list)
    for c, r in pairs.items():
        lat[(t[c]["cmd"][0], t[c]["cmd"][1])].append(t[r]["ts"] - t[c]["ts"])
    for o in (uq.get("nvme") or {}).get("by_command", []):
        k = (o["opcode"], o["fctype"])
        want_l = (len(lat[k]), min(lat[k]), max(lat[k])) if lat[k] else (0,)
        l = o["latency_ns"]
        got_l = (l["count"], l["min"], l["max"]) if l else (0,)
        ck(name + ": QP 0x%x %s latency count/min/max" % (target, o["name"]), got_l == want_l,
           "%s vs tshark %s" % (got_l, want_l))
    # Per frame: the protocol's columns only after the frame that told it.
    inv = {v: k for k, v in m.items()}
    qps = {target, host}
    before = after = 0
    for n, r in f.items():
        o = inv[n]
        if o not in t or t[o]["destqp"] not in qps:
            ck(name + ": frame %d of no queue has no ulp" % n, r.get("ulp") in ("", None) or o not in t
               or t[o]["destqp"] not in qps, r.get("ulp"))
            continue
        if o <= told:
            before += 1
            ck(name + ": frame %d before recognition: no protocol columns" % n, r["ulp"] == "" and r["nvme"] == "",
               "%s %s" % (r["ulp"], r["nvme"]))
            continue
        after += 1
        ck(name + ": frame %d ulp nvme-of/shape" % n, r["ulp"] == "nvme-of/shape", r["ulp"])
        if "cmd" in t[o] and t[o]["destqp"] == target:
            ck(name + ": frame %d command opcode and CID" % n, r["nvme"] == "command" and
               (num(r["nvme_opcode"]), num(r["nvme_cid"])) == (t[o]["cmd"][0], t[o]["cmd"][2]), str(r.get("nvme")))
        c = t[o].get("cmd_pkt") if "cqe" in t[o] else None
        if c and c < o:
            ck(name + ": frame %d answers frame %d" % (n, m[c]), num(r["nvme_command_frame"]) == m[c],
               r["nvme_command_frame"])
            ck(name + ": frame %d latency" % n, num(r["nvme_latency_ns"]) == t[o]["ts"] - t[c]["ts"],
               "%s vs %d" % (r["nvme_latency_ns"], t[o]["ts"] - t[c]["ts"]))
    print("  %s QP 0x%x: told at frame %d (copy %d) by %d capsules, %d timed pairs, frames %d before / %d after"
          % (name, target, told, m[told], want["pdus_matched"], len(pairs), before, after))


SCHEMA = json.load(open(os.path.join(ROOT, "man", "rocestat.schema.json")))


def check_schema(name, copy):
    """The document and its NDJSON lines, with their ulp_queues, against the schema."""
    d = doc(copy)
    errs = list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(d))
    ck(name + ": the JSON validates", not errs, "; ".join(e.message[:150] for e in errs[:2]))
    line = jsonschema.Draft202012Validator({"$defs": SCHEMA["$defs"], "$ref": "#/$defs/ndjson_line"})
    lines = [json.loads(ln) for ln in run("--format", "ndjson", copy).stdout.splitlines()]
    ck(name + ": its NDJSON lines validate", lines and all(line.is_valid(x) for x in lines))
    got = [x["ulp_queue"] for x in lines if x["kind"] == "ulp_queue"]
    ck(name + ": the NDJSON's ulp_queue lines are the document's", got == d.get("ulp_queues"))


def check_capture(path, name):
    t = check_nvme.tshark(path)
    check_nvme.own_decode(path, t)
    copy, m = without_cm(path, name)
    ck(name + ": tshark decodes no capsule without the CM (the oracle is the original's decode)",
       not tshark_fields(copy, ["frame.number"], "nvme", heuristics_off=False))
    conns = [c for c in doc(path)["connections"] if c.get("nvme")]
    d = doc(copy)
    uqs = d.get("ulp_queues", [])
    ck(name + ": a queue without CM per NVMe-oF connection", len(uqs) == len(conns) and not d["connections"],
       "%d vs %d" % (len(uqs), len(conns)))
    check_schema(name, copy)
    f = fields(copy)
    sends = {n for n, r in t.items() if r["op"] in (0x00, 0x04, 0x05, 0x17)}
    for conn in conns:
        uq = [u for u in uqs if u["target"]["qpn"] == conn["server"]["qpn"] and u["host"]["qpn"] == conn["client"]["qpn"]]
        if not ck(name + ": queue of QP 0x%x found" % conn["server"]["qpn"], len(uq) == 1):
            continue
        qps = {conn["server"]["qpn"], conn["client"]["qpn"]}
        first = min(n for n in sends if t[n]["destqp"] in qps)
        check_queue(name, t, m, conn, uq[0], f, first)
    return t, copy, m, conns


def none_recognised(what, path, *extra):
    d = doc(*extra, path)
    ck(what + ": not recognised", "ulp_queues" not in d, str([u["ulp"] for u in d.get("ulp_queues", [])]))
    f = fields(*extra, path)
    ck(what + ": no frame's ulp says shape", not any(r.get("ulp", "").endswith("/shape") for r in f.values()))


def not_nvme(what, path):
    """Recognised maybe, as its own protocol (iSER recognises by shape too,
    tests/check_iser_tasks.py), never as NVMe-oF."""
    d = doc(path)
    ck(what + ": not recognised as NVMe-oF", not [u for u in d.get("ulp_queues", []) if u["ulp"] == "NVMe-oF"],
       str([u["ulp"] for u in d.get("ulp_queues", [])]))
    f = fields(path)
    ck(what + ": no frame's ulp says nvme-of/shape", not any(r.get("ulp", "") == "nvme-of/shape" for r in f.values()))


def check_negatives(t, copy, m, conns):
    for s in ["rxe_send", "rxe_send_imm", "rxe_send_inline", "rxe_send_ipv6", "rxe_send_multi"]:
        c, _ = without_cm(os.path.join(ROOT, "samples", s + ".pcap"), s + "_nocm")
        none_recognised(s + " without CM", c)
    c, _ = without_cm(os.path.join(ROOT, "samples", "rxe_nfs.pcap"), "rxe_nfs_nocm")
    not_nvme("rxe_nfs without CM", c)  # NFS/RDMA recognises by shape too (tests/check_nfsrdma_shape.py)
    c, _ = without_cm(os.path.join(ROOT, "samples", "rxe_iser.pcap"), "rxe_iser_nocm")
    not_nvme("rxe_iser without CM", c)
    rping, _ = without_cm(os.path.join(SHARED, "captures", "rping_s64.pcap"), "rping_nocm")
    none_recognised("rping_s64 without CM", rping)
    none_recognised("rc_pingpong (no CM)", os.path.join(SHARED, "captures", "rc_pingpong.pcap"))
    # The first queue's exchanges one by one: 1-3 ties are not enough, 4 are.
    conn = conns[0]
    caps = pair_capsules(t, conn["server"]["qpn"], conn["client"]["qpn"])
    tied = ties(t, caps)
    for k in range(1, TIES + 1):
        upto = m[tied[k - 1]]
        part = cut_frames(copy, "first_%d" % k, set(range(1, upto + 1)))
        d = doc(part)
        if k < TIES:
            ck("%d tie(s) only: not recognised" % k, "ulp_queues" not in d)
        else:
            ck("%d ties: recognised" % k, len(d.get("ulp_queues", [])) == 1 and d["ulp_queues"][0]["told_frame"] == upto)
    one = cut_frames(copy, "one_send", {m[caps[0][0]]})
    none_recognised("a single capsule-shaped SEND", one)
    # One wrong-looking PDU: the queue's second command says no SGL (PSDT 00b).
    second = [c for c in caps if c[1] == "cmd"][1][0]
    ck("the second command is before recognition", second < tied[TIES - 1])
    linktype, recs, _ = pcaprecs.read_pcap(copy)
    b = bytearray(recs[m[second] - 1][4])
    ck("its flags say SGL", b[54 + 1] >> 6 in (1, 2), hex(b[55]))
    b[54 + 1] = 0
    recs[m[second] - 1] = recs[m[second] - 1][:4] + (bytes(b),)
    bad = os.path.join(TMP, "no_sgl.pcap")
    pcaprecs.write_pcap(bad, linktype, recs)
    d = doc(bad)
    left = {u["target"]["qpn"] for u in d.get("ulp_queues", [])}
    ck("one command without SGL: its queue not recognised, the others are",
       left == {c["server"]["qpn"] for c in conns[1:]}, str(left))


def check_qp_option(copy, conns):
    io = [c for c in conns if c["nvme"]["queue"] == "io"][0]
    qp = io["server"]["qpn"]
    d = doc("--ulp", "qp:0x%x=nvme" % qp, copy)
    uq = [u for u in d.get("ulp_queues", []) if u["target"]["qpn"] == qp]
    ck("qp: on the copy names the I/O queue", len(uq) == 1 and uq[0]["told_by"] == "qp" and uq[0]["ulp"] == "nvme"
       and uq[0]["qp_rule"] == qp and uq[0]["pdus_matched"] is None, str(uq))
    if uq:
        ck("qp: its figures equal the CM connection's", uq[0].get("nvme") == io["nvme"])
    ck("qp: the others still by shape", sorted(u["told_by"] for u in d.get("ulp_queues", [])) == ["qp", "shape", "shape"])
    f = fields("--ulp", "qp:%d=nvme" % qp, copy)
    ck("qp: the ulp column says nvme-of/qp", any(r["ulp"] == "nvme-of/qp" for r in f.values()) and
       not any(r["ulp"] == "nvme-of/shape" and num(r["destqp"]) == qp for r in f.values()))
    other = conns[0]["server"]["qpn"]
    d = doc("--ulp", "qp:0x%x=MyProto" % other, copy)
    uq = [u for u in d.get("ulp_queues", []) if u["target"]["qpn"] == other]
    ck("qp: a name of no module names the pair, no NVMe-oF", len(uq) == 1 and uq[0]["ulp"] == "MyProto"
       and "nvme" not in uq[0], str(uq))
    # On the original: a CM connection renamed ahead of its port.
    c1 = conns[1]["client"]["qpn"]
    d = doc("--ulp", "qp:0x%x=nvmf-x" % c1, "--ulp", "4420=foo", SAMPLE)
    names = [(c.get("ulp"), "nvme" in c) for c in d.get("connections", [])]
    ck("qp: on CM connections, ahead of the port", names == [("foo", False), ("nvmf-x", True), ("foo", False)], str(names))
    ck("qp: no queue without CM where the CM is", "ulp_queues" not in d)
    for bad in ["qp:1=x", "qp:0=x", "qp:0x1000000=x", "qp:=x", "qp:17", "qp:abc=x", "foo:17=x", "qp:17=a b"]:
        p = run("--ulp", bad, SAMPLE, code=(2,))
        ck("--ulp %s refused with a sentence" % bad, "--ulp" in p.stderr and p.stdout == "", p.stderr[:160])
    for good in ["qp:0x11=nvme", "QP:17=x", "port:4420=x", "0x1144=x"]:
        run("--ulp", good, SAMPLE)


def check_qp_either_side(copy, conns):
    """On a capture whose two QPs differ, a rule for either one names the pair."""
    conn = conns[0]
    for side in ("client", "server"):
        qp = conn[side]["qpn"]
        uq = doc("--ulp", "qp:0x%x=nvme" % qp, copy).get("ulp_queues", [])
        ck("qp: the %s's QP 0x%x names the pair" % (side, qp), len(uq) == 1 and uq[0]["told_by"] == "qp"
           and uq[0]["qp_rule"] == qp and uq[0].get("nvme") == conn["nvme"]
           and (uq[0]["host"]["qpn"], uq[0]["target"]["qpn"]) == (conn["client"]["qpn"], conn["server"]["qpn"]),
           json.dumps(uq)[:300])


def main():
    for path in (SAMPLE, DISCOVER, NOCM_SAMPLE):
        if not ck("capture present: " + path, os.path.exists(path)):
            return 1
    t, copy, m, conns = check_capture(SAMPLE, "rxe_nvme_nocm")
    # The committed sample of the golden tests is this very copy.
    ck("samples/rxe_nvme_nocm.pcap is rxe_nvme.pcap without its CM frames",
       pcaprecs.read_pcap(NOCM_SAMPLE)[1] == pcaprecs.read_pcap(copy)[1])
    _, dcopy, _, dconns = check_capture(DISCOVER, "discover_nocm")
    check_qp_either_side(dcopy, dconns)
    check_negatives(t, copy, m, conns)
    check_qp_option(copy, conns)
    print("check_nvme_shape: %d checks, %d failed" % (ck.checks, ck.failures))
    return 1 if ck.failures else 0


if __name__ == "__main__":
    sys.exit(main())
