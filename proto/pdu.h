/*
 * pdu.h — the upper-layer-protocol PDU block of a frame: what the decoders
 * of proto/ (decoders.c's table) made of the first packet of an RC SEND.
 *
 * The dissector cannot know which protocol a SEND carries (only the CM
 * REQ of its connection, frames before, or its history says so): it runs
 * every decoder on every RC SEND First or Only, and each that recognises
 * the payload sets its bit in `have`. The analysis, which knows the
 * connection's protocol, takes the one that is the connection's. The block
 * is the caller's storage (struct rs_frame_ext, dissect/dissect.h); the
 * frame points to it (struct rs_frame.pdu) when at least one bit is set.
 *
 * Role dissect, as dissect/ (tests/check_layers.py): pure, no allocation.
 */
#ifndef RS_PROTO_PDU_H
#define RS_PROTO_PDU_H

#include <stdbool.h>
#include <stdint.h>

#include "dissect/cursor.h"
#include "proto/iser/iser_dissect.h"
#include "proto/nfsrdma/rpcrdma_dissect.h"
#include "proto/nvmeof/nvmeof_dissect.h"
#include "proto/smbdirect/smbd_dissect.h"

enum { RS_PDU_NVME = 1u << 0, RS_PDU_ISER = 1u << 1, RS_PDU_RPCRDMA = 1u << 2, RS_PDU_SMBD = 1u << 3 };
/* Not a member: set with RS_PDU_SMBD when the SEND can open an SMB Direct
 * pair (a negotiate message, or data that starts with an SMB2 protocol ID),
 * for recognition by shape's first-SEND filter (proto.h recog_pdus): most
 * payloads of 20 bytes or more decode as some data transfer message. */
enum { RS_PDU_SMBD_START = 1u << 4 };
/* RS_PDU_RPCREPLY: an RDMA WRITE First or Only whose payload begins with
 * an RPC reply (a reply chunk's, rs_rpc_chunk_reply_decode), in `rpc`. */
enum { RS_PDU_RPCREPLY = 1u << 5 };

struct rs_pdus {
	uint32_t have;        /* RS_PDU_*: the members below that are valid */
	struct rs_nvme nvme;
	struct rs_iser iser;
	struct rs_rpcrdma rpc;
	struct rs_smbd smbd;
};

/* A decoder's header that the walkthrough shows as a layer of its own
 * (an enum rs_layer_id of dissect/dissect.h, and its length); len 0: none. */
struct rs_pdu_layer {
	uint8_t id;
	uint32_t len;
};

/*
 * Run every decoder of the table on the payload of an RC SEND at `c`
 * (captured bytes), `wire_len` bytes on the wire; `whole`: a SEND Only
 * (not First). Returns p->have; *l: the header layer of the first decoder
 * in the table that recognised the payload and has one. Pure.
 */
uint32_t rs_pdu_decode(const struct rs_cursor *c, uint32_t wire_len, bool whole, struct rs_pdus *p,
		       struct rs_pdu_layer *l);

/*
 * The decoders of RDMA WRITE payloads: on a frame of BTH opcode `opcode`
 * that is an RC WRITE First or Only (0: any other, p untouched), its
 * payload at `c` (past its RETH), `wire_len` bytes on the wire: an RPC
 * reply written into a reply chunk (RS_PDU_RPCREPLY). Returns p->have.
 * Pure.
 */
uint32_t rs_pdu_decode_write(const struct rs_cursor *c, uint8_t opcode, uint32_t wire_len, struct rs_pdus *p);

#endif
