/*
 * check_smbd.c — proto/smbdirect/smbd_dissect.c: SMB Direct negotiate and
 * data transfer messages (MS-SMBD 2.2.1-2.2.3) and the SMB2 messages inside
 * (MS-SMB2 2.2.1, 2.2.19-2.2.22), built here byte by byte (little-endian)
 * from the specifications' layouts; buffer descriptor counts, offsets and
 * lengths that lie, fragments that never complete or whose counts do not
 * add up, every cut of the capture truncated, unknown versions, commands,
 * channels and protocol IDs unsupported, and byte mutations. Every decode
 * reads a heap buffer of exactly the captured length, so a read past it is
 * an ASan error under make SAN=1.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "proto/smbdirect/smbd_dissect.h"
#include "tests/support/rstest.h"

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static enum rs_smbd_outcome decode(const uint8_t *msg, uint32_t caplen, uint32_t wire, bool whole,
				   enum rs_smbd_kind kind, bool cont, struct rs_smbd *r)
{
	uint8_t *copy = malloc(caplen ? caplen : 1);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, msg, caplen);
	struct rs_cursor c;
	rs_cur_init(&c, copy, caplen);
	enum rs_smbd_outcome o = rs_smbd_decode(&c, wire, whole, kind, cont, r);
	ck_assert_uint_le(c.off, caplen);
	free(copy);
	ck_assert_int_eq(o, r->outcome);
	if (o != RS_SMBD_OK)
		ck_assert_ptr_nonnull(r->why);
	return o;
}

static enum rs_smbd_outcome whole(const uint8_t *m, uint32_t n, struct rs_smbd *r)
{
	return decode(m, n, n, true, RS_SMBD_ANY, false, r);
}

/* A data transfer header (2.2.3) with DataOffset 24 when there is data. */
static uint32_t dt_hdr(uint8_t *p, uint16_t creq, uint16_t cgr, uint16_t flags, uint32_t remaining, uint32_t dlen)
{
	memset(p, 0, 24);
	put_le(p, creq, 2);
	put_le(p + 2, cgr, 2);
	put_le(p + 4, flags, 2);
	put_le(p + 8, remaining, 4);
	put_le(p + 12, dlen ? 24 : 0, 4);
	put_le(p + 16, dlen, 4);
	return dlen ? 24 : 20;
}

/* The SMB2 header (2.2.1.2 sync, 2.2.1.1 async). */
static void smb2_hdr(uint8_t *h, uint16_t cmd, uint64_t mid, uint32_t flags, uint32_t status, uint64_t id)
{
	memset(h, 0, RS_SMB2_HDR_LEN);
	h[0] = 0xFE, h[1] = 'S', h[2] = 'M', h[3] = 'B';
	put_le(h + 4, 64, 2);
	put_le(h + 6, 1, 2);
	put_le(h + 8, status, 4);
	put_le(h + 12, cmd, 2);
	put_le(h + 14, 31, 2);
	put_le(h + 16, flags, 4);
	put_le(h + 24, mid, 8);
	if (flags & RS_SMB2_FLAG_ASYNC) {
		put_le(h + 32, id, 8);
	} else {
		put_le(h + 32, 0xFEFF, 4);
		put_le(h + 36, (uint32_t)id, 4);
	}
	put_le(h + 40, 0x0000400000000005ull, 8);
}

/* A data transfer message holding a READ request over the RDMA channel
 * with `nd` descriptors of 4 KiB (2.2.19): returns its length. */
