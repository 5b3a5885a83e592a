/*
 * walk_track.c — the little the walk remembers between frames, so that it
 * can say "this ACK covers the WRITE in frame 4", "bytes 1024-2047 of the
 * 4096-byte READ response", "this PSN was already sent in frame 17" or
 * "this REP answers the REQ in frame 1".
 *
 * Matching uses what the packets carry: an RC response goes back between the
 * same two addresses and reuses the request's PSN (IBA vol 1 9.7); later
 * packets of a message continue with consecutive PSNs to the same QP; CM
 * replies name the Communication ID of the message they answer (12.6).
 * Everything is bounded; what has fallen out is simply not mentioned.
 */
#include <string.h>

#include "cli/walk_int.h"

#define PSN_MASK 0xFFFFFFu

void walk_track_reset(struct walk *w)
{
	memset(w->reqs, 0, sizeof w->reqs);
	memset(w->msgs, 0, sizeof w->msgs);
	memset(w->cms, 0, sizeof w->cms);
	memset(w->naks, 0, sizeof w->naks);
	w->nreq = w->ncm = w->nnak = 0;
}

/* The message family a packet continues: SENDs, WRITEs or READ responses. */
static uint8_t family(uint8_t kind)
{
	switch (kind) {
	case RS_KIND_SEND: case RS_KIND_SEND_IMM: case RS_KIND_SEND_INV: return RS_KIND_SEND;
	case RS_KIND_WRITE: case RS_KIND_WRITE_IMM: return RS_KIND_WRITE;
	case RS_KIND_READ_RESP: return RS_KIND_READ_RESP;
	default: return RS_KIND_NONE;
	}
}

/* Requests travel requester -> responder on RC, UC, RD and XRC. */
static bool is_request(const struct rs_frame *f)
{
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	uint8_t tr = f->bth.opcode & 0xE0;
	return op->defined && !op->response && tr != RS_TR_UD && tr != RS_TR_CNP;
}

/* The newest remembered request between src and dst (either way round). */
static const struct walk_req *find_req(const struct walk *w, const struct rs_addr *src, const struct rs_addr *dst,
				       int64_t destqp, uint32_t psn, bool read_only)
{
	unsigned n = w->nreq < WALK_REQS ? w->nreq : WALK_REQS;
	for (unsigned i = 0; i < n; i++) {
		const struct walk_req *r = &w->reqs[(w->nreq - 1 - i) % WALK_REQS];
		if (r->psn != psn || !rs_addr_equal(&r->src, src) || !rs_addr_equal(&r->dst, dst))
			continue;
		if (destqp >= 0 && r->destqp != (uint32_t)destqp)
			continue;
		if (read_only && rs_opinfo(r->opcode)->kind != RS_KIND_READ_REQ)
			continue;
		return r;
	}
	return NULL;
}

static struct walk_msg *find_msg(struct walk *w, const struct rs_frame *f, uint8_t fam)
{
	for (unsigned i = 0; i < WALK_MSGS; i++) {
		struct walk_msg *m = &w->msgs[i];
		if (m->used && m->kind == fam && m->destqp == f->bth.destqp && rs_addr_equal(&m->src, &f->src) &&
		    rs_addr_equal(&m->dst, &f->dst))
			return m;
	}
	return NULL;
}

static const struct walk_cm *find_cm(const struct walk *w, uint16_t attr, uint32_t id)
{
	unsigned n = w->ncm < WALK_CMS ? w->ncm : WALK_CMS;
	for (unsigned i = 0; i < n; i++) {
		const struct walk_cm *c = &w->cms[(w->ncm - 1 - i) % WALK_CMS];
		if (c->attr == attr && c->id == id)
			return c;
	}
	return NULL;
}

