/*
 * check_writer.c — capture/writer: files written by rocestat are read back
 * with libpcap (an independent reader) and must hold exactly the frames and
 * nanosecond timestamps given; rotation by size, count and time; the
 * temporary name; write errors.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <pcap/pcap.h>

#include "capture/writer.h"
#include "tests/support/rstest.h"

#define NFRAMES 50

static char dir[256];
static uint8_t frames[NFRAMES][1600];
static struct rs_packet pkts[NFRAMES];

/* Deterministic frames of varied lengths (odd ones too, for pcapng padding),
 * timestamps with every nanosecond digit significant, 100 ms apart. */
static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/check_writer.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (int i = 0; i < NFRAMES; i++) {
		uint32_t len = 60 + (uint32_t)(i * 29) % 1400;
		for (uint32_t j = 0; j < len; j++)
			frames[i][j] = (uint8_t)(i * 7 + j * 13);
		pkts[i] = (struct rs_packet){ .data = frames[i], .caplen = len, .wirelen = len + (i % 3 ? 0 : 4),
					      .ts_ns = 1700000000123456789ull + (uint64_t)i * 100000000ull + (uint64_t)i,
					      .frame_no = (uint64_t)i + 1, .dlt = DLT_EN10MB };
	}
}

static void teardown(void)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const char *at(const char *name)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
	return buf[k];
}

/* Read a file back with libpcap and compare it with pkts[first..first+n). */
static void expect_frames(const char *path, int first, int n, uint32_t snaplen)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	ck_assert_msg(p != NULL, "%s: %s", path, err);
	ck_assert_int_eq(pcap_datalink(p), DLT_EN10MB);
	struct pcap_pkthdr *h;
	const u_char *d;
	int i = 0, rc;
	while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
		ck_assert_msg(i < n, "%s: more than %d frames", path, n);
		const struct rs_packet *e = &pkts[first + i];
		uint32_t cap = e->caplen < snaplen ? e->caplen : snaplen;
		ck_assert_uint_eq(h->caplen, cap);
		ck_assert_uint_eq(h->len, e->wirelen);
		ck_assert_uint_eq((uint64_t)h->ts.tv_sec, e->ts_ns / 1000000000u);
		ck_assert_uint_eq((uint64_t)h->ts.tv_usec, e->ts_ns % 1000000000u);
		ck_assert_int_eq(memcmp(d, e->data, cap), 0);
		i++;
	}
	ck_assert_msg(rc == PCAP_ERROR_BREAK, "%s: %s", path, pcap_geterr(p));
	ck_assert_int_eq(i, n);
	pcap_close(p);
}

static struct rs_writer *open_ok(struct rs_writer_config cfg)
{
	char err[RS_ERRBUF_SIZE];
	if (!cfg.dlt)
		cfg.dlt = DLT_EN10MB;
	struct rs_writer *w = rs_writer_open(&cfg, err);
	ck_assert_msg(w != NULL, "%s", err);
	return w;
}

static void write_all(struct rs_writer *w, int first, int n)
{
	char err[RS_ERRBUF_SIZE];
	for (int i = first; i < first + n; i++)
		ck_assert_msg(rs_writer_write(w, &pkts[i], err), "%s", err);
}

static void close_ok(struct rs_writer *w)
{
	char err[RS_ERRBUF_SIZE];
	ck_assert_msg(rs_writer_close(w, err), "%s", err);
}

/* Names in the test directory, sorted, joined by spaces. */
static const char *listing(void)
{
	static char out[4096];
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);
	ck_assert_int_ge(n, 0);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, "..")) {
			if (out[0])
				strcat(out, " ");
			strcat(out, ents[i]->d_name);
		}
		free(ents[i]);
	}
	free(ents);
	return out;
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

START_TEST(pcap_round_trip)
{
	struct rs_writer *w = open_ok((struct rs_writer_config){ .path = at("out.pcap") });
	write_all(w, 0, NFRAMES);
	ck_assert_uint_eq(rs_writer_frames(w), NFRAMES);
	close_ok(w);
	expect_frames(at("out.pcap"), 0, NFRAMES, 262144);
	ck_assert_str_eq(listing(), "out.pcap");
}
END_TEST

