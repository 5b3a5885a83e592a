#!/usr/bin/env python3
"""Build the fuzzers' seed corpora from capture files.

    mkseeds.py OUTDIR CAPTURE...

writes
    OUTDIR/fuzz_frame/    single frames, each prefixed with the 3-byte header
                          fuzz_frame.c expects (link type, caplen/wirelen mode);
                          Ethernet frames are also re-wrapped as Linux SLL,
                          SLL2, raw IP, DLT_IPV4/IPV6 and ERF, so every link
                          type the dissector supports has seeds
    OUTDIR/fuzz_capture/  small whole captures: each input's first frames as
                          pcap (micro- and nanosecond) and as pcapng
    OUTDIR/fuzz_cm/       the MADs of the CM frames, prefixed with their
                          2-byte wire length (fuzz_cm.c's layout)
and the synthetic frames and captures of synth.py (every opcode, RoCE v1,
IPv6, InfiniBand with and without GRH, PadCnt, VLAN stacks).
At most PER_FILE distinct seeds of each kind come from one capture, so large
captures do not drown the rest. Only pcap inputs are read (all shared
captures are pcap); anything else is skipped with a note.
"""
import hashlib
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: pcaprecs

import pcaprecs  # noqa: E402 - tests/pcaprecs.py

PER_FILE = 20
REWRAP_PER_FILE = 6
CAPTURE_FRAMES = 40

# fuzz_frame.c's link type index by LINKTYPE_ value as written in files.
LT_INDEX = {1: 0, 113: 1, 276: 2, 101: 3, 228: 4, 229: 5, 247: 6, 197: 7}


def read_pcap(path):
    """(linktype, [(sec, ns, bytes, wirelen)]) of a classic pcap file, up to
    where it ends inside a record; None if it is not one."""
    try:
        linktype, recs, _ = pcaprecs.read_pcap(path)
    except ValueError:
        return None
    return linktype, [(sec, ns, b, wirelen) for sec, ns, _, wirelen, b in recs]


def put(dirpath, blob, seen):
    h = hashlib.sha1(blob).hexdigest()
    if h in seen:
        return False
    seen.add(h)
    with open(os.path.join(dirpath, h), 'wb') as f:
        f.write(blob)
    return True


