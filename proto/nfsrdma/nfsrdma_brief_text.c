/*
 * nfsrdma_brief_text.c — NFS over RDMA's line in --brief: its
 * connections' RPC calls, the failed and the unanswered, and the kind of
 * call (NFSv3 procedure, NFSv4 COMPOUND operations) slowest at its p99.
 */
#include <string.h>

#include "proto/nfsrdma/nfsrdma.h"
#include "proto/nfsrdma/nfsrdma_state.h"
#include "proto/nfsrdma/nfsrdma_text.h"
#include "report/text.h"

bool rs_brief_nfs(const struct rs_view *v, struct rs_proto_brief *b)
{
	b->unit = "calls";
	for (guint i = 0; i < v->ulp_conns->len; i++) {
		struct rs_nfs_info q;
		if (!rs_conn_nfs(v->ulp_conns->pdata[i], &q))
			continue;
		b->conns++;
		b->ops += q.calls;
		b->failed += q.nerr;
		b->unanswered += q.unanswered;
		for (unsigned k = 0; k < q.nkinds; k++) {
			const struct rs_nfs_kind_info *o = &q.kinds[k];
			if (rs_brief_slowest(b, &o->lat))
				rs_nfs_kind_name(&o->id, b->slowest, sizeof b->slowest);
		}
	}
	return b->conns > 0;
}
