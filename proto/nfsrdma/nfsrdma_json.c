/*
 * nfsrdma_json.c — an NFS/RDMA connection's member of its connection's
 * JSON object ("nfs_rdma" in man/rocestat.schema.json): what
 * nfsrdma_text.c says in words, with every kind of call, the slowest
 * calls, the failed ones and those never answered.
 */
#include <glib.h>

#include "proto/nfsrdma/nfsrdma.h"
#include "proto/nfsrdma/nfsrdma_text.h"
#include "report/jsonw.h"
#include "report/view.h"

static void kind(struct rs_json *j, const struct rs_nfs_kind_info *k)
{
	char name[256];
	rs_json_obj(j, NULL);
	rs_json_str(j, "name", rs_nfs_kind_name(&k->id, name, sizeof name));
	rs_json_u64(j, "program", k->id.prog);
	rs_json_u64(j, "version", k->id.vers);
	rs_json_u64(j, "procedure", k->id.proc);
	if (k->id.prog == RS_RPC_PROG_NFS && k->id.vers == 4 && k->id.proc == RS_NFS4_COMPOUND) {
		rs_json_arr(j, "operations");
		for (unsigned i = 0; i < k->id.nops; i++)
			rs_json_u64(j, NULL, k->id.ops[i]);
		rs_json_end_arr(j);
	} else {
		rs_json_null(j, "operations");
	}
	rs_json_bool(j, "operations_more", k->id.ops_more);
	rs_json_bool(j, "backchannel", k->id.back);
	rs_json_bool(j, "rpc_in_read_chunk", k->id.in_chunk);
	rs_json_u64(j, "calls", k->calls);
	rs_json_u64(j, "replies", k->replies);
	rs_json_u64(j, "errors", k->errors);
	rs_json_u64(j, "resent", k->resent);
	rs_json_u64(j, "rdma_read_bytes", k->rdma_read_bytes);
	rs_json_u64(j, "rdma_write_bytes", k->rdma_write_bytes);
	rs_json_lat(j, "latency_ns", &k->lat);
	rs_json_end_obj(j);
}

static void call(struct rs_json *j, const struct rs_nfs_info *q, const struct rs_nfs_call_info *c, bool answered)
{
	char name[256];
	rs_json_str(j, "operation", c->kind >= 0 ? rs_nfs_kind_name(&q->kinds[c->kind].id, name, sizeof name) : NULL);
	rs_json_u64(j, "xid", c->xid);
	rs_json_u64(j, "call_frame", c->call_at.frame);
	if (answered) {
		rs_json_u64(j, "reply_frame", c->reply_at.frame);
		rs_json_u64(j, "latency_ns", c->ns);
	}
	rs_json_bool(j, "resent", c->resent);
}

static void lists(struct rs_json *j, const struct rs_nfs_info *q)
{
	static const char *const what[] = { "nfs", "rpc_accept", "rpc_denied", "rdma_error" };
	rs_json_arr(j, "slowest");
	for (unsigned i = 0; i < q->nslow; i++) {
		rs_json_obj(j, NULL);
		call(j, q, &q->slow[i], true);
		rs_json_end_obj(j);
	}
	rs_json_end_arr(j);
	rs_json_arr(j, "slowest_resent");
	for (unsigned i = 0; i < q->nslow_resent; i++) {
		rs_json_obj(j, NULL);
		call(j, q, &q->slow_resent[i], true);
		rs_json_end_obj(j);
	}
	rs_json_end_arr(j);
	rs_json_arr(j, "errors");
	for (uint32_t i = 0; i < q->nerr && i < RS_NFS_ERRS; i++) {
		const struct rs_nfs_err_info *e = &q->err[i];
		char st[48];
		rs_json_obj(j, NULL);
		call(j, q, &e->call, true);
		rs_json_str(j, "kind", what[e->what]);
		if (e->what == RS_NFS_ERR_NFS)
			rs_json_u64(j, "status", e->stat);
		else
			rs_json_null(j, "status");
		rs_json_u64(j, "code", e->stat);
		rs_json_str(j, "code_name", rs_nfs_err_name(q, e, st, sizeof st));
		if (e->have_op)
			rs_json_u64(j, "failed_operation", e->op);
		else
			rs_json_null(j, "failed_operation");
		rs_json_end_obj(j);
	}
	rs_json_end_arr(j);
	rs_json_u64(j, "errors_total", q->nerr);
	rs_json_arr(j, "unanswered_calls");
	for (unsigned i = 0; i < q->nunans; i++) {
		rs_json_obj(j, NULL);
		call(j, q, &q->unans[i], false);
		rs_json_end_obj(j);
	}
	rs_json_end_arr(j);
}

void rs_json_nfs(struct rs_json *j, const struct rs_conn *c)
{
	struct rs_nfs_info *q = g_new(struct rs_nfs_info, 1);
	if (!rs_conn_nfs(c, q)) {
		g_free(q);
		return;
	}
	rs_json_obj(j, "nfs_rdma");
	rs_json_u64(j, "calls", q->calls);
	rs_json_u64(j, "replies", q->replies);
	rs_json_u64(j, "unanswered", q->unanswered);
	rs_json_u64(j, "replies_unmatched", q->unmatched);
	rs_json_u64(j, "xid_reused", q->xid_reused);
	rs_json_u64(j, "calls_forgotten", q->forgotten);
	rs_json_u64(j, "sends_again", q->again);
	rs_json_u64(j, "calls_resent_for", q->resent_for);
	rs_json_u64(j, "rpc_errors", q->rpc_errors);
	rs_json_u64(j, "nfs_errors", q->nfs_errors);
	rs_json_u64(j, "status_not_read", q->not_read);
	rs_json_u64(j, "headers_cut", q->cut);
	rs_json_u64(j, "headers_malformed", q->bad);
	rs_json_u64(j, "sends_other", q->other);
	rs_json_u64(j, "read_segments", q->segs[0]);
	rs_json_u64(j, "read_chunk_bytes", q->seg_bytes[0]);
	rs_json_u64(j, "write_segments", q->segs[1]);
	rs_json_u64(j, "write_chunk_bytes", q->seg_bytes[1]);
	rs_json_u64(j, "reply_segments", q->segs[2]);
	rs_json_u64(j, "reply_chunk_bytes", q->seg_bytes[2]);
	rs_json_u64(j, "rdma_reads", q->reads);
	rs_json_u64(j, "rdma_read_bytes", q->read_bytes);
	rs_json_u64(j, "rdma_writes", q->writes);
	rs_json_u64(j, "rdma_write_bytes", q->write_bytes);
	rs_json_u64(j, "rdma_untied", q->untied);
	rs_json_arr(j, "by_operation");
	for (unsigned i = 0; i < q->nkinds; i++)
		kind(j, &q->kinds[i]);
	rs_json_end_arr(j);
	rs_json_u64(j, "other_calls", q->other_calls);
	lists(j, q);
	rs_json_end_obj(j);
	g_free(q);
}
