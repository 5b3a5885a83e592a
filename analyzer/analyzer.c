/*
 * analyzer.c — the per-frame entry point and the capture-wide counters:
 * a frame is counted, its half-flow found (flowtable.c), and it is handed
 * to the part that tracks its kind (psn.c, message.c, cmtrack.c, ...).
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/transport/transport.h"
#include "proto/proto.h"


struct rs_analyzer *rs_analyzer_new(const struct rs_analyzer_opts *opts)
{
	struct rs_analyzer *a = g_new0(struct rs_analyzer, 1);
	a->opts = *opts;
	if (!a->opts.interval_ns)
		a->opts.interval_ns = 10000000;
	a->files = g_ptr_array_new();
	rs_flows_init(a);
	rs_cm_init(a);
	rs_ulp_init(a);
	a->tl_rows = g_array_new(FALSE, FALSE, sizeof(struct rs_tl_row));
	/* Without them the peak rate needs only the flow's bytes in its latest
	 * interval: a row per active flow would cost 56 bytes each (a million
	 * flows active at once: tens of megabytes). */
	a->tl_rows_on = opts->interval || opts->keep_plot;
	a->anomalies = g_hash_table_new_full(rs_anomaly_hash, rs_anomaly_equal, NULL, rs_anomaly_free);
	rs_pair_init(a);
	rs_sniffer_init(a);
	rs_cong_init(a);
	rs_lat_buckets_init(a);
	if (a->opts.t0_given) {
		/* Intervals count from a time given by the caller (-j: the first
		 * frame of the first file, so every file's intervals line up). */
		a->t0 = a->opts.t0_ns;
		a->have_t0 = true;
	}
	return a;
}

void rs_analyzer_free(struct rs_analyzer *a)
{
	if (!a)
		return;
	rs_flows_free(a);
	rs_lat_buckets_free(a);
	for (guint i = 0; i < a->files->len; i++) {
		struct rs_file *fi = g_ptr_array_index(a->files, i);
		g_free(fi->name);
		g_free(fi->error);
		g_free(fi);
	}
	g_ptr_array_free(a->files, TRUE);
	rs_pair_free(a);
	rs_cm_free(a);
	rs_ulp_free(a);
	rs_udconv_free(a);
	rs_adv_free(a);
	rs_sniffer_free(a);
	rs_cong_free(a);
	g_array_free(a->tl_rows, TRUE);
	g_hash_table_destroy(a->anomalies);
	g_free(a->latlog);
	rs_v_free(a);
	if (a->open_runs)
		g_array_free(a->open_runs, TRUE);
	g_free(a);
}

void rs_analyzer_add_file(struct rs_analyzer *a, const char *name, int linktype)
{
	rs_tl_new_file(a);
	struct rs_file *fi = g_new0(struct rs_file, 1);
	fi->name = g_strdup(name);
	fi->linktype = linktype;
	g_ptr_array_add(a->files, fi);
	a->cur_file = a->files->len - 1;
	g_array_append_val(a->file_first_id, a->next_flow_id);
	rs_v_new_file(a);
}

void rs_analyzer_file_error(struct rs_analyzer *a, const char *message)
{
	if (!a->files->len)
		rs_analyzer_add_file(a, "(input)", -1);
	struct rs_file *fi = g_ptr_array_index(a->files, a->cur_file);
	g_free(fi->error);
	fi->error = g_strdup(message);
	/* No frame reference: the message names the frame that could not be
	 * read, and a reference to frame 0 printed as "frames 0". */
	rs_anomaly(a, RS_AN_FILE_ERROR, a->cur_file, NULL, NULL, 1);
}

void rs_analyzer_open_error(struct rs_analyzer *a, const char *name, const char *message)
{
	rs_analyzer_add_file(a, name, -1);
	struct rs_file *fi = g_ptr_array_index(a->files, a->cur_file);
	fi->unopened = true;
	fi->error = g_strdup(message);
	rs_anomaly(a, RS_AN_FILE_ERROR, a->cur_file, NULL, NULL, 1);
}

bool rs_analyzer_opened_any(const struct rs_analyzer *a)
{
	for (guint i = 0; i < a->files->len; i++)
		if (!((const struct rs_file *)a->files->pdata[i])->unopened)
			return true;
	return false;
}

void rs_analyzer_file_warning(struct rs_analyzer *a, uint64_t frame_no, uint64_t count, const char *message)
{
	if (!a->files->len)
		rs_analyzer_add_file(a, "(input)", -1);
	struct rs_fref at = { a->cur_file, frame_no };
	struct rs_anomaly *an = rs_anomaly(a, RS_AN_FILE_WARNING, a->cur_file, NULL, &at, count);
	rs_anomaly_set_detail(an, "%s", message);
}

