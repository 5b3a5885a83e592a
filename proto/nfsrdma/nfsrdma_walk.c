/*
 * nfsrdma_walk.c — an NFS/RDMA frame in the per-frame views: the
 * RPC-over-RDMA header and the RPC message's header of a SEND field by
 * field in the walkthrough (-V), and for every frame of a call (its SEND,
 * the RDMA READs and WRITEs that move its chunks, its reply's SEND) what it
 * is to the call: the sentence --annotate puts in the frame's comment and
 * the walkthrough says. From the decoder's record and the analyzer's
 * verdict (the ulp_* fields nfsrdma_state.c set); nothing here judges a
 * frame. Only on a connection whose service is NFS/RDMA.
 */
#include <inttypes.h>
#include <string.h>

#include "proto/nfsrdma/nfsrdma.h"
#include "proto/nfsrdma/nfsrdma_state.h"
#include "proto/pdu.h"
#include "views/walk_int.h"

const char *rs_nfs_op_name(uint16_t op, char *buf, size_t len)
{
	unsigned hi = op >> 8, lo = op & 0xFF;
	if (op == RS_NFS_OP_IN_CHUNK)
		snprintf(buf, len, "RPC call in a read chunk");
	else if ((op & 0xFF00) == RS_NFS_OP_OTHER)
		snprintf(buf, len, "RPC procedure %u", lo);
	else if ((op & 0xFF00) == RS_NFS_OP_ACL)
		snprintf(buf, len, "NFS_ACL %s", lo == 0 ? "NULL" : lo == 1 ? "GETACL" : lo == 2 ? "SETACL" : "procedure");
	else if (hi == 4 && lo == 0)
		snprintf(buf, len, "NFSv4 NULL");
	else if (hi == 4 && lo == 1)
		snprintf(buf, len, "NFSv4 COMPOUND");
	else if (hi == 4)
		snprintf(buf, len, "NFSv4 %s", *rs_nfs4_op_name(lo) ? rs_nfs4_op_name(lo) : "COMPOUND");
	else
		snprintf(buf, len, "NFSv%u %s", hi, *rs_nfs3_proc_name(lo) ? rs_nfs3_proc_name(lo) : "procedure");
	return buf;
}

static const struct rs_rpcrdma *pdu_of(const struct rs_frame *f)
{
	return rs_frame_pdu(f, RS_PDU_RPCRDMA) ? &f->pdu->rpc : NULL;
}

bool rs_nfs_note(const struct rs_verdict *v, const struct rs_frame *f, char *buf, size_t len)
{
	char op[48] = "a call not seen", xid[32] = "", from[48] = "", lat[48] = "";
	if (v->ulp_op_known)
		rs_nfs_op_name(v->ulp_op, op, sizeof op);
	if (v->ulp_tag_known)
		snprintf(xid, sizeof xid, " XID 0x%08" PRIx32, v->ulp_tag);
	if (v->ulp_req_frame)
		snprintf(from, sizeof from, " (call frame %" PRIu64 ")", v->ulp_req_frame);
	if (v->ulp_timed)
		snprintf(lat, sizeof lat, ", %.3f ms after it", (double)v->ulp_lat_ns / 1e6);
	const struct rs_opinfo *o = rs_opinfo(f->bth.opcode);
	switch (v->ulp_pdu) {
	case RS_ULP_REQUEST:
		snprintf(buf, len, "NFS/RDMA: call %s%s", op, xid);
		break;
	case RS_ULP_RESPONSE:
		snprintf(buf, len, "NFS/RDMA: reply to %s%s%s%s%s", op, xid, from, lat, v->ulp_failed ? ", FAILED" : "");
		break;
	case RS_ULP_TRANSFER:
		snprintf(buf, len, "NFS/RDMA: %s of a chunk of %s%s%s",
			 o->kind == RS_KIND_READ_REQ ? "RDMA READ" : o->kind == RS_KIND_READ_RESP ? "RDMA READ response"
												  : "RDMA WRITE",
			 op, xid, from);
		break;
	default:
		if (!pdu_of(f))
			return false;
		snprintf(buf, len, "NFS/RDMA: %s (no call)", rs_rpcrdma_proc_name(pdu_of(f)->proc));
		break;
	}
	size_t n = strlen(buf);
	if (v->ulp_resent && n < len)
		snprintf(buf + n, len - n, "; the fabric re-sent a packet of this call");
	return true;
}

static void chunks(struct walk *w, const struct rs_rpcrdma *r)
{
	static const char *const list[] = { "read chunk", "write chunk", "reply chunk" };
	for (unsigned i = 0; i < r->nsegs && i < RS_RPCRDMA_MAX_SEGS; i++) {
		const struct rs_rdma_seg *s = &r->segs[i];
		char pos[40] = "";
		if (s->list == RS_RDMA_READ_LIST)
			snprintf(pos, sizeof pos, ", XDR position %" PRIu32, s->position);
		rs_wsay(w, "%s segment: handle 0x%08" PRIx32 ", %" PRIu32 " bytes at %#" PRIx64 "%s.",
			s->list < 3 ? list[s->list] : "chunk", s->handle, s->length, s->offset, pos);
	}
	if (r->segs_dropped)
		rs_wsay(w, "and %u more segments.", r->segs_dropped);
}

