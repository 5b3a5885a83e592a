/*
 * psn.c — the transport view of one half-flow: PSN health of its request
 * and response streams (message reassembly is message.c), acknowledgements,
 * NAKs and the latency between a request and the response that answers it.
 *
 * Request stream (IBA vol 1 9.7.1): each request packet carries the next PSN
 * of the requester's send queue; an RDMA READ request consumes one PSN per
 * response packet it asks for, i.e. ceil(DMA length / path MTU). The path
 * MTU is learned from the payload of First and Middle packets, which is
 * always exactly one PMTU (IBA 9.7.4). A packet whose PSN is ahead of the
 * expected one opens a gap (those PSNs went missing before the capture
 * point); a packet behind it was sent before: a retransmission (a duplicate
 * if we saw it already, a gap fill if we had not). A run of backward packets
 * is one go-back-N episode, unless it is a single gap fill — then the packet
 * merely arrived out of order.
 *
 * Response stream: READ responses carry the PSNs of the request they answer,
 * consecutively; a READ response at or below one already seen was sent
 * again (the requester re-read). ACKs carry the PSN of the last request they
 * acknowledge; a later ACK with a PSN not beyond the previous one is a
 * duplicate ACK. The AETH syndrome says ACK, RNR NAK or NAK (Table 42).
 */
#include <string.h>

#include "analyzer/transport/transport.h"

static void end_episode(struct rs_analyzer *a, struct rs_flow *fl, struct rs_psn *ps, bool response)
{
	struct rs_psn_loss *s = ps->loss;
	if (!s || !s->in_episode)
		return;
	s->in_episode = false;
	/* Counted by their run in the sender's order, its packets were all
	 * re-sent, never late ones. */
	bool by_id = !response && s->episode_by_id;
	if (s->episode_len == 1 && !s->episode_dup && !s->episode_naked && !by_id) {
		s->ooo++;
		a->psns.ooo += !response;
		rs_anomaly(a, RS_AN_OOO, response, fl, &s->episode_start, 1);
		if (!response)
			rs_resend_uncommit(s);
		if (a->v)
			rs_v_late(a, &s->episode_start);
	} else {
		if (response)
			s->episodes++;
		else
			rs_resend_commit(a, fl, s);
		rs_anomaly(a, RS_AN_RETRANS, response, fl, &s->episode_start, s->episode_len);
	}
}

uint64_t rs_flow_retransmitted(const struct rs_flow *fl)
{
	const struct rs_psn_loss *q = rs_loss(&fl->req), *r = rs_loss(&fl->rsp);
	return q->backward - q->ooo + r->backward - r->ooo;
}

/* A packet on the wire again, whatever its run: true if its PSN fills a
 * gap (first seen now), false if it was seen before. */
static bool sent_again(struct rs_analyzer *a, struct rs_flow *fl, struct rs_psn *ps, uint32_t psn, uint32_t payload)
{
	struct rs_psn_loss *s = ps->loss;
	bool fill = rs_lossmap_take(s, psn);
	s->backward++;
	if (fill) {
		s->fills++;
		a->psns.fills += ps == &fl->req;
	} else {
		s->duplicates++;
	}
	rs_rare_w(fl)->retrans_payload += payload;
	rs_tl_of(a, fl)->retrans++;
	return fill;
}

/* A re-send of the run that just ended, arriving after the packets that
 * ended it: counted with that run, by its cause. */
static bool late_resend(struct rs_analyzer *a, struct rs_flow *fl, struct rs_psn *ps, const struct rs_frame *f,
			const struct rs_fref *at)
{
	struct rs_psn_loss *s = ps->loss;
	rs_anomaly(a, RS_AN_RETRANS, 0, fl, at, 1);
	bool fill = sent_again(a, fl, ps, f->bth.psn, f->payload_len);
	rs_resent_late(a, s);
	return fill;
}

