/*
 * svg.c — `--plot FILE.svg`: payload throughput over time, one line per QP
 * (the top N by bytes), with axes in seconds and bytes per second and a
 * legend. Each interval is drawn as a step at its rate: a straight line
 * between two intervals' rates would draw slopes the traffic never had.
 * The title names the capture and the interval; when more QPs carried
 * payload than are drawn, the legend says how many. Retransmissions, NAKs,
 * RNR NAKs and CNPs are marked on the line of the flow they concern (a
 * NAK or CNP travels on the peer half-flow, against this one's requests),
 * at the interval they fell in. Plain SVG 1.1,
 * viewable in any browser, no dependency.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "analyzer/result.h"
#include "report/report.h"
#include "report/view.h"

#define W_DEFAULT 1000
#define H_DEFAULT 560
#define ML 90   /* margins: left, right, top, bottom */
#define MR 300  /* at the least: more when the legend needs it */
#define MR_SHARE 0.45 /* the most of the image the legend takes */
#define MT 40
#define MB 60

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
				       "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22" };

static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
}

/* A "nice" tick step for a range: 1, 2 or 5 times a power of ten. */
static double nice_step(double range, int ticks)
{
	double raw = range / ticks;
	double p = pow(10, floor(log10(raw)));
	double m = raw / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/* A flow the plot may draw, with what it is sorted by. */
struct drawn {
	const struct rs_flow *fl;
	uint64_t payload_all;
	uint32_t id;
};

static gint by_payload(gconstpointer x, gconstpointer y)
{
	const struct drawn *a = x, *b = y;
	if (a->payload_all != b->payload_all)
		return a->payload_all > b->payload_all ? -1 : 1;
	return a->id < b->id ? -1 : 1;
}

/* The title: what, of which capture (file names without their directory),
 * at what resolution. */
static void title(FILE *out, const struct rs_analyzer *a, double iv_s)
{
	GString *files = g_string_new(NULL);
	struct rs_capture_info cap;
	rs_capture_get_info(a, &cap);
	for (uint32_t i = 0; i < cap.files; i++) {
		struct rs_file_info fi;
		rs_capture_file(a, i, &fi);
		const char *name = fi.name;
		const char *slash = strrchr(name, '/');
		g_string_append_printf(files, "%s%s", i ? ", " : "", slash ? slash + 1 : name);
	}
	fprintf(out, "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">Goodput per QP (payload, each PSN once): ", ML);
	xml_text(out, files->str);
	fprintf(out, " (%g ms intervals)</text>\n", iv_s * 1e3);
	g_string_free(files, TRUE);
}

/* The chart's geometry: pixels for seconds and rates. */
struct frame {
	int w, h;
	int mr;     /* right margin: the legend */
	int lstep;  /* pixels between legend entries */
	bool multi; /* several files read: the legend names each entry's */
	double pw, ph;
	double xtop, ytop, scale;
	double tscale;     /* seconds per unit of the time axis (1, 1e-3, 1e-6) */
	const char *tunit; /* "s", "ms", "µs" */
};

static double px_x(const struct frame *g, double t)
{
	return ML + t / g->tscale / g->xtop * g->pw;
}

static double px_y(const struct frame *g, double r)
{
	return MT + g->ph - r / g->scale / g->ytop * g->ph;
}

/* The flow's rate over the point of its series that holds time t (s). */
static double rate_at(const struct rs_series *s, double iv_s, double t)
{
	double width = iv_s * (double)(1u << s->shift);
	int64_t slot = (int64_t)floor(t / width);
	uint32_t lo = 0, hi = s->len;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->interval[mid] < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->len && s->interval[lo] == slot ? s->bytes[lo] / width : 0;
}

enum mark { MK_RETX, MK_NAK, MK_RNR, MK_CNP, MK__COUNT };

static const char *const mark_name[MK__COUNT] = { "retransmitted packets", "NAKs", "RNR NAKs", "CNPs" };

static void mark_shape(FILE *out, enum mark k, double x, double y, const char *color)
{
	switch (k) {
	case MK_RETX:
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"white\" stroke=\"%s\" stroke-width=\"1.5\"",
			x, y, color);
		break;
	case MK_NAK:
		fprintf(out, "<path d=\"M%.1f,%.1f l-5,-9 h10 z\" fill=\"#d62728\" stroke=\"black\" stroke-width=\"0.5\"", x,
			y - 2);
		break;
	case MK_RNR:
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" fill=\"#ff7f0e\" stroke=\"black\" "
			     "stroke-width=\"0.5\"", x - 4, y - 12);
		break;
	default:
		fprintf(out, "<path d=\"M%.1f,%.1f l5,5 l-5,5 l-5,-5 z\" fill=\"#9467bd\" stroke=\"black\" "
			     "stroke-width=\"0.5\"", x, y - 14);
		break;
	}
}

