/*
 * sendorder.c — a requester's packets in the order it sent them.
 *
 * An IPv4 sender numbers its datagrams as it sends them (rdma_rxe and the
 * kernel's RoCE stacks keep one identification counter per destination),
 * so a stream's packets sorted by IP ID are in the sender's order, whatever
 * order the network delivered them in. In that order, every step back in
 * PSN is the requester going back once (after a NAK, on its timer, after an
 * RNR NAK): one re-send run. rdma_rxe counts exactly those
 * (completer_retry_err); counting runs in arrival order instead splits one
 * run into several whenever the network reorders its packets.
 *
 * The window keeps the last RS_SO numbers, each with its PSN and the run it
 * belongs to. A packet arriving late is put between its neighbours in
 * number order; that can only add steps back, never remove one, so the run
 * count only grows. Runs get labels; the last RS_SO_RUNS of them keep the
 * cause resend.c gave them, so every re-sent packet of a run shares it.
 */
#include <string.h>

#include "analyzer/transport/transport.h"

#define RS_SO 256
#define RS_SO_RUNS 16

struct rs_so_ent {
	uint32_t psn;
	uint32_t last; /* the last PSN it used (a READ request uses one per response) */
	uint16_t id;
	uint16_t run; /* 0: empty slot */
	uint32_t icrc; /* its ICRC as captured, if icrc_ok: the datagram's bytes in 32 bits */
	bool icrc_ok;
	bool seed;     /* the stream's newest packet when the window began: only its last PSN is known */
	bool resent;   /* psn.c judged it re-sent */
	uint8_t counted; /* 1 + the cause it was counted for (enum rs_resend); 0: not counted */
	struct rs_fref at; /* its frame */
};

/* Numbers [lo, hi) skipped by a packet whose PSN went forward by fewer:
 * packets of this stream may still be on the way, sent before it, so it
 * may be a re-send of a PSN whose first sending is late (or they are
 * another stream's, on a counter shared by a host pair). Until each is
 * seen or leaves the window, a per-frame view holds it back. */
struct rs_so_watch {
	uint16_t lo, hi;
	bool on;
	struct rs_fref at; /* the packet that skipped them */
};

struct rs_sendorder {
	uint64_t holes;       /* re-sends missing inside runs (retire()) */
	struct rs_so_watch watch;
	uint16_t newest;      /* the highest number seen */
	uint16_t next_label;  /* labels start at 1; 0 marks an empty slot */
	struct rs_so_run runs[RS_SO_RUNS];
	struct rs_so_ent e[RS_SO];
};

static struct rs_so_ent *slot(struct rs_sendorder *so, uint16_t id)
{
	return &so->e[id % RS_SO];
}

static const struct rs_so_ent *present(const struct rs_sendorder *so, uint16_t id)
{
	const struct rs_so_ent *e = &so->e[id % RS_SO];
	return e->run && e->id == id ? e : NULL;
}

static uint16_t new_label(struct rs_sendorder *so)
{
	uint16_t l = so->next_label++;
	if (!so->next_label)
		so->next_label = 1;
	struct rs_so_run *r = &so->runs[l % RS_SO_RUNS];
	*r = (struct rs_so_run){ .label = l };
	return l;
}

/* Packet `id` (PSN psn) is run l's first seen in number order. */
static void first_of(struct rs_sendorder *so, uint16_t l, uint16_t id, uint32_t psn)
{
	struct rs_so_run *r = rs_so_run(so, l);
	if (r) {
		r->first = id;
		r->first_psn = psn;
	}
}

struct rs_sendorder *rs_so_new(uint16_t id, uint32_t last)
{
	struct rs_sendorder *so = g_new0(struct rs_sendorder, 1);
	so->next_label = 1;
	so->newest = id;
	*slot(so, id) = (struct rs_so_ent){ .psn = last, .last = last, .id = id, .run = new_label(so), .seed = true };
	return so;
}

struct rs_so_run *rs_so_run(struct rs_sendorder *so, uint16_t label)
{
	struct rs_so_run *r = label ? &so->runs[label % RS_SO_RUNS] : NULL;
	return r && r->label == label ? r : NULL;
}

