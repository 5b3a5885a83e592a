"""Write a pcap of N RoCE v2 RC SEND Only frames, each to a distinct
destination QPN (raw IPv4 link type: 60 bytes a record), fast.

    python3 bigflows_gen.py OUT.pcap N [bad_icrc_every]
"""
import struct
import sys
import zlib

import gen


def write(path, n, bad_every=0):
    transport_len = 12
    udp_len = 8 + transport_len + 4
    ip_len = 20 + udp_len
    ip = bytearray(struct.pack('>BBHHHBBH4s4s', 0x45, 0, ip_len, 0, 0x4000, 64, 17, 0, gen.IP_A, gen.IP_B))
    ip[10:12] = struct.pack('>H', gen.ip_checksum(ip))
    udp = struct.pack('>HHHH', 49152, 4791, udp_len, 0)
    masked_ip = bytearray(ip)
    masked_ip[1] = 0xFF
    masked_ip[8] = 0xFF
    masked_ip[10:12] = b'\xff\xff'
    prefix_crc = zlib.crc32(b'\xff' * 8 + bytes(masked_ip) + udp[:6] + b'\xff\xff')
    head = bytes(ip) + udp
    rec_hdr = struct.Struct('<IIII')
    bth_s = struct.Struct('>BBHII')
    caplen = ip_len
    with open(path, 'wb', buffering=1 << 22) as f:
        f.write(gen.pcap_header(linktype=101))  # LINKTYPE_RAW
        chunk = []
        for i in range(n):
            qpn = 0x100 + i  # distinct, under 2^24
            # BTH: RC SEND Only, PadCnt 0, P_Key, byte 4 masked in the ICRC.
            b = bth_s.pack(0x04, 0, 0xFFFF, qpn & 0xFFFFFF, 0x80000000 | (i & 0xFFFFFF))
            masked = b[:4] + b'\xff' + b[5:]
            crc = zlib.crc32(masked, prefix_crc)
            if bad_every and i % bad_every == 0:
                crc ^= 1
            t = i * 100  # 100 ns apart
            chunk.append(rec_hdr.pack(1700000000 + t // 1000000000, (t % 1000000000) // 1000, caplen, caplen))
            chunk.append(head + b + struct.pack('<I', crc))
            if len(chunk) >= 131072:
                f.write(b''.join(chunk))
                chunk = []
        f.write(b''.join(chunk))


if __name__ == '__main__':
    write(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 0)
