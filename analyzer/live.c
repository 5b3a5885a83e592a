/*
 * live.c — the rows of the live per-QP view: current and average rate,
 * health counters, connection state, sorted by current throughput.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/report.h"

struct live_row {
	struct rs_flow *fl;
	double now;
};

static int by_rate(const void *x, const void *y)
{
	const struct live_row *a = x, *b = y;
	if (a->now != b->now)
		return a->now > b->now ? -1 : 1;
	if (a->fl->payload != b->fl->payload)
		return a->fl->payload > b->fl->payload ? -1 : 1;
	return a->fl->id < b->fl->id ? -1 : 1;
}

size_t rs_analyzer_live_qps(struct rs_analyzer *a, uint64_t period_ns, struct rs_live_qp *rows, size_t max,
			    size_t *total)
{
	struct live_row *all = g_new(struct live_row, a->nflows ? a->nflows : 1);
	size_t n = 0;
	for (guint i = 0; i < a->flows->len; i++) {
		struct rs_flow *fl = a->flows->pdata[i];
		if (!fl)
			continue;
		uint64_t prev = fl->x ? fl->x->live_prev_payload : 0;
		uint64_t delta = fl->payload - prev;
		if (delta) /* quiet flows get no extra state */
			rs_extra_w(fl)->live_prev_payload = fl->payload;
		all[n].fl = fl;
		all[n].now = period_ns ? delta / (period_ns / 1e9) : 0;
		n++;
	}
	qsort(all, n, sizeof all[0], by_rate);
	size_t k = 0;
	for (; k < n && k < max; k++) {
		struct rs_flow *fl = all[k].fl;
		struct rs_live_qp *r = &rows[k];
		struct rs_addr s, d;
		rs_flowkey_addr(&fl->key, false, &s);
		rs_flowkey_addr(&fl->key, true, &d);
		rs_fmt_addr(a, &s, r->src, sizeof r->src);
		rs_fmt_addr(a, &d, r->dst, sizeof r->dst);
		r->dest_qp = fl->key.qpn;
		r->transport = fl->is_cm_qp ? "CM" : rs_flow_transport_name(fl);
		r->state = fl->conn ? rs_conn_state(fl->conn) : "";
		r->packets = fl->packets;
		r->payload_bytes = fl->payload;
		r->rate_now_Bps = all[k].now;
		r->rate_avg_Bps = rs_flow_avg_Bps(a, fl);
		r->retransmitted = rs_flow_retransmitted(fl);
		r->naks = rs_flow_naks_total(fl);
		r->rnr_naks = rs_rare(fl)->rnr_naks;
		r->cnps = rs_rare(fl)->cnps;
		r->ecn_ce = rs_rare(fl)->ecn_ce;
	}
	if (total)
		*total = n;
	g_free(all);
	return k;
}

size_t rs_analyzer_live_events(const struct rs_analyzer *a, struct rs_live_event *ev, size_t max)
{
	size_t ring = G_N_ELEMENTS(a->events);
	size_t have = a->nevents < ring ? a->nevents : ring;
	size_t n = have < max ? have : max;
	for (size_t i = 0; i < n; i++)
		ev[i] = a->events[(a->nevents - n + i) % ring];
	return n;
}

/* The live view's connection counters: resolved SIDR lookups count as
 * established, closed and closing ones in none of the three. */
static void tally_state(struct rs_live_totals *t, enum rs_conn_state st, uint64_t n)
{
	if (st == RS_CONN_ESTABLISHED || st == RS_CONN_RESOLVED)
		t->established += n;
	else if (st == RS_CONN_REJECTED)
		t->rejected += n;
	else if (st == RS_CONN_INCOMPLETE)
		t->incomplete += n;
}

void rs_analyzer_live_totals(const struct rs_analyzer *a, struct rs_live_totals *t)
{
	memset(t, 0, sizeof *t);
	t->frames = a->frames;
	t->bytes = a->bytes;
	t->roce_frames = a->roce[RS_ROCE_V1] + a->roce[RS_ROCE_V2] + a->roce[RS_ROCE_IB];
	t->undecodable = a->outcome[RS_TRUNCATED] + a->outcome[RS_MALFORMED] + a->outcome[RS_UNSUPPORTED];
	t->icrc_bad = a->icrc[RS_CRC_BAD];
	t->first_ts_ns = a->first_ts;
	t->last_ts_ns = a->last_ts;
	t->half_flows = a->nflows;
	for (guint i = 0; i < a->flows->len; i++) {
		const struct rs_flow *fl = a->flows->pdata[i];
		if (!fl)
			continue;
		t->payload_bytes += fl->payload;
		t->retransmitted += rs_flow_retransmitted(fl);
		t->naks += rs_flow_naks_total(fl);
		t->rnr_naks += rs_rare(fl)->rnr_naks;
		t->cnps += rs_rare(fl)->cnps;
		t->ecn_ce += rs_rare(fl)->ecn_ce;
	}
	/* The connections kept, and those evicted under --max-flows by the
	 * state they were in then. */
	t->connections = a->conns->len + a->conns_evicted;
	for (guint i = 0; i < a->conns->len; i++)
		tally_state(t, rs_conn_state_of(a->conns->pdata[i]), 1);
	for (unsigned k = 0; k < RS_CONN_STATES; k++)
		tally_state(t, (enum rs_conn_state)k, a->conns_evicted_by_state[k]);
}
