/*
 * smbd_state.c — SMB Direct connections, the module's per-connection
 * analysis: the negotiate exchange and its limits, credits, SMB Direct
 * fragments put back into SMB2 messages, SMB2 request -> response latency
 * by command (MessageId pairs them, MS-SMB2 3.2.4.1.3), statuses other than
 * SUCCESS, the RDMA transfers of the SMB2 READs and WRITEs, and whether the
 * fabric sent any packet of a request again. Every header of a compound
 * (MS-SMB2 3.2.4.1.4) the decoder read is a request or response of its own.
 *
 * MS-SMBD 3.1.5: the RDMA CM client (active side) SENDs the negotiate
 * request, the server the negotiate response; every SEND after that is a
 * data transfer message. An SMB2 message longer than the receiver's
 * MaxReceiveSize is split: every fragment says how much follows it
 * (RemainingDataLength), only the first holds the SMB2 header. The
 * dissector decoded each SEND's first packet without the connection's
 * history (as if no fragment came before it); here each side's fragments
 * are followed (rs_smbd_frag_feed), and the header of a fragment that
 * continues a message is not taken.
 *
 * SMB2 over the RDMA channel (MS-SMB2 2.2.19, 2.2.21, 3.3.5.12-13): a READ
 * or WRITE request lends the server buffers by descriptor (address, token,
 * length); the server moves the data with RDMA WRITE (READ) or RDMA READ
 * (WRITE) using the token as R_Key, then responds. So a READ request or a
 * WRITE First/Only from the server belongs to the pending request with
 * that token.
 *
 * The analyzer hands whole SEND messages (queue_message), every frame of
 * the connection (queue_frame: the RDMA transfers), and the frames it
 * judged sent again (queue_resent), which are tied back to the request
 * whose SEND or transfer held their PSN. Never packet bytes.
 */
#include <string.h>

#include "analyzer/transport/verdict.h"
#include "proto/pdu.h"
#include "proto/smbdirect/smbd_look_state.h"
#include "proto/smbdirect/smbd_state.h"
#include "proto/smbdirect/smbdirect.h"

#define DESC_KEPT 4     /* buffer descriptors of a request tied to transfers */
#define DONE_RING 64    /* answered requests that a late re-send can still be tied to */
#define RANGES 256      /* PSN ranges of the requests' packets, newest kept */
#define XFER_PSNS 16    /* PSNs of the newest transfers: the same one again is a re-send */

/* A request awaiting its final response (or answered, in the done ring). */
struct smbd_req {
	struct rs_smbd_req_info i;
	uint64_t ts;              /* its last frame's time */
	uint8_t ndesc;
	struct rs_smbd_desc desc[DESC_KEPT];
	uint64_t desc_bytes;
};

/* PSNs that carried a request's SEND, response or transfer: in the PSN
 * space of the client's (0) or the server's (1) send queue. */
struct smbd_range {
	uint8_t space, what;      /* RS_SMBD_RESENT_* */
	bool elastic;             /* an RDMA READ's, the path MTU unknown: hi set by its first response */
	uint32_t lo, hi, len;
	uint64_t mid, req_frame;
};

/* An SMB2 message's headers: its first and the later ones of its
 * compound chain (MS-SMB2 3.2.4.1.4) the decoder read. */
struct hdrs {
	const struct rs_smb2 *first;
	const struct rs_smb2_link *link;
	uint8_t n;
	uint16_t dropped;
	bool cut;
};

/* One side's reassembly. */
struct smbd_side {
	struct rs_smbd_side_info i;
	struct rs_smbd_frag frag;
	bool have_hdr;            /* the message being reassembled had its header read */
	struct rs_smb2 hdr;
	struct rs_smb2_link chain[RS_SMBD_CHAIN]; /* the later headers of its compound in its first fragment */
	struct hdrs hs;           /* hdr and chain */
	struct rs_fref first;     /* its first fragment's first frame */
};

struct rs_smbdq {
	struct rs_smbd_info i;    /* the figures, but for cmd[].lat, slow and failed */
	struct smbd_side side[2];
	struct rs_latvec lat[RS_SMBD_CMDS];
	GHashTable *pending;      /* MessageId -> struct smbd_req */
	GHashTable *by_token;     /* token -> struct smbd_req (pending, with descriptors) */
	struct smbd_req *done;    /* DONE_RING of them, from the first answer on */
	uint32_t ndone;
	struct smbd_range *range; /* RANGES of them, from the first request on */
	uint32_t nrange;
	uint32_t xfer_psn[XFER_PSNS]; /* +1: 0 is none */
	uint32_t nxfer;
	struct rs_smbd_look *look;  /* recognition by shape (smbd_look_state.c); NULL: none */
};

