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
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "analyzer/analyzer.h"
#include "report/report.h"
#include "cli/cli.h"

#define MAX_ROWS 64
#define EVENTS 5
/* The queue pairs read each tick to sort and filter by the keys (the
 * busiest by current rate, when there are more). */
#define ALL_ROWS 4096

/* What the rows are sorted by ('s' cycles through them). */
enum order { BY_RATE, BY_PACKETS, BY_RETX, BY_NAKS, ORDERS };
static const char *const ORDER_NAME[ORDERS] = { "rate now", "packets", "re-sends", "NAKs" };

struct rs_liveview {
	FILE *out;
	bool screen;     /* redraw a screen (terminal and not -q) */
	bool color;
	bool bits;       /* --bits */
	const char *iface;
	uint64_t start_ns, prev_ns;
	uint64_t prev_frames, prev_payload, prev_bytes, prev_retx, prev_naks;
	enum order order;
	bool problems_only; /* 'p': only the QPs with a problem count */
	bool keys;          /* standard input is the terminal, read key by key */
	struct termios saved;
	struct rs_live_qp *all; /* [ALL_ROWS] */
	struct rs_live_qp rows[MAX_ROWS];
};

/* Keys without Enter and without echo while the screen is up; Ctrl-C
 * still stops (ISIG stays on). */
static void keys_on(struct rs_liveview *v)
{
	struct termios t;
	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &v->saved) != 0)
		return;
	t = v->saved;
	t.c_lflag &= (tcflag_t)~(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	v->keys = tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0;
}

/* The keys pressed since the last tick. */
static void read_keys(struct rs_liveview *v)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	char c;
	while (v->keys && poll(&pfd, 1, 0) == 1 && read(STDIN_FILENO, &c, 1) == 1) {
		if (c == 's')
			v->order = (enum order)((v->order + 1) % ORDERS);
		else if (c == 'p')
			v->problems_only = !v->problems_only;
		else if (c == 'q')
			kill(getpid(), SIGINT); /* as Ctrl-C: the capturing thread takes it */
	}
}

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
	v->all = calloc(ALL_ROWS, sizeof *v->all);
	if (!v->all) {
		free(v);
		return NULL;
	}
	if (v->screen) {
		fputs("\033[2J\033[?25l", out); /* clear, and hide the cursor while we redraw */
		keys_on(v);
	}
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
	if (v->keys)
		tcsetattr(STDIN_FILENO, TCSANOW, &v->saved);
	free(v->all);
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
 * The queue-pair table for the terminal's width, its columns as wide as
 * what they show: a queue pair's QP number and its problems are never cut.
 * Every column (a column per problem count, and a 20-character bar) when it
 * fits; narrower, the four problem counts become one column naming the
 * non-zero ones, then the bar, the average rate and the state go, and last
 * the addresses are shortened from the left ("…2.56"), the QP number kept.
 */
struct layout {
	int qp;           /* the queue pair's column, in screen columns */
	int problems;     /* the one "problems" column (when !counts) */
	bool state, avg;
	bool counts;      /* a column per problem count, else one "problems" column */
	int bar;          /* characters of the throughput bar, 0: none */
};

#define QP_HEAD "queue pair (src → dst QP)"

