/*
 * iser_json.c — an iSER connection's member of its connection's JSON
 * object: what iser_text.c says in words (the "iser" member of a
 * connection in man/rocestat.schema.json; only on iSER connections, so
 * reports of other traffic are unchanged).
 */
#include "proto/iser/iser.h"
#include "proto/iser/iser_dissect.h"
#include "proto/iser/iser_state.h"
#include "report/jsonw.h"
#include "report/view.h"

static void op(struct rs_json *j, const struct rs_iser_op_info *o)
{
	char name[48];
	rs_json_obj(j, NULL);
	rs_json_u64(j, "opcode", o->pdu);
	if (o->pdu == RS_ISCSI_SCSI_CMD)
		rs_json_u64(j, "cdb_opcode", o->cdb);
	else
		rs_json_null(j, "cdb_opcode");
	rs_json_str(j, "name", rs_iser_op_label(o->pdu, o->cdb, name, sizeof name));
	rs_json_u64(j, "count", o->n);
	rs_json_u64(j, "completed", o->done);
	rs_json_u64(j, "errors", o->errors);
	rs_json_u64(j, "resent", o->resent);
	rs_json_u64(j, "bytes_expected", o->bytes_expected);
	rs_json_u64(j, "bytes_moved", o->bytes_moved);
	rs_json_lat(j, "latency_ns", &o->lat);
	rs_json_end_obj(j);
}

/* A listed task; `answered`: its response's fields too. */
static void task(struct rs_json *j, const struct rs_iser_info *q, const struct rs_iser_task_info *t, bool answered)
{
	char name[48];
	const struct rs_iser_op_info *o = &q->ops[t->op < q->nops ? t->op : 0];
	rs_json_obj(j, NULL);
	rs_json_str(j, "name", rs_iser_op_label(o->pdu, o->cdb, name, sizeof name));
	rs_json_u64(j, "itt", t->itt);
	rs_json_u64(j, "command_frame", t->cmd_at.frame);
	if (answered) {
		rs_json_u64(j, "response_frame", t->rsp_at.frame);
		rs_json_u64(j, "latency_ns", t->lat_ns);
		if (t->rd_wait)
			rs_json_u64(j, "rdma_read_wait_ns", t->rd_wait_ns);
		else
			rs_json_null(j, "rdma_read_wait_ns");
		bool scsi = o->pdu == RS_ISCSI_SCSI_CMD;
		if (scsi) {
			const char *sn = rs_scsi_status_name(t->status);
			rs_json_u64(j, "status", t->status);
			rs_json_str(j, "status_name", *sn ? sn : NULL);
		} else {
			rs_json_null(j, "status");
			rs_json_null(j, "status_name");
		}
		rs_json_u64(j, "response", t->response);
		if (scsi && t->has_sense) {
			rs_json_u64(j, "sense_key", t->sense_key);
			rs_json_str(j, "sense_key_name", rs_scsi_sense_key_name(t->sense_key));
			rs_json_u64(j, "asc", t->asc);
			rs_json_u64(j, "ascq", t->ascq);
		} else {
			rs_json_null(j, "sense_key");
			rs_json_null(j, "sense_key_name");
			rs_json_null(j, "asc");
			rs_json_null(j, "ascq");
		}
	}
	rs_json_bool(j, "resent", t->resent);
	rs_json_end_obj(j);
}

void rs_json_iser(struct rs_json *j, const struct rs_conn *c)
{
	struct rs_iser_info nq, *q = &nq;
	if (!rs_conn_iser(c, q))
		return;
	rs_json_obj(j, "iser");
	rs_json_u64(j, "requests", q->requests);
	rs_json_u64(j, "responses", q->responses);
	rs_json_u64(j, "scsi_commands", q->scsi_cmds);
	rs_json_u64(j, "scsi_responses", q->scsi_rsps);
	rs_json_u64(j, "unanswered", q->unanswered);
	rs_json_u64(j, "responses_unmatched", q->unmatched);
	rs_json_u64(j, "itt_reused", q->itt_reused);
	rs_json_u64(j, "tasks_not_followed", q->not_kept);
	rs_json_u64(j, "commands_resent", q->cmd_resent);
	rs_json_u64(j, "responses_resent", q->rsp_resent);
	rs_json_u64(j, "tasks_resent", q->tasks_resent);
	rs_json_u64(j, "packets_resent", q->resent_pkts);
	rs_json_u64(j, "packets_resent_untied", q->resent_untied);
	rs_json_u64(j, "pdus_cut", q->cut);
	rs_json_u64(j, "pdus_malformed", q->bad);
	rs_json_u64(j, "pdus_unsupported", q->unsupported);
	rs_json_u64(j, "pdus_other", q->other_pdus);
	rs_json_u64(j, "immediate_bytes", q->immediate_bytes);
	rs_json_u64(j, "rdma_reads", q->reads);
	rs_json_u64(j, "rdma_read_bytes", q->read_bytes);
	rs_json_u64(j, "rdma_writes", q->writes);
	rs_json_u64(j, "rdma_write_bytes", q->write_bytes);
	rs_json_u64(j, "rdma_untied", q->untied);
	rs_json_u64(j, "not_expected_length", q->not_expected);
	rs_json_arr(j, "by_operation");
	for (unsigned i = 0; i < q->nops; i++)
		op(j, &q->ops[i]);
	rs_json_end_arr(j);
	rs_json_u64(j, "other_operations", q->other_ops);
	rs_json_arr(j, "slowest");
	for (unsigned i = 0; i < q->nslow; i++)
		task(j, q, &q->slow[i], true);
	rs_json_end_arr(j);
	rs_json_arr(j, "failed");
	for (uint64_t i = 0; i < q->nfailed && i < RS_ISER_LIST; i++)
		task(j, q, &q->failed[i], true);
	rs_json_end_arr(j);
	rs_json_u64(j, "failed_total", q->nfailed);
	rs_json_arr(j, "unanswered_tasks");
	for (uint64_t i = 0; i < q->unanswered && i < RS_ISER_LIST; i++)
		task(j, q, &q->waiting[i], false);
	rs_json_end_arr(j);
	rs_json_end_obj(j);
}
