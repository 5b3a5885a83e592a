/*
 * congestion.c — congestion and QoS: DSCP and ECN per half-flow, the CNPs
 * each half-flow received (how often, how evenly the NIC paced them, how
 * soon after a CE mark, the sender's rate before and after), and the
 * PAUSE/PFC frames that stopped links, per sender and priority.
 *
 * DSCP and ECN are counted only where a packet is not as expected (the
 * expected data DSCP and ECT(0)), in the flow's rare counters, so that a
 * capture of well-marked traffic costs a comparison per frame. CNPs are
 * normal DCQCN operation: counted and timed, an anomaly only past the
 * user's --cnp-threshold. The DSCP flags judge traffic against the
 * defaults only where the capture shows ECN in use (an ECN-capable or CE
 * packet, or a CNP: a network without DCQCN marks nothing, and has no
 * reason to follow its DSCP convention), against the user's --dscp always.
 *
 * A pause (PFC priority or PAUSE) holds its priority from the frame's time
 * for quanta x 512 bit times at the link speed (IEEE 802.3 31B.3.1), until
 * a frame with time 0 releases it; a frame that arrives while the pause
 * holds extends it. The union of these spans is the paused time.
 */
#include <string.h>

#include "analyzer/congestion/congestion.h"

static void cnp_flow_free(gpointer p)
{
	struct rs_cnp_flow *c = p;
	if (c->ts)
		g_array_free(c->ts, TRUE);
	if (c->react)
		g_array_free(c->react, TRUE);
	g_free(c);
}

static void pause_src_free(gpointer p)
{
	struct rs_pause_src *s = p;
	for (int i = 0; i < 9; i++)
		if (s->prio[i].spans)
			g_array_free(s->prio[i].spans, TRUE);
	g_free(s);
}

void rs_cong_init(struct rs_analyzer *a)
{
	struct rs_cong_state *c = g_new0(struct rs_cong_state, 1);
	c->dscp_given = a->opts.dscp_data1 || a->opts.dscp_cnp1;
	c->dscp_data = a->opts.dscp_data1 ? (uint8_t)(a->opts.dscp_data1 - 1) : RS_DSCP_DATA_DEFAULT;
	c->dscp_cnp = a->opts.dscp_cnp1 ? (uint8_t)(a->opts.dscp_cnp1 - 1) : RS_DSCP_CNP_DEFAULT;
	c->link_gbps = a->opts.link_gbps ? a->opts.link_gbps : RS_LINK_GBPS_DEFAULT;
	c->cnp_given = a->opts.cnp_threshold1 != 0;
	c->cnp_threshold = c->cnp_given ? a->opts.cnp_threshold1 - 1 : 0;
	c->by_flow = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, cnp_flow_free);
	c->pause_src = g_ptr_array_new_with_free_func(pause_src_free);
	a->cong = c;
	a->dscp_data = c->dscp_data;
}

void rs_cong_free(struct rs_analyzer *a)
{
	if (!a->cong)
		return;
	g_hash_table_destroy(a->cong->by_flow);
	g_ptr_array_free(a->cong->pause_src, TRUE);
	g_free(a->cong);
	a->cong = NULL;
}

const struct rs_cong_state *rs_cong(const struct rs_analyzer *a)
{
	return a->cong;
}

static struct rs_cnp_flow *cnp_flow(struct rs_analyzer *a, const struct rs_flow *fl, bool create)
{
	gpointer key = GUINT_TO_POINTER(fl->id + 1);
	struct rs_cnp_flow *c = g_hash_table_lookup(a->cong->by_flow, key);
	if (!c && create) {
		c = g_new0(struct rs_cnp_flow, 1);
		g_hash_table_insert(a->cong->by_flow, key, c);
	}
	return c;
}

static const struct rs_cnp_flow *cnp_flow_ro(const struct rs_analyzer *a, const struct rs_flow *fl)
{
	return g_hash_table_lookup(a->cong->by_flow, GUINT_TO_POINTER(fl->id + 1));
}