static guint mid_hash(gconstpointer p)
{
	uint64_t v = *(const uint64_t *)p;
	return (guint)(v ^ (v >> 32));
}

static gboolean mid_equal(gconstpointer a, gconstpointer b)
{
	return *(const uint64_t *)a == *(const uint64_t *)b;
}

void *rs_smbdq_new(void)
{
	struct rs_smbdq *q = g_new0(struct rs_smbdq, 1);
	q->pending = g_hash_table_new_full(mid_hash, mid_equal, NULL, g_free);
	q->by_token = g_hash_table_new(g_direct_hash, g_direct_equal);
	return q;
}

static void look_free(struct rs_smbd_look *l)
{
	if (l)
		g_free(l->early);
	g_free(l);
}

void rs_smbdq_free(void *p)
{
	struct rs_smbdq *q = p;
	if (!q)
		return;
	for (unsigned i = 0; i < RS_SMBD_CMDS; i++)
		rs_lat_free(&q->lat[i]);
	g_hash_table_destroy(q->by_token);
	g_hash_table_destroy(q->pending);
	g_free(q->done);
	g_free(q->range);
	look_free(q->look);
	g_free(q);
}

static unsigned cmd_slot(uint16_t cmd)
{
	return cmd < RS_SMB2__CMDS ? cmd : RS_SMB2__CMDS;
}

static unsigned side_of(const struct rs_conn *cn, const struct rs_flow *fl)
{
	return fl == cn->c2s ? 0 : 1;
}

/* What the frame is to its request, for the per-frame views (a->v). */
static void vset(struct rs_verdict *v, uint8_t pdu, const struct rs_smbd_req_info *r, uint32_t file, bool timed,
		 uint64_t lat_ns, bool failed)
{
	if (!v)
		return;
	v->ulp_pdu = pdu;
	v->ulp_op = r->cmd;
	v->ulp_op_known = true;
	v->ulp_tag = (uint32_t)r->message_id; /* the views' tag is 32 bits: MessageIds count up from 0 */
	v->ulp_tag_known = true;
	v->ulp_req_frame = pdu != RS_ULP_REQUEST && r->file == file ? r->req_frame : 0;
	v->ulp_resent = r->resent != 0;
	v->ulp_timed = timed;
	v->ulp_lat_ns = lat_ns;
	v->ulp_failed = failed;
}

/* The verdict of the frame being added, if the message `m` ended there. */
static struct rs_verdict *v_of(struct rs_analyzer *a, const struct rs_sendmsg *m)
{
	return a->v && m->last_frame == a->cur_frame && m->file == a->cur_file ? a->v : NULL;
}

/* ---- re-sends ---------------------------------------------------------------- */

static void add_range(struct rs_smbdq *q, unsigned space, uint8_t what, uint32_t lo, uint32_t hi,
		      const struct rs_smbd_req_info *r)
{
	if (!q->range)
		q->range = g_new(struct smbd_range, RANGES);
	q->range[q->nrange++ % RANGES] = (struct smbd_range){ .space = (uint8_t)space, .what = what, .lo = lo, .hi = hi,
							      .mid = r->message_id, .req_frame = r->req_frame };
}

static bool same_req(const struct rs_smbd_req_info *a, uint64_t mid, uint64_t req_frame)
{
	return a->message_id == mid && a->req_frame == req_frame;
}

/* A packet of the request (mid, req_frame) was sent again: its flag, in
 * every record that holds the request. */
static const struct rs_smbd_req_info *flag_resent(struct rs_smbdq *q, uint64_t mid, uint64_t req_frame, uint8_t what)
{
	struct smbd_req *r = g_hash_table_lookup(q->pending, &mid);
	struct rs_smbd_req_info *ri = r && r->i.req_frame == req_frame ? &r->i : NULL;
	for (uint32_t k = 0; !ri && k < DONE_RING && k < q->ndone; k++)
		if (same_req(&q->done[k].i, mid, req_frame))
			ri = &q->done[k].i;
	if (!ri)
		return NULL;
	if (!ri->resent) {
		q->i.cmd[cmd_slot(ri->cmd)].resent++;
		if (q->i.resent_requests < RS_SMBD_SLOW)
			q->i.resent[q->i.resent_requests] = *ri;
		q->i.resent_requests++;
	}
	ri->resent |= what;
	for (uint64_t k = 0; k < q->i.resent_requests && k < RS_SMBD_SLOW; k++)
		if (same_req(&q->i.resent[k], mid, req_frame))
			q->i.resent[k].resent |= what;
	for (uint32_t k = 0; k < q->i.nslow; k++)
		if (same_req(&q->i.slow[k], mid, req_frame))
			q->i.slow[k].resent |= what;
	for (uint64_t k = 0; k < q->i.nfailed && k < RS_SMBD_FAILED; k++)
		if (same_req(&q->i.failed[k], mid, req_frame))
			q->i.failed[k].resent |= what;
	return ri;
}

