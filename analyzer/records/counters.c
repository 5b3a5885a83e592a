/*
 * counters.c — a half-flow's counters: the opcode histogram, and adding
 * one flow's counters to another's. Eviction folds a victim into the
 * evicted total and merging (-j) folds the same half-flow of two files with
 * the same functions, one beside each counter struct (internal.h): a new
 * counter is added in one place.
 */
#include <string.h>

#include "analyzer/records/records.h"

uint64_t rs_flow_ophist(const struct rs_flow *fl, unsigned op)
{
	uint64_t hi = fl->x && fl->x->ophist_hi ? fl->x->ophist_hi[op] : 0;
	return hi << 8 | fl->ophist[op];
}

/* The whole count saturates at 2^48 - 1 rather than wrap. A count only
 * grows, so a high part that is needed was needed before or is new. */
void rs_flow_ophist_add(struct rs_flow *fl, unsigned op, uint64_t n)
{
	const uint64_t most = ((uint64_t)UINT32_MAX << 16) | UINT16_MAX;
	uint64_t sum = rs_flow_ophist(fl, op);
	sum = n > most - sum ? most : sum + n;
	fl->ophist[op] = (uint8_t)sum;
	if (sum >> 8) {
		struct rs_flow_extra *x = rs_extra_w(fl);
		if (!x->ophist_hi)
			x->ophist_hi = g_new0(uint64_t, G_N_ELEMENTS(fl->ophist));
		x->ophist_hi[op] = sum >> 8;
	}
}

/* ---- message counters: a few, or all of them ---------------------------------- */

static void few_spell(const struct rs_msgs_few *f, struct rs_flow_msgs *d)
{
	memset(d, 0, sizeof *d);
	d->msg_min = f->msg_min == UINT32_MAX ? UINT64_MAX : f->msg_min;
	d->msg_max = f->msg_max;
	for (unsigned i = 0; i < f->n; i++) {
		unsigned at = f->at[i];
		if (at < RS_MC_BYTES)
			d->msgs[at - RS_MC_COUNT] = f->v[i];
		else if (at < RS_MC_SIZE)
			d->msg_bytes[at - RS_MC_BYTES] = f->v[i];
		else
			d->size_hist[at - RS_MC_SIZE] = f->v[i];
	}
}

const struct rs_flow_msgs *rs_msgs_read(const struct rs_flow *fl, struct rs_flow_msgs *buf)
{
	if (!fl->m)
		return &rs_flow_no_msgs;
	if (fl->msgs_full)
		return fl->m;
	few_spell(fl->m, buf);
	return buf;
}

struct rs_flow_msgs *rs_msgs_w(struct rs_pool *few, struct rs_flow *fl)
{
	if (fl->msgs_full)
		return fl->m;
	struct rs_flow_msgs *x = g_new0(struct rs_flow_msgs, 1);
	if (fl->m)
		few_spell(fl->m, x);
	else
		x->msg_min = UINT64_MAX;
	if (fl->m)
		rs_pool_free(&few[((struct rs_msgs_few *)fl->m)->cap == RS_MSGS_FEW], fl->m);
	fl->m = x;
	fl->msgs_full = true;
	return x;
}

static struct rs_msgs_few *few_w(struct rs_pool *few, struct rs_flow *fl)
{
	if (!fl->m) {
		struct rs_msgs_few *f = rs_pool_alloc0(&few[0]);
		f->cap = RS_MSGS_FEW_SMALL;
		f->msg_min = UINT32_MAX;
		fl->m = f;
	}
	return fl->m;
}

/* Counter `at` of the few, given a place if there is room; NULL if not. */
static uint32_t *few_at(struct rs_pool *few, struct rs_flow *fl, unsigned at)
{
	struct rs_msgs_few *f = few_w(few, fl);
	for (unsigned i = 0; i < f->n; i++)
		if (f->at[i] == at)
			return &f->v[i];
	if (f->n == RS_MSGS_FEW)
		return NULL;
	if (f->n == f->cap) { /* RS_MSGS_FEW_SMALL: into the larger room */
		struct rs_msgs_few *g = rs_pool_alloc0(&few[1]);
		memcpy(g, f, RS_MSGS_FEW_SIZE(f->cap));
		g->cap = RS_MSGS_FEW;
		rs_pool_free(&few[0], f);
		fl->m = f = g;
	}
	f->at[f->n] = (uint8_t)at;
	f->v[f->n] = 0;
	return &f->v[f->n++];
}

