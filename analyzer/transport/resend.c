/*
 * resend.c — why a request is on the wire again. A request
 * behind the expected PSN is a copy the network made, a late arrival, or a
 * re-send; a re-send answers a NAK or an RNR NAK, or the requester's ACK
 * timer. Runs of re-sends are counted by cause when they end; retries that
 * go unanswered until the requester falls silent mean its QP gave up. psn.c
 * calls it; it calls lossmap.c, anomaly.c and the verdict.
 *
 * Each verdict here follows its evidence rule, written once for users in
 * the man page (HOW ROCESTAT DECIDES): a copy needs the same datagram seen
 * twice, a NAK cause a NAK owed at or before the run's first PSN, retry
 * exhaustion the count from the CM exchange. Where the file cannot tell,
 * the verdict says so rather than guess.
 */
#include <string.h>

#include "analyzer/transport/transport.h"

const char *rs_resend_key(enum rs_resend c)
{
	static const char *const keys[RS_RESEND__COUNT] = { "nak", "rnr", "timeout", "read_retry", "unknown" };
	return (unsigned)c < RS_RESEND__COUNT ? keys[c] : "";
}

/*
 * An IPv4 sender numbers its datagrams (the identification field: rdma_rxe
 * and the kernel's RoCE stacks keep one counter per destination), so a
 * request numbered below the newest its stream has shown left the sender
 * before that one: behind the expected PSN, it is either a copy the network
 * made (its PSN was seen) or a late arrival (it was not), never a re-send,
 * which gets a new number. The numbers are trusted once a stream's new
 * packets were seen to climb, and never again once one did not (senders
 * that leave the field 0, or fill it at random). Without them (IPv6, RoCE
 * v1, InfiniBand) resends are told apart by NAKs and timing alone.
 */
void rs_ipid_note(struct rs_psn *s, const struct rs_frame *f, bool forward)
{
	if (f->ip_version != 4)
		return;
	if (s->ipid_seen) {
		if ((int16_t)(f->ip_id - (uint16_t)s->ipid) > 0)
			s->ipid_up = true;
		else if (forward) /* a packet behind may be a late one: it proves nothing */
			s->ipid_bad = true;
		else
			return;
	}
	s->ipid_seen = true;
	s->ipid = f->ip_id;
}

/* 1: sent before the newest packet of its stream; 0: after it; -1: unknown.
 * Before the numbers were seen to climb, a packet numbered as the newest
 * (and not 0, which senders that do not number use) is that one again. */
int rs_ipid_older(const struct rs_psn *s, const struct rs_frame *f)
{
	if (f->ip_version != 4 || s->ipid_bad)
		return -1;
	if (!s->ipid_up)
		return s->ipid_seen && f->ip_id && f->ip_id == (uint16_t)s->ipid ? 1 : -1;
	return (int16_t)(f->ip_id - (uint16_t)s->ipid) <= 0;
}

/* PSNs whose newest sending is remembered: a window deep enough for the
 * re-sends of one go-back-N to be told from copies and late originals. */
#define RS_IDS 256

void rs_ids_note(struct rs_psn *s, const struct rs_frame *f, bool resent, bool fill, uint64_t ts)
{
	struct rs_psn_loss *l = s->loss;
	if (!l || f->ip_version != 4)
		return;
	if (resent && l->so)
		rs_so_resent(l->so, f->ip_id, f->bth.psn);
	if (!l->ids)
		l->ids = g_new0(struct rs_idsent, RS_IDS);
	struct rs_idsent *e = &l->ids[f->bth.psn % RS_IDS];
	bool same = e->valid && e->psn == f->bth.psn;
	if (!same || (int16_t)(f->ip_id - e->id) > 0)
		*e = (struct rs_idsent){ .psn = f->bth.psn, .valid = 1, .resent = resent, .fill = fill,
					 .naked = fill && l->fill_naked, .ts = ts,
					 .icrc_ok = f->icrc_status != RS_CRC_UNCHECKED, .id = f->ip_id, .icrc = f->icrc };
}

bool rs_ids_naked(struct rs_psn_loss *l, uint32_t psn)
{
	struct rs_idsent *e = l && l->ids ? &l->ids[psn % RS_IDS] : NULL;
	if (!e || !e->valid || e->psn != psn || !e->naked)
		return false;
	e->naked = 0;
	return true;
}

/* Sent while the last re-send run (now ended) went on: after it began,
 * before the packet that ended it. */
static bool in_last_run(const struct rs_psn_loss *l, const struct rs_frame *f)
{
	return l->episodes && (int16_t)(f->ip_id - l->episode_end_ipid) < 0 &&
	       (int16_t)(f->ip_id - l->episode_ipid) > 0;
}

