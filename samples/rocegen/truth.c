/* One side's share of the ground truth, written as JSON at exit.
 * The layout is described in samples/README.md. */
#include "rocegen.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *wr_opcode_name(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND: return "SEND";
	case IBV_WR_SEND_WITH_IMM: return "SEND_WITH_IMM";
	case IBV_WR_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WR_RDMA_WRITE_WITH_IMM: return "RDMA_WRITE_WITH_IMM";
	case IBV_WR_RDMA_READ: return "RDMA_READ";
	case IBV_WR_ATOMIC_CMP_AND_SWP: return "ATOMIC_CMP_AND_SWP";
	case IBV_WR_ATOMIC_FETCH_AND_ADD: return "ATOMIC_FETCH_AND_ADD";
	default: return "OTHER";
	}
}

const char *wc_opcode_name(enum ibv_wc_opcode op)
{
	switch (op) {
	case IBV_WC_SEND: return "SEND";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "RDMA_READ";
	case IBV_WC_COMP_SWAP: return "COMP_SWAP";
	case IBV_WC_FETCH_ADD: return "FETCH_ADD";
	case IBV_WC_RECV: return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	default: return "OTHER";
	}
}

void truth_cm_event(struct conn *c, const struct rdma_cm_event *ev)
{
	struct jbuf *b = &c->j_cm;
	jb_item(b);
	jb_printf(b, "{\"t\": %.6f, \"event\": ", now_s() - c->t0);
	jb_string(b, rdma_event_str(ev->event));
	jb_printf(b, ", \"status\": %d", ev->status);
	if (ev->event == RDMA_CM_EVENT_REJECTED) {
		const struct rdma_conn_param *p = &ev->param.conn;
		jb_printf(b, ", \"reason\": %d, \"private_data_len\": %u, \"private_data\": ",
			  ev->status, p->private_data_len);
		jb_hex(b, p->private_data, p->private_data ? p->private_data_len : 0);
	}
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED && c->id && c->id->ps == RDMA_PS_UDP) {
		jb_printf(b, ", \"remote_qpn\": %u, \"qkey\": %u",
			  ev->param.ud.qp_num, ev->param.ud.qkey);
	}
	jb_printf(b, "}");
}

static const char *qp_type_name(enum ibv_qp_type t)
{
	switch (t) {
	case IBV_QPT_RC: return "RC";
	case IBV_QPT_UC: return "UC";
	case IBV_QPT_UD: return "UD";
	default: return "?";
	}
}

static void gid_text(const union ibv_gid *gid, char *out, size_t len)
{
	if (!inet_ntop(AF_INET6, gid->raw, out, (socklen_t)len))
		snprintf(out, len, "?");
}

/* Called once the QP is connected: what rdma_cm chose (PSNs, QPNs, MTU)
 * is only knowable by asking the QP. */
void truth_side(struct conn *c)
{
	struct jbuf *b = &c->j_side;
	char text[INET6_ADDRSTRLEN + 8];
	memset(b, 0, sizeof(*b));

	struct rdma_cm_id *id = c->id;
	jb_printf(b, "{\"ip\": ");
	jb_string(b, id ? addr_text(rdma_get_local_addr(id), text, sizeof(text)) : "");
	jb_printf(b, ", \"peer_ip\": ");
	jb_string(b, id ? addr_text(rdma_get_peer_addr(id), text, sizeof(text)) : "");
	if (id) {
		jb_printf(b, ", \"cm_port\": %u", ntohs(rdma_get_src_port(id)));
		gid_text(&id->route.addr.addr.ibaddr.sgid, text, sizeof(text));
		jb_printf(b, ", \"gid\": ");
		jb_string(b, text);
		struct ibv_port_attr pa;
		if (id->verbs && ibv_query_port(id->verbs, id->port_num, &pa) == 0)
			jb_printf(b, ", \"port_active_mtu\": %d", 128 << pa.active_mtu);
	}
	if (c->qp) {
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr ia;
		int mask = IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_SQ_PSN | IBV_QP_RQ_PSN |
			   IBV_QP_DEST_QPN | IBV_QP_AV | IBV_QP_QKEY | IBV_QP_MIN_RNR_TIMER |
			   IBV_QP_RNR_RETRY | IBV_QP_RETRY_CNT | IBV_QP_TIMEOUT |
			   IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC;
		memset(&a, 0, sizeof(a));
		if (ibv_query_qp(c->qp, &a, mask, &ia))
			die("ibv_query_qp: %m");
		jb_printf(b, ", \"qpn\": %u, \"qp_type\": \"%s\", \"qp_state\": %d",
			  c->qp->qp_num, qp_type_name(c->qp->qp_type), a.qp_state);
		jb_printf(b, ", \"sq_psn\": %u", a.sq_psn);
		if (c->qp->qp_type == IBV_QPT_UD) {
			jb_printf(b, ", \"qkey\": %u", a.qkey);
		} else {
			gid_text(&a.ah_attr.grh.dgid, text, sizeof(text));
			jb_printf(b, ", \"rq_psn\": %u, \"dest_qpn\": %u, \"path_mtu\": %d"
				  ", \"sgid_index\": %u, \"dgid\": \"%s\", \"hop_limit\": %u"
				  ", \"traffic_class\": %u, \"min_rnr_timer\": %u, \"rnr_retry\": %u"
				  ", \"retry_cnt\": %u, \"timeout\": %u, \"max_rd_atomic\": %u"
				  ", \"max_dest_rd_atomic\": %u",
				  a.rq_psn, a.dest_qp_num, 128 << a.path_mtu,
				  a.ah_attr.grh.sgid_index, text, a.ah_attr.grh.hop_limit,
				  a.ah_attr.grh.traffic_class, a.min_rnr_timer, a.rnr_retry,
				  a.retry_cnt, a.timeout, a.max_rd_atomic, a.max_dest_rd_atomic);
		}
		jb_printf(b, ", \"max_inline\": %u", c->max_inline);
	} else {
		jb_printf(b, ", \"qpn\": null");
	}
	if (c->mr) {
		jb_printf(b, ", \"mr\": {\"addr\": ");
		jb_u64(b, (uint64_t)(uintptr_t)c->buf);
		jb_printf(b, ", \"rkey\": %u, \"lkey\": %u, \"length\": %zu}",
			  c->mr->rkey, c->mr->lkey, c->buf_len);
	}
	if (c->have_peer) {
		jb_printf(b, ", \"peer_mr\": {\"addr\": ");
		jb_u64(b, c->peer.addr);
		jb_printf(b, ", \"rkey\": %u, \"length\": %u}", c->peer.rkey, c->peer.length);
	}
	jb_printf(b, "}");
}

