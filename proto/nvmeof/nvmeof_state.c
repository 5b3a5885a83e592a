/*
 * nvmeof_state.c — NVMe-oF queues, the module's per-queue analysis:
 * commands by kind, their sizes, command -> response latency, failed
 * commands, and the RDMA READs and WRITEs the target issued for each.
 *
 * An NVMe-oF queue is one RC connection (NVMe-oF 1.1, 7.3.2): the host
 * (the RDMA CM client) SENDs command capsules, the target SENDs a response
 * capsule per command, with the command's CID. A command whose SGL is keyed
 * lends the target an rkey: the target RDMA READs the host's data through
 * it (host to controller: Write) or RDMA WRITEs into it (controller to
 * host: Read, Identify, Get Log Page, ...) before it responds. So a READ
 * request or a WRITE message from the target belongs to the pending
 * command with that rkey.
 *
 * The dissector decoded every SEND shaped like a capsule (RS_PDU_NVME);
 * only here, where the connection's service says NVMe-oF, is it taken as
 * one.
 */
#include <string.h>

#include "analyzer/transport/verdict.h"
#include "proto/nvmeof/nvmeof.h"
#include "proto/nvmeof/nvmeof_state.h"

/* One NVMe-oF command kind on a queue: an opcode (with its Fabrics command
 * type) of the admin or an I/O command set. */
struct rs_nvme_op {
	uint8_t opcode, fctype;
	uint64_t n;               /* command capsules */
	uint64_t done, errors;    /* response capsules; with a status other than success */
	uint64_t bytes;           /* data the commands' SGLs describe */
	uint32_t size_min, size_max;
	uint64_t incapsule;       /* commands whose data came in the capsule */
	struct rs_latvec lat;     /* command capsule -> response capsule */
};


struct rs_nvme_early { uint16_t status; uint64_t ts; struct rs_fref at; };

/* A command awaiting its response (proto/nvmeof/nvmeof_state.c). */
struct rs_nvme_cmd {
	uint16_t cid;
	uint8_t op;               /* index in ops[] */
	uint32_t key, len;        /* keyed SGL (key 0: none) */
	uint32_t psn;             /* its SEND's: the same CID and PSN again is the same command re-sent */
	uint64_t ts;
	struct rs_fref at;
	uint32_t xfers;           /* RDMA READs and WRITEs that used its key */
	uint64_t xfer_bytes;
};

/* An NVMe-oF queue: one RC connection of an NVMe-oF service (the host is
 * the RDMA CM client). */
struct rs_nvmeq {
	bool qid_known;           /* a Fabrics Connect seen: qid is the queue's */
	uint16_t qid, sqsize;
	uint64_t cmds, rsps, resent;   /* resent: a command capsule with a CID still pending, sent again */
	uint64_t unmatched;       /* responses no command seen claimed (their commands before the capture) */
	uint64_t unmatched_failed;/* ... with a status other than success */
	/* Responses captured before their command: a capture whose two
	 * directions were timestamped apart (two ports, two clocks). Paired with
	 * the next command with their CID, in order, if it comes within
	 * RS_STALE_NS; not timed. */
	uint64_t answered_early;
	GHashTable *early;        /* CID -> GQueue of struct rs_nvme_early */
	uint64_t cut, bad;        /* capsules the capture cut; capsules whose fields lie */
	uint64_t rsp_resent;      /* a response capsule's SEND again (same PSN): not counted again */
	/* The last 16 responses: PSN (+1: 0 is none) and what the first
	 * sending answered, for the verdict of a sending again. */
	struct rsp_seen {
		uint32_t psn1;
		bool op_known;
		uint16_t ulp_op;
		uint64_t cmd_frame;
	} rsp_seen[16];
	uint8_t rsp_psn_next;
	uint64_t reads, writes;   /* RDMA READ requests and WRITE messages the target issued ... */
	uint64_t read_bytes, write_bytes;
	uint64_t untied;          /* ... with an rkey no pending command gave */
	uint64_t xfer_short;      /* keyed commands answered with success whose READs/WRITEs moved other than the SGL's length */
	uint8_t nops;
	uint64_t other_ops;
	struct rs_nvme_op ops[RS_NVME_OPS];
	struct rs_nvme_err err[RS_NVME_ERRS];
	uint32_t nerr;
	GHashTable *pending;      /* CID -> struct rs_nvme_cmd */
	GHashTable *by_key;       /* rkey -> struct rs_nvme_cmd (the pending ones with a key) */
	/* Recognition by shape (rs_nvme_recognize): the host's side known (the
	 * first capsule's), the SQ Identifier of the responses. */
	bool rg_sides, rg_sqid_known;
	uint16_t rg_sqid;
};