/* UD: every SEND is a whole message; PSN health is not tracked (several
 * source QPs may share a destination QP, each with its own PSNs). */
static void track_ud(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f)
{
	struct rs_flow_rare *r = rs_rare_w(fl);
	if (fl->packets == 1) {
		r->deth_qkey = f->deth.qkey;
		r->deth_srcqp = f->deth.srcqp;
		if (!fl->conn && !fl->is_cm_qp)
			rs_sidr_link_reply(a, fl);
	} else {
		r->many_qkey |= r->deth_qkey != f->deth.qkey;
		r->many_srcqp |= r->deth_srcqp != f->deth.srcqp;
	}
	enum rs_msg k = rs_opinfo(f->bth.opcode)->kind == RS_KIND_SEND_IMM ? RS_MSG_SEND_IMM : RS_MSG_SEND;
	if (f->ext & RS_EXT_IMMDT)
		rs_flow_note_imm(fl, f->immdt);
	rs_msgs_note(a->pool_few, fl, k, 1, f->payload_len);
	fl->payload += f->payload_len;
	rs_tl_of(a, fl)->messages++;
	rs_flow_size_sample(a, fl, f->payload_len);
}

static void file_sliced(struct rs_analyzer *a, const struct rs_frame_meta *m, const struct rs_frame *f)
{
	if (!a->files->len)
		rs_analyzer_add_file(a, "(input)", -1);
	struct rs_file *fi = g_ptr_array_index(a->files, a->cur_file);
	if (!fi->sliced[RS_SLICE_SNAPLEN] && !fi->sliced[RS_SLICE_REWRITTEN])
		fi->sliced_cap_min = fi->sliced_cap_max = m->caplen;
	fi->sliced[f->sliced < 3 ? f->sliced : RS_SLICE_SNAPLEN]++;
	if (m->caplen < fi->sliced_cap_min)
		fi->sliced_cap_min = m->caplen;
	if (m->caplen > fi->sliced_cap_max)
		fi->sliced_cap_max = m->caplen;
}

/* What a frame says of its half-flow's health: ICRC, decoding, ECN and
 * FECN/BECN marks, DSCP and CNPs (congestion.c). */
static void frame_marks(struct rs_analyzer *a, struct rs_flow *fl, struct rs_tl *tl, const struct rs_frame *f,
			const struct rs_frame_meta *m, const struct rs_opinfo *op, bool rewritten,
			const struct rs_fref *at)
{
	const struct rs_bth *b = &f->bth;
	if (f->icrc_status == RS_CRC_BAD && !rewritten) {
		rs_rare_w(fl)->icrc_bad++;
		rs_anomaly(a, RS_AN_ICRC_BAD, 0, fl, at, 1);
	} else if (f->icrc_status == RS_CRC_UNCHECKED) {
		rs_rare_w(fl)->icrc_unchecked++;
	}
	if (f->outcome != RS_OK)
		rs_rare_w(fl)->undecodable++;
	if (f->ecn == 3) {
		rs_rare_w(fl)->ecn_ce++;
		a->ecn_ce++;
		tl->ecn_ce++;
		rs_anomaly(a, RS_AN_ECN_CE, 0, fl, at, 1);
	}
	if (b->fecn | b->becn) { /* seldom: the rare counters are allocated only then */
		rs_rare_w(fl)->fecn += b->fecn;
		rs_rare_w(fl)->becn += b->becn;
	}
	if (f->ip_version && (f->ecn != 2 || f->dscp != a->dscp_data || op->kind == RS_KIND_CNP))
		rs_cong_frame(a, fl, f, m->ts_ns);
	else if (f->roce == RS_ROCE_V1 && f->grh.tclass >> 2 != a->dscp_data)
		rs_cong_v1(fl, f);

}

/*
 * A RoCE v1 frame's GIDs as the addresses RoCE v2 carries (rs_addr_roce), in
 * a copy: the analysis keys hosts, connections and rkeys by address, and one
 * QP pair is one pair of hosts whichever version each frame used. Its GRH
 * keeps the GIDs as captured. v1 is rare: the copy costs nothing where it
 * is not.
 */
static const struct rs_frame *canon_v1(const struct rs_frame *f, struct rs_frame *buf)
{
	if (__builtin_expect(f->roce != RS_ROCE_V1, 1))
		return f;
	*buf = *f;
	rs_addr_roce(&f->src, &buf->src);
	rs_addr_roce(&f->dst, &buf->dst);
	return buf;
}

static void transport(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f,
		      const struct rs_frame_meta *m, const struct rs_opinfo *op, const struct rs_fref *at);

