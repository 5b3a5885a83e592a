/*
 * pcapfile.c — classic pcap files read in place: the file is mapped and
 * every frame is handed out as a pointer into the mapping.
 *
 * libpcap reads a savefile with fread() through stdio's 4 KiB buffer and
 * copies each record once more into its own buffer: a system call per
 * 4 KiB and two copies of every byte, which with a warm page cache is most
 * of what reading a capture costs (bench/run.sh shows both readers). This
 * reader takes over a file libpcap has just opened and checked, when it is
 * a plain pcap file on a regular file, and gives exactly what
 * pcap_next_ex() would (libpcap 1.10, sf-pcap.c): the same records, the
 * timestamps scaled to nanoseconds the same way, caplen cut to the
 * header's snapshot length (as libpcap adjusts it) when a record claims
 * more, and the same error messages about the same record (source.c
 * quotes the offset where it starts). Anything else stays with libpcap:
 * pcapng, standard input and pipes, versions other than 2.4, the modified
 * formats, and byte-swapped files of link types whose pseudo-header
 * libpcap swaps.
 * tests/check_reader.c compares the two on every capture we have and on
 * truncated and corrupt ones.
 *
 * Memory: the mapping is read once, front to back, prefetched a few frames
 * ahead of the record handed out (AHEAD). Every WINDOW bytes, the
 * pages behind the reader are dropped from the process (MADV_DONTNEED: the
 * page cache keeps them), and the next two windows are announced
 * (MADV_WILLNEED) so that a file not in the page cache is read ahead, or
 * mapped in at once when it is cached: the resident set holds at most
 * three windows of the file whatever its size. Mapped by touching a byte
 * every 64 KiB, not by MADV_POPULATE_READ: each touch's page fault maps
 * all of the 64 KiB around it (the kernel's fault-around) or the whole
 * 2 MiB when the page cache holds the file in huge folios, while
 * MADV_POPULATE_READ makes the same faults and then walks to every 4 KiB
 * page once more. With the file in small folios (a page cache that was
 * reclaimed and read again) that walk was 10% of a run's samples. Paired
 * runs, user + sys: a 10 M-frame bench capture so reclaimed 5% less (9
 * pairs, 8 faster), a fresh 2 M-frame one 1% less (21 pairs, 12 faster;
 * its sys time a third of what it was).
 *
 * A file that grows while it is read (a capture still being written) is
 * mapped again at the end, where libpcap's read would see the new bytes
 * too. One that shrinks (truncated by another process: tcpdump -W reusing
 * a ring of files) takes its pages out of the mapping, and touching them
 * raises SIGBUS. The guard below catches that signal for addresses inside
 * a mapping of ours, maps a page of zeros there so the access completes,
 * and notes the lowest such page; next() touches every page of a record
 * before handing it out, so the record that reaches a page found gone
 * (there, or by the touches ahead) is not handed out but reported as an
 * error (file, frame, offset), the frames before it keep their results.
 * Only truncation in the instants between that touch and the dissector's
 * reading the record can let one record through with zeros where its
 * bytes were; its successor then reports the error.
 */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/reader.h"

/* 2 MiB: 8 MiB windows (24 MiB resident) read no faster (2M-frame bench
 * file, 9 interleaved runs: 0.80 s median CPU at 8 MiB, 0.73 s at 2 MiB). */
#define WINDOW (2u << 20)
/* Bytes ahead of the record handed out that are prefetched into the caches:
 * the dissector's first touch of a frame would otherwise wait for memory
 * (mapped pages are not copied, so nothing has brought them in). A dozen
 * frames of the bench's; 2-16 KiB measured alike, none was ~10% slower. */
#define AHEAD 8192
/* The kernel's default fault-around: a page fault on a cached file maps
 * the 64 KiB around it (or the whole huge folio), so slide() reads one
 * byte per 64 KiB to map a window in. */
