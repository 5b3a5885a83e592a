/*
 * flowtable.c — the half-flow table: keys, hashing, the slabs flows live
 * in, eviction under --max-flows, retiring, and the prefetching that brings
 * a frame's flow into the caches before it is added.
 *
 * The table is open addressing with linear probing over slot numbers,
 * keyed by the 40-byte struct rs_flowkey, with a one-entry cache in front:
 * RoCE traffic comes in bursts of one QP, so most frames hit the cache and
 * never hash. Deletion (for --max-flows) shifts entries back instead of
 * leaving tombstones. Every speed trick of the analyzer lives in this file:
 * the rest of it finds flows through rs_flow_get() and knows nothing of
 * the prefetch ring.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "analyzer/table/table.h"

#define INITIAL_TABLE 1024
#define PF_RING 8     /* frames announced ahead that are remembered (a power of two) */
#define PF_SLOT 2     /* calls after its table line, a frame's entry in the flow array is fetched */
#define PF_FLOW 3     /* calls after, the flow's hot lines */
#define PF_POINTERS 5 /* calls after, what the flow points to */
#define PF_DEEP 7     /* calls after, what that points to (immediates, rkey uses) */
/* The bytes of a connection from its module's number to its queue state. */
#define CONN_ULP_BYTES (offsetof(struct rs_conn, pq) + sizeof(void *) - offsetof(struct rs_conn, ulp))

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* One 8-byte word of a key. */
static inline uint64_t key_word(const struct rs_flowkey *k, size_t i)
{
	uint64_t w;
	memcpy(&w, (const char *)k + 8 * i, sizeof w);
	return w;
}

/* Per frame: the five words are multiplied independently (so the products
 * overlap in the pipeline) and mixed once at the end. Each word is loaded
 * on its own: the key was just stored as an 8-byte word and two 16-byte
 * addresses, and a 16-byte load across two of those stores (what copying
 * the key into a local array compiled to) cannot be forwarded from the
 * store buffer, a stall on every frame announced. */
static inline uint32_t key_hash(const struct rs_flowkey *k)
{
	uint64_t h = (key_word(k, 0) ^ 0x9e3779b97f4a7c15ULL) * 0xbf58476d1ce4e5b9ULL;
	h ^= (key_word(k, 1) ^ 0x94d049bb133111ebULL) * 0xff51afd7ed558ccdULL;
	h ^= (key_word(k, 2) ^ 0xc4ceb9fe1a85ec53ULL) * 0x9e3779b97f4a7c15ULL;
	h ^= (key_word(k, 3) ^ 0xd6e8feb86659fd93ULL) * 0xc2b2ae3d27d4eb4fULL;
	h ^= (key_word(k, 4) ^ 0x165667b19e3779f9ULL) * 0x27d4eb2f165667c5ULL;
	return (uint32_t)mix64(h);
}

_Static_assert(sizeof(struct rs_flowkey) == 40, "flow keys hash as five 64-bit words");

/* A table entry: the key's 32-bit hash above the slot + 1 (0 = empty).
 * Probes compare hashes and touch a flow only when they match, so a lookup
 * reads one cache line of the table and one of the flow it finds. */
static inline uint64_t entry_of(uint32_t hash, uint32_t slot)
{
	return (uint64_t)hash << 32 | (slot + 1);
}

static inline struct rs_flow *find_hashed(struct rs_analyzer *a, const struct rs_flowkey *k, uint32_t h)
{
	for (uint32_t i = h & a->table_mask;; i = (i + 1) & a->table_mask) {
		uint64_t e = a->table[i];
		if (e == 0)
			return NULL;
		if ((uint32_t)(e >> 32) != h)
			continue;
		struct rs_flow *fl = g_ptr_array_index(a->flows, (uint32_t)e - 1);
		if (memcmp(&fl->key, k, sizeof *k) == 0)
			return fl;
	}
}

struct rs_flow *rs_flow_find(struct rs_analyzer *a, const struct rs_flowkey *k)
{
	return find_hashed(a, k, key_hash(k));
}

static void table_insert_entry(struct rs_analyzer *a, uint64_t e)
{
	uint32_t i = (uint32_t)(e >> 32) & a->table_mask;
	while (a->table[i])
		i = (i + 1) & a->table_mask;
	a->table[i] = e;
}

