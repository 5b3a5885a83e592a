/*
 * latency.c — latency samples with exact quantiles while they are few and a
 * bounded memory when they are many.
 *
 * The first RS_LAT_EXACT samples are kept as they come. After that each new
 * sample replaces a random kept one with probability RS_LAT_EXACT/n
 * (reservoir sampling, Vitter's algorithm R), so the kept set stays a uniform
 * sample of everything seen: median and p99 of 4096 uniform samples are
 * within a fraction of a percentile of the truth. min and max are exact.
 * The generator is seeded per vector, so reports are reproducible.
 *
 * Kept samples are staged (struct rs_latvec) and join the vector a few at a
 * time; everything that reads the vector unstages them first, so the
 * vector, and the reservoir's choices, are what they would be without it.
 * A sample too wide for the stage (4.29 s or more) joins the vector at
 * once, after the staged ones.
 *
 * Reports read two ranks of each vector (median, p99), found by selection
 * (rs_lat_quantiles), which reorders the kept samples but keeps the set.
 *
 * The vector keeps 32-bit samples while they fit (any latency under 4.29 s,
 * which is every one a healthy fabric shows): half the memory and half the
 * cache lines that 64 bits would take, with the same values. The first
 * sample that does not fit widens the whole vector to 64 bits, so a stalled
 * QP's minutes-long answer is kept exactly too.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/records/records.h"

static uint64_t next_rand(uint64_t *s)
{
	/* xorshift64*: small, fast, deterministic */
	uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ULL;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* The i'th kept sample. */
static inline uint64_t kept(const struct rs_latvec *v, uint32_t i)
{
	return v->wide ? ((const uint64_t *)v->v)[i] : ((const uint32_t *)v->v)[i];
}

static inline void keep(struct rs_latvec *v, uint32_t i, uint64_t ns)
{
	if (v->wide)
		((uint64_t *)v->v)[i] = ns;
	else
		((uint32_t *)v->v)[i] = (uint32_t)ns;
}

/* From 32-bit to 64-bit samples, capacity and contents unchanged. */
static void widen(struct rs_latvec *v)
{
	const uint32_t *narrow = v->v;
	uint64_t *w = g_new(uint64_t, v->cap);
	for (uint32_t i = 0; i < v->len; i++)
		w[i] = narrow[i];
	g_free(v->v);
	v->v = w;
	v->wide = true;
}

/* Room for `need` kept samples. Four times larger each time (4, 16, ...
 * RS_LAT_EXACT): a vector that fills is copied five times rather than ten,
 * and those copies, with the allocator's work, were 3% of a bench run.
 * Quiet flows, the many, stay at 16 samples or in the stage. */
static void reserve(struct rs_latvec *v, uint32_t need)
{
	if (need <= v->cap)
		return;
	uint32_t cap = v->cap ? v->cap : 1;
	while (cap < need)
		cap *= 4;
	if (cap > RS_LAT_EXACT)
		cap = RS_LAT_EXACT;
	v->cap = (uint16_t)cap;
	v->v = g_realloc(v->v, (size_t)v->cap * (v->wide ? sizeof(uint64_t) : sizeof(uint32_t)));
}

/* The staged samples join v, in order. */
static void unstage(struct rs_latvec *v)
{
	if (!v->nstage)
		return;
	reserve(v, (uint32_t)v->len + v->nstage);
	if (v->wide) {
		uint64_t *to = (uint64_t *)v->v + v->len;
		for (uint32_t i = 0; i < v->nstage; i++)
			to[i] = v->stage[i];
	} else {
		memcpy((uint32_t *)v->v + v->len, v->stage, v->nstage * sizeof v->stage[0]);
	}
	v->len += v->nstage;
	v->nstage = 0;
}

