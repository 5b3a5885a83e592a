/*
 * nfsrdma_shape_state.c — NFS/RDMA recognised by shape: an RC half-flow
 * pair without a CM connection (the capture began after the handshake)
 * whose traffic is RPC-over-RDMA version 1 (RFC 8166) carrying NFS.
 *
 * The rule (the man page states it, --ulp): every SEND that starts a
 * message on the pair is an RPC-over-RDMA header the decoder read without
 * a lie (version 1, a procedure RFC 8166 defines, chunk lists and counts
 * that fit the SEND, for RDMA_ERROR a known code, an inline RPC call of
 * RPC version 2; cut by the capture allowed), its credit value between 1
 * and 65535; the first call to NFS (program 100003) or NFS_ACL (100227)
 * says which side is the client, and no such call comes from the other
 * side; and RECOG_TIED replies from the server's side answered by their
 * XID a call seen on the pair. A SEND against any of it ends the look at
 * once; RECOG_GIVE_UP headers without enough ties end it too. A random
 * payload's second word is 1 once in 2^32, and a tie wants its XID (32
 * bits) to be a waiting call's: the rule does not pass by chance.
 *
 * The queue is fed while it looks (nfsrdma_state.c), from the first NFS
 * call on, so on recognition it holds every call from there; the SENDs
 * before that call (replies to calls before the capture) are checked for
 * the shape and counted as evidence, but not fed.
 */
#include "proto/nfsrdma/nfsq_state.h"
#include "proto/nfsrdma/nfsrdma.h"
#include "proto/pdu.h"

#define RECOG_TIED 4
#define RECOG_GIVE_UP 256
#define PROG_NFS_ACL 100227

/* An RPC-over-RDMA version 1 header read without a lie. UNSUPPORTED is
 * allowed only where the header and RPC message were read (an NFSv4
 * operation not decoded): an unknown procedure, RDMA_ERROR code or RPC
 * version is not. */
static bool header_ok(const struct rs_rpcrdma *r)
{
	if (r->vers != 1 || r->proc > RS_RDMA_ERROR || r->credits < 1 || r->credits > 0xFFFF)
		return false;
	if (r->outcome == RS_RPCRDMA_MALFORMED || r->outcome == RS_RPCRDMA_NOT)
		return false;
	if (r->proc == RS_RDMA_ERROR && r->err != 1 && r->err != 2 && r->outcome != RS_RPCRDMA_TRUNCATED)
		return false;
	if (r->has_rpc && r->rpc.msg_type == RS_RPC_CALL && r->rpc.rpcvers != 2 && r->outcome != RS_RPCRDMA_TRUNCATED)
		return false;
	return r->outcome != RS_RPCRDMA_UNSUPPORTED || r->has_rpc;
}

/* A call to NFS's programs (not the NFSv4.1 backchannel's, which the
 * server calls). */
static bool nfs_call(const struct rs_rpcrdma *r)
{
	return r->has_rpc && r->rpc.msg_type == RS_RPC_CALL && r->rpc.rpcvers == 2 &&
	       (r->rpc.prog == RS_RPC_PROG_NFS || r->rpc.prog == PROG_NFS_ACL);
}

enum rs_recog rs_nfs_recognize(struct rs_recog_pair *p, bool from_a, const struct rs_frame *f,
			       const struct rs_frame_meta *m)
{
	struct rs_nfsq *q = p->q;
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	bool header = false;
	if (rs_op_send_starts(op)) {
		const struct rs_rpcrdma *r = rs_frame_pdu(f, RS_PDU_RPCRDMA) ? &f->pdu->rpc : NULL;
		if (!r || !header_ok(r))
			return p->forced ? RS_RECOG_MORE : RS_RECOG_NO; /* a SEND that is no RPC-over-RDMA header */
		if (!q->rg_sides && nfs_call(r)) {
			q->rg_sides = true;
			p->host_is_a = from_a;
		}
		if (q->rg_sides && !p->forced && nfs_call(r) && from_a != p->host_is_a)
			return RS_RECOG_NO; /* NFS calls both ways */
		header = true;
	}
	p->pdus += header;
	if (!q->rg_sides)
		return p->pdus >= RECOG_GIVE_UP ? RS_RECOG_NO : RS_RECOG_MORE; /* the client's side: not known before an NFS call */
	struct rs_fref at = { m->file_index, m->frame_no };
	bool from_client = from_a == p->host_is_a;
	uint64_t replies = q->c.replies;
	rs_nfsq_feed(q, from_client, f, m, &at, NULL, m->file_index);
	p->matched += !from_client && q->c.replies != replies;
	if (p->forced || p->matched >= RECOG_TIED)
		return RS_RECOG_YES;
	return p->pdus >= RECOG_GIVE_UP ? RS_RECOG_NO : RS_RECOG_MORE;
}
