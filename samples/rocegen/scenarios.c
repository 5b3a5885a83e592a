/* The named scenarios. Both sides run the same scenario with the same
 * options; each knows what the other will do, so no extra protocol is
 * needed beyond the MR advertisement carried in the CM private data. */
#include "rocegen.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Immediate values have the top bit set so that signedness slips show. */
#define IMM_BASE 0xc0de0000u
/* Above 2^53 so that a consumer reading 64-bit fields as doubles fails. */
#define ATOMIC_BASE UINT64_C(0x0123456789ab0000)
/* The reject scenario's REJ private data, ASCII so it reads well in a dump. */
static const char reject_text[] = "rocegen: rejected by scenario";

static unsigned min_u(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts))
		;
}

static void verify(struct conn *c, bool ok, const char *what, unsigned i)
{
	if (!ok) {
		c->failed = true;
		note(c, "check failed: %s (message %u)", what, i);
	}
}

/* ---- receive side, shared by the SEND-like scenarios ------------------ */

/* Post receive k into slot k; zero-length receives suit WRITE_WITH_IMM. */
static void post_recv_slot(struct conn *c, unsigned k, uint32_t len)
{
	post_recv(c, (size_t)k * slot_size(c), len);
}

static uint32_t recv_len(const struct conn *c)
{
	switch (c->opt->scenario) {
	case SC_WRITE_IMM:
	case SC_MIXED:
		return 0;	/* the data arrives by RDMA; only the imm consumes a WQE */
	case SC_UD:
		return c->opt->size + 40;
	default:
		return c->opt->size;
	}
}

static void prepost_receives(struct conn *c, unsigned total)
{
	unsigned n = min_u(c->opt->depth, total);
	for (unsigned k = 0; k < n; k++)
		post_recv_slot(c, k, recv_len(c));
}

/* Post receives into the next slots until DEPTH are outstanding or
 * `total` have been posted in all. */
static void top_up_receives(struct conn *c, unsigned total)
{
	while (c->recv_outstanding < c->opt->depth && c->recv_posted_total < total)
		post_recv_slot(c, c->recv_posted_total, recv_len(c));
}

/* Wait for `total` receives, topping the queue up as they complete. */
static void receive_all(struct conn *c, unsigned total)
{
	for (unsigned got = 0; got < total; got++) {
		wait_recvs(c, got + 1);
		if (c->recv_posted_total < total)
			post_recv_slot(c, c->recv_posted_total, recv_len(c));
	}
}

/* Every receive in order: data pattern and immediate value as sent. */
static void check_receives(struct conn *c, bool has_imm, bool has_data)
{
	size_t grh = c->opt->scenario == SC_UD ? 40 : 0;
	for (size_t i = 0; i < c->n_recv_wcs; i++) {
		const struct ibv_wc *wc = &c->recv_wcs[i];
		if (has_imm)
			verify(c, (wc->wc_flags & IBV_WC_WITH_IMM) &&
			       ntohl(wc->imm_data) == IMM_BASE + i, "immediate value", (unsigned)i);
		if (has_data) {
			const uint8_t *p = (const uint8_t *)(uintptr_t)posted_local_addr(c, wc->wr_id);
			verify(c, wc->byte_len == c->opt->size + grh, "byte_len", (unsigned)i);
			verify(c, check_pattern(p + grh, c->opt->size, (unsigned)i), "payload", (unsigned)i);
		}
	}
}

/* ---- send side -------------------------------------------------------- */

static void send_messages(struct conn *c, enum ibv_wr_opcode op, unsigned count)
{
	uint32_t size = c->opt->size;
	for (unsigned i = 0; i < count; i++) {
		wait_send_slot(c);
		struct send_args a = {
			.opcode = op,
			.local_offset = (size_t)i * size,
			.length = size,
			.imm = IMM_BASE + i,
		};
		fill_pattern(c->buf + a.local_offset, size, i);
		if (op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM ||
		    op == IBV_WR_RDMA_READ) {
			a.remote_addr = c->peer.addr + (uint64_t)i * size;
			a.rkey = c->peer.rkey;
		}
		if (op == IBV_WR_RDMA_READ)
			a.local_offset = (size_t)(count + i) * size;	/* fresh bytes */
		post_send(c, &a);
	}
	wait_sends(c, c->send_done + c->send_err + c->send_outstanding);
}

