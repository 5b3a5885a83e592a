/*
 * iser_state.c — iSER connections, the module's per-connection analysis:
 * tasks by operation, command -> response latency, the data each task
 * moved, failed and unanswered tasks, and the packets of each task the
 * fabric re-sent.
 *
 * An iSER connection is one RC connection (RFC 7145): the initiator (the
 * RDMA CM client) SENDs each iSCSI request, the target SENDs the response
 * with the request's Initiator Task Tag (ITT). A SCSI command's iSER header
 * lends the target STags: it RDMA READs the command's data through the
 * write STag (a write) and RDMA WRITEs into the read STag (a read) before it
 * responds. So a READ request or a WRITE from the target belongs to the
 * waiting task with that STag.
 *
 * A task's packets are its command's SEND, its response's SEND and its
 * RDMA transfers (with the READ responses the target's READ requests
 * asked for). Which of them the fabric re-sent is the transport analysis'
 * word (queue_resent); a packet re-sent without headers of its own (a
 * Middle, a READ response) finds its task by PSN among the messages its
 * stream carried last (`struct span`). A response the fabric re-sent
 * reached the initiator then (go-back-N drops what follows a lost packet):
 * the task's latency runs to its last sending. So a task's figures settle
 * only when it leaves: its ITT used again, DONE_KEEP newer tasks answered,
 * too many tasks kept, or the capture's end (queue_finish); a packet re-sent
 * after its task left is counted, not tied.
 *
 * The dissector decoded every SEND shaped like iSER (RS_PDU_ISER); only
 * here, where the connection's service says iSER, is it taken as such.
 */
#include <string.h>

#include "analyzer/transport/verdict.h"
#include "proto/iser/iser.h"
#include "proto/iser/iser_dissect.h"
#include "proto/iser/iser_state.h"
#include "proto/pdu.h"

#define TASKS_MAX 4096      /* tasks kept per connection, waiting or settling */
#define DONE_KEEP 256       /* answered tasks kept for a re-send of their packets (the oldest settle) */
#define SPANS 64            /* messages remembered per stream, to tie re-sent packets */
#define NO_ITT 0xFFFFFFFFu  /* a PDU that opens no task (RFC 7143 11.18) */

struct op {
	uint8_t pdu, cdb;
	uint64_t n, done, errors, resent, bytes_expected, bytes_moved;
	struct rs_latvec lat;
};

struct task {
	uint32_t itt, seq;          /* seq: the connection's task number, to tell an ITT's tasks apart */
	uint8_t op;                 /* index in ops[]; RS_ISER_OPS: beyond */
	bool scsi, done, failed, resent;
	uint8_t status, response, sense_key, asc, ascq;
	bool has_sense, rsv, wsv;
	uint32_t rstag, wstag;
	uint32_t cmd_psn, rsp_psn;
	uint32_t edtl;
	int32_t err_slot;           /* its entry in failed[], -1: none */
	uint64_t moved;
	uint64_t cmd_ts, rsp_ts;
	uint64_t rd_first_ts, rd_last_ts; /* its first RDMA READ request, the last response packet to its READs */
	struct rs_fref cmd_at, rsp_at;
	GList *link;                /* in wait_q while waiting, then in done_q */
};

/* A message a stream carried: its first PSN, how many PSNs it takes, and
 * its task (seq 0: none). */
struct span {
	uint32_t start, npkts;
	uint32_t itt, seq;
};

struct stream {
	struct span s[SPANS];
	unsigned next, n;
};

struct rs_iserq {
	uint64_t requests, responses, scsi_cmds, scsi_rsps;
	uint64_t unmatched, itt_reused, not_kept, cmd_resent, rsp_resent, tasks_resent;
	uint64_t resent_pkts, resent_untied, resent_closed;
	uint64_t cut, bad, unsupported, other_pdus;
	uint64_t immediate_bytes, reads, writes, read_bytes, write_bytes, untied, not_expected;
	uint64_t unanswered;        /* settled unanswered: given up at an ITT's reuse, or at the end */
	uint32_t seq;
	unsigned nops;
	struct op ops[RS_ISER_OPS];
	uint64_t other_ops;
	unsigned nslow;
	struct rs_iser_task_info slow[RS_ISER_SLOWEST];
	uint64_t nfailed;
	struct rs_iser_task_info failed[RS_ISER_LIST];
	unsigned nwaiting;
	struct rs_iser_task_info waiting[RS_ISER_LIST];
	GHashTable *tasks;          /* ITT -> struct task (the newest with that ITT) */
	GHashTable *by_rstag, *by_wstag; /* STag -> struct task (waiting ones) */
	GQueue wait_q;              /* waiting tasks, oldest first: the first given up when too many */
	GQueue done_q;              /* answered tasks, oldest first: the first to settle */
	struct stream ini, tgt;     /* the initiator's and the target's request streams */
	bool again;                 /* the current frame: a task's SEND or transfer seen before */
	bool rg_sides;              /* recognition by shape: the initiator's side known */
	uint32_t pmtu;              /* the largest First or Middle payload seen */
};

