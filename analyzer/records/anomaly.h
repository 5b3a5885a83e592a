/*
 * anomaly.h — what went wrong or deserves a look, keyed by (type, code,
 * subject), with sample frames (anomaly.c).
 */
#ifndef RS_ANALYZER_ANOMALY_H
#define RS_ANALYZER_ANOMALY_H

#include "analyzer/records/conn.h"
#include "analyzer/records/flow.h"

struct rs_analyzer;

struct rs_anomaly {
	uint32_t seq;             /* creation order, for stable reports */
	uint8_t type;             /* enum rs_anom */
	uint32_t code;
	const void *subject;      /* flow, conn, or a static reason string */
	uint64_t count;
	uint32_t nframes;
	struct rs_fref frames[RS_SAMPLE_FRAMES];
	struct rs_anom_ghost *ghost; /* owned: what its sentence needs that its subject does not hold */
	char *detail;             /* the sentence, where the analysis has it as text (a file's error, a frame's why) */
};

/* What an anomaly's sentence needs beyond its subject and counts. A
 * half-flow's or a connection's anomaly keeps a copy of its subject once the
 * subject is evicted (--max-flows; then subject == ghost): its pointers
 * cleared, with the counts its sentence quotes. Reports word it as they
 * word the live ones. RoCE version mixing keeps the two hosts and where
 * each version was first seen. */
struct rs_anom_ghost {
	union {
		struct rs_flow fl;
		struct rs_conn c;
		struct {
			struct rs_addr x, y;
			uint64_t v1_frame, v2_frame;
		} mixed;
	};
	struct rs_psn_loss loss[2]; /* fl.req.loss and fl.rsp.loss point here */
};

struct rs_anomaly *rs_anomaly(struct rs_analyzer *a, enum rs_anom type, uint32_t code, const void *subject,
			      const struct rs_fref *at, uint64_t count);
void rs_anomaly_set_detail(struct rs_anomaly *an, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* Anomalies sorted for reports (caller frees the array, not the items). */
GPtrArray *rs_anomalies_sorted(const struct rs_analyzer *a);
void rs_anomaly_free(gpointer p);
/* Eviction under --max-flows: a half-flow or connection by when it was
 * last active; rs_idle_cmp sorts the idlest first, ties by creation order
 * (id), so the victims do not depend on addresses. */
struct rs_idle {
	uint64_t ts;
	uint32_t id;
	void *item;
};
int rs_idle_cmp(const void *x, const void *y);
/* Before a half-flow or a connection goes away: its anomalies keep a ghost
 * of it (at most RS_DETACHED_MAX, result.h, one by one over the run, then
 * summed per type: subject &a->detached). Call for the victims in a
 * reproducible order (idlest first). */
void rs_anomalies_detach_flow(struct rs_analyzer *a, struct rs_flow *fl);
void rs_anomalies_detach_conn(struct rs_analyzer *a, struct rs_conn *c);
guint rs_anomaly_hash(gconstpointer k);
gboolean rs_anomaly_equal(gconstpointer a, gconstpointer b);

#endif