/* Screen columns of a UTF-8 string. */
static int cols_of(const char *s)
{
	int w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

static void problems_text(const struct rs_live_qp *q, char *p, size_t len)
{
	const struct { uint64_t n; const char *what; } c[] = {
		{ q->retransmitted, "retx" }, { q->naks, "NAK" }, { q->rnr_naks, "RNR" }, { q->cnps, "CNP" },
	};
	size_t k = 0;
	p[0] = '\0';
	for (size_t i = 0; i < sizeof c / sizeof c[0] && k < len; i++)
		if (c[i].n) {
			int w = snprintf(p + k, len - k, "%s%" PRIu64 " %s", k ? " " : "", c[i].n, c[i].what);
			k += w > 0 ? (size_t)w : 0;
		}
}

/* "src → dst 0xQPN" in at most w screen columns: the addresses shortened
 * from the left, each to the same share, the QP number whole. */
static void qp_label(const struct rs_live_qp *q, int w, char *buf, size_t len)
{
	char num[16];
	snprintf(num, sizeof num, " 0x%x", q->dest_qp);
	int ls = (int)strlen(q->src), ld = (int)strlen(q->dst), room = w - 3 - (int)strlen(num);
	if (room < 4)
		room = 4;
	if (ls + ld <= room) {
		snprintf(buf, len, "%s → %s%s", q->src, q->dst, num);
		return;
	}
	int ks = room / 2 > room - ld ? room / 2 : room - ld;
	if (ks > ls)
		ks = ls;
	int kd = room - ks < ld ? room - ks : ld;
	/* An address cut to k columns: "…" and its last k - 1 characters. */
	snprintf(buf, len, "%s%s → %s%s%s", ks < ls ? "…" : "", q->src + ls - (ks < ls ? ks - 1 : ls),
		 kd < ld ? "…" : "", q->dst + ld - (kd < ld ? kd - 1 : ld), num);
}

static void layout_for(struct layout *L, int cols, const struct rs_live_qp *rows, size_t n)
{
	int qp = cols_of(QP_HEAD), prob = (int)strlen("problems"), num = 0;
	for (size_t i = 0; i < n; i++) {
		char b[sizeof rows[0].src + sizeof rows[0].dst + 32], p[96];
		snprintf(b, sizeof b, "%.*s → %.*s 0x%x", (int)sizeof rows[i].src, rows[i].src, (int)sizeof rows[i].dst, rows[i].dst, rows[i].dest_qp);
		if (cols_of(b) > qp)
			qp = cols_of(b);
		problems_text(&rows[i], p, sizeof p);
		if ((int)strlen(p) > prob)
			prob = (int)strlen(p);
		snprintf(b, sizeof b, " 0x%x", rows[i].dest_qp);
		if ((int)strlen(b) > num)
			num = (int)strlen(b);
	}
	/* tr 4, state 12, now 12, average 12, packets 10, counts 22, " " and a bar */
	*L = (struct layout){ .qp = qp, .problems = prob, .state = true, .avg = true, .counts = true, .bar = 20 };
	if (cols >= qp + 1 + 4 + 12 + 12 + 12 + 10 + 22 + 1 + 20)
		return;
	L->counts = false;
	int rest = 1 + 4 + 12 + 12 + 12 + 10 + 1 + prob;
	L->bar = cols - (qp + rest + 1);
	if (L->bar >= 6)
		return;
	L->bar = 0;
	if (qp + rest <= cols)
		return;
	L->avg = false;
	rest -= 12;
	if (qp + rest <= cols)
		return;
	L->state = false;
	rest -= 12;
	/* Only the addresses shorten, to two columns each at least. */
	int least = 3 + num + 4;
	L->qp = cols - rest >= least ? cols - rest : least;
	if (L->qp > qp)
		L->qp = qp;
}

/* s, then spaces up to w screen columns. */
static int pad_to(char *buf, size_t len, const char *s, int w)
{
	int o = snprintf(buf, len, "%s", s);
	for (int k = cols_of(s); k < w && o > 0 && (size_t)o + 1 < len; k++)
		buf[o++] = ' ';
	if (o > 0 && (size_t)o < len)
		buf[o] = '\0';
	return o;
}

static void header_row(const struct rs_liveview *v, const struct layout *L, char *line, size_t len)
{
	const char *B = v->color ? "\033[1m" : "", *O = v->color ? "\033[0m" : "";
	int o = snprintf(line, len, "%s", B);
	o += pad_to(line + o, len - (size_t)o, QP_HEAD, L->qp);
	o += snprintf(line + o, len - (size_t)o, " %-3s ", "tr");
	if (L->state)
		o += snprintf(line + o, len - (size_t)o, "%-11s ", "state");
	o += snprintf(line + o, len - (size_t)o, "%11s ", "now");
	if (L->avg)
		o += snprintf(line + o, len - (size_t)o, "%11s ", "average");
	o += snprintf(line + o, len - (size_t)o, "%9s ", "packets");
	if (L->counts)
		o += snprintf(line + o, len - (size_t)o, "%5s %4s %4s %4s ", "retx", "NAK", "RNR", "CNP");
	else
		o += snprintf(line + o, len - (size_t)o, " %-*s", L->problems, "problems");
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
	char qp[200], b[160], r1[32], r2[32];
	qp_label(q, L->qp, qp, sizeof qp);
	int o = pad_to(line, len, qp, L->qp);
	o += snprintf(line + o, len - (size_t)o, " %-3s ", q->transport);
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
		char p[96];
		problems_text(q, p, sizeof p);
		bool bad = p[0] != '\0';
		o += snprintf(line + o, len - (size_t)o, " %s%-*s%s", bad && v->color ? "\033[31m" : "", L->problems,
			      bad ? p : "-", bad && v->color ? "\033[0m" : "");
	}
	if (L->bar) {
		bar(b, sizeof b, top > 0 ? q->rate_now_Bps / top : 0, L->bar);
		snprintf(line + o, len - (size_t)o, " %s%s%s", G, b, O);
	}
}

