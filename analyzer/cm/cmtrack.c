/*
 * cmtrack.c — CM handshakes: connections, their states, eviction under
 * --max-flows, and the events the ladder and the live view show.
 *
 * A CM exchange is identified by each side's Communication ID (IBA 12.6.1):
 * the active side (client) picks one for its REQ, the passive side (server)
 * picks its own for the REP; later messages carry both. So each message is
 * found under (sender, local comm ID) or (receiver, remote comm ID).
 *
 * The REQ gives the client's QPN and the REP the server's, which names the
 * two data half-flows before the first data packet: client→server to the
 * server's QPN, and server→client to the client's QPN. With Linux's CM, the
 * REQ's Starting PSN is the first PSN the server sends and the REP's is the
 * first PSN the client sends (each side's field announces what it expects to
 * receive); rs_track_request() checks the data against them. Pairing the
 * half-flows is pair.c's.
 */
#include <string.h>

#include "analyzer/cm/cm.h"
#include "proto/proto.h"

#define LADDER_MAX 2000000 /* events kept for --ladder; beyond, counted */


static void conn_free(gpointer p)
{
	struct rs_conn *c = p;
	if (c->anoms)
		g_ptr_array_free(c->anoms, TRUE); /* the anomalies are a->anomalies' */
	if (c->pq)
		rs_proto_hooks(c->ulp)->queue_free(c->pq);
	rs_sendq_free(c->sendq[0]);
	rs_sendq_free(c->sendq[1]);
	g_free(c);
}

void rs_cm_init(struct rs_analyzer *a)
{
	a->conns = g_ptr_array_new();
	a->conn_by_id = g_hash_table_new_full(rs_hostkey_hash, rs_hostkey_equal, g_free, NULL);
}

void rs_cm_free(struct rs_analyzer *a)
{
	g_hash_table_destroy(a->conn_by_id);
	g_ptr_array_set_free_func(a->conns, conn_free);
	g_ptr_array_free(a->conns, TRUE);
	if (a->ladder)
		g_array_free(a->ladder, TRUE);
}

/* Name the two data half-flows of a connection; link them now or when seen. */
static void expect_flow(struct rs_analyzer *a, struct rs_conn *c, bool c2s, uint32_t qpn)
{
	struct rs_flowkey k;
	memset(&k, 0, sizeof k);
	k.roce = c->roce;
	k.akind = c->client.kind;
	k.qpn = qpn;
	memcpy(k.src, c2s ? c->client.b : c->server.b, 16);
	memcpy(k.dst, c2s ? c->server.b : c->client.b, 16);
	struct rs_flow *fl = rs_flow_find(a, &k);
	bool other_rc = fl && fl->conn && fl->conn != c && fl->conn->kind == RS_CONN_RC && c->kind == RS_CONN_RC;
	if (fl && fl->packets && fl->conn != c && (other_rc || fl->first_ts < rs_conn_begun(c))) {
		/* Traffic already seen under these addresses and QPN belongs to an
		 * earlier connection (QPNs are reused after a disconnect): keep it
		 * in the reports as it was and count the new connection afresh.
		 * Another RC connection's flow is never this one's, whatever the
		 * times say: files given out of time order (`rocestat *.pcap`
		 * reads them in the shell's order) bring the later one first. */
		rs_flow_retire(a, fl);
		fl = NULL;
	} else if (fl && !fl->conn && c->kind == RS_CONN_RC && fl->first_ts > rs_conn_begun(c) + RS_STALE_NS) {
		/* Traffic from after this handshake, read before it: a later
		 * file read first (standard input keeps the order given). The
		 * handshake's own packets, older than that traffic, start a new
		 * half-flow (rs_flow_stale), which takes the connection then. */
		fl = NULL;
	}
	if (fl)
		rs_pair_attach(a, fl, c);
	else
		g_hash_table_replace(a->pending_pairs, g_memdup2(&k, sizeof k), c);
}

/* ---- CM messages ---------------------------------------------------------------- */

static struct rs_conn *conn_lookup(struct rs_analyzer *a, const struct rs_addr *ad, uint32_t id)
{
	struct rs_hostkey k;
	rs_hostkey_set(&k, ad, id);
	return g_hash_table_lookup(a->conn_by_id, &k);
}

