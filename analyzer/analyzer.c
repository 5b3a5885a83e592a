/*
 * analyzer.c — the per-frame entry point, capture-wide counters and the
 * half-flow table.
 *
 * The flow table is open addressing with linear probing over slot numbers,
 * keyed by the 40-byte struct rs_flowkey, with a one-entry cache in front:
 * RoCE traffic comes in bursts of one QP, so most frames hit the cache and
 * never hash. Deletion (for --max-flows) shifts entries back instead of
 * leaving tombstones.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/internal.h"

#define INITIAL_TABLE 1024

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint32_t key_hash(const struct rs_flowkey *k)
{
	uint64_t w[5];
	memcpy(w, k, sizeof w);
	uint64_t h = mix64(w[0] ^ 0x9e3779b97f4a7c15ULL);
	for (int i = 1; i < 5; i++)
		h = mix64(h ^ w[i]);
	return (uint32_t)h;
}

_Static_assert(sizeof(struct rs_flowkey) == 40, "flow keys hash as five 64-bit words");

void rs_flowkey_from_frame(struct rs_flowkey *k, const struct rs_frame *f)
{
	k->roce = f->roce;
	k->akind = f->src.kind;
	k->pad[0] = k->pad[1] = 0;
	k->qpn = f->bth.destqp;
	memcpy(k->src, f->src.b, 16);
	memcpy(k->dst, f->dst.b, 16);
}

void rs_flowkey_reverse(struct rs_flowkey *r, const struct rs_flowkey *k, uint32_t qpn)
{
	*r = *k;
	r->qpn = qpn;
	memcpy(r->src, k->dst, 16);
	memcpy(r->dst, k->src, 16);
}

void rs_flowkey_addr(const struct rs_flowkey *k, bool dst, struct rs_addr *out)
{
	out->kind = k->akind;
	memcpy(out->b, dst ? k->dst : k->src, 16);
}

const char *rs_flow_transport_name(const struct rs_flow *fl)
{
	return rs_transport_name(fl->transport);
}

struct rs_flow *rs_flow_find(struct rs_analyzer *a, const struct rs_flowkey *k)
{
	uint32_t i = key_hash(k) & a->table_mask;
	for (;; i = (i + 1) & a->table_mask) {
		uint32_t s = a->table[i];
		if (s == 0)
			return NULL;
		struct rs_flow *fl = g_ptr_array_index(a->flows, s - 1);
		if (memcmp(&fl->key, k, sizeof *k) == 0)
			return fl;
	}
}

static void table_insert(struct rs_analyzer *a, struct rs_flow *fl)
{
	uint32_t i = key_hash(&fl->key) & a->table_mask;
	while (a->table[i])
		i = (i + 1) & a->table_mask;
	a->table[i] = fl->slot + 1;
}

static void table_grow(struct rs_analyzer *a)
{
	uint32_t size = (a->table_mask + 1) * 2;
	g_free(a->table);
	a->table = g_new0(uint32_t, size);
	a->table_mask = size - 1;
	for (guint s = 0; s < a->flows->len; s++) {
		struct rs_flow *fl = g_ptr_array_index(a->flows, s);
		if (fl)
			table_insert(a, fl);
	}
}

/* Remove by shifting later entries of the probe run back into the hole. */
static void table_remove(struct rs_analyzer *a, struct rs_flow *fl)
{
	uint32_t i = key_hash(&fl->key) & a->table_mask;
	while (a->table[i] != fl->slot + 1)
		i = (i + 1) & a->table_mask;
	a->table[i] = 0;
	for (uint32_t j = (i + 1) & a->table_mask; a->table[j]; j = (j + 1) & a->table_mask) {
		struct rs_flow *o = g_ptr_array_index(a->flows, a->table[j] - 1);
		uint32_t home = key_hash(&o->key) & a->table_mask;
		/* Move o into the hole if its home is not between the hole and j. */
		bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
		if (!between) {
			a->table[i] = a->table[j];
			a->table[j] = 0;
			i = j;
		}
	}
}

static void flow_free(struct rs_flow *fl)
{
	if (fl->lat) {
		for (int k = 0; k < RS_LAT__COUNT; k++)
			rs_lat_free(&fl->lat->lat[k]);
		g_free(fl->lat);
	}
	g_free(fl->req.lost);
	g_free(fl->rsp.lost);
	g_free(fl->rkeys);
	if (fl->anoms)
		g_ptr_array_free(fl->anoms, TRUE);
	if (fl->series) {
		g_free(fl->series->interval);
		g_free(fl->series->bytes);
		g_free(fl->series);
	}
	g_free(fl);
}