void *rs_iserq_new(void)
{
	struct rs_iserq *q = g_new0(struct rs_iserq, 1);
	q->tasks = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	q->by_rstag = g_hash_table_new(g_direct_hash, g_direct_equal);
	q->by_wstag = g_hash_table_new(g_direct_hash, g_direct_equal);
	g_queue_init(&q->wait_q);
	g_queue_init(&q->done_q);
	return q;
}

void rs_iserq_free(void *p)
{
	struct rs_iserq *q = p;
	if (!q)
		return;
	for (unsigned i = 0; i < q->nops; i++)
		rs_lat_free(&q->ops[i].lat);
	g_queue_clear(&q->wait_q);
	g_queue_clear(&q->done_q);
	g_hash_table_destroy(q->by_rstag);
	g_hash_table_destroy(q->by_wstag);
	g_hash_table_destroy(q->tasks);
	g_free(q);
}

const char *rs_iser_op_label(uint8_t pdu, uint8_t cdb, char *buf, size_t len)
{
	const char *name = "";
	switch (pdu) {
	case RS_ISCSI_SCSI_CMD: name = rs_scsi_cdb_name(cdb); break;
	case RS_ISCSI_NOP_OUT: name = "NOP-Out"; break;
	case RS_ISCSI_TMF_REQ: name = "Task Management"; break;
	case RS_ISCSI_LOGIN_REQ: name = "Login"; break;
	case RS_ISCSI_TEXT_REQ: name = "Text"; break;
	case RS_ISCSI_LOGOUT_REQ: name = "Logout"; break;
	default: break;
	}
	if (*name)
		snprintf(buf, len, "%s", name);
	else if (pdu == RS_ISCSI_SCSI_CMD)
		snprintf(buf, len, "SCSI opcode 0x%02x", cdb);
	else
		snprintf(buf, len, "iSCSI opcode 0x%02x", pdu);
	return buf;
}

static unsigned op_slot(struct rs_iserq *q, uint8_t pdu, uint8_t cdb)
{
	for (unsigned i = 0; i < q->nops; i++)
		if (q->ops[i].pdu == pdu && q->ops[i].cdb == cdb)
			return i;
	if (q->nops == RS_ISER_OPS)
		return RS_ISER_OPS;
	struct op *o = &q->ops[q->nops];
	memset(o, 0, sizeof *o);
	o->pdu = pdu;
	o->cdb = cdb;
	return q->nops++;
}

/* ---- the messages of the two streams -------------------------------------------- */

static void span_add(struct stream *s, uint32_t start, uint32_t npkts, const struct task *t)
{
	s->s[s->next] = (struct span){ start, npkts ? npkts : 1, t ? t->itt : 0, t ? t->seq : 0 };
	s->next = (s->next + 1) % SPANS;
	if (s->n < SPANS)
		s->n++;
}

/* The newest message of the stream that holds PSN psn; NULL: none kept. */
static const struct span *span_of(const struct stream *s, uint32_t psn)
{
	for (unsigned k = 1; k <= s->n; k++) {
		const struct span *sp = &s->s[(s->next + SPANS - k) % SPANS];
		uint32_t d = (psn - sp->start) & 0xFFFFFF;
		if (d < sp->npkts)
			return sp;
	}
	return NULL;
}

static bool span_starts(const struct stream *s, uint32_t psn)
{
	const struct span *sp = span_of(s, psn);
	return sp && sp->start == psn;
}

/* The task a message belongs to, if it is still kept. */
static struct task *span_task(struct rs_iserq *q, const struct span *sp)
{
	if (!sp || !sp->seq)
		return NULL;
	struct task *t = g_hash_table_lookup(q->tasks, GUINT_TO_POINTER(sp->itt));
	return t && t->seq == sp->seq ? t : NULL;
}