/* A count or byte counter += n. One that stays zero takes no place among
 * the few (the counters are allocated all the same, as before). */
static void counter_add(struct rs_pool *few, struct rs_flow *fl, unsigned at, uint64_t n)
{
	if (!fl->msgs_full) {
		if (!n) {
			few_w(few, fl);
			return;
		}
		uint32_t *c = few_at(few, fl, at);
		if (c && n <= UINT32_MAX - *c) {
			*c += (uint32_t)n;
			if (at < RS_MC_BYTES && *c >= RS_MSGS_FEW_MAX)
				rs_msgs_w(few, fl);
			return;
		}
	}
	struct rs_flow_msgs *x = rs_msgs_w(few, fl);
	if (at < RS_MC_BYTES)
		x->msgs[at - RS_MC_COUNT] += n;
	else
		x->msg_bytes[at - RS_MC_BYTES] += n;
}

void rs_msgs_note_few(struct rs_pool *few, struct rs_flow *fl, enum rs_msg k, uint64_t msgs, uint64_t bytes)
{
	counter_add(few, fl, RS_MC_COUNT + k, msgs);
	counter_add(few, fl, RS_MC_BYTES + k, bytes);
}

void rs_msgs_size_few(struct rs_pool *few, struct rs_flow *fl, unsigned bucket, uint64_t size)
{
	uint32_t *c = size >= UINT32_MAX ? NULL : few_at(few, fl, RS_MC_SIZE + bucket);
	if (!c) {
		rs_msgs_w(few, fl);
		rs_msgs_size(few, fl, bucket, size);
		return;
	}
	struct rs_msgs_few *f = fl->m;
	if (*c != UINT32_MAX) /* saturates, as size_hist[] does */
		++*c;
	if (size < f->msg_min)
		f->msg_min = (uint32_t)size;
	if (size > f->msg_max)
		f->msg_max = (uint32_t)size;
}

void rs_msgs_add(struct rs_flow_msgs *d, const struct rs_flow_msgs *s)
{
	for (int k = 0; k < RS_MSG__COUNT; k++) {
		d->msgs[k] += s->msgs[k];
		d->msg_bytes[k] += s->msg_bytes[k];
	}
	for (int k = 0; k < RS_SIZE_BUCKETS; k++)
		d->size_hist[k] += s->size_hist[k];
	if (s->msg_min < d->msg_min)
		d->msg_min = s->msg_min;
	if (s->msg_max > d->msg_max)
		d->msg_max = s->msg_max;
}

void rs_loss_add(struct rs_psn_loss *d, const struct rs_psn_loss *s)
{
	d->gaps += s->gaps;
	d->missing += s->missing;
	d->backward += s->backward;
	d->duplicates += s->duplicates;
	d->fills += s->fills;
	d->ooo += s->ooo;
	d->episodes += s->episodes;
	d->uncaptured += s->uncaptured;
	d->unseen_lost += s->unseen_lost;
	d->naked_fills += s->naked_fills;
	d->read_reserved += s->read_reserved;
	d->resend_holes += s->resend_holes;
	for (int k = 0; k < 2; k++) {
		d->rsp_again[k] += s->rsp_again[k];
		d->rsp_again_first[k] += s->rsp_again_first[k];
	}
	d->netdup += s->netdup;
	d->late_sendings += s->late_sendings;
	d->fills_overtaken += s->fills_overtaken;
	if (s->late_psns_max > d->late_psns_max)
		d->late_psns_max = s->late_psns_max;
	if (s->late_ns_max > d->late_ns_max)
		d->late_ns_max = s->late_ns_max;
	for (int c = 0; c < RS_RESEND__COUNT; c++) {
		d->resent[c] += s->resent[c];
		d->episodes_by[c] += s->episodes_by[c];
	}
	d->rnr_early += s->rnr_early;
	if (s->timeouts) {
		if (!d->timeouts || s->timeout_min_ns < d->timeout_min_ns)
			d->timeout_min_ns = s->timeout_min_ns;
		if (s->timeout_max_ns > d->timeout_max_ns)
			d->timeout_max_ns = s->timeout_max_ns;
		d->timeouts += s->timeouts;
		d->timeouts_early += s->timeouts_early;
		if (s->timer_ns)
			d->timer_ns = s->timer_ns;
		d->timeout_sum_ns += s->timeout_sum_ns;
	}
}

