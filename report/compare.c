/*
 * compare.c — the report of `rocestat --compare A B` (analyzer/compare.h):
 * what was matched, how the clock offset was estimated, the one-way delays,
 * each capture's window, and per half-flow the packets seen at one point
 * only, each with its frame number and PSN, one a line (so that scripts and
 * tests read them), and those the other point missed because it was not
 * capturing, counted.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>

#include "analyzer/compare.h"
#include "dissect/opcodes.h"
#include "report/format.h"
#include "report/layout.h"
#include "report/report.h"

#define LIST_MAX 1000 /* packets listed per half-flow and side */

/* One paragraph, laid out for `width` as the summary's are (layout.h):
 * `first` before its first line, `rest` before the others. */
static void para(FILE *out, int width, const char *first, const char *rest, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void para(FILE *out, int width, const char *first, const char *rest, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	rs_para(out, width, first, rest, text);
}

static const char *fmt_signed(int64_t ns, char *buf, size_t len)
{
	char t[32];
	snprintf(buf, len, "%s%s", ns < 0 ? "-" : "+", rs_fmt_ns(ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns, t, sizeof t));
	return buf;
}

static void delay_line(FILE *out, int width, const char *indent, const char *rest, const struct rs_cmp_delays *d)
{
	char a[32], b[32], c[32], e[32], f[32];
	if (!d->n) {
		para(out, width, indent, rest, "one-way delay: none (no packet matched)");
		return;
	}
	para(out, width, indent, rest, "one-way delay over %" PRIu64 " packets: min %s, median %s, p90 %s, p99 %s, max %s",
		d->n, fmt_signed(d->min, a, sizeof a), fmt_signed(d->p50, b, sizeof b), fmt_signed(d->p90, c, sizeof c),
		fmt_signed(d->p99, e, sizeof e), fmt_signed(d->max, f, sizeof f));
}

static void offset_lines(FILE *out, int width, const struct rs_cmp *c)
{
	char t[40];
	if (c->method == RS_CMP_NONE) {
		para(out, width, "", "  ", "clock offset (B - A): unknown: no packet was seen at both points");
		return;
	}
	para(out, width, "", "  ", "clock offset (B - A): %s (%" PRId64 " ns)", fmt_signed(c->offset_ns, t, sizeof t),
	     c->offset_ns);
	if (c->method == RS_CMP_MINIMUM)
		para(out, width, "  ", "  ",
			"estimated as the minimum of (time at B - time at A) over the %" PRIu64 " matched packets, "
			"A frame %" PRIu64 " / B frame %" PRIu64 ": every packet is taken to pass A first, and the "
			"fastest to take no time between the points",
			c->matched, c->offset_frame[0], c->offset_frame[1]);
	else
		para(out, width, "  ", "  ",
			"estimated from both directions: the packets one way were all later at B than those the other "
			"way, so they pass A first; the offset is midway between that direction's minimum (time at B - "
			"time at A), A frame %" PRIu64 " / B frame %" PRIu64 ", and the other direction's maximum, "
			"A frame %" PRIu64 " / B frame %" PRIu64 " (the fastest packet taking as long each way)",
			c->offset_frame[0], c->offset_frame[1], c->offset_frame2[0], c->offset_frame2[1]);
}

/* A time on A's clock against the same event of A: "2 s after A". */
static const char *than_a(int64_t ns, char *buf, size_t len)
{
	char t[32];
	if (!ns)
		return "at the same time as A";
	snprintf(buf, len, "%s %s A", rs_fmt_ns(ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns, t, sizeof t),
		 ns < 0 ? "before" : "after");
	return buf;
}

/* Where each capture began and ended, and what the other saw while it was
 * not capturing (analyzer/compare/compare.c, windows()). */
static void window_lines(FILE *out, int width, const struct rs_cmp *c)
{
	static const char *const who[2] = { "A", "B" };
	char t1[64], t2[64], t3[40];
	for (int s = 0; s < 2; s++)
		if (c->ended_early[s])
			para(out, width, "", "  ",
			     "%s ended early: %s. Its capture window ends at its last frame read, frame %" PRIu64, who[s],
			     c->ended_early[s], c->last_read[s]);
	if (c->method == RS_CMP_NONE) {
		para(out, width, "", "  ",
		     "capture windows: with no packet seen at both points the clocks of A and B cannot be put "
		     "together, so a packet seen at one point while the other was not capturing (before its first "
		     "frame or after its last) cannot be told from one lost between the points: those seen at one "
		     "point only below may be either");
		return;
	}
	/* B's first and last frames on A's clock, against A's. */
	int64_t begin = (int64_t)(c->t_first[1] - c->t_first[0]) - c->offset_ns;
	int64_t end = (int64_t)(c->t_last[1] - c->t_last[0]) - c->offset_ns;
	para(out, width, "", "  ",
	     "capture windows: A frames %" PRIu64 " to %" PRIu64 ", B frames %" PRIu64 " to %" PRIu64
	     "; on A's clock B began %s and ended %s",
	     c->f_first[0], c->f_last[0], c->f_first[1], c->f_last[1], than_a(begin, t1, sizeof t1),
	     than_a(end, t2, sizeof t2));
	para(out, width, "", "  ",
	     "outside the other's capture window: A %" PRIu64 ", B %" PRIu64 " packets, whose time on the other's "
	     "clock, give or take the spread of the one-way delays (%s), is before its first frame or after its "
	     "last: it was not capturing, and they are not counted as seen at one point only",
	     c->outside[0][0] + c->outside[0][1], c->outside[1][0] + c->outside[1][1],
	     rs_fmt_ns((uint64_t)(c->window_hi - c->window_lo), t3, sizeof t3));
}

static void outside_line(FILE *out, int width, const struct rs_cmp_flow *fl, int side)
{
	static const char *const who[2] = { "A", "B" };
	const uint64_t *n = fl->outside[side];
	if (n[0] && n[1])
		para(out, width, "    ", "      ",
		     "seen at %s outside %s's capture window: %" PRIu64 ", %" PRIu64 " before its first frame and %" PRIu64
		     " after its last", who[side], who[!side], n[0] + n[1], n[0], n[1]);
	else if (n[0] || n[1])
		para(out, width, "    ", "      ", "seen at %s outside %s's capture window: %" PRIu64 ", %s", who[side],
		     who[!side], n[0] + n[1], n[0] ? "before its first frame" : "after its last frame");
}

static void only_lines(FILE *out, int width, const struct rs_cmp_flow *fl, int side)
{
	static const char *const who[2] = { "A", "B" };
	GArray *v = fl->only[side];
	if (!v->len) {
		fprintf(out, "    seen at %s, not at %s: none\n", who[side], who[!side]);
		outside_line(out, width, fl, side);
		return;
	}
	fprintf(out, "    seen at %s, not at %s: %u\n", who[side], who[!side], v->len);
	for (guint i = 0; i < v->len && i < LIST_MAX; i++) {
		const struct rs_cmp_pkt *p = &g_array_index(v, struct rs_cmp_pkt, i);
		para(out, width, "      ", "        ", "%s frame %" PRIu64 ", PSN 0x%06" PRIx32 ", %s", who[side],
		     p->frame_no, p->psn, rs_opinfo(p->opcode)->name);
	}
	if (v->len > LIST_MAX)
		fprintf(out, "      ... and %u more\n", v->len - LIST_MAX);
	outside_line(out, width, fl, side);
}

int rs_report_compare(FILE *out, struct rs_cmp *c, bool resolve_names, int width)
{
	struct rs_names *nm = rs_names_new(resolve_names);
	rs_cmp_finish(c);
	for (int s = 0; s < 2; s++)
		para(out, width, s ? "B: " : "A: ", "   ", "%s: %" PRIu64 " frames, %" PRIu64 " packets with a BTH",
		     c->name[s] ? c->name[s] : "-", c->frames[s], c->packets[s]);
	para(out, width, "", "  ", "matched: %" PRIu64 " packets (same half-flow, PSN, and BTH and payload bytes)",
	     c->matched);
	offset_lines(out, width, c);
	delay_line(out, width, "", "  ", &c->delay);
	window_lines(out, width, c);
	fprintf(out, "\nhalf-flows: %u\n", c->flows->len);
	for (guint k = 0; k < c->flows->len; k++) {
		const struct rs_cmp_flow *fl = c->flows->pdata[k];
		char s[RS_ADDR_STRLEN + 64], d[RS_ADDR_STRLEN + 64];
		para(out, width, "  ", "      ", "%s → %s QP 0x%" PRIx32 " (%s): A %" PRIu64 ", B %" PRIu64 ", matched %" PRIu64 "%s",
			rs_fmt_addr(nm, &fl->src, s, sizeof s), rs_fmt_addr(nm, &fl->dst, d, sizeof d), fl->dest_qp,
			rs_transport_name(fl->transport), fl->n[0], fl->n[1], fl->matched,
			!fl->matched ? "" : fl->b_first ? ", passes B first" : ", passes A first");
		delay_line(out, width, "    ", "      ", &fl->delay);
		only_lines(out, width, fl, 0);
		only_lines(out, width, fl, 1);
	}
	rs_names_free(nm);
	return ferror(out) ? -1 : 0;
}
