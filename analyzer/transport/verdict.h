/*
 * verdict.h — how the trackers hand their conclusions about the frame being
 * added to its struct rs_verdict (analyzer.h), while rs_analyzer_add_v()
 * runs: the calls below are made only when a->v is set. verdict.c keeps
 * what later verdicts need (frame numbers), in a->vs. Internal to analyzer/.
 */
#ifndef RS_ANALYZER_VERDICT_H
#define RS_ANALYZER_VERDICT_H

#include "analyzer/cm/cm.h"

/* What the frame itself says (its ICRC, whether it was sliced) and, for a
 * CM message, what it answers: before the frame is added. */
void rs_v_begin(struct rs_analyzer *a, const struct rs_frame_meta *m, const struct rs_frame *f,
		struct rs_verdict *v);
/* A new input file: frame numbers start again, so the references go. */
void rs_v_new_file(struct rs_analyzer *a);
void rs_v_free(struct rs_analyzer *a);

/* Its PSN against the stream's expectation: d = PSN - expected; `fresh`
 * for a packet behind it, whether it is the first sighting of that PSN. */
void rs_v_psn(struct rs_verdict *v, int32_t d, bool fresh);

/* psn.c: a request packet, once its PSN was judged (d, fresh as above). */
void rs_v_request(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f,
		  const struct rs_frame_meta *m, int32_t d, bool fresh);
/* psn.c: a response packet (ACK, NAK, atomic ACK, READ response). */
void rs_v_response(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f,
		   const struct rs_frame_meta *m);
/* psn.c: a PSN sequence error NAK, on response half-flow fl. */
void rs_v_nak(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f, const struct rs_fref *at);
/* psn.c: the backward run that began at `at` was one late packet. */
void rs_v_late(struct rs_analyzer *a, const struct rs_fref *at);
/* psn.c: the request was re-sent, for `cause` (enum rs_resend), after the
 * NAK at `after` (frame 0: none), `wait_ns` after it or the last packet. */
void rs_v_resend(struct rs_analyzer *a, uint8_t cause, const struct rs_fref *after, uint64_t wait_ns);
/* runs.c: the verdict of `frame` (of the current file), given before its
 * re-send run's cause was settled, is now: re-sent for `cause`, after
 * `after`, `wait_ns` after it (rs_analyzer_fix hands it on). */
void rs_v_fix(struct rs_analyzer *a, uint64_t frame, uint8_t cause, const struct rs_fref *after, uint64_t wait_ns);
/* advert.c: the SEND `frame` (of the current file), whose verdict was
 * given, had its advertisement used by frame `use`. */
void rs_v_fix_use(struct rs_analyzer *a, uint64_t frame, uint64_t use);
/* psn.c: the request behind the expected PSN was not re-sent: it came late
 * (late), or is a copy the network made. */
void rs_v_not_resent(struct rs_verdict *v, bool late);

#endif
