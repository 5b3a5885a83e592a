/*
 * timeline.c — the --timeline CSV: one row per half-flow and interval, as
 * the analyzer closes them (rs_analyzer_opts.interval).
 *
 *   interval_start,interval_start_epoch,src,dst,dest_qp,packets,bytes,
 *   payload_bytes_on_wire,messages,retransmissions,naks,ecn_ce,cnps,
 *   pause_priority,paused_ns
 *
 * The last two are empty on half-flow rows; after those come the rows of
 * the PAUSE/PFC senders (rs_tlcsv_pause_row): src the sender's MAC, the
 * counts 0, the priority (0-7, "all" for PAUSE) and the time it was
 * paused within the interval.
 *
 * Rows gather in a buffer and reach the stream in blocks: a stdio call per
 * row (its lock, its copy) was a fifth of writing a timeline of thousands
 * of flows.
 */
#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "report/outbuf.h"
#include "report/report.h"

/* ---- the CSV row, formatted by hand (printf was a fifth of --timeline's
 * cost with thousands of flows per interval); the bytes are printf's. */

#define TL_ADDR_CACHE 1024 /* formatted addresses kept: 2^10, see tl_addr() */

struct rs_tl_addr {
	struct rs_addr a;
	bool used;
	uint8_t len;
	char text[RS_ADDR_STRLEN];
};

static char *put_u64(char *p, uint64_t v)
{
	char tmp[20];
	char *e = tmp + sizeof tmp, *q = e;
	do {
		*--q = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(p, q, (size_t)(e - q));
	return p + (e - q);
}

static char *put_secs(char *p, uint64_t ns) /* "%llu.%09llu" */
{
	p = put_u64(p, ns / 1000000000u);
	*p++ = '.';
	uint32_t frac = (uint32_t)(ns % 1000000000u);
	for (int i = 8; i >= 0; i--) {
		p[i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	return p + 9;
}

struct rs_tlcsv {
	FILE *out;
	int64_t qp;               /* rows only for this QP's connection (-1: all) */
	struct rs_outbuf o;
	char buf[16384];
	struct rs_tl_addr addr[TL_ADDR_CACHE];
};

static char *tl_addr(struct rs_tlcsv *w, char *p, const struct rs_addr *adp)
{
	struct rs_addr ad = *adp;
	uint32_t h = ad.kind * 0x9E3779B1u;
	for (int i = 0; i < 16; i += 4) {
		uint32_t word;
		memcpy(&word, ad.b + i, 4);
		h = (h ^ word) * 0x85EBCA6Bu;
	}
	struct rs_tl_addr *e = &w->addr[h >> 22]; /* top bits: they depend on every input bit */
	if (!e->used || e->a.kind != ad.kind || memcmp(e->a.b, ad.b, 16) != 0) {
		char t[RS_ADDR_STRLEN];
		const char *txt = rs_addr_format(&ad, t);
		e->a = ad;
		e->used = true;
		e->len = (uint8_t)strlen(txt);
		memcpy(e->text, txt, e->len);
	}
	memcpy(p, e->text, e->len);
	return p + e->len;
}

struct rs_tlcsv *rs_tlcsv_new(FILE *out, int64_t qp)
{
	struct rs_tlcsv *w = g_new0(struct rs_tlcsv, 1);
	w->out = out;
	w->qp = qp;
	rs_outbuf_init(&w->o, out, w->buf, sizeof w->buf);
	rs_outbuf_str(&w->o, "interval_start,interval_start_epoch,src,dst,dest_qp,packets,bytes,payload_bytes_on_wire,messages,"
			     "retransmissions,naks,ecn_ce,cnps,pause_priority,paused_ns\n", 0);
	return w;
}

void rs_tlcsv_row(void *ctx, const struct rs_interval_row *r)
{
	struct rs_tlcsv *w = ctx;
	if (w->qp >= 0 && r->dest_qp != (uint32_t)w->qp && !(r->has_peer && r->peer_qp == (uint32_t)w->qp))
		return;
	char line[512], *p = line;
	p = put_secs(p, r->start_ns);
	*p++ = ',';
	p = put_secs(p, r->start_epoch_ns);
	*p++ = ',';
	p = tl_addr(w, p, &r->src);
	*p++ = ',';
	p = tl_addr(w, p, &r->dst);
	const uint64_t v[] = { r->dest_qp, r->packets, r->bytes, r->payload, r->messages, r->retrans, r->naks,
			       r->ecn_ce, r->cnps };
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		*p++ = ',';
		p = put_u64(p, v[i]);
	}
	*p++ = ',';
	*p++ = ',';
	*p++ = '\n';
	rs_outbuf_put(&w->o, line, (size_t)(p - line));
}

void rs_tlcsv_pause_row(struct rs_tlcsv *w, uint64_t start_ns, uint64_t start_epoch_ns, const char *sender, int prio,
			uint64_t paused_ns)
{
	char line[256], *p = line;
	p = put_secs(p, start_ns);
	*p++ = ',';
	p = put_secs(p, start_epoch_ns);
	*p++ = ',';
	size_t n = strlen(sender);
	memcpy(p, sender, n);
	p += n;
	memcpy(p, ",,,0,0,0,0,0,0,0,0,", 19);
	p += 19;
	if (prio < 0) {
		memcpy(p, "all", 3);
		p += 3;
	} else {
		p = put_u64(p, (uint64_t)prio);
	}
	*p++ = ',';
	p = put_u64(p, paused_ns);
	*p++ = '\n';
	rs_outbuf_put(&w->o, line, (size_t)(p - line));
}

void rs_tlcsv_flush(struct rs_tlcsv *w)
{
	if (!w)
		return;
	rs_outbuf_flush(&w->o);
	fflush(w->out);
}

void rs_tlcsv_free(struct rs_tlcsv *w)
{
	rs_tlcsv_flush(w);
	g_free(w);
}