static void lookup_cm(struct walk *w)
{
	const struct rs_mad *m = &w->f->mad;
	if (!m->is_cm)
		return;
	switch (m->hdr.attr_id) {
	case UMAD_CM_ATTR_REP:
		w->cm_prev = find_cm(w, UMAD_CM_ATTR_REQ, m->u.rep.remote_comm_id);
		break;
	case UMAD_CM_ATTR_REJ:
		w->cm_prev = find_cm(w, m->u.rej.msg_rejected == 1 ? UMAD_CM_ATTR_REP : UMAD_CM_ATTR_REQ,
				     m->u.rej.remote_comm_id);
		break;
	case UMAD_CM_ATTR_MRA:
		w->cm_prev = find_cm(w, m->u.mra.msg_mraed == 1 ? UMAD_CM_ATTR_REP : UMAD_CM_ATTR_REQ,
				     m->u.mra.remote_comm_id);
		break;
	case UMAD_CM_ATTR_RTU:
		w->cm_prev = find_cm(w, UMAD_CM_ATTR_REP, m->u.ids.remote_comm_id);
		break;
	case UMAD_CM_ATTR_DREP:
		w->cm_prev = find_cm(w, UMAD_CM_ATTR_DREQ, m->u.ids.remote_comm_id);
		break;
	case UMAD_CM_ATTR_SIDR_REP:
		w->cm_prev = find_cm(w, UMAD_CM_ATTR_SIDR_REQ, m->u.sidr_rep.request_id);
		break;
	default:
		break;
	}
}

void walk_track_lookup(struct walk *w)
{
	const struct rs_frame *f = w->f;
	memset(&w->pos, 0, sizeof w->pos);
	w->answers = w->earlier = NULL;
	w->cm_prev = w->cm_psn = NULL;
	w->nak = NULL;
	if (f->have & RS_HAVE_MAD)
		lookup_cm(w);
	if (!(f->have & RS_HAVE_BTH))
		return;

	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	uint32_t psn = f->bth.psn;
	uint8_t fam = family(op->kind);

	if (is_request(f)) {
		w->earlier = find_req(w, &f->src, &f->dst, f->bth.destqp, psn, false);
		/* The newest NAK from the responder that this packet follows: the one
		 * asking for exactly this PSN, or any after the packet's first sending. */
		unsigned nn = w->nnak < WALK_NAKS ? w->nnak : WALK_NAKS;
		for (unsigned i = 0; i < nn; i++) {
			const struct walk_nak *k = &w->naks[(w->nnak - 1 - i) % WALK_NAKS];
			if (!rs_addr_equal(&k->src, &f->dst) || !rs_addr_equal(&k->dst, &f->src))
				continue;
			if (k->psn == psn || (w->earlier && k->frame > w->earlier->frame)) {
				w->nak = k;
				break;
			}
		}
		unsigned n = w->ncm < WALK_CMS ? w->ncm : WALK_CMS;
		for (unsigned i = 0; i < n && !w->earlier; i++) {
			const struct walk_cm *c = &w->cms[(w->ncm - 1 - i) % WALK_CMS];
			if ((c->attr == UMAD_CM_ATTR_REQ || c->attr == UMAD_CM_ATTR_REP) && c->psn == psn &&
			    c->qpn == f->bth.destqp) {
				w->cm_psn = c;
				break;
			}
		}
	}
	else if (op->kind == RS_KIND_ACK || op->kind == RS_KIND_ATOMIC_ACK)
		w->answers = find_req(w, &f->dst, &f->src, -1, psn, false);
	else if (op->kind == RS_KIND_READ_RESP && (op->pos == RS_POS_FIRST || op->pos == RS_POS_ONLY))
		w->answers = find_req(w, &f->dst, &f->src, -1, psn, true);

	if (!fam)
		return;
	if (op->pos == RS_POS_FIRST || op->pos == RS_POS_ONLY) {
		w->pos.known = true;
		w->pos.first_frame = w->pkt->frame_no;
		w->pos.index = 1;
		if (fam == RS_KIND_READ_RESP && w->answers) {
			w->pos.total = w->answers->len;
			w->pos.req_frame = w->answers->frame;
		} else if ((f->ext & RS_EXT_RETH) && (f->have & RS_HAVE_EXT)) {
			w->pos.total = f->reth.dmalen;
		} else if (op->pos == RS_POS_ONLY) {
			w->pos.total = f->payload_len;
		}
		return;
	}
	struct walk_msg *m = find_msg(w, f, fam);
	if (m && m->next_psn == psn) {
		w->pos = (struct walk_pos){ .known = true, .first_frame = m->first_frame, .req_frame = m->req_frame,
					    .total = m->total, .offset = m->done, .index = m->packets + 1 };
	}
}

