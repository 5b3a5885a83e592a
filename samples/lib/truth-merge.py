#!/usr/bin/env python3
"""Join the two sides' rocegen truth files into one NAME.truth.json.

Each side only knows what it did; the merged file puts both sides' work
requests, receives and completions in one place (each entry keeps its
"side") and states the connection outcome that only both views together
show (who sent the DREQ, what the REJ carried, what SIDR answered).
The format is described in samples/README.md.
"""
import argparse
import json
import math
import os
import re
import struct
import sys

# IBTA CM REJ reason codes that RDMA CM produces in practice.
REJ_REASONS = {
    1: "no QP", 8: "invalid service ID", 28: "consumer defined",
    22: "timeout",
}


def outcome(scenario, srv, cli):
    s, c = srv["cm"], cli["cm"]
    if c["rejected"]:
        data = bytes.fromhex(c.get("reject_private_data", ""))
        body = data.rstrip(b"\0")
        return {
            "outcome": "rejected",
            "reject": {
                "reason": c["reject_reason"],
                "reason_name": REJ_REASONS.get(c["reject_reason"], "other"),
                # what the server passed to rdma_reject(); the REJ carries it
                # zero-padded to private_data_len bytes
                "private_data": body.hex(),
                "private_data_text": body.rstrip(b"\0").decode("ascii", "replace"),
                "private_data_len": len(data),
            },
        }
    if scenario == "ud":
        return {"outcome": "sidr", "sidr": c.get("sidr")}
    if not c["established"]:
        return {"outcome": "failed"}
    out = {"outcome": "established", "disconnect_initiator": None}
    if s.get("sent_dreq") and c.get("sent_dreq"):
        # each side called rdma_disconnect before it had heard the other's
        # DREQ (disconnect-both): the two DREQs crossed
        out = {"outcome": "disconnected", "disconnect_initiator": "both"}
    elif s.get("sent_dreq"):
        out = {"outcome": "disconnected", "disconnect_initiator": "server"}
    elif c.get("sent_dreq"):
        out["disconnect_initiator"] = "client"
    return out


def rdma_statistic(path):
    """`rdma statistic show link rxe0/1` ("link rxe0/1 name value name
    value ...", possibly wrapped) as {name: value}; None if absent."""
    if not os.path.exists(path):
        return None
    words = open(path).read().split()
    if words[:1] == ["link"]:
        words = words[2:]
    out = {}
    for name, value in zip(words[0::2], words[1::2]):
        if value.isdigit():
            out[name] = int(value)
    return out


def qdisc_stats(path):
    """The root qdisc from `tc -s qdisc show dev eth0`: its kind, options
    and Sent/dropped counters; None if absent."""
    if not os.path.exists(path):
        return None
    text = open(path).read()
    m = re.search(r"qdisc (\S+) \S+ root (.*)\n\s*Sent (\d+) bytes (\d+) pkt \(dropped (\d+), "
                  r"overlimits (\d+) requeues (\d+)\)", text)
    if not m:
        return {"raw": text.strip()}
    return {"kind": m.group(1), "options": m.group(2).strip(), "sent_bytes": int(m.group(3)),
            "sent_pkts": int(m.group(4)), "dropped": int(m.group(5)), "requeues": int(m.group(7)),
            "raw": text.strip()}


def counters(directory):
    """One guest's RXE counters before and after the scenario, and the
    root qdisc's statistics after it (the netem one, if any)."""
    if not directory:
        return None
    before = rdma_statistic(os.path.join(directory, "counters.before.txt"))
    after = rdma_statistic(os.path.join(directory, "counters.after.txt"))
    if after is None:
        return None
    out = {"before": before, "after": after}
    if before is not None:
        out["delta"] = {k: v - before.get(k, 0) for k, v in after.items()}
    out["qdisc_after"] = qdisc_stats(os.path.join(directory, "qdisc.after.txt"))
    return out


def pcap_span(path):
    """Seconds from the first frame of a classic pcap to one second after
    its last, rounded up: the shift that puts a copy after the original."""
    with open(path, "rb") as f:
        hdr = f.read(24)
        magic = struct.unpack("<I", hdr[:4])[0]
        end = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
        nano = struct.unpack(end + "I", hdr[:4])[0] == 0xa1b23c4d
        first = last = None
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                break
            sec, frac, incl, _ = struct.unpack(end + "IIII", rec)
            t = sec + frac / (1e9 if nano else 1e6)
            first = t if first is None else first
            last = t
            f.seek(incl, 1)
    return math.ceil((last - first) + 1) if first is not None else 1


