/*
 * msn.c — the messages of a request stream the capture missed whole, by
 * its responder's ACKs (IBA vol 1 9.7.5: an ACK's MSN is the responder's
 * count of completed messages). An ACK with PSN p and MSN m says that m
 * messages ended at or before p; between two ACKs (p1, m1) and (p2, m2),
 * m2 - m1 ended in (p1, p2]. Less those seen ending there (message.c
 * counts them), that is how many the capture missed whole.
 *
 * The reckoning stands on a base: the PSN and MSN of an ACK, and how many
 * seen messages ended at or before that PSN (rsp->ack_msn, rsp->ack_msgs).
 * An ACK may name a PSN behind the newest request seen (the responder
 * answers late: pipelined requests on many QPs): the messages seen since
 * that end after it must then be told apart from those that end before.
 * While every PSN after the base reached reassembly (nothing skipped: the
 * stream is "plain"), every message that ended there was seen and the MSN
 * needs no check. Once something is skipped past the base, the stream is
 * tracked: a struct rs_msnq, allocated then (a stream without capture
 * drops never has one), remembers where each message seen since ended.
 */
#include "analyzer/messages/messages.h"

/* Message ends kept: more are forgotten (the reckoning waits for an ACK
 * beyond all of them). An ACK scans them all. */
#define RS_MSNQ_FIRST 16
#define RS_MSNQ_MAX 1024
/* ACKs that wait. With a base, when this many wait, the MSN shares their
 * advances out rather than the base stay behind (and the kept ends grow). */
#define RS_MSN_PEND 8

struct rs_msnq {
	uint32_t base_psn;    /* the PSN of the ACK the base stands on */
	/* Messages settled before tracking began (or forgotten) end at or
	 * before pre_psn; while `pre`, some of them may end after base_psn.
	 * `contig`: every PSN in (base_psn, pre_psn] reached reassembly. */
	uint32_t pre_psn;
	bool pre, contig;
	uint32_t n, cap;
	struct rs_msnend { uint32_t lo, hi; } *e; /* each one settled since: it ended in [lo, hi] */
	/* ACKs that cannot be reckoned yet, oldest first. */
	uint32_t npend;
	struct rs_msnack { uint32_t psn, msn; } pend[RS_MSN_PEND];
};

void rs_msnq_free(struct rs_msnq *q)
{
	if (q)
		g_free(q->e);
	g_free(q);
}

static struct rs_msnq *msnq(const struct rs_flow *req)
{
	return req->rare ? req->rare->msnq : NULL;
}

/* The PSN the base stands on: while plain, the responder's newest ACK
 * (every later ACK moves the base), which an ACK being handled has
 * already replaced. */
static uint32_t base_psn(const struct rs_analyzer *a, const struct rs_flow *rsp, const struct rs_msnq *q)
{
	return q ? q->base_psn : a->in_ack ? a->ack_prev : rsp->ack_psn;
}

/* The messages the stream has counted or will count (open ones whose end
 * is known: they are given up later), mod 2^24 like the MSN; a message the
 * stream began inside is not one (its packets are orphans). */
uint32_t rs_msg_settled(const struct rs_flow *fl)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < fl->nopen; i++)
		if (!fl->open[i].headless && (fl->open[i].kind || fl->open[i].ended))
			n++;
	const struct rs_flow_msgs *m = rs_msgs(fl);
	for (unsigned k = 0; k < RS_MSG__COUNT; k++)
		n += m->msgs[k];
	return (uint32_t)(n & RS_PSN_MASK);
}

/* Whether the stream is reckoned (its responder may not be known yet). */
static bool usable(const struct rs_flow *req)
{
	const struct rs_flow *rsp = req->peer;
	return req->transport == RS_TR_RC && !(rsp && rsp->is_dc) && !req->is_dc && !rs_rare(req)->msn_unusable;
}

/* Track the stream from here: what it settled so far ends at or before
 * `pre_psn`. */