static void add(struct rs_analyzer *a, const struct rs_frame_meta *m, const struct rs_frame *f)
{
	struct rs_fref at = { a->cur_file, m->frame_no };

	a->cur_frame = m->frame_no;
	a->frames++;
	a->add_n++; /* counts the frames added, for prefetched() */
	a->bytes += m->wirelen;
	if (!a->have_ts) {
		a->first_ts = a->last_ts = m->ts_ns;
		a->have_ts = true;
	}
	if (m->ts_ns < a->first_ts)
		a->first_ts = m->ts_ns;
	if (m->ts_ns > a->last_ts)
		a->last_ts = m->ts_ns;
	a->outcome[f->outcome < RS_OUTCOME__COUNT ? f->outcome : RS_UNSUPPORTED]++;
	if (f->sliced && f->outcome == RS_OK)
		file_sliced(a, m, f);
	rs_tl_frame(a, m->ts_ns);

	if (f->outcome != RS_OK && f->outcome != RS_NOT_ROCE) {
		struct rs_anomaly *an = rs_anomaly(a, RS_AN_UNDECODABLE, f->outcome, f->why, &at, 1);
		if (an->count == 1) {
			char why[256];
			rs_frame_why(f, why, sizeof why);
			rs_anomaly_set_detail(an, "%s", why);
		}
	}
	if (f->roce == RS_ROCE_NONE) {
		a->roce[0]++;
		if (f->roce_elsewhere)
			rs_anomaly(a, RS_AN_ROCE_ELSEWHERE, f->roce_elsewhere, NULL, &at, 1);
		if (f->have & RS_HAVE_PFC)
			rs_cong_pfc(a, f, m);
		return;
	}
	a->roce[f->roce]++;
	rs_sniffer_frame(a, f);
	if (f->ip_version == 4)
		a->ipv4++;
	else if (f->ip_version == 6)
		a->ipv6++;
	if (f->vcrc_status == RS_CRC_BAD) {
		a->vcrc_bad++;
		rs_anomaly(a, RS_AN_VCRC_BAD, 0, NULL, &at, 1);
	}
	if (!(f->have & RS_HAVE_BTH))
		return;

	const struct rs_bth *b = &f->bth;
	const struct rs_opinfo *op = rs_opinfo(b->opcode);
	if (f->have & RS_HAVE_DC)
		a->opcodes_dc[b->opcode & 0x1F]++;
	else
		a->opcodes[b->opcode]++;
	bool rewritten = f->icrc_status == RS_CRC_BAD && f->icrc_sport;
	if (rewritten) {
		if (!a->icrc_port_rewritten++)
			a->icrc_port_example = f->icrc_sport;
	} else {
		a->icrc[f->icrc_status]++;
	}

	struct rs_flowkey k;
	rs_flowkey_from_frame(&k, f);
	struct rs_flow *fl = rs_flow_get(a, &k, f, m);
	unsigned ver = f->roce == RS_ROCE_V1 ? 1 : f->roce == RS_ROCE_V2 ? 2 : 0;
	if (__builtin_expect((fl->roce_seen & ver) != ver, 0)) {
		/* A RoCE version the flow had not carried: the host pair mixes them. */
		if (fl->roce_seen)
			rs_versions_note(a, f, m);
		fl->roce_seen |= ver;
	}
	fl->packets++;
	fl->wire_bytes += m->wirelen;
	fl->last_frame = at.frame;
	fl->last_file = at.file;
	a->fl_prev_ts = fl->last_ts;
	fl->last_ts = m->ts_ns;
	if (op->kind != RS_KIND_CNP) /* counted as cnps: its low bits would read as an opcode of the QP's transport */
		rs_flow_ophist_count(fl, b->opcode & 0x1F);
	rs_tl_touch(a, fl);
	struct rs_tl *tl = rs_tl_of(a, fl);
	tl->packets++;
	tl->bytes += m->wirelen;

	frame_marks(a, fl, tl, f, m, op, rewritten, &at);

	if (f->have & RS_HAVE_MAD)
		rs_cm_frame(a, f, m);
	if (!(f->have & RS_HAVE_EXT))
		return;
	if (fl->conn && fl->conn->ulp) {
		if (a->v) {
			a->v->ulp = fl->conn->ulp;
			a->v->ulp_by = fl->conn->ulp_by;
		}
		if (fl->conn->pq)
			rs_proto_hooks(fl->conn->ulp)->queue_frame(a, fl->conn, fl, f, m);
	} else if (!fl->conn && a->ulp_offer && !rs_ulp_refused(fl)) {
		rs_ulp_nocm_frame(a, fl, f, m);
	}
	fl->payload_all += f->payload_len;
	tl->payload += f->payload_len;
	uint64_t fresh0 = fl->payload;
	a->frame_resent = false;
	transport(a, fl, f, m, op, &at);
	rs_tl_payload(a, fl, fl->payload - fresh0, f->payload_len);
	struct rs_conn *uc = a->frame_resent ? rs_flow_ulp_conn(fl) : NULL;
	if (uc && uc->pq && rs_proto_hooks(uc->ulp)->queue_resent)
		rs_proto_hooks(uc->ulp)->queue_resent(a, uc, fl, f, m);
}