START_TEST(pcapng_round_trip)
{
	ck_assert(rs_writer_is_pcapng("x.pcapng"));
	ck_assert(!rs_writer_is_pcapng("x.pcapng.pcap"));
	struct rs_writer *w = open_ok((struct rs_writer_config){ .path = at("out.pcapng"), .if_name = "veth1" });
	write_all(w, 0, NFRAMES);
	close_ok(w);
	expect_frames(at("out.pcapng"), 0, NFRAMES, 262144);
	/* It is pcapng, not pcap under another name: the Section Header Block. */
	FILE *f = fopen(at("out.pcapng"), "rb");
	uint32_t magic = 0;
	ck_assert_int_eq(fread(&magic, 4, 1, f), 1);
	fclose(f);
	ck_assert_uint_eq(magic, 0x0A0D0D0Au);
}
END_TEST

START_TEST(snaplen_cuts_keeps_wire_length)
{
	struct rs_writer *w = open_ok((struct rs_writer_config){ .path = at("s.pcapng"), .snaplen = 128 });
	write_all(w, 0, NFRAMES);
	close_ok(w);
	expect_frames(at("s.pcapng"), 0, NFRAMES, 128);
	w = open_ok((struct rs_writer_config){ .path = at("s.pcap"), .snaplen = 128 });
	write_all(w, 0, NFRAMES);
	close_ok(w);
	expect_frames(at("s.pcap"), 0, NFRAMES, 128);
}
END_TEST

START_TEST(temporary_name_until_complete)
{
	struct rs_writer *w = open_ok((struct rs_writer_config){ .path = at("t.pcap") });
	write_all(w, 0, 3);
	/* While open: no file under the final name, one hidden temporary one. */
	ck_assert(!exists(at("t.pcap")));
	const char *l = listing();
	ck_assert_msg(strncmp(l, ".t.pcap.", 8) == 0 && !strchr(l, ' '), "listing: %s", l);
	close_ok(w);
	ck_assert_str_eq(listing(), "t.pcap");
	struct stat st;
	ck_assert_int_eq(stat(at("t.pcap"), &st), 0);
	mode_t um = umask(0);
	umask(um);
	ck_assert_uint_eq(st.st_mode & 0777, 0666 & ~um);
}
END_TEST

START_TEST(rotate_by_size)
{
	/* Room for a few frames per file: FILE, FILE1, FILE2 ... each within -C. */
	uint64_t limit = 4000;
	struct rs_writer *w = open_ok((struct rs_writer_config){ .path = at("r.pcap"), .rotate_bytes = limit });
	write_all(w, 0, NFRAMES);
	uint32_t done_before_close = rs_writer_files_done(w);
	close_ok(w);
	ck_assert_uint_gt(done_before_close, 5);

	/* Read the files in order; together they are the stream, each <= limit. */
	int next = 0;
	for (uint32_t k = 0; k <= done_before_close; k++) {
		char name[64];
		if (k == 0)
			snprintf(name, sizeof name, "r.pcap");
		else
			snprintf(name, sizeof name, "r.pcap%u", k);
		struct stat st;
		ck_assert_msg(stat(at(name), &st) == 0, "%s missing; have %s", name, listing());
		ck_assert_uint_le((uint64_t)st.st_size, limit);
		char err[PCAP_ERRBUF_SIZE];
		pcap_t *p = pcap_open_offline(at(name), err);
		ck_assert_msg(p != NULL, "%s", err);
		struct pcap_pkthdr *h;
		const u_char *d;
		int n = 0;
		while (pcap_next_ex(p, &h, &d) == 1)
			n++;
		pcap_close(p);
		ck_assert_int_gt(n, 0);
		expect_frames(at(name), next, n, 262144);
		next += n;
	}
	ck_assert_int_eq(next, NFRAMES);
	char last[64];
	snprintf(last, sizeof last, "r.pcap%u", done_before_close + 1);
	ck_assert(!exists(at(last)));
}
END_TEST

