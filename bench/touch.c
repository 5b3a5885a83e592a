/*
 * touch.c — the cheapest way to see every byte of a classic pcap file, the
 * bench's yardstick for rocestat's reading and decoding (t in bench/run.sh):
 * the file mapped, its record headers walked, and one byte of every 64-byte
 * line of every frame read (an ICRC check must read them all). Unlike the
 * libpcap loop it does not move with libpcap's stdio copy, only with the
 * machine's memory and page cache, as rocestat does.
 *
 *   rocestat-touch FILE     prints "frames bytes sum"
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct stat st;
	int fd = argc == 2 ? open(argv[1], O_RDONLY) : -1;
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < 24) {
		fprintf(stderr, "usage: rocestat-touch FILE (a classic pcap file in the host's byte order)\n");
		return 2;
	}
	const uint8_t *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		perror(argv[1]);
		return 1;
	}
	madvise((void *)m, (size_t)st.st_size, MADV_SEQUENTIAL);
	uint64_t frames = 0, bytes = 0, sum = 0;
	for (size_t off = 24; off + 16 <= (size_t)st.st_size;) {
		uint32_t cap;
		memcpy(&cap, m + off + 8, 4);
		if (off + 16 + cap > (size_t)st.st_size)
			break;
		for (uint32_t i = 0; i < cap; i += 64)
			sum += m[off + 16 + i];
		frames++;
		bytes += cap;
		off += 16 + cap;
	}
	printf("%llu %llu %llu\n", (unsigned long long)frames, (unsigned long long)bytes, (unsigned long long)sum);
	return 0;
}
