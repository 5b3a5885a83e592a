"""tally.py — the pass/fail bookkeeping shared by the hostile-input scripts.

A check compares what rocestat did with what the case requires; a failure
prints both and names the case, and the script's exit status comes from the
tally, so a case can never pass by saying nothing.
"""
import sys


class Tally:
    def __init__(self, name):
        self.name = name
        self.verbose = '-v' in sys.argv
        self.passes = 0
        self.fails = []

    def check(self, case, what, got, want):
        if got == want:
            self.passes += 1
            if self.verbose:
                print('  ok   %s: %s' % (case, what))
            return True
        self.fails.append(case)
        print('FAIL %s: %s\n  want: %r\n  got:  %r' % (case, what, want, got))
        return False

    def finish(self):
        print('%s: %d passed, %d failed' % (self.name, self.passes, len(self.fails)))
        return 1 if self.fails else 0
