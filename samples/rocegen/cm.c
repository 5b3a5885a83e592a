/* Connection management through librdmacm: RC over the TCP port space
 * (REQ/REP/RTU, REJ, DREQ/DREP) and UD over the UDP port space (SIDR). */
#include "rocegen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *addr_text(const struct sockaddr *sa, char *out, size_t len)
{
	const void *a = NULL;
	if (sa && sa->sa_family == AF_INET)
		a = &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
	else if (sa && sa->sa_family == AF_INET6)
		a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
	if (!a || !inet_ntop(sa->sa_family, a, out, (socklen_t)len))
		snprintf(out, len, "?");
	return out;
}

static void open_channel(struct conn *c)
{
	c->ech = rdma_create_event_channel();
	if (!c->ech)
		die("rdma_create_event_channel: %m (is rdma_ucm loaded?)");
	int fl = fcntl(c->ech->fd, F_GETFL);
	if (fl < 0 || fcntl(c->ech->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		die("fcntl: %m");
}

static struct addrinfo *lookup_addr(const struct conn *c, bool passive)
{
	struct addrinfo hints, *res;
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
	hints.ai_family = c->opt->ipv6 ? AF_INET6 : AF_INET;
	int err = getaddrinfo(c->opt->addr, c->opt->port, &hints, &res);
	if (err)
		die("address %s port %s (IPv%d): %s", c->opt->addr, c->opt->port,
		    c->opt->ipv6 ? 6 : 4, gai_strerror(err));
	return res;
}

static enum rdma_port_space port_space(const struct conn *c)
{
	return c->opt->scenario == SC_UD ? RDMA_PS_UDP : RDMA_PS_TCP;
}

static bool seen_event(const struct conn *c, const void *arg)
{
	return c->seen & (1u << *(const int *)arg);
}

static void wait_event(struct conn *c, enum rdma_cm_event_type ev)
{
	int e = (int)ev;
	pump_until(c, seen_event, &e, rdma_event_str(ev));
}

static void copy_pdata(uint8_t *dst, uint8_t *dst_len, size_t cap,
		       const void *src, uint8_t len)
{
	size_t n = src ? (len < cap ? len : cap) : 0;
	if (n)
		memcpy(dst, src, n);
	*dst_len = (uint8_t)n;
}

/* The MR advertisement both sides put in front of their private data. */
static void ad_encode(const struct conn *c, uint8_t out[16])
{
	uint64_t addr = (uint64_t)(uintptr_t)c->buf;
	uint32_t hi = htonl((uint32_t)(addr >> 32)), lo = htonl((uint32_t)addr);
	uint32_t rkey = htonl(c->mr->rkey), len = htonl((uint32_t)c->buf_len);
	memcpy(out, &hi, 4);
	memcpy(out + 4, &lo, 4);
	memcpy(out + 8, &rkey, 4);
	memcpy(out + 12, &len, 4);
}

static bool ad_decode(struct mr_ad *ad, const void *pdata, size_t len)
{
	uint32_t v[4];
	if (!pdata || len < sizeof(v))
		return false;
	memcpy(v, pdata, sizeof(v));
	ad->addr = ((uint64_t)ntohl(v[0]) << 32) | ntohl(v[1]);
	ad->rkey = ntohl(v[2]);
	ad->length = ntohl(v[3]);
	return true;
}

void cm_handle_event(struct conn *c, struct rdma_cm_event *ev)
{
	truth_cm_event(c, ev);
	if (ev->event < 32)
		c->seen |= 1u << ev->event;
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		break;
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (c->request_id)
			die("a second CONNECT_REQUEST: only one client expected");
		c->connect_request = true;
		c->request_id = ev->id;
		if (ev->id->ps == RDMA_PS_UDP)
			copy_pdata(c->req_pdata, &c->req_pdata_len, sizeof(c->req_pdata),
				   ev->param.ud.private_data, ev->param.ud.private_data_len);
		else
			copy_pdata(c->req_pdata, &c->req_pdata_len, sizeof(c->req_pdata),
				   ev->param.conn.private_data, ev->param.conn.private_data_len);
		c->have_peer = ad_decode(&c->peer, c->req_pdata, c->req_pdata_len);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		c->established = true;
		if (ev->id->ps == RDMA_PS_UDP) {
			c->ud = ev->param.ud;
			c->have_peer = ad_decode(&c->peer, ev->param.ud.private_data,
						 ev->param.ud.private_data_len);
			c->ah = ibv_create_ah(c->pd, &c->ud.ah_attr);
			if (!c->ah)
				die("ibv_create_ah from the SIDR REP: %m");
			c->remote_qpn = c->ud.qp_num;
			c->remote_qkey = c->ud.qkey;
		} else if (!c->opt->server) {
			c->have_peer = ad_decode(&c->peer, ev->param.conn.private_data,
						 ev->param.conn.private_data_len);
		}
		break;
	case RDMA_CM_EVENT_REJECTED:
		c->rejected = true;
		c->reject_reason = ev->status;
		copy_pdata(c->reject_pdata, &c->reject_pdata_len, sizeof(c->reject_pdata),
			   ev->param.conn.private_data, ev->param.conn.private_data_len);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		c->disconnected = true;
		break;
	default:
		die("unexpected CM event %s (status %d)", rdma_event_str(ev->event), ev->status);
	}
}

/* Enough read/atomic credit for --depth outstanding READs or atomics. */
static void fill_conn_param(struct conn *c, struct rdma_conn_param *p,
			    const void *pdata, uint8_t len)
{
	struct ibv_device_attr da;
	if (ibv_query_device(c->id->verbs, &da))
		die("ibv_query_device: %m");
	unsigned rd = c->opt->depth;
	if (rd > (unsigned)da.max_qp_rd_atom)
		rd = (unsigned)da.max_qp_rd_atom;
	if (rd > (unsigned)da.max_qp_init_rd_atom)
		rd = (unsigned)da.max_qp_init_rd_atom;
	memset(p, 0, sizeof(*p));
	p->private_data = pdata;
	p->private_data_len = len;
	p->responder_resources = (uint8_t)rd;
	p->initiator_depth = (uint8_t)rd;
	/* The active side's QP takes retry_count from its own REQ and
	 * rnr_retry_count from the REP; the passive side's both from the REQ.
	 * Both sides pass the same options, so each QP gets what was asked. */
	p->retry_count = (uint8_t)c->opt->retry_cnt;
	p->rnr_retry_count = (uint8_t)c->opt->rnr_retry;	/* 7 = for ever */
	if (c->opt->ack_timeout >= 0) {
		/* rdma_cm applies it when it moves the QP to RTS */
		uint8_t t = (uint8_t)c->opt->ack_timeout;
		if (rdma_set_option(c->id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t, sizeof(t)))
			die("rdma_set_option ACK_TIMEOUT %u: %m", t);
	}
}

void cm_server_listen(struct conn *c)
{
	open_channel(c);
	if (rdma_create_id(c->ech, &c->listen_id, c, port_space(c)))
		die("rdma_create_id: %m");
	struct addrinfo *ai = lookup_addr(c, true);
	if (rdma_bind_addr(c->listen_id, ai->ai_addr))
		die("rdma_bind_addr %s: %m", c->opt->addr);
	freeaddrinfo(ai);
	if (rdma_listen(c->listen_id, 4))
		die("rdma_listen: %m");
	if (c->opt->ready_path) {
		FILE *f = fopen(c->opt->ready_path, "w");
		if (!f || fclose(f))
			die("cannot create %s: %m", c->opt->ready_path);
	}
	fprintf(stderr, "rocegen server: listening on %s port %s\n", c->opt->addr, c->opt->port);
}

void cm_server_wait_request(struct conn *c)
{
	wait_event(c, RDMA_CM_EVENT_CONNECT_REQUEST);
}

void cm_server_accept(struct conn *c)
{
	uint8_t ad[16];
	struct rdma_conn_param p;
	ad_encode(c, ad);
	fill_conn_param(c, &p, ad, sizeof(ad));
	if (rdma_accept(c->id, &p))
		die("rdma_accept: %m");
	/* SIDR has no third message: the passive side is done once REP is out. */
	if (c->id->ps != RDMA_PS_UDP)
		wait_event(c, RDMA_CM_EVENT_ESTABLISHED);
	truth_side(c);
}

void cm_server_reject(struct conn *c, const void *pdata, uint8_t len)
{
	c->id = c->request_id;
	if (rdma_reject(c->request_id, pdata, len))
		die("rdma_reject: %m");
	truth_side(c);
}

void cm_client_resolve(struct conn *c, enum ibv_qp_type type)
{
	struct rdma_cm_id *id;
	open_channel(c);
	if (rdma_create_id(c->ech, &id, c, port_space(c)))
		die("rdma_create_id: %m");
	c->id = id;
	struct addrinfo *ai = lookup_addr(c, false);
	if (rdma_resolve_addr(id, NULL, ai->ai_addr, 5000))
		die("rdma_resolve_addr %s: %m", c->opt->addr);
	freeaddrinfo(ai);
	wait_event(c, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (rdma_resolve_route(id, 5000))
		die("rdma_resolve_route: %m");
	wait_event(c, RDMA_CM_EVENT_ROUTE_RESOLVED);
	res_create(c, id, type);
}

static bool connect_settled(const struct conn *c, const void *arg)
{
	(void)arg;
	return c->established || c->rejected;
}

bool cm_client_connect(struct conn *c)
{
	uint8_t ad[16];
	struct rdma_conn_param p;
	ad_encode(c, ad);
	fill_conn_param(c, &p, ad, sizeof(ad));
	if (rdma_connect(c->id, &p))
		die("rdma_connect: %m");
	pump_until(c, connect_settled, NULL, "ESTABLISHED or REJECTED");
	truth_side(c);
	return c->established;
}

static bool queues_empty(const struct conn *c, const void *arg)
{
	(void)arg;
	return c->send_outstanding == 0 && c->recv_outstanding == 0;
}

/* DREQ if the peer has not sent one yet, DREP if it has. librdmacm moves
 * the QP to the error state first, so WRs still queued complete as flushed;
 * those completions are part of the truth and are collected here. */
void cm_disconnect(struct conn *c)
{
	if (!c->disconnected)
		c->local_disconnect_first = true;
	if (rdma_disconnect(c->id))
		die("rdma_disconnect: %m");
	wait_event(c, RDMA_CM_EVENT_DISCONNECTED);
	pump_until(c, queues_empty, NULL, "flushed work requests");
}

void cm_wait_disconnected(struct conn *c)
{
	wait_event(c, RDMA_CM_EVENT_DISCONNECTED);
}

void cm_teardown(struct conn *c)
{
	res_destroy(c);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->request_id && c->request_id != c->id)
		rdma_destroy_id(c->request_id);
	if (c->listen_id)
		rdma_destroy_id(c->listen_id);
	if (c->ech)
		rdma_destroy_event_channel(c->ech);
	c->id = c->request_id = c->listen_id = NULL;
	c->ech = NULL;
}
