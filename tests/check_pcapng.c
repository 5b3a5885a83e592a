/*
 * check_pcapng.c — capture/pcapng.c, rocestat's reader of pcapng files.
 *
 * Where libpcap reads a file, the reader must hand out exactly what libpcap
 * does (frame by frame, and the same error at the same frame): every
 * capture under ../shared/ and samples/ written here as pcapng in both byte
 * orders, with four timestamp resolutions and blocks the reader skips; the
 * same files cut at many lengths; hostile interface options. Where libpcap
 * stops (a second section in the other byte order, an interface of another
 * link type or snapshot length), the reader reads on: the frames, their
 * link types and times are checked against what this file wrote.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pcap/pcap.h>

#include "capture/source.h"
#include "tests/support/readercmp.h"
#include "tests/support/rstest.h"

static char dir[256];
static char tmp_path[300];

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/check_pcapng.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(tmp_path, sizeof tmp_path, "%s/t.pcapng", dir);
}

static void teardown(void)
{
	unlink(tmp_path);
	rmdir(dir);
}

/* ---- writing pcapng, in either byte order -------------------------------- */

struct ng {
	uint8_t *b;
	size_t len, cap;
	bool be;
};

static void room(struct ng *g, size_t n)
{
	if (g->len + n > g->cap) {
		g->cap = (g->len + n) * 2;
		g->b = realloc(g->b, g->cap);
		ck_assert_ptr_nonnull(g->b);
	}
}

static void u32(struct ng *g, uint32_t v)
{
	room(g, 4);
	if (g->be)
		rt_be32(g->b + g->len, v);
	else
		rt_le32(g->b + g->len, v);
	g->len += 4;
}

static void u16(struct ng *g, uint16_t v)
{
	room(g, 2);
	if (g->be)
		rt_be16(g->b + g->len, v);
	else
		rt_le16(g->b + g->len, v);
	g->len += 2;
}

static void bytes(struct ng *g, const void *p, size_t n)
{
	room(g, n + 3);
	if (n)
		memcpy(g->b + g->len, p, n);
	g->len += n;
	while (g->len % 4)
		g->b[g->len++] = 0;
}

/* Start a block; end_block() fills in its length at both ends. */
static size_t begin_block(struct ng *g, uint32_t type)
{
	size_t at = g->len;
	u32(g, type);
	u32(g, 0);
	return at;
}

static void end_block(struct ng *g, size_t at)
{
	uint32_t total = (uint32_t)(g->len - at + 4);
	if (g->be)
		rt_be32(g->b + at + 4, total);
	else
		rt_le32(g->b + at + 4, total);
	u32(g, total);
}

static void option(struct ng *g, uint16_t code, const void *v, uint16_t n)
{
	u16(g, code);
	u16(g, n);
	bytes(g, v, n);
}

static void shb(struct ng *g, bool be)
{
	g->be = be;
	size_t at = begin_block(g, 0x0A0D0D0A);
	u32(g, 0x1A2B3C4D);
	u16(g, 1);
	u16(g, 0);
	u32(g, 0xFFFFFFFF);
	u32(g, 0xFFFFFFFF);
	end_block(g, at);
}

/* if_tsresol `res` (0: none, the default 10^-6); if_tsoffset `off` (0: none). */
static void idb(struct ng *g, uint16_t linktype, uint32_t snaplen, uint8_t res, uint64_t off)
{
	size_t at = begin_block(g, 1);
	u16(g, linktype);
	u16(g, 0);
	u32(g, snaplen);
	option(g, 2, "eth7", 4); /* if_name: skipped */
	if (res)
		option(g, 9, &res, 1);
	if (off) {
		u16(g, 14);
		u16(g, 8);
		u32(g, g->be ? (uint32_t)(off >> 32) : (uint32_t)off);
		u32(g, g->be ? (uint32_t)off : (uint32_t)(off >> 32));
	}
	option(g, 0, NULL, 0);
	end_block(g, at);
}