/* Fold an evicted flow's counters into the "evicted" total and forget it. */
static void flow_evict(struct rs_analyzer *a, struct rs_flow *fl)
{
	struct rs_flow *s = &a->evicted_sum;
	s->packets += fl->packets;
	s->wire_bytes += fl->wire_bytes;
	s->payload += fl->payload;
	s->payload_all += fl->payload_all;
	for (int k = 0; k < RS_MSG__COUNT; k++) {
		s->msgs[k] += fl->msgs[k];
		s->msg_bytes[k] += fl->msg_bytes[k];
	}
	s->req.backward += fl->req.backward;
	s->rsp.backward += fl->rsp.backward;
	for (int k = 0; k < 8; k++)
		s->naks[k] += fl->naks[k];
	s->rnr_naks += fl->rnr_naks;
	s->ecn_ce += fl->ecn_ce;
	s->cnps += fl->cnps;
	s->icrc_bad += fl->icrc_bad;
	a->evicted++;

	if (fl->tl_active) {
		/* Its row for the current interval is written now, as it goes. */
		rs_tl_flush_flow(a, fl);
	}
	if (fl->peer)
		fl->peer->peer = NULL;
	if (fl->conn) {
		if (fl->conn->c2s == fl)
			fl->conn->c2s = NULL;
		if (fl->conn->s2c == fl)
			fl->conn->s2c = NULL;
	}
	rs_pair_forget_flow(a, fl);
	if (a->last_flow == fl)
		a->last_flow = NULL;
	table_remove(a, fl);
	g_ptr_array_index(a->flows, fl->slot) = NULL;
	g_array_append_val(a->free_slots, fl->slot);
	a->nflows--;
	flow_free(fl);
}

struct idle {
	uint64_t last_ts;
	struct rs_flow *fl;
};

static int by_idleness(const void *x, const void *y)
{
	const struct idle *a = x, *b = y;
	if (a->last_ts != b->last_ts)
		return a->last_ts < b->last_ts ? -1 : 1;
	return a->fl->id < b->fl->id ? -1 : 1;
}

/* Evict the idlest 1/16 of the flows at once: one sort per cap/16 new
 * flows keeps the cost per new flow logarithmic. */
static void evict_idlest(struct rs_analyzer *a)
{
	uint32_t n = 0, batch = a->opts.max_flows / 16 ? (uint32_t)(a->opts.max_flows / 16) : 1;
	struct idle *all = g_new(struct idle, a->nflows);
	for (guint s = 0; s < a->flows->len; s++) {
		struct rs_flow *fl = g_ptr_array_index(a->flows, s);
		if (fl)
			all[n++] = (struct idle){ fl->last_ts, fl };
	}
	qsort(all, n, sizeof all[0], by_idleness);
	if (batch > n)
		batch = n;
	struct rs_fref at = batch ? all[0].fl->last : (struct rs_fref){ 0, 0 };
	GHashTable *victims = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (uint32_t i = 0; i < batch; i++)
		g_hash_table_add(victims, all[i].fl);
	rs_anomalies_detach(a, victims);
	g_hash_table_destroy(victims);
	for (uint32_t i = 0; i < batch; i++)
		flow_evict(a, all[i].fl);
	g_free(all);
	rs_anomaly(a, RS_AN_EVICTED, 0, NULL, &at, batch);
}

static struct rs_flow *flow_get(struct rs_analyzer *a, const struct rs_flowkey *k, const struct rs_frame *f,
				const struct rs_frame_meta *m)
{
	struct rs_flow *fl = a->last_flow;
	if (fl && memcmp(&fl->key, k, sizeof *k) == 0)
		return fl;
	fl = rs_flow_find(a, k);
	if (!fl) {
		if (a->opts.max_flows && a->nflows >= a->opts.max_flows)
			evict_idlest(a);
		if ((a->nflows + 1) * 2 > a->table_mask + 1)
			table_grow(a);
		fl = g_new0(struct rs_flow, 1);
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
		fl->first = (struct rs_fref){ a->cur_file, m->frame_no };
		fl->first_ts = m->ts_ns;
		fl->msg_min = UINT64_MAX;
		fl->rnr_timer_min = 0xFF;
		g_ptr_array_index(a->flows, fl->slot) = fl;
		a->nflows++;
		table_insert(a, fl);
		rs_pair_new_flow(a, fl);
		/* RoCE v1 and v2 between the same hosts: checked once per flow. */
		if (f->roce == RS_ROCE_V1 || f->roce == RS_ROCE_V2)
			rs_versions_note(a, f, m);
	}
	a->last_flow = fl;
	return fl;
}

