/*
 * text_ulp.c — the text summary's section of queues without CM: half-flow
 * pairs whose CM handshake the capture does not have, whose upper-layer
 * protocol a module recognised from the traffic's shape or --ulp qp:
 * named (analyzer/ulp.c), each with the evidence that told it; and the
 * protocol modules' own sections, folded as the connections table is.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "proto/proto.h"
#include "report/text.h"

/* More queues than QUEUE_ROWS_MAX: the first QUEUE_ROWS_FOLDED (--full:
 * all), as the connections table. */
#define QUEUE_ROWS_MAX 12
#define QUEUE_ROWS_FOLDED 8

void rs_text_ulp_queues(FILE *out, const struct rs_view *v)
{
	if (!v->ulp_queues->len)
		return;
	fprintf(out, "\n%sQueues without CM%s (protocol told by its traffic's shape or --ulp qp:)\n",
		BOLD(v->o), OFF(v->o));
	guint rows = !rs_text_full(v) && v->ulp_queues->len > QUEUE_ROWS_MAX ? QUEUE_ROWS_FOLDED : v->ulp_queues->len;
	for (guint i = 0; i < rows; i++) {
		const struct rs_conn *conn = v->ulp_queues->pdata[i];
		struct rs_conn_info ci;
		struct rs_ulp_how how;
		rs_conn_get_info(conn, &ci);
		rs_conn_ulp_how(conn, &how);
		char cl[96], sv[96], svc[200], from[120] = "", line[600], cq[24] = "", sq[24] = "";
		rs_fmt_addr(v->names, &ci.client, cl, sizeof cl);
		rs_fmt_addr(v->names, &ci.server, sv, sizeof sv);
		if (ci.client_qpn) /* 0: that side's traffic not seen */
			snprintf(cq, sizeof cq, " QP 0x%x", ci.client_qpn);
		if (ci.server_qpn)
			snprintf(sq, sizeof sq, " QP 0x%x", ci.server_qpn);
		if (how.by == RS_ULP_BY_SHAPE)
			snprintf(from, sizeof from, "; analysed from frame %" PRIu64 " (the pair's first SEND), the frames "
				 "before recognition included", how.from.frame);
		unsigned row = rs_conn_ulp(conn);
		const char *const *roles = row < rs_nprotos ? rs_protos[row].roles : NULL;
		snprintf(line, sizeof line, "%u  %s %s%s → %s %s%s: %s%s", ci.id, roles && roles[0] ? roles[0] : "client",
			 cl, cq, roles && roles[1] ? roles[1] : "server", sv, sq, rs_conn_service(conn, svc, sizeof svc), from);
		rs_para(out, v->o->width, "  ", "     ", line);
	}
	if (rows < v->ulp_queues->len) {
		char line[160];
		snprintf(line, sizeof line, "… %u more queues without CM (--full lists them)", v->ulp_queues->len - rows);
		rs_para(out, v->o->width, "  ", "    ", line);
	}
}

/* ---- the protocol modules' sections, folded past MODULE_ROWS_MAX -------- */

#define MODULE_ROWS_MAX 12   /* connections a module's section shows whole */
#define MODULE_ROWS_FOLDED 8 /* shown when there are more (--full: all) */

/* How much a connection asks to be looked at: its failed and unanswered
 * operations first, then its operations. */
struct pick {
	guint at;
	uint64_t trouble, ops;
};

static gint by_trouble(gconstpointer x, gconstpointer y)
{
	const struct pick *a = x, *b = y;
	if (a->trouble != b->trouble)
		return a->trouble > b->trouble ? -1 : 1;
	if (a->ops != b->ops)
		return a->ops > b->ops ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

static gint by_place(gconstpointer x, gconstpointer y)
{
	const struct pick *a = x, *b = y;
	return a->at < b->at ? -1 : a->at > b->at;
}

/* One module's section over its connections `mine`: whole, or the
 * MODULE_ROWS_FOLDED that most ask to be looked at (in their order) and a
 * line that sums the rest with the module's brief hook. */
static void module_section(FILE *out, const struct rs_view *v, const struct rs_proto_hooks *h, unsigned row,
			   GPtrArray *mine)
{
	struct rs_view sub = *v;
	if (rs_text_full(v) || mine->len <= MODULE_ROWS_MAX || !h->brief) {
		sub.ulp_conns = mine;
		h->text(out, &sub);
		return;
	}
	struct pick *p = g_new(struct pick, mine->len);
	GPtrArray *one = g_ptr_array_sized_new(1);
	g_ptr_array_add(one, NULL);
	for (guint i = 0; i < mine->len; i++) {
		struct rs_proto_brief b = { 0 };
		one->pdata[0] = mine->pdata[i];
		sub.ulp_conns = one;
		h->brief(&sub, &b);
		p[i] = (struct pick){ i, b.failed + b.unanswered, b.ops };
	}
	g_ptr_array_free(one, TRUE);
	qsort(p, mine->len, sizeof *p, by_trouble);
	qsort(p, MODULE_ROWS_FOLDED, sizeof *p, by_place);
	qsort(p + MODULE_ROWS_FOLDED, mine->len - MODULE_ROWS_FOLDED, sizeof *p, by_place);
	GPtrArray *shown = g_ptr_array_new(), *rest = g_ptr_array_new();
	for (guint i = 0; i < mine->len; i++)
		g_ptr_array_add(i < MODULE_ROWS_FOLDED ? shown : rest, mine->pdata[p[i].at]);
	g_free(p);
	sub.ulp_conns = shown;
	h->text(out, &sub);
	struct rs_proto_brief b = { 0 };
	sub.ulp_conns = rest;
	h->brief(&sub, &b);
	char line[400];
	snprintf(line, sizeof line,
		 "… %u more %s connections and queues: %" PRIu64 " %s, %s%" PRIu64 " failed%s, %" PRIu64
		 " unanswered (--full shows them; --qp QPN shows one)",
		 rest->len, rs_proto_name(row), b.ops, b.unit, b.failed ? RED(v->o) : "", b.failed,
		 b.failed ? OFF(v->o) : "", b.unanswered);
	rs_para(out, v->o->width, "  ", "    ", line);
	g_ptr_array_free(shown, TRUE);
	g_ptr_array_free(rest, TRUE);
}

void rs_text_modules(FILE *out, const struct rs_view *v)
{
	for (unsigned row = 1; row < rs_nprotos; row++) {
		const struct rs_proto_hooks *h = rs_proto_hooks(row);
		if (!h->text || !rs_proto_first_row(row))
			continue;
		GPtrArray *mine = g_ptr_array_new();
		for (guint i = 0; i < v->ulp_conns->len; i++)
			if (rs_proto_hooks(rs_conn_ulp(v->ulp_conns->pdata[i])) == h)
				g_ptr_array_add(mine, v->ulp_conns->pdata[i]);
		if (mine->len)
			module_section(out, v, h, row, mine);
		g_ptr_array_free(mine, TRUE);
	}
}