static void cnp_received(struct rs_analyzer *a, struct rs_flow *fl, uint64_t ts)
{
	struct rs_cnp_flow *c = cnp_flow(a, fl, true);
	if (!c->ts) {
		c->ts = g_array_new(FALSE, FALSE, sizeof(uint64_t));
		c->react = g_array_new(FALSE, FALSE, sizeof(uint64_t));
		if (fl->peer) {
			c->have_peer = true;
			c->peer_bytes = fl->peer->payload_all;
			c->peer_first_ts = fl->peer->first_ts;
		}
	}
	if (c->ts->len < RS_CNP_TS_MAX)
		g_array_append_val(c->ts, ts);
	struct rs_cnp_flow *data = fl->peer ? cnp_flow(a, fl->peer, false) : NULL;
	if (data && data->ce_pending) {
		uint64_t r = ts - (data->ce_pending - 1);
		if (c->react->len < RS_CNP_TS_MAX)
			g_array_append_val(c->react, r);
		data->ce_pending = 0;
	}
}

/* Whether a packet carries RDMA data, the traffic the data DSCP is for: a
 * request with payload or a READ response, on a QP above 1. ACKs, NAKs and
 * atomic ACKs travel in whatever class the responder's NIC gives them, and
 * the MADs of QP0/QP1 (CM, SM) in the management class. */
static bool carries_data(const struct rs_frame *f)
{
	if (f->bth.destqp <= 1)
		return false;
	enum rs_op_kind k = rs_opinfo(f->bth.opcode)->kind;
	if (k == RS_KIND_READ_RESP)
		return true;
	return f->payload_len && k != RS_KIND_NONE && k != RS_KIND_ACK && k != RS_KIND_ATOMIC_ACK && k != RS_KIND_CNP;
}

/* A RoCE v1 frame's traffic class: its GRH's, which RoCE v2 carries as the
 * IP DS field (the DSCP, its six high bits). Counted with the v2 frames'
 * DSCPs, so a QP pair that mixes the versions is not split by a default; it
 * has no ECN field (the low bits say nothing of congestion in v1). */
void rs_cong_v1(struct rs_flow *fl, const struct rs_frame *f)
{
	struct rs_flow_rare *r = rs_rare_w(fl);
	rs_dscp_count(r, f->grh.tclass >> 2, 1);
	r->dscp_data_bad += carries_data(f);
}

void rs_cong_frame(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f, uint64_t ts)
{
	bool cnp = rs_opinfo(f->bth.opcode)->kind == RS_KIND_CNP;
	struct rs_flow_rare *r = rs_rare_w(fl);
	if (f->ecn != 2 && !cnp) /* a CNP's own ECN says nothing about the data's */
		r->ecn_n[f->ecn & 3]++;
	if (cnp) {
		if (f->dscp != a->cong->dscp_cnp && !r->cnp_dscp_bad++)
			r->cnp_dscp_v = f->dscp;
		cnp_received(a, fl, ts);
	} else if (f->dscp != a->cong->dscp_data) {
		rs_dscp_count(r, f->dscp, 1);
		r->dscp_data_bad += carries_data(f);
	}
	if (f->ecn == 3) {
		struct rs_cnp_flow *c = cnp_flow(a, fl, true);
		if (!c->ce_pending)
			c->ce_pending = ts + 1;
	}
}

/* ---- PAUSE and PFC -------------------------------------------------------- */

static struct rs_pause_src *pause_src(struct rs_analyzer *a, const uint8_t *mac)
{
	GPtrArray *v = a->cong->pause_src;
	for (guint i = 0; i < v->len; i++) {
		struct rs_pause_src *s = g_ptr_array_index(v, i);
		if (!memcmp(s->mac, mac, 6))
			return s;
	}
	struct rs_pause_src *s = g_new0(struct rs_pause_src, 1);
	memcpy(s->mac, mac, 6);
	g_ptr_array_add(v, s);
	return s;
}

