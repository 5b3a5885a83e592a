#!/usr/bin/env python3
"""Every pcapng section and interface: a file of three sections (little-,
big-, little-endian) whose interfaces are Ethernet, raw IP and Linux cooked
(SLL), with nanosecond, microsecond and binary (2^-20, with if_tsoffset)
timestamps, as Wireshark reads them and libpcap 1.10 does not (it stops at
the second byte order or link type); and mergecap's file of two interfaces
of different link types; from a file and from a pipe. Against tshark: the
frame count, every frame's time, the RoCE packets and their opcodes, a BPF filter's frames; what -w
and --annotate write, read back by tshark and parsed here (each frame's
bytes, time and interface link type); a pcap -w refused at the first frame
of another link type, the frames before it kept.

    ROCESTAT=./rocestat python3 tests/hostile/sections.py [-v]
"""
import collections
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from tally import Tally  # noqa: E402

ROCESTAT = os.path.abspath(os.environ.get('ROCESTAT', './rocestat'))
TALLY = Tally('hostile sections')
check = TALLY.check
FRAMES = gen.rc_write_stream(3, 2, mtu=256)  # Ethernet, IPv4, RoCE v2: 9 frames
T0 = 1764000000  # seconds
# BTH opcodes (IBA vol 1, table 38) of the generated stream, by rocestat's names.
OPCODES = {'RC_RDMA_WRITE_FIRST': 6, 'RC_RDMA_WRITE_MIDDLE': 7, 'RC_RDMA_WRITE_LAST': 8,
           'RC_RDMA_WRITE_ONLY': 10, 'RC_ACKNOWLEDGE': 17, 'RC_SEND_ONLY': 4}


def block(order, btype, body):
    body += b'\0' * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack(order + 'II', btype, n) + body + struct.pack(order + 'I', n)


def shb(order):
    return block(order, 0x0A0D0D0A, struct.pack(order + 'IHHq', 0x1A2B3C4D, 1, 0, -1))


def opt(order, code, value):
    return struct.pack(order + 'HH', code, len(value)) + value + b'\0' * (-len(value) % 4)


def idb(order, linktype, tsresol=None, tsoffset=None, name=b'if0'):
    body = struct.pack(order + 'HHI', linktype, 0, 262144) + opt(order, 2, name)
    if tsresol is not None:
        body += opt(order, 9, bytes([tsresol]))
    if tsoffset is not None:
        body += opt(order, 14, struct.pack(order + 'q', tsoffset))
    return block(order, 1, body + opt(order, 0, b''))


def epb(order, ifn, units, data):
    return block(order, 6, struct.pack(order + 'IIIII', ifn, units >> 32, units & 0xFFFFFFFF, len(data),
                                       len(data)) + data)


def as_link(frame, linktype):
    """An Ethernet frame as raw IP (101) or Linux cooked (113), or as it is (1)."""
    if linktype == 101:
        return frame[14:]
    if linktype == 113:  # outgoing, ARPHRD_ETHER, the source MAC, IPv4
        return struct.pack('>HHH', 4, 1, 6) + frame[6:12] + b'\0\0' + frame[12:14] + frame[14:]
    return frame


# (section byte order, [(linktype, if_tsresol, if_tsoffset)], [(interface, frame index)])
SECTIONS = [
    ('<', [(1, 9, None), (101, 6, None)], [(0, 0), (1, 1), (0, 2), (1, 3)]),
    ('>', [(113, 0x80 | 20, 100)], [(0, 4), (0, 5), (0, 6)]),
    ('<', [(1, None, None)], [(0, 7), (0, 8)]),
]


def units_of(ns, tsresol):
    per = 2 ** (tsresol & 0x7f) if tsresol is not None and tsresol & 0x80 else 10 ** (6 if tsresol is None else tsresol)
    return ns * per // 10**9