static void conn_index(struct rs_analyzer *a, struct rs_conn *c, const struct rs_addr *ad, uint32_t id)
{
	g_hash_table_replace(a->conn_by_id, rs_hostkey_new(ad, id), c);
}

/* ---- bounded connections (--max-flows) ------------------------------------------ */


/* An exchange still waiting for its REP or DREP: cm_incomplete. */
static bool unfinished(enum rs_conn_state st)
{
	return st == RS_CONN_INCOMPLETE || st == RS_CONN_CLOSING;
}

/* --max-flows N keeps at most N/2 connections, since each sets up two
 * half-flows. With --ladder none are evicted: the diagram is of every
 * connection, and its events are capped on their own (LADDER_MAX). */
static uint64_t conn_cap(const struct rs_analyzer *a)
{
	if (!a->opts.max_flows || a->opts.keep_ladder)
		return 0;
	return a->opts.max_flows / 2 ? a->opts.max_flows / 2 : 1;
}

static gboolean points_at_victim(gpointer key, gpointer value, gpointer victims)
{
	(void)key;
	return g_hash_table_contains(victims, value);
}

static void conn_anomaly_incomplete(struct rs_analyzer *a, struct rs_conn *c);

/*
 * Evict the idlest 1/16 of the connections at once (one sort per cap/16 new
 * connections, as for flows). Each is counted by its state; an unfinished
 * exchange gets its cm_incomplete anomaly now, as at the end of the
 * capture; its anomalies are worded to stand alone; its comm IDs and the
 * half-flows it announced are forgotten, and its half-flows no longer name
 * it (they stay paired with each other).
 */
static void evict_idlest_conns(struct rs_analyzer *a)
{
	guint n = a->conns->len;
	uint64_t cap = conn_cap(a);
	guint batch = cap / 16 ? (guint)(cap / 16) : 1;
	if (batch > n)
		batch = n;
	struct rs_idle *all = g_new(struct rs_idle, n);
	for (guint i = 0; i < n; i++) {
		struct rs_conn *c = a->conns->pdata[i];
		all[i] = (struct rs_idle){ rs_conn_active_ts(c), c->id, c };
	}
	qsort(all, n, sizeof all[0], rs_idle_cmp);
	/* Idlest first: which anomalies stay listed once RS_DETACHED_MAX is
	 * reached does not depend on addresses. */
	GHashTable *victims = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (guint i = 0; i < batch; i++) {
		struct rs_conn *c = all[i].item;
		g_hash_table_add(victims, c);
		enum rs_conn_state st = rs_conn_state_of(c);
		a->conns_evicted_by_state[st]++;
		a->conns_evicted++;
		if (unfinished(st))
			conn_anomaly_incomplete(a, c);
		rs_anomalies_detach_conn(a, c);
	}
	g_free(all);
	g_hash_table_foreach_remove(a->conn_by_id, points_at_victim, victims);
	g_hash_table_foreach_remove(a->pending_pairs, points_at_victim, victims);
	for (guint i = 0; i < a->flows->len; i++) {
		struct rs_flow *fl = a->flows->pdata[i];
		if (fl && fl->conn && g_hash_table_contains(victims, fl->conn))
			fl->conn = NULL;
	}
	/* The survivors, in the order they began. */
	guint kept = 0;
	for (guint i = 0; i < n; i++) {
		struct rs_conn *c = a->conns->pdata[i];
		if (g_hash_table_contains(victims, c))
			conn_free(c);
		else
			a->conns->pdata[kept++] = c;
	}
	g_ptr_array_set_size(a->conns, kept);
	g_hash_table_destroy(victims);
}

static struct rs_conn *conn_new(struct rs_analyzer *a, uint8_t kind, const struct rs_frame *f, bool sender_is_client)
{
	uint64_t cap = conn_cap(a);
	if (cap && a->conns->len >= cap)
		evict_idlest_conns(a);
	struct rs_conn *c = g_new0(struct rs_conn, 1);
	c->id = a->next_conn_id++;
	c->kind = kind;
	c->roce = f->roce;
	c->client = sender_is_client ? f->src : f->dst;
	c->server = sender_is_client ? f->dst : f->src;
	g_ptr_array_add(a->conns, c);
	return c;
}