static void table_grow(struct rs_analyzer *a)
{
	uint32_t old = a->table_mask + 1;
	uint64_t *t = a->table;
	a->table = g_new0(uint64_t, old * 2);
	a->table_mask = old * 2 - 1;
	for (uint32_t i = 0; i < old; i++)
		if (t[i])
			table_insert_entry(a, t[i]);
	g_free(t);
}

/* Remove by shifting later entries of the probe run back into the hole. */
static void table_remove(struct rs_analyzer *a, struct rs_flow *fl)
{
	uint64_t e = entry_of(key_hash(&fl->key), fl->slot);
	uint32_t i = (uint32_t)(e >> 32) & a->table_mask;
	while (a->table[i] != e)
		i = (i + 1) & a->table_mask;
	a->table[i] = 0;
	for (uint32_t j = (i + 1) & a->table_mask; a->table[j]; j = (j + 1) & a->table_mask) {
		uint32_t home = (uint32_t)(a->table[j] >> 32) & a->table_mask;
		/* Move the entry into the hole if its home is not between the hole and j. */
		bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
		if (!between) {
			a->table[i] = a->table[j];
			a->table[j] = 0;
			i = j;
		}
	}
}

/*
 * Flows come from 2 MiB slabs (no allocator header, 32-byte aligned, and
 * the kernel is asked to back them with huge pages: with a million flows
 * the page walks of 4 KiB pages cost as much as the cache misses). Freed
 * flows go on a free list threaded through them.
 */
#define SLAB_BYTES (2u << 20)
#define FLOW_STRIDE ((sizeof(struct rs_flow) + RS_FLOW_ALIGN - 1) & ~(size_t)(RS_FLOW_ALIGN - 1))

/* A slab straight from the kernel, aligned by mapping twice its size and
 * unmapping the rest: posix_memalign() took its slabs out of the heap once
 * malloc's mmap threshold had risen, and left the rest of each 4 MiB it
 * carved them from as holes the heap never filled (how much:
 * bench/NOTES.md, the memory of a million QPs). */
static void *slab_map(void)
{
	size_t len = 2 * (size_t)SLAB_BYTES;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		g_error("out of memory for flows");
	char *mem = (char *)(((uintptr_t)p + SLAB_BYTES - 1) & ~(uintptr_t)(SLAB_BYTES - 1));
	if (mem > p)
		munmap(p, (size_t)(mem - p));
	munmap(mem + SLAB_BYTES, (size_t)(p + len - (mem + SLAB_BYTES)));
	return mem;
}

static struct rs_flow *flow_alloc(struct rs_analyzer *a)
{
	if (a->flow_free_list) {
		struct rs_flow *fl = a->flow_free_list;
		a->flow_free_list = *(void **)fl;
		return memset(fl, 0, sizeof *fl);
	}
	if (!a->flow_slabs->len || a->slab_used + FLOW_STRIDE > SLAB_BYTES) {
		void *mem = slab_map();
#ifdef MADV_HUGEPAGE
		madvise(mem, SLAB_BYTES, MADV_HUGEPAGE); /* a hint; fine if refused */
#endif
		g_ptr_array_add(a->flow_slabs, mem);
		a->slab_used = 0;
	}
	char *slab = a->flow_slabs->pdata[a->flow_slabs->len - 1];
	struct rs_flow *fl = (struct rs_flow *)(void *)(slab + a->slab_used);
	a->slab_used += FLOW_STRIDE;
	return memset(fl, 0, sizeof *fl);
}


static void flow_free(struct rs_analyzer *a, struct rs_flow *fl)
{
	rs_lat_buckets_forget(a, fl);
	if (fl->rare)
		rs_msnq_free(fl->rare->msnq);
	g_free(fl->rare);
	if (fl->msgs_full)
		g_free(fl->m);
	else if (fl->m)
		rs_pool_free(&a->pool_few[((struct rs_msgs_few *)fl->m)->cap == RS_MSGS_FEW], fl->m);
	rs_latency_free(&a->pool_lat, fl->lat);
	for (int k = 0; k < 2; k++) {
		struct rs_psn_loss *l = k ? fl->rsp.loss : fl->req.loss;
		if (l) {
			g_free(l->lost);
			g_free(l->ids);
			g_free(l->so);
			rs_msgq_free(l->mq);
		}
		g_free(l);
	}
	if (fl->rkeys && fl->rkeys->cap > 1)
		g_free(fl->rkeys->u.use);
	rs_pool_free(&a->pool_rkeys, fl->rkeys);
	g_free(fl->open);
	if (fl->x) {
		g_free(fl->x->imms);
		g_free(fl->x->ophist_hi);
		if (fl->x->anoms)
			g_ptr_array_free(fl->x->anoms, TRUE);
		if (fl->x->series) {
			g_free(fl->x->series->interval);
			g_free(fl->x->series->bytes);
			g_free(fl->x->series->ev);
			g_free(fl->x->series);
		}
		g_free(fl->x);
	}
	*(void **)fl = a->flow_free_list;
	a->flow_free_list = fl;
}

