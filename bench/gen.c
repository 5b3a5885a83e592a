/*
 * gen.c — the benchmark's capture generator (a bench tool, not part of
 * rocestat): writes a large, synthetic but valid RoCE v2 capture.
 *
 *   rocestat-gen [-n FRAMES] [--conns N] [--hosts N] [--ud-qps N]
 *                [--max-msg BYTES] [--no-cm] [--rr] [--seed S] [--qpn-base N]
 *                [--slice BYTES] -o FILE
 *
 * Traffic: `--conns` RC connections between `--hosts` hosts (a tenth of
 * them over IPv6), used in both directions. Each connection opens with a
 * CM handshake on QP1 (REQ, REP, RTU with RDMA CM private data) unless
 * --no-cm. Messages, picked at random: SEND and RDMA WRITE (First/Middle/
 * Last/Only, some with Immediate, AckReq on the last packet, each answered
 * by an ACK), RDMA READ (request, then response First/Middle/Last or Only),
 * atomics (Compare&Swap, Fetch&Add, answered by an Atomic ACK) and UD SENDs
 * with a DETH to `--ud-qps` UD QPs. Sizes are log-uniform from 8 bytes to
 * --max-msg (default 16 KiB) in packets of a 1024-byte path MTU. Some data
 * packets are marked ECN-CE and answered by a CNP; some messages lose a
 * packet before the capture point: the responder NAKs (PSN sequence error)
 * and the requester goes back N. 32 messages are in flight at once and
 * their packets interleave, the way a busy link mixes its QPs.
 *
 * Every frame is Ethernet + IPv4/IPv6 + UDP 4791 + BTH ... with a correct
 * ICRC (IBA Annex A17.4.5.2) computed by this file's own table CRC-32, so
 * the capture also cross-checks rocestat's ICRC. Timestamps advance at the
 * wire time of a 100 Gb/s link; the file is pcap with nanosecond stamps.
 *
 * --rr takes connections round-robin instead of at random (with many
 * connections: every one of them is used); --conns 500000 --no-cm --rr
 * makes the "one million distinct QPs" capture. --qpn-base moves the QP
 * numbers (two captures with different bases share no half-flow).
 * --slice keeps the first BYTES of each frame, as a capture with that
 * snapshot length does (the record's original length stays the frame's):
 * --slice 128 is the header-only capture hardware sniffers usually make.
 *
 * --congestion adds what RXE never sends, for rocestat's congestion tests:
 * CNPs in the ConnectX style (UDP source port 0, DSCP 48, BECN, 16 zero
 * bytes); connection 0's side 0 sends its data Not-ECT (and still gets CE
 * marks answered by CNPs), connection 1's side 1 sends DSCP 10, CNPs to
 * connection 2's side 0 carry DSCP 46; 802.1Qbb PFC frames from three
 * switch ports (MAC 02:00:5e:ff:ff:0N) and 802.3x PAUSE frames from the
 * hosts, each pause over before the next one of its sender and priority,
 * and halfway one pause storm: switch port 0 holds priority 3 with 400
 * PFC frames of 65535 quanta, one every 300 us (the link stalls meanwhile),
 * then releases it (quanta 0). --truth FILE writes what was generated as
 * JSON (totals, per half-flow, per PFC sender and priority; pause times at
 * the 100 Gb/s the timestamps assume).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MTU 1024
#define STREAMS 32
#define PLAN_MAX 80
#define SNAP 65535

/* ---- CRC-32 (reflected 0xEDB88320), slicing-by-8, tables built at start ---- */

static uint32_t crc_tab[8][256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
		crc_tab[0][i] = c;
	}
	for (int t = 1; t < 8; t++)
		for (int i = 0; i < 256; i++)
			crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 0xFF];
}

static uint32_t crc_update(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n >= 8) {
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
		crc = crc_tab[7][lo & 0xFF] ^ crc_tab[6][(lo >> 8) & 0xFF] ^ crc_tab[5][(lo >> 16) & 0xFF] ^
		      crc_tab[4][lo >> 24] ^ crc_tab[3][hi & 0xFF] ^ crc_tab[2][(hi >> 8) & 0xFF] ^
		      crc_tab[1][(hi >> 16) & 0xFF] ^ crc_tab[0][hi >> 24];
		p += 8;
		n -= 8;
	}
	while (n--)
		crc = crc_tab[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
	return crc;
}

/* ---- random numbers (xorshift64*, seeded: the same file every time) ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static uint32_t rnd_below(uint32_t n)
{
	return (uint32_t)(((rnd() >> 32) * (uint64_t)n) >> 32);
}

/* true with probability per/1e6 */
static bool chance(uint32_t ppm)
{
	return rnd_below(1000000) < ppm;
}

/* ---- the model ------------------------------------------------------------ */

struct host {
	uint8_t mac[6];
	uint8_t ip[4];   /* 10.x.y.z */
	uint8_t ip6[16]; /* 2001:db8::x:y:z */
};

struct side {
	uint32_t qpn;
	uint32_t psn;     /* next request PSN this side sends */
	uint32_t msn;     /* messages this side completed as a responder */
	uint32_t rkey;
	uint64_t va;
	uint16_t sport;
	uint32_t comm_id;
};

struct conn {
	uint32_t h[2];
	bool v6;
	bool open;
	bool busy;          /* a stream is sending a message on it */
	struct side s[2];
};

/* One packet to write. */
struct pkt {
	uint32_t conn;      /* UINT32_MAX: UD or CM, addresses below */
	uint8_t from;       /* side that sends it */
	uint8_t opcode;
	uint8_t ackreq, ecn_ce, becn;
	uint32_t destqp, psn;
	uint32_t len;       /* payload bytes */
	/* extension headers */
	uint64_t va;
	uint32_t rkey, dmalen;
	uint8_t syndrome;
	uint32_t msn;
	uint32_t imm;
	uint64_t swap, cmp, orig;
	uint32_t qkey, srcqp;
	uint16_t cm_attr;   /* CM MAD on QP1 */
};