static uint32_t read_rdma(uint8_t *p, unsigned nd)
{
	uint32_t o = dt_hdr(p, 16, 1, 0, 0, 1); /* DataOffset 24; DataLength set below */
	uint8_t *h = p + o;
	smb2_hdr(h, RS_SMB2_READ, 7, 0, 0, 1);
	uint8_t *b = h + RS_SMB2_HDR_LEN;
	memset(b, 0, 48 + 16 * nd);
	put_le(b, 49, 2);
	put_le(b + 4, 4096u * nd, 4);
	put_le(b + 8, 8192, 8);
	put_le(b + 36, RS_SMB2_CHANNEL_RDMA_V1, 4);
	put_le(b + 44, 0x70, 2);
	put_le(b + 46, 16 * nd, 2);
	for (unsigned i = 0; i < nd; i++) {
		put_le(b + 48 + 16 * i, 0xFFFF9A3C12350000ull + 0x10000 * i, 8);
		put_le(b + 56 + 16 * i, 0xA2C5 + i, 4);
		put_le(b + 60 + 16 * i, 4096, 4);
	}
	uint32_t n = RS_SMB2_HDR_LEN + 48 + 16 * nd;
	put_le(p + 16, n, 4);
	return o + n;
}

/* A WRITE request over the RDMA channel (2.2.21): RemainingBytes 2048. */
static uint32_t write_rdma(uint8_t *p)
{
	uint32_t o = dt_hdr(p, 16, 1, 0, 0, 1); /* DataOffset 24; DataLength set below */
	uint8_t *h = p + o;
	smb2_hdr(h, RS_SMB2_WRITE, 9, 0, 0, 1);
	uint8_t *b = h + RS_SMB2_HDR_LEN;
	memset(b, 0, 64);
	put_le(b, 49, 2);
	put_le(b + 2, 0x70, 2);
	put_le(b + 8, 12288, 8);
	put_le(b + 32, RS_SMB2_CHANNEL_RDMA_V1_INVALIDATE, 4);
	put_le(b + 36, 2048, 4);
	put_le(b + 40, 0x70, 2);
	put_le(b + 42, 16, 2);
	put_le(b + 48, 0xFFFF9A3C12370000ull, 8);
	put_le(b + 56, 0xA4E7, 4);
	put_le(b + 60, 2048, 4);
	put_le(p + 16, RS_SMB2_HDR_LEN + 64, 4);
	return o + RS_SMB2_HDR_LEN + 64;
}

START_TEST(test_negotiate)
{
	uint8_t p[32];
	struct rs_smbd r;
	memset(p, 0, sizeof p);
	put_le(p, 0x0100, 2);
	put_le(p + 2, 0x0100, 2);
	put_le(p + 6, 255, 2);
	put_le(p + 8, 1364, 4);
	put_le(p + 12, 8192, 4);
	put_le(p + 16, 1048576, 4);
	ck_assert_int_eq(whole(p, 20, &r), RS_SMBD_OK);
	ck_assert_uint_eq(r.kind, RS_SMBD_NEG_REQ);
	ck_assert_uint_eq(r.credits_requested, 255);
	ck_assert_uint_eq(r.preferred_send, 1364);
	ck_assert_uint_eq(r.max_receive, 8192);
	ck_assert_uint_eq(r.max_fragmented, 1048576);
	/* the response */
	memset(p, 0, sizeof p);
	put_le(p, 0x0100, 2);
	put_le(p + 2, 0x0100, 2);
	put_le(p + 4, 0x0100, 2);
	put_le(p + 8, 255, 2);
	put_le(p + 10, 16, 2);
	put_le(p + 16, 1048576, 4);
	put_le(p + 20, 1364, 4);
	put_le(p + 24, 8192, 4);
	put_le(p + 28, 1048576, 4);
	ck_assert_int_eq(whole(p, 32, &r), RS_SMBD_OK);
	ck_assert_uint_eq(r.kind, RS_SMBD_NEG_RSP);
	ck_assert_uint_eq(r.negotiated_version, 0x0100);
	ck_assert_uint_eq(r.credits_granted, 16);
	ck_assert_uint_eq(r.max_read_write, 1048576);
	/* an error status is a valid response */
	put_le(p + 12, 0xC00000BB, 4);
	ck_assert_int_eq(whole(p, 32, &r), RS_SMBD_OK);
	ck_assert_uint_eq(r.status, 0xC00000BB);
	/* version 2.0 only: unsupported; a negotiated version outside the range: a lie */
	put_le(p, 0x0200, 2), put_le(p + 2, 0x0200, 2), put_le(p + 4, 0x0200, 2);
	ck_assert_int_eq(decode(p, 32, 32, true, RS_SMBD_NEG_RSP, false, &r), RS_SMBD_UNSUPPORTED);
	put_le(p + 4, 0x0300, 2);
	ck_assert_int_eq(decode(p, 32, 32, true, RS_SMBD_NEG_RSP, false, &r), RS_SMBD_MALFORMED);
	/* a request: MinVersion above MaxVersion, no credits, a longer message, too short */
	memset(p, 0, sizeof p);
	put_le(p, 0x0200, 2), put_le(p + 2, 0x0100, 2), put_le(p + 6, 10, 2);
	ck_assert_int_eq(decode(p, 20, 20, true, RS_SMBD_NEG_REQ, false, &r), RS_SMBD_MALFORMED);
	put_le(p, 0x0100, 2), put_le(p + 6, 0, 2);
	ck_assert_int_eq(decode(p, 20, 20, true, RS_SMBD_NEG_REQ, false, &r), RS_SMBD_MALFORMED);
	put_le(p + 6, 10, 2);
	ck_assert_int_eq(decode(p, 24, 24, true, RS_SMBD_NEG_REQ, false, &r), RS_SMBD_MALFORMED);
	ck_assert_int_eq(decode(p, 19, 19, true, RS_SMBD_NEG_REQ, false, &r), RS_SMBD_NOT);
	/* cut anywhere inside: truncated, never ok */
	for (uint32_t cut = 0; cut < 20; cut++)
		ck_assert_int_eq(decode(p, cut, 20, true, RS_SMBD_NEG_REQ, false, &r), RS_SMBD_TRUNCATED);
}
END_TEST

