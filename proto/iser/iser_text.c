/*
 * iser_text.c — the iSER section of the text summary: per connection, its
 * tasks by operation (count, failures, tasks the fabric re-sent a packet
 * of, data, latency p50 / p99 / max), the slowest tasks and the failed
 * ones with their frames, and the tasks never answered. A table that fits
 * 80 columns; the sentences wrap to the width asked for.
 */
#include <inttypes.h>
#include <string.h>

#include "proto/iser/iser.h"
#include "proto/iser/iser_dissect.h"
#include "proto/iser/iser_state.h"
#include "report/text.h"

static void conn_head(FILE *out, const struct rs_view *v, const struct rs_conn *conn, const struct rs_iser_info *q)
{
	struct rs_conn_info ci, *c = &ci;
	rs_conn_get_info(conn, c);
	char cl[160], sv[160], svc[200], title[48], line[1000];
	snprintf(line, sizeof line, "%s, %s: initiator %s QP 0x%x → target %s QP 0x%x", rs_conn_title(conn, title, sizeof title),
		 rs_conn_service(conn, svc, sizeof svc), rs_fmt_addr(v->names, &c->client, cl, sizeof cl),
		 c->client_qpn, rs_fmt_addr(v->names, &c->server, sv, sizeof sv), c->server_qpn);
	rs_para(out, v->o->width, "  ", "    ", line);
	char ib[16], rb[16], wb[16];
	snprintf(line, sizeof line,
		 "%" PRIu64 " tasks (%" PRIu64 " SCSI commands), %" PRIu64 " answered, %" PRIu64 " never answered; "
		 "data: immediate %s, target RDMA READs %" PRIu64 " (%s), RDMA WRITEs %" PRIu64 " (%s), %" PRIu64
		 " with an STag no waiting task gave",
		 q->requests, q->scsi_cmds, q->responses, q->unanswered, rs_fmt_bytes(q->immediate_bytes, ib, sizeof ib),
		 q->reads, rs_fmt_bytes(q->read_bytes, rb, sizeof rb), q->writes,
		 rs_fmt_bytes(q->write_bytes, wb, sizeof wb), q->untied);
	rs_para(out, v->o->width, "    ", "    ", line);
	if (q->resent_pkts)
		snprintf(line, sizeof line,
			 "%sthe fabric re-sent %" PRIu64 " packets%s: of %" PRIu64 " tasks (marked R), %" PRIu64
			 " of no task followed; %" PRIu64 " commands and %" PRIu64 " responses sent again (counted once)",
			 RED(v->o), q->resent_pkts, OFF(v->o), q->tasks_resent, q->resent_untied, q->cmd_resent,
			 q->rsp_resent);
	else
		snprintf(line, sizeof line, "the fabric re-sent no packet of the connection");
	rs_para(out, v->o->width, "    ", "    ", line);
	if (q->not_expected) {
		snprintf(line, sizeof line,
			 "%s%" PRIu64 " SCSI tasks%s ended GOOD with their data moved other than their Expected Data "
			 "Transfer Length", RED(v->o), q->not_expected, OFF(v->o));
		rs_para(out, v->o->width, "    ", "    ", line);
	}
	if (q->unmatched || q->itt_reused || q->not_kept || q->cut || q->bad || q->unsupported) {
		snprintf(line, sizeof line,
			 "%" PRIu64 " responses to no request seen, %" PRIu64 " requests reusing the ITT of a waiting "
			 "task, %" PRIu64 " tasks not followed (too many at once); PDUs: %" PRIu64 " cut by the capture, %"
			 PRIu64 " malformed, %" PRIu64 " of unknown opcodes",
			 q->unmatched, q->itt_reused, q->not_kept, q->cut, q->bad, q->unsupported);
		rs_para(out, v->o->width, "    ", "    ", line);
	}
}

static void cell(struct rs_outbuf *o, const char *s, int width, bool right)
{
	rs_outbuf_putc(o, ' ');
	rs_cell(o, s, width, right);
}

static void conn_ops(FILE *out, const struct rs_iser_info *q)
{
	char b[512];
	struct rs_outbuf o;
	rs_outbuf_init(&o, out, b, sizeof b);
	RS_OUTBUF_LIT(&o, "   ");
	static const char *const head[] = { "operation", "n", "fail", "R", "data", "p50", "p99", "max" };
	static const int w[] = { 21, 4, 4, 3, 8, 8, 8, 8 };
	for (unsigned k = 0; k < 8; k++)
		cell(&o, head[k], w[k], k > 0);
	rs_outbuf_putc(&o, '\n');
	for (unsigned i = 0; i < q->nops; i++) {
		const struct rs_iser_op_info *op = &q->ops[i];
		char name[48], n[24], e[24], r[24], d[16], t[3][24];
		rs_iser_op_label(op->pdu, op->cdb, name, sizeof name);
		snprintf(n, sizeof n, "%" PRIu64, op->n);
		snprintf(e, sizeof e, "%" PRIu64, op->errors);
		snprintf(r, sizeof r, "%" PRIu64, op->resent);
		rs_fmt_bytes(op->bytes_moved, d, sizeof d);
		if (op->lat.n) {
			rs_fmt_ns(op->lat.median, t[0], sizeof t[0]);
			rs_fmt_ns(op->lat.p99, t[1], sizeof t[1]);
			rs_fmt_ns(op->lat.max, t[2], sizeof t[2]);
		} else {
			for (int k = 0; k < 3; k++)
				snprintf(t[k], sizeof t[k], "-");
		}
		const char *row[] = { name, n, e, r, d, t[0], t[1], t[2] };
		RS_OUTBUF_LIT(&o, "   ");
		for (unsigned k = 0; k < 8; k++)
			cell(&o, row[k], w[k], k > 0);
		rs_outbuf_putc(&o, '\n');
	}
	rs_outbuf_flush(&o);
	if (q->other_ops)
		fprintf(out, "    (%" PRIu64 " tasks of further operations not listed)\n", q->other_ops);
}

