/*
 * ulp.c — a connection's upper-layer protocol: its row of the table of
 * protocol modules (proto/modules.c), from the RDMA CM port of its service
 * ID, a --ulp PORT=NAME or a --ulp qp:QPN=NAME, and the module's queue
 * state when the module keeps one (its hooks, proto/proto.h, feed it;
 * analyzer.c calls them).
 *
 * Without a CM connection (the capture began after the handshake) there is
 * no port: an RC half-flow pair is offered, from its first SEND on, to
 * every module with a recognize hook, until one recognises its protocol's
 * shape or all refuse; the one that does gets a queue for the pair (a
 * struct rs_conn with no_cm, in a->ulp_queues), fed from then on as a CM
 * connection's. A module analyses while it looks, so the queue's figures
 * include the frames before it was told (proto.h). A --ulp qp:QPN=NAME
 * names the pair's protocol outright (the module, if it recognises, only
 * says which side is the host; one that does not takes the sender of the
 * pair's first request as the host).
 */
#include <string.h>

#include "analyzer/cm/cm.h"
#include "proto/pdu.h"
#include "proto/proto.h"

#define UQ_MODS 8 /* modules with a recognize hook offered one pair */
#define SWEEP_MIN 1024 /* pairs looked at before the first sweep of those whose half-flows left */
/* Pairs looked at at once: each holds a queue state of every module that
 * recognises, so a flood of pairs whose first SEND has a PDU's shape
 * would otherwise cost that much a half-flow. A new pair past it makes
 * room: the LOOK_MAX / 16 pairs offered no frame for the longest are given
 * up, and say so (RS_AN_SHAPE_UNEXAMINED); a pair a --ulp qp: rule named
 * is never given up. */
#define LOOK_MAX 4096

/* The modules looking at a pair (struct rs_uq look). */
struct rs_uq_look {
	const struct rs_ulp_map *rule; /* the --ulp qp: rule that named the pair's protocol; NULL: none */
	unsigned n;              /* modules in m[] */
	struct {
		unsigned row;
		bool live;       /* still looking */
		struct rs_recog_pair p;
	} m[UQ_MODS];
};

/* ---- CM connections -------------------------------------------------------- */

/* The --ulp qp: rule naming this QP number, or NULL. */
static const struct rs_ulp_map *qp_rule(const struct rs_analyzer *a, uint32_t qpn)
{
	for (unsigned i = 0; qpn && i < a->opts.n_ulp && i < G_N_ELEMENTS(a->opts.ulp); i++)
		if (a->opts.ulp[i].by_qp && a->opts.ulp[i].qpn == qpn)
			return &a->opts.ulp[i];
	return NULL;
}

static const struct rs_ulp_map *port_rule(const struct rs_analyzer *a, uint16_t port)
{
	for (unsigned i = 0; i < a->opts.n_ulp && i < G_N_ELEMENTS(a->opts.ulp); i++)
		if (!a->opts.ulp[i].by_qp && a->opts.ulp[i].port == port)
			return &a->opts.ulp[i];
	return NULL;
}

/* Called as the REQ gives the service ID and the client's QP and as the
 * REP gives the server's: a qp: rule for either QP wins over the port. */
void rs_ulp_assign(struct rs_analyzer *a, struct rs_conn *c)
{
	const struct rs_ulp_map *r = qp_rule(a, c->client_qpn);
	if (!r)
		r = qp_rule(a, c->server_qpn);
	unsigned row = 0;
	enum rs_ulp_by by = r ? RS_ULP_BY_QP : RS_ULP_BY_PORT;
	if (!r && rs_cm_service_is_rdma_cm(c->service_id)) {
		uint16_t port = rs_cm_service_port(c->service_id);
		r = port_rule(a, port);
		row = r ? 0 : rs_proto_of_port(port);
	}
	if (r)
		row = rs_proto_of_user_name(r->name);
	if (!row || (row == c->ulp && c->ulp_by == by))
		return;
	if (c->ulp_by == RS_ULP_BY_QP && by != RS_ULP_BY_QP)
		return; /* a qp: rule told it already */
	if (c->pq && rs_proto_hooks(c->ulp) != rs_proto_hooks(row)) {
		rs_proto_hooks(c->ulp)->queue_free(c->pq);
		c->pq = NULL;
	}
	c->ulp = (uint8_t)row;
	c->ulp_by = (uint8_t)by;
	c->ulp_user = r ? r->name : NULL;
	c->ulp_qpn = by == RS_ULP_BY_QP ? r->qpn : 0;
	const struct rs_proto_hooks *h = rs_proto_hooks(c->ulp);
	if (h->queue_new && !c->pq)
		c->pq = h->queue_new();
}