/* A timestamp in nanoseconds as units of resolution `res` (if_tsresol). */
static uint64_t units(uint64_t ns, uint8_t res)
{
	uint64_t sec = ns / 1000000000u, frac = ns % 1000000000u;
	if (res & 0x80) {
		unsigned sh = res & 0x7f;
		return sec << sh | (uint64_t)(((unsigned __int128)frac << sh) / 1000000000u);
	}
	uint64_t per = 1;
	for (int i = 0; i < (res ? res : 6); i++)
		per *= 10;
	return per >= 1000000000u ? ns * (per / 1000000000u) : ns / (1000000000u / per);
}

/* The nanoseconds `units` of resolution `res` stand for (cut, not rounded). */
static uint64_t nanos(uint64_t u, uint8_t res, uint64_t off)
{
	uint64_t per = 1;
	if (res & 0x80)
		per = 1ull << (res & 0x7f);
	else
		for (int i = 0; i < (res ? res : 6); i++)
			per *= 10;
	return (u / per + off) * 1000000000u + (uint64_t)((unsigned __int128)(u % per) * 1000000000u / per);
}

static void epb(struct ng *g, uint32_t ifn, uint64_t t, const uint8_t *data, uint32_t cap, uint32_t wire)
{
	size_t at = begin_block(g, 6);
	u32(g, ifn);
	u32(g, (uint32_t)(t >> 32));
	u32(g, (uint32_t)t);
	u32(g, cap);
	u32(g, wire);
	bytes(g, data, cap);
	option(g, 1, "a comment", 9);
	option(g, 0, NULL, 0);
	end_block(g, at);
}

/* A Name Resolution Block and a custom block: both skipped by readers. */
static void skipped_blocks(struct ng *g)
{
	size_t at = begin_block(g, 4);
	u16(g, 1);
	u16(g, 8);
	bytes(g, "\xc0\x00\x02\x01host", 8);
	u16(g, 0);
	u16(g, 0);
	end_block(g, at);
	at = begin_block(g, 0x00000BAD);
	u32(g, 32473); /* a Private Enterprise Number */
	bytes(g, "xyz", 3);
	end_block(g, at);
}

static uint32_t linktype_of(int dlt)
{
	return dlt == DLT_RAW ? 101 : (uint32_t)dlt;
}

/* `path` as one pcapng section: its frames as EPBs of resolution `res`,
 * and (`skips`) blocks to skip after the first frame. Returns the number of
 * frames. */
static uint64_t convert(const char *path, struct ng *g, bool be, uint8_t res, bool skips)
{
	char err[RS_ERRBUF_SIZE];
	struct rs_source *s = rt_open_with("libpcap", path, NULL, err);
	ck_assert_msg(s != NULL, "%s", err);
	shb(g, be);
	idb(g, (uint16_t)linktype_of(rs_source_datalink(s)), (uint32_t)rs_source_snaplen(s), res, 0);
	struct rs_packet p;
	uint64_t n = 0;
	while (rs_source_next(s, &p, err) == RS_NEXT_FRAME) {
		epb(g, 0, units(p.ts_ns, res), p.data, p.caplen, p.wirelen);
		if (n++ == 0 && skips)
			skipped_blocks(g);
	}
	rs_source_close(s);
	return n;
}

/* ---- where libpcap reads the file ------------------------------------------ */

static const uint8_t resolutions[] = { 9, 0, 0x80 | 30, 3 };

static unsigned both_orders_and_four_resolutions(const char *const *f)
{
	unsigned files = 0;
	for (; *f; f++) {
		/* Under RT_SPARSE (memcheck) three of the eight: both byte orders,
		 * three resolutions. */
		for (int v = 0; v < 8; v += rt_sparse() > 1 ? 3 : 1) {
			struct ng g = { 0 };
			uint64_t n = convert(*f, &g, v & 1, resolutions[v / 2], true);
			rt_spill(tmp_path, g.b, g.len);
			char what[300];
			snprintf(what, sizeof what, "%s as pcapng%s, if_tsresol %#x", rt_basename(*f), v & 1 ? " (big-endian)" : "",
				 resolutions[v / 2]);
			ck_assert_uint_eq(rt_same_frames(tmp_path, NULL, "pcapng", what), n);
			free(g.b);
		}
		files++;
	}
	return files;
}

