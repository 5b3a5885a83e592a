/*
 * protodump.c — a test tool, not part of rocestat: runs one of proto/'s
 * decoders over the first packet of every RC SEND message in a capture and
 * prints what it read, one JSON object a line, for tests/check_proto_tshark.py
 * to hold against tshark's fields.
 *
 *   protodump iser FILE      iSER header and iSCSI BHS
 *   protodump rpcrdma FILE   RPC-over-RDMA header, chunks, RPC and NFS
 *   protodump smbd FILE      SMB Direct message, SMB2 header, buffer descriptors
 *
 * For a reply, the call it answers (same XID, the other direction) is found
 * among the calls seen before, as the analysis would, and passed to the
 * decoder as its hint.
 */
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/dissect.h"
#include "dissect/opcodes.h"
#include "proto/iser/iser_dissect.h"
#include "proto/nfsrdma/rpcrdma_dissect.h"
#include "proto/smbdirect/smbd_dissect.h"

#define MAX_CALLS 8192

struct call {
	uint32_t xid;
	struct rs_rpc_hint hint;
};

static struct call calls[MAX_CALLS];
static unsigned ncalls;

static const struct rs_rpc_hint *hint_for(uint32_t xid)
{
	for (unsigned i = ncalls; i-- > 0;)
		if (calls[i].xid == xid)
			return &calls[i].hint;
	return NULL;
}

static void dump_iser(unsigned long n, struct rs_cursor *c, uint32_t len, bool whole)
{
	struct rs_iser r;
	rs_iser_decode(c, len, whole, &r);
	printf("\"frame\":%lu,\"outcome\":\"%s\",\"why\":\"%s\",\"flags\":%u,\"wstag\":%" PRIu32 ",\"wva\":\"0x%016" PRIx64
	       "\",\"rstag\":%" PRIu32 ",\"rva\":\"0x%016" PRIx64 "\"",
	       n, rs_iser_outcome_name(r.outcome), r.why ? r.why : "", r.iser_flags, r.write_stag, r.write_va,
	       r.read_stag, r.read_va);
	if (r.has_bhs)
		printf(",\"opcode\":%u,\"itt\":%" PRIu32 ",\"dsl\":%" PRIu32 ",\"edtl\":%" PRIu32 ",\"cdb\":%u"
		       ",\"lba\":%" PRIu64 ",\"blocks\":%" PRIu32 ",\"status\":%u,\"response\":%u,\"has_sense\":%s"
		       ",\"sense_key\":%u,\"asc\":%u,\"ascq\":%u,\"cmdsn\":%" PRIu32 ",\"statsn\":%" PRIu32,
		       r.opcode, r.itt, r.dsl, r.edtl, r.cdb_op, r.lba, r.blocks, r.status, r.response,
		       r.has_sense ? "true" : "false", r.sense_key, r.asc, r.ascq, r.cmdsn, r.statsn);
	printf("}\n");
}

static void dump_rpc(const struct rs_onc_rpc *m)
{
	printf(",\"rpc\":{\"xid\":%" PRIu32 ",\"type\":%" PRIu32, m->xid, m->msg_type);
	if (m->msg_type == RS_RPC_CALL)
		printf(",\"prog\":%" PRIu32 ",\"vers\":%" PRIu32 ",\"proc\":%" PRIu32, m->prog, m->vers, m->proc);
	else
		printf(",\"reply_stat\":%" PRIu32 ",\"accept_stat\":%" PRIu32, m->reply_stat, m->accept_stat);
	if (m->have_status)
		printf(",\"status\":%" PRIu32, m->status);
	printf(",\"nops\":%" PRIu32 ",\"partial\":%s,\"ops\":[", m->nops, m->ops_partial ? "true" : "false");
	for (unsigned i = 0; i < m->ops_read; i++)
		printf("%s%" PRIu32, i ? "," : "", m->ops[i]);
	printf("],\"op_status\":[");
	for (unsigned i = 0; i < m->ops_read; i++)
		printf("%s%" PRIu32, i ? "," : "", m->op_status[i]);
	printf("]}");
}

