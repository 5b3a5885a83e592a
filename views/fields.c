/*
 * fields.c — `rocestat --fields`: one CSV line per RoCE frame, every BTH and
 * extension-header field in decimal, empty where the header is absent.
 * Frames that could not be fully decoded still get their line (with what was
 * decoded) and a note on stderr naming the file, frame and reason.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "views/views.h"

static const char header[] =
	"frame,time,roce,src,dst,opcode,opname,destqp,psn,ackreq,se,migreq,padcnt,tver,pkey,fecn,becn,"
	"reth_va,reth_rkey,reth_dmalen,aeth_syndrome,aeth_msn,deth_qkey,deth_srcqp,immdt,ieth_rkey,"
	"atomic_va,atomic_rkey,atomic_swap,atomic_cmp,atomicack_orig,payload_len,icrc,icrc_status";

/*
 * Speed: a line is built in a large buffer by hand (integers two digits at
 * a time, addresses from a small cache of formatted ones) and written with
 * fwrite() a megabyte at a time: printf per column ran at 0.8 M lines/s.
 * The bytes are exactly the printf version's (tests/diff_tshark.py and the
 * goldens check them).
 */
#define OUT_BUF (1u << 20)
#define LINE_MAX_BYTES 1024 /* a line is at most ~450 bytes */
#define ADDR_CACHE 1024     /* formatted addresses kept: 2^10, see put_addr */

struct addr_entry {
	struct rs_addr a;
	uint8_t len;
	bool used;
	char text[RS_ADDR_STRLEN];
};

struct fields_ctx {
	FILE *out;
	const char *file;
	bool header_done;
	char *buf;
	size_t len;
	struct addr_entry cache[ADDR_CACHE];
};

static void flush_buf(struct fields_ctx *c)
{
	if (c->len)
		fwrite(c->buf, 1, c->len, c->out);
	c->len = 0;
}

static void begin_file(void *vctx, const char *name, int dlt)
{
	struct fields_ctx *c = vctx;
	(void)dlt;
	c->file = name;
	if (!c->header_done) {
		fprintf(c->out, "%s\n", header);
		c->header_done = true;
	}
}

static void end_file(void *vctx, const char *name)
{
	(void)name;
	flush_buf(vctx);
}

static const char digits2[200] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Decimal, as printf's %llu: returns the end. */
static char *put_u64(char *p, uint64_t v)
{
	char tmp[20];
	char *e = tmp + sizeof tmp, *q = e;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		q -= 2;
		memcpy(q, digits2 + 2 * r, 2);
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, digits2 + 2 * v, 2);
	} else {
		*--q = (char)('0' + v);
	}
	memcpy(p, q, (size_t)(e - q));
	return p + (e - q);
}

/* Exactly nine digits, zero-padded (%09llu of a value below 10^9). */
static char *put_9(char *p, uint32_t v)
{
	for (int i = 8; i >= 0; i--) {
		p[i] = (char)('0' + v % 10);
		v /= 10;
	}
	return p + 9;
}

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);
	memcpy(p, s, n);
	return p + n;
}

static char *put_addr(struct fields_ctx *c, char *p, const struct rs_addr *a)
{
	uint32_t h = a->kind * 0x9E3779B1u;
	for (int i = 0; i < 16; i += 4) {
		uint32_t w;
		memcpy(&w, a->b + i, 4);
		h = (h ^ w) * 0x85EBCA6Bu;
	}
	struct addr_entry *e = &c->cache[h >> 22]; /* the top bits: they depend on every input bit */
	if (!e->used || e->a.kind != a->kind || memcmp(e->a.b, a->b, 16) != 0) {
		char t[RS_ADDR_STRLEN];
		const char *txt = rs_addr_format(a, t);
		size_t n = strlen(txt);
		e->a = *a;
		e->used = true;
		e->len = (uint8_t)n;
		memcpy(e->text, txt, n);
	}
	memcpy(p, e->text, e->len);
	return p + e->len;
}

/* ",value" when the header is there, "," otherwise. */
static inline char *col(char *p, bool present, uint64_t v)
{
	*p++ = ',';
	return present ? put_u64(p, v) : p;
}

