/*
 * nfsrdma_state.c — NFS over RDMA connections, the module's per-connection
 * analysis: RPC calls paired with their replies by XID, their latency by
 * kind (program, version, procedure; an NFSv4 COMPOUND by its operation
 * list), the replies that failed, the chunks each call lent and the RDMA
 * READs and WRITEs that moved them, and whether the fabric re-sent any
 * packet of a call's messages or chunks.
 *
 * RPC-over-RDMA version 1 (RFC 8166): each RPC message is one RDMA SEND
 * with a transport header naming the requester's memory the responder
 * moves data with: the read list (the responder RDMA READs arguments from
 * it: an NFS WRITE's data), the write list (it RDMA WRITEs results into
 * it: an NFS READ's data) and the reply chunk (a long reply, written
 * whole; the reply SEND is then RDMA_NOMSG, its RPC message in the chunk:
 * its status is read from the first WRITE to the chunk's start, whose
 * payload the dissector read as an RPC reply, RS_PDU_RPCREPLY).
 * A segment is a handle (the R_Key), a length and an offset (the address),
 * so a READ request or WRITE from the responder belongs to the waiting
 * call that lent that handle and address.
 *
 * The dissector decoded every SEND's first packet without knowing the
 * connection (proto/pdu.h): a reply's results as what they say if the call
 * was NFS's (res_word, as_compound); here, the call known by its XID, the
 * NFSv3 status or the COMPOUND's status and operations are taken. Whether a packet went over the wire before is the transport's
 * judgement (the queue_resent hook), not decided again here: its PSN is
 * looked up among the recent messages' PSN ranges to find the call. A
 * SEND, READ request or WRITE with the PSN of one already taken (the same
 * call's SEND, the same transfer) is not counted twice.
 */
#include <string.h>

#include "analyzer/records/records.h"
#include "proto/nfsrdma/nfsq_state.h"
#include "proto/nfsrdma/nfsrdma.h"
#include "proto/pdu.h"

void *rs_nfsq_new(void)
{
	struct rs_nfsq *q = g_new0(struct rs_nfsq, 1);
	q->pending = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
	q->by_handle = g_hash_table_new(g_direct_hash, g_direct_equal);
	g_queue_init(&q->order);
	for (int i = 0; i < 4; i++)
		q->open[i] = -1;
	return q;
}

void rs_nfsq_free(void *p)
{
	struct rs_nfsq *q = p;
	if (!q)
		return;
	for (unsigned i = 0; i < q->nkinds; i++)
		rs_lat_free(&q->kinds[i].lat);
	g_hash_table_destroy(q->by_handle);
	g_hash_table_destroy(q->pending);
	g_free(q);
}

/* ---- kinds --------------------------------------------------------------- */

static void kind_of(const struct rs_rpcrdma *r, bool back, struct rs_nfs_kind_id *id)
{
	memset(id, 0, sizeof *id);
	id->back = back;
	if (!r->has_rpc) {
		id->in_chunk = true;
		return;
	}
	const struct rs_onc_rpc *m = &r->rpc;
	id->prog = m->prog;
	id->vers = m->vers;
	id->proc = m->proc;
	if (m->prog == RS_RPC_PROG_NFS && m->vers == 4 && m->proc == RS_NFS4_COMPOUND) {
		id->nops = m->ops_read < RS_NFS4_MAX_OPS ? m->ops_read : RS_NFS4_MAX_OPS;
		memcpy(id->ops, m->ops, sizeof id->ops[0] * id->nops);
		id->ops_more = m->ops_partial || m->nops > id->nops;
	}
}

static int kind_slot(struct rs_nfsq *q, const struct rs_nfs_kind_id *id)
{
	for (unsigned i = 0; i < q->nkinds; i++)
		if (!memcmp(&q->kinds[i].i.id, id, sizeof *id))
			return (int)i;
	if (q->nkinds == RS_NFS_KINDS)
		return -1;
	struct kind *k = &q->kinds[q->nkinds];
	memset(k, 0, sizeof *k);
	k->i.id = *id;
	return (int)q->nkinds++;
}

