/*
 * smbd_dissect.c — SMB Direct messages and the SMB2 header in one SEND.
 *
 * MS-SMBD 2.2, little-endian:
 *   negotiate request (20): 0 MinVersion, 2 MaxVersion, 4 reserved,
 *     6 CreditsRequested, 8 PreferredSendSize, 12 MaxReceiveSize,
 *     16 MaxFragmentedSize
 *   negotiate response (32): 0 MinVersion, 2 MaxVersion, 4 NegotiatedVersion,
 *     6 reserved, 8 CreditsRequested, 10 CreditsGranted, 12 Status,
 *     16 MaxReadWriteSize, 20 PreferredSendSize, 24 MaxReceiveSize,
 *     28 MaxFragmentedSize
 *   data transfer (20 + padding + data): 0 CreditsRequested, 2 CreditsGranted,
 *     4 Flags (1: SMB_DIRECT_RESPONSE_REQUESTED), 6 reserved,
 *     8 RemainingDataLength, 12 DataOffset (8-byte aligned, 0 without data),
 *     16 DataLength
 *
 * MS-SMB2 2.2.1, the 64-byte header: 0 ProtocolId FE 'SMB', 4 StructureSize
 * 64, 6 CreditCharge, 8 Status (a request's ChannelSequence and Reserved),
 * 12 Command, 14 CreditRequest/Response, 16 Flags, 20 NextCommand,
 * 24 MessageId, 32 AsyncId (async) or Reserved/ProcessId and TreeId,
 * 40 SessionId, 48 Signature. Offsets in the body count from the header.
 * A compound (3.2.4.1.4) chains headers in one message: each NextCommand
 * is the offset, 8-byte aligned, of the next header from this one; 0 ends
 * the chain. Every header of it is read as the first, within the packet.
 *   READ request (2.2.19, StructureSize 49): 4 Length, 8 Offset, 16 FileId,
 *     32 MinimumCount, 36 Channel, 40 RemainingBytes,
 *     44 ReadChannelInfoOffset, 46 ReadChannelInfoLength
 *   WRITE request (2.2.21, 49): 2 DataOffset, 4 Length, 8 Offset, 16 FileId,
 *     32 Channel, 36 RemainingBytes, 40 WriteChannelInfoOffset,
 *     42 WriteChannelInfoLength, 44 Flags
 *   READ response (2.2.20, 17): 2 DataOffset (1 byte), 4 DataLength,
 *     8 DataRemaining; WRITE response (2.2.22, 17): 4 Count, 8 Remaining
 *   NEGOTIATE response (2.2.4, 65): 4 DialectRevision
 *   an error response (2.2.2, 9), STATUS_PENDING's interim one included.
 * A buffer descriptor V1 (MS-SMBD 2.2.3.1): Offset(8) Token(4) Length(4).
 */
#include "proto/smbdirect/smbd_dissect.h"

#include <stddef.h>
#include <string.h>

#define RW_FIXED 48   /* READ/WRITE request body before the Buffer */
#define RSP17_FIXED 16
#define DESC_LEN 16

static enum rs_smbd_outcome fail(struct rs_smbd *r, enum rs_smbd_outcome o, const char *why)
{
	r->outcome = (uint8_t)o;
	r->why = why;
	return o;
}

static enum rs_smbd_kind by_shape(const struct rs_cursor *c, uint32_t wire_len)
{
	struct rs_cursor k = *c;
	uint16_t a = rs_cur_le16(&k), b = rs_cur_le16(&k), d = rs_cur_le16(&k), e = rs_cur_le16(&k);
	if (wire_len == RS_SMBD_NEG_RSP_LEN && a == RS_SMBD_VERSION_1 && b == RS_SMBD_VERSION_1 &&
	    d == RS_SMBD_VERSION_1 && e == 0)
		return RS_SMBD_NEG_RSP;
	if (wire_len == RS_SMBD_NEG_REQ_LEN && a == RS_SMBD_VERSION_1 && b == RS_SMBD_VERSION_1 && d == 0)
		return RS_SMBD_NEG_REQ;
	return RS_SMBD_DATA;
}

