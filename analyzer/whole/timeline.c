/*
 * timeline.c — per-interval accounting: the rows behind the --timeline CSV
 * (handed to opts.interval; report/timeline.c writes them), the peak rate
 * of each half-flow, and the series behind --plot.
 *
 * Time is cut into intervals counted from the first frame. Flows touched in
 * the current interval sit on an active list; when a frame lands in a later
 * interval, the list is flushed: one row per flow, its peak updated, its
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

#include "analyzer/whole/whole.h"

#define SERIES_MAX 4096 /* points per flow; beyond, neighbours are merged */

static void ev_add(struct rs_series_ev *to, const struct rs_series_ev *e)
{
	to->retrans += e->retrans;
	to->naks += e->naks;
	to->rnrs += e->rnrs;
	to->cnps += e->cnps;
}

static void series_add(struct rs_flow *fl, int64_t interval, const struct rs_tl *t)
{
	struct rs_flow_extra *x = rs_extra_w(fl);
	if (!x->series)
		x->series = g_new0(struct rs_series, 1);
	struct rs_series *s = x->series;
	struct rs_series_ev ev = { .retrans = t->retrans, .naks = t->naks - t->rnrs, .rnrs = t->rnrs, .cnps = t->cnps };
	int64_t slot = interval >> s->shift;
	if (s->len && s->interval[s->len - 1] == slot) {
		s->bytes[s->len - 1] += t->goodput;
		ev_add(&s->ev[s->len - 1], &ev);
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
				ev_add(&s->ev[j - 1], &s->ev[i]);
			} else {
				s->interval[j] = iv;
				s->bytes[j] = s->bytes[i];
				s->ev[j] = s->ev[i];
				j++;
			}
		}
		s->len = j;
		slot = interval >> s->shift;
		if (s->len && s->interval[s->len - 1] == slot) {
			s->bytes[s->len - 1] += t->goodput;
			ev_add(&s->ev[s->len - 1], &ev);
			return;
		}
	}
	if (s->len == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->interval = g_renew(int64_t, s->interval, s->cap);
		s->bytes = g_renew(uint64_t, s->bytes, s->cap);
		s->ev = g_renew(struct rs_series_ev, s->ev, s->cap);
	}
	s->interval[s->len] = slot;
	s->bytes[s->len] = t->goodput;
	s->ev[s->len] = ev;
	s->len++;
}

/* A flow's row of the interval ending: its peak and plot series, and the
 * row for whoever listens (opts.interval: the --timeline CSV). */
static void emit(struct rs_analyzer *a, struct rs_tl_row *row)
{
	struct rs_flow *fl = row->fl;
	const struct rs_tl *t = &row->c;
	if (t->goodput > fl->peak_bytes)
		fl->peak_bytes = t->goodput;
	if (t->payload != t->goodput && t->payload > rs_rare_w(fl)->peak_wire)
		fl->rare->peak_wire = t->payload;
	/* A row with latencies but no frame of its own (the answers came on
	 * the peer) adds nothing to the plot: no point at zero. */
	if (a->opts.keep_plot && t->packets)
		series_add(fl, a->cur_interval, t);
	/* With rows, iv_tag is the interval (+1) of the flow's last row. */
	uint32_t tag = (uint32_t)a->cur_interval + 1;
	uint64_t idle = fl->iv_tag && tag - fl->iv_tag > 1 ? tag - fl->iv_tag - 1 : 0;
	fl->iv_tag = tag;
	if (a->opts.interval) {
		/* Intervals never start before the first frame (see rs_tl_frame). */
		uint64_t rel = (uint64_t)a->cur_interval * a->opts.interval_ns;
		struct rs_interval_row r = {
			.start_ns = rel, .start_epoch_ns = a->t0 + rel,
			.dest_qp = fl->key.qpn, .has_peer = fl->peer != NULL, .peer_qp = fl->peer ? fl->peer->key.qpn : 0,
			.packets = t->packets, .bytes = t->bytes, .payload = t->payload, .goodput = t->goodput,
			.messages = t->messages,
			.retrans = t->retrans, .naks = t->naks, .ecn_ce = t->ecn_ce, .cnps = t->cnps,
			.idle_before = idle,
			.lat_samples = t->lat_n, .lat_min_ns = t->lat_min, .lat_max_ns = t->lat_max,
			.lat_mean_ns = t->lat_n ? (t->lat_sum + t->lat_n / 2) / t->lat_n : 0,
			.file = a->files->len ? ((const struct rs_file *)a->files->pdata[a->cur_file])->name : NULL,
		};
		rs_flowkey_addr(&fl->key, false, &r.src);
		rs_flowkey_addr(&fl->key, true, &r.dst);
		a->opts.interval(a->opts.interval_ctx, &r);
	}
	fl->tl_slot = 0;
	row->fl = NULL;
}

static void peak_fold(struct rs_flow *fl)
{
	if (fl->iv_payload > fl->peak_bytes)
		fl->peak_bytes = fl->iv_payload;
	if (fl->rare && fl->rare->iv_again) {
		if (fl->iv_payload + fl->rare->iv_again > fl->rare->peak_wire)
			fl->rare->peak_wire = fl->iv_payload + fl->rare->iv_again;
		fl->rare->iv_again = 0;
	}
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
	for (guint i = 0; i < a->tl_rows->len; i++) {
		/* The rows are in the order their flows first had a frame in
		 * the interval, no order in memory: fetch a flow's key ahead. */
		if (i + 8 < a->tl_rows->len && g_array_index(a->tl_rows, struct rs_tl_row, i + 8).fl)
			__builtin_prefetch(g_array_index(a->tl_rows, struct rs_tl_row, i + 8).fl);
		struct rs_tl_row *row = &g_array_index(a->tl_rows, struct rs_tl_row, i);
		if (row->fl)
			emit(a, row);
	}
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
	emit(a, &g_array_index(a->tl_rows, struct rs_tl_row, fl->tl_slot - 1));
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

/* A file begins: the rows so far are the last file's, and a flow of the
 * same key in this one is another (no zero rows bridge the two). */
void rs_tl_new_file(struct rs_analyzer *a)
{
	if (!a->tl_rows_on || !a->have_t0)
		return;
	rs_tl_flush(a);
	for (guint i = 0; i < a->flows->len; i++)
		if (a->flows->pdata[i])
			((struct rs_flow *)a->flows->pdata[i])->iv_tag = 0;
	a->tl_new_file = true;
}

void rs_tl_frame(struct rs_analyzer *a, uint64_t ts)
{
	if (a->tl_new_file && a->have_t0 && ts >= a->t0) {
		/* Files may overlap in time: this one's intervals from its first frame. */
		a->tl_new_file = false;
		a->cur_interval = (int64_t)((ts - a->t0) / a->opts.interval_ns);
		return;
	}
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

void rs_tl_lat(struct rs_analyzer *a, struct rs_flow *req, enum rs_lat_kind k, uint64_t ns)
{
	/* Only the CSV has latency columns: with --plot alone the requester
	 * gets no row of an interval it sent nothing in. */
	if (!a->tl_rows_on || !a->opts.interval || k == RS_LAT_READ_LAST)
		return;
	rs_tl_touch(a, req);
	struct rs_tl *t = rs_tl_of(a, req);
	if (!t->lat_n || ns < t->lat_min)
		t->lat_min = ns;
	if (ns > t->lat_max)
		t->lat_max = ns;
	t->lat_sum += ns;
	t->lat_n++;
}
