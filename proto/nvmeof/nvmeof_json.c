/*
 * nvmeof_json.c — an NVMe-oF queue's member of its connection's JSON
 * object: what nvmeof_text.c says in words, commands by kind with sizes
 * and latency, RDMA transfers, failed commands (the "nvme" member of a
 * connection in man/rocestat.schema.json; present only when
 * there is something to say, so reports of other traffic are unchanged).
 */
#include "proto/nvmeof/nvmeof.h"
#include "proto/nvmeof/nvmeof_text.h"
#include "report/jsonw.h"
#include "report/view.h"

static void op(struct rs_json *j, const struct rs_nvme_info *q, const struct rs_nvme_op_info *o)
{
	char name[48];
	rs_json_obj(j, NULL);
	rs_json_u64(j, "opcode", o->opcode);
	if (o->opcode == RS_NVME_FABRICS_OPC)
		rs_json_u64(j, "fctype", o->fctype);
	else
		rs_json_null(j, "fctype");
	rs_json_str(j, "name", rs_nvme_op_label(q, o, name, sizeof name));
	rs_json_u64(j, "commands", o->n);
	rs_json_u64(j, "completed", o->done);
	rs_json_u64(j, "errors", o->errors);
	rs_json_u64(j, "bytes", o->bytes);
	rs_json_u64(j, "size_min", o->size_min);
	rs_json_u64(j, "size_max", o->size_max);
	rs_json_u64(j, "in_capsule", o->incapsule);
	rs_json_lat(j, "latency_ns", &o->lat);
	rs_json_end_obj(j);
}

static void errors(struct rs_json *j, const struct rs_nvme_info *q)
{
	rs_json_arr(j, "failed");
	for (uint32_t i = 0; i < q->nerr && i < RS_NVME_ERRS; i++) {
		const struct rs_nvme_err *e = &q->err[i];
		char name[48];
		const char *sn = rs_nvme_status_name(e->status);
		rs_json_obj(j, NULL);
		rs_json_str(j, "command", rs_nvme_op_label(q, &q->ops[e->op], name, sizeof name));
		rs_json_u64(j, "cid", e->cid);
		rs_json_u64(j, "status", e->status);
		rs_json_u64(j, "sct", rs_nvme_sct(e->status));
		rs_json_u64(j, "sc", rs_nvme_sc(e->status));
		rs_json_str(j, "status_name", *sn ? sn : NULL);
		rs_json_bool(j, "dnr", e->status & 0x4000);
		rs_json_u64(j, "command_frame", e->cmd_at.frame);
		rs_json_u64(j, "response_frame", e->at.frame);
		rs_json_end_obj(j);
	}
	rs_json_end_arr(j);
	rs_json_u64(j, "failed_total", q->nerr);
}

void rs_json_nvme(struct rs_json *j, const struct rs_conn *c)
{
	struct rs_nvme_info nq, *q = &nq;
	if (!rs_conn_nvme(c, q))
		return;
	rs_json_obj(j, "nvme");
	if (q->qid_known) {
		rs_json_u64(j, "qid", q->qid);
		rs_json_str(j, "queue", q->qid ? "io" : "admin");
		rs_json_u64(j, "sq_size", q->sqsize + 1u);
	} else {
		rs_json_null(j, "qid");
		rs_json_null(j, "queue");
		rs_json_null(j, "sq_size");
	}
	rs_json_u64(j, "commands", q->cmds);
	rs_json_u64(j, "responses", q->rsps);
	rs_json_u64(j, "unanswered", q->pending);
	rs_json_u64(j, "unanswered_async_events", q->pending_aer);
	rs_json_u64(j, "answered_before_seen", q->answered_early);
	rs_json_u64(j, "responses_unmatched", q->unmatched);
	rs_json_u64(j, "responses_unmatched_failed", q->unmatched_failed);
	rs_json_u64(j, "commands_resent", q->resent);
	rs_json_u64(j, "responses_resent", q->rsp_resent);
	rs_json_u64(j, "capsules_cut", q->cut);
	rs_json_u64(j, "capsules_malformed", q->bad);
	rs_json_u64(j, "rdma_reads", q->reads);
	rs_json_u64(j, "rdma_read_bytes", q->read_bytes);
	rs_json_u64(j, "rdma_writes", q->writes);
	rs_json_u64(j, "rdma_write_bytes", q->write_bytes);
	rs_json_u64(j, "rdma_untied", q->untied);
	rs_json_u64(j, "rdma_not_sgl_length", q->xfer_short);
	rs_json_arr(j, "by_command");
	for (unsigned i = 0; i < q->nops; i++)
		op(j, q, &q->ops[i]);
	rs_json_end_arr(j);
	rs_json_u64(j, "other_commands", q->other_ops);
	errors(j, q);
	rs_json_end_obj(j);
}
