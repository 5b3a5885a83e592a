/*
 * congestion.c — the "Congestion and QoS" section of the text summary and
 * the "congestion" object of the JSON report, from analyzer/congestion/congestion.h:
 * DSCP and ECN per half-flow, the CNPs each received, and PAUSE/PFC per
 * sender and priority. Both appear only when the capture has something
 * for them (a CE mark, a CNP, ECN-capable RoCE, a pause frame, or --dscp).
 * Half-flows whose every packet had the expected DSCP and ECT(0) and which
 * received no CNP are summed in one line (one object), not listed.
 */
#include <inttypes.h>
#include <string.h>

#include "report/congestion.h"
#include "report/jsonw.h"
#include "report/report.h"
#include "report/text.h"

#define TEXT_FLOWS_MAX 20
/* Without --full: fewer rows, and the pause senders' priorities folded too. */
#define TEXT_FLOWS_FOLDED 8
#define TEXT_PAUSES_MAX 6

static const char *mac_str(const uint8_t *m, char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
	return buf;
}

static const char *const ecn_names[4] = { "Not-ECT", "ECT(1)", "ECT(0)", "CE" };

/* ---- text ------------------------------------------------------------------ */

static int text_dscp_ecn(char *p, size_t len, const struct rs_analyzer *a, const struct rs_flow *fl)
{
	uint8_t v[RS_DSCP_SEEN + 1];
	uint64_t n[RS_DSCP_SEEN + 1], ecn[4];
	unsigned k = rs_flow_dscps(a, fl, v, n, RS_DSCP_SEEN + 1);
	struct rs_flow_info fi;
	rs_flow_get_info(fl, &fi);
	uint64_t data = fi.packets - fi.cnps;
	/* A list is named only when it has members: a half-flow of CNPs alone
	 * has no data packets to list DSCPs or ECN of. */
	if (!data)
		return snprintf(p, len, "no data packets, only CNPs");
	int o = snprintf(p, len, "%" PRIu64 " packet%s", data, data == 1 ? "" : "s");
	for (unsigned i = 0; i < k && o > 0 && (size_t)o < len; i++)
		o += snprintf(p + o, len - (size_t)o, "%s %u ×%" PRIu64, i ? "," : "; DSCP", v[i], n[i]);
	if (fi.dscp_more && o > 0 && (size_t)o < len)
		o += snprintf(p + o, len - (size_t)o, "%s others ×%" PRIu64, k ? "," : "; DSCP", fi.dscp_more);
	rs_flow_ecns(fl, ecn);
	bool any = false;
	for (int i = 0; i < 4 && o > 0 && (size_t)o < len; i++)
		if (ecn[i]) {
			o += snprintf(p + o, len - (size_t)o, "%s %s ×%" PRIu64, any ? "" : "; ECN", ecn_names[i], ecn[i]);
			any = true;
		}
	return o;
}

static void text_cnps(FILE *out, const struct rs_view *v, const struct rs_flow *fl)
{
	struct rs_cnp_stats st;
	rs_cnp_stats(v->a, fl, &st);
	if (!st.cnps)
		return;
	uint64_t exp, other;
	rs_flow_cnp_dscps(fl, &exp, &other);
	char line[640], b1[32], b2[32], b3[32], b4[32];
	int o = snprintf(line, sizeof line, "CNPs received: %" PRIu64 " (%.1f/s over the capture, at most %" PRIu64
			 " in a second", st.cnps, st.per_s, st.peak_1s);
	struct rs_flow_info fi;
	rs_flow_get_info(fl, &fi);
	if (other)
		o += snprintf(line + o, sizeof line - (size_t)o, "; %" PRIu64 " with DSCP %u", other, fi.cnp_dscp);
	o += snprintf(line + o, sizeof line - (size_t)o, ")");
	if (st.gap_n)
		o += snprintf(line + o, sizeof line - (size_t)o, "; apart: min %s, median %s, p99 %s, max %s",
			      rs_fmt_ns(st.gap_min, b1, sizeof b1), rs_fmt_ns(st.gap_med, b2, sizeof b2),
			      rs_fmt_ns(st.gap_p99, b3, sizeof b3), rs_fmt_ns(st.gap_max, b4, sizeof b4));
	if (st.react_n && o > 0 && (size_t)o < sizeof line)
		o += snprintf(line + o, sizeof line - (size_t)o, "; CE mark → CNP (%" PRIu64 "): min %s, median %s, max %s",
			      st.react_n, rs_fmt_ns(st.react_min, b1, sizeof b1), rs_fmt_ns(st.react_med, b2, sizeof b2),
			      rs_fmt_ns(st.react_max, b3, sizeof b3));
	if (st.have_rate && o > 0 && (size_t)o < sizeof line)
		snprintf(line + o, sizeof line - (size_t)o, "; the sender's payload rate %s before the first CNP, %s after",
			 rs_fmt_rate(st.rate_before / 8, b1, sizeof b1), rs_fmt_rate(st.rate_after / 8, b2, sizeof b2));
	rs_para(out, v->o->width, "      ", "        ", line);
}

