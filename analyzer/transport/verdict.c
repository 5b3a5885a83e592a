/*
 * verdict.c — the per-frame verdicts (struct rs_verdict, analyzer.h): what
 * the trackers concluded about the frame being added, with the frame
 * numbers that tie it to others. The decisions are psn.c's (new, ahead,
 * re-sent, filled, late), cmtrack.c's (which exchange a CM message belongs
 * to) and pair.c's (which request stream a response answers); this file
 * only remembers where things were, so that a verdict can name the frame:
 *
 *  - per half-flow, its last RS_VERDICT_SENT request packets (PSN, opcode,
 *    length, frame): the earlier sending of a re-sent PSN, the request an
 *    ACK or READ response answers (an RC response reuses its request's PSN,
 *    IBA vol 1 9.7.5.1);
 *  - per half-flow and kind (SEND, WRITE, READ response), the message in
 *    progress on the wire: the First packet seen last, and the consecutive
 *    PSNs after it (IBA 9.7.4), so a packet is "packet 3 of the message
 *    that began in frame 12";
 *  - per response half-flow, the newest PSN sequence error NAK it carried
 *    (9.7.5.2: the requester resends from the PSN it names);
 *  - per sender and Communication ID, the newest REQ, REP, DREQ and
 *    SIDR_REQ (a reply names the message it answers by the receiver's
 *    Communication ID, 12.6.1, as cmtrack.c finds the exchange; a DREQ
 *    whose REQ and REP were not captured still has its DREP).
 *
 * A response answers the request half-flow pair.c paired it with. While a
 * half-flow has no peer (no CM exchange seen, and inference has not found
 * its requests yet: a capture that begins inside a go-back-N, say), its
 * requests, responses and NAKs are matched with those of the unpaired
 * half-flows between the same two hosts, the other way round, that
 * pair.c's inference would consider: the newest with the PSN wins.
 *
 * Nothing is kept per frame, and nothing at all until rs_analyzer_add_v()
 * is first called. A frame is remembered as a reference only if it was
 * decoded whole.
 */
#include <string.h>

#include "analyzer/transport/transport.h"

struct rs_vsent {             /* one request packet */
	uint32_t psn_op;      /* PSN << 8 | opcode */
	uint32_t len;         /* the RETH's DMA length if it has one, else its payload */
	uint32_t msg_no;      /* its verdict's msg_no */
	uint64_t frame;
};

enum { VMSG_SEND, VMSG_WRITE, VMSG_READ_RESP, VMSG__COUNT };

struct rs_vmsg {              /* the message in progress of one kind */
	bool used;
	uint32_t total, done, next_psn, packets, no;
	uint64_t first_frame, req_frame;
};

struct rs_vflow {
	/* The last request packets: `len` of them in `sent[cap]`; the array
	 * grows to RS_VERDICT_SENT, then `next` is the oldest, overwritten. */
	struct rs_vsent *sent;
	uint32_t cap, len, next;
	bool have_nak;
	uint32_t nak_psn;
	uint64_t nak_frame;
	struct rs_vmsg msg[VMSG__COUNT];
	uint32_t msgs[VMSG__COUNT]; /* messages numbered so far, by kind */
};

enum { VCM_REQ, VCM_REP, VCM_DREQ, VCM_SIDR_REQ, VCM__COUNT };

struct rs_vstate {
	GHashTable *flows;    /* flow id + 1 -> struct rs_vflow */
	GHashTable *cms;      /* struct rs_vcmkey -> uint64_t: the newest such message's frame */
	uint64_t naks;        /* PSN sequence error NAKs remembered (none: no half-flow looks for one) */
	GArray *fixes;        /* struct rs_verdict_fix not handed on yet (rs_analyzer_fix) */
	guint fix_next;
};

/* Unpaired half-flows looked at for a match (pair.c's inference looks at
 * as many). */
#define VSCAN 1024
/* Corrections kept until rs_analyzer_fix() takes them. */
#define VFIXES 65536

/* A CM message is found as cmtrack.c finds its exchange (IBA 12.6.1):
 * under its sender and its own (local) Communication ID; a reply names the
 * message it answers by the receiver and the remote Communication ID. */
struct rs_vcmkey {
	struct rs_hostkey host;   /* sender, local comm ID (SIDR: request ID) */
	uint32_t slot;            /* VCM_* */
};

