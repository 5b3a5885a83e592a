"""What the recognition-by-shape tests share (check_nvme_shape,
check_nfsrdma_shape, check_smbd_shape): rocestat run on a capture, its
JSON and its --fields --verdicts rows, and the copies they make of a
capture (without its CM frames: tshark finds the QP 1 frames, editcap
deletes them; or with chosen frames only)."""
import json
import os
import subprocess

import pcaprecs
from testlib import ROCESTAT, tshark_fields


class Shape:
    def __init__(self, ck, tmp):
        self.ck, self.tmp = ck, tmp

    def run(self, *args, code=(0, 1)):
        p = subprocess.run([ROCESTAT, "-n"] + list(args), capture_output=True, text=True)
        self.ck("rocestat %s exits %s" % (" ".join(args[:-1]), code), p.returncode in code, p.stderr[:200])
        return p

    def doc(self, *args):
        return json.loads(self.run("--format", "json", *args).stdout or "{}")

    def fields(self, *args):
        lines = self.run("--fields", "--verdicts", *args).stdout.splitlines()
        head = lines[0].split(",") if lines else []
        return {int(c[0]): dict(zip(head, c)) for c in (ln.split(",") for ln in lines[1:])}

    def without_cm(self, path, name):
        """The capture without its CM frames, and orig frame -> copy frame."""
        cm = [int(r[0]) for r in tshark_fields(path, ["frame.number"], "infiniband.bth.destqp == 1")]
        out = os.path.join(self.tmp, name + ".pcap")
        subprocess.run(["editcap", "-F", "nsecpcap", path, out] + [str(n) for n in cm], check=True,
                       capture_output=True)
        total = len(tshark_fields(path, ["frame.number"]))
        kept = [n for n in range(1, total + 1) if n not in set(cm)]
        self.ck(name + ": CM frames cut", cm and len(tshark_fields(out, ["frame.number"])) == len(kept), str(cm[:8]))
        return out, {o: i + 1 for i, o in enumerate(kept)}

    def cut_frames(self, path, name, keep):
        """A copy of `path` with only the frames in `keep` (1-based)."""
        linktype, recs, _ = pcaprecs.read_pcap(path)
        out = os.path.join(self.tmp, name + ".pcap")
        pcaprecs.write_pcap(out, linktype, [r for i, r in enumerate(recs, 1) if i in keep])
        return out