#define FAULT_AROUND (64u << 10)
#define PCAP_FILE_HDR 24
#define PCAP_REC_HDR 16
/* libpcap's MAXIMUM_SNAPLEN: its largest record for every link type this
 * reader takes (max_snaplen_for_dlt() is larger only for D-Bus, EBHSCR and
 * USBPcap). */
#define LIBPCAP_MAX_SNAPLEN 262144u

/* ---- the SIGBUS guard ---------------------------------------------------
 * One slot per open mapping (-j reads several files at once, one per
 * thread); the handler only reads the slots and writes `gone`, with atomics
 * (nothing else is safe in a signal handler). A file that finds no free slot
 * is left to libpcap. */
#define GUARD_SLOTS 64

struct guard {
	atomic_uintptr_t lo, hi; /* [lo, hi): the mapping; lo == 0: free */
	/* The file offset of the lowest page found gone (zeros now); SIZE_MAX:
	 * none. An offset, not an address: it holds when the file is mapped
	 * again (grown()). */
	atomic_size_t gone;
};

static struct guard guards[GUARD_SLOTS];
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static struct sigaction guard_previous;
static uintptr_t guard_page;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	for (int i = 0; i < GUARD_SLOTS; i++) {
		uintptr_t lo = atomic_load(&guards[i].lo), hi = atomic_load(&guards[i].hi);
		if (lo && a >= lo && a < hi) {
			uintptr_t pg = a & ~(guard_page - 1);
			if (mmap((void *)pg, guard_page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
			    MAP_FAILED) {
				size_t off = pg - lo, seen = atomic_load(&guards[i].gone);
				while (off < seen && !atomic_compare_exchange_weak(&guards[i].gone, &seen, off))
					;
				return; /* the access is made again, and reads zeros */
			}
			break;
		}
	}
	/* Not ours (or no page to put there): whatever handled SIGBUS before
	 * handles it, by default ending the process as it would have. */
	if (guard_previous.sa_flags & SA_SIGINFO) {
		guard_previous.sa_sigaction(sig, si, uc);
		return;
	}
	sigaction(SIGBUS, &guard_previous, NULL);
}

static void guard_install(void)
{
	guard_page = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &guard_previous);
}

/* Point a slot at a mapping (a new one, or the file mapped again). */
static void guard_move(struct guard *g, const void *map, size_t size)
{
	atomic_store(&g->lo, UINTPTR_MAX); /* matches nothing while it changes */
	atomic_store(&g->hi, (uintptr_t)map + size);
	atomic_store(&g->lo, (uintptr_t)map);
}

static struct guard *guard_take(const void *map, size_t size)
{
	pthread_once(&guard_once, guard_install);
	for (int i = 0; i < GUARD_SLOTS; i++) {
		uintptr_t free_lo = 0;
		if (atomic_compare_exchange_strong(&guards[i].lo, &free_lo, UINTPTR_MAX)) {
			atomic_store(&guards[i].gone, SIZE_MAX);
			guard_move(&guards[i], map, size);
			return &guards[i];
		}
	}
	return NULL;
}

static void guard_drop(struct guard *g)
{
	atomic_store(&g->hi, 0);
	atomic_store(&g->lo, 0);
}

struct pcapfile {
	struct rs_reader r;
	struct guard *guard;
	const uint8_t *map;
	size_t size;      /* bytes mapped: the file's size when it was mapped */
	size_t off;       /* where the next record starts */
	size_t released;  /* [0, released) has been dropped from the process */
	size_t advised;   /* [.., advised) has been announced */
	size_t fetched;   /* [.., fetched) has been prefetched into the caches */
	size_t page;
	int fd;           /* libpcap's: it closes it */
	bool swapped;     /* the file's byte order is not ours */
	bool usec;        /* microsecond timestamps (scaled up to ns) */
	bool failed;
	bool ended;       /* the end was reported: it stays the end, as stdio's EOF does */
	uint32_t snaplen; /* libpcap's snapshot length (pcap_snapshot) */
	long err_off;     /* where the record that could not be read starts */
	struct pcap_pkthdr hdr;
	char err[PCAP_ERRBUF_SIZE];
};

