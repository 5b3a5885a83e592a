/*
 * smbd_state.h — what the SMB Direct module's analysis (smbd_state.c)
 * gives its writers: a connection's figures as a plain record, as
 * analyzer/result.h gives the rest.
 */
#ifndef RS_PROTO_SMBD_STATE_H
#define RS_PROTO_SMBD_STATE_H

#include "analyzer/result.h"
#include "proto/smbdirect/smbd_dissect.h"

#define RS_SMBD_CMDS (RS_SMB2__CMDS + 1) /* by SMB2 command; the last: commands this decoder does not know */
#define RS_SMBD_SLOW 5                   /* slowest requests kept */
#define RS_SMBD_FAILED 8                 /* requests answered with a status other than SUCCESS, kept */

/* What the fabric sent again for a request (struct rs_smbd_req resent). */
enum { RS_SMBD_RESENT_REQUEST = 1, RS_SMBD_RESENT_RESPONSE = 2, RS_SMBD_RESENT_TRANSFER = 4 };

/* One side's SMB Direct messages (MS-SMBD 2.2): the client's (the RDMA CM
 * active side) or the server's. */
struct rs_smbd_side_info {
	uint64_t sends;             /* SEND messages of the connection's SMB Direct, whole */
	uint64_t incomplete;        /* SEND messages the capture missed a packet of: not read */
	uint64_t not_smbd;          /* whole SENDs that are no SMB Direct message (too short, malformed) */
	uint64_t data;              /* data transfer messages */
	uint64_t empty;             /* ... without data (a credit grant, a keep-alive) */
	uint64_t response_requested;/* ... with SMB_DIRECT_RESPONSE_REQUESTED */
	uint64_t fragmented;        /* SMB2 messages in more than one data transfer message, reassembled */
	uint64_t fragments;         /* the data transfer messages of those */
	uint64_t frag_lied;         /* fragments whose RemainingDataLength did not add up: the message dropped */
	uint64_t frag_too_long;     /* messages longer than the receiver's MaxFragmentedSize: dropped */
	uint64_t frag_open;         /* a message still being reassembled at the end (0 or 1) */
	uint64_t credits_granted;   /* CreditsGranted, added up (negotiate response included) */
	uint16_t credits_requested_max;
	uint64_t smb2;              /* SMB2 messages (a compound counts once) */
	uint64_t compound;          /* ... compounds: more than one header (MS-SMB2 3.2.4.1.4) */
	uint64_t compound_headers;  /* their headers after the first, read and paired as the first */
	uint64_t compound_dropped;  /* ... read past the RS_SMBD_CHAIN kept: counted, not paired */
	uint64_t compound_cut;      /* compounds whose chain goes on past the packet the decoder read (a later
	                             * packet or fragment of the SEND, or the capture's cut): the rest not read */
	uint64_t smb2_bad;          /* SMB2 messages the decoder could not read (encrypted, SMB1, malformed) */
};

struct rs_smbd_neg_info {
	bool req, rsp;              /* seen */
	uint16_t min_version, max_version, negotiated_version;
	uint16_t req_credits_requested, rsp_credits_requested, credits_granted;
	uint32_t status;
	uint32_t req_preferred_send, req_max_receive, req_max_fragmented;
	uint32_t max_read_write, rsp_preferred_send, rsp_max_receive, rsp_max_fragmented;
};

struct rs_smbd_cmd_info {
	uint64_t n;                 /* requests */
	uint64_t done;              /* final responses */
	uint64_t interim;           /* interim responses (STATUS_PENDING, async) */
	uint64_t failed;            /* final responses with a status other than SUCCESS */
	uint64_t resent;            /* requests a packet of which (request, response, RDMA transfer) the fabric sent again */
	uint64_t rdma_bytes;        /* the RDMA READs and WRITEs of its requests moved */
	struct rs_lat_figures lat;  /* the request's last frame -> its final response's last frame */
};

