/*
 * pair.c — the pairing of half-flows into connections, and the lists
 * (per host pair) it searches.
 *
 * A CM handshake names the two data half-flows of a connection before
 * their first packet (cmtrack.c calls rs_pair_expect). Without a handshake
 * in the capture, a half-flow carrying responses is paired with the
 * request stream (same two hosts, opposite direction) whose PSN window
 * contains the response's PSN.
 */
#include <string.h>

#include "analyzer/table/table.h"

static guint flowkey_hash(gconstpointer p)
{
	const uint8_t *b = p;
	guint h = 5381;
	for (size_t i = 0; i < sizeof(struct rs_flowkey); i++)
		h = h * 33u + b[i];
	return h;
}

static gboolean flowkey_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(struct rs_flowkey)) == 0;
}

static void hostpair_of(struct rs_hostpair *hp, const struct rs_flowkey *k, bool reversed)
{
	memset(hp, 0, sizeof *hp);
	hp->roce = k->roce;
	hp->kind = k->akind;
	memcpy(hp->a, reversed ? k->dst : k->src, 16);
	memcpy(hp->b, reversed ? k->src : k->dst, 16);
}

/*
 * The flows from one host to another that may still be paired by inference
 * (by_hosts). A flow joins when first seen. One that has a peer is dropped
 * when a scan meets it, and rejoins at the end if it loses that peer (its
 * peer evicted, a handshake overruling an inference). Dropped and forgotten
 * flows leave a NULL so that the others keep their order (the scan's window
 * is the most recent ones); the NULLs are squeezed out once they are half.
 */
struct hostlist {
	GPtrArray *flows;
	guint dead; /* NULL entries in flows */
};

static void hostlist_free(gpointer p)
{
	struct hostlist *l = p;
	g_ptr_array_free(l->flows, TRUE);
	g_free(l);
}

static void hostlist_drop(struct hostlist *l, guint i)
{
	l->flows->pdata[i] = NULL;
	l->dead++;
}

/* Squeeze out the NULLs once they are half the list (not during a scan:
 * the flows move). */
static void hostlist_squeeze(struct hostlist *l)
{
	if (l->dead < 64 || l->dead < l->flows->len / 2)
		return;
	guint n = 0;
	for (guint j = 0; j < l->flows->len; j++) {
		struct rs_flow *fl = l->flows->pdata[j];
		if (fl) {
			fl->hosts_pos = n;
			l->flows->pdata[n++] = fl;
		}
	}
	g_ptr_array_set_size(l->flows, n);
	l->dead = 0;
}

/* After flows left list (the one of host pair hp): under --max-flows, host
 * pairs come and go, so an empty list goes too; else its NULLs may. */
static void hostlist_tidy(struct rs_analyzer *a, const struct rs_hostpair *hp, struct hostlist *l)
{
	if (l->dead == l->flows->len)
		g_hash_table_remove(a->by_hosts, hp);
	else
		hostlist_squeeze(l);
}

void rs_pair_init(struct rs_analyzer *a)
{
	a->by_hosts = g_hash_table_new_full(rs_hostpair_hash, rs_hostpair_equal, g_free, hostlist_free);
	a->pending_pairs = g_hash_table_new_full(flowkey_hash, flowkey_equal, g_free, NULL);
	a->versions = g_hash_table_new_full(rs_hostpair_hash, rs_hostpair_equal, g_free, g_free);
}

void rs_pair_free(struct rs_analyzer *a)
{
	g_hash_table_destroy(a->by_hosts);
	g_hash_table_destroy(a->pending_pairs);
	g_hash_table_destroy(a->versions);
	if (a->invalidated)
		g_hash_table_destroy(a->invalidated);
}

/* ---- pairing ------------------------------------------------------------------ */

void rs_pair_link(struct rs_flow *x, struct rs_flow *y, enum rs_pair how)
{
	x->peer = y;
	y->peer = x;
	x->pair_method = y->pair_method = (uint8_t)how;
}

/* A half-flow belongs to at most one connection: drop the old link. */
static void detach_conn(struct rs_flow *fl)
{
	struct rs_conn *old = fl->conn;
	if (!old)
		return;
	if (old->c2s == fl)
		old->c2s = NULL;
	if (old->s2c == fl)
		old->s2c = NULL;
	fl->conn = NULL;
}

void rs_pair_attach(struct rs_analyzer *a, struct rs_flow *fl, struct rs_conn *c)
{
	if (fl->conn != c)
		detach_conn(fl);
	fl->conn = c;
	struct rs_addr src;
	rs_flowkey_addr(&fl->key, false, &src);
	if (c->kind == RS_CONN_SIDR) {
		c->c2s = fl;
		return;
	}
	if (rs_addr_equal(&src, &c->client) && fl->key.qpn == c->server_qpn)
		c->c2s = fl;
	else
		c->s2c = fl;
	if (c->c2s && c->s2c) {
		if (c->c2s->peer && c->c2s->peer != c->s2c)
			rs_pair_lost_peer(a, c->c2s->peer); /* an inference the handshake overrules */
		if (c->s2c->peer && c->s2c->peer != c->c2s)
			rs_pair_lost_peer(a, c->s2c->peer);
		rs_pair_link(c->c2s, c->s2c, RS_PAIR_CM);
	}
}

static bool hosts_list_has(const struct hostlist *list, const struct rs_flow *fl)
{
	return list && fl->hosts_pos < list->flows->len && list->flows->pdata[fl->hosts_pos] == fl;
}