static uint64_t key_of(const struct rs_live_qp *q, enum order o)
{
	switch (o) {
	case BY_PACKETS: return q->packets;
	case BY_RETX: return q->retransmitted;
	case BY_NAKS: return q->naks + q->rnr_naks;
	default: return 0;
	}
}

static enum order sort_order;

static int by_order(const void *x, const void *y)
{
	uint64_t a = key_of(x, sort_order), b = key_of(y, sort_order);
	return a != b ? (a > b ? -1 : 1) : 0;
}

static bool has_problem(const struct rs_live_qp *q)
{
	return q->retransmitted || q->naks || q->rnr_naks || q->cnps || q->ecn_ce;
}

/* The rows to show, by the keys' order and filter: up to `room` of them. */
static size_t pick_rows(struct rs_liveview *v, struct rs_live *lv, const struct rs_analyzer *a, uint64_t period,
			size_t room, size_t *total)
{
	if (v->order == BY_RATE && !v->problems_only)
		return rs_live_qps(lv, a, period, v->rows, room, total);
	size_t n = rs_live_qps(lv, a, period, v->all, ALL_ROWS, total);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!v->problems_only || has_problem(&v->all[i]))
			v->all[k++] = v->all[i];
	if (v->order != BY_RATE) { /* stable enough: ties keep the rate's order (qsort may not; a tie is rare) */
		sort_order = v->order;
		qsort(v->all, k, sizeof v->all[0], by_order);
	}
	if (k > room)
		k = room;
	memcpy(v->rows, v->all, k * sizeof v->rows[0]);
	if (v->problems_only)
		*total = k;
	return k;
}