/* The newest sending seen of this PSN, or NULL. */
static const struct rs_idsent *ids_seen(const struct rs_psn_loss *l, uint32_t psn)
{
	const struct rs_idsent *e = l && l->ids ? &l->ids[psn % RS_IDS] : NULL;
	return e && e->valid && e->psn == psn ? e : NULL;
}

/*
 * The only proof of a copy the network made: this very datagram was seen
 * before. Its sender's number for this PSN is the one of a sending seen
 * (the newest of the PSN, or one in the sender's order window), and where
 * both ICRCs were captured they are equal (the ICRC covers the IP ID and
 * every byte from the BTH on). Two sendings of a PSN under different
 * numbers are two sendings, whatever else they share.
 */
static bool copy_seen(const struct rs_psn_loss *l, const struct rs_frame *f, const struct rs_idsent *seen)
{
	if (seen && seen->id == f->ip_id)
		return !seen->icrc_ok || f->icrc_status == RS_CRC_UNCHECKED || seen->icrc == f->icrc;
	return l && l->so && l->so_put.copy;
}

/*
 * A request behind the expected PSN, by its IP ID (IPv4):
 *   sent after every packet seen:              re-sent (RS_BEHIND_RESENT)
 *   the same datagram as a sending seen:       a copy the network made
 *   an earlier sending of a PSN whose later,
 *   counted re-send came first:                a late sending
 *   ... whose later sending came first as a
 *   new PSN:                                   a late sending, standing in
 *                                              for that re-send in the
 *                                              counts (RS_BEHIND_STAND_IN)
 *   sent during the current re-send run:       one of the run's, late
 *                                              (RS_BEHIND_RUN_LATE)
 *   sent before, its PSN not seen yet:         a late arrival
 *   sent before, its PSN seen under another
 *   number no longer remembered:               a re-send of an earlier run,
 *                                              late (RS_BEHIND_RUN_LATE)
 * A packet just before the stream's first PSN was never seen: late. Without
 * IP IDs, every other such packet counts as re-sent.
 */
enum rs_behind rs_behind(const struct rs_psn *s, const struct rs_frame *f, uint32_t psn)
{
	int32_t before = rs_psn_diff(s->first, psn);
	bool before_first = before > 0;
	/* Never seen: it cannot be a copy; sent after the newest packet (its
	 * IP ID says so), it is a re-send whose first sending came before the
	 * capture began; else late. */
	if (before_first && before <= RS_START_LATE && (!s->loss || !s->loss->in_episode) && rs_ipid_older(s, f) != 0)
		return RS_BEHIND_LATE;
	if (rs_ipid_older(s, f) != 1)
		return RS_BEHIND_RESENT;
	const struct rs_psn_loss *l = s->loss;
	const struct rs_idsent *seen = ids_seen(l, psn);
	if (copy_seen(l, f, seen))
		return RS_BEHIND_COPY;
	/* What this PSN was last seen as: a later sending counted as a
	 * re-send (this is the original, overtaken); a later sending seen
	 * first as a new PSN (that was the re-send: this one stands in for it
	 * in the counts); or an earlier sending. */
	if (seen && (int16_t)(f->ip_id - seen->id) < 0)
		return seen->fill ? RS_BEHIND_LATE_FILLED : seen->resent ? RS_BEHIND_LATE_SENDING : RS_BEHIND_STAND_IN;
	if (seen)
		return l->in_episode ? RS_BEHIND_RUN_LATE : RS_BEHIND_RESENT;
	/* The newest packet's own PSN under another number: two sendings of
	 * it, the later one came first. */
	if (psn == ((s->next - 1) & RS_PSN_MASK) && f->ip_id != (uint16_t)s->ipid)
		return RS_BEHIND_RESENT;
	/* Sent after the newest re-send run began: one of its packets (the
	 * run may have ended already, its packets overtaken). */
	if (l && (l->in_episode || in_last_run(l, f)) && (int16_t)(f->ip_id - l->episode_ipid) > 0 &&
	    rs_psn_diff(psn, l->episode_resume) < 0)
		return RS_BEHIND_RUN_LATE;
	bool missing = l && l->lost && rs_lossmap_has(l->lost, psn);
	if (missing || before_first)
		return RS_BEHIND_LATE;
	/* Its PSN was seen, under a number no longer remembered: a sending
	 * that left before the newest packet, so a re-send of the current run
	 * or an earlier one arriving late (or the first sending, overtaken by
	 * its re-send): counted with the run its number puts it in. */
	return RS_BEHIND_RUN_LATE;
}

