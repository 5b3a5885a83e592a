"""Classic pcap files read record by record, for the test scripts that feed
rocestat captures or check what it read (walk_check.py, samples_truth.py,
fuzz/mkseeds.py). rocestat has its own readers; this one stays plain."""
import struct

# magic -> (byte order, nanosecond timestamps)
MAGICS = {b"\xd4\xc3\xb2\xa1": ("<", False), b"\x4d\x3c\xb2\xa1": ("<", True),
          b"\xa1\xb2\xc3\xd4": (">", False), b"\xa1\xb2\x3c\x4d": (">", True)}


def read_pcap(path):
    """(linktype, [(sec, ns, caplen, wirelen, bytes)], complete); complete is
    False when the file ends inside a record (that record is left out).
    ValueError if it is not a classic pcap file."""
    with open(path, "rb") as fh:
        data = fh.read()
    kind = MAGICS.get(data[:4]) if len(data) >= 24 else None
    if kind is None:
        raise ValueError("%s: not a classic pcap file" % path)
    endian, nano = kind
    linktype = struct.unpack(endian + "I", data[20:24])[0] & 0x0FFFFFFF
    recs, off = [], 24
    while off + 16 <= len(data):
        sec, frac, caplen, wirelen = struct.unpack(endian + "IIII", data[off:off + 16])
        if off + 16 + caplen > len(data):
            return linktype, recs, False
        recs.append((sec, frac if nano else frac * 1000, caplen, wirelen, data[off + 16:off + 16 + caplen]))
        off += 16 + caplen
    return linktype, recs, off == len(data)


def write_pcap(path, linktype, recs):
    """Records as read_pcap() gives them, into a nanosecond pcap file (each
    record's captured length is the length of its bytes)."""
    with open(path, "wb") as fh:
        fh.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 262144, linktype))
        for sec, ns, _, wirelen, b in recs:
            fh.write(struct.pack("<IIII", sec, ns, len(b), wirelen))
            fh.write(b)