void rs_smbdq_resent(struct rs_smbdq *q, unsigned side, const struct rs_frame *f, uint32_t file, struct rs_verdict *v)
{
	/* A READ response carries the PSN of the READ request it answers: the
	 * other side's send queue. */
	unsigned space = rs_opinfo(f->bth.opcode)->response ? !side : side;
	q->i.resent_frames++;
	const struct smbd_range *hit = NULL;
	const struct rs_smbd_req_info *view = NULL;
	for (uint32_t k = 0; k < RANGES && k < q->nrange; k++) {
		const struct smbd_range *r = &q->range[(q->nrange - 1 - k) % RANGES];
		if (r->space != space || rs_psn_diff(f->bth.psn, r->lo) < 0 || rs_psn_diff(f->bth.psn, r->hi) > 0)
			continue;
		/* The packet's message may hold a compound: every request of it
		 * (the same PSNs, newest first) was sent again. */
		if (hit && (r->lo != hit->lo || r->hi != hit->hi || r->what != hit->what))
			break;
		hit = r;
		const struct rs_smbd_req_info *ri = flag_resent(q, r->mid, r->req_frame, r->what);
		view = ri ? ri : view; /* the chain's first */
	}
	if (!hit) {
		q->i.resent_untied++;
		return;
	}
	if (v && view && !v->ulp_tag_known)
		vset(v, hit->what == RS_SMBD_RESENT_TRANSFER ? RS_ULP_TRANSFER
			: hit->what == RS_SMBD_RESENT_RESPONSE ? RS_ULP_RESPONSE : RS_ULP_REQUEST,
		     view, file, false, 0, false);
	if (v && view)
		v->ulp_resent = true;
}

void rs_smbd_resent(struct rs_analyzer *a, struct rs_conn *cn, struct rs_flow *fl, const struct rs_frame *f,
		    const struct rs_frame_meta *m)
{
	rs_smbdq_resent(cn->pq, side_of(cn, fl), f, m->file_index, a->v);
}

/* ---- requests and responses -------------------------------------------------- */

static void keep_slow(struct rs_smbdq *q, const struct rs_smbd_req_info *r)
{
	uint32_t n = q->i.nslow, at = n;
	while (at > 0 && q->i.slow[at - 1].lat_ns < r->lat_ns)
		at--;
	if (at >= RS_SMBD_SLOW)
		return;
	if (n == RS_SMBD_SLOW)
		n--;
	memmove(&q->i.slow[at + 1], &q->i.slow[at], (n - at) * sizeof q->i.slow[0]);
	q->i.slow[at] = *r;
	q->i.nslow = n + 1;
}

static void request(struct rs_smbdq *q, const struct rs_smb2 *h, const struct rs_fref *first, uint64_t ts,
		    struct rs_verdict *v)
{
	if (h->command == RS_SMB2_CANCEL) {
		q->i.cancels++; /* never answered (MS-SMB2 3.3.5.16) */
		return;
	}
	struct smbd_req *old = g_hash_table_lookup(q->pending, &h->message_id);
	if (old) {
		q->i.mid_again++;
		for (unsigned k = 0; k < old->ndesc; k++)
			if (g_hash_table_lookup(q->by_token, GUINT_TO_POINTER(old->desc[k].token)) == old)
				g_hash_table_remove(q->by_token, GUINT_TO_POINTER(old->desc[k].token));
		g_hash_table_remove(q->pending, &h->message_id);
	}
	struct smbd_req *r = g_new0(struct smbd_req, 1);
	r->i = (struct rs_smbd_req_info){ .cmd = h->command, .message_id = h->message_id, .file = first->file,
					  .req_frame = first->frame };
	r->ts = ts;
	bool rdma = h->channel == RS_SMB2_CHANNEL_RDMA_V1 || h->channel == RS_SMB2_CHANNEL_RDMA_V1_INVALIDATE;
	if (rdma && (h->command == RS_SMB2_READ || h->command == RS_SMB2_WRITE)) {
		for (unsigned k = 0; k < h->ndesc && k < DESC_KEPT; k++) {
			r->desc[r->ndesc++] = h->desc[k];
			g_hash_table_replace(q->by_token, GUINT_TO_POINTER(h->desc[k].token), r);
		}
		r->desc_bytes = h->desc_bytes;
	}
	g_hash_table_insert(q->pending, &r->i.message_id, r);
	q->i.requests++;
	q->i.cmd[cmd_slot(h->command)].n++;
	vset(v, RS_ULP_REQUEST, &r->i, first->file, false, 0, false);
}

