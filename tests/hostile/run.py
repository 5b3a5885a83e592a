#!/usr/bin/env python3
"""Hostile and broken inputs: each case builds its capture in a temporary
directory (tests/hostile/gen.py; nothing binary is committed), runs rocestat
and asserts
  - the exact exit status: 0 clean, 1 analysed with anomalies, 3 could not
    (fully) read;
  - the exact stderr, naming the file and the frame (where libpcap reports
    the problem, its libpcap 1.10.3 text wrapped by rocestat's);
  - the exact anomaly lines of the text report, for frame-level problems;
  - that what came before the problem (and, for frame-level problems, after
    it) is still in the JSON report.

    ROCESTAT=./rocestat python3 tests/hostile/run.py [-v] [case...]
    python3 tests/hostile/run.py --write-only DIR   (just write the files)
"""
import bz2
import gzip
import json
import lzma
import os
import shlex
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from tally import Tally  # noqa: E402

ROCESTAT = os.environ.get('ROCESTAT', './rocestat')
ONLY = [a for a in sys.argv[1:] if not a.startswith('-')] if '--write-only' not in sys.argv else []

# A clean RC WRITE stream (QP 0x12, 3 two-packet messages of 256 bytes, each
# ACKed): 9 frames. Frame-level cases put the hostile frame after the first
# two messages (as frame 7) and the third message after it.
STREAM = gen.rc_write_stream(3, 2, mtu=256)
BEFORE, AFTER = STREAM[:6], STREAM[6:]


def hostile_stream(frame):
    return gen.pcap(BEFORE + [frame] + AFTER)


def bt(op, qp=0x99, psn=7, pad=0, payload=b'x' * 16, hdrs=b''):
    """A transport header + payload for a frame on a QP of its own."""
    return gen.bth(op, qp, psn, padcnt=pad) + hdrs + payload


