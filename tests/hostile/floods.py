"""Write a flood capture: N frames, each opening something rocestat must
track (raw IP link type, RoCE v2, good ICRCs), fast.

    python3 floods.py KIND OUT.pcap N
      qps    RC SEND Only to N distinct destination QPNs
      ud     UD SEND Only (DETH) to N distinct destination QPNs
      v6src  RC SEND Only from N distinct IPv6 sources
      cmreq  CM REQs (QP1) with N distinct Local Communication IDs and QPNs
      capsules  RC SEND Only to N distinct destination QPNs, each an NVMe-oF
             command capsule (no CM: every pair is one to recognise by shape)
"""
import struct
import sys
import zlib

import gen

REC = struct.Struct('<IIII')
BTH = struct.Struct('>BBHII')


def _v4(payload_len, src=gen.IP_A, dst=gen.IP_B):
    udp_len = 8 + payload_len + 4
    ip = bytearray(struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + udp_len, 0, 0x4000, 64, 17, 0, src, dst))
    ip[10:12] = struct.pack('>H', gen.ip_checksum(ip))
    udp = struct.pack('>HHHH', 49152, 4791, udp_len, 0)
    masked = bytearray(ip)
    masked[1] = masked[8] = 0xFF
    masked[10:12] = b'\xff\xff'
    return bytes(ip) + udp, zlib.crc32(b'\xff' * 8 + bytes(masked) + udp[:6] + b'\xff\xff')


def _v6(src, payload_len):
    udp_len = 8 + payload_len + 4
    ip = struct.pack('>IHBB16s16s', 6 << 28, udp_len, 17, 64, src, b'\x20\x01\x0d\xb8' + b'\0' * 11 + b'\x02')
    udp = struct.pack('>HHHH', 49152, 4791, udp_len, 0)
    # IBA A17.3.3: TClass, Flow Label and Hop Limit masked to ones
    masked = b'\x6f\xff\xff\xff' + ip[4:7] + b'\xff' + ip[8:]
    return ip + udp, zlib.crc32(b'\xff' * 8 + masked + udp[:6] + b'\xff\xff')


def _req_mad(i):
    # IBA 12.6.5 REQ: Local Comm ID, reserved, Service ID, Local CA GUID,
    # reserved, Local Q_Key, Local QPN (24) | Responder Resources, ...
    d = struct.pack('>IIQQIII', 0x10000000 + i, 0, 0x0000000001060000 | 7471, 0x0002c90300000000 + i, 0, 0,
                    ((0x100 + i) & 0xFFFFFF) << 8)
    return gen.mad(gen.CM_REQ, d, tid=i)


def frames(kind, n):
    if kind in ('qps', 'ud'):
        extra = gen.deth(0x80010000, 1) if kind == 'ud' else b''
        head, crc0 = _v4(12 + len(extra))
        op = gen.UD_SEND_ONLY if kind == 'ud' else gen.RC_SEND_ONLY
        for i in range(n):
            b = BTH.pack(op, 0, 0xFFFF, (0x100 + i) & 0xFFFFFF, i & 0xFFFFFF) + extra
            yield head + b + struct.pack('<I', zlib.crc32(b[:4] + b'\xff' + b[5:], crc0))
    elif kind == 'v6src':
        for i in range(n):
            head, crc0 = _v6(b'\x20\x01\x0d\xb8\x01' + struct.pack('>I', i) + b'\0' * 6 + b'\x01', 12)
            b = BTH.pack(gen.RC_SEND_ONLY, 0, 0xFFFF, 0x11, i & 0xFFFFFF)
            yield head + b + struct.pack('<I', zlib.crc32(b[:4] + b'\xff' + b[5:], crc0))
    elif kind == 'capsules':
        # NVMe 1.4 4.2: Read, PSDT 01b (SGLs, as NVMe-oF requires), CID 1, NSID 1
        cap = struct.pack('<BBHI', 0x02, 0x40, 1, 1) + b'\0' * 56
        head, crc0 = _v4(12 + len(cap))
        for i in range(n):
            b = BTH.pack(gen.RC_SEND_ONLY, 0, 0xFFFF, (0x100 + i) & 0xFFFFFF, i & 0xFFFFFF) + cap
            yield head + b + struct.pack('<I', zlib.crc32(b[:4] + b'\xff' + b[5:], crc0))
    elif kind == 'cmreq':
        head, crc0 = _v4(12 + 8 + 256)
        for i in range(n):
            b = BTH.pack(gen.UD_SEND_ONLY, 0, 0xFFFF, 1, i & 0xFFFFFF) + gen.deth(0x80010000, 1) + _req_mad(i)
            yield head + b + struct.pack('<I', zlib.crc32(b[:4] + b'\xff' + b[5:], crc0))
    else:
        raise ValueError(kind)


def write(kind, path, n):
    with open(path, 'wb', buffering=1 << 22) as f:
        f.write(gen.pcap_header(linktype=101))
        for i, fr in enumerate(frames(kind, n)):
            t = i * 100
            f.write(REC.pack(gen.T0 + t // 10**9, (t % 10**9) // 1000, len(fr), len(fr)) + fr)


if __name__ == '__main__':
    write(sys.argv[1], sys.argv[2], int(sys.argv[3]))
