/*
 * merge.c — rs_analyzer_merge(): fold the analysis of the next file into the
 * analysis of the files before it, for `rocestat -j N` (each file analysed
 * in its own thread, the results merged in file order).
 *
 * Exact, for files that are independent captures (no half-flow, CM exchange
 * or host pair in two files), given the same options and t0 (intervals line
 * up): the report equals the one of a sequential run over the same files.
 * Capture counters, files (src's file indexes shift by dst's file count),
 * flows and their ids, connections and their ids, anomalies and their
 * order, ladder events, plot series all come out as they would.
 *
 * Approximate, when the same half-flow, connection or host pair appears in
 * more than one file (each file was analysed without the others' state):
 *  - PSN continuity across the file boundary is not checked: the counters of
 *    both sides are added, a gap or go-back-N that spans the boundary is not
 *    seen, and an episode open at the end of a file was closed there;
 *    an unfinished multi-packet message at the end of a file counts as
 *    incomplete there even if the next file finishes it.
 *  - Latency: a request in one file answered in the next is not timed;
 *    reservoirs past RS_LAT_EXACT samples are merged by replaying the kept
 *    samples (see rs_lat_merge).
 *  - Duplicate ACKs and ACKed-packet counts across the boundary; the pairing
 *    of half-flows is kept from whichever file paired them first.
 *  - A CM exchange split across files is joined by (client address, comm ID);
 *    its "incomplete" anomaly is recomputed on the merged state.
 *  - The path MTU a flow uses before it has learned its own (to count the
 *    PSNs of a READ) comes from its peer or its CM REQ in its own file only.
 *  - Files not in time order: a sequential run counts a frame older than
 *    the current interval in that interval; here each file has its own.
 *  - RoCE v1/v2 mixing between two hosts seen only across files is not
 *    reported; the timeline interval that holds both the end of one file and
 *    the start of the next gets a row per file (and the peak rate of that
 *    interval is the larger of the two); a ladder may exceed its cap.
 *  - --max-flows caps each file's analysis; the merged result is not cut
 *    down again (with N files up to N times the cap of half-flows and of
 *    connections), and which ones were evicted depends on the file they
 *    were in. The evicted counts add up.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/internal.h"

struct merge {
	struct rs_analyzer *dst, *src;
	uint32_t file_shift;
	GHashTable *flow_map;    /* src flow -> dst flow */
	GHashTable *conn_map;    /* src conn -> dst conn */
	GHashTable *version_map; /* src rs_version_seen -> dst's */
	GPtrArray *moved_flows;  /* src flows now owned by dst */
	GHashTable *src_ids;     /* src flow -> its id in src + 1 (ids change when moved) */
	GHashTable *src_conn_ids;/* src conn -> its id in src + 1 */
};

static void fref_shift(const struct merge *mg, struct rs_fref *r)
{
	r->file += mg->file_shift;
}

static void *map(GHashTable *m, const void *p)
{
	void *q = g_hash_table_lookup(m, p);
	return q ? q : (void *)p;
}

/* ---- capture-wide --------------------------------------------------------- */

