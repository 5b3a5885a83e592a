/*
 * smbd_walk.c — an SMB Direct frame in the per-frame views: the SMB Direct
 * message of a SEND (negotiate request or response, data transfer header)
 * and the SMB2 header inside it field by field in the walkthrough (-V),
 * and for every frame of a request (its SENDs, the server's RDMA transfers
 * for it) what it is to the request: the sentence --annotate puts in the
 * frame's comment and the walkthrough says. From the decoder's record and
 * the analyzer's verdict (the ulp_* fields smbd_state.c set); nothing here
 * judges a frame. Only on a connection whose service is SMB Direct.
 */
#include <inttypes.h>
#include <string.h>

#include "proto/pdu.h"
#include "proto/smbdirect/smbd_state.h"
#include "proto/smbdirect/smbdirect.h"
#include "views/walk_int.h"

const char *rs_smbd_op_name(uint16_t op, char *buf, size_t len)
{
	snprintf(buf, len, "%s", op < RS_SMB2__CMDS ? rs_smb2_cmd_name(op) : "other");
	return buf;
}

/* The frame's SMB Direct message, if it carries one the decoder read. */
static const struct rs_smbd *pdu_of(const struct rs_frame *f)
{
	return rs_frame_pdu(f, RS_PDU_SMBD) ? &f->pdu->smbd : NULL;
}

bool rs_smbd_note(const struct rs_verdict *v, const struct rs_frame *f, char *buf, size_t len)
{
	char op[32] = "", tag[40] = "", from[48] = "", lat[48] = "";
	if (v->ulp_op_known)
		rs_smbd_op_name(v->ulp_op, op, sizeof op);
	if (v->ulp_tag_known)
		snprintf(tag, sizeof tag, " MessageId %" PRIu32, v->ulp_tag);
	if (v->ulp_req_frame)
		snprintf(from, sizeof from, " (request frame %" PRIu64 ")", v->ulp_req_frame);
	if (v->ulp_timed)
		snprintf(lat, sizeof lat, ", %.3f ms after it", (double)v->ulp_lat_ns / 1e6);
	const struct rs_opinfo *o = rs_opinfo(f->bth.opcode);
	switch (v->ulp_pdu) {
	case RS_ULP_REQUEST:
		snprintf(buf, len, "SMB2 %s request%s", *op ? op : "", tag);
		break;
	case RS_ULP_RESPONSE:
		snprintf(buf, len, "SMB2 %s response%s%s%s%s", op, tag, from, lat, v->ulp_failed ? ", status not SUCCESS" : "");
		break;
	case RS_ULP_TRANSFER:
		snprintf(buf, len, "SMB Direct: %s of the %s's buffer%s%s",
			 o->kind == RS_KIND_READ_REQ ? "RDMA READ" : o->kind == RS_KIND_READ_RESP ? "RDMA READ response"
											 : "RDMA WRITE",
			 *op ? op : "request", tag, from);
		break;
	default: {
		const struct rs_smbd *d = pdu_of(f);
		if (d && d->kind != RS_SMBD_DATA)
			snprintf(buf, len, "SMB Direct %s", rs_smbd_kind_name(d->kind));
		else if (d && !d->data_length)
			snprintf(buf, len, "SMB Direct credit grant, %u credits, no data", d->credits_granted);
		else if (v->ulp_tag_known)
			snprintf(buf, len, "SMB2 %s interim response%s (STATUS_PENDING: the final one follows)%s", op, tag,
				 from);
		else
			snprintf(buf, len, "SMB Direct data transfer, taken with its message once the PSNs missing "
				 "before it come (a later frame)");
		break;
	}
	}
	if (v->ulp_resent) {
		size_t n = strlen(buf);
		if (n < len)
			snprintf(buf + n, len - n, "; the fabric re-sent a packet of this request");
	}
	return true;
}