static void draw_screen(struct rs_liveview *v, struct rs_live *lv, const struct rs_analyzer *a, uint64_t now,
			uint64_t period)
{
	int cols, lines;
	term_size(v->out, &cols, &lines);
	struct rs_live_totals t;
	rs_live_totals(a, &t);
	size_t total = 0;
	int room = lines - 7 - EVENTS - 2;
	if (room < 1)
		room = 1;
	if (room > MAX_ROWS)
		room = MAX_ROWS;
	size_t n = pick_rows(v, lv, a, period, (size_t)room, &total);
	const char *B = v->color ? "\033[1m" : "", *R = v->color ? "\033[31m" : "", *G = v->color ? "\033[32m" : "",
		   *O = v->color ? "\033[0m" : "";
	char line[1024], r1[32];
	uint64_t el = now > v->start_ns ? (now - v->start_ns) / 1000000000u : 0;

	fputs("\033[H", v->out);
	double now_rate = period ? (t.payload_bytes - v->prev_payload) / (period / 1e9) : 0;
	/* Three lines that fit 80 columns: the run, its problems and
	 * connections, how to stop it. A problem count is red when not zero. */
	/* The payload rate counts each PSN once (goodput); what is on the
	 * wire (re-sends, headers, a replayed capture's second round) is the
	 * wire rate. */
	double wire_rate = period ? (t.bytes - v->prev_bytes) / (period / 1e9) : 0;
	char r2[32];
	double secs = period / 1e9;
	double retx_now = secs > 0 ? (t.retransmitted - v->prev_retx) / secs : 0;
	double naks_now = secs > 0 ? (t.naks - v->prev_naks) / secs : 0;
	/* Four lines that fit 80 columns: the run; the rates now; the
	 * problems and connections; the keys. A problem count is red when
	 * not zero. */
	snprintf(line, sizeof line, "%srocestat live%s  %s  %02" PRIu64 ":%02" PRIu64 ":%02" PRIu64
		 "  %" PRIu64 " frames (%" PRIu64 " RoCE)  %zu QPs",
		 B, O, v->iface, el / 3600, el / 60 % 60, el % 60, t.frames, t.roce_frames, total);
	put_line(v, cols, line);
	snprintf(line, sizeof line, "now: goodput %s · wire %s · %s%.0f retx/s%s · %s%.0f NAK/s%s",
		 rate(v, now_rate, r1, sizeof r1), rate(v, wire_rate, r2, sizeof r2), retx_now > 0 ? R : "", retx_now,
		 retx_now > 0 ? O : "", naks_now > 0 ? R : "", naks_now, naks_now > 0 ? O : "");
	put_line(v, cols, line);
	snprintf(line, sizeof line, "%s%" PRIu64 " retx%s · %s%" PRIu64 " NAK%s · %s%" PRIu64 " CNP%s · %" PRIu64
		 " conns: %s%" PRIu64 " up%s, %s%" PRIu64 " rejected%s, %" PRIu64 " incomplete",
		 t.retransmitted ? R : "", t.retransmitted, t.retransmitted ? O : "", t.naks ? R : "", t.naks,
		 t.naks ? O : "", t.cnps ? R : "", t.cnps, t.cnps ? O : "", t.connections, t.established ? G : "",
		 t.established, t.established ? O : "", t.rejected ? R : "", t.rejected, t.rejected ? O : "",
		 t.incomplete);
	put_line(v, cols, line);
	snprintf(line, sizeof line, "%s by %s · %skeys: s sort, p problems, q stop",
		 v->problems_only ? "QPs with problems" : "all QPs", ORDER_NAME[v->order], v->keys ? "" : "no ");
	put_line(v, cols, line);
	struct layout L;
	layout_for(&L, cols, v->rows, n);
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
		" retransmitted=%" PRIu64 " retransmitted_per_s=%.0f naks=%" PRIu64 " naks_per_s=%.0f rnr_naks=%" PRIu64
		" cnps=%" PRIu64 " ecn_ce=%" PRIu64 " icrc_bad=%" PRIu64,
		now / 1000000000u, now % 1000000000u / 1000000u, (now - v->start_ns) / 1e9, t.frames,
		secs > 0 ? (t.frames - v->prev_frames) / secs : 0, t.roce_frames, t.payload_bytes,
		secs > 0 ? (t.payload_bytes - v->prev_payload) / secs : 0, t.bytes,
		secs > 0 ? (t.bytes - v->prev_bytes) / secs : 0, total, t.connections, t.established,
		t.retransmitted, secs > 0 ? (t.retransmitted - v->prev_retx) / secs : 0, t.naks,
		secs > 0 ? (t.naks - v->prev_naks) / secs : 0, t.rnr_naks, t.cnps, t.ecn_ce, t.icrc_bad);
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
	if (v->screen) {
		read_keys(v);
		draw_screen(v, lv, a, now_ns, period);
	} else {
		print_line(v, lv, a, now_ns, period);
	}
	struct rs_live_totals t;
	rs_live_totals(a, &t);
	v->prev_retx = t.retransmitted;
	v->prev_naks = t.naks;
	v->prev_frames = t.frames;
	v->prev_payload = t.payload_bytes;
	v->prev_bytes = t.bytes;
	v->prev_ns = now_ns;
}
