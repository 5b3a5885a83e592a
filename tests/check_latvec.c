/*
 * check_latvec.c — the analysis's numbers where they outgrow their
 * storage: latency vectors (the stage, the reservoir, the log of samples
 * merged at the end) and their quantiles against a full sort and the
 * nearest-rank definition, latencies and message counters past 32 bits,
 * the logged samples of a requester evicted under --max-flows, and the
 * message and opcode counters (sizes, immediates, 16-bit wraps, eviction).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/transport/transport.h"
#include "tests/support/afeed.h"
#include "tests/support/rstest.h"

#define A_HOST 1 /* 192.0.2.1 */
#define B_HOST 2 /* 192.0.2.2 */

static struct rt_feed run;
static struct rs_analyzer *an;

static void setup(void)
{
	rt_feed_start(&run, (struct rs_analyzer_opts){ .interval_ns = 10000000 });
	an = run.an;
}

static void restart(struct rs_analyzer_opts o)
{
	rt_feed_stop(&run);
	rt_feed_start(&run, o);
	an = run.an;
}

static void teardown(void)
{
	rt_feed_stop(&run);
}

static void feed_at(struct rs_frame f, uint64_t ts_ns)
{
	rt_feed_add(&run, f, ts_ns, NULL);
}

static void feed(struct rs_frame f)
{
	feed_at(f, 1000000000ull + run.frame_no * 1000);
}

static struct rs_flow *flow(int from, int to, uint32_t qpn)
{
	struct rs_flowkey k;
	struct rs_frame f = rt_roce_frame(from, to, 0, qpn, 0, 0);
	rs_flowkey_from_frame(&k, &f);
	return rs_flow_find(an, &k);
}

static struct rs_frame ack(int from, int to, uint32_t qpn, uint32_t psn, uint8_t syndrome, uint32_t msn)
{
	struct rs_frame f = rt_roce_frame(from, to, IBV_OPCODE_RC_ACKNOWLEDGE, qpn, psn, 0);
	f.aeth.syndrome = syndrome;
	f.aeth.msn = msn;
	return f;
}

START_TEST(quantiles_of_samples_still_staged)
{
	/* Fewer samples than a stage: the quantiles come from the stage. */
	struct rs_latvec v;
	memset(&v, 0, sizeof v);
	rs_lat_add(&v, 30);
	rs_lat_add(&v, 10);
	rs_lat_add(&v, 20);
	ck_assert_uint_eq(v.len, 0);
	ck_assert_uint_eq(rs_lat_quantile(&v, 0.5), 20); /* nearest rank: ceil(1.5) = 2nd of 10, 20, 30 */
	ck_assert_uint_eq(rs_lat_quantile(&v, 0.99), 30);
	ck_assert_uint_eq(rs_lat_quantile(&v, 0.0), 10);
	/* More come after a report read them: 5, 10, 20, 30, 40, 50. */
	rs_lat_add(&v, 50);
	rs_lat_add(&v, 5);
	rs_lat_add(&v, 40);
	ck_assert_uint_eq(v.n, 6);
	ck_assert_uint_eq(rs_lat_quantile(&v, 0.5), 20); /* 3rd of 6 */
	ck_assert_uint_eq(rs_lat_quantile(&v, 0.99), 50);
	ck_assert_uint_eq(v.min, 5);
	ck_assert_uint_eq(v.max, 50);
	rs_lat_free(&v);
}
END_TEST

