/*
 * json_anom.h — an anomaly's breakdown as JSON fields (json_anom.c), written
 * inside the anomaly's object by json.c.
 */
#ifndef RS_JSON_ANOM_H
#define RS_JSON_ANOM_H

#include "report/jsonw.h"
#include "report/view.h"

/* "details": the sub-counts, causes, waits and frames of the anomaly's
 * sentence, by its type; {} for a type that has none. */
void rs_json_anomaly_details(struct rs_json *j, const struct rs_view *v, const struct rs_anomaly *an);
/* "timeout_wait_ns": {count, min, [mean,] max, sooner_than_cm_timeout} or null. */
void rs_json_timeout_waits(struct rs_json *j, const struct rs_stream_info *l, bool mean);
/* "read_retry_wait_ns": {count, min, max} or null. */
void rs_json_read_retry_waits(struct rs_json *j, const struct rs_stream_info *l);

#endif