static void text_pauses(FILE *out, const struct rs_view *v)
{
	struct rs_cong_info ci, *c = &ci;
	rs_cong_get_info(v->a, c);
	if (!c->pause_src->len)
		return;
	char line[512];
	snprintf(line, sizeof line, "Pauses: %" PRIu64 " PFC and %" PRIu64 " PAUSE frames; pause time at %u Gb/s "
		 "(--link-speed)", c->pfc_frames, c->pause_frames, c->link_gbps);
	rs_para(out, v->o->width, "  ", "    ", line);
	/* Past TEXT_PAUSES_MAX senders' priorities: the rest summed (--full: all). */
	unsigned shown = 0, more = 0;
	uint64_t more_frames = 0, more_storms = 0;
	unsigned cap = rs_text_full(v) ? UINT32_MAX : TEXT_PAUSES_MAX;
	for (guint i = 0; i < c->pause_src->len; i++) {
		const struct rs_pause_src *s = g_ptr_array_index(c->pause_src, i);
		for (int p = 0; p < 9; p++) {
			const struct rs_pause_prio *pp = &s->prio[p];
			if (!pp->frames)
				continue;
			if (shown == cap) {
				more++;
				more_frames += pp->frames;
				more_storms += pp->storms;
				continue;
			}
			shown++;
			char mac[24], what[24], b1[32], b2[32];
			if (p == RS_PAUSE_LINK)
				snprintf(what, sizeof what, "PAUSE (all)");
			else
				snprintf(what, sizeof what, "priority %d", p);
			int o = snprintf(line, sizeof line, "%s %s: %" PRIu64 " frame%s (%" PRIu64 " pause, %" PRIu64
					 " release), paused %s, longest %s; first frame %" PRIu64,
					 mac_str(s->mac, mac, sizeof mac), what, pp->frames, pp->frames == 1 ? "" : "s", pp->xoff, pp->xon,
					 rs_fmt_ns(pp->paused_ns, b1, sizeof b1), rs_fmt_ns(pp->longest_ns, b2, sizeof b2),
					 pp->first.frame);
			if (pp->storms && o > 0 && (size_t)o < sizeof line)
				snprintf(line + o, sizeof line - (size_t)o, "; %s%" PRIu64 " pause storm%s%s", RED(v->o),
					 pp->storms, pp->storms == 1 ? "" : "s", OFF(v->o));
			rs_para(out, v->o->width, "  - ", "    ", line);
		}
	}
	if (more) {
		snprintf(line, sizeof line, "… %u more senders' priorities: %" PRIu64 " frames, %s%" PRIu64 " pause storm%s%s "
			 "(--full lists them)", more, more_frames, more_storms ? RED(v->o) : "", more_storms,
			 more_storms == 1 ? "" : "s", more_storms ? OFF(v->o) : "");
		rs_para(out, v->o->width, "  ", "    ", line);
	}
}

/* The half-flows from the i-th on whose one DSCP is d and one ECN
 * codepoint e, n of them, in one line. */