struct stream {
	struct pkt plan[PLAN_MAX];
	unsigned n, next;
	uint32_t conn;      /* the connection it holds, or UINT32_MAX */
};

static struct host *hosts;
static struct conn *conns;
static uint32_t nhosts = 32, nconns = 4000, nud = 64;
static uint32_t max_msg = 16384;
static uint32_t qpn_base = 0x100;
static bool no_cm, round_robin, congestion;
static uint32_t rr_next;

/* UD QPs: a destination host and QPN each; senders are any other host. */
struct udqp {
	uint32_t host;
	uint32_t qpn;
	uint32_t qkey;
	uint32_t psn[4];    /* per sending QP */
};
static struct udqp *udqps;

enum {
	OP_SEND_FIRST = 0x00, OP_SEND_MIDDLE = 0x01, OP_SEND_LAST = 0x02, OP_SEND_LAST_IMM = 0x03,
	OP_SEND_ONLY = 0x04, OP_SEND_ONLY_IMM = 0x05, OP_WRITE_FIRST = 0x06, OP_WRITE_MIDDLE = 0x07,
	OP_WRITE_LAST = 0x08, OP_WRITE_LAST_IMM = 0x09, OP_WRITE_ONLY = 0x0A, OP_WRITE_ONLY_IMM = 0x0B,
	OP_READ_REQ = 0x0C, OP_READ_RESP_FIRST = 0x0D, OP_READ_RESP_MIDDLE = 0x0E, OP_READ_RESP_LAST = 0x0F,
	OP_READ_RESP_ONLY = 0x10, OP_ACK = 0x11, OP_ATOMIC_ACK = 0x12, OP_CMP_SWAP = 0x13, OP_FETCH_ADD = 0x14,
	OP_UD_SEND_ONLY = 0x64, OP_CNP = 0x81,
};

static struct pkt *plan_add(struct stream *st)
{
	if (st->n == PLAN_MAX) {
		fprintf(stderr, "rocestat-gen: plan overflow\n");
		exit(1);
	}
	struct pkt *p = &st->plan[st->n++];
	memset(p, 0, sizeof *p);
	return p;
}

static uint32_t msg_size(void)
{
	/* log-uniform between 8 and max_msg */
	uint32_t bits = 3 + rnd_below(32 - (uint32_t)__builtin_clz(max_msg) - 3 + 1);
	uint32_t lo = 1u << (bits - 1), v = lo + rnd_below(lo);
	if (v < 8)
		v = 8;
	return v > max_msg ? max_msg : v;
}

static void cm_handshake(struct stream *st, uint32_t ci)
{
	static const uint16_t attrs[3] = { 0x0010, 0x0013, 0x0014 }; /* REQ, REP, RTU */
	for (int i = 0; i < 3; i++) {
		struct pkt *p = plan_add(st);
		p->conn = ci;
		p->from = i == 1;          /* client, server, client */
		p->opcode = OP_UD_SEND_ONLY;
		p->destqp = 1;
		p->qkey = 0x80010000u;
		p->srcqp = 1;
		p->len = 256;
		p->cm_attr = attrs[i];
		p->psn = rnd_below(1u << 24);
		/* The Starting PSNs, as they are now: REQ's is the first PSN the
		 * server will send, REP's the client's (see analyzer/cm/cmtrack.c). */
		p->va = conns[ci].s[i == 0 ? 1 : 0].psn;
	}
}

static void ack(struct stream *st, uint32_t ci, int req_side, uint32_t psn)
{
	struct conn *c = &conns[ci];
	struct pkt *p = plan_add(st);
	p->conn = ci;
	p->from = (uint8_t)(1 - req_side);
	p->opcode = OP_ACK;
	p->destqp = c->s[req_side].qpn;
	p->psn = psn;
	p->syndrome = 0x1F; /* ACK, credits not given */
	p->msn = ++c->s[1 - req_side].msn & 0xFFFFFF;
}

/* SEND or WRITE of `size` bytes from side d, maybe losing one packet. */
static void send_or_write(struct stream *st, uint32_t ci, int d, bool write)
{
	struct conn *c = &conns[ci];
	struct side *r = &c->s[d], *q = &c->s[1 - d];
	uint32_t size = msg_size();
	uint32_t n = (size + MTU - 1) / MTU;
	bool imm = chance(100000);
	uint32_t psn0 = r->psn;
	int lost = n > 1 && chance(3000) ? (int)rnd_below(n) : -1;
	uint64_t va = r->va + rnd_below(1u << 20);
	unsigned first_pkt = st->n;

	for (uint32_t i = 0; i < n; i++) {
		struct pkt *p = plan_add(st);
		p->conn = ci;
		p->from = (uint8_t)d;
		p->destqp = q->qpn;
		p->psn = (psn0 + i) & 0xFFFFFF;
		p->len = i + 1 < n ? MTU : size - (n - 1) * MTU;
		bool first = i == 0, last = i + 1 == n;
		if (write) {
			p->opcode = n == 1 ? (imm ? OP_WRITE_ONLY_IMM : OP_WRITE_ONLY)
				  : first ? OP_WRITE_FIRST : last ? (imm ? OP_WRITE_LAST_IMM : OP_WRITE_LAST) : OP_WRITE_MIDDLE;
			if (first) {
				p->va = va;
				p->rkey = q->rkey;
				p->dmalen = size;
			}
		} else {
			p->opcode = n == 1 ? (imm ? OP_SEND_ONLY_IMM : OP_SEND_ONLY)
				  : first ? OP_SEND_FIRST : last ? (imm ? OP_SEND_LAST_IMM : OP_SEND_LAST) : OP_SEND_MIDDLE;
		}
		if (last) {
			p->ackreq = 1;
			p->imm = (uint32_t)rnd();
		}
		if (chance(5000)) {
			p->ecn_ce = 1;
			struct pkt *cnp = plan_add(st);
			cnp->conn = ci;
			cnp->from = (uint8_t)(1 - d);
			cnp->opcode = OP_CNP;
			cnp->destqp = r->qpn;
			cnp->becn = 1;
		}
	}
	r->psn = (psn0 + n) & 0xFFFFFF;
	if (lost >= 0) {
		/* Packet `lost` never reached the capture point: drop it (and a CNP
		 * that followed it), then the responder NAKs the PSN it expected and
		 * the requester resends from there (go-back-N). */
		unsigned k = first_pkt, seen = 0;
		for (; k < st->n; k++)
			if (st->plan[k].opcode != OP_CNP && seen++ == (unsigned)lost)
				break;
		struct pkt resend[PLAN_MAX];
		unsigned nre = 0;
		for (unsigned j = k; j < st->n; j++)
			if (st->plan[j].opcode != OP_CNP)
				resend[nre++] = st->plan[j];
		memmove(&st->plan[k], &st->plan[k + 1], (st->n - k - 1) * sizeof st->plan[0]);
		st->n--;
		struct pkt *nak = plan_add(st);
		nak->conn = ci;
		nak->from = (uint8_t)(1 - d);
		nak->opcode = OP_ACK;
		nak->destqp = r->qpn;
		nak->psn = (psn0 + (uint32_t)lost) & 0xFFFFFF;
		nak->syndrome = 0x60; /* NAK, PSN sequence error */
		nak->msn = q->msn & 0xFFFFFF;
		for (unsigned j = 0; j < nre; j++) {
			resend[j].ecn_ce = 0;
			*plan_add(st) = resend[j];
		}
	}
	ack(st, ci, d, (psn0 + n - 1) & 0xFFFFFF);
}

