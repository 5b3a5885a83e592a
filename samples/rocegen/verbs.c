/* Verbs resources, posting and completion handling. Every WR posted and
 * every completion polled is written to the ground truth as it happens. */
#include "rocegen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* UD receive buffers start with the 40-byte GRH the HCA writes there. */
#define GRH_LEN 40

/* Receive buffers are laid out one slot per message, big enough for a
 * message and, on UD, the GRH in front of it. */
size_t slot_size(const struct conn *c)
{
	size_t s = c->opt->size + GRH_LEN;
	return (s + 63) & ~(size_t)63;
}

void res_create(struct conn *c, struct rdma_cm_id *id, enum ibv_qp_type type)
{
	const struct options *o = c->opt;
	/* mixed reads back into a second set of slots beside the first */
	unsigned slots = 2 * (o->count > o->depth ? o->count : o->depth);

	c->id = id;
	c->buf_len = slot_size(c) * slots;
	if (c->buf_len < 4096)
		c->buf_len = 4096;
	if (posix_memalign((void **)&c->buf, 4096, c->buf_len))
		die("out of memory");
	memset(c->buf, 0, c->buf_len);

	c->pd = ibv_alloc_pd(id->verbs);
	if (!c->pd)
		die("ibv_alloc_pd: %m");
	c->cch = ibv_create_comp_channel(id->verbs);
	if (!c->cch)
		die("ibv_create_comp_channel: %m");
	int fl = fcntl(c->cch->fd, F_GETFL);
	if (fl < 0 || fcntl(c->cch->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		die("fcntl: %m");
	c->cq = ibv_create_cq(id->verbs, (int)(2 * o->depth + 4), c, c->cch, 0);
	if (!c->cq)
		die("ibv_create_cq: %m");
	if (ibv_req_notify_cq(c->cq, 0))
		die("ibv_req_notify_cq: %m");
	c->mr = ibv_reg_mr(c->pd, c->buf, c->buf_len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!c->mr)
		die("ibv_reg_mr: %m");

	struct ibv_qp_init_attr ia;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = c->cq;
	ia.recv_cq = c->cq;
	ia.qp_type = type;
	ia.sq_sig_all = 1;	/* one completion per WR: the truth lists them all */
	ia.cap.max_send_wr = o->depth;
	ia.cap.max_recv_wr = o->depth;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = o->inline_data ? o->size : 0;
	if (rdma_create_qp(id, c->pd, &ia))
		die("rdma_create_qp: %m");
	c->qp = id->qp;
	c->max_inline = ia.cap.max_inline_data;
}

void res_destroy(struct conn *c)
{
	if (c->ah)
		ibv_destroy_ah(c->ah);
	if (c->qp)
		rdma_destroy_qp(c->id);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->cch)
		ibv_destroy_comp_channel(c->cch);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	c->ah = NULL;
	c->qp = NULL;
	c->mr = NULL;
	c->cq = NULL;
	c->cch = NULL;
	c->pd = NULL;
}

static struct posted_wr *remember(struct conn *c, bool is_recv,
				  enum ibv_wr_opcode op, uint64_t laddr, uint32_t len)
{
	if (c->n_posted == c->cap_posted) {
		c->cap_posted = c->cap_posted ? 2 * c->cap_posted : 64;
		c->posted = realloc(c->posted, c->cap_posted * sizeof(*c->posted));
		if (!c->posted)
			die("out of memory");
	}
	struct posted_wr *p = &c->posted[c->n_posted++];
	p->wr_id = ++c->next_wr_id;
	p->is_recv = is_recv;
	p->opcode = op;
	p->local_addr = laddr;
	p->length = len;
	return p;
}

static const struct posted_wr *lookup(const struct conn *c, uint64_t wr_id)
{
	for (size_t i = 0; i < c->n_posted; i++)
		if (c->posted[i].wr_id == wr_id)
			return &c->posted[i];
	return NULL;
}

void post_recv(struct conn *c, size_t offset, uint32_t length)
{
	if (offset + length > c->buf_len)
		die("receive buffer outside the MR");
	uint64_t laddr = (uint64_t)(uintptr_t)(c->buf + offset);
	struct posted_wr *p = remember(c, true, 0, laddr, length);
	struct ibv_sge sge = { .addr = laddr, .length = length, .lkey = c->mr->lkey };
	struct ibv_recv_wr wr, *bad;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = p->wr_id;
	wr.sg_list = &sge;
	wr.num_sge = length ? 1 : 0;
	int err = ibv_post_recv(c->qp, &wr, &bad);
	if (err)
		die("ibv_post_recv: %s", strerror(err));
	c->recv_outstanding++;
	c->recv_posted_total++;

	struct jbuf *b = &c->j_recv;
	jb_item(b);
	jb_printf(b, "{\"side\": \"%s\", \"t\": %.6f, \"wr_id\": %" PRIu64 ", \"length\": %u"
		  ", \"local_addr\": ", c->side, now_s() - c->t0, p->wr_id, length);
	jb_u64(b, laddr);
	jb_printf(b, "}");
}

static bool may_inline(const struct conn *c, enum ibv_wr_opcode op, uint32_t len)
{
	if (!c->opt->inline_data || len > c->max_inline)
		return false;
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

uint64_t post_send(struct conn *c, const struct send_args *a)
{
	if (a->local_offset + a->length > c->buf_len)
		die("send buffer outside the MR");
	uint64_t laddr = (uint64_t)(uintptr_t)(c->buf + a->local_offset);
	struct posted_wr *p = remember(c, false, a->opcode, laddr, a->length);
	struct ibv_sge sge = { .addr = laddr, .length = a->length, .lkey = c->mr->lkey };
	struct ibv_send_wr wr, *bad;
	bool is_imm = a->opcode == IBV_WR_SEND_WITH_IMM ||
		      a->opcode == IBV_WR_RDMA_WRITE_WITH_IMM;
	bool is_rdma = a->opcode == IBV_WR_RDMA_WRITE ||
		       a->opcode == IBV_WR_RDMA_WRITE_WITH_IMM ||
		       a->opcode == IBV_WR_RDMA_READ;
	bool is_atomic = a->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
			 a->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
	bool inl = may_inline(c, a->opcode, a->length);

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = p->wr_id;
	wr.sg_list = &sge;
	wr.num_sge = a->length ? 1 : 0;
	wr.opcode = a->opcode;
	wr.send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0);
	if (is_imm)
		wr.imm_data = htonl(a->imm);
	if (is_rdma) {
		wr.wr.rdma.remote_addr = a->remote_addr;
		wr.wr.rdma.rkey = a->rkey;
	}
	if (is_atomic) {
		wr.wr.atomic.remote_addr = a->remote_addr;
		wr.wr.atomic.rkey = a->rkey;
		wr.wr.atomic.compare_add = a->compare_add;
		wr.wr.atomic.swap = a->swap;
	}
	if (c->qp->qp_type == IBV_QPT_UD) {
		wr.wr.ud.ah = c->ah;
		wr.wr.ud.remote_qpn = c->remote_qpn;
		wr.wr.ud.remote_qkey = c->remote_qkey;
	}
	int err = ibv_post_send(c->qp, &wr, &bad);
	if (err)
		die("ibv_post_send %s: %s", wr_opcode_name(a->opcode), strerror(err));
	c->send_outstanding++;

	struct jbuf *b = &c->j_wr;
	jb_item(b);
	jb_printf(b, "{\"side\": \"%s\", \"t\": %.6f, \"wr_id\": %" PRIu64 ", \"opcode\": \"%s\""
		  ", \"length\": %u, \"local_addr\": ", c->side, now_s() - c->t0, p->wr_id,
		  wr_opcode_name(a->opcode), a->length);
	jb_u64(b, laddr);
	jb_printf(b, ", \"inline\": %s, \"signaled\": true", inl ? "true" : "false");
	if (is_rdma || is_atomic) {
		jb_printf(b, ", \"remote_addr\": ");
		jb_u64(b, a->remote_addr);
		jb_printf(b, ", \"rkey\": %u", a->rkey);
	}
	if (is_imm)
		jb_printf(b, ", \"imm_data\": %u", a->imm);
	if (a->opcode == IBV_WR_ATOMIC_CMP_AND_SWP) {
		jb_printf(b, ", \"compare\": ");
		jb_u64(b, a->compare_add);
		jb_printf(b, ", \"swap\": ");
		jb_u64(b, a->swap);
	}
	if (a->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		jb_printf(b, ", \"add\": ");
		jb_u64(b, a->compare_add);
	}
	if (c->qp->qp_type == IBV_QPT_UD)
		jb_printf(b, ", \"remote_qpn\": %u, \"remote_qkey\": %u",
			  c->remote_qpn, c->remote_qkey);
	jb_printf(b, "}");
	return p->wr_id;
}

/* For failed completions the HCA need not fill in the opcode, so it is
 * taken from what was posted instead. */
static const char *wc_kind(const struct ibv_wc *wc, const struct posted_wr *p)
{
	if (wc->status == IBV_WC_SUCCESS || !p)
		return wc_opcode_name(wc->opcode);
	if (p->is_recv)
		return "RECV";
	switch (p->opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM: return "SEND";
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM: return "RDMA_WRITE";
	case IBV_WR_RDMA_READ: return "RDMA_READ";
	case IBV_WR_ATOMIC_CMP_AND_SWP: return "COMP_SWAP";
	case IBV_WR_ATOMIC_FETCH_AND_ADD: return "FETCH_ADD";
	default: return "OTHER";
	}
}

static void record_wc(struct conn *c, const struct ibv_wc *wc)
{
	const struct posted_wr *p = lookup(c, wc->wr_id);
	struct jbuf *b = &c->j_wc;
	jb_item(b);
	jb_printf(b, "{\"side\": \"%s\", \"t\": %.6f, \"wr_id\": %" PRIu64 ", \"opcode\": \"%s\""
		  ", \"status\": %d, \"status_name\": ", c->side, now_s() - c->t0, wc->wr_id,
		  wc_kind(wc, p), (int)wc->status);
	jb_string(b, ibv_wc_status_str(wc->status));
	jb_printf(b, ", \"qp_num\": %u", wc->qp_num);
	if (wc->status == IBV_WC_SUCCESS) {
		jb_printf(b, ", \"byte_len\": %u", wc->byte_len);
		/* Only receives: rxe also flags the sender's own completion
		 * WITH_IMM (imm_data 0), which is meaningless there. */
		if ((wc->wc_flags & IBV_WC_WITH_IMM) && p && p->is_recv)
			jb_printf(b, ", \"imm_data\": %u", ntohl(wc->imm_data));
		if (c->qp && c->qp->qp_type == IBV_QPT_UD && p && p->is_recv)
			jb_printf(b, ", \"src_qp\": %u, \"grh\": %s", wc->src_qp,
				  (wc->wc_flags & IBV_WC_GRH) ? "true" : "false");
		if (p && !p->is_recv && (p->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
					 p->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)) {
			uint64_t orig;
			memcpy(&orig, (const void *)(uintptr_t)p->local_addr, sizeof(orig));
			jb_printf(b, ", \"atomic_orig\": ");
			jb_u64(b, orig);
		}
	} else {
		jb_printf(b, ", \"vendor_err\": %u", wc->vendor_err);
	}
	jb_printf(b, "}");
}

static void keep_recv_wc(struct conn *c, const struct ibv_wc *wc)
{
	if (c->n_recv_wcs == c->cap_recv_wcs) {
		c->cap_recv_wcs = c->cap_recv_wcs ? 2 * c->cap_recv_wcs : 64;
		c->recv_wcs = realloc(c->recv_wcs, c->cap_recv_wcs * sizeof(*wc));
		if (!c->recv_wcs)
			die("out of memory");
	}
	c->recv_wcs[c->n_recv_wcs++] = *wc;
}

uint64_t posted_local_addr(const struct conn *c, uint64_t wr_id)
{
	const struct posted_wr *p = lookup(c, wr_id);
	if (!p)
		die("completion for unknown wr_id %" PRIu64, wr_id);
	return p->local_addr;
}

static void drain_cq(struct conn *c)
{
	struct ibv_wc wc[8];
	int n;
	if (!c->cq)
		return;
	while ((n = ibv_poll_cq(c->cq, 8, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			const struct posted_wr *p = lookup(c, wc[i].wr_id);
			bool is_recv = p ? p->is_recv : (wc[i].opcode & IBV_WC_RECV);
			bool ok = wc[i].status == IBV_WC_SUCCESS;
			record_wc(c, &wc[i]);
			if (is_recv) {
				c->recv_outstanding--;
				if (ok) {
					c->recv_done++;
					keep_recv_wc(c, &wc[i]);
				} else {
					c->recv_err++;
				}
			} else {
				c->send_outstanding--;
				if (ok) {
					c->send_done++;
				} else {
					if (!c->send_err)
						c->first_send_err = (int)wc[i].status;
					c->send_err++;
				}
			}
		}
	}
	if (n < 0)
		die("ibv_poll_cq failed");
}

static void drain_cm(struct conn *c)
{
	struct rdma_cm_event *ev;
	while (rdma_get_cm_event(c->ech, &ev) == 0) {
		cm_handle_event(c, ev);
		rdma_ack_cm_event(ev);
	}
	if (errno != EAGAIN && errno != EWOULDBLOCK)
		die("rdma_get_cm_event: %m");
}

void pump_until(struct conn *c, bool (*pred)(const struct conn *, const void *),
		const void *arg, const char *what)
{
	double deadline = c->t0 + c->opt->timeout_s;
	for (;;) {
		drain_cq(c);
		drain_cm(c);
		if (pred(c, arg))
			return;
		double left = deadline - now_s();
		if (left <= 0)
			die("timed out waiting for %s", what);
		struct pollfd fds[2] = {
			{ .fd = c->ech->fd, .events = POLLIN },
			{ .fd = c->cch ? c->cch->fd : -1, .events = POLLIN },
		};
		int ms = left > 1 ? 1000 : (int)(left * 1000) + 1;
		if (poll(fds, 2, ms) < 0 && errno != EINTR)
			die("poll: %m");
		if (c->cch && (fds[1].revents & POLLIN)) {
			struct ibv_cq *cq;
			void *ctx;
			if (ibv_get_cq_event(c->cch, &cq, &ctx) == 0) {
				ibv_ack_cq_events(cq, 1);
				if (ibv_req_notify_cq(cq, 0))
					die("ibv_req_notify_cq: %m");
			}
		}
	}
}

static bool sends_reached(const struct conn *c, const void *arg)
{
	return c->send_done + c->send_err >= *(const unsigned *)arg;
}

static bool recvs_reached(const struct conn *c, const void *arg)
{
	return c->recv_done + c->recv_err >= *(const unsigned *)arg;
}

static bool send_slot_free(const struct conn *c, const void *arg)
{
	(void)arg;
	return c->send_outstanding < c->opt->depth;
}

/* Wait until n send completions (good or bad) have been seen in total. */
void wait_sends(struct conn *c, unsigned n)
{
	pump_until(c, sends_reached, &n, "send completions");
}

void wait_recvs(struct conn *c, unsigned n)
{
	pump_until(c, recvs_reached, &n, "receive completions");
}

/* Keep at most --depth WRs outstanding on the send queue. */
void wait_send_slot(struct conn *c)
{
	pump_until(c, send_slot_free, NULL, "a free send queue slot");
}