def build():
    """The file, and per frame: (link type, time in ns as the spec reads the units, bytes)."""
    out, want = [], []
    for order, ifaces, frames in SECTIONS:
        out.append(shb(order))
        for lt, res, off in ifaces:
            out.append(idb(order, lt, res, off))
        for ifn, k in frames:
            lt, res, off = ifaces[ifn]
            ns = (T0 + k) * 10**9 + k * 123457 + 1   # below the second: every resolution shows it
            if off is not None:
                ns -= off * 10**9                     # the file holds the time less the offset
            u = units_of(ns, res)
            per = 2 ** (res & 0x7f) if res is not None and res & 0x80 else 10 ** (6 if res is None else res)
            shown = (u // per + (off or 0)) * 10**9 + (u % per) * 10**9 // per
            data = as_link(FRAMES[k], lt)
            out.append(epb(order, ifn, u, data))
            want.append((lt, shown, data))
    return b''.join(out), want


def parse_pcapng(blob):
    """Every frame of a pcapng file: (link type, ns, bytes); sections and byte orders honoured."""
    frames, ifs, off, order = [], [], 0, '<'
    while off + 12 <= len(blob):
        if blob[off:off + 4] == b'\x0a\x0d\x0d\x0a':
            order = '<' if struct.unpack('<I', blob[off + 8:off + 12])[0] == 0x1A2B3C4D else '>'
            ifs = []
        btype, n = struct.unpack(order + 'II', blob[off:off + 8])
        body = blob[off + 8:off + n - 4]
        if btype == 1:
            lt, _, _ = struct.unpack(order + 'HHI', body[:8])
            res, o = 6, 8
            while o + 4 <= len(body):
                code, ln = struct.unpack(order + 'HH', body[o:o + 4])
                if code == 0:
                    break
                if code == 9:
                    res = body[o + 4]
                o += 4 + ln + (-ln % 4)
            ifs.append((lt, 2 ** (res & 0x7f) if res & 0x80 else 10 ** res))
        elif btype == 6:
            ifn, hi, lo, cap, _ = struct.unpack(order + 'IIIII', body[:20])
            lt, per = ifs[ifn]
            u = hi << 32 | lo
            frames.append((lt, u // per * 10**9 + (u % per) * 10**9 // per, body[20:20 + cap]))
        off += n
    return frames


def tshark(path, *args):
    return subprocess.run(['tshark', '-n', '-r', path] + list(args), capture_output=True, text=True)


def tshark_times(path):
    return [Decimal(x) for x in tshark(path, '-T', 'fields', '-e', 'frame.time_epoch').stdout.split()]


def rocestat(args, env=None):
    return subprocess.run([ROCESTAT, '-n', '--color', 'never'] + args, capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})))


def ns_dec(ns):
    return Decimal(ns) / Decimal(10**9)


