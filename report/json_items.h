/*
 * json_items.h — the JSON document's arrays and objects, and their NDJSON
 * form: --format ndjson writes the same objects, one a line, each wrapped
 * as {"kind": K, "file": ..., "host": ..., K: {the object}} (nested, so
 * that the object's keys are exactly its kind's in the schema, and its own
 * "kind" or "connection" keys meet nothing of the wrapper's). `nd` is NULL
 * for the one JSON document: then the objects go into their arrays.
 */
#ifndef RS_JSON_ITEMS_H
#define RS_JSON_ITEMS_H

#include "analyzer/result.h"
#include "report/jsonw.h"

struct rs_ndjson {
	const char *host;
};

void rs_json_list_begin(struct rs_json *j, const struct rs_ndjson *nd, const char *key);
void rs_json_list_end(struct rs_json *j, const struct rs_ndjson *nd);
/* An object of kind `kind`: in the document, under `key` (NULL in an
 * array); in NDJSON, a line of its own naming the file it came from. */
void rs_json_item_begin(struct rs_json *j, const struct rs_ndjson *nd, const char *key, const char *kind,
			const struct rs_analyzer *a, uint32_t file);
void rs_json_item_end(struct rs_json *j, const struct rs_ndjson *nd);

struct rs_view;
/* json_ulp.c: the queues without CM ("ulp_queues"), when there are some. */
void rs_json_ulp_queues(struct rs_json *j, const struct rs_view *v, const struct rs_ndjson *nd);

#endif
