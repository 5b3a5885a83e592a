/*
 * metrics.c — the analysis as metrics: Prometheus' text exposition format
 * (0.0.4, what promtool and node_exporter's textfile collector read) or
 * OpenMetrics 1.0 (what Prometheus asks a scrape for first), one writer for
 * both: they differ only in a counter family's name (OpenMetrics drops the
 * sample's _total from it), the UNIT lines and the closing "# EOF".
 *
 * A series' labels must stay few whatever the traffic, so QPs and host
 * pairs get series of their own up to a limit (the biggest by wire bytes
 * when a place is free; a place is kept until its flow leaves the analysis)
 * and the rest add up in one "other" series. Counters only ever go up: a
 * reading adds to "other" what each flow without a series of its own
 * carried since the reading before (the flow's values then are kept here),
 * so a flow that gets a series later, or leaves, takes nothing back from
 * it. What a flow carried before it got its series stays counted in "other"
 * too. Latency histograms are kept per QP with a series and for the whole
 * capture (rs_analyzer_opts.lat_buckets), not for "other".
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/result.h"
#include "report/format.h"
#include "report/metrics.h"
#include "report/view.h"

/* One QP's, host pair's or "other"'s counters. */
struct mv {
	uint64_t packets, wire_bytes, goodput_bytes, rnr_naks, cnps, ecn_ce;
	uint64_t msgs[RS_MSG__COUNT];
	uint64_t resent[RS_RESEND__COUNT];
	uint64_t naks[8];
};

struct qp_series {
	char src[RS_ADDR_STRLEN], dst[RS_ADDR_STRLEN];
	char qp[16];              /* "0x11" */
	char conn[16];            /* its CM connection's number ("": none): a replay's QPs come again */
	const struct rs_flow *fl; /* this reading's (the flow as found by its id) */
	bool seen;                /* in this reading */
};

struct pair_acc {
	char src[RS_ADDR_STRLEN], dst[RS_ADDR_STRLEN];
	struct mv acc;            /* every reading's increments */
	struct mv now;            /* this reading's */
	bool series;              /* has a series of its own */
};

struct rs_metrics {
	unsigned max_qps, max_pairs;
	struct rs_names *names;
	GHashTable *prev;         /* flow id + 1 -> struct fstate */
	uint32_t gen;             /* readings made */
	size_t cursor;            /* the reading under way: where the next flow is looked for */
	bool in_pass;
	GHashTable *qps;          /* flow id + 1 -> struct qp_series */
	GHashTable *pairs;        /* "src dst" -> struct pair_acc */
	unsigned npair_series;
	struct mv other_qp, other_pair;
};

struct rs_metrics *rs_metrics_new(unsigned max_qps, bool resolve_names)
{
	struct rs_metrics *m = g_new0(struct rs_metrics, 1);
	m->max_qps = max_qps;
	m->max_pairs = max_qps;
	m->names = rs_names_new(resolve_names);
	m->prev = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free); /* struct fstate */
	m->qps = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	m->pairs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	return m;
}

void rs_metrics_free(struct rs_metrics *m)
{
	if (!m)
		return;
	rs_names_free(m->names);
	g_hash_table_destroy(m->prev);
	g_hash_table_destroy(m->qps);
	g_hash_table_destroy(m->pairs);
	g_free(m);
}

static void read_flow(const struct rs_flow *fl, struct mv *v)
{
	memset(v, 0, sizeof *v);
	struct rs_flow_info fi;
	rs_flow_get_info(fl, &fi);
	v->packets = fi.packets;
	v->wire_bytes = fi.wire_bytes;
	v->goodput_bytes = fi.payload;
	v->rnr_naks = fi.rnr_naks;
	v->cnps = fi.cnps;
	v->ecn_ce = fi.ecn_ce;
	rs_flow_problem_counts(fl, v->naks, v->resent);
	struct rs_flow_msgs buf;
	memcpy(v->msgs, rs_flow_messages(fl, &buf)->msgs, sizeof v->msgs);
}

/* acc += cur - was, counter by counter (a value below what was kept: the
 * flow was replaced under the same id; all of it is new). */
