/*
 * nvmeof_walk.c — an NVMe-oF capsule in the walkthrough (-V): the command's
 * submission queue entry or the response's completion queue entry, field by
 * field, and what it means here (which command a response answers, the
 * RDMA transfer a keyed SGL asks the target for). Only on a connection whose
 * service is NVMe-oF (the analyzer's verdict); elsewhere walk.c shows the
 * same bytes as payload. NVMe fields are little-endian: their values are
 * printed in decimal, or in hex marked "LE", never as the bytes' order.
 */
#include <inttypes.h>

#include "proto/nvmeof/nvmeof.h"
#include "proto/pdu.h"
#include "views/walk_int.h"

static const char *sgl_type_name(uint8_t id)
{
	switch (id >> 4) {
	case RS_SGL_DATA: return (id & 0xF) == 1 ? "data block, offset: data in this capsule" : "data block";
	case 0x1: return "bit bucket";
	case RS_SGL_SEGMENT: return "segment";
	case RS_SGL_LAST_SEGMENT: return "last segment";
	case RS_SGL_KEYED: return (id & 0xF) == 0xF ? "keyed data block, invalidate the key after use"
						    : "keyed data block: host memory reached by RDMA with the key";
	default: return "reserved";
	}
}

/* The command's name by the queue's command set, when the verdict knows
 * the queue (its Connect was seen). */
static const char *op_name(const struct walk *w, uint8_t opcode, uint8_t fctype)
{
	if (opcode == RS_NVME_FABRICS_OPC)
		return *rs_nvme_fctype_name(fctype) ? rs_nvme_fctype_name(fctype) : "Fabrics command";
	const char *a = rs_nvme_admin_opc_name(opcode), *io = rs_nvme_io_opc_name(opcode);
	const char *name = w->v.nvme_queue == 1 ? a : w->v.nvme_queue == 2 ? io : "";
	if (*name)
		return name;
	if (!w->v.nvme_queue && *a && *io)
		return rs_wfmt("%s (admin queue) or %s (I/O queue)", a, io);
	return *a && w->v.nvme_queue != 2 ? a : *io && w->v.nvme_queue != 1 ? io : rs_wfmt("opcode 0x%02x", opcode);
}

