/*
 * smbd_look_state.c — SMB Direct recognised by shape: a half-flow pair
 * without a CM connection (the capture began after the handshake) is taken
 * for SMB Direct when every SEND that starts a message on it has the shape
 * MS-SMBD 2.2 gives (below) and RECOG_TIES SMB2 responses were tied by
 * MessageId to a request seen on the pair; the first SEND against the
 * shape ends the look, and so do RECOG_GIVE_UP messages without enough
 * ties.
 *
 * The shape of a SEND that starts a message:
 *   a negotiate request (20 bytes, a version range with 1.0, reserved
 *     zero, credits asked) as the client's first message, or a negotiate
 *     response (32 bytes, 1.0 negotiated) as the server's;
 *   else a data transfer message whose reserved field is zero, whose
 *     flags hold no bit but SMB_DIRECT_RESPONSE_REQUESTED, and whose
 *     DataOffset and lengths fit (the decoder's checks: DataOffset 8-byte
 *     aligned past the header, the data inside the SEND, no
 *     RemainingDataLength without data); its data, when it starts an SMB2
 *     message, an SMB2 header (ProtocolId 0xFE 'SMB', StructureSize 64, a
 *     command MS-SMB2 defines, a sound NextCommand and body) of a request
 *     from the client or a response from the server (the first negotiate
 *     message or SMB2 header says which side is which); an encrypted or
 *     compressed SMB2 message (0xFD, 0xFC) passes, SMB1 does not. Data
 *     without a protocol ID passes only where it can continue a message:
 *     inside a fragmented one, or before the first SMB2 header of its
 *     side (a message begun before the capture).
 * The pair's first SEND must be a negotiate message or start an SMB2
 * message (a header, encrypted or compressed included): a message without
 * data has the shape of a run of zeros.
 * An SMB2 response ties when the queue finds its request pending by
 * MessageId (interim STATUS_PENDING responses included).
 *
 * The hook analyses while it looks (proto.h): SMB Direct is read from whole
 * SEND messages (queue_message), which the analyzer hands a queue without
 * CM only from the frame that told it on. So the look puts the pair's
 * SENDs together itself, from the frames it is offered: the first packet's
 * PDU block, the packets in PSN order, a request packet whose PSN was seen
 * on its half-flow (among the newest SEEN_PSNS) taken as sent again (the
 * queue's re-send bookkeeping gets it, the message does not count twice),
 * one behind the newest not seen before as the fill of a gap, a message
 * with a PSN missing inside it handed on incomplete. Messages before the first
 * one that tells the sides are kept (at most EARLY) and analysed once the
 * sides are known. After the told frame the analyzer's messages take over:
 * those the look analysed are skipped, and the rest of one the look saw
 * begin is joined to its beginning (smbd_state.c, look_handoff).
 *
 * Encrypted sessions (SMB 3 transform headers) carry no MessageId in the
 * clear: such a pair is never recognised, the look gives up.
 */
#include <string.h>

#include "analyzer/transport/verdict.h"
#include "proto/pdu.h"
#include "proto/smbdirect/smbd_look_state.h"
#include "proto/smbdirect/smbd_state.h"
#include "proto/smbdirect/smbdirect.h"

#define RECOG_TIES 4
#define RECOG_GIVE_UP 256
#define SEEN_PSNS 64    /* the newest request PSNs of a half-flow remembered as seen */

static unsigned side_of_h(const struct rs_smbd_look *l, unsigned h)
{
	return (h == 0) == l->host_is_a ? 0 : 1;
}

/* Analyse a message now (the sides known). */
static void analyse(struct rs_smbdq *q, struct rs_smbd_look *l, unsigned h, const struct rs_sendmsg *m,
		    const struct rs_smbd *d)
{
	struct hf *x = &l->hf[h];
	x->fed = true;
	x->upto = m->last_psn;
	rs_smbdq_message(q, side_of_h(l, h), m, d, NULL);
}

