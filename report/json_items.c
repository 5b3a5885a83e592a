/*
 * json_items.c — the lists and objects of the JSON document and of its
 * NDJSON form, shared by the writers of their parts (json.c, json_ulp.c).
 */
#include "report/json_items.h"

void rs_json_list_begin(struct rs_json *j, const struct rs_ndjson *nd, const char *key)
{
	if (!nd)
		rs_json_arr(j, key);
}

void rs_json_list_end(struct rs_json *j, const struct rs_ndjson *nd)
{
	if (!nd)
		rs_json_end_arr(j);
}

void rs_json_item_begin(struct rs_json *j, const struct rs_ndjson *nd, const char *key, const char *kind,
			const struct rs_analyzer *a, uint32_t file)
{
	if (!nd) {
		rs_json_obj(j, key);
		return;
	}
	struct rs_capture_info cap;
	struct rs_file_info fi = { .name = NULL };
	rs_capture_get_info(a, &cap);
	if (file < cap.files)
		rs_capture_file(a, file, &fi);
	rs_json_obj(j, NULL);
	rs_json_str(j, "kind", kind);
	rs_json_str(j, "file", fi.name);
	rs_json_str(j, "host", nd->host);
	rs_json_obj(j, kind);
}

void rs_json_item_end(struct rs_json *j, const struct rs_ndjson *nd)
{
	rs_json_end_obj(j);
	if (nd) {
		rs_json_end_obj(j);
		rs_outbuf_putc(&j->ob, '\n');
	}
}