static void add_delta(struct mv *acc, const struct mv *cur, const struct mv *was)
{
	const uint64_t *c = (const uint64_t *)cur, *w = was ? (const uint64_t *)was : NULL;
	uint64_t *s = (uint64_t *)acc;
	for (size_t i = 0; i < sizeof *acc / sizeof(uint64_t); i++)
		s[i] += w && c[i] >= w[i] ? c[i] - w[i] : c[i];
}

static void flow_addrs(struct rs_metrics *m, const struct rs_flow *fl, char *src, char *dst)
{
	struct rs_addr s, d;
	uint32_t qp;
	rs_flow_ends(fl, &s, &d, &qp);
	rs_fmt_addr(m->names, &s, src, RS_ADDR_STRLEN);
	rs_fmt_addr(m->names, &d, dst, RS_ADDR_STRLEN);
}

struct cand {
	const struct rs_flow *fl;
	uint64_t wire_bytes;
	uint32_t id;
};

static int by_bytes(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;
	if (a->wire_bytes != b->wire_bytes)
		return a->wire_bytes > b->wire_bytes ? -1 : 1;
	return a->id < b->id ? -1 : 1;
}

static struct qp_series *new_series(struct rs_metrics *m, const struct rs_flow *fl)
{
	struct rs_flow_info fi;
	rs_flow_get_info(fl, &fi);
	struct qp_series *q = g_new0(struct qp_series, 1);
	flow_addrs(m, fl, q->src, q->dst);
	snprintf(q->qp, sizeof q->qp, "0x%x", fi.dest_qp);
	if (fi.conn)
		snprintf(q->conn, sizeof q->conn, "%" PRIu32, rs_conn_id(fi.conn));
	g_hash_table_insert(m->qps, GUINT_TO_POINTER(fi.id + 1), q);
	return q;
}

/* Free places go to the biggest flows without a series. */
static void give_places(struct rs_metrics *m, const struct rs_analyzer *a)
{
	unsigned have = g_hash_table_size(m->qps);
	if (have >= m->max_qps)
		return;
	GArray *cand = g_array_new(FALSE, FALSE, sizeof(struct cand));
	size_t pos = 0;
	for (const struct rs_flow *fl; (fl = rs_flows_next(a, &pos));) {
		struct rs_flow_info fi;
		rs_flow_get_info(fl, &fi);
		if (fi.packets && !g_hash_table_contains(m->qps, GUINT_TO_POINTER(fi.id + 1))) {
			struct cand c = { fl, fi.wire_bytes, fi.id };
			g_array_append_val(cand, c);
		}
	}
	g_array_sort(cand, by_bytes);
	for (guint i = 0; i < cand->len && have < m->max_qps; i++, have++)
		new_series(m, g_array_index(cand, struct cand, i).fl);
	g_array_free(cand, TRUE);
}

static gboolean gone(gpointer key, gpointer value, gpointer user)
{
	(void)key;
	(void)user;
	return !((struct qp_series *)value)->seen;
}

/* A flow's values at the last reading, and its host pair (found once). */
struct fstate {
	struct mv v;
	struct pair_acc *pair;
	uint32_t gen;             /* the reading that saw it last */
};

static struct pair_acc *pair_of(struct rs_metrics *m, const struct rs_flow *fl)
{
	char src[RS_ADDR_STRLEN], dst[RS_ADDR_STRLEN];
	flow_addrs(m, fl, src, dst);
	char *pk = g_strconcat(src, " ", dst, NULL);
	struct pair_acc *p = g_hash_table_lookup(m->pairs, pk);
	if (p) {
		g_free(pk);
		return p;
	}
	p = g_new0(struct pair_acc, 1);
	memcpy(p->src, src, sizeof p->src);
	memcpy(p->dst, dst, sizeof p->dst);
	g_hash_table_insert(m->pairs, pk, p);
	return p;
}

static gboolean stale(gpointer key, gpointer value, gpointer user)
{
	(void)key;
	return ((struct fstate *)value)->gen != *(const uint32_t *)user;
}

