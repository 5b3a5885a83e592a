/*
 * transport/transport.h — the transport room:
 * transport reliability: PSN streams, ACKs and NAKs (psn.c), what a packet
 * behind the expected PSN is (resend.c), the sender's order and re-send runs
 * (sendorder.c, runs.c), skipped PSNs (lossmap.c), and the per-frame verdicts
 * (verdict.c, verdict.h; advert.c: buffer advertisements).
 *
 * What the room's files offer each other and the rooms above it
 * (lowest first: records, congestion, whole, messages, table, cm, transport;
 * make layers keeps calls and includes going down).
 */
#ifndef RS_ANALYZER_TRANSPORT_H
#define RS_ANALYZER_TRANSPORT_H

#include "analyzer/cm/cm.h"
#include "analyzer/transport/verdict.h"

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

/* advert.c: buffer advertisements and the READs and WRITEs that use them,
 * for the verdicts (after the frame was added); the oldest SEND whose
 * verdict may still change (0: none), and settling them all. */
void rs_adv_frame(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m,
		  struct rs_verdict *v);
uint64_t rs_adv_oldest_open(const struct rs_analyzer *a);
void rs_adv_settle(struct rs_analyzer *a);
void rs_adv_free(struct rs_analyzer *a);

#endif
