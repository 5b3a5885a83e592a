/*
 * check_format.c — the report's number and address formatting
 * (report/format.c) against what printf and inet_ntop say: the hand-made
 * fixed-point conversion must print exactly what "%.Nf" prints, rounding
 * included, in every buffer size; the address cache must give the text
 * inet_ntop gives, whatever collides in it.
 */
#include <arpa/inet.h>
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/transport/transport.h"
#include "report/format.h"
#include "report/outbuf.h"
#include "capture/source.h"
#include "tests/support/rstest.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void ref_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f µs", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
}

static void ref_bytes(uint64_t v, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double d = (double)v;
	unsigned u = 0;
	while (d >= 1024 && u + 1 < 6) {
		d /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " B", v);
	else
		snprintf(buf, len, "%.*f %s", d < 10 ? 2 : d < 100 ? 1 : 0, d, unit[u]);
}

static void ref_rate(double Bps, char *buf, size_t len)
{
	static const char *const unit[] = { "B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s" };
	unsigned u = 0;
	while (Bps >= 1024 && u + 1 < 5) {
		Bps /= 1024;
		u++;
	}
	snprintf(buf, len, "%.*f %s", u == 0 ? 0 : Bps < 10 ? 2 : Bps < 100 ? 1 : 0, Bps, unit[u]);
}

/* An integer formatter against its printf reference: the same bytes in the
 * whole buffer (what lies past the terminator too). */
static void same_u64(const char *(*fmt)(uint64_t, char *, size_t), void (*ref)(uint64_t, char *, size_t),
		     const char *what, uint64_t v, size_t len)
{
	char a[64], b[64];
	memset(a, 'x', sizeof a);
	memset(b, 'x', sizeof b);
	fmt(v, a, len);
	ref(v, b, len);
	RT_ASSERT(memcmp(a, b, sizeof a) == 0, "%" PRIu64 " %s in %zu bytes: \"%s\", printf \"%s\"", v, what, len, a,
		  b);
}

static void same_ns(uint64_t ns, size_t len)
{
	same_u64(rs_fmt_ns, ref_ns, "ns", ns, len);
}

static void same_bytes(uint64_t v, size_t len)
{
	same_u64(rs_fmt_bytes, ref_bytes, "bytes", v, len);
}

static void same_rate(double r, size_t len)
{
	char a[64], b[64];
	memset(a, 'x', sizeof a);
	memset(b, 'x', sizeof b);
	rs_fmt_rate(r, a, len);
	ref_rate(r, b, len);
	RT_ASSERT(memcmp(a, b, sizeof a) == 0, "rate %.17g in %zu: \"%s\", printf \"%s\"", r, len, a, b);
}

START_TEST(durations)
{
	const uint64_t sp = rt_sparse();
	for (uint64_t ns = 0; ns < 3000000; ns += sp) /* every µs rounding, the first ms ones */
		same_ns(ns, 24);
	for (uint64_t i = 0; i < 2000000 / sp; i++) {
		uint64_t ns = rnd() >> (rnd() % 64);
		same_ns(ns, 24);
		same_ns(ns, 1 + (size_t)(rnd() % 12));
	}
	/* Ties at every precision: x.x5, x.xx5, x.xxx5 exactly or nearly. */
	for (uint64_t k = 0; k < 100000; k += sp) {
		same_ns(k * 100 + 50, 24);
		same_ns(1000000 + k * 10000 + 5000, 24);
		same_ns(1000000000 + k * 1000000 + 500000, 24);
		same_ns(1000000000ull * (1 + k % 5000) + 500000 + k, 24);
	}
	same_ns(UINT64_MAX, 48);
}
END_TEST