START_TEST(latencies_past_32_bits_are_kept_exactly)
{
	/* Samples are kept in 32 bits while they fit; one of 5 s (past
	 * 2^32 ns = 4.29 s) widens the vector and every value stays exact. */
	struct rs_latvec v;
	memset(&v, 0, sizeof v);
	for (uint64_t i = 1; i <= 10; i++)
		rs_lat_add(&v, i * 100); /* 100 .. 1000: a stage (8) joins the vector, two wait */
	ck_assert_uint_eq(v.len, 8);
	ck_assert(!v.wide);
	rs_lat_add(&v, 5000000000ull);
	rs_lat_add(&v, 7);
	/* 7, 100, 200, ..., 1000, 5e9: twelve samples. */
	ck_assert_uint_eq(rs_lat_quantile(&v, 0.5), 500);  /* the 6th */
	ck_assert_uint_eq(rs_lat_quantile(&v, 0.99), 5000000000ull); /* the 12th, not 5e9 mod 2^32 */
	ck_assert_uint_eq(rs_lat_quantile(&v, 0.0), 7);
	ck_assert(v.wide);
	ck_assert_uint_eq(v.max, 5000000000ull);
	rs_lat_free(&v);
}
END_TEST

/* The nearest rank of q among n samples (1-based): the smallest r with
 * r >= q * n, at least 1. */
static uint64_t nearest_rank(double q, uint64_t n)
{
	uint64_t r = 1;
	while (r < n && (double)r < q * (double)n)
		r++;
	return r;
}

