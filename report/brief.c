/*
 * brief.c — `rocestat --brief FILE`: one screen of 80x24 whatever the
 * capture: what it holds, its findings (alike ones grouped, one line
 * each), a line per upper-layer protocol (the modules' brief hooks), the
 * top queue pairs by bytes and by trouble, and the commands to
 * look closer. Every line is cut to the width rather than wrapped, and
 * each part has a fixed number of lines, so a capture of a million QPs
 * fills the same screen as one of a single QP.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "proto/proto.h"
#include "report/escape.h"
#include "report/text.h"

#define FINDINGS 6   /* lines of findings, the last "… N more" if need be */
#define TOP 3        /* rows of each top list */
#define NEXT 3       /* commands */
#define LABEL 42     /* the rows' label column at 80 */
#define PROTOS 2     /* lines of the protocol modules, the last naming the rest if need be */

/* `s` on a line of its own, cut to `width` with "…". */
static void line(FILE *out, int width, const char *s)
{
	char b[1024];
	struct rs_outbuf o;
	rs_outbuf_init(&o, out, b, sizeof b);
	if (rs_dwidth(s) > width)
		rs_cell(&o, s, width, false);
	else
		rs_outbuf_str(&o, s, 0);
	rs_outbuf_putc(&o, '\n');
	rs_outbuf_flush(&o);
}

/* The files, as a shell reads them back. */
static char *files_arg(const struct rs_analyzer *a)
{
	struct rs_capture_info cap;
	rs_capture_get_info(a, &cap);
	GString *s = g_string_new(NULL);
	for (uint32_t i = 0; i < cap.files; i++) {
		struct rs_file_info fi;
		rs_capture_file(a, i, &fi);
		char *safe = rs_escape_ctl(fi.name, false);
		bool plain = safe[0] && safe[0] != '-' && strspn(safe, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
						   "0123456789._/+:@%,=-") == strlen(safe);
		char *q = plain ? g_strdup(safe) : g_shell_quote(safe);
		g_string_append_printf(s, "%s%s", i ? " " : "", q);
		g_free(q);
		g_free(safe);
	}
	return g_string_free(s, FALSE);
}

static void capture_lines(FILE *out, const struct rs_view *v, int width)
{
	struct rs_capture_info cap;
	rs_capture_get_info(v->a, &cap);
	char *files = files_arg(v->a);
	char b[1024], by[32], d[32];
	snprintf(b, sizeof b, "%srocestat %s%s  ·  %s", BOLD(v->o), ROCESTAT_VERSION, OFF(v->o), files);
	line(out, width, b);
	g_free(files);
	rs_fmt_ns(cap.have_ts ? cap.last_ts - cap.first_ts : 0, d, sizeof d);
	int n = snprintf(b, sizeof b, "Capture    %" PRIu64 " frame%s, %s, %s; %" PRIu64 " half-flow%s, %" PRIu64
			 " CM connection%s", cap.frames, cap.frames == 1 ? "" : "s", rs_fmt_bytes(cap.bytes, by, sizeof by),
			 d, cap.half_flows, cap.half_flows == 1 ? "" : "s", cap.conns, cap.conns == 1 ? "" : "s");
	if (cap.evicted && n > 0 && (size_t)n < sizeof b)
		snprintf(b + n, sizeof b - (size_t)n, " (%" PRIu64 " half-flows evicted)", cap.evicted);
	line(out, width, b);
}

/* The capture's completeness, and one line per group of findings. */
static void findings(FILE *out, const struct rs_view *v, int width)
{
	char b[1536];
	const char *head = "Findings   ";
	unsigned used = 0;
	const struct rs_psn_totals *t = rs_capture_psns(v->a);
	if (t->missing) {
		struct rs_gaps g = rs_gaps_of_capture(t);
		int k = snprintf(b, sizeof b, "%s%" PRIu64 " of %" PRIu64 " request PSNs in the capture (%.1f%%); %" PRIu64
				 " skipped", head, t->range - g.absent, t->range,
				 100.0 * (double)(t->range - g.absent) / (double)t->range, g.skipped);
		const struct {
			uint64_t n;
			const char *what;
		} part[] = { { g.not_captured, "not captured" }, { g.lost, "lost" }, { g.resent, "re-sent" },
			     { g.reordered, "late" }, { g.undetermined, "undetermined" } };
		const char *sep = ": ";
		for (unsigned i = 0; i < G_N_ELEMENTS(part) && k > 0 && (size_t)k < sizeof b; i++)
			if (part[i].n) {
				k += snprintf(b + k, sizeof b - (size_t)k, "%s%" PRIu64 " %s", sep, part[i].n, part[i].what);
				sep = ", ";
			}
		line(out, width, b);
		head = "           ";
		used++;
	}
	GArray *groups = rs_anomaly_groups(v->a, v->anomalies);
	if (!groups->len) {
		snprintf(b, sizeof b, "%sno anomalies", head);
		line(out, width, b);
	}
	for (guint i = 0; i < groups->len; i++) {
		const struct rs_anom_group *g = &g_array_index(groups, struct rs_anom_group, i);
		if (used == FINDINGS - 1 && i + 1 < groups->len) {
			guint rest = 0;
			for (guint k = i; k < groups->len; k++)
				rest += g_array_index(groups, struct rs_anom_group, k).n;
			snprintf(b, sizeof b, "%s… %u more finding%s in %u group%s (the summary without --brief lists them)",
				 head, rest, rest == 1 ? "" : "s", groups->len - i, groups->len - i == 1 ? "" : "s");
			line(out, width, b);
			break;
		}
		char d[1024];
		if (g->n > 1) {
			rs_group_head(v, g, true, d, sizeof d);
		} else {
			rs_anomaly_describe(v, v->anomalies->pdata[g->idx[0]], d, sizeof d);
		}
		char *safe = rs_escape_ctl(d, false);
		snprintf(b, sizeof b, "%s%s", head, safe);
		g_free(safe);
		line(out, width, b);
		head = "           ";
		used++;
	}
	rs_anomaly_groups_free(groups);
}