START_TEST(every_capture_in_both_orders_and_four_resolutions)
{
	ck_assert_uint_ge(both_orders_and_four_resolutions(rt_all_captures()), 10);
}
END_TEST

START_TEST(every_sample_in_both_orders_and_four_resolutions)
{
	ck_assert_uint_ge(both_orders_and_four_resolutions(rt_sample_captures()), 20);
}
END_TEST

/* The times the reader hands out are the ones written, in each resolution. */
START_TEST(times_as_written)
{
	static const uint64_t ns[] = { 0, 1, 999999999, 1000000000, 2147483648000000001ull / 1000,
				       4294967296123456789ull, 1700000000123456789ull };
	static const uint8_t data[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	for (int r = 0; r < 4; r++) {
		struct ng g = { 0 };
		shb(&g, r & 1);
		idb(&g, 1, 0, resolutions[r], r == 2 ? 1000 : 0);
		for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
			epb(&g, 0, units(ns[i], resolutions[r]), data, sizeof data, sizeof data);
		rt_spill(tmp_path, g.b, g.len);
		char err[RS_ERRBUF_SIZE];
		struct rs_source *s = rt_open_with(NULL, tmp_path, NULL, err);
		ck_assert_msg(s != NULL, "%s", err);
		struct rs_packet p;
		for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
			ck_assert_int_eq(rs_source_next(s, &p, err), RS_NEXT_FRAME);
			uint64_t want = nanos(units(ns[i], resolutions[r]), resolutions[r], r == 2 ? 1000 : 0);
			ck_assert_msg(p.ts_ns == want, "resolution %#x, frame %zu: %llu, want %llu", resolutions[r], i,
				      (unsigned long long)p.ts_ns, (unsigned long long)want);
		}
		ck_assert_int_eq(rs_source_next(s, &p, err), RS_NEXT_END);
		rs_source_close(s);
		ck_assert_uint_eq(rt_same_frames(tmp_path, NULL, "pcapng", "times"), sizeof ns / sizeof ns[0]);
		free(g.b);
	}
}
END_TEST

/* Cut anywhere: the same frames, then the same error, as libpcap. */
START_TEST(truncated_files)
{
	for (int be = 0; be < 2; be++) {
		struct ng g = { 0 };
		/* No blocks to skip: libpcap names the end of the last frame's
		 * block, the reader the start of the block it could not read
		 * (errors_name_the_block). */
		convert(RT_SAMPLES "rping_s64.pcap", &g, be, 9, false);
		unsigned cuts = 0;
		for (size_t cut = 1; cut < g.len; cut += cut < 600 || cut > g.len - 600 ? 1 : 41) {
			rt_spill(tmp_path, g.b, cut);
			char what[64];
			snprintf(what, sizeof what, "cut to %zu bytes%s", cut, be ? " (big-endian)" : "");
			rt_same_frames(tmp_path, NULL, "pcapng", what);
			cuts++;
		}
		ck_assert_uint_gt(cuts, 1000);
		free(g.b);
	}
}
END_TEST