const char *rs_conn_ulp_name(const struct rs_conn *c)
{
	return c->ulp_user ? c->ulp_user : rs_proto_name(c->ulp);
}

unsigned rs_conn_ulp(const struct rs_conn *c)
{
	return c->ulp;
}

void rs_conn_ulp_how(const struct rs_conn *c, struct rs_ulp_how *out)
{
	*out = (struct rs_ulp_how){ .by = c->ulp_by, .cm = !c->no_cm, .pdus = c->ulp_pdus, .matched = c->ulp_matched,
				    .from = c->ulp_from, .at = c->ulp_at, .qpn = c->ulp_qpn };
}

/* ---- pairs without a CM connection ----------------------------------------- */

void rs_ulp_init(struct rs_analyzer *a)
{
	a->ulp_queues = g_ptr_array_new();
	a->ulp_cands = g_ptr_array_new();
	for (unsigned i = 1; i < rs_nprotos; i++)
		if (rs_proto_hooks(i)->recognize) {
			a->ulp_offer = true;
			a->ulp_recog_pdus |= rs_proto_hooks(i)->recog_pdus;
			a->ulp_recog_wait |= rs_proto_hooks(i)->recog_wait;
		}
	a->ulp_sweep_at = SWEEP_MIN;
	for (unsigned i = 0; i < a->opts.n_ulp && i < G_N_ELEMENTS(a->opts.ulp); i++)
		a->ulp_qp_rules |= a->opts.ulp[i].by_qp;
	a->ulp_offer |= a->ulp_qp_rules;
}

static void uq_drop_modules(struct rs_uq *u, unsigned keep)
{
	if (!u->look)
		u->look = g_new0(struct rs_uq_look, 1);
	for (unsigned i = 0; i < u->look->n; i++)
		if (i != keep && u->look->m[i].p.q) {
			rs_proto_hooks(u->look->m[i].row)->queue_free(u->look->m[i].p.q);
			u->look->m[i].p.q = NULL;
			u->look->m[i].live = false;
		}
}

void rs_ulp_free(struct rs_analyzer *a)
{
	for (guint i = 0; i < a->ulp_cands->len; i++) {
		struct rs_uq *u = a->ulp_cands->pdata[i];
		uq_drop_modules(u, UQ_MODS);
		g_free(u->look);
		g_free(u);
	}
	g_ptr_array_free(a->ulp_cands, TRUE);
	for (guint i = 0; i < a->ulp_queues->len; i++) {
		struct rs_conn *c = a->ulp_queues->pdata[i];
		if (c->pq)
			rs_proto_hooks(c->ulp)->queue_free(c->pq);
		rs_sendq_free(c->sendq[0]);
		rs_sendq_free(c->sendq[1]);
		g_free(c);
	}
	g_ptr_array_free(a->ulp_queues, TRUE);
}

static struct rs_uq *uq_of(const struct rs_flow *fl)
{
	return fl && fl->x ? fl->x->uq : NULL;
}

/* Whether the modules still look at the pair (a->ulp_looking counts them). */
static void uq_set_done(struct rs_analyzer *a, struct rs_uq *u, bool done)
{
	if (u->done != done)
		a->ulp_looking += done ? -1 : 1;
	u->done = done;
}

