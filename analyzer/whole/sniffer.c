/*
 * sniffer.c — traits of the capture path that bound what the file can
 * prove, counted from the frames (the report words them):
 *  - the source MAC of an address changing from one frame to the next: the
 *    RDMA sniffer (tcpdump -i mlx5_0) writes a MAC of its own into every
 *    frame, so the file's MACs say nothing about the hosts' ports;
 *  - traffic between two hosts seen from one side only: an RC requester's
 *    ACKs and responses cannot be in the file, so neither can anything that
 *    needs them (completeness, NAKs, latency).
 * A software timestamp has no trait found sound enough to call: the
 * duplicate timestamps of the ConnectX captures come from their rate.
 */
#include <string.h>

#include "analyzer/whole/whole.h"

/* A source address and the MAC of its latest frame. */
struct rs_src_mac {
	struct rs_addr addr;
	uint8_t mac[6];
};

/* Beyond this many source addresses new ones are not followed (memory stays bounded under --max-flows). */
#define SRC_MAX (1u << 20)

/* Every frame asks: two words and a multiply, not a loop over 16 bytes. */
static uint64_t addr_mix(const struct rs_addr *x)
{
	uint64_t w[2];
	memcpy(w, x->b, sizeof w);
	uint64_t h = (w[0] * 0x9E3779B97F4A7C15ull) ^ w[1] ^ x->kind;
	return h * 0xC2B2AE3D27D4EB4Full;
}

static guint src_hash(gconstpointer k)
{
	return (guint)(addr_mix(k) >> 32);
}

static gboolean src_equal(gconstpointer x, gconstpointer y)
{
	const struct rs_addr *p = x, *q = y;
	return p->kind == q->kind && memcmp(p->b, q->b, 16) == 0;
}

void rs_sniffer_init(struct rs_analyzer *a)
{
	a->sn.by_src = g_hash_table_new_full(src_hash, src_equal, NULL, g_free);
}

void rs_sniffer_free(struct rs_analyzer *a)
{
	g_hash_table_destroy(a->sn.by_src);
}

static bool same_addr(const struct rs_addr *p, const struct rs_addr *q)
{
	return p->kind == q->kind && memcmp(p->b, q->b, 16) == 0;
}

void rs_sniffer_frame(struct rs_analyzer *a, const struct rs_frame *f)
{
	struct rs_sniffer *s = &a->sn;
	if (!(f->have & RS_HAVE_ETH) || f->src.kind == RS_ADDR_NONE)
		return;
	/* A capture's sources are few (hosts, not QPs): a slot per hash spares
	 * the table; entries live until the end, so a slot never dangles. */
	struct rs_src_mac **slot = &s->recent[addr_mix(&f->src) >> 58];
	struct rs_src_mac *e = *slot;
	if (!e || !same_addr(&e->addr, &f->src))
		e = g_hash_table_lookup(s->by_src, &f->src);
	if (!e) {
		if (g_hash_table_size(s->by_src) >= SRC_MAX)
			return;
		e = g_new(struct rs_src_mac, 1);
		e->addr = f->src;
		memcpy(e->mac, f->eth_src, 6);
		g_hash_table_insert(s->by_src, &e->addr, e);
	} else {
		s->mac_frames++;
		if (memcmp(e->mac, f->eth_src, 6) != 0) {
			s->mac_changes++;
			memcpy(e->mac, f->eth_src, 6);
		}
	}
	*slot = e;
}

/* One direction between two hosts: (roce, kind, from, to) of half-flow keys. */
struct dir {
	uint8_t roce, akind;
	uint8_t from[16], to[16];
};

static guint dir_hash(gconstpointer k)
{
	return rs_fnv1a(k, sizeof(struct dir));
}

static gboolean dir_equal(gconstpointer x, gconstpointer y)
{
	return memcmp(x, y, sizeof(struct dir)) == 0;
}

static struct dir dir_of(const struct rs_flow *fl, bool reverse)
{
	struct dir d;
	memset(&d, 0, sizeof d);
	d.roce = fl->key.roce;
	d.akind = fl->key.akind;
	memcpy(d.from, reverse ? fl->key.dst : fl->key.src, 16);
	memcpy(d.to, reverse ? fl->key.src : fl->key.dst, 16);
	return d;
}

/* Multicast goes one way by nature (IPoIB ARP, UD multicast): not a trait. */
static bool multicast(uint8_t akind, const uint8_t *dst)
{
	switch (akind) {
	case RS_ADDR_IPV4: return (dst[0] & 0xF0) == 0xE0 || (dst[0] == 255 && dst[3] == 255);
	case RS_ADDR_IPV6:
	case RS_ADDR_GID: return dst[0] == 0xFF;
	case RS_ADDR_LID: return dst[0] >= 0xC0; /* 0xC000-0xFFFE multicast, 0xFFFF permissive */
	default: return false;
	}
}

/* At the end: host pairs with frames from one side only, and the RC
 * request half-flows among them (the flows still in memory: under
 * --max-flows, evicted ones are not counted). */
void rs_sniffer_finish(struct rs_analyzer *a)
{
	struct rs_sniffer *s = &a->sn;
	GHashTable *dirs = g_hash_table_new_full(dir_hash, dir_equal, g_free, NULL);
	for (guint i = 0; i < a->flows->len; i++) {
		const struct rs_flow *fl = g_ptr_array_index(a->flows, i);
		if (!fl || multicast(fl->key.akind, fl->key.dst))
			continue;
		struct dir d = dir_of(fl, false);
		if (!g_hash_table_contains(dirs, &d))
			g_hash_table_add(dirs, g_memdup2(&d, sizeof d));
	}
	GHashTableIter it;
	gpointer k;
	g_hash_table_iter_init(&it, dirs);
	while (g_hash_table_iter_next(&it, &k, NULL)) {
		const struct dir *d = k;
		struct dir r = *d;
		memcpy(r.from, d->to, 16);
		memcpy(r.to, d->from, 16);
		bool both = g_hash_table_contains(dirs, &r);
		if (memcmp(d->from, d->to, 16) < 0 || !both) /* each pair once */
			s->host_pairs++;
		s->host_pairs_one_way += !both;
	}
	for (guint i = 0; i < a->flows->len; i++) {
		const struct rs_flow *fl = g_ptr_array_index(a->flows, i);
		if (!fl || fl->transport != RS_TR_RC || fl->is_cm_qp || !fl->req.packets)
			continue;
		struct dir r = dir_of(fl, true);
		if (g_hash_table_contains(dirs, &r))
			continue;
		if (!s->rc_one_way_flows) { /* the first in creation order: the example */
			s->one_way_from = (struct rs_addr){ .kind = fl->key.akind };
			s->one_way_to = s->one_way_from;
			memcpy(s->one_way_from.b, fl->key.src, 16);
			memcpy(s->one_way_to.b, fl->key.dst, 16);
		}
		s->rc_one_way_flows++;
		s->rc_one_way_packets += fl->req.packets;
	}
	g_hash_table_destroy(dirs);
}
