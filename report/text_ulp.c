/*
 * text_ulp.c — the text summary's section of queues without CM: half-flow
 * pairs whose CM handshake the capture does not have, whose upper-layer
 * protocol a module recognised from the traffic's shape or --ulp qp:
 * named (analyzer/ulp.c), each with the evidence that told it.
 */
#include <inttypes.h>

#include "report/text.h"

void rs_text_ulp_queues(FILE *out, const struct rs_view *v)
{
	if (!v->ulp_queues->len)
		return;
	fprintf(out, "\n%sQueues without CM%s (protocol told by its traffic's shape or --ulp qp:)\n",
		BOLD(v->o), OFF(v->o));
	for (guint i = 0; i < v->ulp_queues->len; i++) {
		const struct rs_conn *conn = v->ulp_queues->pdata[i];
		struct rs_conn_info ci;
		struct rs_ulp_how how;
		rs_conn_get_info(conn, &ci);
		rs_conn_ulp_how(conn, &how);
		char cl[96], sv[96], svc[200], from[120] = "", line[600], cq[24] = "", sq[24] = "";
		rs_fmt_addr(v->names, &ci.client, cl, sizeof cl);
		rs_fmt_addr(v->names, &ci.server, sv, sizeof sv);
		if (ci.client_qpn) /* 0: that side's traffic not seen */
			snprintf(cq, sizeof cq, " QP 0x%x", ci.client_qpn);
		if (ci.server_qpn)
			snprintf(sq, sizeof sq, " QP 0x%x", ci.server_qpn);
		if (how.by == RS_ULP_BY_SHAPE)
			snprintf(from, sizeof from, "; analysed from frame %" PRIu64 " (the pair's first SEND), the frames "
				 "before recognition included", how.from.frame);
		snprintf(line, sizeof line, "%u  host %s%s → target %s%s: %s%s", ci.id, cl, cq, sv, sq,
			 rs_conn_service(conn, svc, sizeof svc), from);
		rs_para(out, v->o->width, "  ", "     ", line);
	}
}