static uint32_t get32(const struct pcapfile *r, const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return r->swapped ? __builtin_bswap32(v) : v;
}

static uint16_t get16(bool swapped, const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return swapped ? __builtin_bswap16(v) : v;
}

/* Link types libpcap hands over untouched in byte-swapped files (its
 * swap_pseudo_headers() rewrites Linux cooked headers, among others). */
static bool no_pseudo_header_swap(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB:
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
	case DLT_INFINIBAND:
	case DLT_ERF:
		return true;
	default:
		return false;
	}
}

static bool map_file(struct pcapfile *r)
{
	struct stat st;
	if (fstat(r->fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < PCAP_FILE_HDR ||
	    (uint64_t)st.st_size > SIZE_MAX / 2)
		return false;
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, r->fd, 0);
	if (m == MAP_FAILED)
		return false;
	madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
	r->map = m;
	r->size = (size_t)st.st_size;
	return true;
}

/* The file's size now; -1 if it cannot be had. */
static long long size_now(const struct pcapfile *r)
{
	struct stat st;
	return fstat(r->fd, &st) == 0 ? (long long)st.st_size : -1;
}

/* At the end of the mapping: has the file grown since (a capture still
 * being written)? Then map it again and go on, as libpcap's read would. */
static bool grown(struct pcapfile *r)
{
	long long now = size_now(r);
	if (now < 0 || (uint64_t)now <= r->size)
		return false;
	const uint8_t *old = r->map;
	size_t old_size = r->size;
	if (!map_file(r))
		return false;
	guard_move(r->guard, r->map, r->size);
	munmap((void *)old, old_size);
	r->released = r->advised = r->off & ~(r->page - 1); /* nothing of the new mapping is resident yet */
	return true;
}

/* Every WINDOW bytes: drop what is behind the record about to be handed
 * out, announce what is ahead. */
static void slide(struct pcapfile *r, size_t rec)
{
	size_t upto = rec & ~(r->page - 1);
	if (upto > r->released) {
		madvise((void *)(r->map + r->released), upto - r->released, MADV_DONTNEED);
		r->released = upto;
	}
	size_t want = rec + 2 * (size_t)WINDOW;
	if (want > r->size)
		want = r->size;
	if (want > r->advised) {
		/* A file not in the page cache is read ahead (announcing cached
		 * pages costs as much as faulting them in). Cached, its pages are
		 * mapped in now, a fault per 64 KiB or per huge folio, rather
		 * than one at a time by the reads of records (ahead()'s
		 * prefetches do not fault: on pages not mapped yet they are
		 * lost). The last page of the range says which this is. A page
		 * found gone here (the file shrank) is noted by the guard and
		 * refused when a record reaches it, not before. */
		size_t from = r->advised & ~(r->page - 1);
		unsigned char in_core = 0;
		size_t last = (want - 1) & ~(r->page - 1);
		if (mincore((void *)(r->map + last), 1, &in_core) != 0 || !(in_core & 1))
			madvise((void *)(r->map + from), want - from, MADV_WILLNEED);
		else
			for (size_t at = from; at < want; at += FAULT_AROUND)
				(void)*(const volatile uint8_t *)(r->map + at);
		r->advised = want;
	}
}

/* Prefetch up to AHEAD bytes past the next record, a cache line at a time. */
static inline void ahead(struct pcapfile *r)
{
	size_t want = r->off + AHEAD;
	if (want > r->size)
		want = r->size;
	/* In locals: through r, the compiler stored the position back at every
	 * line (a dozen a frame). */
	size_t at = r->fetched < r->off ? r->off : r->fetched;
	const uint8_t *map = r->map;
	/* Four lines a turn (a frame needs about eleven): one compare and
	 * branch per line was a quarter of next()'s instructions. The last
	 * turn may reach up to three lines past `want`, or past the end of
	 * the mapping, where a prefetch is dropped, never a fault. */
	for (; at < want; at += 4 * 64) {
		__builtin_prefetch(map + at);
		__builtin_prefetch(map + at + 64);
		__builtin_prefetch(map + at + 128);
		__builtin_prefetch(map + at + 192);
	}
	r->fetched = at;
}