START_TEST(quantiles_of_long_vectors_in_both_widths)
{
	/* 3000 samples (many rounds of selection, not only the small-range
	 * sort) in a scrambled order, k * 37 + 5 for k = 0..2999: three byte
	 * digits, none of which orders them alone. Then one of 5 s widens the
	 * vector to 64 bits. */
	struct rs_latvec v;
	memset(&v, 0, sizeof v);
	for (uint64_t i = 0; i < 3000; i++)
		rs_lat_add(&v, (i * 7919u) % 3000u * 37u + 5u);
	static const double qs[] = { 0.0, 0.001, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0 };
	for (size_t i = 0; i < G_N_ELEMENTS(qs); i++)
		ck_assert_uint_eq(rs_lat_quantile(&v, qs[i]), (nearest_rank(qs[i], 3000) - 1) * 37 + 5);
	ck_assert(!v.wide);
	rs_lat_add(&v, 5000000000ull);
	for (size_t i = 0; i < G_N_ELEMENTS(qs); i++) {
		uint64_t r = nearest_rank(qs[i], 3001);
		ck_assert_uint_eq(rs_lat_quantile(&v, qs[i]), r == 3001 ? 5000000000ull : (r - 1) * 37 + 5);
	}
	ck_assert(v.wide);
	rs_lat_free(&v);
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

START_TEST(quantiles_by_selection_match_a_full_sort)
{
	/* Reports find the median and the p99 by selection, not by sorting:
	 * checked against qsort() of the same samples for orders that defeat
	 * naive pivots (sorted, reversed, organ pipe, all equal, two values,
	 * a sawtooth) and random ones, for lengths around the small-range
	 * cutoff and up to RS_LAT_EXACT, in both widths. */
	static const uint32_t lens[] = { 1, 2, 7, 8, 9, 15, 16, 17, 33, 100, 257, 1000, 4095, RS_LAT_EXACT };
	static const double qs[] = { 0.5, 0.99 };
	uint64_t *ref = g_new(uint64_t, RS_LAT_EXACT);
	uint64_t x = 88172645463325252ull;
	for (int wide = 0; wide < 2; wide++)
		for (int pattern = 0; pattern < 7; pattern++)
			for (size_t li = 0; li < G_N_ELEMENTS(lens); li++) {
				uint32_t n = lens[li];
				struct rs_latvec v;
				memset(&v, 0, sizeof v);
				for (uint32_t i = 0; i < n; i++) {
					x ^= x << 13;
					x ^= x >> 7;
					x ^= x << 17;
					uint64_t s = pattern == 0 ? i
						   : pattern == 1 ? n - i
						   : pattern == 2 ? (i < n / 2 ? i : n - i)
						   : pattern == 3 ? 42
						   : pattern == 4 ? (x & 1) * 1000
						   : pattern == 5 ? i % 17
								  : x % 100000;
					/* The first sample of a wide vector is past 32 bits. */
					if (wide && i == 0)
						s += 5000000000ull;
					ref[i] = s;
					rs_lat_add(&v, s);
				}
				ck_assert(v.wide == (wide != 0));
				qsort(ref, n, sizeof *ref, cmp_u64);
				uint64_t got[2];
				rs_lat_quantiles(&v, qs, got, 2);
				for (int q = 0; q < 2; q++)
					ck_assert_msg(got[q] == ref[nearest_rank(qs[q], n) - 1],
						      "wide %d pattern %d n %u q %.2f: %llu, sorted says %llu", wide, pattern,
						      n, qs[q], (unsigned long long)got[q],
						      (unsigned long long)ref[nearest_rank(qs[q], n) - 1]);
				/* Asked again, out of order, on the reordered vector. */
				ck_assert_uint_eq(rs_lat_quantile(&v, 0.0), ref[0]);
				ck_assert_uint_eq(rs_lat_quantile(&v, 0.99), ref[nearest_rank(0.99, n) - 1]);
				ck_assert_uint_eq(rs_lat_quantile(&v, 1.0), ref[n - 1]);
				ck_assert_uint_eq(v.n, n);
				rs_lat_free(&v);
			}
	g_free(ref);
}
END_TEST

START_TEST(reservoir_replacements_past_32_bits_are_exact)
{
	/* The reservoir is full of small samples (32-bit), then most of what
	 * comes is 6 s: a replacement widens the vector in place. */
	struct rs_latvec v;
	memset(&v, 0, sizeof v);
	for (uint64_t i = 1; i <= RS_LAT_EXACT; i++)
		rs_lat_add(&v, i);
	ck_assert(!v.wide);
	for (int i = 0; i < 4 * RS_LAT_EXACT; i++)
		rs_lat_add(&v, 6000000000ull);
	ck_assert(v.wide);
	ck_assert_uint_eq(v.len, RS_LAT_EXACT);
	/* About 80% of the kept samples are 6 s; a truncated one would read
	 * 1705032704 (6e9 mod 2^32) and sort below them. */
	ck_assert_uint_eq(rs_lat_quantile(&v, 0.5), 6000000000ull);
	ck_assert_uint_eq(rs_lat_quantile(&v, 0.99), 6000000000ull);
	ck_assert_uint_le(rs_lat_quantile(&v, 0.05), RS_LAT_EXACT);
	ck_assert_uint_eq(v.min, 1);
	rs_lat_free(&v);
}
END_TEST

START_TEST(logged_latencies_join_as_if_added_at_once)
{
	/* Answers log their samples and the log joins the vectors later, a
	 * batch at a time: every vector must end up as adding each sample at
	 * once would have left it, in the reservoir too (past RS_LAT_EXACT
	 * the order of a vector's samples decides what it keeps). */
	struct rs_latvec logged[3], direct[3];
	memset(logged, 0, sizeof logged);
	memset(direct, 0, sizeof direct);
	uint64_t x = 12345;
	/* Several flushes, and enough for every vector to pass RS_LAT_EXACT
	 * (the rarest gets a quarter); 100 left in the log at the end. */
	uint32_t total = (5 * RS_LAT_EXACT + 3 * RS_LATLOG) / RS_LATLOG * RS_LATLOG + 100;
	for (uint32_t i = 0; i < total; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		unsigned k = (unsigned)(x >> 61) % 3;  /* interleaved, unevenly */
		uint64_t ns = (x >> 20) % 1000000 + (i == 777 ? 6000000000ull : 0);
		rs_lat_log(an, &logged[k], ns);
		rs_lat_add(&direct[k], ns);
	}
	ck_assert_uint_gt(an->latlog_n, 0);       /* some still waiting */
	ck_assert_uint_lt(logged[0].n, direct[0].n);
	rs_analyzer_finish(an);                   /* joins them */
	ck_assert_uint_eq(an->latlog_n, 0);
	for (int k = 0; k < 3; k++) {
		ck_assert_uint_gt(direct[k].n, RS_LAT_EXACT); /* the reservoir was used */
		ck_assert_uint_eq(logged[k].n, direct[k].n);
		ck_assert_uint_eq(logged[k].min, direct[k].min);
		ck_assert_uint_eq(logged[k].max, direct[k].max);
		ck_assert_uint_eq(logged[k].len, direct[k].len);
		for (int q = 0; q <= 64; q++)
			ck_assert_uint_eq(rs_lat_quantile(&logged[k], q / 64.0), rs_lat_quantile(&direct[k], q / 64.0));
		rs_lat_free(&logged[k]);
		rs_lat_free(&direct[k]);
	}
}
END_TEST

/* A kind's first sample is kept in place (under 4.29 s), the second brings
 * a vector that takes it in first: each kind ends up as adding its samples
 * to a vector at once would have left it; a first sample of 4.29 s or more
 * goes to a vector at once. */
START_TEST(latency_first_sample_in_place)
{
	struct rs_pool pool;
	rs_pool_init(&pool, sizeof(struct rs_latency));
	struct rs_latency *l = rs_latency_new(&pool);
	struct rs_latvec direct[RS_LAT__COUNT];
	memset(direct, 0, sizeof direct);
	static const uint64_t acks[] = { 7000, 5000, 9000, 6000 };
	rs_lat_sample(an, l, RS_LAT_READ_FIRST, 12345);
	rs_lat_add(&direct[RS_LAT_READ_FIRST], 12345);
	rs_lat_sample(an, l, RS_LAT_ATOMIC, 6000000000ull);
	rs_lat_add(&direct[RS_LAT_ATOMIC], 6000000000ull);
	ck_assert_ptr_null(rs_latvec_vec(l, RS_LAT_READ_FIRST)); /* in place */
	ck_assert_ptr_nonnull(rs_latvec_vec(l, RS_LAT_ATOMIC));  /* too wide for it */
	ck_assert_ptr_null(rs_latvec_of(l, RS_LAT_READ_LAST));   /* none */
	for (size_t i = 0; i < G_N_ELEMENTS(acks); i++) {
		rs_lat_sample(an, l, RS_LAT_ACK, acks[i]);
		rs_lat_add(&direct[RS_LAT_ACK], acks[i]);
	}
	rs_lat_flush(an);
	for (int k = 0; k < RS_LAT__COUNT; k++) {
		struct rs_latvec *v = rs_latvec_of(l, (enum rs_lat_kind)k);
		if (!direct[k].n) {
			ck_assert_ptr_null(v);
			continue;
		}
		ck_assert_ptr_nonnull(v);
		ck_assert_uint_eq(v->n, direct[k].n);
		ck_assert_uint_eq(v->min, direct[k].min);
		ck_assert_uint_eq(v->max, direct[k].max);
		for (int q = 0; q <= 8; q++)
			ck_assert_uint_eq(rs_lat_quantile(v, q / 8.0), rs_lat_quantile(&direct[k], q / 8.0));
		rs_lat_free(&direct[k]);
	}
	ck_assert_uint_eq(rs_latvec_of(l, RS_LAT_ACK)->min, 5000);
	ck_assert_uint_eq(rs_lat_quantile(rs_latvec_of(l, RS_LAT_ACK), 0.5), 6000);
	rs_latency_free(&pool, l);
	rs_pool_release(&pool);
}
END_TEST

/* The few message counters hold 32 bits: a byte count, a size or a sum
 * beyond that turns them into the whole struct, with every count kept. */
START_TEST(message_counters_past_32_bits)
{
	struct rs_pool few[2];
	rs_pool_init(&few[0], RS_MSGS_FEW_SIZE(RS_MSGS_FEW_SMALL));
	rs_pool_init(&few[1], RS_MSGS_FEW_SIZE(RS_MSGS_FEW));
	struct rs_flow fl;
	memset(&fl, 0, sizeof fl);
	rs_msgs_note(few, &fl, RS_MSG_WRITE, 1, 4000000000u);
	rs_msgs_size(few, &fl, 32, 4000000000u);
	ck_assert(!fl.msgs_full);
	rs_msgs_note(few, &fl, RS_MSG_WRITE, 1, 300000000u); /* 4.3e9 in all */
	ck_assert(fl.msgs_full);
	rs_msgs_size(few, &fl, 29, 300000000u);
	const struct rs_flow_msgs *m = rs_msgs(&fl);
	ck_assert_uint_eq(m->msgs[RS_MSG_WRITE], 2);
	ck_assert_uint_eq(m->msg_bytes[RS_MSG_WRITE], 4300000000ull);
	ck_assert_uint_eq(m->size_hist[32], 1);
	ck_assert_uint_eq(m->size_hist[29], 1);
	ck_assert_uint_eq(m->msg_min, 300000000u);
	ck_assert_uint_eq(m->msg_max, 4000000000u);
	g_free(fl.m);

	memset(&fl, 0, sizeof fl); /* a size of 2^32 or more on its own */
	rs_msgs_note(few, &fl, RS_MSG_READ, 1, 0);
	rs_msgs_size(few, &fl, 32, 5000000000ull);
	ck_assert(fl.msgs_full);
	m = rs_msgs(&fl);
	ck_assert_uint_eq(m->msgs[RS_MSG_READ], 1);
	ck_assert_uint_eq(m->msg_bytes[RS_MSG_READ], 0);
	ck_assert_uint_eq(m->msg_min, 5000000000ull);
	ck_assert_uint_eq(m->msg_max, 5000000000ull);
	g_free(fl.m);

	memset(&fl, 0, sizeof fl); /* stray bytes alone: the counters exist, with no size */
	rs_msgs_note(few, &fl, RS_MSG_SEND, 0, 0);
	ck_assert_ptr_nonnull(fl.m);
	m = rs_msgs(&fl);
	ck_assert_uint_eq(m->msg_min, UINT64_MAX);
	ck_assert_uint_eq(m->msg_max, 0);
	ck_assert(!fl.msgs_full);
	rs_pool_release(&few[0]); /* the few counters came from them */
	rs_pool_release(&few[1]);
}
END_TEST

START_TEST(evicted_requesters_take_no_logged_samples_with_them)
{
	/* A requester timed by an ACK, then evicted under --max-flows while
	 * its sample still waits in the log: the log must be joined first
	 * (under ASan a late join would write into the freed vector). */
	restart((struct rs_analyzer_opts){ .interval_ns = 10000000, .max_flows = 8 });
	uint64_t t = 1000000000ull;
	for (uint32_t q = 0; q < 200; q++) {
		struct rs_frame r = rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x1000 + q, q * 1000, 8);
		r.bth.ackreq = 1;
		feed_at(r, t);
		feed_at(ack(A_HOST, B_HOST, 0x2000 + q, q * 1000, 0, 1), t + 5000); /* +5 µs */
		t += 100000;
	}
	ck_assert_uint_gt(an->evicted, 0);
	rs_analyzer_finish(an);
	unsigned timed = 0;
	for (guint i = 0; i < an->flows->len; i++) {
		struct rs_flow *fl = an->flows->pdata[i];
		const struct rs_latvec *acked = fl ? rs_latvec_of(fl->lat, RS_LAT_ACK) : NULL;
		if (acked) {
			ck_assert_uint_eq(acked->n, 1);
			ck_assert_uint_eq(acked->min, 5000);
			timed++;
		}
	}
	ck_assert_uint_gt(timed, 0);
}
END_TEST

