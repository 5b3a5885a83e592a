/*
 * vfeed.c — the views' own analyzer (vfeed.h).
 */
#include <stdlib.h>
#include <string.h>

#include "views/vfeed.h"

struct vfeed_held {
	struct rs_packet pkt; /* data: a copy (NULL if the frame came without its bytes) */
	struct rs_frame f;     /* its extension blocks in x */
	struct rs_frame_ext *x; /* NULL if the frame has none */
	struct rs_verdict v;
};

/* Frames held at most: then every run is settled with what the capture
 * showed so far, and they go out. */
#define VFEED_HOLD 4096

static struct rs_analyzer *analyzer(const struct vfeed *vf)
{
	struct rs_analyzer_opts o = { .n_ulp = vf->n_ulp };
	memcpy(o.ulp, vf->ulp, sizeof o.ulp);
	return rs_analyzer_new(&o);
}

static void drop(struct vfeed *vf)
{
	for (size_t i = 0; i < vf->n; i++) {
		free((void *)vf->held[(vf->head + i) % vf->cap].pkt.data);
		free(vf->held[(vf->head + i) % vf->cap].x);
	}
	vf->head = vf->n = 0;
}

void rs_vfeed_file(struct vfeed *vf, const char *name, int dlt, vfeed_show show, void *ctx)
{
	rs_vfeed_flush(vf, show, ctx);
	rs_analyzer_free(vf->an);
	vf->an = analyzer(vf);
	rs_analyzer_add_file(vf->an, name, dlt);
}

/* The corrections since the last frame: to the held frames and to `cur`. */
static void apply_fixes(struct vfeed *vf, uint64_t frame_no, struct rs_verdict *cur)
{
	struct rs_verdict_fix fx;
	while (rs_analyzer_fix(vf->an, &fx)) {
		if (fx.frame == frame_no && cur) {
			rs_verdict_fix_apply(cur, &fx);
			continue;
		}
		for (size_t i = vf->n; i-- > 0;) {
			struct vfeed_held *h = &vf->held[(vf->head + i) % vf->cap];
			if (h->pkt.frame_no == fx.frame) {
				rs_verdict_fix_apply(&h->v, &fx);
				break;
			}
			if (h->pkt.frame_no < fx.frame)
				break;
		}
	}
}

/* Show the held frames older than `upto` (0: all). */
static void release(struct vfeed *vf, uint64_t upto, vfeed_show show, void *ctx)
{
	while (vf->n) {
		struct vfeed_held *h = &vf->held[vf->head];
		if (upto && h->pkt.frame_no >= upto)
			break;
		if (!vf->stop && !show(ctx, &h->pkt, &h->f, &h->v))
			vf->stop = true;
		free((void *)h->pkt.data);
		free(h->x);
		vf->head = (vf->head + 1) % vf->cap;
		vf->n--;
	}
	if (!vf->n)
		vf->head = 0;
}

static bool hold(struct vfeed *vf, const struct rs_packet *pkt, const struct rs_frame *f, const struct rs_verdict *v)
{
	if (vf->n == vf->cap) {
		size_t cap = vf->cap ? vf->cap * 2 : 64;
		struct vfeed_held *h = malloc(cap * sizeof *h);
		if (!h) /* no memory to wait in: what is held goes out as it is */
			return false;
		for (size_t i = 0; i < vf->n; i++)
			h[i] = vf->held[(vf->head + i) % vf->cap];
		free(vf->held);
		vf->held = h;
		vf->cap = cap;
		vf->head = 0;
	}
	struct vfeed_held *h = &vf->held[(vf->head + vf->n++) % vf->cap];
	h->pkt = *pkt;
	uint8_t *data = pkt->data ? malloc(pkt->caplen ? pkt->caplen : 1) : NULL;
	/* The frame's blocks are in its batch slot, which the next batch
	 * reuses: the held copy takes its own. */
	struct rs_frame_ext *x = rs_frame_has_ext(f) ? malloc(sizeof *x) : NULL;
	if ((pkt->data && !data) || (rs_frame_has_ext(f) && !x)) {
		free(data);
		free(x);
		vf->n--;
		return false;
	}
	if (data)
		memcpy(data, pkt->data, pkt->caplen);
	h->pkt.data = data;
	h->x = x;
	rs_frame_copy(&h->f, x, f);
	h->v = *v;
	return true;
}

bool rs_vfeed_frame(struct vfeed *vf, const struct rs_packet *pkt, const struct rs_frame *f, vfeed_show show, void *ctx)
{
	if (!vf->an) /* frames without a file first (not from the run loops) */
		vf->an = analyzer(vf);
	struct rs_frame_meta m = { .frame_no = pkt->frame_no, .ts_ns = rs_frame_time_ns(f, pkt->ts_ns),
				   .wirelen = rs_frame_wirelen(f, pkt->wirelen), .caplen = pkt->caplen };
	struct rs_verdict v;
	rs_analyzer_add_v(vf->an, &m, f, &v);
	apply_fixes(vf, pkt->frame_no, &v);
	uint64_t open = rs_analyzer_unsettled(vf->an);
	if (!vf->n && (!open || open > pkt->frame_no)) {
		if (!vf->stop && !show(ctx, pkt, f, &v))
			vf->stop = true;
		return !vf->stop;
	}
	bool held = hold(vf, pkt, f, &v);
	if (!held || vf->n >= VFEED_HOLD) {
		rs_analyzer_settle(vf->an);
		apply_fixes(vf, 0, NULL);
		open = 0;
	}
	release(vf, open, show, ctx);
	if (!held && !vf->stop && !show(ctx, pkt, f, &v))
		vf->stop = true;
	return !vf->stop;
}

void rs_vfeed_flush(struct vfeed *vf, vfeed_show show, void *ctx)
{
	if (vf->an && vf->n) {
		rs_analyzer_settle(vf->an);
		apply_fixes(vf, 0, NULL);
	}
	release(vf, 0, show, ctx);
}

void rs_vfeed_end(struct vfeed *vf)
{
	drop(vf);
	free(vf->held);
	vf->held = NULL;
	vf->cap = 0;
	vf->stop = false;
	rs_analyzer_free(vf->an);
	vf->an = NULL;
}
