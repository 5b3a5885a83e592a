/*
 * jsonw.h — a streaming JSON writer: correct escaping, two-space indentation
 * (or none: compact, the whole document on one line), no allocation. Keys
 * are given for object members and NULL inside arrays.
 * Output is gathered in the struct and goes to the FILE a buffer at a time
 * (a million QPs make gigabytes of JSON: a stdio call per token, each taking
 * the stream's lock, was most of the time); rs_json_done() writes the rest.
 */
#ifndef RS_JSON_H
#define RS_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/outbuf.h"

#define RS_JSON_MAX_DEPTH 32

#define RS_JSON_BUF 16384

struct rs_json {
	int depth;
	bool compact;            /* no newlines or indentation, ":" without a space */
	bool has_items[RS_JSON_MAX_DEPTH];
	struct rs_outbuf ob;     /* gathers into buf */
	char buf[RS_JSON_BUF];
};

void rs_json_init(struct rs_json *j, FILE *out, bool compact);
void rs_json_obj(struct rs_json *j, const char *key);   /* { */
void rs_json_arr(struct rs_json *j, const char *key);   /* [ */
void rs_json_end_obj(struct rs_json *j);                /* } */
void rs_json_end_arr(struct rs_json *j);                /* ] */
void rs_json_str(struct rs_json *j, const char *key, const char *v); /* NULL -> null */
void rs_json_u64(struct rs_json *j, const char *key, uint64_t v);
void rs_json_i64(struct rs_json *j, const char *key, int64_t v);
void rs_json_dbl(struct rs_json *j, const char *key, double v);     /* non-finite -> null */
void rs_json_bool(struct rs_json *j, const char *key, bool v);
void rs_json_null(struct rs_json *j, const char *key);
/* Finish the document with a newline and hand everything to out. */
void rs_json_done(struct rs_json *j);

struct rs_lat_figures;
/* A latency's figures in nanoseconds as one object under `key` (count,
 * min, median, p99, max), or null when nothing was timed: every section
 * that times something writes it so (report/json.c). */
void rs_json_lat(struct rs_json *j, const char *key, const struct rs_lat_figures *l);

#endif