/* Karn's rule: an answer to a request that was sent more than once cannot
 * say which sending it answers, so none of the requests from `psn` on (a
 * go-back-N re-sends them all) gives a latency sample. */
void rs_pending_resent(struct rs_latency *l, uint32_t psn)
{
	for (uint32_t i = 0; l && i < l->count; i++) {
		struct rs_pending *p = &rs_lat_ring(l)[(l->head + i) & rs_lat_mask(l)];
		if (rs_psn_diff(p->psn + (p->npkts ? p->npkts : 1) - 1, psn) >= 0)
			p->resent = 1;
	}
}

static const struct rs_idsent *ids_seen(const struct rs_psn_loss *l, uint32_t psn);

/*
 * A READ or atomic asked again from `psn` at `ts` because a later answer
 * came first: the responder answered a higher PSN after the copy it
 * repeats, so the requester knew its answer was missing (responses come
 * in PSN order: an implied NAK; rdma_rxe retries at once). Its timer restarts at every
 * answer, so a re-send sooner than T/2 after the last one is not the
 * timer's; later than that it may be, and rdma_rxe starts no second such
 * retry before a timeout: it is the timer's. Without T (no REQ in the
 * capture) the later answer is the evidence there is.
 */
static bool after_later_answer(const struct rs_flow *fl, const struct rs_psn_loss *l, uint64_t ts, uint32_t psn)
{
	const struct rs_flow *rsp = fl->peer;
	if (!rsp || !rsp->rsp.started || !fl->lat || rs_psn_diff((rsp->rsp.next - 1) & RS_PSN_MASK, psn) <= 0)
		return false;
	uint64_t last = fl->lat->last_rsp_ts;
	const struct rs_idsent *copy = l ? ids_seen(l, psn) : NULL;
	if ((copy && last < copy->ts) || last > ts)
		return false;
	const struct rs_conn *c = fl->conn;
	uint64_t T = c && c->have_req_retry && c->ack_timeout ? rs_ack_timeout_ns(c->ack_timeout) : 0;
	return !T || ts - last < T / 2;
}

/* A re-send with no NAK before it, if the capture could have shown a NAK
 * (it holds the responder's packets from before the re-send): a READ's or
 * atomic's retry after a later answer, else the timer's; else unknown. */
static uint8_t cause_without_nak(const struct rs_flow *fl, const struct rs_psn_loss *l, const struct rs_opinfo *op,
				 uint64_t ts, uint32_t psn)
{
	const struct rs_flow *rsp = fl->peer;
	if (!rsp || !rsp->packets || rsp->first_ts >= ts)
		return RS_RESEND_UNKNOWN;
	bool asks = op->kind == RS_KIND_READ_REQ || op->kind == RS_KIND_CMP_SWAP || op->kind == RS_KIND_FETCH_ADD;
	return asks && after_later_answer(fl, l, ts, psn) ? RS_RESEND_READ : RS_RESEND_TIMEOUT;
}

/*
 * The NAK a re-send run beginning at `psn` answers: a requester goes back to
 * the very PSN a NAK names (IBA 9.7.5.2.2, 9.7.5.2.8; rdma_rxe resumes even
 * mid-message), so of the NAKs owed, the one with the highest PSN at or
 * before the run's first (whose first re-send may be missing or late). A
 * run from before every owed NAK answers none of them. A requester answers
 * a sequence error NAK at once or never (rdma_rxe ignores one that comes
 * while it is already going back): one owed for longer than the ACK timeout
 * its CM REQ carried has its re-send from the timer. Taken from the owed;
 * NULL: none.
 */
static const struct rs_owed *owed_answered(const struct rs_flow *fl, struct rs_psn_loss *l, uint32_t psn, uint64_t ts)
{
	const struct rs_conn *c = fl->conn;
	uint64_t t = c && c->have_req_retry && c->ack_timeout ? rs_ack_timeout_ns(c->ack_timeout) : 0;
	int best = -1;
	for (unsigned i = 0; i < l->nowed; i++) {
		const struct rs_owed *e = &l->owed[i];
		if (e->kind == RS_NAKW_SEQ && t && ts > e->ts && ts - e->ts > t)
			continue;
		if (rs_psn_diff(psn, e->psn) >= 0 && (best < 0 || rs_psn_diff(e->psn, l->owed[best].psn) >= 0))
			best = (int)i;
	}
	if (best < 0)
		return NULL;
	l->taken = l->owed[best];
	l->have_taken = true;
	rs_owed_drop_to(l, (unsigned)best);
	return &l->taken;
}

/* How long the requester waited, with no NAK, before a run whose first
 * packet (PSN psn) arrives now: since the copy that packet repeats (IPv4,
 * while remembered), else since its last packet or the responder's last
 * answer, whichever is later. */
