/*
 * check_reader.c — capture/pcapfile.c, the chunked reader of classic pcap
 * files, against libpcap reading the same file (ROCESTAT_READER=libpcap):
 * frame by frame the same frame numbers, lengths (the record's own length
 * too, pkt.file_caplen, which says when libpcap cut a record to the
 * snapshot length), nanosecond timestamps and bytes, the same end, and the
 * same error message (file, frame, file offset and libpcap's wording) at
 * the same frame, the offset being where the record that could not be read
 * starts.
 *
 * On every capture under ../shared/ and samples/, each also rewritten in
 * the other byte order and with the other timestamp precision (the four
 * magics); on files cut at many lengths; on records longer than the
 * header's snapshot length and longer than libpcap's limit; on timestamps
 * with the sign bit set; with a BPF filter; on a file that grows while it
 * is read, and on one that shrinks. Files the reader must leave to libpcap
 * (other versions, the modified format) must be read by libpcap; pcapng
 * files have their own reader (check_pcapng.c).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/reader.h"
#include "capture/source.h"
#include "tests/support/readercmp.h"
#include "tests/support/rstest.h"

static char dir[256];
static char tmp_path[300];

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/check_reader.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(tmp_path, sizeof tmp_path, "%s/t.pcap", dir);
}

static void teardown(void)
{
	unlink(tmp_path);
	rmdir(dir);
}

static void spill(const uint8_t *b, size_t len)
{
	rt_spill(tmp_path, b, len);
}

/* ---- rewriting pcap files ------------------------------------------------ */

static uint32_t rd32(const uint8_t *p, bool be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3] : rt_get_le32(p);
}

static void wr32(uint8_t *p, uint32_t v, bool be)
{
	if (be)
		rt_be32(p, v);
	else
		rt_le32(p, v);
}

static void swap16(uint8_t *p)
{
	uint8_t t = p[0];
	p[0] = p[1];
	p[1] = t;
}

static void swap32(uint8_t *p)
{
	wr32(p, rd32(p, false), true);
}

static bool is_be(const uint8_t *b)
{
	return b[0] == 0xa1;
}

/* The same capture in the other byte order: every header field swapped. */
static void swap_order(uint8_t *b, size_t len)
{
	bool be = is_be(b);
	swap32(b);
	swap16(b + 4);
	swap16(b + 6);
	for (int i = 8; i < 24; i += 4)
		swap32(b + i);
	for (size_t off = 24; off + 16 <= len;) {
		uint32_t cap = rd32(b + off + 8, be);
		for (int i = 0; i < 16; i += 4)
			swap32(b + off + i);
		off += 16 + (size_t)cap;
	}
}

/* The other timestamp precision: the magic alone says it. */
static void flip_precision(uint8_t *b)
{
	bool be = is_be(b);
	uint32_t m = rd32(b, be);
	wr32(b, m == 0xa1b2c3d4u ? 0xa1b23c4du : 0xa1b2c3d4u, be);
}

static void put_header(uint8_t *b, uint32_t magic, uint16_t major, uint16_t minor, uint32_t snaplen, uint32_t dlt)
{
	rt_le32(b, magic);
	rt_le16(b + 4, major);
	rt_le16(b + 6, minor);
	rt_le32(b + 8, 0);
	rt_le32(b + 12, 0);
	rt_le32(b + 16, snaplen);
	rt_le32(b + 20, dlt);
}

/* A record of `cap` bytes (`wire` on the wire) at *len; returns its start. */
static size_t put_record(uint8_t *b, size_t *len, uint32_t sec, uint32_t frac, uint32_t cap, uint32_t wire)
{
	size_t at = *len;
	rt_le32(b + at, sec);
	rt_le32(b + at + 4, frac);
	rt_le32(b + at + 8, cap);
	rt_le32(b + at + 12, wire);
	for (uint32_t i = 0; i < cap; i++)
		b[at + 16 + i] = (uint8_t)(i * 31 + cap);
	*len = at + 16 + cap;
	return at;
}

/* ---- tests ---------------------------------------------------------------- */

