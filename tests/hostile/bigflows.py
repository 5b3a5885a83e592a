#!/usr/bin/env python3
"""make check-big: 10 million distinct QPNs through --max-flows 100000.

Writes a ~600 MB capture (raw IPv4, one RC SEND Only per QPN) into a
temporary directory, then runs rocestat on its first million frames and on
all ten million, and asserts
  - the exit status is 1 (evictions are anomalies) and stderr is empty;
  - the JSON keeps at most --max-flows half-flows and reports the rest in
    half_flows_evicted and in a flows_evicted anomaly with the same count;
  - memory is bounded: peak RSS under BIG_RSS_MB (default 1500) and the
    ten-million run within 25% of the one-million run (the cap is reached
    after 100k frames, so more frames must not mean more memory);
  - time stays linear: the full run within BIG_SECONDS (default 300); before
    the eviction fix in analyzer/ it was quadratic (about 500 s here).

    ROCESTAT=./rocestat python3 tests/hostile/bigflows.py [N]
"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bigflows_gen  # noqa: E402

ROCESTAT = os.environ.get('ROCESTAT', './rocestat')
N = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
CAP = 100_000
RSS_MB = int(os.environ.get('BIG_RSS_MB', '1500'))
SECONDS = float(os.environ.get('BIG_SECONDS', '300'))
fails = passes = 0


def check(what, got, want):
    global fails, passes
    if got == want:
        passes += 1
        print('  ok   %s: %r' % (what, got))
    else:
        fails += 1
        print('FAIL %s\n  want: %r\n  got:  %r' % (what, want, got))


def run(path, frames):
    """Run rocestat in a child that reports its own peak RSS (getrusage)."""
    args = [ROCESTAT, '-n', '--format', 'json', '--max-flows', str(CAP), path]
    if frames < N:
        args[1:1] = ['--frames', '1-%d' % frames]
    t0 = time.time()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    p = subprocess.run(args, capture_output=True, text=True)
    secs = time.time() - t0
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if rss_mb < before / 1024:
        rss_mb = before / 1024
    print('check-big: %d frames: exit %d, %.1f s, peak RSS %.0f MB' % (frames, p.returncode, secs, rss_mb))
    return p, secs, rss_mb


def main():
    with tempfile.TemporaryDirectory(prefix='rocestat-big.') as tmp:
        path = os.path.join(tmp, 'qpns.pcap')
        t0 = time.time()
        bigflows_gen.write(path, N)
        print('check-big: wrote %d frames (%d MB) in %.0f s' % (N, os.path.getsize(path) >> 20, time.time() - t0))
        small = min(N, 1_000_000)
        p1, _, rss1 = run(path, small)
        p, secs, rss = run(path, N)
        for label, proc, frames in (('1M', p1, small), ('all', p, N)):
            check('%s: exit status' % label, proc.returncode, 1)
            check('%s: stderr' % label, proc.stderr, '')
            js = json.loads(proc.stdout)
            c = js['capture']
            ev = [a['count'] for a in js['anomalies'] if a['type'] == 'flows_evicted']
            check('%s: frames' % label, c['frames'], frames)
            check('%s: half-flows kept <= cap' % label, c['half_flows'] <= CAP, True)
            check('%s: kept + evicted = distinct QPNs' % label, c['half_flows'] + c['half_flows_evicted'], frames)
            check('%s: evictions reported as an anomaly' % label, ev, [c['half_flows_evicted']])
        # The peak RSS of the second child is the larger of the two.
        check('peak RSS under %d MB' % RSS_MB, rss < RSS_MB, True)
        check('10x the frames, < 1.25x the memory', rss < 1.25 * rss1, True)
        check('full run under %.0f s' % SECONDS, secs < SECONDS, True)
    print('check-big: %d passed, %d failed' % (passes, fails))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
