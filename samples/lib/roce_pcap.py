"""Classic pcap reading and writing, and the RoCE ICRC, for the scripts
that derive samples from a real capture (v1rewrite.py, portrewrite.py).

The ICRC (IBA vol 1 7.8.1; Annex A16 for RoCE v1, A17.4.5.2 for v2) is
Ethernet's CRC-32 (zlib.crc32) over 8 bytes of ones standing for the LRH,
then the network header with its variant fields set to ones (IPv4: TOS,
TTL, header checksum; IPv6 and the v1 GRH: traffic class, flow label, hop
limit), for v2 the UDP header with its checksum set to ones, the BTH with
its resv8a byte (FECN, BECN, reserved) set to ones, and the rest of the
packet up to the ICRC; it is sent least significant byte first.
"""
import json
import os
import struct
import zlib

ETH_IPV4, ETH_IPV6, ETH_ROCE_V1 = 0x0800, 0x86DD, 0x8915
ROCE_V2_PORT = 4791


def read_pcap(path):
    """(header bytes, byte order, [(record header fields, frame bytes)])."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        end = "<"
    elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
        end = ">"
    else:
        raise SystemExit(f"{path}: not a classic pcap file")
    if struct.unpack(end + "I", data[20:24])[0] != 1:
        raise SystemExit(f"{path}: link type is not Ethernet")
    frames, off = [], 24
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack(end + "IIII", data[off:off + 16])
        frames.append(([sec, frac, incl, orig], bytearray(data[off + 16:off + 16 + incl])))
        off += 16 + incl
    return data[:24], end, frames


def write_pcap(path, header, end, frames):
    with open(path, "wb") as f:
        f.write(header)
        for rec, frame in frames:
            sec, frac, incl, orig = rec
            # a frame that grew or shrank keeps its capture-length/length gap
            f.write(struct.pack(end + "IIII", sec, frac, len(frame), orig + len(frame) - incl))
            f.write(frame)


def icrc(masked_headers, rest):
    """The ICRC's 4 bytes over the masked headers (from the 8 ones on, to
    the end of the BTH) and the rest (after the BTH, up to the ICRC)."""
    return struct.pack("<I", zlib.crc32(bytes(rest), zlib.crc32(bytes(masked_headers))))


def masked_bth(bth):
    b = bytearray(bth[:12])
    b[4] = 0xFF
    return b


def masked_grh(grh):
    g = bytearray(grh[:40])
    g[0] |= 0x0F
    g[1] = g[2] = g[3] = 0xFF
    g[7] = 0xFF
    return g


def v2_ipv4_icrc(frame):
    """The ICRC a RoCE v2 frame over IPv4 (no options) must carry."""
    ip = bytearray(frame[14:34])
    ip[1] = ip[8] = 0xFF
    ip[10] = ip[11] = 0xFF
    udp = bytearray(frame[34:42])
    udp[6] = udp[7] = 0xFF
    return icrc(b"\xff" * 8 + ip + udp + masked_bth(frame[42:54]), frame[54:-4])


def v1_icrc(frame):
    """The ICRC a RoCE v1 frame (Ethernet, GRH, BTH) must carry."""
    return icrc(b"\xff" * 8 + masked_grh(frame[14:54]) + masked_bth(frame[54:66]), frame[66:-4])


def roce_v2_ipv4(frame):
    """True for an IPv4 (no options) UDP datagram to port 4791."""
    return (len(frame) >= 58 and struct.unpack("!H", frame[12:14])[0] == ETH_IPV4
            and frame[14] == 0x45 and frame[23] == 17
            and struct.unpack("!H", frame[36:38])[0] == ROCE_V2_PORT)


def write_derived(out, by, args, truth, derived, note, log_lines):
    """A derived sample's OUT.truth.json (the source truth, its name, what
    was derived and how, and the note saying what is true of it) and
    OUT.log. by: the script; args: its arguments (SOURCE.pcap first, then
    SOURCE.truth.json); derived: its own keys of "derived"; log_lines: the
    log's lines after the two naming the sample and the command."""
    name = os.path.basename(out)
    truth["name"] = name
    truth["derived"] = dict({"from": {"pcap": args[0], "truth": args[1]}, "by": by}, **derived)
    truth.setdefault("notes", []).append({"side": "sample", "text": note})
    with open(out + ".truth.json", "w") as f:
        json.dump(truth, f, indent=1)
        f.write("\n")
    with open(out + ".log", "w") as f:
        f.write("".join("# %s\n" % line for line in ["sample: " + name, " ".join(["derived by", by] + args)] + log_lines))
