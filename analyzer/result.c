/*
 * result.c — the analysis as its readers see it (result.h): records of
 * half-flows and of the capture, filled from the analyzer's state, and the
 * figures derived from its counters.
 */
#include <string.h>

#include "analyzer/internal.h"
#include "analyzer/result.h"

void rs_flow_get_info(const struct rs_flow *fl, struct rs_flow_info *out)
{
	const struct rs_flow_rare *r = rs_rare(fl);
	out->id = fl->id;
	rs_flowkey_addr(&fl->key, false, &out->src);
	rs_flowkey_addr(&fl->key, true, &out->dst);
	out->dest_qp = fl->key.qpn;
	out->is_cm_qp = fl->is_cm_qp;
	out->transport = rs_flow_transport_name(fl);
	out->packets = fl->packets;
	out->wire_bytes = fl->wire_bytes;
	out->payload = fl->payload;
	out->payload_all = fl->payload_all;
	out->first_ts = fl->first_ts;
	out->last_ts = fl->last_ts;
	out->peer = fl->peer;
	out->conn = fl->conn;
	out->retransmitted = rs_flow_retransmitted(fl);
	out->naks = rs_flow_naks_total(fl);
	out->rnr_naks = r->rnr_naks;
	out->cnps = r->cnps;
	out->ecn_ce = r->ecn_ce;
}

const struct rs_flow *rs_flows_next(const struct rs_analyzer *a, size_t *pos)
{
	while (*pos < a->flows->len) {
		const struct rs_flow *fl = a->flows->pdata[(*pos)++];
		if (fl)
			return fl;
	}
	return NULL;
}

const struct rs_conn *rs_conns_next(const struct rs_analyzer *a, size_t *pos)
{
	return *pos < a->conns->len ? a->conns->pdata[(*pos)++] : NULL;
}

void rs_capture_get_info(const struct rs_analyzer *a, struct rs_capture_info *out)
{
	memset(out, 0, sizeof *out);
	out->frames = a->frames;
	out->bytes = a->bytes;
	out->first_ts = a->first_ts;
	out->last_ts = a->last_ts;
	memcpy(out->roce, a->roce, sizeof out->roce);
	memcpy(out->outcome, a->outcome, sizeof out->outcome);
	memcpy(out->icrc, a->icrc, sizeof out->icrc);
	out->half_flows = a->nflows;
	out->conns = a->conns->len;
	out->conns_evicted = a->conns_evicted;
	memcpy(out->conns_evicted_by_state, a->conns_evicted_by_state, sizeof out->conns_evicted_by_state);
}

double rs_flow_active_s(const struct rs_flow *fl)
{
	return fl->last_ts > fl->first_ts ? (fl->last_ts - fl->first_ts) / 1e9 : 0;
}

/* Payload over the half-flow's span, first frame to last (Wireshark's
 * conversation rate), whatever --interval is; negative (unknown) when the
 * span is 0: one frame, or all at one time. */
double rs_flow_avg_Bps(const struct rs_flow *fl)
{
	if (fl->last_ts <= fl->first_ts)
		return -1;
	return fl->payload / ((fl->last_ts - fl->first_ts) / 1e9);
}

/* The busiest --interval's payload over the interval; negative (unknown)
 * for a half-flow shorter than one interval: no interval lies within it,
 * so its busiest one would read below its rate. */
double rs_flow_peak_Bps(const struct rs_flow *fl, uint64_t interval_ns)
{
	if (!interval_ns || fl->last_ts < fl->first_ts || fl->last_ts - fl->first_ts < interval_ns)
		return -1;
	return fl->peak_bytes / (interval_ns / 1e9);
}

/* The same for the payload on the wire, re-sends and copies too. */
double rs_flow_peak_wire_Bps(const struct rs_flow *fl, uint64_t interval_ns)
{
	double g = rs_flow_peak_Bps(fl, interval_ns);
	uint64_t w = fl->rare ? fl->rare->peak_wire : 0;
	return g < 0 || w <= fl->peak_bytes ? g : w / (interval_ns / 1e9);
}

uint64_t rs_flow_read_bytes(const struct rs_flow *fl)
{
	return fl->peer ? fl->peer->read_resp_payload : 0;
}

uint64_t rs_flow_msgs_total(const struct rs_flow *fl)
{
	const struct rs_flow_msgs *ms = rs_msgs(fl);
	uint64_t n = 0;
	for (int k = 0; k < RS_MSG__COUNT; k++)
		n += ms->msgs[k];
	return n;
}

uint64_t rs_flow_naks_total(const struct rs_flow *fl)
{
	uint64_t n = 0;
	for (int k = 0; k < 8; k++)
		n += rs_rare(fl)->naks[k];
	return n;
}

const char *rs_flow_pairing(const struct rs_flow *fl)
{
	switch (fl->pair_method) {
	case RS_PAIR_CM: return "cm";
	case RS_PAIR_INFERRED: return "inferred";
	default: return fl->conn ? "cm" : "none";
	}
}