/* Backward packet: returns true if it is the first sighting (a gap fill). */
static bool backward(struct rs_analyzer *a, struct rs_flow *fl, struct rs_psn *ps, uint32_t psn, uint32_t adv,
		     bool may_restart, const struct rs_fref *at, uint32_t payload)
{
	struct rs_psn_loss *s = rs_loss_w(ps);
	/* A go-back-N re-sends consecutive PSNs (some may be lost again on the
	 * way); one behind the run's last is the requester starting over
	 * (another NAK, or its timer again): a new episode. Unless its IP ID
	 * says it was sent before the run's newest packet: then it is one of
	 * the run's, arriving late. */
	if (s->in_episode && may_restart && rs_psn_diff(psn, s->episode_next) < 0)
		end_episode(a, fl, ps, ps == &fl->rsp);
	if (!s->in_episode || rs_psn_diff((psn + adv) & RS_PSN_MASK, s->episode_next) > 0)
		s->episode_next = (psn + adv) & RS_PSN_MASK;
	bool fill = sent_again(a, fl, ps, psn, payload);
	bool naked = fill && s->nak_named && s->nak_psn == psn;
	s->fill_naked = naked;
	s->naked_fills += naked;
	a->psns.naked_fills += naked && ps == &fl->req;
	if (!s->in_episode) {
		s->in_episode = true;
		s->episode_len = 0;
		s->episode_dup = false;
		s->episode_naked = false;
		s->episode_start = *at;
	}
	s->episode_len++;
	s->episode_dup |= !fill;
	s->episode_naked |= naked;
	return fill;
}

/* ---- latency -------------------------------------------------------------- */

static struct rs_latency *lat_of(struct rs_analyzer *a, struct rs_flow *fl)
{
	if (!fl->lat)
		fl->lat = rs_latency_new(&a->pool_lat);
	return fl->lat;
}

/* Double the ring (a power of two), oldest entry first again. */
static void ring_grow(struct rs_latency *l)
{
	uint32_t cap = rs_lat_cap(l) * 2u;
	struct rs_pending *r = g_new(struct rs_pending, cap), *old = rs_lat_ring(l);
	for (uint32_t i = 0; i < l->count; i++)
		r[i] = old[(l->head + i) & rs_lat_mask(l)];
	if (l->cap_log2)
		g_free(old);
	l->q.ring = r;
	l->cap_log2++;
	l->head = 0;
}

/* A latency sample of requester `req`, unless the capture's clock ran
 * backwards between the request and its answer (then there is nothing
 * sound to record). */
static void lat_sample(struct rs_analyzer *a, struct rs_flow *req, enum rs_lat_kind k, uint64_t now,
		       const struct rs_pending *p)
{
	if (p->resent) {
		rs_rare_w(req)->lat_karn++;
		a->psns.karn++;
	} else if (now >= p->ts_ns) {
		rs_lat_sample(a, req->lat, k, now - p->ts_ns);
		rs_lat_bucket(a, req, k, now - p->ts_ns);
		rs_tl_lat(a, req, k, now - p->ts_ns);
	} else {
		rs_rare_w(req)->lat_clock_backwards++;
	}
}

static void pending_add(struct rs_analyzer *a, struct rs_flow *req, uint32_t psn, uint8_t what, uint32_t npkts,
			uint64_t ts)
{
	struct rs_latency *l = lat_of(a, req);
	if (l->count == rs_lat_cap(l) && rs_lat_cap(l) < RS_OUTSTANDING)
		ring_grow(l);
	if (l->count == RS_OUTSTANDING) {
		l->head = (l->head + 1) & rs_lat_mask(l);
		l->count--;
		rs_rare_w(req)->lat_overflow++;
	}
	struct rs_pending *p = &rs_lat_ring(l)[(l->head + l->count) & rs_lat_mask(l)];
	*p = (struct rs_pending){ .psn = psn, .npkts = npkts, .what = what, .ts_ns = ts };
	l->count++;
}

/* A request the responder's answers already cover as it appears (its
 * newest ACK, or a READ response or atomic ACK after it): the sniffer wrote
 * the answer first (hardware sniffers write the two directions out of
 * order). Its first answer is not after it in the file, and the next one
 * that covers it is not its first: not timed. */
static bool acked_before_seen(struct rs_analyzer *a, struct rs_flow *req, uint32_t psn)
{
	const struct rs_flow *rsp = req->peer;
	if (!rsp)
		return false;
	bool acked = rsp->have_ack_psn && rs_psn_diff(psn, rsp->ack_psn) <= 0;
	/* rsp.next is one past the newest response's PSN, which covers those before it. */
	bool answered = rsp->rsp.started && rs_psn_diff(psn, rsp->rsp.next) < -1;
	if (!acked && !answered)
		return false;
	lat_of(a, req); /* its latency section says so */
	rs_rare_w(req)->lat_acked_before_seen++;
	a->psns.acked_before_seen++;
	return true;
}

static void pending_pop(struct rs_latency *l)
{
	l->head = (l->head + 1) & rs_lat_mask(l);
	l->count--;
}