static uint32_t ev_count(const struct rs_series_ev *e, enum mark k)
{
	return k == MK_RETX ? e->retrans : k == MK_NAK ? e->naks : k == MK_RNR ? e->rnrs : e->cnps;
}

/* The marks of kind k found in series `from` (the flow's own, or its
 * peer's for NAKs and CNPs), drawn on the line of series `on`. */
static uint64_t marks_of(FILE *out, const struct frame *g, const struct rs_series *on, const struct rs_series *from,
			 double iv_s, enum mark k, const char *color)
{
	uint64_t total = 0;
	double width = iv_s * (double)(1u << from->shift);
	for (uint32_t i = 0; i < from->len; i++) {
		uint32_t n = ev_count(&from->ev[i], k);
		if (!n)
			continue;
		total += n;
		double t = (from->interval[i] + 0.5) * width;
		mark_shape(out, k, px_x(g, t), px_y(g, rate_at(on, iv_s, t)), color);
		fprintf(out, "><title>%.3f %s: %u %s</title></%s>\n", t / g->tscale, g->tunit, n, n == 1 ? "event" : "events",
			k == MK_RETX ? "circle" : k == MK_RNR ? "rect" : "path");
	}
	return total;
}

static void draw_flow(FILE *out, const struct frame *g, const struct rs_flow *fl, double iv_s, const char *color,
		      uint64_t marks[MK__COUNT])
{
	const struct rs_series *s = rs_flow_series(fl);
	double width = iv_s * (double)(1u << s->shift);
	fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", color);
	int64_t prev = -2;
	for (uint32_t k = 0; k < s->len; k++) {
		int64_t iv = s->interval[k];
		double t = iv * width, r = s->bytes[k] / width;
		/* An interval with no traffic is a zero, not a line across it. */
		if (iv != prev + 1 && prev >= 0)
			fprintf(out, "%.1f,%.1f ", px_x(g, (prev + 1) * width), px_y(g, 0.0));
		fprintf(out, "%.1f,%.1f %.1f,%.1f %.1f,%.1f ", px_x(g, t), px_y(g, 0.0), px_x(g, t), px_y(g, r),
			px_x(g, t + width), px_y(g, r));
		if (k + 1 == s->len || s->interval[k + 1] != iv + 1)
			fprintf(out, "%.1f,%.1f ", px_x(g, t + width), px_y(g, 0.0));
		prev = iv;
	}
	fprintf(out, "\"/>\n");
	struct rs_flow_info fi;
	rs_flow_get_info(fl, &fi);
	const struct rs_series *peer = fi.peer ? rs_flow_series(fi.peer) : NULL;
	for (int k = 0; k < MK__COUNT; k++) {
		marks[k] += marks_of(out, g, s, s, iv_s, (enum mark)k, color);
		if (k != MK_RETX && peer && peer->len)
			marks[k] += marks_of(out, g, s, peer, iv_s, (enum mark)k, color);
	}
}

/* Estimated width of s in ems of the sans-serif font the SVG asks for, a
 * little above DejaVu Sans's advances (the widest common sans-serif, the
 * default of Linux browsers), so that an estimate that fits does fit. */
