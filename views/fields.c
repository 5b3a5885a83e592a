/*
 * fields.c — `rocestat --fields`: one CSV line per RoCE frame, every BTH and
 * extension-header field in decimal, empty where the header is absent.
 * Frames that could not be fully decoded still get their line (with what was
 * decoded) and a note on stderr naming the file, frame and reason. RoCE v2
 * lines carry the IP DSCP and ECN. PAUSE and PFC frames, not RoCE but what
 * stops it, get a line too: roce "pause" or "pfc", the MAC addresses, the
 * priority-enable vector and the times (quanta) of priorities 0-7 joined
 * by ';' (a PAUSE: its one time), the RoCE columns empty.
 *
 * With --verdicts, the columns of verdict_cols[] follow: what the analyzer
 * concluded about the frame (struct rs_verdict, analyzer/analyzer.h), from
 * an analyzer the view feeds every frame of the file (vfeed.h). A new
 * field of struct rs_verdict gets its column with one entry in that table.
 *
 * -e NAME (repeatable, tshark's habit) keeps only the columns named, in the
 * order given: the whole line is built as always, then cut down.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/result.h"
#include "proto/proto.h"
#include "report/escape.h"
#include "views/vfeed.h"
#include "views/views.h"

static const char header[] =
	"frame,time,roce,src,dst,opcode,opname,destqp,psn,ackreq,se,migreq,padcnt,tver,pkey,fecn,becn,"
	"reth_va,reth_rkey,reth_dmalen,aeth_syndrome,aeth_msn,deth_qkey,deth_srcqp,immdt,ieth_rkey,"
	"atomic_va,atomic_rkey,atomic_swap,atomic_cmp,atomicack_orig,payload_len,icrc,icrc_status,sliced,"
	"dceth_flags,dceth_srcqp,dceth_session,dceth_dct,dcceth_dckey,dscp,ecn,udp_sport,cm_message,"
	"pause_enable,pause_quanta,ip_id,ttl,aeth_kind";

/*
 * The verdict columns, in order. A column prints a field of struct
 * rs_verdict, and is empty where the verdict does not apply:
 *   NUM(name, field)          the number; empty when 0 (a frame number 0 is
 *                             "none": frames count from 1)
 *   NUM_IF(name, field, if)   the number, when the field `if` is non-zero
 *   FLAG(name, field)         "1" when true, empty otherwise (tshark's habit
 *                             for its analysis flags)
 *   NAME(name, field, [value] = "word", ...)
 *                             the word for the value; empty for 0; a value
 *                             without a word prints as its number
 * The man page (--verdicts) says what each means.
 */
enum vcol_kind { VC_NUM, VC_FLAG, VC_NAME, VC_PROTO /* a row of rs_protos[]: its word */,
		 VC_ULP_OP /* the frame's module names it (rs_proto_hooks op_name) */ };

struct vcol {
	const char *name;
	uint8_t kind;           /* enum vcol_kind */
	uint8_t size, if_size;  /* bytes of the field and of the `if` field (0: the field itself) */
	uint16_t off, if_off;
	const char *const *words;
	unsigned nwords;
};

#define VFIELD(f) .off = offsetof(struct rs_verdict, f), .size = sizeof(((struct rs_verdict *)0)->f)
#define VIF(f) .if_off = offsetof(struct rs_verdict, f), .if_size = sizeof(((struct rs_verdict *)0)->f)
#define NUM(n, f) { .name = n, .kind = VC_NUM, VFIELD(f) }
#define NUM_IF(n, f, c) { .name = n, .kind = VC_NUM, VFIELD(f), VIF(c) }
#define FLAG(n, f) { .name = n, .kind = VC_FLAG, VFIELD(f) }
#define NAME(n, f, ...)                                                                         \
	{ .name = n, .kind = VC_NAME, VFIELD(f), .words = (const char *const[]){ __VA_ARGS__ }, \
	  .nwords = sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *) }