static unsigned four_magics(const char *const *f)
{
	unsigned files = 0;
	for (; *f; f++) {
		size_t len;
		uint8_t *b = rt_slurp(*f, &len);
		uint64_t n0 = rt_same_frames(*f, NULL, "pread", *f);
		ck_assert_uint_gt(n0, 0);
		for (int v = 1; v < 4; v++) {
			uint8_t *c = malloc(len);
			memcpy(c, b, len);
			if (v & 1)
				swap_order(c, len);
			if (v & 2)
				flip_precision(c);
			spill(c, len);
			char what[300];
			snprintf(what, sizeof what, "%s%s%s", rt_basename(*f), v & 1 ? ", swapped" : "",
				 v & 2 ? ", other precision" : "");
			ck_assert_uint_eq(rt_same_frames(tmp_path, NULL, "pread", what), n0);
			free(c);
		}
		free(b);
		files++;
	}
	return files;
}

START_TEST(every_sample_in_four_magics)
{
	ck_assert_uint_ge(four_magics(rt_sample_captures()), 20);
}
END_TEST

START_TEST(every_capture_in_four_magics)
{
	ck_assert_uint_ge(four_magics(rt_all_captures()), 18);
}
END_TEST

static void filters(const char *const *f)
{
	for (int i = 0; f[i]; i += 3) {
		rt_same_frames(f[i], "udp dst port 4791 and ip", "pread", f[i]);
		rt_same_frames(f[i], "ip6 or ether[12:2] = 0x8915", "pread", f[i]);
	}
}

START_TEST(filters_count_every_frame)
{
	filters(rt_sample_captures());
}
END_TEST

START_TEST(filters_count_every_frame_shared)
{
	filters(rt_all_captures());
}
END_TEST

/* The offset a read error quotes: where the record that could not be
 * read starts (found here by walking the records of the cut file). */
static void error_at(size_t off, bool at_end, const char *what)
{
	char want[64];
	snprintf(want, sizeof want, "(file offset %zu): ", off);
	for (int rd = 0; rd < 2; rd++) {
		char e[RS_ERRBUF_SIZE];
		struct rs_source *src = rt_open_with(rd ? NULL : "libpcap", tmp_path, NULL, e);
		if (!src)
			return; /* the file header is cut */
		struct rs_packet pk;
		enum rs_next n;
		while ((n = rs_source_next(src, &pk, e)) == RS_NEXT_FRAME)
			continue;
		if (at_end)
			RT_ASSERT(n == RS_NEXT_END, "%s: ends on a record boundary, yet: %s", what, e);
		else
			RT_ASSERT(n == RS_NEXT_ERROR && strstr(e, want), "%s: want \"%s\" in \"%s\"", what, want,
				  n == RS_NEXT_ERROR ? e : "(no error)");
		rs_source_close(src);
	}
}

static void error_names_the_record(const uint8_t *b, size_t cut, bool be, const char *what)
{
	size_t off = 24;
	while (off + 16 <= cut && off + 16 + rd32(b + off + 8, be) <= cut)
		off += 16 + rd32(b + off + 8, be);
	error_at(off, off == cut, what);
}

/* Cut anywhere: in the file header, in a record header, in its data. */
START_TEST(truncated_files)
{
	size_t len;
	uint8_t *b = rt_slurp(RT_SAMPLES "rping_s64.pcap", &len);
	for (int swapped = 0; swapped < 2; swapped++) {
		if (swapped)
			swap_order(b, len);
		size_t cuts = 0;
		for (size_t cut = 24; cut < len; cut += cut < 400 || cut > len - 400 ? 1 : 37) {
			spill(b, cut);
			char what[64];
			snprintf(what, sizeof what, "cut to %zu bytes%s", cut, swapped ? ", swapped" : "");
			rt_same_frames(tmp_path, NULL, "pread", what);
			error_names_the_record(b, cut, swapped, what);
			cuts++;
		}
		ck_assert_uint_gt(cuts, 700);
	}
	free(b);
}
END_TEST

/* Records longer than the header's snapshot length are cut to it (libpcap
 * reads what it keeps and skips the rest); longer than libpcap's limit they
 * are an error; cut short in either part, the message names the right
 * length. */
