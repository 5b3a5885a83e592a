#!/usr/bin/env python3
"""Interrupted runs and inputs from pipes.

  - SIGKILL while the --timeline CSV is being streamed and before -o/--plot
    are written: nothing exists under the final names (only NAME.XXXXXX
    temporaries may be left);
  - SIGKILL while a large -o JSON report is being written: the same;
  - SIGINT while rocestat waits on a pipe: the reports of what was read are
    complete and valid, exit status 0, and no temporary file is left;
  - a capture truncated mid-record arriving through a pipe: the message has
    no file offset (a pipe has none) and the status is 3.

    ROCESTAT=./rocestat python3 tests/hostile/interrupt.py [-v]
"""
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from tally import Tally  # noqa: E402
import bigflows_gen  # noqa: E402

ROCESTAT = os.environ.get('ROCESTAT', './rocestat')
TALLY = Tally('interrupt')


check = TALLY.check


STREAM = gen.pcap(gen.rc_write_stream(50, 2, mtu=256))  # 150 frames


class PipeWriter(threading.Thread):
    """Writes `data` into the FIFO, then keeps it open until told to stop."""

    def __init__(self, path, data):
        super().__init__(daemon=True)
        self.path, self.data = path, data
        self.written = threading.Event()
        self.release = threading.Event()

    def run(self):
        try:
            with open(self.path, 'wb') as f:
                f.write(self.data)
                f.flush()
                self.written.set()
                self.release.wait(60)
        except BrokenPipeError:
            self.written.set()


def wait_for(pattern, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        hits = glob.glob(pattern)
        if hits:
            return hits
        time.sleep(0.005)
    return []


def outputs(tmp):
    return {n: os.path.join(tmp, n) for n in ('report.json', 'timeline.csv', 'plot.svg')}


def start(args, tmp):
    o = outputs(tmp)
    cmd = [ROCESTAT, '-n', '--format', 'json', '-o', o['report.json'], '--timeline', o['timeline.csv'],
           '--plot', o['plot.svg']] + args
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True), o


def start_on_fifo(tmp, name):
    """rocestat reading STREAM from a FIFO, started once the first frames are
    written: (fifo, writer, process, outputs)."""
    fifo = os.path.join(tmp, name)
    os.mkfifo(fifo)
    w = PipeWriter(fifo, STREAM)
    w.start()
    p, o = start([fifo], tmp)
    w.written.wait(30)
    return fifo, w, p, o


def sigkill_mid_read(tmp):
    case = 'sigkill_while_reading'
    fifo, w, p, o = start_on_fifo(tmp, 'in.fifo')
    # The timeline is being streamed under its temporary name.
    check(case, 'timeline temporary exists', bool(wait_for(o['timeline.csv'] + '.??????')), True)
    time.sleep(0.2)
    p.kill()
    p.wait()
    w.release.set()
    check(case, 'exit by SIGKILL', p.returncode, -signal.SIGKILL)
    check(case, 'no file under a final name', [n for n, path in o.items() if os.path.exists(path)], [])
    for t in glob.glob(os.path.join(tmp, '*.??????')):
        os.unlink(t)
    os.unlink(fifo)


def sigkill_mid_report(tmp):
    case = 'sigkill_while_writing_json'
    src = os.path.join(tmp, 'many.pcap')
    bigflows_gen.write(src, 150000)  # 150k flows: a JSON report of ~100 MB
    out = os.path.join(tmp, 'big.json')
    p = subprocess.Popen([ROCESTAT, '-n', '--format', 'json', '-o', out, src],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Wait until the report is being written (its temporary exists and grows).
    tmps = []
    end = time.time() + 120
    while time.time() < end and p.poll() is None:
        tmps = glob.glob(out + '.??????')
        if tmps and os.path.getsize(tmps[0]) > 0:
            break
        time.sleep(0.002)
    killed_mid_write = p.poll() is None and bool(tmps)
    p.kill()
    p.wait()
    check(case, 'killed while the report was being written', killed_mid_write, True)
    check(case, 'no file under the final name', os.path.exists(out), False)
    left = glob.glob(out + '.??????')
    check(case, 'only the temporary is left, partly written', len(left) == 1 and os.path.getsize(left[0]) > 0, True)
    for t in left:
        os.unlink(t)
    os.unlink(src)


def sigint_mid_read(tmp):
    case = 'sigint_while_reading'
    fifo, w, p, o = start_on_fifo(tmp, 'in2.fifo')
    wait_for(o['timeline.csv'] + '.??????')
    time.sleep(0.3)  # every frame written so far has been read
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    w.release.set()
    check(case, 'exit status', p.returncode, 0)
    check(case, 'stderr', err, 'rocestat: interrupted; reporting what was read\n')
    check(case, 'all three outputs exist', [os.path.exists(o[n]) for n in sorted(o)], [True, True, True])
    try:
        js = json.load(open(o['report.json']))
        check(case, 'JSON report complete', (js['capture']['frames'], js['capture']['files'][0]['error']),
              (150, None))
    except ValueError as e:
        check(case, 'JSON report parses', str(e), None)
    tl = open(o['timeline.csv']).read()
    check(case, 'timeline complete', (tl.startswith('interval_start,'), tl.endswith('\n'),
                                      len(tl.splitlines()) > 1), (True, True, True))
    svg = open(o['plot.svg']).read()
    check(case, 'plot complete', svg.rstrip().endswith('</svg>'), True)
    check(case, 'no temporary left', glob.glob(os.path.join(tmp, '*.??????')), [])
    os.unlink(fifo)


def truncated_pipe(tmp):
    case = 'truncated_through_pipe'
    fifo = os.path.join(tmp, 'in3.fifo')
    os.mkfifo(fifo)
    w = PipeWriter(fifo, STREAM[:-30])
    w.release.set()  # close the pipe once written: end of input mid-record
    w.start()
    p = subprocess.run([ROCESTAT, '-n', '--format', 'json', fifo], capture_output=True, text=True, timeout=60,
                       input=None)
    w.release.set()
    check(case, 'exit status', p.returncode, 3)
    check(case, 'stderr', p.stderr,
          'rocestat: %s: frame 150: truncated dump file; tried to read 62 captured bytes, only got 32; '
          'the frames before it were analysed\n' % fifo)
    check(case, 'frames before it', json.loads(p.stdout)['capture']['frames'], 149)


def main():
    with tempfile.TemporaryDirectory(prefix='rocestat-interrupt.') as tmp:
        sigkill_mid_read(tmp)
        sigint_mid_read(tmp)
        truncated_pipe(tmp)
        sigkill_mid_report(tmp)
    return TALLY.finish()


if __name__ == '__main__':
    sys.exit(main())
