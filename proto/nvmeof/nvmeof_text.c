/*
 * nvmeof_text.c — the NVMe-oF section of the text summary: per queue (one
 * CM connection of an NVMe-oF service, or a queue without CM recognised by
 * shape or named by --ulp qp:), its commands by kind with their
 * sizes and command -> response latency, the RDMA READs and WRITEs the
 * target issued for them, and the commands that failed.
 */
#include <inttypes.h>
#include <string.h>

#include "proto/nvmeof/nvmeof.h"
#include "proto/nvmeof/nvmeof_dissect.h"
#include "proto/nvmeof/nvmeof_text.h"
#include "report/text.h"

static void queue_head(FILE *out, const struct rs_view *v, const struct rs_conn *conn, const struct rs_nvme_info *q)
{
	struct rs_conn_info ci, *c = &ci;
	rs_conn_get_info(conn, c);
	char cl[160], sv[160], svc[200], line[800], qid[96], title[48];
	if (q->qid_known)
		snprintf(qid, sizeof qid, "%s queue %u, %u entries (SQSIZE %u, 0's based)", q->qid ? "I/O" : "admin",
			 q->qid, q->sqsize + 1u, q->sqsize);
	else
		snprintf(qid, sizeof qid, "queue not known (no Connect seen)");
	snprintf(line, sizeof line, "%s, %s: host %s QP 0x%x → target %s QP 0x%x, %s",
		 rs_conn_title(conn, title, sizeof title), rs_conn_service(conn, svc, sizeof svc), rs_fmt_addr(v->names, &c->client, cl, sizeof cl), c->client_qpn,
		 rs_fmt_addr(v->names, &c->server, sv, sizeof sv), c->server_qpn, qid);
	rs_para(out, v->o->width, "  ", "    ", line);
	char rb[16], wb[16], aer[80] = "";
	unsigned pend = q->pending, naer = q->pending_aer;
	if (naer)
		snprintf(aer, sizeof aer, " (%u an Asynchronous Event Request, held by the target until an event)", naer);
	snprintf(line, sizeof line,
		 "%" PRIu64 " commands, %" PRIu64 " responses, %u unanswered%s; target RDMA READs %" PRIu64 " (%s), "
		 "RDMA WRITEs %" PRIu64 " (%s), %" PRIu64 " with an rkey no pending command gave",
		 q->cmds, q->rsps, pend, aer, q->reads, rs_fmt_bytes(q->read_bytes, rb, sizeof rb), q->writes,
		 rs_fmt_bytes(q->write_bytes, wb, sizeof wb), q->untied);
	rs_para(out, v->o->width, "    ", "    ", line);
	if (q->xfer_short) {
		snprintf(line, sizeof line,
			 "%" PRIu64 " commands answered with success whose RDMA READs/WRITEs moved other than their SGL's "
			 "length", q->xfer_short);
		rs_para(out, v->o->width, "    ", "    ", line);
	}
	if (q->answered_early) {
		snprintf(line, sizeof line,
			 "%" PRIu64 " responses captured before their command (the capture timestamped the two directions "
			 "apart): paired by CID with the next command, not timed", q->answered_early);
		rs_para(out, v->o->width, "    ", "    ", line);
	}
	if (q->unmatched_failed) {
		snprintf(line, sizeof line,
			 "%" PRIu64 " response%s to commands not seen carr%s an error status (their commands are unknown: "
			 "not among the failed below)", q->unmatched_failed, q->unmatched_failed == 1 ? "" : "s",
			 q->unmatched_failed == 1 ? "ies" : "y");
		rs_para(out, v->o->width, "    ", "    ", line);
	}
	if (q->unmatched || q->resent || q->rsp_resent || q->cut || q->bad) {
		snprintf(line, sizeof line,
			 "%" PRIu64 " responses to commands not seen, capsules sent again: %" PRIu64 " commands, %" PRIu64
			 " responses (counted once); %" PRIu64 " capsules cut by the capture, %" PRIu64 " malformed",
			 q->unmatched, q->resent, q->rsp_resent, q->cut, q->bad);
		rs_para(out, v->o->width, "    ", "    ", line);
	}
}

#define OPS_TABLE_WIDTH 106 /* the table's lines; narrower, a paragraph per command kind */