/* The size histogram's bucket as the report defines it: 0 bytes, then
 * [1, 2), [2, 4), ... [2^30, 2^31), and 2^31 bytes or more. */
static unsigned bucket_of(uint64_t size)
{
	unsigned b = 0;
	while (b < RS_SIZE_BUCKETS - 1 && size >= (1ull << b))
		b++;
	return b;
}

START_TEST(messages_keep_their_counts_and_immediates_in_wire_order)
{
	/* Two flows' messages with immediates, interleaved: each flow's
	 * immediates stay in wire order (past RS_MAX_IMMS only the count
	 * grows), and its counts, bytes, size histogram and extremes are what
	 * the sizes say. */
	uint64_t hist[RS_SIZE_BUCKETS] = { 0 }, bytes = 0;
	for (uint32_t i = 0; i < 6000; i++) {
		uint32_t len = (i * 37u) % 3000u; /* 0 to 2999: twelve buckets */
		struct rs_frame x = rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE, 0x12, i, len);
		x.immdt = 0xABC00000u + i;
		feed(x);
		hist[bucket_of(len)]++;
		bytes += len;
		struct rs_frame y = rt_roce_frame(A_HOST, B_HOST, IBV_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 0x11, i, 64);
		y.immdt = 0xDEF00000u + i;
		feed(y);
	}
	rs_analyzer_finish(an);
	const uint32_t n = 6000;
	struct rs_flow *fx = flow(B_HOST, A_HOST, 0x12), *fy = flow(A_HOST, B_HOST, 0x11);
	const struct rs_imms *ix = rs_imms_of(fx), *iy = rs_imms_of(fy);
	ck_assert_ptr_nonnull(ix);
	ck_assert_ptr_nonnull(iy);
	ck_assert_uint_eq(ix->total, n);
	ck_assert_uint_eq(iy->total, n);
	ck_assert_uint_eq(ix->n, RS_MAX_IMMS);
	ck_assert_uint_eq(iy->n, RS_MAX_IMMS);
	for (uint32_t i = 0; i < RS_MAX_IMMS; i++) {
		ck_assert_uint_eq(ix->v[i], 0xABC00000u + i);
		ck_assert_uint_eq(iy->v[i], 0xDEF00000u + i);
	}
	const struct rs_flow_msgs *mx = rs_msgs(fx), *my = rs_msgs(fy);
	ck_assert_uint_eq(mx->msgs[RS_MSG_SEND_IMM], n);
	ck_assert_uint_eq(mx->msg_bytes[RS_MSG_SEND_IMM], bytes);
	ck_assert_uint_eq(mx->msg_min, 0);
	ck_assert_uint_eq(mx->msg_max, 2999);
	for (unsigned b = 0; b < RS_SIZE_BUCKETS; b++)
		ck_assert_uint_eq(mx->size_hist[b], hist[b]);
	ck_assert_uint_eq(my->msgs[RS_MSG_WRITE_IMM], n);
	ck_assert_uint_eq(my->msg_bytes[RS_MSG_WRITE_IMM], 64ull * n);
	ck_assert_uint_eq(my->size_hist[7], n); /* 64 bytes: [64, 128) */
	ck_assert_uint_eq(my->msg_min, 64);
	ck_assert_uint_eq(my->msg_max, 64);
}
END_TEST