/* Blocks and options libpcap refuses, refused in the same words. */
START_TEST(hostile_blocks)
{
	static const uint8_t data[64];
	for (int k = 0; k < 8; k++) {
		struct ng g = { 0 };
		shb(&g, false);
		idb(&g, 1, 0, 9, 0);
		epb(&g, 0, 5, data, 60, 60);
		size_t at;
		uint8_t res;
		switch (k) {
		case 0: /* if_tsresol 10^-20 */
			idb(&g, 1, 0, 20, 0);
			break;
		case 1: /* 2^-64 */
			idb(&g, 1, 0, 0x80 | 64, 0);
			break;
		case 2: /* two if_tsresol */
			at = begin_block(&g, 1);
			u32(&g, 1);
			u32(&g, 0);
			res = 6;
			option(&g, 9, &res, 1);
			option(&g, 9, &res, 1);
			end_block(&g, at);
			break;
		case 3: /* an option running past the block */
			at = begin_block(&g, 1);
			u32(&g, 1);
			u32(&g, 0);
			u16(&g, 2);
			u16(&g, 200);
			end_block(&g, at);
			break;
		case 4: /* a packet on an interface never described */
			epb(&g, 3, 5, data, 60, 60);
			break;
		case 5: /* captured length past the block */
			at = begin_block(&g, 6);
			for (int i = 0; i < 3; i++)
				u32(&g, 0);
			u32(&g, 4000);
			u32(&g, 4000);
			end_block(&g, at);
			break;
		case 6: /* trailer length differs */
			epb(&g, 0, 5, data, 60, 60);
			g.b[g.len - 4] ^= 4;
			break;
		case 7: /* a length not a multiple of 4 */
			u32(&g, 6);
			u32(&g, 30);
			break;
		}
		epb(&g, 0, 5, data, 60, 60);
		rt_spill(tmp_path, g.b, g.len);
		char what[32];
		snprintf(what, sizeof what, "hostile %d", k);
		uint64_t n = rt_same_frames(tmp_path, NULL, "pcapng", what);
		ck_assert_msg(n == 1, "%s: %llu frames", what, (unsigned long long)n);
		free(g.b);
	}
}
END_TEST

/* libpcap does not check the first section header's trailing length, so
 * neither does the reader: the frames after it are read. */
START_TEST(first_header_trailer_unchecked)
{
	static const uint8_t data[60];
	struct ng g = { 0 };
	shb(&g, false);
	g.b[g.len - 2] = 0xfc;
	idb(&g, 1, 0, 9, 0);
	epb(&g, 0, 5, data, 60, 60);
	epb(&g, 0, 6, data, 60, 60);
	rt_spill(tmp_path, g.b, g.len);
	ck_assert_uint_eq(rt_same_frames(tmp_path, NULL, "pcapng", "first trailer"), 2);
	free(g.b);
}
END_TEST

/* ---- where libpcap stops ----------------------------------------------------- */

struct want {
	int dlt;
	uint64_t ts_ns;
	uint32_t caplen, wirelen;
	const uint8_t *data;
};

/* Every frame of the file, as the default reader hands it out, against
 * `w`; and libpcap stops before the end with `why`. */
static void read_on(const struct want *w, size_t n, const char *why)
{
	char err[RS_ERRBUF_SIZE];
	struct rs_source *s = rt_open_with(NULL, tmp_path, NULL, err);
	ck_assert_msg(s != NULL, "%s", err);
	ck_assert_str_eq(rs_source_reader(s), "pcapng");
	struct rs_packet p;
	for (size_t i = 0; i < n; i++) {
		enum rs_next r = rs_source_next(s, &p, err);
		ck_assert_msg(r == RS_NEXT_FRAME, "frame %zu: %s", i + 1, r == RS_NEXT_ERROR ? err : "end");
		ck_assert_uint_eq(p.frame_no, i + 1);
		ck_assert_msg(p.dlt == w[i].dlt && p.ts_ns == w[i].ts_ns && p.caplen == w[i].caplen &&
				      p.wirelen == w[i].wirelen && memcmp(p.data, w[i].data, p.caplen) == 0,
			      "frame %zu: dlt %d ts %llu len %u/%u; want dlt %d ts %llu len %u/%u", i + 1, p.dlt,
			      (unsigned long long)p.ts_ns, p.caplen, p.wirelen, w[i].dlt, (unsigned long long)w[i].ts_ns,
			      w[i].caplen, w[i].wirelen);
	}
	ck_assert_int_eq(rs_source_next(s, &p, err), RS_NEXT_END);
	rs_source_close(s);
	s = rt_open_with("libpcap", tmp_path, NULL, err);
	ck_assert_msg(s != NULL, "%s", err);
	enum rs_next r;
	size_t got = 0;
	while ((r = rs_source_next(s, &p, err)) == RS_NEXT_FRAME)
		got++;
	ck_assert_msg(r == RS_NEXT_ERROR && got < n && strstr(err, why), "libpcap read %zu of %zu frames, then: %s", got,
		      n, r == RS_NEXT_ERROR ? err : "the end");
	rs_source_close(s);
}

