"""The disagreements between rocestat and tests/check_evidence.py that the lead
must decide, and the checker that reports them apart."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from testlib import Checks  # noqa: E402

# Disagreements the lead must decide (the analyzer or its man page changes; this
# script does not): (capture, check kind) -> (failures expected, why). Reported as
# KNOWN, not counted as failures while their number is exactly this.
KNOWN = {
}
STRICT = os.environ.get("EVIDENCE_STRICT") == "1"    # KNOWN counted as failures


def kind_of(name):
    """'FILE frame N resend=timeout resend_wait_ns=W' -> (basename, 'resend=timeout resend_wait_ns')."""
    f, _, rest = name.partition(" ")
    rest = re.sub(r"^(frame \d+|half-flow \S+ > \S+ QP \d+|\S+ \S+ > \S+ QP \S+|connection \S+) ", "", rest)
    words = []
    for w in rest.split(" "):
        k, eq, v = w.partition("=")
        words.append(k + "=" + v if eq and v.replace("_", "").isalpha() and k in ("resend", "outcome", "kind") else k)
    return os.path.basename(f), " ".join(words)


class EvChecks(Checks):
    def __init__(self, prog):
        super().__init__(prog)
        self.known = {}
        self.files = set()     # basenames of the captures run: a known entry of another is not due

    def __call__(self, name, cond, detail=""):
        k = kind_of(name)
        if not cond and k in KNOWN and not STRICT:
            self.checks += 1
            self.known[k] = self.known.get(k, 0) + 1
            print("%s: KNOWN: %s%s (%s)" % (self.prog, name, (": " + detail) if detail else "", KNOWN[k][1]))
            return cond
        return super().__call__(name, cond, detail)

    def settle(self):
        """A known disagreement whose count moved is a failure: the list must be revisited."""
        if STRICT:
            return
        for k, (n, why) in KNOWN.items():
            if k[0] not in self.files:
                continue
            super().__call__("known disagreement %s in %s" % (k[1], k[0]), self.known.get(k, 0) == n,
                             "expected %d, found %d: update KNOWN" % (n, self.known.get(k, 0)))