static void command(struct walk *w, const struct rs_layer *l)
{
	const struct rs_nvme *n = &w->f->pdu->nvme;
	uint32_t o = l->off;
	bool fabrics = n->opcode == RS_NVME_FABRICS_OPC;
	rs_wtitle(w, l->id, "command capsule (submission queue entry)", o, l->len);
	rs_wfield(w, o, "Opcode", rs_whexdec(n->opcode, 2), "%s", op_name(w, n->opcode, n->fctype));
	rs_wbits(w, o + 1, 1, 6, 2, n->flags >> 6, "PSDT", "%s",
	      (n->flags >> 6) == 1 ? "SGL, metadata contiguous" : (n->flags >> 6) == 2 ? "SGL, metadata by SGL" : "PRP");
	rs_wbits(w, o + 1, 1, 0, 2, n->flags & 3, "FUSE", "%s", (n->flags & 3) ? "fused operation" : "normal");
	rs_wfield(w, o + 2, "Command ID", rs_wfmt("%u", n->cid), "LE; the response capsule carries it back");
	if (fabrics)
		rs_wfield(w, o + 4, "Fabrics type", rs_whexdec(n->fctype, 2), "%s", rs_nvme_fctype_name(n->fctype));
	else
		rs_wfield(w, o + 4, "Namespace ID", rs_wfmt("%" PRIu32, n->nsid), "LE");
	rs_wfield(w, o + 24, "SGL1 address", rs_wfmt("%#" PRIx64 " (LE)", n->sgl_addr), "%s",
	       rs_nvme_incapsule(n) ? "offset into the in-capsule data" : "");
	rs_wfield(w, o + 32, "SGL1 length", rs_wfmt("%" PRIu32, n->sgl_len), "%s", rs_nvme_keyed(n) ? "24 bits, LE" : "LE");
	if (rs_nvme_keyed(n))
		rs_wfield(w, o + 35, "SGL1 key", rs_wfmt("%#" PRIx32 " (LE)", n->sgl_key), "the rkey the target uses");
	rs_wfield(w, o + 39, "SGL1 identifier", rs_whex(n->sgl_id, 2), "%s", sgl_type_name(n->sgl_id));
	if (fabrics && n->fctype == 0x01) {
		rs_wfield(w, o + 42, "Queue ID", rs_wfmt("%u", n->connect_qid), "%s", n->connect_qid ? "an I/O queue" : "the admin queue");
		rs_wfield(w, o + 44, "SQ size", rs_wfmt("%u", (unsigned)(n->cdw11 & 0xFFFF)), "0's based: %u entries",
		       (unsigned)(n->cdw11 & 0xFFFF) + 1);
	} else if (!fabrics && (n->opcode == 0x01 || n->opcode == 0x02) && w->v.nvme_queue == 2) {
		rs_wfield(w, o + 40, "Starting LBA", rs_wfmt("%" PRIu64, (uint64_t)n->cdw11 << 32 | n->cdw10), "CDW10-11, LE");
		rs_wfield(w, o + 48, "Blocks", rs_wfmt("%u", (n->cdw12 & 0xFFFF) + 1), "CDW12 bits 15:0 + 1 (0's based)");
	}
	if (rs_walk_first(w, l->id))
		rs_wsay(w, "NVMe over Fabrics on RDMA (NVMe-oF 1.1, 7.3): the host puts each command in a capsule and SENDs "
			"it to the target's queue; the first 64 bytes are the same submission queue entry a local NVMe "
			"drive reads from memory, little-endian. NVMe-oF describes data with SGL1 only: either the data "
			"follows in the capsule, or a keyed SGL lends the target an rkey, and the target moves the data "
			"itself, RDMA READ from host memory for a write, RDMA WRITE into it for a read, before it SENDs "
			"the response capsule with the same Command ID.");
	const char *data = !n->sgl_len ? "It moves no data."
			   : rs_nvme_keyed(n) ? rs_wfmt("Its %" PRIu32 " bytes of data move by RDMA with rkey 0x%x, at "
						     "host address 0x%" PRIx64 ".", n->sgl_len, n->sgl_key, n->sgl_addr)
			   : rs_nvme_incapsule(n) ? rs_wfmt("Its %" PRIu32 " bytes of data follow in this capsule.", n->sgl_len)
						  : "";
	rs_wsay(w, "Command %u on the %s: %s. %s", n->cid,
	     w->v.nvme_queue == 1 ? "admin queue" : w->v.nvme_queue == 2 ? "I/O queue" : "queue (its Connect not seen)",
	     op_name(w, n->opcode, n->fctype), data);
	if (n->state == RS_NVME_BAD)
		rs_wsay_marked(w, "!! ", "1;31", "Malformed capsule: %s.", n->why);
	else if (n->state == RS_NVME_CUT)
		rs_wsay(w, "The capture stopped inside the capsule: fields past the cut read as 0.");
}

