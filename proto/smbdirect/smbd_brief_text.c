/*
 * smbd_brief_text.c — SMB Direct's line in --brief: its connections' SMB2
 * requests, those whose final response failed, those unanswered, and the
 * SMB2 command slowest at its p99.
 */
#include <string.h>

#include "proto/smbdirect/smbd_state.h"
#include "proto/smbdirect/smbd_text.h"
#include "proto/smbdirect/smbdirect.h"
#include "report/text.h"

bool rs_brief_smbd(const struct rs_view *v, struct rs_proto_brief *b)
{
	b->unit = "requests";
	for (guint i = 0; i < v->ulp_conns->len; i++) {
		struct rs_smbd_info q;
		if (!rs_conn_smbd(v->ulp_conns->pdata[i], &q))
			continue;
		b->conns++;
		b->ops += q.requests;
		b->unanswered += q.pending;
		for (unsigned k = 0; k < RS_SMBD_CMDS; k++) {
			const struct rs_smbd_cmd_info *o = &q.cmd[k];
			b->failed += o->failed;
			if (rs_brief_slowest(b, &o->lat))
				snprintf(b->slowest, sizeof b->slowest, "%s", rs_smbd_cmd_label(k));
		}
	}
	return b->conns > 0;
}
