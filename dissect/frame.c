/*
 * frame.c — copying a frame with its extension blocks (dissect.h).
 */
#include "dissect/dissect.h"

void rs_frame_copy(struct rs_frame *dst, struct rs_frame_ext *x, const struct rs_frame *src)
{
	*dst = *src;
	if (src->pdu) {
		x->pdu = *src->pdu;
		dst->pdu = &x->pdu;
	}
	if (src->mad) {
		x->mad = *src->mad;
		dst->mad = &x->mad;
	}
	if (src->pfc) {
		x->pfc = *src->pfc;
		dst->pfc = &x->pfc;
	}
	if (src->walk) {
		x->walk = *src->walk;
		dst->walk = &x->walk;
	}
	if (src->adv) {
		x->adv = *src->adv;
		dst->adv = &x->adv;
	}
}