static enum rs_smbd_outcome negotiate(struct rs_cursor *c, uint32_t wire_len, bool whole, bool rsp, struct rs_smbd *r)
{
	uint32_t need = rsp ? RS_SMBD_NEG_RSP_LEN : RS_SMBD_NEG_REQ_LEN;
	r->kind = rsp ? RS_SMBD_NEG_RSP : RS_SMBD_NEG_REQ;
	if (wire_len < need)
		return fail(r, RS_SMBD_NOT, rsp ? "shorter than a negotiate response" : "shorter than a negotiate request");
	r->min_version = rs_cur_le16(c);
	r->max_version = rs_cur_le16(c);
	if (rsp)
		r->negotiated_version = rs_cur_le16(c);
	rs_cur_skip(c, 2);
	r->credits_requested = rs_cur_le16(c);
	if (rsp) {
		r->credits_granted = rs_cur_le16(c);
		r->status = rs_cur_le32(c);
		r->max_read_write = rs_cur_le32(c);
	}
	r->preferred_send = rs_cur_le32(c);
	r->max_receive = rs_cur_le32(c);
	r->max_fragmented = rs_cur_le32(c);
	if (c->overrun)
		return fail(r, RS_SMBD_TRUNCATED, "the capture stops inside the negotiate message");
	if (whole && wire_len != need)
		return fail(r, RS_SMBD_MALFORMED, "a negotiate message longer than its fixed size");
	if (r->min_version > r->max_version)
		return fail(r, RS_SMBD_MALFORMED, "MinVersion above MaxVersion");
	if (r->credits_requested == 0)
		return fail(r, RS_SMBD_MALFORMED, "no credits requested");
	if (rsp) {
		if (r->negotiated_version < r->min_version || r->negotiated_version > r->max_version)
			return fail(r, RS_SMBD_MALFORMED, "NegotiatedVersion outside MinVersion..MaxVersion");
		if (r->negotiated_version != RS_SMBD_VERSION_1)
			return fail(r, RS_SMBD_UNSUPPORTED, "an SMB Direct version other than 1.0");
	} else if (r->min_version > RS_SMBD_VERSION_1 || r->max_version < RS_SMBD_VERSION_1) {
		return fail(r, RS_SMBD_UNSUPPORTED, "an SMB Direct version range without 1.0");
	}
	r->outcome = RS_SMBD_OK;
	return RS_SMBD_OK;
}

/* Where a field of the SMB2 message ends (`end`, from the header's first
 * byte) against the three limits: the message (`msg`: a lie past it), this
 * packet's part of it on the wire (`here`: the rest comes later) and the
 * capture (`cap`). RS_SMBD_OK when all of it is here. */
struct limits {
	uint64_t msg;
	uint32_t here, cap;
	bool fragmented;
};

static enum rs_smbd_outcome reach(const struct limits *l, uint64_t end, struct rs_smbd *r, const char *lie)
{
	if (end > l->msg)
		return fail(r, RS_SMBD_MALFORMED, lie);
	if (end > l->here)
		return fail(r, RS_SMBD_CONTINUED, "the SMB2 message goes on after this packet");
	if (end > l->cap)
		return fail(r, RS_SMBD_TRUNCATED, "the capture stops inside the SMB2 message");
	return RS_SMBD_OK;
}

/* The buffer descriptors at chinfo_off of the message `m` (a cursor from
 * the header's first byte). */