/* The newest request PSN up to `last` that the capture has not shown (yet):
 * one ahead of the stream, or one it skipped and did not see since. */
static bool unseen_upto(const struct rs_flow *req, uint32_t last, uint32_t *psn)
{
	const struct rs_psn *s = &req->req;
	if (rs_psn_diff(last, s->next) >= 0) {
		*psn = last;
		return true;
	}
	return s->loss && rs_lossmap_last(s->loss->lost, last, psn);
}

/* A response for PSN `psn` implicitly acknowledges every earlier request
 * (responses come in order, IBA 9.7.5.1.1): time those that asked for it.
 * Unless the response also covers a request PSN the capture has not shown
 * after theirs: the capture dropped it, and may have dropped with it an
 * answer the responder sent before this one, so this one need not be the
 * first (a coalescing responder's answer over PSNs all seen is timed). */
static void ack_older(struct rs_analyzer *a, struct rs_flow *req, uint32_t psn, uint64_t ts, bool inclusive)
{
	struct rs_latency *l = req->lat;
	uint32_t last = inclusive ? psn : (psn - 1) & RS_PSN_MASK, unseen = 0;
	int looked = 0; /* 1: none unseen, 2: `unseen` is the newest */
	while (l->count) {
		struct rs_pending *p = &rs_lat_ring(l)[l->head];
		uint32_t end = (p->psn + (p->npkts ? p->npkts : 1) - 1) & RS_PSN_MASK;
		int32_t d = rs_psn_diff(end, psn);
		if (d > 0 || (d == 0 && !inclusive))
			break;
		if (p->what == RS_PEND_ACKREQ) {
			if (!looked)
				looked = unseen_upto(req, last, &unseen) ? 2 : 1;
			if (!p->resent && looked == 2 && rs_psn_diff(unseen, end) > 0) {
				rs_rare_w(req)->lat_acked_across_gap++;
				a->psns.acked_across_gap++;
			} else {
				lat_sample(a, req, RS_LAT_ACK, ts, p);
			}
		}
		pending_pop(l);
	}
}

static struct rs_pending *pending_find(struct rs_latency *l, uint32_t psn, uint8_t what)
{
	for (uint32_t i = 0; i < l->count; i++) {
		struct rs_pending *p = &rs_lat_ring(l)[(l->head + i) & rs_lat_mask(l)];
		if (p->psn == psn && p->what == what)
			return p;
	}
	return NULL;
}

/* ---- requests --------------------------------------------------------------- */

/* The path MTU of this connection: learned from its own First/Middle
 * packets, else from its peer's, else from the CM REQ (IBA enum 1-5 =
 * 256-4096 bytes). Never another connection's: paths differ. 0 = unknown. */
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

static void learn_pmtu(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_opinfo *op, uint32_t payload)
{
	if ((op->pos == RS_POS_FIRST || op->pos == RS_POS_MIDDLE) && payload > fl->pmtu) {
		fl->pmtu = payload;
		if (payload > a->pmtu)
			a->pmtu = payload;
	}
}

static void note_rkey(struct rs_analyzer *a, struct rs_flow *fl, uint32_t rkey, uint8_t op, uint64_t va,
		      uint64_t len, const struct rs_fref *at)
{
	if (!fl->rkeys)
		fl->rkeys = rs_pool_alloc0(&a->pool_rkeys);
	struct rs_rkeys *r = fl->rkeys;
	struct rs_rkey_use *u = NULL, *use = rs_rkey_uses(r);
	for (uint32_t i = 0; i < r->n; i++)
		if (use[i].rkey == rkey) {
			u = &use[i];
			break;
		}
	if (!u) {
		if (r->n == RS_MAX_RKEYS) {
			r->more++;
			return;
		}
		u = rs_rkey_new(r);
		*u = (struct rs_rkey_use){ .rkey = rkey, .va_lo = va, .va_hi = va + len, .first_file = at->file,
					    .first_frame = at->frame };
	}
	u->ops |= op;
	if (va < u->va_lo)
		u->va_lo = va;
	if (va + len > u->va_hi)
		u->va_hi = va + len;
	u->bytes += len;
	u->count++;
}

/* Invalidated rkeys are per host: an IETH asks the receiver to invalidate
 * one of its own rkeys (IBA 10.6.6.1); later requests to that host naming it
 * are flagged. */