static double em_width(const char *s)
{
	double w = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned char c = *p;
		if ((c & 0xC0) == 0x80)
			continue;
		w += c >= 0x80 ? 1.0 : strchr(".:,;il|!'I", c) ? 0.34 : c == ' ' ? 0.33 : strchr("()[]ftjr-", c) ? 0.45
		     : strchr("mwMW", c) ? 1.0 : (c >= 'A' && c <= 'Z') ? 0.78 : 0.65;
	}
	return w;
}

/* s into buf, its middle replaced by "…" until it is at most `ems` wide:
 * both ends of an address or a file name tell most. */
static void fit_middle(const char *s, double ems, char *buf, size_t len)
{
	snprintf(buf, len, "%s", s);
	if (em_width(buf) <= ems)
		return;
	size_t at[256], n = 0, total = strlen(s);
	for (size_t i = 0; s[i] && n < G_N_ELEMENTS(at); i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			at[n++] = i;
	for (size_t drop = 1; drop <= n; drop++) {
		size_t head = (n - drop + 1) / 2, tail = (n - drop) / 2;
		size_t tail_at = tail ? at[n - tail] : total;
		snprintf(buf, len, "%.*s…%s", (int)at[head], s, s + tail_at);
		if (em_width(buf) <= ems)
			return;
	}
}

#define LEGEND_PX 12 /* the legend's font size */
#define NOTE_PX 11   /* its second lines' */

/* "src → dst QP 0x11" in at most `ems`: the addresses (IPv6, GIDs) cut in
 * their middles, the longer first; the arrow and the QP whole. */
static void flow_label_fit(struct rs_view *v, const struct rs_flow *fl, double ems, char *buf, size_t len)
{
	char src[96], dst[96], fs[96], fd[96], qp[24];
	struct rs_flow_info fi;
	rs_flow_get_info(fl, &fi);
	rs_fmt_addr(v->names, &fi.src, src, sizeof src);
	rs_fmt_addr(v->names, &fi.dst, dst, sizeof dst);
	snprintf(qp, sizeof qp, " QP 0x%" PRIx32, fi.dest_qp);
	double room = ems - em_width(" → ") - em_width(qp), ws = em_width(src), wd = em_width(dst);
	double half = room / 2;
	fit_middle(src, wd < half ? room - wd : ws < half ? ws : half, fs, sizeof fs);
	fit_middle(dst, room - em_width(fs), fd, sizeof fd);
	snprintf(buf, len, "%s → %s%s", fs, fd, qp);
}

/* The legend's text of flow fl: its label, and with several files a second
 * line naming the file it came from (numbered as in the summary's capture
 * files, in time order); "from frame N" on the second line (or the first,
 * for one file) where two entries would read the same. Each fitted to the
 * legend's width. */
static void legend_text(struct rs_view *v, const struct rs_analyzer *a, const struct frame *g, const struct rs_flow *fl,
			bool twin, char *l1, char *l2, size_t len)
{
	char full[256], frame[40] = "";
	double px = g->mr - 40 - 8;
	const struct rs_fref first = rs_flow_first(a, fl);
	if (twin)
		snprintf(frame, sizeof frame, "%sfrom frame %" PRIu64, g->multi ? ", " : " (", first.frame);
	l2[0] = '\0';
	if (!g->multi) {
		double fem = em_width(frame) + (twin ? em_width(")") : 0);
		flow_label_fit(v, fl, px / LEGEND_PX - fem, full, sizeof full);
		snprintf(l1, len, "%s%s%s", full, frame, twin ? ")" : "");
		return;
	}
	flow_label_fit(v, fl, px / LEGEND_PX, l1, len);
	struct rs_capture_info cap;
	struct rs_file_info fi = { .name = "?" };
	rs_capture_get_info(a, &cap);
	if (first.file < cap.files)
		rs_capture_file(a, first.file, &fi);
	const char *name = fi.name, *slash = strrchr(name, '/');
	char no[24];
	snprintf(no, sizeof no, "file %" PRIu32 ": ", first.file + 1);
	fit_middle(slash ? slash + 1 : name, px / NOTE_PX - em_width(no) - em_width(frame), full, sizeof full);
	snprintf(l2, len, "%s%s%s", no, full, frame);
}

/* Entry i's lines, "from frame N" added where two entries would read the same
 * (a QP number used again, one file read twice). */
static void legend_lines(const struct frame *g, struct rs_view *v, const struct rs_analyzer *a, const GPtrArray *sel,
			 guint i, char *l1, char *l2, size_t len)
{
	char o1[360], o2[360];
	legend_text(v, a, g, sel->pdata[i], false, l1, l2, len);
	bool twin = false;
	for (guint k = 0; k < sel->len && !twin; k++) {
		legend_text(v, a, g, sel->pdata[k], false, o1, o2, sizeof o1);
		twin = k != i && strcmp(o1, l1) == 0 && strcmp(o2, l2) == 0;
	}
	if (twin)
		legend_text(v, a, g, sel->pdata[i], true, l1, l2, len);
}

static void legend_entry(FILE *out, const struct frame *g, struct rs_view *v, const struct rs_analyzer *a,
			 const GPtrArray *sel, guint i, const char *color)
{
	char l1[360], l2[360];
	double ly = MT + 10 + i * g->lstep;
	fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n",
		g->w - g->mr + 15, ly, g->w - g->mr + 35, ly, color);
	legend_lines(g, v, a, sel, i, l1, l2, sizeof l1);
	fprintf(out, "<text x=\"%d\" y=\"%.1f\">", g->w - g->mr + 40, ly + 4);
	xml_text(out, l1);
	fprintf(out, "</text>\n");
	if (!l2[0])
		return;
	fprintf(out, "<text x=\"%d\" y=\"%.1f\" font-size=\"%d\" fill=\"#555\">", g->w - g->mr + 40, ly + 18, NOTE_PX);
	xml_text(out, l2);
	fprintf(out, "</text>\n");
}