static const struct vcol verdict_cols[] = {
	NAME("icrc_verdict", icrc, [RS_V_ICRC_UNCHECKED] = "unchecked", [RS_V_ICRC_OK] = "ok",
	     [RS_V_ICRC_BAD] = "bad", [RS_V_ICRC_PORT_REWRITTEN] = "port_rewritten"),
	NAME("psn_verdict", psn, [RS_V_PSN_NEXT] = "next", [RS_V_PSN_AHEAD] = "ahead",
	     [RS_V_PSN_DUPLICATE] = "duplicate", [RS_V_PSN_FILL] = "gap_fill"),
	NUM("psn_gap", gap),
	NUM("retransmission_of", resent_of),
	NUM("nak_frame", nak_frame),
	NUM_IF("nak_psn", nak_psn, nak_frame),
	NUM("late_frame", late_frame),
	NAME("resend", resend, [RS_V_RESEND_NETDUP] = "network_copy", [RS_V_RESEND_LATE] = "late",
	     [RS_V_RESEND_NAK] = "after_nak", [RS_V_RESEND_RNR] = "after_rnr_nak", [RS_V_RESEND_TIMEOUT] = "timeout",
	     [RS_V_RESEND_READ] = "read_retry", [RS_V_RESEND_UNKNOWN] = "unknown"),
	NUM("resend_after", resend_after),
	NUM_IF("resend_wait_ns", resend_wait_ns, resend),
	NAME("msg_kind", msg, [RS_KIND_SEND] = "send", [RS_KIND_WRITE] = "write",
	     [RS_KIND_READ_RESP] = "read_response"),
	NUM_IF("msg_index", msg_index, msg_known),
	NUM_IF("msg_offset", msg_offset, msg_known),
	NUM("msg_total", msg_total),
	NUM("msg_first", msg_first_frame),
	NUM("msg_read_request", msg_req_frame),
	NUM("response_to", req_frame),
	FLAG("dup_ack", dup_ack),
	NUM("cm_response_to", cm_answers),
	NUM("start_psn_of", start_frame),
	{ .name = "ulp", .kind = VC_PROTO, VFIELD(ulp) },
	NAME("nvme", nvme, [RS_NVME_CMD] = "command", [RS_NVME_RSP] = "response"),
	NUM_IF("nvme_opcode", nvme_opcode, nvme_op_known),
	NUM_IF("nvme_fctype", nvme_fctype, nvme_fabrics),
	NUM_IF("nvme_cid", nvme_cid, nvme),
	NUM("nvme_command_frame", nvme_cmd_frame),
	NUM_IF("nvme_latency_ns", nvme_lat_ns, nvme_timed),
	NAME("ulp_pdu", ulp_pdu, [RS_ULP_REQUEST] = "request", [RS_ULP_RESPONSE] = "response",
	     [RS_ULP_TRANSFER] = "transfer", [RS_ULP_OTHER] = "other"),
	{ .name = "ulp_op", .kind = VC_ULP_OP, VFIELD(ulp_op), VIF(ulp_op_known) },
	NUM_IF("ulp_tag", ulp_tag, ulp_tag_known),
	NUM("ulp_request_frame", ulp_req_frame),
	NUM_IF("ulp_latency_ns", ulp_lat_ns, ulp_timed),
	FLAG("ulp_resent", ulp_resent),
	FLAG("ulp_failed", ulp_failed),
};

/* A field of the verdict, as a number. */
static uint64_t vfield(const struct rs_verdict *v, unsigned off, unsigned size)
{
	const unsigned char *p = (const unsigned char *)v + off;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	switch (size) {
	case 1: memcpy(&u8, p, 1); return u8;
	case 2: memcpy(&u16, p, 2); return u16;
	case 4: memcpy(&u32, p, 4); return u32;
	default: memcpy(&u64, p, 8); return u64;
	}
}

/*
 * Speed: a line is built in a large buffer by hand (integers two digits at
 * a time, addresses from a small cache of formatted ones) and written with
 * fwrite() a megabyte at a time: printf per column ran at 0.8 M lines/s.
 * The bytes are exactly the printf version's (tests/diff_tshark.py and the
 * goldens check them).
 */
#define OUT_BUF (1u << 20)
#define LINE_MAX_BYTES 2048 /* a line is at most ~450 bytes, ~800 with the verdicts */
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
	bool verdicts;     /* --verdicts */
	int64_t qp;        /* --qp, -1: none */
	int64_t conn;      /* --conn, -1: none */
	uint64_t picked;   /* frames of that QP's (or connection's) shown */
	int sel[RS_FIELDS_MAX_SELECT]; /* -e: the columns kept, by index in the whole line */
	int nsel;          /* 0: every column */
	struct vfeed vf;
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