static void rdma_read(struct stream *st, uint32_t ci, int d)
{
	struct conn *c = &conns[ci];
	struct side *r = &c->s[d], *q = &c->s[1 - d];
	uint32_t size = msg_size();
	uint32_t n = (size + MTU - 1) / MTU;
	struct pkt *p = plan_add(st);
	p->conn = ci;
	p->from = (uint8_t)d;
	p->opcode = OP_READ_REQ;
	p->destqp = q->qpn;
	p->psn = r->psn;
	p->va = q->va + rnd_below(1u << 20);
	p->rkey = q->rkey;
	p->dmalen = size;
	uint32_t psn0 = r->psn;
	r->psn = (r->psn + n) & 0xFFFFFF;
	q->msn = (q->msn + 1) & 0xFFFFFF;
	for (uint32_t i = 0; i < n; i++) {
		struct pkt *x = plan_add(st);
		x->conn = ci;
		x->from = (uint8_t)(1 - d);
		x->destqp = r->qpn;
		x->psn = (psn0 + i) & 0xFFFFFF;
		x->len = i + 1 < n ? MTU : size - (n - 1) * MTU;
		x->opcode = n == 1 ? OP_READ_RESP_ONLY : i == 0 ? OP_READ_RESP_FIRST : i + 1 == n ? OP_READ_RESP_LAST
										: OP_READ_RESP_MIDDLE;
		x->syndrome = 0x1F;
		x->msn = q->msn;
	}
}

static void atomic(struct stream *st, uint32_t ci, int d)
{
	struct conn *c = &conns[ci];
	struct side *r = &c->s[d], *q = &c->s[1 - d];
	struct pkt *p = plan_add(st);
	p->conn = ci;
	p->from = (uint8_t)d;
	p->opcode = chance(500000) ? OP_CMP_SWAP : OP_FETCH_ADD;
	p->destqp = q->qpn;
	p->psn = r->psn;
	p->va = (q->va + rnd_below(1u << 16)) & ~7ull;
	p->rkey = q->rkey;
	p->swap = rnd();
	p->cmp = rnd();
	struct pkt *x = plan_add(st);
	x->conn = ci;
	x->from = (uint8_t)(1 - d);
	x->opcode = OP_ATOMIC_ACK;
	x->destqp = r->qpn;
	x->psn = r->psn;
	x->syndrome = 0x1F;
	q->msn = (q->msn + 1) & 0xFFFFFF;
	x->msn = q->msn;
	x->orig = rnd();
	r->psn = (r->psn + 1) & 0xFFFFFF;
}

static void ud_send(struct stream *st)
{
	struct udqp *u = &udqps[rnd_below(nud)];
	uint32_t k = rnd_below(4);
	struct pkt *p = plan_add(st);
	p->conn = UINT32_MAX;
	p->opcode = OP_UD_SEND_ONLY;
	p->destqp = u->qpn;
	p->psn = u->psn[k];
	u->psn[k] = (u->psn[k] + 1) & 0xFFFFFF;
	p->len = 64 + rnd_below(MTU - 64 + 1);
	p->qkey = u->qkey;
	p->srcqp = 0x800000 + (u->qpn & 0xFFFF) * 4 + k; /* four senders per UD QP */
	p->from = (uint8_t)k;
	p->rkey = (u->host + 1 + k) % nhosts;  /* the sending host */
	p->dmalen = u->host;                   /* the receiving host */
}

/* Fill a stream's plan with its next message (and what answers it). */
static void next_message(struct stream *st)
{
	st->n = st->next = 0;
	if (st->conn != UINT32_MAX)
		conns[st->conn].busy = false;
	st->conn = UINT32_MAX;
	if (nud && chance(80000)) {
		ud_send(st);
		return;
	}
	/* One message at a time per connection, so that its PSNs, ACKs and
	 * responses stay in order; messages of different connections mix. */
	uint32_t ci;
	for (int tries = 0;; tries++) {
		ci = round_robin ? rr_next++ % nconns : rnd_below(nconns);
		if (!conns[ci].busy || tries > 1000)
			break;
	}
	struct conn *c = &conns[ci];
	c->busy = true;
	st->conn = ci;
	if (!c->open) {
		c->open = true;
		if (!no_cm)
			cm_handshake(st, ci);
	}
	int d = (int)rnd_below(2);
	uint32_t k = rnd_below(1000);
	if (k < 330)
		send_or_write(st, ci, d, false);
	else if (k < 720)
		send_or_write(st, ci, d, true);
	else if (k < 960)
		rdma_read(st, ci, d);
	else
		atomic(st, ci, d);
}