static void check_rkey(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f, uint32_t rkey,
		       const struct rs_fref *at)
{
	if (!a->invalidated || g_hash_table_size(a->invalidated) == 0)
		return;
	struct rs_hostkey k;
	rs_hostkey_set(&k, &f->dst, rkey);
	struct rs_fref *inv = g_hash_table_lookup(a->invalidated, &k);
	if (inv)
		rs_anomaly(a, RS_AN_RKEY_INVALIDATED, rkey, fl, at, 1);
}

static void invalidate(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_fref *at)
{
	if (!a->invalidated)
		a->invalidated = g_hash_table_new_full(rs_hostkey_hash, rs_hostkey_equal, g_free, g_free);
	struct rs_fref *v = g_new(struct rs_fref, 1);
	*v = *at;
	g_hash_table_replace(a->invalidated, rs_hostkey_new(&f->dst, f->ieth_rkey), v);
}

/* The first request PSN should be the one the CM exchange announced. One a
 * little ahead of it means the first packets come late (or went missing):
 * the stream starts at the announced PSN and the packets before are a gap.
 * Returns the PSN the stream starts from. */
static uint32_t check_start_psn(struct rs_analyzer *a, struct rs_flow *fl, uint32_t psn, const struct rs_fref *at)
{
	struct rs_conn *c = fl->conn;
	if (!c || c->kind != RS_CONN_RC)
		return psn;
	bool c2s = c->c2s == fl;
	bool known = c2s ? c->have_rep_psn : c->have_req_psn;
	uint32_t want = c2s ? c->rep_psn : c->req_psn;
	if (!known || psn == want)
		return psn;
	int32_t ahead = rs_psn_diff(psn, want);
	if (ahead > 0 && ahead <= RS_START_LATE)
		return want & RS_PSN_MASK;
	rs_anomaly(a, RS_AN_PSN_START, want, fl, at, 1);
	return psn;
}

/* A request behind the expected PSN: a copy, a late one, or a re-send
 * (resend.c tells which). Returns whether its PSN is seen for the first
 * time; *retrans whether the requester sent it again. */
static bool behind_request(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f,
			   const struct rs_frame_meta *m, uint32_t adv, bool *retrans)
{
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	struct rs_psn *s = &fl->req;
	struct rs_fref at = { a->cur_file, m->frame_no };
	uint32_t psn = f->bth.psn;
	bool fresh = true;
	if (rs_copy_by_timing(a, fl, f, m->ts_ns)) {
		rs_net_copy(a, fl, &at, true);
		return false;
	}
	switch (rs_behind(s, f, psn)) {
	case RS_BEHIND_COPY:
		fresh = false;
		rs_net_copy(a, fl, &at, false);
		break;
	case RS_BEHIND_LATE:
		rs_late_request(a, fl, s, psn, &at, m->ts_ns);
		break;
	case RS_BEHIND_LATE_FILLED:
		s->loss->fills_overtaken++;
		a->psns.fills_overtaken++;
		/* A NAK named its PSN, and its re-send came first: yet here is
		 * its first sending, late. Reordered, not lost. */
		if (rs_ids_naked(s->loss, psn)) {
			s->loss->naked_fills--;
			a->psns.naked_fills--;
		}
		/* fall through */
	case RS_BEHIND_LATE_SENDING:
		fresh = false;
		s->loss->late_sendings++;
		if (a->v)
			rs_v_not_resent(a->v, true);
		break;
	case RS_BEHIND_RUN_LATE:
		if (s->loss->in_episode) {
			fresh = backward(a, fl, s, psn, adv, false, &at, f->payload_len);
			rs_resent(a, fl, f, op, m->ts_ns);
		} else {
			fresh = late_resend(a, fl, s, f, &at);
		}
		*retrans = true;
		break;
	case RS_BEHIND_STAND_IN: {
		/* The later sending, taken as new when it came, was the re-send.
		 * In the sender's order this one is the original, late, and the
		 * re-send is counted where its verdict can still say so (resend.c);
		 * else this one is counted in its place, and as overtaken. */
		s->loss->late_sendings++;
		struct rs_fref re;
		if (rs_late_original(a, fl, op, psn, m->ts_ns, &re)) {
			fresh = false; /* late, if a higher PSN came before it */
			if (a->v && rs_psn_diff((s->next - 1) & RS_PSN_MASK, psn) > 0)
				rs_v_not_resent(a->v, true);
			rs_anomaly(a, RS_AN_RETRANS, 0, fl, &re, 1);
			sent_again(a, fl, s, psn, f->payload_len);
			break;
		}
	}
		/* fall through */
	default:
		/* A re-send from before the capture began moves the start back
		 * as a late packet does (resend.c rs_behind; it does nothing for
		 * a PSN at or after the start). */
		if (rs_psn_diff(s->first, psn) <= RS_START_LATE)
			rs_psn_start_back(a, s, psn);
		fresh = backward(a, fl, s, psn, adv, true, &at, f->payload_len);
		if (s->loss->episode_len == 1) {
			s->loss->episode_ipid = (uint16_t)s->ipid;
			s->loss->episode_resume = s->next;
		}
		rs_resent(a, fl, f, op, m->ts_ns);
		rs_ipid_note(s, f, false);
		*retrans = true;
	}
	return fresh;
}