static guint vcmkey_hash(gconstpointer p)
{
	const struct rs_vcmkey *k = p;
	return rs_hostkey_hash(&k->host) * 31u + k->slot;
}

static gboolean vcmkey_equal(gconstpointer x, gconstpointer y)
{
	return memcmp(x, y, sizeof(struct rs_vcmkey)) == 0;
}

static uint64_t *vcm_at(struct rs_analyzer *a, const struct rs_addr *ad, uint32_t id, int slot, bool make)
{
	struct rs_vcmkey k;
	memset(&k, 0, sizeof k);
	rs_hostkey_set(&k.host, ad, id);
	k.slot = (uint32_t)slot;
	uint64_t *frame = g_hash_table_lookup(a->vs->cms, &k);
	if (!frame && make) {
		frame = g_new0(uint64_t, 1);
		g_hash_table_insert(a->vs->cms, g_memdup2(&k, sizeof k), frame);
	}
	return frame;
}

static uint64_t vcm_frame(struct rs_analyzer *a, const struct rs_addr *ad, uint32_t id, int slot)
{
	const uint64_t *frame = vcm_at(a, ad, id, slot, false);
	return frame ? *frame : 0;
}

static void vflow_free(gpointer p)
{
	struct rs_vflow *vf = p;
	g_free(vf->sent);
	g_free(vf);
}

static void vstate_init(struct rs_vstate *vs)
{
	vs->flows = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, vflow_free);
	vs->cms = g_hash_table_new_full(vcmkey_hash, vcmkey_equal, g_free, g_free);
	vs->naks = 0;
	vs->fixes = g_array_new(FALSE, FALSE, sizeof(struct rs_verdict_fix));
	vs->fix_next = 0;
}

static void vstate_clear(struct rs_vstate *vs)
{
	g_hash_table_destroy(vs->flows);
	g_hash_table_destroy(vs->cms);
	g_array_free(vs->fixes, TRUE);
}

void rs_v_free(struct rs_analyzer *a)
{
	if (!a->vs)
		return;
	vstate_clear(a->vs);
	g_free(a->vs);
	a->vs = NULL;
}

void rs_v_new_file(struct rs_analyzer *a)
{
	if (!a->vs)
		return;
	vstate_clear(a->vs);
	vstate_init(a->vs);
}

/* ---- lookups ------------------------------------------------------------------ */

static struct rs_vflow *vflow_of(struct rs_analyzer *a, const struct rs_flow *fl, bool make)
{
	gpointer key = GUINT_TO_POINTER(fl->id + 1);
	struct rs_vflow *vf = g_hash_table_lookup(a->vs->flows, key);
	if (!vf && make) {
		vf = g_new0(struct rs_vflow, 1);
		g_hash_table_insert(a->vs->flows, key, vf);
	}
	return vf;
}

static void sent_add(struct rs_vflow *vf, const struct rs_frame *f, uint64_t frame, uint32_t msg_no)
{
	uint32_t i;
	if (vf->len == vf->cap && vf->cap < RS_VERDICT_SENT) {
		vf->cap = vf->cap ? vf->cap * 2 : 8;
		vf->sent = g_renew(struct rs_vsent, vf->sent, vf->cap);
	}
	if (vf->len < vf->cap) {
		i = vf->len++;
	} else {
		i = vf->next;
		vf->next = (vf->next + 1) % vf->cap;
	}
	vf->sent[i] = (struct rs_vsent){ .psn_op = f->bth.psn << 8 | f->bth.opcode, .frame = frame, .msg_no = msg_no,
					 .len = (f->ext & RS_EXT_RETH) ? f->reth.dmalen : f->payload_len };
}

/* The newest remembered request packet with this PSN (a READ request only,
 * if read_only). */
static const struct rs_vsent *sent_find(const struct rs_vflow *vf, uint32_t psn, bool read_only)
{
	if (!vf || !vf->len)
		return NULL;
	uint32_t newest = vf->len < vf->cap ? vf->len - 1 : (vf->next + vf->cap - 1) % vf->cap;
	for (uint32_t k = 0; k < vf->len; k++) {
		const struct rs_vsent *e = &vf->sent[(newest + vf->cap - k) % vf->cap];
		if (e->psn_op >> 8 != psn)
			continue;
		if (read_only && rs_opinfo((uint8_t)e->psn_op)->kind != RS_KIND_READ_REQ)
			continue;
		return e;
	}
	return NULL;
}

