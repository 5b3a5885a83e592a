/*
 * rpcrdma_dissect.h — the RPC-over-RDMA version 1 transport header
 * (RFC 8166 4) with its chunk lists, and the ONC RPC message (RFC 5531)
 * that follows it inline: call and reply headers, NFSv3 procedures
 * (RFC 1813) and the operations of an NFSv4 COMPOUND (RFC 7530, 8881,
 * 7862; nfs4_dissect.c).
 *
 * One RPC-over-RDMA message is one RDMA SEND. The transport header names
 * the memory the peer moves data with: the read list (the requester's
 * memory the responder RDMA READs: arguments moved out of the inline
 * message), the write list (where the responder RDMA WRITEs result data)
 * and the reply chunk (where it writes a whole long reply). Each segment
 * is a handle (the R_key), a length and an offset (the address).
 *
 * A reply says neither its program nor its procedure: the caller that
 * matched it to its call by XID passes them (struct rs_rpc_hint) for the
 * results to be read; without them, what the results say if the call was
 * NFS's is read as well (res_word, as_compound), for a caller that pairs
 * the reply with its call later. Pure: no allocation, no globals, no
 * printing.
 */
#ifndef RS_PROTO_RPCRDMA_DISSECT_H
#define RS_PROTO_RPCRDMA_DISSECT_H

#include <stdbool.h>
#include <stdint.h>

#include "dissect/cursor.h"

#define RS_RPCRDMA_MIN_HDR 28   /* xid, vers, credits, proc and three empty lists */
#define RS_RPCRDMA_MAX_SEGS 16  /* segments kept per message; more are counted */
#define RS_NFS4_MAX_OPS 16      /* COMPOUND operations kept; more are counted */

enum rs_rpcrdma_outcome {
	RS_RPCRDMA_NOT = 0,     /* not an RPC-over-RDMA header (too short, another version field) */
	RS_RPCRDMA_OK,
	RS_RPCRDMA_TRUNCATED,   /* the capture stopped before the end of what was decoded */
	RS_RPCRDMA_MALFORMED,   /* a count, length or discriminator contradicts the frame */
	RS_RPCRDMA_UNSUPPORTED, /* a procedure, RPC version or NFSv4 operation not decoded */
	RS_RPCRDMA_CONTINUED,   /* the first packet of a longer SEND ends before what was decoded:
	                         * the rest is in the packets after it (reassembly's job) */
	RS_RPCRDMA__OUTCOMES
};

enum rs_rpcrdma_proc {
	RS_RDMA_MSG = 0, RS_RDMA_NOMSG = 1, RS_RDMA_MSGP = 2, RS_RDMA_DONE = 3, RS_RDMA_ERROR = 4,
};

enum rs_rdma_list { RS_RDMA_READ_LIST = 0, RS_RDMA_WRITE_LIST = 1, RS_RDMA_REPLY_CHUNK = 2 };

struct rs_rdma_seg {
	uint8_t list;        /* enum rs_rdma_list */
	uint8_t chunk;       /* write list: which chunk (0, 1, ...) */
	uint32_t position;   /* read list: the XDR offset in the RPC message the data belongs at */
	uint32_t handle, length;
	uint64_t offset;
};

enum rs_rpc_msg { RS_RPC_CALL = 0, RS_RPC_REPLY = 1 };

#define RS_RPC_PROG_NFS 100003
#define RS_NFS4_COMPOUND 1

/* What the call of a reply was (the caller's XID match). */
struct rs_rpc_hint {
	uint32_t prog, vers, proc; /* prog 0: unknown */
	uint32_t minorversion;     /* NFSv4 */
	uint8_t nops;              /* NFSv4 COMPOUND: the call's operations */
	uint32_t ops[RS_NFS4_MAX_OPS];
};