void rs_track_request(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f,
		      const struct rs_frame_meta *m)
{
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	struct rs_psn *s = &fl->req;
	struct rs_fref at = { a->cur_file, m->frame_no };
	uint32_t psn = f->bth.psn;
	uint32_t adv = 1;
	bool adv_known = true;

	learn_pmtu(a, fl, op, f->payload_len);
	if (op->kind == RS_KIND_READ_REQ) {
		uint32_t mtu = path_mtu(fl);
		if (mtu) /* 64-bit: a DMA length near 2^32 must not wrap the count */
			adv = f->reth.dmalen ? (uint32_t)(((uint64_t)f->reth.dmalen + mtu - 1) / mtu) : 1;
		else
			adv_known = false;
	}

	s->packets++;
	if (!s->started) {
		uint32_t start = check_start_psn(a, fl, psn, &at);
		s->started = true;
		s->first = start;
		s->next = start;
	}
	uint32_t from = s->next;
	if (s->resync) {
		/* A READ of unknown length came before: accept its PSN advance. */
		s->resync = false;
		if (rs_psn_diff(psn, s->next) > 0)
			s->next = psn;
	}
	rs_so_feed(a, fl, f, adv);

	int32_t d = rs_psn_diff(psn, s->next);
	bool fresh = true;
	bool retrans = false;
	if (d >= 0) {
		/* A new PSN sent before the re-sends under way (its IP ID is
		 * older, or the sender's order has its place) arrives late: the
		 * re-sending goes on. */
		bool late_new = s->loss && (s->loss->in_episode || rs_so_placed(s)) && rs_ipid_older(s, f) == 1;
		if (!late_new && s->loss && s->loss->in_episode) {
			s->loss->episode_end_ipid = f->ip_id;
			end_episode(a, fl, s, false);
		}
		if (d > 0) {
			struct rs_psn_loss *l = rs_loss_w(s);
			l->gaps++;
			l->missing += (uint32_t)d;
			rs_lossmap_mark(l, s->next, (uint32_t)d);
			l->gapref[l->gapref_next++ % 8] = (struct rs_gapref){ s->next, (uint32_t)d, m->ts_ns };
			a->psns.missing += (uint32_t)d;
			rs_anomaly(a, RS_AN_GAP, 0, fl, &at, (uint32_t)d);
			/* The responder may have acknowledged them already. */
			if (fl->peer && fl->peer->have_ack_psn)
				rs_psn_settle(a, fl, (fl->peer->ack_psn + 1) & RS_PSN_MASK);
		}
		s->next = (psn + adv) & RS_PSN_MASK;
		s->resync = !adv_known;
		a->psns.range += (uint32_t)rs_psn_diff(s->next, from);
		rs_ipid_note(s, f, !late_new);
	} else {
		fresh = behind_request(a, fl, f, m, adv, &retrans);
		if (adv > 1)
			rs_lossmap_read_reserves(a, s, psn, adv);
	}
	rs_so_settle(a, fl, op, m->ts_ns, psn);
	rs_ids_note(s, f, retrans, retrans && fresh, m->ts_ns);
	rs_fp_note(s, f);
	if (a->v)
		rs_v_request(a, fl, f, m, d, fresh);

	if (fresh) {
		fl->payload += f->payload_len;
		const struct rs_msgpkt mp = { .psn = psn, .len = f->payload_len, .adv = adv, .opcode = f->bth.opcode,
					      .reth = (f->ext & RS_EXT_RETH) != 0, .dmalen = f->reth.dmalen,
					      .at = at, .ts = m->ts_ns, .pdu = f->pdu && rs_sendmsg_wanted(a, fl) ? f->pdu : NULL };
		rs_msg_feed(a, fl, &mp, d, from);
		/* A WRITE Only carries the whole message: its RETH DMA length is
		 * its payload (IBA 9.4.1); a packet that says otherwise is not
		 * what it claims, and no size from it can be trusted. */
		if ((f->ext & RS_EXT_RETH) && (op->kind == RS_KIND_WRITE || op->kind == RS_KIND_WRITE_IMM) && op->pos == RS_POS_ONLY &&
		    f->reth.dmalen != f->payload_len)
			rs_anomaly(a, RS_AN_RETH_LENGTH, 0, fl, &at, 1);
		if (f->ext & RS_EXT_RETH) {
			uint8_t opbit = op->kind == RS_KIND_READ_REQ ? 1 : op->kind == RS_KIND_FLUSH ? 8 : op->kind == RS_KIND_ATOMIC_WRITE ? 4 : 2;
			note_rkey(a, fl, f->reth.rkey, opbit, f->reth.va, f->reth.dmalen, &at);
			check_rkey(a, fl, f, f->reth.rkey, &at);
		}
		if (f->ext & RS_EXT_ATOMICETH) {
			note_rkey(a, fl, f->atomic.rkey, 4, f->atomic.va, 8, &at);
			check_rkey(a, fl, f, f->atomic.rkey, &at);
		}
		if (f->ext & RS_EXT_IETH)
			invalidate(a, f, &at);
		if (f->ext & RS_EXT_IMMDT)
			rs_flow_note_imm(fl, f->immdt);
	}

	/* Remember what waits for an answer (latency; pairing). */
	if (d >= 0 && fl->transport != RS_TR_UC) {
		if (op->kind == RS_KIND_READ_REQ)
			pending_add(a, fl, psn, RS_PEND_READ, adv_known ? adv : 0, m->ts_ns); /* 0: length unknown */
		else if (op->kind == RS_KIND_CMP_SWAP || op->kind == RS_KIND_FETCH_ADD)
			pending_add(a, fl, psn, RS_PEND_ATOMIC, 1, m->ts_ns);
		else if (f->bth.ackreq && !acked_before_seen(a, fl, psn))
			pending_add(a, fl, psn, RS_PEND_ACKREQ, 1, m->ts_ns);
	}
	a->frame_resent = retrans;
	if (a->opts.keep_ladder)
		rs_conn_ladder(a, fl, f, m, retrans, d > 0 ? (uint32_t)d : 0);
}