START_TEST(test_read_rdma_channel)
{
	uint8_t p[400];
	struct rs_smbd r;
	uint32_t n = read_rdma(p, 2);
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_OK);
	ck_assert_uint_eq(r.kind, RS_SMBD_DATA);
	ck_assert_uint_eq(r.credits_requested, 16);
	ck_assert_uint_eq(r.data_offset, 24);
	ck_assert(r.has_smb2);
	ck_assert_uint_eq(r.smb2.command, RS_SMB2_READ);
	ck_assert_str_eq(rs_smb2_cmd_name(r.smb2.command), "READ");
	ck_assert_uint_eq(r.smb2.message_id, 7);
	ck_assert(!r.smb2.response && !r.smb2.async);
	ck_assert_uint_eq(r.smb2.tree_id, 1);
	ck_assert_uint_eq(r.smb2.session_id, 0x0000400000000005ull);
	ck_assert_uint_eq(r.smb2.credits, 31);
	ck_assert_uint_eq(r.smb2.length, 8192);
	ck_assert_uint_eq(r.smb2.file_offset, 8192);
	ck_assert_uint_eq(r.smb2.channel, RS_SMB2_CHANNEL_RDMA_V1);
	ck_assert_uint_eq(r.smb2.ndesc, 2);
	ck_assert_uint_eq(r.smb2.desc[0].offset, 0xFFFF9A3C12350000ull);
	ck_assert_uint_eq(r.smb2.desc[1].offset, 0xFFFF9A3C12360000ull);
	ck_assert_uint_eq(r.smb2.desc[1].token, 0xA2C6);
	ck_assert_uint_eq(r.smb2.desc[1].length, 4096);
	ck_assert_uint_eq(r.smb2.desc_bytes, 8192);
	/* more descriptors than kept: counted */
	n = read_rdma(p, RS_SMBD_MAX_DESC + 3);
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_OK);
	ck_assert_uint_eq(r.smb2.ndesc, RS_SMBD_MAX_DESC);
	ck_assert_uint_eq(r.smb2.desc_dropped, 3);
	/* every cut of the capture: truncated */
	n = read_rdma(p, 2);
	for (uint32_t cut = 0; cut < n; cut++)
		ck_assert_int_eq(decode(p, cut, n, true, RS_SMBD_DATA, false, &r), RS_SMBD_TRUNCATED);
}
END_TEST