static void text_alike(FILE *out, const struct rs_view *v, guint i, uint8_t d, uint8_t e, guint n)
{
	struct rs_addr src, dst;
	bool one_way = true, one_pair = true;
	uint64_t min = UINT64_MAX, max = 0;
	guint seen = 0;
	for (guint k = i; k < v->flows->len && seen < n; k++) {
		const struct rs_flow *fl = rs_view_flow(v, k);
		uint8_t d2, e2;
		if (!rs_flow_cong_notable(fl) || !rs_flow_cong_plain(v->a, fl, &d2, &e2) || d2 != d || e2 != e)
			continue;
		struct rs_flow_info fi;
		rs_flow_get_info(fl, &fi);
		if (!seen++) {
			src = fi.src;
			dst = fi.dst;
		} else if (!rs_addr_equal(&src, &fi.src) || !rs_addr_equal(&dst, &fi.dst)) {
			one_way = false;
			one_pair = one_pair && rs_addr_equal(&src, &fi.dst) && rs_addr_equal(&dst, &fi.src);
		}
		min = fi.packets < min ? fi.packets : min;
		max = fi.packets > max ? fi.packets : max;
	}
	char h[240], line[400], each[64];
	if (min == max)
		snprintf(each, sizeof each, "%" PRIu64 " packets each", min);
	else
		snprintf(each, sizeof each, "%" PRIu64 "–%" PRIu64 " packets each", min, max);
	if (one_pair)
		rs_text_hosts(v, &src, &dst, one_way, 1, h, sizeof h);
	snprintf(line, sizeof line, "%u half-flows%s%s: DSCP %u and ECN %s on every packet, no CNP; %s (--full lists "
		 "each)", n, one_pair ? " " : "", one_pair ? h : "", d, ecn_names[e], each);
	rs_para(out, v->o->width, "  - ", "    ", line);
}

void rs_text_congestion(FILE *out, const struct rs_view *v)
{
	struct rs_cong_info ci, *c = &ci;
	rs_cong_get_info(v->a, c);
	if (!rs_cong_any(v->a))
		return;
	const struct rs_analyzer_opts *op = rs_analyzer_options(v->a);
	if (op->dscp_data1 && op->dscp_cnp1)
		fprintf(out, "\n%sCongestion and QoS%s (expected DSCP: data %u, CNP %u)\n", BOLD(v->o), OFF(v->o),
			c->dscp_data, c->dscp_cnp);
	else if (op->dscp_data1 || op->dscp_cnp1)
		fprintf(out, "\n%sCongestion and QoS%s (expected DSCP: %s %u)\n", BOLD(v->o), OFF(v->o),
			op->dscp_data1 ? "data" : "CNP", op->dscp_data1 ? c->dscp_data : c->dscp_cnp);
	else
		fprintf(out, "\n%sCongestion and QoS%s (DSCPs not checked: --dscp data=N,cnp=M)\n", BOLD(v->o), OFF(v->o));
	unsigned shown = 0, more = 0;
	uint64_t quiet_flows, quiet_pkts;
	rs_cong_quiet(v->flows, &quiet_flows, &quiet_pkts);
	/* Rows alike (one DSCP, one ECN codepoint, no CNP), RS_GROUP_MIN or
	 * more: one line for them, where the first would be. */
	GHashTable *alike = rs_text_full(v) ? NULL : g_hash_table_new(NULL, NULL);
	for (guint i = 0; alike && i < v->flows->len; i++) {
		uint8_t d, e;
		const struct rs_flow *fl = rs_view_flow(v, i);
		if (rs_flow_cong_notable(fl) && rs_flow_cong_plain(v->a, fl, &d, &e)) {
			gpointer k = GUINT_TO_POINTER(1u + ((unsigned)d << 8 | e));
			g_hash_table_insert(alike, k, GUINT_TO_POINTER(GPOINTER_TO_UINT(g_hash_table_lookup(alike, k)) + 1));
		}
	}
	for (guint i = 0; i < v->flows->len; i++) {
		const struct rs_flow *fl = rs_view_flow(v, i);
		if (!rs_flow_cong_notable(fl))
			continue;
		uint8_t d, e;
		if (alike && rs_flow_cong_plain(v->a, fl, &d, &e)) {
			gpointer k = GUINT_TO_POINTER(1u + ((unsigned)d << 8 | e));
			guint n = GPOINTER_TO_UINT(g_hash_table_lookup(alike, k));
			if (n >= RS_GROUP_MIN) {
				text_alike(out, v, i, d, e, n);
				g_hash_table_replace(alike, k, GUINT_TO_POINTER(0)); /* said */
				continue;
			}
			if (n == 0)
				continue;
		}
		if (shown == (rs_text_full(v) ? TEXT_FLOWS_MAX : TEXT_FLOWS_FOLDED)) {
			more++;
			continue;
		}
		shown++;
		char lbl[200], line[800];
		int o = snprintf(line, sizeof line, "%s: ", rs_flow_label(v->names, fl, lbl, sizeof lbl));
		if (o > 0 && (size_t)o < sizeof line)
			text_dscp_ecn(line + o, sizeof line - (size_t)o, v->a, fl);
		rs_para(out, v->o->width, "  - ", "    ", line);
		text_cnps(out, v, fl);
	}
	if (alike)
		g_hash_table_destroy(alike);
	if (more && rs_text_full(v))
		fprintf(out, "  … %u more half-flows (--format json lists them all)\n", more);
	else if (more)
		fprintf(out, "  … %u more half-flows (--full lists %u more, --format json all)\n", more,
			more < TEXT_FLOWS_MAX - TEXT_FLOWS_FOLDED ? more : TEXT_FLOWS_MAX - TEXT_FLOWS_FOLDED);
	if (quiet_flows) {
		char line[200];
		snprintf(line, sizeof line, "%" PRIu64 " other RoCE v2 half-flow%s (%" PRIu64 " packets): DSCP %u and "
			 "ECT(0) throughout, no CNP", quiet_flows, quiet_flows == 1 ? "" : "s", quiet_pkts, c->dscp_data);
		rs_para(out, v->o->width, "  ", "    ", line);
	}
	text_pauses(out, v);
}