static void free_early(gpointer p)
{
	g_queue_free_full(p, g_free);
}

void *rs_nvmeq_new(void)
{
	struct rs_nvmeq *q = g_new0(struct rs_nvmeq, 1);
	q->pending = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	q->by_key = g_hash_table_new(g_direct_hash, g_direct_equal);
	q->early = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free_early);
	return q;
}

void rs_nvmeq_free(void *p)
{
	struct rs_nvmeq *q = p;
	if (!q)
		return;
	for (unsigned i = 0; i < q->nops; i++)
		rs_lat_free(&q->ops[i].lat);
	g_hash_table_destroy(q->by_key);
	g_hash_table_destroy(q->early);
	g_hash_table_destroy(q->pending);
	g_free(q);
}

/* The admin queue's opcodes differ from the I/O queues' (NVMe 1.4 5 and 6). */
static bool nvmeq_admin(const struct rs_nvmeq *q)
{
	return q->qid_known && q->qid == 0;
}

static int op_slot(struct rs_nvmeq *q, const struct rs_nvme *n)
{
	uint8_t fct = n->opcode == RS_NVME_FABRICS_OPC ? n->fctype : 0;
	for (unsigned i = 0; i < q->nops; i++)
		if (q->ops[i].opcode == n->opcode && q->ops[i].fctype == fct)
			return (int)i;
	if (q->nops == RS_NVME_OPS)
		return -1;
	struct rs_nvme_op *o = &q->ops[q->nops];
	memset(o, 0, sizeof *o);
	o->opcode = n->opcode;
	o->fctype = fct;
	return q->nops++;
}

/* The command kind as the verdict's ulp_op. */
static uint16_t ulp_op(const struct rs_nvmeq *q, uint8_t opcode, uint8_t fctype)
{
	return rs_nvme_op_code(opcode, fctype, q->qid_known, q->qid == 0);
}

/* The data a command moves: what its SGL describes. */
static uint32_t data_len(const struct rs_nvme *n)
{
	return n->sgl_len;
}

/* A response to this CID captured before the command, if one waits (the
 * oldest); stale ones go (their commands were before the capture). */
static bool early_answer(struct rs_nvmeq *q, struct rs_nvme_op *o, uint16_t cid, uint64_t ts)
{
	GQueue *eq = g_hash_table_lookup(q->early, GUINT_TO_POINTER(cid));
	struct rs_nvme_early *e;
	while (eq && (e = g_queue_peek_head(eq))) {
		g_queue_pop_head(eq);
		if (e->ts + RS_STALE_NS < ts) {
			g_free(e);
			continue;
		}
		q->unmatched--;
		q->unmatched_failed -= e->status != 0;
		q->answered_early++;
		o->done++;
		if (e->status) {
			o->errors++;
			if (q->nerr < RS_NVME_ERRS)
				q->err[q->nerr] = (struct rs_nvme_err){ cid, e->status, (uint8_t)(o - q->ops), e->at, e->at };
			q->nerr++;
		}
		g_free(e);
		return true;
	}
	return false;
}

static void command(struct rs_nvmeq *q, const struct rs_nvme *n, const struct rs_frame *f,
		    const struct rs_frame_meta *m, const struct rs_fref *at)
{
	struct rs_nvme_cmd *old = g_hash_table_lookup(q->pending, GUINT_TO_POINTER(n->cid));
	if (old && old->psn == f->bth.psn) {
		q->resent++; /* the same SEND again (go-back-N, timeout): still the first's command */
		return;
	}
	q->cmds++;
	if (n->opcode == RS_NVME_FABRICS_OPC && n->fctype == 0x01) {
		q->qid_known = true;
		q->qid = n->connect_qid;
		q->sqsize = (uint16_t)(n->cdw11 & 0xFFFF);
	}
	int i = op_slot(q, n);
	if (i < 0) {
		q->other_ops++;
		return;
	}
	struct rs_nvme_op *o = &q->ops[i];
	uint32_t len = data_len(n);
	if (o->n == 0 || len < o->size_min)
		o->size_min = len;
	if (len > o->size_max)
		o->size_max = len;
	o->n++;
	o->bytes += len;
	o->incapsule += rs_nvme_incapsule(n) && len;
	if (early_answer(q, o, n->cid, m->ts_ns))
		return;
	if (old && old->key)
		g_hash_table_remove(q->by_key, GUINT_TO_POINTER(old->key));
	struct rs_nvme_cmd *c = g_new0(struct rs_nvme_cmd, 1);
	*c = (struct rs_nvme_cmd){ .cid = n->cid, .op = (uint8_t)i, .key = rs_nvme_keyed(n) && len ? n->sgl_key : 0,
				   .len = len, .psn = f->bth.psn, .ts = m->ts_ns, .at = *at };
	g_hash_table_replace(q->pending, GUINT_TO_POINTER(n->cid), c);
	if (c->key)
		g_hash_table_replace(q->by_key, GUINT_TO_POINTER(c->key), c);
}