START_TEST(records_past_the_snapshot_length)
{
	static uint8_t b[4 * 262144 + 4096];
	static const uint32_t caps[] = { 60, 100, 101, 150, 4000, 262144, 262145 };
	for (int snap = 0; snap < 4; snap++) {
		uint32_t snaplen = snap == 0 ? 100 : snap == 1 ? 0 : snap == 2 ? 300000 : 262144;
		for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
			size_t len = 24;
			put_header(b, 0xa1b23c4du, 2, 4, snaplen, 1);
			put_record(b, &len, 1700000000, 5, 64, 64);
			size_t at = put_record(b, &len, 1700000001, 6, caps[k], caps[k] + 10);
			put_record(b, &len, 1700000002, 7, 80, 80);
			char what[96];
			snprintf(what, sizeof what, "snaplen %u, record of %u bytes", snaplen, caps[k]);
			spill(b, len);
			rt_same_frames(tmp_path, NULL, "pread", what);
			/* Both agree; and what they agree on is the record's own
			 * length in file_caplen, the kept part in caplen (libpcap
			 * makes a header snaplen of 0 or past 256 KiB 256 KiB). */
			uint32_t eff = snaplen == 100 ? 100 : 262144;
			for (int rd = 0; rd < 2 && caps[k] <= 262144; rd++) {
				char e[RS_ERRBUF_SIZE];
				struct rs_source *src = rt_open_with(rd ? NULL : "libpcap", tmp_path, NULL, e);
				ck_assert_ptr_nonnull(src);
				struct rs_packet pk;
				ck_assert_int_eq(rs_source_next(src, &pk, e), RS_NEXT_FRAME);
				ck_assert_uint_eq(pk.file_caplen, 64);
				ck_assert_int_eq(rs_source_next(src, &pk, e), RS_NEXT_FRAME);
				ck_assert_uint_eq(pk.caplen, caps[k] < eff ? caps[k] : eff);
				ck_assert_uint_eq(pk.file_caplen, caps[k]);
				ck_assert_int_eq(rs_source_next(src, &pk, e), RS_NEXT_FRAME);
				ck_assert_uint_eq(pk.file_caplen, 80);
				rs_source_close(src);
			}
			/* Cut inside the long record: in what is kept and in what is skipped. */
			size_t cuts[] = { at + 10, at + 16, at + 16 + 50, at + 16 + 100, at + 16 + 120, at + 16 + caps[k] - 1 };
			for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
				if (cuts[c] >= len)
					continue;
				spill(b, cuts[c]);
				snprintf(what, sizeof what, "snaplen %u, record of %u bytes cut to %zu", snaplen, caps[k],
					 cuts[c]);
				rt_same_frames(tmp_path, NULL, "pread", what);
				if (caps[k] > 262144) /* past libpcap's limit: an error, whole or cut */
					error_at(at, false, what);
				else
					error_names_the_record(b, cuts[c], false, what);
			}
		}
	}
}
END_TEST

/* Seconds are unsigned 32-bit (libpcap's signed reading undone in source.c);
 * fractions are widened the way libpcap widens them. */
START_TEST(odd_timestamps)
{
	static const uint32_t v[] = { 0, 1, 999999, 1000000, 999999999, 0x7FFFFFFF, 0x80000000u, 0xFFFFFFFFu };
	uint8_t b[24 + 64 * (16 + 60)];
	for (int magic = 0; magic < 2; magic++) {
		size_t len = 24;
		put_header(b, magic ? 0xa1b2c3d4u : 0xa1b23c4du, 2, 4, 65535, 1);
		for (size_t i = 0; i < 8; i++)
			for (size_t j = 0; j < 8; j++)
				put_record(b, &len, v[i], v[j], 60, 60);
		spill(b, len);
		ck_assert_uint_eq(rt_same_frames(tmp_path, NULL, "pread", "odd timestamps"), 64);
		swap_order(b, len);
		spill(b, len);
		ck_assert_uint_eq(rt_same_frames(tmp_path, NULL, "pread", "odd timestamps, swapped"), 64);
	}
}
END_TEST

START_TEST(empty_and_short_files)
{
	uint8_t b[64];
	size_t full = 24;
	put_header(b, 0xa1b2c3d4u, 2, 4, 65535, 1);
	put_record(b, &full, 1, 2, 3, 3);
	for (size_t len = 0; len <= full; len++) {
		spill(b, len);
		char what[32];
		snprintf(what, sizeof what, "%zu bytes", len);
		rt_same_frames(tmp_path, NULL, "pread", what); /* under 24 bytes neither opens it */
	}
}
END_TEST

