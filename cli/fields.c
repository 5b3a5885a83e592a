/*
 * fields.c — `rocestat --fields`: one CSV line per RoCE frame, every BTH and
 * extension-header field in decimal, empty where the header is absent.
 * Frames that could not be fully decoded still get their line (with what was
 * decoded) and a note on stderr naming the file, frame and reason.
 */
#include <inttypes.h>
#include <stdio.h>

#include "cli/cli.h"

static const char header[] =
	"frame,time,roce,src,dst,opcode,opname,destqp,psn,ackreq,se,migreq,padcnt,tver,pkey,fecn,becn,"
	"reth_va,reth_rkey,reth_dmalen,aeth_syndrome,aeth_msn,deth_qkey,deth_srcqp,immdt,ieth_rkey,"
	"atomic_va,atomic_rkey,atomic_swap,atomic_cmp,atomicack_orig,payload_len,icrc,icrc_status";

struct fields_ctx {
	FILE *out;
	const char *file;
	bool header_done;
};

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

/* Print ",value" when the header is there, "," otherwise. */
static void col_u64(FILE *out, bool present, uint64_t v)
{
	if (present)
		fprintf(out, ",%" PRIu64, v);
	else
		fputc(',', out);
}

static bool frame(void *vctx, const struct rs_packet *pkt, const struct rs_frame *f)
{
	struct fields_ctx *c = vctx;
	FILE *o = c->out;
	char src[RS_ADDR_STRLEN], dst[RS_ADDR_STRLEN];

	if (f->roce == RS_ROCE_NONE)
		return true;
	if (f->outcome != RS_OK) {
		char why[256];
		rs_frame_why(f, why, sizeof why);
		fprintf(stderr, "rocestat: %s: frame %" PRIu64 ": %s: %s\n", c->file, pkt->frame_no,
			rs_outcome_name((enum rs_outcome)f->outcome), why);
	}
	uint64_t ts = rs_frame_time_ns(f, pkt->ts_ns);
	fprintf(o, "%" PRIu64 ",%" PRIu64 ".%09" PRIu64 ",%s,%s,%s", pkt->frame_no, ts / 1000000000u, ts % 1000000000u, rs_roce_name((enum rs_roce)f->roce), rs_addr_format(&f->src, src),
		rs_addr_format(&f->dst, dst));

	bool bth = f->have & RS_HAVE_BTH;
	const struct rs_bth *b = &f->bth;
	if (bth)
		fprintf(o, ",%u,%s,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u", b->opcode, rs_opinfo(b->opcode)->name, b->destqp,
			b->psn, b->ackreq, b->se, b->migreq, b->padcnt, b->tver, b->pkey, b->fecn, b->becn);
	else
		fputs(",,,,,,,,,,,,", o);

	bool ext = f->have & RS_HAVE_EXT;
	bool reth = ext && (f->ext & RS_EXT_RETH);
	col_u64(o, reth, f->reth.va);
	col_u64(o, reth, f->reth.rkey);
	col_u64(o, reth, f->reth.dmalen);
	bool aeth = ext && (f->ext & RS_EXT_AETH);
	col_u64(o, aeth, f->aeth.syndrome);
	col_u64(o, aeth, f->aeth.msn);
	bool deth = ext && (f->ext & RS_EXT_DETH);
	col_u64(o, deth, f->deth.qkey);
	col_u64(o, deth, f->deth.srcqp);
	col_u64(o, ext && (f->ext & RS_EXT_IMMDT), f->immdt);
	col_u64(o, ext && (f->ext & RS_EXT_IETH), f->ieth_rkey);
	bool atomic = ext && (f->ext & RS_EXT_ATOMICETH);
	col_u64(o, atomic, f->atomic.va);
	col_u64(o, atomic, f->atomic.rkey);
	col_u64(o, atomic, f->atomic.swap);
	col_u64(o, atomic, f->atomic.cmp);
	col_u64(o, ext && (f->ext & RS_EXT_ATOMICACKETH), f->atomicack_orig);
	col_u64(o, ext, f->payload_len);
	col_u64(o, f->have & RS_HAVE_ICRC, f->icrc);
	fprintf(o, ",%s\n", rs_crc_status_name((enum rs_crc_status)f->icrc_status));
	return true;
}

struct rs_sink rs_fields_sink(FILE *out, const struct rs_cli_opts *o)
{
	static struct fields_ctx ctx;
	(void)o;
	ctx = (struct fields_ctx){ .out = out };
	return (struct rs_sink){ .ctx = &ctx, .begin_file = begin_file, .frame = frame };
}
