/*
 * json_ulp.c — the JSON document's "ulp_queues": the queues without CM,
 * half-flow pairs whose CM handshake the capture does not have and whose
 * upper-layer protocol a module recognised by shape or --ulp qp: named
 * (analyzer/ulp.c), each with the evidence that told it and its module's
 * members, as a connection's (man/rocestat.schema.json, $defs/ulp_queue).
 * Left out when there are none, so documents of other traffic are unchanged.
 */
#include "proto/proto.h"
#include "report/json_items.h"
#include "report/view.h"

static void end(struct rs_json *j, const char *key, const struct rs_addr *ad, uint32_t qpn)
{
	char t[RS_ADDR_STRLEN];
	rs_json_obj(j, key);
	rs_json_str(j, "address", rs_addr_format(ad, t));
	if (qpn)
		rs_json_u64(j, "qpn", qpn);
	else
		rs_json_null(j, "qpn"); /* that side's traffic not seen */
	rs_json_end_obj(j);
}

void rs_json_ulp_queues(struct rs_json *j, const struct rs_view *v, const struct rs_ndjson *nd)
{
	if (!v->ulp_queues->len)
		return;
	rs_json_list_begin(j, nd, "ulp_queues");
	for (guint i = 0; i < v->ulp_queues->len; i++) {
		const struct rs_conn *conn = v->ulp_queues->pdata[i];
		struct rs_conn_info c;
		struct rs_ulp_how how;
		rs_conn_get_info(conn, &c);
		rs_conn_ulp_how(conn, &how);
		bool shape = how.by == RS_ULP_BY_SHAPE;
		rs_json_item_begin(j, nd, NULL, "ulp_queue", v->a, how.from.file);
		rs_json_u64(j, "id", c.id);
		rs_json_str(j, "ulp", rs_conn_ulp_name(conn));
		rs_json_str(j, "told_by", shape ? "shape" : "qp");
		if (shape) {
			rs_json_u64(j, "pdus_matched", how.pdus);
			rs_json_u64(j, "answers_tied", how.matched);
			rs_json_null(j, "qp_rule");
		} else {
			rs_json_null(j, "pdus_matched");
			rs_json_null(j, "answers_tied");
			rs_json_u64(j, "qp_rule", how.qpn);
		}
		rs_json_u64(j, "first_frame", how.from.frame);
		rs_json_u64(j, "told_frame", how.at.frame);
		end(j, "host", &c.client, c.client_qpn);
		end(j, "target", &c.server, c.server_qpn);
		const struct rs_proto_hooks *h = rs_proto_hooks(rs_conn_ulp(conn));
		if (h->json_conn)
			h->json_conn(j, conn);
		rs_json_item_end(j, nd);
	}
	rs_json_list_end(j, nd);
}
