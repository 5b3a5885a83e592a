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
    if s.get("sent_dreq"):
        out = {"outcome": "disconnected", "disconnect_initiator": "server"}
    elif c.get("sent_dreq"):
        out["disconnect_initiator"] = "client"
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", required=True)
    ap.add_argument("--kernel", default="")
    ap.add_argument("--capture", default="")
    ap.add_argument("server")
    ap.add_argument("client")
    a = ap.parse_args()
    with open(a.server) as f:
        srv = json.load(f)
    with open(a.client) as f:
        cli = json.load(f)
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
    }
    for key in ("cm_events", "work_requests", "receives", "completions", "notes"):
        items = []
        for side, src in (("server", srv), ("client", cli)):
            for item in src[key]:
                if isinstance(item, dict):
                    item.setdefault("side", side)
                    items.append(item)
                else:
                    items.append({"side": side, "text": item})
        merged[key] = items
    json.dump(merged, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