static void answered(struct rs_smbdq *q, struct smbd_req *r)
{
	for (unsigned k = 0; k < r->ndesc; k++)
		if (g_hash_table_lookup(q->by_token, GUINT_TO_POINTER(r->desc[k].token)) == r)
			g_hash_table_remove(q->by_token, GUINT_TO_POINTER(r->desc[k].token));
	if (!q->done)
		q->done = g_new(struct smbd_req, DONE_RING);
	q->done[q->ndone++ % DONE_RING] = *r;
	if (q->ndone > DONE_RING)
		q->ndone = DONE_RING + q->ndone % DONE_RING; /* stays past the ring's size: all slots in use */
	g_hash_table_remove(q->pending, &r->i.message_id);
}

/* Whether a final response's status says its request failed: an error
 * (MS-ERREF 2.3.1: severity 3, the status's top two bits set), but for the
 * STATUS_MORE_PROCESSING_REQUIRED of a SESSION_SETUP, which asks for the
 * authentication's next leg (MS-SMB2 3.3.5.5.3). Success, informational
 * and warning statuses (STATUS_NO_MORE_FILES ending a QUERY_DIRECTORY,
 * STATUS_BUFFER_OVERFLOW on a READ or an IOCTL) are not failures. */
static bool smb2_failed(uint16_t cmd, uint32_t status)
{
	if (status >> 30 != 3)
		return false;
	return !(cmd == RS_SMB2_SESSION_SETUP && status == RS_NT_STATUS_MORE_PROCESSING_REQUIRED);
}

static void response(struct rs_smbdq *q, const struct rs_smb2 *h, const struct rs_fref *at, uint64_t ts,
		     struct rs_verdict *v)
{
	if (h->message_id == UINT64_MAX) {
		q->i.notifications++; /* an oplock or lease break (MS-SMB2 2.2.23-24) */
		return;
	}
	struct smbd_req *r = g_hash_table_lookup(q->pending, &h->message_id);
	if (!r) {
		q->i.unmatched++;
		return;
	}
	struct rs_smbd_cmd_info *c = &q->i.cmd[cmd_slot(r->i.cmd)];
	if (h->status == RS_NT_STATUS_PENDING && h->async) {
		/* The interim response (MS-SMB2 3.3.4.2): the final one follows
		 * with the same MessageId and this AsyncId. */
		q->i.interims++;
		c->interim++;
		r->i.interim_frame = at->frame;
		vset(v, RS_ULP_OTHER, &r->i, at->file, false, 0, false);
		return;
	}
	q->i.responses++;
	uint64_t ns = ts > r->ts ? ts - r->ts : 0;
	r->i.lat_ns = ns;
	r->i.status = h->status;
	r->i.rsp_frame = at->frame;
	c->done++;
	rs_lat_add(&q->lat[cmd_slot(r->i.cmd)], ns);
	bool failed = smb2_failed(r->i.cmd, h->status);
	if (failed) {
		c->failed++;
		if (q->i.nfailed < RS_SMBD_FAILED)
			q->i.failed[q->i.nfailed] = r->i;
		q->i.nfailed++;
	}
	if (r->ndesc && h->status == RS_NT_STATUS_SUCCESS && r->i.xfer_bytes != r->desc_bytes)
		q->i.rdma_short++;
	vset(v, RS_ULP_RESPONSE, &r->i, at->file, true, ns, failed);
	keep_slow(q, &r->i);
	for (uint64_t k = 0; r->i.resent && k < q->i.resent_requests && k < RS_SMBD_SLOW; k++)
		if (same_req(&q->i.resent[k], r->i.message_id, r->i.req_frame))
			q->i.resent[k] = r->i;
	answered(q, r);
}

/* One header of an SMB2 message that is whole: `first` its first
 * fragment's first frame, `last` the message that ended it. */
static void header(struct rs_smbdq *q, unsigned side, const struct rs_smb2 *h, const struct rs_fref *first,
		   const struct rs_sendmsg *last, struct rs_verdict *v)
{
	struct rs_fref at = { last->file, last->last_frame };
	if (h->response != (side == 1)) {
		q->i.wrong_way++;
		return;
	}
	if (side == 0)
		request(q, h, first, last->last_ts, v);
	else
		response(q, h, &at, last->last_ts, v);
}