static void uq_release(struct rs_analyzer *a, struct rs_uq *u)
{
	uq_set_done(a, u, true);
	uq_drop_modules(u, UQ_MODS);
	g_free(u->look);
	struct rs_uq *last = g_ptr_array_index(a->ulp_cands, a->ulp_cands->len - 1);
	last->idx = u->idx;
	g_ptr_array_remove_index_fast(a->ulp_cands, u->idx);
	g_free(u);
}

/* Pairs whose half-flows both left the table (--max-flows) are dropped now
 * and then (their queue, if told, stays in a->ulp_queues), so that the
 * pairs looked at stay as many as the half-flows kept. */
static void uq_sweep(struct rs_analyzer *a)
{
	for (guint i = a->ulp_cands->len; i-- > 0;) {
		struct rs_uq *u = g_ptr_array_index(a->ulp_cands, i);
		if (!u->a && !u->b)
			uq_release(a, u);
	}
	a->ulp_sweep_at = MAX(SWEEP_MIN, 2 * a->ulp_cands->len);
	a->ulp_swept_evicted = a->evicted;
}

/* The pair's state goes and its half-flows say what became of it
 * themselves: refused by every module, or waiting for the opening SEND of
 * a module that waits. */
static void uq_leave(struct rs_analyzer *a, struct rs_uq *u, bool waiting)
{
	struct rs_flow *side[2] = { u->a, u->b };
	for (unsigned i = 0; i < 2; i++)
		if (side[i]) {
			if (waiting)
				side[i]->ulp_waited = true;
			else
				side[i]->ulp_refused = true;
			side[i]->x->uq = NULL;
		}
	uq_release(a, u);
}

/* Every module refused the pair. Kept instead while a --ulp qp: rule could
 * still name the protocol of the half-flow that joins the pair. */
static void uq_refused(struct rs_analyzer *a, struct rs_uq *u)
{
	if (!a->ulp_qp_rules)
		uq_leave(a, u, false);
}

/* The modules stop looking at the pair before they told (make_room): it
 * counts as a pair not examined to the end, by its first frame. */
static void uq_give_up(struct rs_analyzer *a, struct rs_uq *u)
{
	rs_anomaly(a, RS_AN_SHAPE_UNEXAMINED, LOOK_MAX, NULL, &u->from, 1);
	if (!a->ulp_qp_rules) {
		uq_refused(a, u);
		return;
	}
	uq_drop_modules(u, UQ_MODS);
	g_free(u->look);
	u->look = NULL;
	uq_set_done(a, u, true);
}

static gint by_last(gconstpointer x, gconstpointer y)
{
	const struct rs_uq *const *p = x, *const *q = y;
	return (*p)->last < (*q)->last ? -1 : (*p)->last > (*q)->last;
}

/* Room for one more pair to look at: the pairs of evicted half-flows
 * dropped (a sweep at most once an eviction batch), then, if need be, the
 * idlest pairs given up, a sixteenth of LOOK_MAX at once (one sort for so
 * many new pairs). */
static void make_room(struct rs_analyzer *a)
{
	if (a->evicted != a->ulp_swept_evicted)
		uq_sweep(a);
	if (a->ulp_looking < LOOK_MAX)
		return;
	GPtrArray *idle = g_ptr_array_sized_new(a->ulp_looking);
	for (guint i = 0; i < a->ulp_cands->len; i++) {
		struct rs_uq *u = g_ptr_array_index(a->ulp_cands, i);
		if (!u->done && !(u->look && u->look->rule))
			g_ptr_array_add(idle, u);
	}
	g_ptr_array_sort(idle, by_last);
	for (guint i = 0; i < idle->len && i < LOOK_MAX / 16; i++)
		uq_give_up(a, g_ptr_array_index(idle, i));
	g_ptr_array_free(idle, TRUE);
}

/* The look ended without a queue: refused, or, when a module that waits
 * was left out of it (u->wait), the pair goes back to waiting for that
 * module's opening SEND (its half-flows say so; the state goes). */
