/*
 * readercmp.c — see readercmp.h.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

uint64_t rt_same_frames(const char *path, const char *filter, const char *want, const char *what)
{
	char e1[RS_ERRBUF_SIZE] = "", e2[RS_ERRBUF_SIZE] = "";
	struct rs_source *a = rt_open_with("libpcap", path, filter, e1);
	struct rs_source *b = rt_open_with(NULL, path, filter, e2);
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