void rs_rare_add(struct rs_flow_rare *d, const struct rs_flow_rare *s)
{
	d->retrans_payload += s->retrans_payload;
	d->incomplete_msgs += s->incomplete_msgs;
	d->tail_missed += s->tail_missed;
	d->msgs_uncaptured += s->msgs_uncaptured;
	d->msn_unusable |= s->msn_unusable;
	d->orphan_pkts += s->orphan_pkts;
	d->dup_acks += s->dup_acks;
	d->lat_acked_before_seen += s->lat_acked_before_seen;
	d->lat_acked_across_gap += s->lat_acked_across_gap;
	for (int k = 0; k < 8; k++)
		d->naks[k] += s->naks[k];
	if (s->rnr_naks) {
		if (!d->rnr_naks || s->rnr_timer_min < d->rnr_timer_min)
			d->rnr_timer_min = s->rnr_timer_min;
		if (!d->rnr_naks || s->rnr_timer_max > d->rnr_timer_max)
			d->rnr_timer_max = s->rnr_timer_max;
		d->rnr_naks += s->rnr_naks;
	}
	d->ecn_ce += s->ecn_ce;
	d->fecn += s->fecn;
	d->becn += s->becn;
	d->cnps += s->cnps;
	for (int k = 0; k < 4; k++)
		d->ecn_n[k] += s->ecn_n[k];
	for (int k = 0; k < RS_DSCP_SEEN && s->dscp_n[k]; k++)
		rs_dscp_count(d, s->dscp_v[k], s->dscp_n[k]);
	d->dscp_more += s->dscp_more;
	d->dscp_data_bad += s->dscp_data_bad;
	if (s->cnp_dscp_bad && !d->cnp_dscp_bad)
		d->cnp_dscp_v = s->cnp_dscp_v;
	d->cnp_dscp_bad += s->cnp_dscp_bad;
	d->icrc_bad += s->icrc_bad;
	d->icrc_unchecked += s->icrc_unchecked;
	d->undecodable += s->undecodable;
}

void rs_flow_counts_add(struct rs_pool *few, struct rs_flow *d, const struct rs_flow *s)
{
	d->packets += s->packets;
	d->wire_bytes += s->wire_bytes;
	d->payload += s->payload;
	d->payload_all += s->payload_all;
	if (s->m)
		rs_msgs_add(rs_msgs_w(few, d), rs_msgs(s));
	if (s->req.loss)
		rs_loss_add(rs_loss_w(&d->req), s->req.loss);
	if (s->rsp.loss)
		rs_loss_add(rs_loss_w(&d->rsp), s->rsp.loss);
	if (s->rare)
		rs_rare_add(rs_rare_w(d), s->rare);
}

/* A DSCP value's count among the few kept per half-flow; the rest are
 * counted together. Both congestion.c (per frame) and the merging above
 * (per flow) count into the same lists. */
void rs_dscp_count(struct rs_flow_rare *r, uint8_t v, uint64_t n)
{
	for (int k = 0; k < RS_DSCP_SEEN; k++) {
		if (r->dscp_n[k] && r->dscp_v[k] == v) {
			r->dscp_n[k] += n;
			return;
		}
		if (!r->dscp_n[k]) {
			r->dscp_v[k] = v;
			r->dscp_n[k] = n;
			return;
		}
	}
	r->dscp_more += n;
}
