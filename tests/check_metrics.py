#!/usr/bin/env python3
"""check_metrics.py — rocestat's metrics, offline and live, against parts that
are not rocestat's.

NEEDS ROOT for the live half (network namespaces, a mount namespace for a
hostile /etc/hosts); without it the script FAILS, it never skips.

Offline (`--format prometheus` / `--format openmetrics`), on every capture in
samples/:
  * promtool check metrics passes on the text format; Prometheus' own Python
    client's strict OpenMetrics parser reads the OpenMetrics output;
  * per QP (source, destination, destination QP) packets and wire bytes,
    NAKs by code, RNR NAKs, CNPs and ECN-CE marks equal tshark's decode; the
    capture's frames too; with --metrics-qps 1 every QP but one adds up in the
    "other" series, and all series together still equal tshark's totals;
  * re-sent request packets equal the responder's duplicate_request counter
    (RXE) where every re-send reached it (loss of ACKs or responses);
  * a host name from /etc/hosts with a quote and a backslash is escaped: both
    parsers read it back whole.
Live (`rocestat -i IF --metrics ADDR:PORT` in a network namespace of its own,
a capture from samples/ replayed into it with tcpreplay):
  * a real Prometheus server (Debian's prometheus), started here, scrapes it;
    its HTTP API's answers equal tshark's decode of the replayed file (packets
    per QP, frames) and the offline metrics of the same file (goodput,
    re-sends by cause, NAKs);
  * what is served passes promtool;
  * hostile requests: POST/PUT get 405, other paths 404, a 60 KB header an
    error, while 24 slow clients hold connections open a GET still answers
    and the capture goes on; an address in use stops rocestat before it
    captures, naming the address; with -Z the server runs as that user.
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import ROCESTAT, ROOT, Checks, tshark_fields  # noqa: E402

try:
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
except ImportError:  # Debian's python3-prometheus-client, under another interpreter
    sys.path.append("/usr/lib/python3/dist-packages")
    from prometheus_client.openmetrics.parser import text_string_to_metric_families

check = Checks("check_metrics")
SAMPLES = sorted(os.path.join(d, f) for d in (os.path.join(ROOT, "samples"), os.path.join(ROOT, "samples", "evidence"),
                                              os.path.join(ROOT, "samples", "impair"))
                 for f in os.listdir(d) if f.endswith(".pcap"))


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def parse_text(text):
    """name{labels} value lines -> {(name, frozenset(labels)): float}."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', line)
        if not m:
            raise ValueError("not a sample line: %r" % line)
        # An empty label value is no label (Prometheus drops it).
        labels = frozenset((k, v) for k, v in re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(3) or "") if v)
        out[(m.group(1), labels)] = float(m.group(4))
    return out


def by_qp(values, name):
    """{(src, dst, qp): value} of one per-QP family, summed over its connections (a replay's QPs come
    again under another); the 'other' series under ('other',)*3."""
    res = {}
    for (n, labels), v in values.items():
        if n == name:
            d = dict(labels)
            res[(d["src"], d["dst"], d["qp"])] = res.get((d["src"], d["dst"], d["qp"]), 0) + v
    return res


def tshark_qps(path):
    """tshark's per (src, dst, 0xQP) packets, wire bytes, NAKs by code, RNR NAKs, CE marks; CNPs and frames."""
    rows = tshark_fields(path, ["ip.src", "ipv6.src", "ip.dst", "ipv6.dst", "infiniband.grh.sgid", "infiniband.grh.dgid",
                                "infiniband.bth.destqp", "frame.len", "infiniband.bth.opcode", "infiniband.aeth.syndrome",
                                "ip.dsfield.ecn"], "infiniband.bth")
    q, cnps = {}, 0
    for s4, s6, d4, d6, sg, dg, qp, ln, op, syn, ecn in rows:
        # RoCE v1: the GRH's GIDs, an IPv4-mapped one written as IPv4 (as rocestat does).
        k = (s4 or s6 or re.sub(r"^::ffff:", "", sg), d4 or d6 or re.sub(r"^::ffff:", "", dg), "0x%x" % int(qp, 0))
        e = q.setdefault(k, {"packets": 0, "bytes": 0, "naks": {}, "rnr": 0, "ce": 0})
        e["packets"] += 1
        e["bytes"] += int(ln)
        if syn:
            s = int(syn, 0)
            if s >> 5 == 3:
                e["naks"][s & 0x1f] = e["naks"].get(s & 0x1f, 0) + 1
            elif s >> 5 == 1:
                e["rnr"] += 1
        if ecn and int(ecn, 0) == 3:
            e["ce"] += 1
        if op and int(op, 0) == 0x81:
            cnps += 1
    frames = len(tshark_fields(path, ["frame.number"]))
    return q, cnps, frames