/* The newest packet with this PSN that fl's requests could be answering:
 * on its peer, or on the unpaired half-flows the other way if it has none. */
static const struct rs_vsent *answered(struct rs_analyzer *a, const struct rs_flow *fl, uint32_t psn,
				       bool read_only)
{
	if (fl->peer)
		return sent_find(vflow_of(a, fl->peer, false), psn, read_only);
	guint n;
	struct rs_flow *const *c = rs_pair_unpaired(a, fl, &n);
	const struct rs_vsent *best = NULL;
	for (guint i = n, seen = 0; i-- > 0 && seen < VSCAN; seen++) {
		if (!c[i] || c[i]->peer || c[i] == fl)
			continue;
		const struct rs_vsent *e = sent_find(vflow_of(a, c[i], false), psn, read_only);
		if (e && (!best || e->frame > best->frame))
			best = e;
	}
	return best;
}

/* The newest PSN sequence error NAK that answered fl's requests: on its
 * peer, or on the unpaired half-flows the other way if it has none. */
static const struct rs_vflow *nak_of(struct rs_analyzer *a, const struct rs_flow *fl)
{
	if (!a->vs->naks)
		return NULL;
	if (fl->peer) {
		const struct rs_vflow *p = vflow_of(a, fl->peer, false);
		return p && p->have_nak ? p : NULL;
	}
	guint n;
	struct rs_flow *const *c = rs_pair_unpaired(a, fl, &n);
	const struct rs_vflow *best = NULL;
	for (guint i = n, seen = 0; i-- > 0 && seen < VSCAN; seen++) {
		if (!c[i] || c[i]->peer || c[i] == fl)
			continue;
		const struct rs_vflow *p = vflow_of(a, c[i], false);
		if (p && p->have_nak && (!best || p->nak_frame > best->nak_frame))
			best = p;
	}
	return best;
}

/* ---- messages ----------------------------------------------------------------- */

static int vmsg_kind(uint8_t kind)
{
	switch (kind) {
	case RS_KIND_SEND: case RS_KIND_SEND_IMM: case RS_KIND_SEND_INV: return VMSG_SEND;
	case RS_KIND_WRITE: case RS_KIND_WRITE_IMM: return VMSG_WRITE;
	case RS_KIND_READ_RESP: return VMSG_READ_RESP;
	default: return -1;
	}
}

/* Where the packet sits in its message; `req`: a READ response's request. */
static void msg_position(struct rs_verdict *v, struct rs_vflow *vf, int k, const struct rs_frame *f,
			 const struct rs_opinfo *op, uint64_t frame, const struct rs_vsent *req)
{
	static const uint8_t kinds[VMSG__COUNT] = { RS_KIND_SEND, RS_KIND_WRITE, RS_KIND_READ_RESP };
	v->msg = kinds[k];
	if (op->pos == RS_POS_FIRST || op->pos == RS_POS_ONLY) {
		/* A first packet sent again keeps its message's number (when its
		 * first sending is still remembered). */
		if (v->psn == RS_V_PSN_DUPLICATE) {
			const struct rs_vsent *e = k != VMSG_READ_RESP ? sent_find(vf, f->bth.psn, false) : NULL;
			v->msg_no = e ? e->msg_no : 0;
		} else {
			v->msg_no = ++vf->msgs[k];
		}
		v->msg_known = true;
		v->msg_first_frame = frame;
		v->msg_index = 1;
		if (k == VMSG_READ_RESP && req) {
			v->msg_total = req->len;
			v->msg_req_frame = req->frame;
		} else if (f->ext & RS_EXT_RETH) {
			v->msg_total = f->reth.dmalen;
		} else if (op->pos == RS_POS_ONLY) {
			v->msg_total = f->payload_len;
		}
		return;
	}
	const struct rs_vmsg *m = &vf->msg[k];
	if (m->used && m->next_psn == f->bth.psn) {
		v->msg_known = true;
		v->msg_first_frame = m->first_frame;
		v->msg_req_frame = m->req_frame;
		v->msg_total = m->total;
		v->msg_offset = m->done;
		v->msg_index = m->packets + 1;
		v->msg_no = m->no;
	}
}

