/*
 * message.c — message reassembly of a request stream: which packets make one
 * SEND, WRITE, READ or atomic (IBA vol 1 9.7.4: First/Middle/Last/Only
 * opcodes, consecutive PSNs), its size, its immediate data. psn.c decides
 * whether a packet is new, late or re-sent; this file only assembles.
 */
#include <string.h>

#include "analyzer/messages/messages.h"

const char *rs_msg_key(enum rs_msg m)
{
	static const char *const keys[RS_MSG__COUNT] = {
		"send", "send_imm", "send_inv", "write", "write_imm", "read",
		"atomic_cas", "atomic_faa", "atomic_write", "flush",
	};
	return (unsigned)m < RS_MSG__COUNT ? keys[m] : "";
}

static enum rs_msg msg_of_kind(uint8_t kind)
{
	switch (kind) {
	case RS_KIND_SEND: return RS_MSG_SEND;
	case RS_KIND_SEND_IMM: return RS_MSG_SEND_IMM;
	case RS_KIND_SEND_INV: return RS_MSG_SEND_INV;
	case RS_KIND_WRITE: return RS_MSG_WRITE;
	case RS_KIND_WRITE_IMM: return RS_MSG_WRITE_IMM;
	case RS_KIND_READ_REQ: return RS_MSG_READ;
	case RS_KIND_CMP_SWAP: return RS_MSG_ATOMIC_CAS;
	case RS_KIND_FETCH_ADD: return RS_MSG_ATOMIC_FAA;
	case RS_KIND_ATOMIC_WRITE: return RS_MSG_ATOMIC_WRITE;
	case RS_KIND_FLUSH: return RS_MSG_FLUSH;
	default: return RS_MSG_NONE;
	}
}

void rs_flow_note_imm(struct rs_flow *fl, uint32_t imm)
{
	struct rs_flow_extra *x = rs_extra_w(fl);
	struct rs_imms *im = x->imms;
	if (!im || (im->n == im->cap && im->cap < RS_MAX_IMMS)) {
		uint32_t cap = im ? im->cap * 2 : 2;
		im = g_realloc(im, sizeof *im + cap * sizeof im->v[0]);
		if (!x->imms)
			im->total = im->n = 0;
		im->cap = cap;
		x->imms = im;
	}
	if (im->n < im->cap)
		im->v[im->n++] = imm;
	im->total++;
}

void rs_flow_size_sample(struct rs_analyzer *a, struct rs_flow *fl, uint64_t size)
{
	/* Bucket b > 0 holds sizes of b bits, [2^(b-1), 2^b); the last one
	 * everything larger; bucket 0 empty messages. */
	unsigned b = size ? 64 - (unsigned)__builtin_clzll(size) : 0;
	if (b > RS_SIZE_BUCKETS - 1)
		b = RS_SIZE_BUCKETS - 1;
	rs_msgs_size(a->pool_few, fl, b, size);
}

static void complete(struct rs_analyzer *a, struct rs_flow *fl, enum rs_msg m, uint64_t bytes)
{
	rs_msgs_note(a->pool_few, fl, m, 1, bytes);
	rs_tl_of(a, fl)->messages++;
	rs_flow_size_sample(a, fl, bytes);
}

/* ---- message reassembly ------------------------------------------------------ */

static void open_remove(struct rs_flow *fl, unsigned i)
{
	memmove(&fl->open[i], &fl->open[i + 1], (fl->nopen - i - 1) * sizeof fl->open[0]);
	fl->nopen--;
}

/* The last PSN an open message can have ended at, given `hi`. */
static uint32_t open_hi(const struct rs_openmsg *o, uint32_t hi)
{
	return o->bounded && rs_psn_diff(o->end_hi, hi) < 0 ? o->end_hi : hi & RS_PSN_MASK;
}

/* A packet of the message: its newest PSN, unless past its bound. */
static void open_saw(struct rs_openmsg *o, uint32_t psn)
{
	if (rs_psn_diff(psn, o->newest) > 0 && !(o->bounded && rs_psn_diff(psn, o->end_hi) > 0))
		o->newest = psn;
}

