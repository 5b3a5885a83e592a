/*
 * timeline.c — per-interval accounting: the --timeline CSV, the peak rate of
 * each half-flow, and the series behind --plot.
 *
 * Time is cut into intervals counted from the first frame. Flows touched in
 * the current interval sit on an active list; when a frame lands in a later
 * interval, the list is flushed: one CSV row per flow, its peak updated, its
 * plot series extended. Memory is bounded by the flows active in one
 * interval, whatever the length of the capture. Without --timeline and
 * --plot there is no list: each flow keeps its bytes of the interval it was
 * last touched in and folds them into its peak when touched in a later one
 * (or at the end). A frame whose timestamp goes
 * backwards (captures are not always ordered) is counted in the current
 * interval.
 */
#include <inttypes.h>
#include <string.h>

#include "analyzer/internal.h"
#include "report/outbuf.h"

#define SERIES_MAX 4096 /* points per flow; beyond, neighbours are merged */

void rs_tl_header(FILE *out)
{
	fputs("interval_start,interval_start_epoch,src,dst,dest_qp,packets,bytes,payload_bytes,messages,"
	      "retransmissions,naks,ecn_ce,cnps\n",
	      out);
}

static void series_add(struct rs_flow *fl, int64_t interval, uint64_t bytes)
{
	struct rs_flow_extra *x = rs_extra_w(fl);
	if (!x->series)
		x->series = g_new0(struct rs_series, 1);
	struct rs_series *s = x->series;
	int64_t slot = interval >> s->shift;
	if (s->len && s->interval[s->len - 1] == slot) {
		s->bytes[s->len - 1] += bytes;
		return;
	}
	if (s->len == SERIES_MAX) {
		/* Halve the resolution: merge neighbours. */
		uint32_t j = 0;
		s->shift++;
		for (uint32_t i = 0; i < s->len; i++) {
			int64_t iv = s->interval[i] >> 1;
			if (j && s->interval[j - 1] == iv) {
				s->bytes[j - 1] += s->bytes[i];
			} else {
				s->interval[j] = iv;
				s->bytes[j] = s->bytes[i];
				j++;
			}
		}
		s->len = j;
		slot = interval >> s->shift;
		if (s->len && s->interval[s->len - 1] == slot) {
			s->bytes[s->len - 1] += bytes;
			return;
		}
	}
	if (s->len == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->interval = g_renew(int64_t, s->interval, s->cap);
		s->bytes = g_renew(uint64_t, s->bytes, s->cap);
	}
	s->interval[s->len] = slot;
	s->bytes[s->len] = bytes;
	s->len++;
}

void rs_series_add(struct rs_flow *fl, int64_t interval, uint64_t bytes)
{
	series_add(fl, interval, bytes);
}

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

