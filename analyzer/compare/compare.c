/*
 * compare.c — matching the packets of two captures of the same traffic
 * (compare.h). Every packet is kept (frame number, time, PSN, content hash:
 * 48 bytes): both sides are sorted by (half-flow, PSN, hash, sighting) and
 * walked together, so matching costs a sort.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/analyzer.h"
#include "analyzer/compare.h"

struct fkey {
	uint8_t b[40]; /* src kind + 16, dst kind + 16, QP 3, RoCE kind 1: zero-padded for hashing */
};

static guint fkey_hash(gconstpointer k)
{
	return rs_fnv1a(k, sizeof(struct fkey));
}

static gboolean fkey_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(struct fkey)) == 0;
}

struct rs_cmp *rs_cmp_new(void)
{
	struct rs_cmp *c = g_new0(struct rs_cmp, 1);
	for (int s = 0; s < 2; s++)
		c->pkts[s] = g_array_new(FALSE, FALSE, sizeof(struct rs_cmp_pkt));
	c->flow_index = g_hash_table_new_full(fkey_hash, fkey_equal, g_free, NULL);
	c->flows = g_ptr_array_new();
	return c;
}

void rs_cmp_free(struct rs_cmp *c)
{
	if (!c)
		return;
	for (guint i = 0; i < c->flows->len; i++) {
		struct rs_cmp_flow *fl = c->flows->pdata[i];
		for (int s = 0; s < 2; s++)
			if (fl->only[s])
				g_array_free(fl->only[s], TRUE);
		g_free(fl);
	}
	g_ptr_array_free(c->flows, TRUE);
	g_hash_table_destroy(c->flow_index);
	for (int s = 0; s < 2; s++) {
		g_array_free(c->pkts[s], TRUE);
		g_free(c->name[s]);
		g_free(c->ended_early[s]);
	}
	g_free(c);
}

void rs_cmp_file(struct rs_cmp *c, int side, const char *name)
{
	g_free(c->name[side]);
	c->name[side] = g_strdup(name);
}

void rs_cmp_file_error(struct rs_cmp *c, int side, const char *message)
{
	if (!c->ended_early[side])
		c->ended_early[side] = g_strdup(message);
}

static uint32_t flow_of(struct rs_cmp *c, const struct rs_frame *f)
{
	struct fkey k;
	memset(&k, 0, sizeof k);
	k.b[0] = f->src.kind;
	memcpy(k.b + 1, f->src.b, 16);
	k.b[17] = f->dst.kind;
	memcpy(k.b + 18, f->dst.b, 16);
	k.b[34] = (uint8_t)(f->bth.destqp >> 16);
	k.b[35] = (uint8_t)(f->bth.destqp >> 8);
	k.b[36] = (uint8_t)f->bth.destqp;
	k.b[37] = f->roce;
	gpointer v = g_hash_table_lookup(c->flow_index, &k);
	if (v)
		return (uint32_t)(GPOINTER_TO_UINT(v) - 1);
	struct rs_cmp_flow *fl = g_new0(struct rs_cmp_flow, 1);
	fl->src = f->src;
	fl->dst = f->dst;
	fl->dest_qp = f->bth.destqp;
	fl->roce = f->roce;
	fl->transport = f->bth.opcode & 0xE0;
	for (int s = 0; s < 2; s++)
		fl->only[s] = g_array_new(FALSE, FALSE, sizeof(struct rs_cmp_pkt));
	g_ptr_array_add(c->flows, fl);
	g_hash_table_insert(c->flow_index, g_memdup2(&k, sizeof k), GUINT_TO_POINTER(c->flows->len));
	return c->flows->len - 1;
}