/* send_until_error's waits, cut short at the give-up time (0: never). */
static bool slot_or_given_up(const struct conn *c, const void *arg)
{
	double t = *(const double *)arg;
	return c->send_outstanding < c->opt->depth || (t > 0 && now_s() >= t);
}

static bool idle_or_given_up(const struct conn *c, const void *arg)
{
	double t = *(const double *)arg;
	return c->send_outstanding == 0 || (t > 0 && now_s() >= t);
}

/* Post like send_messages, but stop posting at the first failed
 * completion (the QP is in error from then on: later WRs would only be
 * flushed without reaching the wire) and wait for what is outstanding.
 * With --give-up the waiting ends after that long even if nothing failed
 * (a requester with retry_cnt 7, which RXE retries for ever); returns
 * whether it gave up. */
static bool send_until_error(struct conn *c, enum ibv_wr_opcode op, unsigned count)
{
	uint32_t size = c->opt->size;
	unsigned posted = 0;
	double give_up = c->opt->give_up_ms ? now_s() + c->opt->give_up_ms / 1000.0 : 0;
	for (unsigned i = 0; i < count; i++) {
		pump_until(c, slot_or_given_up, &give_up, "a free send queue slot");
		if (c->send_err || c->send_outstanding >= c->opt->depth)
			break;
		struct send_args a = {
			.opcode = op,
			.local_offset = (size_t)i * size,
			.length = size,
		};
		fill_pattern(c->buf + a.local_offset, size, i);
		if (op == IBV_WR_RDMA_WRITE) {
			a.remote_addr = c->peer.addr + (uint64_t)i * size;
			a.rkey = c->peer.rkey;
		}
		post_send(c, &a);
		posted++;
	}
	pump_until(c, idle_or_given_up, &give_up, "send completions");
	bool gave_up = c->send_outstanding > 0;
	note(c, "posted %u of %u, %u completed, %u failed (first failure: status %d)",
	     posted, count, c->send_done, c->send_err, c->first_send_err);
	if (gave_up)
		note(c, "gave up after %u ms with %u WRs outstanding and no failed completion "
		     "(retry_cnt %u): disconnecting, so they complete as flushed",
		     c->opt->give_up_ms, c->send_outstanding, c->opt->retry_cnt);
	return gave_up;
}

/* How many WRITE slots, from the first, hold their whole message. */
static unsigned slots_landed(const struct conn *c)
{
	unsigned n = 0;
	while (n < c->opt->count &&
	       check_pattern(c->buf + (size_t)n * c->opt->size, c->opt->size, n))
		n++;
	return n;
}

/* dead-peer, server: once STOP_AFTER WRITEs have landed, the QP goes
 * (rdma_destroy_qp: rxe drops whatever arrives for a QPN it no longer
 * has, so nothing answers) while the CM id stays, so no DREQ is sent
 * until the client gives up and disconnects. */
static void dead_peer_server(struct conn *c)
{
	double deadline = c->t0 + c->opt->timeout_s;
	while (slots_landed(c) < c->opt->stop_after) {
		if (now_s() > deadline)
			die("timed out waiting for %u WRITEs to land", c->opt->stop_after);
		sleep_ms(1);
	}
	unsigned before = slots_landed(c);
	rdma_destroy_qp(c->id);
	c->qp = NULL;
	note(c, "QP destroyed (no DREQ) after %u WRITEs had landed", before);
	cm_wait_disconnected(c);
	note(c, "%u WRITEs had landed in all when the client disconnected", slots_landed(c));
}

static void atomics(struct conn *c, bool cas)
{
	unsigned n = c->opt->count;
	for (unsigned i = 0; i < n; i++) {
		wait_send_slot(c);
		struct send_args a = {
			.opcode = cas ? IBV_WR_ATOMIC_CMP_AND_SWP : IBV_WR_ATOMIC_FETCH_AND_ADD,
			.local_offset = (size_t)i * 8,
			.length = 8,
			.remote_addr = c->peer.addr,
			.rkey = c->peer.rkey,
		};
		if (cas) {
			/* Each CAS expects what the previous one stored; the last
			 * one expects a wrong value, to show a failed compare. */
			a.compare_add = ATOMIC_BASE + i;
			a.swap = ATOMIC_BASE + i + 1;
			if (n > 1 && i == n - 1)
				a.compare_add = ATOMIC_BASE + 0xdead;
		} else {
			a.compare_add = i + 1;
		}
		post_send(c, &a);
	}
	wait_sends(c, n);
	/* The original values come back in order; check them all. */
	uint64_t expect = ATOMIC_BASE;
	for (unsigned i = 0; i < n; i++) {
		uint64_t orig;
		memcpy(&orig, c->buf + (size_t)i * 8, 8);
		verify(c, orig == expect, "atomic original value", i);
		if (cas)
			expect = (n > 1 && i == n - 1) ? expect : ATOMIC_BASE + i + 1;
		else
			expect += i + 1;
	}
}

