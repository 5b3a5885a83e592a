"""Frame and capture-file builders for the hostile-input tests.

Everything is built from scratch in memory (no binary file is committed):
RoCE v2 over IPv4/UDP with a correct ICRC, CM MADs, pcap and pcapng files,
and the deliberately broken variants the tests need.
"""
import struct
import zlib

MAC_A = bytes.fromhex('020000000001')
MAC_B = bytes.fromhex('020000000002')
IP_A = bytes([192, 0, 2, 1])
IP_B = bytes([192, 0, 2, 2])

# BTH opcodes (IBA 9.2 Table 38).
RC_SEND_ONLY = 0x04
RC_WRITE_FIRST, RC_WRITE_MIDDLE, RC_WRITE_LAST, RC_WRITE_ONLY = 0x06, 0x07, 0x08, 0x0A
RC_ACK = 0x11
UD_SEND_ONLY = 0x64


def ip_checksum(hdr):
    s = 0
    for i in range(0, len(hdr), 2):
        s += (hdr[i] << 8) | hdr[i + 1]
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def bth(opcode, destqp, psn, padcnt=0, ackreq=0, se=0, pkey=0xFFFF):
    b0 = opcode
    b1 = (se << 7) | (padcnt << 4)  # MigReq 0, TVer 0
    return struct.pack('>BBH', b0, b1, pkey) + struct.pack('>I', destqp & 0xFFFFFF) + \
        struct.pack('>I', (ackreq << 31) | (psn & 0xFFFFFF))


def reth(va, rkey, dmalen):
    return struct.pack('>QII', va, rkey, dmalen)


def aeth(syndrome, msn):
    return struct.pack('>I', (syndrome << 24) | (msn & 0xFFFFFF))


def deth(qkey, srcqp):
    return struct.pack('>II', qkey, srcqp & 0xFFFFFF)


def icrc(ip_hdr, udp_hdr, transport):
    """RoCE v2 ICRC (IBA Annex A17.3.3): CRC-32 over 8 bytes of ones, the IP
    header with TOS/TTL/checksum masked to ones, UDP with its checksum masked,
    and BTH byte 4 masked; appended least significant byte first."""
    ip = bytearray(ip_hdr)
    ip[1] = 0xFF
    ip[8] = 0xFF
    ip[10:12] = b'\xff\xff'
    udp = bytearray(udp_hdr)
    udp[6:8] = b'\xff\xff'
    t = bytearray(transport)
    t[4] = 0xFF
    crc = zlib.crc32(b'\xff' * 8 + bytes(ip) + bytes(udp) + bytes(t)) & 0xFFFFFFFF
    return struct.pack('<I', crc)


def roce_v2(transport, src=IP_A, dst=IP_B, sport=49152, ip_len_delta=0, udp_len_delta=0, ecn=0, good_icrc=True):
    """Ethernet + IPv4 + UDP 4791 + transport (BTH...payload) + ICRC.
    The *_delta arguments make the IP total length / UDP length lie."""
    udp_len = 8 + len(transport) + 4
    ip_len = 20 + udp_len
    ip = bytearray(struct.pack('>BBHHHBBH4s4s', 0x45, ecn, ip_len + ip_len_delta, 0, 0x4000, 64, 17, 0, src, dst))
    ip[10:12] = struct.pack('>H', ip_checksum(ip))
    udp = struct.pack('>HHHH', sport, 4791, udp_len + udp_len_delta, 0)
    crc = icrc(bytes(ip), udp, transport) if good_icrc else b'\0\0\0\0'
    return MAC_B + MAC_A + b'\x08\x00' + bytes(ip) + udp + transport + crc


# ---- CM MADs (IBA 13.4, 12.6) ---------------------------------------------

CM_REQ, CM_MRA, CM_REJ, CM_REP, CM_RTU = 0x10, 0x11, 0x12, 0x13, 0x14
CM_SIDR_REQ, CM_SIDR_REP = 0x17, 0x18


def mad(attr_id, data, tid=0x1234):
    hdr = struct.pack('>BBBBHHQHHI', 1, 0x07, 2, 0x03, 0, 0, tid, attr_id, 0, 0)
    body = data + b'\0' * (232 - len(data))
    return hdr + body[:232]