/* What the reader leaves to libpcap, which must then read it. */
START_TEST(other_formats_stay_with_libpcap)
{
	uint8_t b[24 + 3 * (16 + 60)];
	size_t len = 24;
	put_header(b, 0xa1b2c3d4u, 2, 3, 65535, 1); /* 2.3: caplen and len may be swapped */
	put_record(b, &len, 1, 2, 60, 70);
	put_record(b, &len, 1, 2, 60, 50);
	spill(b, len);
	rt_same_frames(tmp_path, NULL, "libpcap", "version 2.3");
	put_header(b, 0xa1b2cd34u, 2, 4, 65535, 1); /* Kuznetzov's modified format */
	spill(b, len);
	rt_same_frames(tmp_path, NULL, "libpcap", "modified format");
	len = 24;
	put_header(b, 0xa1b2c3d4u, 2, 4, 65535, 113); /* Linux cooked, byte-swapped: libpcap swaps its header */
	put_record(b, &len, 1, 2, 60, 60);
	swap_order(b, len);
	spill(b, len);
	rt_same_frames(tmp_path, NULL, "libpcap", "swapped Linux cooked");
	/* Not byte-swapped, the same link type is ours. */
	swap_order(b, len);
	spill(b, len);
	rt_same_frames(tmp_path, NULL, "pread", "Linux cooked");
}
END_TEST

/* A file of many of the reader's chunks (RS_PCAPFILE_CHUNK): records of
 * every size straddle the chunk boundaries, some longer than a chunk's
 * worth of what is left in the buffer, and each must still read the same. */
START_TEST(file_across_chunks)
{
	size_t cap = 12u << 20, len = 24;
	uint8_t *b = malloc(cap + 70000);
	ck_assert_ptr_nonnull(b);
	put_header(b, 0xa1b23c4du, 2, 4, 65535, 1);
	uint32_t i = 0;
	while (len < cap) {
		uint32_t n = i % 97 == 0 ? 65535 : 60 + (i * 7919u) % 1500;
		put_record(b, &len, 1700000000 + i / 1000, i, n, n);
		i++;
	}
	spill(b, len);
	ck_assert_uint_eq(rt_same_frames(tmp_path, NULL, "pread", "12 MiB"), i);
	free(b);
}
END_TEST

/* A capture still being written: what was appended after the open is read. */
START_TEST(growing_file)
{
	static uint8_t b[24 + 200 * (16 + 1000)];
	size_t len = 24;
	put_header(b, 0xa1b23c4du, 2, 4, 65535, 1);
	for (int i = 0; i < 100; i++)
		put_record(b, &len, 1700000000, (uint32_t)i, 100 + (uint32_t)i * 9, 1000);
	size_t half = len;
	for (int i = 100; i < 200; i++)
		put_record(b, &len, 1700000000, (uint32_t)i, 100 + (uint32_t)i * 3, 1000);
	spill(b, half);
	char e1[RS_ERRBUF_SIZE], e2[RS_ERRBUF_SIZE];
	struct rs_source *x = rt_open_with("libpcap", tmp_path, NULL, e1);
	struct rs_source *y = rt_open_with(NULL, tmp_path, NULL, e2);
	ck_assert_ptr_nonnull(x);
	ck_assert_ptr_nonnull(y);
	ck_assert_str_eq(rs_source_reader(y), "pread");
	struct rs_packet p, q;
	for (int i = 0; i < 50; i++) {
		ck_assert_int_eq(rs_source_next(x, &p, e1), RS_NEXT_FRAME);
		ck_assert_int_eq(rs_source_next(y, &q, e2), RS_NEXT_FRAME);
	}
	FILE *f = fopen(tmp_path, "ab");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b + half, 1, len - half, f), len - half);
	fclose(f);
	int n = 50;
	for (;;) {
		enum rs_next u = rs_source_next(x, &p, e1), v = rs_source_next(y, &q, e2);
		ck_assert_int_eq(u, v);
		if (u != RS_NEXT_FRAME)
			break;
		n++;
		ck_assert_uint_eq(p.caplen, q.caplen);
		ck_assert_uint_eq(p.file_caplen, q.file_caplen);
		ck_assert_uint_eq(p.ts_ns, q.ts_ns);
		ck_assert(memcmp(p.data, q.data, p.caplen) == 0);
	}
	ck_assert_int_eq(n, 200);
	rs_source_close(x);
	rs_source_close(y);
}
END_TEST