/* A later header of a compound, as the first's record. */
static void unlink_hdr(const struct rs_smb2_link *k, struct rs_smb2 *h)
{
	*h = (struct rs_smb2){ .response = k->response, .async = k->async, .credit_charge = k->credit_charge,
			       .status = k->status, .command = k->command, .credits = k->credits, .flags = k->flags,
			       .next_command = k->next_command, .message_id = k->message_id, .async_id = k->async_id,
			       .tree_id = k->tree_id, .session_id = k->session_id, .length = k->length,
			       .channel = k->channel, .remaining_bytes = k->remaining_bytes, .ndesc = k->ndesc,
			       .desc_dropped = k->desc_dropped, .desc_bytes = k->desc_bytes };
	for (unsigned i = 0; i < k->ndesc; i++)
		h->desc[i] = k->desc[i];
}

/* The PSNs of one of the request's SENDs. */
static void send_range(struct rs_smbdq *q, unsigned side, const struct rs_smb2 *h, const struct rs_sendmsg *m,
		       const struct rs_fref *first)
{
	if (side == 0) {
		struct rs_smbd_req_info r = { .message_id = h->message_id, .req_frame = first->frame };
		add_range(q, 0, RS_SMBD_RESENT_REQUEST, m->first_psn, m->last_psn, &r);
		return;
	}
	struct smbd_req *r = g_hash_table_lookup(q->pending, &h->message_id);
	if (r)
		add_range(q, 1, RS_SMBD_RESENT_RESPONSE, m->first_psn, m->last_psn, &r->i);
}

/* The PSNs of one of the message's SENDs, for each of its headers. */
static void send_ranges(struct rs_smbdq *q, unsigned side, const struct hdrs *hs, const struct rs_sendmsg *m,
			const struct rs_fref *first)
{
	send_range(q, side, hs->first, m, first);
	for (unsigned k = 0; k < hs->n; k++) {
		struct rs_smb2 h;
		unlink_hdr(&hs->link[k], &h);
		send_range(q, side, &h, m, first);
	}
}

/* An SMB2 message that is whole: each of its headers paired, the views'
 * verdict (v) the first's. */
static void smb2(struct rs_smbdq *q, unsigned side, const struct hdrs *hs, const struct rs_fref *first,
		 const struct rs_sendmsg *last, struct rs_verdict *v)
{
	struct rs_smbd_side_info *s = &q->side[side].i;
	s->smb2++;
	if (hs->first->next_command) {
		s->compound++;
		s->compound_headers += hs->n;
		s->compound_dropped += hs->dropped;
		s->compound_cut += hs->cut;
	}
	header(q, side, hs->first, first, last, v);
	for (unsigned k = 0; k < hs->n; k++) {
		struct rs_smb2 h;
		unlink_hdr(&hs->link[k], &h);
		header(q, side, &h, first, last, NULL);
	}
}

static void negotiate(struct rs_smbdq *q, unsigned side, const struct rs_smbd *d)
{
	struct rs_smbd_neg_info *n = &q->i.neg;
	if (side == 0) {
		n->req = true;
		n->min_version = d->min_version;
		n->max_version = d->max_version;
		n->req_credits_requested = d->credits_requested;
		n->req_preferred_send = d->preferred_send;
		n->req_max_receive = d->max_receive;
		n->req_max_fragmented = d->max_fragmented;
	} else {
		n->rsp = true;
		n->negotiated_version = d->negotiated_version;
		n->rsp_credits_requested = d->credits_requested;
		n->credits_granted = d->credits_granted;
		n->status = d->status;
		n->max_read_write = d->max_read_write;
		n->rsp_preferred_send = d->preferred_send;
		n->rsp_max_receive = d->max_receive;
		n->rsp_max_fragmented = d->max_fragmented;
		q->side[1].i.credits_granted += d->credits_granted;
	}
}

/* A data transfer message: its fragment step, and the SMB2 message it
 * makes whole. */
