/*
 * nvmeof_brief_text.c — NVMe-oF's line in --brief: its queues' commands,
 * failures, those still unanswered (Asynchronous Event Requests left out:
 * the target holds them until an event, by design) and the command kind
 * slowest at its p99.
 */
#include <string.h>

#include "proto/nvmeof/nvmeof.h"
#include "proto/nvmeof/nvmeof_state.h"
#include "proto/nvmeof/nvmeof_text.h"
#include "report/text.h"

bool rs_brief_nvme(const struct rs_view *v, struct rs_proto_brief *b)
{
	b->unit = "commands";
	for (guint i = 0; i < v->ulp_conns->len; i++) {
		struct rs_nvme_info q;
		if (!rs_conn_nvme(v->ulp_conns->pdata[i], &q))
			continue;
		b->conns++;
		b->ops += q.cmds;
		b->failed += q.nerr;
		b->unanswered += q.pending - q.pending_aer;
		for (unsigned k = 0; k < q.nops; k++) {
			const struct rs_nvme_op_info *o = &q.ops[k];
			if (rs_brief_slowest(b, &o->lat))
				rs_nvme_op_label(&q, o, b->slowest, sizeof b->slowest);
		}
	}
	return b->conns > 0;
}