static bool nfs_v3(const struct rs_nfs_kind_id *id)
{
	return id->prog == RS_RPC_PROG_NFS && (id->vers == 2 || id->vers == 3) && id->proc != 0;
}

static bool nfs_compound(const struct rs_nfs_kind_id *id)
{
	return id->prog == RS_RPC_PROG_NFS && id->vers == 4 && id->proc == RS_NFS4_COMPOUND;
}

/* ---- the calls' re-sent packets ---------------------------------------------- */

static void call_resent(struct rs_nfsq *q, struct call *c)
{
	if (c->resent)
		return;
	c->resent = true;
	q->c.resent_for++;
	if (c->kind >= 0)
		q->kinds[c->kind].i.resent++;
}

/* Keep the call among the slowest in list (n of them, slowest first). */
static void slow_note(struct rs_nfs_call_info *list, unsigned *count, const struct rs_nfs_call_info *ci)
{
	unsigned n = *count, i = n;
	while (i > 0 && list[i - 1].ns < ci->ns)
		i--;
	if (i >= RS_NFS_SLOWEST)
		return;
	if (n == RS_NFS_SLOWEST)
		n--;
	memmove(&list[i + 1], &list[i], (n - i) * sizeof list[0]);
	list[i] = *ci;
	*count = n + 1;
}

static struct call *pending_seq(struct rs_nfsq *q, uint32_t seq)
{
	for (GList *l = q->order.head; l; l = l->next) {
		struct call *c = l->data;
		if (c->seq == seq)
			return c;
	}
	return NULL;
}

/* A packet of call `seq`'s messages went again: the call, waiting or done. */
static void seq_resent(struct rs_nfsq *q, uint32_t seq)
{
	if (!seq)
		return; /* a transfer no call lent */
	struct call *c = pending_seq(q, seq);
	if (c) {
		call_resent(q, c);
		return;
	}
	for (unsigned i = 0; i < DONE; i++) {
		struct done *d = &q->done[i];
		if (d->seq != seq || !d->key || d->resent)
			continue;
		d->resent = true;
		d->info.resent = true;
		q->c.resent_for++;
		if (d->kind >= 0)
			q->kinds[d->kind].i.resent++;
	}
}

static void range_add(struct rs_nfsq *q, uint8_t stream, uint8_t what, uint32_t psn, uint32_t n, uint32_t seq,
		      bool open)
{
	unsigned i = q->range_next++ % RANGES;
	q->ranges[i] = (struct range){ .stream = stream, .what = what, .open = open, .psn = psn, .n = n ? n : 1,
				       .seq = seq };
	q->open[stream] = open ? (int)i : -1;
}

/* A Middle or Last packet: the message under way on its stream grows to it. */
static void range_grow(struct rs_nfsq *q, uint8_t stream, uint32_t psn, bool last)
{
	int i = q->open[stream];
	if (i < 0)
		return;
	struct range *r = &q->ranges[i];
	int32_t d = rs_psn_diff(psn, r->psn);
	if (d > 0 && d < RANGE_MAX && (uint32_t)d >= r->n)
		r->n = (uint32_t)d + 1;
	if (last) {
		r->open = false;
		q->open[stream] = -1;
	}
}

/* The newest recent message's range on the stream that holds the PSN. */
static const struct range *range_find(const struct rs_nfsq *q, uint8_t stream, uint32_t psn)
{
	for (unsigned k = 1; k <= RANGES; k++) {
		const struct range *r = &q->ranges[(q->range_next - k) % RANGES];
		int32_t d = rs_psn_diff(psn, r->psn);
		if (r->n && r->stream == stream && d >= 0 && (uint32_t)d < r->n)
			return r;
	}
	return NULL;
}