static void merge_capture(struct merge *mg)
{
	struct rs_analyzer *d = mg->dst, *s = mg->src;
	for (guint i = 0; i < s->files->len; i++)
		g_ptr_array_add(d->files, s->files->pdata[i]);
	g_ptr_array_set_size(s->files, 0);
	if (d->files->len)
		d->cur_file = d->files->len - 1;

	d->frames += s->frames;
	d->bytes += s->bytes;
	if (s->have_ts) {
		if (!d->have_ts || s->first_ts < d->first_ts)
			d->first_ts = s->first_ts;
		if (!d->have_ts || s->last_ts > d->last_ts)
			d->last_ts = s->last_ts;
		d->have_ts = true;
	}
	for (int i = 0; i < 4; i++)
		d->roce[i] += s->roce[i];
	d->ipv4 += s->ipv4;
	d->ipv6 += s->ipv6;
	for (int i = 0; i < RS_OUTCOME__COUNT; i++)
		d->outcome[i] += s->outcome[i];
	for (int i = 0; i < 256; i++)
		d->opcodes[i] += s->opcodes[i];
	for (int i = 0; i < 3; i++)
		d->icrc[i] += s->icrc[i];
	d->vcrc_bad += s->vcrc_bad;
	if (!d->icrc_port_rewritten)
		d->icrc_port_example = s->icrc_port_example;
	d->icrc_port_rewritten += s->icrc_port_rewritten;
	d->ecn_ce += s->ecn_ce; /* analyzers here, not flows */
	d->cnps += s->cnps;
	if (s->pmtu > d->pmtu)
		d->pmtu = s->pmtu;
	d->psns.range += s->psns.range;
	d->psns.missing += s->psns.missing;
	d->psns.fills += s->psns.fills;
	d->psns.ooo += s->psns.ooo;
	d->psns.uncaptured += s->psns.uncaptured;
	d->psns.unseen_lost += s->psns.unseen_lost;
	d->psns.naked_fills += s->psns.naked_fills;
	if (!d->have_t0 && s->have_t0) {
		d->t0 = s->t0;
		d->have_t0 = true;
	}
	if (s->cur_interval > d->cur_interval)
		d->cur_interval = s->cur_interval;
	d->intervals_seen += s->intervals_seen;

	d->evicted += s->evicted;
	d->conns_evicted += s->conns_evicted;
	for (unsigned k = 0; k < RS_CONN_STATES; k++)
		d->conns_evicted_by_state[k] += s->conns_evicted_by_state[k];
	rs_flow_counts_add(&d->evicted_sum, &s->evicted_sum);
}

/* ---- flows -------------------------------------------------------------------- */

static gint by_id(gconstpointer x, gconstpointer y)
{
	const struct rs_flow *a = *(const struct rs_flow *const *)x, *b = *(const struct rs_flow *const *)y;
	return a->id < b->id ? -1 : a->id > b->id;
}

static void psn_add(struct rs_psn *d, struct rs_psn *s)
{
	if (!s->started)
		return;
	if (!d->started) {
		d->first = s->first;
		d->started = true;
	}
	d->next = s->next;
	d->packets += s->packets; /* the loss counters: rs_flow_counts_add */
}

static void rkeys_add(struct merge *mg, struct rs_flow *d, const struct rs_flow *s)
{
	if (!s->rkeys)
		return;
	if (!d->rkeys)
		d->rkeys = g_new0(struct rs_rkeys, 1);
	struct rs_rkeys *r = d->rkeys;
	r->more += s->rkeys->more;
	for (uint32_t i = 0; i < s->rkeys->n; i++) {
		const struct rs_rkey_use *x = &rs_rkey_uses(s->rkeys)[i];
		struct rs_rkey_use *u = NULL;
		for (uint32_t j = 0; j < r->n; j++)
			if (rs_rkey_uses(r)[j].rkey == x->rkey)
				u = &rs_rkey_uses(r)[j];
		if (!u) {
			if (r->n == RS_MAX_RKEYS) {
				r->more += x->count;
				continue;
			}
			u = rs_rkey_new(r);
			*u = *x;
			fref_shift(mg, &u->first);
			continue;
		}
		u->ops |= x->ops;
		if (x->va_lo < u->va_lo)
			u->va_lo = x->va_lo;
		if (x->va_hi > u->va_hi)
			u->va_hi = x->va_hi;
		u->bytes += x->bytes;
		u->count += x->count;
	}
}

