#!/usr/bin/env python3
"""Timestamps past 2038: the classic pcap record's seconds are unsigned
32-bit (until 2106-02-07), pcapng's 64-bit. Files in both byte orders, with
micro- and nanosecond fractions, seconds on both sides of 2^31 and near
2^32, and a pcapng file past 2^32 s: every frame's time as rocestat reads
it (--fields) against tshark's frame.time_epoch; what -w writes against
the input record by record (the same bytes where the input is a
nanosecond pcap in the host's order, the same times and frame bytes where
rocestat must convert), and -w pcapng and --annotate read back by tshark.

    ROCESTAT=./rocestat python3 tests/hostile/time2038.py [-v]
"""
import os
import struct
import subprocess
import sys
import tempfile
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from tally import Tally  # noqa: E402

ROCESTAT = os.path.abspath(os.environ.get('ROCESTAT', './rocestat'))
TALLY = Tally('hostile time2038')
check = TALLY.check
FRAMES = gen.rc_write_stream(3, 2, mtu=256)  # 9 frames
# (seconds, fraction in nanoseconds): across 2^31 and up to 2^32 - 1.
TIMES = [(2**31 - 3, 500000000), (2**31 - 1, 999999000), (2**31, 0), (2**31, 500000000), (2**31 + 2, 123456000),
         (2**32 - 3, 0), (2**32 - 2, 250000000), (2**32 - 1, 0), (2**32 - 1, 999999000)]


