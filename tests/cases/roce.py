"""A small RoCE v2 capture builder for the analyzer's regression cases.

Frames are Ethernet + IPv4 + UDP 4791 with a valid ICRC (IBA Annex
A17.4.5.2: CRC-32 over 8 bytes of ones, the IPv4 header with TOS, TTL and
checksum masked, the UDP header with its checksum masked, and the BTH with
byte 4 masked), CM MADs laid out per IBA 12.6, nanosecond pcap records.
Written independently of rocestat's dissector: it only uses zlib's CRC-32.
"""
import struct, zlib

def ip2b(s): return bytes(int(x) for x in s.split('.'))

def icrc(ip, udp, bth_and_rest):
    ipm = bytearray(ip); ipm[1] = 0xFF; ipm[8] = 0xFF; ipm[10] = ipm[11] = 0xFF
    udpm = bytearray(udp); udpm[6] = udpm[7] = 0xFF
    b = bytearray(bth_and_rest); b[4] = 0xFF
    c = zlib.crc32(b'\xff' * 8 + bytes(ipm) + bytes(udpm) + bytes(b)) & 0xFFFFFFFF
    return struct.pack('<I', c)

def bth(opcode, dqp, psn, ackreq=0, padcnt=0, pkey=0xFFFF, fecn=0, becn=0, se=0):
    return struct.pack('>BBHBBHB', opcode, (se << 7) | (padcnt << 4), pkey, (fecn << 7) | (becn << 6),
                       (dqp >> 16) & 0xFF, dqp & 0xFFFF, (ackreq << 7)) + struct.pack('>I', psn & 0xFFFFFF)[1:]

def frame(src, dst, transport, ecn=0, sport=49152):
    pad = (-len(transport)) % 4
    body = transport
    udp_len = 8 + len(body) + 4
    ip_len = 20 + udp_len
    ip = struct.pack('>BBHHHBBH4s4s', 0x45, ecn, ip_len, 0, 0x4000, 64, 17, 0, ip2b(src), ip2b(dst))
    # IPv4 checksum
    s = sum(struct.unpack('>10H', ip)); s = (s & 0xFFFF) + (s >> 16); s = (s & 0xFFFF) + (s >> 16)
    ip = ip[:10] + struct.pack('>H', (~s) & 0xFFFF) + ip[12:]
    udp = struct.pack('>HHHH', sport, 4791, udp_len, 0)
    eth = b'\x02\x00\x00\x00\x00\x02' + b'\x02\x00\x00\x00\x00\x01' + b'\x08\x00'
    return eth + ip + udp + body + icrc(ip, udp, body)

def reth(va, rkey, dlen): return struct.pack('>QII', va, rkey, dlen)
def aeth(syn, msn): return struct.pack('>I', (syn << 24) | (msn & 0xFFFFFF))
def deth(qkey, srcqp): return struct.pack('>II', qkey, srcqp & 0xFFFFFF)

def mad(attr, tid, data, method=0x03):
    hdr = struct.pack('>BBBBHHQHHI', 1, 0x07, 2, method, 0, 0, tid, attr, 0, 0)
    data = data + b'\0' * (232 - len(data))
    return hdr + data

def be24(v): return struct.pack('>I', v & 0xFFFFFF)[1:]

def cm_req(comm, sid, qpn, spsn, tst=0, mtu=3):
    d = bytearray(232)
    d[0:4] = struct.pack('>I', comm); d[8:16] = struct.pack('>Q', sid)
    d[32:35] = be24(qpn); d[44:47] = be24(spsn)
    d[43] = (tst & 3) << 1
    d[50] = mtu << 4
    return bytes(d)

def cm_rep(lcomm, rcomm, qpn, spsn):
    d = bytearray(232)
    d[0:4] = struct.pack('>I', lcomm); d[4:8] = struct.pack('>I', rcomm)
    d[12:15] = be24(qpn); d[20:23] = be24(spsn)
    return bytes(d)

def cm_ids(lcomm, rcomm):
    return struct.pack('>II', lcomm, rcomm)

def cm_rej(lcomm, rcomm, msg, reason):
    return struct.pack('>IIBBH', lcomm, rcomm, msg << 6, 0, reason)

def cm_sidr_req(reqid, sid):
    return struct.pack('>IHHQ', reqid, 0xFFFF, 0, sid)

def cm_sidr_rep(reqid, status, qpn, sid, qkey):
    return struct.pack('>IBBH', reqid, status, 0, 0) + be24(qpn) + b'\0' + struct.pack('>QI', sid, qkey)

def cm_frame(src, dst, attr, data, tid=1):
    return frame(src, dst, bth(0x64, 1, 0) + deth(0x80010000, 1) + mad(attr, tid, data))

REQ, MRA, REJ, REP, RTU, DREQ, DREP, SIDR_REQ, SIDR_REP = range(0x10, 0x19)

class Pcap:
    def __init__(self, path):
        self.f = open(path, 'wb')
        self.f.write(struct.pack('<IHHiIII', 0xa1b23c4d, 2, 4, 0, 0, 65535, 1))  # ns pcap
        self.t = 1_700_000_000 * 10**9
    def add(self, fr, dt_ns=1000, ts=None):
        if ts is None:
            self.t += dt_ns; ts = self.t
        self.f.write(struct.pack('<IIII', ts // 10**9, ts % 10**9, len(fr), len(fr)) + fr)
    def close(self): self.f.close()
