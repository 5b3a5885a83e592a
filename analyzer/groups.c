/*
 * groups.c — which findings say the same thing of many subjects, so that a
 * summary can name them once: the same kind of anomaly with the same cause
 * on many half-flows (a sniffer that dropped packets on every QP of a
 * benchmark), and half-flows whose congestion marks are alike.
 *
 * "The same cause" is what the sentence of the finding depends on besides
 * its subject and its size: for skipped PSNs, how they were settled (not
 * captured, lost, re-sent, late, undetermined) and whether acknowledgements
 * could settle them at all; for a DSCP asymmetry, the two DSCPs; for a NAK,
 * its code. Two findings that differ in any of it are not grouped. Findings
 * whose sentence the analysis wrote as text, or whose subject was evicted,
 * stay alone: nothing says two of them agree.
 */
#include <string.h>

#include "analyzer/result.h"

/* The stream of a half-flow an anomaly of `type` and `code` is about:
 * responses (true) or requests. */
static bool response_stream(uint8_t type, uint32_t code)
{
	return (type == RS_AN_GAP || type == RS_AN_OOO) && code != 0;
}

uint64_t rs_anomaly_measure(const struct rs_anomaly_info *an)
{
	if (an->type == RS_AN_GAP && an->flow) {
		struct rs_stream_info st;
		rs_flow_stream(an->flow, response_stream(an->type, an->code), &st);
		return st.missing;
	}
	return an->count;
}

/* The cause of an anomaly, or false if it must stay alone. */
static bool cause_of(const struct rs_analyzer *a, const struct rs_anomaly_info *an, uint32_t *cause)
{
	*cause = 0;
	if (!an->flow || an->evicted || an->evicted_sum || an->detail)
		return false;
	switch ((enum rs_anom)an->type) {
	case RS_AN_GAP: {
		struct rs_stream_info st;
		rs_flow_stream(an->flow, response_stream(an->type, an->code), &st);
		struct rs_gaps g = rs_gaps_of_stream(&st);
		const uint64_t part[RS_GAP_PARTS] = { g.not_captured, g.lost, g.resent - g.overtaken, g.overtaken,
						      g.reordered, g.undetermined };
		for (unsigned i = 0; i < RS_GAP_PARTS; i++)
			if (part[i])
				*cause |= 1u << i;
		struct rs_flow_info fi;
		rs_flow_get_info(an->flow, &fi);
		if (fi.transport_code == RS_TR_UC || fi.transport_code == RS_TR_UD)
			*cause |= RS_GAP_NO_ACKS;
		return true;
	}
	case RS_AN_DSCP: {
		struct rs_flow_info fi;
		rs_flow_get_info(an->flow, &fi);
		if (an->code == RS_DSCP_ASYM) {
			uint8_t v1[RS_DSCP_SEEN + 1], v2[RS_DSCP_SEEN + 1];
			uint64_t n[RS_DSCP_SEEN + 1];
			if (!fi.peer || !rs_flow_dscps(a, an->flow, v1, n, RS_DSCP_SEEN + 1) ||
			    !rs_flow_dscps(a, fi.peer, v2, n, RS_DSCP_SEEN + 1))
				return false;
			*cause = (uint32_t)v1[0] << 8 | v2[0];
			return true;
		}
		/* SPLIT names each flow's own DSCPs, CNPS the CNPs' one. */
		return an->code == RS_DSCP_DATA;
	}
	case RS_AN_NAK:
	case RS_AN_RNR:
	case RS_AN_DUP_ACK:
	case RS_AN_ICRC_BAD:
	case RS_AN_ECN_CE:
	case RS_AN_CNP:
	case RS_AN_NOT_ECT:
	case RS_AN_RETH_LENGTH:
	case RS_AN_PSN_START:
		return true;
	default:
		return false;
	}
}

struct member {
	guint idx;
	uint32_t cause;
	uint64_t measure;
	const struct rs_flow *flow;
};

static bool same_pair(const struct rs_addr *x, const struct rs_addr *y, const struct rs_addr *s, const struct rs_addr *d)
{
	return (rs_addr_equal(x, s) && rs_addr_equal(y, d)) || (rs_addr_equal(x, d) && rs_addr_equal(y, s));
}