static enum rs_smbd_outcome channel(const struct rs_cursor *m, const struct limits *l, struct rs_smb2 *s,
				    struct rs_smbd *r)
{
	if (s->channel == RS_SMB2_CHANNEL_NONE)
		return RS_SMBD_OK;
	if (s->channel == RS_SMB2_CHANNEL_RDMA_TRANSFORM)
		return fail(r, RS_SMBD_UNSUPPORTED, "the RDMA transform channel");
	if (s->channel > RS_SMB2_CHANNEL_RDMA_TRANSFORM)
		return fail(r, RS_SMBD_UNSUPPORTED, "an SMB2 channel this decoder does not know");
	if (s->chinfo_len == 0)
		return fail(r, RS_SMBD_MALFORMED, "an RDMA channel without a buffer descriptor");
	if (s->chinfo_len % DESC_LEN)
		return fail(r, RS_SMBD_MALFORMED, "channel info that is not whole buffer descriptors");
	if (s->chinfo_off < RS_SMB2_HDR_LEN + RW_FIXED)
		return fail(r, RS_SMBD_MALFORMED, "channel info inside the fixed part of the request");
	enum rs_smbd_outcome o = reach(l, (uint64_t)s->chinfo_off + s->chinfo_len, r,
				       "channel info past the end of the SMB2 message");
	if (o != RS_SMBD_OK)
		return o;
	struct rs_cursor k = *m;
	k.off = 0;
	rs_cur_skip(&k, s->chinfo_off);
	for (unsigned i = 0; i < s->chinfo_len / DESC_LEN; i++) {
		/* One read per statement: the expressions of an initializer list
		 * are not sequenced, so token and length could swap. */
		struct rs_smbd_desc d;
		d.offset = rs_cur_le64(&k);
		d.token = rs_cur_le32(&k);
		d.length = rs_cur_le32(&k);
		s->desc_bytes += d.length;
		if (s->ndesc < RS_SMBD_MAX_DESC)
			s->desc[s->ndesc++] = d;
		else
			s->desc_dropped++;
	}
	if (k.overrun)
		return fail(r, RS_SMBD_TRUNCATED, "the capture stops inside the buffer descriptors");
	bool read = s->command == RS_SMB2_READ;
	if (s->desc_bytes < (read ? s->length : s->remaining_bytes))
		return fail(r, RS_SMBD_MALFORMED, read ? "buffer descriptors shorter than the READ's Length"
						       : "buffer descriptors shorter than the WRITE's RemainingBytes");
	return RS_SMBD_OK;
}

/* The body's fixed part of the commands read here. */
static enum rs_smbd_outcome body(struct rs_cursor *m, const struct limits *l, struct rs_smb2 *s, struct rs_smbd *r)
{
	uint32_t fixed;
	bool req = !s->response;
	if (s->command == RS_SMB2_READ || s->command == RS_SMB2_WRITE)
		fixed = req ? RW_FIXED : RSP17_FIXED;
	else if (s->command == RS_SMB2_NEGOTIATE && !req)
		fixed = 8;
	else
		return RS_SMBD_OK;
	enum rs_smbd_outcome o = reach(l, RS_SMB2_HDR_LEN + 2, r, "no body after the SMB2 header");
	if (o != RS_SMBD_OK)
		return o;
	s->body_size = rs_cur_le16(m);
	if (!req && s->body_size == 9 && s->status != RS_NT_STATUS_SUCCESS)
		return RS_SMBD_OK; /* an error response */
	uint16_t want = fixed == 8 ? 65 : fixed == RW_FIXED ? 49 : 17;
	if (s->body_size != want)
		return fail(r, RS_SMBD_MALFORMED, "a READ/WRITE/NEGOTIATE body with the wrong StructureSize");
	o = reach(l, RS_SMB2_HDR_LEN + fixed, r, "the body's fixed part past the end of the SMB2 message");
	if (o != RS_SMBD_OK)
		return o;
	if (s->command == RS_SMB2_NEGOTIATE) {
		rs_cur_skip(m, 2);
		s->dialect = rs_cur_le16(m);
	} else if (!req && s->command == RS_SMB2_READ) {
		s->data_offset = rs_cur_u8(m);
		rs_cur_skip(m, 1);
		s->data_length = rs_cur_le32(m);
		s->data_remaining = rs_cur_le32(m);
	} else if (!req) {
		rs_cur_skip(m, 2);
		s->count = rs_cur_le32(m);
		s->remaining = rs_cur_le32(m);
	} else if (s->command == RS_SMB2_READ) {
		rs_cur_skip(m, 2);
		s->length = rs_cur_le32(m);
		s->file_offset = rs_cur_le64(m);
		rs_cur_skip(m, 16);
		s->min_count = rs_cur_le32(m);
		s->channel = rs_cur_le32(m);
		s->remaining_bytes = rs_cur_le32(m);
		s->chinfo_off = rs_cur_le16(m);
		s->chinfo_len = rs_cur_le16(m);
	} else {
		s->data_offset = rs_cur_le16(m);
		s->length = rs_cur_le32(m);
		s->file_offset = rs_cur_le64(m);
		rs_cur_skip(m, 16);
		s->channel = rs_cur_le32(m);
		s->remaining_bytes = rs_cur_le32(m);
		s->chinfo_off = rs_cur_le16(m);
		s->chinfo_len = rs_cur_le16(m);
	}
	s->has_body = true;
	if (req)
		return channel(m, l, s, r);
	return RS_SMBD_OK;
}

