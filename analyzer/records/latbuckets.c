/*
 * latbuckets.c — latency counted into fixed buckets, for the metrics
 * (report/metrics.c): a Prometheus histogram is a set of counters, each
 * only ever going up, which the kept samples (latency.c: a reservoir past
 * its first thousands) cannot give. Kept only when asked for
 * (rs_analyzer_opts.lat_buckets): per requester, in a table apart from its
 * struct rs_flow (whose size a million QPs multiply), and for the capture.
 */
#include "analyzer/records/records.h"

/* Upper bounds, in nanoseconds: 1-2-5 steps from 1 us to 10 s. */
const uint64_t rs_lat_bucket_le_ns[RS_LAT_BUCKETS] = {
	1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000,
	1000000, 2000000, 5000000, 10000000, 20000000, 50000000, 100000000, 200000000, 500000000,
	1000000000, 2000000000, 5000000000, 10000000000,
};

static unsigned bucket_of(uint64_t ns)
{
	unsigned b = 0;
	while (b < RS_LAT_BUCKETS && ns > rs_lat_bucket_le_ns[b])
		b++;
	return b; /* RS_LAT_BUCKETS: above the last bound (+Inf only) */
}

static void count(struct rs_lat_buckets *h, enum rs_lat_kind k, unsigned b, uint64_t ns)
{
	h->in[k][b]++;
	h->count[k]++;
	h->sum_ns[k] += ns;
}

void rs_lat_bucket(struct rs_analyzer *a, const struct rs_flow *req, enum rs_lat_kind k, uint64_t ns)
{
	if (!a->lat_buckets)
		return;
	unsigned b = bucket_of(ns);
	count(&a->lat_all, k, b, ns);
	struct rs_lat_buckets *h = g_hash_table_lookup(a->lat_buckets, req);
	if (!h) {
		h = g_new0(struct rs_lat_buckets, 1);
		g_hash_table_insert(a->lat_buckets, (gpointer)req, h);
	}
	count(h, k, b, ns);
}

void rs_lat_buckets_init(struct rs_analyzer *a)
{
	if (a->opts.lat_buckets)
		a->lat_buckets = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
}

void rs_lat_buckets_forget(struct rs_analyzer *a, const struct rs_flow *fl)
{
	if (a->lat_buckets)
		g_hash_table_remove(a->lat_buckets, fl);
}

void rs_lat_buckets_free(struct rs_analyzer *a)
{
	if (a->lat_buckets)
		g_hash_table_destroy(a->lat_buckets);
	a->lat_buckets = NULL;
}

const struct rs_lat_buckets *rs_analyzer_lat_buckets(const struct rs_analyzer *a, const struct rs_flow *fl)
{
	if (!a->lat_buckets)
		return NULL;
	return fl ? g_hash_table_lookup(a->lat_buckets, fl) : &a->lat_all;
}