struct rs_analyzer *rs_analyzer_new(const struct rs_analyzer_opts *opts)
{
	struct rs_analyzer *a = g_new0(struct rs_analyzer, 1);
	a->opts = *opts;
	if (!a->opts.interval_ns)
		a->opts.interval_ns = 10000000;
	a->files = g_ptr_array_new();
	a->flows = g_ptr_array_new();
	a->free_slots = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	a->table = g_new0(uint32_t, INITIAL_TABLE);
	a->table_mask = INITIAL_TABLE - 1;
	a->conns = g_ptr_array_new();
	a->tl_active = g_ptr_array_new();
	a->anomalies = g_hash_table_new_full(rs_anomaly_hash, rs_anomaly_equal, NULL, rs_anomaly_free);
	rs_pair_init(a);
	if (opts->resolve_names)
		a->hosts = rs_hosts_load("/etc/hosts");
	a->evicted_sum.msg_min = UINT64_MAX;
	if (a->opts.timeline)
		rs_tl_header(a->opts.timeline);
	return a;
}

void rs_analyzer_free(struct rs_analyzer *a)
{
	if (!a)
		return;
	for (guint i = 0; i < a->flows->len; i++)
		if (g_ptr_array_index(a->flows, i))
			flow_free(g_ptr_array_index(a->flows, i));
	g_ptr_array_free(a->flows, TRUE);
	g_array_free(a->free_slots, TRUE);
	g_free(a->table);
	for (guint i = 0; i < a->files->len; i++) {
		struct rs_file *fi = g_ptr_array_index(a->files, i);
		g_free(fi->name);
		g_free(fi->error);
		g_free(fi);
	}
	g_ptr_array_free(a->files, TRUE);
	rs_pair_free(a);
	g_ptr_array_free(a->tl_active, TRUE);
	g_hash_table_destroy(a->anomalies);
	if (a->hosts)
		g_hash_table_destroy(a->hosts);
	g_free(a);
}

void rs_analyzer_add_file(struct rs_analyzer *a, const char *name, int linktype)
{
	struct rs_file *fi = g_new0(struct rs_file, 1);
	fi->name = g_strdup(name);
	fi->linktype = linktype;
	g_ptr_array_add(a->files, fi);
	a->cur_file = a->files->len - 1;
}

void rs_analyzer_file_error(struct rs_analyzer *a, const char *message)
{
	if (!a->files->len)
		rs_analyzer_add_file(a, "(input)", -1);
	struct rs_file *fi = g_ptr_array_index(a->files, a->cur_file);
	g_free(fi->error);
	fi->error = g_strdup(message);
	/* No frame reference: the message names the frame that could not be
	 * read, and a reference to frame 0 printed as "frames 0". */
	rs_anomaly(a, RS_AN_FILE_ERROR, a->cur_file, NULL, NULL, 1);
}

void rs_analyzer_file_warning(struct rs_analyzer *a, uint64_t frame_no, uint64_t count, const char *message)
{
	if (!a->files->len)
		rs_analyzer_add_file(a, "(input)", -1);
	struct rs_fref at = { a->cur_file, frame_no };
	struct rs_anomaly *an = rs_anomaly(a, RS_AN_FILE_WARNING, a->cur_file, NULL, &at, count);
	rs_anomaly_set_detail(an, "%s", message);
}

/* UD: every SEND is a whole message; PSN health is not tracked (several
 * source QPs may share a destination QP, each with its own PSNs). */
static void track_ud(struct rs_flow *fl, const struct rs_frame *f)
{
	if (fl->packets == 1) {
		fl->deth_qkey = f->deth.qkey;
		fl->deth_srcqp = f->deth.srcqp;
	} else {
		fl->many_qkey |= fl->deth_qkey != f->deth.qkey;
		fl->many_srcqp |= fl->deth_srcqp != f->deth.srcqp;
	}
	enum rs_msg k = rs_opinfo(f->bth.opcode)->kind == RS_KIND_SEND_IMM ? RS_MSG_SEND_IMM : RS_MSG_SEND;
	fl->msgs[k]++;
	fl->msg_bytes[k] += f->payload_len;
	fl->payload += f->payload_len;
	fl->tl.messages++;
	rs_flow_size_sample(fl, f->payload_len);
}