/* b was sent right after a: did the requester go back? */
static bool back(const struct rs_so_ent *a, uint32_t psn_b)
{
	return a && rs_psn_diff(psn_b, a->last) <= 0;
}

/* The packet sent just before `id` (or after it, dir +1) within the window. */
static const struct rs_so_ent *neighbour(const struct rs_sendorder *so, uint16_t id, int dir)
{
	int span = dir < 0 ? RS_SO - 1 - (int16_t)(so->newest - id) : (int16_t)(so->newest - id);
	for (int k = 1; k <= span; k++) {
		const struct rs_so_ent *e = present(so, (uint16_t)(id + dir * k));
		if (e)
			return e;
	}
	return NULL;
}

/* The packets from `e` on that were sent in run `old` start a new run. */
static uint16_t split(struct rs_sendorder *so, uint16_t from, uint16_t old)
{
	uint16_t l = new_label(so);
	struct rs_so_run *o = rs_so_run(so, old), *n = rs_so_run(so, l);
	if (o)
		*n = *o; /* open, its packets' verdicts given from o's cause: so is n */
	n->label = l;
	first_of(so, l, from, slot(so, from)->psn);
	for (uint16_t id = from;; id++) {
		struct rs_so_ent *e = slot(so, id);
		if (e->run && e->id == id) {
			if (e->run != old)
				break;
			e->run = l;
		}
		if (id == so->newest)
			break;
	}
	return l;
}

/* A datagram seen again: the same number for the same PSN, and where both
 * ICRCs were captured, the same ICRC (it covers the IP header, the IP ID
 * among it, and every byte from the BTH on). */
static bool same_datagram(const struct rs_so_ent *e, uint32_t psn, uint32_t last, uint64_t fp)
{
	return e->last == last && (e->seed || e->psn == psn) && (!e->icrc_ok || !(fp >> 32) || e->icrc == (uint32_t)fp);
}

/*
 * An entry leaves the window: nothing will come between it and the packet
 * sent after it any more. Both of one run, the later one re-sent, and its
 * PSN more than one past the end of the earlier one: a go-back-N re-sends
 * every PSN from where it starts (IBA 9.7.4.1.4), so the PSNs between were
 * re-sent too, and the capture does not hold them (lost on the way, or
 * missed by the capture).
 */
static void retire(struct rs_sendorder *so, const struct rs_so_ent *e)
{
	const struct rs_so_ent *n = neighbour(so, e->id, +1);
	if (n && n->run == e->run && n->resent && rs_psn_diff(n->psn, e->last) > 1)
		so->holes += (uint32_t)rs_psn_diff(n->psn, e->last) - 1;
}

void rs_so_resent(struct rs_sendorder *so, uint16_t id, uint32_t psn)
{
	struct rs_so_ent *e = slot(so, id);
	if (e->run && e->id == id && e->psn == psn)
		e->resent = true;
}

bool rs_so_counted(struct rs_sendorder *so, uint16_t id, uint32_t psn, uint8_t cause, struct rs_fref *at)
{
	struct rs_so_ent *e = slot(so, id);
	if (!e->run || e->id != id || e->psn != psn || e->counted)
		return false;
	e->counted = (uint8_t)(cause + 1);
	if (at)
		*at = e->at;
	return true;
}

bool rs_so_original(const struct rs_sendorder *so, uint16_t id, uint32_t psn)
{
	if (!present(so, id))
		return false;
	for (int k = 1; k < RS_SO - 1 - (int16_t)(so->newest - id); k++) {
		const struct rs_so_ent *e = present(so, (uint16_t)(id - k));
		if (e && rs_psn_diff(e->last, psn) >= 0)
			return false;
	}
	return true;
}

uint16_t rs_so_label(const struct rs_sendorder *so, uint16_t id, uint32_t psn)
{
	const struct rs_so_ent *e = present(so, id);
	return e && e->psn == psn ? e->run : 0;
}

