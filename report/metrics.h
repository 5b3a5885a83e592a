/*
 * metrics.h — the analysis as Prometheus metrics (metrics.c): the text
 * exposition format (0.0.4) or OpenMetrics 1.0, for `--format prometheus`,
 * `--format openmetrics` and the live `--metrics` endpoint.
 */
#ifndef RS_METRICS_H
#define RS_METRICS_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "report/report.h"

/* QPs and host pairs with series of their own, unless told (--metrics-qps). */
#define RS_METRICS_QPS 20

/* The capture's drop counts (libpcap's), when live. */
struct rs_metrics_drops {
	bool have;
	uint64_t received, dropped, ifdropped;
};

/* What the series keep from one reading to the next (which QPs and pairs
 * have series, every flow's values at the last reading). */
struct rs_metrics;
struct rs_metrics *rs_metrics_new(unsigned max_qps, bool resolve_names);
void rs_metrics_free(struct rs_metrics *m);
/* A reading of the analysis (call from the thread that analyses; it is
 * read, not changed), then its scrape's worth in either format appended to
 * `out`, as often as wanted. */
void rs_metrics_read(struct rs_metrics *m, const struct rs_analyzer *a);
/* The same a part at a time, so that a live capture's analysis never
 * stops long for it: start a reading, then read `budget` more flows now
 * and then (between batches of frames); true when the reading is whole
 * (render it then). rs_metrics_read finishes one under way. */
void rs_metrics_read_start(struct rs_metrics *m, const struct rs_analyzer *a);
bool rs_metrics_read_some(struct rs_metrics *m, const struct rs_analyzer *a, unsigned budget);
bool rs_metrics_reading(const struct rs_metrics *m);
void rs_metrics_render(struct rs_metrics *m, const struct rs_analyzer *a, const struct rs_metrics_drops *d,
		       bool openmetrics, GString *out);

#endif
