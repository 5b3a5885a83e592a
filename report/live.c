/*
 * live.c — what the live view shows of an analysis while it runs: the rows
 * per QP (current and average rate, health counters, connection state,
 * sorted by current throughput), the capture-wide totals, and the latest
 * CM events, worded. It keeps what it needs between two readings itself
 * (each flow's payload at the last one, the events): the analysis is only
 * read.
 */
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/result.h"
#include "report/format.h"
#include "report/report.h"

#define EVENTS 16 /* the latest CM events kept */

struct rs_live {
	struct rs_names *names;
	GHashTable *prev;        /* flow id -> payload bytes at the last reading (flows that had some) */
	struct rs_cm_event events[EVENTS];
	uint32_t nevents;        /* total ever; the ring holds the last EVENTS */
};

struct rs_live *rs_live_new(bool resolve_names)
{
	struct rs_live *lv = g_new0(struct rs_live, 1);
	lv->names = rs_names_new(resolve_names);
	lv->prev = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	return lv;
}

void rs_live_free(struct rs_live *lv)
{
	if (!lv)
		return;
	rs_names_free(lv->names);
	g_hash_table_destroy(lv->prev);
	g_free(lv);
}

void rs_live_cm_event(void *ctx, const struct rs_cm_event *ev)
{
	struct rs_live *lv = ctx;
	lv->events[lv->nevents++ % EVENTS] = *ev;
}

struct live_row {
	const struct rs_flow *fl;
	uint64_t payload;
	uint32_t id;
	double now;
};

static int by_rate(const void *x, const void *y)
{
	const struct live_row *a = x, *b = y;
	if (a->now != b->now)
		return a->now > b->now ? -1 : 1;
	if (a->payload != b->payload)
		return a->payload > b->payload ? -1 : 1;
	return a->id < b->id ? -1 : 1;
}

size_t rs_live_qps(struct rs_live *lv, const struct rs_analyzer *a, uint64_t period_ns, struct rs_live_qp *rows,
		   size_t max, size_t *total)
{
	struct rs_capture_info cap;
	rs_capture_get_info(a, &cap);
	struct live_row *all = g_new(struct live_row, cap.half_flows ? cap.half_flows : 1);
	size_t n = 0;
	/* A new table of the flows there are now: evicted ones drop out. */
	GHashTable *prev = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	size_t pos = 0;
	for (const struct rs_flow *fl; (fl = rs_flows_next(a, &pos));) {
		struct rs_flow_info fi;
		rs_flow_get_info(fl, &fi);
		gpointer id = GUINT_TO_POINTER(fi.id + 1);
		const uint64_t *was = g_hash_table_lookup(lv->prev, id);
		uint64_t delta = fi.payload - (was ? *was : 0);
		if (fi.payload) /* flows that never carried any get no entry */
			g_hash_table_insert(prev, id, g_memdup2(&fi.payload, sizeof fi.payload));
		all[n].fl = fl;
		all[n].payload = fi.payload;
		all[n].id = fi.id;
		all[n].now = period_ns ? delta / (period_ns / 1e9) : 0;
		n++;
	}
	qsort(all, n, sizeof all[0], by_rate);
	size_t k = 0;
	for (; k < n && k < max; k++) {
		const struct rs_flow *fl = all[k].fl;
		struct rs_flow_info fi;
		rs_flow_get_info(fl, &fi);
		struct rs_live_qp *r = &rows[k];
		rs_fmt_addr(lv->names, &fi.src, r->src, sizeof r->src);
		rs_fmt_addr(lv->names, &fi.dst, r->dst, sizeof r->dst);
		r->dest_qp = fi.dest_qp;
		r->transport = fi.is_cm_qp ? "CM" : fi.transport;
		r->state = fi.conn ? rs_conn_state(fi.conn) : "";
		r->packets = fi.packets;
		r->payload_bytes = fi.payload;
		r->rate_now_Bps = all[k].now;
		r->rate_avg_Bps = rs_flow_avg_Bps(fl);
		r->retransmitted = fi.retransmitted;
		r->naks = fi.naks;
		r->rnr_naks = fi.rnr_naks;
		r->cnps = fi.cnps;
		r->ecn_ce = fi.ecn_ce;
	}
	if (total)
		*total = n;
	g_free(all);
	g_hash_table_destroy(lv->prev);
	lv->prev = prev;
	return k;
}