/* The right margin: the widest legend entry (measured uncut) if the default is too narrow, up to MR_SHARE of the image;
 * what is still too wide is cut in the middle. */
static void legend_margin(struct frame *g, struct rs_view *v, const struct rs_analyzer *a, const GPtrArray *sel)
{
	char l1[360], l2[360];
	double need = 0;
	g->mr = 1 << 20;
	for (guint i = 0; i < sel->len; i++) {
		legend_lines(g, v, a, sel, i, l1, l2, sizeof l1);
		need = fmax(need, fmax(em_width(l1) * LEGEND_PX, em_width(l2) * NOTE_PX));
	}
	g->mr = (int)fmin(fmax(MR, ceil(need) + 40 + 8), floor(g->w * MR_SHARE));
	if (g->mr < MR)
		g->mr = MR;
}

/* Below the flows: how many were drawn, and what each mark means. */
static void legend_notes(FILE *out, const struct frame *g, guint drawn, guint carried, const uint64_t marks[MK__COUNT],
			 bool total, guint ncm)
{
	double y = MT + 14 + drawn * (double)g->lstep;
	fprintf(out, "<text x=\"%d\" y=\"%.1f\" fill=\"#555\">top %u of %u flows with payload%s</text>\n", g->w - g->mr + 15,
		y, drawn, carried, carried > drawn ? " (--top N)" : "");
	y += 24;
	if (total) {
		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"black\" stroke-width=\"2.5\" "
			     "stroke-opacity=\"0.6\"/>\n<text x=\"%d\" y=\"%.1f\">total of all %u flows</text>\n",
			g->w - g->mr + 15, y - 4, g->w - g->mr + 35, y - 4, g->w - g->mr + 40, y, carried);
		y += 20;
	}
	if (ncm) {
		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#2ca02c\" stroke-dasharray=\"3,2\"/>\n"
			     "<text x=\"%d\" y=\"%.1f\">CM messages: %u</text>\n",
			g->w - g->mr + 25, y - 12, g->w - g->mr + 25, y + 2, g->w - g->mr + 40, y, ncm);
		y += 20;
	}
	for (int k = 0; k < MK__COUNT; k++) {
		if (!marks[k])
			continue;
		mark_shape(out, (enum mark)k, g->w - g->mr + 25, y + (k == MK_RETX ? -4 : k == MK_NAK ? 2 : k == MK_RNR ? 4 : 6),
			   "#333");
		fprintf(out, "/>\n<text x=\"%d\" y=\"%.1f\">%s: %" PRIu64 "</text>\n", g->w - g->mr + 40, y, mark_name[k],
			marks[k]);
		y += 20;
	}
}