/* The target re-sent a response's SEND (its ACK lost or late): seen
 * already (returned, NULL if not); else its slot is taken (*slot). */
static const struct rsp_seen *response_again(struct rs_nvmeq *q, uint32_t psn, struct rsp_seen **slot)
{
	for (unsigned i = 0; i < G_N_ELEMENTS(q->rsp_seen); i++)
		if (q->rsp_seen[i].psn1 == psn + 1)
			return &q->rsp_seen[i];
	*slot = &q->rsp_seen[q->rsp_psn_next++ % G_N_ELEMENTS(q->rsp_seen)];
	**slot = (struct rsp_seen){ .psn1 = psn + 1 };
	return NULL;
}

/* True: it answered a command seen. */
static bool response(struct rs_nvmeq *q, const struct rs_nvme *n, const struct rs_frame *f,
		     const struct rs_frame_meta *m, const struct rs_fref *at, struct rs_verdict *v)
{
	struct rsp_seen *slot = NULL;
	const struct rsp_seen *again = response_again(q, f->bth.psn, &slot);
	if (v)
		v->ulp_failed = n->status != 0;
	if (again) {
		q->rsp_resent++;
		if (v) { /* what its first sending answered; not timed again */
			v->ulp_resent = true;
			v->ulp_op_known = again->op_known;
			v->ulp_op = again->ulp_op;
			v->ulp_req_frame = again->cmd_frame;
		}
		return false;
	}
	q->rsps++;
	struct rs_nvme_cmd *c = g_hash_table_lookup(q->pending, GUINT_TO_POINTER(n->cid));
	if (!c) {
		q->unmatched++;
		q->unmatched_failed += n->status != 0;
		GQueue *eq = g_hash_table_lookup(q->early, GUINT_TO_POINTER(n->cid));
		if (!eq) {
			eq = g_queue_new();
			g_hash_table_insert(q->early, GUINT_TO_POINTER(n->cid), eq);
		}
		struct rs_nvme_early *e = g_new(struct rs_nvme_early, 1);
		*e = (struct rs_nvme_early){ n->status, m->ts_ns, *at };
		g_queue_push_tail(eq, e);
		return false;
	}
	struct rs_nvme_op *o = &q->ops[c->op];
	uint64_t ns = m->ts_ns > c->ts ? m->ts_ns - c->ts : 0;
	o->done++;
	rs_lat_add(&o->lat, ns);
	if (n->status) {
		o->errors++;
		if (q->nerr < RS_NVME_ERRS)
			q->err[q->nerr] = (struct rs_nvme_err){ n->cid, n->status, c->op, *at, c->at };
		q->nerr++;
	}
	if (v) {
		v->nvme_cmd_frame = c->at.file == at->file ? c->at.frame : 0;
		v->nvme_lat_ns = ns;
		v->nvme_timed = true;
		v->nvme_op_known = true;
		v->nvme_opcode = o->opcode;
		v->nvme_fabrics = o->opcode == RS_NVME_FABRICS_OPC;
		v->nvme_fctype = o->fctype;
		v->ulp_req_frame = v->nvme_cmd_frame;
		v->ulp_timed = true;
		v->ulp_lat_ns = ns;
		v->ulp_op_known = true;
		v->ulp_op = ulp_op(q, o->opcode, o->fctype);
	}
	*slot = (struct rsp_seen){ .psn1 = slot->psn1, .op_known = true, .ulp_op = ulp_op(q, o->opcode, o->fctype),
				   .cmd_frame = c->at.file == at->file ? c->at.frame : 0 };
	if (c->key && !n->status && c->xfer_bytes != c->len)
		q->xfer_short++;
	if (c->key && g_hash_table_lookup(q->by_key, GUINT_TO_POINTER(c->key)) == c)
		g_hash_table_remove(q->by_key, GUINT_TO_POINTER(c->key));
	g_hash_table_remove(q->pending, GUINT_TO_POINTER(n->cid));
	return true;
}