/* The verdict's code of a task's operation: iSCSI opcode << 8 | CDB opcode. */
static uint16_t op_code(const struct rs_iserq *q, const struct task *t)
{
	return t->op < RS_ISER_OPS ? (uint16_t)(q->ops[t->op].pdu << 8 | q->ops[t->op].cdb) : 0;
}

/* The verdict of a frame of task t: which task, and whether it was re-sent so far. */
static void v_task(struct rs_verdict *v, const struct rs_iserq *q, const struct task *t, uint32_t file)
{
	v->ulp_tag_known = true;
	v->ulp_tag = t->itt;
	v->ulp_op_known = t->op < RS_ISER_OPS;
	v->ulp_op = op_code(q, t);
	v->ulp_req_frame = t->cmd_at.file == file ? t->cmd_at.frame : 0;
	v->ulp_resent = t->resent;
}

/* PSNs of a message of `len` bytes whose first packet carries `first` (a
 * First carries a whole path MTU, IBA 9.7.7). */
static uint32_t npkts_of(uint64_t len, uint32_t first)
{
	return first ? (uint32_t)((len + first - 1) / first) : 1;
}

/* ---- tasks ---------------------------------------------------------------------- */

static struct rs_iser_task_info task_info(const struct task *t)
{
	return (struct rs_iser_task_info){ .itt = t->itt, .op = t->op, .resent = t->resent, .status = t->status,
					   .response = t->response, .has_sense = t->has_sense,
					   .sense_key = t->sense_key, .asc = t->asc, .ascq = t->ascq,
					   .lat_ns = t->done && t->rsp_ts > t->cmd_ts ? t->rsp_ts - t->cmd_ts : 0,
					   .rd_wait = t->rd_first_ts != 0,
					   .rd_wait_ns = t->rd_last_ts > t->rd_first_ts ? t->rd_last_ts - t->rd_first_ts : 0,
					   .cmd_at = t->cmd_at, .rsp_at = t->rsp_at };
}

/* Slowest first; of two as slow, the earlier command first. */
static void slowest(struct rs_iserq *q, const struct task *t)
{
	struct rs_iser_task_info in = task_info(t);
	unsigned i = 0;
	while (i < q->nslow && (q->slow[i].lat_ns > in.lat_ns ||
				(q->slow[i].lat_ns == in.lat_ns && (q->slow[i].cmd_at.file < in.cmd_at.file ||
				 (q->slow[i].cmd_at.file == in.cmd_at.file && q->slow[i].cmd_at.frame <= in.cmd_at.frame)))))
		i++;
	if (i == RS_ISER_SLOWEST)
		return;
	unsigned n = q->nslow < RS_ISER_SLOWEST ? q->nslow + 1 : RS_ISER_SLOWEST;
	memmove(&q->slow[i + 1], &q->slow[i], (n - 1 - i) * sizeof q->slow[0]);
	q->slow[i] = in;
	q->nslow = n;
}

static void unlink_stags(struct rs_iserq *q, struct task *t)
{
	if (t->rsv && g_hash_table_lookup(q->by_rstag, GUINT_TO_POINTER(t->rstag)) == t)
		g_hash_table_remove(q->by_rstag, GUINT_TO_POINTER(t->rstag));
	if (t->wsv && g_hash_table_lookup(q->by_wstag, GUINT_TO_POINTER(t->wstag)) == t)
		g_hash_table_remove(q->by_wstag, GUINT_TO_POINTER(t->wstag));
}

/* The task leaves: its figures go into its operation's; `given_up`: a
 * waiting task dropped to make room (not counted as unanswered). */
static void settle(struct rs_iserq *q, struct task *t, bool given_up)
{
	if (t->resent)
		q->tasks_resent++;
	if (t->op < RS_ISER_OPS) {
		struct op *o = &q->ops[t->op];
		o->resent += t->resent;
		o->bytes_moved += t->moved;
		if (t->done)
			rs_lat_add(&o->lat, t->rsp_ts > t->cmd_ts ? t->rsp_ts - t->cmd_ts : 0);
	}
	if (t->done) {
		if (t->err_slot >= 0) /* as it ended: re-sends and a re-sent response since */
			q->failed[t->err_slot] = task_info(t);
		if (t->scsi)
			slowest(q, t);
		if (t->scsi && !t->failed && t->moved != t->edtl)
			q->not_expected++;
	} else if (given_up) {
		q->not_kept++;
	} else {
		q->unanswered++;
		if (q->nwaiting < RS_ISER_LIST)
			q->waiting[q->nwaiting++] = task_info(t);
	}
	unlink_stags(q, t);
	g_queue_delete_link(t->done ? &q->done_q : &q->wait_q, t->link);
	g_hash_table_remove(q->tasks, GUINT_TO_POINTER(t->itt));
}