/* ---- responses ---------------------------------------------------------------- */

static void aeth(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f, const struct rs_opinfo *op,
		 const struct rs_fref *at, uint64_t ts)
{
	uint8_t syn = f->aeth.syndrome;
	uint8_t v = rs_aeth_value(syn);
	uint32_t psn = f->bth.psn;
	struct rs_flow *req = fl->peer;

	switch (rs_aeth_kind(syn)) {
	case RS_AETH_ACK:
		if (op->kind != RS_KIND_ACK)
			break; /* READ responses and atomic ACKs carry an ACK syndrome too */
		fl->acks++;
		a->ack_prev = fl->ack_psn;
		if (fl->have_ack_psn) {
			int32_t d = rs_psn_diff(psn, fl->ack_psn);
			if (d > 0) {
				fl->acked_pkts += (uint32_t)d;
			} else {
				rs_rare_w(fl)->dup_acks++;
				rs_anomaly(a, RS_AN_DUP_ACK, 0, fl, at, 1);
				if (a->v)
					a->v->dup_ack = true;
			}
		} else if (req && req->req.started) {
			int32_t d = rs_psn_diff(psn, req->req.first);
			fl->acked_pkts += d >= 0 ? (uint32_t)d + 1 : 1;
		} else {
			fl->acked_pkts++;
		}
		if (!fl->have_ack_psn || rs_psn_diff(psn, fl->ack_psn) > 0)
			fl->ack_psn = psn;
		fl->have_ack_psn = true;
		if (req && req->lat)
			ack_older(a, req, psn, ts, true);
		if (req) {
			rs_psn_settle(a, req, (psn + 1) & RS_PSN_MASK);
			/* The packets the ACK releases are not later than it; until
			 * it is reckoned, a->ack_prev is the ACK PSN before it. */
			a->in_ack = true;
			rs_msg_acked(a, req, psn);
			rs_msg_msn(a, fl, req, psn, f->aeth.msn, rs_msgq_expect(req));
			a->in_ack = false;
			rs_rnr_progress(req);
		}
		break;
	case RS_AETH_RNR_NAK: {
		struct rs_flow_rare *r = rs_rare_w(fl);
		r->rnr_naks++;
		/* Compare the waits, not the codes: code 0 is the longest (Table 45). */
		if (r->rnr_naks == 1 || rs_rnr_timer_us(v) < rs_rnr_timer_us(r->rnr_timer_min))
			r->rnr_timer_min = v;
		if (r->rnr_naks == 1 || rs_rnr_timer_us(v) > rs_rnr_timer_us(r->rnr_timer_max))
			r->rnr_timer_max = v;
		rs_tl_of(a, fl)->naks++;
		rs_tl_of(a, fl)->rnrs++;
		rs_anomaly(a, RS_AN_RNR, v, fl, at, 1);
		if (req) {
			rs_psn_settle(a, req, psn);
			rs_nak_wait(a, req, RS_NAKW_RNR, v, psn, at, ts);
		}
		break;
	}
	case RS_AETH_NAK:
		rs_rare_w(fl)->naks[v < 8 ? v : 7]++;
		rs_tl_of(a, fl)->naks++;
		rs_anomaly(a, RS_AN_NAK, v, fl, at, 1);
		if (req) {
			rs_psn_settle_nak(a, req, psn, v);
			if (v == RS_NAK_PSN_SEQ_ERR)
				rs_nak_wait(a, req, RS_NAKW_SEQ, 0, psn, at, ts);
		}
		if (a->v && v == RS_NAK_PSN_SEQ_ERR)
			rs_v_nak(a, fl, f, at);
		break;
	default:
		break;
	}
}

