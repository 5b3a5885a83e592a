/*
 * cm/cm.h — the cm room:
 * connections from the CM handshake (cmtrack.c), and a connection's
 * upper-layer protocol module (ulp.c).
 *
 * What the room's files offer each other and the rooms above it
 * (lowest first: records, congestion, whole, messages, table, cm, transport;
 * make layers keeps calls and includes going down).
 */
#ifndef RS_ANALYZER_CM_H
#define RS_ANALYZER_CM_H

#include "analyzer/table/table.h"

/* ulp.c: the connection's upper-layer protocol, its row of the modules'
 * table (from its service ID, once known, or --ulp), and the module's
 * queue state if it keeps one. */
void rs_ulp_assign(struct rs_analyzer *a, struct rs_conn *c);
/* ulp.c: half-flow pairs without a CM connection, their protocol told by
 * shape or --ulp qp: (rs_ulp_nocm_frame: each frame with a transport
 * payload of a half-flow without one, when a->ulp_offer). */
void rs_ulp_init(struct rs_analyzer *a);
void rs_ulp_free(struct rs_analyzer *a);
void rs_ulp_finish(struct rs_analyzer *a);
void rs_ulp_nocm_frame(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f,
		       const struct rs_frame_meta *m);
/* Nothing more to look at: every module refused the half-flow's pair (the
 * frames of most RC traffic without CM take only this test). */
static inline bool rs_ulp_refused(const struct rs_flow *fl)
{
	const struct rs_uq *u = fl->x ? fl->x->uq : NULL;
	return fl->ulp_refused || (u && u->done && !u->c);
}

/* cmtrack.c: CM messages, connections, their eviction and ladder events. */
void rs_cm_frame(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m);
void rs_cm_finish(struct rs_analyzer *a);
/* The connections and the ladder's events: made and freed by cmtrack.c,
 * which owns them (pairing reads them, and frees nothing of theirs). */
void rs_cm_init(struct rs_analyzer *a);
void rs_cm_free(struct rs_analyzer *a);
void rs_conn_ladder(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f,
		    const struct rs_frame_meta *m, bool retrans, uint32_t gap);

#endif