static void data(struct rs_smbdq *q, unsigned side, const struct rs_smbd *d, const struct rs_sendmsg *m,
		 struct rs_verdict *v)
{
	struct smbd_side *sd = &q->side[side];
	struct rs_smbd_side_info *s = &sd->i;
	s->data++;
	s->credits_granted += d->credits_granted;
	if (d->credits_requested > s->credits_requested_max)
		s->credits_requested_max = d->credits_requested;
	s->response_requested += (d->flags & RS_SMBD_RESPONSE_REQUESTED) != 0;
	/* MaxFragmentedSize is the receiver's: the other side's negotiate message. */
	uint32_t limit = side == 0 ? q->i.neg.rsp_max_fragmented : q->i.neg.req_max_fragmented;
	struct rs_fref here = { m->file, m->first_frame };
	struct hdrs whole = { &d->smb2, d->chain, d->nchain, d->chain_dropped, d->chain_cut };
	switch (rs_smbd_frag_feed(&sd->frag, d->remaining, d->data_length, limit)) {
	case RS_SMBD_FRAG_EMPTY:
		s->empty++;
		if (v)
			v->ulp_pdu = RS_ULP_OTHER; /* a credit grant or keep-alive */
		return;
	case RS_SMBD_FRAG_LIED:
		s->frag_lied++;
		return;
	case RS_SMBD_FRAG_TOO_LONG:
		s->frag_too_long++;
		return;
	case RS_SMBD_FRAG_WHOLE:
		if (!d->has_smb2) {
			s->smb2_bad++;
			return;
		}
		send_ranges(q, side, &whole, m, &here);
		smb2(q, side, &whole, &here, m, v);
		return;
	case RS_SMBD_FRAG_START:
		sd->have_hdr = d->has_smb2;
		if (d->has_smb2) {
			sd->hdr = d->smb2;
			memcpy(sd->chain, d->chain, sizeof sd->chain);
			sd->hs = (struct hdrs){ &sd->hdr, sd->chain, d->nchain, d->chain_dropped, d->chain_cut };
		}
		sd->first = here;
		break;
	case RS_SMBD_FRAG_MORE:
	case RS_SMBD_FRAG_DONE:
		break; /* its data continues the message: no header of its own */
	}
	if (!sd->have_hdr)
		return;
	send_ranges(q, side, &sd->hs, m, &sd->first);
	if (sd->frag.open) {
		/* A fragment of the message: the request's (or response's) so far. */
		struct smbd_req *r = g_hash_table_lookup(q->pending, &sd->hdr.message_id);
		struct rs_smbd_req_info ri = { .cmd = sd->hdr.command, .message_id = sd->hdr.message_id,
					       .file = sd->first.file, .req_frame = sd->first.frame };
		vset(v, side == 0 ? RS_ULP_REQUEST : RS_ULP_RESPONSE, side == 1 && r ? &r->i : &ri, m->file,
		     false, 0, false);
		return;
	}
	s->fragmented++;
	s->fragments += sd->frag.fragments;
	smb2(q, side, &sd->hs, &sd->first, m, v);
	sd->have_hdr = false;
}

void rs_smbdq_message(struct rs_smbdq *q, unsigned side, const struct rs_sendmsg *m, const struct rs_smbd *d,
		      struct rs_verdict *v)
{
	struct smbd_side *sd = &q->side[side];
	if (!m->complete) {
		/* Not read: a fragment lost in it would make the rest lie. */
		sd->i.incomplete++;
		memset(&sd->frag, 0, sizeof sd->frag);
		sd->have_hdr = false;
		return;
	}
	sd->i.sends++;
	if (!d) {
		sd->i.not_smbd++;
		return;
	}
	bool neg = side == 0 ? !q->i.neg.req : !q->i.neg.rsp;
	if (neg && d->kind == (side == 0 ? RS_SMBD_NEG_REQ : RS_SMBD_NEG_RSP) && d->outcome == RS_SMBD_OK) {
		negotiate(q, side, d);
		if (v)
			v->ulp_pdu = RS_ULP_OTHER;
		return;
	}
	if (d->kind != RS_SMBD_DATA) {
		sd->i.not_smbd++; /* a negotiate message again, or one shaped so: no data transfer message */
		return;
	}
	data(q, side, d, m, v);
}

/* A message the analyzer hands a queue that recognition told: one the
 * look analysed already (SEEN: skip it), the rest of one the look saw
 * begin (JOINED: *out is the whole, *d its first packet's decode), or
 * NEW. */
enum { HANDOFF_NEW = 0, HANDOFF_SEEN, HANDOFF_JOINED };