/* A response starting ahead of the expected PSN: the PSNs between that
 * READs (or atomics: one answer each, IBA 9.4.5) still waiting asked for
 * went missing, and may come again when the requester asks again. */
static void read_tails_missed(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_latency *l, uint32_t from,
			      uint32_t to, const struct rs_fref *at)
{
	for (uint32_t i = 0; i < l->count; i++) {
		const struct rs_pending *p = &rs_lat_ring_c(l)[(l->head + i) & rs_lat_mask(l)];
		uint32_t span = p->what == RS_PEND_ATOMIC ? 1 : p->what == RS_PEND_READ ? p->npkts : 0;
		if (!span)
			continue;
		uint32_t lo = rs_psn_diff(p->psn, from) > 0 ? p->psn : from;
		uint32_t end = (p->psn + span) & RS_PSN_MASK;
		uint32_t hi = rs_psn_diff(end, to) < 0 ? end : to;
		int32_t n = rs_psn_diff(hi, lo);
		if (n <= 0)
			continue;
		struct rs_psn_loss *s = rs_loss_w(&fl->rsp);
		s->gaps++;
		s->missing += (uint32_t)n;
		rs_lossmap_mark(s, lo, (uint32_t)n);
		rs_anomaly(a, RS_AN_GAP, 1, fl, at, (uint32_t)n);
	}
}