/* A request with its answer: the slowest ones, and the failed ones. */
struct rs_smbd_req_info {
	uint16_t cmd;
	uint64_t message_id;
	uint32_t status;            /* of the final response */
	uint64_t lat_ns;
	uint8_t resent;             /* RS_SMBD_RESENT_* */
	uint32_t xfers;             /* RDMA READs and WRITEs tied to it */
	uint64_t xfer_bytes;
	uint32_t file;
	uint64_t req_frame, rsp_frame, interim_frame; /* interim 0: none */
};

struct rs_smbd_info {
	struct rs_smbd_neg_info neg;
	struct rs_smbd_side_info side[2]; /* client, server */
	uint64_t requests, responses, interims;
	uint64_t pending;           /* requests not answered by the end */
	uint64_t unmatched;         /* responses to no request seen (before the capture) */
	uint64_t notifications;     /* server messages with MessageId 0xFFFFFFFFFFFFFFFF (oplock/lease breaks) */
	uint64_t cancels;           /* CANCEL requests (never answered) */
	uint64_t wrong_way;         /* requests from the server, responses from the client */
	uint64_t mid_again;         /* a request with the MessageId of one still pending */
	/* RDMA transfers the server issued (SMB2 Direct, MS-SMB2 3.3.5.12-13):
	 * RDMA READs of the client's buffers (a WRITE's data), RDMA WRITEs to
	 * them (a READ's) */
	uint64_t rdma_reads, rdma_read_bytes, rdma_writes, rdma_write_bytes;
	uint64_t rdma_untied;       /* ... with an R_Key no pending request's buffer descriptor gave */
	uint64_t rdma_outside;      /* ... tied, but outside the descriptor's buffer (address or length) */
	uint64_t rdma_short;        /* requests answered with SUCCESS whose transfers moved other than their descriptors' length */
	uint64_t resent_frames;     /* frames of the connection the analysis judged sent again */
	uint64_t resent_untied;     /* ... of no request known */
	uint64_t resent_requests;   /* requests something of which was sent again */
	struct rs_smbd_cmd_info cmd[RS_SMBD_CMDS];
	uint32_t nslow;
	struct rs_smbd_req_info slow[RS_SMBD_SLOW]; /* slowest first */
	uint64_t nfailed;
	struct rs_smbd_req_info failed[RS_SMBD_FAILED];
	struct rs_smbd_req_info resent[RS_SMBD_SLOW]; /* the first requests something of which was re-sent */
};

/* False: not an SMB Direct connection. */
bool rs_conn_smbd(const struct rs_conn *c, struct rs_smbd_info *out);


/*
 * Between the module's analysis files: smbd_state.c's queue (struct
 * rs_smbdq) fed by side (0 the client's, 1 the server's) rather than by
 * connection, as recognition by shape (smbd_look_state.c) feeds it before
 * the pair is a connection; v NULL: no verdict written.
 */
struct rs_frame;
struct rs_sendmsg;
struct rs_verdict;
struct rs_smbdq;
struct rs_smbd_look;
/* A SEND message; d: its first packet's SMB Direct decode (NULL: none). */
void rs_smbdq_message(struct rs_smbdq *q, unsigned side, const struct rs_sendmsg *m, const struct rs_smbd *d,
		      struct rs_verdict *v);
/* A frame (the server's RDMA transfers); pmtu: the path MTU if known, 0 if not. */
void rs_smbdq_frame(struct rs_smbdq *q, unsigned side, const struct rs_frame *f, uint32_t file, uint32_t pmtu,
		    struct rs_verdict *v);
/* A frame sent again. */
void rs_smbdq_resent(struct rs_smbdq *q, unsigned side, const struct rs_frame *f, uint32_t file, struct rs_verdict *v);
/* Responses (final and interim) tied to a request so far; SMB2 messages
 * that went the wrong way (a request from the server, a response from the
 * client); whether the side is inside a fragmented message. */
uint64_t rs_smbdq_answers(const struct rs_smbdq *q);
uint64_t rs_smbdq_wrong_way(const struct rs_smbdq *q);
bool rs_smbdq_continues(const struct rs_smbdq *q, unsigned side);
/* The queue's recognition state (smbd_look_state.h: made by smbd_look_state.c). */
struct rs_smbd_look **rs_smbdq_look(struct rs_smbdq *q);

#endif
