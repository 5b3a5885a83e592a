/*
 * whole/whole.h — the whole room:
 * what is kept of the capture as a whole: the per-interval rows (timeline.c),
 * RoCE v1 and v2 between the same hosts (versions.c), traits of the capture
 * path (sniffer.c).
 *
 * What the room's files offer each other and the rooms above it
 * (lowest first: records, congestion, whole, messages, table, cm, transport;
 * make layers keeps calls and includes going down).
 */
#ifndef RS_ANALYZER_WHOLE_H
#define RS_ANALYZER_WHOLE_H

#include "analyzer/congestion/congestion.h"

/* versions.c: RoCE v1 and v2 between the same hosts. */
void rs_versions_note(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m);
/* RoCE versions seen between two hosts (a->versions: struct rs_hostpair -> this). */
struct rs_version_seen {
	uint8_t mask;             /* 1 v1, 2 v2 */
	struct rs_fref at[2];
};

/* sniffer.c: traits of the capture path. */
void rs_sniffer_init(struct rs_analyzer *a);
void rs_sniffer_free(struct rs_analyzer *a);
void rs_sniffer_frame(struct rs_analyzer *a, const struct rs_frame *f);
void rs_sniffer_finish(struct rs_analyzer *a);

/* timeline.c */
struct rs_tl_row {
	struct rs_flow *fl;
	struct rs_tl c;
};
/* The current interval's counters of a flow (rs_tl_touch() first; counts
 * of a flow that is not active any more go nowhere, as before). */
static inline struct rs_tl *rs_tl_of(struct rs_analyzer *a, struct rs_flow *fl)
{
	return fl->tl_slot ? &g_array_index(a->tl_rows, struct rs_tl_row, fl->tl_slot - 1).c : &a->tl_void;
}
/* A frame's payload: `fresh` bytes of it first sightings of their PSN (the
 * goodput), the rest on the wire again. For the interval's row, and the
 * flow's peak rates when there are no rows (rs_tl_touch): goodput in
 * iv_payload, what was on the wire again in its rare counters (only flows
 * that re-send have them). */
static inline void rs_tl_payload(struct rs_analyzer *a, struct rs_flow *fl, uint64_t fresh, uint32_t bytes)
{
	rs_tl_of(a, fl)->goodput += fresh;
	if (!a->tl_rows_on) {
		fl->iv_payload += fresh;
		if (__builtin_expect(bytes != fresh, 0))
			rs_rare_w(fl)->iv_again += bytes - fresh;
	}
}
void rs_tl_frame(struct rs_analyzer *a, uint64_t ts_ns);
void rs_tl_touch(struct rs_analyzer *a, struct rs_flow *fl);
/* A latency sample of requester `req`, counted in the current interval's
 * row of req (for the --timeline CSV only; a READ's first response, not
 * its last). */
void rs_tl_lat(struct rs_analyzer *a, struct rs_flow *req, enum rs_lat_kind k, uint64_t ns);
void rs_tl_flush(struct rs_analyzer *a);
void rs_tl_flush_flow(struct rs_analyzer *a, struct rs_flow *fl);
void rs_tl_new_file(struct rs_analyzer *a);

#endif