static void command(struct rs_iserq *q, const struct rs_iser *r, const struct rs_frame *f,
		    const struct rs_frame_meta *m, const struct rs_fref *at, struct rs_verdict *v)
{
	struct task *old = g_hash_table_lookup(q->tasks, GUINT_TO_POINTER(r->itt));
	if (old && old->cmd_psn == f->bth.psn) {
		/* The same SEND again: re-sent (queue_resent says) or a copy. */
		q->again = true;
		if (v) {
			v->ulp_pdu = RS_ULP_REQUEST;
			v->ulp_op_known = true;
			v->ulp_op = op_code(q, old);
			v->ulp_resent = old->resent;
		}
		return;
	}
	q->requests++;
	bool scsi = r->opcode == RS_ISCSI_SCSI_CMD;
	q->scsi_cmds += scsi;
	uint8_t cdb = scsi ? r->cdb_op : 0;
	unsigned i = op_slot(q, r->opcode, cdb);
	uint32_t imm = scsi ? r->dsl : 0;
	q->immediate_bytes += imm;
	if (i < RS_ISER_OPS) {
		q->ops[i].n++;
		q->ops[i].bytes_expected += scsi ? r->edtl : 0;
	} else {
		q->other_ops++;
	}
	if (v) {
		v->ulp_pdu = RS_ULP_REQUEST;
		v->ulp_op_known = true;
		v->ulp_op = (uint16_t)(r->opcode << 8 | cdb);
	}
	if (old) {
		if (!old->done)
			q->itt_reused++;
		settle(q, old, false);
	}
	if (g_hash_table_size(q->tasks) >= TASKS_MAX) {
		/* The oldest answered task settles; with none, the oldest
		 * waiting one is given up (the newest are followed). */
		struct task *oldest = g_queue_peek_head(&q->done_q);
		settle(q, oldest ? oldest : g_queue_peek_head(&q->wait_q), !oldest);
	}
	struct task *t = g_new0(struct task, 1);
	*t = (struct task){ .itt = r->itt, .seq = ++q->seq, .op = (uint8_t)i, .scsi = scsi, .rsv = r->rsv,
			    .wsv = r->wsv, .rstag = r->read_stag, .wstag = r->write_stag, .cmd_psn = f->bth.psn,
			    .edtl = scsi ? r->edtl : 0, .err_slot = -1, .moved = imm, .cmd_ts = m->ts_ns, .cmd_at = *at };
	g_hash_table_insert(q->tasks, GUINT_TO_POINTER(t->itt), t);
	g_queue_push_tail(&q->wait_q, t);
	t->link = q->wait_q.tail;
	if (t->rsv)
		g_hash_table_replace(q->by_rstag, GUINT_TO_POINTER(t->rstag), t);
	if (t->wsv)
		g_hash_table_replace(q->by_wstag, GUINT_TO_POINTER(t->wstag), t);
}

/* The response's status, and whether it says the task failed. */
static void outcome(struct task *t, const struct rs_iser *r)
{
	switch (r->opcode) {
	case RS_ISCSI_SCSI_RSP:
		t->status = r->status;
		t->response = r->response;
		t->has_sense = r->has_sense;
		t->sense_key = r->sense_key;
		t->asc = r->asc;
		t->ascq = r->ascq;
		t->failed = r->status != RS_SCSI_STATUS_GOOD || r->response != 0;
		break;
	case RS_ISCSI_LOGIN_RSP:
		t->response = r->login_class;
		t->status = r->login_detail;
		t->failed = r->login_class != 0;
		break;
	case RS_ISCSI_LOGOUT_RSP:
	case RS_ISCSI_TMF_RSP:
		t->response = r->response;
		t->failed = r->response != 0;
		break;
	default:
		break;
	}
}