/* A packet the transport says went before: the call whose message held its
 * PSN. The packet just past an open message's end is its own next packet
 * (its first sending not captured). */
static void packet_again(struct rs_nfsq *q, uint8_t stream, uint32_t psn)
{
	for (unsigned i = 0; i < RANGES; i++) {
		struct range *r = &q->ranges[i];
		if (!r->n || r->stream != stream)
			continue;
		int32_t d = rs_psn_diff(psn, r->psn);
		if (d >= 0 && ((uint32_t)d < r->n || (r->open && (uint32_t)d == r->n)))
			seq_resent(q, r->seq);
	}
}

/* ---- the frame's verdict (the per-frame views) ----------------------------------- */

uint16_t rs_nfs_op_code(const struct rs_nfs_kind_id *id)
{
	if (id->in_chunk)
		return RS_NFS_OP_IN_CHUNK;
	if (id->back || id->prog != RS_RPC_PROG_NFS)
		return (uint16_t)((id->prog == 100227 && !id->back ? RS_NFS_OP_ACL : RS_NFS_OP_OTHER) | (id->proc & 0xFF));
	if (id->vers != 4 || id->proc == 0)
		return (uint16_t)((id->vers & 0xFF) << 8 | (id->proc & 0xFF));
	/* A COMPOUND by the first operation that is not a session's, file
	 * handle's or attributes' preamble (OPEN in SEQUENCE PUTFH OPEN GETFH). */
	uint32_t main = 1;
	for (unsigned i = 0; i < id->nops; i++) {
		main = id->ops[i];
		if (main != 53 && main != 22 && main != 23 && main != 24 && main != 9)
			break;
	}
	return (uint16_t)(4u << 8 | (main & 0xFF));
}

/* What call `seq` is: waiting, or answered lately. */
static bool seq_call(struct rs_nfsq *q, uint32_t seq, struct rs_nfs_call_info *ci)
{
	const struct call *c = seq ? pending_seq(q, seq) : NULL;
	if (c) {
		*ci = rs_nfs_call_info_of(c);
		return true;
	}
	for (unsigned i = 0; seq && i < DONE; i++)
		if (q->done[i].key && q->done[i].seq == seq) {
			*ci = q->done[i].info;
			ci->resent = q->done[i].resent;
			return true;
		}
	return false;
}

static void v_task(struct rs_nfsq *q, uint8_t pdu, const struct rs_nfs_call_info *ci)
{
	struct rs_verdict *v = q->v;
	if (!v)
		return;
	v->ulp_pdu = pdu;
	v->ulp_tag_known = true;
	v->ulp_tag = ci->xid;
	v->ulp_op_known = ci->kind >= 0;
	v->ulp_op = ci->kind >= 0 ? rs_nfs_op_code(&q->kinds[ci->kind].i.id) : 0;
	v->ulp_req_frame = pdu != RS_ULP_REQUEST && ci->call_at.file == q->file ? ci->call_at.frame : 0;
	v->ulp_resent = ci->resent;
}

static void v_seq(struct rs_nfsq *q, uint8_t pdu, uint32_t seq)
{
	struct rs_nfs_call_info ci;
	if (q->v && seq_call(q, seq, &ci))
		v_task(q, pdu, &ci);
}

/* A packet of a message already known: what the message is to its call. */
static void v_range(struct rs_nfsq *q, uint8_t stream, uint32_t psn)
{
	const struct range *r = q->v ? range_find(q, stream, psn) : NULL;
	if (r)
		v_seq(q, r->what, r->seq);
}

/* ---- calls and replies ---------------------------------------------------------- */

static void call_drop(struct rs_nfsq *q, struct call *c)
{
	for (unsigned i = 0; i < c->nsegs; i++)
		if (g_hash_table_lookup(q->by_handle, GUINT_TO_POINTER(c->segs[i].handle)) == c)
			g_hash_table_remove(q->by_handle, GUINT_TO_POINTER(c->segs[i].handle));
	g_queue_unlink(&q->order, &c->link);
	g_hash_table_remove(q->pending, &c->key);
}

