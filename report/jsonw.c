/*
 * jsonw.c — see jsonw.h. Strings are escaped per RFC 8259: quote, backslash
 * and control characters; bytes >= 0x80 pass through (our strings are UTF-8).
 */
#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report/jsonw.h"

void rs_json_init(struct rs_json *j, FILE *out, bool compact)
{
	j->depth = 0;
	j->compact = compact;
	j->has_items[0] = false;
	rs_outbuf_init(&j->ob, out, j->buf, sizeof j->buf);
}

static void escape(struct rs_json *j, const char *raw)
{
	/* File names need not be UTF-8; JSON text must be (RFC 8259 8.1):
	 * invalid bytes become U+FFFD. Only text with bytes >= 0x80 can be
	 * invalid: ASCII (every key, most values) skips the check. */
	char *valid = NULL;
	for (const unsigned char *p = (const unsigned char *)raw; *p; p++)
		if (*p >= 0x80) {
			valid = g_utf8_validate(raw, -1, NULL) ? NULL : g_utf8_make_valid(raw, -1);
			break;
		}
	const char *s = valid ? valid : raw;
	rs_outbuf_putc(&j->ob, '"');
	const char *run = s; /* the bytes since the last escape, written together */
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		const char *esc;
		char u[8];
		switch (*p) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		default:
			if (*p >= 0x20)
				continue;
			snprintf(u, sizeof u, "\\u%04x", *p);
			esc = u;
		}
		rs_outbuf_put(&j->ob, run, (size_t)((const char *)p - run));
		rs_outbuf_put(&j->ob, esc, strlen(esc));
		run = (const char *)p + 1;
	}
	rs_outbuf_put(&j->ob, run, strlen(run));
	rs_outbuf_putc(&j->ob, '"');
	g_free(valid);
}

/* Separator, newline and indentation before a member, then its key. */
static void member(struct rs_json *j, const char *key)
{
	if (j->depth > 0) {
		if (j->has_items[j->depth])
			rs_outbuf_putc(&j->ob, ',');
		j->has_items[j->depth] = true;
		if (!j->compact) {
			rs_outbuf_putc(&j->ob, '\n');
			rs_outbuf_spaces(&j->ob, 2 * (size_t)j->depth);
		}
	}
	if (key) {
		escape(j, key);
		if (j->compact)
			rs_outbuf_putc(&j->ob, ':');
		else
			RS_OUTBUF_LIT(&j->ob, ": ");
	}
}

static void open(struct rs_json *j, const char *key, char c)
{
	member(j, key);
	rs_outbuf_putc(&j->ob, c);
	if (j->depth + 1 < RS_JSON_MAX_DEPTH)
		j->depth++;
	j->has_items[j->depth] = false;
}

static void close_(struct rs_json *j, char c)
{
	bool items = j->has_items[j->depth];
	if (j->depth > 0)
		j->depth--;
	if (items && !j->compact) {
		rs_outbuf_putc(&j->ob, '\n');
		rs_outbuf_spaces(&j->ob, 2 * (size_t)j->depth);
	}
	rs_outbuf_putc(&j->ob, c);
}

void rs_json_obj(struct rs_json *j, const char *key) { open(j, key, '{'); }
void rs_json_arr(struct rs_json *j, const char *key) { open(j, key, '['); }
void rs_json_end_obj(struct rs_json *j) { close_(j, '}'); }
void rs_json_end_arr(struct rs_json *j) { close_(j, ']'); }

void rs_json_str(struct rs_json *j, const char *key, const char *v)
{
	member(j, key);
	if (v)
		escape(j, v);
	else
		RS_OUTBUF_LIT(&j->ob, "null");
}

void rs_json_u64(struct rs_json *j, const char *key, uint64_t v)
{
	member(j, key);
	rs_outbuf_u64(&j->ob, v, 0);
}

void rs_json_i64(struct rs_json *j, const char *key, int64_t v)
{
	member(j, key);
	if (v < 0) {
		rs_outbuf_putc(&j->ob, '-');
		rs_outbuf_u64(&j->ob, 0 - (uint64_t)v, 0); /* INT64_MIN too: its magnitude fits a uint64_t */
	} else {
		rs_outbuf_u64(&j->ob, (uint64_t)v, 0);
	}
}

void rs_json_dbl(struct rs_json *j, const char *key, double v)
{
	member(j, key);
	if (isfinite(v)) {
		char d[32];
		int len = snprintf(d, sizeof d, "%.9g", v);
		rs_outbuf_put(&j->ob, d, (size_t)len);
	} else {
		RS_OUTBUF_LIT(&j->ob, "null");
	}
}

void rs_json_bool(struct rs_json *j, const char *key, bool v)
{
	member(j, key);
	if (v)
		RS_OUTBUF_LIT(&j->ob, "true");
	else
		RS_OUTBUF_LIT(&j->ob, "false");
}

void rs_json_null(struct rs_json *j, const char *key)
{
	member(j, key);
	RS_OUTBUF_LIT(&j->ob, "null");
}

void rs_json_done(struct rs_json *j)
{
	rs_outbuf_putc(&j->ob, '\n');
	rs_outbuf_flush(&j->ob);
}