/* ---- JSON ------------------------------------------------------------------ */

/* A distribution's count and min, median, (p99,) max: null when there is
 * none (a value not known is null, as everywhere in the JSON). */
static void dist(struct rs_json *j, const char *key, uint64_t n, const uint64_t v[4], bool p99)
{
	static const char *const names[4] = { "min", "median", "p99", "max" };
	rs_json_obj(j, key);
	rs_json_u64(j, "count", n);
	for (int k = 0; k < 4; k++) {
		if (k == 2 && !p99)
			continue;
		if (n)
			rs_json_u64(j, names[k], v[k]);
		else
			rs_json_null(j, names[k]);
	}
	rs_json_end_obj(j);
}

static void json_flow(struct rs_json *j, const struct rs_analyzer *a, const struct rs_flow *fl)
{
	char s[RS_ADDR_STRLEN], d[RS_ADDR_STRLEN], k[8];
	struct rs_flow_info fi;
	rs_flow_get_info(fl, &fi);
	rs_json_obj(j, NULL);
	rs_json_str(j, "src", rs_addr_format(&fi.src, s));
	rs_json_str(j, "dst", rs_addr_format(&fi.dst, d));
	rs_json_u64(j, "dest_qp", fi.dest_qp);
	rs_json_u64(j, "packets", fi.packets - fi.cnps);
	uint8_t v[RS_DSCP_SEEN + 1];
	uint64_t n[RS_DSCP_SEEN + 1], ecn[4];
	unsigned nd = rs_flow_dscps(a, fl, v, n, RS_DSCP_SEEN + 1);
	rs_json_obj(j, "dscp");
	for (unsigned i = 0; i < nd; i++) {
		snprintf(k, sizeof k, "%u", v[i]);
		rs_json_u64(j, k, n[i]);
	}
	rs_json_end_obj(j);
	rs_json_u64(j, "dscp_other", fi.dscp_more);
	rs_flow_ecns(fl, ecn);
	rs_json_obj(j, "ecn");
	static const char *const keys[4] = { "not_ect", "ect1", "ect0", "ce" };
	for (int i = 0; i < 4; i++)
		rs_json_u64(j, keys[i], ecn[i]);
	rs_json_end_obj(j);
	struct rs_cnp_stats st;
	rs_cnp_stats(a, fl, &st);
	rs_json_u64(j, "cnps", st.cnps);
	uint64_t exp, other;
	rs_flow_cnp_dscps(fl, &exp, &other);
	rs_json_obj(j, "cnp_dscp");
	if (exp) {
		struct rs_cong_info ci;
		rs_cong_get_info(a, &ci);
		snprintf(k, sizeof k, "%u", ci.dscp_cnp);
		rs_json_u64(j, k, exp);
	}
	if (other) {
		snprintf(k, sizeof k, "%u", fi.cnp_dscp);
		rs_json_u64(j, k, other);
	}
	rs_json_end_obj(j);
	if (!st.cnps) {
		rs_json_null(j, "cnp");
		rs_json_end_obj(j);
		return;
	}
	rs_json_obj(j, "cnp");
	rs_json_dbl(j, "per_s", st.per_s);
	rs_json_u64(j, "peak_per_s", st.peak_1s);
	const uint64_t gaps[] = { st.gap_min, st.gap_med, st.gap_p99, st.gap_max };
	dist(j, "interval_ns", st.gap_n, gaps, true);
	const uint64_t reacts[] = { st.react_min, st.react_med, 0, st.react_max };
	dist(j, "ce_to_cnp_ns", st.react_n, reacts, false);
	if (st.have_rate) {
		rs_json_obj(j, "sender_rate_bps");
		rs_json_dbl(j, "before", st.rate_before);
		rs_json_dbl(j, "after", st.rate_after);
		rs_json_end_obj(j);
	} else {
		rs_json_null(j, "sender_rate_bps");
	}
	rs_json_end_obj(j);
	rs_json_end_obj(j);
}