static void uq_ended(struct rs_analyzer *a, struct rs_uq *u)
{
	if (!u->wait || a->ulp_qp_rules)
		uq_refused(a, u);
	else
		uq_leave(a, u, true);
}

static bool sends_start(const struct rs_frame *f)
{
	if ((f->bth.opcode & 0xE0) != RS_TR_RC)
		return false;
	return rs_op_send_starts(rs_opinfo(f->bth.opcode));
}

static void addr_of(struct rs_addr *ad, const struct rs_flowkey *k, bool src)
{
	ad->kind = k->akind;
	memcpy(ad->b, src ? k->src : k->dst, 16);
}

/* The queue's half-flows, addresses and QPs, as far as the pair is known. */
static void queue_sides(struct rs_uq *u, bool host_is_a)
{
	struct rs_conn *c = u->c;
	c->c2s = host_is_a ? u->a : u->b;
	c->s2c = host_is_a ? u->b : u->a;
	const struct rs_flow *any = c->c2s ? c->c2s : c->s2c;
	if (!any)
		return;
	c->roce = any->key.roce;
	addr_of(&c->client, &any->key, any == c->c2s);
	addr_of(&c->server, &any->key, any != c->c2s);
	c->server_qpn = c->c2s ? c->c2s->key.qpn : 0;
	c->client_qpn = c->s2c ? c->s2c->key.qpn : 0;
}

static void queue_make(struct rs_analyzer *a, struct rs_uq *u, unsigned row, const struct rs_recog_pair *p,
		       const struct rs_ulp_map *rule, const struct rs_fref *at)
{
	struct rs_conn *c = g_new0(struct rs_conn, 1);
	c->id = a->ulp_queues->len;
	c->kind = RS_CONN_RC;
	c->no_cm = true;
	c->ulp = (uint8_t)row;
	c->ulp_by = rule ? RS_ULP_BY_QP : RS_ULP_BY_SHAPE;
	c->ulp_user = rule ? rule->name : NULL;
	c->ulp_qpn = rule ? rule->qpn : 0;
	c->pq = p ? p->q : NULL;
	c->ulp_pdus = p ? p->pdus : 0;
	c->ulp_matched = p ? p->matched : 0;
	c->ulp_from = u->from;
	c->ulp_at = *at;
	u->c = c;
	uq_set_done(a, u, true);
	queue_sides(u, p ? p->host_is_a : true);
	g_ptr_array_add(a->ulp_queues, c);
}

/* The rule of either QP of the pair, if any. */
static const struct rs_ulp_map *pair_rule(const struct rs_analyzer *a, const struct rs_flow *fl)
{
	if (!a->ulp_qp_rules)
		return NULL;
	const struct rs_ulp_map *r = qp_rule(a, fl->key.qpn);
	return r || !fl->peer ? r : qp_rule(a, fl->peer->key.qpn);
}

/* Offer the pair to one module: its rule's, or every one that recognises
 * (each set of hooks once, by its first row); waiters: only those that
 * wait (recog_wait). have: the PDU kinds of the SEND that opens the look;
 * a module that waits for its own opening SEND (have holds one of its
 * recog_wait kinds but none of its recog_pdus) is left out, and the pair
 * remembers it (u->wait). */
static void uq_modules(struct rs_uq *u, unsigned only, const struct rs_ulp_map *rule, bool waiters, uint32_t have)
{
	uq_drop_modules(u, UQ_MODS);
	u->look->n = 0;
	u->look->rule = rule;
	bool forced = rule != NULL;
	for (unsigned i = 1; i < rs_nprotos && u->look->n < UQ_MODS; i++) {
		const struct rs_proto_hooks *h = rs_proto_hooks(i);
		bool again = false;
		for (unsigned k = 0; k < u->look->n && !again; k++)
			again = rs_proto_hooks(u->look->m[k].row) == h;
		if (!h->recognize || !h->queue_new || again || (only && i != only) || (waiters && !h->recog_wait))
			continue;
		if (!rule && (have & h->recog_wait) && !(have & h->recog_pdus)) {
			u->wait = true;
			continue;
		}
		u->look->m[u->look->n].row = i;
		u->look->m[u->look->n].live = true;
		/* host_is_a: the sender of the pair's first request, until the
		 * module tells the sides */
		u->look->m[u->look->n].p = (struct rs_recog_pair){ .q = h->queue_new(), .forced = forced, .host_is_a = true };
		u->look->n++;
	}
}