/* One SMB2 header and its body's fixed part, at the start of `m` (a
 * cursor from the header's first byte, the limits from there too): the
 * message's first (`first`: the protocol IDs other than SMB2's are told
 * apart) or a later one of its compound chain. */
static enum rs_smbd_outcome smb2(struct rs_cursor *m, struct limits *l, struct rs_smbd *r, struct rs_smb2 *s, bool first)
{
	if (l->here < RS_SMB2_HDR_LEN) {
		if (l->msg < RS_SMB2_HDR_LEN)
			return fail(r, RS_SMBD_MALFORMED, "an SMB2 message shorter than its header");
		return fail(r, RS_SMBD_CONTINUED, "the SMB2 header goes on after this packet");
	}
	const uint8_t *id = rs_cur_take(m, 4);
	if (!id)
		return fail(r, RS_SMBD_TRUNCATED, "the capture stops inside the SMB2 header");
	if (!first && (id[0] != 0xFE || id[1] != 'S' || id[2] != 'M' || id[3] != 'B'))
		return fail(r, RS_SMBD_MALFORMED, "a compound's NextCommand points at no SMB2 header");
	if (id[1] != 'S' || id[2] != 'M' || id[3] != 'B')
		return fail(r, RS_SMBD_MALFORMED, "no SMB2 protocol ID in the data");
	if (id[0] >= 0xFC)
		r->smb2_id = id[0];
	if (id[0] == 0xFD)
		return fail(r, RS_SMBD_UNSUPPORTED, "an encrypted SMB2 message (transform header)");
	if (id[0] == 0xFC)
		return fail(r, RS_SMBD_UNSUPPORTED, "a compressed SMB2 message");
	if (id[0] == 0xFF)
		return fail(r, RS_SMBD_UNSUPPORTED, "SMB1, not SMB2");
	if (id[0] != 0xFE)
		return fail(r, RS_SMBD_MALFORMED, "no SMB2 protocol ID in the data");
	uint16_t size = rs_cur_le16(m);
	s->credit_charge = rs_cur_le16(m);
	s->status = rs_cur_le32(m);
	s->command = rs_cur_le16(m);
	s->credits = rs_cur_le16(m);
	s->flags = rs_cur_le32(m);
	s->next_command = rs_cur_le32(m);
	s->message_id = rs_cur_le64(m);
	s->response = s->flags & RS_SMB2_FLAG_RESPONSE;
	s->async = s->flags & RS_SMB2_FLAG_ASYNC;
	if (s->async) {
		s->async_id = rs_cur_le64(m);
	} else {
		s->pid = rs_cur_le32(m);
		s->tree_id = rs_cur_le32(m);
	}
	s->session_id = rs_cur_le64(m);
	rs_cur_skip(m, 16);
	if (m->overrun)
		return fail(r, RS_SMBD_TRUNCATED, "the capture stops inside the SMB2 header");
	if (size != RS_SMB2_HDR_LEN)
		return fail(r, RS_SMBD_MALFORMED, "an SMB2 header StructureSize other than 64");
	r->has_smb2 |= first;
	if (s->next_command) {
		if (s->next_command % 8 || s->next_command < RS_SMB2_HDR_LEN ||
		    (uint64_t)s->next_command + RS_SMB2_HDR_LEN > l->msg)
			return fail(r, RS_SMBD_MALFORMED, "a NextCommand that is not an 8-byte aligned offset in the message");
		l->msg = s->next_command; /* the body ends where the next header starts */
	}
	if (s->command >= RS_SMB2__CMDS)
		return fail(r, RS_SMBD_UNSUPPORTED, "an SMB2 command this decoder does not know");
	return body(m, l, s, r);
}

