/*
 * layout.h — text laid out for a width: display widths that ignore colour
 * escapes and count UTF-8 characters, paragraphs wrapped at spaces, lists
 * wrapped at their separators, cells padded or cut with "…".
 *
 * A width of 0 means unlimited: everything comes out on one line, as it
 * was before widths existed (--width 0, and what the tests parse).
 */
#ifndef RS_LAYOUT_H
#define RS_LAYOUT_H

#include <stdbool.h>
#include <stdio.h>

#include "report/outbuf.h"

/* Characters a terminal shows for s: UTF-8 code points, not bytes, and no
 * colour escape (ESC [ ... m) counted. */
int rs_dwidth(const char *s);

/* `text` after `first` on the first line and after `rest` on the next ones,
 * broken at spaces so that no line is wider than `width` (a word longer
 * than a line is broken where the line ends). Ends with a newline. */
void rs_para(FILE *out, int width, const char *first, const char *rest, const char *text);

/* items[0..n) joined by `sep` after `first`; an item that would pass
 * `width` starts a new line after `rest` instead. Ends with a newline. */
void rs_items(FILE *out, int width, const char *first, const char *rest, const char *sep, const char *const *items,
	      int n);

/* `s` in a column of `width` characters, cut with "…" if longer, padded on
 * the left (`right`) or the right. */
void rs_cell(struct rs_outbuf *o, const char *s, int width, bool right);

#endif