/* A file cut short by another process while it is read (tcpdump -W
 * reusing a ring of files): the frames read before the cut as they were,
 * then an error naming the file's new size. The reader has read
 * RS_PCAPFILE_CHUNK bytes from the first record on when the cut comes
 * (100 records of 1016 bytes in, less than a chunk), and hands out every
 * record it holds whole; past that, the records that end before the cut.
 * Cut inside the chunk held, at its end, and past it: in a record, on a
 * record boundary, far away. */
#define HELD (24 + (size_t)RS_PCAPFILE_CHUNK) /* bytes read when the cut comes */

static void shrink_while_read(size_t cut_at, const char *what)
{
	size_t len = 24, cap = 6u << 20;
	uint8_t *b = malloc(cap + 2000);
	ck_assert_ptr_nonnull(b);
	put_header(b, 0xa1b23c4du, 2, 4, 65535, 1);
	uint32_t i = 0;
	while (len < cap) {
		put_record(b, &len, 1700000000, i, 1000, 1000);
		i++;
	}
	spill(b, len);
	char err[RS_ERRBUF_SIZE];
	struct rs_source *y = rt_open_with(NULL, tmp_path, NULL, err);
	ck_assert_ptr_nonnull(y);
	ck_assert_str_eq(rs_source_reader(y), "pread");
	struct rs_packet q;
	for (int k = 0; k < 100; k++)
		ck_assert_int_eq(rs_source_next(y, &q, err), RS_NEXT_FRAME);
	ck_assert_int_eq(truncate(tmp_path, (off_t)cut_at), 0);
	size_t readable = cut_at > HELD ? cut_at : HELD;
	uint64_t expect = (readable - 24) / (16 + 1000); /* records that end by then */
	uint64_t n = 100;
	enum rs_next v;
	while ((v = rs_source_next(y, &q, err)) == RS_NEXT_FRAME) {
		n++;
		RT_ASSERT(q.caplen == 1000 && memcmp(q.data, b + 24 + (q.frame_no - 1) * 1016 + 16, 1000) == 0,
			  "%s: frame %llu changed", what, (unsigned long long)q.frame_no);
	}
	ck_assert_int_eq(v, RS_NEXT_ERROR);
	RT_ASSERT(n == expect, "%s: %llu frames read, %llu expected", what, (unsigned long long)n,
		  (unsigned long long)expect);
	char want[200];
	snprintf(want, sizeof want, "frame %llu (file offset %llu): the file shrank from %zu to %zu bytes",
		 (unsigned long long)expect + 1, (unsigned long long)(24 + expect * 1016), len, cut_at);
	RT_ASSERT(strstr(err, want) != NULL, "%s: \"%s\", not \"%s\"", what, err, want);
	ck_assert_int_eq(rs_source_next(y, &q, err), RS_NEXT_ERROR); /* and it stays an error */
	rs_source_close(y);
	free(b);
}

START_TEST(file_shrinking_while_read)
{
	shrink_while_read(24 + 100 * 1016, "right where the reader is");
	shrink_while_read(24 + 140 * 1016 + 500, "mid-record, in the chunk held");
	shrink_while_read(HELD - 7, "mid-record, just before the end of the chunk held");
	shrink_while_read(HELD + 3000, "mid-record, just after the chunk held");
	shrink_while_read(24 + 700 * 1016, "on a record boundary past the chunk held");
	shrink_while_read((5u << 20) + 777, "far past the chunk held");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("reader");
	TCase *t = tcase_create("reader");
	tcase_set_timeout(t, 120);
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, every_sample_in_four_magics);
	tcase_add_test(t, filters_count_every_frame);
	tcase_add_test(t, truncated_files);
	tcase_add_test(t, records_past_the_snapshot_length);
	tcase_add_test(t, odd_timestamps);
	tcase_add_test(t, empty_and_short_files);
	tcase_add_test(t, other_formats_stay_with_libpcap);
	tcase_add_test(t, growing_file);
	tcase_add_test(t, file_across_chunks);
	tcase_add_test(t, file_shrinking_while_read);
	suite_add_tcase(s, t);
	t = rt_shared_tcase("shared");
	tcase_set_timeout(t, 120);
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, every_capture_in_four_magics);
	tcase_add_test(t, filters_count_every_frame_shared);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return rt_run_suite(suite());
}