START_TEST(sections_in_both_byte_orders)
{
	static uint8_t f1[80], f2[90];
	for (size_t i = 0; i < sizeof f2; i++)
		f1[i % sizeof f1] = (uint8_t)i, f2[i] = (uint8_t)(i * 7);
	struct ng g = { 0 };
	shb(&g, false);
	idb(&g, 1, 0, 9, 0);
	epb(&g, 0, 1000000001, f1, sizeof f1, sizeof f1);
	shb(&g, true); /* big-endian: interfaces count from 0 again */
	idb(&g, 1, 0, 6, 0);
	epb(&g, 0, 2000003, f2, sizeof f2, 1500);
	shb(&g, false);
	idb(&g, 1, 0, 0x80 | 20, 7);
	epb(&g, 0, 3u << 20 | 1u << 19, f1, 60, 60);
	rt_spill(tmp_path, g.b, g.len);
	const struct want w[] = {
		{ DLT_EN10MB, 1000000001, sizeof f1, sizeof f1, f1 },
		{ DLT_EN10MB, 2000003000, sizeof f2, 1500, f2 },
		{ DLT_EN10MB, 10500000000ull, 60, 60, f1 },
	};
	/* libpcap reads the big-endian header's length in the first
	 * section's order: some refusal or other, never the frames after. */
	read_on(w, 3, "");
	free(g.b);
}
END_TEST

START_TEST(interfaces_of_other_link_types_and_snapshot_lengths)
{
	static uint8_t eth[98], sll[100];
	for (size_t i = 0; i < sizeof sll; i++)
		eth[i % sizeof eth] = (uint8_t)(i + 1), sll[i] = (uint8_t)(i + 2);
	const uint8_t *ip = eth + 14;
	struct ng g = { 0 };
	shb(&g, false);
	idb(&g, 1, 65535, 9, 0);    /* Ethernet */
	idb(&g, 101, 65535, 6, 0);  /* raw IP (LINKTYPE_RAW) */
	idb(&g, 113, 0, 9, 0);      /* Linux cooked */
	idb(&g, 1, 64, 9, 0);       /* Ethernet, cut to 64 */
	epb(&g, 0, 10, eth, sizeof eth, sizeof eth);
	epb(&g, 1, 20, ip, sizeof eth - 14, sizeof eth - 14);
	epb(&g, 2, 30, sll, sizeof sll, sizeof sll);
	epb(&g, 3, 40, eth, 64, sizeof eth);
	epb(&g, 0, 50, eth, sizeof eth, sizeof eth);
	rt_spill(tmp_path, g.b, g.len);
	const struct want w[] = {
		{ DLT_EN10MB, 10, sizeof eth, sizeof eth, eth },
		{ DLT_RAW, 20000, sizeof eth - 14, sizeof eth - 14, ip },
		{ DLT_LINUX_SLL, 30, sizeof sll, sizeof sll, sll },
		{ DLT_EN10MB, 40, 64, sizeof eth, eth },
		{ DLT_EN10MB, 50, sizeof eth, sizeof eth, eth },
	};
	read_on(w, 5, "different from the type of the first interface");
	free(g.b);
}
END_TEST

/* An error names the block that could not be read, wherever the frame
 * before it ended. */
START_TEST(errors_name_the_block)
{
	static const uint8_t data[60];
	struct ng g = { 0 };
	shb(&g, false);
	idb(&g, 1, 0, 9, 0);
	epb(&g, 0, 1, data, 60, 60);
	skipped_blocks(&g);
	size_t at = g.len;
	epb(&g, 7, 1, data, 60, 60);
	rt_spill(tmp_path, g.b, g.len);
	char err[RS_ERRBUF_SIZE], want[RS_ERRBUF_SIZE];
	struct rs_source *s = rt_open_with(NULL, tmp_path, NULL, err);
	ck_assert_msg(s != NULL, "%s", err);
	struct rs_packet p;
	ck_assert_int_eq(rs_source_next(s, &p, err), RS_NEXT_FRAME);
	ck_assert_int_eq(rs_source_next(s, &p, err), RS_NEXT_ERROR);
	snprintf(want, sizeof want,
		 "%s: frame 2 (file offset %zu): a packet arrived on interface 7, but there's no Interface Description "
		 "Block for that interface", tmp_path, at);
	ck_assert_str_eq(err, want);
	rs_source_close(s);
	free(g.b);
}
END_TEST