static void remember_msg(struct walk *w, uint8_t fam)
{
	const struct rs_frame *f = w->f;
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	struct walk_msg *m = find_msg(w, f, fam);

	if (op->pos == RS_POS_FIRST) {
		if (!m) { /* a free slot, or the one idle the longest */
			m = &w->msgs[0];
			for (unsigned i = 0; i < WALK_MSGS; i++) {
				if (!w->msgs[i].used) {
					m = &w->msgs[i];
					break;
				}
				if (w->msgs[i].last_seen < m->last_seen)
					m = &w->msgs[i];
			}
		}
		*m = (struct walk_msg){ .used = true, .src = f->src, .dst = f->dst, .destqp = f->bth.destqp,
					.kind = fam, .first_frame = w->pkt->frame_no, .req_frame = w->pos.req_frame,
					.total = w->pos.total };
	} else if (!m || !w->pos.known || op->pos == RS_POS_ONLY) {
		return;
	}
	if (op->pos == RS_POS_LAST) {
		m->used = false;
		return;
	}
	m->done += f->payload_len;
	m->packets++;
	m->next_psn = (f->bth.psn + 1) & PSN_MASK;
	m->last_seen = w->pkt->frame_no;
}

void walk_track_update(struct walk *w)
{
	const struct rs_frame *f = w->f;

	if ((f->have & RS_HAVE_CM) && f->mad.is_cm) {
		const struct rs_mad *m = &f->mad;
		struct walk_cm c = { .frame = w->pkt->frame_no, .attr = m->hdr.attr_id };
		bool keep = true;
		switch (m->hdr.attr_id) {
		case UMAD_CM_ATTR_REQ:
			c.id = m->u.req.local_comm_id;
			c.psn = m->u.req.starting_psn;
			c.qpn = m->u.req.local_qpn;
			break;
		case UMAD_CM_ATTR_REP:
			c.id = m->u.rep.local_comm_id;
			c.psn = m->u.rep.starting_psn;
			c.qpn = m->u.rep.local_qpn;
			break;
		case UMAD_CM_ATTR_DREQ: c.id = m->u.ids.local_comm_id; break;
		case UMAD_CM_ATTR_SIDR_REQ: c.id = m->u.sidr_req.request_id; break;
		default: keep = false; break;
		}
		if (keep)
			w->cms[w->ncm++ % WALK_CMS] = c;
	}
	if (!(f->have & RS_HAVE_BTH) || f->outcome != RS_OK)
		return;

	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	if (op->kind == RS_KIND_ACK && rs_aeth_kind(f->aeth.syndrome) == RS_AETH_NAK &&
	    rs_aeth_value(f->aeth.syndrome) == RS_NAK_PSN_SEQ_ERR)
		w->naks[w->nnak++ % WALK_NAKS] = (struct walk_nak){ .frame = w->pkt->frame_no, .src = f->src,
								    .dst = f->dst, .psn = f->bth.psn };
	if (is_request(f)) {
		struct walk_req *r = &w->reqs[w->nreq++ % WALK_REQS];
		*r = (struct walk_req){ .frame = w->pkt->frame_no, .src = f->src, .dst = f->dst,
					.destqp = f->bth.destqp, .psn = f->bth.psn, .opcode = f->bth.opcode,
					.len = (f->ext & RS_EXT_RETH) ? f->reth.dmalen : f->payload_len };
	}
	uint8_t fam = family(op->kind);
	if (fam && (is_request(f) || fam == RS_KIND_READ_RESP))
		remember_msg(w, fam);
}
