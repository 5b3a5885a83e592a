/*
 * anomaly.c — what went wrong or deserves a look, with where it happened.
 *
 * An anomaly is keyed by (type, code, subject): e.g. (NAK, remote access
 * error, this half-flow). Repeats add to its count and keep the first
 * RS_SAMPLE_FRAMES frame numbers, so a report can say "12 NAKs, frames 40,
 * 57, 63, …" without keeping every frame.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "analyzer/records/records.h"

guint rs_anomaly_hash(gconstpointer p)
{
	const struct rs_anomaly *k = p;
	return g_direct_hash(k->subject) ^ (k->type * 2654435761u) ^ (k->code * 40503u);
}

gboolean rs_anomaly_equal(gconstpointer x, gconstpointer y)
{
	const struct rs_anomaly *a = x, *b = y;
	return a->type == b->type && a->code == b->code && a->subject == b->subject;
}

void rs_anomaly_free(gpointer p)
{
	struct rs_anomaly *an = p;
	g_free(an->ghost);
	g_free(an->detail);
	g_free(an);
}

/* The anomaly types whose subject is a half-flow (the others: a connection,
 * a host pair, or none). */
bool rs_anom_flow_subject(enum rs_anom t)
{
	switch (t) {
	case RS_AN_ICRC_BAD:
	case RS_AN_RETRANS:
	case RS_AN_OOO:
	case RS_AN_GAP:
	case RS_AN_NAK:
	case RS_AN_RNR:
	case RS_AN_DUP_ACK:
	case RS_AN_PSN_START:
	case RS_AN_RKEY_INVALIDATED:
	case RS_AN_ECN_CE:
	case RS_AN_CNP:
	case RS_AN_DSCP:
	case RS_AN_NOT_ECT:
	case RS_AN_CNP_RATE:
	case RS_AN_NETDUP:
	case RS_AN_DEAD_QP:
	case RS_AN_RETH_LENGTH:
		return true;
	default:
		return false;
	}
}

/* The anomaly types whose subject is a CM connection. */
bool rs_anom_conn_subject(enum rs_anom t)
{
	return t == RS_AN_CM_REJ || t == RS_AN_CM_RETRY || t == RS_AN_CM_INCOMPLETE;
}

static struct rs_anomaly *anomaly_get(struct rs_analyzer *a, enum rs_anom type, uint32_t code, const void *subject)
{
	struct rs_anomaly probe = { .type = (uint8_t)type, .code = code, .subject = subject };
	struct rs_anomaly *an = g_hash_table_lookup(a->anomalies, &probe);
	if (!an) {
		an = g_new0(struct rs_anomaly, 1);
		*an = probe;
		an->seq = a->next_anomaly_seq++;
		g_hash_table_add(a->anomalies, an);
	}
	return an;
}

struct rs_anomaly *rs_anomaly(struct rs_analyzer *a, enum rs_anom type, uint32_t code, const void *subject,
			      const struct rs_fref *at, uint64_t count)
{
	struct rs_anomaly probe = { .type = (uint8_t)type, .code = code, .subject = subject };
	struct rs_anomaly *an = g_hash_table_lookup(a->anomalies, &probe);
	if (!an) {
		an = anomaly_get(a, type, code, subject);
		/* Each flow lists its anomalies, so that evicting it finds them
		 * without going through every anomaly there is. */
		if (subject && rs_anom_flow_subject(type)) {
			struct rs_flow *fl = (struct rs_flow *)subject;
			struct rs_flow_extra *x = rs_extra_w(fl);
			if (!x->anoms)
				x->anoms = g_ptr_array_new();
			g_ptr_array_add(x->anoms, an);
		} else if (subject && rs_anom_conn_subject(type)) { /* and connections theirs */
			struct rs_conn *c = (struct rs_conn *)subject;
			if (!c->anoms)
				c->anoms = g_ptr_array_new();
			g_ptr_array_add(c->anoms, an);
		}
	}
	an->count += count;
	if (at && an->nframes < RS_SAMPLE_FRAMES)
		an->frames[an->nframes++] = *at;
	return an;
}

void rs_anomaly_set_detail(struct rs_anomaly *an, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	g_free(an->detail);
	an->detail = g_strdup_vprintf(fmt, ap);
	va_end(ap);
}