bool rs_so_at(const struct rs_sendorder *so, uint16_t id, uint32_t psn, struct rs_fref *at)
{
	const struct rs_so_ent *e = present(so, id);
	if (!e || e->psn != psn)
		return false;
	*at = e->at;
	return true;
}

/* Nothing can come before run r's first packet once the number before it
 * was seen, or has left the window (a packet that old has no place). */
static bool front_known(const struct rs_sendorder *so, const struct rs_so_run *r, uint16_t newest)
{
	uint16_t before = (uint16_t)(r->first - 1);
	return present(so, before) || (int16_t)(newest - before) >= RS_SO - 1 || !present(so, r->first);
}

struct rs_so_run *rs_so_due(struct rs_sendorder *so, uint16_t upto, bool all)
{
	uint16_t newest = (int16_t)(upto - so->newest) > 0 ? upto : so->newest;
	/* A put makes two labels at most (a new run, a split); labels skip 0. */
	uint16_t after = (uint16_t)(so->next_label + 1);
	unsigned reuse[2] = { so->next_label % RS_SO_RUNS, (after ? after : 1) % RS_SO_RUNS };
	for (unsigned k = 0; k < RS_SO_RUNS; k++) {
		struct rs_so_run *r = &so->runs[k];
		if (r->label && r->open && (all || k == reuse[0] || k == reuse[1] || front_known(so, r, newest)))
			return r;
	}
	return NULL;
}

static bool fref_le(const struct rs_fref *x, const struct rs_fref *y)
{
	return x->file < y->file || (x->file == y->file && x->frame <= y->frame);
}

/* The numbers the watch waits for that came or left the window. */
static void watch_step(struct rs_sendorder *so)
{
	struct rs_so_watch *w = &so->watch;
	while (w->on && (int16_t)(w->hi - w->lo) > 0 &&
	       (present(so, w->lo) || (int16_t)(so->newest - w->lo) >= RS_SO - 1))
		w->lo++;
	if (w->on && (int16_t)(w->hi - w->lo) <= 0)
		w->on = false;
}

bool rs_so_watching(struct rs_sendorder *so)
{
	watch_step(so);
	return so->watch.on;
}

void rs_so_unwatch(struct rs_sendorder *so)
{
	so->watch.on = false;
}

bool rs_so_open_since(const struct rs_sendorder *so, const struct rs_fref *at)
{
	if (so->watch.on && fref_le(&so->watch.at, at))
		return true;
	for (unsigned k = 0; k < RS_SO_RUNS; k++) {
		const struct rs_so_run *r = &so->runs[k];
		if (r->label && r->open && r->has_cause &&
		    (r->seen.file < at->file || (r->seen.file == at->file && r->seen.frame <= at->frame)))
			return true;
	}
	return false;
}

bool rs_so_claimed(const struct rs_sendorder *so, const struct rs_so_run *r, const struct rs_fref *at)
{
	for (unsigned k = 0; k < RS_SO_RUNS; k++) {
		const struct rs_so_run *o = &so->runs[k];
		if (o != r && o->label && o->open && o->at.frame && o->at.frame == at->frame && o->at.file == at->file &&
		    (int16_t)(o->first - r->first) < 0)
			return true;
	}
	return false;
}

void rs_so_recount(struct rs_sendorder *so, uint16_t label, uint8_t cause,
		   void (*fn)(void *ctx, const struct rs_fref *at, uint8_t was), void *ctx)
{
	for (int k = 0; k < RS_SO; k++) {
		struct rs_so_ent *e = &so->e[k];
		if (e->run != label || !e->counted)
			continue;
		fn(ctx, &e->at, (uint8_t)(e->counted - 1));
		e->counted = (uint8_t)(cause + 1);
	}
}

uint64_t rs_so_holes(struct rs_sendorder *so)
{
	for (int k = RS_SO - 1; k >= 0; k--) {
		const struct rs_so_ent *e = present(so, (uint16_t)(so->newest - k));
		if (e)
			retire(so, e);
	}
	uint64_t n = so->holes;
	so->holes = 0;
	return n;
}

