/*
 * afeed.h — an analyzer fed hand-built frames, as the unit tests of the
 * analysis use one: a single file named "synthetic" (Ethernet), frames
 * numbered from 1, each on the wire as 100 bytes and its payload. The
 * frames themselves come from rt_roce_frame() (rstest.h).
 */
#ifndef RS_TEST_AFEED_H
#define RS_TEST_AFEED_H

#include <stdint.h>

#include "analyzer/analyzer.h"

struct rt_feed {
	struct rs_analyzer *an;
	uint64_t frame_no; /* the last frame added */
};

/* A new analyzer with these options. */
void rt_feed_start(struct rt_feed *r, struct rs_analyzer_opts o);
void rt_feed_stop(struct rt_feed *r);
/* f added as the next frame, at ts_ns; its verdict in *v unless v is NULL. */
void rt_feed_add(struct rt_feed *r, struct rs_frame f, uint64_t ts_ns, struct rs_verdict *v);

#endif