/* The call that waited for XID `key` will never be answered: its XID came
 * again with another call. */
static void superseded(struct rs_nfsq *q, struct call *c)
{
	q->c.xid_reused++;
	q->c.unanswered++;
	if (q->nsuper < RS_NFS_UNANSWERED)
		q->super[q->nsuper++] = rs_nfs_call_info_of(c);
	call_drop(q, c);
}

/* A recently answered call with this key whose call (reply false) or reply
 * SEND had this PSN. */
static bool done_has(const struct rs_nfsq *q, uint64_t key, bool reply, uint32_t psn)
{
	for (unsigned i = 0; i < DONE; i++)
		if (q->done[i].key == key && (reply ? q->done[i].reply_psn : q->done[i].call_psn) == psn)
			return true;
	return false;
}

static void call_segments(struct rs_nfsq *q, struct call *c, const struct rs_rpcrdma *r)
{
	q->c.segs[RS_RDMA_READ_LIST] += r->n_read;
	q->c.segs[RS_RDMA_WRITE_LIST] += r->n_write_segs;
	q->c.segs[RS_RDMA_REPLY_CHUNK] += r->n_reply_segs;
	q->c.seg_bytes[RS_RDMA_READ_LIST] += r->read_bytes;
	q->c.seg_bytes[RS_RDMA_WRITE_LIST] += r->write_bytes;
	q->c.seg_bytes[RS_RDMA_REPLY_CHUNK] += r->reply_bytes;
	for (unsigned i = 0; i < r->nsegs && i < RS_RPCRDMA_MAX_SEGS && c->nsegs < CALL_SEGS; i++) {
		const struct rs_rdma_seg *s = &r->segs[i];
		c->segs[c->nsegs++] = (struct seg){ s->list, s->handle, s->length, s->offset };
		g_hash_table_replace(q->by_handle, GUINT_TO_POINTER(s->handle), c);
	}
}

static void call(struct rs_nfsq *q, const struct rs_rpcrdma *r, uint8_t side, const struct rs_frame *f,
		 const struct rs_frame_meta *m, const struct rs_fref *at)
{
	uint64_t key = (uint64_t)side << 32 | r->xid;
	struct call *old = g_hash_table_lookup(q->pending, &key);
	if ((old && old->psn == f->bth.psn) || (!old && done_has(q, key, false, f->bth.psn))) {
		q->c.again++; /* the same SEND again: its call is known */
		v_range(q, side, f->bth.psn);
		return;
	}
	if (old)
		superseded(q, old);
	if (g_hash_table_size(q->pending) >= RS_NFS_PENDING_MAX) {
		struct call *oldest = q->order.head->data;
		q->c.forgotten++;
		q->c.unanswered++;
		call_drop(q, oldest);
	}
	q->c.calls++;
	struct rs_nfs_kind_id id;
	kind_of(r, side == ST_SERVER, &id);
	struct call *c = g_new0(struct call, 1);
	*c = (struct call){ .key = key, .xid = r->xid, .seq = ++q->seq, .side = side, .kind = (int16_t)kind_slot(q, &id),
			    .psn = f->bth.psn, .ts = m->ts_ns, .at = *at };
	c->link.data = c;
	if (c->kind >= 0)
		q->kinds[c->kind].i.calls++;
	else
		q->c.other_calls++;
	call_segments(q, c, r);
	g_hash_table_insert(q->pending, &c->key, c);
	g_queue_push_tail_link(&q->order, &c->link);
	range_add(q, side, RS_ULP_REQUEST, f->bth.psn, 1, c->seq, rs_opinfo(f->bth.opcode)->pos == RS_POS_FIRST);
	struct rs_nfs_call_info ci = rs_nfs_call_info_of(c);
	v_task(q, RS_ULP_REQUEST, &ci);
}