/* A reading, begun: places given, the series' flows to be found again. */
static void reading_begin(struct rs_metrics *m, const struct rs_analyzer *a)
{
	give_places(m, a);
	m->gen++;
	m->cursor = 0;
	m->in_pass = true;
	GHashTableIter it;
	gpointer k, val;
	g_hash_table_iter_init(&it, m->qps);
	while (g_hash_table_iter_next(&it, &k, &val))
		((struct qp_series *)val)->seen = false;
}

/* The next `budget` flows of the reading: every flow's increments to its
 * host pair, and to "other" unless it has a series; its values kept for
 * the next reading. True when the last flow was read: then the series of
 * flows gone from the analysis, and the values kept of them, are dropped. */
static bool reading_step(struct rs_metrics *m, const struct rs_analyzer *a, guint budget)
{
	const struct rs_flow *fl = NULL;
	for (; budget && (fl = rs_flows_next(a, &m->cursor)); budget--) {
		struct mv cur;
		read_flow(fl, &cur);
		if (!cur.packets)
			continue;
		struct rs_flow_info fi;
		rs_flow_get_info(fl, &fi);
		gpointer id = GUINT_TO_POINTER(fi.id + 1);
		struct fstate *st = g_hash_table_lookup(m->prev, id);
		bool fresh = !st;
		if (fresh) {
			st = g_new0(struct fstate, 1);
			st->pair = pair_of(m, fl);
			g_hash_table_insert(m->prev, id, st);
		}
		struct qp_series *q = g_hash_table_lookup(m->qps, id);
		/* A flow new since the reading began takes a free place at once
		 * (else it would count into "other" until the next one). */
		if (!q && fresh && g_hash_table_size(m->qps) < m->max_qps)
			q = new_series(m, fl);
		if (q) {
			q->seen = true;
			q->fl = fl;
		} else {
			add_delta(&m->other_qp, &cur, fresh ? NULL : &st->v);
		}
		add_delta(&st->pair->now, &cur, fresh ? NULL : &st->v);
		st->v = cur;
		st->gen = m->gen;
	}
	if (fl || (!budget && rs_flows_next(a, &(size_t){ m->cursor })))
		return false;
	g_hash_table_foreach_remove(m->qps, gone, NULL);
	g_hash_table_foreach_remove(m->prev, stale, &m->gen);
	m->in_pass = false;
	return true;
}

static void add_mv(struct mv *acc, const struct mv *x)
{
	uint64_t *s = (uint64_t *)acc;
	const uint64_t *v = (const uint64_t *)x;
	for (size_t i = 0; i < sizeof *acc / sizeof(uint64_t); i++)
		s[i] += v[i];
}

/* This reading's increments into the pairs, and into "other" for those
 * still without a series once the free places were given. */
static void pair_totals(struct rs_metrics *m)
{
	GHashTableIter it;
	gpointer k, val;
	g_hash_table_iter_init(&it, m->pairs);
	while (g_hash_table_iter_next(&it, &k, &val)) {
		struct pair_acc *p = val;
		add_mv(&p->acc, &p->now);
		if (!p->series)
			add_mv(&m->other_pair, &p->now);
		memset(&p->now, 0, sizeof p->now);
	}
}

static uint64_t pair_bytes(const struct pair_acc *p)
{
	return p->acc.wire_bytes + p->now.wire_bytes;
}

/* Biggest first; a tie by the addresses, so that a reading does not
 * depend on the table's order. */
static gint pair_by_bytes(gconstpointer x, gconstpointer y)
{
	const struct pair_acc *a = *(const struct pair_acc *const *)x, *b = *(const struct pair_acc *const *)y;
	uint64_t ba = pair_bytes(a), bb = pair_bytes(b);
	if (ba != bb)
		return ba > bb ? -1 : 1;
	int c = strcmp(a->src, b->src);
	return c ? c : strcmp(a->dst, b->dst);
}

/* Pairs get series once, biggest first, while places are free; what a pair
 * carried before stays in "other" (it was counted there). */