static uint64_t timer_wait(const struct rs_analyzer *a, const struct rs_flow *fl, const struct rs_psn_loss *l,
			   uint64_t ts, uint32_t psn)
{
	const struct rs_idsent *copy = ids_seen(l, psn);
	uint64_t from = a->fl_prev_ts;
	if (fl->lat && fl->lat->last_rsp_ts > from)
		from = fl->lat->last_rsp_ts;
	if (copy)
		from = copy->ts;
	return ts > from ? ts - from : 0;
}

/* A READ's or atomic's retry waited from the later answer that came first,
 * the timer's from what timer_wait() says. */
static uint64_t wait_without_nak(const struct rs_analyzer *a, const struct rs_flow *fl, const struct rs_psn_loss *l,
				 uint64_t ts, uint32_t psn, uint8_t cause)
{
	if (cause == RS_RESEND_READ && fl->lat)
		return ts > fl->lat->last_rsp_ts ? ts - fl->lat->last_rsp_ts : 0;
	return timer_wait(a, fl, l, ts, psn);
}

/* A run began: its timer and the responder's last answer before it, for
 * the timeouts' reckoning. */
static void run_began(const struct rs_flow *fl, struct rs_psn_loss *l)
{
	const struct rs_conn *c = fl->conn;
	l->timer_ns = c && c->have_req_retry && c->ack_timeout ? rs_ack_timeout_ns(c->ack_timeout) : 0;
	l->episode_answered = fl->lat ? (struct rs_fref){ fl->lat->last_rsp_file, fl->lat->last_rsp_frame }
				      : (struct rs_fref){ 0, 0 };
}

/* The cause of a backward run of re-sent requests, from its first packet:
 * a NAK the requester had not yet answered, else its timer. Counted when
 * the run ends (commit_episode), for a run of one packet may turn out to
 * be a late one. */
static void resend_cause(struct rs_analyzer *a, struct rs_flow *fl, struct rs_psn_loss *l,
			 const struct rs_opinfo *op, uint64_t ts, uint32_t psn)
{
	l->episode_ts = ts;
	const struct rs_owed *o = owed_answered(fl, l, psn, ts);
	if (o) {
		l->cause = o->kind == RS_NAKW_SEQ ? RS_RESEND_NAK : RS_RESEND_RNR;
		l->cause_at = o->at;
		l->cause_wait_ns = ts > o->ts ? ts - o->ts : 0;
		return;
	}
	l->cause = cause_without_nak(fl, l, op, ts, psn);
	l->cause_wait_ns = wait_without_nak(a, fl, l, ts, psn, l->cause);
	run_began(fl, l);
	l->cause_at = (struct rs_fref){ 0, 0 };
}

/* A run of re-sent requests ended (in arrival order): count it by its
 * cause, unless its packets were counted by their runs in the sender's
 * order (sendorder.c) as they came. */
void rs_resend_commit(struct rs_analyzer *a, struct rs_flow *fl, struct rs_psn_loss *l)
{
	if (!l->episode_by_id) {
		l->resent[l->cause] += l->episode_len;
		a->psns.resent[l->cause] += l->episode_len;
		rs_count_run(l, l->cause, l->cause_wait_ns, true);
	}
	if (l->cause != RS_RESEND_TIMEOUT && l->cause != RS_RESEND_READ)
		return;
	/* Retries with no answer since they began: the QP may be dying. */
	if (fl->lat && fl->lat->last_rsp_ts > l->episode_ts)
		return;
	if (!l->silent_retries) {
		l->silent_first_ts = l->episode_ts;
		l->silent_from = l->episode_start;
		l->answered_at = l->episode_answered;
	}
	l->silent_retries++;
	l->silent_last_ts = l->episode_ts;
}

/* A run of one packet was a late one after all: the NAK it took as its
 * cause is still waiting for its re-send. */
void rs_resend_uncommit(struct rs_psn_loss *l)
{
	if ((l->cause == RS_RESEND_NAK || l->cause == RS_RESEND_RNR) && l->have_taken &&
	    l->taken.at.file == l->cause_at.file && l->taken.at.frame == l->cause_at.frame) {
		if (l->nowed == RS_OWED)
			l->nowed--;
		memmove(l->owed + 1, l->owed, l->nowed * sizeof l->owed[0]);
		l->owed[0] = l->taken;
		l->nowed++;
		l->have_taken = false;
		l->nak_wait = l->owed[l->nowed - 1].kind;
	}
}