void rs_lat_add(struct rs_latvec *v, uint64_t ns)
{
	if (v->n == 0 || ns < v->min)
		v->min = ns;
	if (ns > v->max)
		v->max = ns;
	v->n++;
	if (v->len + v->nstage < RS_LAT_EXACT && ns <= UINT32_MAX) {
		v->stage[v->nstage++] = (uint32_t)ns;
		if (v->nstage == RS_LAT_STAGE)
			unstage(v);
		return;
	}
	/* The reservoir replaces kept samples, and a sample too wide for the
	 * stage joins v at once: either way, after those staged before it. */
	unstage(v);
	if (!v->wide && ns > UINT32_MAX)
		widen(v);
	if (v->len < RS_LAT_EXACT) {
		reserve(v, (uint32_t)v->len + 1);
		keep(v, v->len++, ns);
		return;
	}
	uint64_t j = next_rand(&v->rng) % v->n;
	if (j < RS_LAT_EXACT)
		keep(v, (uint32_t)j, ns);
}

/*
 * Answers come from thousands of requesters in turn, so adding a sample
 * where it is found would wait for that requester's vector (and, every
 * RS_LAT_STAGE samples, for the end of its kept samples) while the frame
 * loop has its own lines in flight. Logged instead, samples join their
 * vectors RS_LATLOG at a time in a loop that knows which vectors come
 * next and fetches them ahead. Each vector gets its samples in the order
 * they came, so what it keeps is what adding at once would have kept.
 */
#define LATLOG_AHEAD 16

void rs_lat_log(struct rs_analyzer *a, struct rs_latvec *v, uint64_t ns)
{
	if (!a->latlog)
		a->latlog = g_new(struct rs_lat_entry, RS_LATLOG);
	a->latlog[a->latlog_n++] = (struct rs_lat_entry){ v, ns };
	if (a->latlog_n == RS_LATLOG)
		rs_lat_flush(a);
}

void rs_lat_flush(struct rs_analyzer *a)
{
	const struct rs_lat_entry *e = a->latlog;
	uint32_t n = a->latlog_n;
	for (uint32_t i = 0; i < n; i++) {
		if (i + LATLOG_AHEAD < n) {
			/* All of it: a vector may straddle two lines, and
			 * stage[] is in the second. */
			rs_prefetch_lines(e[i + LATLOG_AHEAD].v, sizeof(struct rs_latvec));
		}
		if (i + LATLOG_AHEAD / 2 < n) {
			/* Its line has come: where its next stage will go. */
			const struct rs_latvec *w = e[i + LATLOG_AHEAD / 2].v;
			if (w->v && w->len < w->cap)
				__builtin_prefetch((const char *)w->v + (size_t)w->len * (w->wide ? 8 : 4), 1);
		}
		rs_lat_add(e[i].v, e[i].ns);
	}
	a->latlog_n = 0;
}

/* ---- sorting the kept samples ------------------------------------------
 * Reports sort thousands of vectors of up to RS_LAT_EXACT samples; qsort()
 * calls its comparison through a pointer at every step, and that made
 * sorting most of the report's time. A least-significant-digit radix sort
 * on the integers instead: one pass counts all the byte digits, then one
 * pass per digit that is not the same in every sample (latencies below a
 * second have at most four); insertion sort for short vectors. 32-bit
 * vectors (the usual ones) are sorted as they are, on four digits: widening
 * them to sort on eight cost a copy each way and twice the counting. */