/* The same half-flow in both: add src's counters to dst's. */
static void flow_add(struct merge *mg, struct rs_flow *d, struct rs_flow *s)
{
	bool ud_before = d->transport == RS_TR_UD && d->packets; /* d had UD packets of its own */
	rs_flow_counts_add(d, s);
	/* As a sequential run: the first frame is dst's, the last src's. */
	d->last = s->last;
	fref_shift(mg, &d->last);
	d->last_ts = s->last_ts;
	if (s->pmtu > d->pmtu)
		d->pmtu = s->pmtu;
	d->seen_first |= s->seen_first;
	psn_add(&d->req, &s->req);
	psn_add(&d->rsp, &s->rsp);
	for (int k = 0; k < 2; k++)
		if (s->last_kind[k])
			d->last_kind[k] = s->last_kind[k];
	if (s->have_ack_psn) {
		d->ack_psn = s->ack_psn;
		d->have_ack_psn = true;
	}
	d->acks += s->acks;
	d->acked_pkts += s->acked_pkts;
	d->read_resp_payload += s->read_resp_payload;
	for (int k = 0; k < 32; k++)
		rs_flow_ophist_add(d, (unsigned)k, rs_flow_ophist(s, (unsigned)k));
	if (s->rare) {
		struct rs_flow_rare *x = rs_rare_w(d);
		const struct rs_flow_rare *y = s->rare;
		if (s->transport == RS_TR_UD && s->packets) {
			if (!ud_before) {
				x->deth_qkey = y->deth_qkey;
				x->deth_srcqp = y->deth_srcqp;
			}
			x->many_qkey |= y->many_qkey || y->deth_qkey != x->deth_qkey;
			x->many_srcqp |= y->many_srcqp || y->deth_srcqp != x->deth_srcqp;
		}
	}
	if (s->peak_bytes > d->peak_bytes)
		d->peak_bytes = s->peak_bytes;
	if (s->lat) {
		if (!d->lat)
			d->lat = rs_latency_new();
		for (int k = 0; k < RS_LAT__COUNT; k++) {
			const struct rs_latvec *sv = rs_latvec_of(s->lat, (enum rs_lat_kind)k);
			if (sv)
				rs_lat_merge(rs_latvec_w(d->lat, (enum rs_lat_kind)k), sv);
		}
		d->lat->overflow += s->lat->overflow;
		d->lat->clock_backwards += s->lat->clock_backwards;
	}
	rkeys_add(mg, d, s);
	const struct rs_series *ser = rs_series_of(s);
	if (ser)
		for (uint32_t i = 0; i < ser->len; i++)
			rs_series_add(d, ser->interval[i] << ser->shift, ser->bytes[i]);
	if (!d->peer && s->peer)
		d->pair_method = s->pair_method; /* the link itself is set in relink() */
	d->infer_tries = (uint8_t)MIN(255u, (unsigned)d->infer_tries + s->infer_tries);
}

/* Give a src flow to dst: a new id and slot there, the file indexes shifted.
 * A retired flow (traffic of an earlier connection on the same QPN) stays
 * out of dst's table, as it was out of src's. */
static void flow_move(struct merge *mg, struct rs_flow *fl)
{
	struct rs_analyzer *d = mg->dst;
	fl->id = d->next_flow_id++;
	if (d->free_slots->len) {
		fl->slot = g_array_index(d->free_slots, uint32_t, d->free_slots->len - 1);
		g_array_set_size(d->free_slots, d->free_slots->len - 1);
		g_ptr_array_index(d->flows, fl->slot) = fl;
	} else {
		fl->slot = d->flows->len;
		g_ptr_array_add(d->flows, fl);
	}
	d->nflows++;
	if (!fl->retired)
		rs_flow_table_add(d, fl);
	fref_shift(mg, &fl->first);
	fref_shift(mg, &fl->last);
	if (fl->rkeys)
		for (uint32_t i = 0; i < fl->rkeys->n; i++)
			fref_shift(mg, &rs_rkey_uses(fl->rkeys)[i].first);
	fl->tl_slot = 0;
}