/* Training-style step: push a payload, ring the doorbell with an
 * immediate, read the region back, one step at a time. */
static void mixed_steps(struct conn *c)
{
	uint32_t size = c->opt->size;
	unsigned n = c->opt->count;
	for (unsigned i = 0; i < n; i++) {
		size_t off = (size_t)i * size;
		uint64_t raddr = c->peer.addr + off;
		fill_pattern(c->buf + off, size, i);
		struct send_args w = { .opcode = IBV_WR_RDMA_WRITE, .local_offset = off,
				       .length = size, .remote_addr = raddr, .rkey = c->peer.rkey };
		struct send_args s = { .opcode = IBV_WR_RDMA_WRITE_WITH_IMM, .local_offset = off,
				       .length = 0, .remote_addr = raddr, .rkey = c->peer.rkey,
				       .imm = IMM_BASE + i };
		struct send_args r = { .opcode = IBV_WR_RDMA_READ,
				       .local_offset = (size_t)(n + i) * size, .length = size,
				       .remote_addr = raddr, .rkey = c->peer.rkey };
		post_send(c, &w);
		post_send(c, &s);
		post_send(c, &r);
		wait_sends(c, 3 * (i + 1));
		verify(c, check_pattern(c->buf + r.local_offset, size, i), "read-back data", i);
	}
}

static void check_reads(struct conn *c)
{
	for (unsigned i = 0; i < c->opt->count; i++)
		verify(c, check_pattern(c->buf + (size_t)(c->opt->count + i) * c->opt->size,
					c->opt->size, i), "RDMA READ data", i);
}

/* A WRITE to an rkey the server never handed out, then valid ones that
 * will be flushed once the QP has gone to the error state. */
static void bad_rkey_writes(struct conn *c)
{
	uint32_t size = c->opt->size;
	for (unsigned i = 0; i < c->opt->count; i++) {
		struct send_args a = {
			.opcode = IBV_WR_RDMA_WRITE,
			.local_offset = (size_t)i * size,
			.length = size,
			.remote_addr = c->peer.addr + (uint64_t)i * size,
			.rkey = i == 0 ? c->peer.rkey ^ 0x80 : c->peer.rkey,
		};
		fill_pattern(c->buf + a.local_offset, size, i);
		post_send(c, &a);
	}
	wait_sends(c, c->opt->count);
	verify(c, c->send_err == c->opt->count, "every WR failed (NAK, then flushes)", 0);
}

/* ---- UD ---------------------------------------------------------------- */

static void ud_server(struct conn *c)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	if (ibv_query_qp(c->qp, &a, IBV_QP_QKEY, &ia))
		die("ibv_query_qp: %m");
	for (unsigned i = 0; i < c->opt->count; i++) {
		wait_recvs(c, i + 1);
		const struct ibv_wc *wc = &c->recv_wcs[i];
		if (!c->ah) {
			/* Reply to whoever sent it, addressed from the GRH. */
			void *grh = (void *)(uintptr_t)posted_local_addr(c, wc->wr_id);
			c->ah = ibv_create_ah_from_wc(c->pd, (struct ibv_wc *)wc, grh,
						      c->id->port_num);
			if (!c->ah)
				die("ibv_create_ah_from_wc: %m");
			c->remote_qpn = wc->src_qp;
			c->remote_qkey = a.qkey;	/* rdma_cm gives both UD QPs the same Q_Key */
		}
		if (c->recv_posted_total < c->opt->count)
			post_recv_slot(c, c->recv_posted_total, recv_len(c));
		wait_send_slot(c);
		struct send_args s = { .opcode = IBV_WR_SEND,
				       .local_offset = (size_t)(c->opt->count + i) * slot_size(c),
				       .length = c->opt->size };
		fill_pattern(c->buf + s.local_offset, c->opt->size, i);
		post_send(c, &s);
	}
	wait_sends(c, c->opt->count);
	check_receives(c, false, true);
}

