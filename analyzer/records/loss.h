/*
 * loss.h — what a PSN stream lost, re-sent or reordered, and why (the state
 * psn.c, resend.c, sendorder.c and lossmap.c keep for a stream that ever
 * had a gap or a packet behind the expected PSN), and how a requester that
 * stopped answering ended. Included by flow.h.
 */
#ifndef RS_ANALYZER_LOSS_H
#define RS_ANALYZER_LOSS_H

#include <stdbool.h>
#include <stdint.h>

#ifndef RS_LOSSMAP_BITS
#error "include analyzer/records/flow.h, not loss.h"
#endif

/* A bitmap of PSNs reported missing after a forward jump, so a later packet
 * can be told apart: a first sighting (a gap filled) or a duplicate. */
struct rs_msgq;

struct rs_lossmap {
	uint32_t base;                       /* PSN of bit 0 */
	uint32_t pending;                    /* bits set */
	uint64_t bits[RS_LOSSMAP_BITS / 64]; /* 1 = missing */
};

/* What a PSN stream lost, re-sent or reordered: allocated with the first
 * gap or packet behind the expected PSN (most streams never have one). */
/* The answer a requester owes a resend to, as the responder sent it. */
enum rs_nak_wait { RS_NAKW_NONE, RS_NAKW_SEQ, RS_NAKW_RNR };
/* A NAK no re-send run has answered yet (resend.c): several may be owed at
 * once when the network delays the requester's re-sends (the run answering
 * an older NAK arrives after a newer NAK was sent). */
#define RS_OWED 8
struct rs_owed {
	uint32_t psn;
	uint8_t kind;         /* enum rs_nak_wait */
	uint8_t timer;        /* RNR: its timer code */
	uint64_t ts;
	struct rs_fref at;
};

/* Where sendorder.c filed a request (rs_so_put): the run it belongs to,
 * whether it began a run, and whether it showed that the packet sent after
 * it began one (split_label, which inherits the cause of the run it left). */
struct rs_so_put {
	uint16_t label, split_label;
	bool new_run, split, copy;
	bool watch;           /* it began a watch (rs_so_watching) */
	uint16_t id;          /* the packet's number and PSN */
	uint32_t psn;
};

/* The newest sending of a PSN seen (IPv4): its IP ID and ICRC, and whether it
 * was counted as a re-send, or as a re-send that filled a skipped PSN (one
 * a sequence error NAK had named: naked). */
struct rs_idsent {
	uint32_t psn : 24;
	uint32_t valid : 1, resent : 1, fill : 1, icrc_ok : 1, naked : 1;
	uint16_t id;
	uint32_t icrc;
	uint64_t ts;          /* when it was seen: a re-send's wait is measured from the copy it repeats */
};

struct rs_psn_loss {
	bool in_episode;
	bool episode_dup;     /* the current backward run re-sent a packet seen before, */
	bool episode_naked;   /* ... or one a NAK named: not a late packet either way */
	uint32_t episode_len;
	uint32_t episode_next; /* the PSN after its newest packet's */
	uint16_t episode_ipid; /* the newest IP ID before it began: later ones are the run's, */
	uint16_t episode_end_ipid; /* ... up to the IP ID of the packet that ended it */
	uint32_t episode_resume;   /* the next new PSN when it began: it re-sends the PSNs before */
	struct rs_fref episode_start;
	uint64_t gaps;        /* forward jumps */
	uint64_t missing;     /* PSNs skipped by forward jumps */
	uint64_t backward;    /* packets below the expected PSN */
	uint64_t duplicates;  /* ... of which had been seen before */
	uint64_t fills;       /* ... of which filled a gap */
	uint64_t ooo;         /* single late packets: out of order, not a go-back */
	uint64_t episodes;    /* go-back-N episodes */
	/* Skipped PSNs the responder then settled (psn.c, "capture completeness"):
	 * acknowledged with no NAK naming them and never seen re-sent (the
	 * capture dropped them), or named by a PSN sequence error NAK and then
	 * never seen re-sent (lost in the network, and the re-send not captured).
	 * The rest of missing - fills is undetermined. */
	uint64_t uncaptured;
	uint64_t unseen_lost;
	uint64_t naked_fills; /* fills of a PSN a sequence error NAK had named */
	/* Requests, IPv4 in the sender's order: PSNs a re-send run went over
	 * (a go-back-N re-sends every one from where it starts) that it did not
	 * show: re-sends lost on the way, or missed by the capture. */
	uint64_t resend_holes;
	bool fill_naked;      /* the packet just judged was one of those */
	uint64_t read_reserved; /* PSNs first skipped, then found reserved by a READ request behind */
	/* Responses only: sent again, READ responses [0] and atomic ACKs [1],
	 * and of those the first copy of their PSN in the capture. */
	uint64_t rsp_again[2], rsp_again_first[2];
	uint32_t nak_psn;     /* the PSN the newest sequence error NAK named ... */
	bool nak_named;       /* ... while it is still missing here */
	struct rs_lossmap *lost;

