/*
 * pcaploop.c — the benchmark's floor: the bare libpcap read loop that
 * rocestat is measured against. It opens the file the way rocestat's
 * capture/source.c does (nanosecond timestamps), calls pcap_next_ex() for
 * every frame, counts them and sums caplen, and does nothing else.
 *
 *   rocestat-pcaploop FILE [BUFSIZE]   prints "frames bytes"
 *
 * With BUFSIZE, the file is opened with fopen() and given a stdio buffer of
 * that many bytes before libpcap takes it (pcap_fopen_offline): libpcap
 * then reads BUFSIZE bytes a system call instead of stdio's 4 KiB. The
 * bench shows that loop beside the plain one, as the fastest libpcap hands
 * over a file here (it is not what the targets are measured against).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <pcap/pcap.h>

int main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE];
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: rocestat-pcaploop FILE [BUFSIZE]\n");
		return 2;
	}
	pcap_t *p;
	char *buf = NULL;
	if (argc == 3) {
		size_t n = strtoul(argv[2], NULL, 0);
		FILE *f = fopen(argv[1], "rb");
		/* glibc ignores the size of a buffer it is to allocate itself. */
		if (!f || n == 0 || !(buf = malloc(n)) || setvbuf(f, buf, _IOFBF, n) != 0) {
			fprintf(stderr, "rocestat-pcaploop: %s: cannot open with a %s-byte buffer\n", argv[1], argv[2]);
			return 1;
		}
		p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, err);
	} else {
		p = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO, err);
	}
	if (!p) {
		fprintf(stderr, "rocestat-pcaploop: %s\n", err);
		return 1;
	}
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t frames = 0, bytes = 0;
	int rc;
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		frames++;
		bytes += h->caplen;
	}
	if (rc != PCAP_ERROR_BREAK) {
		fprintf(stderr, "rocestat-pcaploop: %s\n", pcap_geterr(p));
		return 1;
	}
	printf("%llu %llu\n", (unsigned long long)frames, (unsigned long long)bytes);
	pcap_close(p); /* closes the FILE too; its buffer is ours */
	free(buf);
	return 0;
}