START_TEST(byte_counts)
{
	const uint64_t sp = rt_sparse();
	for (uint64_t v = 0; v < 2000000; v += sp)
		same_bytes(v, 24);
	for (uint64_t i = 0; i < 2000000 / sp; i++) {
		uint64_t v = rnd() >> (rnd() % 64);
		same_bytes(v, 24);
		same_bytes(v, 1 + (size_t)(rnd() % 12));
	}
	for (int e = 10; e < 64; e++)
		for (int d = -3; d <= 3; d++) {
			same_bytes((1ull << e) + (uint64_t)d, 24);
			same_bytes((uint64_t)(1.005 * (double)(1ull << e)), 24);
			same_bytes((uint64_t)(9.995 * (double)(1ull << e)), 24);
			same_bytes((uint64_t)(99.95 * (double)(1ull << e)), 24);
		}
	/* Exact ties in every unit: (16 n + k) / 16 of the unit. */
	for (unsigned u = 1; u < 6; u++)
		for (uint64_t n = 0; n < 1100; n++)
			for (uint64_t k = 0; k < 16; k++)
				same_bytes((n * 16 + k) << (10 * u - 4), 24);
	same_bytes(UINT64_MAX, 24);
}
END_TEST

START_TEST(rates)
{
	const uint64_t sp = rt_sparse();
	for (uint64_t i = 0; i < 3000000 / sp; i++) {
		double r;
		switch (i % 4) {
		case 0: r = (double)(rnd() >> (rnd() % 64)); break;
		case 1: r = (double)(rnd() >> 11) / (double)(1ull << (rnd() % 53)); break;
		case 2: r = (double)(rnd() % 100000) / 1000 * (double)(1ull << (10 * (rnd() % 5))); break;
		default: r = ((double)(rnd() % 2000) + 0.5) / 200 * (double)(1ull << (10 * (rnd() % 5))); break;
		}
		same_rate(r, 24);
		same_rate(r, 1 + (size_t)(rnd() % 12));
	}
	/* Exact binary ties at every precision and unit: n + k/16 has a 5 in
	 * the first decimal past the one printed for k = 8 (x.5, "%.0f"),
	 * k = 4, 12 (x.25, "%.1f") and every odd k/8 (x.125, "%.2f"): printf
	 * rounds them half to even. */
	for (unsigned u = 0; u < 5; u++)
		for (uint64_t n = 0; n < 1100; n++)
			for (uint64_t k = 0; k < 16; k++) {
				same_rate(((double)n + (double)k / 16) * (double)(1ull << (10 * u)), 24);
				same_rate(((double)n + (double)k / 16) * (double)(1ull << (10 * u)), 1 + (size_t)(k % 8));
			}
	/* Next to the ties, tiny, subnormal, and next to the fast path's limit. */
	static const double odd[] = { 0.49999999999999994, 0.5000000000000001, 1.4999999999999998, 2.5000000000000004,
				      1e-300, 4.9e-324, 2.2250738585072014e-308, 0.0009765625, 1023.4999999999999,
				      1023.5, 1023.9999999999999, 999999999999999.9, 999999999999999.4,
				      999999999999999.5 * 1024, 9.995 * 1024, 99.95 * 1024 * 1024 };
	for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
		for (size_t len = 1; len < 40; len++)
			same_rate(odd[i], len);
	same_rate(0, 24);
	same_rate(-0.0, 24); /* "-0 B/s" */
	same_rate(-1.5, 24);
	same_rate(-2048.0, 24);
	same_rate(NAN, 24);
	same_rate(INFINITY, 24);
	same_rate(1e15, 64);
	same_rate(1e15 * 1024, 64);
	same_rate(1e300, 64);
	same_rate(0.5, 24);
	same_rate(1.5, 24);
	same_rate(2.5, 24);
}
END_TEST