START_TEST(message_counts_survive_eviction)
{
	/* Messages on 200 QPs under --max-flows 8: what the victims counted
	 * goes to the evicted sum, and the flows still there have their own. */
	restart((struct rs_analyzer_opts){ .interval_ns = 10000000, .max_flows = 8 });
	for (uint32_t q = 0; q < 200; q++)
		for (uint32_t k = 0; k < 3; k++)
			feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x1000 + q, k, 100));
	ck_assert_uint_gt(an->evicted, 0);
	rs_analyzer_finish(an);
	uint64_t msgs = rs_msgs(&an->evicted_sum)->msgs[RS_MSG_SEND], bytes = rs_msgs(&an->evicted_sum)->msg_bytes[RS_MSG_SEND];
	for (guint i = 0; i < an->flows->len; i++) {
		struct rs_flow *fl = an->flows->pdata[i];
		if (fl) { /* each QP's three messages came one after the other */
			ck_assert_uint_eq(rs_msgs(fl)->msgs[RS_MSG_SEND], 3);
			msgs += rs_msgs(fl)->msgs[RS_MSG_SEND];
			bytes += rs_msgs(fl)->msg_bytes[RS_MSG_SEND];
		}
	}
	ck_assert_uint_eq(msgs, 600);
	ck_assert_uint_eq(bytes, 60000);
}
END_TEST