static void failed(struct rs_nfsq *q, const struct rs_nfs_call_info *ci, uint8_t what, uint32_t stat, bool have_op,
		   uint32_t op)
{
	if (what == RS_NFS_ERR_NFS)
		q->c.nfs_errors++;
	else
		q->c.rpc_errors++;
	if (ci->kind >= 0)
		q->kinds[ci->kind].i.errors++;
	if (q->c.nerr < RS_NFS_ERRS)
		q->c.err[q->c.nerr] = (struct rs_nfs_err_info){ .call = *ci, .what = what, .stat = stat, .have_op = have_op,
								.op = op };
	q->c.nerr++;
}

/* What the reply says of the call's outcome, the call being known: its
 * RPC message m inline, or (RDMA_NOMSG) read from its reply chunk; NULL:
 * not read. */
static void outcome(struct rs_nfsq *q, const struct rs_nfs_call_info *ci, const struct rs_rpcrdma *r,
		    const struct rs_onc_rpc *m)
{
	const struct rs_nfs_kind_id *id = ci->kind >= 0 ? &q->kinds[ci->kind].i.id : NULL;
	if (r->proc == RS_RDMA_ERROR) {
		failed(q, ci, RS_NFS_ERR_RDMA, r->err, false, 0);
		return;
	}
	if (!m) {
		q->c.not_read++; /* RDMA_NOMSG: the reply is in the reply chunk, its first WRITE not read */
		return;
	}
	if (m->reply_stat == 1) {
		failed(q, ci, RS_NFS_ERR_DENIED, m->reject_stat, false, 0);
		return;
	}
	if (m->accept_stat) {
		failed(q, ci, RS_NFS_ERR_ACCEPT, m->accept_stat, false, 0);
		return;
	}
	if (!id || !(nfs_v3(id) || nfs_compound(id)))
		return;
	if (!m->have_res_word) {
		q->c.not_read++;
		return;
	}
	if (!m->res_word)
		return;
	bool have_op = false;
	uint32_t op = 0;
	if (nfs_compound(id) && m->as_compound)
		for (unsigned i = 0; i < m->ops_read && i < RS_NFS4_MAX_OPS; i++)
			if (m->op_status[i]) {
				have_op = true;
				op = m->ops[i];
			}
	failed(q, ci, RS_NFS_ERR_NFS, m->res_word, have_op, op);
}

/* An answered call leaves the ring: its latency (to its reply's last
 * sending) is counted, and it takes its place among the slowest. */
static void settle(struct rs_nfsq *q, struct done *d)
{
	if (!d->key)
		return;
	if (d->kind >= 0)
		rs_lat_add(&q->kinds[d->kind].lat, d->info.ns);
	slow_note(q->c.slow, &q->c.nslow, &d->info);
	if (d->resent)
		slow_note(q->c.slow_resent, &q->c.nslow_resent, &d->info);
	for (unsigned k = 0; k < q->c.nerr && k < RS_NFS_ERRS; k++)
		if (q->c.err[k].call.seq == d->seq)
			q->c.err[k].call = d->info;
	d->key = 0;
}

void rs_nfsq_finish(struct rs_analyzer *a, void *p)
{
	(void)a;
	struct rs_nfsq *q = p;
	for (unsigned k = DONE; k > 0; k--)
		settle(q, &q->done[(q->done_next - k) % DONE]);
}

/* The reply's SEND again: the call's latency runs to this sending. */
static bool reply_again(struct rs_nfsq *q, uint64_t key, const struct rs_frame *f, const struct rs_frame_meta *m,
			const struct rs_fref *at)
{
	for (unsigned i = 0; i < DONE; i++) {
		struct done *d = &q->done[i];
		if (d->key != key || d->reply_psn != f->bth.psn)
			continue;
		d->info.ns = m->ts_ns > d->call_ts ? m->ts_ns - d->call_ts : 0;
		d->info.reply_at = *at;
		q->c.again++;
		v_range(q, (uint8_t)(d->side ^ 1), f->bth.psn);
		if (q->v) {
			q->v->ulp_timed = true;
			q->v->ulp_lat_ns = d->info.ns;
			q->v->ulp_failed = d->failed;
		}
		return true;
	}
	return false;
}

