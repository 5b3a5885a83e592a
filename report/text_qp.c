/*
 * text_qp.c — the queue-pair table and the latency table of the text
 * summary, laid out for the width asked for.
 *
 * Unlimited, or wide enough, the table has every column (159 characters).
 * Narrower, the problem counts become one column naming the non-zero ones
 * ("1973 retx 22 NAK"), the columns are as wide as their contents, and the
 * least needed go first: pairing, then the peak rate, the messages and the
 * average rate; a label too long for its column gets a line of its own.
 */
#include <inttypes.h>
#include <string.h>

#include "report/text.h"

/* The widths of the flows' cells, from the first SAMPLE rows (the largest
 * flows: the table is by bytes); a later, wider cell is cut. */
#define SAMPLE 4096
#define FULL_WIDTH 159
/* More rows than QP_ROWS_MAX: the first QP_ROWS_FOLDED, the rest summed
 * (--full: all); the same for the latency table's half-flows. */
#define QP_ROWS_MAX 20
#define QP_ROWS_FOLDED 12
#define LAT_FLOWS_MAX 6
#define LAT_FLOWS_FOLDED 4

struct qp_cols {
	int label, pkts, payload, msgs, problems;
	bool pairing, peak, messages, avg;
	GHashTable *dups;         /* labels two rows share (a capture replayed): those rows name their connection */
};

/* "192.0.2.2 → 192.0.2.1 0x11", and " #1" (its CM connection, as the
 * connections table numbers them) when another row has the same label. */
static const char *row_label(const struct rs_view *v, const struct qp_cols *c, const struct rs_flow *fl, char *buf,
			     size_t len)
{
	rs_flow_label_sep(v->names, fl, " ", buf, len);
	if (!c->dups || !g_hash_table_contains(c->dups, buf))
		return buf;
	struct rs_flow_info fi;
	rs_flow_get_info(fl, &fi);
	size_t n = strlen(buf);
	if (fi.conn)
		snprintf(buf + n, len - n, " #%" PRIu32, rs_conn_id(fi.conn));
	else
		snprintf(buf + n, len - n, " #-");
	return buf;
}

/* The labels more than one row has; NULL if none. */
static GHashTable *shared_labels(const struct rs_view *v)
{
	GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL), *dups = NULL;
	for (guint i = 0; i < v->flows->len; i++) {
		char b[192];
		rs_flow_label_sep(v->names, v->flows->pdata[i], " ", b, sizeof b);
		if (!g_hash_table_add(seen, g_strdup(b))) {
			if (!dups)
				dups = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
			g_hash_table_add(dups, g_strdup(b));
		}
	}
	g_hash_table_destroy(seen);
	return dups;
}

const char *rs_count_words(const struct rs_count_word *p, size_t n, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && o < len; i++)
		if (p[i].n) {
			int k = snprintf(buf + o, len - o, "%s%" PRIu64 " %s", o ? " " : "", p[i].n, p[i].what);
			o += k > 0 ? (size_t)k : 0;
		}
	if (!o)
		snprintf(buf, len, "-");
	return buf;
}

/* The non-zero problem counts of a flow, e.g. "1973 retx 22 NAK"; "-" if none. */
static const char *problems(const struct rs_flow_info *r, char *buf, size_t len)
{
	const struct rs_count_word p[] = {
		{ r->retransmitted, "retx" }, { r->naks, "NAK" },  { r->rnr_naks, "RNR" },
		{ r->ecn_ce, "CE" },          { r->cnps, "CNP" },  { r->icrc_bad, "ICRC✗" },
	};
	return rs_count_words(p, G_N_ELEMENTS(p), buf, len);
}