static void queue_ops(FILE *out, const struct rs_view *v, const struct rs_nvme_info *q)
{
	int width = v->o->width;
	bool table = width <= 0 || width >= OPS_TABLE_WIDTH;
	if (table)
		fprintf(out, "    %-26s %6s %6s %10s %17s %10s %10s %10s\n", "command", "n", "errors", "bytes",
			"size min-max", "min", "median", "p99");
	for (unsigned i = 0; i < q->nops; i++) {
		const struct rs_nvme_op_info *o = &q->ops[i];
		char name[48], b[16], s1[16], s2[16], sz[40], t[3][24];
		rs_fmt_bytes(o->bytes, b, sizeof b);
		snprintf(sz, sizeof sz, "%s-%s", rs_fmt_bytes(o->size_min, s1, sizeof s1),
			 rs_fmt_bytes(o->size_max, s2, sizeof s2));
		if (o->lat.n) {
			rs_fmt_ns(o->lat.min, t[0], sizeof t[0]);
			rs_fmt_ns(o->lat.median, t[1], sizeof t[1]);
			rs_fmt_ns(o->lat.p99, t[2], sizeof t[2]);
		} else {
			for (int k = 0; k < 3; k++)
				snprintf(t[k], sizeof t[k], "-");
		}
		rs_nvme_op_label(q, o, name, sizeof name);
		if (table) {
			fprintf(out, "    %-26s %6" PRIu64 " %6" PRIu64 " %10s %17s %10s %10s %10s\n", name, o->n, o->errors, b,
				sz, t[0], t[1], t[2]);
			continue;
		}
		char line[400];
		snprintf(line, sizeof line, "%s: %" PRIu64 ", %" PRIu64 " failed, %s (%s each); latency min %s, median "
			 "%s, p99 %s", name, o->n, o->errors, b, sz, t[0], t[1], t[2]);
		rs_para(out, width, "    ", "      ", line);
	}
	if (q->other_ops)
		fprintf(out, "    (%" PRIu64 " commands of further kinds not listed)\n", q->other_ops);
}

static void queue_errors(FILE *out, const struct rs_view *v, const struct rs_nvme_info *q)
{
	for (uint32_t i = 0; i < q->nerr && i < RS_NVME_ERRS; i++) {
		const struct rs_nvme_err *e = &q->err[i];
		char name[48], line[400];
		const char *sn = rs_nvme_status_name(e->status);
		snprintf(line, sizeof line,
			 "failed: %s CID %u, status 0x%03x (SCT %u SC 0x%02x%s%s%s), command frame %" PRIu64
			 ", response frame %" PRIu64,
			 rs_nvme_op_label(q, &q->ops[e->op], name, sizeof name), e->cid, e->status, rs_nvme_sct(e->status),
			 rs_nvme_sc(e->status), *sn ? ": " : "", sn, e->status & 0x4000 ? ", do not retry" : "",
			 e->cmd_at.frame, e->at.frame);
		rs_para(out, v->o->width, "    - ", "      ", line);
	}
	if (q->nerr > RS_NVME_ERRS)
		fprintf(out, "    - and %u more failed commands\n", q->nerr - RS_NVME_ERRS);
}

void rs_text_nvme(FILE *out, const struct rs_view *v)
{
	bool any = false;
	for (guint i = 0; i < v->ulp_conns->len; i++) {
		const struct rs_conn *c = v->ulp_conns->pdata[i];
		struct rs_nvme_info q;
		if (!rs_conn_nvme(c, &q))
			continue;
		if (!any)
			fprintf(out, "\n%sNVMe-oF queues%s (command capsule → response capsule)\n", BOLD(v->o), OFF(v->o));
		any = true;
		queue_head(out, v, c, &q);
		queue_ops(out, v, &q);
		queue_errors(out, v, &q);
	}
}

/* A command kind by its code (rs_nvme_op_code, the verdicts' ulp_op); also
 * the per-frame views' op_name hook. */
const char *rs_nvme_op_name(uint16_t op, char *buf, size_t len)
{
	uint8_t opc = (uint8_t)op, hi = (uint8_t)(op >> 8);
	const char *name = opc == RS_NVME_FABRICS_OPC ? rs_nvme_fctype_name(hi)
			   : hi == 1			? rs_nvme_admin_opc_name(opc)
			   : hi == 2			? rs_nvme_io_opc_name(opc)
							: "";
	if (*name)
		snprintf(buf, len, "%s", name);
	else if (opc == RS_NVME_FABRICS_OPC)
		snprintf(buf, len, "Fabrics 0x%02x", hi);
	else
		snprintf(buf, len, "opcode 0x%02x", opc);
	return buf;
}

const char *rs_nvme_op_label(const struct rs_nvme_info *q, const struct rs_nvme_op_info *o, char *buf, size_t len)
{
	return rs_nvme_op_name(rs_nvme_op_code(o->opcode, o->fctype, q->qid_known, q->qid == 0), buf, len);
}
