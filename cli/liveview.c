/*
 * liveview.c — what `rocestat -i IFACE` shows while it captures.
 *
 * On a terminal: a screen redrawn every --refresh seconds, sized to the
 * terminal, big enough to read on a projector: a header with the totals,
 * the queue pairs sorted by current throughput with a bar for it, and the
 * latest CM events. Otherwise (-q, or the output is a pipe or a file): one
 * line of key=value pairs per interval, easy to grep or plot.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "analyzer/analyzer.h"
#include "report/report.h"
#include "cli/cli.h"

#define MAX_ROWS 64
#define EVENTS 5

struct rs_liveview {
	FILE *out;
	bool screen;     /* redraw a screen (terminal and not -q) */
	bool color;
	bool bits;       /* --bits */
	const char *iface;
	uint64_t start_ns, prev_ns;
	uint64_t prev_frames, prev_payload, prev_bytes;
	struct rs_live_qp rows[MAX_ROWS];
};

struct rs_liveview *rs_liveview_new(FILE *out, const struct rs_cli_opts *o)
{
	struct rs_liveview *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->out = out;
	v->screen = !o->quiet && isatty(fileno(out));
	v->color = v->screen && o->color;
	v->bits = o->bits;
	v->iface = o->iface ? o->iface : "";
	if (v->screen)
		fputs("\033[2J\033[?25l", out); /* clear, and hide the cursor while we redraw */
	return v;
}

void rs_liveview_free(struct rs_liveview *v)
{
	if (!v)
		return;
	if (v->screen) {
		fputs("\033[?25h\n", v->out);
		fflush(v->out);
	}
	free(v);
}

static void term_size(FILE *out, int *cols, int *lines)
{
	struct winsize ws;
	*cols = 100;
	*lines = 30;
	if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20 && ws.ws_row > 5) {
		*cols = ws.ws_col;
		*lines = ws.ws_row;
	}
}