/* The sides are known: the messages kept go to the queue, in order. */
static void tell_sides(struct rs_smbdq *q, struct rs_smbd_look *l, bool host_is_a)
{
	l->sides = true;
	l->host_is_a = host_is_a;
	for (unsigned i = 0; i < l->nearly; i++)
		analyse(q, l, l->early[i].h, &l->early[i].m, l->early[i].has_d ? &l->early[i].d : NULL);
	l->nearly = 0;
}

/* A message ended: analysed, or kept until the sides are known. False:
 * no room to keep it. */
static bool feed(struct rs_smbdq *q, struct rs_smbd_look *l, unsigned h, struct rs_sendmsg *m, const struct rs_smbd *d)
{
	m->complete = !m->headless && !m->tailless && !m->missing;
	if (!m->complete)
		l->hf[h].cont = true; /* what follows may be the rest of what it lost */
	else if (d && d->kind == RS_SMBD_DATA && d->remaining == 0 && d->data_length)
		l->hf[h].cont = false;
	if (l->sides) {
		analyse(q, l, h, m, d);
		return true;
	}
	if (l->nearly == EARLY)
		return false;
	if (!l->early)
		l->early = g_new(struct early, EARLY);
	struct early *e = &l->early[l->nearly++];
	e->h = h;
	e->m = *m;
	e->m.pdu = NULL;
	e->has_d = d != NULL;
	if (d)
		e->d = *d;
	return true;
}

static bool feed_open(struct rs_smbdq *q, struct rs_smbd_look *l, unsigned h, bool tailless)
{
	struct open_msg *o = &l->hf[h].open;
	if (!o->active)
		return true;
	o->active = false;
	o->m.tailless = tailless;
	o->m.missing += o->broken && !o->m.missing;
	return feed(q, l, h, &o->m, o->has_d ? &o->d : NULL);
}

/* Whether the SMB2 header (or its absence) at the start of the data fits
 * the shape; *sent_by_host: which side sent it, when it says so. */
static bool smb2_shaped(const struct rs_smbdq *q, const struct rs_smbd_look *l, unsigned h, const struct rs_smbd *d,
			int *sent_by_host)
{
	const struct hf *x = &l->hf[h];
	if (d->smb2_id == 0xFD || d->smb2_id == 0xFC)
		return true; /* encrypted or compressed: nothing more to see */
	if (d->smb2_id == 0xFF)
		return false; /* SMB1 is not carried over SMB Direct (MS-SMBD 1.4) */
	if (!d->has_smb2) {
		bool inside = l->sides ? rs_smbdq_continues(q, side_of_h(l, h)) : false;
		/* No protocol ID: only the rest of a message. A header cut by
		 * the capture or by the end of the packet proves nothing. */
		if (d->outcome == RS_SMBD_TRUNCATED || d->outcome == RS_SMBD_CONTINUED)
			return true;
		return inside || x->cont || !x->started;
	}
	const struct rs_smb2 *s = &d->smb2;
	if (d->outcome == RS_SMBD_MALFORMED)
		return false;
	if (d->outcome == RS_SMBD_UNSUPPORTED && (s->command >= RS_SMB2__CMDS || s->channel > RS_SMB2_CHANNEL_RDMA_TRANSFORM))
		return false;
	for (unsigned k = 0; k < d->nchain; k++)
		if (d->chain[k].response != s->response)
			return false; /* a compound is all requests or all responses (MS-SMB2 3.2.4.1.4, 3.3.4.1.3) */
	*sent_by_host = !s->response;
	return true;
}

/* The shape of a SEND's first packet (the file's comment); *sent_by_host:
 * 1 or 0 when the message tells the sides, -1 when not. */