NAK_KEYS = {0: "psn_sequence_error", 1: "invalid_request", 2: "remote_access_error", 3: "remote_operational_error",
            4: "invalid_rd_request"}


def compare_qps(tag, values, tq, cnps, frames, exact_series=True):
    pk, wb = by_qp(values, "rocestat_qp_packets_total"), by_qp(values, "rocestat_qp_wire_bytes_total")
    if exact_series:
        mine = {k: v for k, v in pk.items() if k != ("other",) * 3 and v}
        want = {k: e["packets"] for k, e in tq.items()}
        check(tag + ": packets per QP as tshark", mine == want, "%r != %r" % (sorted(mine.items())[:4], sorted(want.items())[:4]))
        mine = {k: v for k, v in wb.items() if k != ("other",) * 3 and v}
        check(tag + ": wire bytes per QP as tshark", mine == {k: e["bytes"] for k, e in tq.items()})
        for code, key in NAK_KEYS.items():
            got = {k[:3]: v for k, v in ((kk, vv) for kk, vv in by_qp_labeled(values, "rocestat_qp_naks_total", "code", key).items()) if v}
            want = {k: e["naks"].get(code, 0) for k, e in tq.items() if e["naks"].get(code)}
            check(tag + ": %s NAKs per QP as tshark" % key, got == want, "%r != %r" % (got, want))
        got = {k: v for k, v in by_qp(values, "rocestat_qp_rnr_naks_total").items() if v}
        check(tag + ": RNR NAKs per QP as tshark", got == {k: e["rnr"] for k, e in tq.items() if e["rnr"]}, repr(got))
        got = {k: v for k, v in by_qp(values, "rocestat_qp_ecn_ce_total").items() if v}
        check(tag + ": ECN-CE per QP as tshark", got == {k: e["ce"] for k, e in tq.items() if e["ce"]}, repr(got))
    check(tag + ": packets of all series as tshark's", sum(pk.values()) == sum(e["packets"] for e in tq.values()),
          "%d != %d" % (sum(pk.values()), sum(e["packets"] for e in tq.values())))
    check(tag + ": wire bytes of all series as tshark's", sum(wb.values()) == sum(e["bytes"] for e in tq.values()))
    check(tag + ": CNPs as tshark's", sum(by_qp(values, "rocestat_qp_cnps_total").values()) == cnps)
    check(tag + ": frames as tshark's", values.get(("rocestat_frames_total", frozenset())) == frames,
          "%r != %d" % (values.get(("rocestat_frames_total", frozenset())), frames))


def by_qp_labeled(values, name, lk, lv):
    res = {}
    for (n, labels), v in values.items():
        d = dict(labels)
        if n == name and d.get(lk) == lv:
            res[(d["src"], d["dst"], d["qp"])] = res.get((d["src"], d["dst"], d["qp"]), 0) + v
    return res