static void json_pauses(struct rs_json *j, const struct rs_analyzer *a)
{
	struct rs_cong_info ci, *c = &ci;
	rs_cong_get_info(a, c);
	rs_json_arr(j, "pauses");
	for (guint i = 0; i < c->pause_src->len; i++) {
		const struct rs_pause_src *s = g_ptr_array_index(c->pause_src, i);
		for (int p = 0; p < 9; p++) {
			const struct rs_pause_prio *pp = &s->prio[p];
			if (!pp->frames)
				continue;
			char mac[24];
			rs_json_obj(j, NULL);
			rs_json_str(j, "sender", mac_str(s->mac, mac, sizeof mac));
			rs_json_str(j, "kind", p == RS_PAUSE_LINK ? "pause" : "pfc");
			if (p == RS_PAUSE_LINK)
				rs_json_null(j, "priority");
			else
				rs_json_u64(j, "priority", (uint64_t)p);
			rs_json_u64(j, "frames", pp->frames);
			rs_json_u64(j, "pause_frames", pp->xoff);
			rs_json_u64(j, "release_frames", pp->xon);
			rs_json_u64(j, "quanta", pp->quanta);
			rs_json_u64(j, "paused_ns", pp->paused_ns);
			rs_json_u64(j, "longest_ns", pp->longest_ns);
			rs_json_u64(j, "storms", pp->storms);
			rs_json_u64(j, "first_frame", pp->first.frame);
			rs_json_end_obj(j);
		}
	}
	rs_json_end_arr(j);
}

void rs_json_congestion(struct rs_json *j, const struct rs_view *v)
{
	const struct rs_analyzer *a = v->a;
	struct rs_cong_info ci, *c = &ci;
	rs_cong_get_info(a, c);
	if (!rs_cong_any(a))
		return;
	rs_json_obj(j, "congestion");
	rs_json_obj(j, "expected_dscp");
	rs_json_u64(j, "data", c->dscp_data);
	rs_json_u64(j, "cnp", c->dscp_cnp);
	rs_json_bool(j, "given", c->dscp_given);
	rs_json_end_obj(j);
	rs_json_bool(j, "ecn_in_use", c->ecn_used);
	rs_json_u64(j, "link_speed_gbps", c->link_gbps);
	if (c->cnp_given)
		rs_json_u64(j, "cnp_threshold_per_s", c->cnp_threshold);
	else
		rs_json_null(j, "cnp_threshold_per_s");
	struct rs_capture_info cap;
	rs_capture_get_info(a, &cap);
	rs_json_u64(j, "cnps", cap.cnps);
	rs_json_u64(j, "ecn_ce", cap.ecn_ce);
	uint64_t quiet_flows, quiet_pkts;
	rs_cong_quiet(v->flows, &quiet_flows, &quiet_pkts);
	rs_json_arr(j, "half_flows");
	for (guint i = 0; i < v->flows->len; i++) {
		const struct rs_flow *fl = rs_view_flow(v, i);
		if (rs_flow_cong_notable(fl))
			json_flow(j, a, fl);
	}
	rs_json_end_arr(j);
	rs_json_obj(j, "other_half_flows");
	rs_json_u64(j, "count", quiet_flows);
	rs_json_u64(j, "packets", quiet_pkts);
	rs_json_end_obj(j);
	rs_json_u64(j, "pfc_frames", c->pfc_frames);
	rs_json_u64(j, "pause_frames", c->pause_frames);
	json_pauses(j, a);
	rs_json_end_obj(j);
}

