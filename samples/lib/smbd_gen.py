#!/usr/bin/env python3
"""smbd_gen.py OUT_DIR [--loss]

A GENERATED SMB Direct session over RoCE v2 RC, for the decoder's tests:
Debian 12's kernel is built without SMB Direct (CONFIG_CIFS_SMB_DIRECT and
CONFIG_SMB_SERVER_SMBDIRECT unset), so no rxe guest can record one. Every
byte follows the specifications: the IBTA CM MADs (REQ, REP, RTU; vol 1
12.6) with the RDMA CM IP private data (Annex A11.6) to port 5445, RC
SENDs, RDMA READ/WRITE and ACKs as RXE sends them (every SEND and every
WRITE's last packet AckReq, ACK syndrome 0x1f, MSN counting messages), the
SMB Direct negotiate request/response and data transfer messages
(MS-SMBD 2.2.1-2.2.3, fragmented by RemainingDataLength when an SMB2
message is longer than MaxSendSize - 24), the SMB2 messages inside
(MS-SMB2 2.2: NEGOTIATE, SESSION_SETUP with NTLMSSP, TREE_CONNECT, CREATE,
WRITE inline and over the RDMA channel, READ over the RDMA channel, an
interim async STATUS_PENDING, CLOSE) with SMB_DIRECT_BUFFER_DESCRIPTOR_V1,
the RDMA READ (for WRITE) and RDMA WRITE (for READ) that move the data with
the descriptor's token as R_Key, and every ICRC (roce_pcap.py).

--loss: one packet of the first RDMA WRITE (a Middle) is lost before the
capture point; the client's responder NAKs (PSN sequence error) at the next
packet, drops the rest, and the server goes back N: everything from the
lost PSN on is sent again.

Writes OUT_DIR/smbd_gen[_loss].pcap and .truth.txt: the workload as planned
here (every SMB Direct message, every SMB2 message with its command,
message ID, credits, status and lengths, every RDMA transfer, the loss),
and .requests.json: per SMB2 request the frames of its SENDs, responses
(interim and final) and RDMA transfers, its status, the time from its last
frame to its final response's last frame, and which of them were re-sent.
The truth is the plan, not a reading of the capture.
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import roce_pcap as rp  # noqa: E402

MTU = 1024
SMBD_PORT = 5445
MAX_SEND = 1024          # MS-SMBD MaxSendSize/MaxReceiveSize both ways: one SEND = one packet
DT_HDR = 24              # data transfer header with its padding to DataOffset 24
MAX_FRAG = MAX_SEND - DT_HDR

CMD = {"NEGOTIATE": 0, "SESSION_SETUP": 1, "TREE_CONNECT": 3, "CREATE": 5, "CLOSE": 6, "FLUSH": 7, "READ": 8,
       "WRITE": 9, "ECHO": 13, "QUERY_INFO": 16}
STATUS_OK, STATUS_PENDING, STATUS_MORE = 0x00000000, 0x00000103, 0xC0000016
FLAG_RESPONSE, FLAG_ASYNC, FLAG_RELATED = 0x1, 0x2, 0x4
OP = {"SEND_ONLY": 0x04, "WRITE_FIRST": 0x06, "WRITE_MIDDLE": 0x07, "WRITE_LAST": 0x08, "WRITE_ONLY": 0x0A,
      "READ_REQ": 0x0C, "READ_RESP_FIRST": 0x0D, "READ_RESP_MIDDLE": 0x0E, "READ_RESP_LAST": 0x0F,
      "READ_RESP_ONLY": 0x10, "ACK": 0x11, "UD_SEND_ONLY": 0x64}


def le(fmt, *v):
    return struct.pack("<" + fmt, *v)


def ip_csum(h):
    s = sum(struct.unpack("!10H", h))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


class Host:
    def __init__(self, name, mac, ip, qpn, psn, sport):
        self.name, self.mac, self.ip, self.qpn, self.sq_psn, self.sport = name, mac, ip, qpn, psn, sport
        self.ipid = 0x4000 if name == "client" else 0x7000
        self.msn = 0          # as responder: messages completed
        self.expected = None  # as responder: next PSN


class Gen:
    def __init__(self, loss, compound=False):
        self.loss, self.compound = loss, compound
        self.c = Host("client", bytes.fromhex("525400000202"), bytes([192, 0, 2, 2]), 0x000011, 0x2b41c7, 0xd872)
        self.s = Host("server", bytes.fromhex("525400000201"), bytes([192, 0, 2, 1]), 0x000012, 0x9e03a5, 0xe519)
        self.frames, self.truth = [], []
        self.t_us = 1796257404 * 1000000 + 100000
        self.lost = None
        self.sent = []        # every packet put on the wire: (side, psn, opcode, frame number or None if lost, t_us)
        self.msgs = []        # every SMB2 message: side, cmd, message_id, status, async, its SENDs' PSNs
        self.xfers = []       # every RDMA transfer: the SMB2 message ID it serves, kind, va, rkey, len, PSNs
        self.ctx_mid = None   # the message ID of the SMB2 message planned last

    def peer(self, h):
        return self.s if h is self.c else self.c

    # ---- frames ---------------------------------------------------------------

    def emit(self, src, opcode, destqp, psn, ackreq, ext, payload, sport=None, gap=8, lost=False):
        dst = self.peer(src)
        pad = (4 - len(payload) % 4) % 4
        bth = bytes([opcode, pad << 4]) + struct.pack("!H", 0xFFFF) + bytes([0]) + destqp.to_bytes(3, "big")
        bth += bytes([0x80 if ackreq else 0]) + (psn & 0xFFFFFF).to_bytes(3, "big")
        ib = bth + ext + payload + b"\0" * pad + b"\0" * 4
        udp = struct.pack("!HHHH", sport if sport is not None else src.sport, rp.ROCE_V2_PORT, 8 + len(ib), 0)
        src.ipid = (src.ipid + 1) & 0xFFFF
        ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp) + len(ib), src.ipid, 0x4000, 64, 17, 0,
                                   src.ip, dst.ip))
        ip[10:12] = struct.pack("!H", ip_csum(bytes(ip)))
        f = bytearray(dst.mac + src.mac + struct.pack("!H", rp.ETH_IPV4) + bytes(ip) + udp + ib)
        f[-4:] = rp.v2_ipv4_icrc(f)
        self.t_us += gap
        self.sent.append((src.name, psn & 0xFFFFFF, opcode, None if lost else len(self.frames) + 1, self.t_us))
        if lost:
            return
        self.frames.append(([self.t_us // 1000000, self.t_us % 1000000, len(f), len(f)], f))

    def ack(self, responder, psn, syndrome=0x1F, gap=6):
        req = self.peer(responder)
        self.emit(responder, OP["ACK"], req.qpn, psn, False, bytes([syndrome]) + responder.msn.to_bytes(3, "big"),
                  b"", gap=gap)

    # ---- CM (IBTA vol 1 12.6, RDMA CM private data Annex A11.6) ----------------

    def mad(self, src, attr, body, psn):
        hdr = bytes([1, 7, 2, 3]) + b"\0" * 4 + struct.pack("!Q", 0x00000000A5E30001) + struct.pack("!HHI", attr, 0, 0)
        m = (hdr + body).ljust(256, b"\0")
        deth = struct.pack("!I", 0x80010000) + (1).to_bytes(4, "big")
        self.emit(src, OP["UD_SEND_ONLY"], 1, psn, False, deth, m, sport=0xC001, gap=300)

    def cm(self):
        c, s = self.c, self.s
        cid_c, cid_s = 0x3a5f91c2, 0x7d10e44b
        mapped = lambda ip: b"\0" * 10 + b"\xff\xff" + ip  # noqa: E731
        b = bytearray(232)
        b[0:4] = struct.pack("!I", cid_c)
        b[8:16] = struct.pack("!Q", 0x0000000001060000 | SMBD_PORT)           # RDMA_PS_TCP, port 5445
        b[16:24] = struct.pack("!Q", 0x5254000000020202)
        b[32:36] = struct.pack("!I", c.qpn << 8 | 16)                           # QPN, responder resources
        b[36:40] = struct.pack("!I", 16)                                        # initiator depth
        b[40:44] = struct.pack("!I", 20 << 3 | 0 << 1 | 1)                      # CM timeout 20, RC, flow control
        b[44:48] = struct.pack("!I", s.sq_psn << 8 | 20 << 3 | 7)               # starting PSN, timeout, retry 7
        b[48:50] = struct.pack("!H", 0xFFFF)
        b[50] = 3 << 4 | 7                                                      # path MTU 1024, RNR retry 7
        b[51] = 15 << 4
        b[56:72], b[72:88] = mapped(c.ip), mapped(s.ip)                         # primary path GIDs
        b[93] = 64
        b[95] = 19 << 3
        pd = bytearray(56)
        pd[1] = 0x40
        pd[2:4] = struct.pack("!H", 0xC5A2)
        pd[4:20], pd[20:36] = mapped(c.ip), mapped(s.ip)
        b[140:140 + len(pd)] = pd
        self.mad(c, 0x0010, bytes(b), 0)
        r = bytearray(232)
        r[0:8] = struct.pack("!II", cid_s, cid_c)
        r[12:16] = struct.pack("!I", s.qpn << 8)
        r[20:24] = struct.pack("!I", c.sq_psn << 8)
        r[24], r[25], r[27] = 16, 16, 7 << 5
        r[28:36] = struct.pack("!Q", 0x5254000000020201)
        self.mad(s, 0x0013, bytes(r), 0)
        self.mad(c, 0x0014, struct.pack("!II", cid_c, cid_s), 1)
        c.expected, s.expected = s.sq_psn, c.sq_psn
        self.truth.append("cm REQ client->server service_port %d client_qpn 0x%06x server_qpn 0x%06x "
                          "client_sq_psn 0x%06x server_sq_psn 0x%06x" % (SMBD_PORT, c.qpn, s.qpn, c.sq_psn, s.sq_psn))

    # ---- RC messages ------------------------------------------------------------

    def send(self, src, payload, what):
        """One SEND Only (<= one MTU), ACKed by the peer."""
        assert len(payload) <= MTU
        dst = self.peer(src)
        psn = src.sq_psn
        src.sq_psn = (src.sq_psn + 1) & 0xFFFFFF
        self.emit(src, OP["SEND_ONLY"], dst.qpn, psn, True, b"", payload, gap=20)
        dst.msn += 1
        self.ack(dst, psn)
        self.truth.append("rc %s SEND psn 0x%06x len %d %s" % (src.name, psn, len(payload), what))

    def rdma_write(self, src, va, rkey, data, then=None):
        """The responder's data to the requester's buffer; then: a SEND
        posted right behind it (the SMB2 response), in one window."""
        dst = self.peer(src)
        npk = (len(data) + MTU - 1) // MTU
        pkts = []
        for i in range(npk):
            chunk = data[i * MTU:(i + 1) * MTU]
            if npk == 1:
                op, ext = OP["WRITE_ONLY"], struct.pack("!QII", va, rkey, len(data))
            elif i == 0:
                op, ext = OP["WRITE_FIRST"], struct.pack("!QII", va, rkey, len(data))
            else:
                op, ext = (OP["WRITE_LAST"] if i == npk - 1 else OP["WRITE_MIDDLE"]), b""
            pkts.append((op, (src.sq_psn + i) & 0xFFFFFF, i == npk - 1, ext, chunk))
        first = src.sq_psn
        src.sq_psn = (src.sq_psn + npk) & 0xFFFFFF
        self.truth.append("rdma %s RDMA_WRITE va 0x%016x rkey 0x%08x len %d psn 0x%06x packets %d"
                          % (src.name, va, rkey, len(data), first, npk))
        self.xfers.append(dict(message_id=self.ctx_mid, kind="RDMA_WRITE", side=src.name, va=va, rkey=rkey,
                               length=len(data), psns=[(first + i) & 0xFFFFFF for i in range(npk)]))
        if then is not None:
            pkts.append((OP["SEND_ONLY"], src.sq_psn, True, b"", then[0]))
            self.truth.append("rc %s SEND psn 0x%06x len %d %s" % (src.name, src.sq_psn, len(then[0]), then[1]))
            src.sq_psn = (src.sq_psn + 1) & 0xFFFFFF
        lose = 1 if self.loss and self.lost is None and npk > 2 else None
        for k, (op, psn, ackreq, ext, pl) in enumerate(pkts):
            if k == lose:
                self.emit(src, op, dst.qpn, psn, ackreq, ext, pl, gap=2, lost=True)
                self.lost = psn
                self.truth.append("lost %s psn 0x%06x opcode 0x%02x (before the capture point)" % (src.name, psn, op))
                continue
            self.emit(src, op, dst.qpn, psn, ackreq, ext, pl, gap=2)
            if lose is not None and k == lose + 1:
                self.ack(dst, self.lost, syndrome=0x60, gap=1)   # PSN sequence error, one per run
                self.truth.append("nak %s psn 0x%06x PSN sequence error" % (dst.name, self.lost))
        if lose is not None:
            self.truth.append("resent %s psn 0x%06x..0x%06x go-back-N after the NAK"
                              % (src.name, pkts[lose][1], pkts[-1][1]))
            for op, psn, ackreq, ext, pl in pkts[lose:]:
                self.emit(src, op, dst.qpn, psn, ackreq, ext, pl, gap=3)
        dst.msn += 1
        self.ack(dst, pkts[npk - 1][1])
        if then is not None:
            dst.msn += 1
            self.ack(dst, pkts[-1][1])

    def rdma_read(self, src, va, rkey, length):
        """The responder reads the requester's buffer: READ request, then the
        responses from the peer (they are the acknowledgement)."""
        dst = self.peer(src)
        npk = (length + MTU - 1) // MTU
        psn = src.sq_psn
        src.sq_psn = (src.sq_psn + npk) & 0xFFFFFF
        self.emit(src, OP["READ_REQ"], dst.qpn, psn, True, struct.pack("!QII", va, rkey, length), b"", gap=15)
        dst.msn += 1
        data = bytes((va + i) & 0xFF for i in range(length))
        for i in range(npk):
            chunk = data[i * MTU:(i + 1) * MTU]
            aeth = bytes([0x1F]) + dst.msn.to_bytes(3, "big")
            if npk == 1:
                op, ext = OP["READ_RESP_ONLY"], aeth
            elif i == 0:
                op, ext = OP["READ_RESP_FIRST"], aeth
            elif i == npk - 1:
                op, ext = OP["READ_RESP_LAST"], aeth
            else:
                op, ext = OP["READ_RESP_MIDDLE"], b""
            self.emit(dst, op, src.qpn, psn + i, False, ext, chunk, gap=2)
        self.truth.append("rdma %s RDMA_READ va 0x%016x rkey 0x%08x len %d psn 0x%06x packets %d"
                          % (src.name, va, rkey, length, psn, npk))
        self.xfers.append(dict(message_id=self.ctx_mid, kind="RDMA_READ", side=src.name, va=va, rkey=rkey,
                               length=length, psns=[(psn + i) & 0xFFFFFF for i in range(npk)]))

    # ---- SMB Direct (MS-SMBD 2.2) ---------------------------------------------------

    def smbd_negotiate(self):
        req = le("HHHHIII", 0x0100, 0x0100, 0, 255, MAX_SEND, MAX_SEND, 1048576)
        self.send(self.c, req, "smbd negotiate_request min 0x0100 max 0x0100 credits_requested 255 "
                  "preferred_send %d max_receive %d max_fragmented 1048576" % (MAX_SEND, MAX_SEND))
        rsp = le("HHHHHHIIIII", 0x0100, 0x0100, 0x0100, 0, 255, 16, STATUS_OK, 1048576, MAX_SEND, MAX_SEND, 1048576)
        self.send(self.s, rsp, "smbd negotiate_response negotiated 0x0100 credits_requested 255 credits_granted 16 "
                  "status 0x00000000 max_read_write 1048576 preferred_send %d max_receive %d max_fragmented 1048576"
                  % (MAX_SEND, MAX_SEND))

    def data_messages(self, src, msg, credits_req, credits_granted, flags):
        """An SMB2 message in as many data transfer messages as MaxSendSize
        allows: each fragment's RemainingDataLength is what follows it."""
        frags = [msg[i:i + MAX_FRAG] for i in range(0, len(msg), MAX_FRAG)] or [b""]
        out, left = [], len(msg)
        for i, fr in enumerate(frags):
            left -= len(fr)
            hdr = le("HHHHIII", credits_req, credits_granted if i == 0 else 0, flags if i == len(frags) - 1 else 0, 0,
                     left, DT_HDR if fr else 0, len(fr))
            out.append((hdr + (b"\0" * 4 + fr if fr else b""),
                        "smbd data credits_requested %d credits_granted %d flags 0x%04x remaining %d data_length %d"
                        " fragment %d/%d" % (credits_req, credits_granted if i == 0 else 0,
                                             flags if i == len(frags) - 1 else 0, left, len(fr), i + 1, len(frags))))
        return out

    def smb2(self, src, cmd, mid, body, status=STATUS_OK, credits=1, flags=0, tid=0, sid=0, async_id=None,
             credits_req=16, credits_granted=0, smbd_flags=0, then_write=None):
        resp = src is self.s
        fl = flags | (FLAG_RESPONSE if resp else 0) | (FLAG_ASYNC if async_id is not None else 0)
        hdr = b"\xfeSMB" + le("HH", 64, 1) + le("I", status) + le("HH", CMD[cmd], credits) + le("II", fl, 0)
        hdr += le("Q", mid) + (le("Q", async_id) if async_id is not None else le("II", 0xFEFF, tid))
        hdr += le("Q", sid) + b"\0" * 16
        msg = hdr + body
        parts = self.data_messages(src, msg, credits_req, credits_granted, smbd_flags)
        self.ctx_mid = mid
        first_psn = src.sq_psn + (((len(then_write[2]) + MTU - 1) // MTU) if then_write is not None else 0)
        self.msgs.append(dict(side=src.name, cmd=cmd, message_id=mid, response=resp, status=status,
                              async_id=async_id, length=len(msg), credits=credits,
                              psns=[(first_psn + i) & 0xFFFFFF for i in range(len(parts))]))
        self.truth.append("smb2 %s %s %s message_id %d status 0x%08x credits %d flags 0x%08x tree_id %s session_id "
                          "0x%016x async_id %s length %d fragments %d"
                          % (src.name, cmd, "response" if resp else "request", mid, status, credits, fl,
                             "-" if async_id is not None else "0x%08x" % tid, sid,
                             "-" if async_id is None else "0x%016x" % async_id, len(msg), len(parts)))
        for i, (pl, what) in enumerate(parts):
            if then_write is not None and i == len(parts) - 1:
                self.rdma_write(src, *then_write, then=(pl, what))
            else:
                self.send(src, pl, what)

    def smb2_compound(self, src, items, credits_req=16, credits_granted=1):
        """Several SMB2 messages in one (MS-SMB2 3.2.4.1.4, 3.3.4.1.3): each
        header's NextCommand the 8-byte aligned offset of the next, 0 in the
        last. items: dicts of cmd, mid, body and optionally status, credits,
        flags, tid, sid, async_id (as smb2())."""
        resp = src is self.s
        parts = []
        for i, it in enumerate(items):
            fl = it.get("flags", 0) | (FLAG_RESPONSE if resp else 0) | (FLAG_ASYNC if it.get("async_id") is not None
                                                                           else 0)
            body = it["body"]
            pad = b"" if i == len(items) - 1 else b"\0" * ((8 - (64 + len(body)) % 8) % 8)
            nxt = 0 if i == len(items) - 1 else 64 + len(body) + len(pad)
            hdr = b"\xfeSMB" + le("HH", 64, 1) + le("I", it.get("status", STATUS_OK)) + le("HH", CMD[it["cmd"]],
                                                                                        it.get("credits", 1))
            hdr += le("II", fl, nxt) + le("Q", it["mid"])
            hdr += le("Q", it["async_id"]) if it.get("async_id") is not None else le("II", 0xFEFF, it.get("tid", 0))
            hdr += le("Q", it.get("sid", 0)) + b"\0" * 16
            parts.append((it, fl, hdr + body + pad))
        msg = b"".join(p for _, _, p in parts)
        frags = self.data_messages(src, msg, credits_req, credits_granted, 0)
        assert len(frags) == 1, "a compound of one SEND"
        psn = src.sq_psn
        for i, (it, fl, p) in enumerate(parts):
            self.msgs.append(dict(side=src.name, cmd=it["cmd"], message_id=it["mid"], response=resp,
                                  status=it.get("status", STATUS_OK), async_id=it.get("async_id"), length=len(p),
                                  credits=it.get("credits", 1), psns=[psn]))
            aid = it.get("async_id")
            self.truth.append("smb2 %s %s %s message_id %d status 0x%08x credits %d flags 0x%08x tree_id %s "
                              "session_id 0x%016x async_id %s length %d fragments 1 compound %d/%d"
                              % (src.name, it["cmd"], "response" if resp else "request", it["mid"],
                                 it.get("status", STATUS_OK), it.get("credits", 1), fl,
                                 "-" if aid is not None else "0x%08x" % it.get("tid", 0), it.get("sid", 0),
                                 "-" if aid is None else "0x%016x" % aid, len(p), i + 1, len(parts)))
        self.ctx_mid = items[0]["mid"]
        self.send(src, frags[0][0], frags[0][1])

    def run_compound(self, tid, sid, t0):
        """Compounds (MS-SMB2 3.2.4.1.4): a related CREATE + QUERY_INFO +
        CLOSE answered by a related compound; an unrelated WRITE + FLUSH
        answered by a compound of the WRITE's response and the FLUSH's interim
        STATUS_PENDING, the FLUSH's final response alone; six ECHOs in one
        message answered one by one (the decoder keeps five of a chain)."""
        c, s = self.c, self.s
        name = "meta.txt".encode("utf-16-le")
        create = le("HBBIQQIIIII", 57, 0, 0, 2, 0, 0, 0x0012019F, 0x80, 7, 1, 0x44) + le("HHII", 0x78, len(name), 0, 0)
        rel = bytes([0xFF] * 16)                      # the related operations' FileId: the CREATE's
        qinfo = le("HBBIHHIII", 41, 1, 5, 24, 0, 0, 0, 0, 0) + rel
        close = le("HHI", 24, 0, 0) + rel
        self.smb2_compound(c, [dict(cmd="CREATE", mid=5, body=create + name, credits=3, tid=tid, sid=sid),
                               dict(cmd="QUERY_INFO", mid=6, body=qinfo, flags=FLAG_RELATED, tid=tid, sid=sid),
                               dict(cmd="CLOSE", mid=7, body=close, flags=FLAG_RELATED, tid=tid, sid=sid)])
        fid2 = bytes.fromhex("0200000000000000") + bytes.fromhex("2e000000ffffffff")
        cr = le("HBBI", 89, 0, 0, 1) + le("QQQQQQ", t0, t0, t0, t0, 4096, 11) + le("II", 0x20, 0) + fid2 + le("II", 0, 0)
        std = le("QQIBBH", 4096, 11, 1, 0, 0, 0)        # FileStandardInformation
        qr = le("HHI", 9, 0x48, len(std)) + std
        cl = le("HHI", 60, 0, 0) + le("QQQQQQ", t0, t0, t0, t0, 0, 0) + le("I", 0x20)
        self.smb2_compound(s, [dict(cmd="CREATE", mid=5, body=cr, credits=3, tid=tid, sid=sid),
                               dict(cmd="QUERY_INFO", mid=6, body=qr, flags=FLAG_RELATED, tid=tid, sid=sid),
                               dict(cmd="CLOSE", mid=7, body=cl, flags=FLAG_RELATED, tid=tid, sid=sid)])
        # An unrelated WRITE + FLUSH; the FLUSH goes async.
        data = bytes((3 * i) & 0xFF for i in range(200))
        write = le("HHIQ", 49, 0x70, len(data), 0) + self.fid + le("IIHHI", 0, 0, 0, 0, 0) + data
        flush = le("HHI", 24, 0, 0) + self.fid
        self.smb2_compound(c, [dict(cmd="WRITE", mid=8, body=write, credits=2, tid=tid, sid=sid),
                               dict(cmd="FLUSH", mid=9, body=flush, tid=tid, sid=sid)])
        aid = 0x0000000000000031
        self.smb2_compound(s, [dict(cmd="WRITE", mid=8, body=le("HHIIHH", 17, 0, len(data), 0, 0, 0) + b"\0",
                                    credits=2, tid=tid, sid=sid),
                               dict(cmd="FLUSH", mid=9, body=le("HBBI", 9, 0, 0, 0) + b"\0", status=STATUS_PENDING,
                                    credits=0, sid=sid, async_id=aid)])
        self.t_us += 40
        self.smb2(s, "FLUSH", 9, le("HH", 4, 0), credits=1, sid=sid, async_id=aid, credits_req=16, credits_granted=1)
        # Six ECHOs in one message, answered one by one.
        self.smb2_compound(c, [dict(cmd="ECHO", mid=10 + k, body=le("HH", 4, 0), sid=sid) for k in range(6)])
        for k in range(6):
            self.smb2(s, "ECHO", 10 + k, le("HH", 4, 0), credits=1, sid=sid, credits_req=16, credits_granted=1)

    # ---- the workload -----------------------------------------------------------------

    def run(self):
        c, s = self.c, self.s
        self.cm()
        self.smbd_negotiate()
        guid_c, guid_s = bytes(range(0x10, 0x20)), bytes(range(0xA0, 0xB0))
        body = le("HHHHI", 36, 2, 1, 0, 0x7F) + guid_c + le("Q", 0) + le("HH", 0x0300, 0x0302)
        self.smb2(c, "NEGOTIATE", 0, body, credits=1, credits_req=255, credits_granted=15)
        body = le("HHHH", 65, 1, 0x0302, 0) + guid_s + le("IIIIQQHHI", 0x2F, 8388608, 8388608, 8388608,
                                                          0x01DD0000AAAA0000, 0, 0x80, 0, 0) + b"\0"
        self.smb2(s, "NEGOTIATE", 0, body, credits=1, credits_req=255, credits_granted=15)
        sid = 0x0000400000000005
        ntlm1 = b"NTLMSSP\0" + le("II", 1, 0xE2088297) + le("HHI", 0, 0, 32) + le("HHI", 0, 0, 32)
        self.smb2(c, "SESSION_SETUP", 1, le("HBBIIHHQ", 25, 0, 1, 1, 0, 0x58, len(ntlm1), 0) + ntlm1,
                  credits=31, credits_req=16, credits_granted=1)
        ntlm2 = b"NTLMSSP\0" + le("I", 2) + le("HHI", 0, 0, 48) + le("I", 0xE2898215) + bytes(range(8)) + b"\0" * 8 \
            + le("HHI", 0, 0, 48)
        self.smb2(s, "SESSION_SETUP", 1, le("HHHH", 9, 0, 0x48, len(ntlm2)) + ntlm2, status=STATUS_MORE, credits=1,
                  sid=sid, credits_req=16, credits_granted=1)
        user = "user".encode("utf-16-le")
        ntlm3 = b"NTLMSSP\0" + le("I", 3) + b"".join(le("HHI", *f) for f in
                                                     [(0, 0, 64), (0, 0, 64), (0, 0, 64), (len(user), len(user), 64),
                                                      (0, 0, 64 + len(user)), (0, 0, 64 + len(user))])
        ntlm3 += le("I", 0xE2888215) + user
        self.smb2(c, "SESSION_SETUP", 2, le("HBBIIHHQ", 25, 0, 1, 1, 0, 0x58, len(ntlm3), 0) + ntlm3,
                  credits=31, sid=sid, credits_req=16, credits_granted=1)
        self.smb2(s, "SESSION_SETUP", 2, le("HHHH", 9, 0, 0x48, 0) + b"\0", credits=31, sid=sid,
                  credits_req=16, credits_granted=1)
        path = "\\\\192.0.2.1\\share".encode("utf-16-le")
        self.smb2(c, "TREE_CONNECT", 3, le("HHHH", 9, 0, 0x48, len(path)) + path, credits=31, sid=sid,
                  credits_req=16, credits_granted=1)
        tid = 0x00000001
        self.smb2(s, "TREE_CONNECT", 3, le("HBBIII", 16, 1, 0, 0x00000800, 0, 0x001F01FF), credits=31, tid=tid,
                  sid=sid, credits_req=16, credits_granted=1)
        name = "data.bin".encode("utf-16-le")
        body = le("HBBIQQIIIII", 57, 0, 0, 2, 0, 0, 0x0012019F, 0x80, 7, 5, 0x44) + le("HHII", 0x78, len(name), 0, 0)
        self.smb2(c, "CREATE", 4, body + name, credits=31, tid=tid, sid=sid, credits_req=16, credits_granted=1)
        fid = bytes.fromhex("0100000000000000") + bytes.fromhex("1d000000ffffffff")
        t0 = 0x01DD0000AAAA0000
        self.fid = fid
        if self.compound:
            body = le("HBBI", 89, 0, 0, 2) + le("QQQQQQ", t0, t0, t0, t0, 0, 0) + le("II", 0x80, 0) + fid
            self.smb2(s, "CREATE", 4, body + le("II", 0, 0) + b"\0", credits=31, tid=tid, sid=sid, credits_req=16,
                      credits_granted=1)
            self.run_compound(tid, sid, t0)
            return
        body = le("HBBI", 89, 0, 0, 2) + le("QQQQQQ", t0, t0, t0, t0, 0, 0) + le("II", 0x80, 0) + fid + le("II", 0, 0)
        self.smb2(s, "CREATE", 4, body + b"\0", credits=31, tid=tid, sid=sid, credits_req=16, credits_granted=1)
        # An inline WRITE longer than MaxSendSize - 24: three data transfer messages.
        data = bytes((7 * i) & 0xFF for i in range(2000))
        body = le("HHIQ", 49, 0x70, len(data), 0) + fid + le("IIHHI", 0, 0, 0, 0, 0)
        self.smb2(c, "WRITE", 5, body + data, credits=1, tid=tid, sid=sid, credits_req=16, credits_granted=1,
                  smbd_flags=1)
        self.smb2(s, "WRITE", 5, le("HHIIHH", 17, 0, len(data), 0, 0, 0) + b"\0", credits=1, tid=tid, sid=sid,
                  credits_req=16, credits_granted=1)
        # WRITE over the RDMA channel: the server RDMA READs the client's buffer.
        mid, va, tok, n = 6, 0xFFFF9A3C12340000, 0x0000A1B4, 4096
        desc = le("QII", va, tok, n)
        body = le("HHIQ", 49, 0x70, 0, 4096) + fid + le("IIHHI", 1, n, 0x70, 16, 0) + desc
        self.smb2(c, "WRITE", mid, body, credits=1, tid=tid, sid=sid, credits_req=16, credits_granted=1)
        self.rdma_read(s, va, tok, n)
        self.smb2(s, "WRITE", mid, le("HHIIHH", 17, 0, n, 0, 0, 0) + b"\0", credits=1, tid=tid, sid=sid,
                  credits_req=16, credits_granted=1)
        # READ over the RDMA channel: the server RDMA WRITEs, the response behind it.
        for mid, va, tok, n, off in ((7, 0xFFFF9A3C12350000, 0x0000A2C5, 8192, 0), (8, 0xFFFF9A3C12360000, 0x0000A3D6,
                                                                                  4096, 8192)):
            desc = le("QII", va, tok, n)
            body = le("HBBIQ", 49, 0, 0, n, off) + fid + le("IIIHH", 1, 1, 0, 0x70, 16) + desc
            self.smb2(c, "READ", mid, body, credits=1, tid=tid, sid=sid, credits_req=16, credits_granted=1)
            payload = bytes((off + i) & 0xFF for i in range(n))
            self.smb2(s, "READ", mid, le("HBBIII", 17, 0x50, 0, 0, n, 0) + b"\0", credits=1, tid=tid, sid=sid,
                      credits_req=16, credits_granted=1, then_write=(va, tok, payload))
        # A WRITE the server answers first with an interim STATUS_PENDING (async).
        mid, va, tok, n, aid = 9, 0xFFFF9A3C12370000, 0x0000A4E7, 2048, 0x0000000000000021
        desc = le("QII", va, tok, n)
        body = le("HHIQ", 49, 0x70, 0, 12288) + fid + le("IIHHI", 1, n, 0x70, 16, 0) + desc
        self.smb2(c, "WRITE", mid, body, credits=1, tid=tid, sid=sid, credits_req=16, credits_granted=1)
        self.smb2(s, "WRITE", mid, le("HBBI", 9, 0, 0, 0) + b"\0", status=STATUS_PENDING, credits=0, sid=sid,
                  async_id=aid, credits_req=16, credits_granted=1)
        self.rdma_read(s, va, tok, n)
        self.smb2(s, "WRITE", mid, le("HHIIHH", 17, 0, n, 0, 0, 0) + b"\0", credits=1, sid=sid, async_id=aid,
                  credits_req=16, credits_granted=1)
        # A credit grant alone: a data transfer message without data.
        hdr = le("HHHHIII", 16, 8, 0, 0, 0, 0, 0)
        self.send(s, hdr, "smbd data credits_requested 16 credits_granted 8 flags 0x0000 remaining 0 data_length 0"
                  " fragment 1/1")
        self.smb2(c, "CLOSE", 10, le("HHI", 24, 0, 0) + fid, credits=1, tid=tid, sid=sid, credits_req=16,
                  credits_granted=1)
        body = le("HHI", 60, 0, 0) + le("QQQQQQ", t0, t0, t0, t0, 0, 0) + le("I", 0x80)
        self.smb2(s, "CLOSE", 10, body, credits=1, tid=tid, sid=sid, credits_req=16, credits_granted=1)


def requests_truth(g, name):
    """Per SMB2 request: its command and message ID, the frames of its
    SENDs, of its responses (interim and final) and of its RDMA transfers,
    the final response's status, the time from the request's last frame to
    the final response's last frame, and whether any of those packets went
    on the wire more than once. From the plan's own bookkeeping."""
    by_psn = {}
    for side, psn, op, frame, t in g.sent:
        by_psn.setdefault((side, psn), []).append((frame, t, op))

    def frames(side, psns):
        return [[f for f, t, op in by_psn[(side, p)] if f is not None] for p in psns]

    def first_time(side, psn):
        return min(t for f, t, op in by_psn[(side, psn)] if f is not None)

    def resent(side, psns):
        return any(len(by_psn[(side, p)]) > 1 for p in psns)

    out = []
    for m in g.msgs:
        if m["response"]:
            continue
        rsps = [r for r in g.msgs if r["response"] and r["message_id"] == m["message_id"]]
        final = [r for r in rsps if r["status"] != STATUS_PENDING][-1]
        interim = [r for r in rsps if r["status"] == STATUS_PENDING]
        xf = [x for x in g.xfers if x["message_id"] == m["message_id"]]
        req_t = first_time(m["side"], m["psns"][-1])
        rsp_t = first_time(final["side"], final["psns"][-1])
        # An RDMA READ's packets are the READ request and the responses of the peer (same PSNs).
        xf_resent = any(resent(x["side"], x["psns"][:1]) or
                        (x["kind"] == "RDMA_READ" and resent(g.peer(g.c if x["side"] == "client" else g.s).name, x["psns"]))
                        or (x["kind"] == "RDMA_WRITE" and resent(x["side"], x["psns"])) for x in xf)
        out.append(dict(
            command=m["cmd"], message_id=m["message_id"], length=m["length"], fragments=len(m["psns"]),
            request_frames=frames(m["side"], m["psns"]),
            interim=[dict(status="0x%08x" % r["status"], frames=frames(r["side"], r["psns"]), async_id=r["async_id"])
                     for r in interim],
            response_frames=frames(final["side"], final["psns"]), status="0x%08x" % final["status"],
            latency_ns=(rsp_t - req_t) * 1000,
            transfers=[dict(kind=x["kind"], va="0x%016x" % x["va"], rkey="0x%08x" % x["rkey"], length=x["length"],
                            psn_first="0x%06x" % x["psns"][0], packets=len(x["psns"]),
                            first_frame=frames(x["side"], x["psns"][:1])[0][0]) for x in xf],
            resent=dict(request=resent(m["side"], m["psns"]),
                        response=any(resent(r["side"], r["psns"]) for r in rsps), transfers=xf_resent)))
    lost = [dict(side=side, psn="0x%06x" % psn, opcode=op) for side, psn, op, frame, t in g.sent if frame is None]
    return {"sample": name, "generated_by": "samples/lib/smbd_gen.py" + (" --loss" if g.loss else "")
            + (" --compound" if g.compound else ""),
            "frames": len(g.frames), "requests": out, "lost": lost}


def main():
    args = [a for a in sys.argv[1:] if a not in ("--loss", "--compound")]
    if len(args) != 1:
        sys.exit(__doc__)
    loss = "--loss" in sys.argv[1:]
    compound = "--compound" in sys.argv[1:]
    g = Gen(loss, compound)
    g.run()
    name = "smbd_gen_compound" if compound else "smbd_gen_loss" if loss else "smbd_gen"
    base = os.path.join(args[0], name)
    header = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    rp.write_pcap(base + ".pcap", header, "<", g.frames)
    with open(base + ".truth.txt", "w") as f:
        f.write("# %s: GENERATED by samples/lib/smbd_gen.py%s (not recorded: Debian 12's kernel has no SMB "
                "Direct); the workload as planned\n" % (name, " --loss" if loss else " --compound" if compound else ""))
        f.write("frames %d\n" % len(g.frames))
        for line in g.truth:
            f.write(line + "\n")
    with open(base + ".requests.json", "w") as f:
        json.dump(requests_truth(g, name), f, indent=1)
        f.write("\n")
    print("smbd_gen: %s.pcap, %d frames" % (base, len(g.frames)))


if __name__ == "__main__":
    main()