/* An in-order packet at `psn` went elsewhere: the messages still being
 * received whose newest packet is older ended before it. */
static void open_bound(struct rs_flow *fl, uint32_t psn)
{
	for (unsigned i = 0; i < fl->nopen; i++) {
		struct rs_openmsg *o = &fl->open[i];
		if (!o->kind && !o->ended && !o->bounded && rs_psn_diff(psn, o->newest) > 0) {
			o->bounded = true;
			o->end_hi = (psn - 1) & RS_PSN_MASK;
		}
	}
}

/* The message a packet with this PSN belongs to: the newest open one that
 * starts at or before it, counting the head it is missing (a First that
 * comes late belongs to the message its Middles opened). */
static int open_find(const struct rs_flow *fl, uint32_t psn, int family)
{
	for (int i = fl->nopen - 1; i >= 0; i--) {
		const struct rs_openmsg *o = &fl->open[i];
		if (o->family == family && rs_psn_diff(psn, (o->first_psn - o->head_missing) & RS_PSN_MASK) >= 0)
			return i;
	}
	return -1;
}

/* A message's size: what its packets carried, unless the capture missed some
 * and its RETH says (IBA 9.4.1: the DMA length is the message's length). */
static uint64_t open_size(const struct rs_openmsg *o)
{
	return o->size && (o->lossy || !o->kind) ? o->size : o->bytes;
}

/* Give up on the oldest open message: it counts if its Last was seen, or if
 * a later message began (its Last was skipped: a SEND or WRITE, with or
 * without immediate, the capture cannot say; counted by its First's kind). */
static void open_give_up(struct rs_analyzer *a, struct rs_flow *fl)
{
	struct rs_openmsg *o = &fl->open[0];
	if (o->headless) {
		rs_rare_w(fl)->orphan_pkts += o->npkts; /* the capture began inside this message */
	} else if (o->kind) {
		complete(a, fl, (enum rs_msg)(o->kind - 1), open_size(o));
	} else if (o->ended) {
		complete(a, fl, o->family ? RS_MSG_WRITE : RS_MSG_SEND, open_size(o));
		rs_rare_w(fl)->tail_missed++;
	} else {
		rs_rare_w(fl)->incomplete_msgs++;
	}
	open_remove(fl, 0);
}

/* A message starts at `psn`: every open one of its family still waiting for
 * its Last has ended before it (a QP's requests are sequential, IBA 9.5). */
static void open_end_before(struct rs_analyzer *a, struct rs_flow *fl, int family, uint32_t psn)
{
	for (unsigned i = 0; i < fl->nopen; i++) {
		struct rs_openmsg *o = &fl->open[i];
		if (o->family != family || o->kind || o->ended)
			continue;
		o->ended = true;
		o->end_hi = open_hi(o, psn - 1);
		if (!o->headless)
			rs_msn_settled(a, fl, o->newest, o->end_hi, false);
	}
}

/* Fewer of a message's PSNs are missing than the gap before a packet said:
 * n of them belonged to another message. */
static void open_unmiss(struct rs_openmsg *o, uint32_t n)
{
	o->missing -= n < o->missing ? n : o->missing;
}

static void open_finish_if_done(struct rs_analyzer *a, struct rs_flow *fl, unsigned i)
{
	struct rs_openmsg *o = &fl->open[i];
	if (o->kind && o->missing == 0 && !o->headless) {
		complete(a, fl, (enum rs_msg)(o->kind - 1), open_size(o));
		rs_flow_set_last_kind(fl, o->family, o->kind);
		open_remove(fl, i);
	}
}

static int open_push(struct rs_analyzer *a, struct rs_flow *fl, uint32_t psn, int family, uint32_t missing)
{
	if (fl->nopen == RS_OPEN_MSGS) {
		/* Too many unfinished messages: give up on the oldest. */
		open_give_up(a, fl);
	}
	if (!fl->open)
		fl->open = g_new(struct rs_openmsg, RS_OPEN_MSGS);
	fl->open[fl->nopen] = (struct rs_openmsg){ .first_psn = psn, .missing = missing, .family = (uint8_t)family,
						   .newest = psn };
	return fl->nopen++;
}