/* ---- the timeline CSV and the plot ------------------------------------------ */

void rs_tlcsv_pauses(struct rs_tlcsv *w, const struct rs_analyzer *a)
{
	struct rs_cong_info ci, *c = &ci;
	rs_cong_get_info(a, c);
	struct rs_capture_info cap;
	rs_capture_get_info(a, &cap);
	uint64_t iv = rs_analyzer_options(a)->interval_ns, t0 = cap.t0;
	if (!w || !iv)
		return;
	for (guint i = 0; i < c->pause_src->len; i++) {
		const struct rs_pause_src *s = g_ptr_array_index(c->pause_src, i);
		char mac[24];
		mac_str(s->mac, mac, sizeof mac);
		for (int p = 0; p < 9; p++) {
			const GArray *sp = s->prio[p].spans;
			uint64_t cur = UINT64_MAX, acc = 0; /* the interval being summed, its paused time */
			for (guint k = 0; sp && k < sp->len; k++) {
				const struct rs_pause_span *x = &g_array_index(sp, struct rs_pause_span, k);
				uint64_t t = x->start > t0 ? x->start - t0 : 0, end = x->end > t0 ? x->end - t0 : 0;
				while (t < end) {
					uint64_t n = t / iv, stop = MIN(end, (n + 1) * iv);
					if (n != cur && cur != UINT64_MAX)
						rs_tlcsv_pause_row(w, cur * iv, t0 + cur * iv, mac, p == RS_PAUSE_LINK ? -1 : p, acc);
					if (n != cur)
						acc = 0;
					cur = n;
					acc += stop - t;
					t = stop;
				}
			}
			if (cur != UINT64_MAX)
				rs_tlcsv_pause_row(w, cur * iv, t0 + cur * iv, mac, p == RS_PAUSE_LINK ? -1 : p, acc);
		}
	}
}

void rs_svg_pause_spans(FILE *out, const struct rs_analyzer *a, double x0, double y0, double pw, double ph,
			double xtop)
{
	struct rs_cong_info ci, *c = &ci;
	rs_cong_get_info(a, c);
	struct rs_capture_info cap;
	rs_capture_get_info(a, &cap);
	bool any = false;
	for (guint i = 0; i < c->pause_src->len; i++) {
		const struct rs_pause_src *s = g_ptr_array_index(c->pause_src, i);
		char mac[24];
		mac_str(s->mac, mac, sizeof mac);
		for (int p = 0; p < 9; p++) {
			const GArray *sp = s->prio[p].spans;
			double from = -1, to = -1;
			/* Spans closer than a pixel drawn as one band: a storm of
			 * thousands of pause frames stays a few rectangles. */
			for (guint k = 0; sp && k <= sp->len; k++) {
				double a0 = 0, a1 = 0;
				if (k < sp->len) {
					const struct rs_pause_span *x = &g_array_index(sp, struct rs_pause_span, k);
					a0 = x0 + (double)(x->start - cap.first_ts) / 1e9 / xtop * pw;
					a1 = x0 + (double)(x->end - cap.first_ts) / 1e9 / xtop * pw;
					if (from >= 0 && a0 <= to + 1) {
						to = a1 > to ? a1 : to;
						continue;
					}
				}
				if (from >= 0) {
					char what[40];
					snprintf(what, sizeof what, p == RS_PAUSE_LINK ? "PAUSE (all priorities)" : "PFC priority %d", p);
					fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#ff9900\" "
						"fill-opacity=\"0.25\"><title>%s %s paused</title></rect>\n", from, y0,
						MIN(to, x0 + pw) - from > 0.5 ? MIN(to, x0 + pw) - from : 0.5, ph, mac, what);
					any = true;
				}
				from = a0;
				to = a1;
			}
		}
	}
	if (any)
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#b36b00\" text-anchor=\"end\">shaded: links paused "
			"(PAUSE/PFC)</text>\n", x0 + pw, y0 - 6);
}