struct rs_so_put rs_so_put(struct rs_sendorder *so, uint16_t id, uint32_t psn, uint32_t adv, uint64_t fp,
			   const struct rs_fref *at)
{
	uint32_t last = (psn + adv - 1) & RS_PSN_MASK;
	struct rs_so_put r = { .id = id, .psn = psn };
	int16_t d = (int16_t)(id - so->newest);
	if (d <= -RS_SO + 1)
		return r; /* older than the window: its place is unknown */
	const struct rs_so_ent *same = present(so, id);
	if (same) {
		/* The same number for another PSN or other bytes is no copy, nor
		 * a place in the sender's order: it is left out of both. */
		r.copy = same_datagram(same, psn, last, fp);
		r.label = r.copy ? same->run : 0;
		return r;
	}
	if (d > 0) {
		/* Numbers skipped on the way (other streams to that host) clear
		 * the slots they would reuse. */
		const struct rs_so_ent *p = present(so, so->newest);
		struct rs_so_ent pv = p ? *p : (struct rs_so_ent){ 0 };
		watch_step(so);
		if (p && d > 1 && !back(p, psn) && rs_psn_diff(psn, pv.last) < d) {
			if (!so->watch.on) {
				so->watch = (struct rs_so_watch){ .lo = (uint16_t)(so->newest + 1), .on = true, .at = *at };
				r.watch = true;
			}
			so->watch.hi = id;
		}
		/* The entries whose slots the new numbers take leave the window. */
		for (int k = 1; k <= d && k <= RS_SO; k++) {
			struct rs_so_ent *old = slot(so, (uint16_t)(so->newest + k));
			if (old->run)
				retire(so, old);
		}
		for (int k = 1; k < d && k < RS_SO; k++)
			slot(so, (uint16_t)(so->newest + k))->run = 0;
		if (d >= RS_SO)
			memset(so->e, 0, sizeof so->e);
		const struct rs_so_ent *pred = p ? &pv : NULL;
		so->newest = id;
		if (back(pred, psn)) {
			r.label = new_label(so);
			r.new_run = true;
		} else {
			r.label = pred ? pred->run : new_label(so);
		}
		if (r.new_run || !pred)
			first_of(so, r.label, id, psn);
		*slot(so, id) = (struct rs_so_ent){ .psn = psn, .last = last, .id = id, .run = r.label, .icrc = (uint32_t)fp,
						    .icrc_ok = (fp >> 32) != 0, .at = *at };
		return r;
	}
	const struct rs_so_ent *pred = neighbour(so, id, -1), *succ = neighbour(so, id, +1);
	struct rs_so_ent pv = pred ? *pred : (struct rs_so_ent){ 0 }, sv = succ ? *succ : (struct rs_so_ent){ 0 };
	bool b_px = back(pred, psn);
	bool b_xs = succ && rs_psn_diff(sv.psn, last) <= 0;
	bool b_ps = pred && succ && rs_psn_diff(sv.psn, pv.last) <= 0;
	if (b_px) {
		if (succ && !b_xs && b_ps) {
			r.label = sv.run; /* the run's real first packet */
		} else {
			r.label = new_label(so);
			r.new_run = true;
		}
	} else {
		r.label = pred ? pv.run : succ && !b_xs ? sv.run : 0;
	}
	if (!r.label)
		r.label = new_label(so);
	const struct rs_so_run *run = rs_so_run(so, r.label);
	if (r.new_run || !run || (int16_t)(id - run->first) < 0)
		first_of(so, r.label, id, psn);
	*slot(so, id) = (struct rs_so_ent){ .psn = psn, .last = last, .id = id, .run = r.label, .icrc = (uint32_t)fp,
					    .icrc_ok = (fp >> 32) != 0, .at = *at };
	/* Sent between two packets of one run, going forward after it went
	 * back: the packet after it went back, a run of its own. */
	if (succ && b_xs && !b_ps) {
		uint16_t old = sv.run;
		r.split_label = split(so, sv.id, old);
		r.split = true;
	}
	return r;
}