def pcap_file(order, nano, times):
    magic = 0xa1b23c4d if nano else 0xa1b2c3d4
    out = [struct.pack(order + 'IHHiIII', magic, 2, 4, 0, 0, 262144, 1)]
    for f, (sec, ns) in zip(FRAMES, times):
        out.append(struct.pack(order + 'IIII', sec, ns if nano else ns // 1000, len(f), len(f)) + f)
    return b''.join(out)


def pcapng_file(times_ns):
    """pcapng, nanosecond resolution (if_tsresol 9): 64-bit times."""
    opts = struct.pack('<HHB3x', 9, 1, 9) + struct.pack('<HH', 0, 0)
    out = [gen.pcapng_block(0x0A0D0D0A, struct.pack('<IHHq', 0x1A2B3C4D, 1, 0, -1)),
           gen.pcapng_block(1, struct.pack('<HHI', 1, 0, 262144) + opts)]
    for f, t in zip(FRAMES, times_ns):
        out.append(gen.pcapng_block(6, struct.pack('<IIIII', 0, t >> 32, t & 0xFFFFFFFF, len(f), len(f)) + f))
    return b''.join(out)


def records(blob):
    """A pcap file's records: (seconds, nanoseconds, raw 16-byte header, frame bytes)."""
    magic_le = struct.unpack('<I', blob[:4])[0]
    order = '<' if magic_le in (0xa1b2c3d4, 0xa1b23c4d) else '>'
    magic = struct.unpack(order + 'I', blob[:4])[0]
    scale = 1 if magic == 0xa1b23c4d else 1000
    out, off = [], 24
    while off + 16 <= len(blob):
        sec, frac, cap, _ = struct.unpack(order + 'IIII', blob[off:off + 16])
        out.append((sec, frac * scale, blob[off:off + 16], blob[off + 16:off + 16 + cap]))
        off += 16 + cap
    return out


def tshark_times(path):
    p = subprocess.run(['tshark', '-n', '-r', path, '-T', 'fields', '-e', 'frame.time_epoch'],
                       capture_output=True, text=True)
    return [Decimal(x) for x in p.stdout.split()]


def rocestat(args):
    return subprocess.run([ROCESTAT, '-n', '--color', 'never'] + args, capture_output=True, text=True)


def rocestat_times(path):
    p = rocestat(['--fields', '-e', 'time', path])
    return [Decimal(x) for x in p.stdout.split()[1:]], p.returncode


def case_pcap(tmp, order, nano):
    name = 'pcap_%s_%s' % ('le' if order == '<' else 'be', 'ns' if nano else 'us')
    path = os.path.join(tmp, name + '.pcap')
    blob = pcap_file(order, nano, TIMES)
    with open(path, 'wb') as f:
        f.write(blob)
    want = tshark_times(path)
    spec = [Decimal(s) + Decimal(ns if nano else ns // 1000 * 1000) / Decimal(10**9) for s, ns in TIMES]
    check(name, 'tshark reads the times the file holds (the spec: unsigned seconds)', want, spec)
    got, rc = rocestat_times(path)
    check(name, 'every frame\'s time (--fields) is tshark\'s frame.time_epoch', got, want)
    # The libpcap reader too (ROCESTAT_READER=libpcap: libpcap's signed field).
    p = subprocess.run([ROCESTAT, '-n', '--fields', '-e', 'time', path], capture_output=True, text=True,
                       env=dict(os.environ, ROCESTAT_READER='libpcap'))
    check(name, 'read by libpcap: the same times', [Decimal(x) for x in p.stdout.split()[1:]], want)
    # The capture's span, first to last frame: a 5.6-second one across 2^31 s.
    short = os.path.join(tmp, name + '.short.pcap')
    with open(short, 'wb') as f:
        f.write(pcap_file(order, nano, TIMES[:5]))
    ts = tshark_times(short)
    p = rocestat(['--format', 'json', short])
    import json
    c = json.loads(p.stdout)['capture'] if p.stdout else {}
    check(name, 'JSON first/last time and duration across 2^31 s',
          (c.get('first_time_ns'), c.get('last_time_ns'), abs(c.get('duration_s', 0) - float(ts[-1] - ts[0])) < 1e-6),
          (int(ts[0] * 10**9), int(ts[-1] * 10**9), True))
    # -w: the records keep their times; the frames their bytes.
    out = os.path.join(tmp, name + '.out.pcap')
    p = rocestat(['-r', path, '-w', out])
    with open(out, 'rb') as f:
        wrote = f.read()
    src, dst = records(blob), records(wrote)
    check(name, '-w: exit status, records', (p.returncode, p.stderr, len(dst)), (0, '', len(src)))
    check(name, '-w: every record\'s time and bytes, as the input\'s',
          [(s, ns, d) for s, ns, _, d in dst], [(s, ns, d) for s, ns, _, d in src])
    if nano and order == '<':
        check(name, '-w: the records byte for byte (cmp), as tcpdump copies them', wrote[24:], blob[24:])
    check(name, '-w: tshark reads the written file\'s times as the input\'s', tshark_times(out), want)
    for opt, ext in (('-w', '.out.pcapng'), ('--annotate', '.ann.pcapng')):
        out = os.path.join(tmp, name + ext)
        p = rocestat((['-r', path, '-w', out]) if opt == '-w' else ['--annotate', out, path])
        check(name, '%s pcapng: exit status and tshark\'s times' % opt, (p.returncode in (0, 1), tshark_times(out)),
              (True, want))


def case_pcapng(tmp):
    """pcapng's 64-bit nanoseconds: past 2^31 and past 2^32 s."""
    times = [(s + 2**32 * (i >= 6)) * 10**9 + ns for i, (s, ns) in enumerate(TIMES)]
    path = os.path.join(tmp, 'ng.pcapng')
    with open(path, 'wb') as f:
        f.write(pcapng_file(times))
    want = tshark_times(path)
    check('pcapng', 'tshark reads the 64-bit times', want, [Decimal(t) / Decimal(10**9) for t in times])
    got, rc = rocestat_times(path)
    check('pcapng', 'every frame\'s time is tshark\'s', got, want)
    out = os.path.join(tmp, 'ng.out.pcapng')
    p = rocestat(['-r', path, '-w', out])
    check('pcapng', '-w pcapng: tshark\'s times', (p.returncode, tshark_times(out)), (0, want))
    # A pcap file cannot hold 2^32 s or later: refused, not written wrong.
    out = os.path.join(tmp, 'ng.out.pcap')
    p = rocestat(['-r', path, '-w', out])
    kept = records(open(out, 'rb').read()) if os.path.exists(out) else []
    check('pcapng', '-w pcap past 2106: exit 3, the frames before it kept with their times',
          (p.returncode, 'frame 7' in p.stderr, [(s, ns) for s, ns, _, _ in kept]),
          (3, True, [(s, ns) for s, ns in TIMES[:6]]))


def main():
    with tempfile.TemporaryDirectory(prefix='rocestat-time2038.') as tmp:
        for order in '<>':
            for nano in (False, True):
                case_pcap(tmp, order, nano)
        case_pcapng(tmp)
    return TALLY.finish()


if __name__ == '__main__':
    sys.exit(main())
