/*
 * ladder.c — `--ladder`: a sequence diagram per connection, one
 * arrow per frame between the two endpoints' columns, so a class can follow
 * a CM handshake, a WRITE, a READ and a NAK with its retransmissions.
 * Long runs of the same packet kind in one direction with consecutive PSNs
 * collapse into "… N more …" lines. A request after skipped PSNs has a
 * "✕ PSN gap" line above it. UD datagrams are drawn as their half-flow's,
 * the two directions between the same two QPs as one diagram, and a reply
 * the analyzer paired with a request (by order: UD has no ACK) says which.
 */
#include <inttypes.h>
#include <string.h>

#include "analyzer/result.h"
#include "report/layout.h"
#include "report/view.h"

#define WIDTH 58      /* arrow width between the two columns, unlimited (--width 0) */

/* The arrows' width for a text width: the frame and time columns and the
 * two bars take 25 characters; never under 40. */
static int arrow_width(int width)
{
	return width <= 0 ? WIDTH : width - 25 < 40 ? 40 : width - 25;
}
#define RUN_KEEP 2    /* a run shows its first RUN_KEEP events and its last one */

struct group {
	struct rs_addr left, right;
	uint32_t left_qp, right_qp;   /* the QP at each end (0 = unknown) */
	const char *how;
	GArray *ev;                   /* struct rs_ladder_ev */
};

static const char *short_op(uint8_t opcode)
{
	const char *p = rs_opinfo(opcode)->pretty;
	const char *sp = strchr(p, ' ');
	return sp ? sp + 1 : p; /* drop "RC " */
}

static void label(const struct rs_ladder_ev *e, char *buf, size_t len)
{
	char t[24];
	if (e->is_cm) {
		if (e->cm_attr == UMAD_CM_ATTR_REQ || e->cm_attr == UMAD_CM_ATTR_REP)
			snprintf(buf, len, "CM %s QP 0x%x, PSN 0x%06x", rs_cm_attr_name(e->cm_attr), e->cm_qpn, e->cm_psn);
		else if (e->cm_attr == UMAD_CM_ATTR_REJ)
			snprintf(buf, len, "CM REJ: %s", rs_cm_rej_reason_name(e->cm_reason));
		else if (e->cm_attr == UMAD_CM_ATTR_SIDR_REP)
			snprintf(buf, len, "CM SIDR_REP QP 0x%x", e->cm_qpn);
		else
			snprintf(buf, len, "CM %s", rs_cm_attr_name(e->cm_attr));
		return;
	}
	const struct rs_opinfo *op = rs_opinfo(e->opcode);
	size_t o = 0;
	if (e->has_aeth && op->kind == RS_KIND_ACK) {
		uint8_t v = rs_aeth_value(e->syndrome);
		switch (rs_aeth_kind(e->syndrome)) {
		case RS_AETH_NAK:
			o = (size_t)snprintf(buf, len, "NAK %s PSN 0x%06x", rs_nak_code_name(v), e->psn);
			break;
		case RS_AETH_RNR_NAK:
			o = (size_t)snprintf(buf, len, "RNR NAK retry in %s PSN 0x%06x",
					     rs_fmt_ns(rs_rnr_timer_us(v) * 1000ull, t, sizeof t), e->psn);
			break;
		default:
			o = (size_t)snprintf(buf, len, "ACK PSN 0x%06x MSN %u", e->psn, e->msn);
		}
	} else {
		o = (size_t)snprintf(buf, len, "%s PSN 0x%06x", short_op(e->opcode), e->psn);
		if (e->len && o < len)
			o += (size_t)snprintf(buf + o, len - o, " %s", rs_fmt_bytes(e->len, t, sizeof t));
	}
	if (e->ackreq && o < len)
		o += (size_t)snprintf(buf + o, len - o, " [A]");
	if (e->retrans && o < len)
		snprintf(buf + o, len - o, " RETX");
}