/* The queues without CM (recognised by shape or named by --ulp qp:) of a
 * module's row. */
static unsigned no_cm(const struct rs_view *v, unsigned row)
{
	unsigned n = 0;
	for (guint i = 0; i < v->ulp_conns->len; i++) {
		const struct rs_conn *c = v->ulp_conns->pdata[i];
		struct rs_ulp_how how;
		rs_conn_ulp_how(c, &how);
		n += !how.cm && rs_proto_hooks(rs_conn_ulp(c)) == rs_proto_hooks(row);
	}
	return n;
}

/* One line per upper-layer protocol with connections: what its
 * operations came to and its slowest kind at the p99. */
bool rs_brief_slowest(struct rs_proto_brief *b, const struct rs_lat_figures *lat)
{
	if (!lat->n || (b->slowest[0] && lat->p99 <= b->slowest_p99))
		return false;
	b->slowest_p99 = lat->p99;
	b->slowest_n = lat->n;
	return true;
}

static int by_trouble_then_ops(const void *x, const void *y)
{
	const struct rs_proto_brief *a = x, *b = y;
	uint64_t ta = a->failed + a->unanswered, tb = b->failed + b->unanswered;
	if (ta != tb)
		return ta > tb ? -1 : 1;
	if (a->ops != b->ops)
		return a->ops > b->ops ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

/* "failed" in red when there are some. */
static const char *failed_words(const struct rs_view *v, uint64_t n, char *buf, size_t len)
{
	snprintf(buf, len, "%s%" PRIu64 " failed%s", n ? RED(v->o) : "", n, n ? OFF(v->o) : "");
	return buf;
}

/* A module's whole line: its counts before its slowest kind, whose name
 * the width may cut. */
static void protocol_line(FILE *out, const struct rs_view *v, int width, const char *head, const struct rs_proto_brief *b)
{
	char s[512], p99[32], failed[64];
	int k = snprintf(s, sizeof s, "%s%s: %" PRIu64 " %s, %s", head, b->name, b->ops, b->unit,
			 failed_words(v, b->failed, failed, sizeof failed));
	if (b->unanswered && k > 0 && (size_t)k < sizeof s)
		k += snprintf(s + k, sizeof s - (size_t)k, ", %" PRIu64 " unanswered", b->unanswered);
	unsigned shape = no_cm(v, b->row);
	if (shape && k > 0 && (size_t)k < sizeof s)
		k += snprintf(s + k, sizeof s - (size_t)k, ", %u without CM", shape);
	if (b->slowest[0] && k > 0 && (size_t)k < sizeof s)
		snprintf(s + k, sizeof s - (size_t)k, "; slowest %s at p99: %s", rs_fmt_ns(b->slowest_p99, p99, sizeof p99),
			 b->slowest);
	line(out, width, s);
}

/* One line per upper-layer protocol with connections, those with the most
 * failed and unanswered operations first (then the most operations); past
 * PROTOS, the last line names the rest with their counts. */
static void protocols(FILE *out, const struct rs_view *v, int width)
{
	struct rs_proto_brief b[RS_PROTOS_MAX];
	unsigned n = rs_proto_briefs(v, b, RS_PROTOS_MAX);
	if (n > RS_PROTOS_MAX)
		n = RS_PROTOS_MAX;
	qsort(b, n, sizeof b[0], by_trouble_then_ops);
	const char *head = "Protocols  ", *pad = "           ";
	for (unsigned i = 0; i < n && i < PROTOS; i++) {
		if (i < PROTOS - 1 || n <= PROTOS) {
			protocol_line(out, v, width, i ? pad : head, &b[i]);
			continue;
		}
		GString *s = g_string_new(pad);
		g_string_append(s, "also ");
		for (unsigned k = i; k < n; k++) {
			char failed[64];
			g_string_append_printf(s, "%s%s: %" PRIu64 " %s, %s", k > i ? "; " : "", b[k].name, b[k].ops, b[k].unit,
					       failed_words(v, b[k].failed, failed, sizeof failed));
		}
		line(out, width, s->str);
		g_string_free(s, TRUE);
	}
}

/* A flow's trouble in a few words: "221 skipped 3 retx 1 NAK". */
static const char *trouble_words(const struct rs_flow *fl, char *buf, size_t len)
{
	struct rs_flow_info fi;
	rs_flow_get_info(fl, &fi);
	struct rs_stream_info rq, rp;
	rs_flow_stream(fl, false, &rq);
	rs_flow_stream(fl, true, &rp);
	const struct rs_count_word p[] = {
		{ rq.missing + rp.missing, "skipped" }, { fi.retransmitted, "retx" }, { fi.naks, "NAK" },
		{ fi.ecn_ce, "CE" }, { fi.cnps, "CNP" }, { fi.icrc_bad, "ICRC✗" },
	};
	return rs_count_words(p, G_N_ELEMENTS(p), buf, len);
}

static void row(FILE *out, const struct rs_view *v, int width, int lw, const struct rs_flow *fl)
{
	struct rs_flow_info fi;
	rs_flow_get_info(fl, &fi);
	char lbl[200], b[1024], pay[32], w[160];
	rs_flow_label_sep(v->names, fl, " ", lbl, sizeof lbl);
	struct rs_outbuf o;
	rs_outbuf_init(&o, NULL, b, sizeof b);
	RS_OUTBUF_LIT(&o, "  ");
	rs_cell(&o, lbl, lw, false);
	rs_outbuf_putc(&o, ' ');
	rs_outbuf_str(&o, fi.is_cm_qp ? "CM" : fi.transport, -3);
	rs_outbuf_u64(&o, fi.packets, 7);
	rs_outbuf_putc(&o, ' ');
	rs_outbuf_str(&o, rs_fmt_bytes(fi.payload, pay, sizeof pay), 9);
	rs_outbuf_putc(&o, ' ');
	const char *t = trouble_words(fl, w, sizeof w);
	bool bad = t[0] != '-';
	rs_outbuf_putc(&o, ' ');
	rs_outbuf_str(&o, bad ? RED(v->o) : "", 0);
	rs_outbuf_str(&o, t, 0);
	rs_outbuf_str(&o, bad ? OFF(v->o) : "", 0);
	rs_outbuf_putc(&o, '\0');
	line(out, width, b);
}

struct scored {
	const struct rs_flow *fl;
	uint64_t trouble;
	guint order;   /* by bytes: ties stay so */
};

static gint by_trouble(gconstpointer x, gconstpointer y)
{
	const struct scored *a = x, *b = y;
	if (a->trouble != b->trouble)
		return a->trouble > b->trouble ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* The top flows: by bytes (v->flows' order), then by trouble; *worst the
 * one with the most trouble (NULL: none has any). */
static void tops(FILE *out, const struct rs_view *v, int width, const struct rs_flow **busiest,
		 const struct rs_flow **worst)
{
	char b[256];
	snprintf(b, sizeof b, "%sTop QPs by bytes%s", BOLD(v->o), OFF(v->o));
	struct rs_outbuf o;
	char hb[256];
	rs_outbuf_init(&o, out, hb, sizeof hb);
	rs_outbuf_str(&o, b, 0);
	GPtrArray *data = g_ptr_array_new();
	for (guint i = 0; i < v->flows->len; i++) {
		struct rs_flow_info fi;
		rs_flow_get_info(v->flows->pdata[i], &fi);
		if (!fi.is_cm_qp)
			g_ptr_array_add(data, v->flows->pdata[i]);
	}
	/* The TOP with the most trouble, each flow's counted once. */
	struct scored top[TOP];
	unsigned ntop = 0;
	for (guint i = 0; i < data->len; i++) {
		struct scored e = { .fl = data->pdata[i], .trouble = rs_flow_trouble(data->pdata[i]), .order = i };
		if (!e.trouble)
			continue;
		unsigned at = ntop;
		while (at > 0 && by_trouble(&e, &top[at - 1]) < 0)
			at--;
		if (at >= TOP)
			continue;
		unsigned last = ntop < TOP ? ntop : TOP - 1;
		memmove(&top[at + 1], &top[at], (last - at) * sizeof top[0]);
		top[at] = e;
		ntop += ntop < TOP;
	}
	/* The label column as wide as the widest label shown, at most LABEL. */
	int lw = 16;
	for (guint i = 0; i < TOP + ntop; i++) {
		if (i < TOP && i >= data->len)
			continue;
		char lbl[200];
		const struct rs_flow *fl = i < TOP ? data->pdata[i] : top[i - TOP].fl;
		int w = rs_dwidth(rs_flow_label_sep(v->names, fl, " ", lbl, sizeof lbl));
		lw = w > lw ? w : lw;
	}
	lw = lw > LABEL ? LABEL : lw;
	rs_outbuf_spaces(&o, (size_t)(2 + lw - 16 + 4));
	RS_OUTBUF_LIT(&o, "   pkts   payload  trouble\n");
	rs_outbuf_flush(&o);
	*busiest = data->len ? data->pdata[0] : NULL;
	for (guint i = 0; i < data->len && i < TOP; i++)
		row(out, v, width, lw, data->pdata[i]);
	if (!data->len)
		line(out, width, "  none: no data half-flow");
	else if (data->len > TOP) {
		snprintf(b, sizeof b, "  … %u more", data->len - TOP);
		line(out, width, b);
	}
	snprintf(b, sizeof b, "%sTop QPs by trouble%s (PSNs skipped, re-sent, NAKs, CE marks, CNPs, bad ICRCs)",
		 BOLD(v->o), OFF(v->o));
	line(out, width, b);
	*worst = ntop ? top[0].fl : NULL;
	for (unsigned i = 0; i < ntop; i++)
		row(out, v, width, lw, top[i].fl);
	if (!ntop)
		line(out, width, "  none");
	g_ptr_array_free(data, TRUE);
}

/* A command, and what it shows after it when both fit; else the command
 * alone, broken before the files with a backslash (a shell reads it
 * whole). */
static void command(FILE *out, int width, const char *opts, const char *files, const char *what)
{
	char b[2048];
	snprintf(b, sizeof b, "  rocestat %s%s%s", opts, opts[0] ? " " : "", files);
	if (rs_dwidth(b) + 3 + rs_dwidth(what) <= width) {
		char c[2400];
		snprintf(c, sizeof c, "%s   %s", b, what);
		line(out, width, c);
		return;
	}
	if (rs_dwidth(b) <= width) {
		line(out, width, b);
		return;
	}
	snprintf(b, sizeof b, "  rocestat %s%s\\", opts, opts[0] ? " " : "");
	line(out, width, b);
	snprintf(b, sizeof b, "      %s", files);
	line(out, width, b);
}

static void next(FILE *out, const struct rs_view *v, int width, const struct rs_flow *busiest,
		 const struct rs_flow *worst)
{
	char b[256];
	snprintf(b, sizeof b, "%sLook closer%s", BOLD(v->o), OFF(v->o));
	line(out, width, b);
	char *files = files_arg(v->a);
	unsigned n = 0;
	/* --qp picks by QP number, both directions: the busiest half-flow may
	 * be the one with the most trouble's other direction (the same QP
	 * number on both sides), and then one command shows both. */
	int64_t shown = -1;
	if (worst) {
		struct rs_flow_info fi;
		rs_flow_get_info(worst, &fi);
		snprintf(b, sizeof b, "--qp 0x%x", fi.dest_qp);
		command(out, width, b, files, "the QP with the most trouble, alone");
		shown = fi.dest_qp;
		n++;
	}
	struct rs_flow_info bi = { 0 };
	if (busiest)
		rs_flow_get_info(busiest, &bi);
	if (busiest && busiest != worst && bi.dest_qp != shown) {
		snprintf(b, sizeof b, "--qp 0x%x", bi.dest_qp);
		command(out, width, b, files, "the busiest QP, alone");
		n++;
	}
	/* A connection that failed, else the worst QP's connection. */
	const struct rs_conn *pick = NULL;
	for (guint i = 0; i < v->conns->len && !pick; i++) {
		enum rs_conn_state st = rs_conn_state_of(v->conns->pdata[i]);
		if (st == RS_CONN_REJECTED || st == RS_CONN_INCOMPLETE)
			pick = v->conns->pdata[i];
	}
	if (n < NEXT - 1 && pick) {
		snprintf(b, sizeof b, "--conn %" PRIu32, rs_conn_id(pick));
		command(out, width, b, files, "the connection that failed, alone");
		n++;
	}
	command(out, width, "", files, "everything, findings grouped (--full: one by one)");
	g_free(files);
}

void rs_text_brief(FILE *out, const struct rs_view *v)
{
	int width = v->o->width > 0 ? v->o->width : RS_TEXT_MIN_WIDTH;
	const struct rs_flow *busiest, *worst;
	capture_lines(out, v, width);
	findings(out, v, width);
	protocols(out, v, width);
	tops(out, v, width, &busiest, &worst);
	next(out, v, width, busiest, worst);
}