/* A flow joins its host pair's list (struct hostlist); hosts_pos makes
 * removal constant time. */
static void hosts_list_add(struct rs_analyzer *a, struct rs_flow *fl)
{
	struct rs_hostpair hp;
	hostpair_of(&hp, &fl->key, false);
	struct hostlist *list = g_hash_table_lookup(a->by_hosts, &hp);
	if (hosts_list_has(list, fl))
		return; /* still listed (-j: a moved flow may rejoin before it is adopted) */
	if (!list) {
		list = g_new0(struct hostlist, 1);
		list->flows = g_ptr_array_new();
		g_hash_table_insert(a->by_hosts, g_memdup2(&hp, sizeof hp), list);
	}
	fl->hosts_pos = list->flows->len;
	g_ptr_array_add(list->flows, fl);
}

void rs_pair_lost_peer(struct rs_analyzer *a, struct rs_flow *fl)
{
	fl->peer = NULL;
	/* A retired flow is an older connection's: it left the lists for good. */
	if (!fl->is_cm_qp && !fl->retired)
		hosts_list_add(a, fl); /* a no-op while listed: scans drop paired flows lazily */
}

void rs_pair_new_flow(struct rs_analyzer *a, struct rs_flow *fl)
{
	if (fl->is_cm_qp)
		return;
	hosts_list_add(a, fl);
	struct rs_conn *c = g_hash_table_lookup(a->pending_pairs, &fl->key);
	if (c) {
		g_hash_table_remove(a->pending_pairs, &fl->key);
		rs_pair_attach(a, fl, c);
	}
}


void rs_pair_forget_flow(struct rs_analyzer *a, struct rs_flow *fl)
{
	if (fl->is_cm_qp)
		return;
	struct rs_hostpair hp;
	hostpair_of(&hp, &fl->key, false);
	struct hostlist *list = g_hash_table_lookup(a->by_hosts, &hp);
	if (hosts_list_has(list, fl)) {
		hostlist_drop(list, fl->hosts_pos);
		hostlist_tidy(a, &hp, list);
	}
}

#define RS_INFER_SCAN 1024

void rs_pair_infer(struct rs_analyzer *a, struct rs_flow *resp, uint32_t psn)
{
	if (resp->is_cm_qp || resp->infer_tries >= 16)
		return;
	resp->infer_tries++;
	struct rs_hostpair hp;
	hostpair_of(&hp, &resp->key, true);
	struct hostlist *list = g_hash_table_lookup(a->by_hosts, &hp);
	if (!list)
		return;
	struct rs_flow *best = NULL;
	int32_t best_dist = 0;
	/* Only the most recent RS_INFER_SCAN flows between the two hosts that
	 * were unpaired when last looked at are candidates: a scan of all of
	 * them for each response flow went quadratic (thousands of QPNs between
	 * two hosts, each answered or not, took minutes). A response follows
	 * its request closely. Flows paired since are dropped as they are met,
	 * so a million connections' worth of them is not looked at again and
	 * again (that was a quarter of such a run). */
	GPtrArray *v = list->flows;
	guint from = v->len, live = 0;
	while (from > 0 && live < RS_INFER_SCAN)
		if (v->pdata[--from])
			live++;
	for (guint i = from; i < v->len; i++) {
		struct rs_flow *c = v->pdata[i];
		if (!c)
			continue;
		if (c->peer) {
			hostlist_drop(list, i);
			continue;
		}
		if (c == resp || !c->req.started || c->transport != resp->transport)
			continue;
		if (rs_psn_diff(psn, c->req.first) < 0 || rs_psn_diff(psn, c->req.next) >= 0)
			continue; /* this response does not answer that request stream */
		int32_t dist = rs_psn_diff(c->req.next, psn);
		if (!best || dist < best_dist) {
			best = c;
			best_dist = dist;
			if (dist == 1)
				break; /* the closest possible: nothing later can win */
		}
	}
	hostlist_tidy(a, &hp, list);
	if (best)
		rs_pair_link(best, resp, RS_PAIR_INFERRED);
}

struct rs_flow *const *rs_pair_unpaired(struct rs_analyzer *a, const struct rs_flow *fl, guint *n)
{
	struct rs_hostpair hp;
	hostpair_of(&hp, &fl->key, true);
	struct hostlist *list = fl->is_cm_qp ? NULL : g_hash_table_lookup(a->by_hosts, &hp);
	*n = list ? list->flows->len : 0;
	return list ? (struct rs_flow *const *)list->flows->pdata : NULL;
}

/* UD replies to a SIDR client: the client's UD QP is the source QP (DETH)
 * of its datagrams to the server, so a flow from the server to that QP
 * belongs to the same exchange. */
void rs_sidr_link_reply(struct rs_analyzer *a, struct rs_flow *fl)
{
	struct rs_hostpair hp;
	hostpair_of(&hp, &fl->key, true);
	const struct hostlist *list = g_hash_table_lookup(a->by_hosts, &hp);
	for (guint i = 0; list && i < list->flows->len; i++) {
		struct rs_flow *c2s = list->flows->pdata[i];
		if (!c2s)
			continue;
		struct rs_conn *c = c2s->conn;
		if (c && c->kind == RS_CONN_SIDR && c->c2s == c2s && !c->s2c && rs_rare(c2s)->deth_srcqp == fl->key.qpn) {
			c->s2c = fl;
			fl->conn = c;
			c->client_qpn = fl->key.qpn;
			return;
		}
	}
}