static void dump_rpcrdma(unsigned long n, const uint8_t *base, uint32_t cap, uint32_t len, bool whole)
{
	/* Once to read the XID and the message type; a reply again with its call. */
	struct rs_rpcrdma r;
	struct rs_cursor c;
	rs_cur_init(&c, base, cap);
	rs_rpcrdma_decode(&c, len, whole, NULL, &r);
	const struct rs_rpc_hint *hint = NULL;
	if (r.has_rpc && r.rpc.msg_type == RS_RPC_REPLY)
		hint = hint_for(r.xid);
	if (hint) {
		rs_cur_init(&c, base, cap);
		rs_rpcrdma_decode(&c, len, whole, hint, &r);
	}
	printf("\"frame\":%lu,\"outcome\":\"%s\",\"why\":\"%s\",\"xid\":%" PRIu32 ",\"vers\":%" PRIu32
	       ",\"credits\":%" PRIu32 ",\"proc\":%" PRIu32 ",\"n_read\":%u,\"n_write\":%u,\"reply_chunk\":%s"
	       ",\"dropped\":%u,\"segs\":[",
	       n, rs_rpcrdma_outcome_name(r.outcome), r.why ? r.why : "", r.xid, r.vers, r.credits, r.proc,
	       r.n_read, r.n_write_chunks, r.has_reply_chunk ? "true" : "false", r.segs_dropped);
	for (unsigned i = 0; i < r.nsegs; i++) {
		const struct rs_rdma_seg *s = &r.segs[i];
		printf("%s[%u,%u,%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",\"0x%016" PRIx64 "\"]", i ? "," : "", s->list,
		       s->chunk, s->position, s->handle, s->length, s->offset);
	}
	printf("]");
	if (r.has_rpc)
		dump_rpc(&r.rpc);
	printf("}\n");
	if (r.has_rpc && r.rpc.msg_type == RS_RPC_CALL && ncalls < MAX_CALLS) {
		calls[ncalls].xid = r.xid;
		rs_rpc_hint_of(&r.rpc, &calls[ncalls].hint);
		ncalls++;
	}
}

/*
 * SMB Direct keeps state per direction (addresses and destination QP): its
 * first SEND is the negotiate request if the other direction has sent
 * nothing yet, else the negotiate response; every later one a data
 * transfer message, which continues a message while the reassembly
 * bookkeeping says one is open. A re-sent PSN is decoded as its first copy
 * was and not fed to the bookkeeping again.
 */
#define MAX_DIRS 64
#define PSN_RING 256

struct smbd_dir {
	char src[RS_ADDR_STRLEN], dst[RS_ADDR_STRLEN];
	uint32_t qp;
	unsigned sends;
	struct rs_smbd_frag frag;
	uint32_t max_fragmented; /* what the peer's negotiate message said it receives */
	uint32_t psn[PSN_RING];
	uint8_t cont[PSN_RING];  /* 1 + continuation at that PSN; 0: empty */
	uint8_t kind[PSN_RING];  /* the kind decoded there */
};

static struct smbd_dir dirs[MAX_DIRS];
static unsigned ndirs;

static struct smbd_dir *dir_of(const char *src, const char *dst, uint32_t qp, bool create)
{
	for (unsigned i = 0; i < ndirs; i++)
		if (!strcmp(dirs[i].src, src) && !strcmp(dirs[i].dst, dst) && (!create || dirs[i].qp == qp))
			return &dirs[i];
	if (!create || ndirs == MAX_DIRS)
		return NULL;
	struct smbd_dir *d = &dirs[ndirs++];
	memset(d, 0, sizeof *d);
	snprintf(d->src, sizeof d->src, "%s", src);
	snprintf(d->dst, sizeof d->dst, "%s", dst);
	d->qp = qp;
	return d;
}