/* A CM event for whoever listens (opts.cm_event: the live view). */
#define CM_EVENT(a, ...)                                                  \
	do {                                                              \
		if ((a)->opts.cm_event) {                                 \
			const struct rs_cm_event ev_ = { __VA_ARGS__ };   \
			(a)->opts.cm_event((a)->opts.cm_event_ctx, &ev_); \
		}                                                         \
	} while (0)

static void ladder_cm(struct rs_analyzer *a, struct rs_conn *c, const struct rs_frame *f,
		      const struct rs_frame_meta *m)
{
	if (!a->opts.keep_ladder)
		return;
	if (!a->ladder)
		a->ladder = g_array_new(FALSE, TRUE, sizeof(struct rs_ladder_ev));
	if (a->ladder->len >= LADDER_MAX) {
		a->ladder_dropped++;
		return;
	}
	struct rs_ladder_ev ev = { .at = { a->cur_file, m->frame_no }, .ts_ns = m->ts_ns, .conn_id = c->id + 1,
				   .src = f->src, .opcode = f->bth.opcode, .is_cm = true,
				   .cm_attr = f->mad->hdr.attr_id, .psn = f->bth.psn, .destqp = f->bth.destqp };
	switch (ev.cm_attr) {
	case UMAD_CM_ATTR_REQ:
		ev.cm_qpn = f->mad->u.req.local_qpn;
		ev.cm_psn = f->mad->u.req.starting_psn;
		break;
	case UMAD_CM_ATTR_REP:
		ev.cm_qpn = f->mad->u.rep.local_qpn;
		ev.cm_psn = f->mad->u.rep.starting_psn;
		break;
	case UMAD_CM_ATTR_REJ:
		ev.cm_reason = f->mad->u.rej.reason;
		break;
	case UMAD_CM_ATTR_SIDR_REP:
		ev.cm_qpn = f->mad->u.sidr_rep.qpn;
		break;
	default:
		break;
	}
	g_array_append_val(a->ladder, ev);
}

void rs_conn_ladder(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f,
		    const struct rs_frame_meta *m, bool retrans, uint32_t gap)
{
	if (!a->ladder)
		a->ladder = g_array_new(FALSE, TRUE, sizeof(struct rs_ladder_ev));
	if (a->ladder->len >= LADDER_MAX) {
		a->ladder_dropped++;
		return;
	}
	struct rs_ladder_ev ev = { .at = { a->cur_file, m->frame_no }, .ts_ns = m->ts_ns, .flow_id = fl->id,
				   .src = f->src, .opcode = f->bth.opcode, .psn = f->bth.psn, .len = f->payload_len,
				   .destqp = f->bth.destqp, .retrans = retrans, .ackreq = f->bth.ackreq,
				   .gap = gap };
	if (f->ext & RS_EXT_AETH) {
		ev.has_aeth = true;
		ev.syndrome = f->aeth.syndrome;
		ev.msn = f->aeth.msn;
	}
	if (f->ext & RS_EXT_RETH)
		ev.len = f->reth.dmalen > ev.len && rs_opinfo(f->bth.opcode)->kind == RS_KIND_READ_REQ ? f->reth.dmalen : ev.len;
	g_array_append_val(a->ladder, ev);
}

static void count(struct rs_analyzer *a, struct rs_conn *c, const struct rs_frame *f, const struct rs_fref *at,
		  uint64_t ts)
{
	uint16_t attr = f->mad->hdr.attr_id;
	unsigned i = (unsigned)(attr - UMAD_CM_ATTR_REQ);
	if (i >= G_N_ELEMENTS(c->n))
		return;
	if (c->n[i]++ == 0) {
		c->ts[i] = ts;
		c->at[i] = *at;
	}
	if (ts > c->last_ts)
		c->last_ts = ts;
	/* A retry is the same sender sending the same transaction again after a
	 * timeout (IBA 12.9.2). Both sides sending a DREQ at once, each with its
	 * own transaction, is not one. */
	unsigned dir = rs_addr_equal(&f->src, &c->client) ? 0 : 1;
	if (c->n_dir[i][dir]++ == 0) {
		c->tid_dir[i][dir] = f->mad->hdr.tid;
		if (attr == UMAD_CM_ATTR_DREQ)
			c->dreq_ts[dir] = ts;
		else if (attr == UMAD_CM_ATTR_DREP)
			c->drep_ts[dir] = ts;
	}
	else if (c->tid_dir[i][dir] == f->mad->hdr.tid && attr != UMAD_CM_ATTR_MRA)
		rs_anomaly(a, RS_AN_CM_RETRY, attr, c, at, 1);
}