def offline(tmp):
    for path in SAMPLES:
        tag = os.path.relpath(path, ROOT)
        p = run([ROCESTAT, "--format", "prometheus", path])
        check(tag + ": --format prometheus exits 0 or 1", p.returncode in (0, 1), p.stderr[:200])
        pc = run(["promtool", "check", "metrics"], input=p.stdout)
        check(tag + ": promtool check metrics", pc.returncode == 0, (pc.stdout + pc.stderr)[:300])
        om = run([ROCESTAT, "--format", "openmetrics", path]).stdout
        try:
            fams = list(text_string_to_metric_families(om))
            check(tag + ": the OpenMetrics parser reads it", bool(fams))
        except Exception as e:  # the parser's own error
            check(tag + ": the OpenMetrics parser reads it", False, str(e)[:200])
        values = parse_text(p.stdout)
        tq, cnps, frames = tshark_qps(path)
        compare_qps(tag, values, tq, cnps, frames, exact_series=len(tq) <= 20)
        if len(tq) > 1:
            v1 = parse_text(run([ROCESTAT, "--format", "prometheus", "--metrics-qps", "1", path]).stdout)
            own = [k for k, v in by_qp(v1, "rocestat_qp_packets_total").items() if k != ("other",) * 3]
            check(tag + ": --metrics-qps 1: one QP series and other", len(own) == 1, repr(own))
            compare_qps(tag + " (--metrics-qps 1)", v1, tq, cnps, frames, exact_series=False)
    # Re-sends where each reached the responder as a duplicate (RXE counts them).
    for name in ("impair/loss_resp_read", "impair/loss_ack_write", "evidence/loss_atomic_resp"):
        path = os.path.join(ROOT, "samples", name + ".pcap")
        truth = json.load(open(os.path.join(ROOT, "samples", name + ".truth.json")))
        dup = truth["rxe_counters"]["server"]["delta"]["duplicate_request"]
        values = parse_text(run([ROCESTAT, "--format", "prometheus", path]).stdout)
        got = sum(v for (n, _), v in values.items() if n == "rocestat_qp_resent_packets_total")
        check(name + ": re-sent packets = the responder's duplicate_request (%d)" % dup, got == dup, "got %r" % got)
    # A hostile host name, escaped.
    hosts = os.path.join(tmp, "hosts")
    evil = 'evil"quote\\back'
    with open(hosts, "w") as f:
        f.write("192.0.2.1 %s\n" % evil)
    sample = os.path.join(ROOT, "samples", "rxe_send.pcap")
    for fmt in ("prometheus", "openmetrics"):
        p = run(["unshare", "-m", "sh", "-c", 'mount --bind "$1" /etc/hosts && exec "$2" --format "$3" "$4"', "sh",
                 hosts, ROCESTAT, fmt, sample])
        check("hostile host name (%s): rocestat ran" % fmt, p.returncode in (0, 1), p.stderr[:200])
        if fmt == "prometheus":
            pc = run(["promtool", "check", "metrics"], input=p.stdout)
            check("hostile host name: promtool reads it", pc.returncode == 0, (pc.stdout + pc.stderr)[:200])
        else:
            try:
                srcs = {s.labels.get("src") for fam in text_string_to_metric_families(p.stdout) for s in fam.samples}
                check("hostile host name: the OpenMetrics parser gives it back whole", evil in srcs, repr(srcs))
            except Exception as e:
                check("hostile host name: the OpenMetrics parser reads it", False, str(e)[:200])