static void reply(struct rs_nfsq *q, const struct rs_rpcrdma *r, uint8_t side, const struct rs_frame *f,
		  const struct rs_frame_meta *m, const struct rs_fref *at)
{
	uint64_t key = (uint64_t)(side ^ 1) << 32 | r->xid;
	struct call *c = g_hash_table_lookup(q->pending, &key);
	if (!c) {
		if (!reply_again(q, key, f, m, at)) {
			q->c.unmatched++;
			if (q->v) {
				q->v->ulp_pdu = RS_ULP_RESPONSE;
				q->v->ulp_tag_known = true;
				q->v->ulp_tag = r->xid;
			}
		}
		return;
	}
	q->c.replies++;
	uint64_t ns = m->ts_ns > c->ts ? m->ts_ns - c->ts : 0;
	if (c->kind >= 0)
		q->kinds[c->kind].i.replies++;
	struct rs_nfs_call_info ci = rs_nfs_call_info_of(c);
	ci.ns = ns;
	ci.reply_at = *at;
	uint32_t nerr = q->c.nerr;
	outcome(q, &ci, r, r->has_rpc ? &r->rpc : c->chunk_reply ? &c->reply : NULL);
	v_task(q, RS_ULP_RESPONSE, &ci);
	if (q->v) {
		q->v->ulp_timed = true;
		q->v->ulp_lat_ns = ns;
		q->v->ulp_failed = q->c.nerr != nerr;
	}
	struct done *d = &q->done[q->done_next++ % DONE];
	settle(q, d);
	*d = (struct done){ .key = key, .seq = c->seq, .call_psn = c->psn, .reply_psn = f->bth.psn, .call_ts = c->ts,
			    .kind = c->kind, .resent = c->resent, .failed = q->c.nerr != nerr, .side = c->side,
			    .nsegs = c->nsegs, .info = ci };
	memcpy(d->segs, c->segs, sizeof d->segs);
	range_add(q, side, RS_ULP_RESPONSE, f->bth.psn, 1, c->seq, rs_opinfo(f->bth.opcode)->pos == RS_POS_FIRST);
	call_drop(q, c);
}

/* An RPC-over-RDMA header in a SEND's first packet from `side`. */
static void message(struct rs_nfsq *q, const struct rs_rpcrdma *r, uint8_t side, const struct rs_frame *f,
		    const struct rs_frame_meta *m, const struct rs_fref *at)
{
	q->open[side] = -1;
	if (r->outcome == RS_RPCRDMA_TRUNCATED || r->outcome == RS_RPCRDMA_MALFORMED) {
		*(r->outcome == RS_RPCRDMA_TRUNCATED ? &q->c.cut : &q->c.bad) += 1;
		return;
	}
	bool is_call, is_reply;
	if (r->has_rpc) {
		is_call = r->rpc.msg_type == RS_RPC_CALL;
		is_reply = r->rpc.msg_type == RS_RPC_REPLY;
	} else {
		/* RDMA_NOMSG: a call from the client, a reply from the server;
		 * RDMA_ERROR: the server's answer instead of a reply. */
		is_call = r->proc == RS_RDMA_NOMSG && side == ST_CLIENT;
		is_reply = (r->proc == RS_RDMA_NOMSG && side == ST_SERVER) || r->proc == RS_RDMA_ERROR;
	}
	if (is_call)
		call(q, r, side, f, m, at);
	else if (is_reply)
		reply(q, r, side, f, m, at);
	else
		q->c.other++;
}