/* What the frame says of its transport: a CNP, a UD datagram, a request or
 * a response (psn.c). */
static void transport(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f,
		      const struct rs_frame_meta *m, const struct rs_opinfo *op, const struct rs_fref *at)
{
	const struct rs_bth *b = &f->bth;
	/* The copy test (rs_copy_by_timing) times a request from the packet
	 * before it in its half-flow: only if that was the newest request. */
	if (op->kind == RS_KIND_CNP || op->response || (b->opcode & 0xE0) == RS_TR_UD)
		fl->req.fp_seen = false;
	if (op->kind == RS_KIND_CNP) {
		rs_rare_w(fl)->cnps++;
		a->cnps++;
		rs_tl_of(a, fl)->cnps++;
		rs_anomaly(a, RS_AN_CNP, 0, fl, at, 1);
		return;
	}
	if ((b->opcode & 0xE0) == RS_TR_UD) {
		track_ud(a, fl, f);
		if (fl->is_cm_qp) /* CM MADs: cmtrack.c draws them */
			return;
		size_t before = a->ladder ? a->ladder->len : 0, ev = 0;
		if (a->opts.keep_ladder) {
			rs_conn_ladder(a, fl, f, m, false, 0);
			ev = a->ladder->len > before ? a->ladder->len : 0;
		}
		rs_udconv_frame(a, f, m, ev);
		return;
	}
	if (op->response)
		rs_track_response(a, fl, f, m);
	else
		rs_track_request(a, fl, f, m);
}

void rs_analyzer_add(struct rs_analyzer *a, const struct rs_frame_meta *m, const struct rs_frame *f)
{
	struct rs_frame buf;
	add(a, m, canon_v1(f, &buf));
}

void rs_analyzer_add_v(struct rs_analyzer *a, const struct rs_frame_meta *m, const struct rs_frame *f,
		       struct rs_verdict *v)
{
	struct rs_frame buf;
	f = canon_v1(f, &buf);
	rs_v_begin(a, m, f, v);
	a->v = v; /* the trackers fill in the rest as they go (verdict.h) */
	add(a, m, f);
	a->v = NULL;
	rs_adv_frame(a, f, m, v);
	/* After the frame: a response pairs its half-flow with the requests'. */
	if (!v->qp_known && f->roce != RS_ROCE_NONE && (f->have & RS_HAVE_BTH)) {
		struct rs_flowkey k;
		rs_flowkey_from_frame(&k, f);
		const struct rs_flow *fl = rs_flow_find(a, &k);
		if (fl) {
			v->qp_known = true;
			v->qp[0] = fl->key.qpn;
			v->qp[1] = fl->peer ? fl->peer->key.qpn : fl->key.qpn;
			const struct rs_conn *c = fl->conn ? fl->conn : fl->peer ? fl->peer->conn : NULL;
			v->conn = c ? c->id + 1 : 0;
		}
	}
}

bool rs_analyzer_finished(const struct rs_analyzer *a)
{
	return a->finished;
}

void rs_analyzer_finish(struct rs_analyzer *a)
{
	if (a->finished)
		return;
	a->finished = true;
	rs_lat_flush(a);
	for (guint i = 0; i < a->flows->len; i++) {
		struct rs_flow *fl = g_ptr_array_index(a->flows, i);
		if (fl)
			rs_psn_finish(a, fl);
	}
	rs_cm_finish(a);
	rs_ulp_finish(a);
	for (guint k = 0; k < 2; k++) { /* the CM connections, the queues without CM */
		GPtrArray *conns = k ? a->ulp_queues : a->conns;
		for (guint i = 0; i < conns->len; i++) {
			struct rs_conn *c = g_ptr_array_index(conns, i);
			const struct rs_proto_hooks *h = c ? rs_proto_hooks(c->ulp) : NULL;
			if (c && c->pq && h->queue_finish)
				h->queue_finish(a, c->pq);
		}
	}
	rs_tl_flush(a);
	rs_sniffer_finish(a);
	rs_cong_finish(a);
}

bool rs_analyzer_has_anomalies(const struct rs_analyzer *a)
{
	GHashTableIter it;
	gpointer k;
	g_hash_table_iter_init(&it, a->anomalies);
	while (g_hash_table_iter_next(&it, &k, NULL)) {
		const struct rs_anomaly *an = k;
		if (an->type != RS_AN_ECN_CE && an->type != RS_AN_CNP)
			return true;
	}
	return false;
}