static struct rs_msnq *track(struct rs_analyzer *a, struct rs_flow *req, uint32_t pre_psn, bool contig)
{
	struct rs_flow_rare *r = rs_rare_w(req);
	if (r->msnq)
		return r->msnq;
	struct rs_flow *rsp = req->peer;
	struct rs_msnq *q = r->msnq = g_new0(struct rs_msnq, 1);
	q->pre_psn = pre_psn & RS_PSN_MASK;
	q->contig = contig;
	if (rsp && rsp->msn_base) {
		q->base_psn = base_psn(a, rsp, NULL);
		q->pre = rs_msg_settled(req) != rsp->ack_msgs;
	} else {
		q->pre = rs_msg_settled(req) != 0;
	}
	return q;
}

void rs_msn_take(struct rs_analyzer *a, struct rs_flow *req, uint32_t psn, uint32_t gap)
{
	if (!gap || !usable(req) || msnq(req))
		return;
	struct rs_flow *rsp = req->peer;
	uint32_t last = (psn - 1) & RS_PSN_MASK;
	if (!rsp || !rsp->msn_base || rs_psn_diff(last, base_psn(a, rsp, NULL)) > 0)
		track(a, req, psn - gap - 1, true);
}

void rs_msn_headless(struct rs_analyzer *a, struct rs_flow *req, uint32_t psn)
{
	if (usable(req))
		track(a, req, psn - 1, true);
}

static void push(struct rs_msnq *q, uint32_t lo, uint32_t hi)
{
	if (q->n == q->cap) {
		if (q->cap == RS_MSNQ_MAX) {
			/* Too many: forget where they ended (before the newest). */
			for (uint32_t i = 0; i < q->n; i++)
				if (rs_psn_diff(q->e[i].hi, hi) > 0)
					hi = q->e[i].hi;
			if (!q->pre || rs_psn_diff(hi, q->pre_psn) > 0)
				q->pre_psn = hi & RS_PSN_MASK;
			q->pre = true;
			q->contig = false;
			q->n = 0;
			return;
		}
		q->cap = q->cap ? q->cap * 2 : RS_MSNQ_FIRST;
		q->e = g_renew(struct rs_msnend, q->e, q->cap);
	}
	q->e[q->n++] = (struct rs_msnend){ lo & RS_PSN_MASK, hi & RS_PSN_MASK };
}

/* A message became one the counts hold, ended in [lo, hi]. One that ended
 * at or before the base (the sniffer wrote the ACK first, or it came late)
 * was taken at the base for one the capture missed. */
void rs_msn_settled(struct rs_analyzer *a, struct rs_flow *req, uint32_t lo, uint32_t hi, bool late)
{
	if (!usable(req))
		return;
	struct rs_flow *rsp = req->peer;
	struct rs_msnq *q = msnq(req);
	if (rsp && rsp->msn_base && rs_psn_diff(hi, base_psn(a, rsp, q)) <= 0) {
		rsp->ack_msgs = (rsp->ack_msgs + 1) & RS_PSN_MASK;
		if (req->rare && req->rare->msgs_uncaptured) {
			req->rare->msgs_uncaptured--;
			a->psns.msgs_uncaptured--;
		}
		return;
	}
	if (!q && late)
		q = track(a, req, req->req.next - 1, false); /* out of PSN order: no longer plain */
	if (q)
		push(q, lo, hi);
}

/* Messages still being received (no Last, no later message of their
 * family yet) that may have ended at or before `psn`: not those a later
 * packet shows ended before it. */
static bool busy_before(const struct rs_openmsg *o, uint32_t psn)
{
	return !o->headless && !o->kind && !o->ended && rs_psn_diff(psn, o->newest) > 0 &&
	       !(o->bounded && rs_psn_diff(o->end_hi, psn) <= 0);
}

