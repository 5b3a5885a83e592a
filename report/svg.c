/*
 * svg.c — `--plot FILE.svg`: payload throughput over time, one line per QP
 * (the top N by bytes), with axes in seconds and bytes per second and a
 * legend. Each interval is drawn as a step at its rate: a straight line
 * between two intervals' rates would draw slopes the traffic never had.
 * The title names the capture and the interval; when more QPs carried
 * payload than are drawn, the legend says how many. Plain SVG 1.1,
 * viewable in any browser, no dependency.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report/report.h"
#include "report/view.h"

#define W 1000
#define H 560
#define ML 90   /* margins: left, right, top, bottom */
#define MR 300
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

static gint by_payload(gconstpointer x, gconstpointer y)
{
	const struct rs_flow *a = *(const struct rs_flow *const *)x;
	const struct rs_flow *b = *(const struct rs_flow *const *)y;
	if (a->payload_all != b->payload_all)
		return a->payload_all > b->payload_all ? -1 : 1;
	return a->id < b->id ? -1 : 1;
}

/* The title: what, of which capture (file names without their directory),
 * at what resolution. */
static void title(FILE *out, const struct rs_analyzer *a, double iv_s)
{
	GString *files = g_string_new(NULL);
	for (guint i = 0; i < a->files->len; i++) {
		const char *name = ((const struct rs_file *)a->files->pdata[i])->name;
		const char *slash = strrchr(name, '/');
		g_string_append_printf(files, "%s%s", i ? ", " : "", slash ? slash + 1 : name);
	}
	fprintf(out, "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">Payload throughput per QP: ", ML);
	xml_text(out, files->str);
	fprintf(out, " (%g ms intervals)</text>\n", iv_s * 1e3);
	g_string_free(files, TRUE);
}

int rs_report_plot_svg(FILE *out, struct rs_analyzer *a, const struct rs_report_opts *o)
{
	struct rs_view v;
	rs_view_init(&v, a, o);
	GPtrArray *sel = g_ptr_array_new();
	for (guint i = 0; i < v.flows->len; i++) {
		struct rs_flow *fl = v.flows->pdata[i];
		if (rs_series_of(fl) && rs_series_of(fl)->len && fl->payload_all)
			g_ptr_array_add(sel, fl);
	}
	g_ptr_array_sort(sel, by_payload);
	guint carried = sel->len;
	if ((int)sel->len > o->top)
		g_ptr_array_set_size(sel, (guint)o->top);

	double iv_s = a->opts.interval_ns / 1e9;
	double tmax = a->have_ts ? (a->last_ts - a->first_ts) / 1e9 : 0;
	double ymax = 0;
	for (guint i = 0; i < sel->len; i++) {
		const struct rs_series *s = rs_series_of(sel->pdata[i]);
		double width = iv_s * (double)(1u << s->shift);
		for (uint32_t k = 0; k < s->len; k++)
			ymax = fmax(ymax, s->bytes[k] / width);
	}
	if (tmax <= 0)
		tmax = iv_s;
	if (ymax <= 0)
		ymax = 1;
	/* Units for the y axis. */
	static const char *const units[] = { "B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s" };
	int u = 0;
	double scale = 1;
	while (ymax / scale >= 1024 && u < 4) {
		scale *= 1024;
		u++;
	}
	double ystep = nice_step(ymax / scale, 5), ytop = ceil(ymax / scale / ystep) * ystep;
	double xstep = nice_step(tmax, 8), xtop = ceil(tmax / xstep) * xstep;
	double pw = W - ML - MR, ph = H - MT - MB;
#define X(t) (ML + (t) / xtop * pw)
#define Y(r) (MT + ph - (r) / scale / ytop * ph)

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		     "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		     "font-family=\"sans-serif\" font-size=\"12\">\n", W, H, W, H);
	fprintf(out, "<title>rocestat: payload throughput per QP</title>\n");
	fprintf(out, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
	title(out, a, iv_s);
	/* Grid and ticks. */
	for (double y = 0; y <= ytop + 1e-9; y += ystep) {
		double py = MT + ph - y / ytop * ph;
		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", ML, py, ML + pw, py);
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", ML - 6, py + 4, y);
	}
	for (double x = 0; x <= xtop + 1e-9; x += xstep) {
		double px = ML + x / xtop * pw;
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", px, MT, px, MT + ph);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", px, MT + ph + 18, x);
	}
	rs_svg_pause_spans(out, a, ML, MT, pw, ph, xtop); /* behind the lines */
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%.1f\" stroke=\"black\"/>\n", ML, MT, ML, MT + ph);
	fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", ML, MT + ph, ML + pw,
		MT + ph);
	fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">time since the first frame (s)</text>\n",
		ML + pw / 2, H - 18);
	fprintf(out, "<text transform=\"translate(22,%.1f) rotate(-90)\" text-anchor=\"middle\">payload (%s)</text>\n",
		MT + ph / 2, units[u]);

	for (guint i = 0; i < sel->len; i++) {
		const struct rs_flow *fl = sel->pdata[i];
		const struct rs_series *s = rs_series_of(fl);
		const char *color = palette[i % G_N_ELEMENTS(palette)];
		double width = iv_s * (double)(1u << s->shift);
		fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", color);
		int64_t prev = -2;
		for (uint32_t k = 0; k < s->len; k++) {
			int64_t iv = s->interval[k];
			double t = iv * width, r = s->bytes[k] / width;
			/* An interval with no traffic is a zero, not a line across it. */
			if (iv != prev + 1 && prev >= 0)
				fprintf(out, "%.1f,%.1f ", X((prev + 1) * width), Y(0.0));
			fprintf(out, "%.1f,%.1f %.1f,%.1f %.1f,%.1f ", X(t), Y(0.0), X(t), Y(r), X(t + width), Y(r));
			if (k + 1 == s->len || s->interval[k + 1] != iv + 1)
				fprintf(out, "%.1f,%.1f ", X(t + width), Y(0.0));
			prev = iv;
		}
		fprintf(out, "\"/>\n");
		char lbl[240];
		double ly = MT + 10 + i * 20;
		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n",
			W - MR + 15, ly, W - MR + 35, ly, color);
		fprintf(out, "<text x=\"%d\" y=\"%.1f\">", W - MR + 40, ly + 4);
		rs_flow_label(v.names, fl, lbl, sizeof lbl);
		/* Two half-flows with one label (a QP number used again): told apart by their first frame. */
		bool twin = false;
		for (guint k = 0; k < sel->len; k++) {
			char other[240];
			if (k != i && strcmp(rs_flow_label(v.names, sel->pdata[k], other, sizeof other), lbl) == 0)
				twin = true;
		}
		xml_text(out, lbl);
		if (twin)
			fprintf(out, " (from frame %" PRIu64 ")", fl->first.frame);
		fprintf(out, "</text>\n");
	}
	if (carried > sel->len)
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" fill=\"#555\">top %u of the %u QPs with payload (--top)</text>\n",
			W - MR + 15, MT + 14 + sel->len * 20.0, sel->len, carried);
	if (!sel->len)
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no RoCE payload in this capture</text>\n",
			ML + pw / 2, MT + ph / 2);
	fprintf(out, "</svg>\n");
#undef X
#undef Y
	g_ptr_array_free(sel, TRUE);
	rs_view_free(&v);
	return ferror(out) ? -1 : 0;
}