	/* Requests only: why packets were on the wire again. */
	uint64_t netdup;      /* copies made by the network: an IPv4 datagram seen twice */
	uint64_t late_sendings; /* an earlier sending of a PSN, arriving after a later one (reordered) */
	uint64_t fills_overtaken; /* ... of a skipped PSN whose re-send filled it: its first copy came after all */
	/* How late the late ones came: behind the newest PSN, and after the
	 * packet that skipped them (the last RS_GAPS gaps are remembered). */
	uint32_t late_psns_max;
	uint64_t late_ns_max;
	struct rs_gapref { uint32_t psn, n; uint64_t ts; } gapref[8];
	uint8_t gapref_next;
	/* IPv4: the newest sending seen of each of the last RS_IDS PSNs (resend.c),
	 * kept once the stream had a gap or a packet behind. */
	struct rs_idsent *ids;
	/* IPv4 with trusted numbers: the packets in the order the requester
	 * sent them (sendorder.c); re-send runs are counted there, and each
	 * re-sent packet takes its run's cause. */
	struct rs_sendorder *so;
	struct rs_so_put so_put; /* where the request packet just fed went */
	bool episode_by_id;   /* the current backward run is counted that way */
	struct rs_msgq *mq;   /* packets waiting for a gap before them (msgq.c) */
	uint64_t resent[RS_RESEND__COUNT]; /* packets re-sent, by cause */
	uint32_t episodes_by[RS_RESEND__COUNT];
	uint8_t cause;        /* enum rs_resend of the current episode */
	uint8_t nak_wait;     /* enum rs_nak_wait: the newest NAK, while the requester has not re-sent after it */
	uint8_t rnr_timer;    /* ... its RNR timer code */
	uint32_t nak_psn_wait;/* ... the PSN it names */
	struct rs_owed owed[RS_OWED]; /* the NAKs not answered yet, oldest first */
	uint8_t nowed;
	bool have_taken;
	struct rs_owed taken; /* the one the current run answers (given back if it was a late packet) */
	uint32_t rnr_early;   /* RNR retries sooner than the RNR NAK's timer asked */
	uint32_t rnr_streak;  /* RNR NAKs since the responder last acknowledged progress */
	struct rs_fref nak_at;
	uint64_t nak_ts;
	struct rs_fref cause_at; /* the NAK behind the current episode (frame 0: none) */
	uint64_t cause_wait_ns;  /* ... and how long after it (or after the last packet or answer) it began */
	uint64_t episode_ts;     /* when the current episode began */
	struct rs_fref episode_answered; /* the responder's last answer then */
	/* Timeout retries: how long the requester waited, from its last packet
	 * or the responder's last answer, whichever came later. */
	uint32_t timeouts;
	uint64_t timeout_min_ns, timeout_max_ns, timeout_sum_ns;
	/* ... of them sooner after the copy they repeat than half the Local
	 * ACK Timeout its CM REQ carried (timer_ns) lets a timer fire: a timer
	 * the QP was given later, or a cause the capture does not show. */
	uint32_t timeouts_early;
	uint64_t timer_ns;
	/* READ and atomic retries: how long after the responder's last answer
	 * (one to a later request). */
	uint32_t read_retries;
	uint64_t read_min_ns, read_max_ns;
	/* Timeout retries since the responder last answered: a QP dying. */
	uint32_t silent_retries;
	uint64_t silent_first_ts, silent_last_ts;
	struct rs_fref silent_from;   /* the first of those retries */
	struct rs_fref answered_at;   /* the responder's last answer before them (frame 0: none) */
	/* Settled at the end (rs_psn_finish): enum rs_dead, and for a
	 * requester that stopped unanswered, why the file cannot call it retry
	 * exhaustion (enum rs_dead_why) and whether a DREQ followed. */
	uint8_t dead;
	uint8_t dead_why;
	bool dead_torn_down;
	uint64_t silence_ns;  /* from the requester's last packet to the end of the capture */
};

#endif