static int look_handoff(struct rs_smbd_look *l, unsigned side, const struct rs_sendmsg *m, struct rs_sendmsg *out,
			const struct rs_smbd **d)
{
	struct hf *x = &l->hf[(side == 0) == l->host_is_a ? 0 : 1];
	if (x->handed)
		return HANDOFF_NEW;
	if (x->fed && rs_psn_diff(m->last_psn, x->upto) <= 0)
		return HANDOFF_SEEN;
	x->handed = true;
	struct open_msg *o = &x->open;
	if (!o->active || !m->headless || m->first_psn != o->next_psn)
		return HANDOFF_NEW;
	/* The rest of the message the look saw begin. */
	o->active = false;
	*out = o->m;
	out->packets += m->packets;
	out->bytes += m->bytes;
	out->missing += m->missing + (o->broken && !o->m.missing);
	out->last_psn = m->last_psn;
	out->last_frame = m->last_frame;
	out->last_ts = m->last_ts;
	out->opcode = m->opcode;
	out->tailless = m->tailless;
	out->complete = !out->headless && !out->tailless && !out->missing;
	out->pdu = NULL;
	*d = o->has_d ? &o->d : NULL;
	return HANDOFF_JOINED;
}

void rs_smbd_message(struct rs_analyzer *a, struct rs_conn *cn, struct rs_flow *fl, const struct rs_sendmsg *m)
{
	struct rs_smbdq *q = cn->pq;
	unsigned side = side_of(cn, fl);
	const struct rs_smbd *d = m->pdu && (m->pdu->have & RS_PDU_SMBD) ? &m->pdu->smbd : NULL;
	struct rs_sendmsg joined;
	/* Recognised by shape: the look analysed the messages up to the
	 * frame that told it, and may hold one it saw begin. */
	if (q->look) {
		switch (look_handoff(q->look, side, m, &joined, &d)) {
		case HANDOFF_SEEN: return;
		case HANDOFF_JOINED: m = &joined; break;
		default: break;
		}
	}
	rs_smbdq_message(q, side, m, d, v_of(a, m));
}

/* ---- RDMA transfers ---------------------------------------------------------- */

static uint32_t path_mtu(const struct rs_flow *fl)
{
	if (fl->pmtu)
		return fl->pmtu;
	if (fl->peer && fl->peer->pmtu)
		return fl->peer->pmtu;
	if (fl->conn && fl->conn->path_mtu >= 1 && fl->conn->path_mtu <= 5)
		return 128u << fl->conn->path_mtu;
	return 0;
}

/* The same transfer's first packet again (a re-send): counted once. */
static bool xfer_again(struct rs_smbdq *q, uint32_t psn)
{
	for (unsigned i = 0; i < XFER_PSNS; i++)
		if (q->xfer_psn[i] == psn + 1)
			return true;
	q->xfer_psn[q->nxfer++ % XFER_PSNS] = psn + 1;
	return false;
}

static void transfer(struct rs_smbdq *q, uint32_t pmtu, const struct rs_frame *f, uint32_t file, struct rs_verdict *v)
{
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	bool read = op->kind == RS_KIND_READ_REQ;
	if (xfer_again(q, f->bth.psn))
		return;
	if (read) {
		q->i.rdma_reads++;
		q->i.rdma_read_bytes += f->reth.dmalen;
	} else {
		q->i.rdma_writes++;
		q->i.rdma_write_bytes += f->reth.dmalen;
	}
	struct smbd_req *r = g_hash_table_lookup(q->by_token, GUINT_TO_POINTER(f->reth.rkey));
	if (!r) {
		q->i.rdma_untied++;
		return;
	}
	bool inside = false;
	for (unsigned k = 0; k < r->ndesc && !inside; k++) {
		const struct rs_smbd_desc *d = &r->desc[k];
		inside = d->token == f->reth.rkey && f->reth.va >= d->offset &&
			 f->reth.va + f->reth.dmalen <= d->offset + (uint64_t)d->length;
	}
	q->i.rdma_outside += !inside;
	r->i.xfers++;
	r->i.xfer_bytes += f->reth.dmalen;
	q->i.cmd[cmd_slot(r->i.cmd)].rdma_bytes += f->reth.dmalen;
	/* Its PSNs: a WRITE First carries one path MTU (IBA 9.7.4); a READ
	 * takes one PSN per response packet. */
	uint32_t mtu = op->pos == RS_POS_FIRST ? f->payload_len : read ? pmtu : 0;
	uint32_t n = mtu ? (uint32_t)(((uint64_t)f->reth.dmalen + mtu - 1) / mtu) : 1;
	add_range(q, 1, RS_SMBD_RESENT_TRANSFER, f->bth.psn, (f->bth.psn + (n ? n : 1) - 1) & 0xFFFFFF, &r->i);
	if (read && !mtu) {
		/* Without a CM handshake the path MTU may not be known yet:
		 * the READ's first response packet, one MTU long, tells it. */
		q->range[(q->nrange - 1) % RANGES].elastic = true;
		q->range[(q->nrange - 1) % RANGES].len = f->reth.dmalen;
	}
	vset(v, RS_ULP_TRANSFER, &r->i, file, false, 0, false);
}