/* What this side saw of the connection, boiled down. */
static void write_cm_summary(FILE *f, const struct conn *c)
{
	struct jbuf b;
	memset(&b, 0, sizeof(b));
	jb_printf(&b, "{\"established\": %s, \"rejected\": %s, \"disconnected\": %s"
		  ", \"sent_dreq\": %s",
		  c->established ? "true" : "false", c->rejected ? "true" : "false",
		  c->disconnected || c->local_disconnect_first ? "true" : "false",
		  c->local_disconnect_first ? "true" : "false");
	if (c->rejected) {
		jb_printf(&b, ", \"reject_reason\": %d, \"reject_private_data\": ",
			  c->reject_reason);
		jb_hex(&b, c->reject_pdata, c->reject_pdata_len);
	}
	if (c->connect_request) {
		jb_printf(&b, ", \"request_private_data\": ");
		jb_hex(&b, c->req_pdata, c->req_pdata_len);
	}
	if (c->established && c->opt->scenario == SC_UD && !c->opt->server)
		jb_printf(&b, ", \"sidr\": {\"status\": 0, \"remote_qpn\": %u, \"qkey\": %u}",
			  c->ud.qp_num, c->ud.qkey);
	jb_printf(&b, "}");
	fprintf(f, "  \"cm\": %s,\n", b.s);
	jb_free(&b);
}

static void section(FILE *f, const char *name, const struct jbuf *b, bool last)
{
	fprintf(f, "  \"%s\": [%s%s]%s\n", name, b->s ? b->s : "",
		b->items ? "\n  " : "", last ? "" : ",");
}

void truth_write(struct conn *c)
{
	const struct options *o = c->opt;
	if (!o->truth_path)
		return;
	FILE *f = fopen(o->truth_path, "w");
	if (!f)
		die("cannot write %s: %m", o->truth_path);
	fprintf(f, "{\n  \"format\": \"rocegen-side/1\",\n  \"side\": \"%s\",\n", c->side);
	fprintf(f, "  \"scenario\": \"%s\",\n", scenario_name(o->scenario));
	fprintf(f, "  \"params\": {\"size\": %u, \"count\": %u, \"depth\": %u, "
		"\"inline\": %s, \"ip_version\": %d, \"port\": %s, \"rnr_delay_ms\": %u, "
		"\"retry_cnt\": %u, \"rnr_retry\": %u, \"ack_timeout\": ",
		o->size, o->count, o->depth, o->inline_data ? "true" : "false",
		o->ipv6 ? 6 : 4, o->port, o->rnr_delay_ms, o->retry_cnt, o->rnr_retry);
	if (o->ack_timeout >= 0)
		fprintf(f, "%d", o->ack_timeout);
	else
		fprintf(f, "null");
	fprintf(f, ", \"prepost\": %u, \"stop_after\": %u", o->prepost, o->stop_after);
	/* Only when given, so that the older samples' params stay as they were. */
	if (o->give_up_ms)
		fprintf(f, ", \"give_up_ms\": %u", o->give_up_ms);
	if (o->scenario == SC_DISCONNECT_BOTH)
		fprintf(f, ", \"cross_delay_ms\": %u", o->cross_delay_ms);
	if (o->qps > 1)
		fprintf(f, ", \"qps\": %u", o->qps);
	fprintf(f, "},\n");
	fprintf(f, "  \"ok\": %s,\n", c->failed ? "false" : "true");
	fprintf(f, "  \"self\": %s,\n", c->j_side.s ? c->j_side.s : "null");
	write_cm_summary(f, c);
	section(f, "cm_events", &c->j_cm, false);
	section(f, "work_requests", &c->j_wr, false);
	section(f, "receives", &c->j_recv, false);
	section(f, "completions", &c->j_wc, false);
	section(f, "notes", &c->j_notes, true);
	fprintf(f, "}\n");
	if (fclose(f))
		die("cannot write %s: %m", o->truth_path);
}