static void pair_places(struct rs_metrics *m)
{
	if (m->npair_series >= m->max_pairs)
		return;
	GPtrArray *cand = g_ptr_array_new();
	GHashTableIter it;
	gpointer k, val;
	g_hash_table_iter_init(&it, m->pairs);
	while (g_hash_table_iter_next(&it, &k, &val))
		if (!((struct pair_acc *)val)->series)
			g_ptr_array_add(cand, val);
	g_ptr_array_sort(cand, pair_by_bytes);
	for (guint i = 0; i < cand->len && m->npair_series < m->max_pairs; i++, m->npair_series++)
		((struct pair_acc *)cand->pdata[i])->series = true;
	g_ptr_array_free(cand, TRUE);
}

/* ---- writing ------------------------------------------------------------- */

struct mw {
	GString *out;
	bool om;                  /* OpenMetrics, else the 0.0.4 text format */
};

/* A label value as the formats quote it: backslash, double quote and
 * newline escaped. */
static void label(GString *o, const char *name, const char *v, bool first)
{
	g_string_append_printf(o, "%s%s=\"", first ? "" : ",", name);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			g_string_append_c(o, '\\');
		if (*v == '\n')
			g_string_append(o, "\\n");
		else
			g_string_append_c(o, *v);
	}
	g_string_append_c(o, '"');
}

/* HELP and TYPE (and UNIT) of a family; counters' samples end in _total. */
static void family(struct mw *w, const char *name, const char *type, const char *unit, const char *help)
{
	bool total = strcmp(type, "counter") == 0 && !w->om;
	g_string_append_printf(w->out, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, total ? "_total" : "", help, name,
			       total ? "_total" : "", type);
	if (w->om && unit)
		g_string_append_printf(w->out, "# UNIT %s %s\n", name, unit);
}

struct lbl {
	const char *k[6], *v[6];
	int n;
};

/* name+suffix{labels[,extra]} and a space: the start of a sample line. */
static void sample_start(struct mw *w, const char *name, const char *suffix, const struct lbl *l, const char *extra_k,
			 const char *extra_v)
{
	g_string_append_printf(w->out, "%s%s", name, suffix);
	int n = 0;
	for (int i = 0; l && i < l->n; i++, n++)
		label(w->out, l->k[i], l->v[i], n == 0 ? (g_string_append_c(w->out, '{'), true) : false);
	if (extra_k) {
		if (!n)
			g_string_append_c(w->out, '{');
		label(w->out, extra_k, extra_v, n == 0);
		n++;
	}
	if (n)
		g_string_append_c(w->out, '}');
	g_string_append_c(w->out, ' ');
}

static void sample(struct mw *w, const char *name, const char *suffix, const struct lbl *l, const char *extra_k,
		   const char *extra_v, uint64_t value)
{
	sample_start(w, name, suffix, l, extra_k, extra_v);
	g_string_append_printf(w->out, "%" PRIu64 "\n", value);
}

static void sample_f(struct mw *w, const char *name, const char *suffix, const struct lbl *l, const char *extra_k,
		     const char *extra_v, double value)
{
	sample_start(w, name, suffix, l, extra_k, extra_v);
	g_string_append_printf(w->out, "%.9g\n", value);
}

/* The per-QP or per-pair families: `who` "qp" or "pair". */
struct row {
	struct lbl l;
	const struct mv *v;
	const struct rs_flow *fl; /* a QP's */
};

