/*
 * decoders.c — the table of the upper-layer-protocol decoders the
 * dissector runs on an RC SEND's first packet (pdu.h). One row per
 * decoder: its bit, how it is called, and the header it shows as a layer;
 * and the one decoder of RDMA WRITE payloads (an RPC reply in a reply
 * chunk).
 * A module with a decoder adds its row here; the module table
 * (modules.c) is the analysis's and the report's, not the dissector's.
 */
#include "dissect/dissect.h"
#include "proto/pdu.h"

struct row {
	uint32_t bit;
	/* true: the payload is the decoder's (it wrote its member of p) */
	bool (*decode)(struct rs_cursor *c, uint32_t wire_len, bool whole, struct rs_pdus *p);
	/* the header's layer for the walkthrough (NULL: none) */
	void (*layer)(const struct rs_pdus *p, struct rs_pdu_layer *l);
};

static bool nvme(struct rs_cursor *c, uint32_t wire_len, bool whole, struct rs_pdus *p)
{
	rs_nvmeof_decode(c, wire_len, whole, &p->nvme);
	return p->nvme.kind != RS_NVME_NONE;
}

static void nvme_layer(const struct rs_pdus *p, struct rs_pdu_layer *l)
{
	l->id = RS_L_NVME;
	l->len = p->nvme.kind == RS_NVME_CMD ? RS_NVME_SQE_LEN : RS_NVME_CQE_LEN;
}

static bool iser(struct rs_cursor *c, uint32_t wire_len, bool whole, struct rs_pdus *p)
{
	return rs_iser_decode(c, wire_len, whole, &p->iser) != RS_ISER_NOT;
}

/* A reply's call is the analysis's knowledge: without it only the RPC
 * header of a reply is read. */
static bool rpcrdma(struct rs_cursor *c, uint32_t wire_len, bool whole, struct rs_pdus *p)
{
	return rs_rpcrdma_decode(c, wire_len, whole, NULL, &p->rpc) != RS_RPCRDMA_NOT;
}

/* The kind and continuation are the connection's history: by shape here. */
static bool smbd(struct rs_cursor *c, uint32_t wire_len, bool whole, struct rs_pdus *p)
{
	if (rs_smbd_decode(c, wire_len, whole, RS_SMBD_ANY, false, &p->smbd) == RS_SMBD_NOT)
		return false;
	if (p->smbd.kind != RS_SMBD_DATA || p->smbd.smb2_id)
		p->have |= RS_PDU_SMBD_START;
	return true;
}

static const struct row rows[] = {
	{ RS_PDU_NVME, nvme, nvme_layer },
	{ RS_PDU_ISER, iser, NULL },
	{ RS_PDU_RPCRDMA, rpcrdma, NULL },
	{ RS_PDU_SMBD, smbd, NULL },
};

uint32_t rs_pdu_decode(const struct rs_cursor *c, uint32_t wire_len, bool whole, struct rs_pdus *p,
		       struct rs_pdu_layer *l)
{
	p->have = 0;
	l->len = 0;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct rs_cursor own = *c; /* each decoder reads from the payload's start */
		if (!rows[i].decode(&own, wire_len, whole, p))
			continue;
		p->have |= rows[i].bit;
		if (rows[i].layer && !l->len)
			rows[i].layer(p, l);
	}
	return p->have;
}

uint32_t rs_pdu_decode_write(const struct rs_cursor *c, uint8_t opcode, uint32_t wire_len, struct rs_pdus *p)
{
	if (opcode != IBV_OPCODE_RC_RDMA_WRITE_FIRST && opcode != IBV_OPCODE_RC_RDMA_WRITE_ONLY &&
	    opcode != IBV_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE)
		return 0;
	struct rs_cursor own = *c;
	p->have = rs_rpc_chunk_reply_decode(&own, wire_len, &p->rpc) != RS_RPCRDMA_NOT ? RS_PDU_RPCREPLY : 0;
	return p->have;
}