/* Descriptor counts, offsets and lengths that lie. */
START_TEST(test_descriptors_lie)
{
	uint8_t p[400];
	struct rs_smbd r;
	uint32_t n = read_rdma(p, 2);
	uint8_t *b = p + 24 + RS_SMB2_HDR_LEN;
	/* ReadChannelInfoLength says 3 descriptors, the message holds 2 */
	put_le(b + 46, 48, 2);
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_MALFORMED);
	/* not whole descriptors */
	put_le(b + 46, 20, 2);
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_MALFORMED);
	/* none at all */
	put_le(b + 46, 0, 2);
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_MALFORMED);
	/* an offset inside the fixed part, one far past the end */
	put_le(b + 46, 32, 2);
	put_le(b + 44, 0x60, 2);
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_MALFORMED);
	put_le(b + 44, 0xFFF0, 2);
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_MALFORMED);
	put_le(b + 44, 0x70, 2);
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_OK);
	/* descriptors for less than the READ asks */
	put_le(b + 4, 8193, 4);
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_MALFORMED);
	put_le(b + 4, 8192, 4);
	/* the transform channel and an unknown one */
	put_le(b + 36, RS_SMB2_CHANNEL_RDMA_TRANSFORM, 4);
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_UNSUPPORTED);
	put_le(b + 36, 77, 4);
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_UNSUPPORTED);
	/* a WRITE: descriptors shorter than RemainingBytes */
	n = write_rdma(p);
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_OK);
	ck_assert_uint_eq(r.smb2.remaining_bytes, 2048);
	ck_assert_uint_eq(r.smb2.channel, RS_SMB2_CHANNEL_RDMA_V1_INVALIDATE);
	ck_assert_uint_eq(r.smb2.desc[0].token, 0xA4E7);
	ck_assert_uint_eq(r.smb2.file_offset, 12288);
	put_le(b + 36, 4096, 4);
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_MALFORMED);
	for (uint32_t cut = 0; cut < n; cut++)
		ck_assert_int_eq(decode(p, cut, n, true, RS_SMBD_DATA, false, &r), RS_SMBD_TRUNCATED);
}
END_TEST

/* The data transfer header's own lies. */
START_TEST(test_data_header_lies)
{
	uint8_t p[400];
	struct rs_smbd r;
	uint32_t n = read_rdma(p, 1);
	put_le(p + 12, 20, 4); /* DataOffset not 8-byte aligned */
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_MALFORMED);
	put_le(p + 12, 16, 4); /* inside the header */
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_MALFORMED);
	put_le(p + 12, 24, 4);
	put_le(p + 16, n, 4);  /* DataLength past the SEND */
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_MALFORMED);
	/* ... which a SEND First may hold: the rest comes in later packets */
	ck_assert_int_eq(decode(p, n, n, false, RS_SMBD_DATA, false, &r), RS_SMBD_OK);
	put_le(p + 16, 0, 4);  /* no data, but more to come */
	put_le(p + 8, 100, 4);
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_MALFORMED);
	put_le(p + 8, 0xFFFFFFF0u, 4); /* RemainingDataLength past any size */
	put_le(p + 16, 64, 4);
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_MALFORMED);
	/* too short for a header: not SMB Direct */
	ck_assert_int_eq(decode(p, 19, 19, true, RS_SMBD_DATA, false, &r), RS_SMBD_NOT);
	/* a credit grant alone */
	dt_hdr(p, 16, 8, 0, 0, 0);
	ck_assert_int_eq(whole(p, 20, &r), RS_SMBD_OK);
	ck_assert_uint_eq(r.credits_granted, 8);
	ck_assert(!r.has_smb2);
}
END_TEST