#define N_BASE 49 /* columns in header[] (check_fields_verdicts counts them, and -e picks by them) */

int rs_fields_column(const char *name)
{
	const char *p = header;
	size_t n = strlen(name);
	for (int i = 0; *p; i++) {
		size_t len = strcspn(p, ",");
		if (len == n && memcmp(p, name, n) == 0)
			return i;
		p += len + (p[len] == ',');
	}
	for (size_t i = 0; i < sizeof verdict_cols / sizeof verdict_cols[0]; i++)
		if (strcmp(verdict_cols[i].name, name) == 0)
			return N_BASE + (int)i;
	return -1;
}

/* -e: the selected columns of the line in [start, end), in place; no column
 * holds a comma (numbers, names, addresses). */
static char *project(const struct fields_ctx *c, char *start, char *end)
{
	enum { MAX_COLS = 128 };
	const char *col[MAX_COLS];
	size_t len[MAX_COLS];
	int n = 0;
	for (char *q = start; n < MAX_COLS;) {
		char *comma = memchr(q, ',', (size_t)(end - q));
		col[n] = q;
		len[n++] = (size_t)((comma ? comma : end) - q);
		if (!comma)
			break;
		q = comma + 1;
	}
	char tmp[LINE_MAX_BYTES];
	size_t o = 0;
	for (int i = 0; i < c->nsel; i++) {
		if (i)
			tmp[o++] = ',';
		if (c->sel[i] < n) {
			memcpy(tmp + o, col[c->sel[i]], len[c->sel[i]]);
			o += len[c->sel[i]];
		}
	}
	memcpy(start, tmp, o);
	return start + o;
}

static bool show(void *vctx, const struct rs_packet *pkt, const struct rs_frame *f, const struct rs_verdict *vp);

static void begin_file(void *vctx, const char *name, int dlt)
{
	struct fields_ctx *c = vctx;
	c->file = name;
	if (!c->header_done) {
		char line[LINE_MAX_BYTES], *p = line;
		p += snprintf(line, sizeof line, "%s", header);
		for (size_t i = 0; c->verdicts && i < sizeof verdict_cols / sizeof verdict_cols[0]; i++)
			p += snprintf(p, sizeof line - (size_t)(p - line), ",%s", verdict_cols[i].name);
		if (c->nsel)
			p = project(c, line, p);
		*p++ = '\n';
		fwrite(line, 1, (size_t)(p - line), c->out);
		c->header_done = true;
	}
	if (c->verdicts || c->qp >= 0 || c->conn >= 0)
		rs_vfeed_file(&c->vf, name, dlt, show, c);
}

static void end_file(void *vctx, const char *name)
{
	struct fields_ctx *c = vctx;
	(void)name;
	rs_vfeed_flush(&c->vf, show, c);
	flush_buf(c);
	rs_vfeed_end(&c->vf);
}

/* At every live --refresh tick, and when a pipe read from pauses, what is
 * held goes out, so that the lines of a capture come while it runs (the
 * buffer would keep them until a megabyte had come, or the end). */
static void idle(void *vctx)
{
	struct fields_ctx *c = vctx;
	rs_vfeed_flush(&c->vf, show, c);
	flush_buf(c);
	fflush(c->out);
}