static void axes(FILE *out, const struct frame *g, double xstep, double ystep, const char *unit)
{
	for (double y = 0; y <= g->ytop + 1e-9; y += ystep) {
		double py = MT + g->ph - y / g->ytop * g->ph;
		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", ML, py, ML + g->pw, py);
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", ML - 6, py + 4, y);
	}
	for (double x = 0; x <= g->xtop + 1e-9; x += xstep) {
		double px = ML + x / g->xtop * g->pw;
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", px, MT, px, MT + g->ph);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", px, MT + g->ph + 18, x);
	}
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%.1f\" stroke=\"black\"/>\n", ML, MT, ML, MT + g->ph);
	fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", ML, MT + g->ph,
		ML + g->pw, MT + g->ph);
	fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">time since the first frame (%s)</text>\n",
		ML + g->pw / 2, g->h - 18, g->tunit);
	fprintf(out, "<text transform=\"translate(22,%.1f) rotate(-90)\" text-anchor=\"middle\">payload (%s)</text>\n",
		MT + g->ph / 2, unit);
	fprintf(out, "<desc id=\"axes\">time %s, rate %s</desc>\n", g->tunit, unit);
}

/* The total rate of every flow with payload (not only those drawn), at
 * one resolution: the coarsest of their series, coarser still if the
 * capture would need more than TOTAL_MAX points. */
#define TOTAL_MAX 8192
struct total {
	double width;    /* seconds per point */
	uint32_t n;
	uint64_t *bytes;
};

static void total_of(struct total *t, const struct rs_view *v, double iv_s, double tmax)
{
	uint32_t shift = 0;
	*t = (struct total){ 0 };
	for (guint i = 0; i < v->flows->len; i++) {
		const struct rs_series *s = rs_flow_series(v->flows->pdata[i]);
		if (s && s->len && s->shift > shift)
			shift = s->shift;
	}
	while (shift < 62 && tmax / (iv_s * (double)(1ull << shift)) + 2 > TOTAL_MAX)
		shift++;
	t->width = iv_s * (double)(1ull << shift);
	t->n = (uint32_t)(tmax / t->width) + 2;
	t->bytes = g_new0(uint64_t, t->n);
	for (guint i = 0; i < v->flows->len; i++) {
		const struct rs_series *s = rs_flow_series(v->flows->pdata[i]);
		for (uint32_t k = 0; s && k < s->len; k++) {
			int64_t slot = s->interval[k] >> (shift - s->shift);
			if (slot >= 0 && (uint64_t)slot < t->n)
				t->bytes[slot] += s->bytes[k];
		}
	}
}

static void draw_total(FILE *out, const struct frame *g, const struct total *t)
{
	fprintf(out, "<polyline class=\"total\" fill=\"none\" stroke=\"black\" stroke-width=\"2.5\" stroke-opacity=\"0.6\" "
		     "points=\"%.1f,%.1f ", px_x(g, 0), px_y(g, 0));
	for (uint32_t k = 0; k < t->n; k++) {
		double r = t->bytes[k] / t->width;
		fprintf(out, "%.1f,%.1f %.1f,%.1f ", px_x(g, k * t->width), px_y(g, r), px_x(g, (k + 1) * t->width), px_y(g, r));
	}
	fprintf(out, "\"><title>total of all flows</title></polyline>\n");
}

#define CM_MARKS_MAX 64 /* CM messages marked; more would hide the lines */

