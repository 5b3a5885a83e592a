/*
 * pool.c — fixed-size blocks for the parts of flows most flows have
 * (flow.h, struct rs_pool): carved from 1 MiB chunks, handed back to a
 * free list, released only with the analyzer.
 */
#include <string.h>

#include "analyzer/records/records.h"

#define CHUNK_BYTES (64u << 10)

void rs_pool_init(struct rs_pool *p, size_t size)
{
	*p = (struct rs_pool){ .size = (size + 7) & ~(size_t)7, .chunks = g_ptr_array_new_with_free_func(g_free) };
}

void *rs_pool_alloc0(struct rs_pool *p)
{
	void *x = p->free;
	if (x) {
		p->free = *(void **)x;
	} else {
		if ((size_t)(p->end - p->cur) < p->size) {
			p->cur = g_malloc(CHUNK_BYTES);
			p->end = p->cur + CHUNK_BYTES;
			g_ptr_array_add(p->chunks, p->cur);
		}
		x = p->cur;
		p->cur += p->size;
	}
	return memset(x, 0, p->size);
}

void rs_pool_free(struct rs_pool *p, void *x)
{
	if (!x)
		return;
	*(void **)x = p->free;
	p->free = x;
}

void rs_pool_release(struct rs_pool *p)
{
	if (p->chunks)
		g_ptr_array_free(p->chunks, TRUE);
	*p = (struct rs_pool){ .size = p->size };
}