static void negotiate_fields(struct walk *w, const struct rs_smbd *d, uint32_t o)
{
	bool rsp = d->kind == RS_SMBD_NEG_RSP;
	rs_wfield(w, o, "MinVersion", rs_whex(d->min_version, 4), NULL);
	rs_wfield(w, o + 2, "MaxVersion", rs_whex(d->max_version, 4), NULL);
	if (rsp) {
		rs_wfield(w, o + 4, "NegotiatedVersion", rs_whex(d->negotiated_version, 4), NULL);
		rs_wfield(w, o + 8, "CreditsRequested", rs_wfmt("%u", d->credits_requested), NULL);
		rs_wfield(w, o + 10, "CreditsGranted", rs_wfmt("%u", d->credits_granted), "receives the client may post");
		rs_wfield(w, o + 12, "Status", rs_whex(d->status, 8), NULL);
		rs_wfield(w, o + 16, "MaxReadWriteSize", rs_wfmt("%" PRIu32, d->max_read_write), "largest RDMA transfer");
		o += 20;
	} else {
		rs_wfield(w, o + 6, "CreditsRequested", rs_wfmt("%u", d->credits_requested), NULL);
		o += 8;
	}
	rs_wfield(w, o, "PreferredSendSize", rs_wfmt("%" PRIu32, d->preferred_send), NULL);
	rs_wfield(w, o + 4, "MaxReceiveSize", rs_wfmt("%" PRIu32, d->max_receive), "its largest SEND it receives");
	rs_wfield(w, o + 8, "MaxFragmentedSize", rs_wfmt("%" PRIu32, d->max_fragmented),
		  "its largest message in fragments");
}

static void smb2_fields(struct walk *w, const struct rs_smb2 *s, uint32_t o)
{
	const char *sn = rs_nt_status_name(s->status);
	rs_wfield(w, o + 8, s->response ? "Status" : "ChannelSequence", rs_whex(s->status, 8), "%s",
		  s->response ? sn : "");
	rs_wfield(w, o + 12, "Command", rs_whex(s->command, 4), "%s", rs_smb2_cmd_name(s->command));
	rs_wfield(w, o + 14, s->response ? "CreditResponse" : "CreditRequest", rs_wfmt("%u", s->credits), NULL);
	rs_wfield(w, o + 16, "Flags", rs_whex(s->flags, 8), "%s%s", s->response ? "response" : "request",
		  s->async ? ", async" : "");
	if (s->next_command)
		rs_wfield(w, o + 20, "NextCommand", rs_wfmt("%" PRIu32, s->next_command),
			  "a compound: the next SMB2 header is that far on");
	rs_wfield(w, o + 24, "MessageId", rs_wfmt("%" PRIu64, s->message_id), "the response carries it back");
	if (s->async)
		rs_wfield(w, o + 32, "AsyncId", rs_whex(s->async_id, 16), NULL);
	else
		rs_wfield(w, o + 36, "TreeId", rs_whex(s->tree_id, 8), NULL);
	rs_wfield(w, o + 40, "SessionId", rs_whex(s->session_id, 16), NULL);
	for (unsigned k = 0; k < s->ndesc; k++)
		rs_wfield(w, o + s->chinfo_off + 16u * k, "Buffer descriptor",
			  rs_wfmt("%#" PRIx64 " token %#" PRIx32 " length %" PRIu32, s->desc[k].offset, s->desc[k].token,
				  s->desc[k].length),
			  "%s", s->command == RS_SMB2_READ ? "the server RDMA WRITEs the data there"
							  : "the server RDMA READs the data from there");
}

/* A compound's later headers (MS-SMB2 3.2.4.1.4), each at the previous
 * one's NextCommand: `o` the first header's offset in the frame. */