/* ---- writing frames ---------------------------------------------------------- */

static FILE *out;
static uint8_t *obuf;
static size_t olen;
#define OBUF (8u << 20)

static void put(const void *p, size_t n)
{
	if (olen + n > OBUF) {
		if (fwrite(obuf, 1, olen, out) != olen) {
			perror("rocestat-gen: write");
			exit(1);
		}
		olen = 0;
	}
	memcpy(obuf + olen, p, n);
	olen += n;
}

static void le32(uint8_t *b, uint32_t v) { b[0] = (uint8_t)v; b[1] = (uint8_t)(v >> 8); b[2] = (uint8_t)(v >> 16); b[3] = (uint8_t)(v >> 24); }
static void be16(uint8_t *b, uint32_t v) { b[0] = (uint8_t)(v >> 8); b[1] = (uint8_t)v; }
static void be24(uint8_t *b, uint32_t v) { b[0] = (uint8_t)(v >> 16); b[1] = (uint8_t)(v >> 8); b[2] = (uint8_t)v; }
static void be32(uint8_t *b, uint32_t v) { be16(b, v >> 16); be16(b + 2, v); }
static void be64(uint8_t *b, uint64_t v) { be32(b, (uint32_t)(v >> 32)); be32(b + 4, (uint32_t)v); }

static void mad(uint8_t *m, const struct pkt *p)
{
	struct conn *c = &conns[p->conn];
	struct side *cl = &c->s[0], *sv = &c->s[1];
	memset(m, 0, 256);
	m[0] = 1;    /* base version */
	m[1] = 0x07; /* CM */
	m[2] = 2;    /* class version */
	m[3] = 0x03; /* Send */
	be64(m + 8, ((uint64_t)p->conn << 8) | 1);
	be16(m + 16, p->cm_attr);
	uint8_t *b = m + 24;
	switch (p->cm_attr) {
	case 0x0010: /* REQ */
		be32(b, cl->comm_id);
		be64(b + 8, 0x0000000001060000ull | 18515); /* RDMA CM, TCP port space */
		be64(b + 16, 0x0002c90300000000ull | p->conn);
		be32(b + 28, 0); /* local Q_Key */
		be32(b + 32, cl->qpn << 8 | 16);
		be32(b + 36, 16);
		be32(b + 40, 20 << 3);          /* remote CM response timeout, RC */
		be32(b + 44, (uint32_t)p->va << 8 | 20 << 3 | 7);
		be16(b + 48, 0xFFFF);
		b[50] = 3 << 4 | 7;             /* path MTU 1024, RNR retry 7 */
		b[51] = 15 << 4;
		/* RDMA CM private data (Annex A11.6) at 140 */
		b[140] = 0;
		b[141] = c->v6 ? 0x60 : 0x40;
		be16(b + 142, cl->sport);
		if (c->v6) {
			memcpy(b + 144, hosts[c->h[0]].ip6, 16);
			memcpy(b + 160, hosts[c->h[1]].ip6, 16);
		} else {
			b[154] = b[155] = b[170] = b[171] = 0xFF;
			memcpy(b + 156, hosts[c->h[0]].ip, 4);
			memcpy(b + 172, hosts[c->h[1]].ip, 4);
		}
		break;
	case 0x0013: /* REP */
		be32(b, sv->comm_id);
		be32(b + 4, cl->comm_id);
		be32(b + 12, sv->qpn << 8);
		be32(b + 20, (uint32_t)p->va << 8);
		b[24] = 16;
		b[25] = 16;
		b[27] = 7 << 5;
		be64(b + 28, 0x0002c90300100000ull | p->conn);
		break;
	default: /* RTU */
		be32(b, cl->comm_id);
		be32(b + 4, sv->comm_id);
		break;
	}
}

static uint64_t now_ns = 1767225600000000000ull; /* 2026-01-01 */
static uint32_t slice; /* --slice: bytes kept of each frame (0: all) */
static uint64_t bytes_out;
static uint8_t payload_pattern[MTU + 8];

/* The transport part of a frame into t: BTH, extension headers, payload,
 * pad; returns its length. */
static size_t transport(const struct pkt *p, uint8_t *t)
{
	size_t tl = 12;
	uint32_t pad = (4 - p->len % 4) % 4;
	t[0] = p->opcode;
	t[1] = (uint8_t)(pad << 4);
	be16(t + 2, 0xFFFF);
	t[4] = (uint8_t)(p->becn << 6);
	be24(t + 5, p->destqp);
	t[8] = (uint8_t)(p->ackreq << 7);
	be24(t + 9, p->psn);
	switch (p->opcode) {
	case OP_WRITE_FIRST: case OP_WRITE_ONLY: case OP_WRITE_ONLY_IMM: case OP_READ_REQ:
		be64(t + tl, p->va); be32(t + tl + 8, p->rkey); be32(t + tl + 12, p->dmalen); tl += 16;
		break;
	case OP_CMP_SWAP: case OP_FETCH_ADD:
		be64(t + tl, p->va); be32(t + tl + 8, p->rkey); be64(t + tl + 12, p->swap); be64(t + tl + 20, p->cmp); tl += 28;
		break;
	case OP_READ_RESP_FIRST: case OP_READ_RESP_LAST: case OP_READ_RESP_ONLY: case OP_ACK:
		t[tl] = p->syndrome; be24(t + tl + 1, p->msn); tl += 4;
		break;
	case OP_ATOMIC_ACK:
		t[tl] = p->syndrome; be24(t + tl + 1, p->msn); be64(t + tl + 4, p->orig); tl += 12;
		break;
	case OP_UD_SEND_ONLY:
		be32(t + tl, p->qkey); t[tl + 4] = 0; be24(t + tl + 5, p->srcqp); tl += 8;
		break;
	case OP_CNP:
		memset(t + tl, 0, 16); tl += 16;
		break;
	default:
		break;
	}
	if (p->opcode == OP_SEND_LAST_IMM || p->opcode == OP_SEND_ONLY_IMM || p->opcode == OP_WRITE_LAST_IMM ||
	    p->opcode == OP_WRITE_ONLY_IMM) {
		be32(t + tl, p->imm);
		tl += 4;
	}
	if (p->cm_attr)
		mad(t + tl, p);
	else
		memcpy(t + tl, payload_pattern + (p->psn & 7), p->len);
	tl += p->len;
	memset(t + tl, 0, pad);
	tl += pad;
	return tl;
}

