/*
 * runs.c — a re-send run's cause, settled in the sender's order. A run is
 * the packets after one step back in PSN in IP ID order (sendorder.c); its
 * cause is the NAK owed at or before its first PSN in that order, else the
 * timer. Under reordering the run's first packet in the sender's order may
 * arrive after others of the run: until nothing numbered before the first
 * one seen can still come (the number before it was seen, or left the
 * window), the run is open and its cause provisional. Once it is settled,
 * the run is counted by its cause, its packets counted for another cause
 * move to it, and the verdicts given from the provisional cause are
 * corrected (rs_analyzer_fix): a per-frame view holds its frames back
 * while a run is open (rs_analyzer_unsettled). resend.c calls it.
 */
#include <string.h>

#include "analyzer/transport/transport.h"

/* Drop owed NAK i, and with it every NAK owed before it (the requester
 * ignored them, or their runs are not in the capture). */
void rs_owed_drop_to(struct rs_psn_loss *l, unsigned i)
{
	memmove(l->owed, l->owed + i + 1, (l->nowed - i - 1) * sizeof l->owed[0]);
	l->nowed = (uint8_t)(l->nowed - i - 1);
	l->nak_wait = l->nowed ? l->owed[l->nowed - 1].kind : RS_NAKW_NONE;
}

/* One re-send run, by its cause: how many, and how long the timer waited.
 * timed: wait is how long it waited (a run that turned out to have begun
 * earlier in the sender's order has none). */
void rs_count_run(struct rs_psn_loss *l, uint8_t cause, uint64_t wait, bool timed)
{
	l->episodes++;
	l->episodes_by[cause]++;
	if (cause == RS_RESEND_RNR && timed && wait < (uint64_t)rs_rnr_timer_us(l->rnr_timer) * 1000)
		l->rnr_early++;
	if (cause == RS_RESEND_READ && timed) {
		if (!l->read_retries || wait < l->read_min_ns)
			l->read_min_ns = wait;
		if (wait > l->read_max_ns)
			l->read_max_ns = wait;
		l->read_retries++;
	}
	if (cause != RS_RESEND_TIMEOUT || !timed)
		return;
	if (l->timer_ns && wait < l->timer_ns / 2)
		l->timeouts_early++;
	if (!l->timeouts || wait < l->timeout_min_ns)
		l->timeout_min_ns = wait;
	if (wait > l->timeout_max_ns)
		l->timeout_max_ns = wait;
	l->timeout_sum_ns += wait;
	l->timeouts++;
}

static bool fref_after(const struct rs_fref *x, const struct rs_fref *y)
{
	return x->file != y->file ? x->file > y->file : x->frame > y->frame;
}

/*
 * The cause of run r from what the capture holds now: of the NAKs owed
 * that came before its first packet to arrive, the one with the highest
 * PSN at or before its first PSN in the sender's order (a requester goes
 * back to the very PSN a NAK names); a sequence error NAK owed longer than
 * T then is not it, nor one a run still open that was sent before it
 * takes for now (runs settle as their first packets come, not in the
 * order they were sent). None: the timer's cause, measured when its first
 * packet arrived. `take`: the NAK is answered, and no longer owed; so are
 * those owed before it (ignored, or their runs not in the capture), unless
 * another run still open may answer one.
 */
static void run_eval(struct rs_psn_loss *l, struct rs_so_run *r, uint64_t T, bool take)
{
	int best = -1;
	for (unsigned i = 0; i < l->nowed; i++) {
		const struct rs_owed *e = &l->owed[i];
		if (fref_after(&e->at, &r->seen) || rs_so_claimed(l->so, r, &e->at))
			continue;
		if (e->kind == RS_NAKW_SEQ && T && r->t0 > e->ts && r->t0 - e->ts > T)
			continue;
		if (rs_psn_diff(r->first_psn, e->psn) >= 0 && (best < 0 || rs_psn_diff(e->psn, l->owed[best].psn) >= 0))
			best = (int)i;
	}
	if (best < 0) {
		r->cause = r->timer_cause;
		r->at = (struct rs_fref){ 0, 0 };
		r->wait_ns = r->timer_wait;
		return;
	}
	const struct rs_owed *o = &l->owed[best];
	r->cause = o->kind == RS_NAKW_SEQ ? RS_RESEND_NAK : RS_RESEND_RNR;
	r->at = o->at;
	r->wait_ns = r->t0 > o->ts ? r->t0 - o->ts : 0;
	/* The requester went back after it: what it has not answered yet is
	 * the NAKs after it (rs_nak_wait), taken or not. */
	bool newer = (unsigned)best + 1 < l->nowed;
	l->nak_wait = newer ? l->owed[l->nowed - 1].kind : RS_NAKW_NONE;
	if (!take)
		return;
	l->taken = *o;
	l->have_taken = true;
	if (!rs_so_due(l->so, 0, true)) {
		rs_owed_drop_to(l, (unsigned)best);
		return;
	}
	memmove(l->owed + best, l->owed + best + 1, (l->nowed - best - 1) * sizeof l->owed[0]);
	l->nowed--;
	l->nak_wait = newer ? l->owed[l->nowed - 1].kind : RS_NAKW_NONE;
}

static uint64_t ack_timer(const struct rs_flow *fl)
{
	const struct rs_conn *c = fl->conn;
	return c && c->have_req_retry && c->ack_timeout ? rs_ack_timeout_ns(c->ack_timeout) : 0;
}

struct recount {
	struct rs_analyzer *a;
	struct rs_psn_loss *l;
	const struct rs_so_run *r;
};