/* Prefetched lookups remember flows and the slots they were read from:
 * forget one that leaves the table. A retired flow keeps its slot (it is
 * still reported) and its key, so a slot read before it left would lead
 * the frames of the QP that reuses its number back to it. */
static void forget_prefetched(struct rs_analyzer *a, struct rs_flow *fl)
{
	for (int i = 0; i < PF_RING; i++) {
		if (a->pf[i].fl == fl)
			a->pf[i].fl = NULL;
		if (a->pf[i].slot == fl->slot + 1)
			a->pf[i].slot = 0;
	}
}

/* Fold an evicted flow's counters into the "evicted" total and forget it. */
static void flow_evict(struct rs_analyzer *a, struct rs_flow *fl)
{
	rs_flow_counts_add(a->pool_few, &a->evicted_sum, fl);
	a->evicted++;

	if (fl->tl_slot) {
		/* Its row for the current interval is written now, as it goes. */
		rs_tl_flush_flow(a, fl);
	}
	if (fl->peer)
		rs_pair_lost_peer(a, fl->peer);
	if (fl->conn) {
		if (fl->conn->c2s == fl)
			fl->conn->c2s = NULL;
		if (fl->conn->s2c == fl)
			fl->conn->s2c = NULL;
	}
	rs_uq_forget(fl);
	rs_pair_forget_flow(a, fl);
	if (a->last_flow == fl)
		a->last_flow = NULL;
	forget_prefetched(a, fl);
	if (!fl->retired)
		table_remove(a, fl);
	g_ptr_array_index(a->flows, fl->slot) = NULL;
	g_array_append_val(a->free_slots, fl->slot);
	a->nflows--;
	flow_free(a, fl);
}

