/*
 * json.c — see json.h. Strings are escaped per RFC 8259: quote, backslash
 * and control characters; bytes >= 0x80 pass through (our strings are UTF-8).
 */
#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "analyzer/json.h"

void rs_json_init(struct rs_json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->has_items[0] = false;
	j->n = 0;
}

static void flush(struct rs_json *j)
{
	if (j->n)
		fwrite(j->buf, 1, j->n, j->out);
	j->n = 0;
}

static void put(struct rs_json *j, const char *s, size_t len)
{
	if (j->n + len > sizeof j->buf) {
		flush(j);
		if (len > sizeof j->buf) {
			fwrite(s, 1, len, j->out);
			return;
		}
	}
	memcpy(j->buf + j->n, s, len);
	j->n += len;
}

static void put_c(struct rs_json *j, char c)
{
	if (j->n == sizeof j->buf)
		flush(j);
	j->buf[j->n++] = c;
}

#define PUT_LIT(j, lit) put((j), (lit), sizeof(lit) - 1)

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
	put_c(j, '"');
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
		put(j, run, (size_t)((const char *)p - run));
		put(j, esc, strlen(esc));
		run = (const char *)p + 1;
	}
	put(j, run, strlen(run));
	put_c(j, '"');
	g_free(valid);
}

static void indent(struct rs_json *j, int depth)
{
	/* 2 * RS_JSON_MAX_DEPTH spaces and the terminator (an array without
	 * it draws -Wunterminated-string-initialization from newer compilers). */
	static const char spaces[] = "                                                                ";
	_Static_assert(sizeof spaces > 2 * RS_JSON_MAX_DEPTH, "a row of spaces for the deepest level");
	put(j, spaces, 2 * (size_t)depth);
}

/* Separator, newline and indentation before a member, then its key. */
static void member(struct rs_json *j, const char *key)
{
	if (j->depth > 0) {
		if (j->has_items[j->depth])
			put_c(j, ',');
		put_c(j, '\n');
		j->has_items[j->depth] = true;
		indent(j, j->depth);
	}
	if (key) {
		escape(j, key);
		PUT_LIT(j, ": ");
	}
}

static void open(struct rs_json *j, const char *key, char c)
{
	member(j, key);
	put_c(j, c);
	if (j->depth + 1 < RS_JSON_MAX_DEPTH)
		j->depth++;
	j->has_items[j->depth] = false;
}

static void close_(struct rs_json *j, char c)
{
	bool items = j->has_items[j->depth];
	if (j->depth > 0)
		j->depth--;
	if (items) {
		put_c(j, '\n');
		indent(j, j->depth);
	}
	put_c(j, c);
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
		PUT_LIT(j, "null");
}

/* v in decimal (what "%" PRIu64 prints, without parsing a format). */
static void put_u64(struct rs_json *j, uint64_t v)
{
	char d[20];
	int i = sizeof d;
	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(j, d + i, sizeof d - (size_t)i);
}

void rs_json_u64(struct rs_json *j, const char *key, uint64_t v)
{
	member(j, key);
	put_u64(j, v);
}

void rs_json_i64(struct rs_json *j, const char *key, int64_t v)
{
	member(j, key);
	if (v < 0) {
		put_c(j, '-');
		put_u64(j, 0 - (uint64_t)v); /* INT64_MIN too: its magnitude fits a uint64_t */
	} else {
		put_u64(j, (uint64_t)v);
	}
}

void rs_json_dbl(struct rs_json *j, const char *key, double v)
{
	member(j, key);
	if (isfinite(v)) {
		char d[32];
		int len = snprintf(d, sizeof d, "%.9g", v);
		put(j, d, (size_t)len);
	} else {
		PUT_LIT(j, "null");
	}
}

void rs_json_bool(struct rs_json *j, const char *key, bool v)
{
	member(j, key);
	if (v)
		PUT_LIT(j, "true");
	else
		PUT_LIT(j, "false");
}

void rs_json_null(struct rs_json *j, const char *key)
{
	member(j, key);
	PUT_LIT(j, "null");
}

void rs_json_done(struct rs_json *j)
{
	put_c(j, '\n');
	flush(j);
}