static void response(struct rs_iserq *q, const struct rs_iser *r, const struct rs_frame *f,
		     const struct rs_frame_meta *m, const struct rs_fref *at, struct rs_verdict *v)
{
	struct task *t = g_hash_table_lookup(q->tasks, GUINT_TO_POINTER(r->itt));
	if (t && t->done) {
		if (t->rsp_psn != f->bth.psn) {
			q->unmatched++; /* a second response to one task */
			t = NULL;
		} else {
			q->again = true; /* the same SEND again: re-sent (queue_resent) or a copy */
		}
	} else if (t) {
		q->responses++;
		q->scsi_rsps += r->opcode == RS_ISCSI_SCSI_RSP;
		t->done = true;
		t->rsp_psn = f->bth.psn;
		t->rsp_ts = m->ts_ns;
		t->rsp_at = *at;
		outcome(t, r);
		if (t->op < RS_ISER_OPS) {
			q->ops[t->op].done++;
			q->ops[t->op].errors += t->failed;
		}
		if (t->failed) {
			if (q->nfailed < RS_ISER_LIST) {
				t->err_slot = (int32_t)q->nfailed;
				q->failed[q->nfailed] = task_info(t);
			}
			q->nfailed++;
		}
		/* Its STags stay tied to it: a transfer the fabric re-sends
		 * after the response still is the task's. */
		g_queue_unlink(&q->wait_q, t->link);
		g_queue_push_tail_link(&q->done_q, t->link);
		if (q->done_q.length > DONE_KEEP)
			settle(q, g_queue_peek_head(&q->done_q), false);
	} else {
		q->unmatched++;
	}
	if (v) {
		v->ulp_pdu = RS_ULP_RESPONSE;
		v->ulp_failed = r->opcode == RS_ISCSI_SCSI_RSP ? r->status || r->response : false;
		if (t) {
			v->ulp_op_known = t->op < RS_ISER_OPS;
			v->ulp_op = op_code(q, t);
			v->ulp_req_frame = t->cmd_at.file == at->file ? t->cmd_at.frame : 0;
			v->ulp_lat_ns = m->ts_ns > t->cmd_ts ? m->ts_ns - t->cmd_ts : 0;
			v->ulp_timed = true;
			v->ulp_resent = t->resent;
			v->ulp_failed = t->failed;
		}
	}
}

/* An iSCSI PDU in the first packet of a SEND. */
static void pdu(struct rs_iserq *q, const struct rs_iser *r, const struct rs_frame *f,
		const struct rs_frame_meta *m, const struct rs_fref *at, bool from_ini, struct rs_verdict *v)
{
	struct stream *s = from_ini ? &q->ini : &q->tgt;
	bool seen = span_starts(s, f->bth.psn);
	if (r->outcome == RS_ISER_TRUNCATED || r->outcome == RS_ISER_UNSUPPORTED || !r->has_bhs) {
		if (!seen) {
			if (r->outcome == RS_ISER_TRUNCATED)
				q->cut++;
			else if (r->outcome == RS_ISER_UNSUPPORTED)
				q->unsupported++;
			else
				q->other_pdus++; /* Hello, HelloReply */
			span_add(s, f->bth.psn, 1, NULL);
		}
		if (v)
			v->ulp_pdu = RS_ULP_OTHER;
		return;
	}
	if (r->outcome == RS_ISER_MALFORMED && !seen)
		q->bad++;
	if (v) {
		v->ulp_tag_known = true;
		v->ulp_tag = r->itt;
	}
	bool req = r->opcode == RS_ISCSI_SCSI_CMD || r->opcode == RS_ISCSI_LOGIN_REQ || r->opcode == RS_ISCSI_TEXT_REQ ||
		   r->opcode == RS_ISCSI_LOGOUT_REQ || r->opcode == RS_ISCSI_TMF_REQ || r->opcode == RS_ISCSI_NOP_OUT;
	bool rsp = r->opcode == RS_ISCSI_SCSI_RSP || r->opcode == RS_ISCSI_LOGIN_RSP || r->opcode == RS_ISCSI_TEXT_RSP ||
		   r->opcode == RS_ISCSI_LOGOUT_RSP || r->opcode == RS_ISCSI_TMF_RSP || r->opcode == RS_ISCSI_NOP_IN;
	if (req && from_ini && r->itt != NO_ITT)
		command(q, r, f, m, at, v);
	else if (rsp && !from_ini && r->itt != NO_ITT)
		response(q, r, f, m, at, v);
	else {
		if (!seen)
			q->other_pdus++;
		if (v)
			v->ulp_pdu = RS_ULP_OTHER;
	}
	if (!seen) {
		bool only = rs_opinfo(f->bth.opcode)->pos == RS_POS_ONLY;
		uint64_t len = RS_ISER_HDR_LEN + RS_ISCSI_BHS_LEN + 4u * r->ahs_words + ((r->dsl + 3ull) & ~3ull);
		const struct task *t = g_hash_table_lookup(q->tasks, GUINT_TO_POINTER(r->itt));
		span_add(s, f->bth.psn, only ? 1 : npkts_of(len, f->payload_len), (req || rsp) && t && !t->done ? t
					: rsp && t && t->rsp_psn == f->bth.psn ? t : NULL);
	}
}