/* After it: the message continues, begins or ends with this packet. */
static void msg_remember(const struct rs_verdict *v, struct rs_vflow *vf, int k, const struct rs_frame *f,
			 const struct rs_opinfo *op)
{
	struct rs_vmsg *m = &vf->msg[k];
	if (op->pos == RS_POS_FIRST)
		*m = (struct rs_vmsg){ .used = true, .first_frame = v->msg_first_frame, .req_frame = v->msg_req_frame,
				       .total = v->msg_total, .no = v->msg_no };
	else if (!m->used || !v->msg_known || op->pos == RS_POS_ONLY)
		return;
	if (op->pos == RS_POS_LAST) {
		m->used = false;
		return;
	}
	m->done += f->payload_len;
	m->packets++;
	m->next_psn = (f->bth.psn + 1) & RS_PSN_MASK;
}

/* ---- PSN streams ---------------------------------------------------------------- */

void rs_v_psn(struct rs_verdict *v, int32_t d, bool fresh)
{
	v->psn = d == 0 ? RS_V_PSN_NEXT : d > 0 ? RS_V_PSN_AHEAD : fresh ? RS_V_PSN_FILL : RS_V_PSN_DUPLICATE;
	v->gap = d > 0 ? (uint32_t)d : 0;
}

/* The REQ's Starting PSN is the first PSN the client's QP receives, the
 * REP's the first the server's QP receives (cmtrack.c): the newest of the
 * two that names this packet's PSN and destination QP. */
static void start_psn(struct rs_analyzer *a, const struct rs_flow *fl, const struct rs_frame *f)
{
	const struct rs_conn *c = fl->conn;
	if (!c || c->kind != RS_CONN_RC)
		return;
	struct rs_verdict *v = a->v;
	uint32_t psn = f->bth.psn, qpn = f->bth.destqp;
	uint64_t req = c->have_req_psn && c->req_psn == psn && c->client_qpn == qpn
		? vcm_frame(a, &c->client, c->client_comm_id, VCM_REQ) : 0;
	uint64_t rep = c->have_rep_psn && c->rep_psn == psn && c->server_qpn == qpn
		? vcm_frame(a, &c->server, c->server_comm_id, VCM_REP) : 0;
	if (!req && !rep)
		return;
	v->start_frame = rep > req ? rep : req;
	v->start_attr = rep > req ? UMAD_CM_ATTR_REP : UMAD_CM_ATTR_REQ;
	v->start_qpn = qpn;
}

void rs_v_request(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f,
		  const struct rs_frame_meta *m, int32_t d, bool fresh)
{
	struct rs_verdict *v = a->v;
	struct rs_vflow *vf = vflow_of(a, fl, true);
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	uint32_t psn = f->bth.psn;

	rs_v_psn(v, d, fresh);
	if (v->psn == RS_V_PSN_DUPLICATE) {
		const struct rs_vsent *e = sent_find(vf, psn, false);
		v->resent_of = e ? e->frame : 0;
	}
	const struct rs_vflow *nk = nak_of(a, fl);
	if (nk && (nk->nak_psn == psn || (v->resent_of && nk->nak_frame > v->resent_of))) {
		v->nak_frame = nk->nak_frame;
		v->nak_psn = nk->nak_psn;
	}
	if (!v->resent_of)
		start_psn(a, fl, f);
	int k = vmsg_kind(op->kind);
	if (k >= 0)
		msg_position(v, vf, k, f, op, m->frame_no, NULL);
	if (f->outcome != RS_OK)
		return;
	sent_add(vf, f, m->frame_no, v->msg_no);
	if (k >= 0)
		msg_remember(v, vf, k, f, op);
}

void rs_v_response(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f,
		   const struct rs_frame_meta *m)
{
	struct rs_verdict *v = a->v;
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	const struct rs_vsent *e = NULL;

	if (op->kind == RS_KIND_ACK || op->kind == RS_KIND_ATOMIC_ACK)
		e = answered(a, fl, f->bth.psn, false);
	else if (op->kind == RS_KIND_READ_RESP && (op->pos == RS_POS_FIRST || op->pos == RS_POS_ONLY))
		e = answered(a, fl, f->bth.psn, true);
	if (e) {
		v->req_frame = e->frame;
		v->req_opcode = (uint8_t)e->psn_op;
	}
	if (op->kind != RS_KIND_READ_RESP)
		return;
	struct rs_vflow *vf = vflow_of(a, fl, true);
	msg_position(v, vf, VMSG_READ_RESP, f, op, m->frame_no, e);
	if (f->outcome == RS_OK)
		msg_remember(v, vf, VMSG_READ_RESP, f, op);
}

