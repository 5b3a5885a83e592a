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
 *
 * The vector keeps 32-bit samples while they fit (any latency under 4.29 s,
 * which is every one a healthy fabric shows): half the memory and half the
 * cache lines that 64 bits would take, with the same values. The first
 * sample that does not fit widens the whole vector to 64 bits, so a stalled
 * QP's minutes-long answer is kept exactly too.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/internal.h"

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

/* The staged samples join v, in order. */
static void unstage(struct rs_latvec *v)
{
	if (!v->nstage)
		return;
	/* max bounds every staged sample: one test instead of one each. */
	if (!v->wide && v->max > UINT32_MAX)
		widen(v);
	if (v->len + v->nstage > v->cap) {
		/* Four times larger each time (4, 16, ... RS_LAT_EXACT): a vector
		 * that fills is copied five times rather than ten, and those
		 * copies, with the allocator's work, were 3% of a bench run.
		 * Quiet flows, the many, stay at 4 or 16 samples. */
		uint32_t cap = v->cap ? v->cap : 1;
		while (cap < (uint32_t)v->len + v->nstage)
			cap *= 4;
		if (cap > RS_LAT_EXACT)
			cap = RS_LAT_EXACT;
		v->cap = (uint16_t)cap;
		v->v = g_realloc(v->v, (size_t)v->cap * (v->wide ? sizeof(uint64_t) : sizeof(uint32_t)));
	}
	if (v->wide) {
		memcpy((uint64_t *)v->v + v->len, v->stage, v->nstage * sizeof v->stage[0]);
	} else {
		uint32_t *to = (uint32_t *)v->v + v->len;
		for (uint32_t i = 0; i < v->nstage; i++)
			to[i] = (uint32_t)v->stage[i];
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
	if (v->len + v->nstage < RS_LAT_EXACT) {
		v->stage[v->nstage++] = ns;
		if (v->nstage == RS_LAT_STAGE)
			unstage(v);
		return;
	}
	unstage(v); /* the reservoir replaces kept samples: all of them in v */
	uint64_t j = next_rand(&v->rng) % v->n;
	if (j < RS_LAT_EXACT) {
		if (!v->wide && ns > UINT32_MAX)
			widen(v);
		keep(v, (uint32_t)j, ns);
	}
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
			/* All of it: a vector inside a struct rs_latency (the ACK
			 * one) straddles two lines, and stage[] is in the second. */
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

static bool sorted(const struct rs_latvec *v)
{
	for (uint32_t k = 1; k < v->len; k++)
		if (kept(v, k - 1) > kept(v, k))
			return false;
	return true;
}

/* Sorts the kept samples in place. */
static void sort_kept(struct rs_latvec *v)
{
	if (v->wide)
		sort_u64(v->v, v->len);
	else
		sort_u32(v->v, v->len);
}

/* Nearest-rank quantile: the smallest sample with at least q of the samples
 * at or below it. Sorts the kept samples in place. */
uint64_t rs_lat_quantile(struct rs_latvec *v, double q)
{
	/* Fewer samples than one stage (most flows of a capture with a million
	 * QPs): sorted where they are, rather than given a vector of their own
	 * at report time. The kept set is the same either way. */
	uint32_t n = v->nstage;
	if (v->len) {
		unstage(v);
		n = v->len;
		/* Reports ask for the median, then the p99: sort once. */
		if (!sorted(v))
			sort_kept(v);
	} else {
		if (!n)
			return 0;
		sort_u64(v->stage, n);
	}
	double rank = q * n;
	uint32_t i = (uint32_t)rank;
	if ((double)i < rank)
		i++;
	if (i == 0)
		i = 1;
	if (i > n)
		i = n;
	return v->len ? kept(v, i - 1) : v->stage[i - 1];
}

void rs_lat_merge(struct rs_latvec *dst, const struct rs_latvec *src)
{
	if (!src->n)
		return;
	/* Replaying the kept samples keeps dst uniform over both only while
	 * src kept everything; past that it is an approximation, weighted by
	 * the share of samples each side saw. */
	uint64_t seen = dst->n;
	for (uint32_t i = 0; i < src->len; i++)
		rs_lat_add(dst, kept(src, i));
	for (uint32_t i = 0; i < src->nstage; i++)
		rs_lat_add(dst, src->stage[i]);
	dst->n = seen + src->n;
	if (src->min < dst->min || seen == 0)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

void rs_lat_free(struct rs_latvec *v)
{
	g_free(v->v);
	v->v = NULL;
	v->len = v->cap = v->nstage = 0;
	v->wide = false;
}