/* The base moves to this ACK; what ended at or before it is forgotten. */
static void set_base(struct rs_flow *rsp, struct rs_msnq *q, uint32_t psn, uint32_t msn, uint32_t msgs)
{
	rsp->ack_msn = msn & RS_PSN_MASK;
	rsp->ack_msgs = msgs & RS_PSN_MASK;
	rsp->msn_base = true;
	if (!q)
		return;
	q->base_psn = psn;
	if (q->pre && rs_psn_diff(psn, q->pre_psn) >= 0)
		q->pre = false;
	uint32_t k = 0;
	for (uint32_t i = 0; i < q->n; i++)
		if (rs_psn_diff(q->e[i].hi, psn) > 0)
			q->e[k++] = q->e[i];
	q->n = k;
}

static void uncaptured(struct rs_analyzer *a, struct rs_flow *req, uint32_t n)
{
	if (n) {
		rs_rare_w(req)->msgs_uncaptured += n;
		a->psns.msgs_uncaptured += n;
	}
}

/*
 * Messages that may have ended at or before the ACK's PSN or after it (a
 * kept end on both sides of it; one still being received that may have
 * ended since its newest packet) are unsure. Without a base the ACK waits
 * (reckon says so) until none is. With one, the MSN's advance less the
 * sure ones is how many ended in (base, psn] unseen: if none, no unsure
 * one ended there; else the unsure ones take them, oldest first, before the
 * rest count as missed whole. Assigned either way, a message is counted
 * once, and the MSN's advances add up: the total stays exact.
 */
static void assign(struct rs_analyzer *a, struct rs_flow *req, struct rs_msnq *q, uint32_t psn, uint32_t *sure,
		   uint32_t extra)
{
	for (uint32_t i = 0; q && i < q->n; i++) {
		struct rs_msnend *e = &q->e[i];
		if (rs_psn_diff(e->lo, psn) > 0 || rs_psn_diff(e->hi, psn) <= 0)
			continue;
		if (extra) {
			e->hi = psn; /* it ended here: forgotten with the base */
			extra--;
			*sure = (*sure + 1) & RS_PSN_MASK;
		} else {
			e->lo = (psn + 1) & RS_PSN_MASK;
		}
	}
	for (unsigned i = 0; i < req->nopen && extra; i++) {
		struct rs_openmsg *o = &req->open[i];
		if (busy_before(o, psn)) {
			o->ended = true; /* its Last was not captured */
			o->end_hi = psn;
			o->bounded = true;
			extra--;
			*sure = (*sure + 1) & RS_PSN_MASK;
		}
	}
	uncaptured(a, req, extra);
}

/* The reckoning at one ACK: false if it must wait (what ended before it
 * cannot be told yet; at the end, with a base, the unsure ones are
 * assigned: `last`). `newest`: the newest PSN reassembly took, read only
 * while the stream is plain (tracked streams keep their own). */
static bool reckon(struct rs_analyzer *a, struct rs_flow *rsp, struct rs_flow *req, uint32_t psn, uint32_t msn,
		   uint32_t newest, bool last)
{
	struct rs_msnq *q = msnq(req);
	if (rsp->msn_base && rs_psn_diff(psn, base_psn(a, rsp, q)) <= 0)
		return true; /* an older ACK, or the same again */
	uint32_t said = (msn - (uint32_t)rsp->ack_msn) & RS_PSN_MASK;
	uint32_t settled = rs_msg_settled(req);
	uint32_t sure = 0, unsure = 0;
	if (q ? q->pre && rs_psn_diff(psn, q->pre_psn) < 0 : rs_psn_diff(psn, newest) < 0) {
		/* Behind messages whose ends were not kept: only if nothing
		 * was skipped since the base, when every message that ended
		 * there was seen. */
		if (!rsp->msn_base || (q && !q->contig))
			return false;
		sure = (rsp->ack_msgs + said) & RS_PSN_MASK;
		if (rs_psn_diff(sure, settled) > 0) {
			rs_rare_w(req)->msn_unusable = true;
			return true;
		}
	} else {
		uint32_t after = 0;
		for (uint32_t i = 0; q && i < q->n; i++) {
			if (rs_psn_diff(q->e[i].lo, psn) > 0)
				after++;
			else if (rs_psn_diff(q->e[i].hi, psn) > 0)
				unsure++;
		}
		sure = (settled - after - unsure) & RS_PSN_MASK;
		for (unsigned i = 0; i < req->nopen; i++)
			unsure += busy_before(&req->open[i], psn);
	}
	if (unsure && !(last && rsp->msn_base))
		return false;
	if (!rsp->msn_base) {
		set_base(rsp, q, psn, msn, sure);
		return true;
	}
	uint32_t seen = (sure - (uint32_t)rsp->ack_msgs) & RS_PSN_MASK;
	if (seen > said) {
		rs_rare_w(req)->msn_unusable = true;
		return true;
	}
	assign(a, req, q, psn, &sure, said - seen);
	set_base(rsp, q, psn, msn, sure);
	return true;
}