/* A later header of the compound, kept in its short form. */
static void link_of(const struct rs_smb2 *s, struct rs_smb2_link *k)
{
	*k = (struct rs_smb2_link){ .response = s->response, .async = s->async, .command = s->command,
				    .credits = s->credits, .credit_charge = s->credit_charge, .status = s->status,
				    .flags = s->flags, .next_command = s->next_command, .message_id = s->message_id,
				    .async_id = s->async_id, .tree_id = s->tree_id, .session_id = s->session_id,
				    .channel = s->channel, .length = s->length, .remaining_bytes = s->remaining_bytes,
				    .desc_bytes = s->desc_bytes };
	for (unsigned i = 0; i < s->ndesc && k->ndesc < RS_SMBD_LINK_DESC; i++)
		k->desc[k->ndesc++] = s->desc[i];
	k->desc_dropped = (uint16_t)(s->desc_dropped + s->ndesc - k->ndesc);
}

/* The headers after the first (MS-SMB2 2.2.1, 3.2.4.1.4): each at the
 * previous one's NextCommand, 8-byte aligned, until a NextCommand of 0.
 * `m` is the first header's cursor (its window this packet's part of the
 * message), `all` the limits from there. The first RS_SMBD_CHAIN are kept,
 * the rest counted; a chain that goes on past this packet (a later packet
 * or fragment) or the capture is cut there (chain_cut). */
static enum rs_smbd_outcome chain(const struct rs_cursor *m, const struct limits *all, struct rs_smbd *r)
{
	uint64_t at = 0;
	uint32_t next = r->smb2.next_command;
	for (unsigned n = 0; next; n++) {
		at += next;
		if (n == RS_SMBD_CHAIN_MAX || at + RS_SMB2_HDR_LEN > all->here || at + RS_SMB2_HDR_LEN > all->cap) {
			r->chain_cut = true; /* NextCommand was checked inside the message: the rest is later */
			return RS_SMBD_OK;
		}
		struct limits l = { all->msg - at, all->here - (uint32_t)at, all->cap - (uint32_t)at, all->fragmented };
		struct rs_cursor k = *m;
		k.off = 0;
		rs_cur_skip(&k, (uint32_t)at);
		struct rs_cursor h = rs_cur_sub(&k, l.here);
		struct rs_smb2 s;
		memset(&s, 0, sizeof s);
		enum rs_smbd_outcome o = smb2(&h, &l, r, &s, false);
		if (o == RS_SMBD_CONTINUED || o == RS_SMBD_TRUNCATED) {
			r->chain_cut = true; /* its body goes on later: the header is not kept half read */
			r->outcome = RS_SMBD_OK;
			r->why = NULL;
			return RS_SMBD_OK;
		}
		if (o != RS_SMBD_OK)
			return o;
		if (r->nchain < RS_SMBD_CHAIN)
			link_of(&s, &r->chain[r->nchain++]);
		else
			r->chain_dropped++;
		next = s.next_command;
	}
	return RS_SMBD_OK;
}

