/*
 * records/records.h — the records room:
 * what a half-flow, a connection and an anomaly are, and what most of the
 * analysis keeps of them: the flow records and their counters (flow.c, pool.c,
 * counters.c), connections (conn.c), anomalies (anomaly.c), latency samples
 * (latency.c, latbuckets.c). flow.h, conn.h, anomaly.h hold their layouts.
 *
 * What the room's files offer each other and the rooms above it
 * (lowest first: records, congestion, whole, messages, table, cm, transport;
 * make layers keeps calls and includes going down).
 */
#ifndef RS_ANALYZER_RECORDS_H
#define RS_ANALYZER_RECORDS_H

#include "analyzer/internal.h"

/* flow.c: a flow's first frame, rs_flow_first (result.h). */

/* latency.c: samples, kept exactly then in a reservoir; quantiles. */
void rs_lat_add(struct rs_latvec *v, uint64_t ns);
/* A sample for v, added later: in a batch, in the order logged, before
 * anything reads v (rs_lat_flush: at the end, and before flows are freed).
 * 1024 entries (16 KiB) stay in the first-level cache between a flush and
 * the next. */
#define RS_LATLOG 1024
struct rs_lat_entry {
	struct rs_latvec *v;
	uint64_t ns;
};
void rs_lat_log(struct rs_analyzer *a, struct rs_latvec *v, uint64_t ns);
/* A sample of kind k for l: kept in place if it is the first, else logged. */
void rs_lat_sample(struct rs_analyzer *a, struct rs_latency *l, enum rs_lat_kind k, uint64_t ns);
/* The sample in the buckets too (latbuckets.c), if kept; a flow freed
 * takes its buckets along. */
void rs_lat_bucket(struct rs_analyzer *a, const struct rs_flow *req, enum rs_lat_kind k, uint64_t ns);
void rs_lat_buckets_init(struct rs_analyzer *a);
void rs_lat_buckets_forget(struct rs_analyzer *a, const struct rs_flow *fl);
void rs_lat_buckets_free(struct rs_analyzer *a);
void rs_lat_flush(struct rs_analyzer *a);
/* Nearest-rank quantiles: out[j] is the smallest kept sample with at least
 * q[j] of them at or below it (ascending q: each is looked for above the one
 * before). Reorders the kept samples; the set stays the same. */
void rs_lat_quantiles(struct rs_latvec *v, const double *q, uint64_t *out, int count);
uint64_t rs_lat_quantile(struct rs_latvec *v, double q);
void rs_lat_free(struct rs_latvec *v);

#endif
