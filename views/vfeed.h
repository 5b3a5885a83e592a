/*
 * vfeed.h — where the views get the analyzer's verdict on each frame they
 * show (struct rs_verdict): an analyzer of their own, fed every frame of
 * the file in order (frames that are not RoCE too: the analyzer counts
 * them), new for each file, since a verdict's frame numbers are the file's.
 * The views print the verdict; they never work one out. Private to views/.
 */
#ifndef RS_VIEWS_VFEED_H
#define RS_VIEWS_VFEED_H

#include "analyzer/analyzer.h"
#include "capture/sink.h"

struct vfeed {
	struct rs_analyzer *an;
	/* What the run's analysis was told (--ulp): the views' analyzer is told the same. */
	struct rs_ulp_map ulp[8];
	uint8_t n_ulp;
};

/* A new file: what was remembered of the last one goes. */
void vfeed_file(struct vfeed *vf, const char *name, int dlt);
/* Add the frame and fill *v with what the analyzer concluded about it. */
void vfeed_frame(struct vfeed *vf, const struct rs_packet *pkt, const struct rs_frame *f, struct rs_verdict *v);
void vfeed_end(struct vfeed *vf);

#endif