/* Find the exchange a message belongs to, from either side's comm ID. */
static struct rs_conn *find_either(struct rs_analyzer *a, const struct rs_frame *f, uint32_t local, uint32_t remote)
{
	struct rs_conn *c = conn_lookup(a, &f->src, local);
	if (!c && remote)
		c = conn_lookup(a, &f->dst, remote);
	return c;
}

static struct rs_conn *cm_req(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m,
			      const struct rs_fref *at)
{
	const struct rs_mad *mad = f->mad;
	const uint16_t attr = mad->hdr.attr_id;
	struct rs_conn *c;
	const struct rs_cm_req *r = &mad->u.req;
	if (!(mad->fields & RS_CMF_HEAD))
		return NULL;
	c = conn_lookup(a, &f->src, r->local_comm_id);
	if (!c || c->kind != RS_CONN_RC || rs_conn_over(c, m->ts_ns)) {
		c = conn_new(a, RS_CONN_RC, f, true);
		c->client_comm_id = r->local_comm_id;
		c->tid = mad->hdr.tid;
		conn_index(a, c, &c->client, c->client_comm_id);
	}
	if ((mad->fields & RS_CMF_SERVICE_ID))
		c->service_id = r->service_id;
	if ((mad->fields & RS_CMF_LOCAL_QPN))
		c->client_qpn = r->local_qpn;
	rs_ulp_assign(a, c);
	if ((mad->fields & RS_CMF_START_PSN)) {
		c->req_psn = r->starting_psn;
		c->have_req_psn = true;
	}
	if ((mad->fields & RS_CMF_TRANSPORT)) {
		c->transport_type = r->transport_service_type;
		c->path_mtu = r->path_mtu;
	}
	if (mad->attr_ok) {
		c->have_req_retry = true;
		c->ack_timeout = r->primary.local_ack_timeout;
		c->retry_count = r->retry_count;
		c->rnr_retry_req = r->rnr_retry_count;
	}
	if (mad->has_cma_hdr) {
		c->have_cma = true;
		c->cma = mad->cma;
	}
	count(a, c, f, at, m->ts_ns);
	if (c->n[0] == 1)
		CM_EVENT(a, .ts_ns = m->ts_ns, .attr = attr, .from = c->client, .to = c->server,
			 .from_qpn = c->client_qpn, .service_id = c->service_id);
	return c;
}

static struct rs_conn *cm_rep(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m,
			      const struct rs_fref *at)
{
	const struct rs_mad *mad = f->mad;
	const uint16_t attr = mad->hdr.attr_id;
	struct rs_conn *c;
	const struct rs_cm_rep *r = &mad->u.rep;
	if (!(mad->fields & RS_CMF_HEAD))
		return NULL;
	c = conn_lookup(a, &f->dst, r->remote_comm_id);
	if (!c) { /* the REQ was not captured */
		c = conn_new(a, RS_CONN_RC, f, false);
		c->client_comm_id = r->remote_comm_id;
		c->tid = mad->hdr.tid;
		conn_index(a, c, &c->client, c->client_comm_id);
	}
	bool first = c->n[UMAD_CM_ATTR_REP - UMAD_CM_ATTR_REQ] == 0;
	c->server_comm_id = r->local_comm_id;
	conn_index(a, c, &c->server, c->server_comm_id);
	if ((mad->fields & RS_CMF_LOCAL_QPN)) {
		c->server_qpn = r->local_qpn;
		rs_ulp_assign(a, c);
	}
	if ((mad->fields & RS_CMF_START_PSN)) {
		c->rep_psn = r->starting_psn;
		c->have_rep_psn = true;
	}
	if (mad->attr_ok) {
		c->have_rep_rnr = true;
		c->rnr_retry_rep = r->rnr_retry_count;
	}
	count(a, c, f, at, m->ts_ns);
	if (first) {
		if (c->server_qpn)
			expect_flow(a, c, true, c->server_qpn);
		if (c->client_qpn)
			expect_flow(a, c, false, c->client_qpn);
		CM_EVENT(a, .ts_ns = m->ts_ns, .attr = attr, .from = c->server, .to = c->client,
			 .from_qpn = c->server_qpn, .to_qpn = c->client_qpn);
	}
	return c;
}