static bool frame(void *vctx, const struct rs_packet *pkt, const struct rs_frame *f)
{
	struct fields_ctx *c = vctx;

	if (f->roce == RS_ROCE_NONE)
		return true;
	if (f->outcome != RS_OK) {
		char why[256];
		rs_frame_why(f, why, sizeof why);
		fprintf(stderr, "rocestat: %s: frame %" PRIu64 ": %s: %s\n", c->file, pkt->frame_no,
			rs_outcome_name((enum rs_outcome)f->outcome), why);
	}
	if (c->len + LINE_MAX_BYTES > OUT_BUF)
		flush_buf(c);
	char *p = c->buf + c->len;
	uint64_t ts = rs_frame_time_ns(f, pkt->ts_ns);
	p = put_u64(p, pkt->frame_no);
	*p++ = ',';
	p = put_u64(p, ts / 1000000000u);
	*p++ = '.';
	p = put_9(p, (uint32_t)(ts % 1000000000u));
	*p++ = ',';
	p = put_str(p, rs_roce_name((enum rs_roce)f->roce));
	*p++ = ',';
	p = put_addr(c, p, &f->src);
	*p++ = ',';
	p = put_addr(c, p, &f->dst);

	const struct rs_bth *b = &f->bth;
	if (f->have & RS_HAVE_BTH) {
		p = col(p, true, b->opcode);
		*p++ = ',';
		p = put_str(p, rs_opinfo(b->opcode)->name);
		p = col(p, true, b->destqp);
		p = col(p, true, b->psn);
		p = col(p, true, b->ackreq);
		p = col(p, true, b->se);
		p = col(p, true, b->migreq);
		p = col(p, true, b->padcnt);
		p = col(p, true, b->tver);
		p = col(p, true, b->pkey);
		p = col(p, true, b->fecn);
		p = col(p, true, b->becn);
	} else {
		p = put_str(p, ",,,,,,,,,,,,");
	}

	bool ext = f->have & RS_HAVE_EXT;
	bool reth = ext && (f->ext & RS_EXT_RETH);
	p = col(p, reth, f->reth.va);
	p = col(p, reth, f->reth.rkey);
	p = col(p, reth, f->reth.dmalen);
	bool aeth = ext && (f->ext & RS_EXT_AETH);
	p = col(p, aeth, f->aeth.syndrome);
	p = col(p, aeth, f->aeth.msn);
	bool deth = ext && (f->ext & RS_EXT_DETH);
	p = col(p, deth, f->deth.qkey);
	p = col(p, deth, f->deth.srcqp);
	p = col(p, ext && (f->ext & RS_EXT_IMMDT), f->immdt);
	p = col(p, ext && (f->ext & RS_EXT_IETH), f->ieth_rkey);
	bool atomic = ext && (f->ext & RS_EXT_ATOMICETH);
	p = col(p, atomic, f->atomic.va);
	p = col(p, atomic, f->atomic.rkey);
	p = col(p, atomic, f->atomic.swap);
	p = col(p, atomic, f->atomic.cmp);
	p = col(p, ext && (f->ext & RS_EXT_ATOMICACKETH), f->atomicack_orig);
	p = col(p, ext, f->payload_len);
	p = col(p, f->have & RS_HAVE_ICRC, f->icrc);
	*p++ = ',';
	/* A bad ICRC that another UDP source port makes match: the capture
	 * rewrote the port (dissect's icrc_sport), not corruption. */
	p = put_str(p, f->icrc_status == RS_CRC_BAD && f->icrc_sport ? "port_rewritten"
							     : rs_crc_status_name((enum rs_crc_status)f->icrc_status));
	*p++ = '\n';
	c->len = (size_t)(p - c->buf);
	return true;
}

static void frames(void *vctx, const struct rs_packet *pkt, const struct rs_frame *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		frame(vctx, &pkt[i], &f[i]);
}

struct rs_sink rs_fields_sink(FILE *out)
{
	static struct fields_ctx ctx;
	static char buf[OUT_BUF];
	ctx = (struct fields_ctx){ .out = out, .buf = buf };
	return (struct rs_sink){ .ctx = &ctx, .begin_file = begin_file, .frame = frame, .frames = frames, .end_file = end_file };
}
