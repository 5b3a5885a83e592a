/*
 * congestion.h — the congestion and QoS parts of the text and JSON reports
 * (congestion.c).
 */
#ifndef RS_REPORT_CONGESTION_H
#define RS_REPORT_CONGESTION_H

#include <stdio.h>

#include "report/view.h"

struct rs_json;
void rs_text_congestion(FILE *out, const struct rs_view *v);
void rs_json_congestion(struct rs_json *j, const struct rs_view *v);

#endif