def case_sections(tmp):
    path = os.path.join(tmp, 'sections.pcapng')
    blob, want = build()
    with open(path, 'wb') as f:
        f.write(blob)
    times = tshark_times(path)
    check('sections', 'tshark reads every frame at the time the spec gives', times, [ns_dec(t) for _, t, _ in want])
    p = rocestat(['--fields', '-e', 'time', path])
    check('sections', 'rocestat reads every frame, each at tshark\'s time',
          (p.returncode, [Decimal(x) for x in p.stdout.split()[1:]]), (0, times))
    # From a pipe (standard input, as dumpcap -w - or gzip -dc feed it).
    p = subprocess.run('cat %s | %s -n --fields -e time -r -' % (path, ROCESTAT), shell=True, capture_output=True,
                       text=True)
    check('sections', 'from standard input: every frame at tshark\'s time',
          (p.returncode, [Decimal(x) for x in p.stdout.split()[1:]]), (0, times))
    subprocess.run(['gzip', '-k', path], check=True)
    p = subprocess.run('gzip -dc %s.gz | %s -n --fields -e time -' % (path, ROCESTAT), shell=True, capture_output=True,
                       text=True)
    check('sections', 'gzip -dc | rocestat -: every frame at tshark\'s time',
          (p.returncode, [Decimal(x) for x in p.stdout.split()[1:]]), (0, times))
    p = rocestat(['--fields', '-e', 'time', path], env={'ROCESTAT_READER': 'libpcap'})
    check('sections', 'libpcap (ROCESTAT_READER=libpcap) stops early: what this reader is for',
          (p.returncode, len(p.stdout.split()) - 1 < len(want)), (3, True))
    # The analysis: every RoCE packet, by opcode, as tshark decodes them.
    ops = collections.Counter(tshark(path, '-Y', 'infiniband', '-T', 'fields', '-e',
                                     'infiniband.bth.opcode').stdout.split())
    p = rocestat(['--format', 'json', path])
    c = (json.loads(p.stdout) if p.stdout else {}).get('capture', {})
    check('sections', 'RoCE v2 packets: tshark\'s infiniband frames', c.get('roce_v2'), sum(ops.values()))
    check('sections', 'opcodes as tshark counts them',
          {str(OPCODES.get(k, k)): v for k, v in (c.get('opcodes') or {}).items()}, dict(ops))
    # A BPF filter is compiled for each link type it meets.
    p = rocestat(['--fields', '-e', 'time', path, 'udp dst port 4791'])
    n = len(tshark(path, '-Y', 'udp.dstport == 4791').stdout.splitlines())
    check('sections', 'a filter over three link types: tshark\'s frames', (p.returncode, len(p.stdout.split()) - 1),
          (0, n))
    # -w pcapng: each frame its bytes, time and link type; tshark agrees.
    out = os.path.join(tmp, 'out.pcapng')
    p = rocestat(['-r', path, '-w', out])
    check('sections', '-w pcapng: exit 0, nothing said', (p.returncode, p.stderr), (0, ''))
    check('sections', '-w pcapng: every frame with its link type, time and bytes',
          parse_pcapng(open(out, 'rb').read()), want)
    check('sections', '-w pcapng: tshark reads the input\'s times', tshark_times(out), times)
    # --annotate: the same frames.
    ann = os.path.join(tmp, 'ann.pcapng')
    p = rocestat(['--annotate', ann, path])
    check('sections', '--annotate: every frame with its link type, time and bytes',
          (p.returncode in (0, 1), parse_pcapng(open(ann, 'rb').read()) if os.path.exists(ann) else None),
          (True, want))
    # -w pcap holds one link type: refused at frame 2 (raw IP), frame 1 kept.
    out = os.path.join(tmp, 'out.pcap')
    p = rocestat(['-r', path, '-w', out])
    kept = tshark(out, '-T', 'fields', '-e', 'frame.time_epoch').stdout.split() if os.path.exists(out) else []
    check('sections', '-w pcap: exit 3, frame 2 named, frame 1 kept',
          (p.returncode, 'frame 2' in p.stderr and 'link type' in p.stderr, [Decimal(x) for x in kept]),
          (3, True, times[:1]))


def case_mergecap(tmp):
    if not shutil.which('mergecap') or not shutil.which('editcap'):
        check('mergecap', 'mergecap and editcap installed (wireshark-common)', False, True)
        return
    eth = os.path.join(tmp, 'eth.pcap')
    with open(eth, 'wb') as f:
        f.write(gen.pcap(FRAMES))
    raw = os.path.join(tmp, 'raw.pcap')
    subprocess.run(['editcap', '-C', '14', '-T', 'rawip', eth, raw], check=True, capture_output=True)
    merged = os.path.join(tmp, 'merged.pcapng')
    subprocess.run(['mergecap', '-a', '-w', merged, eth, raw], check=True, capture_output=True)
    times = tshark_times(merged)
    check('mergecap', 'tshark reads both files\' frames', len(times), 2 * len(FRAMES))
    p = rocestat(['--fields', '-e', 'time', merged])
    check('mergecap', 'rocestat reads them all at tshark\'s times',
          (p.returncode, [Decimal(x) for x in p.stdout.split()[1:]]), (0, times))
    ops = tshark(merged, '-Y', 'infiniband').stdout.splitlines()
    p = rocestat(['--format', 'json', merged])
    c = (json.loads(p.stdout) if p.stdout else {}).get('capture', {})
    check('mergecap', 'RoCE v2 packets of both interfaces: tshark\'s', c.get('roce_v2'), len(ops))


def main():
    with tempfile.TemporaryDirectory(prefix='rocestat-sections.') as tmp:
        case_sections(tmp)
        case_mergecap(tmp)
    return TALLY.finish()


if __name__ == '__main__':
    sys.exit(main())