/* ---- --congestion and --truth ------------------------------------------------ */

#define PFC_SENDERS 3
#define PAUSE_NS(q) ((uint64_t)(q) * 512 / 100) /* quanta of 512 bit times at 100 Gb/s */

static FILE *truth;
/* Per half-flow (connection, side) of RC data, ACKs and CNPs (not CM). */
struct hf_truth {
	uint64_t packets, dscp[64], ecn[4], cnps, cnp_dscp[64];
	uint64_t ce_pending_ts; /* first CE since the last CNP (+1), on this half-flow */
	uint64_t payload, first_ts, last_ts;
	uint64_t first_cnp_ts, peer_payload_at_cnp; /* at the first CNP this half-flow carried */
};
static uint64_t first_frame_ts, last_frame_ts;
static struct hf_truth *hft;
static uint64_t tot_dscp[64], tot_ecn[4], tot_cnps, tot_frames;
static uint64_t react_n, react_min = UINT64_MAX, react_max;
/* PFC per switch port and priority; PAUSE per host (index 8 of its row). */
struct pause_truth {
	uint64_t frames, xoff, xon, quanta, pause_ns, storms;
	uint64_t until; /* the current pause ends (ns) */
};
static struct pause_truth pfc_t[PFC_SENDERS][9];
static struct pause_truth *pause_t; /* per host */
static uint8_t congestion_tos(const struct pkt *p, uint8_t tos)
{
	if (p->conn == UINT32_MAX || p->cm_attr)
		return tos;
	if (p->opcode == OP_CNP)
		return p->conn == 2 && p->from == 1 ? (uint8_t)(46 << 2 | 2) : tos;
	if (p->conn == 0 && p->from == 0)
		return (uint8_t)(tos & ~3u); /* Not-ECT */
	if (p->conn == 1 && p->from == 1)
		return (uint8_t)(10 << 2 | (tos & 3));
	return tos;
}

static void truth_frame(const struct pkt *p, uint8_t tos)
{
	if (!truth)
		return;
	if (!tot_frames++)
		first_frame_ts = now_ns;
	last_frame_ts = now_ns;
	tot_dscp[tos >> 2]++;
	tot_ecn[tos & 3]++;
	if (p->opcode == OP_CNP)
		tot_cnps++;
	if (p->conn == UINT32_MAX || p->cm_attr)
		return;
	struct hf_truth *h = &hft[2 * p->conn + p->from];
	if (!h->packets)
		h->first_ts = now_ns;
	h->last_ts = now_ns;
	h->payload += p->len;
	h->packets++;
	h->dscp[tos >> 2]++;
	h->ecn[tos & 3]++;
	if ((tos & 3) == 3 && !h->ce_pending_ts)
		h->ce_pending_ts = now_ns + 1;
	if (p->opcode == OP_CNP) {
		h->cnps++;
		h->cnp_dscp[tos >> 2]++;
		/* the CE marks it answers travelled the other way */
		struct hf_truth *o = &hft[2 * p->conn + 1 - p->from];
		if (h->cnps == 1) {
			h->first_cnp_ts = now_ns;
			h->peer_payload_at_cnp = o->payload;
		}
		if (o->ce_pending_ts) {
			uint64_t r = now_ns - (o->ce_pending_ts - 1);
			react_n++;
			react_min = r < react_min ? r : react_min;
			react_max = r > react_max ? r : react_max;
			o->ce_pending_ts = 0;
		}
	}
}