static const char *rate(const struct rs_liveview *v, double Bps, char *buf, size_t len)
{
	if (Bps < 0) /* unknown: one frame so far */
		return "-";
	static const char *const unit[] = { "B/s", "KiB/s", "MiB/s", "GiB/s" };
	static const char *const bunit[] = { "b/s", "kb/s", "Mb/s", "Gb/s" };
	double k = v->bits ? 1000 : 1024;
	unsigned u = 0;
	if (v->bits)
		Bps *= 8;
	while (Bps >= k && u < 3) {
		Bps /= k;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", Bps, v->bits ? bunit[u] : unit[u]);
	return buf;
}

/* One screen line, cut to the terminal width (counting UTF-8 code points). */
static void put_line(struct rs_liveview *v, int cols, const char *s)
{
	int w = 0;
	for (const char *p = s; *p; p++) {
		bool start = ((unsigned char)*p & 0xC0) != 0x80;
		if (*p == '\033') { /* colour sequences take no room */
			const char *m = strchr(p, 'm');
			if (m) {
				fwrite(p, 1, (size_t)(m - p + 1), v->out);
				p = m;
				continue;
			}
		}
		if (start && ++w > cols)
			break;
		fputc(*p, v->out);
	}
	/* A colour the cut left open ends here, not on the lines below. */
	fputs(v->color ? "\033[0m\033[K\n" : "\033[K\n", v->out); /* clear what an older, longer line left */
}

static void bar(char *buf, size_t len, double frac, int width)
{
	static const char *const eighths[] = { "", "▏", "▎", "▍", "▌", "▋", "▊", "▉" };
	int cells = (int)(frac * width * 8 + 0.5);
	size_t o = 0;
	buf[0] = '\0';
	for (int i = 0; i < cells / 8 && o + 4 < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "█");
	if (cells % 8 && o + 4 < len)
		snprintf(buf + o, len - o, "%s", eighths[cells % 8]);
}

/*
 * The queue-pair table for the terminal's width. Every column (about 125
 * characters and a 20-character bar) when it fits; narrower, the four
 * problem counts become one column naming the non-zero ones and the queue
 * pair's column narrows to 34, then the average rate and the state go, and
 * the bar takes what is left (none under 6 characters).
 */
struct layout {
	int qp;           /* the queue pair's column */
	bool state, avg;
	bool counts;      /* a column per problem count, else one "problems" column */
	int bar;          /* characters of the throughput bar, 0: none */
};

static void layout_for(struct layout *L, int cols)
{
	*L = (struct layout){ .qp = 44, .state = true, .avg = true, .counts = true, .bar = 20 };
	/* qp tr state now avg packets retx NAK RNR CNP "  " bar */
	if (cols >= 44 + 4 + 12 + 12 + 12 + 10 + 6 + 5 + 5 + 5 + 2 + 20)
		return;
	L->counts = false;
	L->qp = 34;
	L->bar = cols - (34 + 4 + 12 + 12 + 12 + 10 + 1 + 14 + 2);
	if (L->bar >= 6)
		return;
	L->avg = false;
	L->bar = cols - (34 + 4 + 12 + 12 + 10 + 1 + 14 + 2);
	if (L->bar >= 6)
		return;
	L->state = false;
	L->bar = cols - (34 + 4 + 12 + 10 + 1 + 14 + 2);
	if (L->bar < 6)
		L->bar = 0;
}

static void header_row(const struct rs_liveview *v, const struct layout *L, char *line, size_t len)
{
	const char *B = v->color ? "\033[1m" : "", *O = v->color ? "\033[0m" : "";
	int o = snprintf(line, len, "%s%-*s %-3s ", B, L->qp + 2, "queue pair (src → dst QP)", "tr");
	if (L->state)
		o += snprintf(line + o, len - (size_t)o, "%-11s ", "state");
	o += snprintf(line + o, len - (size_t)o, "%11s ", "now");
	if (L->avg)
		o += snprintf(line + o, len - (size_t)o, "%11s ", "average");
	o += snprintf(line + o, len - (size_t)o, "%9s ", "packets");
	if (L->counts)
		o += snprintf(line + o, len - (size_t)o, "%5s %4s %4s %4s ", "retx", "NAK", "RNR", "CNP");
	else
		o += snprintf(line + o, len - (size_t)o, " %-13s", "problems");
	snprintf(line + o, len - (size_t)o, "%s%s", L->bar ? " throughput" : "", O);
}

/* A count in its column, red when it is not zero. */
static int count_col(char *buf, size_t len, bool color, uint64_t n, int width)
{
	return snprintf(buf, len, "%s%*" PRIu64 "%s ", n && color ? "\033[31m" : "", width, n, n && color ? "\033[0m" : "");
}

static void qp_row(const struct rs_liveview *v, const struct layout *L, const struct rs_live_qp *q, double top,
		   char *line, size_t len)
{
	const char *G = v->color ? "\033[32m" : "", *O = v->color ? "\033[0m" : "";
	char qp[160], b[160], r1[32], r2[32];
	snprintf(qp, sizeof qp, "%s → %s 0x%x", q->src, q->dst, q->dest_qp);
	/* Widths in bytes: the label's "→" takes three for one column. */
	int o = snprintf(line, len, "%-*.*s %-3s ", L->qp + 2, L->qp + 2, qp, q->transport);
	if (L->state)
		o += snprintf(line + o, len - (size_t)o, "%-11.11s ", q->state);
	o += snprintf(line + o, len - (size_t)o, "%11s ", rate(v, q->rate_now_Bps, r1, sizeof r1));
	if (L->avg)
		o += snprintf(line + o, len - (size_t)o, "%11s ", rate(v, q->rate_avg_Bps, r2, sizeof r2));
	o += snprintf(line + o, len - (size_t)o, "%9" PRIu64 " ", q->packets);
	if (L->counts) {
		o += count_col(line + o, len - (size_t)o, v->color, q->retransmitted, 5);
		o += count_col(line + o, len - (size_t)o, v->color, q->naks, 4);
		o += count_col(line + o, len - (size_t)o, v->color, q->rnr_naks, 4);
		o += snprintf(line + o, len - (size_t)o, "%4" PRIu64 " ", q->cnps);
	} else {
		char p[64] = "";
		int k = 0;
		const struct { uint64_t n; const char *what; } c[] = {
			{ q->retransmitted, "retx" }, { q->naks, "NAK" }, { q->rnr_naks, "RNR" }, { q->cnps, "CNP" },
		};
		for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
			if (c[i].n)
				k += snprintf(p + k, sizeof p - (size_t)k, "%s%" PRIu64 " %s", k ? " " : "", c[i].n, c[i].what);
		bool bad = k > 0;
		o += snprintf(line + o, len - (size_t)o, " %s%-13.13s%s", bad && v->color ? "\033[31m" : "", bad ? p : "-",
			      bad && v->color ? "\033[0m" : "");
	}
	if (L->bar) {
		bar(b, sizeof b, top > 0 ? q->rate_now_Bps / top : 0, L->bar);
		snprintf(line + o, len - (size_t)o, " %s%s%s", G, b, O);
	}
}

static void draw_screen(struct rs_liveview *v, struct rs_live *lv, const struct rs_analyzer *a, uint64_t now,
			uint64_t period)
{
	int cols, lines;
	term_size(v->out, &cols, &lines);
	struct rs_live_totals t;
	rs_live_totals(a, &t);
	size_t total = 0;
	int room = lines - 6 - EVENTS - 2;
	if (room < 1)
		room = 1;
	if (room > MAX_ROWS)
		room = MAX_ROWS;
	size_t n = rs_live_qps(lv, a, period, v->rows, (size_t)room, &total);
	const char *B = v->color ? "\033[1m" : "", *R = v->color ? "\033[31m" : "", *G = v->color ? "\033[32m" : "",
		   *O = v->color ? "\033[0m" : "";
	char line[1024], r1[32];
	uint64_t el = now > v->start_ns ? (now - v->start_ns) / 1000000000u : 0;

	fputs("\033[H", v->out);
	double now_rate = period ? (t.payload_bytes - v->prev_payload) / (period / 1e9) : 0;
	/* Three lines that fit 80 columns: the run, its problems and
	 * connections, how to stop it. A problem count is red when not zero. */
	snprintf(line, sizeof line, "%srocestat live%s  %s  %02" PRIu64 ":%02" PRIu64 ":%02" PRIu64
		 "  %" PRIu64 " frames (%" PRIu64 " RoCE)  %s now",
		 B, O, v->iface, el / 3600, el / 60 % 60, el % 60, t.frames, t.roce_frames,
		 rate(v, now_rate, r1, sizeof r1));
	put_line(v, cols, line);
	snprintf(line, sizeof line, "%s%" PRIu64 " retx%s · %s%" PRIu64 " NAK%s · %s%" PRIu64 " CNP%s · %" PRIu64
		 " connections: %s%" PRIu64 " up%s, %s%" PRIu64 " rejected%s, %" PRIu64 " incomplete",
		 t.retransmitted ? R : "", t.retransmitted, t.retransmitted ? O : "", t.naks ? R : "", t.naks,
		 t.naks ? O : "", t.cnps ? R : "", t.cnps, t.cnps ? O : "", t.connections, t.established ? G : "",
		 t.established, t.established ? O : "", t.rejected ? R : "", t.rejected, t.rejected ? O : "",
		 t.incomplete);
	put_line(v, cols, line);
	/* The payload rate counts each PSN once; what is on the wire (re-sends,
	 * headers, a replayed capture's second round) is the wire rate. */
	double wire_rate = period ? (t.bytes - v->prev_bytes) / (period / 1e9) : 0;
	snprintf(line, sizeof line, "%s on the wire · %zu queue pairs · Ctrl-C stops and prints the summary",
		 rate(v, wire_rate, r1, sizeof r1), total);
	put_line(v, cols, line);
	struct layout L;
	layout_for(&L, cols);
	header_row(v, &L, line, sizeof line);
	put_line(v, cols, line);
	double top = n ? v->rows[0].rate_now_Bps : 0;
	for (size_t i = 0; i < n; i++) {
		qp_row(v, &L, &v->rows[i], top, line, sizeof line);
		put_line(v, cols, line);
	}
	if (total > n) {
		snprintf(line, sizeof line, "… %zu more queue pairs", total - n);
		put_line(v, cols, line);
	}
	put_line(v, cols, "");
	snprintf(line, sizeof line, "%sRecent CM events%s", B, O);
	put_line(v, cols, line);
	struct rs_live_event ev[EVENTS];
	size_t ne = rs_live_events(lv, ev, EVENTS);
	for (size_t i = 0; i < ne; i++) {
		time_t s = (time_t)(ev[i].ts_ns / 1000000000u);
		struct tm tm;
		char hms[16];
		localtime_r(&s, &tm);
		strftime(hms, sizeof hms, "%H:%M:%S", &tm);
		snprintf(line, sizeof line, "  %s  %s", hms, ev[i].text);
		put_line(v, cols, line);
	}
	if (!ne)
		put_line(v, cols, "  none yet");
	fputs("\033[J", v->out); /* clear below */
	fflush(v->out);
}

static void print_line(struct rs_liveview *v, struct rs_live *lv, const struct rs_analyzer *a, uint64_t now,
		       uint64_t period)
{
	struct rs_live_totals t;
	rs_live_totals(a, &t);
	size_t total = 0;
	size_t n = rs_live_qps(lv, a, period, v->rows, 1, &total);
	double secs = period / 1e9;
	fprintf(v->out,
		"time=%" PRIu64 ".%03" PRIu64 " elapsed=%.3f frames=%" PRIu64 " frames_per_s=%.0f roce_frames=%" PRIu64
		" payload_bytes=%" PRIu64 " payload_Bps=%.0f wire_bytes=%" PRIu64 " wire_Bps=%.0f qps=%zu connections=%" PRIu64
		" established=%" PRIu64
		" retransmitted=%" PRIu64 " naks=%" PRIu64 " rnr_naks=%" PRIu64 " cnps=%" PRIu64 " ecn_ce=%" PRIu64
		" icrc_bad=%" PRIu64,
		now / 1000000000u, now % 1000000000u / 1000000u, (now - v->start_ns) / 1e9, t.frames,
		secs > 0 ? (t.frames - v->prev_frames) / secs : 0, t.roce_frames, t.payload_bytes,
		secs > 0 ? (t.payload_bytes - v->prev_payload) / secs : 0, t.bytes,
		secs > 0 ? (t.bytes - v->prev_bytes) / secs : 0, total, t.connections, t.established,
		t.retransmitted, t.naks, t.rnr_naks, t.cnps, t.ecn_ce, t.icrc_bad);
	if (n)
		fprintf(v->out, " top_qp=%s>%s/0x%x top_Bps=%.0f", v->rows[0].src, v->rows[0].dst, v->rows[0].dest_qp,
			v->rows[0].rate_now_Bps);
	fputc('\n', v->out);
	fflush(v->out);
}

void rs_liveview_tick(struct rs_liveview *v, struct rs_live *lv, const struct rs_analyzer *a, uint64_t now_ns)
{
	if (!v)
		return;
	if (!v->start_ns)
		v->start_ns = v->prev_ns = now_ns;
	uint64_t period = now_ns > v->prev_ns ? now_ns - v->prev_ns : 0;
	if (v->screen)
		draw_screen(v, lv, a, now_ns, period);
	else
		print_line(v, lv, a, now_ns, period);
	struct rs_live_totals t;
	rs_live_totals(a, &t);
	v->prev_frames = t.frames;
	v->prev_payload = t.payload_bytes;
	v->prev_bytes = t.bytes;
	v->prev_ns = now_ns;
}
