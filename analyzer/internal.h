/*
 * internal.h — the analyzer's state (struct rs_analyzer) and what each of
 * its parts offers the others. Half-flows and their parts are flow.h's,
 * connections conn.h's, anomalies anomaly.h's.
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
#include "analyzer/anomaly.h"
#include "analyzer/congestion.h"
#include "analyzer/conn.h"
#include "analyzer/flow.h"

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
		uint8_t needs;        /* PF_NEED_* in flowtable.c: what handling it will touch */
		uint32_t slot;        /* its flow's slot + 1, once its table entry was read; 0: none */
		struct rs_flow *fl;   /* its flow, once found (a hint: compare keys) */
	} pf[8];                  /* PF_RING in flowtable.c */
	uint8_t pf_needs[2][256]; /* PF_NEED_* by AckReq bit and opcode (flowtable.c) */
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

/* ---- what each part offers the others; calls go one way, top to bottom:
 * analyzer.c → psn.c → resend.c → runs.c → sendorder.c, lossmap.c, msgq.c → message.c, cmtrack.c → flowtable.c → pair.c
 * → anomaly.c, counters.c, timeline.c, versions.c, latency.c → flow.c,
 * conn.c (tests/check_layers.py keeps it so). */

/* flow.c: a flow's first frame, rs_flow_first (result.h). */

/* psn.c: request/response streams, acknowledgements, NAKs, latency samples. */
void rs_track_request(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f,
		      const struct rs_frame_meta *m);
void rs_track_response(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f,
		       const struct rs_frame_meta *m);
void rs_psn_finish(struct rs_analyzer *a, struct rs_flow *fl);
uint64_t rs_flow_retransmitted(const struct rs_flow *fl);

/* resend.c: what a request behind the expected PSN is, and why. */
enum rs_behind { RS_BEHIND_RESENT, RS_BEHIND_RUN_LATE, RS_BEHIND_COPY, RS_BEHIND_LATE, RS_BEHIND_LATE_SENDING,
		 RS_BEHIND_LATE_FILLED, RS_BEHIND_STAND_IN };
void rs_ids_note(struct rs_psn *s, const struct rs_frame *f, bool resent, bool fill, uint64_t ts);
/* Was this PSN's newest sending a re-send filling a PSN a NAK had named?
 * (Once: the flag is cleared.) */
bool rs_ids_naked(struct rs_psn_loss *l, uint32_t psn);
/* A frame's fingerprint for telling a copy from another sending: its ICRC
 * as captured, with bit 32 set; 0 when the ICRC was not captured. */
static inline uint64_t rs_frame_fp(const struct rs_frame *f)
{
	return f->icrc_status != RS_CRC_UNCHECKED ? 1ull << 32 | f->icrc : 0;
}

/* Reordering can delay the first packets by this many PSNs at most: for the
 * stream to start at the Starting PSN rather than at its first arrival, and
 * for packets just before its first to be late ones, whatever their IP ID. */
#define RS_START_LATE 64
void rs_ipid_note(struct rs_psn *s, const struct rs_frame *f, bool forward);
int rs_ipid_older(const struct rs_psn *s, const struct rs_frame *f);
void rs_psn_start_back(struct rs_analyzer *a, struct rs_psn *s, uint32_t psn);
enum rs_behind rs_behind(const struct rs_psn *s, const struct rs_frame *f, uint32_t psn);
void rs_resent(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f, const struct rs_opinfo *op,
	       uint64_t ts);
void rs_pending_resent(struct rs_latency *l, uint32_t psn);
void rs_net_copy(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_fref *at, bool by_timing);
bool rs_copy_by_timing(const struct rs_analyzer *a, const struct rs_flow *fl, const struct rs_frame *f, uint64_t ts);
void rs_fp_note(struct rs_psn *s, const struct rs_frame *f);
void rs_late_request(struct rs_analyzer *a, struct rs_flow *fl, struct rs_psn *s, uint32_t psn,
		     const struct rs_fref *at, uint64_t ts);
void rs_resend_commit(struct rs_analyzer *a, struct rs_flow *fl, struct rs_psn_loss *l);
void rs_so_feed(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f, uint32_t adv);
void rs_so_settle(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_opinfo *op, uint64_t ts, uint32_t psn);
bool rs_so_active(const struct rs_psn *s);
/* The request just fed took a place in the sender's order (not a copy). */
bool rs_so_placed(const struct rs_psn *s);
void rs_resent_late(struct rs_analyzer *a, struct rs_psn_loss *l);
/* The request just fed is the original of a PSN whose re-send came first
 * as a new PSN, and that re-send (frame *re) is counted as re-sent. */
bool rs_late_original(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_opinfo *op, uint32_t psn, uint64_t ts,
		      struct rs_fref *re);
