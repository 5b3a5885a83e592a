/*
 * smbd_json.c — an SMB Direct connection's member of its connection's JSON
 * object ("smbd", man/rocestat.schema.json): what smbd_text.c says in
 * words, the negotiate exchange, SMB2 commands with latency, the slowest
 * and the failed requests with their frames and re-sends, RDMA transfers.
 * Present only on SMB Direct connections, so other reports are unchanged.
 */
#include "proto/smbdirect/smbd_text.h"
#include "proto/smbdirect/smbdirect.h"
#include "report/jsonw.h"
#include "report/view.h"

static void neg(struct rs_json *j, const struct rs_smbd_neg_info *n)
{
	if (!n->req && !n->rsp) {
		rs_json_null(j, "negotiate");
		return;
	}
	rs_json_obj(j, "negotiate");
	rs_json_bool(j, "request_seen", n->req);
	rs_json_bool(j, "response_seen", n->rsp);
	rs_json_u64(j, "min_version", n->min_version);
	rs_json_u64(j, "max_version", n->max_version);
	rs_json_u64(j, "negotiated_version", n->negotiated_version);
	rs_json_u64(j, "status", n->status);
	rs_json_u64(j, "client_credits_requested", n->req_credits_requested);
	rs_json_u64(j, "server_credits_requested", n->rsp_credits_requested);
	rs_json_u64(j, "credits_granted", n->credits_granted);
	rs_json_u64(j, "max_read_write_size", n->max_read_write);
	rs_json_u64(j, "client_preferred_send_size", n->req_preferred_send);
	rs_json_u64(j, "client_max_receive_size", n->req_max_receive);
	rs_json_u64(j, "client_max_fragmented_size", n->req_max_fragmented);
	rs_json_u64(j, "server_preferred_send_size", n->rsp_preferred_send);
	rs_json_u64(j, "server_max_receive_size", n->rsp_max_receive);
	rs_json_u64(j, "server_max_fragmented_size", n->rsp_max_fragmented);
	rs_json_end_obj(j);
}

static void side(struct rs_json *j, const char *key, const struct rs_smbd_side_info *s)
{
	rs_json_obj(j, key);
	rs_json_u64(j, "sends", s->sends);
	rs_json_u64(j, "sends_incomplete", s->incomplete);
	rs_json_u64(j, "not_smbd", s->not_smbd);
	rs_json_u64(j, "data_messages", s->data);
	rs_json_u64(j, "data_empty", s->empty);
	rs_json_u64(j, "response_requested", s->response_requested);
	rs_json_u64(j, "smb2_messages", s->smb2);
	rs_json_u64(j, "smb2_compound", s->compound);
	rs_json_u64(j, "smb2_compound_headers", s->compound_headers);
	rs_json_u64(j, "smb2_compound_dropped", s->compound_dropped);
	rs_json_u64(j, "smb2_compound_cut", s->compound_cut);
	rs_json_u64(j, "smb2_unreadable", s->smb2_bad);
	rs_json_u64(j, "fragmented_messages", s->fragmented);
	rs_json_u64(j, "fragments", s->fragments);
	rs_json_u64(j, "fragments_lied", s->frag_lied);
	rs_json_u64(j, "fragmented_too_long", s->frag_too_long);
	rs_json_u64(j, "fragmented_open", s->frag_open);
	rs_json_u64(j, "credits_granted", s->credits_granted);
	rs_json_u64(j, "credits_requested_max", s->credits_requested_max);
	rs_json_end_obj(j);
}