static void families(struct mw *w, const char *who, const struct row *rows, size_t n)
{
	char name[96];
#define FAM(field, suffix, unit, help)                                                                   \
	do {                                                                                             \
		snprintf(name, sizeof name, "rocestat_%s_%s", who, suffix);                              \
		family(w, name, "counter", unit, help);                                                  \
		for (size_t i = 0; i < n; i++)                                                           \
			sample(w, name, "_total", &rows[i].l, NULL, NULL, rows[i].v->field);             \
	} while (0)
	FAM(packets, "packets", NULL, "RoCE packets of the half-flow(s).");
	FAM(wire_bytes, "wire_bytes", "bytes", "Bytes on the wire, every frame whole, re-sends included.");
	FAM(goodput_bytes, "goodput_bytes", "bytes", "Payload bytes, each request PSN counted once (re-sends not).");
	FAM(rnr_naks, "rnr_naks", NULL, "RNR NAKs sent (the receiver had no receive posted).");
	FAM(cnps, "cnps", NULL, "Congestion notification packets received.");
	FAM(ecn_ce, "ecn_ce", NULL, "Packets marked ECN Congestion Experienced.");
#undef FAM
	snprintf(name, sizeof name, "rocestat_%s_messages", who);
	family(w, name, "counter", NULL, "Messages completed, by kind.");
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < RS_MSG__COUNT; k++)
			sample(w, name, "_total", &rows[i].l, "kind", rs_msg_key((enum rs_msg)k), rows[i].v->msgs[k]);
	snprintf(name, sizeof name, "rocestat_%s_resent_packets", who);
	family(w, name, "counter", NULL, "Request packets re-sent by the requester, by cause.");
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < RS_RESEND__COUNT; c++)
			sample(w, name, "_total", &rows[i].l, "cause", rs_resend_key((enum rs_resend)c),
			       rows[i].v->resent[c]);
	snprintf(name, sizeof name, "rocestat_%s_naks", who);
	family(w, name, "counter", NULL, "NAKs sent (RNR NAKs apart), by NAK code.");
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < 5; c++)
			sample(w, name, "_total", &rows[i].l, "code", rs_nak_code_key((uint8_t)c), rows[i].v->naks[c]);
}

static void histogram(struct mw *w, const char *name, const struct lbl *l, const struct rs_lat_buckets *h,
		      enum rs_lat_kind k)
{
	struct lbl x = *l;
	x.k[x.n] = "kind";
	x.v[x.n] = rs_lat_key(k);
	x.n++;
	uint64_t cum = 0;
	char le[32];
	for (int b = 0; b <= RS_LAT_BUCKETS; b++) {
		cum += h->in[k][b];
		if (b < RS_LAT_BUCKETS)
			snprintf(le, sizeof le, "%.9g", rs_lat_bucket_le_ns[b] / 1e9);
		else
			snprintf(le, sizeof le, "+Inf");
		sample(w, name, "_bucket", &x, "le", le, cum);
	}
	sample(w, name, "_count", &x, NULL, NULL, h->count[k]);
	sample_f(w, name, "_sum", &x, NULL, NULL, h->sum_ns[k] / 1e9);
}

static int by_labels(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	for (int i = 0; i < a->l.n && i < b->l.n; i++) {
		int c = strcmp(a->l.v[i], b->l.v[i]);
		if (c)
			return c;
	}
	return 0;
}