static void response(struct walk *w, const struct rs_layer *l)
{
	const struct rs_nvme *n = &w->f->pdu->nvme;
	const struct rs_verdict *v = &w->v;
	uint32_t o = l->off;
	const char *sn = rs_nvme_status_name(n->status);
	rs_wtitle(w, l->id, "response capsule (completion queue entry)", o, l->len);
	rs_wfield(w, o, "DW0", rs_wfmt("%#" PRIx32 " (LE)", n->dw0), "command specific");
	rs_wfield(w, o + 4, "DW1", rs_wfmt("%#" PRIx32 " (LE)", n->dw1), NULL);
	rs_wfield(w, o + 8, "SQ head", rs_wfmt("%u", n->sqhd), "the target has consumed the queue up to here");
	rs_wfield(w, o + 10, "SQ ID", rs_wfmt("%u", n->sqid), NULL);
	rs_wfield(w, o + 12, "Command ID", rs_wfmt("%u", n->cid), "LE; the command this answers");
	rs_wfield(w, o + 14, "Status", rs_wfmt("%#x (LE, phase %u)", n->status, n->phase), "SCT %u, SC 0x%02x%s%s%s",
	       rs_nvme_sct(n->status), rs_nvme_sc(n->status), *sn ? ": " : "", sn, n->status & 0x4000 ? ", do not retry" : "");
	if (rs_walk_first(w, WALK_TOPIC_NVME_RSP))
		rs_wsay(w, "The target SENDs a 16-byte completion queue entry for every command (NVMe-oF 1.1, 7.3.2): "
			"the Command ID names the command, the status says how it ended (0: success), and the SQ head "
			"tells the host how far the target has read its queue, so the host knows which queue slots it "
			"may fill again.");
	if (v->nvme_timed)
		rs_wsay(w, "Answers the command capsule of frame %" PRIu64 " (%s), %s after it%s.", v->nvme_cmd_frame,
		     op_name(w, v->nvme_opcode, v->nvme_fctype),
		     rs_walk_duration((double)v->nvme_lat_ns / 1e3), n->status ? ", and it FAILED" : ", successfully");
	else
		rs_wsay(w, "No command capsule with Command ID %u is waiting for an answer in what was walked so far "
			"(its command came before the capture, or the capture put the two directions out of order).",
		     n->cid);
}

void rs_walk_nvme_layer(struct walk *w, const struct rs_layer *l)
{
	if (w->f->pdu->nvme.kind == RS_NVME_CMD)
		command(w, l);
	else
		response(w, l);
}

void rs_walk_nvme_transfer(struct walk *w)
{
	const struct rs_frame *f = w->f;
	bool read = rs_opinfo(f->bth.opcode)->kind == RS_KIND_READ_REQ;
	rs_wsay(w, "NVMe-oF: the target %s for the command capsule of frame %" PRIu64 ", whose keyed SGL lent it R_Key "
		"0x%x.", read ? "reads the command's data from host memory (host to controller)"
			       : "writes the command's data into host memory (controller to host)",
	     w->v.nvme_cmd_frame, f->reth.rkey);
}

/* ---- the per-frame views' note hook (proto/proto.h; op_name: nvmeof_text.c) */

bool rs_nvme_note(const struct rs_verdict *v, const struct rs_frame *f, char *buf, size_t len)
{
	char op[48] = "a command not seen", from[48] = "", lat[48] = "", st[96] = "";
	if (v->ulp_op_known)
		rs_nvme_op_name(v->ulp_op, op, sizeof op);
	if (v->ulp_req_frame)
		snprintf(from, sizeof from, " (command frame %" PRIu64 ")", v->ulp_req_frame);
	if (v->ulp_timed)
		snprintf(lat, sizeof lat, ", %.3f ms after it", (double)v->ulp_lat_ns / 1e6);
	const struct rs_nvme *n = rs_frame_pdu(f, RS_PDU_NVME) ? &f->pdu->nvme : NULL;
	if (n && v->ulp_failed) {
		const char *sn = rs_nvme_status_name(n->status);
		snprintf(st, sizeof st, ", FAILED: status 0x%03x%s%s", n->status, *sn ? " " : "", sn);
	}
	switch (v->ulp_pdu) {
	case RS_ULP_REQUEST:
		snprintf(buf, len, "NVMe-oF: %s command, CID %" PRIu32, op, v->ulp_tag);
		return true;
	case RS_ULP_RESPONSE:
		snprintf(buf, len, "NVMe-oF: %sresponse to %s, CID %" PRIu32 "%s%s%s", v->ulp_resent ? "sent again: " : "", op,
			 v->ulp_tag, from, lat, st);
		return true;
	case RS_ULP_TRANSFER:
		snprintf(buf, len, "NVMe-oF: %s of the data of %s, CID %" PRIu32 "%s",
			 rs_opinfo(f->bth.opcode)->kind == RS_KIND_READ_REQ ? "RDMA READ" : "RDMA WRITE", op, v->ulp_tag,
			 from);
		return true;
	default:
		return false;
	}
}