static void req(struct rs_json *j, const struct rs_smbd_req_info *r)
{
	const char *sn = rs_nt_status_name(r->status);
	rs_json_obj(j, NULL);
	rs_json_str(j, "command", rs_smbd_cmd_label(r->cmd < RS_SMB2__CMDS ? r->cmd : RS_SMB2__CMDS));
	rs_json_u64(j, "message_id", r->message_id);
	rs_json_u64(j, "status", r->status);
	rs_json_str(j, "status_name", *sn ? sn : NULL);
	rs_json_u64(j, "latency_ns", r->lat_ns);
	rs_json_u64(j, "request_frame", r->req_frame);
	rs_json_u64(j, "response_frame", r->rsp_frame);
	if (r->interim_frame)
		rs_json_u64(j, "interim_frame", r->interim_frame);
	else
		rs_json_null(j, "interim_frame");
	rs_json_u64(j, "rdma_transfers", r->xfers);
	rs_json_u64(j, "rdma_bytes", r->xfer_bytes);
	rs_json_bool(j, "resent_request", r->resent & RS_SMBD_RESENT_REQUEST);
	rs_json_bool(j, "resent_response", r->resent & RS_SMBD_RESENT_RESPONSE);
	rs_json_bool(j, "resent_rdma", r->resent & RS_SMBD_RESENT_TRANSFER);
	rs_json_end_obj(j);
}

static void commands(struct rs_json *j, const struct rs_smbd_info *q)
{
	rs_json_arr(j, "by_command");
	for (unsigned i = 0; i < RS_SMBD_CMDS; i++) {
		const struct rs_smbd_cmd_info *c = &q->cmd[i];
		if (!c->n && !c->done)
			continue;
		rs_json_obj(j, NULL);
		rs_json_str(j, "command", rs_smbd_cmd_label(i));
		if (i < RS_SMB2__CMDS)
			rs_json_u64(j, "code", i);
		else
			rs_json_null(j, "code");
		rs_json_u64(j, "requests", c->n);
		rs_json_u64(j, "responses", c->done);
		rs_json_u64(j, "interim", c->interim);
		rs_json_u64(j, "failed", c->failed);
		rs_json_u64(j, "resent", c->resent);
		rs_json_u64(j, "rdma_bytes", c->rdma_bytes);
		rs_json_lat(j, "latency_ns", &c->lat);
		rs_json_end_obj(j);
	}
	rs_json_end_arr(j);
}

void rs_json_smbd(struct rs_json *j, const struct rs_conn *c)
{
	struct rs_smbd_info nq, *q = &nq;
	if (!rs_conn_smbd(c, q))
		return;
	rs_json_obj(j, "smbd");
	neg(j, &q->neg);
	side(j, "client", &q->side[0]);
	side(j, "server", &q->side[1]);
	rs_json_u64(j, "requests", q->requests);
	rs_json_u64(j, "responses", q->responses);
	rs_json_u64(j, "interim", q->interims);
	rs_json_u64(j, "unanswered", q->pending);
	rs_json_u64(j, "responses_unmatched", q->unmatched);
	rs_json_u64(j, "notifications", q->notifications);
	rs_json_u64(j, "cancels", q->cancels);
	rs_json_u64(j, "wrong_direction", q->wrong_way);
	rs_json_u64(j, "message_id_again", q->mid_again);
	rs_json_u64(j, "rdma_reads", q->rdma_reads);
	rs_json_u64(j, "rdma_read_bytes", q->rdma_read_bytes);
	rs_json_u64(j, "rdma_writes", q->rdma_writes);
	rs_json_u64(j, "rdma_write_bytes", q->rdma_write_bytes);
	rs_json_u64(j, "rdma_untied", q->rdma_untied);
	rs_json_u64(j, "rdma_outside_descriptor", q->rdma_outside);
	rs_json_u64(j, "rdma_not_descriptor_length", q->rdma_short);
	rs_json_u64(j, "resent_frames", q->resent_frames);
	rs_json_u64(j, "resent_frames_untied", q->resent_untied);
	rs_json_u64(j, "resent_requests", q->resent_requests);
	commands(j, q);
	rs_json_arr(j, "slowest");
	for (uint32_t k = 0; k < q->nslow; k++)
		req(j, &q->slow[k]);
	rs_json_end_arr(j);
	rs_json_arr(j, "resent");
	for (uint64_t k = 0; k < q->resent_requests && k < RS_SMBD_SLOW; k++)
		req(j, &q->resent[k]);
	rs_json_end_arr(j);
	rs_json_arr(j, "failed");
	for (uint64_t k = 0; k < q->nfailed && k < RS_SMBD_FAILED; k++)
		req(j, &q->failed[k]);
	rs_json_end_arr(j);
	rs_json_u64(j, "failed_total", q->nfailed);
	rs_json_end_obj(j);
}