__attribute__((format(printf, 2, 3))) static int fail(struct pcapfile *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof r->err, fmt, ap);
	va_end(ap);
	r->err_off = (long)r->off;
	r->failed = true;
	return PCAP_ERROR;
}

/* The file lost pages under us (see the guard): say how long it is now. */
static int shrunk(struct pcapfile *r, long long now)
{
	if (now < 0)
		return fail(r, "the file shrank while it was being read (truncated by another process?)");
	return fail(r, "the file shrank from %zu to %lld bytes while it was being read (truncated by another process?)",
		    r->size, now);
}

/* Does the file still have every page before offset `end`? */
static inline bool before_gone(const struct pcapfile *r, size_t end)
{
	return end <= atomic_load_explicit(&r->guard->gone, memory_order_relaxed);
}

/* One read per page of [p, p + n): a page the file no longer has faults
 * here, where next() can still refuse the record, rather than in the
 * dissector. Those pages are mapped and in the caches (ahead()). */
static inline bool still_there(struct pcapfile *r, const uint8_t *p, size_t n)
{
	for (uintptr_t a = (uintptr_t)p & ~(uintptr_t)(r->page - 1); a < (uintptr_t)p + n; a += r->page)
		(void)*(const volatile uint8_t *)a;
	return before_gone(r, (size_t)(p - r->map) + n);
}

static int next(struct rs_reader *rr, struct pcap_pkthdr **h, const uint8_t **data)
{
	struct pcapfile *r = (struct pcapfile *)rr;
	if (r->failed)
		return PCAP_ERROR;
	if (!before_gone(r, r->off + PCAP_REC_HDR))
		return shrunk(r, size_now(r));
	size_t left = r->size - r->off;
	if (left < PCAP_REC_HDR) {
		if (!r->ended && grown(r))
			left = r->size - r->off;
		if (left == 0) {
			r->ended = true;
			return PCAP_ERROR_BREAK;
		}
		if (left < PCAP_REC_HDR) /* libpcap's fread stops at the end of the file */
			return fail(r, "truncated dump file; tried to read %zu header bytes, only got %zu",
				    (size_t)PCAP_REC_HDR, left);
	}
	const uint8_t *p = r->map + r->off;
	uint32_t caplen = get32(r, p + 8);
	static const uint8_t zeros[PCAP_REC_HDR];
	if (caplen == 0 && memcmp(p, zeros, PCAP_REC_HDR) == 0) {
		/* What a file cut short in this page reads as past its new end
		 * (the kernel zeroes the rest of the last page; only the pages
		 * after it fault): a record of nothing at time 0. Such a record
		 * is legal, so look at the file's size before believing it. */
		long long now = size_now(r);
		if (now >= 0 && (uint64_t)now < r->off + PCAP_REC_HDR)
			return shrunk(r, now);
	}
	if (caplen > LIBPCAP_MAX_SNAPLEN) {
		if (caplen > r->snaplen)
			return fail(r, "invalid packet capture length %u, bigger than snaplen of %d", caplen, (int)r->snaplen);
		return fail(r, "invalid packet capture length %u, bigger than maximum of %u",
			    caplen, LIBPCAP_MAX_SNAPLEN);
	}
	if (left - PCAP_REC_HDR < caplen) {
		if (grown(r)) {
			left = r->size - r->off;
			p = r->map + r->off;
		}
		size_t got = left - PCAP_REC_HDR;
		if (got < caplen) {
			/* libpcap first reads what it keeps of a record longer
			 * than the snapshot length, then skips the rest. */
			if (caplen > r->snaplen && got < r->snaplen)
				return fail(r, "truncated dump file; tried to read %d captured bytes, only got %zu",
					    (int)r->snaplen, got);
			return fail(r, "truncated dump file; tried to read %u captured bytes, only got %zu",
				    caplen, got);
		}
	}
	if (!still_there(r, p, PCAP_REC_HDR + (size_t)caplen))
		return shrunk(r, size_now(r));
	/* Widened as libpcap widens them: the file's fields are signed 32-bit,
	 * but its byte swap yields them unsigned. */
	uint32_t sec = get32(r, p), frac = get32(r, p + 4);
	int64_t s64 = r->swapped ? (int64_t)sec : (int64_t)(int32_t)sec;
	int64_t f64 = r->swapped ? (int64_t)frac : (int64_t)(int32_t)frac;
	r->hdr.ts.tv_sec = (time_t)s64;
	r->hdr.ts.tv_usec = (suseconds_t)(r->usec ? f64 * 1000 : f64);
	r->hdr.len = get32(r, p + 12);
	r->hdr.caplen = caplen > r->snaplen ? r->snaplen : caplen;
	r->r.file_caplen = caplen;
	if (r->off - r->released >= WINDOW)
		slide(r, r->off);
	r->off += PCAP_REC_HDR + (size_t)caplen;
	ahead(r);
	*h = &r->hdr;
	*data = p + PCAP_REC_HDR;
	return 1;
}