def cm_frame(mad_bytes, src=IP_A, dst=IP_B, psn=0):
    t = bth(UD_SEND_ONLY, 1, psn) + deth(0x80010000, 1) + mad_bytes
    return roce_v2(t, src, dst)


def rej_mad(info_len, comm=0x11, reason=28):
    # 0 LocalCommID | 4 RemoteCommID | 8 MsgRejected(2)+rsv | 9 RejectInfoLength(7)+rsv | 10 Reason
    d = struct.pack('>IIBBH', comm, 0x22, 0 << 6, info_len << 1, reason)
    return mad(CM_REJ, d)


def sidr_rep_mad(add_info_len, req_id=7):
    # 0 RequestID | 4 Status | 5 AddInfoLen | 6 rsv | 8 QPN(24) | 12 ServiceID | 20 QKey | 24 AddInfo
    d = struct.pack('>IBBHIQI', req_id, 0, add_info_len, 0, 0x42 << 8, 0x0000000001110000 | 7471, 0x1234)
    return mad(CM_SIDR_REP, d)


# ---- capture files --------------------------------------------------------

T0 = 1700000000


def pcap_header(linktype=1, snaplen=262144, nano=False):
    return struct.pack('<IHHiIII', 0xa1b23c4d if nano else 0xa1b2c3d4, 2, 4, 0, 0, snaplen, linktype)


def pcap_record(frame, i, caplen=None, wirelen=None, usec_step=1000):
    t = i * usec_step
    return struct.pack('<IIII', T0 + t // 1000000, t % 1000000,
                       len(frame) if caplen is None else caplen,
                       len(frame) if wirelen is None else wirelen) + frame


def pcap(frames, linktype=1, snaplen=262144):
    return pcap_header(linktype, snaplen) + b''.join(pcap_record(f, i) for i, f in enumerate(frames))


def pcapng_block(btype, body):
    body += b'\0' * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack('<II', btype, n) + body + struct.pack('<I', n)


def pcapng(frames, linktype=1, extra_blocks=None):
    """pcapng with microsecond timestamps; extra_blocks maps a frame index to
    raw blocks inserted before that frame."""
    out = [pcapng_block(0x0A0D0D0A, struct.pack('<IHHq', 0x1A2B3C4D, 1, 0, -1)),
           pcapng_block(1, struct.pack('<HHI', linktype, 0, 262144))]
    for i, f in enumerate(frames):
        for b in (extra_blocks or {}).get(i, []):
            out.append(b)
        ts = T0 * 1000000 + i * 1000
        out.append(pcapng_block(6, struct.pack('<IIIII', 0, ts >> 32, ts & 0xFFFFFFFF, len(f), len(f)) + f))
    return b''.join(out)


def rc_write_stream(n_msgs=3, pkts_per_msg=3, qp=0x12, peer_qp=0x11, start_psn=0x100, mtu=1024, acks=True):
    """A clean RC RDMA WRITE exchange: each message FIRST/MIDDLE.../LAST with
    an ACK per message; returns the list of frames."""
    frames = []
    psn = start_psn
    msn = 0
    for m in range(n_msgs):
        for k in range(pkts_per_msg):
            if pkts_per_msg == 1:
                op, hdrs = RC_WRITE_ONLY, reth(0x10000 + m * 0x1000, 0x77, mtu)
            elif k == 0:
                op, hdrs = RC_WRITE_FIRST, reth(0x10000 + m * 0x100000, 0x77, mtu * pkts_per_msg)
            elif k == pkts_per_msg - 1:
                op, hdrs = RC_WRITE_LAST, b''
            else:
                op, hdrs = RC_WRITE_MIDDLE, b''
            last = k == pkts_per_msg - 1
            t = bth(op, qp, psn, ackreq=1 if last else 0) + hdrs + bytes([m & 0xFF]) * mtu
            frames.append(roce_v2(t))
            psn = (psn + 1) & 0xFFFFFF
        msn += 1
        if acks:
            frames.append(roce_v2(bth(RC_ACK, peer_qp, (psn - 1) & 0xFFFFFF) + aeth(0x1F, msn), src=IP_B, dst=IP_A))
    return frames