START_TEST(addresses_through_the_cache)
{
	struct rs_names *a = rs_names_new(false);
	static struct rs_addr ads[3000];
	for (int i = 0; i < 3000; i++) {
		struct rs_addr *ad = &ads[i];
		memset(ad, 0, sizeof *ad);
		ad->kind = (uint8_t)(1 + i % 4);
		for (int k = 0; k < 16; k++)
			ad->b[k] = (uint8_t)rnd();
		if (ad->kind == RS_ADDR_IPV4)
			memset(ad->b + 4, 0, 12);
		if (ad->kind == RS_ADDR_LID)
			memset(ad->b + 2, 0, 14);
		if (i % 7 == 0) /* runs of zeros: "::" shortening */
			memset(ad->b + 2, 0, 10);
	}
	for (int round = 0; round < 4; round++)
		for (int i = 0; i < 3000; i += 1 + round) {
			const struct rs_addr *ad = &ads[(i * 7919) % 3000];
			char want[96], got[96], small[8], want_small[8];
			char t[INET6_ADDRSTRLEN];
			switch (ad->kind) {
			case RS_ADDR_IPV4: snprintf(want, sizeof want, "%s", inet_ntop(AF_INET, ad->b, t, sizeof t)); break;
			case RS_ADDR_LID: snprintf(want, sizeof want, "LID %u", (unsigned)(ad->b[0] << 8 | ad->b[1])); break;
			default: snprintf(want, sizeof want, "%s", inet_ntop(AF_INET6, ad->b, t, sizeof t)); break;
			}
			rs_fmt_addr(a, ad, got, sizeof got);
			ck_assert_str_eq(got, want);
			size_t len = 1 + (size_t)(i % 7);
			memset(small, 'x', sizeof small);
			memset(want_small, 'x', sizeof want_small);
			rs_fmt_addr(a, ad, small, len);
			rs_errf(want_small, len, "%s", want); /* snprintf, cut to fit */
			ck_assert(memcmp(small, want_small, sizeof small) == 0);
		}
	rs_names_free(a);
}
END_TEST

START_TEST(flow_labels_as_printf_writes_them)
{
	/* rs_fmt_flow_pair() against snprintf("%s → %s%s0x%x") of the two
	 * addresses, in every buffer size (bytes past the terminator too),
	 * for IPv4 and IPv6 (the longest) and QPNs from 0 to 0xffffffff. */
	struct rs_names *a = rs_names_new(false);
	static const uint32_t qpns[] = { 0, 1, 0xf, 0x10, 0x1a2b, 0xffffff, 0x1000000, 0xffffffff };
	static const char *const seps[] = { " ", " QP " };
	for (int i = 0; i < 400; i++) {
		struct rs_flowkey k;
		memset(&k, 0, sizeof k);
		k.roce = RS_ROCE_V2;
		k.akind = i % 2 ? RS_ADDR_IPV6 : RS_ADDR_IPV4;
		for (int b = 0; b < (i % 2 ? 16 : 4); b++) {
			k.src[b] = (uint8_t)(i % 3 ? rnd() : 0xff);
			k.dst[b] = (uint8_t)(i % 3 ? rnd() : 0xfe);
		}
		k.qpn = qpns[i % 8] ^ (i >= 200 ? (uint32_t)rnd() : 0);
		const char *sep = seps[(i / 8) % 2];
		char s[96], d[96], full[256];
		struct rs_addr src, dst;
		rs_flowkey_addr(&k, false, &src);
		rs_flowkey_addr(&k, true, &dst);
		snprintf(full, sizeof full, "%s → %s%s0x%x", rs_fmt_addr(a, &src, s, sizeof s), rs_fmt_addr(a, &dst, d, sizeof d),
			 sep, k.qpn);
		for (size_t len = 0; len <= strlen(full) + 2; len++) {
			char got[256], want[256];
			memset(got, 'x', sizeof got);
			memset(want, 'x', sizeof want);
			rs_fmt_flow_pair(a, &src, &dst, k.qpn, sep, got, len);
			if (len)
				snprintf(want, len, "%s", full);
			RT_ASSERT(memcmp(got, want, sizeof got) == 0, "%s in %zu bytes: \"%.*s\"", full, len, (int)len, got);
		}
	}
	rs_names_free(a);
}
END_TEST

/* The report's message cell as it was written before rs_fmt_msgs(): one
 * snprintf per kind. The reference the hand-made one must equal. */