def replay(a):
    """Two runs' merged truths as one list, in capture order."""
    runs = []
    for i, path in enumerate(a.runs):
        with open(path) as f:
            t = json.load(f)
        t["name"] = a.name
        t["replay"] = {"mode": a.replay, "run": i + 1, "of": len(a.runs)}
        runs.append(t)
    json.dump(runs, sys.stdout, indent=1)
    sys.stdout.write("\n")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--pcap-span":
        print(pcap_span(sys.argv[2]))
        return
    if "--replay" in sys.argv:
        ap = argparse.ArgumentParser()
        ap.add_argument("--replay", required=True)
        ap.add_argument("--name", required=True)
        ap.add_argument("runs", nargs="+")
        replay(ap.parse_args())
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", required=True)
    ap.add_argument("--kernel", default="")
    ap.add_argument("--capture", default="")
    ap.add_argument("--netem-server", default="")
    ap.add_argument("--netem-client", default="")
    ap.add_argument("--counters-server", default="")
    ap.add_argument("--counters-client", default="")
    ap.add_argument("server")
    ap.add_argument("client")
    ap.add_argument("--note", action="append", default=[],
                    help="a remark on the sample's ground truth (notes, side \"sample\")")
    a = ap.parse_args()
    with open(a.server) as f:
        srv = json.load(f)
    with open(a.client) as f:
        cli = json.load(f)
    if "connections" in srv or "connections" in cli:
        merged = merge_multi(a, srv, cli)
    else:
        merged = merge_pair(a, srv, cli)
    merged["notes"] += [{"side": "sample", "text": t} for t in a.note]
    json.dump(merged, sys.stdout, indent=1)
    sys.stdout.write("\n")


def merge_multi(a, srv, cli):
    """rocegen --qps N: each side's file holds N connections' truths, in
    port order. The result is the first connection's merged truth with
    the per-connection parts (server, client, cm and the lists) replaced:
    "connections" holds every connection's, and each list item at the top
    also says which connection (index) it belongs to."""
    pairs = list(zip(srv["connections"], cli["connections"]))
    if len(srv["connections"]) != len(cli["connections"]) or None in sum(pairs, ()):
        sys.exit("truth-merge: the two sides' connections do not pair up")
    conns = [merge_pair(a, s, c) for s, c in pairs]
    top = dict(conns[0])
    top["qps"] = len(conns)
    top["ok"] = bool(srv["ok"] and cli["ok"] and all(m["ok"] for m in conns))
    top["params"] = dict(top["params"], port=[m["params"]["port"] for m in conns])
    for key in ("server", "client"):
        top[key] = None     # see connections[i]
    outcomes = {json.dumps(m["cm"], sort_keys=True) for m in conns}
    top["cm"] = conns[0]["cm"] if len(outcomes) == 1 else {"outcome": "per connection"}
    common = ("format", "name", "scenario", "generator", "netem", "rxe_counters")
    top["connections"] = []
    for i, m in enumerate(conns):
        one = {k: v for k, v in m.items() if k not in common}
        one["connection"] = i
        top["connections"].append(one)
    for key in LISTS:
        top[key] = [dict(item, connection=i) for i, m in enumerate(conns) for item in m[key]]
    return top


LISTS = ("cm_events", "work_requests", "receives", "completions", "notes")


def merge_pair(a, srv, cli):
    if srv["scenario"] != cli["scenario"] or srv["params"] != cli["params"]:
        sys.exit("truth-merge: the two sides ran different scenarios or options")

    params = dict(cli["params"])
    cself = cli.get("self") or {}
    sself = srv.get("self") or {}
    params["path_mtu"] = cself.get("path_mtu") or cself.get("port_active_mtu")
    merged = {
        "format": "rocegen-truth/1",
        "name": a.name,
        "scenario": cli["scenario"],
        "params": params,
        "generator": {"tool": "rocegen", "guest_kernel": a.kernel,
                      "capture": a.capture},
        "ok": bool(srv["ok"] and cli["ok"]),
        "server": dict(sself, cm=srv["cm"]),
        "client": dict(cself, cm=cli["cm"]),
        "cm": outcome(cli["scenario"], srv, cli),
        # what each guest's netem did to what that guest sent (null: none)
        "netem": {"server": a.netem_server or None, "client": a.netem_client or None},
        "rxe_counters": {"server": counters(a.counters_server),
                         "client": counters(a.counters_client)},
    }
    for key in LISTS:
        items = []
        for side, src in (("server", srv), ("client", cli)):
            for item in src[key]:
                if isinstance(item, dict):
                    item.setdefault("side", side)
                    items.append(item)
                else:
                    items.append({"side": side, "text": item})
        merged[key] = items
    return merged


if __name__ == "__main__":
    main()