START_TEST(rotate_ring_with_file_count)
{
	/* -C with -W 3: FILE0, FILE1, FILE2 reused in turn; the newest three stay. */
	struct rs_writer *w = open_ok((struct rs_writer_config){ .path = at("g.pcap"), .rotate_bytes = 3000,
								 .max_files = 3 });
	write_all(w, 0, NFRAMES);
	close_ok(w);
	ck_assert_str_eq(listing(), "g.pcap0 g.pcap1 g.pcap2");
	/* The last frame is in one of them and the very first frame in none. */
	int found_last = 0;
	for (int k = 0; k < 3; k++) {
		char name[32], err[PCAP_ERRBUF_SIZE];
		snprintf(name, sizeof name, "g.pcap%d", k);
		pcap_t *p = pcap_open_offline_with_tstamp_precision(at(name), PCAP_TSTAMP_PRECISION_NANO, err);
		ck_assert_ptr_nonnull(p);
		struct pcap_pkthdr *h;
		const u_char *d;
		while (pcap_next_ex(p, &h, &d) == 1) {
			uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;
			ck_assert_uint_ne(ts, pkts[0].ts_ns);
			found_last += ts == pkts[NFRAMES - 1].ts_ns;
		}
		pcap_close(p);
	}
	ck_assert_int_eq(found_last, 1);

	/* The width is the digits of N-1, like tcpdump: -W 11 gives FILE00 ... FILE10,
	 * -W 10 FILE0 ... FILE9. */
	teardown();
	setup();
	w = open_ok((struct rs_writer_config){ .path = at("h"), .rotate_bytes = 150, .max_files = 11 });
	write_all(w, 0, 4);
	close_ok(w);
	ck_assert_str_eq(listing(), "h00 h01 h02 h03");
	teardown();
	setup();
	w = open_ok((struct rs_writer_config){ .path = at("h"), .rotate_bytes = 150, .max_files = 10 });
	write_all(w, 0, 12);
	close_ok(w);
	ck_assert_str_eq(listing(), "h0 h1 h2 h3 h4 h5 h6 h7 h8 h9");
	expect_frames(at("h1"), 11, 1, 262144);
}
END_TEST

START_TEST(rotate_by_time)
{
	setenv("TZ", "UTC", 1);
	tzset();
	/* Frames are 100 ms apart from 2023-11-14 22:13:20.123 UTC; -G 1 makes a
	 * file per 10 frames, named from the first frame's time. */
	struct rs_writer *w = open_ok((struct rs_writer_config){ .path = at("c-%H%M%S.pcap"), .rotate_seconds = 1 });
	write_all(w, 0, 25);
	close_ok(w);
	ck_assert_str_eq(listing(), "c-221320.pcap c-221321.pcap c-221322.pcap");
	expect_frames(at("c-221320.pcap"), 0, 10, 262144);
	expect_frames(at("c-221321.pcap"), 10, 10, 262144);
	expect_frames(at("c-221322.pcap"), 20, 5, 262144);
}
END_TEST

START_TEST(rotate_by_time_keeps_newest)
{
	setenv("TZ", "UTC", 1);
	tzset();
	struct rs_writer *w = open_ok((struct rs_writer_config){ .path = at("k-%H%M%S.pcap"), .rotate_seconds = 1,
								 .max_files = 2 });
	write_all(w, 0, 45);
	close_ok(w);
	ck_assert_str_eq(listing(), "k-221323.pcap k-221324.pcap");
	expect_frames(at("k-221324.pcap"), 40, 5, 262144);
}
END_TEST

START_TEST(time_rotation_without_conversions_numbers_files)
{
	/* -G with a plain name must not overwrite: FILE, FILE1, FILE2. */
	struct rs_writer *w = open_ok((struct rs_writer_config){ .path = at("p.pcap"), .rotate_seconds = 2 });
	write_all(w, 0, 50);
	close_ok(w);
	ck_assert_str_eq(listing(), "p.pcap p.pcap1 p.pcap2");
	expect_frames(at("p.pcap2"), 40, 10, 262144);
}
END_TEST

START_TEST(tick_completes_a_finished_period)
{
	char err[RS_ERRBUF_SIZE];
	struct rs_writer *w = open_ok((struct rs_writer_config){ .path = at("q.pcap"), .rotate_seconds = 5 });
	write_all(w, 0, 3);
	ck_assert(rs_writer_tick(w, pkts[2].ts_ns + 1000000000ull, err));
	ck_assert(!exists(at("q.pcap")));
	ck_assert(rs_writer_tick(w, pkts[0].ts_ns + 5000000000ull, err));
	ck_assert(exists(at("q.pcap")));
	expect_frames(at("q.pcap"), 0, 3, 262144);
	ck_assert_uint_eq(rs_writer_files_done(w), 1);
	close_ok(w);
	/* The empty file opened after the tick is not left behind. */
	ck_assert_str_eq(listing(), "q.pcap");
}
END_TEST