static enum rs_smbd_outcome data(struct rs_cursor *c, uint32_t wire_len, bool whole, bool continuation,
				 struct rs_smbd *r)
{
	r->kind = RS_SMBD_DATA;
	if (wire_len < RS_SMBD_DATA_HDR_LEN)
		return fail(r, RS_SMBD_NOT, "shorter than a data transfer header");
	uint32_t start = c->off;
	r->credits_requested = rs_cur_le16(c);
	r->credits_granted = rs_cur_le16(c);
	r->flags = rs_cur_le16(c);
	r->reserved = rs_cur_le16(c);
	r->remaining = rs_cur_le32(c);
	r->data_offset = rs_cur_le32(c);
	r->data_length = rs_cur_le32(c);
	if (c->overrun)
		return fail(r, RS_SMBD_TRUNCATED, "the capture stops inside the data transfer header");
	if (r->data_length == 0) {
		if (r->remaining)
			return fail(r, RS_SMBD_MALFORMED, "no data but RemainingDataLength set");
		r->hdr_ok = true;
		if (continuation)
			return fail(r, RS_SMBD_CONTINUED, "no data inside a fragmented message");
		r->outcome = RS_SMBD_OK;
		return RS_SMBD_OK;
	}
	if (r->data_offset < RS_SMBD_DATA_HDR_LEN)
		return fail(r, RS_SMBD_MALFORMED, "DataOffset inside the data transfer header");
	if (r->data_offset % 8)
		return fail(r, RS_SMBD_MALFORMED, "DataOffset not 8-byte aligned");
	if ((uint64_t)r->data_offset + r->data_length > wire_len && whole)
		return fail(r, RS_SMBD_MALFORMED, "DataLength runs past the end of the SEND");
	if ((uint64_t)r->data_offset + r->remaining + r->data_length > UINT32_MAX)
		return fail(r, RS_SMBD_MALFORMED, "RemainingDataLength past any message size");
	r->hdr_ok = true;
	if (continuation) {
		r->continuation = true;
		return fail(r, RS_SMBD_CONTINUED, "the data continues an earlier SMB2 message");
	}
	uint32_t off = r->data_offset < wire_len ? r->data_offset : wire_len;
	uint32_t here = wire_len - off < r->data_length ? wire_len - off : r->data_length;
	c->off = start;
	rs_cur_skip(c, RS_SMBD_DATA_HDR_LEN);
	rs_cur_skip(c, r->data_offset - RS_SMBD_DATA_HDR_LEN);
	struct rs_cursor m = rs_cur_sub(c, here);
	struct limits l = { (uint64_t)r->data_length + r->remaining, here, m.len, r->remaining > 0 };
	struct limits all = l;
	enum rs_smbd_outcome o = smb2(&m, &l, r, &r->smb2, true);
	if (o == RS_SMBD_OK)
		o = chain(&m, &all, r);
	else if (r->has_smb2 && r->smb2.next_command && (o == RS_SMBD_CONTINUED || o == RS_SMBD_TRUNCATED))
		r->chain_cut = true; /* the first body goes on past this packet, and the chain with it */
	if (o != RS_SMBD_OK)
		return o;
	if (l.fragmented)
		return fail(r, RS_SMBD_CONTINUED, "the SMB2 message goes on in later data transfer messages");
	r->outcome = RS_SMBD_OK;
	return RS_SMBD_OK;
}

enum rs_smbd_outcome rs_smbd_decode(struct rs_cursor *c, uint32_t wire_len, bool whole, enum rs_smbd_kind expect,
				    bool continuation, struct rs_smbd *r)
{
	/* chain[] last, valid up to nchain: left as it is (most SENDs have none). */
	memset(r, 0, offsetof(struct rs_smbd, chain));
	if (expect == RS_SMBD_ANY)
		expect = by_shape(c, wire_len);
	switch (expect) {
	case RS_SMBD_NEG_REQ: return negotiate(c, wire_len, whole, false, r);
	case RS_SMBD_NEG_RSP: return negotiate(c, wire_len, whole, true, r);
	default: return data(c, wire_len, whole, continuation, r);
	}
}

static enum rs_smbd_frag_step frag_reset(struct rs_smbd_frag *st, enum rs_smbd_frag_step s)
{
	memset(st, 0, sizeof *st);
	return s;
}

enum rs_smbd_frag_step rs_smbd_frag_feed(struct rs_smbd_frag *st, uint32_t remaining, uint32_t data_length,
					 uint32_t max_fragmented)
{
	if (data_length == 0)
		return remaining ? frag_reset(st, RS_SMBD_FRAG_LIED) : RS_SMBD_FRAG_EMPTY;
	if (!st->open) {
		if (remaining == 0)
			return RS_SMBD_FRAG_WHOLE;
		if (max_fragmented && (uint64_t)remaining + data_length > max_fragmented)
			return frag_reset(st, RS_SMBD_FRAG_TOO_LONG);
		st->open = true;
		st->expect_left = remaining;
		st->total = data_length;
		st->fragments = 1;
		return RS_SMBD_FRAG_START;
	}
	if (data_length > st->expect_left || st->expect_left - data_length != remaining)
		return frag_reset(st, RS_SMBD_FRAG_LIED);
	st->total += data_length;
	st->fragments++;
	st->expect_left = remaining;
	if (remaining == 0) {
		st->open = false;
		return RS_SMBD_FRAG_DONE;
	}
	return RS_SMBD_FRAG_MORE;
}