static void dump_smbd(unsigned long n, struct rs_cursor *c, uint32_t len, bool whole, const char *src, const char *dst,
		      uint32_t qp, uint32_t psn)
{
	struct smbd_dir *d = dir_of(src, dst, qp, true), *rev = dir_of(dst, src, 0, false);
	if (!d)
		return;
	int slot = -1;
	for (int i = 0; i < PSN_RING; i++)
		if (d->cont[i] && d->psn[i] == psn)
			slot = i;
	bool resent = slot >= 0;
	enum rs_smbd_kind expect = resent ? (enum rs_smbd_kind)d->kind[slot] : RS_SMBD_DATA;
	bool cont = resent ? d->cont[slot] - 1 : d->frag.open;
	if (!resent && d->sends == 0)
		expect = rev && rev->sends ? RS_SMBD_NEG_RSP : RS_SMBD_NEG_REQ;
	struct rs_smbd r;
	rs_smbd_decode(c, len, whole, expect, cont, &r);
	const char *step = "";
	if (!resent) {
		slot = (int)(d->sends % PSN_RING);
		d->psn[slot] = psn;
		d->cont[slot] = (uint8_t)(1 + cont);
		d->kind[slot] = (uint8_t)expect;
		d->sends++;
		if (r.kind == RS_SMBD_NEG_REQ || r.kind == RS_SMBD_NEG_RSP) {
			if (rev)
				rev->max_fragmented = r.max_fragmented;
		} else if (r.outcome != RS_SMBD_NOT && r.outcome != RS_SMBD_TRUNCATED) {
			static const char *const steps[] = { "whole", "start", "more", "done", "lied", "too long", "empty" };
			step = steps[rs_smbd_frag_feed(&d->frag, r.remaining, r.data_length, d->max_fragmented)];
		}
	}
	printf("\"frame\":%lu,\"outcome\":\"%s\",\"why\":\"%s\",\"kind\":\"%s\",\"resent\":%s,\"frag\":\"%s\","
	       "\"credits_requested\":%u,\"credits_granted\":%u",
	       n, rs_smbd_outcome_name(r.outcome), r.why ? r.why : "", rs_smbd_kind_name(r.kind), resent ? "true" : "false",
	       step, r.credits_requested, r.credits_granted);
	if (r.kind == RS_SMBD_DATA)
		printf(",\"flags\":%u,\"remaining\":%" PRIu32 ",\"data_offset\":%" PRIu32 ",\"data_length\":%" PRIu32
		       ",\"continuation\":%s",
		       r.flags, r.remaining, r.data_offset, r.data_length, r.continuation ? "true" : "false");
	else
		printf(",\"min_version\":%u,\"max_version\":%u,\"negotiated_version\":%u,\"status\":%" PRIu32
		       ",\"max_read_write\":%" PRIu32 ",\"preferred_send\":%" PRIu32 ",\"max_receive\":%" PRIu32
		       ",\"max_fragmented\":%" PRIu32,
		       r.min_version, r.max_version, r.negotiated_version, r.status, r.max_read_write, r.preferred_send,
		       r.max_receive, r.max_fragmented);
	if (r.has_smb2) {
		const struct rs_smb2 *s = &r.smb2;
		printf(",\"smb2\":{\"command\":%u,\"name\":\"%s\",\"response\":%s,\"async\":%s,\"credit_charge\":%u"
		       ",\"status\":%" PRIu32 ",\"credits\":%u,\"flags\":%" PRIu32 ",\"next_command\":%" PRIu32
		       ",\"message_id\":%" PRIu64 ",\"async_id\":%" PRIu64 ",\"tree_id\":%" PRIu32 ",\"session_id\":%" PRIu64
		       ",\"has_body\":%s,\"dialect\":%u,\"length\":%" PRIu32 ",\"file_offset\":%" PRIu64
		       ",\"channel\":%" PRIu32 ",\"remaining_bytes\":%" PRIu32 ",\"data_length\":%" PRIu32
		       ",\"data_remaining\":%" PRIu32 ",\"count\":%" PRIu32 ",\"desc_dropped\":%u,\"desc\":[",
		       s->command, rs_smb2_cmd_name(s->command), s->response ? "true" : "false", s->async ? "true" : "false",
		       s->credit_charge, s->status, s->credits, s->flags, s->next_command, s->message_id, s->async_id,
		       s->tree_id, s->session_id, s->has_body ? "true" : "false", s->dialect, s->length, s->file_offset,
		       s->channel, s->remaining_bytes, s->data_length, s->data_remaining, s->count, s->desc_dropped);
		for (unsigned i = 0; i < s->ndesc; i++)
			printf("%s[%" PRIu64 ",%" PRIu32 ",%" PRIu32 "]", i ? "," : "", s->desc[i].offset, s->desc[i].token,
			       s->desc[i].length);
		printf("]}");
		printf(",\"chain_dropped\":%u,\"chain_cut\":%s,\"chain\":[", r.chain_dropped, r.chain_cut ? "true" : "false");
		for (unsigned i = 0; i < r.nchain; i++) {
			const struct rs_smb2_link *k = &r.chain[i];
			printf("%s{\"command\":%u,\"name\":\"%s\",\"response\":%s,\"async\":%s,\"credit_charge\":%u"
			       ",\"status\":%" PRIu32 ",\"credits\":%u,\"flags\":%" PRIu32 ",\"next_command\":%" PRIu32
			       ",\"message_id\":%" PRIu64 ",\"async_id\":%" PRIu64 ",\"tree_id\":%" PRIu32
			       ",\"session_id\":%" PRIu64 "}",
			       i ? "," : "", k->command, rs_smb2_cmd_name(k->command), k->response ? "true" : "false",
			       k->async ? "true" : "false", k->credit_charge, k->status, k->credits, k->flags, k->next_command,
			       k->message_id, k->async_id, k->tree_id, k->session_id);
		}
		printf("]");
	}
	printf("}\n");
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "iser") && strcmp(argv[1], "rpcrdma") && strcmp(argv[1], "smbd"))) {
		fprintf(stderr, "usage: protodump iser|rpcrdma|smbd FILE\n");
		return 2;
	}
	bool iser = strcmp(argv[1], "iser") == 0, smbd = strcmp(argv[1], "smbd") == 0;
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(argv[2], err);
	if (!p) {
		fprintf(stderr, "protodump: %s\n", err);
		return 1;
	}
	int dlt = pcap_datalink(p);
	struct rs_frame *f = malloc(sizeof *f);
	struct rs_frame_ext *x = malloc(sizeof *x);
	if (!f || !x) {
		free(f);
		free(x);
		return 1;
	}
	struct pcap_pkthdr *h;
	const u_char *data;
	unsigned long n = 0;
	while (pcap_next_ex(p, &h, &data) == 1) {
		n++;
		if (rs_dissect(NULL, dlt, data, h->caplen, h->len, f, x) != RS_OK)
			continue;
		uint8_t op = f->bth.opcode;
		bool first = op == IBV_OPCODE_RC_SEND_FIRST;
		if (!first && op != IBV_OPCODE_RC_SEND_ONLY && op != IBV_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE &&
		    op != RS_OP_RC_SEND_ONLY_WITH_INVALIDATE)
			continue;
		uint32_t cap = h->caplen > f->payload_off ? h->caplen - f->payload_off : 0;
		if (cap > f->payload_len)
			cap = f->payload_len;
		char src[RS_ADDR_STRLEN];
		printf("{\"qp\":%" PRIu32 ",\"psn\":%" PRIu32 ",\"src\":\"%s\",\"wire\":%" PRIu32 ",", f->bth.destqp, f->bth.psn,
		       rs_addr_format(&f->src, src), f->payload_len);
		if (smbd) {
			struct rs_cursor c;
			char dst[RS_ADDR_STRLEN];
			rs_cur_init(&c, data + f->payload_off, cap);
			dump_smbd(n, &c, f->payload_len, !first, src, rs_addr_format(&f->dst, dst), f->bth.destqp, f->bth.psn);
		} else if (iser) {
			struct rs_cursor c;
			rs_cur_init(&c, data + f->payload_off, cap);
			dump_iser(n, &c, f->payload_len, !first);
		} else {
			dump_rpcrdma(n, data + f->payload_off, cap, f->payload_len, !first);
		}
	}
	free(f);
	free(x);
	pcap_close(p);
	return 0;
}
