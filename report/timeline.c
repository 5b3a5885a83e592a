/*
 * timeline.c — the --timeline CSV: one row per half-flow and interval, as
 * the analyzer closes them (rs_analyzer_opts.interval).
 *
 *   [file,]interval_start,interval_start_epoch,src,dst,dest_qp,packets,bytes,
 *   payload_bytes_on_wire,payload_bytes,messages,retransmissions,naks,ecn_ce,cnps,
 *   pause_priority,paused_ns,latency_samples,latency_min_ns,latency_mean_ns,
 *   latency_max_ns
 *
 * pause_priority and paused_ns are empty on half-flow rows; the rows of the
 * PAUSE/PFC senders (rs_tlcsv_pause_row) have src the sender's MAC, the
 * counts 0, the priority (0-7, "all" for PAUSE) and the time it was
 * paused within the interval (file empty: a link's pause is no file's),
 * and empty latency columns. The latency columns are the analyzer's
 * per-interval figures of the requests the half-flow sent; min, mean and
 * max are empty when there was no sample.
 *
 * dest_qp in hex (0x12), as the text summary, the ladder and the walkthrough
 * write QP numbers. With `fill` (--timeline-fill), a half-flow's idle
 * intervals between two of its rows are rows of zeros, for tools that want
 * a dense grid; without, they are left out.
 *
 * Rows are in time order, whatever their flow: the analyzer hands a
 * flow's rows as its intervals close, the filler rows of an idle stretch
 * come with the row after it, and the pause rows at the end, so every row
 * is kept (its line in one buffer) and they are sorted by their interval
 * (stably: within an interval, in the order they came) and written at the
 * end, in blocks.
 */
#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "report/outbuf.h"
#include "report/report.h"

/* ---- the CSV row, formatted by hand (printf was a fifth of --timeline's
 * cost with thousands of flows per interval); the bytes are printf's. */

#define TL_IDLE_ROWS_MAX 1000 /* zero rows of one idle stretch; longer: its first and last */
#define TL_ADDR_CACHE 1024 /* formatted addresses kept: 2^10, see tl_addr() */

struct rs_tl_addr {
	struct rs_addr a;
	bool used;
	uint8_t len;
	char text[RS_ADDR_STRLEN];
};

