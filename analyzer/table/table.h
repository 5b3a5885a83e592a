/*
 * table/table.h — the table room:
 * the table of half-flows: finding, making, evicting them (flowtable.c),
 * pairing them into connections (pair.c), UD conversations (udpair.c).
 *
 * What the room's files offer each other and the rooms above it
 * (lowest first: records, congestion, whole, messages, table, cm, transport;
 * make layers keeps calls and includes going down).
 */
#ifndef RS_ANALYZER_TABLE_H
#define RS_ANALYZER_TABLE_H

#include "analyzer/messages/messages.h"

/* flowtable.c: finding, making, evicting and retiring half-flows. */
void rs_flows_init(struct rs_analyzer *a);
void rs_flows_free(struct rs_analyzer *a);
struct rs_flow *rs_flow_find(struct rs_analyzer *a, const struct rs_flowkey *k);
/* The frame's half-flow, found or made (evicting under --max-flows,
 * retiring a flow whose QP number was reused). */
struct rs_flow *rs_flow_get(struct rs_analyzer *a, const struct rs_flowkey *k, const struct rs_frame *f,
			    const struct rs_frame_meta *m);
/* Take a half-flow out of the table (it stays in the reports): its key now
 * belongs to a new connection. */
void rs_flow_retire(struct rs_analyzer *a, struct rs_flow *fl);
/* Whether a packet at time ts cannot continue fl's traffic: the QP number
 * names another QP now, and fl is retired. Within RS_STALE_NS, packets are
 * taken as the same QP's (RS_STALE_NS, conn.h). */
bool rs_flow_stale(const struct rs_flow *fl, uint64_t ts);

/* pair.c: pairing half-flows, by handshake or by inference. */
void rs_pair_init(struct rs_analyzer *a);
void rs_pair_free(struct rs_analyzer *a);
void rs_pair_new_flow(struct rs_analyzer *a, struct rs_flow *fl);
void rs_pair_infer(struct rs_analyzer *a, struct rs_flow *resp_flow, uint32_t psn);
void rs_pair_link(struct rs_flow *x, struct rs_flow *y, enum rs_pair how);
void rs_pair_forget_flow(struct rs_analyzer *a, struct rs_flow *fl);
/* fl's peer is gone (evicted, or overruled by a handshake): it may be paired
 * by inference again. */
void rs_pair_lost_peer(struct rs_analyzer *a, struct rs_flow *fl);
/* A connection's half-flow, seen: the two are linked (and a pairing by
 * inference the handshake overrules is undone). */
void rs_pair_attach(struct rs_analyzer *a, struct rs_flow *fl, struct rs_conn *c);
void rs_sidr_link_reply(struct rs_analyzer *a, struct rs_flow *fl);

/* udpair.c: UD conversations and the replies paired with requests; ev is
 * the frame's ladder event + 1 (0: none). */
void rs_udconv_frame(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m, size_t ev);
void rs_udconv_free(struct rs_analyzer *a);

/* pair.c: the half-flows from fl's destination to its source that were not
 * paired when last looked at (rs_pair_infer()'s candidates), oldest first:
 * n of them, some NULL, some paired since. */
struct rs_flow *const *rs_pair_unpaired(struct rs_analyzer *a, const struct rs_flow *fl, guint *n);

#endif