void rs_cmp_add(struct rs_cmp *c, int side, uint64_t frame_no, uint64_t ts_ns, const struct rs_frame *f,
		uint64_t hash)
{
	/* The capture window: from the earliest time read to the latest, not
	 * from the first frame's to the last's, as a file's times need not be in
	 * order. Every frame counts, with a BTH or not: the capture was running. */
	if (!c->frames[side] || ts_ns < c->t_first[side]) {
		c->t_first[side] = ts_ns;
		c->f_first[side] = frame_no;
	}
	if (!c->frames[side] || ts_ns >= c->t_last[side]) {
		c->t_last[side] = ts_ns;
		c->f_last[side] = frame_no;
	}
	c->last_read[side] = frame_no;
	c->frames[side]++;
	if (!(f->have & RS_HAVE_BTH) || !hash)
		return;
	uint32_t flow = flow_of(c, f);
	struct rs_cmp_flow *fl = c->flows->pdata[flow];
	struct rs_cmp_pkt p = { .frame_no = frame_no, .ts_ns = ts_ns, .hash = hash, .psn = f->bth.psn, .flow = flow,
				.seq = (uint32_t)c->packets[side], .opcode = f->bth.opcode };
	g_array_append_val(c->pkts[side], p);
	c->packets[side]++;
	fl->n[side]++;
}

/* The same packet at both points: (half-flow, PSN, hash); 0 if equal. */
static int same_packet(const struct rs_cmp_pkt *a, const struct rs_cmp_pkt *b)
{
	if (a->flow != b->flow)
		return a->flow < b->flow ? -1 : 1;
	if (a->psn != b->psn)
		return a->psn < b->psn ? -1 : 1;
	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return 0;
}