static void write_frame(const struct pkt *p)
{
	uint8_t f[2048];
	const struct host *src, *dst;
	bool v6;
	uint16_t sport;
	if (p->conn != UINT32_MAX) {
		const struct conn *c = &conns[p->conn];
		src = &hosts[c->h[p->from]];
		dst = &hosts[c->h[1 - p->from]];
		v6 = c->v6;
		sport = c->s[p->from].sport;
		if (congestion && p->opcode == OP_CNP)
			sport = 0; /* ConnectX CNPs */
	} else { /* UD: hosts in rkey/dmalen */
		src = &hosts[p->rkey];
		dst = &hosts[p->dmalen];
		v6 = false;
		sport = (uint16_t)(49152 + p->srcqp % 16000);
	}

	/* transport: BTH, extension headers, payload, pad */
	uint8_t t[1400];
	size_t tl = transport(p, t);

	/* Ethernet, IP, UDP */
	size_t off = 0;
	memcpy(f, dst->mac, 6);
	memcpy(f + 6, src->mac, 6);
	be16(f + 12, v6 ? 0x86DD : 0x0800);
	off = 14;
	size_t ip_off = off, ip_len;
	uint32_t udp_len = (uint32_t)(8 + tl + 4);
	uint8_t tos = (uint8_t)(26 << 2 | (p->ecn_ce ? 3 : 2)); /* DSCP 26, ECT(0) or CE */
	if (p->opcode == OP_CNP)
		tos = (uint8_t)(48 << 2 | 2);
	if (congestion)
		tos = congestion_tos(p, tos);
	truth_frame(p, tos);
	if (v6) {
		ip_len = 40;
		be32(f + off, 6u << 28 | (uint32_t)tos << 20 | (sport & 0xFFFFF));
		be16(f + off + 4, udp_len);
		f[off + 6] = 17;
		f[off + 7] = 64;
		memcpy(f + off + 8, src->ip6, 16);
		memcpy(f + off + 24, dst->ip6, 16);
	} else {
		ip_len = 20;
		uint8_t *h = f + off;
		h[0] = 0x45;
		h[1] = tos;
		be16(h + 2, (uint32_t)(20 + udp_len));
		be16(h + 4, (uint32_t)(bytes_out & 0xFFFF));
		be16(h + 6, 0x4000);
		h[8] = 64;
		h[9] = 17;
		h[10] = h[11] = 0;
		memcpy(h + 12, src->ip, 4);
		memcpy(h + 16, dst->ip, 4);
		uint32_t sum = 0;
		for (int i = 0; i < 20; i += 2)
			sum += (uint32_t)h[i] << 8 | h[i + 1];
		while (sum >> 16)
			sum = (sum & 0xFFFF) + (sum >> 16);
		be16(h + 10, ~sum & 0xFFFF);
	}
	off += ip_len;
	size_t udp_off = off;
	be16(f + off, sport);
	be16(f + off + 2, 4791);
	be16(f + off + 4, udp_len);
	be16(f + off + 6, 0);
	off += 8;
	memcpy(f + off, t, tl);
	size_t bth_off = off;
	off += tl;

	/* ICRC: variant fields masked to ones, an 8-byte LRH of ones first */
	uint8_t m[64];
	memset(m, 0xFF, 8);
	memcpy(m + 8, f + ip_off, ip_len);
	if (v6) {
		m[8] |= 0x0F;
		m[9] = m[10] = m[11] = 0xFF;
		m[8 + 7] = 0xFF;
	} else {
		m[8 + 1] = 0xFF;
		m[8 + 8] = 0xFF;
		m[8 + 10] = m[8 + 11] = 0xFF;
	}
	memcpy(m + 8 + ip_len, f + udp_off, 8);
	m[8 + ip_len + 6] = m[8 + ip_len + 7] = 0xFF;
	uint32_t crc = crc_update(0xFFFFFFFFu, m, 8 + ip_len + 8);
	memcpy(m, f + bth_off, 12);
	m[4] = 0xFF;
	crc = crc_update(crc, m, 12);
	crc = crc_update(crc, f + bth_off + 12, tl - 12);
	le32(f + off, ~crc);
	off += 4;

	uint8_t rec[16];
	size_t kept = slice && slice < off ? slice : off;
	le32(rec, (uint32_t)(now_ns / 1000000000u));
	le32(rec + 4, (uint32_t)(now_ns % 1000000000u));
	le32(rec + 8, (uint32_t)kept);
	le32(rec + 12, (uint32_t)off);
	put(rec, 16);
	put(f, kept);
	bytes_out += off;
	now_ns += ((off + 24) * 8 + 99) / 100; /* wire time at 100 Gb/s with preamble and IFG */
}

/* A MAC Control frame (PAUSE when opcode 1, else PFC) from `mac`, padded
 * to the 60-byte minimum (no FCS, as captures keep it). */
static void write_mac_control(const uint8_t *mac, uint16_t opcode, uint8_t enable, const uint16_t *quanta)
{
	uint8_t f[60] = { 0x01, 0x80, 0xC2, 0x00, 0x00, 0x01 };
	memcpy(f + 6, mac, 6);
	be16(f + 12, 0x8808);
	be16(f + 14, opcode);
	if (opcode == 1) {
		be16(f + 16, quanta[0]);
	} else {
		f[17] = enable;
		for (int i = 0; i < 8; i++)
			be16(f + 18 + 2 * i, quanta[i]);
	}
	uint8_t rec[16];
	le32(rec, (uint32_t)(now_ns / 1000000000u));
	le32(rec + 4, (uint32_t)(now_ns % 1000000000u));
	le32(rec + 8, sizeof f);
	le32(rec + 12, sizeof f);
	put(rec, 16);
	put(f, sizeof f);
	now_ns += ((sizeof f + 4 + 24) * 8 + 99) / 100;
}

static void pause_count(struct pause_truth *t, uint16_t q, uint64_t ts)
{
	t->frames++;
	t->quanta += q;
	if (q) {
		t->xoff++;
		t->pause_ns += PAUSE_NS(q);
		t->until = ts + PAUSE_NS(q);
	} else {
		t->xon++;
	}
}

/* A PFC frame from switch port `sp` for priority 3, sometimes 3 and 4, or
 * a PAUSE from a host: only when its earlier pauses are over, so that the
 * pause time is the plain sum of the frames' (the storm below overlaps on
 * purpose and is counted as one span). */
static void random_pause(void)
{
	uint16_t q[8] = { 0 };
	if (chance(200000)) {
		uint32_t h = rnd_below(nhosts);
		struct pause_truth *t = &pause_t[h];
		if (now_ns < t->until)
			return;
		q[0] = (uint16_t)(1 + rnd_below(3000));
		pause_count(t, q[0], now_ns);
		write_mac_control(hosts[h].mac, 1, 0, q);
		return;
	}
	uint32_t sp = rnd_below(PFC_SENDERS);
	uint8_t en = chance(300000) ? 0x18 : 0x08;
	for (int pr = 3; pr <= 4; pr++)
		if ((en >> pr & 1) && now_ns < pfc_t[sp][pr].until)
			return;
	for (int pr = 3; pr <= 4; pr++)
		if (en >> pr & 1) {
			q[pr] = (uint16_t)(1 + rnd_below(3000));
			pause_count(&pfc_t[sp][pr], q[pr], now_ns);
		}
	uint8_t mac[6] = { 0x02, 0x00, 0x5e, 0xff, 0xff, (uint8_t)sp };
	write_mac_control(mac, 0x0101, en, q);
}

#define STORM_FRAMES 400
#define STORM_EVERY_NS 300000

