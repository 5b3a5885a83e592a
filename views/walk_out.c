/*
 * walk_out.c — the walkthrough's output primitives: aligned field lines,
 * bit fields drawn over their byte, word-wrapped explanations, and colour
 * (ANSI SGR) only when the options say so. Nothing here knows a protocol.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "views/walk_int.h"

#define NSCRATCH 24
#define SCRATCH_LEN 512

const char *rs_wfmt(const char *fmt, ...)
{
	static char bufs[NSCRATCH][SCRATCH_LEN];
	static unsigned next;
	char *b = bufs[next++ % NSCRATCH];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b, SCRATCH_LEN, fmt, ap);
	va_end(ap);
	return b;
}

const char *rs_whex(uint64_t v, int digits)
{
	return rs_wfmt("0x%0*" PRIx64, digits, v);
}

const char *rs_whexdec(uint64_t v, int digits)
{
	return rs_wfmt("0x%0*" PRIx64 " (%" PRIu64 ")", digits, v, v);
}

const char *rs_wbytes(const uint8_t *p, unsigned n, char sep)
{
	char b[SCRATCH_LEN];
	size_t k = 0;
	for (unsigned i = 0; i < n && k + 4 < sizeof b; i++) {
		if (i && sep)
			b[k++] = sep;
		k += (size_t)snprintf(b + k, sizeof b - k, "%02x", p[i]);
	}
	b[k] = '\0';
	return rs_wfmt("%s", b);
}

void rs_wout(struct walk *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(w->out, fmt, ap);
	va_end(ap);
}

void rs_wsgr(struct walk *w, const char *sgr)
{
	if (w->color && sgr && *sgr)
		fprintf(w->out, "\033[%sm", sgr);
}

void rs_wsgr_off(struct walk *w)
{
	if (w->color)
		fputs("\033[0m", w->out);
}

/* One colour per kind of layer, the same in the headings and the hex dump. */
const char *rs_wlayer_sgr(unsigned id)
{
	switch (id) {
	case RS_L_ERF: case RS_L_SLL: case RS_L_SLL2: return "34";
	case RS_L_ETH: return "34";
	case RS_L_VLAN: return "94";
	case RS_L_LRH: return "34";
	case RS_L_IPV4: case RS_L_IPV6: case RS_L_GRH: return "32";
	case RS_L_IPV6_EXT: return "92";
	case RS_L_UDP: return "33";
	case RS_L_BTH: return "1;35";
	case RS_L_RDETH: case RS_L_XRCETH: case RS_L_FETH: case RS_L_IETH: return "96";
	case RS_L_DETH: case RS_L_RETH: case RS_L_ATOMICETH: case RS_L_CNP: return "36";
	case RS_L_AETH: case RS_L_ATOMICACKETH: case RS_L_IMMDT: return "96";
	case RS_L_MAD: return "1;33";
	case RS_L_CM: return "93";
	case RS_L_PAYLOAD: return "";
	case RS_L_PAD: return "2";
	case RS_L_ICRC: case RS_L_VCRC: return "31";
	case RS_L_TRAILER: return "2";
	case RS_L_PFC: return "36";
	default: return "";
	}
}

static int pad_to(struct walk *w, int col, int target)
{
	static const char spaces[] = "                                ";
	while (col < target) {
		int k = target - col < (int)sizeof spaces - 1 ? target - col : (int)sizeof spaces - 1;
		fwrite(spaces, 1, (size_t)k, w->out);
		col += k;
	}
	return col;
}

void rs_wwrap(struct walk *w, int col, int indent, const char *text)
{
	const char *p = text;
	bool first = true;
	while (*p) {
		int gap = 0;
		while (*p == ' ') {
			p++;
			gap++;
		}
		if (!*p)
			break;
		if (first)
			gap = 0;
		size_t n = strcspn(p, " ");
		/* A word too wide for any line starts on this one and breaks. */
		if (!first && col + gap + (int)n > w->width && (int)n <= w->width - indent) {
			fputc('\n', w->out);
			col = pad_to(w, 0, indent);
			gap = 0;
		}
		col = pad_to(w, col, col + gap);
		/* A word wider than a whole line (a long path) breaks after the
		 * last '/' that fits, else where the line ends (never inside a
		 * UTF-8 character). */
		while (w->width > 0 && col + (int)n > w->width && (int)n > w->width - indent && w->width > col) {
			size_t cut = (size_t)(w->width - col);
			for (size_t j = cut; j > 1; j--)
				if (p[j - 1] == '/') {
					cut = j;
					break;
				}
			while (cut > 1 && ((unsigned char)p[cut] & 0xc0) == 0x80)
				cut--;
			fwrite(p, 1, cut, w->out);
			fputc('\n', w->out);
			col = pad_to(w, 0, indent);
			p += cut;
			n -= cut;
		}
		fwrite(p, 1, n, w->out);
		col += (int)n;
		p += n;
		first = false;
	}
	fputc('\n', w->out);
}

void rs_wtitle(struct walk *w, unsigned id, const char *long_name, uint32_t off, uint32_t len)
{
	rs_wtitle_named(w, id, rs_layer_name((enum rs_layer_id)id), long_name, off, len);
}