/* A rate in bytes per second, or bits with --bits. */
static const char *qp_rate(const struct rs_report_opts *o, double Bps, char *buf, size_t len)
{
	if (Bps < 0)
		return "-";
	return o->bits ? rs_fmt_bitrate(Bps, buf, len) : rs_fmt_rate(Bps, buf, len);
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

static void measure(const struct rs_view *v, struct qp_cols *c)
{
	c->label = (int)strlen("src → dst  QP") - 2;
	c->pkts = 4;
	c->payload = 7;
	c->msgs = 8;
	c->problems = 8;
	for (guint i = 0; i < v->flows->len && i < SAMPLE; i++) {
		const struct rs_flow *fl = v->flows->pdata[i];
		struct rs_flow_info fi;
		struct rs_flow_msgs mb;
		rs_flow_get_info(fl, &fi);
		char b[192];
		c->label = max_int(c->label, rs_dwidth(row_label(v, c, fl, b, sizeof b)));
		c->pkts = max_int(c->pkts, snprintf(b, sizeof b, "%" PRIu64, fi.packets));
		c->payload = max_int(c->payload, rs_dwidth(rs_fmt_bytes(fi.payload, b, sizeof b)));
		c->msgs = max_int(c->msgs, rs_dwidth(rs_fmt_msgs(rs_flow_messages(fl, &mb)->msgs, b, sizeof b)));
		c->problems = max_int(c->problems, rs_dwidth(problems(&fi, b, sizeof b)));
	}
	if (c->msgs > 24)
		c->msgs = 24;
	if (c->problems > 32)
		c->problems = 32;
}

/* Which columns fit `width`; the label may be narrowed to 24 characters
 * (longer labels then take a line of their own). */
static void choose(struct qp_cols *c, int width)
{
	const int avg = 11, peak = 11, pairing = 9, tr = 4;
	int fixed = 2 + tr + 1 + c->pkts + 2 + c->payload + 2 + 1 + c->problems;
	int label = c->label + 1;
	if (fixed + label > width)
		label = max_int(24, width - fixed) + 1;
	c->label = label - 1;
	int used = fixed + label;
	c->avg = used + avg + 1 <= width;
	used += c->avg ? avg + 1 : 0;
	c->messages = c->avg && used + c->msgs + 2 <= width;
	used += c->messages ? c->msgs + 2 : 0;
	c->peak = c->messages && used + peak + 1 <= width;
	used += c->peak ? peak + 1 : 0;
	c->pairing = c->peak && used + pairing <= width;
}

static void header(FILE *out, const struct qp_cols *c)
{
	char b[256];
	struct rs_outbuf o;
	rs_outbuf_init(&o, out, b, sizeof b);
	RS_OUTBUF_LIT(&o, "  ");
	rs_cell(&o, "src → dst  QP", c->label, false);
	RS_OUTBUF_LIT(&o, " tr  ");
	if (c->pairing)
		RS_OUTBUF_LIT(&o, "pairing  ");
	rs_cell(&o, "pkts", c->pkts, true);
	RS_OUTBUF_LIT(&o, "  ");
	rs_cell(&o, "payload", c->payload, true);
	RS_OUTBUF_LIT(&o, "  ");
	if (c->messages) {
		rs_cell(&o, "messages", c->msgs, false);
		RS_OUTBUF_LIT(&o, "  ");
	}
	if (c->avg)
		rs_cell(&o, "avg rate ", 11, true);
	if (c->peak)
		rs_cell(&o, "peak rate ", 11, true);
	RS_OUTBUF_LIT(&o, " problems\n");
	rs_outbuf_flush(&o);
}

static void narrow_row(struct rs_outbuf *r, const struct rs_view *v, const struct qp_cols *c, const struct rs_flow *fl)
{
	const struct rs_analyzer *a = v->a;
	struct rs_flow_info fi;
	struct rs_flow_msgs mb;
	rs_flow_get_info(fl, &fi);
	char lbl[192], b[64];
	row_label(v, c, fl, lbl, sizeof lbl);
	RS_OUTBUF_LIT(r, "  ");
	if (rs_dwidth(lbl) > c->label) {
		rs_outbuf_str(r, lbl, 0); /* whole, on a line of its own */
		RS_OUTBUF_LIT(r, "\n  ");
		rs_outbuf_spaces(r, (size_t)c->label);
	} else {
		rs_cell(r, lbl, c->label, false);
	}
	rs_outbuf_putc(r, ' ');
	rs_outbuf_str(r, fi.is_cm_qp ? (fi.dest_qp ? "CM" : "SMI") : fi.transport, -3);
	rs_outbuf_putc(r, ' ');
	if (c->pairing)
		rs_outbuf_str(r, fi.is_cm_qp ? "" : rs_flow_pairing(fl), -9);
	rs_outbuf_u64(r, fi.packets, c->pkts);
	RS_OUTBUF_LIT(r, "  ");
	rs_cell(r, rs_fmt_bytes(fi.payload, b, sizeof b), c->payload, true);
	RS_OUTBUF_LIT(r, "  ");
	if (c->messages) {
		rs_cell(r, rs_fmt_msgs(rs_flow_messages(fl, &mb)->msgs, b, sizeof b), c->msgs, false);
		RS_OUTBUF_LIT(r, "  ");
	}
	if (c->avg) {
		rs_cell(r, qp_rate(v->o, rs_flow_avg_Bps(fl), b, sizeof b), 10, true);
		rs_outbuf_putc(r, ' ');
	}
	if (c->peak) {
		rs_cell(r, qp_rate(v->o, rs_flow_peak_Bps(fl, rs_analyzer_options(a)->interval_ns), b, sizeof b), 10, true);
		rs_outbuf_putc(r, ' ');
	}
	const char *pr = problems(&fi, b, sizeof b);
	bool bad = pr[0] != '-';
	rs_outbuf_putc(r, ' ');
	rs_outbuf_str(r, bad ? RED(v->o) : "", 0);
	if (rs_dwidth(pr) > c->problems)
		rs_cell(r, pr, c->problems, false);
	else
		rs_outbuf_str(r, pr, 0); /* the last column: no padding after it */
	rs_outbuf_str(r, bad ? OFF(v->o) : "", 0);
	rs_outbuf_putc(r, '\n');
}

/* A problem count, red when there is one. */
static void count_cell(struct rs_outbuf *r, const struct rs_report_opts *o, uint64_t n, int width)
{
	rs_outbuf_putc(r, ' ');
	rs_outbuf_str(r, n ? RED(o) : "", 0);
	rs_outbuf_u64(r, n, width);
	rs_outbuf_str(r, n ? OFF(o) : "", 0);
}

static void full_row(struct rs_outbuf *r, const struct rs_view *v, const struct qp_cols *c, const struct rs_flow *fl,
		     int label)
{
	const struct rs_analyzer *a = v->a;
	struct rs_flow_info fi;
	struct rs_flow_msgs mb;
	rs_flow_get_info(fl, &fi);
	char lbl[192], pay[24], msgs[96], r1[24], r2[24];
	row_label(v, c, fl, lbl, sizeof lbl);
	rs_fmt_msgs(rs_flow_messages(fl, &mb)->msgs, msgs, sizeof msgs);
	RS_OUTBUF_LIT(r, "  ");
	rs_cell(r, lbl, label, false);
	rs_outbuf_putc(r, ' ');
	rs_outbuf_str(r, fi.is_cm_qp ? (fi.dest_qp ? "CM" : "SMI") : fi.transport, -4);
	rs_outbuf_putc(r, ' ');
	rs_outbuf_str(r, fi.is_cm_qp ? "" : rs_flow_pairing(fl), -8);
	rs_outbuf_putc(r, ' ');
	rs_outbuf_u64(r, fi.packets, 7);
	rs_outbuf_putc(r, ' ');
	rs_outbuf_str(r, rs_fmt_bytes(fi.payload, pay, sizeof pay), 10);
	RS_OUTBUF_LIT(r, "  ");
	rs_cell(r, msgs, 24, false);
	rs_outbuf_putc(r, ' ');
	rs_outbuf_str(r, qp_rate(v->o, rs_flow_avg_Bps(fl), r1, sizeof r1), 11);
	rs_outbuf_putc(r, ' ');
	rs_outbuf_str(r, qp_rate(v->o, rs_flow_peak_Bps(fl, rs_analyzer_options(a)->interval_ns), r2, sizeof r2), 11);
	count_cell(r, v->o, fi.retransmitted, 5);
	count_cell(r, v->o, fi.naks, 4);
	count_cell(r, v->o, fi.rnr_naks, 4);
	count_cell(r, v->o, fi.ecn_ce, 4);
	count_cell(r, v->o, fi.cnps, 4);
	count_cell(r, v->o, fi.icrc_bad, 5);
	rs_outbuf_putc(r, '\n');
}

/* The rows past the first `from`, summed on one line. */
static void folded_rows(FILE *out, const struct rs_view *v, guint from)
{
	struct rs_flow_info sum = { .packets = 0 };
	for (guint i = from; i < v->flows->len; i++) {
		struct rs_flow_info fi;
		rs_flow_get_info(rs_view_flow(v, i), &fi);
		sum.packets += fi.packets;
		sum.payload += fi.payload;
		sum.retransmitted += fi.retransmitted;
		sum.naks += fi.naks;
		sum.rnr_naks += fi.rnr_naks;
		sum.ecn_ce += fi.ecn_ce;
		sum.cnps += fi.cnps;
		sum.icrc_bad += fi.icrc_bad;
	}
	char line[320], pay[32], pr[160];
	snprintf(line, sizeof line, "… %u more half-flows, smaller: %" PRIu64 " packets, %s payload, problems: %s "
		 "(--full lists them)", v->flows->len - from, sum.packets, rs_fmt_bytes(sum.payload, pay, sizeof pay),
		 strcmp(problems(&sum, pr, sizeof pr), "-") ? pr : "none");
	rs_para(out, v->o->width, "  ", "    ", line);
}

void rs_text_qps(FILE *out, const struct rs_view *v)
{
	const struct rs_analyzer *a = v->a;
	if (!v->flows->len)
		return;
	int width = v->o->width;
	fprintf(out, "\n%sQueue pairs%s (by bytes; payload counts each PSN once)\n", BOLD(v->o), OFF(v->o));
	/* Unlimited: every column, labels in 42 characters, as always. A
	 * width that takes every column and the longest label: the same,
	 * with the label column as wide as its longest. */
	struct qp_cols c = { .dups = shared_labels(v) };
	int label = 42;
	bool full = width <= 0;
	if (!full) {
		measure(v, &c);
		label = max_int(42, c.label);
		full = width >= FULL_WIDTH - 42 + label;
	}
	if (full) {
		char hb[256];
		struct rs_outbuf h;
		rs_outbuf_init(&h, out, hb, sizeof hb);
		RS_OUTBUF_LIT(&h, "  ");
		rs_cell(&h, "src → dst  QP", label, false);
		rs_outbuf_flush(&h);
		fprintf(out, " %-4s %-8s %7s %10s  %-24s %11s %11s %5s %4s %4s %4s %4s %5s\n", "tr", "pairing", "pkts",
			"payload", "messages", "avg rate", "peak rate", "retx", "NAK", "RNR", "CE", "CNP", "ICRC✗");
	} else {
		choose(&c, width);
		header(out, &c);
	}
	/* The rows' fields go through a small buffer, not fprintf: parsing its
	 * formats was most of a report with a million QPs. */
	char rb[640];
	struct rs_outbuf r;
	rs_outbuf_init(&r, out, rb, sizeof rb);
	guint rows = v->flows->len;
	if (!rs_text_full(v) && rows > QP_ROWS_MAX)
		rows = QP_ROWS_FOLDED;
	for (guint i = 0; i < rows; i++) {
		const struct rs_flow *fl = rs_view_flow(v, i);
		if (full)
			full_row(&r, v, &c, fl, label);
		else
			narrow_row(&r, v, &c, fl);
		rs_outbuf_flush(&r);
	}
	if (rows < v->flows->len)
		folded_rows(out, v, rows);
	if (c.dups)
		g_hash_table_destroy(c.dups);
	struct rs_capture_info cap;
	rs_capture_get_info(a, &cap);
	if (cap.evicted) {
		char line[160];
		snprintf(line, sizeof line, "(%" PRIu64 " evicted half-flows: %" PRIu64 " packets, %" PRIu64 " payload bytes)",
			 cap.evicted, cap.evicted_packets, cap.evicted_payload);
		rs_para(out, width, "  ", "   ", line);
	}
}

/* AckReq requests left out because the capture cannot tell which answer
 * was their first (analyzer/transport/psn.c). */
static void untimed_order(FILE *out, int width, const struct rs_latency_info *r)
{
	char k[240];
	if (r->acked_before_seen) {
		snprintf(k, sizeof k, "not timed: %" PRIu64 " request%s acknowledged before %s in the capture "
			 "(the sniffer wrote the answer first: which answer was the first is unknown)",
			 r->acked_before_seen, r->acked_before_seen == 1 ? "" : "s",
			 r->acked_before_seen == 1 ? "it is" : "they are");
		rs_para(out, width, "    ", "    ", k);
	}
	if (r->acked_across_gap) {
		snprintf(k, sizeof k, "not timed: %" PRIu64 " request%s whose first answer in the capture also "
			 "acknowledges requests not captured before it (an earlier answer may be missing too)",
			 r->acked_across_gap, r->acked_across_gap == 1 ? "" : "s");
		rs_para(out, width, "    ", "    ", k);
	}
}

static void lat_row(struct rs_outbuf *r, const char *what, int label, const struct rs_lat_figures *l)
{
	char t[24];
	RS_OUTBUF_LIT(r, "    ");
	rs_cell(r, what, label, false);
	rs_cell(r, rs_fmt_ns(l->min, t, sizeof t), 10, true);
	rs_outbuf_putc(r, ' ');
	rs_cell(r, rs_fmt_ns(l->median, t, sizeof t), 10, true);
	rs_outbuf_putc(r, ' ');
	rs_cell(r, rs_fmt_ns(l->p99, t, sizeof t), 10, true);
	rs_outbuf_putc(r, ' ');
	rs_cell(r, rs_fmt_ns(l->max, t, sizeof t), 10, true);
	rs_outbuf_putc(r, ' ');
	rs_outbuf_u64(r, l->n, 8);
	rs_outbuf_putc(r, '\n');
}

/* The requests of a UD conversation with replies paired (by order). */
static bool ud_timed(const struct rs_view *v, const struct rs_flow *fl, struct rs_ud_conv_info *u)
{
	return rs_flow_ud_conv(v->a, fl, u) && u->requester && u->pairs;
}

/* UD has no ACK: what the pairing by order left out, said as such. */
static void ud_unpaired(FILE *out, int width, const struct rs_ud_conv_info *u)
{
	char k[320];
	snprintf(k, sizeof k, "paired by order: a reply right after its request and at the same count into both "
		 "PSN streams; %" PRIu64 " of %" PRIu64 " requests not paired (a lost reply leaves its request "
		 "unpaired)%s", u->requests - u->pairs, u->requests, u->refused ? ", some replies next to a request "
		 "at another count" : "");
	rs_para(out, width, "    ", "    ", k);
}

/* The latency table: a line per flow, a row per kind of sample. Its label
 * column narrows to the width (4 + label + 52 of numbers). */
void rs_text_latency(FILE *out, const struct rs_view *v)
{
	int width = v->o->width, label = 38;
	if (width > 0 && 4 + label + 52 > width)
		label = max_int(20, width - 4 - 52);
	bool header = false;
	unsigned timed = 0, shown = 0;
	for (guint i = 0; i < v->flows->len && !rs_text_full(v); i++) {
		struct rs_latency_info li;
		struct rs_ud_conv_info u;
		rs_flow_latency(rs_view_flow(v, i), &li);
		timed += li.requester ? li.any || li.karn || li.acked_before_seen || li.acked_across_gap
				      : ud_timed(v, rs_view_flow(v, i), &u);
	}
	unsigned limit = timed > LAT_FLOWS_MAX ? LAT_FLOWS_FOLDED : timed;
	for (guint i = 0; i < v->flows->len; i++) {
		const struct rs_flow *fl = rs_view_flow(v, i);
		struct rs_latency_info li;
		rs_flow_latency(fl, &li);
		struct rs_ud_conv_info u;
		bool ud = !li.requester && ud_timed(v, fl, &u);
		if (!li.requester && !ud)
			continue;
		if (!ud && !li.any && !li.karn && !li.acked_before_seen && !li.acked_across_gap)
			continue;
		if (!rs_text_full(v) && shown++ == limit) {
			char line[160];
			snprintf(line, sizeof line, "… %u more half-flows, smaller (--full lists them; --qp QPN one)",
				 timed - limit);
			rs_para(out, width, "  ", "    ", line);
			break;
		}
		if (!header) {
			fprintf(out, "\n%sLatency%s (seen at the capture point)", BOLD(v->o), OFF(v->o));
			if (label == 38)
				fprintf(out, "%*s", 7, "");
			else
				fprintf(out, "\n%*s", 4 + label, "");
			fprintf(out, "%10s %10s %10s %10s %8s\n", "min", "median", "p99", "max", "samples");
			header = true;
		}
		char lbl[200], rb[256];
		rs_para(out, width, "  ", "    ", rs_flow_label(v->names, fl, lbl, sizeof lbl));
		struct rs_outbuf r;
		rs_outbuf_init(&r, out, rb, sizeof rb);
		if (ud) {
			lat_row(&r, "UD SEND → reply", label, &u.lat);
			rs_outbuf_flush(&r);
			ud_unpaired(out, width, &u);
			continue;
		}
		for (int k = 0; k < RS_LAT__COUNT; k++) {
			const struct rs_lat_figures *l = &li.kind[k];
			if (l->n)
				lat_row(&r, rs_lat_label((enum rs_lat_kind)k), label, l);
		}
		rs_outbuf_flush(&r);
		uint64_t karn = li.karn;
		if (karn) {
			char k[160];
			snprintf(k, sizeof k, "not timed: %" PRIu64 " answer%s to requests re-sent before the answer came "
				 "(Karn's rule: which sending it answers is unknown)", karn, karn == 1 ? "" : "s");
			rs_para(out, width, "    ", "    ", k);
		}
		untimed_order(out, width, &li);
	}
}