static void group_finish(const struct rs_analyzer *a, struct rs_anom_group *g, const struct member *m, GArray *idx)
{
	(void)a;
	g->n = idx->len;
	g->idx = g_new(guint, idx->len);
	g->qps = true;
	g->one_way = true;
	g->pairs = 0;
	GPtrArray *pairs = g_ptr_array_new();
	for (guint i = 0; i < idx->len; i++) {
		const struct member *e = &m[g_array_index(idx, guint, i)];
		g->idx[i] = e->idx;
		g->min = i == 0 || e->measure < g->min ? e->measure : g->min;
		g->max = e->measure > g->max ? e->measure : g->max;
		g->sum += e->measure;
		struct rs_flow_info fi;
		rs_flow_get_info(e->flow, &fi);
		if (i == 0) {
			g->x = fi.src;
			g->y = fi.dst;
		} else if (!rs_addr_equal(&g->x, &fi.src) || !rs_addr_equal(&g->y, &fi.dst)) {
			g->one_way = false;
		}
		bool seen = false;
		for (guint k = 0; k < pairs->len; k += 2)
			seen = seen || same_pair(pairs->pdata[k], pairs->pdata[k + 1], &fi.src, &fi.dst);
		if (!seen) {
			struct rs_addr *s = g_memdup2(&fi.src, sizeof fi.src), *d = g_memdup2(&fi.dst, sizeof fi.dst);
			g_ptr_array_add(pairs, s);
			g_ptr_array_add(pairs, d);
			g->pairs++;
		}
		/* A half-flow is named by the QP it goes to (the two directions
		 * of a connection go to its two QPs); two to one QP (UD's
		 * senders, a replay) are not as many QPs as members. */
		for (guint k = 0; k < i && g->qps; k++) {
			const struct member *o = &m[g_array_index(idx, guint, k)];
			struct rs_flow_info oi;
			rs_flow_get_info(o->flow, &oi);
			if (oi.dest_qp == fi.dest_qp && rs_addr_equal(&oi.dst, &fi.dst))
				g->qps = false;
		}
	}
	g_ptr_array_set_free_func(pairs, g_free);
	g_ptr_array_free(pairs, TRUE);
	/* The largest, first come first among equals. */
	for (unsigned w = 0; w < RS_GROUP_WORST && w < idx->len; w++) {
		guint best = G_MAXUINT;
		for (guint i = 0; i < idx->len; i++) {
			bool taken = false;
			for (unsigned k = 0; k < w; k++)
				taken = taken || g->worst[k] == m[g_array_index(idx, guint, i)].idx;
			if (taken)
				continue;
			const struct member *e = &m[g_array_index(idx, guint, i)];
			if (best == G_MAXUINT || e->measure > m[best].measure)
				best = g_array_index(idx, guint, i);
		}
		g->worst[w] = m[best].idx;
		g->worst_measure[w] = m[best].measure;
		g->nworst = w + 1;
	}
}

GArray *rs_anomaly_groups(const struct rs_analyzer *a, const GPtrArray *anomalies)
{
	guint n = anomalies->len;
	struct member *m = g_new0(struct member, n ? n : 1);
	bool *grouped = g_new0(bool, n ? n : 1);
	GArray *out = g_array_new(FALSE, TRUE, sizeof(struct rs_anom_group));
	struct rs_anomaly_info *info = g_new(struct rs_anomaly_info, n ? n : 1);
	bool *can = g_new0(bool, n ? n : 1);
	for (guint i = 0; i < n; i++) {
		rs_anomaly_get_info(a, anomalies->pdata[i], &info[i]);
		m[i].idx = i;
		m[i].flow = info[i].flow;
		m[i].measure = rs_anomaly_measure(&info[i]);
		can[i] = cause_of(a, &info[i], &m[i].cause);
	}
	GArray *idx = g_array_new(FALSE, FALSE, sizeof(guint));
	for (guint i = 0; i < n; i++) {
		if (grouped[i])
			continue;
		g_array_set_size(idx, 0);
		g_array_append_val(idx, i);
		grouped[i] = true;
		if (can[i])
			for (guint k = i + 1; k < n; k++)
				if (!grouped[k] && can[k] && info[k].type == info[i].type && info[k].code == info[i].code &&
				    m[k].cause == m[i].cause) {
					g_array_append_val(idx, k);
					grouped[k] = true;
				}
		if (idx->len > 1 && idx->len < RS_GROUP_MIN) { /* too few: each alone */
			for (guint k = 1; k < idx->len; k++)
				grouped[g_array_index(idx, guint, k)] = false;
			g_array_set_size(idx, 1);
		}
		struct rs_anom_group g = { .type = info[i].type, .code = info[i].code, .cause = m[i].cause };
		if (idx->len > 1) {
			group_finish(a, &g, m, idx);
		} else {
			g.n = 1;
			g.idx = g_new(guint, 1);
			g.idx[0] = i;
		}
		g_array_append_val(out, g);
	}
	g_array_free(idx, TRUE);
	g_free(can);
	g_free(info);
	g_free(grouped);
	g_free(m);
	return out;
}

void rs_anomaly_groups_free(GArray *groups)
{
	if (!groups)
		return;
	for (guint i = 0; i < groups->len; i++)
		g_free(g_array_index(groups, struct rs_anom_group, i).idx);
	g_array_free(groups, TRUE);
}

/* ---- congestion rows alike --------------------------------------------- */

bool rs_flow_cong_plain(const struct rs_analyzer *a, const struct rs_flow *fl, uint8_t *dscp, uint8_t *ecn)
{
	struct rs_flow_info fi;
	rs_flow_get_info(fl, &fi);
	uint8_t v[RS_DSCP_SEEN + 1];
	uint64_t n[RS_DSCP_SEEN + 1], e[4];
	if (fi.cnps || fi.dscp_more || fi.packets == 0 || rs_flow_dscps(a, fl, v, n, RS_DSCP_SEEN + 1) != 1)
		return false;
	rs_flow_ecns(fl, e);
	int which = -1;
	for (int i = 0; i < 4; i++)
		if (e[i]) {
			if (which >= 0 || i == 3) /* several codepoints, or CE marks: not plain */
				return false;
			which = i;
		}
	struct rs_cnp_stats st;
	rs_cnp_stats(a, fl, &st);
	if (which < 0 || st.cnps)
		return false;
	*dscp = v[0];
	*ecn = (uint8_t)which;
	return true;
}

/* ---- trouble ------------------------------------------------------------ */

uint64_t rs_flow_trouble(const struct rs_flow *fl)
{
	struct rs_flow_info fi;
	rs_flow_get_info(fl, &fi);
	struct rs_stream_info rq, rp;
	rs_flow_stream(fl, false, &rq);
	rs_flow_stream(fl, true, &rp);
	return fi.retransmitted + fi.naks + fi.ecn_ce + fi.cnps + fi.icrc_bad + rq.missing + rp.missing;
}