/* From a pipe: the same frames and errors as libpcap gives, cut anywhere;
 * a classic pcap file still read by libpcap (through the bytes read to
 * tell the formats apart); and every section of a file libpcap stops in. */
START_TEST(streams)
{
	for (int be = 0; be < 2; be++) {
		struct ng g = { 0 };
		uint64_t n = convert(RT_SAMPLES "rping_s64.pcap", &g, be, 0x80 | 30, true);
		char what[64];
		snprintf(what, sizeof what, "piped%s", be ? " (big-endian)" : "");
		ck_assert_uint_eq(rt_same_frames_piped(dir, g.b, g.len, "pcapng", what), n);
		for (size_t cut = 0; cut < g.len; cut += cut < 200 ? 1 : 97) {
			snprintf(what, sizeof what, "piped, cut to %zu bytes%s", cut, be ? " (big-endian)" : "");
			rt_same_frames_piped(dir, g.b, cut, "pcapng", what);
		}
		free(g.b);
	}
	size_t len;
	uint8_t *b = rt_slurp(RT_SAMPLES "rping_s64.pcap", &len);
	ck_assert_uint_gt(rt_same_frames_piped(dir, b, len, "libpcap", "a pcap file piped"), 100);
	for (size_t cut = 0; cut < 40; cut++)
		rt_same_frames_piped(dir, b, cut, "libpcap", "a pcap file piped, cut");
	free(b);
	/* Three sections, two byte orders, three link types. */
	static uint8_t eth[98];
	struct ng g = { 0 };
	shb(&g, false);
	idb(&g, 1, 0, 9, 0);
	idb(&g, 101, 0, 6, 0);
	epb(&g, 0, 10, eth, sizeof eth, sizeof eth);
	epb(&g, 1, 20, eth + 14, sizeof eth - 14, sizeof eth - 14);
	shb(&g, true);
	idb(&g, 113, 0, 9, 0);
	epb(&g, 0, 30, eth, sizeof eth, sizeof eth);
	char fifo[300];
	snprintf(fifo, sizeof fifo, "%s/s.fifo", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	pid_t pid = fork();
	if (pid == 0) {
		FILE *f = fopen(fifo, "wb");
		fwrite(g.b, 1, g.len, f);
		fclose(f);
		_exit(0);
	}
	char err[RS_ERRBUF_SIZE];
	struct rs_source *s = rt_open_with(NULL, fifo, NULL, err);
	ck_assert_msg(s != NULL, "%s", err);
	struct rs_packet p;
	static const int dlts[] = { DLT_EN10MB, DLT_RAW, DLT_LINUX_SLL };
	static const uint64_t ts[] = { 10, 20000, 30 };
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(rs_source_next(s, &p, err), RS_NEXT_FRAME);
		ck_assert_int_eq(p.dlt, dlts[i]);
		ck_assert_uint_eq(p.ts_ns, ts[i]);
	}
	ck_assert_int_eq(rs_source_next(s, &p, err), RS_NEXT_END);
	rs_source_close(s);
	waitpid(pid, NULL, 0);
	unlink(fifo);
	free(g.b);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("pcapng");
	TCase *t = tcase_create("reader");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 600);
	tcase_add_test(t, every_sample_in_both_orders_and_four_resolutions);
	tcase_add_test(t, times_as_written);
	tcase_add_test(t, truncated_files);
	tcase_add_test(t, hostile_blocks);
	tcase_add_test(t, first_header_trailer_unchecked);
	tcase_add_test(t, sections_in_both_byte_orders);
	tcase_add_test(t, interfaces_of_other_link_types_and_snapshot_lengths);
	tcase_add_test(t, errors_name_the_block);
	tcase_add_test(t, streams);
	suite_add_tcase(s, t);
	t = rt_shared_tcase("shared");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 600);
	tcase_add_test(t, every_capture_in_both_orders_and_four_resolutions);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return rt_run_suite(suite());
}
