"""What the Python test scripts share: where things are, how tshark is run
as the oracle, and the count of checks each script prints at its end."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
ROCESTAT = os.environ.get("ROCESTAT", os.path.join(ROOT, "rocestat"))

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