void rs_analyzer_add(struct rs_analyzer *a, const struct rs_frame_meta *m, const struct rs_frame *f)
{
	struct rs_fref at = { a->cur_file, m->frame_no };

	a->frames++;
	a->bytes += m->wirelen;
	if (!a->have_ts) {
		a->first_ts = a->last_ts = m->ts_ns;
		a->have_ts = true;
	}
	if (m->ts_ns < a->first_ts)
		a->first_ts = m->ts_ns;
	if (m->ts_ns > a->last_ts)
		a->last_ts = m->ts_ns;
	a->outcome[f->outcome < RS_OUTCOME__COUNT ? f->outcome : RS_UNSUPPORTED]++;
	rs_tl_frame(a, m->ts_ns);

	if (f->outcome != RS_OK && f->outcome != RS_NOT_ROCE) {
		struct rs_anomaly *an = rs_anomaly(a, RS_AN_UNDECODABLE, f->outcome, f->why, &at, 1);
		if (an->count == 1) {
			char why[256];
			rs_frame_why(f, why, sizeof why);
			rs_anomaly_set_detail(an, "%s", why);
		}
	}
	if (f->roce == RS_ROCE_NONE) {
		a->roce[0]++;
		return;
	}
	a->roce[f->roce]++;
	if (f->ip_version == 4)
		a->ipv4++;
	else if (f->ip_version == 6)
		a->ipv6++;
	if (f->vcrc_status == RS_CRC_BAD) {
		a->vcrc_bad++;
		rs_anomaly(a, RS_AN_VCRC_BAD, 0, NULL, &at, 1);
	}
	if (!(f->have & RS_HAVE_BTH))
		return;

	const struct rs_bth *b = &f->bth;
	const struct rs_opinfo *op = rs_opinfo(b->opcode);
	a->opcodes[b->opcode]++;
	a->icrc[f->icrc_status]++;

	struct rs_flowkey k;
	rs_flowkey_from_frame(&k, f);
	struct rs_flow *fl = flow_get(a, &k, f, m);
	fl->packets++;
	fl->wire_bytes += m->wirelen;
	fl->last = at;
	fl->last_ts = m->ts_ns;
	fl->ophist[b->opcode & 0x1F]++;
	if ((b->opcode & 0xE0) != fl->transport && op->kind != RS_KIND_CNP)
		fl->mixed_transport = true;
	rs_tl_touch(a, fl);
	fl->tl.packets++;
	fl->tl.bytes += m->wirelen;

	if (f->icrc_status == RS_CRC_BAD) {
		fl->icrc_bad++;
		rs_anomaly(a, RS_AN_ICRC_BAD, 0, fl, &at, 1);
	} else if (f->icrc_status == RS_CRC_UNCHECKED) {
		fl->icrc_unchecked++;
	}
	if (f->outcome != RS_OK)
		fl->undecodable++;
	if (f->ecn == 3) {
		fl->ecn_ce++;
		a->ecn_ce++;
		fl->tl.ecn_ce++;
		rs_anomaly(a, RS_AN_ECN_CE, 0, fl, &at, 1);
	}
	fl->fecn += b->fecn;
	fl->becn += b->becn;

	if (f->have & RS_HAVE_MAD)
		rs_cm_frame(a, f, m);
	if (!(f->have & RS_HAVE_EXT))
		return;
	fl->payload_all += f->payload_len;
	fl->tl.payload += f->payload_len;

	if (op->kind == RS_KIND_CNP) {
		fl->cnps++;
		a->cnps++;
		fl->tl.cnps++;
		rs_anomaly(a, RS_AN_CNP, 0, fl, &at, 1);
		return;
	}
	if ((b->opcode & 0xE0) == RS_TR_UD) {
		track_ud(fl, f);
		return;
	}
	if (op->response)
		rs_track_response(a, fl, f, m);
	else
		rs_track_request(a, fl, f, m);
}

void rs_analyzer_finish(struct rs_analyzer *a)
{
	if (a->finished)
		return;
	a->finished = true;
	for (guint i = 0; i < a->flows->len; i++) {
		struct rs_flow *fl = g_ptr_array_index(a->flows, i);
		if (fl)
			rs_psn_finish(a, fl);
	}
	rs_cm_finish(a);
	rs_tl_flush(a);
	if (a->opts.timeline)
		fflush(a->opts.timeline);
}

bool rs_analyzer_has_anomalies(const struct rs_analyzer *a)
{
	return g_hash_table_size(a->anomalies) > 0;
}