/* ---- the chunks' transfers ------------------------------------------------------- */

static uint32_t packets(uint32_t len, uint32_t mtu)
{
	if (!mtu || !len)
		return 1;
	uint64_t n = ((uint64_t)len + mtu - 1) / mtu;
	return n < RANGE_MAX ? (uint32_t)n : RANGE_MAX;
}

/* Does one of the segments lent from the other side than `side` hold the
 * transfer's handle and address (a READ: a read list's; a WRITE: a write
 * chunk's or the reply chunk's)? */
static bool holds(const struct seg *segs, unsigned n, uint8_t lender, uint8_t side, const struct rs_frame *f, bool read)
{
	for (unsigned i = 0; lender != side && i < n; i++) {
		const struct seg *s = &segs[i];
		bool list = read ? s->list == RS_RDMA_READ_LIST : s->list != RS_RDMA_READ_LIST;
		if (list && s->handle == f->reth.rkey && f->reth.va >= s->offset &&
		    f->reth.va - s->offset < (s->length ? s->length : 1))
			return true;
	}
	return false;
}

/* The call a transfer belongs to: the waiting one that lent its handle, or
 * else the latest answered one that did (the transfer re-sent after the
 * reply). Its number and kind; false: none. */
static bool tie(struct rs_nfsq *q, const struct rs_frame *f, uint8_t side, bool read, uint32_t *seq, int16_t *kind)
{
	const struct call *c = g_hash_table_lookup(q->by_handle, GUINT_TO_POINTER(f->reth.rkey));
	if (c && holds(c->segs, c->nsegs, c->side, side, f, read)) {
		*seq = c->seq;
		*kind = c->kind;
		return true;
	}
	for (unsigned k = 1; k <= DONE; k++) {
		const struct done *d = &q->done[(q->done_next - k) % DONE];
		if (d->key && holds(d->segs, d->nsegs, d->side, side, f, read)) {
			*seq = d->seq;
			*kind = d->kind;
			return true;
		}
	}
	return false;
}

/* A WRITE's first packet that begins an RPC reply (RS_PDU_RPCREPLY): the
 * reply of the waiting call whose XID it has, if it goes to the start of
 * that call's reply chunk (RFC 8166 3.5.4: the RDMA_NOMSG reply's RPC
 * message is written there from its first byte). */
static void chunk_reply(struct rs_nfsq *q, const struct rs_frame *f, uint8_t side)
{
	struct call *c = g_hash_table_lookup(q->by_handle, GUINT_TO_POINTER(f->reth.rkey));
	if (!c || c->side == side || c->chunk_reply || c->xid != f->pdu->rpc.xid)
		return;
	for (unsigned i = 0; i < c->nsegs; i++)
		if (c->segs[i].list == RS_RDMA_REPLY_CHUNK) {
			if (c->segs[i].handle == f->reth.rkey && c->segs[i].offset == f->reth.va) {
				c->chunk_reply = true;
				c->reply = f->pdu->rpc.rpc;
			}
			return; /* the chunk's first segment only */
		}
}

/* A READ request or the first packet of a WRITE from `side`, first seen. */
static void transfer(struct rs_nfsq *q, const struct rs_frame *f, uint8_t side, bool read)
{
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	uint32_t len = f->reth.dmalen, seq = 0;
	int16_t kind = -1;
	if (read) {
		q->c.reads++;
		q->c.read_bytes += len;
	} else {
		q->c.writes++;
		q->c.write_bytes += len;
	}
	if (!tie(q, f, side, read, &seq, &kind))
		q->c.untied++; /* its range still marks its PSNs as seen (seq 0: no call) */
	else if (!read && rs_frame_pdu(f, RS_PDU_RPCREPLY))
		chunk_reply(q, f, side);
	if (kind >= 0) {
		if (read)
			q->kinds[kind].i.rdma_read_bytes += len;
		else
			q->kinds[kind].i.rdma_write_bytes += len;
	}
	if (read) {
		range_add(q, side, RS_ULP_TRANSFER, f->bth.psn, 1, seq, false);
		range_add(q, (uint8_t)(ST_RSP | (side ^ 1)), RS_ULP_TRANSFER, f->bth.psn, packets(len, q->mtu), seq, true);
	} else {
		uint32_t n = op->pos == RS_POS_ONLY ? 1 : packets(len, f->payload_len);
		range_add(q, side, RS_ULP_TRANSFER, f->bth.psn, n, seq, op->pos == RS_POS_FIRST);
	}
	v_seq(q, RS_ULP_TRANSFER, seq);
}

