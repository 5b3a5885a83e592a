/*
 * vfeed.h — where the views get the analyzer's verdict on each frame they
 * show (struct rs_verdict): an analyzer of their own, fed every frame of
 * the file in order (frames that are not RoCE too: the analyzer counts
 * them), new for each file, since a verdict's frame numbers are the file's.
 * The views print the verdict; they never work one out. A verdict the
 * analyzer may still correct (a re-send whose run is not settled,
 * rs_analyzer_unsettled) holds its frame, and the frames after it, back
 * until it is settled, so that every frame is shown once, in order, with
 * its final verdict. Private to views/.
 */
#ifndef RS_VIEWS_VFEED_H
#define RS_VIEWS_VFEED_H

#include "analyzer/analyzer.h"
#include "views/sink.h"

/* A view showing one frame and its verdict; false: stop. */
typedef bool (*vfeed_show)(void *ctx, const struct rs_packet *pkt, const struct rs_frame *f,
			   const struct rs_verdict *v);

struct vfeed_held;

struct vfeed {
	struct rs_analyzer *an;
	/* What the run's analysis was told (--ulp): the views' analyzer is told the same. */
	struct rs_ulp_map ulp[8];
	uint8_t n_ulp;
	/* The frames held back, oldest first: `n` from `head` in `held`. */
	struct vfeed_held *held;
	size_t head, n, cap;
	bool stop;            /* a show returned false */
};

/* A new file: what was remembered of the last one goes (what was held is
 * shown first). */
void rs_vfeed_file(struct vfeed *vf, const char *name, int dlt, vfeed_show show, void *ctx);
/* Add the frame, and show it (with what the analyzer concluded about it)
 * and any frames held before it as soon as their verdicts are final.
 * false: a show returned false. */
bool rs_vfeed_frame(struct vfeed *vf, const struct rs_packet *pkt, const struct rs_frame *f, vfeed_show show, void *ctx);
/* Show every frame held, settling what is not settled yet (the end of a
 * file, a pause in the input). */
void rs_vfeed_flush(struct vfeed *vf, vfeed_show show, void *ctx);
/* The analyzer goes; frames still held are dropped unshown. */
void rs_vfeed_end(struct vfeed *vf);

#endif