/* A READ response First from the client: the PSNs of the READ it answers,
 * if they waited for the path MTU. */
static void read_first(struct rs_smbdq *q, const struct rs_frame *f)
{
	for (uint32_t k = 0; k < RANGES && k < q->nrange; k++) {
		struct smbd_range *r = &q->range[(q->nrange - 1 - k) % RANGES];
		if (r->elastic && r->lo == f->bth.psn && f->payload_len) {
			uint32_t n = (uint32_t)(((uint64_t)r->len + f->payload_len - 1) / f->payload_len);
			r->hi = (r->lo + (n ? n : 1) - 1) & 0xFFFFFF;
			r->elastic = false;
			return;
		}
	}
}

/* For the views: a later packet of a transfer (a WRITE's Middle or Last, a
 * READ's responses from the client), by the PSNs its first one took. */
static void transfer_packet(struct rs_smbdq *q, const struct rs_frame *f, uint32_t file, struct rs_verdict *v)
{
	for (uint32_t k = 0; k < RANGES && k < q->nrange; k++) {
		const struct smbd_range *r = &q->range[(q->nrange - 1 - k) % RANGES];
		if (r->space == 1 && r->what == RS_SMBD_RESENT_TRANSFER && rs_psn_diff(f->bth.psn, r->lo) >= 0 &&
		    rs_psn_diff(f->bth.psn, r->hi) <= 0) {
			const struct smbd_req *x = g_hash_table_lookup(q->pending, &r->mid);
			if (x && x->i.req_frame == r->req_frame)
				vset(v, RS_ULP_TRANSFER, &x->i, file, false, 0, false);
			return;
		}
	}
}

void rs_smbdq_frame(struct rs_smbdq *q, unsigned side, const struct rs_frame *f, uint32_t file, uint32_t pmtu,
		    struct rs_verdict *v)
{
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	/* A SEND's reading until its message ends here (if it does: one
	 * after a gap ends where the gap fills, at a later frame). */
	if (v && rs_frame_pdu(f, RS_PDU_SMBD))
		v->ulp_pdu = RS_ULP_OTHER;
	if (side == 0 && op->kind == RS_KIND_READ_RESP && op->pos == RS_POS_FIRST)
		read_first(q, f);
	if (v && !(f->ext & RS_EXT_RETH) &&
	    (side == 1 ? op->kind == RS_KIND_WRITE || op->kind == RS_KIND_WRITE_IMM : op->kind == RS_KIND_READ_RESP))
		transfer_packet(q, f, file, v);
	if (side != 1 || !(f->ext & RS_EXT_RETH))
		return;
	if (op->kind == RS_KIND_READ_REQ || op->kind == RS_KIND_WRITE || op->kind == RS_KIND_WRITE_IMM)
		transfer(q, pmtu, f, file, v);
}

void rs_smbd_frame(struct rs_analyzer *a, struct rs_conn *cn, struct rs_flow *fl, const struct rs_frame *f,
		   const struct rs_frame_meta *m)
{
	unsigned side = side_of(cn, fl);
	rs_smbdq_frame(cn->pq, side, f, m->file_index, side == 1 ? path_mtu(fl) : 0, a->v);
}

/* ---- for the writers --------------------------------------------------------- */

uint64_t rs_smbdq_answers(const struct rs_smbdq *q)
{
	return q->i.responses + q->i.interims;
}

uint64_t rs_smbdq_wrong_way(const struct rs_smbdq *q)
{
	return q->i.wrong_way;
}

bool rs_smbdq_continues(const struct rs_smbdq *q, unsigned side)
{
	return q->side[side].frag.open;
}

struct rs_smbd_look **rs_smbdq_look(struct rs_smbdq *q)
{
	return &q->look;
}

bool rs_conn_smbd(const struct rs_conn *c, struct rs_smbd_info *out)
{
	const struct rs_smbdq *q = c->pq;
	if (!q || !rs_smbdirect_row(c->ulp))
		return false;
	*out = q->i;
	for (unsigned k = 0; k < 2; k++) {
		out->side[k] = q->side[k].i;
		out->side[k].frag_open = q->side[k].frag.open;
	}
	out->pending = g_hash_table_size(q->pending);
	for (unsigned i = 0; i < RS_SMBD_CMDS; i++)
		out->cmd[i].lat = rs_lat_figures_of(&q->lat[i]);
	return true;
}