const char *rs_smb2_cmd_name(uint16_t cmd)
{
	static const char *const names[RS_SMB2__CMDS] = {
		"NEGOTIATE", "SESSION_SETUP", "LOGOFF", "TREE_CONNECT", "TREE_DISCONNECT", "CREATE", "CLOSE",
		"FLUSH", "READ", "WRITE", "LOCK", "IOCTL", "CANCEL", "ECHO", "QUERY_DIRECTORY", "CHANGE_NOTIFY",
		"QUERY_INFO", "SET_INFO", "OPLOCK_BREAK",
	};
	return cmd < RS_SMB2__CMDS ? names[cmd] : "";
}

const char *rs_smbd_outcome_name(enum rs_smbd_outcome o)
{
	switch (o) {
	case RS_SMBD_NOT: return "not SMB Direct";
	case RS_SMBD_OK: return "ok";
	case RS_SMBD_TRUNCATED: return "truncated";
	case RS_SMBD_MALFORMED: return "malformed";
	case RS_SMBD_UNSUPPORTED: return "unsupported";
	case RS_SMBD_CONTINUED: return "continued";
	default: return "";
	}
}

const char *rs_smbd_kind_name(enum rs_smbd_kind k)
{
	switch (k) {
	case RS_SMBD_NEG_REQ: return "negotiate request";
	case RS_SMBD_NEG_RSP: return "negotiate response";
	case RS_SMBD_DATA: return "data transfer";
	default: return "";
	}
}

const char *rs_nt_status_name(uint32_t status)
{
	switch (status) {
	case 0x00000000: return "STATUS_SUCCESS";
	case 0x00000103: return "STATUS_PENDING";
	case 0x00000105: return "STATUS_NOTIFY_ENUM_DIR";
	case 0x80000005: return "STATUS_BUFFER_OVERFLOW";
	case 0x80000006: return "STATUS_NO_MORE_FILES";
	case 0xC0000008: return "STATUS_INVALID_HANDLE";
	case 0xC000000D: return "STATUS_INVALID_PARAMETER";
	case 0xC000000F: return "STATUS_NO_SUCH_FILE";
	case 0xC0000011: return "STATUS_END_OF_FILE";
	case 0xC0000016: return "STATUS_MORE_PROCESSING_REQUIRED";
	case 0xC0000022: return "STATUS_ACCESS_DENIED";
	case 0xC0000023: return "STATUS_BUFFER_TOO_SMALL";
	case 0xC0000034: return "STATUS_OBJECT_NAME_NOT_FOUND";
	case 0xC0000035: return "STATUS_OBJECT_NAME_COLLISION";
	case 0xC000003A: return "STATUS_OBJECT_PATH_NOT_FOUND";
	case 0xC0000043: return "STATUS_SHARING_VIOLATION";
	case 0xC0000054: return "STATUS_FILE_LOCK_CONFLICT";
	case 0xC0000055: return "STATUS_LOCK_NOT_GRANTED";
	case 0xC000006D: return "STATUS_LOGON_FAILURE";
	case 0xC00000BA: return "STATUS_FILE_IS_A_DIRECTORY";
	case 0xC00000BB: return "STATUS_NOT_SUPPORTED";
	case 0xC00000C9: return "STATUS_NETWORK_NAME_DELETED";
	case 0xC00000CC: return "STATUS_BAD_NETWORK_NAME";
	case 0xC0000103: return "STATUS_NOT_A_DIRECTORY";
	case 0xC0000120: return "STATUS_CANCELLED";
	case 0xC0000128: return "STATUS_FILE_CLOSED";
	case 0xC000019C: return "STATUS_FS_DRIVER_REQUIRED";
	case 0xC0000203: return "STATUS_USER_SESSION_DELETED";
	case 0xC000035C: return "STATUS_NETWORK_SESSION_EXPIRED";
	default: return "";
	}
}
