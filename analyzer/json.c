/*
 * json.c — see json.h. Strings are escaped per RFC 8259: quote, backslash
 * and control characters; bytes >= 0x80 pass through (our strings are UTF-8).
 */
#include <glib.h>
#include <inttypes.h>
#include <math.h>

#include "analyzer/json.h"

void rs_json_init(struct rs_json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->has_items[0] = false;
}

static void escape(FILE *out, const char *raw)
{
	/* File names need not be UTF-8; JSON text must be (RFC 8259 8.1):
	 * invalid bytes become U+FFFD. */
	char *valid = g_utf8_validate(raw, -1, NULL) ? NULL : g_utf8_make_valid(raw, -1);
	const char *s = valid ? valid : raw;
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (*p < 0x20)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
	g_free(valid);
}

/* Separator, newline and indentation before a member, then its key. */
static void member(struct rs_json *j, const char *key)
{
	if (j->depth > 0) {
		fputs(j->has_items[j->depth] ? ",\n" : "\n", j->out);
		j->has_items[j->depth] = true;
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->out);
	}
	if (key) {
		escape(j->out, key);
		fputs(": ", j->out);
	}
}

static void open(struct rs_json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->out);
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
		fputc('\n', j->out);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->out);
	}
	fputc(c, j->out);
}

void rs_json_obj(struct rs_json *j, const char *key) { open(j, key, '{'); }
void rs_json_arr(struct rs_json *j, const char *key) { open(j, key, '['); }
void rs_json_end_obj(struct rs_json *j) { close_(j, '}'); }
void rs_json_end_arr(struct rs_json *j) { close_(j, ']'); }

void rs_json_str(struct rs_json *j, const char *key, const char *v)
{
	member(j, key);
	if (v)
		escape(j->out, v);
	else
		fputs("null", j->out);
}

void rs_json_u64(struct rs_json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->out, "%" PRIu64, v);
}

void rs_json_i64(struct rs_json *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->out, "%" PRId64, v);
}

void rs_json_dbl(struct rs_json *j, const char *key, double v)
{
	member(j, key);
	if (isfinite(v))
		fprintf(j->out, "%.9g", v);
	else
		fputs("null", j->out);
}

void rs_json_bool(struct rs_json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->out);
}

void rs_json_null(struct rs_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->out);
}

void rs_json_done(struct rs_json *j)
{
	fputc('\n', j->out);
}