int rs_idle_cmp(const void *x, const void *y)
{
	const struct rs_idle *a = x, *b = y;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

void rs_flow_retire(struct rs_analyzer *a, struct rs_flow *fl)
{
	if (fl->retired)
		return;
	forget_prefetched(a, fl);
	table_remove(a, fl);
	rs_pair_forget_flow(a, fl);
	if (a->last_flow == fl)
		a->last_flow = NULL;
	fl->retired = true;
}

/* Evict the idlest 1/16 of the flows at once: one sort per cap/16 new
 * flows keeps the cost per new flow logarithmic. */
static void evict_idlest(struct rs_analyzer *a)
{
	uint32_t n = 0, batch = a->opts.max_flows / 16 ? (uint32_t)(a->opts.max_flows / 16) : 1;
	struct rs_idle *all = g_new(struct rs_idle, a->nflows);
	for (guint s = 0; s < a->flows->len; s++) {
		struct rs_flow *fl = g_ptr_array_index(a->flows, s);
		if (fl)
			all[n++] = (struct rs_idle){ fl->last_ts, fl->id, fl };
	}
	qsort(all, n, sizeof all[0], rs_idle_cmp);
	rs_lat_flush(a); /* samples still logged for the victims' vectors */
	if (batch > n)
		batch = n;
	struct rs_fref at = batch ? (struct rs_fref){ ((struct rs_flow *)all[0].item)->last_file, ((struct rs_flow *)all[0].item)->last_frame }
		    : (struct rs_fref){ 0, 0 };
	for (uint32_t i = 0; i < batch; i++) {
		rs_anomalies_detach_flow(a, all[i].item);
		flow_evict(a, all[i].item);
	}
	g_free(all);
	rs_anomaly(a, RS_AN_EVICTED, 0, NULL, &at, batch);
}

static struct rs_flow *prefetched(struct rs_analyzer *a, const struct rs_flowkey *k);

/* A packet of another transport on a known half-flow: the QP number was
 * given to a new QP (an RC QP's number reused by a UD QP, say). CNPs carry
 * no transport of their own, and a flow first seen through a CNP takes the
 * transport of its first real packet. */
static bool same_qp(struct rs_flow *fl, const struct rs_frame *f)
{
	uint8_t t = f->bth.opcode & 0xE0;
	if (t == fl->transport || t == RS_TR_CNP)
		return true;
	if (fl->transport == RS_TR_CNP) {
		fl->transport = t;
		return true;
	}
	return false;
}

/* A packet that cannot continue the traffic its flow holds, so the QP
 * number now names another QP: the capture went back in time by more than a
 * second (files given out of time order), or the flow's RC connection was
 * being closed (DREQ/DREP) more than a second before it, on a flow idle
 * since. Within a second, stragglers of the old QP are still its own. Only
 * last_ts is read unless the flow has been idle for a second. */
bool rs_flow_stale(const struct rs_flow *fl, uint64_t ts)
{
	if (ts + RS_STALE_NS < fl->last_ts)
		return true;
	if (ts < fl->last_ts + RS_STALE_NS)
		return false;
	return fl->conn && rs_conn_closed_before(fl->conn, ts - RS_STALE_NS);
}

struct rs_flow *rs_flow_get(struct rs_analyzer *a, const struct rs_flowkey *k, const struct rs_frame *f,
			    const struct rs_frame_meta *m)
{
	struct rs_flow *fl = prefetched(a, k);
	if (!fl && a->last_flow && memcmp(&a->last_flow->key, k, sizeof *k) == 0)
		fl = a->last_flow; /* without prefetching: consecutive frames often share a flow */
	uint32_t h = 0;
	if (!fl) {
		h = key_hash(k);
		fl = find_hashed(a, k, h);
	}
	if (fl && (!same_qp(fl, f) || rs_flow_stale(fl, m->ts_ns))) {
		rs_flow_retire(a, fl); /* reported as it was; the new QP starts afresh */
		fl = NULL;
	}
	if (fl) {
		a->last_flow = fl;
		return fl;
	}
	if (!h)
		h = key_hash(k);
	if (a->opts.max_flows && a->nflows >= a->opts.max_flows)
		evict_idlest(a);
	if ((a->nflows + 1) * 2 > a->table_mask + 1)
		table_grow(a);
	fl = flow_alloc(a);
	fl->key = *k;
	fl->id = a->next_flow_id++;
	if (a->free_slots->len) {
		fl->slot = g_array_index(a->free_slots, uint32_t, a->free_slots->len - 1);
		g_array_set_size(a->free_slots, a->free_slots->len - 1);
	} else {
		fl->slot = a->flows->len;
		g_ptr_array_add(a->flows, NULL);
	}
	fl->transport = f->bth.opcode & 0xE0;
	fl->is_cm_qp = k->qpn <= 1;
	fl->is_dc = (f->have & RS_HAVE_DC) != 0;
	fl->first_frame = m->frame_no;
	fl->first_ts = m->ts_ns;
	g_ptr_array_index(a->flows, fl->slot) = fl;
	a->nflows++;
	table_insert_entry(a, entry_of(h, fl->slot));
	rs_pair_new_flow(a, fl);
	/* RoCE v1 and v2 between the same hosts: checked once per flow. */
	if (f->roce == RS_ROCE_V1 || f->roce == RS_ROCE_V2)
		rs_versions_note(a, f, m);
	a->last_flow = fl;
	return fl;
}

/*
 * Frames ahead. With thousands of QPs interleaved a flow's state has
 * usually left the caches by the time its next frame comes, and on this
 * kind of machine a miss costs hundreds of nanoseconds, more than the rest
 * of the frame's work. So the reader tells the analyzer about each frame a
 * few frames before it is added (cli/summary.c announces each up to AHEAD = 7
 * frames ahead; PF_RING remembers 8): the first call prefetches the frame's slot of the flow table;
 * PF_SLOT calls later that slot is in the cache and names the flow's entry
 * in the flow array, which is prefetched; PF_FLOW calls later that entry
 * names the flow, and the flow's hot cache lines are prefetched;
 * PF_POINTERS calls later what they point to (latency ring, open messages,
 * rkeys, message counters, its timeline row), and PF_DEEP calls later one
 * level further (immediates, rkey uses); then flow_get() finds it all
 * there. A miss costs about as much as a frame's work, or more: hence
 * the distances. The flow array's entry gets one call: the table and the
 * array (8 bytes a flow) stay in the caches where the flows do not, and
 * the calls saved went to the levels after it (PF_FLOW 3 and PF_POINTERS 5
 * instead of 4 and 6, faster with thousands of connections and no slower
 * with few: bench/NOTES.md). Only hints: nothing here changes a result.
 */

static void prefetch_flow(const struct rs_flow *fl)
{
	/* Flows are RS_FLOW_ALIGN-aligned (flow_alloc) and the hot bytes end
	 * at most RS_FLOW_ALIGN past a multiple of 64: one address every 64
	 * bytes from the start reaches every line they touch. */
	for (size_t off = 0; off < RS_FLOW_HOT_BYTES; off += 64)
		__builtin_prefetch((const char *)fl + off, 1);
}
_Static_assert(RS_FLOW_HOT_BYTES % 64 <= 64 - RS_FLOW_ALIGN || RS_FLOW_HOT_BYTES % 64 == 0,
	       "prefetch_flow() reaches the last line of the hot bytes");

/* What adding the frame will touch beyond the flow's hot lines, from its
 * opcode: fetching everything a flow points to for every frame would keep
 * the memory system busy with lines most frames never read. */
enum {
	PF_NEED_LAT = 1,       /* its own pending requests (AckReq, READ, atomic) */
	PF_NEED_OPEN = 2,      /* a multi-packet message being reassembled */
	PF_NEED_RKEYS = 4,     /* RETH or AtomicETH: the rkey list */
	PF_NEED_MSGS = 8,      /* a message completes: counters and sizes */
	PF_NEED_REQ_LOSS = 16, /* the request stream's loss record, if any */
	PF_NEED_RSP_LOSS = 32, /* the response stream's */
	PF_NEED_PEER_LAT = 64, /* an answer: its requester's pending requests */
	PF_NEED_IMM = 128,     /* Immediate Data: the flow's list of them, through fl->x */
	PF_NEED_PEER = 256,    /* a request ends a message: its responder's MSN reckoning (msn.c) */
	PF_NEED_RARE = 512,    /* the head of the rare counters: an unchecked ICRC, the MSN reckoning */
};

static uint16_t needs_of(uint8_t opcode, bool ackreq)
{
	const struct rs_opinfo *op = rs_opinfo(opcode);
	if ((opcode & 0xE0) == RS_TR_UD)
		return PF_NEED_MSGS | (op->ext & RS_EXT_IMMDT ? PF_NEED_IMM : 0);
	if (op->response)
		return PF_NEED_PEER_LAT | (op->kind == RS_KIND_ACK ? 0 : PF_NEED_RSP_LOSS);
	uint16_t n = PF_NEED_REQ_LOSS;
	if (ackreq || op->kind == RS_KIND_READ_REQ || op->kind == RS_KIND_CMP_SWAP ||
	    op->kind == RS_KIND_FETCH_ADD)
		n |= PF_NEED_LAT;
	if (op->pos == RS_POS_FIRST || op->pos == RS_POS_MIDDLE || op->pos == RS_POS_LAST)
		n |= PF_NEED_OPEN;
	if (op->pos == RS_POS_LAST || op->pos == RS_POS_ONLY || op->kind == RS_KIND_READ_REQ)
		n |= PF_NEED_MSGS | PF_NEED_PEER | PF_NEED_RARE;
	if (op->ext & (RS_EXT_RETH | RS_EXT_ATOMICETH))
		n |= PF_NEED_RKEYS;
	if (op->ext & RS_EXT_IMMDT)
		n |= PF_NEED_IMM;
	return n;
}

void rs_analyzer_prefetch(struct rs_analyzer *a, const struct rs_frame *f)
{
	struct rs_prefetch *e = &a->pf[a->pf_n & (PF_RING - 1)];
	e->fl = NULL;
	e->slot = 0;
	e->valid = (f->have & RS_HAVE_BTH) != 0;
	if (e->valid) {
		rs_flowkey_from_frame(&e->key, f);
		e->hash = key_hash(&e->key);
		e->needs = a->pf_needs[f->bth.ackreq & 1][f->bth.opcode] |
			   (f->icrc_status == RS_CRC_UNCHECKED ? PF_NEED_RARE : 0);
		__builtin_prefetch(&a->table[e->hash & a->table_mask]);
	}
	/* The entry of PF_DEEP calls ago, added next: the second level its
	 * handling reads (lines that arrived at PF_POINTERS say where). */
	struct rs_prefetch *g = &a->pf[(a->pf_n - PF_DEEP) & (PF_RING - 1)];
	if (a->pf_n >= PF_DEEP && g->fl) {
		const struct rs_flow *fl = g->fl;
		if ((g->needs & PF_NEED_IMM) && fl->x && fl->x->imms)
			__builtin_prefetch(fl->x->imms, 1);
		if ((g->needs & PF_NEED_RKEYS) && fl->rkeys && fl->rkeys->cap > 1)
			rs_prefetch_lines(fl->rkeys->u.use, 2 * sizeof *fl->rkeys->u.use);
		/* An answer's requester's latency state, through the requester's
		 * line fetched at PF_POINTERS. */
		if ((g->needs & PF_NEED_PEER_LAT) && fl->peer && fl->peer->lat)
			rs_prefetch_lines(fl->peer->lat, sizeof *fl->peer->lat);
	}
	/* The entry of PF_POINTERS calls ago, added soon: its flow's hot lines
	 * have arrived; fetch what they point to. */
	struct rs_prefetch *c = &a->pf[(a->pf_n - PF_POINTERS) & (PF_RING - 1)];
	if (a->pf_n >= PF_POINTERS && c->fl) {
		const struct rs_flow *fl = c->fl;
		uint16_t need = c->needs;
		if ((need & PF_NEED_LAT) && fl->lat)
			rs_prefetch_lines(fl->lat, sizeof *fl->lat);
		if ((need & PF_NEED_OPEN) && fl->open)
			rs_prefetch_lines(&fl->open[fl->nopen ? fl->nopen - 1 : 0], sizeof *fl->open);
		if ((need & PF_NEED_RKEYS) && fl->rkeys)
			rs_prefetch_lines(fl->rkeys, sizeof *fl->rkeys); /* and the use kept in place */
		if ((need & PF_NEED_MSGS) && fl->m)
			rs_prefetch_lines(fl->m, fl->msgs_full ? sizeof(struct rs_flow_msgs) : RS_MSGS_FEW_SIZE(RS_MSGS_FEW));
		if ((need & PF_NEED_REQ_LOSS) && fl->req.loss)
			__builtin_prefetch(fl->req.loss, 1);
		if ((need & PF_NEED_RSP_LOSS) && fl->rsp.loss)
			__builtin_prefetch(fl->rsp.loss, 1);
		if ((need & PF_NEED_IMM) && fl->x)
			__builtin_prefetch(fl->x, 1);
		/* Without timeline rows a flow's first frame of an interval
		 * folds the last one's re-sent bytes (rs_tl_touch). */
		bool new_interval = !a->tl_rows_on && fl->iv_tag != (uint32_t)a->cur_interval + 1;
		if (((need & PF_NEED_RARE) || new_interval) && fl->rare)
			rs_prefetch_lines(fl->rare, RS_RARE_HOT_BYTES);
		/* The reckoning reads the responder's lines of its own frames
		 * (the ACK it stands on, its DC bit), cold when its ACKs are
		 * fewer than the requests. */
		if ((need & PF_NEED_PEER) && fl->peer)
			prefetch_flow(fl->peer);
		/* A frame with a payload asks its connection for a protocol
		 * module (add()): a line of the connection nothing else of the
		 * frame reads. */
		if (fl->conn)
			rs_prefetch_lines(&fl->conn->ulp, CONN_ULP_BYTES);
		if (fl->tl_slot && fl->tl_slot <= a->tl_rows->len)
			__builtin_prefetch(&g_array_index(a->tl_rows, struct rs_tl_row, fl->tl_slot - 1), 1);
		/* An answer times its requester's requests: the line of the
		 * requester with its lat pointer, and (through the hint, one
		 * level less to wait for) that latency state itself. */
		if ((need & PF_NEED_PEER_LAT) && fl->peer)
			__builtin_prefetch((const char *)fl->peer + offsetof(struct rs_flow, lat), 1);
	}
	/* The entry of PF_FLOW calls ago: its flow array entry has arrived;
	 * fetch the flow's hot lines. The slot was read PF_FLOW - PF_SLOT
	 * calls ago, so the flow there now may be another one (or none): a
	 * hint, as every flow found here is (flow_get() compares keys). */
	struct rs_prefetch *d = &a->pf[(a->pf_n - PF_FLOW) & (PF_RING - 1)];
	if (a->pf_n >= PF_FLOW && d->slot && d->slot <= a->flows->len) {
		d->fl = g_ptr_array_index(a->flows, d->slot - 1);
		if (d->fl) {
			prefetch_flow(d->fl);
			if (d->needs & PF_NEED_IMM)
				__builtin_prefetch(&d->fl->x, 1);
		}
	}
	/* The entry of PF_SLOT calls ago: its table line has arrived. The first
	 * entry with the same hash is taken without comparing keys (that would
	 * wait for the flow), and the flow array's line for its slot is fetched:
	 * read here at once, as it was, that line cost a stall per frame with
	 * thousands of flows (a large share of this function's time:
	 * bench/NOTES.md). */
	struct rs_prefetch *s = &a->pf[(a->pf_n - PF_SLOT) & (PF_RING - 1)];
	if (a->pf_n >= PF_SLOT && s->valid) {
		for (uint32_t i = s->hash & a->table_mask;; i = (i + 1) & a->table_mask) {
			uint64_t t = a->table[i];
			if (t == 0)
				break;
			if ((uint32_t)(t >> 32) == s->hash) {
				s->slot = (uint32_t)t;
				__builtin_prefetch(&g_ptr_array_index(a->flows, s->slot - 1));
				break;
			}
		}
	}
	a->pf_n++;
}

/* A flow rs_analyzer_prefetch() already found for this key, or NULL. */
static struct rs_flow *prefetched(struct rs_analyzer *a, const struct rs_flowkey *k)
{
	/* Frames are added in the order they were announced: this one's entry
	 * is the add_n'th. Look anywhere else only if that does not hold. */
	struct rs_flow *fl = a->pf[(a->add_n - 1) & (PF_RING - 1)].fl;
	if (fl && memcmp(&fl->key, k, sizeof *k) == 0)
		return fl;
	for (int i = 0; i < PF_RING; i++) {
		fl = a->pf[i].fl;
		if (fl && memcmp(&fl->key, k, sizeof *k) == 0)
			return fl;
	}
	return NULL;
}
void rs_flows_init(struct rs_analyzer *a)
{
	/* Looked up per frame: worked out per opcode once. */
	for (int ackreq = 0; ackreq < 2; ackreq++)
		for (int op = 0; op < 256; op++)
			a->pf_needs[ackreq][op] = needs_of((uint8_t)op, ackreq);
	a->flows = g_ptr_array_new();
	a->flow_slabs = g_ptr_array_new();
	a->file_first_id = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	rs_pool_init(&a->pool_lat, sizeof(struct rs_latency));
	rs_pool_init(&a->pool_rkeys, sizeof(struct rs_rkeys));
	rs_pool_init(&a->pool_few[0], RS_MSGS_FEW_SIZE(RS_MSGS_FEW_SMALL));
	rs_pool_init(&a->pool_few[1], RS_MSGS_FEW_SIZE(RS_MSGS_FEW));
	a->free_slots = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	a->table = g_new0(uint64_t, INITIAL_TABLE);
	a->table_mask = INITIAL_TABLE - 1;
}

void rs_flows_free(struct rs_analyzer *a)
{
	for (guint i = 0; i < a->flows->len; i++)
		if (g_ptr_array_index(a->flows, i))
			flow_free(a, g_ptr_array_index(a->flows, i));
	g_ptr_array_free(a->flows, TRUE);
	for (guint i = 0; i < a->flow_slabs->len; i++)
		munmap(a->flow_slabs->pdata[i], SLAB_BYTES);
	g_free(a->evicted_sum.rare);
	g_free(a->evicted_sum.m);
	g_free(a->evicted_sum.req.loss);
	g_free(a->evicted_sum.rsp.loss);
	g_ptr_array_free(a->flow_slabs, TRUE);
	g_array_free(a->file_first_id, TRUE);
	rs_pool_release(&a->pool_lat);
	rs_pool_release(&a->pool_rkeys);
	rs_pool_release(&a->pool_few[0]);
	rs_pool_release(&a->pool_few[1]);
	g_array_free(a->free_slots, TRUE);
	g_free(a->table);
}