static bool shaped(const struct rs_smbdq *q, const struct rs_smbd_look *l, unsigned h, const struct rs_frame *f,
		   int *sent_by_host)
{
	*sent_by_host = -1;
	if (!rs_frame_pdu(f, RS_PDU_SMBD))
		return false;
	const struct rs_smbd *d = &f->pdu->smbd;
	bool first = l->hf[h].msgs == 0;
	if (d->kind == RS_SMBD_NEG_REQ || d->kind == RS_SMBD_NEG_RSP) {
		if (d->outcome != RS_SMBD_OK || !first)
			return false;
		*sent_by_host = d->kind == RS_SMBD_NEG_REQ;
		return true;
	}
	if (d->outcome == RS_SMBD_TRUNCATED && !d->hdr_ok)
		return true; /* the capture cut the header: no evidence either way */
	if (!d->hdr_ok || d->reserved || (d->flags & ~RS_SMBD_RESPONSE_REQUESTED))
		return false;
	if (!d->data_length)
		return true;
	return smb2_shaped(q, l, h, d, sent_by_host);
}

static bool send_op(const struct rs_opinfo *op)
{
	return op->kind == RS_KIND_SEND || op->kind == RS_KIND_SEND_IMM || op->kind == RS_KIND_SEND_INV;
}

static void begin(struct rs_sendmsg *m, const struct rs_frame *f, const struct rs_frame_meta *fm)
{
	*m = (struct rs_sendmsg){ .opcode = f->bth.opcode, .first_psn = f->bth.psn, .last_psn = f->bth.psn, .packets = 1,
				  .bytes = f->payload_len, .file = fm->file_index, .first_frame = fm->frame_no,
				  .last_frame = fm->frame_no, .first_ts = fm->ts_ns, .last_ts = fm->ts_ns };
}

/* A SEND First or Only (fill: a SEND Only that fills a gap, the open
 * message left as it is). False: against the shape (or no room). */
static bool send_start(struct rs_smbdq *q, struct rs_smbd_look *l, struct rs_recog_pair *p, unsigned h,
		       const struct rs_frame *f, const struct rs_frame_meta *fm, bool fill)
{
	if (!fill && !feed_open(q, l, h, true))
		return false;
	int by_host;
	if (!shaped(q, l, h, f, &by_host) && !p->forced)
		return false;
	/* The pair's first message must say SMB Direct outright (a negotiate
	 * message or an SMB2 header): an empty data transfer message has the
	 * shape of many payloads (zeros), and the look costs a queue state. */
	if (!l->hf[0].msgs && !l->hf[1].msgs && by_host < 0 && !p->forced &&
	    !(f->pdu->smbd.smb2_id == 0xFD || f->pdu->smbd.smb2_id == 0xFC))
		return false;
	bool from_host = (h == 0) == l->host_is_a;
	if (by_host >= 0 && l->sides && (by_host == 1) != from_host && !p->forced)
		return false; /* requests, or responses, both ways */
	l->hf[h].msgs++;
	p->pdus++;
	if (by_host >= 0) {
		l->hf[h].started = true;
		if (!l->sides)
			tell_sides(q, l, (by_host == 1) == (h == 0));
	}
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	const struct rs_smbd *d = rs_frame_pdu(f, RS_PDU_SMBD) ? &f->pdu->smbd : NULL;
	if (op->pos == RS_POS_ONLY) {
		struct rs_sendmsg m;
		begin(&m, f, fm);
		return feed(q, l, h, &m, d);
	}
	struct open_msg *o = &l->hf[h].open;
	o->active = true;
	o->broken = false;
	o->has_d = d != NULL;
	if (d)
		o->d = *d;
	o->next_psn = (f->bth.psn + 1) & 0xFFFFFF;
	begin(&o->m, f, fm);
	return true;
}

/* A SEND Middle or Last. */
static bool send_more(struct rs_smbdq *q, struct rs_smbd_look *l, unsigned h, const struct rs_frame *f,
		      const struct rs_frame_meta *fm)
{
	struct open_msg *o = &l->hf[h].open;
	if (!o->active) {
		/* Its First came before the look, or was lost. */
		o->active = true;
		o->broken = false;
		o->has_d = false;
		begin(&o->m, f, fm);
		o->m.headless = true;
	} else {
		if (f->bth.psn != o->next_psn)
			o->broken = true;
		o->m.packets++;
		o->m.bytes += f->payload_len;
		o->m.last_psn = f->bth.psn;
		o->m.last_frame = fm->frame_no;
		o->m.last_ts = fm->ts_ns;
		o->m.opcode = f->bth.opcode;
	}
	o->next_psn = (f->bth.psn + 1) & 0xFFFFFF;
	if (rs_opinfo(f->bth.opcode)->pos == RS_POS_LAST)
		return feed_open(q, l, h, false);
	return true;
}

