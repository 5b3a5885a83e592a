/*
 * heap.c — the analysis heap on 2 MiB pages.
 *
 * The analyzer's per-flow state beyond the flows themselves (pending
 * requests and latency samples, message counters, reassembly, rkeys) is
 * thousands of small blocks spread over the heap, touched in the order the
 * frames of thousands of QPs come: on 4 KiB pages most of those touches
 * also miss the TLB, and the frame pipeline's prefetches were measured
 * waiting for them (below). The flows have their own 2 MiB slabs
 * (analyzer/table/flowtable.c); this puts the rest of the heap on huge pages too.
 *
 * Debian runs transparent huge pages in "madvise" mode: only ranges a
 * process marks get them, when first touched. glibc's main heap grows with
 * brk, so: ask glibc to grow it TOP_PAD at a time (the new range is mapped
 * but not yet touched), and mark what it grew by soon after
 * (rs_heap_hugepages_update, called by the frame loop every 4096 frames:
 * the heap grows by well under 2 MiB in that time, so little of a new
 * range is touched before it is marked). glibc's own
 * glibc.malloc.hugetlb=1 does the same inside malloc, but it is read from
 * the environment at startup only.
 *
 * It saves CPU time with thousands of connections (fewer TLB misses, and
 * the heap's page faults come 2 MiB at a time), at no cost in peak memory;
 * the runs that showed it are in bench/NOTES.md.
 *
 * Threads of -j allocate from glibc's other arenas, which this leaves
 * alone. Without glibc, or without MADV_HUGEPAGE, it does nothing; nor
 * under ASan or valgrind, whose allocators are not glibc's heap. A kernel
 * that refuses keeps 4 KiB pages.
 */
#include <glib.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/cli.h"

#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
#include <malloc.h>

#define HUGE_PAGE ((uintptr_t)2 << 20)
#define TOP_PAD (32 << 20)
#define MMAP_THRESHOLD (4 << 20)

static GMutex lock;
static bool on;
static uintptr_t marked; /* the heap below this is marked (or was there before) */

void rs_heap_hugepages_begin(void)
{
	g_mutex_lock(&lock);
	/* Blocks up to MMAP_THRESHOLD from the heap (glibc's default maps
	 * those of 128 KiB and more on their own, on 4 KiB pages). */
	if (!on && mallopt(M_TOP_PAD, TOP_PAD) == 1 && mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1) {
		/* What the heap holds already stays as it is. */
		marked = ((uintptr_t)sbrk(0) + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
		on = true;
	}
	g_mutex_unlock(&lock);
	rs_heap_hugepages_update();
}

void rs_heap_hugepages_update(void)
{
	g_mutex_lock(&lock);
	if (on) {
		uintptr_t top = (uintptr_t)sbrk(0) & ~(HUGE_PAGE - 1);
		if (top > marked && madvise((void *)marked, top - marked, MADV_HUGEPAGE) == 0)
			marked = top;
	}
	g_mutex_unlock(&lock);
}
#else
void rs_heap_hugepages_begin(void)
{
}

void rs_heap_hugepages_update(void)
{
}
#endif