/* waiters: the pair's SENDs before this one held PDUs only a module that
 * waits for its opening SEND takes (recog_wait): only such modules look. */
static struct rs_uq *uq_new(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f, const struct rs_fref *at,
			    bool waiters)
{
	if (a->ulp_cands->len >= a->ulp_sweep_at)
		uq_sweep(a);
	struct rs_uq *u = g_new0(struct rs_uq, 1);
	u->idx = a->ulp_cands->len;
	u->done = true; /* counted as looking just below */
	uq_set_done(a, u, false);
	u->a = fl;
	u->b = fl->peer && !uq_of(fl->peer) ? fl->peer : NULL;
	u->from = *at;
	rs_extra_w(fl)->uq = u;
	if (u->b)
		rs_extra_w(u->b)->uq = u;
	g_ptr_array_add(a->ulp_cands, u);
	const struct rs_ulp_map *r = pair_rule(a, fl);
	unsigned row = r ? rs_proto_of_user_name(r->name) : 0;
	uq_modules(u, row, r, waiters && !r, f->pdu ? f->pdu->have : 0);
	if (r && !u->look->n)
		queue_make(a, u, row, NULL, r, at); /* a name, or a module that does not recognise: the sender of this frame is the host */
	else if (!u->look->n)
		uq_set_done(a, u, true);
	return u;
}

/* The half-flow fl joins its peer's pair as its "b"; a qp: rule for its
 * QP, if the pair is not told yet, names the pair's protocol now. */
static void uq_join(struct rs_analyzer *a, struct rs_uq *u, struct rs_flow *fl, const struct rs_fref *at)
{
	u->b = fl;
	rs_extra_w(fl)->uq = u;
	if (u->c) {
		queue_sides(u, u->c->c2s == u->a);
		return;
	}
	const struct rs_ulp_map *r = a->ulp_qp_rules ? qp_rule(a, fl->key.qpn) : NULL;
	if (!r || (u->look && u->look->rule))
		return;
	unsigned row = rs_proto_of_user_name(r->name);
	uq_set_done(a, u, false);
	u->look->rule = r;
	for (unsigned i = 0; u->look && i < u->look->n; i++)
		if (u->look->m[i].live && rs_proto_hooks(u->look->m[i].row) == rs_proto_hooks(row)) {
			/* Its module has been looking from the first frame on: it keeps
			 * what it saw, and is only asked for the host's side now. */
			uq_drop_modules(u, i);
			u->look->m[i].p.forced = true;
			u->look->m[i].row = row;
			return;
		}
	uq_modules(u, row, r, false, 0); /* the rule overrules what the other modules saw */
	if (!u->look->n)
		queue_make(a, u, row, NULL, r, at);
}