static void arrow(FILE *out, const struct group *g, const struct rs_ladder_ev *e, uint64_t t0, bool multi, int w,
		  int width)
{
	char lbl[128], line[512];
	if (e->gap) {
		if (e->gap == 1)
			snprintf(line, sizeof line, "✕ PSN 0x%06x skipped, not in the capture", (e->psn - 1) & RS_PSN_MASK);
		else
			snprintf(line, sizeof line, "✕ %u PSNs skipped, 0x%06x..0x%06x, not in the capture", e->gap,
				 (e->psn - e->gap) & RS_PSN_MASK, (e->psn - 1) & RS_PSN_MASK);
		rs_para(out, width, "                       |    ", "                       |      ", line);
	}
	bool right = rs_addr_equal(&e->src, &g->left);
	label(e, lbl, sizeof lbl);
	size_t n = strlen(lbl), most = (size_t)w - 8 < sizeof lbl - 1 ? (size_t)w - 8 : sizeof lbl - 1;
	if (n > most) {
		lbl[most] = '\0';
		n = most;
	}
	/* Between the two bars exactly w cells: "-- label ---->" or "<-- label ----". */
	size_t dash = (size_t)w - n - 5, o = 0;
	line[o++] = '|';
	if (!right)
		line[o++] = '<';
	line[o++] = '-';
	line[o++] = '-';
	line[o++] = ' ';
	memcpy(line + o, lbl, n);
	o += n;
	line[o++] = ' ';
	for (size_t i = 0; i < dash; i++)
		line[o++] = '-';
	if (right)
		line[o++] = '>';
	line[o++] = '|';
	line[o] = '\0';
	if (multi)
		fprintf(out, "%3u:%-6" PRIu64, e->at.file + 1, e->at.frame);
	else
		fprintf(out, "%10" PRIu64, e->at.frame);
	fprintf(out, " %10.3f  %s\n", (e->ts_ns - t0) / 1e6, line);
	if (e->ud_role == RS_UD_REPLY) {
		char at[40], t[24];
		if (multi)
			snprintf(at, sizeof at, "%u:%" PRIu64, e->ud_pair.file + 1, e->ud_pair.frame);
		else
			snprintf(at, sizeof at, "%" PRIu64, e->ud_pair.frame);
		snprintf(line, sizeof line, "↳ reply to frame %s after %s (paired by order)", at,
			 rs_fmt_ns(e->ud_pair_ns, t, sizeof t));
		rs_para(out, width, "                       |    ", "                       |      ", line);
	}
}

/* Same direction, same kind of operation (e.g. WRITE First/Middle/Last),
 * PSN one more than the previous, nothing unusual. */
static bool plain_ack(const struct rs_ladder_ev *e)
{
	return !e->is_cm && e->has_aeth && rs_opinfo(e->opcode)->kind == RS_KIND_ACK &&
	       rs_aeth_kind(e->syndrome) == RS_AETH_ACK && !e->retrans;
}

static bool continues(const struct rs_ladder_ev *p, const struct rs_ladder_ev *e)
{
	/* ACKs in a row, each acknowledging further. */
	if (plain_ack(p) && plain_ack(e))
		return rs_addr_equal(&p->src, &e->src) && rs_psn_diff(e->psn, p->psn) > 0;
	/* A go-back-N re-sends its packets in order too: such a run collapses
	 * as well, kept apart from the packets sent for the first time. */
	return !p->is_cm && !e->is_cm && rs_opinfo(p->opcode)->kind == rs_opinfo(e->opcode)->kind &&
	       rs_addr_equal(&p->src, &e->src) && e->psn == ((p->psn + 1) & RS_PSN_MASK) && !p->has_aeth &&
	       !e->has_aeth && e->retrans == p->retrans;
}