def pcap_file(linktype, frames, nano):
    magic = 0xa1b23c4d if nano else 0xa1b2c3d4
    out = [struct.pack('<IHHiIII', magic, 2, 4, 0, 0, 262144, linktype)]
    for sec, ns, pkt, wirelen in frames:
        out.append(struct.pack('<IIII', sec, ns if nano else ns // 1000, len(pkt), wirelen) + pkt)
    return b''.join(out)


def pcapng_block(btype, body):
    body += b'\0' * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack('<II', btype, n) + body + struct.pack('<I', n)


def pcapng_file(linktype, frames):
    shb = pcapng_block(0x0A0D0D0A, struct.pack('<IHHq', 0x1A2B3C4D, 1, 0, -1))
    # if_tsresol = 9 (nanoseconds), then opt_endofopt.
    idb = pcapng_block(1, struct.pack('<HHI', linktype, 0, 262144) + struct.pack('<HHB3x', 9, 1, 9) + b'\0' * 4)
    out = [shb, idb]
    for i, (sec, ns, pkt, wirelen) in enumerate(frames):
        ts = sec * 1000000000 + ns
        if i == 1:  # an unknown block type between packets: must be skipped
            out.append(pcapng_block(0x0BAD0000, b'rocestat seed'))
        out.append(pcapng_block(6, struct.pack('<IIIII', 0, ts >> 32, ts & 0xFFFFFFFF, len(pkt), wirelen) + pkt))
    return b''.join(out)


def rewraps(pkt):
    """The Ethernet frame re-wrapped for the other link types: (index, bytes)."""
    if len(pkt) < 14:
        return []
    etype = struct.unpack('>H', pkt[12:14])[0]
    inner = pkt[14:]
    out = []
    # Linux SLL: pkttype, hatype, halen, addr[8], protocol.
    out.append((1, struct.pack('>HHH', 0, 1, 6) + pkt[6:12] + b'\0\0' + pkt[12:14] + inner))
    # SLL2: protocol, reserved, ifindex, hatype, pkttype, halen, addr[8].
    out.append((2, struct.pack('>HHIHBB', etype, 0, 2, 1, 0, 6) + pkt[6:12] + b'\0\0' + inner))
    # ERF type 2 (Ethernet): ts(8) type flags rlen(2) lctr(2) wlen(2), 2 pad.
    rlen = 16 + 2 + len(pkt)
    out.append((7, struct.pack('<Q', 0x12345678 << 32) + struct.pack('>BBHHH', 2, 4, rlen, 0, len(pkt)) + b'\0\0' + pkt))
    if etype == 0x0800:
        out += [(3, inner), (4, inner)]
        rlen = 16 + len(inner)
        out.append((7, struct.pack('<Q', 1 << 32) + struct.pack('>BBHHH', 22, 4, rlen, 0, len(inner)) + inner))
    elif etype == 0x86DD:
        out += [(3, inner), (5, inner)]
    return out


def mad_of(linktype, pkt):
    """The MAD bytes and wire length of a UD frame to QP1, or None."""
    off = None
    if linktype == 1 and len(pkt) >= 14:
        etype = struct.unpack('>H', pkt[12:14])[0]
        if etype == 0x0800 and len(pkt) >= 14 + 20 + 8:
            ihl = (pkt[14] & 15) * 4
            udp = 14 + ihl
            if len(pkt) >= udp + 8 and struct.unpack('>H', pkt[udp + 2:udp + 4])[0] == 4791:
                off = udp + 8
        elif etype == 0x86DD and len(pkt) >= 14 + 40 + 8:
            udp = 14 + 40
            if struct.unpack('>H', pkt[udp + 2:udp + 4])[0] == 4791:
                off = udp + 8
        elif etype == 0x8915:
            off = 14 + 40
    elif linktype == 247 and len(pkt) >= 8:
        off = 8 + (40 if (pkt[1] & 3) == 3 else 0)
    if off is None or len(pkt) < off + 12 + 8 + 24:
        return None
    bth = pkt[off:off + 12]
    destqp = struct.unpack('>I', bth[4:8])[0] & 0xFFFFFF
    if destqp not in (0, 1) or bth[0] != 0x64:
        return None
    mad = pkt[off + 20:]
    mad = mad[:256 + 4] if len(mad) >= 256 else mad
    return mad[:256]


def main():
    outdir, paths = sys.argv[1], sys.argv[2:]
    dirs = {}
    for t in ('fuzz_frame', 'fuzz_capture', 'fuzz_cm'):
        dirs[t] = os.path.join(outdir, t)
        os.makedirs(dirs[t], exist_ok=True)
    seen = {t: set() for t in dirs}
    counts = {t: 0 for t in dirs}
    for path in paths:
        r = read_pcap(path)
        if r is None:
            print('mkseeds: %s: not a pcap file, skipped' % path, file=sys.stderr)
            continue
        linktype, frames = r
        if linktype not in LT_INDEX:
            continue
        idx = LT_INDEX[linktype]
        # Single frames: distinct by (length, first 64 bytes) so one bulk
        # transfer does not give hundreds of near-identical seeds.
        n = 0
        kinds = set()
        for i, (_, _, pkt, wirelen) in enumerate(frames):
            mad = mad_of(linktype, pkt)
            if mad is not None and put(dirs['fuzz_cm'], struct.pack('>H', len(mad)) + mad, seen['fuzz_cm']):
                counts['fuzz_cm'] += 1
            key = (len(pkt), pkt[:14])
            if key in kinds or n >= PER_FILE:
                continue
            kinds.add(key)
            mode = 0 if wirelen == len(pkt) else 1
            d = max(0, min(wirelen - len(pkt), 0xFFFF))
            if put(dirs['fuzz_frame'], bytes([idx | mode << 3]) + struct.pack('>H', d) + pkt, seen['fuzz_frame']):
                counts['fuzz_frame'] += 1
                n += 1
            if linktype == 1 and n <= REWRAP_PER_FILE:
                for j, w in rewraps(pkt):
                    if put(dirs['fuzz_frame'], bytes([j]) + b'\0\0' + w, seen['fuzz_frame']):
                        counts['fuzz_frame'] += 1
        head = frames[:CAPTURE_FRAMES]
        for blob in (pcap_file(linktype, head, False), pcap_file(linktype, head, True), pcapng_file(linktype, head)):
            if put(dirs['fuzz_capture'], blob, seen['fuzz_capture']):
                counts['fuzz_capture'] += 1
    # Synthetic frames and captures (synth.py): every opcode, carrier, ...
    import synth
    for idx, fr in synth.frames():
        if put(dirs['fuzz_frame'], bytes([idx]) + b'\0\0' + fr, seen['fuzz_frame']):
            counts['fuzz_frame'] += 1
    for blob in synth.captures():
        if put(dirs['fuzz_capture'], blob, seen['fuzz_capture']):
            counts['fuzz_capture'] += 1
    print('mkseeds: ' + ', '.join('%s %d' % (t, counts[t]) for t in sorted(counts)))


if __name__ == '__main__':
    main()