/* An RDMA READ request or the first packet of an RDMA WRITE from the target. */
static void transfer(struct rs_iserq *q, uint32_t pmtu, const struct rs_frame *f, uint64_t ts,
		     const struct rs_fref *at, struct rs_verdict *v)
{
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	bool read = op->kind == RS_KIND_READ_REQ;
	const struct span *sp = span_of(&q->tgt, f->bth.psn);
	struct task *t;
	if (sp && sp->start == f->bth.psn) {
		t = span_task(q, sp); /* seen before: counted then */
		q->again = true;
	} else {
		if (read) {
			q->reads++;
			q->read_bytes += f->reth.dmalen;
		} else {
			q->writes++;
			q->write_bytes += f->reth.dmalen;
		}
		t = g_hash_table_lookup(read ? q->by_wstag : q->by_rstag, GUINT_TO_POINTER(f->reth.rkey));
		if (t)
			t->moved += f->reth.dmalen;
		else
			q->untied++;
		if (t && read && !t->rd_first_ts)
			t->rd_first_ts = ts;
		/* A READ's responses come in path-MTU packets (pmtu: as far as learnt). */
		uint32_t mtu = !read ? f->payload_len : pmtu;
		span_add(&q->tgt, f->bth.psn, op->pos == RS_POS_ONLY && !read ? 1 : npkts_of(f->reth.dmalen, mtu), t);
	}
	if (v) {
		v->ulp_pdu = RS_ULP_TRANSFER;
		if (t)
			v_task(v, q, t, at->file);
	}
}

/* A READ response from the initiator: the task whose READ it answers. */
static void read_response(struct rs_iserq *q, const struct rs_frame *f, const struct rs_frame_meta *m,
			  uint32_t file, struct rs_verdict *v)
{
	/* It carries the PSNs of the target's READ request. */
	struct task *t = span_task(q, span_of(&q->tgt, f->bth.psn));
	if (!t)
		return;
	t->rd_last_ts = m->ts_ns; /* the last sending counts: the target had the data then */
	if (v) {
		v->ulp_pdu = RS_ULP_TRANSFER;
		v_task(v, q, t, file);
	}
}

/* A frame of the connection, from the initiator or not; pmtu: the path
 * MTU as far as learnt (0: not yet). */
static void frame(struct rs_iserq *q, bool from_ini, uint32_t pmtu, const struct rs_frame *f,
		  const struct rs_frame_meta *m, const struct rs_fref *at, struct rs_verdict *v)
{
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	q->again = false;
	if ((op->pos == RS_POS_FIRST || op->pos == RS_POS_MIDDLE) && f->payload_len > q->pmtu)
		q->pmtu = f->payload_len;
	if (rs_op_send_starts(op) && rs_frame_pdu(f, RS_PDU_ISER))
		pdu(q, &f->pdu->iser, f, m, at, from_ini, v);
	else if (!from_ini && (f->ext & RS_EXT_RETH) &&
		 (op->kind == RS_KIND_READ_REQ || op->kind == RS_KIND_WRITE || op->kind == RS_KIND_WRITE_IMM))
		transfer(q, pmtu ? pmtu : q->pmtu, f, m->ts_ns, at, v);
	else if (from_ini && op->kind == RS_KIND_READ_RESP)
		read_response(q, f, m, at->file, v);
}

void rs_iser_frame(struct rs_analyzer *a, struct rs_conn *cn, struct rs_flow *fl, const struct rs_frame *f,
		   const struct rs_frame_meta *m)
{
	struct rs_fref at = { a->cur_file, m->frame_no };
	/* The path MTU: the target's packets', the initiator's, or any flow's. */
	uint32_t pmtu = fl->pmtu ? fl->pmtu : fl->peer && fl->peer->pmtu ? fl->peer->pmtu : a->pmtu;
	frame(cn->pq, fl == cn->c2s, pmtu, f, m, &at, a->v);
}