def run(args):
    # --width 0: each anomaly on one line, as the checks read them.
    p = subprocess.run([ROCESTAT, '-n', '--color', 'never', '--width', '0'] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def anomaly_lines(text):
    if 'Anomalies' not in text:
        return None
    tail = text[text.index('\nAnomalies') + 1:].splitlines()[1:]
    return [ln.strip()[2:] for ln in tail if ln.strip().startswith('- ')] or \
        [ln.strip() for ln in tail if ln.strip()]


TALLY = Tally('hostile')


check = TALLY.check


def q(js, qpn):
    for f in js['qps']:
        if f['dest_qp'] == qpn:
            return f
    return None


# ---- the cases ----------------------------------------------------------------
# Each: name -> (file bytes, expected status, expected stderr (with {f} for the
# path), expected anomaly lines or None to skip, extra check on the JSON).

FULL = gen.pcap(STREAM)
LAST_REC = len(gen.pcap(STREAM[:-1]))  # offset of the last record (the final ACK)


def json_before(frames):
    """The JSON still has the frames before the problem and QP 0x12's messages in them."""
    def f(js):
        c = js['capture']
        return (c['frames'], q(js, 0x12)['messages']['write'] if q(js, 0x12) else None), (frames, 3)
    return f


def json_all_frames(extra=1, writes=3):
    """Frame-level problem: every frame was analysed, before and after it."""
    def f(js):
        return (js['capture']['frames'], q(js, 0x12)['messages']['write'],
                q(js, 0x12)['retransmitted_packets']), (9 + extra, writes, 0)
    return f


RET_OK, RET_ANOM, RET_INPUT = 0, 1, 3


def unopened(err):
    """A file that cannot be opened at all: its stderr line says why, the
    text report is not written (a summary of no frames would say nothing
    more), and the JSON lists the file, with no link type and that error,
    and no frame."""
    why = err[len('rocestat: '):].rstrip('\n')
    lines = []

    def js_check(js):
        files = js['capture']['files']
        first = files[0] if files else {'link_type': '(no file listed)', 'error': None}
        return ((len(files), first['link_type'], first['error'], js['capture']['frames']), (1, None, why, 0))
    return err, lines, js_check


def unopened_case(blob, err):
    err, lines, js_check = unopened(err)
    return (blob, RET_INPUT, err, lines, js_check)

CASES = {}

# Capture files libpcap rejects, in whole or from some record on. The file
# offset in the message is where the record that could not be read starts
# (in a pcapng file: the first block after the last frame read).
CASES['truncated_record_header'] = (
    FULL[:LAST_REC + 7], RET_INPUT,
    'rocestat: {f}: frame 9 (file offset %d): truncated dump file; tried to read 16 header bytes, only got 7; '
    'the frames before it were analysed\n' % LAST_REC,
    ['{f}: reading stopped early: {f}: frame 9 (file offset %d): truncated dump file; tried to read 16 header '
     'bytes, only got 7' % LAST_REC],
    json_before(8))
CASES['truncated_record_body'] = (
    FULL[:LAST_REC + 16 + 10], RET_INPUT,
    'rocestat: {f}: frame 9 (file offset %d): truncated dump file; tried to read 62 captured bytes, only got 10; '
    'the frames before it were analysed\n' % LAST_REC,
    ['{f}: reading stopped early: {f}: frame 9 (file offset %d): truncated dump file; tried to read 62 captured '
     'bytes, only got 10' % LAST_REC],
    json_before(8))
# Not captures at all: named for what they are (man page, ERRORS AND EXIT
# STATUS), the first bytes quoted in hex from the blob written.
CASES['zero_length_file'] = unopened_case(
    b'', 'rocestat: {f}: empty file (0 bytes): not a capture\n')
CASES['garbage_header'] = unopened_case(
    b'GET / HTTP/1.1\r\nHost: capture.example\r\n\r\n',
    'rocestat: {f}: not a pcap or pcapng file (first bytes 0x%s; a pcap file starts a1b2c3d4 or d4c3b2a1, '
    'a pcapng file 0a0d0d0a)\n' % b'GET '.hex())
# A compressed capture: libpcap says "unknown file format"; rocestat names
# the compression and the command that reads it (run_compressed runs it).
COMPRESSED = {
    'gzip': gzip.compress(FULL),
    'bzip2': bz2.compress(FULL),
    'xz': lzma.compress(FULL),
    # No module for these two in Python's library: their magic numbers.
    'zstd': b'\x28\xb5\x2f\xfd' + b'\0' * 32,
    'lz4': b'\x04\x22\x4d\x18' + b'\0' * 32,
}
for tool, blob in COMPRESSED.items():
    CASES['%s_compressed' % tool] = unopened_case(
        blob, "rocestat: {f}: %s-compressed; rocestat reads pcap and pcapng: %s -dc '{f}' | rocestat -r -\n" % (tool, tool))
CASES['short_pcap_header'] = unopened_case(
    gen.pcap_header()[:20],
    # libpcap counts the 4 magic bytes it read first out of "got".
    'rocestat: {f}: truncated dump file; tried to read 24 file header bytes, only got 16\n')
CASES['caplen_over_256k'] = (
    FULL + gen.pcap_record(b'\0' * 300000, 9), RET_INPUT,
    'rocestat: {f}: frame 10 (file offset %d): invalid packet capture length 300000, bigger than snaplen of '
    '262144; the frames before it were analysed\n' % len(FULL),
    None, json_all_frames(0))
CASES['caplen_over_256k_small_snaplen'] = (
    gen.pcap_header(snaplen=65535) + FULL[24:] + gen.pcap_record(b'\0' * 300000, 9), RET_INPUT,
    'rocestat: {f}: frame 10 (file offset %d): invalid packet capture length 300000, bigger than snaplen of '
    '65535; the frames before it were analysed\n' % len(FULL),
    None, json_all_frames(0))
# libpcap cuts records longer than the header's snaplen (but under 256 KiB)
# down to it without a word; rocestat says so and counts the frames.
CASES['caplen_over_snaplen'] = (
    gen.pcap_header(snaplen=128) + FULL[24:], RET_ANOM,
    'rocestat: {f}: frame 1: captured length 330 exceeds the snapshot length 128 in the file header '
    '(6 frames); libpcap kept the first 128 bytes\n',
    ['{f}: frame 1: captured length 330 exceeds the snapshot length 128 in the file header (6 frames); '
     'libpcap kept the first 128 bytes; frame 1'],
    lambda js: ((js['capture']['frames'], js['capture']['icrc']['unchecked'], q(js, 0x12)['messages']['write'],
                 [(a['type'], a['count'], a['frames']) for a in js['anomalies']]),
                (9, 6, 3, [('file_warning', 6, [1])])))
# Both: the warning, then the read error, each with its own message.
CASES['caplen_over_snaplen_then_truncated'] = (
    gen.pcap_header(snaplen=128) + FULL[24:LAST_REC + 7], RET_INPUT,
    'rocestat: {f}: frame 1: captured length 330 exceeds the snapshot length 128 in the file header '
    '(6 frames); libpcap kept the first 128 bytes\n'
    'rocestat: {f}: frame 9 (file offset %d): truncated dump file; tried to read 16 header bytes, only got 7; '
    'the frames before it were analysed\n' % LAST_REC,
    None, lambda js: ([a['type'] for a in js['anomalies']], ['file_error', 'file_warning']))
CASES['caplen_zero'] = (
    gen.pcap(BEFORE) + gen.pcap_record(b'', 6, wirelen=60) + gen.pcap(AFTER)[24:], RET_ANOM, '',
    ['1 truncated frame (first: Ethernet header cut by the capture length (0 bytes captured)); frame 7'],
    json_all_frames())
# pcapng: an unknown block type between packets is skipped.
CASES['pcapng_unknown_block'] = (
    gen.pcapng(STREAM, extra_blocks={4: [gen.pcapng_block(0x0BAD0000, b'hostile: unknown block type')]}),
    RET_OK, '', ['none'], json_all_frames(0))
# pcapng cut inside the last frame's block: the offset is where that block
# starts, after a statistics block too (libpcap names where the statistics
# block starts, the end of the frame before).
NG_LAST = len(gen.pcapng(STREAM[:-1]))
ISB = gen.pcapng_block(5, struct.pack('<III', 0, 0, 0))
CASES['pcapng_truncated_block'] = (
    gen.pcapng(STREAM)[:NG_LAST + 20], RET_INPUT,
    'rocestat: {f}: frame 9 (file offset %d): truncated pcapng dump file; tried to read 88 bytes, only got 12; '
    'the frames before it were analysed\n' % NG_LAST,
    ['{f}: reading stopped early: {f}: frame 9 (file offset %d): truncated pcapng dump file; tried to read 88 '
     'bytes, only got 12' % NG_LAST],
    json_before(8))
CASES['pcapng_truncated_block_after_stats'] = (
    gen.pcapng(STREAM, extra_blocks={8: [ISB]})[:NG_LAST + len(ISB) + 20], RET_INPUT,
    'rocestat: {f}: frame 9 (file offset %d): truncated pcapng dump file; tried to read 88 bytes, only got 12; '
    'the frames before it were analysed\n' % (NG_LAST + len(ISB)),
    None, json_before(8))


# Kuznetzov's modified pcap format (libpcap reads it; 24-byte record headers,
# and 14 bytes more snapshot length for Ethernet): records at the snapshot
# length are whole (the record-length tracking once counted 16-byte headers
# and warned that 8 bytes per record had been dropped), and a truncated
# record is named by where it starts.
def modified_pcap(frames, snaplen):
    out = [struct.pack('<IHHiIII', 0xa1b2cd34, 2, 4, 0, 0, snaplen, 1)]
    for i, f in enumerate(frames):
        out.append(gen.pcap_record(f, i)[:16] + struct.pack('<IHBB', 1, 0x0800, 0, 0) + f)
    return b''.join(out)


KUZ = modified_pcap(STREAM, len(STREAM[0]) - 14)
KUZ_LAST = len(modified_pcap(STREAM[:-1], 0))
CASES['modified_pcap_at_snapshot_length'] = (KUZ, RET_OK, '', ['none'], json_all_frames(0))
CASES['modified_pcap_truncated'] = (
    KUZ[:KUZ_LAST + 24 + 6], RET_INPUT,
    'rocestat: {f}: frame 9 (file offset %d): truncated dump file; tried to read 62 captured bytes, only got 6; '
    'the frames before it were analysed\n' % KUZ_LAST,
    None, json_before(8))

# IP and UDP lengths that lie.
CASES['ipv4_length_past_frame'] = (
    hostile_stream(gen.roce_v2(bt(gen.RC_SEND_ONLY), ip_len_delta=+40)), RET_ANOM, '',
    ['1 malformed frame (first: IPv4 total length 100 runs past the 60 bytes in the frame); frame 7'],
    json_all_frames())
CASES['ipv4_length_short_of_udp'] = (
    hostile_stream(gen.roce_v2(bt(gen.RC_SEND_ONLY), ip_len_delta=-20)), RET_ANOM, '',
    ['1 malformed frame (first: UDP length 40 disagrees with the IP payload length 20); frame 7'],
    json_all_frames())
CASES['udp_length_past_frame'] = (
    hostile_stream(gen.roce_v2(bt(gen.RC_SEND_ONLY), udp_len_delta=+40)), RET_ANOM, '',
    ['1 malformed frame (first: UDP length 80 disagrees with the IP payload length 40); frame 7'],
    json_all_frames())
CASES['udp_length_short'] = (
    hostile_stream(gen.roce_v2(bt(gen.RC_SEND_ONLY), udp_len_delta=-20)), RET_ANOM, '',
    ['1 malformed frame (first: UDP length 20 disagrees with the IP payload length 40); frame 7'],
    json_all_frames())



def ipv6_payload_length(delta):
    import struct
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fuzz'))
    import synth
    f = bytearray(synth.roce_v2_ipv6(bt(gen.RC_SEND_ONLY)))
    f[18:20] = struct.pack('>H', struct.unpack('>H', f[18:20])[0] + delta)
    return bytes(f)


CASES['ipv6_length_past_frame'] = (
    hostile_stream(ipv6_payload_length(+40)), RET_ANOM, '',
    ['1 malformed frame (first: IPv6 payload length 80 runs past the 40 bytes in the frame); frame 7'],
    json_all_frames())
CASES['ipv6_length_short_of_udp'] = (
    hostile_stream(ipv6_payload_length(-10)), RET_ANOM, '',
    ['1 malformed frame (first: UDP length 40 disagrees with the IP payload length 30); frame 7'],
    json_all_frames())

# BTH opcodes with no defined header sequence.
for op, why in ((0x15, 'opcode 0x15 is reserved: IBA Table 38 defines no headers for it'),
                (0x18, 'opcode 0x18 is reserved: IBA Table 38 defines no headers for it'),
                # IBA Table 37: transport bits 110 are reserved, 111 manufacturer specific.
                (0xC5, 'opcode 0xc5 is reserved: IBA Table 38 defines no headers for it'),
                (0xE5, 'opcode 0xe5 is manufacturer specific: no header layout is defined')):
    CASES['bth_opcode_0x%02x' % op] = (
        hostile_stream(gen.roce_v2(bt(op))), RET_ANOM, '',
        ['1 unsupported frame (first: %s); frame 7' % why], json_all_frames())

CASES['padcnt_past_payload'] = (
    hostile_stream(gen.roce_v2(bt(gen.RC_SEND_ONLY, pad=3, payload=b'ab'))), RET_ANOM, '',
    ['1 malformed frame (first: PadCnt 3 is larger than the 2-byte payload); frame 7'], json_all_frames())

# CM MADs whose lengths lie.
CASES['cm_rej_info_length'] = (
    hostile_stream(gen.cm_frame(gen.rej_mad(100))), RET_ANOM, '',
    ['1 malformed frame (first: REJ Reject Info Length 100 exceeds the 72-byte ARI field); frame 7',
     'connection 192.0.2.2 QP 0x0 → 192.0.2.1 0x0000000000000000 rejected by the server: Consumer Reject '
     '(reason 28); frame 7'],
    json_all_frames())
CASES['cm_sidr_rep_add_info_length'] = (
    hostile_stream(gen.cm_frame(gen.sidr_rep_mad(200))), RET_ANOM, '',
    ['1 malformed frame (first: SIDR_REP Additional Information Length 200 exceeds the 72-byte field); frame 7'],
    json_all_frames())
# A REJ in a 100-byte payload: once read its reason from uninitialised memory.
CASES['cm_mad_short'] = (
    hostile_stream(gen.roce_v2(gen.bth(gen.UD_SEND_ONLY, 1, 0) + gen.deth(0x80010000, 1) + gen.rej_mad(10)[:100])),
    RET_ANOM, '',
    ['1 malformed frame (first: CM attribute 0x0012 needs a 256-byte MAD, the payload has 100 bytes); frame 7'],
    json_all_frames())


# The PSN wraps from 0xFFFFFF to 0 inside a message: one message, no gap,
# no retransmission.
def psn_wrap_check(js):
    f = q(js, 0x12)
    return ((f['messages']['write'], f['message_bytes']['write'], f['retransmitted_packets'],
             f['request_psn'].get('gaps'), f['incomplete_messages'], len(js['anomalies'])),
            (2, 2048, 0, 0, 0, 0))


CASES['psn_wrap_mid_message'] = (
    gen.pcap(gen.rc_write_stream(2, 4, start_psn=0xFFFFFE, mtu=256)), RET_OK, '', ['none'], psn_wrap_check)


# Many distinct QPNs under a small --max-flows cap: bounded, evictions reported.
def many_qps_check(js):
    c = js['capture']
    ev = [a for a in js['anomalies'] if a['type'] == 'flows_evicted']
    kept = c['half_flows']
    return ((c['frames'], kept <= 1000 and kept >= 1000 - 1000 // 16, kept + c['half_flows_evicted'], len(js['qps']),
             ev[0]['count'] if ev else None),
            (200000, True, 200000, kept, c['half_flows_evicted']))


def case_files(tmp, name, blob):
    path = os.path.join(tmp, name + '.pcap')
    with open(path, 'wb') as f:
        f.write(blob)
    return path


def run_case(tmp, name, spec):
    blob, status, err, anomalies, js_check = spec
    path = case_files(tmp, name, blob)
    rc, out, stderr = run([path])
    ok = check(name, 'exit status (text report)', rc, status)
    ok &= check(name, 'stderr', stderr, err.replace('{f}', path))
    if anomalies == []:
        check(name, 'no text report', out, '')
    elif anomalies is not None:
        check(name, 'anomalies', anomaly_lines(out), [a.replace('{f}', path) for a in anomalies])
    rc2, out2, stderr2 = run(['--format', 'json', path])
    check(name, 'exit status (JSON report)', rc2, status)
    try:
        js = json.loads(out2)
    except ValueError as e:
        check(name, 'JSON parses', str(e), None)
        return
    if js_check:
        got, want = js_check(js)
        if isinstance(want, tuple):
            want = tuple(w.replace('{f}', path) if isinstance(w, str) else w for w in want)
        check(name, 'JSON results', got, want)


def run_fields(tmp):
    """--fields names file and frame of every RoCE frame it cannot fully decode."""
    cases = {
        'bth_opcode_0x15': 'unsupported: opcode 0x15 is reserved: IBA Table 38 defines no headers for it',
        'padcnt_past_payload': 'malformed: PadCnt 3 is larger than the 2-byte payload',
        'udp_length_short': 'malformed: UDP length 20 disagrees with the IP payload length 40',
        'cm_rej_info_length': 'malformed: REJ Reject Info Length 100 exceeds the 72-byte ARI field',
        'cm_sidr_rep_add_info_length':
            'malformed: SIDR_REP Additional Information Length 200 exceeds the 72-byte field',
        'cm_mad_short': 'malformed: CM attribute 0x0012 needs a 256-byte MAD, the payload has 100 bytes',
    }
    for name, msg in cases.items():
        if ONLY and name not in ONLY:
            continue
        path = os.path.join(tmp, name + '.pcap')
        rc, out, err = run(['--fields', path])
        check(name, '--fields exit status', rc, RET_ANOM)
        check(name, '--fields stderr', err, 'rocestat: %s: frame 7: %s\n' % (path, msg))
        check(name, '--fields lines', len(out.splitlines()), 1 + 10)


def run_multi(tmp):
    """A truncated file then a good one: status 3, both files' frames reported."""
    if ONLY and 'two_files' not in ONLY:
        return
    bad = case_files(tmp, 'two_files_bad', FULL[:LAST_REC + 7])
    good = case_files(tmp, 'two_files_good', FULL)
    rc, out, err = run(['--format', 'json', bad, good])
    check('two_files', 'exit status', rc, RET_INPUT)
    check('two_files', 'stderr', err,
          'rocestat: %s: frame 9 (file offset %d): truncated dump file; tried to read 16 header bytes, only got 7; '
          'the frames before it were analysed\n' % (bad, LAST_REC))
    js = json.loads(out)
    check('two_files', 'JSON results', (js['capture']['frames'], [f['error'] is None for f in js['capture']['files']]),
          (17, [False, True]))
    # A missing file among good ones: named with -r, the others are read.
    missing = os.path.join(tmp, 'no_such.pcap')
    rc, out, err = run(['--format', 'json', '-r', missing, '-r', good])
    check('missing_file', 'exit status', rc, RET_INPUT)
    check('missing_file', 'stderr', err, 'rocestat: %s: No such file or directory\n' % missing)
    check('missing_file', 'JSON results', json.loads(out)['capture']['frames'], 9)
    # As a leading argument beside a good one it is treated as with -r (the
    # man page: named, listed with its reason, skipped); alone, it is
    # refused before anything is read.
    rc, out, err = run(['--format', 'json', missing, good])
    check('missing_file_positional', 'exit status', rc, RET_INPUT)
    check('missing_file_positional', 'stderr', err, 'rocestat: %s: No such file or directory\n' % missing)
    check('missing_file_positional', 'JSON results', json.loads(out)['capture']['frames'], 9)
    rc, out, err = run([missing])
    check('missing_file_alone', 'exit status', rc, RET_INPUT)
    check('missing_file_alone', 'stderr and stdout', (err, out),
          ('rocestat: %s: No such file or directory\n' % missing, ''))


def run_many_qps(tmp):
    if ONLY and 'many_qps' not in ONLY:
        return
    import bigflows_gen
    path = os.path.join(tmp, 'many_qps.pcap')
    bigflows_gen.write(path, 200000)
    rc, out, err = run(['--format', 'json', '--max-flows', '1000', '--timeline', os.path.join(tmp, 'tl.csv'), path])
    check('many_qps', 'exit status', rc, RET_ANOM)
    check('many_qps', 'stderr', err, '')
    got, want = many_qps_check(json.loads(out))
    check('many_qps', 'JSON results', got, want)
    # Evicted flows still get their timeline rows: one per flow here.
    with open(os.path.join(tmp, 'tl.csv')) as f:
        check('many_qps', 'timeline rows', sum(1 for _ in f), 1 + 200000)


def write_only(outdir):
    """Write every case's capture into outdir (for make valgrind) and stop."""
    os.makedirs(outdir, exist_ok=True)
    for name, spec in CASES.items():
        case_files(outdir, name, spec[0])


def run_many_bad_qps(tmp):
    """150k QPNs, each frame with a bad ICRC, under --max-flows 1000: the
    anomalies of evicted flows were all kept (memory grew with the frames
    despite the cap) and every eviction batch went through all of them
    (200k frames: 25 s). Now 4096 are listed one by one, the rest summed."""
    import time
    if ONLY and 'many_bad_qps' not in ONLY:
        return
    import bigflows_gen
    n = 150000
    path = os.path.join(tmp, 'many_bad_qps.pcap')
    bigflows_gen.write(path, n, 1)
    t0 = time.time()
    rc, out, err = run(['--format', 'json', '--max-flows', '1000', path])
    secs = time.time() - t0
    check('many_bad_qps', 'exit status, stderr', (rc, err), (RET_ANOM, ''))
    check('many_bad_qps', 'finished in under 20 s', secs < 20, True)
    js = json.loads(out)
    icrc = [a for a in js['anomalies'] if a['type'] == 'bad_icrc']
    summed = [a for a in icrc if 'more in evicted half-flows' in a['description']]
    evicted_listed = [a for a in icrc if a['description'].endswith('(half-flow since evicted)')]
    check('many_bad_qps', 'every bad ICRC counted once', sum(a['count'] for a in icrc), n)
    check('many_bad_qps', 'evicted ones listed one by one: 4096, then one sum',
          (len(evicted_listed), len(summed)), (4096, 1))
    check('many_bad_qps', 'the sum names its type and count', summed[0]['description'] if summed else None,
          'bad_icrc: %d more in evicted half-flows (after 4096 anomalies of evicted half-flows listed one by one)'
          % (n - 4096 - js['capture']['half_flows']))


def run_many_gap_qps(tmp):
    """5000 QPNs, each skipping a PSN, under --max-flows 100: past the 4096
    evicted ones listed one by one, the rest are summed into one anomaly
    whose subject is no half-flow. The JSON details of that sum read it as
    one (a crash once, on 60 000 CM connections)."""
    if ONLY and 'many_gap_qps' not in ONLY:
        return
    n = 5000
    frames = []
    for qp in range(0x100, 0x100 + n):
        frames += [gen.roce_v2(bt(gen.RC_SEND_ONLY, qp=qp, psn=1)), gen.roce_v2(bt(gen.RC_SEND_ONLY, qp=qp, psn=3))]
    path = os.path.join(tmp, 'many_gap_qps.pcap')
    with open(path, 'wb') as f:
        f.write(gen.pcap(frames))
    rc, out, err = run(['--format', 'json', '--max-flows', '100', path])
    check('many_gap_qps', 'exit status, stderr', (rc, err), (RET_ANOM, ''))
    try:
        js = json.loads(out)
    except ValueError:
        check('many_gap_qps', 'JSON report parses', False, True)
        return
    gaps = [a for a in js['anomalies'] if a['type'] == 'psn_gap']
    summed = [a for a in gaps if a['subject'] == 'evicted_half_flows']
    check('many_gap_qps', 'one gap per QP, counted once', sum(a['count'] for a in gaps), n)
    check('many_gap_qps', 'the sum has no per-flow details', [a['details'] for a in summed], [{}])
    listed = [a for a in gaps if a['subject'] == 'half_flow']
    check('many_gap_qps', 'a listed one keeps its breakdown', listed[0]['details'].get('skipped') if listed else None,
          1)


def run_rss(args, tmp):
    """Run rocestat; also return its own peak RSS in MB (wait4)."""
    with open(os.path.join(tmp, 'rss.out'), 'w+') as out, open(os.path.join(tmp, 'rss.err'), 'w+') as err:
        # Under ASan, freed memory waits in a quarantine (256 MB): keep it
        # small so the peak RSS measures what rocestat holds.
        env = dict(os.environ)
        env['ASAN_OPTIONS'] = (env.get('ASAN_OPTIONS', '') + ':quarantine_size_mb=1').lstrip(':')
        p = subprocess.Popen([ROCESTAT, '-n', '--color', 'never'] + args, stdout=out, stderr=err, env=env)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return p.returncode, out.read(), err.read(), ru.ru_maxrss / 1024


def run_many_host_pairs(tmp):
    """300k frames, each between a different pair of hosts, --max-flows 1000:
    the per-host-pair tables (pairing candidates, RoCE versions seen) kept an
    entry for every pair ever seen, so memory grew with the frames (250 bytes
    a pair) despite the cap. Peak RSS must not grow from 30k to 300k."""
    if ONLY and 'many_host_pairs' not in ONLY:
        return
    import struct
    rss = []
    for n in (30000, 300000):
        path = os.path.join(tmp, 'hosts%d.pcap' % n)
        with open(path, 'wb') as f:
            f.write(gen.pcap_header(linktype=101))
            for i in range(n):
                fr = gen.roce_v2(gen.bth(gen.RC_SEND_ONLY, 0x11, i & 0xFFFFFF), src=struct.pack('>I', 0x0A000000 + i))
                f.write(struct.pack('<IIII', gen.T0, i, len(fr) - 14, len(fr) - 14) + fr[14:])
        rc, out, err, mb = run_rss(['--format', 'json', '--max-flows', '1000', path], tmp)
        check('many_host_pairs', '%d frames: exit status, stderr, frames' % n,
              (rc, err, json.loads(out)['capture']['frames']), (RET_ANOM, '', n))
        rss.append(mb)
        os.unlink(path)
    check('many_host_pairs', 'peak RSS %.0f MB -> %.0f MB: 10x the host pairs, < 1.5x the memory' % tuple(rss),
          rss[1] < 1.5 * rss[0], True)


def pairing_flood(n, interleaved):
    """n RC requests to distinct QPNs from A to B and n ACKs from distinct
    QPNs back: blocks (all requests, then all ACKs) or interleaved."""
    req = [gen.roce_v2(gen.bth(gen.RC_SEND_ONLY, 0x100 + k, 5, ackreq=1) + b'abcd') for k in range(n)]
    ack = [gen.roce_v2(gen.bth(gen.RC_ACK, 0x800000 + k, 5) + gen.aeth(0x1F, 1), src=gen.IP_B, dst=gen.IP_A)
           for k in range(n)]
    frames = [f for pair in zip(req, ack) for f in pair] if interleaved else req + ack
    return gen.pcap(frames)


def run_pairing_flood(tmp):
    """Inferred pairing scanned every request flow between two hosts for
    each response flow: 50k + 50k flows took 30 s, a few hundred thousand
    hours. Now bounded; when responses follow their requests (interleaved),
    every flow is still paired."""
    import time
    if ONLY and 'pairing_flood' not in ONLY:
        return
    n = 50000
    path = case_files(tmp, 'pairing_flood', pairing_flood(n, False))
    t0 = time.time()
    rc, out, err = run(['--format', 'json', path])
    secs = time.time() - t0
    check('pairing_flood', 'exit status, stderr', (rc, err), (RET_OK, ''))
    check('pairing_flood', 'finished in under 20 s (was 30 s plain, minutes under ASan)', secs < 20, True)
    check('pairing_flood', 'every frame analysed', json.loads(out)['capture']['frames'], 2 * n)
    path = case_files(tmp, 'pairing_interleaved', pairing_flood(5000, True))
    rc, out, err = run(['--format', 'json', path])
    js = json.loads(out)
    check('pairing_interleaved', 'every request flow paired with its ACK flow',
          sorted(set(f['pairing'] for f in js['qps'])), ['inferred'])


def run_compressed(tmp):
    """The command the message suggests reads the capture (the file's name
    with a space and a quote in it, so the quoting is tested too)."""
    if ONLY and 'gzip_compressed' not in ONLY:
        return
    path = os.path.join(tmp, "it's a capture.pcap.gz")
    with open(path, 'wb') as f:
        f.write(COMPRESSED['gzip'])
    rc, out, err = run([path])
    if not check('gzip_compressed', 'a command is suggested', 'rocestat reads pcap and pcapng: ' in err, True):
        return
    command = err.split('rocestat reads pcap and pcapng: ', 1)[-1].strip()
    check('gzip_compressed', 'the suggested command names the file', shlex.split(command)[:3],
          ['gzip', '-dc', path])
    command = command.replace('rocestat -r -', '%s -n --format json -r -' % shlex.quote(ROCESTAT))
    p = subprocess.run(['sh', '-c', command], capture_output=True, text=True)
    check('gzip_compressed', 'the suggested command: exit status, stderr, frames',
          (p.returncode, p.stderr, json.loads(p.stdout)['capture']['frames'] if p.stdout else None), (RET_OK, '', 9))


def main():
    if '--write-only' in sys.argv:
        write_only(sys.argv[sys.argv.index('--write-only') + 1])
        return 0
    with tempfile.TemporaryDirectory(prefix='rocestat-hostile.') as tmp:
        for name, spec in CASES.items():
            if not ONLY or name in ONLY:
                run_case(tmp, name, spec)
        run_fields(tmp)
        run_compressed(tmp)
        run_multi(tmp)
        run_many_qps(tmp)
        run_pairing_flood(tmp)
        run_many_bad_qps(tmp)
        run_many_gap_qps(tmp)
        run_many_host_pairs(tmp)
    return TALLY.finish()


if __name__ == '__main__':
    sys.exit(main())
