/*
 * escape.c — names that came from outside (file names on the command line,
 * and the messages that quote them) made safe for a terminal: a control
 * character (C0, DEL, C1) or a byte that is not UTF-8 would otherwise move
 * the cursor, ring the bell or start an escape sequence. They are written
 * as in C and JSON (\n, \t, \r, \xHH for each byte of the rest), so a
 * name that needed escaping still reads as itself. A backslash stays one:
 * it moves no cursor, and messages quote names for the shell with it
 * (gzip -dc 'it'\''s.gz').
 */
#include <glib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "report/escape.h"

char *rs_escape_ctl(const char *s, bool keep_final_newline)
{
	GString *out = g_string_sized_new(strlen(s) + 8);
	const char *p = s, *end = s + strlen(s);
	while (p < end) {
		unsigned char c = (unsigned char)*p;
		if (c == '\n' && keep_final_newline && p + 1 == end) {
			g_string_append_c(out, '\n');
			p++;
		} else if (c == '\n' || c == '\t' || c == '\r') {
			g_string_append_c(out, '\\');
			g_string_append_c(out, c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
			p++;
		} else if (c < 0x20 || c == 0x7F) {
			g_string_append_printf(out, "\\x%02x", c);
			p++;
		} else if (c < 0x80) {
			g_string_append_c(out, (char)c);
			p++;
		} else {
			gunichar u = g_utf8_get_char_validated(p, end - p);
			int n = u < (gunichar)-2 ? g_utf8_skip[c] : 1;
			if (u >= (gunichar)-2 || (u >= 0x80 && u <= 0x9F)) { /* not UTF-8, or a C1 control */
				for (int k = 0; k < n; k++)
					g_string_append_printf(out, "\\x%02x", (unsigned char)p[k]);
			} else {
				g_string_append_len(out, p, n);
			}
			p += n;
		}
	}
	return g_string_free(out, FALSE);
}

void rs_eprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	char *safe = rs_escape_ctl(msg, true);
	fputs(safe, stderr);
	g_free(safe);
	g_free(msg);
}
