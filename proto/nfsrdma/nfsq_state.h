/*
 * nfsq_state.h — the NFS/RDMA module's queue state, shared by the files of
 * its analysis: the calls and replies (nfsrdma_state.c), the record for
 * the writers (nfsrdma_info_state.c) and recognition by shape
 * (nfsrdma_shape_state.c). Private to proto/nfsrdma/: the names without
 * rs_ are the module's own.
 */
#ifndef RS_PROTO_NFSRDMA_NFSQ_STATE_H
#define RS_PROTO_NFSRDMA_NFSQ_STATE_H

#include <glib.h>

#include "analyzer/internal.h"
#include "proto/nfsrdma/nfsrdma_state.h"

#define CALL_SEGS 8       /* segments kept per call to tie transfers to; more are counted */
#define RANGES 64         /* recent messages' PSN ranges per connection */
#define DONE 32           /* recently answered calls, for packets sent again after the reply */
#define RANGE_MAX 4096    /* packets a range may grow to (a message of up to 16 MiB at 4 KiB) */

/* The four PSN streams of a connection: each side's requests (SENDs,
 * READ requests, WRITEs) and each side's READ responses. */
enum { ST_CLIENT = 0, ST_SERVER = 1, ST_RSP = 2 };

struct kind {
	struct rs_nfs_kind_info i; /* its lat: filled in for the writers, from lat */
	struct rs_latvec lat;
};

struct seg {
	uint8_t list;
	uint32_t handle, length;
	uint64_t offset;
};

/* A call awaiting its reply. */
struct call {
	uint64_t key;             /* side << 32 | XID: the pending table's key */
	uint32_t xid, seq;        /* seq: the connection's call number, for the PSN ranges */
	uint8_t side;             /* ST_CLIENT: called by the client; ST_SERVER: the backchannel */
	int16_t kind;
	bool resent;
	uint32_t psn;             /* its SEND's first PSN: the same XID and PSN again is the same call */
	uint64_t ts;
	struct rs_fref at;
	uint8_t nsegs;
	struct seg segs[CALL_SEGS];
	bool chunk_reply;         /* its RPC reply read from the first RDMA WRITE into its reply chunk: */
	struct rs_onc_rpc reply;  /* ... what it says (an RDMA_NOMSG reply's status is there) */
	GList link;               /* in the connection's order of calls (oldest first) */
};

/* A recently answered call: packets of its messages may still come again,
 * and a transfer re-sent after the reply (its first sending not captured).
 * Its latency runs to its reply's last sending (the requester took that
 * one): counted when it leaves the ring, or at the end. */
struct done {
	uint64_t key;             /* 0: settled (its latency counted), or never used */
	uint32_t seq, call_psn, reply_psn;
	uint64_t call_ts;
	int16_t kind;
	bool resent, failed;
	uint8_t side, nsegs;
	struct seg segs[CALL_SEGS];
	struct rs_nfs_call_info info;
};

/* The PSNs a message of a call took on one stream. */
struct range {
	uint8_t stream, what;     /* what: enum rs_ulp_pdu, the message's to its call */
	bool open;                /* its last packet not seen yet: Middle and Last packets grow it */
	uint32_t psn, n, seq;
};

struct rs_nfsq {
	struct rs_nfs_info c;     /* the counts (kinds, slow, err, unans kept apart below) */
	uint32_t seq, mtu;
	unsigned nkinds;
	struct kind kinds[RS_NFS_KINDS];
	GHashTable *pending;      /* key -> struct call */
	GQueue order;             /* the pending calls, oldest first */
	GHashTable *by_handle;    /* R_Key -> struct call (the newest waiting call that lent it) */
	struct done done[DONE];
	unsigned done_next;
	struct range ranges[RANGES];
	unsigned range_next;
	int open[4];              /* per stream: the range of the message under way (-1: none of a call's) */
	struct rs_verdict *v;     /* while a frame is added with its verdict (per-frame views) */
	uint32_t file;            /* ... and its input file */
	struct rs_nfs_call_info super[RS_NFS_UNANSWERED]; /* calls whose XID came again unanswered */
	unsigned nsuper;
	/* Recognition by shape (nfsrdma_shape_state.c): the client's side known
	 * (the first NFS call's sender). */
	bool rg_sides;
};

static inline struct rs_nfs_call_info rs_nfs_call_info_of(const struct call *c)
{
	return (struct rs_nfs_call_info){ .xid = c->xid, .seq = c->seq, .kind = c->kind, .resent = c->resent, .call_at = c->at };
}

/* A frame of the queue (nfsrdma_state.c): from the client's side or the
 * server's; v: its verdict (NULL: none written), file its input file. */
void rs_nfsq_feed(struct rs_nfsq *q, bool from_client, const struct rs_frame *f, const struct rs_frame_meta *m,
		  const struct rs_fref *at, struct rs_verdict *v, uint32_t file);

#endif