/*
 * Recognition by shape, for a pair of half-flows without a CM handshake:
 * every SEND that starts a message is an iSER PDU the decoder read whole
 * (or cut by the capture), requests (SCSI Command, Login, Text, Logout,
 * NOP-Out, Task Management) all go one way and responses the other, and
 * RECOG_PAIRED responses answered by ITT a request seen on the pair. A
 * SEND against any of it ends the look at once; RECOG_GIVE_UP PDUs without
 * enough pairs end it too. The queue is fed while it looks.
 */
#define RECOG_PAIRED 4
#define RECOG_GIVE_UP 256

static bool is_request(uint8_t op)
{
	return op == RS_ISCSI_SCSI_CMD || op == RS_ISCSI_LOGIN_REQ || op == RS_ISCSI_TEXT_REQ || op == RS_ISCSI_LOGOUT_REQ ||
	       op == RS_ISCSI_TMF_REQ || op == RS_ISCSI_NOP_OUT;
}

static bool is_response(uint8_t op)
{
	return op == RS_ISCSI_SCSI_RSP || op == RS_ISCSI_LOGIN_RSP || op == RS_ISCSI_TEXT_RSP || op == RS_ISCSI_LOGOUT_RSP ||
	       op == RS_ISCSI_TMF_RSP || op == RS_ISCSI_NOP_IN;
}

enum rs_recog rs_iser_recognize(struct rs_recog_pair *p, bool from_a, const struct rs_frame *f,
				const struct rs_frame_meta *m)
{
	struct rs_iserq *q = p->q;
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	bool pdu_here = false;
	if (rs_op_send_starts(op)) {
		const struct rs_iser *r = rs_frame_pdu(f, RS_PDU_ISER) ? &f->pdu->iser : NULL;
		if (!r || (r->outcome != RS_ISER_OK && r->outcome != RS_ISER_TRUNCATED) ||
		    (r->iser_op == RS_ISER_OP_CONTROL && !r->has_bhs))
			return p->forced ? RS_RECOG_MORE : RS_RECOG_NO; /* a SEND that is no iSER PDU */
		bool req = r->has_bhs && is_request(r->opcode), rsp = r->has_bhs && is_response(r->opcode);
		if (!q->rg_sides && (req || rsp)) {
			q->rg_sides = true;
			p->host_is_a = req == from_a;
		}
		if (q->rg_sides && !p->forced && ((req && from_a != p->host_is_a) || (rsp && from_a == p->host_is_a)))
			return RS_RECOG_NO; /* requests, or responses, both ways */
		pdu_here = true;
	}
	if (!q->rg_sides)
		return RS_RECOG_MORE; /* which side is the initiator: not known before a request or a response */
	struct rs_fref at = { m->file_index, m->frame_no };
	uint64_t answered = q->responses;
	frame(q, from_a == p->host_is_a, 0, f, m, &at, NULL);
	p->pdus += pdu_here;
	p->matched += (uint32_t)(q->responses - answered);
	if (p->forced || p->matched >= RECOG_PAIRED)
		return RS_RECOG_YES;
	return p->pdus >= RECOG_GIVE_UP ? RS_RECOG_NO : RS_RECOG_MORE;
}

/* The task a re-sent frame belongs to: a request's or response's SEND by
 * its ITT (and PSN), any other packet by the message that holds its PSN.
 * *sp: that message, when looked up by PSN. */
static struct task *resent_task(struct rs_iserq *q, const struct rs_frame *f, bool from_ini, const struct span **sp)
{
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	*sp = NULL;
	if (rs_frame_pdu(f, RS_PDU_ISER) && f->pdu->iser.has_bhs && (op->pos == RS_POS_FIRST || op->pos == RS_POS_ONLY)) {
		struct task *t = g_hash_table_lookup(q->tasks, GUINT_TO_POINTER(f->pdu->iser.itt));
		if (t && (from_ini ? t->cmd_psn : t->rsp_psn) == f->bth.psn && (from_ini || t->done))
			return t;
	}
	bool read_rsp = op->kind == RS_KIND_READ_RESP;
	*sp = span_of(from_ini && !read_rsp ? &q->ini : &q->tgt, f->bth.psn);
	return span_task(q, *sp);
}