#define DEFINE_RADIX_SORT(name, type)                                                          \
	static void name(type *v, size_t n)                                                    \
	{                                                                                      \
		enum { DIGITS = sizeof(type) };                                                \
		if (n < 64) {                                                                  \
			for (size_t i = 1; i < n; i++) {                                       \
				type x = v[i];                                                 \
				size_t j = i;                                                  \
				for (; j > 0 && v[j - 1] > x; j--)                             \
					v[j] = v[j - 1];                                       \
				v[j] = x;                                                      \
			}                                                                      \
			return;                                                                \
		}                                                                              \
		uint32_t count[DIGITS][256];                                                   \
		memset(count, 0, sizeof count);                                                \
		for (size_t i = 0; i < n; i++)                                                 \
			for (int d = 0; d < DIGITS; d++)                                       \
				count[d][(v[i] >> (8 * d)) & 0xFF]++;                          \
		type *tmp = g_new(type, n);                                                    \
		type *src = v, *dst = tmp;                                                     \
		for (int d = 0; d < DIGITS; d++) {                                             \
			uint32_t *c = count[d];                                                \
			if (c[(src[0] >> (8 * d)) & 0xFF] == n)                                \
				continue;                                                      \
			uint32_t sum = 0;                                                      \
			for (int b = 0; b < 256; b++) {                                        \
				uint32_t t = c[b];                                             \
				c[b] = sum;                                                    \
				sum += t;                                                      \
			}                                                                      \
			for (size_t i = 0; i < n; i++)                                         \
				dst[c[(src[i] >> (8 * d)) & 0xFF]++] = src[i];                 \
			type *t = src;                                                         \
			src = dst;                                                             \
			dst = t;                                                               \
		}                                                                              \
		if (src != v)                                                                  \
			memcpy(v, src, n * sizeof *v);                                         \
		g_free(tmp);                                                                   \
	}

DEFINE_RADIX_SORT(sort_u64, uint64_t)
DEFINE_RADIX_SORT(sort_u32, uint32_t)

/* ---- order statistics ----------------------------------------------------
 * A report wants two ranks of each vector (median and p99), not the order
 * of all of it: selection finds them in linear time, in place, where the
 * radix sort took a pass per digit and a vector-sized buffer (half of the
 * report's time with thousands of flows). Three-way partitions around a
 * median-of-three pivot: equal samples (common in latencies measured in
 * whole microseconds) leave the range at once. A capture built to defeat
 * the pivot gets 2*log2(n) rounds, then its range is sorted instead. */

#define DEFINE_SELECT(name, type, sort)                                                        \
	static void name(type *v, uint32_t lo, uint32_t hi, uint32_t k)                        \
	{                                                                                      \
		int rounds = 2 * (32 - __builtin_clz(hi - lo));                               \
		while (hi - lo > 16) {                                                         \
			if (rounds-- == 0) {                                                   \
				sort(v + lo, hi - lo);                                         \
				return;                                                        \
			}                                                                      \
			type a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];              \
			type p = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b)); \
			uint32_t lt = lo, i = lo, gt = hi;                                     \
			while (i < gt) {                                                       \
				type x = v[i];                                                 \
				if (x < p) {                                                   \
					v[i++] = v[lt];                                        \
					v[lt++] = x;                                           \
				} else if (x > p) {                                            \
					v[i] = v[--gt];                                        \
					v[gt] = x;                                             \
				} else {                                                       \
					i++;                                                   \
				}                                                              \
			}                                                                      \
			/* [lo, lt) < p, [lt, gt) == p, [gt, hi) > p */                       \
			if (k < lt)                                                            \
				hi = lt;                                                       \
			else if (k >= gt)                                                      \
				lo = gt;                                                       \
			else                                                                   \
				return;                                                        \
		}                                                                              \
		sort(v + lo, hi - lo);                                                         \
	}

DEFINE_SELECT(select_u64, uint64_t, sort_u64)
DEFINE_SELECT(select_u32, uint32_t, sort_u32)

/* The index of the nearest-rank q-quantile of n samples: the smallest
 * sample with at least q of them at or below it. */
static uint32_t rank_index(double q, uint32_t n)
{
	double rank = q * n;
	uint32_t i = (uint32_t)rank;
	if ((double)i < rank)
		i++;
	if (i == 0)
		i = 1;
	if (i > n)
		i = n;
	return i - 1;
}

