/*
 * iser_brief_text.c — iSER's line in --brief: its connections' tasks,
 * the failed and the unanswered, and the operation slowest at its p99.
 */
#include <string.h>

#include "proto/iser/iser.h"
#include "proto/iser/iser_state.h"
#include "report/text.h"

bool rs_brief_iser(const struct rs_view *v, struct rs_proto_brief *b)
{
	b->unit = "tasks";
	for (guint i = 0; i < v->ulp_conns->len; i++) {
		struct rs_iser_info q;
		if (!rs_conn_iser(v->ulp_conns->pdata[i], &q))
			continue;
		b->conns++;
		b->ops += q.requests;
		b->failed += q.nfailed;
		b->unanswered += q.unanswered;
		for (unsigned k = 0; k < q.nops; k++) {
			const struct rs_iser_op_info *o = &q.ops[k];
			if (rs_brief_slowest(b, &o->lat))
				rs_iser_op_label(o->pdu, o->cdb, b->slowest, sizeof b->slowest);
		}
	}
	return b->conns > 0;
}