static void merge_flows(struct merge *mg)
{
	struct rs_analyzer *d = mg->dst, *s = mg->src;
	GPtrArray *order = g_ptr_array_new();
	for (guint i = 0; i < s->flows->len; i++)
		if (s->flows->pdata[i])
			g_ptr_array_add(order, s->flows->pdata[i]);
	g_ptr_array_sort(order, by_id); /* dst ids in src's creation order */
	for (guint i = 0; i < order->len; i++) {
		struct rs_flow *sf = order->pdata[i];
		struct rs_flow *df = rs_flow_find(d, &sf->key);
		/* A connection set up in src reusing the key of a dst flow: as a
		 * sequential run would at its REP, dst's flow is retired and src's
		 * starts afresh (pair.c rs_pair_expect). */
		bool starts_new = sf->conn && sf->first_ts >= rs_conn_begun(sf->conn);
		/* ... or the QPN was given to a QP of another transport, or src's
		 * first packet cannot continue dst's traffic (flow_get). */
		if (df && df->transport != sf->transport && df->transport != RS_TR_CNP && sf->transport != RS_TR_CNP)
			starts_new = true;
		if (df && rs_flow_stale(df, sf->first_ts))
			starts_new = true;
		if (df && starts_new) {
			rs_flow_retire(d, df);
			df = NULL;
		}
		if (df) {
			flow_add(mg, df, sf);
			g_hash_table_insert(mg->flow_map, sf, df);
			if (sf->retired) /* src replaced this traffic with a newer connection's */
				rs_flow_retire(d, df);
		} else {
			g_ptr_array_index(s->flows, sf->slot) = NULL; /* dst owns it now */
			s->nflows--;
			flow_move(mg, sf);
			g_ptr_array_add(mg->moved_flows, sf);
		}
	}
	s->last_flow = NULL;
	memset(s->pf, 0, sizeof s->pf);
	/* Links between flows, now that every src flow has its dst flow. */
	for (guint i = 0; i < order->len; i++) {
		struct rs_flow *sf = order->pdata[i];
		struct rs_flow *df = map(mg->flow_map, sf);
		if (sf->peer) {
			struct rs_flow *peer = map(mg->flow_map, sf->peer);
			if (df == sf || !df->peer) {
				df->peer = peer;
				if (!peer->peer || peer->peer == sf)
					peer->peer = df;
			}
		}
	}
	g_ptr_array_free(order, TRUE);
	d->last_flow = NULL;
}

/* ---- CM connections ----------------------------------------------------------- */

/* The same exchange in both (split across the files): add src's messages. */
static void conn_add(struct merge *mg, struct rs_conn *d, const struct rs_conn *s)
{
	for (unsigned k = 0; k < G_N_ELEMENTS(d->n); k++) {
		if (!s->n[k])
			continue;
		if (!d->n[k]) {
			d->ts[k] = s->ts[k];
			d->at[k] = s->at[k];
			fref_shift(mg, &d->at[k]);
		}
		d->n[k] += s->n[k];
	}
	if (!d->server_comm_id)
		d->server_comm_id = s->server_comm_id;
	if (!d->service_id)
		d->service_id = s->service_id;
	if (!d->client_qpn)
		d->client_qpn = s->client_qpn;
	if (!d->server_qpn)
		d->server_qpn = s->server_qpn;
	if (!d->have_req_psn && s->have_req_psn) {
		d->req_psn = s->req_psn;
		d->have_req_psn = true;
	}
	if (!d->have_rep_psn && s->have_rep_psn) {
		d->rep_psn = s->rep_psn;
		d->have_rep_psn = true;
	}
	if (!d->have_cma && s->have_cma) {
		d->cma = s->cma;
		d->have_cma = true;
	}
	if (s->n[UMAD_CM_ATTR_REJ - UMAD_CM_ATTR_REQ]) {
		d->rej_reason = s->rej_reason;
		d->rej_msg = s->rej_msg;
		d->rej_from_client = s->rej_from_client;
	}
	if (s->n[UMAD_CM_ATTR_SIDR_REP - UMAD_CM_ATTR_REQ]) {
		d->sidr_status = s->sidr_status;
		d->qkey = s->qkey;
	}
}