/* The SMB2 header's lies and what is not decoded. */
START_TEST(test_smb2_header)
{
	uint8_t p[400];
	struct rs_smbd r;
	uint32_t n = read_rdma(p, 1);
	uint8_t *h = p + 24;
	h[4] = 63;
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_MALFORMED);
	h[4] = 64;
	h[0] = 0xFD;
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_UNSUPPORTED);
	h[0] = 0xFC;
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_UNSUPPORTED);
	h[0] = 0xFF;
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_UNSUPPORTED);
	h[0] = 0x42;
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_MALFORMED);
	h[0] = 0xFE;
	put_le(h + 12, 0x13, 2);
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_UNSUPPORTED);
	ck_assert(r.has_smb2); /* the header before the command is valid */
	put_le(h + 12, RS_SMB2_READ, 2);
	/* NextCommand: unaligned, inside the header, past the message */
	put_le(h + 20, 68, 4);
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_MALFORMED);
	put_le(h + 20, 8, 4);
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_MALFORMED);
	put_le(h + 20, 4096, 4);
	ck_assert_int_eq(whole(p, n, &r), RS_SMBD_MALFORMED);
	put_le(h + 20, 0, 4);
	/* an async interim response: STATUS_PENDING, AsyncId, error body */
	uint32_t o = dt_hdr(p, 16, 1, 0, 0, RS_SMB2_HDR_LEN + 9);
	smb2_hdr(p + o, RS_SMB2_WRITE, 9, RS_SMB2_FLAG_RESPONSE | RS_SMB2_FLAG_ASYNC, RS_NT_STATUS_PENDING, 0x21);
	memset(p + o + RS_SMB2_HDR_LEN, 0, 9);
	put_le(p + o + RS_SMB2_HDR_LEN, 9, 2);
	ck_assert_int_eq(whole(p, o + RS_SMB2_HDR_LEN + 9, &r), RS_SMBD_OK);
	ck_assert(r.smb2.async && r.smb2.response);
	ck_assert_uint_eq(r.smb2.async_id, 0x21);
	ck_assert_uint_eq(r.smb2.status, RS_NT_STATUS_PENDING);
	ck_assert_uint_eq(r.smb2.tree_id, 0);
	/* a READ response body of the wrong size, then the right one */
	o = dt_hdr(p, 16, 1, 0, 0, RS_SMB2_HDR_LEN + 17);
	smb2_hdr(p + o, RS_SMB2_READ, 7, RS_SMB2_FLAG_RESPONSE, 0, 1);
	memset(p + o + RS_SMB2_HDR_LEN, 0, 17);
	put_le(p + o + RS_SMB2_HDR_LEN, 9, 2);
	ck_assert_int_eq(whole(p, o + RS_SMB2_HDR_LEN + 17, &r), RS_SMBD_MALFORMED);
	put_le(p + o + RS_SMB2_HDR_LEN, 17, 2);
	put_le(p + o + RS_SMB2_HDR_LEN + 8, 8192, 4);
	ck_assert_int_eq(whole(p, o + RS_SMB2_HDR_LEN + 17, &r), RS_SMBD_OK);
	ck_assert_uint_eq(r.smb2.data_remaining, 8192);
	/* a data message shorter than an SMB2 header and not fragmented */
	o = dt_hdr(p, 16, 1, 0, 0, 40);
	ck_assert_int_eq(whole(p, o + 40, &r), RS_SMBD_MALFORMED);
}
END_TEST

/* A message in three fragments: the first holds the header (continued),
 * the others continue it; the bookkeeping completes it once. Fragments
 * that never complete stay open; counts that do not add up are caught. */