/* Opcode counts are 8 bits in the flow, with the carries kept apart:
 * 70,000 ACKs carry past 16 bits, 65,536 more carry again, and the count
 * stops at 2^48 - 1 rather than wrap. */
START_TEST(opcode_counts_carry_past_16_bits)
{
	const unsigned op_ack = IBV_OPCODE_RC_ACKNOWLEDGE & 0x1F, op_send = IBV_OPCODE_RC_SEND_ONLY & 0x1F;
	for (uint32_t i = 0; i < 70000; i++)
		feed(ack(A_HOST, B_HOST, 0x11, i, 0, i));
	for (uint32_t i = 0; i < 3; i++)
		feed(rt_roce_frame(A_HOST, B_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x11, i, 8));
	struct rs_flow *fl = flow(A_HOST, B_HOST, 0x11);
	ck_assert_ptr_nonnull(fl);
	ck_assert_uint_eq(fl->packets, 70003);
	ck_assert_uint_eq(rs_flow_ophist(fl, op_ack), 70000);
	ck_assert_uint_eq(rs_flow_ophist(fl, op_send), 3);

	for (uint32_t i = 0; i < 65536; i++)
		feed(ack(A_HOST, B_HOST, 0x11, 70000 + i, 0, 70000 + i));
	fl = flow(A_HOST, B_HOST, 0x11);
	ck_assert_ptr_nonnull(fl);
	ck_assert_uint_eq(rs_flow_ophist(fl, op_ack), 135536);
	ck_assert_uint_eq(rs_flow_ophist(fl, op_send), 3);

	const uint64_t most = (1ull << 48) - 1;
	rs_flow_ophist_add(fl, op_ack, most - 135536 - 1);
	ck_assert_uint_eq(rs_flow_ophist(fl, op_ack), most - 1);
	feed(ack(A_HOST, B_HOST, 0x11, 200000, 0, 200000));
	ck_assert_uint_eq(rs_flow_ophist(fl, op_ack), most);
	feed(ack(A_HOST, B_HOST, 0x11, 200001, 0, 200001));
	ck_assert_uint_eq(rs_flow_ophist(fl, op_ack), most);
	rs_flow_ophist_add(fl, op_ack, 12345);
	ck_assert_uint_eq(rs_flow_ophist(fl, op_ack), most);
	ck_assert_uint_eq(rs_flow_ophist(fl, op_send), 3);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("latvec");
	TCase *t = tcase_create("numbers");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, quantiles_of_samples_still_staged);
	tcase_add_test(t, latencies_past_32_bits_are_kept_exactly);
	tcase_add_test(t, quantiles_of_long_vectors_in_both_widths);
	tcase_add_test(t, quantiles_by_selection_match_a_full_sort);
	tcase_add_test(t, reservoir_replacements_past_32_bits_are_exact);
	tcase_add_test(t, logged_latencies_join_as_if_added_at_once);
	tcase_add_test(t, latency_first_sample_in_place);
	tcase_add_test(t, message_counters_past_32_bits);
	tcase_add_test(t, evicted_requesters_take_no_logged_samples_with_them);
	tcase_add_test(t, messages_keep_their_counts_and_immediates_in_wire_order);
	tcase_add_test(t, message_counts_survive_eviction);
	tcase_add_test(t, opcode_counts_carry_past_16_bits);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return rt_run_suite(suite());
}