static char *put_u64(char *p, uint64_t v)
{
	char tmp[20];
	char *e = tmp + sizeof tmp, *q = e;
	do {
		*--q = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(p, q, (size_t)(e - q));
	return p + (e - q);
}

static char *put_secs(char *p, uint64_t ns) /* "%llu.%09llu" */
{
	p = put_u64(p, ns / 1000000000u);
	*p++ = '.';
	uint32_t frac = (uint32_t)(ns % 1000000000u);
	for (int i = 8; i >= 0; i--) {
		p[i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	return p + 9;
}

struct rs_tl_line {
	uint64_t start_ns;
	uint64_t off;             /* in lines */
	uint32_t len;
	uint32_t seq;             /* arrival order, for a stable sort */
};

struct rs_tlcsv {
	FILE *out;
	int64_t qp;               /* rows only for this QP's connection (-1: all) */
	uint64_t interval_ns;
	bool file_column;
	bool fill;                /* zero rows for idle intervals */
	GByteArray *lines;        /* the rows' text, until the end */
	GArray *index;            /* of struct rs_tl_line */
	struct rs_outbuf o;
	char buf[16384];
	struct rs_tl_addr addr[TL_ADDR_CACHE];
};

static char *tl_addr(struct rs_tlcsv *w, char *p, const struct rs_addr *adp)
{
	struct rs_addr ad = *adp;
	uint32_t h = ad.kind * 0x9E3779B1u;
	for (int i = 0; i < 16; i += 4) {
		uint32_t word;
		memcpy(&word, ad.b + i, 4);
		h = (h ^ word) * 0x85EBCA6Bu;
	}
	struct rs_tl_addr *e = &w->addr[h >> 22]; /* top bits: they depend on every input bit */
	if (!e->used || e->a.kind != ad.kind || memcmp(e->a.b, ad.b, 16) != 0) {
		char t[RS_ADDR_STRLEN];
		const char *txt = rs_addr_format(&ad, t);
		e->a = ad;
		e->used = true;
		e->len = (uint8_t)strlen(txt);
		memcpy(e->text, txt, e->len);
	}
	memcpy(p, e->text, e->len);
	return p + e->len;
}

struct rs_tlcsv *rs_tlcsv_new(FILE *out, int64_t qp, uint64_t interval_ns, bool file_column, bool fill)
{
	struct rs_tlcsv *w = g_new0(struct rs_tlcsv, 1);
	w->out = out;
	w->qp = qp;
	w->interval_ns = interval_ns;
	w->file_column = file_column;
	w->fill = fill;
	w->lines = g_byte_array_new();
	w->index = g_array_new(FALSE, FALSE, sizeof(struct rs_tl_line));
	rs_outbuf_init(&w->o, out, w->buf, sizeof w->buf);
	rs_outbuf_str(&w->o, file_column ? "file," : "", 0);
	rs_outbuf_str(&w->o, "interval_start,interval_start_epoch,src,dst,dest_qp,packets,bytes,payload_bytes_on_wire,"
			     "payload_bytes,messages,"
			     "retransmissions,naks,ecn_ce,cnps,pause_priority,paused_ns,"
			     "latency_samples,latency_min_ns,latency_mean_ns,latency_max_ns\n", 0);
	return w;
}

static char *put_hex(char *p, uint32_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[8];
	int n = 0;
	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v);
	*p++ = '0';
	*p++ = 'x';
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* The file's name as a CSV field (RFC 4180: quoted if it holds a comma, a
 * quote or a line break); at most 200 bytes of it. */
static char *put_file(char *p, const char *name)
{
	size_t n = strnlen(name ? name : "", 200);
	bool quote = name && strcspn(name, ",\"\r\n") < n;
	if (quote)
		*p++ = '"';
	for (size_t i = 0; i < n; i++) {
		if (name[i] == '"')
			*p++ = '"';
		*p++ = name[i];
	}
	if (quote)
		*p++ = '"';
	*p++ = ',';
	return p;
}

static void keep_line(struct rs_tlcsv *w, uint64_t start_ns, const char *line, size_t len)
{
	struct rs_tl_line l = { .start_ns = start_ns, .off = w->lines->len, .len = (uint32_t)len, .seq = w->index->len };
	g_byte_array_append(w->lines, (const guint8 *)line, (guint)len);
	g_array_append_val(w->index, l);
}

/* One row: the interval starting `back` intervals before r's, with r's
 * counts, or (back > 0) zeros. */
static void put_row(struct rs_tlcsv *w, const struct rs_interval_row *r, uint64_t back)
{
	char line[1024], *p = line;
	uint64_t before = back * w->interval_ns;
	if (w->file_column)
		p = put_file(p, r->file);
	p = put_secs(p, r->start_ns - before);
	*p++ = ',';
	p = put_secs(p, r->start_epoch_ns - before);
	*p++ = ',';
	p = tl_addr(w, p, &r->src);
	*p++ = ',';
	p = tl_addr(w, p, &r->dst);
	*p++ = ',';
	p = put_hex(p, r->dest_qp);
	const uint64_t v[] = { r->packets, r->bytes, r->payload, r->goodput, r->messages, r->retrans, r->naks, r->ecn_ce,
			       r->cnps };
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		*p++ = ',';
		p = put_u64(p, back ? 0 : v[i]);
	}
	*p++ = ','; /* pause_priority, paused_ns: a PAUSE/PFC sender's rows only */
	*p++ = ',';
	*p++ = ',';
	if (back) {
		memcpy(p, ",,,", 3); /* an idle interval: no latency measured */
		p += 3;
	} else {
		p = put_u64(p, r->lat_samples);
		const uint64_t l[] = { r->lat_min_ns, r->lat_mean_ns, r->lat_max_ns };
		for (size_t i = 0; i < 3; i++) {
			*p++ = ',';
			if (r->lat_samples)
				p = put_u64(p, l[i]);
		}
	}
	*p++ = '\n';
	keep_line(w, r->start_ns - before, line, (size_t)(p - line));
}

void rs_tlcsv_row(void *ctx, const struct rs_interval_row *r)
{
	struct rs_tlcsv *w = ctx;
	if (w->qp >= 0 && r->dest_qp != (uint32_t)w->qp && !(r->has_peer && r->peer_qp == (uint32_t)w->qp))
		return;
	/* A long idle stretch (hours at 1 ms, or a capture's clock jumping)
	 * would be millions of rows: its first and last zero rows draw the same
	 * steps to zero and back. */
	for (uint64_t back = w->fill ? r->idle_before : 0; back > 0; back--) {
		put_row(w, r, back);
		if (back == r->idle_before && back > TL_IDLE_ROWS_MAX)
			back = 2; /* then the last one */
	}
	put_row(w, r, 0);
}

void rs_tlcsv_pause_row(struct rs_tlcsv *w, uint64_t start_ns, uint64_t start_epoch_ns, const char *sender, int prio,
			uint64_t paused_ns)
{
	char line[256], *p = line;
	if (w->file_column)
		*p++ = ',';
	p = put_secs(p, start_ns);
	*p++ = ',';
	p = put_secs(p, start_epoch_ns);
	*p++ = ',';
	size_t n = strlen(sender);
	memcpy(p, sender, n);
	p += n;
	memcpy(p, ",,,0,0,0,0,0,0,0,0,0,", 21);
	p += 21;
	if (prio < 0) {
		memcpy(p, "all", 3);
		p += 3;
	} else {
		p = put_u64(p, (uint64_t)prio);
	}
	*p++ = ',';
	p = put_u64(p, paused_ns);
	memcpy(p, ",,,,\n", 5);
	p += 5;
	keep_line(w, start_ns, line, (size_t)(p - line));
}

static int line_cmp(const void *x, const void *y)
{
	const struct rs_tl_line *a = x, *b = y;
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The rows kept so far, in time order, then the stream. */
void rs_tlcsv_flush(struct rs_tlcsv *w)
{
	if (!w)
		return;
	if (w->index->len > 1) /* an empty GArray's data is NULL, which qsort must not get */
		qsort(w->index->data, w->index->len, sizeof(struct rs_tl_line), line_cmp);
	for (guint i = 0; i < w->index->len; i++) {
		const struct rs_tl_line *l = &g_array_index(w->index, struct rs_tl_line, i);
		rs_outbuf_put(&w->o, (const char *)w->lines->data + l->off, l->len);
	}
	g_array_set_size(w->index, 0);
	g_byte_array_set_size(w->lines, 0);
	rs_outbuf_flush(&w->o);
	fflush(w->out);
}

void rs_tlcsv_free(struct rs_tlcsv *w)
{
	if (!w)
		return;
	rs_tlcsv_flush(w);
	g_array_free(w->index, TRUE);
	g_byte_array_free(w->lines, TRUE);
	g_free(w);
}
