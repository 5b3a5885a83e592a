/*
 * smbd_look_state.h — the state of SMB Direct's recognition by shape
 * (smbd_look_state.c), which the queue (smbd_state.c) keeps: after the
 * frame that told the pair's protocol, the queue reads it to skip the
 * messages the look analysed and to join the one it saw begin.
 */
#ifndef RS_PROTO_SMBD_LOOK_STATE_H
#define RS_PROTO_SMBD_LOOK_STATE_H

#include "proto/proto.h"
#include "proto/smbdirect/smbd_dissect.h"

#define EARLY 8         /* messages kept before the sides are known */

/* A SEND message the look is putting together. */
struct open_msg {
	bool active, broken;   /* broken: a PSN of it missing */
	bool has_d;
	uint32_t next_psn;
	struct rs_sendmsg m;
	struct rs_smbd d;
};

/* One half-flow of the pair: "a" (0) or "b" (1). */
struct hf {
	bool psn_known;
	uint32_t newest;       /* the newest request PSN seen */
	uint64_t seen;         /* bit k: newest - k was seen */
	bool started;          /* a negotiate message or an SMB2 header seen */
	bool cont;             /* data without a protocol ID may continue a message here */
	uint32_t msgs;         /* messages begun */
	bool fed;              /* a message analysed: upto is its last PSN */
	uint32_t upto;
	bool handed;           /* the analyzer handed a message after upto: the handoff is over */
	struct open_msg open;
};

struct early {
	unsigned h;
	bool has_d;
	struct rs_sendmsg m;
	struct rs_smbd d;
};

struct rs_smbd_look {
	bool sides, host_is_a;
	bool dead;             /* refused: every later frame answers NO */
	uint32_t pmtu;         /* the largest First or Middle payload seen */
	struct hf hf[2];
	unsigned nearly;
	struct early *early;   /* EARLY of them, once one is kept */
};

#endif