static void ud_client(struct conn *c)
{
	unsigned n = c->opt->count;
	for (unsigned i = 0; i < n; i++) {
		wait_send_slot(c);
		struct send_args s = { .opcode = IBV_WR_SEND,
				       .local_offset = (size_t)(n + i) * slot_size(c),
				       .length = c->opt->size };
		fill_pattern(c->buf + s.local_offset, c->opt->size, i);
		post_send(c, &s);
	}
	wait_sends(c, n);
	receive_all(c, n);
	check_receives(c, false, true);
}

/* ---- the two sides ---------------------------------------------------- */

void run_server(struct conn *c)
{
	const struct options *o = c->opt;
	cm_server_listen(c);
	cm_server_wait_request(c);
	if (o->scenario == SC_REJECT) {
		cm_server_reject(c, reject_text, (uint8_t)sizeof(reject_text));
		/* The REJ is on its way once rdma_reject returns; wait a moment
		 * so the client hears it before our id goes away. */
		sleep_ms(200);
		cm_teardown(c);
		return;
	}
	res_create(c, c->request_id, o->scenario == SC_UD ? IBV_QPT_UD : IBV_QPT_RC);

	switch (o->scenario) {
	case SC_SEND:
	case SC_SEND_IMM:
	case SC_WRITE_IMM:
	case SC_MIXED:
	case SC_UD:
		prepost_receives(c, o->count);
		break;
	case SC_READ:
		for (unsigned i = 0; i < o->count; i++)
			fill_pattern(c->buf + (size_t)i * o->size, o->size, i);
		break;
	case SC_RNR:
	case SC_RNR_EXHAUST:
		top_up_receives(c, min_u(o->prepost, o->count));
		break;
	case SC_ATOMIC_CAS:
	case SC_ATOMIC_FAA: {
		uint64_t v = ATOMIC_BASE;
		memcpy(c->buf, &v, sizeof(v));
		break;
	}
	default:
		break;
	}
	cm_server_accept(c);

	switch (o->scenario) {
	case SC_SEND:
	case SC_SEND_IMM:
	case SC_WRITE_IMM:
	case SC_MIXED:
		receive_all(c, o->count);
		check_receives(c, o->scenario != SC_SEND,
			       o->scenario == SC_SEND || o->scenario == SC_SEND_IMM);
		break;
	case SC_RNR:
		/* Only PREPOST receives are there (none by default): the
		 * client's SENDs draw RNR NAKs until the rest appear. */
		note(c, "%u receives posted; holding the rest back for %u ms",
		     c->recv_posted_total, o->rnr_delay_ms);
		sleep_ms(o->rnr_delay_ms);
		top_up_receives(c, o->count);
		receive_all(c, o->count);
		check_receives(c, false, true);
		break;
	case SC_RNR_EXHAUST:
		/* No more receives: the client gives up and disconnects. */
		note(c, "%u receives posted, no more will be", c->recv_posted_total);
		cm_wait_disconnected(c);
		verify(c, c->recv_done == c->recv_posted_total, "every posted receive used",
		       c->recv_done);
		check_receives(c, false, true);
		break;
	case SC_DEAD_PEER:
		dead_peer_server(c);
		break;
	case SC_UD:
		ud_server(c);
		cm_teardown(c);
		return;
	case SC_DISCONNECT:
		send_messages(c, IBV_WR_SEND, o->count);
		note(c, "disconnecting while the client still has receives posted");
		cm_disconnect(c);
		cm_teardown(c);
		return;
	case SC_DISCONNECT_BOTH:
		/* Its completion means the client has the SEND: disconnect at
		 * once; the client does too, so the two DREQs cross. */
		send_messages(c, IBV_WR_SEND, 1);
		note(c, "disconnecting as soon as the SEND completed");
		cm_disconnect(c);
		cm_teardown(c);
		return;
	default:
		break;
	}
	if (!c->disconnected)
		cm_wait_disconnected(c);
	cm_disconnect(c);
	if (o->scenario == SC_WRITE || o->scenario == SC_MIXED)
		for (unsigned i = 0; i < o->count; i++)
			verify(c, check_pattern(c->buf + (size_t)i * o->size, o->size, i),
			       "written data", i);
	if (o->scenario == SC_ATOMIC_CAS || o->scenario == SC_ATOMIC_FAA) {
		uint64_t v;
		memcpy(&v, c->buf, sizeof(v));
		note(c, "target word after the atomics: 0x%016" PRIx64, v);
	}
	cm_teardown(c);
}