static struct rs_conn *cm_rej(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m,
			      const struct rs_fref *at)
{
	const struct rs_mad *mad = f->mad;
	const uint16_t attr = mad->hdr.attr_id;
	struct rs_conn *c;
	const struct rs_cm_rej *r = &mad->u.rej;
	if (!(mad->fields & RS_CMF_HEAD))
		return NULL;
	c = find_either(a, f, r->local_comm_id, r->remote_comm_id);
	if (!c) {
		/* A REJ of a REQ we did not see: the receiver is the client. */
		c = conn_new(a, RS_CONN_RC, f, r->msg_rejected == 1);
		c->client_comm_id = r->msg_rejected == 1 ? r->local_comm_id : r->remote_comm_id;
		conn_index(a, c, &c->client, c->client_comm_id);
	}
	c->rej_reason = r->reason;
	c->rej_msg = r->msg_rejected;
	c->rej_from_client = rs_addr_equal(&f->src, &c->client);
	count(a, c, f, at, m->ts_ns);
	rs_anomaly(a, RS_AN_CM_REJ, r->reason, c, at, 1);
	CM_EVENT(a, .ts_ns = m->ts_ns, .attr = attr, .from = f->src, .to = f->dst, .code = r->reason);
	return c;
}

static struct rs_conn *cm_ids(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m,
			      const struct rs_fref *at)
{
	const struct rs_mad *mad = f->mad;
	const uint16_t attr = mad->hdr.attr_id;
	struct rs_conn *c;
	uint32_t local = attr == UMAD_CM_ATTR_MRA ? mad->u.mra.local_comm_id : mad->u.ids.local_comm_id;
	uint32_t remote = attr == UMAD_CM_ATTR_MRA ? mad->u.mra.remote_comm_id : mad->u.ids.remote_comm_id;
	if (!(mad->fields & RS_CMF_HEAD))
		return NULL;
	c = find_either(a, f, local, remote);
	if (!c)
		return NULL; /* a message of an exchange we never saw begin */
	bool first = c->n[attr - UMAD_CM_ATTR_REQ] == 0;
	count(a, c, f, at, m->ts_ns);
	/* A REP seen without its REQ leaves the client's QPN unknown; a
	 * DREQ from the server names it (IBA 12.6.9 Remote QPN/EECN). */
	if (attr == UMAD_CM_ATTR_DREQ && !c->client_qpn && mad->u.ids.remote_qpn &&
	    rs_addr_equal(&f->src, &c->server) && c->kind == RS_CONN_RC) {
		c->client_qpn = mad->u.ids.remote_qpn;
		expect_flow(a, c, false, c->client_qpn);
	}
	if (first && (attr == UMAD_CM_ATTR_RTU || attr == UMAD_CM_ATTR_DREQ || attr == UMAD_CM_ATTR_DREP))
		CM_EVENT(a, .ts_ns = m->ts_ns, .attr = attr, .from = f->src, .to = f->dst);
	return c;
}

static struct rs_conn *cm_sidr_req(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m,
				   const struct rs_fref *at)
{
	const struct rs_mad *mad = f->mad;
	const uint16_t attr = mad->hdr.attr_id;
	struct rs_conn *c;
	const struct rs_cm_sidr_req *r = &mad->u.sidr_req;
	if (!(mad->fields & RS_CMF_HEAD))
		return NULL;
	c = conn_lookup(a, &f->src, r->request_id);
	if (!c || c->kind != RS_CONN_SIDR) {
		c = conn_new(a, RS_CONN_SIDR, f, true);
		c->client_comm_id = r->request_id;
		c->tid = mad->hdr.tid;
		c->service_id = r->service_id;
		rs_ulp_assign(a, c);
		conn_index(a, c, &c->client, r->request_id);
	}
	if (mad->has_cma_hdr) {
		c->have_cma = true;
		c->cma = mad->cma;
	}
	count(a, c, f, at, m->ts_ns);
	if (c->n[attr - UMAD_CM_ATTR_REQ] == 1)
		CM_EVENT(a, .ts_ns = m->ts_ns, .attr = attr, .from = c->client, .to = c->server,
			 .service_id = c->service_id);
	return c;
}