/* (half-flow, PSN, hash), then the order they were seen in. */
static int pkt_cmp(const void *x, const void *y)
{
	const struct rs_cmp_pkt *a = x, *b = y;
	int c = same_packet(a, b);
	return c ? c : a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int by_seq(const void *x, const void *y)
{
	const struct rs_cmp_pkt *a = x, *b = y;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int by_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

static void pair(struct rs_cmp *c, struct rs_cmp_pkt *a, struct rs_cmp_pkt *b)
{
	struct rs_cmp_flow *fl = c->flows->pdata[a->flow];
	int64_t r = (int64_t)(b->ts_ns - a->ts_ns);
	if (!fl->matched || r < fl->raw_min)
		fl->raw_min = r;
	if (!fl->matched || r > fl->raw_max)
		fl->raw_max = r;
	fl->matched++;
	c->matched++;
	a->match = b->frame_no;
	b->match = a->frame_no;
}

static void leftover(struct rs_cmp *c, int side, const struct rs_cmp_pkt *p)
{
	g_array_append_val(((struct rs_cmp_flow *)c->flows->pdata[p->flow])->only[side], *p);
}

struct group {
	guint a0, a1, b0, b1; /* [a0, a1) of A's sorted packets, [b0, b1) of B's */
};

/* The sorted sides walked together, a run of equal (half-flow, PSN, hash)
 * at a time. A packet sent once each side is matched at once; a run with
 * several sightings (a packet re-sent with the same bytes) is left in
 * `groups` for when the clock offset is known. */
static void match_unique(struct rs_cmp *c, GArray *groups)
{
	GArray *A = c->pkts[0], *B = c->pkts[1];
	guint i = 0, j = 0;
	while (i < A->len || j < B->len) {
		struct rs_cmp_pkt *a = i < A->len ? &g_array_index(A, struct rs_cmp_pkt, i) : NULL;
		struct rs_cmp_pkt *b = j < B->len ? &g_array_index(B, struct rs_cmp_pkt, j) : NULL;
		int d = !a ? 1 : !b ? -1 : same_packet(a, b);
		if (d < 0) {
			leftover(c, 0, a);
			i++;
			continue;
		}
		if (d > 0) {
			leftover(c, 1, b);
			j++;
			continue;
		}
		struct group g = { .a0 = i, .b0 = j };
		for (g.a1 = i + 1; g.a1 < A->len && !same_packet(a, &g_array_index(A, struct rs_cmp_pkt, g.a1)); g.a1++)
			;
		for (g.b1 = j + 1; g.b1 < B->len && !same_packet(b, &g_array_index(B, struct rs_cmp_pkt, g.b1)); g.b1++)
			;
		if (g.a1 - g.a0 == 1 && g.b1 - g.b0 == 1)
			pair(c, a, b);
		else
			g_array_append_val(groups, g);
		i = g.a1;
		j = g.b1;
	}
}

static uint64_t abs_diff(int64_t x, int64_t y)
{
	return x > y ? (uint64_t)x - (uint64_t)y : (uint64_t)y - (uint64_t)x;
}

/* A run of several sightings: the pairs whose (time at B - time at A) is
 * nearest the offset first, each packet in one pair at most. */
static void match_group(struct rs_cmp *c, const struct group *g)
{
	GArray *A = c->pkts[0], *B = c->pkts[1];
	for (;;) {
		struct rs_cmp_pkt *best_a = NULL, *best_b = NULL;
		uint64_t best = UINT64_MAX;
		for (guint i = g->a0; i < g->a1; i++) {
			struct rs_cmp_pkt *a = &g_array_index(A, struct rs_cmp_pkt, i);
			for (guint j = g->b0; a->match == 0 && j < g->b1; j++) {
				struct rs_cmp_pkt *b = &g_array_index(B, struct rs_cmp_pkt, j);
				uint64_t cost = abs_diff((int64_t)(b->ts_ns - a->ts_ns), c->offset_ns);
				if (b->match == 0 && cost < best) {
					best = cost;
					best_a = a;
					best_b = b;
				}
			}
		}
		if (!best_a)
			break;
		pair(c, best_a, best_b);
	}
	for (guint i = g->a0; i < g->a1; i++)
		if (!g_array_index(A, struct rs_cmp_pkt, i).match)
			leftover(c, 0, &g_array_index(A, struct rs_cmp_pkt, i));
	for (guint j = g->b0; j < g->b1; j++)
		if (!g_array_index(B, struct rs_cmp_pkt, j).match)
			leftover(c, 1, &g_array_index(B, struct rs_cmp_pkt, j));
}

static void estimate_offset(struct rs_cmp *c);

static void match(struct rs_cmp *c)
{
	for (int s = 0; s < 2; s++)
		if (c->pkts[s]->len) /* an empty GArray's data is NULL, which qsort must not get */
			qsort(c->pkts[s]->data, c->pkts[s]->len, sizeof(struct rs_cmp_pkt), pkt_cmp);
	GArray *groups = g_array_new(FALSE, FALSE, sizeof(struct group));
	match_unique(c, groups);
	estimate_offset(c); /* from the packets sent once: 0 if there are none */
	for (guint k = 0; k < groups->len; k++)
		match_group(c, &g_array_index(groups, struct group, k));
	g_array_free(groups, TRUE);
	for (guint k = 0; k < c->flows->len; k++) {
		struct rs_cmp_flow *fl = c->flows->pdata[k];
		for (int s = 0; s < 2; s++)
			g_array_sort(fl->only[s], by_seq);
	}
}

/* The matched packets' (time at B - time at A) range of all half-flows
 * from one host to another: a direction. */
struct dir {
	uint8_t key[34]; /* src kind + 16, dst kind + 16 */
	int64_t lo, hi;
	uint64_t n;
};

static void dir_key(uint8_t key[34], const struct rs_addr *src, const struct rs_addr *dst)
{
	key[0] = src->kind;
	memcpy(key + 1, src->b, 16);
	key[17] = dst->kind;
	memcpy(key + 18, dst->b, 16);
}

static guint dir_hash(gconstpointer k)
{
	return rs_fnv1a(k, 34);
}

static gboolean dir_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, 34) == 0;
}

