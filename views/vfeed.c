/*
 * vfeed.c — the views' own analyzer (vfeed.h).
 */
#include <string.h>

#include "views/vfeed.h"

static struct rs_analyzer *analyzer(const struct vfeed *vf)
{
	struct rs_analyzer_opts o = { .n_ulp = vf->n_ulp };
	memcpy(o.ulp, vf->ulp, sizeof o.ulp);
	return rs_analyzer_new(&o);
}

void vfeed_file(struct vfeed *vf, const char *name, int dlt)
{
	rs_analyzer_free(vf->an);
	vf->an = analyzer(vf);
	rs_analyzer_add_file(vf->an, name, dlt);
}

void vfeed_frame(struct vfeed *vf, const struct rs_packet *pkt, const struct rs_frame *f, struct rs_verdict *v)
{
	if (!vf->an) /* frames without a file first (not from the run loops) */
		vf->an = analyzer(vf);
	struct rs_frame_meta m = { .frame_no = pkt->frame_no, .ts_ns = rs_frame_time_ns(f, pkt->ts_ns),
				   .wirelen = rs_frame_wirelen(f, pkt->wirelen), .caplen = pkt->caplen };
	rs_analyzer_add_v(vf->an, &m, f, v);
}

void vfeed_end(struct vfeed *vf)
{
	rs_analyzer_free(vf->an);
	vf->an = NULL;
}