const char *rs_anom_key(enum rs_anom t)
{
	static const char *const keys[RS_AN__COUNT] = {
		[RS_AN_FILE_ERROR] = "file_error",
		[RS_AN_UNDECODABLE] = "undecodable_frames",
		[RS_AN_FILE_WARNING] = "file_warning",
		[RS_AN_ICRC_BAD] = "bad_icrc",
		[RS_AN_VCRC_BAD] = "bad_vcrc",
		[RS_AN_RETRANS] = "retransmission",
		[RS_AN_OOO] = "out_of_order",
		[RS_AN_GAP] = "psn_gap",
		[RS_AN_NAK] = "nak",
		[RS_AN_RNR] = "rnr_nak",
		[RS_AN_DUP_ACK] = "duplicate_ack",
		[RS_AN_CM_REJ] = "cm_reject",
		[RS_AN_CM_INCOMPLETE] = "cm_incomplete",
		[RS_AN_CM_RETRY] = "cm_retry",
		[RS_AN_PSN_START] = "psn_start_mismatch",
		[RS_AN_MIXED_ROCE] = "roce_v1_v2_mixed",
		[RS_AN_RKEY_INVALIDATED] = "rkey_after_invalidate",
		[RS_AN_ECN_CE] = "ecn_ce",
		[RS_AN_CNP] = "cnp",
		[RS_AN_DSCP] = "dscp_unexpected",
		[RS_AN_NOT_ECT] = "not_ect_under_congestion",
		[RS_AN_CNP_RATE] = "cnp_rate",
		[RS_AN_PAUSE_STORM] = "pause_storm",
		[RS_AN_EVICTED] = "flows_evicted",
		[RS_AN_ROCE_ELSEWHERE] = "roce_on_other_port",
		[RS_AN_SHAPE_UNEXAMINED] = "shape_not_examined",
		[RS_AN_NETDUP] = "network_duplicate",
		[RS_AN_RETH_LENGTH] = "reth_length_mismatch",
		[RS_AN_DEAD_QP] = "qp_gave_up",
	};
	return (unsigned)t < RS_AN__COUNT ? keys[t] : "?";
}

/* Reports list anomalies by severity group (the enum order), then in the
 * order they first happened. */
static gint by_type_then_seq(gconstpointer x, gconstpointer y)
{
	const struct rs_anomaly *a = *(const struct rs_anomaly *const *)x;
	const struct rs_anomaly *b = *(const struct rs_anomaly *const *)y;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

GPtrArray *rs_anomalies_sorted(const struct rs_analyzer *a)
{
	GPtrArray *v = g_ptr_array_sized_new(g_hash_table_size(a->anomalies));
	GHashTableIter it;
	gpointer key;
	g_hash_table_iter_init(&it, a->anomalies);
	while (g_hash_table_iter_next(&it, &key, NULL))
		g_ptr_array_add(v, key);
	g_ptr_array_sort(v, by_type_then_seq);
	return v;
}

/* A copy of an evicted subject, enough for its anomaly's sentence. */
static struct rs_anom_ghost *ghost_of(const struct rs_anomaly *an)
{
	struct rs_anom_ghost *g = g_new0(struct rs_anom_ghost, 1);
	if (rs_anom_flow_subject((enum rs_anom)an->type)) {
		const struct rs_flow *fl = an->subject;
		g->fl.key = fl->key;
		g->fl.transport = fl->transport;
		g->fl.is_cm_qp = fl->is_cm_qp;
		g->fl.is_dc = fl->is_dc;
		g->fl.id = fl->id;
		const struct rs_psn_loss *l[2] = { fl->req.loss, fl->rsp.loss };
		struct rs_psn *s[2] = { &g->fl.req, &g->fl.rsp };
		for (int k = 0; k < 2; k++) {
			if (!l[k])
				continue;
			g->loss[k] = *l[k];
			g->loss[k].lost = NULL;
			g->loss[k].ids = NULL;
			g->loss[k].mq = NULL;
			s[k]->loss = &g->loss[k];
		}
	} else {
		g->c = *(const struct rs_conn *)an->subject;
		g->c.c2s = g->c.s2c = NULL;
		g->c.anoms = NULL;
		g->c.pq = NULL;
	}
	return g;
}

/* One anomaly whose subject is going away, already out of a->anomalies: the
 * first RS_DETACHED_MAX keep a ghost of it; the rest are summed per type
 * into one anomaly whose subject is &a->detached. */
static void detach_one(struct rs_analyzer *a, struct rs_anomaly *an)
{
	if (a->detached < RS_DETACHED_MAX) {
		an->ghost = ghost_of(an);
		an->subject = an->ghost; /* unique, and never a live flow or connection */
		g_hash_table_add(a->anomalies, an);
		a->detached++;
		return;
	}
	struct rs_anomaly *sum = anomaly_get(a, (enum rs_anom)an->type, 0, &a->detached);
	sum->count += an->count;
	for (uint32_t k = 0; k < an->nframes && sum->nframes < RS_SAMPLE_FRAMES; k++)
		sum->frames[sum->nframes++] = an->frames[k];
	rs_anomaly_free(an);
}

/*
 * Before a flow or connection goes away, word the anomalies on its list: the
 * first RS_DETACHED_MAX stay listed one by one; after that they are summed
 * per type into one anomaly, so that memory stays bounded under --max-flows
 * even when every evicted subject had something to report. The list makes
 * eviction cost what the victim's own anomalies cost, not a pass over all
 * anomalies; the caller goes through the victims idlest first, so which
 * anomalies stay listed depends on the capture alone (not on addresses).
 */
static void detach_list(struct rs_analyzer *a, GPtrArray **list)
{
	GPtrArray *anoms = *list;
	if (!anoms)
		return;
	for (guint i = 0; i < anoms->len; i++) {
		g_hash_table_steal(a->anomalies, anoms->pdata[i]);
		detach_one(a, anoms->pdata[i]);
	}
	g_ptr_array_free(anoms, TRUE);
	*list = NULL;
}

void rs_anomalies_detach_flow(struct rs_analyzer *a, struct rs_flow *fl)
{
	if (fl->x)
		detach_list(a, &fl->x->anoms);
}

void rs_anomalies_detach_conn(struct rs_analyzer *a, struct rs_conn *c)
{
	detach_list(a, &c->anoms);
}