struct rs_onc_rpc {
	uint32_t xid, msg_type;
	/* call */
	uint32_t rpcvers, prog, vers, proc;
	uint32_t cred_flavor, verf_flavor;
	/* reply */
	uint32_t reply_stat;    /* 0 MSG_ACCEPTED, 1 MSG_DENIED */
	uint32_t accept_stat;   /* accepted: 0 SUCCESS ... 5 SYSTEM_ERR */
	uint32_t reject_stat;   /* denied: 0 RPC_MISMATCH, 1 AUTH_ERROR */
	uint32_t auth_stat;
	uint32_t mismatch_low, mismatch_high;
	/* NFS: the reply's status (nfsstat3 / nfsstat4), with have_status */
	bool have_status;
	uint32_t status;
	/* NFSv4 COMPOUND */
	uint32_t tag_len, minorversion;
	uint32_t nops;          /* the count on the wire */
	uint8_t ops_read;       /* operations read into ops[] (at most RS_NFS4_MAX_OPS) */
	bool ops_partial;       /* stopped before the last operation: one whose arguments or results are not decoded */
	uint32_t ops[RS_NFS4_MAX_OPS];
	uint32_t op_status[RS_NFS4_MAX_OPS]; /* reply: each operation's nfsstat4 */
	/* A reply decoded without its call (hint NULL), accepted with SUCCESS:
	 * what its results say if the call was NFS's, for the caller that
	 * finds the call by XID afterwards. res_word: the results' first word
	 * (NFSv2/v3's nfsstat, an NFSv4 COMPOUND's nfsstat4). as_compound: the
	 * results read as COMPOUND4res, into nops, ops[], op_status[],
	 * ops_read and ops_partial; meaningful only if the call was an NFSv4
	 * COMPOUND (the results of another call may read as one too). Neither
	 * sets have_status, which says the call was known. */
	bool have_res_word, as_compound;
	uint32_t res_word;
	/* bytes of RPC message read inline (the XDR offset reached) */
	uint32_t xdr_len;
};

struct rs_rpcrdma {
	uint8_t outcome;        /* enum rs_rpcrdma_outcome */
	const char *why;        /* MALFORMED / UNSUPPORTED: a static sentence */
	uint32_t xid, vers, credits, proc;
	/* chunk lists */
	uint16_t n_read, n_write_chunks, n_write_segs, n_reply_segs;
	bool has_reply_chunk;
	uint16_t nsegs;         /* in segs[] */
	uint16_t segs_dropped;  /* beyond RS_RPCRDMA_MAX_SEGS */
	struct rs_rdma_seg segs[RS_RPCRDMA_MAX_SEGS];
	uint64_t read_bytes, write_bytes, reply_bytes; /* the segments' lengths added up */
	/* RDMA_MSGP (RFC 5666) */
	uint32_t align, thresh;
	/* RDMA_ERROR */
	uint32_t err;           /* 1 ERR_VERS, 2 ERR_CHUNK */
	uint32_t vers_low, vers_high;
	uint32_t hdr_len;       /* the transport header's bytes */
	/* the RPC message inline (RDMA_MSG) */
	bool has_rpc;
	struct rs_onc_rpc rpc;
};

/*
 * Decode the payload of a SEND at `c` (captured bytes), `wire_len` bytes on
 * the wire. `whole`: a SEND Only (the counts must fit in it); a SEND First
 * holds the header but may not hold the RPC message's end. `hint`: for a
 * reply, its call (NULL or prog 0: unknown, only the RPC header is read).
 * Returns r->outcome. Every outcome but NOT keeps the fields read before
 * the point it names valid (MALFORMED: before the lie; UNSUPPORTED: the
 * transport and RPC headers, and the NFSv4 operations before the one not
 * decoded).
 */
enum rs_rpcrdma_outcome rs_rpcrdma_decode(struct rs_cursor *c, uint32_t wire_len, bool whole,
					  const struct rs_rpc_hint *hint, struct rs_rpcrdma *r);

/*
 * The RPC reply at the start of a reply chunk (RFC 8166 3.5.4: an
 * RDMA_NOMSG reply's RPC message is RDMA-written there, from the chunk's
 * first byte): the payload of an RDMA WRITE First or Only at `c`,
 * `wire_len` bytes on the wire, read as an RPC reply message (XID, REPLY,
 * the reply header, and as rs_rpcrdma_decode without a hint, the results'
 * first word and their reading as a COMPOUND's) into r->rpc, with r->xid
 * its XID and r->proc RDMA_NOMSG (no transport header is there). NOT
 * unless the payload begins with a whole RPC reply header whose fields
 * are ones RFC 5531 defines (its results may go on past the packet).
 */
enum rs_rpcrdma_outcome rs_rpc_chunk_reply_decode(struct rs_cursor *c, uint32_t wire_len, struct rs_rpcrdma *r);

/* The hint a call gives its reply. */
void rs_rpc_hint_of(const struct rs_onc_rpc *call, struct rs_rpc_hint *h);

/* Names; never NULL ("" if unknown). */
const char *rs_rpcrdma_proc_name(uint32_t proc);
const char *rs_rpcrdma_outcome_name(enum rs_rpcrdma_outcome o);
const char *rs_rpc_accept_stat_name(uint32_t s);
const char *rs_nfs3_proc_name(uint32_t proc);
const char *rs_nfs4_op_name(uint32_t op);
const char *rs_nfs3_status_name(uint32_t s);
const char *rs_nfs4_status_name(uint32_t s);

#endif