/* "CHECK CONDITION, ILLEGAL REQUEST 21h/00h" and the like. */
static const char *status_words(const struct rs_iser_op_info *op, const struct rs_iser_task_info *t, char *buf,
				size_t len)
{
	if (op->pdu != RS_ISCSI_SCSI_CMD) {
		snprintf(buf, len, "response 0x%02x%s", t->response, op->pdu == RS_ISCSI_LOGIN_REQ ? " (status class)" : "");
		return buf;
	}
	const char *sn = rs_scsi_status_name(t->status);
	int k = *sn ? snprintf(buf, len, "%s", sn) : snprintf(buf, len, "status 0x%02x", t->status);
	if (t->has_sense && k > 0 && (size_t)k < len)
		k += snprintf(buf + k, len - (size_t)k, ", %s %02Xh/%02Xh", rs_scsi_sense_key_name(t->sense_key), t->asc,
			      t->ascq);
	if (t->response && k > 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, ", iSCSI response 0x%02x (target failure)", t->response);
	return buf;
}

static void conn_tasks(FILE *out, const struct rs_view *v, const struct rs_iser_info *q)
{
	int width = v->o->width;
	char name[48], lat[24], rd[80], st[160], line[400];
	for (unsigned i = 0; i < q->nslow; i++) {
		const struct rs_iser_task_info *t = &q->slow[i];
		const struct rs_iser_op_info *op = &q->ops[t->op < q->nops ? t->op : 0];
		*rd = 0;
		if (t->rd_wait) {
			char w[24];
			snprintf(rd, sizeof rd, " (%s of it waiting for RDMA READ responses)",
				 rs_fmt_ns(t->rd_wait_ns, w, sizeof w));
		}
		snprintf(line, sizeof line, "%s%s ITT 0x%08x: %s%s, frames %" PRIu64 " → %" PRIu64 "%s",
			 i ? "" : "slowest SCSI: ", rs_iser_op_label(op->pdu, op->cdb, name, sizeof name), t->itt,
			 rs_fmt_ns(t->lat_ns, lat, sizeof lat), rd, t->cmd_at.frame, t->rsp_at.frame,
			 t->resent ? ", R: the fabric re-sent a packet of it" : "");
		rs_para(out, width, i ? "                  " : "    ", "                    ", line);
	}
	for (uint64_t i = 0; i < q->nfailed && i < RS_ISER_LIST; i++) {
		const struct rs_iser_task_info *t = &q->failed[i];
		const struct rs_iser_op_info *op = &q->ops[t->op < q->nops ? t->op : 0];
		snprintf(line, sizeof line, "%sfailed: %s ITT 0x%08x: %s%s, frames %" PRIu64 " → %" PRIu64,
			 RED(v->o), rs_iser_op_label(op->pdu, op->cdb, name, sizeof name), t->itt,
			 status_words(op, t, st, sizeof st), OFF(v->o), t->cmd_at.frame, t->rsp_at.frame);
		rs_para(out, width, "    - ", "      ", line);
	}
	if (q->nfailed > RS_ISER_LIST)
		fprintf(out, "    - and %" PRIu64 " more failed tasks\n", q->nfailed - RS_ISER_LIST);
	for (uint64_t i = 0; i < q->unanswered && i < RS_ISER_LIST; i++) {
		const struct rs_iser_task_info *t = &q->waiting[i];
		const struct rs_iser_op_info *op = &q->ops[t->op < q->nops ? t->op : 0];
		snprintf(line, sizeof line, "never answered: %s ITT 0x%08x, command frame %" PRIu64 "%s",
			 rs_iser_op_label(op->pdu, op->cdb, name, sizeof name), t->itt, t->cmd_at.frame,
			 t->resent ? ", R: the fabric re-sent a packet of it" : "");
		rs_para(out, width, "    - ", "      ", line);
	}
	if (q->unanswered > RS_ISER_LIST)
		fprintf(out, "    - and %" PRIu64 " more tasks never answered\n", q->unanswered - RS_ISER_LIST);
}

void rs_text_iser(FILE *out, const struct rs_view *v)
{
	bool any = false;
	for (guint i = 0; i < v->ulp_conns->len; i++) {
		const struct rs_conn *c = v->ulp_conns->pdata[i];
		struct rs_iser_info q;
		if (!rs_conn_iser(c, &q))
			continue;
		if (!any)
			fprintf(out, "\n%siSER tasks%s (command → response, to its last sending)\n", BOLD(v->o), OFF(v->o));
		any = true;
		conn_head(out, v, c, &q);
		conn_ops(out, &q);
		conn_tasks(out, v, &q);
	}
}
