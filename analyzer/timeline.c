/*
 * timeline.c — per-interval accounting: the --timeline CSV, the peak rate of
 * each half-flow, and the series behind --plot.
 *
 * Time is cut into intervals counted from the first frame. Flows touched in
 * the current interval sit on an active list; when a frame lands in a later
 * interval, the list is flushed: one CSV row per flow, its peak updated, its
 * plot series extended. Memory is bounded by the flows active in one
 * interval, whatever the length of the capture. A frame whose timestamp goes
 * backwards (captures are not always ordered) is counted in the current
 * interval.
 */
#include <inttypes.h>

#include "analyzer/internal.h"

#define SERIES_MAX 4096 /* points per flow; beyond, neighbours are merged */

void rs_tl_header(FILE *out)
{
	fputs("interval_start,interval_start_epoch,src,dst,dest_qp,packets,bytes,payload_bytes,messages,"
	      "retransmissions,naks,ecn_ce,cnps\n",
	      out);
}

static void series_add(struct rs_flow *fl, int64_t interval, uint64_t bytes)
{
	if (!fl->series)
		fl->series = g_new0(struct rs_series, 1);
	struct rs_series *s = fl->series;
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

static void emit(struct rs_analyzer *a, struct rs_flow *fl)
{
	const struct rs_tl *t = &fl->tl;
	if (t->payload > fl->peak_bytes)
		fl->peak_bytes = t->payload;
	if (a->opts.keep_plot)
		series_add(fl, a->cur_interval, t->payload);
	FILE *out = a->opts.timeline;
	int64_t qp = a->opts.qp_filter;
	if (out && (qp < 0 || fl->key.qpn == (uint32_t)qp || (fl->peer && fl->peer->key.qpn == (uint32_t)qp))) {
		char src[RS_ADDR_STRLEN], dst[RS_ADDR_STRLEN];
		struct rs_addr s, d;
		rs_flowkey_addr(&fl->key, false, &s);
		rs_flowkey_addr(&fl->key, true, &d);
		/* Intervals never start before the first frame (see rs_tl_frame). */
		uint64_t rel = (uint64_t)a->cur_interval * a->opts.interval_ns;
		uint64_t abs = a->t0 + rel;
		fprintf(out, "%" PRIu64 ".%09" PRIu64 ",%" PRIu64 ".%09" PRIu64 ",%s,%s,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
			rel / 1000000000, rel % 1000000000, abs / 1000000000, abs % 1000000000, rs_addr_format(&s, src), rs_addr_format(&d, dst), fl->key.qpn,
			t->packets, t->bytes, t->payload, t->messages, t->retrans, t->naks, t->ecn_ce, t->cnps);
	}
	fl->tl = (struct rs_tl){ 0 };
	fl->tl_active = false;
}

void rs_tl_flush(struct rs_analyzer *a)
{
	for (guint i = 0; i < a->tl_active->len; i++)
		if (a->tl_active->pdata[i]) /* NULL: evicted during the interval */
			emit(a, a->tl_active->pdata[i]);
	g_ptr_array_set_size(a->tl_active, 0);
	a->tl_holes = 0;
}

void rs_tl_flush_flow(struct rs_analyzer *a, struct rs_flow *fl)
{
	/* Leave a hole rather than search and shift the list: with many
	 * flows active in one interval, eviction would go quadratic. */
	uint32_t pos = fl->tl_pos;
	emit(a, fl);
	a->tl_active->pdata[pos] = NULL;
	/* Squeeze the holes out (keeping the order) once they are the majority,
	 * so the list stays bounded even if every frame has the same time. */
	if (++a->tl_holes > 1024 && a->tl_holes * 2 > a->tl_active->len) {
		guint j = 0;
		for (guint i = 0; i < a->tl_active->len; i++) {
			struct rs_flow *o = a->tl_active->pdata[i];
			if (o) {
				o->tl_pos = j;
				a->tl_active->pdata[j++] = o;
			}
		}
		g_ptr_array_set_size(a->tl_active, j);
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
	int64_t iv = (int64_t)((ts - a->t0) / a->opts.interval_ns);
	if (iv > a->cur_interval) {
		rs_tl_flush(a);
		a->cur_interval = iv;
		a->intervals_seen++;
	}
}

void rs_tl_touch(struct rs_analyzer *a, struct rs_flow *fl)
{
	if (!fl->tl_active) {
		fl->tl_active = true;
		fl->tl_pos = a->tl_active->len;
		g_ptr_array_add(a->tl_active, fl);
	}
}