static void merge_conns(struct merge *mg)
{
	struct rs_analyzer *d = mg->dst, *s = mg->src;
	for (guint i = 0; i < s->conns->len; i++) {
		struct rs_conn *sc = s->conns->pdata[i];
		struct rs_hostkey k;
		rs_hostkey_set(&k, &sc->client, sc->client_comm_id);
		struct rs_conn *dc = g_hash_table_lookup(d->conn_by_id, &k);
		if (dc && dc->kind == sc->kind && rs_addr_equal(&dc->client, &sc->client)) {
			conn_add(mg, dc, sc);
			g_hash_table_insert(mg->conn_map, sc, dc);
		} else {
			sc->id = d->next_conn_id++;
			for (unsigned n = 0; n < G_N_ELEMENTS(sc->at); n++)
				if (sc->n[n])
					fref_shift(mg, &sc->at[n]);
			g_ptr_array_add(d->conns, sc);
			s->conns->pdata[i] = NULL; /* dst owns it now */
		}
	}
	/* src's index entries, pointing at dst's conns (later files win, as
	 * conn_index() does in a sequential run). */
	GHashTableIter it;
	gpointer key, val;
	g_hash_table_iter_init(&it, s->conn_by_id);
	while (g_hash_table_iter_next(&it, &key, &val))
		g_hash_table_replace(d->conn_by_id, g_memdup2(key, sizeof(struct rs_hostkey)), map(mg->conn_map, val));
	/* Flows and conns point at each other. */
	for (guint i = 0; i < d->conns->len; i++) {
		struct rs_conn *c = d->conns->pdata[i];
		if (c->c2s)
			c->c2s = map(mg->flow_map, c->c2s);
		if (c->s2c)
			c->s2c = map(mg->flow_map, c->s2c);
	}
	for (guint i = 0; i < s->conns->len; i++) {
		struct rs_conn *sc = s->conns->pdata[i];
		if (!sc)
			continue;
		struct rs_conn *dc = map(mg->conn_map, sc);
		if (!dc->c2s && sc->c2s)
			dc->c2s = map(mg->flow_map, sc->c2s);
		if (!dc->s2c && sc->s2c)
			dc->s2c = map(mg->flow_map, sc->s2c);
	}
	for (guint i = 0; i < d->flows->len; i++) {
		struct rs_flow *fl = d->flows->pdata[i];
		if (fl && fl->conn)
			fl->conn = map(mg->conn_map, fl->conn);
	}
	/* Half-flows a CM exchange announced but src never saw. */
	g_hash_table_iter_init(&it, s->pending_pairs);
	while (g_hash_table_iter_next(&it, &key, &val))
		if (!rs_flow_find(d, key))
			g_hash_table_replace(d->pending_pairs, g_memdup2(key, sizeof(struct rs_flowkey)),
					     map(mg->conn_map, val));
	/* Flows that came over join dst's pairing index (and a connection
	 * announced in an earlier file, as they would have when first seen). */
	for (guint i = 0; i < mg->moved_flows->len; i++)
		rs_pair_adopt_flow(d, mg->moved_flows->pdata[i]);
	/* Their anomaly lists serve eviction while frames come in, which is
	 * over: merge_anomalies() frees some of what they point to. */
	for (guint i = 0; i < d->conns->len; i++) {
		struct rs_conn *c = d->conns->pdata[i];
		if (c->anoms) {
			g_ptr_array_free(c->anoms, TRUE);
			c->anoms = NULL;
		}
	}
	/* Drop the slots of the conns dst took; those merged into dst's stay
	 * with src and are freed with it. */
	for (guint i = 0; i < s->conns->len; i++)
		if (!s->conns->pdata[i])
			g_ptr_array_remove_index(s->conns, i--);
}

/* ---- hosts: invalidated rkeys, RoCE versions ------------------------------------ */

static void merge_hosts(struct merge *mg)
{
	struct rs_analyzer *d = mg->dst, *s = mg->src;
	GHashTableIter it;
	gpointer key, val;
	if (s->invalidated) {
		if (!d->invalidated)
			d->invalidated = g_hash_table_new_full(rs_hostkey_hash, rs_hostkey_equal, g_free, g_free);
		g_hash_table_iter_init(&it, s->invalidated);
		while (g_hash_table_iter_next(&it, &key, &val)) {
			struct rs_fref *at = g_memdup2(val, sizeof(struct rs_fref));
			fref_shift(mg, at);
			g_hash_table_replace(d->invalidated, g_memdup2(key, sizeof(struct rs_hostkey)), at);
		}
	}
	g_hash_table_iter_init(&it, s->versions);
	while (g_hash_table_iter_next(&it, &key, &val)) {
		const struct rs_version_seen *sv = val;
		struct rs_version_seen *dv = g_hash_table_lookup(d->versions, key);
		if (!dv) {
			dv = g_new0(struct rs_version_seen, 1);
			g_hash_table_insert(d->versions, g_memdup2(key, sizeof(struct rs_hostpair)), dv);
		}
		for (int b = 0; b < 2; b++)
			if ((sv->mask & (1u << b)) && !(dv->mask & (1u << b))) {
				dv->at[b] = sv->at[b];
				fref_shift(mg, &dv->at[b]);
			}
		dv->mask |= sv->mask;
		g_hash_table_insert(mg->version_map, (gpointer)sv, dv);
	}
}