static void pause_storm(void)
{
	struct pause_truth *t = &pfc_t[0][3];
	if (now_ns < t->until)
		now_ns = t->until;
	uint8_t mac[6] = { 0x02, 0x00, 0x5e, 0xff, 0xff, 0x00 };
	uint16_t q[8] = { 0 };
	uint64_t start = now_ns;
	for (int i = 0; i < STORM_FRAMES; i++) {
		uint64_t ts = now_ns;
		q[3] = 0xFFFF;
		write_mac_control(mac, 0x0101, 0x08, q);
		t->frames++;
		t->xoff++;
		t->quanta += 0xFFFF;
		now_ns = ts + STORM_EVERY_NS;
	}
	q[3] = 0; /* XON: the pause ends here, before the last one ran out */
	uint64_t end = now_ns;
	write_mac_control(mac, 0x0101, 0x08, q);
	t->frames++;
	t->xon++;
	t->pause_ns += end - start;
	t->storms++;
	t->until = end;
}

static void truth_pause_row(const char *sender, int prio, const struct pause_truth *t, bool *first)
{
	if (!t->frames)
		return;
	fprintf(truth, "%s\n    {\"sender\": \"%s\", \"priority\": %d, \"frames\": %llu, \"xoff\": %llu, "
		"\"xon\": %llu, \"quanta\": %llu, \"pause_ns\": %llu, \"storms\": %llu}",
		*first ? "" : ",", sender, prio, (unsigned long long)t->frames, (unsigned long long)t->xoff,
		(unsigned long long)t->xon, (unsigned long long)t->quanta, (unsigned long long)t->pause_ns,
		(unsigned long long)t->storms);
	*first = false;
}

static void truth_counts(const char *name, const uint64_t *v, int n, bool nonzero_only)
{
	fprintf(truth, "\"%s\": {", name);
	bool first = true;
	for (int i = 0; i < n; i++)
		if (v[i] || !nonzero_only) {
			fprintf(truth, "%s\"%d\": %llu", first ? "" : ", ", i, (unsigned long long)v[i]);
			first = false;
		}
	fprintf(truth, "}");
}