START_TEST(test_fragments)
{
	uint8_t p[1100];
	struct rs_smbd r;
	struct rs_smbd_frag st;
	memset(&st, 0, sizeof st);
	uint32_t o = dt_hdr(p, 16, 1, 0, 1112, 1000);
	smb2_hdr(p + o, RS_SMB2_WRITE, 5, 0, 0, 1);
	memset(p + o + RS_SMB2_HDR_LEN, 0x5A, 1000 - RS_SMB2_HDR_LEN);
	put_le(p + o + RS_SMB2_HDR_LEN, 49, 2);
	put_le(p + o + RS_SMB2_HDR_LEN + 2, 0x70, 2);
	put_le(p + o + RS_SMB2_HDR_LEN + 4, 2000, 4);
	put_le(p + o + RS_SMB2_HDR_LEN + 32, 0, 4);
	ck_assert_int_eq(whole(p, 1024, &r), RS_SMBD_CONTINUED);
	ck_assert(r.has_smb2 && r.smb2.has_body);
	ck_assert_uint_eq(r.smb2.length, 2000);
	ck_assert_int_eq(rs_smbd_frag_feed(&st, r.remaining, r.data_length, 1048576), RS_SMBD_FRAG_START);
	dt_hdr(p, 16, 0, 0, 112, 1000);
	ck_assert_int_eq(decode(p, 1024, 1024, true, RS_SMBD_DATA, st.open, &r), RS_SMBD_CONTINUED);
	ck_assert(r.continuation && !r.has_smb2);
	ck_assert_int_eq(rs_smbd_frag_feed(&st, r.remaining, r.data_length, 1048576), RS_SMBD_FRAG_MORE);
	dt_hdr(p, 16, 0, 1, 0, 112);
	ck_assert_int_eq(decode(p, 136, 136, true, RS_SMBD_DATA, st.open, &r), RS_SMBD_CONTINUED);
	ck_assert_int_eq(rs_smbd_frag_feed(&st, r.remaining, r.data_length, 1048576), RS_SMBD_FRAG_DONE);
	ck_assert_uint_eq(st.total, 2112);
	ck_assert_uint_eq(st.fragments, 3);
	ck_assert(!st.open);
	ck_assert_int_eq(rs_smbd_frag_feed(&st, 0, 100, 1048576), RS_SMBD_FRAG_WHOLE);
	ck_assert_int_eq(rs_smbd_frag_feed(&st, 0, 0, 1048576), RS_SMBD_FRAG_EMPTY);
	/* never completes: every fragment says more is to come */
	uint32_t left = 1000000;
	ck_assert_int_eq(rs_smbd_frag_feed(&st, left, 1000, 1048576), RS_SMBD_FRAG_START);
	for (int i = 0; i < 900; i++) {
		left -= 1000;
		ck_assert_int_eq(rs_smbd_frag_feed(&st, left, 1000, 1048576), RS_SMBD_FRAG_MORE);
	}
	ck_assert(st.open);
	ck_assert_uint_eq(st.fragments, 901);
	/* a RemainingDataLength that does not go down by the data: a lie, reset */
	ck_assert_int_eq(rs_smbd_frag_feed(&st, left, 1000, 1048576), RS_SMBD_FRAG_LIED);
	ck_assert(!st.open);
	ck_assert_int_eq(rs_smbd_frag_feed(&st, 5000, 1000, 1048576), RS_SMBD_FRAG_START);
	ck_assert_int_eq(rs_smbd_frag_feed(&st, 4500, 1000, 1048576), RS_SMBD_FRAG_LIED);
	ck_assert_int_eq(rs_smbd_frag_feed(&st, 500, 1000, 1048576), RS_SMBD_FRAG_START);
	ck_assert_int_eq(rs_smbd_frag_feed(&st, 0, 1000, 1048576), RS_SMBD_FRAG_LIED);
	/* a fragment with no data but more announced */
	ck_assert_int_eq(rs_smbd_frag_feed(&st, 500, 1000, 1048576), RS_SMBD_FRAG_START);
	ck_assert_int_eq(rs_smbd_frag_feed(&st, 500, 0, 1048576), RS_SMBD_FRAG_LIED);
	/* longer than the receiver's MaxFragmentedSize */
	ck_assert_int_eq(rs_smbd_frag_feed(&st, 1048576, 1000, 1048576), RS_SMBD_FRAG_TOO_LONG);
	ck_assert(!st.open);
	ck_assert_int_eq(rs_smbd_frag_feed(&st, 0xFFFFFFFFu, 0xFFFFFFFFu, 0), RS_SMBD_FRAG_START);
	/* a first fragment too short for the SMB2 header: continued, no header */
	o = dt_hdr(p, 16, 1, 0, 100, 40);
	ck_assert_int_eq(whole(p, o + 40, &r), RS_SMBD_CONTINUED);
	ck_assert(!r.has_smb2);
	/* the SMB2 header of a SEND First whose packet ends inside it */
	o = read_rdma(p, 1);
	ck_assert_int_eq(decode(p, 60, 60, false, RS_SMBD_DATA, false, &r), RS_SMBD_CONTINUED);
	ck_assert_int_eq(decode(p, 50, 60, false, RS_SMBD_DATA, false, &r), RS_SMBD_CONTINUED);
}
END_TEST

