/*
 * afeed.c — an analyzer fed hand-built frames (afeed.h).
 */
#include "tests/support/afeed.h"

void rt_feed_start(struct rt_feed *r, struct rs_analyzer_opts o)
{
	r->an = rs_analyzer_new(&o);
	rs_analyzer_add_file(r->an, "synthetic", 1);
	r->frame_no = 0;
}

void rt_feed_stop(struct rt_feed *r)
{
	rs_analyzer_free(r->an);
	r->an = NULL;
}

void rt_feed_add(struct rt_feed *r, struct rs_frame f, uint64_t ts_ns, struct rs_verdict *v)
{
	struct rs_frame_meta m = { .frame_no = ++r->frame_no, .ts_ns = ts_ns, .wirelen = 100 + f.payload_len,
				   .caplen = 100 + f.payload_len };
	if (v)
		rs_analyzer_add_v(r->an, &m, &f, v);
	else
		rs_analyzer_add(r->an, &m, &f);
}
