"""What the Python test scripts share: where things are, how tshark is run
as the oracle, and the count of checks each script prints at its end."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
ROCESTAT = os.environ.get("ROCESTAT", os.path.join(ROOT, "rocestat"))


def need_shared(prog, exit=True):
    """When ../shared (the data set the differential tests compare on) is
    absent, say so plainly and exit 1 (exit=False: return True instead, for
    a test that checked samples/ first): a test that did not run is not a
    pass. Returns False when ../shared is there."""
    if os.path.isdir(SHARED):
        return False
    print("%s: ../shared is absent (%s): the captures this test needs are there, so it did not run "
          "(all of it); that is a failure, not a pass. CONTRIBUTING.md lists what a clone alone runs."
          % (prog, SHARED))
    if exit:
        sys.exit(1)
    return True

# tshark's heuristic dissectors that claim RDMA payloads (NVMe, SMB Direct,
# iSER, ...) hide the InfiniBand fields the tests compare: turned off with
# --disable-heuristic wherever tshark is the oracle.
HEURISTICS_OFF = ["smcr_infiniband", "smb_direct_infiniband", "rpcrdma_infiniband", "nvme_rdma", "lnet_ib",
                  "iser_infiniband", "eth_over_ib", "mellanox_eoib", "sdp_infiniband", "fc_infiniband"]


def tshark_heuristics_off():
    """The tshark arguments that turn HEURISTICS_OFF off."""
    args = []
    for h in HEURISTICS_OFF:
        args += ["--disable-heuristic", h]
    return args


def tshark_fields(path, fields, display_filter=None, *, occurrence=None, aggregator=None,
                  heuristics_off=True, disable_protocols=(), extra_args=()):
    """tshark -n -r path -T fields -e F... [-Y display_filter]: a row per frame
    (each frame display_filter keeps), each a list of len(fields) strings, ""
    where the frame has no such field. occurrence / aggregator: tshark's -E
    settings ("f", "a", ",", ...; tshark's own defaults when None);
    heuristics_off: tshark_heuristics_off() (False leaves tshark's heuristic
    dissectors on, e.g. for its nvme-rdma decode); disable_protocols: each
    passed as --disable-protocol; extra_args: any other tshark arguments
    (-o preferences, -d decode-as, -2), placed before -Y and -e.

    Raises RuntimeError when tshark cannot be run or exits non-zero (an
    unknown field, a bad filter, an unreadable file): an oracle that
    answered nothing must fail the test, never read as zero frames."""
    cmd = ["tshark", "-n", "-r", path, "-T", "fields", "-E", "separator=\t"]
    if occurrence is not None:
        cmd += ["-E", "occurrence=" + occurrence]
    if aggregator is not None:
        cmd += ["-E", "aggregator=" + aggregator]
    for proto in disable_protocols:
        cmd += ["--disable-protocol", proto]
    if heuristics_off:
        cmd += tshark_heuristics_off()
    cmd += list(extra_args)
    if display_filter:
        cmd += ["-Y", display_filter]
    for f in fields:
        cmd += ["-e", f]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise RuntimeError("tshark could not be run: %s" % e) from e
    if p.returncode != 0:
        raise RuntimeError("tshark exited %d on %s: %s" % (p.returncode, path, p.stderr.strip()[:500]))
    n = len(fields)
    return [(line.split("\t") + [""] * n)[:n] for line in p.stdout.splitlines()]


class Checks:
    """check(name, cond, detail): counts every check, prints each failure as
    "PROG: FAIL: name: detail"; .checks and .failures for the summary."""

    def __init__(self, prog):
        self.prog = prog
        self.checks = 0
        self.failures = 0

    def __call__(self, name, cond, detail=""):
        self.checks += 1
        if not cond:
            self.failures += 1
            print("%s: FAIL: %s%s" % (self.prog, name, (": " + detail) if detail else ""))
        return cond