static void rpc_fields(struct walk *w, const struct rs_rpcrdma *r, uint32_t o)
{
	const struct rs_onc_rpc *m = &r->rpc;
	rs_wfield(w, o, "XID", rs_whex(m->xid, 8), "the reply carries it back");
	rs_wfield(w, o + 4, "Message type", rs_wfmt("%" PRIu32, m->msg_type), "%s",
		  m->msg_type == RS_RPC_CALL ? "CALL" : "REPLY");
	if (m->msg_type == RS_RPC_CALL) {
		rs_wfield(w, o + 12, "Program", rs_wfmt("%" PRIu32, m->prog), "%s",
			  m->prog == RS_RPC_PROG_NFS ? "NFS" : m->prog == 100227 ? "NFS_ACL" : "");
		rs_wfield(w, o + 16, "Version", rs_wfmt("%" PRIu32, m->vers), NULL);
		rs_wfield(w, o + 20, "Procedure", rs_wfmt("%" PRIu32, m->proc), "%s",
			  m->prog == RS_RPC_PROG_NFS && m->vers == 3 ? rs_nfs3_proc_name(m->proc)
			  : m->prog == RS_RPC_PROG_NFS && m->vers == 4 ? (m->proc ? "COMPOUND" : "NULL") : "");
	} else {
		rs_wfield(w, o + 8, "Reply state", rs_wfmt("%" PRIu32, m->reply_stat), "%s",
			  m->reply_stat ? "MSG_DENIED" : "MSG_ACCEPTED");
		if (!m->reply_stat)
			rs_wsay(w, "Accept state %" PRIu32 " (%s).", m->accept_stat, rs_rpc_accept_stat_name(m->accept_stat));
	}
	bool ops = m->msg_type == RS_RPC_CALL ? m->prog == RS_RPC_PROG_NFS && m->vers == 4 && m->proc == 1
					       : m->as_compound && m->ops_read;
	if (!ops)
		return;
	char list[400] = "";
	size_t n = 0;
	for (unsigned i = 0; i < m->ops_read && i < RS_NFS4_MAX_OPS && n < sizeof list; i++)
		n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? " " : "",
				      *rs_nfs4_op_name(m->ops[i]) ? rs_nfs4_op_name(m->ops[i]) : "?");
	rs_wsay(w, "%s COMPOUND operations: %s%s.", m->msg_type == RS_RPC_CALL ? "The call's" : "If its call was a COMPOUND, its",
		list, m->nops > m->ops_read ? " …" : "");
}

void rs_nfs_walk(struct walk *w)
{
	const struct rs_frame *f = w->f;
	const struct rs_rpcrdma *r = pdu_of(f);
	if (r && r->outcome != RS_RPCRDMA_NOT) {
		uint32_t o = f->payload_off;
		uint32_t n = r->hdr_len + (r->has_rpc ? 24 : 0);
		rs_wtitle_named(w, RS_L_PAYLOAD, "RPC-over-RDMA", "RPC-over-RDMA header and RPC message, in the SEND's payload",
				o, n < f->payload_len ? n : f->payload_len);
		rs_wfield(w, o, "XID", rs_whex(r->xid, 8), NULL);
		rs_wfield(w, o + 4, "Version", rs_wfmt("%" PRIu32, r->vers), NULL);
		rs_wfield(w, o + 8, "Credits", rs_wfmt("%" PRIu32, r->credits), "requests the sender may have outstanding");
		rs_wfield(w, o + 12, "Procedure", rs_wfmt("%" PRIu32, r->proc), "%s", rs_rpcrdma_proc_name(r->proc));
		chunks(w, r);
		if (r->has_rpc)
			rpc_fields(w, r, o + r->hdr_len);
		if (r->outcome != RS_RPCRDMA_OK && r->outcome != RS_RPCRDMA_CONTINUED)
			rs_wsay_marked(w, "!! ", "1;31", "The header is %s%s%s.", rs_rpcrdma_outcome_name(r->outcome),
				       r->why ? ": " : "", r->why ? r->why : "");
		if (rs_walk_first(w, WALK_TOPIC_ULP))
			rs_wsay(w, "RPC-over-RDMA (RFC 8166) carries each RPC message in one SEND after a transport header "
				"that lends the peer memory: the read list (the server RDMA READs an NFS WRITE's data "
				"from it), write chunks (it RDMA WRITEs a READ's data into them) and the reply chunk (for "
				"a long reply, then sent as RDMA_NOMSG). The reply has the call's XID.");
	}
	char s[512];
	if (rs_nfs_note(&w->v, f, s, sizeof s))
		rs_wsay(w, "%s.", s);
}