static void word_event(const struct rs_cm_event *e, char *buf, size_t len)
{
	char from[RS_ADDR_STRLEN], to[RS_ADDR_STRLEN], svc[48];
	rs_addr_format(&e->from, from);
	rs_addr_format(&e->to, to);
	switch (e->attr) {
	case UMAD_CM_ATTR_REQ:
		snprintf(buf, len, "REQ  %s QP 0x%x -> %s %s", from, e->from_qpn, to,
			 rs_fmt_service(e->service_id, svc, sizeof svc));
		break;
	case UMAD_CM_ATTR_REP:
		snprintf(buf, len, "REP  %s QP 0x%x accepts %s QP 0x%x", from, e->from_qpn, to, e->to_qpn);
		break;
	case UMAD_CM_ATTR_REJ:
		snprintf(buf, len, "REJ  %s rejects: %s (%u)", from, rs_cm_rej_reason_name((uint16_t)e->code), e->code);
		break;
	case UMAD_CM_ATTR_SIDR_REQ:
		snprintf(buf, len, "SIDR %s asks %s for %s", from, to, rs_fmt_service(e->service_id, svc, sizeof svc));
		break;
	case UMAD_CM_ATTR_SIDR_REP:
		snprintf(buf, len, "SIDR %s answers: QP 0x%x Q_Key 0x%x (status %u)", from, e->qpn, e->qkey, e->code);
		break;
	default:
		snprintf(buf, len, "%-4s %s -> %s", rs_cm_attr_name(e->attr), from, to);
	}
}

size_t rs_live_events(const struct rs_live *lv, struct rs_live_event *ev, size_t max)
{
	size_t have = lv->nevents < EVENTS ? lv->nevents : EVENTS;
	size_t n = have < max ? have : max;
	for (size_t i = 0; i < n; i++) {
		const struct rs_cm_event *e = &lv->events[(lv->nevents - n + i) % EVENTS];
		ev[i].ts_ns = e->ts_ns;
		word_event(e, ev[i].text, sizeof ev[i].text);
	}
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

void rs_live_totals(const struct rs_analyzer *a, struct rs_live_totals *t)
{
	struct rs_capture_info cap;
	rs_capture_get_info(a, &cap);
	memset(t, 0, sizeof *t);
	t->frames = cap.frames;
	t->bytes = cap.bytes;
	t->roce_frames = cap.roce[RS_ROCE_V1] + cap.roce[RS_ROCE_V2] + cap.roce[RS_ROCE_IB];
	t->undecodable = cap.outcome[RS_TRUNCATED] + cap.outcome[RS_MALFORMED] + cap.outcome[RS_UNSUPPORTED];
	t->icrc_bad = cap.icrc[RS_CRC_BAD];
	t->first_ts_ns = cap.first_ts;
	t->last_ts_ns = cap.last_ts;
	t->half_flows = cap.half_flows;
	size_t pos = 0;
	for (const struct rs_flow *fl; (fl = rs_flows_next(a, &pos));) {
		struct rs_flow_info fi;
		rs_flow_get_info(fl, &fi);
		t->payload_bytes += fi.payload;
		t->retransmitted += fi.retransmitted;
		t->naks += fi.naks;
		t->rnr_naks += fi.rnr_naks;
		t->cnps += fi.cnps;
		t->ecn_ce += fi.ecn_ce;
	}
	/* The connections kept, and those evicted under --max-flows by the
	 * state they were in then. */
	t->connections = cap.conns + cap.conns_evicted;
	pos = 0;
	for (const struct rs_conn *c; (c = rs_conns_next(a, &pos));)
		tally_state(t, rs_conn_state_of(c), 1);
	for (unsigned k = 0; k < RS_CONN_STATES; k++)
		tally_state(t, (enum rs_conn_state)k, cap.conns_evicted_by_state[k]);
}