void rs_v_nak(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f, const struct rs_fref *at)
{
	if (f->outcome != RS_OK || rs_opinfo(f->bth.opcode)->kind != RS_KIND_ACK)
		return;
	struct rs_vflow *vf = vflow_of(a, fl, true);
	a->vs->naks++;
	vf->have_nak = true;
	vf->nak_psn = f->bth.psn;
	vf->nak_frame = at->frame;
}

void rs_v_late(struct rs_analyzer *a, const struct rs_fref *at)
{
	if (at->file == a->cur_file)
		a->v->late_frame = at->frame;
}

static uint8_t v_resend(uint8_t cause)
{
	static const uint8_t of[RS_RESEND__COUNT] = {
		[RS_RESEND_NAK] = RS_V_RESEND_NAK, [RS_RESEND_RNR] = RS_V_RESEND_RNR,
		[RS_RESEND_TIMEOUT] = RS_V_RESEND_TIMEOUT, [RS_RESEND_READ] = RS_V_RESEND_READ,
		[RS_RESEND_UNKNOWN] = RS_V_RESEND_UNKNOWN,
	};
	return cause < RS_RESEND__COUNT ? of[cause] : RS_V_RESEND_NONE;
}

void rs_v_resend(struct rs_analyzer *a, uint8_t cause, const struct rs_fref *after, uint64_t wait_ns)
{
	struct rs_verdict *v = a->v;
	v->resend = v_resend(cause);
	v->resend_after = after->frame && after->file == a->cur_file ? after->frame : 0;
	v->resend_wait_ns = wait_ns;
}

void rs_v_fix(struct rs_analyzer *a, uint64_t frame, uint8_t cause, const struct rs_fref *after, uint64_t wait_ns)
{
	struct rs_verdict_fix fx = { .frame = frame, .resend = v_resend(cause), .resend_wait_ns = wait_ns,
				     .resend_after = after->frame && after->file == a->cur_file ? after->frame : 0 };
	/* A caller that never takes them (verdicts for --qp alone) keeps the newest. */
	struct rs_vstate *vs = a->vs;
	if (vs->fixes->len >= VFIXES) {
		guint gone = vs->fixes->len / 2;
		g_array_remove_range(vs->fixes, 0, gone);
		vs->fix_next = vs->fix_next > gone ? vs->fix_next - gone : 0;
	}
	g_array_append_val(vs->fixes, fx);
}

void rs_v_fix_use(struct rs_analyzer *a, uint64_t frame, uint64_t use)
{
	struct rs_verdict_fix fx = { .frame = frame, .adv_use = use };
	struct rs_vstate *vs = a->vs;
	if (vs->fixes->len >= VFIXES) {
		guint gone = vs->fixes->len / 2;
		g_array_remove_range(vs->fixes, 0, gone);
		vs->fix_next = vs->fix_next > gone ? vs->fix_next - gone : 0;
	}
	g_array_append_val(vs->fixes, fx);
}

bool rs_analyzer_fix(struct rs_analyzer *a, struct rs_verdict_fix *fx)
{
	struct rs_vstate *vs = a->vs;
	if (!vs || vs->fix_next >= vs->fixes->len) {
		if (vs && vs->fixes->len)
			g_array_set_size(vs->fixes, vs->fix_next = 0);
		return false;
	}
	*fx = g_array_index(vs->fixes, struct rs_verdict_fix, vs->fix_next++);
	return true;
}

void rs_v_not_resent(struct rs_verdict *v, bool late)
{
	v->resend = late ? RS_V_RESEND_LATE : RS_V_RESEND_NETDUP;
}

/* ---- CM ---------------------------------------------------------------------------- */