void rs_wtitle_named(struct walk *w, unsigned id, const char *name, const char *long_name, uint32_t off, uint32_t len)
{
	const char *where = len == 1 ? rs_wfmt("at 0x%04x, 1 byte", off)
				     : rs_wfmt("0x%04x-0x%04x, %u bytes", off, off + len - 1, len);
	uint64_t end = (uint64_t)off + len;
	if (end > w->f->caplen)
		where = rs_wfmt("%s (%u captured)", where, off < w->f->caplen ? w->f->caplen - off : 0);

	int col = 2 + (int)strlen(name) + (long_name ? 2 + (int)strlen(long_name) : 0);
	fputs("\n  ", w->out);
	rs_wsgr(w, rs_wlayer_sgr(id));
	rs_wsgr(w, "1");
	fputs(name, w->out);
	rs_wsgr_off(w);
	if (long_name)
		fprintf(w->out, "  %s", long_name);
	int right = w->width - (int)strlen(where);
	if (right < col + 2) { /* no room beside the names: right-aligned below them */
		fputc('\n', w->out);
		col = 0;
	}
	col = pad_to(w, col, right > col + 2 ? right : col + 2);
	fprintf(w->out, "%s\n", where);
}

static void field_line(struct walk *w, uint32_t off, const char *label, const char *value, const char *note)
{
	int col = 4;
	fputs("    ", w->out);
	if (off != UINT32_MAX)
		col += fprintf(w->out, "%04x", off);
	col = pad_to(w, col, COL_LABEL);
	fputs(label, w->out);
	col += (int)strlen(label);
	col = pad_to(w, col, col < COL_VALUE - 1 ? COL_VALUE : col + 2);
	fputs(value, w->out);
	col += (int)strlen(value);
	if (!note || !*note) {
		fputc('\n', w->out);
		return;
	}
	col = pad_to(w, col, col < COL_NOTE - 1 ? COL_NOTE : col + 2);
	rs_wwrap(w, col, COL_NOTE, note);
}

void rs_wfield(struct walk *w, uint32_t off, const char *label, const char *value, const char *note, ...)
{
	char buf[1024] = "";
	if (note) {
		va_list ap;
		va_start(ap, note);
		vsnprintf(buf, sizeof buf, note, ap);
		va_end(ap);
	}
	field_line(w, off, label, value, buf);
}

void rs_wbits(struct walk *w, uint32_t off, unsigned nbytes, unsigned shift, unsigned width, uint64_t value,
	   const char *label, const char *note, ...)
{
	char pat[80];
	size_t k = 0;
	unsigned total = nbytes * 8;
	for (unsigned i = 0; i < total && k + 2 < sizeof pat; i++) {
		unsigned bit = total - 1 - i; /* position from the least significant bit */
		if (i && i % 4 == 0)
			pat[k++] = ' ';
		if (bit >= shift && bit < shift + width)
			pat[k++] = (char)('0' + ((value >> (bit - shift)) & 1));
		else
			pat[k++] = '.';
	}
	pat[k] = '\0';

	char buf[1024] = "";
	if (note) {
		va_list ap;
		va_start(ap, note);
		vsnprintf(buf, sizeof buf, note, ap);
		va_end(ap);
	}
	field_line(w, off, label, rs_wfmt("%s = %" PRIu64, pat, value), buf);
}

static void say(struct walk *w, const char *mark, const char *sgr, const char *fmt, va_list ap)
{
	char buf[2048];
	vsnprintf(buf, sizeof buf, fmt, ap);
	fputs("    ", w->out);
	rs_wsgr(w, sgr);
	fputs(mark, w->out);
	rs_wsgr_off(w);
	int col = 4 + (int)strlen(mark);
	/* Continuation lines keep the margin mark so the paragraph reads as one. */
	const char *p = buf;
	bool first = true;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		size_t n = strcspn(p, " ");
		int need = (first ? 0 : 1) + (int)n;
		if (!first && col + need > w->width) {
			fputs("\n    ", w->out);
			rs_wsgr(w, sgr);
			fprintf(w->out, "%-*s", (int)strlen(mark), mark[0] == '!' ? "!!" : ">");
			rs_wsgr_off(w);
			col = 4 + (int)strlen(mark);
			need = (int)n;
			first = true;
		}
		if (!first)
			fputc(' ', w->out);
		fwrite(p, 1, n, w->out);
		col += need;
		p += n;
		first = false;
	}
	fputc('\n', w->out);
}

void rs_wsay(struct walk *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(w, "> ", "2", fmt, ap);
	va_end(ap);
}

void rs_wsay_marked(struct walk *w, const char *mark, const char *sgr, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(w, mark, sgr, fmt, ap);
	va_end(ap);
}

bool rs_wcap(const struct walk *w, uint32_t off, uint32_t len)
{
	return (uint64_t)off + len <= w->pkt->caplen;
}

const char *rs_walk_addr(const struct rs_addr *a)
{
	char b[RS_ADDR_STRLEN];
	rs_addr_format(a, b);
	if (a->kind == RS_ADDR_LID)
		return rs_wfmt("LID %s", b);
	return rs_wfmt("%s", b);
}

const char *rs_walk_ecn_name(uint8_t ecn)
{
	static const char *const n[4] = { "Not-ECT", "ECT(1)", "ECT(0)", "CE" };
	return n[ecn & 3];
}

const char *rs_walk_pkey_note(uint16_t pkey)
{
	if ((pkey & 0x7FFF) == 0x7FFF)
		return pkey & 0x8000 ? "default partition, full member" : "default partition, limited member";
	return pkey & 0x8000 ? "full member of the partition" : "limited member of the partition";
}

const char *rs_walk_duration(double us)
{
	if (us < 1000)
		return rs_wfmt("%.3g µs", us);
	if (us < 1e6)
		return rs_wfmt("%.3g ms", us / 1e3);
	return rs_wfmt("%.3g s", us / 1e6);
}

bool rs_walk_first(struct walk *w, unsigned id)
{
	id %= WALK_TOPICS;
	uint64_t bit = 1ull << (id % 64);
	bool first = !(w->explained[id / 64] & bit);
	w->explained[id / 64] |= bit;
	return first;
}

const char *rs_walk_once(struct walk *w, unsigned topic, const char *text)
{
	return rs_walk_first(w, topic) ? text : "";
}