/* A frame with a transport payload of a half-flow without a CM connection. */
void rs_ulp_nocm_frame(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f,
		       const struct rs_frame_meta *m)
{
	struct rs_fref at = { a->cur_file, m->frame_no };
	struct rs_uq *u = uq_of(fl);
	if (!u) {
		struct rs_uq *pu = uq_of(fl->peer);
		if (pu && pu->a == fl->peer && !pu->b)
			uq_join(a, u = pu, fl, &at);
		else if (pu || !(sends_start(f) || (!rs_opinfo(f->bth.opcode)->response && pair_rule(a, fl))))
			return; /* an ACK or a READ response comes before its half-flow is paired */
		else if (!a->ulp_qp_rules && (fl->peer && fl->peer->ulp_refused))
			return (void)(fl->ulp_refused = true); /* it joins a refused pair */
		else if (!a->ulp_qp_rules && !(f->pdu && (f->pdu->have & a->ulp_recog_pdus))) {
			if (f->pdu && (f->pdu->have & a->ulp_recog_wait) && sends_start(f)) {
				/* a module waits for the SEND that opens its look (a
				 * message begun before the capture, a credit grant):
				 * the others refuse the pair */
				fl->ulp_waited = true;
				return;
			}
			/* a first SEND that every module would refuse */
			fl->ulp_refused = true;
			if (fl->peer && !uq_of(fl->peer))
				fl->peer->ulp_refused = true;
			return;
		} else {
			if (a->ulp_looking >= LOOK_MAX)
				make_room(a);
			u = uq_new(a, fl, f, &at, fl->ulp_waited || (fl->peer && fl->peer->ulp_waited));
		}
		if (u->done && !u->c) {
			uq_ended(a, u);
			return;
		}
	}
	if (u->c) {
		struct rs_conn *c = u->c;
		if (a->v) {
			a->v->ulp = c->ulp;
			a->v->ulp_by = c->ulp_by;
		}
		if (c->pq && (fl == c->c2s || fl == c->s2c))
			rs_proto_hooks(c->ulp)->queue_frame(a, c, fl, f, m);
		return;
	}
	if (u->done)
		return;
	u->last = ++a->ulp_seq;
	unsigned live = 0;
	for (unsigned i = 0; i < u->look->n; i++) {
		if (!u->look->m[i].live)
			continue;
		struct rs_recog_pair *p = &u->look->m[i].p;
		enum rs_recog r = rs_proto_hooks(u->look->m[i].row)->recognize(p, fl == u->a, f, m);
		if (r == RS_RECOG_NO && p->forced)
			r = RS_RECOG_YES; /* the rule named it: the module only failed to tell the sides */
		if (r == RS_RECOG_YES) {
			uq_drop_modules(u, i);
			queue_make(a, u, u->look->m[i].row, p, u->look->rule, &at);
			u->look->m[i].p.q = NULL; /* the queue's now */
			return; /* its verdict, as those before, without the protocol's columns */
		}
		if (r == RS_RECOG_NO) {
			rs_proto_hooks(u->look->m[i].row)->queue_free(p->q);
			p->q = NULL;
			u->look->m[i].live = false;
		}
		live += r == RS_RECOG_MORE;
	}
	uq_set_done(a, u, !live);
	if (u->done)
		uq_ended(a, u);
}

GPtrArray *rs_ulp_queues_selected(const struct rs_analyzer *a, int64_t qp, int64_t conn)
{
	GPtrArray *out = g_ptr_array_new();
	for (guint i = 0; conn < 0 && i < a->ulp_queues->len; i++) {
		const struct rs_conn *c = a->ulp_queues->pdata[i];
		if (qp < 0 || c->client_qpn == (uint32_t)qp || c->server_qpn == (uint32_t)qp)
			g_ptr_array_add(out, a->ulp_queues->pdata[i]);
	}
	return out;
}

/* The capture ended: a pair a --ulp qp: rule named whose module never
 * told the sides becomes its queue all the same (the sender of its first
 * request the host), as the rule says. */
void rs_ulp_finish(struct rs_analyzer *a)
{
	for (guint i = 0; i < a->ulp_cands->len; i++) {
		struct rs_uq *u = g_ptr_array_index(a->ulp_cands, i);
		if (u->done || !u->look || !u->look->rule)
			continue;
		for (unsigned k = 0; k < u->look->n; k++)
			if (u->look->m[k].live) {
				queue_make(a, u, u->look->m[k].row, &u->look->m[k].p, u->look->rule, &u->from);
				u->look->m[k].p.q = NULL; /* the queue's now */
				uq_drop_modules(u, UQ_MODS);
				break;
			}
	}
}
