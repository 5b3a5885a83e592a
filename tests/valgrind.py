#!/usr/bin/env python3
"""valgrind memcheck over the unit tests, the replayed regression and seed
inputs, and representative rocestat runs (summary, JSON, --fields, --ladder,
--timeline, --plot; the shared captures and the hostile files). Any error,
or any "definitely lost" block, fails the run.

    ROCESTAT=./rocestat TEST_BINS="..." REPLAY_BINS="..." python3 tests/valgrind.py

The runs are independent processes, each writing into a directory of its
own, so they run side by side, one per CPU: a memcheck run is one thread,
and most of one's time is valgrind starting up, not the input.
"""
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(ROOT)
ROCESTAT = os.environ.get("ROCESTAT", "./rocestat")
VG = ["valgrind", "-q", "--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite",
      "--show-leak-kinds=definite", "--track-origins=yes"]
# rocestat leaves its analyzer to the exit to free unless told otherwise
# (cli/summary.c): here every block is freed, so memcheck checks that too.
ENV = dict(os.environ, ROCESTAT_FREE_AT_EXIT="1")
SHARED = "../shared"


def jobs(tmp):
    """(name, exit statuses that pass, argv, extra environment); OUT in argv is the run's own directory."""
    out = []
    for t in os.environ.get("TEST_BINS", "").split():
        # RT_SPARSE: the unit tests' million-value loops take a sample (tests/support/rstest.h).
        out.append((t, (0,), [t], {"CK_FORK": "no", "RT_SPARSE": "101"}))
    captures = sorted(glob.glob(SHARED + "/captures/*.pcap") + glob.glob(SHARED + "/public-captures/*.pcap")
                      + glob.glob("samples/*.pcap"))
    seeds = os.path.join(tmp, "seeds")
    subprocess.run([sys.executable, "tests/fuzz/mkseeds.py", seeds] + captures, check=True,
                   stdout=subprocess.DEVNULL)
    for r in os.environ.get("REPLAY_BINS", "").split():
        t = "fuzz_" + os.path.basename(r).split("replay_", 1)[1]
        # every 8th seed keeps the run short; regression inputs all
        names = sorted(os.listdir(os.path.join(seeds, t))) if os.path.isdir(os.path.join(seeds, t)) else []
        sample = [os.path.join(seeds, t, n) for i, n in enumerate(names) if i % 8 == 0]
        out.append((r, (0,), [r, "tests/regress/" + t, "tests/fuzz/seeds/" + t] + sample, {}))
    for c in captures:
        b = os.path.basename(c)[:-len(".pcap")]
        out.append((b + " summary", (0, 1), [ROCESTAT, "-n", c], {}))
        out.append((b + " json+timeline+plot", (0, 1), [ROCESTAT, "-n", "--format", "json", "-o", "OUT/r.json",
                                                         "--timeline", "OUT/t.csv", "--plot", "OUT/p.svg", c], {}))
        out.append((b + " fields", (0, 1), [ROCESTAT, "-n", "--fields", c], {}))
        out.append((b + " ladder", (0, 1), [ROCESTAT, "-n", "--ladder", c], {}))
    cap = SHARED + "/captures/"
    out.append(("walk", (0, 1), [ROCESTAT, "-n", "--walk", cap + "cm_reject.pcap"], {}))
    # The walk's own analyzer and its verdicts: a go-back-N whose requests were
    # sent before the first frame walked (unpaired flows), and two files.
    out.append(("walk go-back-N", (0, 1), [ROCESTAT, "-n", "--walk", "--frames", "150-450", cap + "loss_write_bw.pcap"], {}))
    out.append(("walk two files", (0, 1), [ROCESTAT, "-n", "--walk", "--frames", "1-300", cap + "ib_read_bw_cm.pcap",
                                           cap + "rc_pingpong.pcap"], {}))
    out.append(("max-flows", (0, 1), [ROCESTAT, "-n", "--max-flows", "2", "--format", "json", cap + "ib_write_bw_cm.pcap",
                                      cap + "rc_pingpong.pcap"], {}))
    out.append(("filter", (0, 1), [ROCESTAT, "-n", "--qp", "0x11", "--frames", "2-50", cap + "rping_s64.pcap", "udp"], {}))
    # The hostile inputs (tests/hostile/run.py writes them with --write-only DIR).
    hostile = os.path.join(tmp, "hostile")
    subprocess.run([sys.executable, "tests/hostile/run.py", "--write-only", hostile], check=True,
                   stdout=subprocess.DEVNULL)
    for h in sorted(glob.glob(hostile + "/*.pcap")):
        b = "hostile " + os.path.basename(h)[:-len(".pcap")]
        out.append((b, (0, 1, 3), [ROCESTAT, "-n", "--format", "json", "--timeline", "OUT/t.csv", h], {}))
        out.append((b + " fields", (0, 1, 3), [ROCESTAT, "-n", "--fields", h], {}))
        out.append((b + " ladder", (0, 1, 3), [ROCESTAT, "-n", "--ladder", "--max-flows", "4", h], {}))
        out.append((b + " walk", (0, 1, 3), [ROCESTAT, "-n", "--walk", h], {}))
    if not captures or not out:
        sys.exit("valgrind: FAIL: nothing to run (no captures in samples/ or %s?)" % SHARED)
    return out


took = {}


def run(job, tmp, i):
    name, ok, argv, extra = job
    d = os.path.join(tmp, "run%d" % i)
    os.mkdir(d)
    argv = [a.replace("OUT/", d + "/") if a.startswith("OUT/") else a for a in argv]
    t0 = time.time()
    with open(os.path.join(d, "out"), "wb") as o, open(os.path.join(d, "err"), "wb") as e:
        rc = subprocess.run(VG + argv, stdout=o, stderr=e, env=dict(ENV, **extra)).returncode
    took[i] = time.time() - t0
    if rc in ok:
        shutil.rmtree(d, ignore_errors=True)
        return None
    with open(os.path.join(d, "err"), errors="replace") as e:
        lines = [l.rstrip("\n") for l in e if re.match(r"==\d+== ", l)][:40]
    return "FAIL valgrind: %s (exit %d; expected %s)\n%s" % (name, rc, " ".join(map(str, ok)), "\n".join(lines))


def main():
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="rocestat-valgrind.")
    try:
        todo = jobs(tmp)
        width = int(os.environ.get("VALGRIND_JOBS", "0")) or os.cpu_count() or 1
        with concurrent.futures.ThreadPoolExecutor(max_workers=width) as pool:
            results = list(pool.map(lambda ij: run(ij[1], tmp, ij[0]), enumerate(todo)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    fails = [r for r in results if r]
    slow = sorted(took, key=took.get, reverse=True)[:5]
    print("valgrind: the slowest runs: " + ", ".join("%s %.0f s" % (todo[i][0], took[i]) for i in slow))
    for f in fails:
        print(f)
    print("valgrind: %d passed, %d failed (%d at a time, %.0f s)" % (len(results) - len(fails), len(fails), width,
                                                                    time.time() - t0))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