/* Every byte of the messages set to each of a few values: the decoder
 * stays inside the buffer and names every outcome but ok. */
START_TEST(test_mutations)
{
	uint8_t p[400], q[400];
	struct rs_smbd r;
	static const uint8_t vals[] = { 0x00, 0x01, 0x07, 0x10, 0x40, 0x70, 0x80, 0xFF };
	for (int which = 0; which < 3; which++) {
		uint32_t n = which == 0 ? read_rdma(p, 2) : which == 1 ? write_rdma(p) : 20;
		if (which == 2) {
			memset(p, 0, 20);
			put_le(p, 0x0100, 2), put_le(p + 2, 0x0100, 2), put_le(p + 6, 10, 2);
		}
		for (uint32_t i = 0; i < n; i++)
			for (unsigned v = 0; v < sizeof vals; v++)
				for (int k = RS_SMBD_ANY; k <= RS_SMBD_DATA; k++) {
					memcpy(q, p, n);
					q[i] = vals[v];
					decode(q, n, n, true, (enum rs_smbd_kind)k, false, &r);
					decode(q, n, n, false, (enum rs_smbd_kind)k, false, &r);
					decode(q, n, n, true, (enum rs_smbd_kind)k, true, &r);
					decode(q, n / 2, n, true, (enum rs_smbd_kind)k, false, &r);
				}
	}
	for (int o = 0; o < RS_SMBD__OUTCOMES; o++)
		ck_assert_str_ne(rs_smbd_outcome_name((enum rs_smbd_outcome)o), "");
}
END_TEST

/* A compound (MS-SMB2 3.2.4.1.4): `n` ECHO requests (StructureSize 4, each
 * padded to 72 bytes), or a READ over the RDMA channel then ECHOs; returns
 * the message's length. */
static uint32_t compound(uint8_t *p, unsigned n, bool read_first)
{
	uint32_t o = dt_hdr(p, 16, 1, 0, 0, 1), at = 0;
	for (unsigned i = 0; i < n; i++) {
		uint8_t *h = p + o + at;
		uint32_t len = 72;
		if (i == 0 && read_first) {
			read_rdma(p, 1); /* header and body at p + 24, 64 + 48 + 16 bytes */
			len = RS_SMB2_HDR_LEN + 64;
		} else {
			smb2_hdr(h, RS_SMB2_ECHO, 20 + i, i ? RS_SMB2_FLAG_RELATED : 0, 0, 1);
			memset(h + RS_SMB2_HDR_LEN, 0, 8);
			put_le(h + RS_SMB2_HDR_LEN, 4, 2);
		}
		put_le(h + 20, i + 1 < n ? len : 0, 4);
		at += i + 1 < n ? len : RS_SMB2_HDR_LEN + 4;
	}
	put_le(p + 16, at, 4);
	return o + at;
}