/* The CM messages of the connections shown (--qp, --conn), the first of
 * each kind per connection, as dashed lines at their time, named on top. */
static guint cm_marks(FILE *out, const struct frame *g, const struct rs_analyzer *a, const struct rs_report_opts *o,
		      const struct rs_capture_info *cap)
{
	static const struct { uint16_t attr; const char *name; } kinds[] = {
		{ 0x10, "REQ" }, { 0x13, "REP" }, { 0x14, "RTU" }, { 0x12, "REJ" }, { 0x15, "DREQ" }, { 0x16, "DREP" },
	};
	GPtrArray *conns = rs_conns_selected(a, o->qp, o->conn);
	guint n = 0, seen = 0;
	for (guint i = 0; conns && i < conns->len; i++) {
		struct rs_conn_info ci;
		rs_conn_get_info(conns->pdata[i], &ci);
		for (size_t k = 0; k < G_N_ELEMENTS(kinds); k++) {
			int at = kinds[k].attr - 0x10;
			if (!ci.n[at] || !cap->have_ts || ci.ts[at] < cap->first_ts)
				continue;
			seen++;
			if (n == CM_MARKS_MAX)
				continue;
			uint64_t rel = ci.ts[at] - cap->first_ts;
			double x = px_x(g, rel / 1e9);
			/* A name centred on a line at either edge of the chart would
			 * run past it, over the rate axis's top tick label at the left:
			 * there it starts (or ends) at the line instead. */
			double half = strlen(kinds[k].name) * 2.8 + 1, tx = x;
			const char *anchor = "middle";
			if (x - half < ML)
				anchor = "start", tx = x + 1;
			else if (x + half > ML + g->pw)
				anchor = "end", tx = x - 1;
			fprintf(out, "<g class=\"cm\" data-t-ns=\"%" PRIu64 "\" data-kind=\"%s\"><line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
				     "y2=\"%.1f\" stroke=\"#2ca02c\" stroke-dasharray=\"3,2\"/><text x=\"%.1f\" y=\"%d\" "
				     "font-size=\"9\" fill=\"#2ca02c\" text-anchor=\"%s\">%s</text><title>CM %s, connection #%u, "
				     "%.3f %s</title></g>\n",
				rel, kinds[k].name, x, MT + 10 + (int)(n % 3) * 9, x, MT + g->ph, tx, MT + 8 + (int)(n % 3) * 9,
				anchor, kinds[k].name, kinds[k].name, ci.id + 1, rel / 1e9 / g->tscale, g->tunit);
			n++;
		}
	}
	if (conns)
		g_ptr_array_free(conns, TRUE);
	return seen > n ? n : seen;
}