/* "12 RDMA WRITE Middle, 4 RDMA WRITE Last" for the hidden part of a run. */
static void run_summary(const struct rs_ladder_ev *ev, guint from, guint to, char *buf, size_t len)
{
	uint32_t count[256] = { 0 };
	for (guint k = from; k < to; k++)
		count[ev[k].opcode]++;
	size_t o = 0;
	buf[0] = '\0';
	for (int op = 0; op < 256 && o + 40 < len; op++)
		if (count[op])
			o += (size_t)snprintf(buf + o, len - o, "%s%u %s", o ? ", " : "", count[op],
					      rs_opinfo((uint8_t)op)->kind == RS_KIND_ACK ? (count[op] > 1 ? "ACKs" : "ACK")
											 : short_op((uint8_t)op));
}

static void print_group(FILE *out, const struct rs_view *v, const struct group *g)
{
	char l[96], r[96], title[320];
	struct rs_capture_info cap;
	rs_capture_get_info(v->a, &cap);
	int w = arrow_width(v->o->width);
	rs_fmt_addr(v->names, &g->left, l, sizeof l);
	rs_fmt_addr(v->names, &g->right, r, sizeof r);
	snprintf(title, sizeof title, "%s QP 0x%x  ⇄  %s QP 0x%x   (%s)", l, g->left_qp, r, g->right_qp, g->how);
	fputc('\n', out);
	rs_para(out, v->o->width, "", "    ", title);
	fprintf(out, "%10s %10s  %-*s%s\n", "frame", "ms", w - (int)strlen(r) + 1, l, r);
	if (!g->ev->len)
		return;
	const struct rs_ladder_ev *ev = (const struct rs_ladder_ev *)(void *)g->ev->data;
	uint64_t t0 = ev[0].ts_ns;
	bool multi = cap.files > 1;
	for (guint i = 0; i < g->ev->len;) {
		guint j = i + 1;
		while (j < g->ev->len && continues(&ev[j - 1], &ev[j]))
			j++;
		guint run = j - i;
		if (run <= RUN_KEEP + 2) {
			for (guint k = i; k < j; k++)
				arrow(out, g, &ev[k], t0, multi, w, v->o->width);
		} else {
			for (guint k = i; k < i + RUN_KEEP; k++)
				arrow(out, g, &ev[k], t0, multi, w, v->o->width);
			char what[256], line[320];
			run_summary(ev, i + RUN_KEEP, j - 1, what, sizeof what);
			snprintf(line, sizeof line, "… %s%s (PSN 0x%06x..0x%06x) …", ev[i].retrans ? "RETX: " : "", what,
				 ev[i + RUN_KEEP].psn, ev[j - 2].psn);
			rs_para(out, v->o->width, "                       |    ", "                       |      ", line);
			arrow(out, g, &ev[j - 1], t0, multi, w, v->o->width);
		}
		i = j;
	}
}

static struct group *group_new(GPtrArray *groups, const struct rs_addr *l, const struct rs_addr *r, uint32_t lq,
			       uint32_t rq, const char *how)
{
	struct group *g = g_new0(struct group, 1);
	g->left = *l;
	g->right = *r;
	g->left_qp = lq;
	g->right_qp = rq;
	g->how = how;
	g->ev = g_array_new(FALSE, FALSE, sizeof(struct rs_ladder_ev));
	g_ptr_array_add(groups, g);
	return g;
}

static void group_free(gpointer p)
{
	struct group *g = p;
	g_array_free(g->ev, TRUE);
	g_free(g);
}