static void event(void *vctx, const struct rs_sink_event *ev)
{
	if (ev->kind == RS_SINK_BEGIN)
		begin_file(vctx, ev->name, ev->dlt);
	else if (ev->kind == RS_SINK_END)
		end_file(vctx, ev->name);
	else if (ev->kind == RS_SINK_TICK || ev->kind == RS_SINK_IDLE)
		idle(vctx);
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

/* The ulp column: the row's word, and how it was told when not by a CM
 * port ("nvme-of/shape", "nvme-of/qp"). */
static char *put_proto(char *p, uint64_t row, uint8_t by)
{
	p = put_str(p, rs_protos[row].word);
	if (by == RS_ULP_BY_SHAPE)
		p = put_str(p, "/shape");
	else if (by == RS_ULP_BY_QP)
		p = put_str(p, "/qp");
	return p;
}

/* The verdict columns, each ",value" or ",". */
static char *put_verdict(char *p, const struct rs_verdict *v)
{
	for (size_t i = 0; i < sizeof verdict_cols / sizeof verdict_cols[0]; i++) {
		const struct vcol *k = &verdict_cols[i];
		uint64_t x = vfield(v, k->off, k->size);
		*p++ = ',';
		if (k->if_size ? !vfield(v, k->if_off, k->if_size) : !x)
			continue;
		if (k->kind == VC_FLAG)
			*p++ = '1';
		else if (k->kind == VC_NAME && x < k->nwords && k->words[x])
			p = put_str(p, k->words[x]);
		else if (k->kind == VC_PROTO && x < rs_nprotos && *rs_protos[x].word)
			p = put_proto(p, x, v->ulp_by);
		else if (k->kind == VC_ULP_OP && rs_proto_hooks(v->ulp)->op_name) {
			char name[64];
			p = put_str(p, rs_proto_hooks(v->ulp)->op_name((uint16_t)x, name, sizeof name));
		}
		else
			p = put_u64(p, x);
	}
	return p;
}

/* ",value" when the header is there, "," otherwise. */
static inline char *col(char *p, bool present, uint64_t v)
{
	*p++ = ',';
	return present ? put_u64(p, v) : p;
}

static char *put_mac(char *p, const uint8_t *m)
{
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < 6; i++) {
		if (i)
			*p++ = ':';
		*p++ = hex[m[i] >> 4];
		*p++ = hex[m[i] & 15];
	}
	return p;
}

/* The AETH syndrome's bits 6:5 (IBA 9.7.5.1.2, Table 42). */
static const char *aeth_kind(uint8_t syndrome)
{
	static const char *const kind[4] = { "ack", "rnr_nak", "reserved", "nak" };
	return kind[(syndrome >> 5) & 3];
}