void rs_resend_uncommit(struct rs_psn_loss *l);
void rs_nak_wait(struct rs_analyzer *a, struct rs_flow *req, uint8_t kind, uint8_t timer, uint32_t psn, const struct rs_fref *at,
		 uint64_t ts);
void rs_rnr_progress(struct rs_flow *req);
void rs_settle_dead(struct rs_analyzer *a, struct rs_flow *fl);

/* runs.c: a re-send run's cause, settled in the sender's order. */
void rs_owed_drop_to(struct rs_psn_loss *l, unsigned i);
void rs_count_run(struct rs_psn_loss *l, uint8_t cause, uint64_t wait, bool timed);
struct rs_so_run;
/* Run r (its first packet's arrival, t0 and timer cause filled in) begins
 * open: its provisional cause is worked out. */
void rs_run_opened(struct rs_analyzer *a, struct rs_flow *fl, struct rs_psn_loss *l, struct rs_so_run *r);
/* Run r was split off an open run: open too, from its own first packet. */
void rs_run_split(struct rs_analyzer *a, struct rs_flow *fl, struct rs_psn_loss *l, struct rs_so_run *r);
/* Its first packet in the sender's order changed. */
void rs_run_review(struct rs_flow *fl, struct rs_psn_loss *l, struct rs_so_run *r);
/* Settle the open runs that can be (rs_so_due), or with `all` every one. */
void rs_runs_due(struct rs_analyzer *a, struct rs_flow *fl, uint16_t upto, bool all);

/* sendorder.c: a requester's packets in the order it sent them (IPv4 IDs).
 * rs_so_put files one: the run it belongs to, whether it began a run
 * (new_run), and whether it showed that the packet sent after it began one
 * (split: split_label, which inherits the cause of the run it left). */
struct rs_sendorder;
struct rs_so_run {
	uint16_t label;
	uint8_t cause;        /* enum rs_resend */
	bool has_cause;
	struct rs_fref at;    /* the NAK it answers (frame 0: none) */
	uint64_t wait_ns;
	/* Open: numbers below its first packet seen were not all seen yet, so
	 * its first packet in the sender's order may still come, and its
	 * cause so far is provisional (runs.c settles it). */
	bool open;
	bool given;           /* a verdict took its cause while it was open */
	uint16_t first;       /* the lowest number among its packets seen ... */
	uint32_t first_psn;   /* ... and that packet's PSN */
	struct rs_fref seen;  /* its first packet to arrive (a NAK after it cannot be its cause) */
	uint64_t t0;          /* ... and when */
	uint8_t timer_cause;  /* its cause if no NAK is owed, and the wait then */
	uint64_t timer_wait;
};
struct rs_sendorder *rs_so_new(uint16_t id, uint32_t last);
/* fp: a frame's fingerprint, rs_frame_fp(): its ICRC, and bit 32 set when it was captured;
 * at: its frame. */
struct rs_so_put rs_so_put(struct rs_sendorder *so, uint16_t id, uint32_t psn, uint32_t adv, uint64_t fp,
			   const struct rs_fref *at);
struct rs_so_run *rs_so_run(struct rs_sendorder *so, uint16_t label);
/* The packet numbered id (PSN psn) was judged re-sent. */
void rs_so_resent(struct rs_sendorder *so, uint16_t id, uint32_t psn);
/* ... and counted for `cause` (enum rs_resend). */
bool rs_so_counted(struct rs_sendorder *so, uint16_t id, uint32_t psn, uint8_t cause, struct rs_fref *at);
/* No packet numbered before `id` in the window carried PSN psn or a higher
 * one: id sent it first. */
bool rs_so_original(const struct rs_sendorder *so, uint16_t id, uint32_t psn);
/* The run of the packet numbered id (PSN psn), while in the window; 0: none;
 * and its frame (false: not in the window). */
uint16_t rs_so_label(const struct rs_sendorder *so, uint16_t id, uint32_t psn);
bool rs_so_at(const struct rs_sendorder *so, uint16_t id, uint32_t psn, struct rs_fref *at);
/* A run open now was open when frame `at` came (a per-frame view holds it). */
bool rs_so_open_since(const struct rs_sendorder *so, const struct rs_fref *at);
/* Numbers skipped by a packet that went forward by fewer PSNs are still
 * awaited (sendorder.c); unwatch: no longer. */
bool rs_so_watching(struct rs_sendorder *so);
void rs_so_unwatch(struct rs_sendorder *so);
/* A per-frame view holds frames from the current one while the watch the
 * packet just fed began lasts (runs.c). */
