/*
 * pcaploop.c — the benchmark's floor: the bare libpcap read loop that
 * rocestat is measured against. It opens the file the way rocestat's
 * capture/source.c does (nanosecond timestamps), calls pcap_next_ex() for
 * every frame, counts them and sums caplen, and does nothing else.
 *
 *   rocestat-pcaploop FILE   prints "frames bytes"
 */
#include <stdint.h>
#include <stdio.h>
#include <pcap/pcap.h>

int main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE];
	if (argc != 2) {
		fprintf(stderr, "usage: rocestat-pcaploop FILE\n");
		return 2;
	}
	pcap_t *p = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO, err);
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
	pcap_close(p);
	return 0;
}