void rs_lat_quantiles(struct rs_latvec *v, const double *q, uint64_t *out, int count)
{
	/* Fewer samples than one stage (most flows of a capture with a million
	 * QPs): selected where they are, rather than given a vector of their
	 * own at report time. The kept set is the same either way. */
	uint32_t n = v->nstage;
	if (v->len) {
		unstage(v);
		n = v->len;
	}
	/* A rank above the one before is looked for above it only: selecting
	 * that one left nothing smaller there. */
	uint32_t prev = 0;
	for (int j = 0; j < count; j++) {
		if (!n) {
			out[j] = 0;
			continue;
		}
		uint32_t i = rank_index(q[j], n);
		if (j == 0 || i != prev) {
			uint32_t lo = j > 0 && i > prev ? prev + 1 : 0;
			if (v->len && v->wide)
				select_u64(v->v, lo, n, i);
			else
				select_u32(v->len ? v->v : v->stage, lo, n, i);
		}
		out[j] = v->len ? kept(v, i) : v->stage[i];
		prev = i;
	}
}

uint64_t rs_lat_quantile(struct rs_latvec *v, double q)
{
	uint64_t x;
	rs_lat_quantiles(v, &q, &x, 1);
	return x;
}

void rs_lat_free(struct rs_latvec *v)
{
	g_free(v->v);
	v->v = NULL;
	v->len = v->cap = v->nstage = 0;
	v->wide = false;
}

/* ---- a flow's latency state -------------------------------------------------------------- */

struct rs_latency *rs_latency_new(struct rs_pool *p)
{
	return rs_pool_alloc0(p); /* a ring of one, in place */
}

void rs_latency_free(struct rs_pool *p, struct rs_latency *l)
{
	if (!l)
		return;
	for (int k = 0; k < RS_LAT__COUNT; k++) {
		struct rs_latvec *v = (struct rs_latvec *)rs_latvec_vec(l, (enum rs_lat_kind)k);
		if (v) {
			rs_lat_free(v);
			g_free(v);
		}
	}
	if (l->cap_log2)
		g_free(l->q.ring);
	rs_pool_free(p, l);
}

struct rs_latvec *rs_latvec_w(struct rs_latency *l, enum rs_lat_kind k)
{
	if (l->single & 1u << k) {
		uint64_t one = l->by_kind[k].one;
		bool two = l->single & RS_LAT_TWO << k;
		l->single &= (uint8_t)~(1u << k | RS_LAT_TWO << k);
		l->by_kind[k].v = g_new0(struct rs_latvec, 1);
		rs_lat_add(l->by_kind[k].v, (uint32_t)one);
		if (two)
			rs_lat_add(l->by_kind[k].v, one >> 32);
	} else if (!l->by_kind[k].v) {
		l->by_kind[k].v = g_new0(struct rs_latvec, 1);
	}
	return l->by_kind[k].v;
}

struct rs_latvec *rs_latvec_read(const struct rs_latency *l, enum rs_lat_kind k, struct rs_latvec *buf)
{
	if (!l)
		return NULL;
	if (!(l->single & 1u << k))
		return l->by_kind[k].v;
	*buf = (struct rs_latvec){ 0 };
	rs_lat_add(buf, (uint32_t)l->by_kind[k].one);
	if (l->single & RS_LAT_TWO << k)
		rs_lat_add(buf, l->by_kind[k].one >> 32);
	return buf;
}

/* The first two samples of a kind are kept in place, at once (nothing of
 * that kind can be waiting in the log); the rest wait in the log for their
 * vector (rs_lat_log), which the third sample's arrival allocates. */
void rs_lat_sample(struct rs_analyzer *a, struct rs_latency *l, enum rs_lat_kind k, uint64_t ns)
{
	if (!(l->single & 1u << k) && !l->by_kind[k].v && ns <= UINT32_MAX) {
		l->by_kind[k].one = ns;
		l->single |= (uint8_t)(1u << k);
		return;
	}
	if ((l->single & (1u << k | RS_LAT_TWO << k)) == 1u << k && ns <= UINT32_MAX) {
		l->by_kind[k].one |= ns << 32;
		l->single |= (uint8_t)(RS_LAT_TWO << k);
		return;
	}
	rs_lat_log(a, rs_latvec_w(l, k), ns);
}