int rs_report_plot_svg(FILE *out, const struct rs_analyzer *a, const struct rs_report_opts *o)
{
	struct rs_view v;
	rs_view_init(&v, a, o);
	GArray *cand = g_array_new(FALSE, FALSE, sizeof(struct drawn));
	for (guint i = 0; i < v.flows->len; i++) {
		const struct rs_flow *fl = v.flows->pdata[i];
		struct rs_flow_info fi;
		rs_flow_get_info(fl, &fi);
		if (rs_flow_series(fl) && rs_flow_series(fl)->len && fi.payload_all)
			g_array_append_val(cand, ((struct drawn){ fl, fi.payload_all, fi.id }));
	}
	g_array_sort(cand, by_payload);
	guint carried = cand->len;
	GPtrArray *sel = g_ptr_array_new();
	for (guint i = 0; i < cand->len && (int)i < o->top; i++)
		g_ptr_array_add(sel, (void *)g_array_index(cand, struct drawn, i).fl);
	g_array_free(cand, TRUE);

	struct rs_capture_info cap;
	rs_capture_get_info(a, &cap);
	double iv_s = rs_analyzer_options(a)->interval_ns / 1e9;
	double tmax = cap.have_ts ? (cap.last_ts - cap.first_ts) / 1e9 : 0;
	double ymax = 0;
	for (guint i = 0; i < sel->len; i++) {
		const struct rs_series *s = rs_flow_series(sel->pdata[i]);
		double width = iv_s * (double)(1u << s->shift);
		for (uint32_t k = 0; k < s->len; k++)
			ymax = fmax(ymax, s->bytes[k] / width);
	}
	if (tmax <= 0)
		tmax = iv_s;
	struct total tot;
	total_of(&tot, &v, iv_s, tmax);
	for (uint32_t k = 0; k < tot.n; k++)
		ymax = fmax(ymax, tot.bytes[k] / tot.width);
	if (ymax <= 0)
		ymax = 1;
	/* Units for the y axis: bytes in binary steps, or with --bits bits
	 * in SI steps, as the summary writes rates. */
	static const char *const units[] = { "B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s" };
	static const char *const bit_units[] = { "b/s", "kb/s", "Mb/s", "Gb/s", "Tb/s" };
	int u = 0;
	struct frame g = { .w = o->plot_w > 0 ? o->plot_w : W_DEFAULT, .h = o->plot_h > 0 ? o->plot_h : H_DEFAULT,
			   .scale = o->bits ? 1.0 / 8 : 1, .multi = cap.files > 1 };
	g.lstep = g.multi ? 34 : 20;
	double step = o->bits ? 1000 : 1024;
	while (ymax / g.scale >= step && u < 4) {
		g.scale *= step;
		u++;
	}
	/* The time axis in the unit that fits the capture's length. */
	g.tscale = tmax < 1e-3 ? 1e-6 : tmax < 1 ? 1e-3 : 1;
	g.tunit = tmax < 1e-3 ? "µs" : tmax < 1 ? "ms" : "s";
	double ystep = nice_step(ymax / g.scale, 5), xstep = nice_step(tmax / g.tscale, 8);
	g.ytop = ceil(ymax / g.scale / ystep) * ystep;
	g.xtop = ceil(tmax / g.tscale / xstep) * xstep;
	legend_margin(&g, &v, a, sel);
	g.pw = g.w - ML - g.mr;
	g.ph = g.h - MT - MB;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		     "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		     "font-family=\"sans-serif\" font-size=\"12\">\n", g.w, g.h, g.w, g.h);
	fprintf(out, "<title>rocestat: goodput per QP (payload, each PSN once)</title>\n");
	fprintf(out, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", g.w, g.h);
	title(out, a, iv_s);
	axes(out, &g, xstep, ystep, o->bits ? bit_units[u] : units[u]);
	rs_svg_pause_spans(out, a, ML, MT, g.pw, g.ph, g.xtop * g.tscale); /* behind the lines */
	guint ncm = cm_marks(out, &g, a, o, &cap);
	/* An interval longer than what is left of the capture would draw its
	 * step past the axis, over the legend: the lines stop at the axis. */
	fprintf(out, "<clipPath id=\"chart\"><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%.1f\"/></clipPath>\n"
		     "<g clip-path=\"url(#chart)\">\n", ML, MT - 16, g.pw + 1, g.ph + 17);
	if (tot.n && carried > 1)
		draw_total(out, &g, &tot);
	uint64_t marks[MK__COUNT] = { 0 };
	for (guint i = 0; i < sel->len; i++)
		draw_flow(out, &g, sel->pdata[i], iv_s, palette[i % G_N_ELEMENTS(palette)], marks);
	fprintf(out, "</g>\n");
	for (guint i = 0; i < sel->len; i++)
		legend_entry(out, &g, &v, a, sel, i, palette[i % G_N_ELEMENTS(palette)]);
	if (sel->len)
		legend_notes(out, &g, sel->len, carried, marks, tot.n && carried > 1, ncm);
	else
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no RoCE payload in this capture</text>\n",
			ML + g.pw / 2, MT + g.ph / 2);
	fprintf(out, "</svg>\n");
	g_ptr_array_free(sel, TRUE);
	g_free(tot.bytes);
	rs_view_free(&v);
	return ferror(out) ? -1 : 0;
}