/* ACKs that waited, oldest first: one that can be reckoned now moves the
 * base past those before it, which are dropped. */
static void resolve(struct rs_analyzer *a, struct rs_flow *rsp, struct rs_flow *req, struct rs_msnq *q, bool last)
{
	uint32_t keep = 0;
	for (uint32_t i = 0; i < q->npend && !rs_rare(req)->msn_unusable; i++) {
		if (reckon(a, rsp, req, q->pend[i].psn, q->pend[i].msn, 0, last))
			keep = 0;
		else
			q->pend[keep++] = q->pend[i];
	}
	q->npend = rs_rare(req)->msn_unusable ? 0 : keep;
}

/*
 * An ACK of rsp, with this PSN and MSN, for req's requests. A count of
 * seen messages that ever exceeds the MSN's advance means the field is not
 * an MSN (DC ACKs carry 0): the stream is not reckoned again.
 */
void rs_msg_msn(struct rs_analyzer *a, struct rs_flow *rsp, struct rs_flow *req, uint32_t psn, uint32_t msn,
		uint32_t expect)
{
	if (rsp->is_dc || req->is_dc || rs_rare(req)->msn_unusable)
		return;
	struct rs_msnq *q = msnq(req);
	if (!req->req.started) {
		/* No request seen yet: none seen ends at or before it. */
		if (rsp->msn_base && rs_psn_diff(psn, base_psn(a, rsp, q)) <= 0)
			return;
		if (!q)
			q = track(a, req, psn, false);
		if (rsp->msn_base)
			uncaptured(a, req, (msn - (uint32_t)rsp->ack_msn) & RS_PSN_MASK);
		set_base(rsp, q, psn, msn, 0);
		return;
	}
	if (q && q->npend)
		resolve(a, rsp, req, q, false);
	uint32_t newest = (expect - 1) & RS_PSN_MASK;
	if (rs_rare(req)->msn_unusable || reckon(a, rsp, req, psn, msn, newest, false))
		return;
	/* It waits for what comes after it to tell (a stream without a base
	 * that settled messages before it is tracked is left to a later
	 * ACK); without a base, the newest replaces the last of those
	 * waiting when they are too many. */
	if (!q && (rsp->msn_base || rs_msg_settled(req) == 0))
		q = track(a, req, newest, true);
	if (!q)
		return;
	if (q->npend == RS_MSN_PEND && rsp->msn_base)
		resolve(a, rsp, req, q, true);
	if (!rs_rare(req)->msn_unusable)
		q->pend[q->npend < RS_MSN_PEND ? q->npend++ : RS_MSN_PEND - 1] = (struct rs_msnack){ psn, msn };
}

/* At the end, ACKs that waited are reckoned with all the capture showed. */
void rs_msn_finish(struct rs_analyzer *a, struct rs_flow *req)
{
	struct rs_msnq *q = msnq(req);
	if (q && q->npend && req->peer && !rs_rare(req)->msn_unusable)
		resolve(a, req->peer, req, q, true);
}
