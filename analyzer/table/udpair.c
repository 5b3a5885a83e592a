/*
 * udpair.c — UD conversations: the datagrams two QPs send each other (A's QP
 * to B's and B's QP to A's), and which of them answer which.
 *
 * UD has no ACK and no message sequence number, so nothing in a datagram
 * says what it answers. A reply is paired with a request only where the
 * capture leaves one reading: the side whose datagram comes first in the
 * capture sends the requests; a datagram of the other side answers the
 * conversation's datagram just before it if that one is a request (so a
 * lost reply leaves its request unpaired: the next request comes first),
 * and only if the two are the same count into their streams, by PSN from
 * each side's first datagram (a UD sender numbers its datagrams one by
 * one). The count is what keeps a capture written out of order, or one
 * that lost a request the responder never answered, from pairing a reply
 * with the request after the one it answers: such a candidate is refused,
 * and so is every later one until the counts agree again.
 */
#include <string.h>

#include "analyzer/table/table.h"

/* Conversations tracked at most: memory stays bounded (--max-flows) however
 * many QPs a capture's datagrams name; later ones are not paired. */
#define UDCONV_MAX 65536

/* A conversation is named by one of its directions, the lower of the two:
 * its flow key and the source QP its datagrams name. */
struct conv_key {
	struct rs_flowkey k;
	uint32_t srcqp;
};

struct rs_udconv {
	struct conv_key key;
	bool have[2];             /* side 0 is key's direction, side 1 the reverse */
	uint32_t first_psn[2];
	int8_t req_side;          /* -1 until a datagram came */
	/* The conversation's newest datagram, while it is a request not yet answered. */
	bool open;
	uint32_t open_psn;
	uint64_t open_ts;
	struct rs_fref open_at;
	size_t open_ev;           /* its ladder event + 1; 0: none */
	uint64_t requests, pairs, refused;
	struct rs_latvec lat;
};

static guint conv_hash(gconstpointer p)
{
	return rs_fnv1a(p, sizeof(struct conv_key));
}

static gboolean conv_equal(gconstpointer x, gconstpointer y)
{
	return memcmp(x, y, sizeof(struct conv_key)) == 0;
}

static void conv_free(gpointer p)
{
	struct rs_udconv *c = p;
	rs_lat_free(&c->lat);
	g_free(c);
}

/* The key of the conversation a direction (k, srcqp) belongs to, and which
 * side of it that direction is. */
static int conv_key_of(const struct rs_flowkey *k, uint32_t srcqp, struct conv_key *out)
{
	struct conv_key fwd, rev;
	memset(&fwd, 0, sizeof fwd);
	memset(&rev, 0, sizeof rev);
	fwd.k = *k;
	fwd.srcqp = srcqp;
	rs_flowkey_reverse(&rev.k, k, srcqp);
	rev.srcqp = k->qpn;
	if (memcmp(&fwd, &rev, sizeof fwd) <= 0) {
		*out = fwd;
		return 0;
	}
	*out = rev;
	return 1;
}

void rs_udconv_free(struct rs_analyzer *a)
{
	if (a->udconv)
		g_hash_table_destroy(a->udconv);
	a->udconv = NULL;
}

static struct rs_ladder_ev *ladder_ev(struct rs_analyzer *a, size_t ev)
{
	return ev && a->ladder && ev <= a->ladder->len ? &g_array_index(a->ladder, struct rs_ladder_ev, ev - 1) : NULL;
}

void rs_udconv_frame(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m, size_t ev)
{
	/* A multicast datagram (QP 0xFFFFFF) has no one QP to answer it. */
	if (!(f->ext & RS_EXT_DETH) || f->bth.destqp == RS_PSN_MASK)
		return;
	struct rs_flowkey fk;
	rs_flowkey_from_frame(&fk, f);
	struct conv_key key;
	int side = conv_key_of(&fk, f->deth.srcqp, &key);
	if (!a->udconv)
		a->udconv = g_hash_table_new_full(conv_hash, conv_equal, NULL, conv_free);
	struct rs_udconv *c = g_hash_table_lookup(a->udconv, &key);
	if (!c) {
		if (g_hash_table_size(a->udconv) >= UDCONV_MAX)
			return;
		c = g_new0(struct rs_udconv, 1);
		c->key = key;
		c->req_side = -1;
		g_hash_table_insert(a->udconv, &c->key, c);
	}
	uint32_t psn = f->bth.psn;
	if (!c->have[side]) {
		c->have[side] = true;
		c->first_psn[side] = psn;
	}
	if (c->req_side < 0)
		c->req_side = (int8_t)side;
	if (side == c->req_side) {
		c->requests++;
		c->open = true;
		c->open_psn = psn;
		c->open_ts = m->ts_ns;
		c->open_at = (struct rs_fref){ a->cur_file, m->frame_no };
		c->open_ev = ev;
		return;
	}
	if (!c->open)
		return;
	c->open = false;
	uint32_t kreq = (c->open_psn - c->first_psn[c->req_side]) & RS_PSN_MASK;
	uint32_t krep = (psn - c->first_psn[side]) & RS_PSN_MASK;
	if (kreq != krep || m->ts_ns < c->open_ts) {
		c->refused++;
		return;
	}
	c->pairs++;
	rs_lat_add(&c->lat, m->ts_ns - c->open_ts);
	struct rs_fref at = { a->cur_file, m->frame_no };
	struct rs_ladder_ev *req = ladder_ev(a, c->open_ev), *rep = ladder_ev(a, ev);
	if (req) {
		req->ud_role = RS_UD_REQUEST;
		req->ud_pair = at;
		req->ud_pair_ns = m->ts_ns - c->open_ts;
	}
	if (rep) {
		rep->ud_role = RS_UD_REPLY;
		rep->ud_pair = c->open_at;
		rep->ud_pair_ns = m->ts_ns - c->open_ts;
	}
}

bool rs_flow_ud_conv(const struct rs_analyzer *a, const struct rs_flow *fl, struct rs_ud_conv_info *out)
{
	memset(out, 0, sizeof *out);
	if (!a->udconv || (fl->key.qpn & 0xFFFFFFu) <= 1)
		return false;
	const struct rs_flow_rare *r = rs_rare(fl);
	/* Datagrams from several QPs share the half-flow: it is not one conversation's. */
	if (r->many_srcqp)
		return false;
	struct conv_key key;
	int side = conv_key_of(&fl->key, r->deth_srcqp, &key);
	struct rs_udconv *c = g_hash_table_lookup(a->udconv, &key);
	if (!c || !c->have[0] || !c->have[1])
		return false;
	struct rs_flowkey other;
	rs_flowkey_reverse(&other, &fl->key, r->deth_srcqp);
	out->other = rs_flow_find((struct rs_analyzer *)a, &other);
	out->requester = side == c->req_side;
	if (!out->requester)
		return true;
	out->requests = c->requests;
	out->pairs = c->pairs;
	out->refused = c->refused;
	if (c->lat.n) {
		uint64_t q[2];
		rs_lat_quantiles(&c->lat, (const double[]){ 0.5, 0.99 }, q, 2);
		out->lat = (struct rs_lat_figures){ .n = c->lat.n, .min = c->lat.min, .median = q[0], .p99 = q[1],
						    .max = c->lat.max };
	}
	return true;
}