/*
 * IPv4 requests whose numbers are trusted are filed in the order their
 * sender sent them (sendorder.c), from the first packet out of order on.
 * A packet that begins a run there gets the run's cause now; one that
 * shows the packet after it began a run counts that run too, with the
 * cause the run it left had.
 */
bool rs_so_active(const struct rs_psn *s)
{
	return s->loss && s->loss->so && s->ipid_up && !s->ipid_bad;
}

bool rs_so_placed(const struct rs_psn *s)
{
	return rs_so_active(s) && s->loss->so_put.label && !s->loss->so_put.copy;
}

void rs_so_feed(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f, uint32_t adv)
{
	struct rs_psn *s = &fl->req;
	if (f->ip_version != 4 || !s->ipid_seen || s->ipid_bad || (!s->loss && f->bth.psn == s->next)) {
		if (s->loss)
			s->loss->so_put = (struct rs_so_put){ 0 };
		return;
	}
	struct rs_psn_loss *l = rs_loss_w(s);
	if (!l->so)
		l->so = rs_so_new((uint16_t)s->ipid, (s->next - 1) & RS_PSN_MASK);
	/* Runs this packet's number leaves nothing to come before settle first. */
	rs_runs_due(a, fl, f->ip_id, false);
	const struct rs_fref at = { a->cur_file, a->cur_frame };
	l->so_put = rs_so_put(l->so, f->ip_id, f->bth.psn, adv ? adv : 1, rs_frame_fp(f), &at);
	if (l->so_put.watch)
		rs_watch_opened(a, fl);
}

/* The cause the current episode took, for run r. */
static void run_set(struct rs_so_run *r, const struct rs_psn_loss *l)
{
	r->cause = l->cause;
	r->has_cause = true;
	r->at = l->cause_at;
	r->wait_ns = l->cause_wait_ns;
	r->open = false;
}

/* Give the runs the packet just fed began their causes and count them:
 * after psn.c ended the run before in arrival order (which reads the
 * cause state this overwrites), at the latest once the packet is filed. */
void rs_so_settle(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_opinfo *op, uint64_t ts, uint32_t psn)
{
	struct rs_psn_loss *l = fl->req.loss;
	if (!l || !l->so)
		return;
	struct rs_so_put *p = &l->so_put;
	if (p->new_run) {
		/* Open until nothing can come before its first packet (runs.c):
		 * at once, unless numbers before it are still missing. */
		p->new_run = false;
		struct rs_so_run *r = rs_so_run(l->so, p->label);
		l->episode_ts = ts;
		run_began(fl, l);
		if (r) {
			r->has_cause = true;
			r->seen = (struct rs_fref){ a->cur_file, a->cur_frame };
			r->t0 = ts;
			r->timer_cause = cause_without_nak(fl, l, op, ts, psn);
			r->timer_wait = wait_without_nak(a, fl, l, ts, psn, r->timer_cause);
			rs_run_opened(a, fl, l, r);
		} else {
			resend_cause(a, fl, l, op, ts, psn);
			rs_count_run(l, l->cause, l->cause_wait_ns, true);
		}
	}
	if (p->split) {
		/* Split off an open run, a part stays open and is settled on its
		 * own (runs.c); else it is counted now, with the cause of the run
		 * it left. */
		p->split = false;
		struct rs_so_run *r = rs_so_run(l->so, p->split_label);
		if (r && r->open)
			rs_run_split(a, fl, l, r);
		else if (r && r->has_cause)
			rs_count_run(l, r->cause, r->wait_ns, true);
		else
			rs_count_run(l, cause_without_nak(fl, l, op, ts, psn), 0, false);
	}
	/* A late packet may be the first of an open run after all. */
	struct rs_so_run *r = rs_so_run(l->so, p->label);
	if (r && r->open && r->first == p->id)
		rs_run_review(fl, l, r);
	if (p->label)
		rs_runs_due(a, fl, p->id, false);
}

/* The cause of the re-sent packet just fed: its run's, if known. */
static bool run_cause(struct rs_psn_loss *l)
{
	struct rs_so_run *r = l->so ? rs_so_run(l->so, l->so_put.label) : NULL;
	if (!r || !r->has_cause)
		return false;
	r->given |= r->open;
	l->cause = r->cause;
	l->cause_at = r->at;
	l->cause_wait_ns = r->wait_ns;
	return true;
}

static void count_packet(struct rs_analyzer *a, struct rs_psn_loss *l)
{
	if (l->so && l->so_put.label)
		rs_so_counted(l->so, l->so_put.id, l->so_put.psn, l->cause, NULL);
	l->resent[l->cause]++;
	a->psns.resent[l->cause]++;
}