static char *tl_addr(struct rs_analyzer *a, char *p, const struct rs_flowkey *k, bool dst)
{
	struct rs_addr ad;
	rs_flowkey_addr(k, dst, &ad);
	uint32_t h = ad.kind * 0x9E3779B1u;
	for (int i = 0; i < 16; i += 4) {
		uint32_t w;
		memcpy(&w, ad.b + i, 4);
		h = (h ^ w) * 0x85EBCA6Bu;
	}
	if (!a->tl_addr)
		a->tl_addr = g_new0(struct rs_tl_addr, TL_ADDR_CACHE);
	struct rs_tl_addr *e = &a->tl_addr[h >> 22]; /* top bits: they depend on every input bit */
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

/* A flow's row of the interval ending, into o (whose stream is the
 * --timeline file): gathered there, a stdio call per row (its lock, its
 * copy) was a fifth of writing a timeline of thousands of flows. */
static void emit(struct rs_analyzer *a, struct rs_tl_row *row, struct rs_outbuf *o)
{
	struct rs_flow *fl = row->fl;
	const struct rs_tl *t = &row->c;
	if (t->payload > fl->peak_bytes)
		fl->peak_bytes = t->payload;
	if (a->opts.keep_plot)
		series_add(fl, a->cur_interval, t->payload);
	FILE *out = a->opts.timeline;
	int64_t qp = a->opts.qp_filter;
	if (out && (qp < 0 || fl->key.qpn == (uint32_t)qp || (fl->peer && fl->peer->key.qpn == (uint32_t)qp))) {
		/* Intervals never start before the first frame (see rs_tl_frame). */
		uint64_t rel = (uint64_t)a->cur_interval * a->opts.interval_ns;
		uint64_t abs = a->t0 + rel;
		char line[512], *p = line;
		p = put_secs(p, rel);
		*p++ = ',';
		p = put_secs(p, abs);
		*p++ = ',';
		p = tl_addr(a, p, &fl->key, false);
		*p++ = ',';
		p = tl_addr(a, p, &fl->key, true);
		const uint64_t v[] = { fl->key.qpn, t->packets, t->bytes, t->payload, t->messages, t->retrans, t->naks,
				       t->ecn_ce, t->cnps };
		for (size_t i = 0; i < G_N_ELEMENTS(v); i++) {
			*p++ = ',';
			p = put_u64(p, v[i]);
		}
		*p++ = '\n';
		rs_outbuf_put(o, line, (size_t)(p - line));
	}
	fl->tl_slot = 0;
	row->fl = NULL;
}

static void peak_fold(struct rs_flow *fl)
{
	if (fl->iv_payload > fl->peak_bytes)
		fl->peak_bytes = fl->iv_payload;
	fl->iv_payload = 0;
}

void rs_tl_flush(struct rs_analyzer *a)
{
	if (!a->tl_rows_on) {
		/* Flows fold their last interval when next touched (rs_tl_touch);
		 * at the end (rs_analyzer_finish) all of them do. */
		if (a->finished)
			for (guint i = 0; i < a->flows->len; i++)
				if (a->flows->pdata[i])
					peak_fold(a->flows->pdata[i]);
		return;
	}
	char buf[16384];
	struct rs_outbuf o;
	rs_outbuf_init(&o, a->opts.timeline, buf, sizeof buf);
	for (guint i = 0; i < a->tl_rows->len; i++) {
		/* The rows are in the order their flows first had a frame in
		 * the interval, no order in memory: fetch a flow's key ahead. */
		if (i + 8 < a->tl_rows->len && g_array_index(a->tl_rows, struct rs_tl_row, i + 8).fl)
			__builtin_prefetch(g_array_index(a->tl_rows, struct rs_tl_row, i + 8).fl);
		struct rs_tl_row *row = &g_array_index(a->tl_rows, struct rs_tl_row, i);
		if (row->fl)
			emit(a, row, &o);
	}
	rs_outbuf_flush(&o);
	g_array_set_size(a->tl_rows, 0);
	a->tl_holes = 0;
}

/* A flow leaves (evicted): its row now, the others at the interval's end. */
void rs_tl_flush_flow(struct rs_analyzer *a, struct rs_flow *fl)
{
	if (!fl->tl_slot)
		return;
	/* Leave a hole rather than search and shift the rows: with many flows
	 * active in one interval, eviction would go quadratic. */
	char buf[512];
	struct rs_outbuf o;
	rs_outbuf_init(&o, a->opts.timeline, buf, sizeof buf);
	emit(a, &g_array_index(a->tl_rows, struct rs_tl_row, fl->tl_slot - 1), &o);
	rs_outbuf_flush(&o);
	/* Squeeze the holes out (keeping the order) once they are the majority,
	 * so the rows stay bounded even if every frame has the same time. */
	if (++a->tl_holes > 1024 && a->tl_holes * 2 > a->tl_rows->len) {
		guint j = 0;
		for (guint i = 0; i < a->tl_rows->len; i++) {
			struct rs_tl_row *row = &g_array_index(a->tl_rows, struct rs_tl_row, i);
			if (!row->fl)
				continue;
			if (i != j)
				g_array_index(a->tl_rows, struct rs_tl_row, j) = *row;
			row->fl->tl_slot = ++j;
		}
		g_array_set_size(a->tl_rows, j);
		a->tl_holes = 0;
	}
}

void rs_tl_frame(struct rs_analyzer *a, uint64_t ts)
{
	if (!a->have_t0) {
		a->t0 = ts;
		a->have_t0 = true;
		a->cur_interval = 0;
		return;
	}
	if (ts < a->t0)
		return; /* earlier than the first frame: count it in the current interval */
	/* Most frames fall in the current interval: compare before dividing. */
	if (ts - a->t0 < (uint64_t)(a->cur_interval + 1) * a->opts.interval_ns)
		return;
	int64_t iv = (int64_t)((ts - a->t0) / a->opts.interval_ns);
	if (iv > a->cur_interval) {
		rs_tl_flush(a);
		a->cur_interval = iv;
		a->intervals_seen++;
	}
}

void rs_tl_touch(struct rs_analyzer *a, struct rs_flow *fl)
{
	if (!a->tl_rows_on) {
		/* Interval numbers modulo 2^32: a flow idle for exactly 2^32
		 * intervals would have two intervals' bytes added. */
		uint32_t tag = (uint32_t)a->cur_interval + 1;
		if (fl->iv_tag != tag) {
			peak_fold(fl);
			fl->iv_tag = tag;
		}
		return;
	}
	if (!fl->tl_slot) {
		struct rs_tl_row row = { .fl = fl };
		g_array_append_val(a->tl_rows, row);
		fl->tl_slot = a->tl_rows->len;
	}
}