void rs_watch_opened(struct rs_analyzer *a, struct rs_flow *fl);
/* An open run that can be settled once the newest number is `upto` (or the
 * stream's newest, if that is higher): nothing can come before its first
 * packet any more, or its label's slot is about to be reused; with `all`,
 * any open run. NULL: none. */
struct rs_so_run *rs_so_due(struct rs_sendorder *so, uint16_t upto, bool all);
/* A run still open, sent before run r, takes the NAK at `at` for its cause. */
bool rs_so_claimed(const struct rs_sendorder *so, const struct rs_so_run *r, const struct rs_fref *at);
/* Run `label`'s packets counted for a cause are now counted for `cause`:
 * fn is told of each (its frame and the cause it was counted for). */
void rs_so_recount(struct rs_sendorder *so, uint16_t label, uint8_t cause,
		   void (*fn)(void *ctx, const struct rs_fref *at, uint8_t was), void *ctx);
/* Re-sends missing inside runs, of the packets that left the window since
 * the last call and, at the end, of all (the window is retired). */
uint64_t rs_so_holes(struct rs_sendorder *so);

/* lossmap.c: skipped PSNs, and how the responder settled them. */
void rs_lossmap_mark(struct rs_psn_loss *s, uint32_t from, uint32_t n);
bool rs_lossmap_has(const struct rs_lossmap *l, uint32_t psn);
bool rs_lossmap_take(struct rs_psn_loss *s, uint32_t psn);
/* A READ request behind the expected PSN at `psn`, using `adv` PSNs: the
 * skipped PSNs after its own were reserved for its responses. */
void rs_lossmap_read_reserves(struct rs_analyzer *a, struct rs_psn *s, uint32_t psn, uint32_t adv);
bool rs_lossmap_last(const struct rs_lossmap *l, uint32_t upto, uint32_t *psn);
void rs_psn_settle(struct rs_analyzer *a, struct rs_flow *req, uint32_t upto);
void rs_psn_settle_nak(struct rs_analyzer *a, struct rs_flow *req, uint32_t psn, uint8_t code);

/* message.c: message reassembly. `gap`: PSNs skipped just before this packet;
 * `in_order` false for a late first sighting (a gap fill). */
void rs_flow_note_imm(struct rs_flow *fl, uint32_t imm);
void rs_flow_size_sample(struct rs_analyzer *a, struct rs_flow *fl, uint64_t size);
/* What message reassembly needs of a request packet. */
struct rs_msgpkt {
	uint32_t psn, len;    /* len: payload bytes */
	uint32_t adv;         /* PSNs it takes (a READ: its response packets) */
	uint8_t opcode;
	bool reth;
	uint64_t dmalen;      /* its RETH's DMA length */
};
void rs_msg_reassemble(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_msgpkt *p, bool in_order,
		       uint32_t gap);
void rs_msg_finish(struct rs_analyzer *a, struct rs_flow *fl);

/* msgq.c: request packets to message reassembly in PSN order (a packet
 * after a gap waits for the gap to fill). `d`: its PSN's distance from
 * `expected`, the PSN the stream expected before it. */
void rs_msg_feed(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_msgpkt *p, int32_t d, uint32_t expected);
void rs_msg_acked(struct rs_analyzer *a, struct rs_flow *fl, uint32_t psn);
void rs_msgq_finish(struct rs_analyzer *a, struct rs_flow *fl);
/* The PSN reassembly takes next (the newest it took, plus one). */
uint32_t rs_msgq_expect(const struct rs_flow *fl);

/* msn.c: the messages the capture missed whole, by the responder's MSN.
 * rs_msg_msn: an ACK on rsp with this PSN and MSN, its requester stream
 * req handed to reassembly up to it, and on from `expect` (rs_msgq_expect;
 * a->ack_prev: rsp's ACK PSN before).
 * message.c tells it what reassembly does: rs_msn_take before an in-order
 * packet (`gap` PSNs skipped just before it), rs_msn_headless when the
 * stream begins inside a message, rs_msn_settled when a message becomes
 * one the counts will hold (it ended in [lo, hi]; `late`: out of PSN
 * order). rs_msg_settled: the messages counted or to be counted, mod 2^24.
 * rs_msn_finish before reassembly gives up what is open; rs_msnq_free. */
void rs_msg_msn(struct rs_analyzer *a, struct rs_flow *rsp, struct rs_flow *req, uint32_t psn, uint32_t msn,
		uint32_t expect);
void rs_msn_take(struct rs_analyzer *a, struct rs_flow *req, uint32_t psn, uint32_t gap);
void rs_msn_headless(struct rs_analyzer *a, struct rs_flow *req, uint32_t psn);
void rs_msn_settled(struct rs_analyzer *a, struct rs_flow *req, uint32_t lo, uint32_t hi, bool late);
uint32_t rs_msg_settled(const struct rs_flow *fl);
void rs_msn_finish(struct rs_analyzer *a, struct rs_flow *req);
void rs_msnq_free(struct rs_msnq *q);