void rs_iser_resent(struct rs_analyzer *a, struct rs_conn *cn, struct rs_flow *fl, const struct rs_frame *f,
		    const struct rs_frame_meta *m)
{
	struct rs_iserq *q = cn->pq;
	bool from_ini = fl == cn->c2s;
	const struct span *sp;
	q->resent_pkts++;
	struct task *t = resent_task(q, f, from_ini, &sp);
	if (!t) {
		if (sp && sp->seq)
			q->resent_closed++;
		else
			q->resent_untied++;
		return;
	}
	t->resent = true;
	bool send = !sp; /* found by its ITT: the task's own SEND */
	if (send && q->again) {
		/* Seen before (not a fill of a PSN the capture missed). */
		if (from_ini) {
			q->cmd_resent++;
		} else {
			/* The initiator took this sending: go-back-N dropped
			 * what followed the lost packet. */
			q->rsp_resent++;
			t->rsp_ts = m->ts_ns;
			t->rsp_at = (struct rs_fref){ a->cur_file, m->frame_no };
			if (t->err_slot >= 0)
				q->failed[t->err_slot] = task_info(t);
		}
	}
	if (a->v) {
		if (!a->v->ulp_pdu) /* a Middle or Last of a SEND, or of a WRITE */
			a->v->ulp_pdu = rs_opinfo(f->bth.opcode)->kind == RS_KIND_WRITE ? RS_ULP_TRANSFER
					: from_ini ? RS_ULP_REQUEST : RS_ULP_RESPONSE;
		if (a->v->ulp_pdu != RS_ULP_RESPONSE || send)
			v_task(a->v, q, t, a->cur_file);
		a->v->ulp_resent = true;
		if (send && !from_ini) {
			a->v->ulp_lat_ns = m->ts_ns > t->cmd_ts ? m->ts_ns - t->cmd_ts : 0;
			a->v->ulp_timed = true;
		}
	}
}

/* The end: every task settles, in the order of its command. */
static gint by_seq(gconstpointer a, gconstpointer b)
{
	const struct task *x = *(struct task *const *)a, *y = *(struct task *const *)b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void rs_iserq_finish(struct rs_analyzer *a, void *p)
{
	(void)a;
	struct rs_iserq *q = p;
	GPtrArray *all = g_ptr_array_sized_new(g_hash_table_size(q->tasks));
	GHashTableIter it;
	gpointer k, val;
	g_hash_table_iter_init(&it, q->tasks);
	while (g_hash_table_iter_next(&it, &k, &val))
		g_ptr_array_add(all, val);
	g_ptr_array_sort(all, by_seq);
	for (guint i = 0; i < all->len; i++)
		settle(q, all->pdata[i], false);
	g_ptr_array_free(all, TRUE);
}

bool rs_conn_iser(const struct rs_conn *c, struct rs_iser_info *out)
{
	const struct rs_iserq *q = c->pq;
	if (!q || !rs_iser_row(c->ulp))
		return false;
	memset(out, 0, sizeof *out);
	*out = (struct rs_iser_info){
		.requests = q->requests, .responses = q->responses, .scsi_cmds = q->scsi_cmds, .scsi_rsps = q->scsi_rsps,
		.unanswered = q->unanswered + q->wait_q.length,
		.unmatched = q->unmatched, .itt_reused = q->itt_reused, .not_kept = q->not_kept,
		.cmd_resent = q->cmd_resent, .rsp_resent = q->rsp_resent, .tasks_resent = q->tasks_resent,
		.resent_pkts = q->resent_pkts, .resent_untied = q->resent_untied + q->resent_closed, .cut = q->cut,
		.bad = q->bad, .unsupported = q->unsupported, .other_pdus = q->other_pdus,
		.immediate_bytes = q->immediate_bytes, .reads = q->reads, .writes = q->writes,
		.read_bytes = q->read_bytes, .write_bytes = q->write_bytes, .untied = q->untied,
		.not_expected = q->not_expected, .nops = q->nops, .other_ops = q->other_ops, .nslow = q->nslow,
		.nfailed = q->nfailed,
	};
	for (unsigned i = 0; i < q->nops; i++) {
		const struct op *o = &q->ops[i];
		out->ops[i] = (struct rs_iser_op_info){ .pdu = o->pdu, .cdb = o->cdb, .n = o->n, .done = o->done,
							.errors = o->errors, .resent = o->resent,
							.bytes_expected = o->bytes_expected, .bytes_moved = o->bytes_moved,
							.lat = rs_lat_figures_of(&o->lat) };
	}
	memcpy(out->slow, q->slow, sizeof out->slow);
	memcpy(out->failed, q->failed, sizeof out->failed);
	memcpy(out->waiting, q->waiting, sizeof out->waiting);
	return true;
}