static void capture_wide(struct mw *w, const struct rs_analyzer *a, const struct rs_metrics_drops *d)
{
	struct rs_live_totals t;
	rs_live_totals(a, &t);
	family(w, "rocestat_frames", "counter", NULL, "Frames captured, RoCE or not.");
	sample(w, "rocestat_frames", "_total", NULL, NULL, NULL, t.frames);
	family(w, "rocestat_wire_bytes", "counter", "bytes", "Bytes of every frame captured.");
	sample(w, "rocestat_wire_bytes", "_total", NULL, NULL, NULL, t.bytes);
	family(w, "rocestat_roce_frames", "counter", NULL, "RoCE v1, RoCE v2 and InfiniBand frames.");
	sample(w, "rocestat_roce_frames", "_total", NULL, NULL, NULL, t.roce_frames);
	family(w, "rocestat_icrc_bad", "counter", NULL, "Frames whose ICRC does not match their bytes.");
	sample(w, "rocestat_icrc_bad", "_total", NULL, NULL, NULL, t.icrc_bad);
	family(w, "rocestat_undecodable_frames", "counter", NULL, "Frames that could not be decoded, by outcome.");
	struct rs_capture_info cap;
	rs_capture_get_info(a, &cap);
	sample(w, "rocestat_undecodable_frames", "_total", NULL, "outcome", "truncated", cap.outcome[RS_TRUNCATED]);
	sample(w, "rocestat_undecodable_frames", "_total", NULL, "outcome", "malformed", cap.outcome[RS_MALFORMED]);
	sample(w, "rocestat_undecodable_frames", "_total", NULL, "outcome", "unsupported", cap.outcome[RS_UNSUPPORTED]);
	if (d && d->have) {
		family(w, "rocestat_capture_received_frames", "counter", NULL,
		       "Frames the kernel's filter passed (libpcap ps_recv).");
		sample(w, "rocestat_capture_received_frames", "_total", NULL, NULL, NULL, d->received);
		family(w, "rocestat_capture_dropped_frames", "counter", NULL,
		       "Frames lost to the capture: by the kernel for want of buffer (ps_drop), by the interface or its "
		       "driver (ps_ifdrop).");
		sample(w, "rocestat_capture_dropped_frames", "_total", NULL, "where", "kernel", d->dropped);
		sample(w, "rocestat_capture_dropped_frames", "_total", NULL, "where", "interface", d->ifdropped);
	}
	family(w, "rocestat_half_flows", "gauge", NULL, "Half-flows (one direction of one QP) in the analysis.");
	sample(w, "rocestat_half_flows", "", NULL, NULL, NULL, t.half_flows);
	uint64_t by[RS_CONN_STATES] = { 0 };
	size_t cpos = 0;
	for (const struct rs_conn *c; (c = rs_conns_next(a, &cpos));)
		by[rs_conn_state_of(c)]++;
	for (unsigned k = 0; k < RS_CONN_STATES; k++)
		by[k] += cap.conns_evicted_by_state[k];
	family(w, "rocestat_cm_connections", "gauge", NULL, "CM connections seen, by their state now.");
	for (unsigned k = 0; k < RS_CONN_STATES; k++)
		sample(w, "rocestat_cm_connections", "", NULL, "state", rs_conn_state_names[k], by[k]);
	struct rs_cong_info ci;
	rs_cong_get_info(a, &ci);
	const struct rs_cong_info *c = &ci;
	family(w, "rocestat_pause_seconds", "counter", "seconds",
	       "Time a PFC priority (0-7) or the whole link (PAUSE) was held paused, by sender.");
	for (guint i = 0; i < c->pause_src->len; i++) {
		const struct rs_pause_src *s = g_ptr_array_index(c->pause_src, i);
		char mac[24], prio[8];
		snprintf(mac, sizeof mac, "%02x:%02x:%02x:%02x:%02x:%02x", s->mac[0], s->mac[1], s->mac[2], s->mac[3],
			 s->mac[4], s->mac[5]);
		for (int p = 0; p <= RS_PAUSE_LINK; p++) {
			const struct rs_pause_prio *pp = &s->prio[p];
			if (!pp->frames)
				continue;
			uint64_t ns = pp->paused_ns + (pp->open ? pp->span_end - pp->span_start : 0);
			snprintf(prio, sizeof prio, "%d", p);
			struct lbl l = { { "sender", "priority" }, { mac, p == RS_PAUSE_LINK ? "all" : prio }, 2 };
			sample_f(w, "rocestat_pause_seconds", "_total", &l, NULL, NULL, ns / 1e9);
		}
	}
	const struct rs_lat_buckets *h = rs_analyzer_lat_buckets(a, NULL);
	if (h) {
		family(w, "rocestat_latency_seconds", "histogram", "seconds",
		       "Request to answer, seen at the capture point, every QP: ack (AckReq to ACK), read_first (READ to "
		       "its first response), read_last, atomic.");
		struct lbl none = { .n = 0 };
		for (int k = 0; k < RS_LAT__COUNT; k++)
			histogram(w, "rocestat_latency_seconds", &none, h, (enum rs_lat_kind)k);
	}
}

static void reading_end(struct rs_metrics *m)
{
	pair_places(m);
	pair_totals(m);
}

void rs_metrics_read(struct rs_metrics *m, const struct rs_analyzer *a)
{
	if (!m->in_pass)
		reading_begin(m, a);
	reading_step(m, a, G_MAXUINT);
	reading_end(m);
}

