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
 */
#include <stdlib.h>

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

void rs_lat_add(struct rs_latvec *v, uint64_t ns)
{
	if (v->n == 0 || ns < v->min)
		v->min = ns;
	if (ns > v->max)
		v->max = ns;
	v->n++;
	if (v->len < RS_LAT_EXACT) {
		if (v->len == v->cap) {
			v->cap = v->cap ? v->cap * 2 : 4;
			v->v = g_renew(uint64_t, v->v, v->cap);
		}
		v->v[v->len++] = ns;
		return;
	}
	uint64_t j = next_rand(&v->rng) % v->n;
	if (j < RS_LAT_EXACT)
		v->v[j] = ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Nearest-rank quantile: the smallest sample with at least q of the samples
 * at or below it. Sorts the kept samples in place. */
uint64_t rs_lat_quantile(struct rs_latvec *v, double q)
{
	if (!v->len)
		return 0;
	/* Reports ask for the median, then the p99: sort once. */
	uint32_t k = 1;
	while (k < v->len && v->v[k - 1] <= v->v[k])
		k++;
	if (k < v->len)
		qsort(v->v, v->len, sizeof v->v[0], cmp_u64);
	double rank = q * v->len;
	uint32_t i = (uint32_t)rank;
	if ((double)i < rank)
		i++;
	if (i == 0)
		i = 1;
	if (i > v->len)
		i = v->len;
	return v->v[i - 1];
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
		rs_lat_add(dst, src->v[i]);
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
	v->len = v->cap = 0;
}
