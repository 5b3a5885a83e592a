/*
 * replay_main.c — a main() for the fuzz targets without libFuzzer: feeds each
 * file named on the command line (or each file in a named directory) to
 * LLVMFuzzerTestOneInput once. Built in every tree (plain, sanitizer) and run
 * by `make check`, so the inputs under tests/regress/<target>/ — crashes the
 * fuzzers once found — keep being replayed; under ASan+UBSan and valgrind a
 * regression shows as a report, in the plain build as a crash.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		perror(path);
		return 1;
	}
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			uint8_t *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(fp);
				return 1;
			}
			buf = nb;
		}
		size_t n = fread(buf + len, 1, cap - len, fp);
		if (n == 0)
			break;
		len += n;
	}
	fclose(fp);
	/* An exactly-sized copy, as libFuzzer hands inputs over. */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		free(buf);
		return 1;
	}
	if (len)
		memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	int bad = 0, n = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0)
			continue; /* no regressions recorded for this target */
		if (!S_ISDIR(st.st_mode)) {
			bad |= replay_file(argv[i]);
			n++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		if (!d) {
			perror(argv[i]);
			return 1;
		}
		char **names = NULL;
		size_t count = 0;
		struct dirent *e;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.' || strstr(e->d_name, ".txt") || strstr(e->d_name, ".md"))
				continue; /* notes, not inputs */
			char **nn = realloc(names, (count + 1) * sizeof *names);
			if (!nn)
				return 1;
			names = nn;
			size_t l = strlen(argv[i]) + strlen(e->d_name) + 2;
			names[count] = malloc(l);
			if (!names[count])
				return 1;
			snprintf(names[count], l, "%s/%s", argv[i], e->d_name);
			count++;
		}
		closedir(d);
		if (count)
			qsort(names, count, sizeof *names, cmp);
		for (size_t k = 0; k < count; k++) {
			bad |= replay_file(names[k]);
			n++;
			free(names[k]);
		}
		free(names);
	}
	printf("%s: %d input%s replayed\n", argv[0], n, n == 1 ? "" : "s");
	return bad;
}