START_TEST(test_compound)
{
	uint8_t m[1400];
	struct rs_smbd r;
	/* Three headers: two after the first kept, each read as the first. */
	uint32_t n = compound(m, 3, false);
	ck_assert_int_eq(whole(m, n, &r), RS_SMBD_OK);
	ck_assert(r.has_smb2 && r.smb2.next_command == 72);
	ck_assert_uint_eq(r.nchain, 2);
	ck_assert_uint_eq(r.chain_dropped, 0);
	ck_assert(!r.chain_cut);
	ck_assert_uint_eq(r.chain[0].message_id, 21);
	ck_assert_uint_eq(r.chain[1].message_id, 22);
	ck_assert_uint_eq(r.chain[1].command, RS_SMB2_ECHO);
	ck_assert(r.chain[1].flags & RS_SMB2_FLAG_RELATED);
	ck_assert_uint_eq(r.chain[1].next_command, 0);
	/* A READ with its descriptor first: the chain's later headers too. */
	n = compound(m, 2, true);
	ck_assert_int_eq(whole(m, n, &r), RS_SMBD_OK);
	ck_assert_uint_eq(r.smb2.command, RS_SMB2_READ);
	ck_assert_uint_eq(r.smb2.ndesc, 1);
	ck_assert_uint_eq(r.nchain, 1);
	ck_assert_uint_eq(r.chain[0].message_id, 21);
	/* Eight: RS_SMBD_CHAIN kept after the first, the rest counted. */
	n = compound(m, 8, false);
	ck_assert_int_eq(whole(m, n, &r), RS_SMBD_OK);
	ck_assert_uint_eq(r.nchain, RS_SMBD_CHAIN);
	ck_assert_uint_eq(r.chain_dropped, 8 - 1 - RS_SMBD_CHAIN);
	ck_assert_uint_eq(r.chain[RS_SMBD_CHAIN - 1].message_id, 20 + RS_SMBD_CHAIN);
	/* The SEND's First holds the first two headers only: the chain is cut. */
	n = compound(m, 3, false);
	ck_assert_int_eq(decode(m, 24 + 72 + 64 + 8, 24 + 72 + 64 + 8, false, RS_SMBD_ANY, false, &r), RS_SMBD_OK);
	ck_assert_uint_eq(r.nchain, 1);
	ck_assert(r.chain_cut);
	/* ... and a capture cut inside the second header. */
	ck_assert_int_eq(decode(m, 24 + 72 + 40, n, true, RS_SMBD_ANY, false, &r), RS_SMBD_OK);
	ck_assert_uint_eq(r.nchain, 0);
	ck_assert(r.chain_cut);
	/* Every cut of the capture: never a read past it, the first header kept. */
	for (uint32_t cap = 24 + RS_SMB2_HDR_LEN; cap <= n; cap++) {
		enum rs_smbd_outcome o = decode(m, cap, n, true, RS_SMBD_ANY, false, &r);
		ck_assert(o == RS_SMBD_OK || o == RS_SMBD_TRUNCATED);
		ck_assert(r.has_smb2);
		ck_assert_uint_le(r.nchain, 2);
	}
	/* NextCommand that points at no header, or past the message. */
	n = compound(m, 3, false);
	m[24 + 72] = 0xFD;
	ck_assert_int_eq(whole(m, n, &r), RS_SMBD_MALFORMED);
	ck_assert(r.has_smb2);
	n = compound(m, 3, false);
	put_le(m + 24 + 72 + 20, 0x1000, 4);
	ck_assert_int_eq(whole(m, n, &r), RS_SMBD_MALFORMED);
	n = compound(m, 3, false);
	put_le(m + 24 + 20, 68, 4); /* not 8-byte aligned */
	ck_assert_int_eq(whole(m, n, &r), RS_SMBD_MALFORMED);
	ck_assert_uint_eq(r.nchain, 0);
}
END_TEST

static Suite *smbd_suite(void)
{
	Suite *s = suite_create("smbd");
	TCase *tc = tcase_create("messages");
	tcase_add_test(tc, test_negotiate);
	tcase_add_test(tc, test_read_rdma_channel);
	tcase_add_test(tc, test_descriptors_lie);
	tcase_add_test(tc, test_data_header_lies);
	tcase_add_test(tc, test_smb2_header);
	tcase_add_test(tc, test_fragments);
	tcase_add_test(tc, test_mutations);
	tcase_add_test(tc, test_compound);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_run_suite(smbd_suite());
}