/* conn.c: the connection's upper-layer protocol, its row of the modules'
 * table (from its service ID, once known, or --ulp), and the module's
 * queue state if it keeps one. */
void rs_ulp_assign(struct rs_analyzer *a, struct rs_conn *c);
/* result.c: a latency vector's figures, for a module's records. */
struct rs_lat_figures rs_lat_figures_of(const struct rs_latvec *v);

/* cmtrack.c: CM messages, connections, their eviction and ladder events. */
void rs_cm_frame(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m);
void rs_cm_finish(struct rs_analyzer *a);
/* The connections and the ladder's events: made and freed by cmtrack.c,
 * which owns them (pairing reads them, and frees nothing of theirs). */
void rs_cm_init(struct rs_analyzer *a);
void rs_cm_free(struct rs_analyzer *a);
void rs_conn_ladder(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f,
		    const struct rs_frame_meta *m, bool retrans, uint32_t gap);

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

/* versions.c: RoCE v1 and v2 between the same hosts. */
void rs_versions_note(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m);
/* RoCE versions seen between two hosts (a->versions: struct rs_hostpair -> this). */
struct rs_version_seen {
	uint8_t mask;             /* 1 v1, 2 v2 */
	struct rs_fref at[2];
};

/* congestion.c: DSCP and ECN per half-flow, CNP timing, PAUSE/PFC. */
void rs_cong_init(struct rs_analyzer *a);
void rs_cong_free(struct rs_analyzer *a);
/* A RoCE v2 frame of half-flow fl (after its CE and CNP counts). */
void rs_cong_frame(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f, uint64_t ts);
void rs_cong_v1(struct rs_flow *fl, const struct rs_frame *f);
void rs_cong_pfc(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m);
void rs_cong_finish(struct rs_analyzer *a);

/* sniffer.c: traits of the capture path. */
void rs_sniffer_init(struct rs_analyzer *a);
void rs_sniffer_free(struct rs_analyzer *a);
void rs_sniffer_frame(struct rs_analyzer *a, const struct rs_frame *f);
void rs_sniffer_finish(struct rs_analyzer *a);

/* advert.c: buffer advertisements and the READs and WRITEs that use them,
 * for the verdicts (after the frame was added); the oldest SEND whose
 * verdict may still change (0: none), and settling them all. */
void rs_adv_frame(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m,
		  struct rs_verdict *v);
uint64_t rs_adv_oldest_open(const struct rs_analyzer *a);
void rs_adv_settle(struct rs_analyzer *a);
void rs_adv_free(struct rs_analyzer *a);

/* udpair.c: UD conversations and the replies paired with requests; ev is
 * the frame's ladder event + 1 (0: none). */
void rs_udconv_frame(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m, size_t ev);
void rs_udconv_free(struct rs_analyzer *a);

/* latency.c: samples, kept exactly then in a reservoir; quantiles. */
void rs_lat_add(struct rs_latvec *v, uint64_t ns);
/* A sample for v, added later: in a batch, in the order logged, before
 * anything reads v (rs_lat_flush: at the end, and before flows are freed).
 * 1024 entries (16 KiB) stay in the first-level cache between a flush and
 * the next. */
#define RS_LATLOG 1024
struct rs_lat_entry {
	struct rs_latvec *v;
	uint64_t ns;
};
void rs_lat_log(struct rs_analyzer *a, struct rs_latvec *v, uint64_t ns);
/* A sample of kind k for l: kept in place if it is the first, else logged. */
void rs_lat_sample(struct rs_analyzer *a, struct rs_latency *l, enum rs_lat_kind k, uint64_t ns);
/* The sample in the buckets too (latbuckets.c), if kept; a flow freed
 * takes its buckets along. */
void rs_lat_bucket(struct rs_analyzer *a, const struct rs_flow *req, enum rs_lat_kind k, uint64_t ns);
void rs_lat_buckets_init(struct rs_analyzer *a);
void rs_lat_buckets_forget(struct rs_analyzer *a, const struct rs_flow *fl);
void rs_lat_buckets_free(struct rs_analyzer *a);
void rs_lat_flush(struct rs_analyzer *a);
/* Nearest-rank quantiles: out[j] is the smallest kept sample with at least
 * q[j] of them at or below it (ascending q: each is looked for above the one
 * before). Reorders the kept samples; the set stays the same. */
void rs_lat_quantiles(struct rs_latvec *v, const double *q, uint64_t *out, int count);
uint64_t rs_lat_quantile(struct rs_latvec *v, double q);
void rs_lat_free(struct rs_latvec *v);

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