static void span_close(struct rs_analyzer *a, struct rs_pause_src *s, int prio)
{
	struct rs_pause_prio *p = &s->prio[prio];
	if (!p->open)
		return;
	p->open = false;
	uint64_t d = p->span_end - p->span_start;
	p->paused_ns += d;
	if (d > p->longest_ns)
		p->longest_ns = d;
	if (!p->spans)
		p->spans = g_array_new(FALSE, FALSE, sizeof(struct rs_pause_span));
	if (p->spans->len < RS_PAUSE_SPANS_MAX) {
		struct rs_pause_span sp = { p->span_start, p->span_end };
		g_array_append_val(p->spans, sp);
	}
	if (d >= RS_PAUSE_STORM_NS) {
		p->storms++;
		struct rs_anomaly *an = rs_anomaly(a, RS_AN_PAUSE_STORM, (uint32_t)prio, s, &p->first, 1);
		if (an->count == 1)
			rs_anomaly_set_detail(an, "%02x:%02x:%02x:%02x:%02x:%02x held %s%d paused for %.1f ms without a "
					      "break (a pause storm: the link's traffic on it stopped)",
					      s->mac[0], s->mac[1], s->mac[2], s->mac[3], s->mac[4], s->mac[5],
					      prio == RS_PAUSE_LINK ? "the whole link (802.3x PAUSE)" : "priority ",
					      prio == RS_PAUSE_LINK ? 0 : prio, (double)d / 1e6);
	}
}

static void pause_one(struct rs_analyzer *a, struct rs_pause_src *s, int prio, uint16_t q, uint64_t ts,
		      const struct rs_fref *at)
{
	struct rs_pause_prio *p = &s->prio[prio];
	if (!p->frames++)
		p->first = *at;
	p->quanta += q;
	if (!q) {
		p->xon++;
		if (p->open && ts < p->span_end)
			p->span_end = ts;
		span_close(a, s, prio);
		return;
	}
	p->xoff++;
	uint64_t end = ts + (uint64_t)q * 512 / a->cong->link_gbps;
	if (p->open && ts <= p->span_end) {
		if (end > p->span_end)
			p->span_end = end;
		return;
	}
	span_close(a, s, prio);
	p->open = true;
	p->span_start = ts;
	p->span_end = end;
}

void rs_cong_pfc(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m)
{
	struct rs_pause_src *s = pause_src(a, f->eth_src);
	struct rs_fref at = { m->file_index, m->frame_no };
	uint64_t ts = m->ts_ns;
	if (f->pfc->opcode == RS_MACC_PAUSE) {
		a->cong->pause_frames++;
		pause_one(a, s, RS_PAUSE_LINK, f->pfc->quanta[0], ts, &at);
		return;
	}
	a->cong->pfc_frames++;
	for (int i = 0; i < 8; i++)
		if (f->pfc->enable >> i & 1)
			pause_one(a, s, i, f->pfc->quanta[i], ts, &at);
}

/* ---- at the end: flags ----------------------------------------------------- */

bool rs_flow_is_v2(const struct rs_flow *fl)
{
	return (fl->roce_seen & 2) != 0;
}

void rs_flow_ecns(const struct rs_flow *fl, uint64_t ecn[4])
{
	const struct rs_flow_rare *r = rs_rare(fl);
	uint64_t other = 0;
	for (int k = 0; k < 4; k++) {
		ecn[k] = k == 2 ? 0 : r->ecn_n[k];
		other += ecn[k];
	}
	uint64_t data = fl->packets > r->cnps ? fl->packets - r->cnps : 0;
	ecn[2] = rs_flow_is_v2(fl) && data > other ? data - other : 0;
}