int rs_report_ladder(FILE *out, const struct rs_analyzer *a, const struct rs_report_opts *o)
{
	struct rs_view v;
	rs_view_init(&v, a, o);
	GPtrArray *groups = g_ptr_array_new_with_free_func(group_free);
	GHashTable *by_flow = g_hash_table_new(g_direct_hash, g_direct_equal);   /* flow id + 1 -> group */
	GHashTable *by_conn = g_hash_table_new(g_direct_hash, g_direct_equal);   /* conn id + 1 -> group */

	/* CM connections first, in the order they began. */
	for (guint i = 0; i < v.conns->len; i++) {
		struct rs_conn_info c;
		rs_conn_get_info(v.conns->pdata[i], &c);
		struct group *g = group_new(groups, &c.client, &c.server, c.client_qpn, c.server_qpn,
					    c.sidr ? "SIDR, then UD" : "CM handshake");
		g_hash_table_insert(by_conn, GUINT_TO_POINTER(c.id + 1), g);
		struct rs_flow_info f;
		if (c.c2s) {
			rs_flow_get_info(c.c2s, &f);
			g_hash_table_insert(by_flow, GUINT_TO_POINTER(f.id + 1), g);
		}
		if (c.s2c) {
			rs_flow_get_info(c.s2c, &f);
			g_hash_table_insert(by_flow, GUINT_TO_POINTER(f.id + 1), g);
		}
	}
	/* Then pairs found from the traffic, then lone half-flows. */
	for (guint i = 0; i < v.flows->len; i++) {
		struct rs_flow_info fl, peer;
		rs_flow_get_info(v.flows->pdata[i], &fl);
		if (fl.is_cm_qp || g_hash_table_contains(by_flow, GUINT_TO_POINTER(fl.id + 1)))
			continue;
		if (fl.peer)
			rs_flow_get_info(fl.peer, &peer);
		/* UD: the sender's QP is in each datagram's DETH; the datagrams
		 * its destination QP sent back to it are the same conversation's. */
		bool ud = fl.transport_code == RS_TR_UD;
		struct rs_ud_conv_info u;
		if (!fl.peer && ud && rs_flow_ud_conv(a, v.flows->pdata[i], &u) && u.other) {
			struct rs_flow_info ot;
			rs_flow_get_info(u.other, &ot);
			const struct rs_flow_info *l = u.requester ? &fl : &ot;
			struct group *g = group_new(groups, &l->src, &l->dst, l->ud_src_qp, l->dest_qp,
						    "UD both ways, replies paired by order");
			g_hash_table_insert(by_flow, GUINT_TO_POINTER(fl.id + 1), g);
			g_hash_table_insert(by_flow, GUINT_TO_POINTER(ot.id + 1), g);
			continue;
		}
		struct group *g = group_new(groups, &fl.src, &fl.dst, fl.peer ? peer.dest_qp : ud ? fl.ud_src_qp : 0,
					    fl.dest_qp, fl.peer ? "paired from the traffic"
							 : ud ? "UD datagrams, one direction" : "one direction only");
		g_hash_table_insert(by_flow, GUINT_TO_POINTER(fl.id + 1), g);
		if (fl.peer)
			g_hash_table_insert(by_flow, GUINT_TO_POINTER(peer.id + 1), g);
	}
	size_t nev;
	uint64_t dropped;
	const struct rs_ladder_ev *events = rs_ladder_events(a, &nev, &dropped);
	for (size_t i = 0; i < nev; i++) {
		const struct rs_ladder_ev *e = &events[i];
		struct group *g = e->is_cm ? g_hash_table_lookup(by_conn, GUINT_TO_POINTER(e->conn_id))
					   : g_hash_table_lookup(by_flow, GUINT_TO_POINTER(e->flow_id + 1));
		if (g)
			g_array_append_val(g->ev, *e);
	}
	fprintf(out, "rocestat %s ladder: one arrow per frame; [A] = AckReq set, RETX = sent before\n", ROCESTAT_VERSION);
	guint shown = 0;
	for (guint i = 0; i < groups->len; i++) {
		struct group *g = groups->pdata[i];
		if (g->ev->len) {
			print_group(out, &v, g);
			shown++;
		}
	}
	if (!shown)
		fprintf(out, "\nno RoCE connection%s in this capture\n", o->qp >= 0 ? " with that QP" : o->conn >= 0 ? " with that number" : "");
	if (dropped)
		fprintf(out, "\n(%" PRIu64 " later frames not drawn: the ladder keeps the first 2000000)\n", dropped);
	g_hash_table_destroy(by_flow);
	g_hash_table_destroy(by_conn);
	g_ptr_array_free(groups, TRUE);
	rs_view_free(&v);
	return ferror(out) ? -1 : 0;
}