/* ---- anomalies and ladder -------------------------------------------------------- */

/* Sequence numbers, so that reports list them as a sequential run would:
 * those of dst's frames, of src's frames, of dst's finish, of src's finish. */
static uint32_t new_seq(const struct merge *mg, const struct rs_anomaly *an, bool from_src)
{
	uint32_t dp = mg->dst->finish_seq, dt = mg->dst->next_anomaly_seq, sp = mg->src->finish_seq;
	if (!from_src)
		return an->seq < dp ? an->seq : an->seq + sp;
	return an->seq < sp ? dp + an->seq : dt + an->seq;
}

static void merge_anomalies(struct merge *mg)
{
	struct rs_analyzer *d = mg->dst, *s = mg->src;
	GHashTableIter it;
	gpointer key;
	/* Renumber dst's, then bring src's over (re-keyed to dst's subjects). */
	GPtrArray *all = g_ptr_array_new();
	g_hash_table_iter_init(&it, d->anomalies);
	while (g_hash_table_iter_next(&it, &key, NULL))
		g_ptr_array_add(all, key);
	for (guint i = 0; i < all->len; i++) {
		struct rs_anomaly *an = all->pdata[i];
		an->seq = new_seq(mg, an, false);
	}
	g_ptr_array_set_size(all, 0);
	g_hash_table_iter_init(&it, s->anomalies);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		g_ptr_array_add(all, key);
		g_hash_table_iter_steal(&it);
	}
	for (guint i = 0; i < all->len; i++) {
		struct rs_anomaly *an = all->pdata[i];
		an->seq = new_seq(mg, an, true);
		for (uint32_t k = 0; k < an->nframes; k++)
			fref_shift(mg, &an->frames[k]);
		if (an->type == RS_AN_FILE_ERROR || an->type == RS_AN_FILE_WARNING)
			an->code += mg->file_shift;
		if (an->subject == &s->detached) /* the sums over evicted half-flows */
			an->subject = &d->detached;
		else if (an->subject != an->ghost) /* an evicted subject's ghost moves with its anomaly */
			an->subject = map(mg->flow_map, map(mg->conn_map, map(mg->version_map, an->subject)));
		struct rs_anomaly *old = g_hash_table_lookup(d->anomalies, an);
		if (!old) {
			g_hash_table_add(d->anomalies, an);
			continue;
		}
		old->count += an->count;
		for (uint32_t k = 0; k < an->nframes && old->nframes < RS_SAMPLE_FRAMES; k++)
			old->frames[old->nframes++] = an->frames[k];
		if (!old->detail && an->detail) {
			old->detail = an->detail;
			an->detail = NULL;
		}
		if (!old->ghost && an->ghost) {
			old->ghost = an->ghost;
			an->ghost = NULL;
		}
		rs_anomaly_free(an);
	}
	g_ptr_array_free(all, TRUE);
	d->finish_seq += s->finish_seq;
	d->next_anomaly_seq += s->next_anomaly_seq;

	/* "Incomplete handshake" depends on every message of the exchange:
	 * judge it again on the merged connections. */
	GPtrArray *stale = g_ptr_array_new();
	g_hash_table_iter_init(&it, d->anomalies);
	while (g_hash_table_iter_next(&it, &key, NULL))
		if (((struct rs_anomaly *)key)->type == RS_AN_CM_INCOMPLETE)
			g_ptr_array_add(stale, key);
	for (guint i = 0; i < stale->len; i++)
		g_hash_table_remove(d->anomalies, stale->pdata[i]);
	g_ptr_array_free(stale, TRUE);
	rs_cm_finish(d);
}