START_TEST(empty_capture_is_a_valid_file)
{
	struct rs_writer *w = open_ok((struct rs_writer_config){ .path = at("e.pcapng") });
	close_ok(w);
	expect_frames(at("e.pcapng"), 0, 0, 262144);
}
END_TEST

START_TEST(dev_full_is_an_error_naming_it)
{
	char err[RS_ERRBUF_SIZE];
	struct rs_writer_config cfg = { .path = "/dev/full", .dlt = DLT_EN10MB };
	struct rs_writer *w = rs_writer_open(&cfg, err);
	ck_assert_ptr_null(w);
	ck_assert_msg(strstr(err, "/dev/full") && strstr(err, strerror(ENOSPC)), "%s", err);
	ck_assert_ptr_null(strchr(err, '\n'));
}
END_TEST

START_TEST(full_disk_keeps_whole_frames)
{
	/* A file size limit stands in for a full disk: write(2) fails with EFBIG
	 * part-way through a buffer of frames. */
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit rl = { 200000, 200000 };
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	char err[RS_ERRBUF_SIZE];
	struct rs_writer *w = open_ok((struct rs_writer_config){ .path = at("full.pcap") });
	bool failed = false;
	for (int round = 0; round < 400 && !failed; round++)
		for (int i = 0; i < NFRAMES && !failed; i++)
			failed = !rs_writer_write(w, &pkts[i], err);
	if (!failed)
		failed = !rs_writer_close(w, err);
	else
		ck_assert(!rs_writer_close(w, err));
	ck_assert(failed);
	ck_assert_msg(strstr(err, "full.pcap") && strstr(err, strerror(EFBIG)), "%s", err);
	/* Under its final name, readable to the end, a whole number of frames. */
	char perr[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(at("full.pcap"), perr);
	ck_assert_msg(p != NULL, "%s", perr);
	struct pcap_pkthdr *h;
	const u_char *d;
	int n = 0, rc;
	while ((rc = pcap_next_ex(p, &h, &d)) == 1)
		ck_assert_int_eq(memcmp(d, pkts[n++ % NFRAMES].data, h->caplen), 0);
	ck_assert_msg(rc == PCAP_ERROR_BREAK, "torn file: %s", pcap_geterr(p));
	ck_assert_int_gt(n, 0);
	pcap_close(p);
	ck_assert_str_eq(listing(), "full.pcap");
}
END_TEST

START_TEST(bad_outputs_are_one_line_errors)
{
	char err[RS_ERRBUF_SIZE];
	struct rs_writer_config cfg = { .path = "/nonexistent-dir/x.pcap", .dlt = DLT_EN10MB };
	ck_assert_ptr_null(rs_writer_open(&cfg, err));
	ck_assert_msg(strstr(err, "/nonexistent-dir/x.pcap") && strstr(err, strerror(ENOENT)), "%s", err);
	cfg.path = dir;
	ck_assert_ptr_null(rs_writer_open(&cfg, err));
	ck_assert_msg(strstr(err, dir) && strstr(err, "directory"), "%s", err);
	cfg.path = "-";
	cfg.rotate_bytes = 1000;
	ck_assert_ptr_null(rs_writer_open(&cfg, err));
	ck_assert_msg(strstr(err, "standard output"), "%s", err);
	ck_assert_str_eq(listing(), "");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("writer");
	TCase *t = tcase_create("writer");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, pcap_round_trip);
	tcase_add_test(t, pcapng_round_trip);
	tcase_add_test(t, snaplen_cuts_keeps_wire_length);
	tcase_add_test(t, temporary_name_until_complete);
	tcase_add_test(t, rotate_by_size);
	tcase_add_test(t, rotate_ring_with_file_count);
	tcase_add_test(t, rotate_by_time);
	tcase_add_test(t, rotate_by_time_keeps_newest);
	tcase_add_test(t, time_rotation_without_conversions_numbers_files);
	tcase_add_test(t, tick_completes_a_finished_period);
	tcase_add_test(t, empty_capture_is_a_valid_file);
	tcase_add_test(t, dev_full_is_an_error_naming_it);
	tcase_add_test(t, full_disk_keeps_whole_frames);
	tcase_add_test(t, bad_outputs_are_one_line_errors);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return rt_run_suite(suite());
}
