/*
 * nfsrdma_state.h — what the NFS/RDMA module's analysis (nfsrdma_state.c)
 * gives its writers: a connection's RPC calls and replies as a plain
 * record, as analyzer/result.h gives the rest.
 */
#ifndef RS_PROTO_NFSRDMA_STATE_H
#define RS_PROTO_NFSRDMA_STATE_H

#include "analyzer/result.h"
#include "proto/nfsrdma/rpcrdma_dissect.h"

#define RS_NFS_KINDS 40       /* kinds of call listed per connection; more are counted in other_calls */
#define RS_NFS_SLOWEST 5      /* the slowest answered calls kept */
#define RS_NFS_ERRS 8         /* failed calls listed */
#define RS_NFS_UNANSWERED 8   /* calls never answered listed */
#define RS_NFS_PENDING_MAX 4096 /* calls awaiting their reply kept per connection; older ones are forgotten */

/* A kind of call: its RPC program, version and procedure, and for an
 * NFSv4 COMPOUND its operations in order. */
struct rs_nfs_kind_id {
	uint32_t prog, vers, proc;
	bool back;                  /* called by the server (the NFSv4.1 backchannel) */
	bool in_chunk;              /* RDMA_NOMSG: the RPC message in a read chunk, not read */
	bool ops_more;              /* a COMPOUND with operations after those in ops[] (not decoded) */
	uint8_t nops;
	uint32_t ops[RS_NFS4_MAX_OPS];
};

struct rs_nfs_kind_info {
	struct rs_nfs_kind_id id;
	uint64_t calls, replies;
	uint64_t errors;            /* replies not accepted with SUCCESS, or with an NFS status not OK */
	uint64_t resent;            /* calls the fabric re-sent packets for */
	uint64_t rdma_read_bytes, rdma_write_bytes; /* moved by the RDMA READs and WRITEs tied to them */
	struct rs_lat_figures lat;  /* call -> reply */
};

/* A call: its XID, kind (index in kinds; -1: beyond them), where its call
 * and reply began, its latency, and whether the fabric re-sent packets of
 * its messages or chunks. */
struct rs_nfs_call_info {
	uint32_t xid, seq;          /* seq: the call's number on its connection */
	int16_t kind;
	bool resent;
	uint64_t ns;
	struct rs_fref call_at, reply_at;
};

enum rs_nfs_err_kind {
	RS_NFS_ERR_NFS = 0,         /* stat: the nfsstat3 / nfsstat4; op: the NFSv4 operation that failed */
	RS_NFS_ERR_ACCEPT,          /* accepted, not SUCCESS: stat the accept_stat */
	RS_NFS_ERR_DENIED,          /* MSG_DENIED: stat the reject_stat */
	RS_NFS_ERR_RDMA,            /* RDMA_ERROR instead of a reply: stat the rdma_err */
};
struct rs_nfs_err_info {
	struct rs_nfs_call_info call;
	uint8_t what;               /* enum rs_nfs_err_kind */
	bool have_op;
	uint32_t stat, op;
};

struct rs_nfs_info {
	uint64_t calls, replies;
	uint64_t unanswered;        /* calls without a reply by the end (or before their XID came again) */
	uint64_t unmatched;         /* replies to no call seen (their calls before the capture) */
	uint64_t xid_reused;        /* calls with the XID of a call still waiting, not a re-send of it */
	uint64_t forgotten;         /* calls dropped unanswered beyond RS_NFS_PENDING_MAX */
	uint64_t again;             /* SENDs of calls and replies already seen, sent again by the fabric */
	uint64_t resent_for;        /* calls the fabric re-sent packets for */
	uint64_t rpc_errors, nfs_errors;
	uint64_t not_read;          /* replies whose status was not read: in the reply chunk, its first WRITE not seen; or cut */
	uint64_t cut, bad;          /* headers the capture cut; headers whose counts or lengths lie */
	uint64_t other;             /* SENDs not an RPC call or reply (RDMA_DONE, RDMA_MSGP, not decoded) */
	uint64_t segs[3], seg_bytes[3]; /* segments the calls advertised: read list, write chunks, reply chunk */
	uint64_t reads, read_bytes, writes, write_bytes; /* RDMA READ requests and WRITE messages for the calls ... */
	uint64_t untied;            /* ... and those with a handle and address no waiting call gave */
	unsigned nkinds;
	struct rs_nfs_kind_info kinds[RS_NFS_KINDS];
	uint64_t other_calls;       /* calls of kinds beyond kinds[] */
	unsigned nslow;
	struct rs_nfs_call_info slow[RS_NFS_SLOWEST]; /* slowest first */
	unsigned nslow_resent;      /* the slowest answered calls the fabric re-sent packets for */
	struct rs_nfs_call_info slow_resent[RS_NFS_SLOWEST];
	uint32_t nerr;              /* failed calls, the first RS_NFS_ERRS in err[] */
	struct rs_nfs_err_info err[RS_NFS_ERRS];
	unsigned nunans;            /* the first RS_NFS_UNANSWERED calls never answered, by call frame */
	struct rs_nfs_call_info unans[RS_NFS_UNANSWERED];
};
/* A kind's code in a frame's verdict (ulp_op): the high byte NFS's version
 * (2, 3: the low byte the procedure; 4: NULL, or a COMPOUND by its first
 * operation past SEQUENCE, PUTFH, PUTPUBFH, PUTROOTFH and GETATTR), or one
 * of these with the procedure in the low byte. */
#define RS_NFS_OP_ACL 0x4000      /* NFS_ACL (program 100227) */
#define RS_NFS_OP_OTHER 0xFF00    /* another program, or the backchannel's */
#define RS_NFS_OP_IN_CHUNK 0xFE00 /* an RDMA_NOMSG call: its RPC message not read */
uint16_t rs_nfs_op_code(const struct rs_nfs_kind_id *id);

/* False: not an NFS/RDMA connection. */
bool rs_conn_nfs(const struct rs_conn *c, struct rs_nfs_info *out);

#endif