static void msgs_by_printf(const struct rs_flow_msgs *m, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int k = 0; k < RS_MSG__COUNT && o + 20 < len; k++)
		if (m->msgs[k])
			o += (size_t)snprintf(buf + o, len - o, "%s%" PRIu64 " %s", o ? " " : "", m->msgs[k],
					      rs_msg_key((enum rs_msg)k));
	if (!o)
		snprintf(buf, len, "-");
}

START_TEST(message_counts_as_printf_writes_them)
{
	/* Random kinds present, counts from 1 digit to UINT64_MAX, every
	 * buffer size from 1 byte to past the longest text, and the bytes
	 * past the terminator: cut exactly where snprintf cuts. */
	static const uint64_t big[] = { 1, 9, 10, 99, 12345, 4294967295u, 4294967296u, UINT64_MAX };
	for (int i = 0; i < 300; i++) {
		struct rs_flow_msgs m;
		memset(&m, 0, sizeof m);
		for (int k = 0; k < RS_MSG__COUNT; k++)
			if (i == 0 ? false : i == 1 ? true : rnd() % 2)
				m.msgs[k] = i % 3 ? big[rnd() % 8] : (uint64_t)rnd() * rnd() + 1;
		for (size_t len = 1; len <= 300; len++) { /* the longest: every kind at UINT64_MAX, 294 */
			char got[310], want[310];
			memset(got, 'x', sizeof got);
			memset(want, 'x', sizeof want);
			msgs_by_printf(&m, want, len);
			RT_ASSERT(rs_fmt_msgs(m.msgs, got, len) == got, "returns its buffer");
			RT_ASSERT(memcmp(got, want, sizeof got) == 0, "in %zu bytes: \"%s\", printf: \"%s\"", len, got, want);
		}
	}
}
END_TEST

START_TEST(outbuf_numbers_as_printf_writes_them)
{
	/* rs_outbuf_hex() against "%" PRIx64 and rs_outbuf_u64() against
	 * "%*" PRIu64 at widths -24..24, through a 7-byte buffer so that
	 * numbers straddle its flushes. */
	uint64_t vals[64];
	int n = 0;
	for (int sh = 0; sh < 64; sh += 4) {
		vals[n++] = (uint64_t)1 << sh;
		vals[n++] = ((uint64_t)1 << sh) - 1;
	}
	vals[n++] = UINT64_MAX;
	vals[n++] = 0xdeadbeef;
	while (n < 64)
		vals[n++] = (uint64_t)rnd() << 32 | (uint64_t)rnd();
	char *got = NULL, *want = NULL;
	size_t got_n = 0, want_n = 0;
	FILE *g = open_memstream(&got, &got_n), *w = open_memstream(&want, &want_n);
	char small[7];
	struct rs_outbuf o;
	rs_outbuf_init(&o, g, small, sizeof small);
	for (int i = 0; i < n; i++) {
		rs_outbuf_hex(&o, vals[i]);
		rs_outbuf_putc(&o, '|');
		fprintf(w, "%" PRIx64 "|", vals[i]);
		for (int width = -24; width <= 24; width++) {
			rs_outbuf_u64(&o, vals[i], width);
			rs_outbuf_putc(&o, '|');
			fprintf(w, "%*" PRIu64 "|", width, vals[i]);
		}
	}
	rs_outbuf_flush(&o);
	fclose(g);
	fclose(w);
	RT_ASSERT(got_n == want_n && memcmp(got, want, want_n) == 0, "%zu bytes, printf %zu", got_n, want_n);
	free(got);
	free(want);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("format");
	TCase *t = tcase_create("format");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, durations);
	tcase_add_test(t, byte_counts);
	tcase_add_test(t, rates);
	tcase_add_test(t, addresses_through_the_cache);
	tcase_add_test(t, flow_labels_as_printf_writes_them);
	tcase_add_test(t, message_counts_as_printf_writes_them);
	tcase_add_test(t, outbuf_numbers_as_printf_writes_them);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return rt_run_suite(suite());
}