/* A packet of a message that came late (a first sighting behind the
 * expected PSN): it joins the open message it belongs to. */
static void late_packet(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_opinfo *op, enum rs_msg m,
			int family, uint32_t psn, uint32_t len)
{
	if (op->pos == RS_POS_ONLY) {
		/* A whole message that came late. */
		rs_msn_settled(a, fl, psn, psn, true);
		complete(a, fl, m, len);
		rs_flow_set_last_kind(fl, family, m + 1u);
		return;
	}
	int i = open_find(fl, psn, family);
	if (i < 0) {
		/* Its message was already given up on: keep the bytes. */
		rs_msgs_note(a->pool_few, fl, rs_flow_last_kind(fl, family) ? (enum rs_msg)(rs_flow_last_kind(fl, family) - 1) : (family ? RS_MSG_WRITE : RS_MSG_SEND), 0, len);
		return;
	}
	struct rs_openmsg *o = &fl->open[i];
	o->bytes += len;
	o->npkts++;
	open_saw(o, psn);
	bool settled = !o->headless && (o->kind || o->ended);
	if (op->pos == RS_POS_FIRST)
		o->headless = false; /* it came late: the stream did not begin inside it */
	if (o->missing)
		o->missing--;
	if (op->pos == RS_POS_LAST)
		o->kind = (uint8_t)(m + 1);
	if (!settled && !o->headless && (o->kind || o->ended))
		rs_msn_settled(a, fl, o->newest, o->kind ? open_hi(o, o->newest) : o->end_hi, true);
	open_finish_if_done(a, fl, (unsigned)i);
}

/*
 * `gap` is how many PSNs were skipped just before this packet (0 if none),
 * `in_order` false for a late first sighting (a gap fill).
 */