static int vcm_slot(uint16_t attr)
{
	switch (attr) {
	case UMAD_CM_ATTR_REQ: return VCM_REQ;
	case UMAD_CM_ATTR_REP: return VCM_REP;
	case UMAD_CM_ATTR_DREQ: return VCM_DREQ;
	case UMAD_CM_ATTR_SIDR_REQ: return VCM_SIDR_REQ;
	default: return -1;
	}
}

/* The message a reply answers, and the remote ID it names it by. */
static int vcm_answered(const struct rs_mad *mad, uint32_t *remote)
{
	switch (mad->hdr.attr_id) {
	case UMAD_CM_ATTR_REP:
		*remote = mad->u.rep.remote_comm_id;
		return VCM_REQ;
	case UMAD_CM_ATTR_REJ:
		*remote = mad->u.rej.remote_comm_id;
		return mad->u.rej.msg_rejected == 1 ? VCM_REP : VCM_REQ;
	case UMAD_CM_ATTR_MRA:
		*remote = mad->u.mra.remote_comm_id;
		return mad->u.mra.msg_mraed == 1 ? VCM_REP : VCM_REQ;
	case UMAD_CM_ATTR_RTU:
		*remote = mad->u.ids.remote_comm_id;
		return VCM_REP;
	case UMAD_CM_ATTR_DREP:
		*remote = mad->u.ids.remote_comm_id;
		return VCM_DREQ;
	case UMAD_CM_ATTR_SIDR_REP:
		*remote = mad->u.sidr_rep.request_id;
		return VCM_SIDR_REQ;
	default:
		return -1;
	}
}

/* Its own ID: the local Communication ID, or a SIDR request ID. */
static uint32_t vcm_local(const struct rs_mad *mad)
{
	switch (mad->hdr.attr_id) {
	case UMAD_CM_ATTR_REQ: return mad->u.req.local_comm_id;
	case UMAD_CM_ATTR_REP: return mad->u.rep.local_comm_id;
	case UMAD_CM_ATTR_SIDR_REQ: return mad->u.sidr_req.request_id;
	default: return mad->u.ids.local_comm_id;
	}
}

static void cm_verdict(struct rs_analyzer *a, struct rs_verdict *v, const struct rs_frame *f,
		       const struct rs_frame_meta *m)
{
	const struct rs_mad *mad = f->mad;
	uint32_t remote = 0;
	int ans = vcm_answered(mad, &remote), slot = vcm_slot(mad->hdr.attr_id);
	/* The IDs lead the attribute: 4 bytes of the one, 4 of the other. */
	if (ans >= 0 && rs_mad_captured(mad, RS_MAD_HDR_SIZE, 8))
		v->cm_answers = vcm_frame(a, &f->dst, remote, ans);
	if (slot >= 0 && (f->have & RS_HAVE_CM) && rs_mad_captured(mad, RS_MAD_HDR_SIZE, 4))
		*vcm_at(a, &f->src, vcm_local(mad), slot, true) = m->frame_no;
}

/* ---- the entry point ------------------------------------------------------------ */

void rs_v_begin(struct rs_analyzer *a, const struct rs_frame_meta *m, const struct rs_frame *f,
		struct rs_verdict *v)
{
	memset(v, 0, sizeof *v);
	if (!a->vs) {
		a->vs = g_new0(struct rs_vstate, 1);
		vstate_init(a->vs);
	}
	/* What the frame itself says, as rs_analyzer_add() counts it: a bad
	 * ICRC that matches with another UDP source port (dissect's icrc_sport)
	 * is the capture's doing; a frame counts as sliced if decoded whole. */
	if (f->roce != RS_ROCE_NONE && (f->have & RS_HAVE_BTH))
		v->icrc = f->icrc_status == RS_CRC_BAD && f->icrc_sport ? RS_V_ICRC_PORT_REWRITTEN
			  : f->icrc_status == RS_CRC_BAD ? RS_V_ICRC_BAD
			  : f->icrc_status == RS_CRC_OK ? RS_V_ICRC_OK : RS_V_ICRC_UNCHECKED;
	v->sliced = f->outcome == RS_OK ? f->sliced : RS_SLICE_NONE;
	/* CM messages are matched by their Communication IDs, whether or not
	 * cmtrack.c knows their exchange. */
	if (f->roce != RS_ROCE_NONE && (f->have & RS_HAVE_BTH) && (f->have & RS_HAVE_MAD) && f->mad->is_cm)
		cm_verdict(a, v, f, m);
}