/* A READ request or the first packet of a WRITE the target sent. */
static void transfer(struct rs_nvmeq *q, const struct rs_frame *f, const struct rs_fref *at, struct rs_verdict *v)
{
	bool read = rs_opinfo(f->bth.opcode)->kind == RS_KIND_READ_REQ;
	if (read) {
		q->reads++;
		q->read_bytes += f->reth.dmalen;
	} else {
		q->writes++;
		q->write_bytes += f->reth.dmalen;
	}
	struct rs_nvme_cmd *c = g_hash_table_lookup(q->by_key, GUINT_TO_POINTER(f->reth.rkey));
	if (!c) {
		q->untied++;
		return;
	}
	c->xfers++;
	c->xfer_bytes += f->reth.dmalen;
	if (v) {
		v->nvme_cmd_frame = c->at.file == at->file ? c->at.frame : 0;
		v->ulp_pdu = RS_ULP_TRANSFER;
		v->ulp_req_frame = v->nvme_cmd_frame;
		v->ulp_tag_known = true;
		v->ulp_tag = c->cid;
		v->ulp_op_known = true;
		v->ulp_op = ulp_op(q, q->ops[c->op].opcode, q->ops[c->op].fctype);
	}
}

/* What one frame did to the queue, for recognition. */
enum feed { FEED_OTHER = 0, FEED_CMD, FEED_RSP, FEED_RSP_PAIRED, FEED_WRONG_WAY, FEED_CUT };

static enum feed feed(struct rs_nvmeq *q, bool from_host, const struct rs_frame *f, const struct rs_frame_meta *m,
		      const struct rs_fref *at, struct rs_verdict *v)
{
	if (rs_frame_pdu(f, RS_PDU_NVME)) {
		const struct rs_nvme *n = &f->pdu->nvme;
		if ((n->kind == RS_NVME_CMD) != from_host)
			return FEED_WRONG_WAY; /* commands go host -> target, responses back */
		if (n->state == RS_NVME_CUT) {
			q->cut++;
			return FEED_CUT;
		}
		if (n->state == RS_NVME_BAD)
			q->bad++;
		if (v) {
			v->nvme = n->kind;
			v->nvme_queue = q->qid_known ? (q->qid ? 2 : 1) : 0;
			v->nvme_cid = n->cid;
			v->ulp_pdu = n->kind == RS_NVME_CMD ? RS_ULP_REQUEST : RS_ULP_RESPONSE;
			v->ulp_tag_known = true;
			v->ulp_tag = n->cid;
			if (n->kind == RS_NVME_CMD) {
				v->nvme_op_known = true;
				v->nvme_opcode = n->opcode;
				v->nvme_fabrics = n->opcode == RS_NVME_FABRICS_OPC;
				v->nvme_fctype = v->nvme_fabrics ? n->fctype : 0;
				v->ulp_op_known = true;
				v->ulp_op = ulp_op(q, n->opcode, v->nvme_fctype);
			}
		}
		if (n->kind == RS_NVME_CMD) {
			uint64_t early = q->answered_early;
			command(q, n, f, m, at);
			return q->answered_early != early ? FEED_RSP_PAIRED : FEED_CMD;
		}
		return response(q, n, f, m, at, v) ? FEED_RSP_PAIRED : FEED_RSP;
	}
	if (from_host || !(f->ext & RS_EXT_RETH))
		return FEED_OTHER;
	enum rs_op_kind k = rs_opinfo(f->bth.opcode)->kind;
	if (k == RS_KIND_READ_REQ || k == RS_KIND_WRITE || k == RS_KIND_WRITE_IMM)
		transfer(q, f, at, v);
	return FEED_OTHER;
}

void rs_nvme_frame(struct rs_analyzer *a, struct rs_conn *c, struct rs_flow *fl, const struct rs_frame *f,
		   const struct rs_frame_meta *m)
{
	struct rs_fref at = { a->cur_file, m->frame_no };
	feed(c->pq, fl == c->c2s, f, m, &at, a->v);
}

/*
 * Recognition by shape, for an RC half-flow pair without a CM connection
 * (the rule the man page states): every SEND that starts a message on the
 * pair is a capsule (a command: 64 bytes or more with SGL flags, a
 * response: 16 bytes), all commands go one way and all responses the
 * other, every response carries the SQ Identifier of the first, none is
 * malformed; and RS_NVME_RECOG_PAIRED responses were tied by CID to a
 * command seen on the pair. A SEND against any of it ends the look at
 * once; RS_NVME_RECOG_GIVE_UP capsules without enough pairs end it too.
 * The queue is fed while it looks, so on recognition it holds the
 * commands from the pair's first capsule on.
 */
#define RS_NVME_RECOG_PAIRED 4
#define RS_NVME_RECOG_GIVE_UP 256

