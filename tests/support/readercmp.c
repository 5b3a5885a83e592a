/*
 * readercmp.c — see readercmp.h.
 */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/readercmp.h"
#include "tests/support/rstest.h"

uint8_t *rt_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc((size_t)n + 1);
	ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

void rt_spill(const char *path, const uint8_t *b, size_t len)
{
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b, 1, len, f), len);
	fclose(f);
}

struct rs_source *rt_open_with(const char *reader, const char *path, const char *filter, char *err)
{
	if (reader)
		setenv("ROCESTAT_READER", reader, 1);
	else
		unsetenv("ROCESTAT_READER");
	struct rs_source *s = rs_source_open_file(path, filter, err, NULL);
	unsetenv("ROCESTAT_READER");
	return s;
}

static uint64_t compare(struct rs_source *a, struct rs_source *b, char *e1, char *e2, const char *want,
			const char *what)
{
	if (!a) {
		ck_assert_msg(b == NULL, "%s: only libpcap failed to open it: %s", what, e1);
		ck_assert_str_eq(e1, e2);
		return 0;
	}
	ck_assert_msg(b != NULL, "%s: only the default reader failed to open it: %s", what, e2);
	ck_assert_str_eq(rs_source_reader(a), "libpcap");
	ck_assert_msg(strcmp(rs_source_reader(b), want) == 0, "%s: read by %s, not %s", what, rs_source_reader(b),
		      want);
	ck_assert_int_eq(rs_source_datalink(a), rs_source_datalink(b));
	ck_assert_int_eq(rs_source_snaplen(a), rs_source_snaplen(b));
	uint64_t n = 0;
	for (;;) {
		struct rs_packet p, q;
		enum rs_next x = rs_source_next(a, &p, e1), y = rs_source_next(b, &q, e2);
		RT_ASSERT(x == y, "%s: after %llu frames libpcap says %d (%s), the reader %d (%s)", what,
			  (unsigned long long)n, x, x == RS_NEXT_ERROR ? e1 : "", y, y == RS_NEXT_ERROR ? e2 : "");
		if (x == RS_NEXT_END)
			break;
		if (x == RS_NEXT_ERROR) {
			RT_ASSERT(strcmp(e1, e2) == 0, "%s: libpcap: \"%s\"; the reader: \"%s\"", what, e1, e2);
			break;
		}
		n++;
		RT_ASSERT(p.frame_no == q.frame_no && p.caplen == q.caplen && p.wirelen == q.wirelen &&
				  p.ts_ns == q.ts_ns && p.file_caplen == q.file_caplen && p.dlt == q.dlt,
			  "%s: frame %llu: libpcap %llu/%u/%u/%llu/%u/%d, the reader %llu/%u/%u/%llu/%u/%d "
			  "(no/caplen/wirelen/ts/file_caplen/dlt)",
			  what, (unsigned long long)n, (unsigned long long)p.frame_no, p.caplen, p.wirelen,
			  (unsigned long long)p.ts_ns, p.file_caplen, p.dlt, (unsigned long long)q.frame_no, q.caplen,
			  q.wirelen, (unsigned long long)q.ts_ns, q.file_caplen, q.dlt);
		RT_ASSERT(memcmp(p.data, q.data, p.caplen) == 0, "%s: frame %llu: the bytes differ", what,
			  (unsigned long long)p.frame_no);
	}
	rs_source_close(a);
	rs_source_close(b);
	return n;
}


uint64_t rt_same_frames(const char *path, const char *filter, const char *want, const char *what)
{
	char e1[RS_ERRBUF_SIZE] = "", e2[RS_ERRBUF_SIZE] = "";
	struct rs_source *a = rt_open_with("libpcap", path, filter, e1);
	struct rs_source *b = rt_open_with(NULL, path, filter, e2);
	return compare(a, b, e1, e2, want, what);
}

/* A child writing b to the FIFO `dir`/t.fifo, made now. */
static pid_t feed_fifo(const char *dir, const uint8_t *b, size_t len)
{
	char path[512];
	snprintf(path, sizeof path, "%s/t.fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open(path, O_WRONLY);
		for (size_t done = 0; fd >= 0 && done < len;) {
			ssize_t n = write(fd, b + done, len - done);
			if (n <= 0)
				break;
			done += (size_t)n;
		}
		_exit(0);
	}
	return pid;
}

uint64_t rt_same_frames_piped(const char *tmpdir, const uint8_t *b, size_t len, const char *want, const char *what)
{
	char da[512], db[512], cwd[4096];
	snprintf(da, sizeof da, "%s/a", tmpdir);
	snprintf(db, sizeof db, "%s/b", tmpdir);
	ck_assert_int_eq(mkdir(da, 0700), 0);
	ck_assert_int_eq(mkdir(db, 0700), 0);
	pid_t pa = feed_fifo(da, b, len), pb = feed_fifo(db, b, len);
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
	char e1[RS_ERRBUF_SIZE] = "", e2[RS_ERRBUF_SIZE] = "";
	/* The same name for both, so that their messages compare. */
	ck_assert_int_eq(chdir(da), 0);
	struct rs_source *sa = rt_open_with("libpcap", "t.fifo", NULL, e1);
	ck_assert_int_eq(chdir(db), 0);
	struct rs_source *sb = rt_open_with(NULL, "t.fifo", NULL, e2);
	ck_assert_int_eq(chdir(cwd), 0);
	uint64_t n = compare(sa, sb, e1, e2, want, what);
	kill(pa, SIGKILL);
	kill(pb, SIGKILL);
	waitpid(pa, NULL, 0);
	waitpid(pb, NULL, 0);
	char f[600];
	snprintf(f, sizeof f, "%s/t.fifo", da);
	unlink(f);
	snprintf(f, sizeof f, "%s/t.fifo", db);
	unlink(f);
	rmdir(da);
	rmdir(db);
	return n;
}