void run_client(struct conn *c)
{
	const struct options *o = c->opt;
	cm_client_resolve(c, o->scenario == SC_UD ? IBV_QPT_UD : IBV_QPT_RC);
	if (o->scenario == SC_UD)
		prepost_receives(c, o->count);
	if (o->scenario == SC_DISCONNECT_BOTH)
		post_recv_slot(c, 0, o->size);
	if (o->scenario == SC_DISCONNECT) {
		/* More receives than the server will use: the rest are flushed. */
		for (unsigned k = 0; k < o->depth; k++)
			post_recv_slot(c, k, o->size);
	}
	if (!cm_client_connect(c)) {
		note(c, "connection rejected, reason %d", c->reject_reason);
		if (o->scenario != SC_REJECT)
			die("rejected, but scenario %s expects a connection", scenario_name(o->scenario));
		verify(c, c->reject_pdata_len >= sizeof(reject_text) &&
		       memcmp(c->reject_pdata, reject_text, sizeof(reject_text)) == 0,
		       "REJ private data", 0);
		cm_teardown(c);
		return;
	}
	if (o->scenario == SC_REJECT)
		die("scenario reject, but the server accepted");
	if (o->scenario != SC_UD && !c->have_peer)
		die("no MR advertisement in the REP private data");

	switch (o->scenario) {
	case SC_SEND:
	case SC_RNR:
		send_messages(c, IBV_WR_SEND, o->count);
		break;
	case SC_SEND_IMM:
		send_messages(c, IBV_WR_SEND_WITH_IMM, o->count);
		break;
	case SC_WRITE:
		send_messages(c, IBV_WR_RDMA_WRITE, o->count);
		break;
	case SC_WRITE_IMM:
		send_messages(c, IBV_WR_RDMA_WRITE_WITH_IMM, o->count);
		break;
	case SC_READ:
		send_messages(c, IBV_WR_RDMA_READ, o->count);
		check_reads(c);
		break;
	case SC_ATOMIC_CAS:
	case SC_ATOMIC_FAA:
		atomics(c, o->scenario == SC_ATOMIC_CAS);
		break;
	case SC_MIXED:
		mixed_steps(c);
		break;
	case SC_BAD_RKEY:
		bad_rkey_writes(c);
		break;
	case SC_RNR_EXHAUST:
		send_until_error(c, IBV_WR_SEND, o->count);
		verify(c, c->first_send_err == IBV_WC_RNR_RETRY_EXC_ERR,
		       "a SEND failed with RNR retry exceeded", (unsigned)c->first_send_err);
		break;
	case SC_DEAD_PEER:
		if (send_until_error(c, IBV_WR_RDMA_WRITE, o->count))
			verify(c, c->send_err == 0, "no failed WRITE before giving up", c->send_err);
		else
			verify(c, c->first_send_err == IBV_WC_RETRY_EXC_ERR,
			       "a WRITE failed with transport retry exceeded",
			       (unsigned)c->first_send_err);
		break;
	case SC_DISCONNECT_BOTH:
		/* The server's SEND arrived; its ACK reaches the server one
		 * one-way delay later, and the server disconnects then. Waiting
		 * about that delay here sends both DREQs at once. */
		wait_recvs(c, 1);
		check_receives(c, false, true);
		sleep_ms(o->cross_delay_ms);
		note(c, "disconnecting %u ms after the server's SEND arrived", o->cross_delay_ms);
		break;
	case SC_UD:
		ud_client(c);
		cm_teardown(c);
		return;
	case SC_DISCONNECT:
		wait_recvs(c, o->count);
		check_receives(c, false, true);
		cm_wait_disconnected(c);
		break;
	default:
		break;
	}
	if (o->scenario != SC_DISCONNECT && o->scenario != SC_BAD_RKEY &&
	    o->scenario != SC_RNR_EXHAUST && o->scenario != SC_DEAD_PEER && c->send_err)
		verify(c, false, "send completions without error", c->send_err);
	cm_disconnect(c);
	cm_teardown(c);
}