# ---- live ------------------------------------------------------------------

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Netns:
    def __init__(self):
        sfx = str(os.getpid())
        self.tx, self.rx, self.ntx, self.nrx = "mtx" + sfx, "mrx" + sfx, "rs-mtx-" + sfx, "rs-mrx-" + sfx
        for cmd in (["ip", "netns", "add", self.ntx], ["ip", "netns", "add", self.nrx],
                    ["ip", "link", "add", self.tx, "type", "veth", "peer", "name", self.rx],
                    ["ip", "link", "set", self.tx, "netns", self.ntx], ["ip", "link", "set", self.rx, "netns", self.nrx]):
            p = run(cmd)
            if p.returncode:
                raise RuntimeError("%s: %s" % (" ".join(cmd), p.stderr.strip()))
        for ns, dev in ((self.ntx, self.tx), (self.nrx, self.rx)):
            run(["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % dev])
            run(["ip", "netns", "exec", ns, "ip", "link", "set", dev, "mtu", "9000", "up"])
            run(["ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"])

    def rx_cmd(self, args):
        return ["ip", "netns", "exec", self.nrx] + args

    def replay(self, path):
        p = run(["ip", "netns", "exec", self.ntx, "tcpreplay", "-q", "-i", self.tx, path])
        if p.returncode:
            raise RuntimeError("tcpreplay: " + p.stderr.strip())

    def close(self):
        run(["ip", "netns", "del", self.ntx])
        run(["ip", "netns", "del", self.nrx])


def rx_http(ns, url, method="GET", headers=None, timeout=5):
    """curl inside the receiving namespace: (status, body)."""
    args = ["curl", "-s", "-m", str(timeout), "-X", method, "-o", "-", "-w", "\n%{http_code}"]
    for k, v in (headers or {}).items():
        args += ["-H", "%s: %s" % (k, v)]
    p = run(ns.rx_cmd(args + [url]))
    body, _, code = p.stdout.rpartition("\n")
    return (int(code) if code.isdigit() else 0), body


def wait_for(pred, seconds):
    end = time.time() + seconds
    while time.time() < end:
        r = pred()
        if r:
            return r
        time.sleep(0.25)
    return None


def prom_query(ns, port, q):
    code, body = rx_http(ns, "http://127.0.0.1:%d/api/v1/query?query=%s" % (port, urllib.parse.quote(q)))
    if code != 200:
        return None
    d = json.loads(body)
    return d["data"]["result"] if d.get("status") == "success" else None


def live(tmp):
    sample = os.path.join(ROOT, "samples", "impair", "loss_req_write.pcap")
    ns = Netns()
    procs = []
    try:
        mport, pport = free_port(), free_port()
        err = open(os.path.join(tmp, "rocestat.err"), "w+")
        rs = subprocess.Popen(ns.rx_cmd([ROCESTAT, "-i", ns.rx, "--metrics", "127.0.0.1:%d" % mport,
                                         "--refresh", "0.5", "-Z", "nobody"]),
                              stdout=subprocess.DEVNULL, stderr=err)
        procs.append(rs)
        up = wait_for(lambda: "capturing on" in open(err.name).read(), 10)
        check("live: rocestat -i --metrics starts", bool(up), open(err.name).read()[:300])
        code, _ = rx_http(ns, "http://127.0.0.1:%d/metrics" % mport)
        check("live: /metrics answers 200", code == 200, "HTTP %d" % code)
        uid = [line for line in open("/proc/%d/status" % rs.pid) if line.startswith("Uid:")] if rs.poll() is None else []
        # rs.pid is `ip netns exec`, which execs rocestat: the same process.
        check("live: -Z nobody: the server's process runs as nobody",
              uid and uid[0].split()[1] == str(int(run(["id", "-u", "nobody"]).stdout)), repr(uid))
        # A second one on the same address: stopped before capturing, saying why.
        p = run(ns.rx_cmd([ROCESTAT, "-i", ns.rx, "--metrics", "127.0.0.1:%d" % mport]), timeout=20)
        check("live: an address in use is an error at start", p.returncode == 2 and "in use" in p.stderr and
              "capturing on" not in p.stderr, "exit %d: %s" % (p.returncode, p.stderr[:200]))
        # Prometheus, in the same namespace.
        cfg = os.path.join(tmp, "prometheus.yml")
        with open(cfg, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n"
                    "  - job_name: rocestat\n    static_configs:\n      - targets: ['127.0.0.1:%d']\n" % mport)
        data = os.path.join(tmp, "prom-data")
        os.makedirs(data)
        shutil.chown(data, "nobody")
        perr = open(os.path.join(tmp, "prometheus.err"), "w")
        prom = subprocess.Popen(ns.rx_cmd(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                           "prometheus", "--config.file", cfg, "--storage.tsdb.path", data,
                                           "--web.listen-address", "127.0.0.1:%d" % pport]),
                                stdout=subprocess.DEVNULL, stderr=perr)
        procs.append(prom)
        ready = wait_for(lambda: rx_http(ns, "http://127.0.0.1:%d/-/ready" % pport)[0] == 200, 30)
        check("live: Prometheus started", bool(ready), open(perr.name).read()[-300:])
        tq, cnps, frames = tshark_qps(sample)
        ns.replay(sample)
        got = wait_for(lambda: (lambda r: r and float(r[0]["value"][1]) >= frames and r)(
            prom_query(ns, pport, "rocestat_frames_total")), 20)
        check("live: Prometheus scraped every replayed frame (%d)" % frames, bool(got), repr(got))
        time.sleep(1.5)  # one more scrape after the last tick
        res = prom_query(ns, pport, "rocestat_qp_packets_total") or []
        mine = {}
        for r in res:
            k = (r["metric"]["src"], r["metric"]["dst"], r["metric"]["qp"])
            mine[k] = mine.get(k, 0) + float(r["value"][1])
        mine = {k: v for k, v in mine.items() if k != ("other",) * 3 and v}
        check("live: Prometheus' per-QP packets equal tshark's", mine == {k: e["packets"] for k, e in tq.items()},
              "%r" % sorted(mine.items()))
        off = parse_text(run([ROCESTAT, "--format", "prometheus", sample]).stdout)
        for fam in ("rocestat_qp_goodput_bytes_total", "rocestat_qp_resent_packets_total", "rocestat_qp_naks_total",
                    "rocestat_qp_messages_total"):
            res = prom_query(ns, pport, fam) or []
            live_v = {frozenset((k, v) for k, v in r["metric"].items() if k not in ("__name__", "job", "instance")):
                      float(r["value"][1]) for r in res}
            off_v = {labels: v for (n, labels), v in off.items() if n == fam}
            check("live: Prometheus' %s equal the offline analysis of the file" % fam, live_v == off_v,
                  "%r vs %r" % (sorted(live_v.items())[:3], sorted(off_v.items())[:3]))
        rate = prom_query(ns, pport, 'sum by (src, dst, qp, cause) (rate(rocestat_qp_resent_packets_total[5s])) > 0')
        check("live: a per-QP re-send rate query answers", rate is not None, repr(rate))
        with open(os.path.join(tmp, "query.json"), "w") as f:
            json.dump(prom_query(ns, pport, "rocestat_qp_resent_packets_total > 0"), f)
        code, body = rx_http(ns, "http://127.0.0.1:%d/metrics" % mport)
        pc = run(["promtool", "check", "metrics"], input=body)
        check("live: what is served passes promtool", code == 200 and pc.returncode == 0, (pc.stdout + pc.stderr)[:300])
        code, body = rx_http(ns, "http://127.0.0.1:%d/metrics" % mport,
                             headers={"Accept": "application/openmetrics-text; version=1.0.0"})
        try:
            ok = code == 200 and bool(list(text_string_to_metric_families(body)))
        except Exception as e:
            ok = False
            body = str(e)
        check("live: OpenMetrics when asked for, read by its parser", ok, body[:200])
        # Hostile requests.
        for method in ("POST", "PUT", "DELETE"):
            code, _ = rx_http(ns, "http://127.0.0.1:%d/metrics" % mport, method=method)
            check("live: %s gets 405" % method, code == 405, "HTTP %d" % code)
        for path in ("/../../etc/passwd", "/metrics/../../etc/passwd", "/%2e%2e/etc/passwd", "/metricsx"):
            code, body = rx_http(ns, "http://127.0.0.1:%d%s" % (mport, path))
            check("live: %s gets 404" % path, code == 404 and "root:" not in body, "HTTP %d" % code)
        code, _ = rx_http(ns, "http://127.0.0.1:%d/metrics" % mport, headers={"X-Big": "a" * 60000})
        check("live: a 60 KB header gets an error", code in (400, 413, 431) or code == 0, "HTTP %d" % code)
        # Slow clients hold connections; a scrape and the capture go on.
        slow = subprocess.Popen(ns.rx_cmd([sys.executable, "-c", SLOWLORIS, str(mport), "24", "6"]))
        procs.append(slow)
        time.sleep(1)
        t0 = time.time()
        code, _ = rx_http(ns, "http://127.0.0.1:%d/metrics" % mport, timeout=4)
        check("live: a scrape answers while 24 slow clients hold connections", code == 200 and time.time() - t0 < 3,
              "HTTP %d after %.1f s" % (code, time.time() - t0))
        ns.replay(sample)
        got = wait_for(lambda: (lambda r: r and float(r[0]["value"][1]) >= 2 * frames and r)(
            prom_query(ns, pport, "rocestat_frames_total")), 20)
        check("live: the capture went on under slow clients (second replay counted)", bool(got), repr(got))
        slow.wait(timeout=30)
        rs.send_signal(2)
        rs.wait(timeout=20)
        check("live: rocestat ends on SIGINT", rs.returncode in (0, 1), "exit %r" % rs.returncode)
        err.seek(0)
        text = err.read()
        check("live: no frame dropped by the kernel", "0 frames dropped by kernel" in text, text[-300:])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        ns.close()


# Connections that send a request's start and then a byte a second, never ending it.
SLOWLORIS = r"""
import socket, sys, time
port, n, secs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
socks = []
for _ in range(n):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        socks.append(s)
    except OSError:
        pass
for _ in range(secs):
    for s in socks:
        try:
            s.sendall(b"X")
        except OSError:
            pass
    time.sleep(1)
"""


def main():
    if os.geteuid() != 0:
        print("check_metrics: FAIL: needs root (network and mount namespaces); CI runs as root")
        return 1
    for tool in ("promtool", "prometheus", "tshark", "tcpreplay", "curl", "ip", "unshare", "setpriv"):
        if not shutil.which(tool):
            print("check_metrics: FAIL: %s is not installed (sh scripts/deps.sh test)" % tool)
            return 1
    tmp = tempfile.mkdtemp(prefix="check_metrics.")
    os.chmod(tmp, 0o755)
    try:
        offline(tmp)
        live(tmp)
        q = os.path.join(tmp, "query.json")
        if os.path.exists(q):
            print("check_metrics: Prometheus answered rocestat_qp_resent_packets_total > 0 with:", open(q).read()[:600])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("check_metrics: %d checks, %d failed" % (check.checks, check.failures))
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