void rs_track_response(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f,
		       const struct rs_frame_meta *m)
{
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	struct rs_psn *s = &fl->rsp;
	struct rs_fref at = { a->cur_file, m->frame_no };
	uint32_t psn = f->bth.psn;
	bool retrans = false;

	s->packets++;
	if (!fl->peer)
		rs_pair_infer(a, fl, psn);
	struct rs_flow *req = fl->peer;
	if (req) {
		/* Any answer: the requester's timer restarts, its QP is alive. */
		if (req->lat) {
			req->lat->last_rsp_ts = m->ts_ns;
			req->lat->last_rsp_file = at.file;
			req->lat->last_rsp_frame = at.frame;
		}
		if (req->req.loss)
			req->req.loss->silent_retries = 0;
	}

	if (f->ext & RS_EXT_AETH)
		aeth(a, fl, f, op, &at, m->ts_ns);

	if (op->kind == RS_KIND_READ_RESP || op->kind == RS_KIND_ATOMIC_ACK) {
		learn_pmtu(a, fl, op, f->payload_len);
		bool starts = op->pos != RS_POS_MIDDLE && op->pos != RS_POS_LAST;
		bool fresh = true;
		if (!s->started) {
			s->started = true;
			s->first = psn;
			s->next = psn;
		}
		int32_t d = rs_psn_diff(psn, s->next);
		if (d >= 0) {
			end_episode(a, fl, s, true);
			/* Inside a multi-packet response PSNs are consecutive; a new
			 * response may start anywhere ahead. */
			if (d > 0 && !starts) {
				struct rs_psn_loss *l = rs_loss_w(s);
				l->gaps++;
				l->missing += (uint32_t)d;
				rs_lossmap_mark(l, s->next, (uint32_t)d);
				rs_anomaly(a, RS_AN_GAP, 1, fl, &at, (uint32_t)d);
			} else if (d > 0 && req && req->lat) {
				read_tails_missed(a, fl, req->lat, s->next, psn, &at);
			}
			s->next = (psn + 1) & RS_PSN_MASK;
		} else {
			fresh = backward(a, fl, s, psn, 1, true, &at, f->payload_len);
			retrans = true;
			/* The responder answers again what the requester asked
			 * again: a READ's responses, or its replay of an atomic
			 * it already executed (IBA 9.4.5). */
			int k = op->kind == RS_KIND_ATOMIC_ACK;
			s->loss->rsp_again[k]++;
			s->loss->rsp_again_first[k] += fresh;
		}
		if (a->v)
			rs_v_psn(a->v, d > 0 && starts ? 0 : d, fresh);
		if (fresh && op->kind == RS_KIND_READ_RESP) {
			fl->read_resp_payload += f->payload_len;
			fl->payload += f->payload_len;
		}
		if (req && req->lat && !retrans) {
			struct rs_latency *l = req->lat;
			if (op->kind == RS_KIND_ATOMIC_ACK) {
				struct rs_pending *p = pending_find(l, psn, RS_PEND_ATOMIC);
				ack_older(a, req, psn, m->ts_ns, false);
				if (p && l->count && &rs_lat_ring(l)[l->head] == p) {
					lat_sample(a, req, RS_LAT_ATOMIC, m->ts_ns, p);
					pending_pop(l);
				}
			} else {
				if (op->pos == RS_POS_FIRST || op->pos == RS_POS_ONLY) {
					ack_older(a, req, psn, m->ts_ns, false);
					struct rs_pending *p = pending_find(l, psn, RS_PEND_READ);
					if (p && !p->first_seen) {
						p->first_seen = true;
						lat_sample(a, req, RS_LAT_READ_FIRST, m->ts_ns, p);
					}
				}
				if (op->pos == RS_POS_LAST || op->pos == RS_POS_ONLY) {
					if (l->count) {
						struct rs_pending *p = &rs_lat_ring(l)[l->head];
						/* The last response packet of the oldest READ; if its
						 * packet count was unknown, the one in progress. */
						bool last = p->npkts ? ((p->psn + p->npkts - 1) & RS_PSN_MASK) == psn
								     : p->first_seen || op->pos == RS_POS_ONLY;
						if (p->what == RS_PEND_READ && last) {
							lat_sample(a, req, RS_LAT_READ_LAST, m->ts_ns, p);
							pending_pop(l);
						}
					}
				}
			}
		}
	}
	if (a->v)
		rs_v_response(a, fl, f, m);
	a->frame_resent = retrans;
	if (a->opts.keep_ladder)
		rs_conn_ladder(a, fl, f, m, retrans, 0);
}

void rs_psn_finish(struct rs_analyzer *a, struct rs_flow *fl)
{
	rs_runs_due(a, fl, 0, true);
	end_episode(a, fl, &fl->req, false);
	struct rs_psn_loss *l = fl->req.loss;
	if (l && l->so) {
		uint64_t holes = rs_so_holes(l->so);
		l->resend_holes += holes;
		a->psns.resend_holes += holes;
	}
	end_episode(a, fl, &fl->rsp, true);
	rs_settle_dead(a, fl);
	rs_msgq_finish(a, fl);
	rs_msn_finish(a, fl);
	rs_msg_finish(a, fl);
	/* A message none of whose packets the capture holds has a PSN it never
	 * showed: no more such messages than such PSNs, whatever the MSNs
	 * reckoned (a reckoning off by a message must not invent one). */
	const struct rs_psn_loss *q = rs_loss(&fl->req);
	uint64_t absent = q->missing > q->fills ? q->missing - q->fills : 0;
	/* ... and the PSNs past the newest request that an ACK covers. */
	if (fl->peer && fl->peer->have_ack_psn && fl->req.started) {
		int32_t beyond = rs_psn_diff((fl->peer->ack_psn + 1) & RS_PSN_MASK, fl->req.next);
		absent += beyond > 0 ? (uint64_t)beyond : 0;
	}
	if (fl->rare && fl->rare->msgs_uncaptured > absent) {
		a->psns.msgs_uncaptured -= fl->rare->msgs_uncaptured - absent;
		fl->rare->msgs_uncaptured = absent;
	}
}