/* A request behind the expected PSN that its sender put on the wire again. */
void rs_resent(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f, const struct rs_opinfo *op,
	       uint64_t ts)
{
	struct rs_psn_loss *l = fl->req.loss;
	if (l->episode_len == 1)
		l->episode_by_id = rs_so_active(&fl->req);
	if (l->episode_by_id) {
		rs_so_settle(a, fl, op, ts, f->bth.psn);
		if (!run_cause(l)) {
			/* Its run began before the window: the arrival order's cause. */
			if (l->episode_len == 1)
				resend_cause(a, fl, l, op, ts, f->bth.psn);
			struct rs_so_run *r = rs_so_run(l->so, l->so_put.label);
			if (r)
				run_set(r, l);
		}
		count_packet(a, l);
	} else if (l->episode_len == 1) {
		resend_cause(a, fl, l, op, ts, f->bth.psn);
	}
	rs_pending_resent(fl->lat, f->bth.psn);
	if (a->v)
		rs_v_resend(a, l->cause, &l->cause_at, l->cause_wait_ns);
}

/* A re-send of the run that just ended, arriving after the packets that
 * ended it: counted with its run (in the sender's order if known, else the
 * one that ended). */
void rs_resent_late(struct rs_analyzer *a, struct rs_psn_loss *l)
{
	if (l->episode_by_id)
		run_cause(l);
	count_packet(a, l);
	if (a->v)
		rs_v_resend(a, l->cause, &l->cause_at, l->cause_wait_ns);
}

/*
 * A sending of a PSN numbered below the one that came first as a new PSN:
 * if nothing numbered before it in the window carried its PSN or a higher
 * one, it is the original, and the sending that came first the re-send.
 * That one is counted with its run's cause while the run is open, for its
 * verdict is then corrected with the run's (runs.c); filed between its run
 * and the re-send, this one shows that the re-send began a run (the
 * split), opened as one from the re-send's arrival (its wait the time
 * between the two sendings) if a run open since then holds the re-send's
 * verdict back. Else the re-send's verdict was given: false, and this one
 * stands in for it (every count agrees with a verdict shown).
 */
bool rs_late_original(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_opinfo *op, uint32_t psn, uint64_t ts,
		      struct rs_fref *re)
{
	struct rs_psn_loss *l = fl->req.loss;
	if (!rs_so_active(&fl->req) || !l->so_put.label || !rs_so_original(l->so, l->so_put.id, psn))
		return false;
	const struct rs_idsent *seen = ids_seen(l, psn);
	uint16_t label = seen ? rs_so_label(l->so, seen->id, psn) : 0;
	struct rs_so_run *r = rs_so_run(l->so, label);
	struct rs_fref at;
	if (r && l->so_put.split && l->so_put.split_label == label && rs_so_at(l->so, seen->id, psn, &at) &&
	    rs_so_open_since(l->so, &at)) {
		r->has_cause = true;
		r->seen = at;
		r->t0 = seen->ts;
		r->timer_cause = cause_without_nak(fl, l, op, seen->ts, psn);
		r->timer_wait = ts > seen->ts ? ts - seen->ts : seen->ts - ts;
		rs_run_opened(a, fl, l, r);
	}
	if (!r || !r->has_cause || !r->open || !rs_so_counted(l->so, seen->id, psn, r->cause, re))
		return false;
	l->resent[r->cause]++;
	a->psns.resent[r->cause]++;
	r->given = true;
	return true;
}

/* A copy of a request the network made: nothing was re-sent. by_timing:
 * proved by its bytes and timing (no IP ID), not by its IP ID. */
void rs_net_copy(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_fref *at, bool by_timing)
{
	struct rs_psn_loss *l = rs_loss_w(&fl->req);
	l->netdup++;
	a->psns.netdup++;
	rs_anomaly(a, RS_AN_NETDUP, by_timing, fl, at, 1);
	if (a->v)
		rs_v_not_resent(a->v, false);
}

/*
 * Without an IP ID (IPv6, RoCE v1, InfiniBand) a copy the network made and
 * a re-send carry the same bytes; only timing tells them apart. The
 * requester re-sends a PSN after a timer (the shortest Local ACK Timeout
 * is 4.096 us x 2^1), after an RNR NAK's timer (the shortest 10 us) or
 * after a NAK, which a later packet must have provoked. So the packet
 * right after its stream's newest one, with the same good ICRC (the same
 * PSN and bytes), sooner than the shortest timer, is a copy.
 */
#define RS_COPY_WINDOW_NS 8192