static const char *error(const struct rs_reader *rr)
{
	return ((const struct pcapfile *)rr)->err;
}

static long offset(const struct rs_reader *rr)
{
	return ((const struct pcapfile *)rr)->err_off;
}

static void close_reader(struct rs_reader *rr)
{
	struct pcapfile *r = (struct pcapfile *)rr;
	guard_drop(r->guard);
	munmap((void *)r->map, r->size);
	free(r);
}

static const struct rs_reader_ops ops = {
	.name = "mmap",
	.next = next,
	.error = error,
	.offset = offset,
	.close = close_reader,
};

struct rs_reader *rs_pcapfile_open(pcap_t *p, const char *path)
{
	static const uint32_t magic_usec = 0xa1b2c3d4u, magic_nsec = 0xa1b23c4du;
	if (strcmp(path, "-") == 0 || !pcap_file(p))
		return NULL; /* standard input: libpcap has read into it already */
	struct pcapfile *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->r.ops = &ops;
	r->fd = fileno(pcap_file(p));
	r->page = (size_t)sysconf(_SC_PAGESIZE);
	if (r->fd < 0 || !map_file(r)) {
		free(r);
		return NULL;
	}
	uint32_t magic;
	memcpy(&magic, r->map, 4);
	bool ok = true;
	if (magic == magic_usec || magic == magic_nsec) {
		r->swapped = false;
	} else if (__builtin_bswap32(magic) == magic_usec || __builtin_bswap32(magic) == magic_nsec) {
		r->swapped = true;
		magic = __builtin_bswap32(magic);
	} else {
		ok = false; /* pcapng, or a modified pcap format */
	}
	r->usec = magic == magic_usec;
	int dlt = pcap_datalink(p);
	ok = ok && get16(r->swapped, r->map + 4) == 2 && get16(r->swapped, r->map + 6) == 4 &&
	     r->swapped == (pcap_is_swapped(p) == 1) && pcap_snapshot(p) > 0 &&
	     (!r->swapped || no_pseudo_header_swap(dlt));
	if (ok)
		r->guard = guard_take(r->map, r->size);
	if (!ok || !r->guard) {
		munmap((void *)r->map, r->size);
		free(r);
		return NULL;
	}
	r->snaplen = (uint32_t)pcap_snapshot(p);
	r->off = PCAP_FILE_HDR;
	r->released = r->advised = 0;
	slide(r, r->off);
	return &r->r;
}
