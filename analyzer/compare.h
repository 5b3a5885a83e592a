/*
 * compare.h — `rocestat --compare A B`: the same traffic captured at two
 * points. Each side's packets (those with a BTH) are added with a hash of
 * the bytes that do not change between points (rs_frame_content_hash); a
 * packet at A and one at B are the same when their half-flow (source,
 * destination, destination QP), PSN and hash are, the k-th sighting at A
 * with the k-th at B (a re-sent packet is seen once per sending). What
 * is left over on each side was seen at one point only.
 *
 * The clocks of the two captures differ by an unknown offset. It is
 * estimated from the smallest delays (rs_cmp_result.method):
 *   RS_CMP_TWO_WAY  the matched packets of a host pair go both ways, and
 *                   every (time at B - time at A) of one direction exceeds
 *                   every one of the other: that direction passes A first;
 *                   the offset is the midpoint of the first direction's
 *                   minimum and the other's maximum (NTP's rule: the
 *                   fastest packet took as long each way);
 *   RS_CMP_MINIMUM  otherwise: every packet is taken to pass A first, and
 *                   the offset is the minimum (time at B - time at A): the
 *                   fastest packet's delay counts as 0.
 * One-way delays are then (time at B - time at A - offset), or its
 * negation for a direction that passes B first.
 *
 * A packet seen at one point only whose time, put on the other capture's
 * clock, is not inside that capture's window (its earliest to its latest
 * frame read: a file that stopped early ends at its last good frame) was
 * missed by the other capture, not by the network: it is counted apart
 * (outside[]) and not left among only[]. With no packet matched the clocks
 * cannot be put together, and nothing is counted outside. Pure state, no
 * output.
 */
#ifndef RS_ANALYZER_COMPARE_H
#define RS_ANALYZER_COMPARE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "dissect/dissect.h"

enum rs_cmp_method { RS_CMP_NONE = 0, RS_CMP_MINIMUM, RS_CMP_TWO_WAY };

struct rs_cmp_pkt {
	uint64_t frame_no, ts_ns, hash;
	uint32_t psn, flow;   /* flow: index into rs_cmp.flows */
	uint32_t seq;         /* sighting order within the side */
	uint8_t opcode;
	uint64_t match;       /* the other side's frame number (0: none) */
};

/* Delays in ns, over matched packets; n 0: none. */
struct rs_cmp_delays {
	uint64_t n;
	int64_t min, p50, p90, p99, max;
};

struct rs_cmp_flow {
	struct rs_addr src, dst;
	uint32_t dest_qp;
	uint8_t roce;          /* enum rs_roce */
	uint8_t transport;     /* the BTH opcode's top 3 bits of its first packet */
	uint64_t n[2];         /* packets at A, at B */
	uint64_t matched;
	GArray *only[2];       /* struct rs_cmp_pkt: seen at A only, at B only, in frame order */
	bool b_first;          /* RS_CMP_TWO_WAY: this direction passes B first */
	int64_t raw_min, raw_max; /* time at B - time at A, matched packets */
	struct rs_cmp_delays delay;
	uint64_t outside[2][2]; /* [side][0: before the other's first frame, 1: after its last] */
};

struct rs_cmp {
	char *name[2];
	uint64_t frames[2], packets[2]; /* every frame; those with a BTH */
	GArray *pkts[2];                /* struct rs_cmp_pkt */
	GHashTable *flow_index;         /* key -> index + 1 */
	GPtrArray *flows;               /* struct rs_cmp_flow * */
	uint64_t t_first[2], t_last[2]; /* a side's earliest and latest frame time: its capture window */
	uint64_t f_first[2], f_last[2]; /* their frame numbers */
	uint64_t last_read[2];          /* the frame number of the last frame read */
	char *ended_early[2];           /* why a file stopped before its end (NULL: it did not) */
	/* After rs_cmp_finish(). */
	uint64_t matched;
	enum rs_cmp_method method;
	int64_t offset_ns;              /* clock of B - clock of A */
	uint64_t offset_frame[2];       /* the matched packet (A's, B's frame) it came from; TWO_WAY: the A-first one */
	uint64_t offset_frame2[2];      /* TWO_WAY: the B-first direction's */
	struct rs_cmp_delays delay;     /* every matched packet */
	int64_t window_lo, window_hi;   /* method != NONE: the range of (time at B - time at A), matched packets */
	uint64_t outside[2][2];         /* the flows' outside[][] added up */
	bool finished;
};

struct rs_cmp *rs_cmp_new(void);
void rs_cmp_free(struct rs_cmp *c);
/* Side 0 (A) or 1 (B): its file name, then its frames in order. */
void rs_cmp_file(struct rs_cmp *c, int side, const char *name);
/* The side's file stopped before its end (truncated, read error): why. */
void rs_cmp_file_error(struct rs_cmp *c, int side, const char *message);
/* Every frame; those without a BTH are only counted. */
void rs_cmp_add(struct rs_cmp *c, int side, uint64_t frame_no, uint64_t ts_ns, const struct rs_frame *f,
		uint64_t hash);
/* Match, estimate the offset, work out the delays. */
void rs_cmp_finish(struct rs_cmp *c);
/* True when a packet was seen at one point only (inside the other's window). */
bool rs_cmp_differs(const struct rs_cmp *c);

#endif
