/*
 * layout.c — text laid out for a width (layout.h).
 */
#include <stdint.h>
#include <string.h>

#include "report/layout.h"

/* Bytes of s's character at s[0] (1 for an escape's bytes, counted apart). */
static size_t char_len(const char *s)
{
	unsigned char c = (unsigned char)*s;
	size_t n = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
	for (size_t i = 1; i < n; i++)
		if (!s[i])
			return i;
	return n;
}

/* Bytes of a colour escape at s, or 0. */
static size_t escape_len(const char *s)
{
	if (s[0] != '\033' || s[1] != '[')
		return 0;
	size_t i = 2;
	while (s[i] && s[i] != 'm')
		i++;
	return s[i] ? i + 1 : i;
}

static int dwidth_n(const char *s, size_t len)
{
	int w = 0;
	for (size_t i = 0; i < len && s[i];) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80 && c != '\033') { /* most of a report */
			i++;
			w++;
			continue;
		}
		size_t e = escape_len(s + i);
		if (e) {
			i += e;
			continue;
		}
		i += char_len(s + i);
		w++;
	}
	return w;
}

int rs_dwidth(const char *s)
{
	return dwidth_n(s, strlen(s));
}

/* The bytes of s that fill at most `cols` characters (escapes free). */
static size_t fit(const char *s, size_t len, int cols)
{
	size_t i = 0;
	int w = 0;
	while (i < len) {
		size_t e = escape_len(s + i);
		if (e) {
			i += e;
			continue;
		}
		if (w == cols)
			break;
		i += char_len(s + i);
		w++;
	}
	return i;
}

/* The units report/format.c writes after a number. */
static const char *const units[] = { "ns", "µs", "ms", "s", "B", "KiB", "MiB", "GiB", "TiB", "PiB", "B/s", "KiB/s",
				     "MiB/s", "GiB/s", "TiB/s", "b/s", "kb/s", "Mb/s", "Gb/s", "Tb/s" };

/* Bytes of a unit at s (after a number and one space), with the
 * punctuation that follows it up to the next space; 0 if none. */
static size_t unit_len(const char *s)
{
	/* Most words after a number are no unit: their first byte says so. */
	if (!s[0] || !strchr("nmsBKMGTPbk\xc2", s[0]))
		return 0;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		size_t n = strlen(units[i]);
		if (strncmp(s, units[i], n))
			continue;
		size_t k = n;
		while (s[k] && strchr(",;:)]", s[k]))
			k++;
		if (!s[k] || s[k] == ' ')
			return k;
	}
	return 0;
}

static bool names_number(const char *w, size_t n)
{
	static const char *const nouns[] = { "QP",  "frame", "frames", "PSN", "port", "connection", "REQ",
					     "REP", "RTU",   "MRA",    "REJ", "DREQ", "DREP" };
	for (size_t i = 0; i < sizeof nouns / sizeof nouns[0]; i++)
		if (n == strlen(nouns[i]) && !strncmp(w, nouns[i], n))
			return true;
	return false;
}

void rs_para(FILE *out, int width, const char *first, const char *rest, const char *text)
{
	fputs(first, out);
	if (width <= 0) {
		fputs(text, out);
		fputc('\n', out);
		return;
	}
	int col = rs_dwidth(first), indent = rs_dwidth(rest);
	bool empty = true; /* nothing yet on this line after its prefix */
	/* A line's words and the spaces between them are one stretch of the
	 * text: written once, from seg to end, when the line ends. */
	const char *p = text, *seg = NULL, *end = NULL;
	while (*p) {
		const char *sp = p;
		while (*p == ' ')
			p++;
		const char *word = p;
		while (*p && *p != ' ')
			p++;
		/* A noun that names the number after it stays with it ("QP 0x14a",
		 * "frame 430", "PSN 12", "DREP 13"): a line ending in "QP" says nothing. */
		if (p[0] == ' ' && p[1] >= '0' && p[1] <= '9' && names_number(word, (size_t)(p - word))) {
			p++;
			while (*p && *p != ' ')
				p++;
		}
		/* A number and its unit stay on one line ("13.4 µs"). */
		if (p > word && p[-1] >= '0' && p[-1] <= '9' && p[0] == ' ')
			p += unit_len(p + 1) ? 1 + unit_len(p + 1) : 0;
		size_t wlen = (size_t)(p - word);
		if (!wlen)
			break; /* trailing spaces */
		int spaces = empty ? 0 : (int)(word - sp), ww = dwidth_n(word, wlen);
		/* A new line when the word does not fit on this one and there is
		 * more before it than a new line would have (on the first line,
		 * a wider prefix: then the word fits better on the next). */
		if (col + spaces + ww > width && (!empty || (col > indent && indent + ww <= width))) {
			if (seg)
				fwrite(seg, 1, (size_t)(end - seg), out);
			fputc('\n', out);
			fputs(rest, out);
			col = indent;
			spaces = 0;
			empty = true;
			seg = NULL;
		}
		if (!seg)
			seg = word;
		col += spaces;
		/* A word wider than a whole line: broken where the line ends, or
		 * after the last '/' before that (a path breaks between names). */
		while (col + ww > width && width - col > 0 && ww > width - indent) {
			size_t n = fit(word, wlen, width - col);
			for (size_t k = n; k > 1; k--)
				if (word[k - 1] == '/') {
					n = k;
					break;
				}
			fwrite(seg, 1, (size_t)(word + n - seg), out);
			fputc('\n', out);
			fputs(rest, out);
			word += n;
			wlen -= n;
			seg = word;
			ww = dwidth_n(word, wlen);
			col = indent;
		}
		end = word + wlen;
		col += ww;
		empty = false;
	}
	if (seg)
		fwrite(seg, 1, (size_t)(end - seg), out);
	fputc('\n', out);
}

void rs_items(FILE *out, int width, const char *first, const char *rest, const char *sep, const char *const *items,
	      int n)
{
	fputs(first, out);
	int col = rs_dwidth(first), sw = rs_dwidth(sep);
	for (int i = 0; i < n; i++) {
		int w = rs_dwidth(items[i]);
		if (i && width > 0 && col + sw + w > width) {
			fputc('\n', out);
			fputs(rest, out);
			col = rs_dwidth(rest);
		} else if (i) {
			fputs(sep, out);
			col += sw;
		}
		fputs(items[i], out);
		col += w;
	}
	fputc('\n', out);
}

void rs_cell(struct rs_outbuf *o, const char *s, int width, bool right)
{
	int w = 0, keep = width - 1;
	size_t n = 0, cut = SIZE_MAX; /* cut: where character number `keep` starts */
	for (; s[n]; n++)
		if (((unsigned char)s[n] & 0xC0) != 0x80 && w++ == keep)
			cut = n;
	if (w > width) {
		rs_outbuf_put(o, s, cut == SIZE_MAX ? n : cut);
		RS_OUTBUF_LIT(o, "…");
		return;
	}
	if (right && w < width)
		rs_outbuf_spaces(o, (size_t)(width - w));
	rs_outbuf_put(o, s, n);
	if (!right && w < width)
		rs_outbuf_spaces(o, (size_t)(width - w));
}