static void chain_fields(struct walk *w, const struct rs_smbd *d, uint32_t o)
{
	if (!d->smb2.next_command)
		return;
	uint64_t at = o + (uint64_t)d->smb2.next_command;
	for (unsigned k = 0; k < d->nchain && at <= UINT32_MAX; k++) {
		const struct rs_smb2_link *l = &d->chain[k];
		if (l->response)
			rs_wfield(w, (uint32_t)at + 8, "Status", rs_whex(l->status, 8), "%s", rs_nt_status_name(l->status));
		rs_wfield(w, (uint32_t)at + 12, "Command", rs_whex(l->command, 4), "%s (header %u of the compound, %s%s)",
			  rs_smb2_cmd_name(l->command), k + 2, l->response ? "response" : "request",
			  l->flags & RS_SMB2_FLAG_RELATED ? ", related" : "");
		rs_wfield(w, (uint32_t)at + 24, "MessageId", rs_wfmt("%" PRIu64, l->message_id), NULL);
		at += l->next_command;
	}
	if (d->chain_dropped || d->chain_cut)
		rs_wsay(w, "The compound goes on: %u more header%s read but not kept%s.", d->chain_dropped,
			d->chain_dropped == 1 ? "" : "s", d->chain_cut ? "; the rest past what this packet holds" : "");
}

static void message(struct walk *w, const struct rs_smbd *d)
{
	const struct rs_frame *f = w->f;
	uint32_t o = f->payload_off;
	uint32_t n = d->kind == RS_SMBD_NEG_REQ ? RS_SMBD_NEG_REQ_LEN
		     : d->kind == RS_SMBD_NEG_RSP ? RS_SMBD_NEG_RSP_LEN
						  : d->data_length ? d->data_offset : RS_SMBD_DATA_HDR_LEN;
	rs_wtitle_named(w, RS_L_PAYLOAD, "SMB Direct", rs_smbd_kind_name(d->kind), o,
			n < f->payload_len ? n : f->payload_len);
	if (d->kind != RS_SMBD_DATA) {
		negotiate_fields(w, d, o);
		return;
	}
	rs_wfield(w, o, "CreditsRequested", rs_wfmt("%u", d->credits_requested), NULL);
	rs_wfield(w, o + 2, "CreditsGranted", rs_wfmt("%u", d->credits_granted), "receives the peer may now send into");
	rs_wfield(w, o + 4, "Flags", rs_whex(d->flags, 4), "%s",
		  d->flags & RS_SMBD_RESPONSE_REQUESTED ? "RESPONSE_REQUESTED" : "");
	rs_wfield(w, o + 8, "RemainingDataLength", rs_wfmt("%" PRIu32, d->remaining), "%s",
		  d->remaining ? "bytes of the message in later fragments" : "");
	rs_wfield(w, o + 12, "DataOffset", rs_wfmt("%" PRIu32, d->data_offset), NULL);
	rs_wfield(w, o + 16, "DataLength", rs_wfmt("%" PRIu32, d->data_length), NULL);
	/* The header of a fragment that continues a message is no header:
	 * only the analysis, which followed the fragments, says which. */
	if (d->has_smb2 && w->v.ulp_tag_known) {
		smb2_fields(w, &d->smb2, o + d->data_offset);
		chain_fields(w, d, o + d->data_offset);
	}
}

void rs_smbd_walk(struct walk *w)
{
	const struct rs_smbd *d = pdu_of(w->f);
	if (d && d->outcome != RS_SMBD_NOT && rs_opinfo(w->f->bth.opcode)->kind != RS_KIND_READ_REQ) {
		message(w, d);
		if (rs_walk_first(w, WALK_TOPIC_ULP))
			rs_wsay(w, "SMB Direct (MS-SMBD) carries SMB2 messages in SENDs: after a negotiate exchange, "
				"each SEND is a data transfer message that grants credits and holds an SMB2 message or "
				"a fragment of one. An SMB2 READ or WRITE over the RDMA channel lends the server "
				"buffers by descriptor; it moves the data with RDMA WRITE or READ using the token as "
				"R_Key, then responds with the request's MessageId.");
	}
	char s[512];
	if (rs_smbd_note(&w->v, w->f, s, sizeof s))
		rs_wsay(w, "%s.", s);
}