bool rs_copy_by_timing(const struct rs_analyzer *a, const struct rs_flow *fl, const struct rs_frame *f, uint64_t ts)
{
	const struct rs_psn *s = &fl->req;
	return f->ip_version != 4 && s->fp_seen && f->icrc_status == RS_CRC_OK &&
	       (uint16_t)f->icrc == (uint16_t)s->ipid && ts >= a->fl_prev_ts && ts - a->fl_prev_ts < RS_COPY_WINDOW_NS;
}

/* The newest packet's fingerprint, for rs_copy_by_timing. */
void rs_fp_note(struct rs_psn *s, const struct rs_frame *f)
{
	if (f->ip_version == 4)
		return;
	s->fp_seen = f->icrc_status == RS_CRC_OK;
	s->ipid = (uint16_t)f->icrc;
}

/* How late: behind the newest PSN seen, and after the packet that
 * skipped it (if its gap is among the last ones remembered). */
static void lateness(struct rs_psn_loss *l, const struct rs_psn *s, uint32_t psn, uint64_t ts)
{
	int32_t behind = rs_psn_diff((s->next - 1) & RS_PSN_MASK, psn);
	if (behind > 0 && (uint32_t)behind > l->late_psns_max)
		l->late_psns_max = (uint32_t)behind;
	for (int k = 0; k < 8; k++) {
		const struct rs_gapref *g = &l->gapref[k];
		int32_t off = rs_psn_diff(psn, g->psn);
		if (g->n && off >= 0 && (uint32_t)off < g->n && ts > g->ts && ts - g->ts > l->late_ns_max)
			l->late_ns_max = ts - g->ts;
	}
}

/* A request before the stream's first PSN, late or re-sent: the stream
 * starts there, and the PSNs between were skipped (this one fills one). */
void rs_psn_start_back(struct rs_analyzer *a, struct rs_psn *s, uint32_t psn)
{
	int32_t before = rs_psn_diff(s->first, psn);
	if (before <= 0)
		return;
	struct rs_psn_loss *l = rs_loss_w(s);
	s->first = psn;
	l->gaps++;
	l->missing += (uint32_t)before;
	a->psns.missing += (uint32_t)before;
	a->psns.range += (uint32_t)before;
	rs_lossmap_mark(l, psn, (uint32_t)before);
}

/* A request that left its sender before others already seen. One before
 * the stream's first PSN moves the start back: the PSNs between were
 * skipped, this one filled late. */
void rs_late_request(struct rs_analyzer *a, struct rs_flow *fl, struct rs_psn *s, uint32_t psn,
		     const struct rs_fref *at, uint64_t ts)
{
	struct rs_psn_loss *l = rs_loss_w(s);
	lateness(l, s, psn, ts);
	rs_psn_start_back(a, s, psn);
	rs_lossmap_take(l, psn);
	l->backward++;
	l->fills++;
	l->ooo++;
	a->psns.fills++;
	a->psns.ooo++;
	rs_anomaly(a, RS_AN_OOO, 0, fl, at, 1);
	if (a->v) {
		rs_v_late(a, at);
		rs_v_not_resent(a->v, true);
	}
}

/* A NAK asks the requester to re-send from `psn` (a sequence error) or to
 * retry `psn` once the RNR timer ran: its next backward run answers it. */
void rs_nak_wait(struct rs_analyzer *a, struct rs_flow *req, uint8_t kind, uint8_t timer, uint32_t psn, const struct rs_fref *at,
		     uint64_t ts)
{
	struct rs_psn_loss *l = rs_loss_w(&req->req);
	/* Packets the requester sent before it heard the RNR NAK draw sequence
	 * error NAKs; it goes back to the RNR NAKed PSN once the timer ran,
	 * and ignores them (rdma_rxe counts no rcvd_seq_err for them). */
	if (kind == RS_NAKW_SEQ && l->nak_wait == RS_NAKW_RNR && rs_psn_diff(psn, l->nak_psn_wait) >= 0)
		return;
	/* No room: the open runs, which may answer the oldest, settle with
	 * what the capture showed so far before it is forgotten. */
	if (l->nowed == RS_OWED)
		rs_runs_due(a, req, 0, true);
	if (l->nowed == RS_OWED)
		rs_owed_drop_to(l, 0);
	l->owed[l->nowed++] = (struct rs_owed){ .psn = psn, .kind = kind, .timer = timer, .ts = ts, .at = *at };
	l->nak_wait = kind;
	l->rnr_timer = timer;
	l->nak_psn_wait = psn;
	l->nak_at = *at;
	l->nak_ts = ts;
	if (kind == RS_NAKW_RNR)
		l->rnr_streak++;
}

/* An ACK: the receiver made progress, so RNR NAKs before it are no
 * longer a run. (A NAK stays owed: the requester re-sends after it even
 * when late packets reached the responder and it acknowledged them.) */