/* A packet of a settled run, counted for `was`: now for the run's cause,
 * and its verdict says so. */
static void recount_one(void *ctx, const struct rs_fref *at, uint8_t was)
{
	struct recount *c = ctx;
	uint8_t now = c->r->cause;
	if (was != now && was < RS_RESEND__COUNT) {
		c->l->resent[was]--;
		c->l->resent[now]++;
		c->a->psns.resent[was]--;
		c->a->psns.resent[now]++;
	}
	if (c->r->given && c->a->vs && at->file == c->a->cur_file)
		rs_v_fix(c->a, at->frame, now, &c->r->at, c->r->wait_ns);
}

/* Run r is settled: its cause is final, it is counted by it, and so are
 * its packets. */
static void run_settle(struct rs_analyzer *a, struct rs_flow *fl, struct rs_psn_loss *l, struct rs_so_run *r)
{
	r->open = false;
	run_eval(l, r, ack_timer(fl), true);
	rs_count_run(l, r->cause, r->wait_ns, true);
	struct recount c = { a, l, r };
	rs_so_recount(l->so, r->label, r->cause, recount_one, &c);
	r->given = false;
}

/* The runs a per-frame view waits for (only kept for one: a->vs); label 0:
 * the stream's watch (sendorder.c). */
struct rs_open_run {
	uint32_t slot, id;
	uint16_t label;
	uint64_t frame; /* its first packet's frame */
};

static uint64_t prune(struct rs_analyzer *a);

void rs_run_opened(struct rs_analyzer *a, struct rs_flow *fl, struct rs_psn_loss *l, struct rs_so_run *r)
{
	r->open = true;
	r->given = false;
	rs_run_split(a, fl, l, r);
}

static void wait_for(struct rs_analyzer *a, const struct rs_flow *fl, uint16_t label, uint64_t frame)
{
	if (!a->open_runs)
		a->open_runs = g_array_new(FALSE, FALSE, sizeof(struct rs_open_run));
	struct rs_open_run o = { fl->slot, fl->id, label, frame };
	if (a->open_runs->len >= 1024) /* nobody asks (verdicts for --qp alone) */
		prune(a);
	g_array_append_val(a->open_runs, o);
}

void rs_run_split(struct rs_analyzer *a, struct rs_flow *fl, struct rs_psn_loss *l, struct rs_so_run *r)
{
	run_eval(l, r, ack_timer(fl), false);
	if (a->vs)
		wait_for(a, fl, r->label, r->seen.file == a->cur_file ? r->seen.frame : 1);
}

void rs_watch_opened(struct rs_analyzer *a, struct rs_flow *fl)
{
	if (a->vs)
		wait_for(a, fl, 0, a->cur_frame);
}

/* Its first packet in the sender's order may have changed: the
 * provisional cause follows. */
void rs_run_review(struct rs_flow *fl, struct rs_psn_loss *l, struct rs_so_run *r)
{
	if (r->open)
		run_eval(l, r, ack_timer(fl), false);
}

void rs_runs_due(struct rs_analyzer *a, struct rs_flow *fl, uint16_t upto, bool all)
{
	struct rs_psn_loss *l = fl->req.loss;
	struct rs_so_run *r;
	while (l && l->so && (r = rs_so_due(l->so, upto, all)))
		run_settle(a, fl, l, r);
}

/* Still open: its flow, and its run (NULL for a watch). */
static bool open_run(struct rs_analyzer *a, const struct rs_open_run *o, struct rs_flow **flp, struct rs_so_run **rp)
{
	struct rs_flow *fl = o->slot < a->flows->len ? g_ptr_array_index(a->flows, o->slot) : NULL;
	if (!fl || fl->id != o->id || !fl->req.loss || !fl->req.loss->so)
		return false;
	*flp = fl;
	*rp = NULL;
	if (!o->label)
		return rs_so_watching(fl->req.loss->so);
	struct rs_so_run *r = rs_so_run(fl->req.loss->so, o->label);
	*rp = r;
	return r && r->open;
}

uint64_t rs_analyzer_unsettled(struct rs_analyzer *a)
{
	uint64_t runs = prune(a), adv = rs_adv_oldest_open(a);
	return !runs ? adv : !adv || runs < adv ? runs : adv;
}

/* The open runs' entries, those of runs settled since gone: the oldest
 * frame of those left (0: none). */
static uint64_t prune(struct rs_analyzer *a)
{
	uint64_t oldest = 0;
	for (guint i = 0; a->open_runs && i < a->open_runs->len;) {
		const struct rs_open_run *o = &g_array_index(a->open_runs, struct rs_open_run, i);
		struct rs_flow *fl;
		struct rs_so_run *r;
		if (!open_run(a, o, &fl, &r)) {
			g_array_remove_index_fast(a->open_runs, i);
			continue;
		}
		if (!oldest || o->frame < oldest)
			oldest = o->frame;
		i++;
	}
	return oldest;
}

void rs_analyzer_settle(struct rs_analyzer *a)
{
	for (guint i = 0; a->open_runs && i < a->open_runs->len; i++) {
		struct rs_flow *fl;
		struct rs_so_run *r;
		if (!open_run(a, &g_array_index(a->open_runs, struct rs_open_run, i), &fl, &r))
			continue;
		if (r)
			run_settle(a, fl, fl->req.loss, r);
		else
			rs_so_unwatch(fl->req.loss->so);
	}
	if (a->open_runs)
		g_array_set_size(a->open_runs, 0);
	rs_adv_settle(a);
}