/* The clock offset (compare.h: the two ways of estimating it). */
static void estimate_offset(struct rs_cmp *c)
{
	uint64_t best_n = 0;
	c->method = RS_CMP_NONE;
	c->offset_ns = 0;
	GHashTable *dirs = g_hash_table_new_full(dir_hash, dir_equal, NULL, g_free);
	for (guint k = 0; k < c->flows->len; k++) {
		const struct rs_cmp_flow *fl = c->flows->pdata[k];
		if (!fl->matched)
			continue;
		uint8_t key[34];
		dir_key(key, &fl->src, &fl->dst);
		struct dir *d = g_hash_table_lookup(dirs, key);
		if (!d) {
			d = g_new0(struct dir, 1);
			memcpy(d->key, key, sizeof key);
			g_hash_table_insert(dirs, d->key, d);
		}
		if (!d->n || fl->raw_min < d->lo)
			d->lo = fl->raw_min;
		if (!d->n || fl->raw_max > d->hi)
			d->hi = fl->raw_max;
		d->n += fl->matched;
	}
	GHashTableIter it;
	gpointer kp, vp;
	g_hash_table_iter_init(&it, dirs);
	while (g_hash_table_iter_next(&it, &kp, &vp)) {
		const struct dir *d = vp;
		uint8_t back[34];
		memcpy(back, d->key + 17, 17);
		memcpy(back + 17, d->key, 17);
		const struct dir *r = g_hash_table_lookup(dirs, back);
		/* This direction passes A first when all its delays exceed the
		 * other's; ties between host pairs go to the one with more packets,
		 * then to the smaller offset, so that the hash order does not matter. */
		int64_t off = r ? d->lo + (r->hi - d->lo) / 2 : 0;
		if (r && d->lo > r->hi &&
		    (d->n + r->n > best_n || (d->n + r->n == best_n && off < c->offset_ns))) {
			best_n = d->n + r->n;
			c->method = RS_CMP_TWO_WAY;
			c->offset_ns = off;
		}
	}
	g_hash_table_destroy(dirs);
	if (c->method == RS_CMP_TWO_WAY) {
		for (guint k = 0; k < c->flows->len; k++) {
			struct rs_cmp_flow *fl = c->flows->pdata[k];
			fl->b_first = fl->matched && fl->raw_max < c->offset_ns;
		}
		return;
	}
	bool any = false;
	for (guint k = 0; k < c->flows->len; k++) {
		const struct rs_cmp_flow *fl = c->flows->pdata[k];
		if (fl->matched && (!any || fl->raw_min < c->offset_ns)) {
			c->offset_ns = fl->raw_min;
			any = true;
		}
	}
	c->method = any ? RS_CMP_MINIMUM : RS_CMP_NONE;
}

static void quantiles(GArray *d, struct rs_cmp_delays *q)
{
	q->n = d->len;
	if (!d->len)
		return;
	g_array_sort(d, by_i64);
	const int64_t *v = (const int64_t *)(void *)d->data;
	/* Nearest rank: the smallest value with at least p of them at or below it. */
	guint n = d->len;
	q->min = v[0];
	q->p50 = v[(n * 50 + 99) / 100 - 1];
	q->p90 = v[(n * 90 + 99) / 100 - 1];
	q->p99 = v[(n * 99 + 99) / 100 - 1];
	q->max = v[n - 1];
}

/* One-way delays and the packets the offset came from. */
static void delays(struct rs_cmp *c)
{
	GArray *all = g_array_new(FALSE, FALSE, sizeof(int64_t));
	GArray **per = g_new0(GArray *, c->flows->len ? c->flows->len : 1);
	for (guint k = 0; k < c->flows->len; k++)
		per[k] = g_array_new(FALSE, FALSE, sizeof(int64_t));
	GArray *A = c->pkts[0];
	int64_t lo = 0, hi = 0;
	bool have_lo = false, have_hi = false;
	/* The B side's times, by its frame number: B's array is in sorted order. */
	GHashTable *tb = g_hash_table_new(g_int64_hash, g_int64_equal);
	for (guint j = 0; j < c->pkts[1]->len; j++) {
		struct rs_cmp_pkt *b = &g_array_index(c->pkts[1], struct rs_cmp_pkt, j);
		if (b->match)
			g_hash_table_insert(tb, &b->frame_no, b);
	}
	for (guint i = 0; i < A->len; i++) {
		const struct rs_cmp_pkt *a = &g_array_index(A, struct rs_cmp_pkt, i);
		if (!a->match)
			continue;
		const struct rs_cmp_pkt *b = g_hash_table_lookup(tb, &a->match);
		const struct rs_cmp_flow *fl = c->flows->pdata[a->flow];
		int64_t r = (int64_t)(b->ts_ns - a->ts_ns);
		int64_t d = fl->b_first ? c->offset_ns - r : r - c->offset_ns;
		g_array_append_val(all, d);
		g_array_append_val(per[a->flow], d);
		if (!fl->b_first && (!have_lo || r < lo)) {
			lo = r;
			have_lo = true;
			c->offset_frame[0] = a->frame_no;
			c->offset_frame[1] = b->frame_no;
		}
		if (fl->b_first && (!have_hi || r > hi)) {
			hi = r;
			have_hi = true;
			c->offset_frame2[0] = a->frame_no;
			c->offset_frame2[1] = b->frame_no;
		}
	}
	quantiles(all, &c->delay);
	for (guint k = 0; k < c->flows->len; k++) {
		quantiles(per[k], &((struct rs_cmp_flow *)c->flows->pdata[k])->delay);
		g_array_free(per[k], TRUE);
	}
	g_free(per);
	g_array_free(all, TRUE);
	g_hash_table_destroy(tb);
}