/* A PAUSE or PFC frame's line. */
static void pause_line(struct fields_ctx *c, const struct rs_packet *pkt, const struct rs_frame *f,
		       const struct rs_verdict *v)
{
	if (c->len + LINE_MAX_BYTES > OUT_BUF)
		flush_buf(c);
	char *p = c->buf + c->len;
	uint64_t ts = rs_frame_time_ns(f, pkt->ts_ns);
	bool pfc = f->pfc->opcode == RS_MACC_PFC;
	p = put_u64(p, pkt->frame_no);
	*p++ = ',';
	p = put_u64(p, ts / 1000000000u);
	*p++ = '.';
	p = put_9(p, (uint32_t)(ts % 1000000000u));
	*p++ = ',';
	p = put_str(p, pfc ? "pfc" : "pause");
	*p++ = ',';
	p = put_mac(p, f->eth_src);
	*p++ = ',';
	p = put_mac(p, f->eth_dst);
	/* opcode .. icrc_status, sliced, the DCETH columns, dscp, ecn, udp_sport, cm_message */
	p = put_str(p, ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,");
	p = col(p, true, f->pfc->enable);
	*p++ = ',';
	for (int i = 0; i < (pfc ? 8 : 1); i++) {
		if (i)
			*p++ = ';';
		p = put_u64(p, f->pfc->quanta[i]);
	}
	p = put_str(p, ",,,"); /* ip_id, ttl, aeth_kind */
	if (c->verdicts)
		p = put_verdict(p, v);
	if (c->nsel)
		p = project(c, c->buf + c->len, p);
	*p++ = '\n';
	c->len = (size_t)(p - c->buf);
}

/* One line: the frame, and its verdict once final (vfeed.h). */
static bool show(void *vctx, const struct rs_packet *pkt, const struct rs_frame *f, const struct rs_verdict *vp)
{
	struct fields_ctx *c = vctx;
	const struct rs_verdict v = *vp;

	if (pkt->context) /* analysed, not shown (sink.h) */
		return true;
	if ((c->qp >= 0 || c->conn >= 0) && !rs_verdict_picked(&v, c->qp, c->conn))
		return true; /* (a PAUSE/PFC frame is no QP's) */
	c->picked++;
	if (f->roce == RS_ROCE_NONE) {
		if (f->have & RS_HAVE_PFC)
			pause_line(c, pkt, f, &v);
		return true;
	}
	if (f->outcome != RS_OK) {
		char why[256];
		rs_frame_why(f, why, sizeof why);
		rs_eprintf("rocestat: %s: frame %" PRIu64 ": %s: %s\n", c->file, pkt->frame_no,
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
		char dc[40];
		p = put_str(p, (f->have & RS_HAVE_DC) ? rs_dc_opname(b->opcode, dc, sizeof dc) : rs_opinfo(b->opcode)->name);
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
	/* A frame counts as sliced only when decoded (dissect.h): a truncated
	 * one keeps the mark for its wire length alone. */
	*p++ = ',';
	if (f->outcome == RS_OK && f->sliced == RS_SLICE_SNAPLEN)
		p = put_str(p, "snaplen");
	else if (f->outcome == RS_OK && f->sliced == RS_SLICE_REWRITTEN)
		p = put_str(p, "rewritten");
	bool dc = f->have & RS_HAVE_DC;
	p = col(p, dc, f->dceth.flags);
	p = col(p, dc, f->dceth.srcqp);
	p = col(p, dc, f->dceth.session);
	p = col(p, dc, f->dceth.dct);
	p = col(p, dc && f->bth.opcode == 0x55, f->dceth.dc_key);
	bool v2 = f->roce == RS_ROCE_V2;
	p = col(p, v2, f->dscp);
	p = col(p, v2, f->ecn);
	p = col(p, v2, f->udp_sport);
	*p++ = ',';
	if ((f->have & RS_HAVE_MAD) && f->mad->is_cm)
		p = put_str(p, rs_cm_attr_name(f->mad->hdr.attr_id));
	p = put_str(p, ",,"); /* pause_enable, pause_quanta: PAUSE/PFC lines only */
	/* The IPv4 identification (the sender's numbering, which the re-send
	 * and copy verdicts read), the TTL or hop limit (RoCE v2's IP header,
	 * else the GRH's), the AETH's kind (its syndrome's bits 6:5). */
	p = col(p, v2 && f->ip_version == 4, f->ip_id);
	p = col(p, v2 || (f->have & RS_HAVE_GRH), v2 ? f->ttl : f->grh.hoplmt);
	*p++ = ',';
	if (f->ext & RS_EXT_AETH)
		p = put_str(p, aeth_kind(f->aeth.syndrome));
	if (c->verdicts)
		p = put_verdict(p, &v);
	if (c->nsel)
		p = project(c, c->buf + c->len, p);
	*p++ = '\n';
	c->len = (size_t)(p - c->buf);
	return true;
}

static bool frame(void *vctx, const struct rs_packet *pkt, const struct rs_frame *f)
{
	struct fields_ctx *c = vctx;
	if (c->verdicts || c->qp >= 0 || c->conn >= 0) /* every frame: the analyzer counts the others too */
		return rs_vfeed_frame(&c->vf, pkt, f, show, c);
	return show(c, pkt, f, &(struct rs_verdict){ 0 });
}

static bool frames(void *vctx, const struct rs_packet *pkt, const struct rs_frame *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!frame(vctx, &pkt[i], &f[i]))
			return false;
	return true;
}

struct rs_sink rs_fields_sink(FILE *out, const struct rs_fields_opts *o)
{
	static struct fields_ctx ctx;
	static char buf[OUT_BUF];
	rs_vfeed_end(&ctx.vf); /* a sink made before, whose run ended without end_file */
	ctx = (struct fields_ctx){ .out = out, .buf = buf, .verdicts = o->verdicts, .qp = o->qp, .conn = o->conn };
	for (unsigned i = 0; i < o->n_ulp && i < sizeof ctx.vf.ulp / sizeof ctx.vf.ulp[0]; i++)
		ctx.vf.ulp[ctx.vf.n_ulp++] = o->ulp[i];
	for (int i = 0; o->select && o->select[i] && ctx.nsel < RS_FIELDS_MAX_SELECT; i++) {
		int k = rs_fields_column(o->select[i]);
		if (k < 0)
			continue; /* the command line refused it */
		ctx.sel[ctx.nsel++] = k;
		ctx.verdicts |= k >= N_BASE; /* a verdict column needs the analysis */
	}
	return (struct rs_sink){ .ctx = &ctx, .frames = frames, .event = event };
}

uint64_t rs_fields_picked(const struct rs_sink *s)
{
	return ((const struct fields_ctx *)s->ctx)->picked;
}