/* A request packet on half-flow h: false when the look refuses the pair. */
static bool request_packet(struct rs_smbdq *q, struct rs_smbd_look *l, struct rs_recog_pair *p, unsigned h,
			   const struct rs_frame *f, const struct rs_frame_meta *fm)
{
	struct hf *x = &l->hf[h];
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	int32_t d = x->psn_known ? rs_psn_diff(f->bth.psn, x->newest) : 1;
	if (d <= 0) {
		uint32_t back = (uint32_t)-d;
		if (back >= SEEN_PSNS || (x->seen >> back & 1)) {
			if (l->sides)
				rs_smbdq_resent(q, side_of_h(l, h), f, fm->file_index, NULL);
			return true;
		}
		/* A PSN behind the newest that the capture had not shown: the
		 * fill of a gap (go-back-N sent it again after a loss upstream
		 * of the capture point). A SEND Only is a message of its own;
		 * a packet of a longer message that went on without it is not
		 * put back (the message was handed on incomplete). */
		x->seen |= 1ull << back;
		if (send_op(op) && op->pos == RS_POS_ONLY)
			return send_start(q, l, p, h, f, fm, true);
		return true;
	}
	x->seen = d < SEEN_PSNS ? x->seen << d | 1 : 1;
	x->psn_known = true;
	x->newest = f->bth.psn;
	if ((op->pos == RS_POS_FIRST || op->pos == RS_POS_MIDDLE) && f->payload_len > l->pmtu)
		l->pmtu = f->payload_len;
	if (send_op(op)) {
		if (op->pos == RS_POS_FIRST || op->pos == RS_POS_ONLY)
			return send_start(q, l, p, h, f, fm, false);
		return send_more(q, l, h, f, fm);
	}
	if (!(f->ext & RS_EXT_RETH) || (op->kind != RS_KIND_READ_REQ && op->kind != RS_KIND_WRITE &&
					op->kind != RS_KIND_WRITE_IMM))
		return true;
	/* Only the server moves data with RDMA READ and WRITE (MS-SMBD 3.1.5.4-5). */
	if (!l->sides) {
		if (!l->nearly && !l->hf[0].msgs && !l->hf[1].msgs)
			return true; /* nothing to tell yet: a transfer for a request before the capture */
		tell_sides(q, l, h != 0);
	}
	if (side_of_h(l, h) != 1)
		return p->forced;
	rs_smbdq_frame(q, 1, f, fm->file_index, l->pmtu, NULL);
	return true;
}

enum rs_recog rs_smbd_recognize(struct rs_recog_pair *p, bool from_a, const struct rs_frame *f,
				const struct rs_frame_meta *m)
{
	struct rs_smbdq *q = p->q;
	struct rs_smbd_look **lp = rs_smbdq_look(q);
	if (!*lp)
		*lp = g_new0(struct rs_smbd_look, 1);
	struct rs_smbd_look *l = *lp;
	if (l->dead)
		return RS_RECOG_NO;
	unsigned h = from_a ? 0 : 1;
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	uint64_t wrong = rs_smbdq_wrong_way(q);
	if (!op->response && !request_packet(q, l, p, h, f, m)) {
		l->dead = true;
		return RS_RECOG_NO;
	}
	if (rs_smbdq_wrong_way(q) != wrong && !p->forced) {
		l->dead = true;
		return RS_RECOG_NO;
	}
	p->matched = (uint32_t)rs_smbdq_answers(q);
	p->host_is_a = l->host_is_a;
	if (p->forced ? l->sides : p->matched >= RECOG_TIES)
		return RS_RECOG_YES;
	return p->pdus >= RECOG_GIVE_UP ? RS_RECOG_NO : RS_RECOG_MORE;
}
