/*
 * internal.h — the analyzer's state (struct rs_analyzer) and what its
 * sub-rooms share. Half-flows and their parts are records/flow.h's,
 * connections records/conn.h's, anomalies records/anomaly.h's; what each
 * sub-room's files offer the others is in its ROOM/ROOM.h.
 *
 * RC/UC/XRC half-flows are paired into connections — from the CM handshake
 * when the capture has it, otherwise inferred from responses whose PSNs
 * answer a request stream between the same two hosts.
 */
#ifndef RS_ANALYZER_INTERNAL_H
#define RS_ANALYZER_INTERNAL_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/analyzer.h"
#include "analyzer/records/anomaly.h"
#include "analyzer/records/conn.h"
#include "analyzer/records/flow.h"

struct rs_file {
	char *name;
	int linktype;
	char *error;              /* reading stopped early: why */
	bool unopened;            /* ... or it could not be opened at all */
	/* Frames decoded whole but for the bytes the capture cut off (by
	 * enum rs_slice), and how many bytes of them it kept: a property of
	 * the file, so kept with it (merged with it, reported once per file). */
	uint64_t sliced[3];
	uint32_t sliced_cap_min, sliced_cap_max;
};

struct rs_src_mac; /* sniffer.c */
struct rs_cong_state; /* congestion/congestion.h */

struct rs_sendmsg;
struct rs_pdus;

struct rs_analyzer {
	struct rs_analyzer_opts opts;

	/* Latency by bucket (latbuckets.c): flow -> struct rs_lat_buckets,
	 * and the capture's; NULL: not kept. */
	GHashTable *lat_buckets;
	struct rs_lat_buckets lat_all;

	/* Inputs. */
	GPtrArray *files;         /* struct rs_file */
	uint32_t cur_file;

	/* Capture-wide counters. */
	uint64_t frames, bytes;
	uint64_t first_ts, last_ts;
	bool have_ts;
	uint64_t roce[4];         /* by enum rs_roce (0 = not RoCE) */
	uint64_t ipv4, ipv6;
	uint64_t outcome[RS_OUTCOME__COUNT];
	uint64_t opcodes[256];    /* all but NVIDIA DC's: */
	uint64_t opcodes_dc[32];  /* DC's (the RD range, RS_HAVE_DC), by operation */
	uint64_t icrc[3];         /* by enum rs_crc_status, RoCE frames with an ICRC */
	uint64_t vcrc_bad;
	/* Bad ICRCs that match with another UDP source port (dissect's
	 * icrc_sport): the capture rewrote the port; counted apart from
	 * icrc[RS_CRC_BAD], never as corruption. */
	uint64_t icrc_port_rewritten;
	uint16_t icrc_port_example;
	uint64_t ecn_ce, cnps;
	struct rs_cong_state *cong; /* DSCP/ECN/CNP/PFC (congestion.c) */
	uint8_t dscp_data;        /* its expected data DSCP, for the test per frame */
	struct rs_sniffer {       /* traits of the capture path (sniffer.c) */
		GHashTable *by_src;   /* source address -> its latest source MAC */
		struct rs_src_mac *recent[64]; /* entries by a hash of their address: most frames skip the table */
		uint64_t mac_frames;  /* Ethernet RoCE frames from a source address seen before */
		uint64_t mac_changes; /* ... whose source MAC is not the one of that address's previous frame */
		/* At the end, of the half-flows in memory: */
		uint32_t host_pairs, host_pairs_one_way; /* ... with frames from one side only */
		uint32_t rc_one_way_flows;               /* RC request half-flows whose responder's host sent nothing back */
		uint64_t rc_one_way_packets;
		struct rs_addr one_way_from, one_way_to; /* the first such flow's hosts */
	} sn;
	uint32_t pmtu;            /* largest First/Middle payload seen anywhere */
	struct rs_psn_totals psns; /* request streams of all flows (capture completeness; result.h) */
	uint64_t fl_prev_ts;      /* the current frame's half-flow: its last_ts before this frame */
	bool in_ack;              /* an ACK is handing the packets it settled to reassembly, then reckoning (msn.c) */
	uint32_t ack_prev;        /* while in_ack: the responder's newest ACK PSN before this ACK (msn.c) */
	bool frame_resent;        /* the current frame was judged sent again (psn.c), for the modules */
	/* Every SEND message of a connection with a protocol module, as the
	 * module gets it (rs_analyzer_tap_sendmsgs; for tests). */
	void (*sendmsg_tap)(void *ctx, const struct rs_flow *fl, const struct rs_sendmsg *m);
	void *sendmsg_tap_ctx;

