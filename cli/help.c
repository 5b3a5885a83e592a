/*
 * help.c — `rocestat --help` and the usage a bare `rocestat` prints, laid
 * out for the terminal they are read on.
 *
 * GLib's own --help puts every description in one column after the
 * longest option (-Z, --relinquish-privileges=USER) and never wraps, so
 * half its lines ran past an 80-column terminal. Here GLib still writes
 * the option list (one source for names and texts); each description is
 * wrapped under its own column, and the usage paragraph is ours: GLib's
 * prints "[OPTION?]" outside a UTF-8 locale and knows one form only.
 */
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/cli.h"

static const char usage[] =
	"Usage:\n"
	"  rocestat [OPTION...] FILE... [BPF filter expression]\n"
	"  rocestat -r FILE [-w OUT] [OPTION...] [BPF filter expression]\n"
	"  rocestat -i IFACE [-w OUT] [OPTION...] [BPF filter expression]\n"
	"  rocestat -D\n";

/* The terminal's width, 80 for a pipe or a file (and never less than 60,
 * below which a hanging column leaves no room for words). */
static int help_width(FILE *f)
{
	struct winsize ws;
	int w = 80;
	if (isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		w = ws.ws_col;
	return w < 60 ? 60 : w;
}

/* Where an indented line's second column starts (an option's description,
 * an example's explanation): after the first run of two or more spaces
 * that follows its first word; 0 if the line has none. */
static size_t desc_column(const char *line, size_t len)
{
	size_t i = 0;
	while (i < len && line[i] == ' ')
		i++;
	if (i < 2 || i >= len)
		return 0;
	for (; i + 1 < len; i++)
		if (line[i] == ' ' && line[i + 1] == ' ') {
			size_t j = i;
			while (j < len && line[j] == ' ')
				j++;
			return j < len ? j : 0;
		}
	return 0;
}

/* One line of GLib's help: as it is if it fits, else its words wrapped
 * under the description column (prose under its own indentation); where that column would leave fewer than
 * 30 characters, the option stands alone and its words follow eight
 * spaces in. */
static void put_wrapped(FILE *f, const char *line, size_t len, int width)
{
	if ((int)len <= width) {
		fprintf(f, "%.*s\n", (int)len, line);
		return;
	}
	size_t col = desc_column(line, len);
	if (col == 0) /* prose: wrapped under its own indentation */
		while (col < len && line[col] == ' ')
			col++;
	size_t indent = col;
	if ((int)col + 30 > width) {
		fprintf(f, "%.*s\n", (int)col, line);
		indent = 8;
		fprintf(f, "%*s", (int)indent, "");
	} else {
		fprintf(f, "%.*s", (int)col, line);
	}
	const char *p = line + col, *end = line + len;
	size_t at = indent;
	bool first = true;
	while (p < end) {
		while (p < end && *p == ' ')
			p++;
		const char *w = p;
		while (p < end && *p != ' ')
			p++;
		size_t wl = (size_t)(p - w);
		if (wl == 0)
			break;
		if (!first && at + 1 + wl > (size_t)width) {
			fprintf(f, "\n%*s", (int)indent, "");
			at = indent;
			first = true;
		}
		fprintf(f, "%s%.*s", first ? "" : " ", (int)wl, w);
		at += wl + !first;
		first = false;
	}
	fputc('\n', f);
}

void rs_cli_print_help(FILE *f, GOptionContext *ctx)
{
	gchar *text = g_option_context_get_help(ctx, TRUE, NULL);
	int width = help_width(f);
	/* GLib's first paragraph is its one-line usage: ours replaces it. */
	const char *p = strstr(text, "\n\n");
	p = p ? p + 2 : text;
	fputs(usage, f);
	fputc('\n', f);
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		put_wrapped(f, p, len, width);
		p += len + (nl != NULL);
	}
	g_free(text);
}

void rs_cli_print_usage(FILE *f)
{
	fputs(usage, f);
	fputs("\nrocestat --help lists every option; man rocestat explains the reports.\n", f);
}