static void reassemble(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_msgpkt *f, bool in_order,
		       uint32_t gap)
{
	const struct rs_opinfo *op = rs_opinfo(f->opcode);
	uint32_t psn = f->psn;
	uint32_t len = f->len;
	enum rs_msg m = msg_of_kind(op->kind);
	if (m == RS_MSG_NONE)
		return;

	if (m >= RS_MSG_READ) /* a single request packet: its message ends there */
		rs_msn_settled(a, fl, psn, psn, !in_order);
	switch (op->kind) {
	case RS_KIND_READ_REQ:
		/* The bytes are counted from the responses (read_resp_payload of
		 * the peer); the size histogram records what was asked for. */
		rs_msgs_note(a->pool_few, fl, m, 1, 0);
		rs_tl_of(a, fl)->messages++;
		rs_flow_size_sample(a, fl, f->dmalen);
		return;
	case RS_KIND_CMP_SWAP:
	case RS_KIND_FETCH_ADD:
		complete(a, fl, m, 8); /* 64-bit operands, IBA 9.4.5 */
		return;
	case RS_KIND_ATOMIC_WRITE:
	case RS_KIND_FLUSH:
		complete(a, fl, m, len);
		return;
	default:
		break;
	}

	int family = (op->kind == RS_KIND_WRITE || op->kind == RS_KIND_WRITE_IMM) ? 1 : 0;
	int i;
	if (!in_order) {
		late_packet(a, fl, op, m, family, psn, len);
		return;
	}

	/* PSNs skipped just before this packet belong to the newest open
	 * message (its middle, or the tail it has not finished). */
	if (gap && fl->nopen) {
		fl->open[fl->nopen - 1].missing += gap;
		fl->open[fl->nopen - 1].lossy = true;
	}

	switch (op->pos) {
	case RS_POS_FIRST:
		fl->seen_first = true;
		open_end_before(a, fl, family, psn);
		i = open_push(a, fl, psn, family, 0);
		fl->open[i].bytes = len;
		if (family == 1 && f->reth) {
			struct rs_openmsg *o = &fl->open[i];
			o->size = f->dmalen;
			if (fl->pmtu && o->size) {
				o->last_psn = (psn + (uint32_t)((o->size + fl->pmtu - 1) / fl->pmtu) - 1) & RS_PSN_MASK;
				o->has_last_psn = true;
			}
		}
		break;
	case RS_POS_MIDDLE:
	case RS_POS_LAST:
		i = fl->nopen ? fl->nopen - 1 : -1;
		if (i >= 0 && (fl->open[i].family != family || fl->open[i].kind))
			i = -1;
		if (i >= 0 && fl->open[i].has_last_psn && rs_psn_diff(psn, fl->open[i].last_psn) > 0) {
			/* Past the end its RETH gave: that message's Last and
			 * this one's First were skipped. */
			struct rs_openmsg *o = &fl->open[i];
			uint32_t past = (uint32_t)rs_psn_diff(psn, o->last_psn) - 1;
			open_unmiss(o, past < gap ? past : gap);
			uint32_t end = open_hi(o, o->last_psn);
			if (!o->ended && !o->headless)
				rs_msn_settled(a, fl, end, end, false);
			o->ended = true;
			o->end_hi = end;
			i = open_push(a, fl, psn, family, 0);
		} else if (i < 0) {
			if (!fl->seen_first && !gap) {
				/* The capture began inside this message, or its
				 * First comes late (after a gap, the stream began
				 * at the Starting PSN the CM announced: its First
				 * is in the gap). */
				i = open_push(a, fl, psn, family, 0);
				fl->open[i].headless = true;
				rs_msn_headless(a, fl, psn);
				fl->open[i].head_missing = RS_START_LATE;
				fl->open[i].npkts = 1;
				fl->open[i].bytes += len;
				if (op->pos == RS_POS_LAST)
					fl->open[i].kind = (uint8_t)(m + 1);
				return;
			}
			/* Its First was lost before the capture point (or
			 * comes late). */
			i = open_push(a, fl, psn, family, gap);
			fl->open[i].head_missing = gap;
			if (gap && fl->nopen > 1)
				open_unmiss(&fl->open[fl->nopen - 2], gap);
		}
		fl->open[i].bytes += len;
		fl->open[i].npkts++;
		open_saw(&fl->open[i], psn);
		if (op->pos == RS_POS_LAST) {
			struct rs_openmsg *o = &fl->open[i];
			if (!o->ended && !o->headless)
				rs_msn_settled(a, fl, o->newest, open_hi(o, psn), false);
			o->kind = (uint8_t)(m + 1);
			open_finish_if_done(a, fl, (unsigned)i);
		}
		break;
	case RS_POS_ONLY:
		fl->seen_first = true;
		open_end_before(a, fl, family, psn);
		rs_msn_settled(a, fl, psn, psn, false);
		complete(a, fl, m, len);
		rs_flow_set_last_kind(fl, family, m + 1u);
		break;
	default:
		break;
	}
}

void rs_msg_reassemble(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_msgpkt *f, bool in_order,
		       uint32_t gap)
{
	if (in_order)
		rs_msn_take(a, fl, f->psn, gap);
	if (rs_flow_ulp_conn(fl)) /* a CM connection's, or a queue's without CM (cm/ulp.c) */
		rs_sendmsg_packet(a, fl, f, in_order, gap);
	reassemble(a, fl, f, in_order, gap);
	if (in_order && fl->nopen)
		open_bound(fl, f->psn);
}

/* At the end: a message whose Last was seen counts even if some PSNs never
 * showed up here (the gap anomaly reports them), as does one a later message
 * followed; one that simply stops does not. */
void rs_msg_finish(struct rs_analyzer *a, struct rs_flow *fl)
{
	while (fl->nopen)
		open_give_up(a, fl);
	if (rs_flow_ulp_conn(fl))
		rs_sendmsg_finish(a, fl);
}