static void merge_ladder(struct merge *mg)
{
	struct rs_analyzer *d = mg->dst, *s = mg->src;
	d->ladder_dropped += s->ladder_dropped;
	if (!s->ladder || !s->ladder->len)
		return;
	if (!d->ladder)
		d->ladder = g_array_new(FALSE, TRUE, sizeof(struct rs_ladder_ev));
	/* flow ids: src's id -> the id of the dst flow it became */
	GHashTable *ids = g_hash_table_new(g_direct_hash, g_direct_equal);
	GHashTableIter it;
	gpointer sf, df;
	g_hash_table_iter_init(&it, mg->flow_map);
	while (g_hash_table_iter_next(&it, &sf, &df))
		g_hash_table_insert(ids, GUINT_TO_POINTER(((struct rs_flow *)sf)->id + 1),
				    GUINT_TO_POINTER(((struct rs_flow *)df)->id + 1));
	for (guint i = 0; i < mg->moved_flows->len; i++) {
		struct rs_flow *fl = mg->moved_flows->pdata[i];
		g_hash_table_insert(ids, g_hash_table_lookup(mg->src_ids, fl), GUINT_TO_POINTER(fl->id + 1));
	}
	/* conn ids in ladder events are id + 1 already */
	GHashTable *cids = g_hash_table_new(g_direct_hash, g_direct_equal);
	g_hash_table_iter_init(&it, mg->conn_map);
	while (g_hash_table_iter_next(&it, &sf, &df))
		g_hash_table_insert(cids, g_hash_table_lookup(mg->src_conn_ids, sf),
				    GUINT_TO_POINTER(((struct rs_conn *)df)->id + 1));
	for (guint i = 0; i < d->conns->len; i++) {
		struct rs_conn *c = d->conns->pdata[i];
		gpointer old = g_hash_table_lookup(mg->src_conn_ids, c);
		if (old)
			g_hash_table_insert(cids, old, GUINT_TO_POINTER(c->id + 1));
	}
	for (guint i = 0; i < s->ladder->len; i++) {
		struct rs_ladder_ev ev = g_array_index(s->ladder, struct rs_ladder_ev, i);
		fref_shift(mg, &ev.at);
		if (ev.is_cm) {
			gpointer c = g_hash_table_lookup(cids, GUINT_TO_POINTER(ev.conn_id));
			if (c)
				ev.conn_id = GPOINTER_TO_UINT(c);
		} else {
			gpointer f = g_hash_table_lookup(ids, GUINT_TO_POINTER(ev.flow_id + 1));
			if (f)
				ev.flow_id = GPOINTER_TO_UINT(f) - 1;
		}
		g_array_append_val(d->ladder, ev);
	}
	g_hash_table_destroy(ids);
	g_hash_table_destroy(cids);
}

/* ---- the entry point --------------------------------------------------------------- */

void rs_analyzer_merge(struct rs_analyzer *dst, struct rs_analyzer *src)
{
	rs_analyzer_finish(dst);
	rs_analyzer_finish(src);
	struct merge mg = {
		.dst = dst,
		.src = src,
		.file_shift = dst->files->len,
		.flow_map = g_hash_table_new(g_direct_hash, g_direct_equal),
		.conn_map = g_hash_table_new(g_direct_hash, g_direct_equal),
		.version_map = g_hash_table_new(g_direct_hash, g_direct_equal),
		.moved_flows = g_ptr_array_new(),
		.src_ids = g_hash_table_new(g_direct_hash, g_direct_equal),
		.src_conn_ids = g_hash_table_new(g_direct_hash, g_direct_equal),
	};
	for (guint i = 0; i < src->flows->len; i++) {
		struct rs_flow *fl = src->flows->pdata[i];
		if (fl)
			g_hash_table_insert(mg.src_ids, fl, GUINT_TO_POINTER(fl->id + 1));
	}
	for (guint i = 0; i < src->conns->len; i++) {
		struct rs_conn *c = src->conns->pdata[i];
		g_hash_table_insert(mg.src_conn_ids, c, GUINT_TO_POINTER(c->id + 1));
	}
	merge_capture(&mg);
	merge_flows(&mg);
	merge_conns(&mg);
	merge_hosts(&mg);
	merge_anomalies(&mg);
	merge_ladder(&mg);
	rs_flow_slabs_adopt(dst, src); /* the moved flows live in src's slabs */
	g_hash_table_destroy(mg.flow_map);
	g_hash_table_destroy(mg.conn_map);
	g_hash_table_destroy(mg.version_map);
	g_hash_table_destroy(mg.src_ids);
	g_hash_table_destroy(mg.src_conn_ids);
	g_ptr_array_free(mg.moved_flows, TRUE);
}
