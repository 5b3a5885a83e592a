/*
 * groups.c — which findings say the same thing of many subjects, so that a
 * summary can name them once: the same kind of anomaly with the same cause
 * on many half-flows (a sniffer that dropped packets on every QP of a
 * benchmark), and half-flows whose congestion marks are alike.
 *
 * "The same cause" is what the sentence of the finding depends on besides
 * its subject and its size: for skipped PSNs, how they were settled (not
 * captured, lost, re-sent, late, undetermined) and whether acknowledgements
 * could settle them at all; for requests re-sent, why (NAK, RNR NAK,
 * timeout, READ retry, unknown) and whether some came sooner than a timer
 * allows; for a DSCP asymmetry, the two DSCPs; for a NAK,
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
	case RS_AN_RETRANS: {
		if (an->code) /* a responder's: its sentence names what was asked again */
			return false;
		struct rs_stream_info st;
		rs_flow_stream(an->flow, false, &st);
		for (unsigned c = 0; c < RS_RESEND__COUNT; c++)
			if (st.resent[c])
				*cause |= 1u << c;
		if (st.timeouts_early)
			*cause |= RS_RESENT_EARLY;
		if (st.rnr_early)
			*cause |= RS_RESENT_RNR_EARLY;
		return true;
	}
	case RS_AN_OOO:
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
	uint8_t type;
	bool can;
	uint32_t code, cause;
	uint64_t measure;
	const struct rs_flow *flow;
};

/* Keys of the hash tables below: bytes compared as they are (each key
 * zeroed before it is filled, so padding compares too). */
struct kind_key {
	uint32_t type, code, cause;
};
struct qp_key {
	struct rs_addr dst;
	uint32_t qp;
};
struct pair_key {
	struct rs_addr lo, hi;
};