static uint8_t stream_of(uint8_t side, const struct rs_opinfo *op)
{
	return (uint8_t)(op->kind == RS_KIND_READ_RESP ? ST_RSP | side : side);
}

static void frame(struct rs_nfsq *q, const struct rs_frame *f, const struct rs_frame_meta *m, const struct rs_fref *at,
		  const struct rs_opinfo *op, uint8_t stream, uint8_t side)
{
	if ((op->pos == RS_POS_FIRST || op->pos == RS_POS_MIDDLE) && f->payload_len > q->mtu)
		q->mtu = f->payload_len;
	if (op->pos == RS_POS_MIDDLE || op->pos == RS_POS_LAST) {
		range_grow(q, stream, f->bth.psn, op->pos == RS_POS_LAST);
		v_range(q, stream, f->bth.psn);
		return;
	}
	bool send = op->kind == RS_KIND_SEND || op->kind == RS_KIND_SEND_IMM || op->kind == RS_KIND_SEND_INV;
	if (send) {
		if (rs_frame_pdu(f, RS_PDU_RPCRDMA)) {
			message(q, &f->pdu->rpc, side, f, m, at);
		} else if (!range_find(q, stream, f->bth.psn)) {
			q->c.other++;
			q->open[side] = -1;
		}
		return;
	}
	if (!(f->ext & RS_EXT_RETH) || range_find(q, stream, f->bth.psn)) {
		v_range(q, stream, f->bth.psn); /* a READ response, or the same READ request or WRITE again: counted once */
		return;
	}
	if (op->kind == RS_KIND_READ_REQ || op->kind == RS_KIND_WRITE || op->kind == RS_KIND_WRITE_IMM)
		transfer(q, f, side, op->kind == RS_KIND_READ_REQ);
}

void rs_nfsq_feed(struct rs_nfsq *q, bool from_client, const struct rs_frame *f, const struct rs_frame_meta *m,
		  const struct rs_fref *at, struct rs_verdict *v, uint32_t file)
{
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	if (op->kind == RS_KIND_ACK || op->kind == RS_KIND_NONE)
		return;
	uint8_t side = from_client ? ST_CLIENT : ST_SERVER;
	q->v = v;
	q->file = file;
	frame(q, f, m, at, op, stream_of(side, op), side);
	q->v = NULL;
}

void rs_nfs_frame(struct rs_analyzer *a, struct rs_conn *c, struct rs_flow *fl, const struct rs_frame *f,
		  const struct rs_frame_meta *m)
{
	struct rs_fref at = { a->cur_file, m->frame_no };
	rs_nfsq_feed(c->pq, fl == c->c2s, f, m, &at, a->v, a->cur_file);
}

void rs_nfs_resent(struct rs_analyzer *a, struct rs_conn *c, struct rs_flow *fl, const struct rs_frame *f,
		   const struct rs_frame_meta *m)
{
	(void)m;
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	if (op->kind == RS_KIND_ACK || op->kind == RS_KIND_NONE)
		return;
	packet_again(c->pq, stream_of(fl == c->c2s ? ST_CLIENT : ST_SERVER, op), f->bth.psn);
	if (a->v && a->v->ulp_tag_known)
		a->v->ulp_resent = true; /* the frame's own re-sending counts for its call */
}

