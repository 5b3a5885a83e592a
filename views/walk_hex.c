/*
 * walk_hex.c — the annotated hex dump: 16 bytes a line with the offset, the
 * bytes and their ASCII, and under any line where a layer starts a marker
 * row with "^NAME" under that layer's first byte. With colour, each layer's
 * bytes also take its colour. Runs of identical lines inside one layer (zero
 * fill in a payload) are folded into one "*" line that says how many lines
 * it stands for; every captured byte is accounted for, none beyond caplen.
 */
#include <string.h>

#include "views/walk_int.h"

#define PER_LINE 16
#define MAX_MARK_ROWS 4

/* Which layer owns each byte: the last recorded layer containing it (the
 * MAD and CM layers are recorded after, and inside, the payload). */
static int owner_of(const struct rs_frame *f, uint32_t i)
{
	for (int k = f->walk->nlayers - 1; k >= 0; k--) {
		const struct rs_layer *l = &f->walk->layers[k];
		if (i >= l->off && (uint64_t)i < (uint64_t)l->off + l->len)
			return k;
	}
	return -1;
}

static const char *label_of(const struct walk *w, int k)
{
	const struct rs_frame *f = w->f;
	if (k < 0)
		return "not decoded";
	unsigned id = f->walk->layers[k].id;
	if (id == RS_L_CM)
		return f->mad->is_cm ? rs_wfmt("CM %s", rs_cm_attr_name(f->mad->hdr.attr_id)) : "MAD data";
	return rs_layer_name((enum rs_layer_id)id);
}

static const char *sgr_of(const struct walk *w, int k)
{
	return k < 0 ? "" : rs_wlayer_sgr(w->f->walk->layers[k].id);
}

static int byte_col(unsigned j)
{
	return COL_LABEL + 3 * (int)j + (j >= 8 ? 1 : 0);
}

struct mark {
	unsigned j;
	int owner;
};

static void marks(struct walk *w, const struct mark *m, unsigned n)
{
	unsigned row_of[PER_LINE];
	int row_end[MAX_MARK_ROWS];
	unsigned rows = 0;

	for (unsigned i = 0; i < n; i++) {
		int col = byte_col(m[i].j);
		unsigned r = 0;
		while (r < rows && col <= row_end[r])
			r++;
		if (r == MAX_MARK_ROWS)
			r = MAX_MARK_ROWS - 1;
		if (r == rows)
			row_end[rows++] = -1;
		row_of[i] = r;
		row_end[r] = col + 1 + (int)strlen(label_of(w, m[i].owner));
	}
	for (unsigned r = 0; r < rows; r++) {
		int col = 0;
		for (unsigned i = 0; i < n; i++) {
			if (row_of[i] != r)
				continue;
			int c = byte_col(m[i].j);
			if (c < col)
				continue; /* only if more than MAX_MARK_ROWS crowd one line */
			while (col < c) {
				fputc(' ', w->out);
				col++;
			}
			const char *lab = label_of(w, m[i].owner);
			rs_wsgr(w, sgr_of(w, m[i].owner));
			fprintf(w->out, "^%s", lab);
			rs_wsgr_off(w);
			col += 1 + (int)strlen(lab);
		}
		fputc('\n', w->out);
	}
}

/* rs_wsgr() and rs_wsgr_off() into a line being built (w->color on). */
static char *put_sgr(char *q, const char *sgr)
{
	if (sgr && *sgr)
		q += sprintf(q, "\033[%sm", sgr);
	return q;
}

static char *put_sgr_off(char *q)
{
	memcpy(q, "\033[0m", 4);
	return q + 4;
}

/* One line of the dump, built in a buffer and written at once: the dump is
 * most of the walkthrough's text, and a stdio call per byte cost more than
 * everything else it prints. */
static void line(struct walk *w, uint32_t base, unsigned n, const int *own)
{
	static const char hex[] = "0123456789abcdef";
	/* the offset, 16 bytes in hex and as text, and at most two colour
	 * changes a byte (each under 16 characters) */
	char buf[64 + PER_LINE * 4 + 2 * PER_LINE * 2 * 16];
	const uint8_t *p = w->pkt->data + base;
	int cur = -2;

	char *q = buf + sprintf(buf, "    %04x  ", base);
	for (unsigned j = 0; j < PER_LINE; j++) {
		if (j == 8)
			*q++ = ' ';
		if (j >= n) {
			memcpy(q, "   ", 3);
			q += 3;
			continue;
		}
		if (w->color && own[j] != cur) {
			q = put_sgr(put_sgr_off(q), sgr_of(w, own[j]));
			cur = own[j];
		}
		*q++ = hex[p[j] >> 4];
		*q++ = hex[p[j] & 15];
		*q++ = ' ';
	}
	if (w->color)
		q = put_sgr_off(q);
	cur = -2;
	*q++ = ' ';
	for (unsigned j = 0; j < n; j++) {
		if (w->color && own[j] != cur) {
			q = put_sgr(put_sgr_off(q), sgr_of(w, own[j]));
			cur = own[j];
		}
		*q++ = p[j] >= 0x20 && p[j] < 0x7F ? (char)p[j] : '.';
	}
	if (w->color)
		q = put_sgr_off(q);
	*q++ = '\n';
	fwrite(buf, 1, (size_t)(q - buf), w->out);
}

void rs_walk_hexdump(struct walk *w)
{
	const struct rs_frame *f = w->f;
	uint32_t cap = w->pkt->caplen;
	int prev_owner = -2;
	uint32_t base = 0;

	rs_wout(w, "\n  Hex dump: %u byte%s captured; ^ marks the first byte of each layer\n", cap, cap == 1 ? "" : "s");
	while (base < cap) {
		unsigned n = cap - base < PER_LINE ? cap - base : PER_LINE;
		int own[PER_LINE];
		struct mark m[PER_LINE];
		unsigned nm = 0;
		for (unsigned j = 0; j < n; j++) {
			own[j] = owner_of(f, base + j);
			if (own[j] != prev_owner)
				m[nm++] = (struct mark){ j, own[j] };
			prev_owner = own[j];
		}
		line(w, base, n, own);
		if (nm)
			marks(w, m, nm);
		base += n;

		/* Fold the identical full lines that follow, inside the same layer. */
		unsigned same = 0;
		const uint8_t *ref = w->pkt->data + base - PER_LINE;
		while (n == PER_LINE && base + (same + 1) * PER_LINE <= cap) {
			uint32_t b = base + same * PER_LINE;
			if (memcmp(w->pkt->data + b, ref, PER_LINE) != 0 || owner_of(f, b) != prev_owner ||
			    owner_of(f, b + PER_LINE - 1) != prev_owner)
				break;
			same++;
		}
		if (same >= 2) {
			fprintf(w->out, "    *     %u more lines the same as the one above, up to 0x%04x\n", same,
				base + same * PER_LINE - 1);
			base += same * PER_LINE;
		}
	}
	if (w->pkt->wirelen > cap)
		rs_wout(w, "    (%u more byte%s on the wire %s not captured)\n", w->pkt->wirelen - cap,
		     w->pkt->wirelen - cap == 1 ? "" : "s", w->pkt->wirelen - cap == 1 ? "was" : "were");
}