static void write_truth(void)
{
	fprintf(truth, "{\n  \"frames\": %llu, \"link_speed_gbps\": 100, \"cnps\": %llu, \"first_ns\": %llu, "
		"\"last_ns\": %llu,\n  ", (unsigned long long)tot_frames, (unsigned long long)tot_cnps,
		(unsigned long long)first_frame_ts, (unsigned long long)last_frame_ts);
	truth_counts("dscp", tot_dscp, 64, true);
	fprintf(truth, ",\n  ");
	truth_counts("ecn", tot_ecn, 4, false);
	fprintf(truth, ",\n  \"ce_to_cnp\": {\"count\": %llu, \"min_ns\": %llu, \"max_ns\": %llu},\n",
		(unsigned long long)react_n, (unsigned long long)(react_n ? react_min : 0),
		(unsigned long long)react_max);
	fprintf(truth, "  \"half_flows\": [");
	bool first = true;
	for (uint32_t i = 0; i < 2 * nconns; i++) {
		const struct hf_truth *h = &hft[i];
		if (!h->packets)
			continue;
		const struct conn *c = &conns[i / 2];
		const struct host *src = &hosts[c->h[i % 2]], *dst = &hosts[c->h[1 - i % 2]];
		char s[48], d[48];
		if (c->v6) { /* RFC 5952: the zero groups before the last two fold into :: */
			snprintf(s, sizeof s, src->ip6[13] ? "2001:db8::%x:%x" : "2001:db8::%.0x%x", src->ip6[13],
				 src->ip6[14] << 8 | src->ip6[15]);
			snprintf(d, sizeof d, dst->ip6[13] ? "2001:db8::%x:%x" : "2001:db8::%.0x%x", dst->ip6[13],
				 dst->ip6[14] << 8 | dst->ip6[15]);
		} else {
			snprintf(s, sizeof s, "%u.%u.%u.%u", src->ip[0], src->ip[1], src->ip[2], src->ip[3]);
			snprintf(d, sizeof d, "%u.%u.%u.%u", dst->ip[0], dst->ip[1], dst->ip[2], dst->ip[3]);
		}
		fprintf(truth, "%s\n    {\"src\": \"%s\", \"dst\": \"%s\", \"dst_qp\": %u, \"packets\": %llu, "
			"\"cnps\": %llu, \"payload\": %llu, \"first_ns\": %llu, \"last_ns\": %llu, \"first_cnp_ns\": %llu, "
			"\"peer_payload_at_cnp\": %llu, ", first ? "" : ",", s, d, c->s[1 - i % 2].qpn,
			(unsigned long long)h->packets, (unsigned long long)h->cnps, (unsigned long long)h->payload,
			(unsigned long long)h->first_ts, (unsigned long long)h->last_ts, (unsigned long long)h->first_cnp_ts,
			(unsigned long long)h->peer_payload_at_cnp);
		truth_counts("dscp", h->dscp, 64, true);
		fprintf(truth, ", ");
		truth_counts("ecn", h->ecn, 4, false);
		fprintf(truth, ", ");
		truth_counts("cnp_dscp", h->cnp_dscp, 64, true);
		fprintf(truth, "}");
		first = false;
	}
	fprintf(truth, "\n  ],\n  \"pauses\": [");
	first = true;
	char who[32];
	for (int sp = 0; sp < PFC_SENDERS; sp++)
		for (int pr = 0; pr < 8; pr++) {
			snprintf(who, sizeof who, "02:00:5e:ff:ff:%02x", sp);
			truth_pause_row(who, pr, &pfc_t[sp][pr], &first);
		}
	for (uint32_t h = 0; h < nhosts; h++) {
		const uint8_t *m = hosts[h].mac;
		snprintf(who, sizeof who, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
		truth_pause_row(who, -1, &pause_t[h], &first);
	}
	fprintf(truth, "\n  ]\n}\n");
}

static void usage(void)
{
	fprintf(stderr, "usage: rocestat-gen [-n FRAMES] [--conns N] [--hosts N] [--ud-qps N] [--max-msg BYTES]\n"
			"                    [--no-cm] [--rr] [--seed S] [--qpn-base N] [--slice BYTES]\n"
			"                    [--congestion] [--truth FILE] -o FILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t frames = 10000000;
	const char *path = NULL, *truth_path = NULL;
	static const struct option lo[] = {
		{ "frames", required_argument, NULL, 'n' }, { "conns", required_argument, NULL, 'c' },
		{ "hosts", required_argument, NULL, 'H' }, { "ud-qps", required_argument, NULL, 'u' },
		{ "max-msg", required_argument, NULL, 'm' }, { "no-cm", no_argument, NULL, 'C' },
		{ "rr", no_argument, NULL, 'r' }, { "seed", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' }, { "qpn-base", required_argument, NULL, 'Q' },
		{ "slice", required_argument, NULL, 'S' }, { "congestion", no_argument, NULL, 'G' },
		{ "truth", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;
	while ((ch = getopt_long(argc, argv, "n:o:s:", lo, NULL)) != -1) {
		switch (ch) {
		case 'n': frames = strtoull(optarg, NULL, 0); break;
		case 'c': nconns = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'H': nhosts = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'u': nud = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'm': max_msg = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'C': no_cm = true; break;
		case 'r': round_robin = true; break;
		case 's': rng_state = strtoull(optarg, NULL, 0) | 1; break;
		case 'o': path = optarg; break;
		case 'Q': qpn_base = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'S': slice = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'G': congestion = true; break;
		case 'T': truth_path = optarg; break;
		default: usage();
		}
	}
	if (!path || nhosts < 2 || nconns < 1 || nconns > 4000000 || max_msg < 8 || max_msg > 16 * MTU ||
	    (truth_path && nconns > 65536))
		usage();
	crc_init();
	for (int i = 0; i < MTU + 8; i++)
		payload_pattern[i] = (uint8_t)(i * 7 + 3);

	hosts = calloc(nhosts, sizeof *hosts);
	for (uint32_t i = 0; i < nhosts; i++) {
		uint8_t mac[6] = { 0x02, 0x00, 0x5e, (uint8_t)(i >> 16), (uint8_t)(i >> 8), (uint8_t)i };
		memcpy(hosts[i].mac, mac, 6);
		uint32_t h = i + 1;
		hosts[i].ip[0] = 10;
		hosts[i].ip[1] = (uint8_t)(h >> 16);
		hosts[i].ip[2] = (uint8_t)(h >> 8);
		hosts[i].ip[3] = (uint8_t)h;
		static const uint8_t pfx[4] = { 0x20, 0x01, 0x0d, 0xb8 };
		memcpy(hosts[i].ip6, pfx, 4);
		memcpy(hosts[i].ip6 + 13, hosts[i].ip + 1, 3);
	}
	conns = calloc(nconns, sizeof *conns);
	for (uint32_t i = 0; i < nconns; i++) {
		struct conn *c = &conns[i];
		c->h[0] = rnd_below(nhosts);
		c->h[1] = (c->h[0] + 1 + rnd_below(nhosts - 1)) % nhosts;
		c->v6 = i % 10 == 9;
		for (int s = 0; s < 2; s++) {
			c->s[s].qpn = (qpn_base + 2 * i + (uint32_t)s) & 0xFFFFFF;
			c->s[s].psn = rnd_below(1u << 24);
			c->s[s].rkey = (uint32_t)rnd();
			c->s[s].va = 0x7f0000000000ull + ((uint64_t)rnd_below(1u << 20) << 12);
			c->s[s].sport = (uint16_t)(49152 + rnd_below(16384));
			c->s[s].comm_id = (uint32_t)rnd();
		}
	}
	udqps = calloc(nud ? nud : 1, sizeof *udqps);
	for (uint32_t i = 0; i < nud; i++) {
		udqps[i].host = rnd_below(nhosts);
		udqps[i].qpn = 0xC00000 + i;
		udqps[i].qkey = 0x11110000u + i;
		for (int k = 0; k < 4; k++)
			udqps[i].psn[k] = rnd_below(1u << 24);
	}

	out = fopen(path, "wb");
	if (!out) {
		fprintf(stderr, "rocestat-gen: %s: %s\n", path, strerror(errno));
		return 1;
	}
	obuf = malloc(OBUF);
	uint8_t gh[24];
	le32(gh, 0xa1b23c4d); /* pcap, nanosecond timestamps */
	gh[4] = 2; gh[5] = 0; gh[6] = 4; gh[7] = 0;
	memset(gh + 8, 0, 8);
	le32(gh + 16, SNAP);
	le32(gh + 20, 1); /* LINKTYPE_ETHERNET */
	put(gh, sizeof gh);

	struct stream *st = calloc(STREAMS, sizeof *st);
	for (int i = 0; i < STREAMS; i++)
		st[i].conn = UINT32_MAX;
	if (truth_path) {
		truth = fopen(truth_path, "w");
		if (!truth) {
			fprintf(stderr, "rocestat-gen: %s: %s\n", truth_path, strerror(errno));
			return 1;
		}
		hft = calloc(2 * (size_t)nconns, sizeof *hft);
	}
	pause_t = calloc(nhosts, sizeof *pause_t);
	for (uint64_t i = 0; i < frames; i++) {
		if (congestion && i == frames / 2)
			pause_storm();
		if (congestion && chance(2000))
			random_pause();
		struct stream *s = &st[rnd_below(STREAMS)];
		if (s->next == s->n)
			next_message(s);
		struct pkt *p = &s->plan[s->next++];
		write_frame(p);
	}
	if (olen && fwrite(obuf, 1, olen, out) != olen) {
		perror("rocestat-gen: write");
		return 1;
	}
	if (fclose(out) != 0) {
		perror("rocestat-gen: close");
		return 1;
	}
	if (truth) {
		write_truth();
		if (fclose(truth) != 0) {
			perror("rocestat-gen: truth");
			return 1;
		}
	}
	fprintf(stderr, "rocestat-gen: %s: %llu frames, %llu bytes of frames, %u connections, %u hosts\n", path,
		(unsigned long long)frames, (unsigned long long)bytes_out, nconns, nhosts);
	free(st); /* the sanitizer build's leak check runs at exit */
	return 0;
}