/* Where a packet of `side` at time t (its own clock) would have passed the
 * other point: -1 before the other capture's window, 1 after it, 0 inside.
 * Its time there is t + offset + its one-way delay; the delay is not known
 * for a packet seen once, so it is given the whole range of (time at B -
 * time at A) of the matched packets [lo, hi], offset and delay spread
 * together, and is inside only when every time in that range falls strictly
 * between the other's first and last frame. A packet at an edge or within
 * the delay spread of it could have passed before the capture began or
 * after it ended, and a lost packet there cannot be told from one the
 * capture missed: it counts as outside, since blaming the network for the
 * capture is the worse error. Equal times are outside too: the capture may
 * have started or stopped within the same clock tick. */
static int where(const struct rs_cmp *c, int side, uint64_t t)
{
	int64_t lo = side ? -c->window_hi : c->window_lo, hi = side ? -c->window_lo : c->window_hi;
	int64_t there_lo = (int64_t)t + lo, there_hi = (int64_t)t + hi;
	if (there_lo <= (int64_t)c->t_first[!side])
		return -1;
	if (there_hi >= (int64_t)c->t_last[!side])
		return 1;
	return 0;
}

/* The packets seen at one point only that the other capture was not there
 * to see: out of only[], into outside[]. */
static void windows(struct rs_cmp *c)
{
	bool any = false;
	for (guint k = 0; k < c->flows->len; k++) {
		const struct rs_cmp_flow *fl = c->flows->pdata[k];
		if (!fl->matched)
			continue;
		if (!any || fl->raw_min < c->window_lo)
			c->window_lo = fl->raw_min;
		if (!any || fl->raw_max > c->window_hi)
			c->window_hi = fl->raw_max;
		any = true;
	}
	if (!any || c->method == RS_CMP_NONE)
		return;
	for (guint k = 0; k < c->flows->len; k++) {
		struct rs_cmp_flow *fl = c->flows->pdata[k];
		for (int s = 0; s < 2; s++) {
			GArray *v = fl->only[s];
			guint kept = 0;
			for (guint i = 0; i < v->len; i++) {
				const struct rs_cmp_pkt *p = &g_array_index(v, struct rs_cmp_pkt, i);
				int w = where(c, s, p->ts_ns);
				if (w)
					fl->outside[s][w > 0]++;
				else
					g_array_index(v, struct rs_cmp_pkt, kept++) = *p;
			}
			g_array_set_size(v, kept);
			c->outside[s][0] += fl->outside[s][0];
			c->outside[s][1] += fl->outside[s][1];
		}
	}
}

void rs_cmp_finish(struct rs_cmp *c)
{
	if (c->finished)
		return;
	c->finished = true;
	match(c);
	estimate_offset(c); /* again, with the re-sent packets matched too */
	delays(c);
	windows(c);
}

bool rs_cmp_differs(const struct rs_cmp *c)
{
	for (guint k = 0; k < c->flows->len; k++) {
		const struct rs_cmp_flow *fl = c->flows->pdata[k];
		if (fl->only[0]->len || fl->only[1]->len)
			return true;
	}
	return false;
}