void rs_rnr_progress(struct rs_flow *req)
{
	if (req->req.loss)
		req->req.loss->rnr_streak = 0;
}

/*
 * A requester whose last packets were re-sent with no answer, and that then
 * fell silent, stopped. The capture proves why only when the count its CM
 * exchange set explains it (IBA 9.7.6.1.3, 9.7.5.2.8): as many unanswered
 * re-sends as the REQ's Retry Count (its QP is then in error,
 * IBV_WC_RETRY_EXC_ERR), or one RNR NAK more in a row than the RNR Retry
 * Count (IBV_WC_RNR_RETRY_EXC_ERR; 7 retries for ever). Any other count, or
 * no CM message in the file, and the file cannot say why it stopped: the
 * application may have been stopped, its QP destroyed or modified. It
 * stopped once it was silent for a re-send period after its last re-send
 * (four RNR timers), or the connection was torn down (DREQ) after them.
 * Only said of a responder that answered before: a capture of one
 * direction shows no answers at all, and that is the capture, not a QP.
 */
static bool torn_down_after(const struct rs_conn *c, uint64_t t)
{
	const unsigned dreq = UMAD_CM_ATTR_DREQ - UMAD_CM_ATTR_REQ;
	return c && c->kind == RS_CONN_RC && c->n[dreq] && c->ts[dreq] > t;
}

static uint8_t why_not(int count, uint64_t seen, uint64_t allowed)
{
	if (count < 0)
		return RS_WHY_NO_COUNT;
	return seen > allowed ? RS_WHY_MORE : RS_WHY_FEWER;
}

static void settle_timeouts(struct rs_analyzer *a, struct rs_flow *fl, struct rs_psn_loss *l)
{
	const struct rs_conn *c = fl->conn;
	uint64_t every = l->silent_retries > 1 ? (l->silent_last_ts - l->silent_first_ts) / (l->silent_retries - 1)
					       : l->timeout_max_ns;
	int count = c && c->have_req_retry ? c->retry_count : -1;
	bool exact = count >= 0 && l->silent_retries == (uint32_t)count;
	l->dead_torn_down = torn_down_after(c, l->silent_last_ts);
	/* The error comes one timeout after the last retry: the capture may
	 * end before the next re-send was due. */
	bool stopped = l->silence_ns > every || (exact && l->silence_ns >= every / 2) || l->dead_torn_down;
	if (!stopped)
		l->dead = RS_DEAD_RETRYING;
	else if (exact)
		l->dead = RS_DEAD_RETRY;
	else {
		l->dead = RS_DEAD_SILENT;
		l->dead_why = why_not(count, l->silent_retries, (uint64_t)count);
	}
	rs_anomaly(a, RS_AN_DEAD_QP, l->dead, fl, &l->silent_from, l->silent_retries);
}

static void settle_rnr(struct rs_analyzer *a, struct rs_flow *fl, struct rs_psn_loss *l)
{
	const struct rs_conn *c = fl->conn;
	bool client = c && c->c2s == fl;
	int count = !c ? -1 : client ? (c->have_rep_rnr ? c->rnr_retry_rep : -1) : (c->have_req_retry ? c->rnr_retry_req : -1);
	uint64_t timer = (uint64_t)rs_rnr_timer_us(l->rnr_timer) * 1000;
	bool quiet = a->last_ts > l->nak_ts && a->last_ts - l->nak_ts > 4 * timer && l->silence_ns > 4 * timer;
	l->dead_torn_down = torn_down_after(c, l->nak_ts);
	if (count >= 0 && count < 7 && l->rnr_streak == (uint32_t)count + 1) {
		l->dead = RS_DEAD_RNR;
	} else if (quiet || l->dead_torn_down) {
		l->dead = RS_DEAD_RNR_SILENT;
		l->dead_why = count == 7 ? RS_WHY_FOREVER : why_not(count, l->rnr_streak, (uint64_t)count + 1);
	} else {
		return;
	}
	rs_anomaly(a, RS_AN_DEAD_QP, l->dead, fl, &l->nak_at, l->rnr_streak);
}

void rs_settle_dead(struct rs_analyzer *a, struct rs_flow *fl)
{
	struct rs_psn_loss *l = fl->req.loss;
	if (!l)
		return;
	l->silence_ns = a->last_ts > fl->last_ts ? a->last_ts - fl->last_ts : 0;
	if (l->silent_retries && l->answered_at.frame)
		settle_timeouts(a, fl, l);
	else if (l->nak_wait == RS_NAKW_RNR && l->rnr_streak)
		settle_rnr(a, fl, l);
}