static struct rs_conn *cm_sidr_rep(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m,
				   const struct rs_fref *at)
{
	const struct rs_mad *mad = f->mad;
	const uint16_t attr = mad->hdr.attr_id;
	struct rs_conn *c;
	const struct rs_cm_sidr_rep *r = &mad->u.sidr_rep;
	if (!(mad->fields & RS_CMF_HEAD))
		return NULL;
	c = conn_lookup(a, &f->dst, r->request_id);
	if (!c || c->kind != RS_CONN_SIDR) {
		c = conn_new(a, RS_CONN_SIDR, f, false);
		c->client_comm_id = r->request_id;
		c->service_id = r->service_id;
		rs_ulp_assign(a, c);
		conn_index(a, c, &c->client, r->request_id);
	}
	bool first = c->n[attr - UMAD_CM_ATTR_REQ] == 0;
	c->sidr_status = r->status;
	c->server_qpn = r->qpn;
	c->qkey = r->qkey;
	count(a, c, f, at, m->ts_ns);
	if (first) {
		if (r->status == 0)
			expect_flow(a, c, true, r->qpn);
		CM_EVENT(a, .ts_ns = m->ts_ns, .attr = attr, .from = f->src, .to = f->dst, .code = r->status,
			 .qpn = r->qpn, .qkey = r->qkey);
	}
	return c;
}

void rs_cm_frame(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m)
{
	if (!f->mad->is_cm)
		return;
	struct rs_fref at = { a->cur_file, m->frame_no };
	struct rs_conn *c;
	switch (f->mad->hdr.attr_id) {
	case UMAD_CM_ATTR_REQ:
		c = cm_req(a, f, m, &at);
		break;
	case UMAD_CM_ATTR_REP:
		c = cm_rep(a, f, m, &at);
		break;
	case UMAD_CM_ATTR_REJ:
		c = cm_rej(a, f, m, &at);
		break;
	case UMAD_CM_ATTR_MRA:
	case UMAD_CM_ATTR_RTU:
	case UMAD_CM_ATTR_DREQ:
	case UMAD_CM_ATTR_DREP:
	case UMAD_CM_ATTR_LAP:
	case UMAD_CM_ATTR_APR:
		c = cm_ids(a, f, m, &at);
		break;
	case UMAD_CM_ATTR_SIDR_REQ:
		c = cm_sidr_req(a, f, m, &at);
		break;
	case UMAD_CM_ATTR_SIDR_REP:
		c = cm_sidr_rep(a, f, m, &at);
		break;
	default:
		return;
	}
	if (c && a->v) {
		a->v->qp_known = true;
		a->v->qp[0] = c->client_qpn;
		a->v->qp[1] = c->server_qpn;
		a->v->conn = c->id + 1;
	}
	if (c)
		ladder_cm(a, c, f, m);
}

/* A message one side sent in answer to one the capture lacks (an RTU
 * answers a REP, a REP a REQ, a DREP a DREQ): the capture misses that
 * side's messages (one direction captured, or dropped), so a reply it
 * lacks is no sign the exchange failed. */
static bool answer_without_message(const struct rs_conn *c)
{
#define N(attr) c->n[UMAD_CM_ATTR_##attr - UMAD_CM_ATTR_REQ]
	return (N(RTU) && !N(REP)) || (N(REP) && !N(REQ)) || (N(DREP) && !N(DREQ));
#undef N
}

/* An exchange that never finished, at the end of the capture or when it is
 * evicted: pointing at the last message of it that was seen. */
static void conn_anomaly_incomplete(struct rs_analyzer *a, struct rs_conn *c)
{
	if (answer_without_message(c))
		return;
	struct rs_fref at = { 0, 0 };
	for (unsigned k = 0; k < G_N_ELEMENTS(c->n); k++)
		if (c->n[k] && (c->at[k].file > at.file || (c->at[k].file == at.file && c->at[k].frame > at.frame)))
			at = c->at[k];
	rs_anomaly(a, RS_AN_CM_INCOMPLETE, 0, c, &at, 1);
}

void rs_cm_finish(struct rs_analyzer *a)
{
	for (guint i = 0; i < a->conns->len; i++) {
		struct rs_conn *c = a->conns->pdata[i];
		if (unfinished(rs_conn_state_of(c)))
			conn_anomaly_incomplete(a, c);
	}
}