static bool send_starts(const struct rs_frame *f)
{
	return rs_op_send_starts(rs_opinfo(f->bth.opcode));
}

enum rs_recog rs_nvme_recognize(struct rs_recog_pair *p, bool from_a, const struct rs_frame *f,
				const struct rs_frame_meta *m)
{
	struct rs_nvmeq *q = p->q;
	struct rs_fref at = { m->file_index, m->frame_no };
	if (!q->rg_sides && !send_starts(f))
		return RS_RECOG_MORE; /* before the first capsule nothing can be tied to a command */
	if (send_starts(f)) {
		if (!rs_frame_pdu(f, RS_PDU_NVME)) /* a SEND that is no capsule */
			return p->forced ? RS_RECOG_MORE : RS_RECOG_NO;
		const struct rs_nvme *n = &f->pdu->nvme;
		if (n->state == RS_NVME_BAD && !p->forced)
			return RS_RECOG_NO;
		if (!q->rg_sides) {
			q->rg_sides = true;
			p->host_is_a = (n->kind == RS_NVME_CMD) == from_a;
		}
		if (n->kind == RS_NVME_RSP && n->state == RS_NVME_OK && !p->forced) {
			if (q->rg_sqid_known && n->sqid != q->rg_sqid)
				return RS_RECOG_NO; /* responses of two submission queues */
			q->rg_sqid_known = true;
			q->rg_sqid = n->sqid;
		}
	}
	enum feed r = feed(q, from_a == p->host_is_a, f, m, &at, NULL);
	if (r == FEED_WRONG_WAY)
		return RS_RECOG_NO; /* commands, or responses, both ways */
	p->pdus += r == FEED_CMD || r == FEED_RSP || r == FEED_RSP_PAIRED;
	p->matched += r == FEED_RSP_PAIRED;
	if (p->forced || p->matched >= RS_NVME_RECOG_PAIRED)
		return RS_RECOG_YES;
	return p->pdus >= RS_NVME_RECOG_GIVE_UP ? RS_RECOG_NO : RS_RECOG_MORE;
}

/* How many commands are still waiting for their response. */
static unsigned nvmeq_pending(const struct rs_nvmeq *q)
{
	return g_hash_table_size(q->pending);
}

/* ... of which Asynchronous Event Requests (admin opcode 0Ch): the target
 * holds each until it has an event to report (NVMe 1.4 5.2), so one
 * unanswered at the end is the normal state of an admin queue. */
static unsigned nvmeq_pending_aer(const struct rs_nvmeq *q)
{
	if (!nvmeq_admin(q))
		return 0;
	GHashTableIter it;
	gpointer k, val;
	unsigned n = 0;
	g_hash_table_iter_init(&it, q->pending);
	while (g_hash_table_iter_next(&it, &k, &val))
		n += q->ops[((const struct rs_nvme_cmd *)val)->op].opcode == 0x0C;
	return n;
}

bool rs_conn_nvme(const struct rs_conn *c, struct rs_nvme_info *out)
{
	const struct rs_nvmeq *q = c->pq;
	if (!q || !rs_nvmeof_row(c->ulp))
		return false;
	memset(out, 0, sizeof *out);
	out->qid_known = q->qid_known;
	out->qid = q->qid;
	out->sqsize = q->sqsize;
	out->cmds = q->cmds;
	out->rsps = q->rsps;
	out->pending = nvmeq_pending(q);
	out->pending_aer = nvmeq_pending_aer(q);
	out->answered_early = q->answered_early;
	out->unmatched = q->unmatched;
	out->unmatched_failed = q->unmatched_failed;
	out->resent = q->resent;
	out->rsp_resent = q->rsp_resent;
	out->cut = q->cut;
	out->bad = q->bad;
	out->reads = q->reads;
	out->writes = q->writes;
	out->read_bytes = q->read_bytes;
	out->write_bytes = q->write_bytes;
	out->untied = q->untied;
	out->xfer_short = q->xfer_short;
	out->nops = q->nops;
	for (unsigned i = 0; i < q->nops; i++) {
		const struct rs_nvme_op *o = &q->ops[i];
		out->ops[i] = (struct rs_nvme_op_info){ .opcode = o->opcode, .fctype = o->fctype, .n = o->n, .done = o->done,
							.errors = o->errors, .bytes = o->bytes, .size_min = o->size_min,
							.size_max = o->size_max, .incapsule = o->incapsule,
							.lat = rs_lat_figures_of(&o->lat) };
	}
	out->other_ops = q->other_ops;
	out->nerr = q->nerr;
	memcpy(out->err, q->err, sizeof out->err);
	return true;
}
