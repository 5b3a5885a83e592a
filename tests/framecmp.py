#!/usr/bin/env python3
"""framecmp.py — compare the frames of capture files, for tests/live_netns.sh.

Reads pcap (usec or nsec, either byte order) and pcapng (SHB/IDB/EPB/SPB)
itself, so the files rocestat writes are checked by a reader that shares no
code with it. Which source frames are RoCE is decided here too, from the
bytes: EtherType 0x8915, or IPv4/IPv6 UDP destination port 4791 (or
--port), under up to two VLAN tags.

  framecmp.py count FILE                      number of frames
  framecmp.py roce SRC GOT... [--skip N] [--first N] [--snap N] [--port P]
        GOT (the files one after another) holds exactly the RoCE frames of
        SRC, byte for byte and in order
        (without the first N of them with --skip; only the first N of the
        rest with --first; cut to N bytes, with the wire length kept, with
        --snap)
  framecmp.py all SRC GOT                     GOT holds every frame of SRC
  framecmp.py concat WHOLE PART...            the PARTs in order are WHOLE
  framecmp.py vlan SRC OUT TAGS               write SRC's frames behind TAGS (1 or 2) VLAN tags
Exits 1 with the first difference on stderr.
"""
import struct
import sys


def read_frames(path):
    """[(caplen_bytes, wirelen)] of every frame."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 4:
        raise SystemExit(f"{path}: not a capture file ({len(data)} bytes)")
    magic = data[:4]
    if magic == b"\x0a\x0d\x0d\x0a":
        return read_pcapng(path, data)
    for endian in "<>":
        (m,) = struct.unpack(endian + "I", magic)
        if m in (0xA1B2C3D4, 0xA1B23C4D):
            break
    else:
        raise SystemExit(f"{path}: unknown magic {magic.hex()}")
    frames, off = [], 24
    while off < len(data):
        if off + 16 > len(data):
            raise SystemExit(f"{path}: torn record header at offset {off}")
        _, _, incl, orig = struct.unpack(endian + "IIII", data[off:off + 16])
        if off + 16 + incl > len(data):
            raise SystemExit(f"{path}: torn frame at offset {off}")
        frames.append((data[off + 16:off + 16 + incl], orig))
        off += 16 + incl
    return frames


def read_pcapng(path, data):
    frames, off, endian = [], 0, "<"
    while off < len(data):
        if off + 12 > len(data):
            raise SystemExit(f"{path}: torn block at offset {off}")
        if data[off:off + 4] == b"\x0a\x0d\x0d\x0a":
            endian = "<" if data[off + 8:off + 12] == b"\x4d\x3c\x2b\x1a" else ">"
        btype, blen = struct.unpack(endian + "II", data[off:off + 8])
        if blen < 12 or blen % 4 or off + blen > len(data):
            raise SystemExit(f"{path}: bad block length {blen} at offset {off}")
        (trail,) = struct.unpack(endian + "I", data[off + blen - 4:off + blen])
        if trail != blen:
            raise SystemExit(f"{path}: block at {off}: trailing length {trail} != {blen}")
        if btype == 6:
            _, _, _, cap, orig = struct.unpack(endian + "IIIII", data[off + 8:off + 28])
            frames.append((data[off + 28:off + 28 + cap], orig))
        elif btype == 3:
            (orig,) = struct.unpack(endian + "I", data[off + 8:off + 12])
            frames.append((data[off + 12:off + 12 + orig], orig))
        off += blen
    return frames


def is_roce(frame, ports):
    off = 12
    for _ in range(3):
        if len(frame) < off + 2:
            return False
        (etype,) = struct.unpack("!H", frame[off:off + 2])
        if etype in (0x8100, 0x88A8, 0x9100):
            off += 4
            continue
        break
    off += 2
    if etype == 0x8915:
        return True
    if etype == 0x0800 and len(frame) >= off + 20:
        ihl = (frame[off] & 0x0F) * 4
        if frame[off + 9] != 17 or len(frame) < off + ihl + 4:
            return False
        return struct.unpack("!H", frame[off + ihl + 2:off + ihl + 4])[0] in ports
    if etype == 0x86DD and len(frame) >= off + 44:
        if frame[off + 6] != 17:
            return False
        return struct.unpack("!H", frame[off + 42:off + 44])[0] in ports
    return False


def compare(want, got, what):
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g:
            wb, wl = w
            gb, gl = g
            at = next((k for k in range(min(len(wb), len(gb))) if wb[k] != gb[k]), min(len(wb), len(gb)))
            sys.exit(f"{what}: frame {i + 1} differs: expected {len(wb)} bytes (wire {wl}), "
                     f"got {len(gb)} (wire {gl}); first difference at byte {at}")
    if len(want) != len(got):
        sys.exit(f"{what}: expected {len(want)} frames, got {len(got)}")


def main(argv):
    cmd, args = argv[1], argv[2:]
    opts = {}
    while len(args) >= 2 and args[-2].startswith("--"):
        opts[args[-2]] = int(args[-1])
        args = args[:-2]
    ports = {4791} | ({opts["--port"]} if "--port" in opts else set())
    if cmd == "count":
        print(len(read_frames(args[0])))
    elif cmd == "roce":
        src, got = read_frames(args[0]), []
        for p in args[1:]:
            got += read_frames(p)
        want = [f for f in src if is_roce(f[0], ports)]
        if "--skip" in opts:
            want = want[opts["--skip"]:]
        if "--first" in opts:
            want = want[:opts["--first"]]
        if "--snap" in opts:
            want = [(b[:opts["--snap"]], w) for b, w in want]
        compare(want, got, f"{' + '.join(args[1:])} against the RoCE frames of {args[0]}")
    elif cmd == "all":
        compare(read_frames(args[0]), read_frames(args[1]), f"{args[1]} against {args[0]}")
    elif cmd == "concat":
        parts = []
        for p in args[1:]:
            parts += read_frames(p)
        compare(read_frames(args[0]), parts, f"{' + '.join(args[1:])} against {args[0]}")
    elif cmd == "vlan":
        src, out, tags = read_frames(args[0]), args[1], int(args[2])
        tag = {1: b"\x81\x00\x00\x0a", 2: b"\x88\xa8\x00\x0a\x81\x00\x00\x0b"}[tags]
        with open(out, "wb") as f:
            f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
            for i, (b, w) in enumerate(src):
                b = b[:12] + tag + b[12:]
                f.write(struct.pack("<IIII", 1700000000 + i // 1000, (i % 1000) * 1000, len(b), w + len(tag)))
                f.write(b)
    else:
        sys.exit(f"framecmp.py: unknown command {cmd}")


if __name__ == "__main__":
    main(sys.argv)
