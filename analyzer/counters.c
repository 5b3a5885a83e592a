/*
 * counters.c — a half-flow's counters: the opcode histogram, and adding
 * one flow's counters to another's. Eviction folds a victim into the
 * evicted total and merging (-j) folds the same half-flow of two files with
 * the same functions, one beside each counter struct (internal.h): a new
 * counter is added in one place.
 */
#include "analyzer/flow.h"

uint64_t rs_flow_ophist(const struct rs_flow *fl, unsigned op)
{
	uint64_t hi = fl->x && fl->x->ophist_hi ? fl->x->ophist_hi[op] : 0;
	return hi << 16 | fl->ophist[op];
}

/* The whole count saturates at 2^48 - 1 rather than wrap. A count only
 * grows, so a high part that is needed was needed before or is new. */
void rs_flow_ophist_add(struct rs_flow *fl, unsigned op, uint64_t n)
{
	const uint64_t most = ((uint64_t)UINT32_MAX << 16) | UINT16_MAX;
	uint64_t sum = rs_flow_ophist(fl, op);
	sum = n > most - sum ? most : sum + n;
	fl->ophist[op] = (uint16_t)sum;
	if (sum >> 16) {
		struct rs_flow_extra *x = rs_extra_w(fl);
		if (!x->ophist_hi)
			x->ophist_hi = g_new0(uint32_t, G_N_ELEMENTS(fl->ophist));
		x->ophist_hi[op] = (uint32_t)(sum >> 16);
	}
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
	d->netdup += s->netdup;
	d->late_sendings += s->late_sendings;
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
		d->timeout_sum_ns += s->timeout_sum_ns;
	}
}

void rs_rare_add(struct rs_flow_rare *d, const struct rs_flow_rare *s)
{
	d->retrans_payload += s->retrans_payload;
	d->incomplete_msgs += s->incomplete_msgs;
	d->tail_missed += s->tail_missed;
	d->orphan_pkts += s->orphan_pkts;
	d->dup_acks += s->dup_acks;
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
	d->icrc_bad += s->icrc_bad;
	d->icrc_unchecked += s->icrc_unchecked;
	d->undecodable += s->undecodable;
}

void rs_flow_counts_add(struct rs_flow *d, const struct rs_flow *s)
{
	d->packets += s->packets;
	d->wire_bytes += s->wire_bytes;
	d->payload += s->payload;
	d->payload_all += s->payload_all;
	if (s->m)
		rs_msgs_add(rs_msgs_w(d), s->m);
	if (s->req.loss)
		rs_loss_add(rs_loss_w(&d->req), s->req.loss);
	if (s->rsp.loss)
		rs_loss_add(rs_loss_w(&d->rsp), s->rsp.loss);
	if (s->rare)
		rs_rare_add(rs_rare_w(d), s->rare);
}
