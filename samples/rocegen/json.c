#include "json.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void jb_reserve(struct jbuf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + more + 1)
		cap *= 2;
	char *s = realloc(b->s, cap);
	if (!s) {
		fprintf(stderr, "rocegen: out of memory\n");
		exit(1);
	}
	b->s = s;
	b->cap = cap;
}

void jb_printf(struct jbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	jb_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void jb_string(struct jbuf *b, const char *s)
{
	jb_printf(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			jb_printf(b, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			jb_printf(b, "\\u%04x", c);
		else
			jb_printf(b, "%c", c);
	}
	jb_printf(b, "\"");
}

void jb_hex(struct jbuf *b, const void *data, size_t len)
{
	const unsigned char *p = data;
	jb_printf(b, "\"");
	for (size_t i = 0; i < len; i++)
		jb_printf(b, "%02x", p[i]);
	jb_printf(b, "\"");
}

void jb_u64(struct jbuf *b, uint64_t v)
{
	jb_printf(b, "\"0x%016" PRIx64 "\"", v);
}

void jb_item(struct jbuf *b)
{
	if (b->items++)
		jb_printf(b, ",\n    ");
	else
		jb_printf(b, "\n    ");
}

void jb_free(struct jbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}