static guint bytes_hash(const void *p, size_t n)
{
	const unsigned char *b = p;
	guint h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

static guint kind_hash(gconstpointer k)
{
	return bytes_hash(k, sizeof(struct kind_key));
}
static gboolean kind_eq(gconstpointer x, gconstpointer y)
{
	return memcmp(x, y, sizeof(struct kind_key)) == 0;
}
static guint qp_hash(gconstpointer k)
{
	return bytes_hash(k, sizeof(struct qp_key));
}
static gboolean qp_eq(gconstpointer x, gconstpointer y)
{
	return memcmp(x, y, sizeof(struct qp_key)) == 0;
}
static guint pair_hash(gconstpointer k)
{
	return bytes_hash(k, sizeof(struct pair_key));
}
static gboolean pair_eq(gconstpointer x, gconstpointer y)
{
	return memcmp(x, y, sizeof(struct pair_key)) == 0;
}

/* The group of the members idx (indices into m), in their order. */
static void group_finish(struct rs_anom_group *g, const struct member *m, const GArray *idx)
{
	g->n = idx->len;
	g->idx = g_new(guint, idx->len);
	g->qps = true;
	g->one_way = true;
	GHashTable *qps = g_hash_table_new_full(qp_hash, qp_eq, g_free, NULL);
	GHashTable *pairs = g_hash_table_new_full(pair_hash, pair_eq, g_free, NULL);
	for (guint i = 0; i < idx->len; i++) {
		const struct member *e = &m[g_array_index(idx, guint, i)];
		g->idx[i] = e->idx;
		g->min = i == 0 || e->measure < g->min ? e->measure : g->min;
		g->max = e->measure > g->max ? e->measure : g->max;
		g->sum += e->measure;
		struct rs_addr src, dst;
		uint32_t qp;
		rs_flow_ends(e->flow, &src, &dst, &qp);
		if (i == 0) {
			g->x = src;
			g->y = dst;
		} else if (!rs_addr_equal(&g->x, &src) || !rs_addr_equal(&g->y, &dst)) {
			g->one_way = false;
		}
		struct pair_key *pk = g_new0(struct pair_key, 1);
		bool lo = memcmp(&src, &dst, sizeof src) <= 0;
		pk->lo = lo ? src : dst;
		pk->hi = lo ? dst : src;
		if (g_hash_table_add(pairs, pk))
			g->pairs++;
		/* A half-flow is named by the QP it goes to (the two directions
		 * of a connection go to its two QPs); two to one QP (UD's
		 * senders, a replay) are not as many QPs as members. */
		struct qp_key *qk = g_new0(struct qp_key, 1);
		qk->dst = dst;
		qk->qp = qp;
		if (!g_hash_table_add(qps, qk))
			g->qps = false;
	}
	g_hash_table_destroy(qps);
	g_hash_table_destroy(pairs);
	/* The largest, the first among equals. */
	for (guint i = 0; i < idx->len; i++) {
		const struct member *e = &m[g_array_index(idx, guint, i)];
		unsigned at = g->nworst;
		while (at > 0 && e->measure > g->worst_measure[at - 1])
			at--;
		if (at >= RS_GROUP_WORST)
			continue;
		unsigned last = g->nworst < RS_GROUP_WORST ? g->nworst : RS_GROUP_WORST - 1;
		for (unsigned k = last; k > at; k--) {
			g->worst[k] = g->worst[k - 1];
			g->worst_measure[k] = g->worst_measure[k - 1];
		}
		g->worst[at] = e->idx;
		g->worst_measure[at] = e->measure;
		if (g->nworst < RS_GROUP_WORST)
			g->nworst++;
	}
}

GArray *rs_anomaly_groups(const struct rs_analyzer *a, const GPtrArray *anomalies)
{
	guint n = anomalies->len;
	struct member *m = g_new0(struct member, n ? n : 1);
	/* The members of each kind and cause, in order: one pass, not one
	 * per anomaly (a capture of a million QPs has as many gaps). */
	GHashTable *kinds = g_hash_table_new_full(kind_hash, kind_eq, g_free, (GDestroyNotify)g_array_unref);
	for (guint i = 0; i < n; i++) {
		struct rs_anomaly_info ai;
		rs_anomaly_get_info(a, anomalies->pdata[i], &ai);
		m[i] = (struct member){ .idx = i, .type = ai.type, .code = ai.code, .flow = ai.flow,
					.measure = rs_anomaly_measure(&ai) };
		m[i].can = cause_of(a, &ai, &m[i].cause);
		if (!m[i].can)
			continue;
		struct kind_key probe;
		memset(&probe, 0, sizeof probe);
		probe.type = m[i].type;
		probe.code = m[i].code;
		probe.cause = m[i].cause;
		GArray *list = g_hash_table_lookup(kinds, &probe);
		if (!list) {
			list = g_array_new(FALSE, FALSE, sizeof(guint));
			g_hash_table_insert(kinds, g_memdup2(&probe, sizeof probe), list);
		}
		g_array_append_val(list, i);
	}
	GArray *out = g_array_new(FALSE, TRUE, sizeof(struct rs_anom_group));
	bool *grouped = g_new0(bool, n ? n : 1);
	for (guint i = 0; i < n; i++) {
		if (grouped[i])
			continue;
		struct rs_anom_group g = { .type = m[i].type, .code = m[i].code, .cause = m[i].cause };
		GArray *list = NULL;
		if (m[i].can) {
			struct kind_key probe;
			memset(&probe, 0, sizeof probe);
			probe.type = m[i].type;
			probe.code = m[i].code;
			probe.cause = m[i].cause;
			list = g_hash_table_lookup(kinds, &probe);
		}
		if (list && list->len >= RS_GROUP_MIN) { /* fewer alike stay one by one */
			group_finish(&g, m, list);
			for (guint k = 0; k < list->len; k++)
				grouped[g_array_index(list, guint, k)] = true;
		} else {
			g.n = 1;
			g.idx = g_new(guint, 1);
			g.idx[0] = i;
			grouped[i] = true;
		}
		g_array_append_val(out, g);
	}
	g_hash_table_destroy(kinds);
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