	/* Half-flows: an open-addressing table of slots into `flows`. */
	GPtrArray *flows;         /* struct rs_flow *, by slot; NULL when evicted */
	GArray *free_slots;       /* slots of evicted flows, reused first */
	GPtrArray *flow_slabs;    /* the memory of the flows (flowtable.c) */
	size_t slab_used;         /* bytes handed out of the last slab */
	void *flow_free_list;
	/* The side parts most flows have (flow.h, struct rs_pool). */
	struct rs_pool pool_lat, pool_rkeys, pool_few[2];
	uint64_t *table;          /* key hash << 32 | slot + 1; 0 = empty */
	uint32_t table_mask;
	uint32_t nflows, next_flow_id;
	GArray *file_first_id;    /* per file: next_flow_id when it began (rs_flow_first) */
	struct rs_flow *last_flow;/* one-entry cache: consecutive frames share a flow */
	struct rs_prefetch {      /* the last frames announced by rs_analyzer_prefetch() */
		struct rs_flowkey key;
		uint32_t hash;
		bool valid;
		uint16_t needs;       /* PF_NEED_* in flowtable.c: what handling it will touch */
		uint32_t slot;        /* its flow's slot + 1, once its table entry was read; 0: none */
		struct rs_flow *fl;   /* its flow, once found (a hint: compare keys) */
	} pf[8];                  /* PF_RING in flowtable.c */
	uint16_t pf_needs[2][256]; /* PF_NEED_* by AckReq bit and opcode (flowtable.c) */
	uint32_t pf_n;            /* frames announced */
	uint32_t add_n;           /* frames added */
	uint64_t evicted;
	struct rs_flow evicted_sum;  /* counters of evicted flows */
	/* Latency samples waiting to join their vectors (latency.c). */
	struct rs_lat_entry *latlog;
	uint32_t latlog_n;
	uint32_t next_conn_id;    /* ids stay unique when connections are evicted */
	uint64_t conns_evicted;   /* connections evicted under --max-flows, */
	uint64_t conns_evicted_by_state[RS_CONN_STATES]; /* by their state then (rs_conn_state_names) */

	/* Pairing: half-flows by host pair, for inference. */
	GHashTable *by_hosts;     /* hostpair key -> GPtrArray of flows */
	GHashTable *pending_pairs;/* struct rs_flowkey -> struct rs_conn (CM told us, flow not seen yet) */

	/* CM. */
	GPtrArray *conns;         /* struct rs_conn * */
	/* Without CM (cm/ulp.c): queues whose protocol was told by shape or
	 * --ulp qp: (struct rs_conn, no_cm), the pairs looked at (struct
	 * rs_uq); whether any module recognises, or a qp: rule is given. */
	GPtrArray *ulp_queues, *ulp_cands;
	guint ulp_sweep_at;   /* ulp_cands' length that has those of evicted half-flows dropped */
	guint ulp_looking;    /* of ulp_cands, pairs the modules still look at */
	uint64_t ulp_seq;     /* frames offered to looking pairs so far */
	uint64_t ulp_swept_evicted; /* a->evicted at the last drop */
	uint32_t ulp_recog_pdus; /* RS_PDU_* that some recognize hook asks of a pair's first SEND */
	uint32_t ulp_recog_wait; /* RS_PDU_* of SENDs some hook lets pass before that one (recog_wait) */
	bool ulp_offer, ulp_qp_rules;
	GHashTable *conn_by_id;   /* (address, comm id) -> conn */
	GArray *ladder;           /* struct rs_ladder_ev, with --ladder */
	uint64_t ladder_dropped;
	GHashTable *udconv;       /* UD conversations (udpair.c) */
	GHashTable *adv;          /* buffer advertisements, for verdicts (advert.c) */
	GPtrArray *adv_open;      /* those whose SEND's verdict may still name uses */

	/* Invalidated rkeys: (host, rkey) -> frame of the IETH. */
	GHashTable *invalidated;
	/* RoCE versions seen per host pair (v1/v2 mixing). */
	GHashTable *versions;

	GHashTable *anomalies;    /* key -> struct rs_anomaly */
	uint32_t next_anomaly_seq;
	uint32_t detached;        /* anomalies of evicted flows kept one by one (RS_DETACHED_MAX) */

	/* Timeline. */
	uint64_t t0;              /* first frame's time: intervals count from it */
	bool have_t0;
	int64_t cur_interval;
	GArray *tl_rows;          /* struct rs_tl_row: the flows active in the current
	                           * interval and their counts (flow NULL: emitted early) */
	struct rs_tl tl_void;     /* where counts of a flow not active go (after the end, or no rows) */
	bool tl_rows_on;          /* rows per active flow: only --timeline and --plot need them */
	bool tl_new_file;         /* the next frame starts a file: its interval, even an earlier one */
	uint32_t tl_holes;         /* rows emptied by evicted flows this interval */
	int64_t intervals_seen;
	struct rs_verdict *v;     /* during rs_analyzer_add_v(): the frame's verdict (verdict.c) */
	struct rs_vstate *vs;     /* what verdicts remember, once rs_analyzer_add_v() was called */
	GArray *open_runs;        /* with vs: the re-send runs whose cause is not settled (runs.c) */
	uint64_t cur_frame;       /* the frame being added: its number in its file */

	bool finished;
};

/* ---- shared by the sub-rooms' files (their own interfaces are in
 * ROOM/ROOM.h: records, congestion, whole, messages, table, cm, transport,
 * lowest first; tests/check_layers.py keeps calls going down). */

/* Reordering can delay the first packets by this many PSNs at most: for the
 * stream to start at the Starting PSN rather than at its first arrival, and
 * for packets just before its first to be late ones, whatever their IP ID. */
#define RS_START_LATE 64

/* result.c: a latency vector's figures, for a module's records. */
struct rs_lat_figures rs_lat_figures_of(const struct rs_latvec *v);

#endif