bool rs_metrics_read_some(struct rs_metrics *m, const struct rs_analyzer *a, unsigned budget)
{
	if (!m->in_pass)
		return false;
	if (!reading_step(m, a, budget))
		return false;
	reading_end(m);
	return true;
}

void rs_metrics_read_start(struct rs_metrics *m, const struct rs_analyzer *a)
{
	if (!m->in_pass)
		reading_begin(m, a);
}

bool rs_metrics_reading(const struct rs_metrics *m)
{
	return m->in_pass;
}

void rs_metrics_render(struct rs_metrics *m, const struct rs_analyzer *a, const struct rs_metrics_drops *d,
		       bool openmetrics, GString *out)
{
	struct mw w = { out, openmetrics };
	capture_wide(&w, a, d);

	/* QPs with series, in label order (a scrape's output stable), then other. */
	size_t nq = g_hash_table_size(m->qps);
	struct row *rows = g_new0(struct row, nq + 1);
	struct mv *vals = g_new0(struct mv, nq + 1);
	size_t i = 0;
	GHashTableIter it;
	gpointer k, val;
	g_hash_table_iter_init(&it, m->qps);
	while (g_hash_table_iter_next(&it, &k, &val)) {
		struct qp_series *q = val;
		read_flow(q->fl, &vals[i]);
		rows[i] = (struct row){ { { "src", "dst", "qp", "conn" }, { q->src, q->dst, q->qp, q->conn }, 4 }, &vals[i],
					q->fl };
		i++;
	}
	qsort(rows, i, sizeof rows[0], by_labels);
	rows[i] = (struct row){ { { "src", "dst", "qp", "conn" }, { "other", "other", "other", "" }, 4 }, &m->other_qp,
				NULL };
	families(&w, "qp", rows, i + 1);
	if (rs_analyzer_lat_buckets(a, NULL)) {
		family(&w, "rocestat_qp_latency_seconds", "histogram", "seconds",
		       "Request to answer of the QPs with series of their own, by kind (see rocestat_latency_seconds).");
		for (size_t r = 0; r < i; r++) {
			const struct rs_lat_buckets *h = rs_analyzer_lat_buckets(a, rows[r].fl);
			for (int kk = 0; h && kk < RS_LAT__COUNT; kk++)
				if (h->count[kk])
					histogram(&w, "rocestat_qp_latency_seconds", &rows[r].l, h, (enum rs_lat_kind)kk);
		}
	}
	g_free(rows);
	g_free(vals);

	size_t np = m->npair_series;
	struct row *prow = g_new0(struct row, np + 1);
	size_t j = 0;
	g_hash_table_iter_init(&it, m->pairs);
	while (g_hash_table_iter_next(&it, &k, &val)) {
		struct pair_acc *p = val;
		if (p->series && j < np)
			prow[j++] = (struct row){ { { "src", "dst" }, { p->src, p->dst }, 2 }, &p->acc, NULL };
	}
	qsort(prow, j, sizeof prow[0], by_labels);
	prow[j] = (struct row){ { { "src", "dst" }, { "other", "other" }, 2 }, &m->other_pair, NULL };
	families(&w, "pair", prow, j + 1);
	g_free(prow);
	if (openmetrics)
		g_string_append(out, "# EOF\n");
}

static int report(FILE *out, const struct rs_analyzer *a, const struct rs_report_opts *o, bool openmetrics)
{
	struct rs_metrics *m = rs_metrics_new(o->metrics_qps ? o->metrics_qps : RS_METRICS_QPS, o->resolve_names);
	GString *s = g_string_new(NULL);
	rs_metrics_read(m, a);
	rs_metrics_render(m, a, NULL, openmetrics, s);
	size_t n = fwrite(s->str, 1, s->len, out);
	bool ok = n == s->len;
	g_string_free(s, TRUE);
	rs_metrics_free(m);
	return ok ? 0 : -1;
}

int rs_report_prometheus(FILE *out, const struct rs_analyzer *a, const struct rs_report_opts *o)
{
	return report(out, a, o, false);
}

int rs_report_openmetrics(FILE *out, const struct rs_analyzer *a, const struct rs_report_opts *o)
{
	return report(out, a, o, true);
}