void rs_flow_cnp_dscps(const struct rs_flow *fl, uint64_t *expected, uint64_t *other)
{
	const struct rs_flow_rare *r = rs_rare(fl);
	*other = r->cnp_dscp_bad;
	*expected = r->cnps > r->cnp_dscp_bad ? r->cnps - r->cnp_dscp_bad : 0;
}

unsigned rs_flow_dscps(const struct rs_analyzer *a, const struct rs_flow *fl, uint8_t *v, uint64_t *n, unsigned max)
{
	if (!rs_flow_is_v2(fl) || !max)
		return 0;
	const struct rs_flow_rare *r = rs_rare(fl);
	uint64_t others = r->dscp_more, data = fl->packets > r->cnps ? fl->packets - r->cnps : 0;
	unsigned k = 0;
	for (int i = 0; i < RS_DSCP_SEEN && r->dscp_n[i]; i++)
		others += r->dscp_n[i];
	if (data > others) {
		v[k] = a->cong->dscp_data;
		n[k++] = data - others;
	}
	for (int i = 0; i < RS_DSCP_SEEN && r->dscp_n[i] && k < max; i++) {
		unsigned j = k++;
		for (; j > 0 && n[j - 1] < r->dscp_n[i]; j--) { /* insertion, most first */
			v[j] = v[j - 1];
			n[j] = n[j - 1];
		}
		v[j] = r->dscp_v[i];
		n[j] = r->dscp_n[i];
	}
	return k;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/* The value at quantile q of sorted v[0..n) (nearest rank). */
static uint64_t quantile(const uint64_t *v, size_t n, double q)
{
	size_t i = (size_t)(q * (double)n + 0.999999);
	return v[i ? i - 1 : 0];
}

void rs_cnp_stats(const struct rs_analyzer *a, const struct rs_flow *fl, struct rs_cnp_stats *st)
{
	memset(st, 0, sizeof *st);
	st->cnps = rs_rare(fl)->cnps;
	const struct rs_cnp_flow *c = cnp_flow_ro(a, fl);
	if (!st->cnps || !c || !c->ts || !c->ts->len)
		return;
	const uint64_t *ts = (const uint64_t *)(const void *)c->ts->data;
	size_t n = c->ts->len;
	uint64_t dur = a->last_ts > a->first_ts ? a->last_ts - a->first_ts : 0;
	st->per_s = dur ? (double)st->cnps * 1e9 / (double)dur : 0;
	for (size_t i = 0, j = 0; j < n; j++) { /* in capture order: the most within a second of each */
		while (ts[j] >= ts[i] + 1000000000u)
			i++;
		if (j - i + 1 > st->peak_1s)
			st->peak_1s = j - i + 1;
	}
	if (n > 1) {
		uint64_t *g = g_new(uint64_t, n - 1);
		for (size_t i = 1; i < n; i++)
			g[i - 1] = ts[i] >= ts[i - 1] ? ts[i] - ts[i - 1] : 0;
		qsort(g, n - 1, sizeof *g, cmp_u64);
		st->gap_n = n - 1;
		st->gap_min = g[0];
		st->gap_med = quantile(g, n - 1, 0.5);
		st->gap_p99 = quantile(g, n - 1, 0.99);
		st->gap_max = g[n - 2];
		g_free(g);
	}
	if (c->react->len) {
		size_t m = c->react->len;
		uint64_t *r = g_memdup2(c->react->data, m * sizeof *r);
		qsort(r, m, sizeof *r, cmp_u64);
		st->react_n = m;
		st->react_min = r[0];
		st->react_med = quantile(r, m, 0.5);
		st->react_max = r[m - 1];
		g_free(r);
	}
	const struct rs_flow *peer = fl->peer;
	if (c->have_peer && peer && ts[0] > c->peer_first_ts && peer->last_ts > ts[0]) {
		st->have_rate = true;
		st->rate_before = (double)c->peer_bytes * 8e9 / (double)(ts[0] - c->peer_first_ts);
		st->rate_after = (double)(peer->payload_all - c->peer_bytes) * 8e9 / (double)(peer->last_ts - ts[0]);
	}
}

bool rs_cong_any(const struct rs_analyzer *a)
{
	const struct rs_cong_state *c = a->cong;
	return a->cnps || a->ecn_ce || c->ecn_used || c->pfc_frames || c->pause_frames || c->dscp_given;
}

static uint64_t flow_dominant_dscp(const struct rs_analyzer *a, const struct rs_flow *fl, bool *any)
{
	uint8_t v[RS_DSCP_SEEN + 1];
	uint64_t n[RS_DSCP_SEEN + 1];
	unsigned k = rs_flow_dscps(a, fl, v, n, RS_DSCP_SEEN + 1);
	*any = k > 0;
	return k ? v[0] : 0;
}

static void flow_flags(struct rs_analyzer *a, struct rs_flow *fl)
{
	struct rs_cong_state *c = a->cong;
	const struct rs_flow_rare *r = rs_rare(fl);
	const struct rs_fref first = rs_flow_first(a, fl);
	uint8_t dv[2];
	uint64_t dn[2];
	if (r->dscp_data_bad && a->opts.dscp_data1)
		rs_anomaly(a, RS_AN_DSCP, RS_DSCP_DATA, fl, &first, r->dscp_data_bad);
	else if (rs_flow_dscps(a, fl, dv, dn, 2) == 2)
		rs_anomaly(a, RS_AN_DSCP, RS_DSCP_SPLIT, fl, &first, dn[1]);
	if (r->cnp_dscp_bad && a->opts.dscp_cnp1)
		rs_anomaly(a, RS_AN_DSCP, RS_DSCP_CNPS, fl, &first, r->cnp_dscp_bad);
	const struct rs_flow *peer = fl->peer;
	if (peer && fl->id < peer->id && rs_flow_is_v2(peer)) {
		bool x, y;
		uint64_t d1 = flow_dominant_dscp(a, fl, &x), d2 = flow_dominant_dscp(a, peer, &y);
		if (x && y && d1 != d2)
			rs_anomaly(a, RS_AN_DSCP, RS_DSCP_ASYM, fl, &first, 1);
	}
	/* Not-ECT data on a connection that meets congestion: the switches
	 * cannot mark it, so it gets dropped, or paused, instead. */
	uint64_t not_ect = r->ecn_n[0];
	uint64_t cnps_back = peer ? rs_rare(peer)->cnps : 0;
	if (not_ect && (cnps_back || r->ecn_ce || (peer && rs_rare(peer)->ecn_ce)))
		rs_anomaly(a, RS_AN_NOT_ECT, 0, fl, &first, not_ect);
	if (c->cnp_given && r->cnps > c->cnp_threshold) {
		struct rs_cnp_stats st;
		rs_cnp_stats(a, fl, &st);
		if (st.peak_1s > c->cnp_threshold)
			rs_anomaly(a, RS_AN_CNP_RATE, 0, fl, &first, st.peak_1s);
	}
}

void rs_cong_finish(struct rs_analyzer *a)
{
	struct rs_cong_state *c = a->cong;
	for (guint i = 0; i < c->pause_src->len; i++) {
		struct rs_pause_src *s = g_ptr_array_index(c->pause_src, i);
		for (int p = 0; p < 9; p++)
			span_close(a, s, p);
	}
	for (guint i = 0; i < a->flows->len; i++) {
		const struct rs_flow *fl = g_ptr_array_index(a->flows, i);
		if (!fl || !rs_flow_is_v2(fl))
			continue;
		c->v2_packets += fl->packets;
		if (fl->packets > rs_rare(fl)->ecn_n[0] + rs_rare(fl)->cnps)
			c->ecn_used = true;
	}
	for (guint i = 0; i < a->flows->len; i++) {
		struct rs_flow *fl = g_ptr_array_index(a->flows, i);
		if (fl && rs_flow_is_v2(fl))
			flow_flags(a, fl);
	}
}
