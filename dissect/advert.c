/*
 * advert.c — a SEND's first 16 payload bytes read as a buffer
 * advertisement (struct rs_adv in dissect.h): only a candidate, for the
 * analyzer to tie to the READs and WRITEs that use it, or not.
 */
#include "dissect/internal.h"

/* None that names no memory (rkey or length 0) or runs past the top of the
 * address space. */
void rs_dissect_advert(struct rs_dctx *d)
{
	struct rs_frame *f = d->f;
	if (f->payload_len < 16)
		return;
	struct rs_cursor c = rs_cur_at(d, f->payload_off);
	uint64_t va = rs_cur_be64(&c);
	uint32_t rkey = rs_cur_be32(&c), len = rs_cur_be32(&c);
	if (c.overrun || !rkey || !len || va > UINT64_MAX - len)
		return;
	d->x->adv = (struct rs_adv){ .va = va, .rkey = rkey, .len = len };
	f->adv = &d->x->adv;
	f->have |= RS_HAVE_ADV;
}
