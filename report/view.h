/*
 * view.h — what the report writers share: the flows, connections and
 * anomalies a report shows (analyzer/result.h selects and orders them),
 * labels and services, and one sentence per anomaly.
 */
#ifndef RS_VIEW_H
#define RS_VIEW_H

#include <glib.h>

#include "analyzer/result.h"
#include "report/format.h"
#include "report/report.h"

struct rs_anomaly;

struct rs_view {
	const struct rs_analyzer *a;
	const struct rs_report_opts *o;
	GPtrArray *flows;      /* struct rs_flow *, --qp and --conn applied (rs_flows_selected) */
	GPtrArray *conns;      /* struct rs_conn *, the same (rs_conns_selected) */
	GPtrArray *anomalies;  /* struct rs_anomaly *, the same (rs_anomalies_selected) */
	GPtrArray *ulp_queues; /* struct rs_conn *, the queues without CM (rs_ulp_queues_selected) */
	/* struct rs_conn *, every one with an upper-layer protocol: those of
	 * conns with one, then ulp_queues (what a module's sections go through) */
	GPtrArray *ulp_conns;
	struct rs_names *names;/* addresses as the report names them */
};

void rs_view_init(struct rs_view *v, const struct rs_analyzer *a, const struct rs_report_opts *o);
/* The i'th flow of v->flows. Writers go through them in order with it
 * (rs_flows_at: it fetches what they will read a few flows on). */
static inline const struct rs_flow *rs_view_flow(const struct rs_view *v, guint i)
{
	return rs_flows_at(v->flows, i);
}
void rs_view_free(struct rs_view *v);

/* A connection's service: "iSER on RDMA CM port 3260 ..." when its port names an upper-layer
 * protocol (or --ulp did), else rs_fmt_service()'s "TCP/7471". */
const char *rs_conn_service(const struct rs_conn *c, char *buf, size_t len);
const char *rs_conn_service_short(const struct rs_conn *c, char *buf, size_t len);
/* "connection 3", or for a queue without CM "queue without CM 0". */
const char *rs_conn_title(const struct rs_conn *c, char *buf, size_t len);

/* resend.c: the sentence of a retransmission, network copy or requester
 * that gave up, about the half-flow `who` names; false for other anomalies. */
bool rs_resend_describe(const char *who, const struct rs_anomaly_info *an, char *buf, size_t len);

/* "192.0.2.2 → 192.0.2.1 QP 0x12" */
const char *rs_flow_label(struct rs_names *n, const struct rs_flow *fl, char *buf, size_t len);
/* The same with another separator before the QP ("192.0.2.2 → 192.0.2.1 0x12"). */
const char *rs_flow_label_sep(struct rs_names *n, const struct rs_flow *fl, const char *sep, char *buf, size_t len);
/* The same in words: "221 not captured (...), 3 undetermined (...)". */
void rs_gap_describe(const struct rs_flow *fl, bool response, char *buf, size_t len);
/* What an anomaly is about. kind: "half_flow", "connection", "hosts"
 * (RoCE version mixing), "file", "frames" (undecodable or bad VCRC),
 * "capture" (evictions), or the sums over evicted subjects,
 * "evicted_half_flows" and "evicted_connections". */
struct rs_anom_subject {
	const char *kind;
	struct rs_addr src, dst;   /* kind 0: none */
	bool have_qp;
	uint32_t dest_qp;
	uint32_t conn_id;          /* its connection's id + 1; 0: none */
	bool evicted;              /* the subject was evicted under --max-flows */
};
void rs_anomaly_subject(const struct rs_view *v, const struct rs_anomaly *an, struct rs_anom_subject *out);
/* The half-flow an anomaly is about (live, or its copy once evicted); NULL
 * when it is about something else or sums the anomalies of many evicted
 * half-flows. */
const struct rs_flow *rs_anomaly_flow(const struct rs_view *v, const struct rs_anomaly *an);
/* One sentence for an anomaly. */
const char *rs_anomaly_describe(const struct rs_view *v, const struct rs_anomaly *an, char *buf, size_t len);
/* Latency kind names: "read_first", ... */
const char *rs_lat_key(enum rs_lat_kind k);
const char *rs_lat_label(enum rs_lat_kind k);

#endif
