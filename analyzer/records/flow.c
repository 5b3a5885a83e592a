/*
 * flow.c — a half-flow's key and storage: keys from frames, addresses from
 * keys, the hashable host keys, and the parts of a flow allocated on first
 * use. The bottom of the analyzer: it calls nothing else in it.
 */
#include <string.h>

#include "analyzer/records/records.h"

const struct rs_flow_msgs rs_flow_no_msgs;
const struct rs_flow_rare rs_flow_no_rare;
void rs_addr_roce(const struct rs_addr *ad, struct rs_addr *out)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF };
	memset(out, 0, sizeof *out);
	if (ad->kind == RS_ADDR_IPV4) {
		memcpy(out->b, ad->b, 4);
		out->kind = RS_ADDR_IPV4;
	} else if (memcmp(ad->b, mapped, 12) == 0) {
		memcpy(out->b, ad->b + 12, 4);
		out->kind = RS_ADDR_IPV4;
	} else {
		memcpy(out->b, ad->b, 16);
		out->kind = RS_ADDR_IPV6;
	}
}

/* A RoCE v1 frame's key: its GIDs as the addresses RoCE v2 carries, so
 * that one QP pair is one flow whichever version each frame used. */
static void v1_key(struct rs_flowkey *k, const struct rs_frame *f)
{
	struct rs_addr s, d;
	rs_addr_roce(&f->src, &s);
	rs_addr_roce(&f->dst, &d);
	memset(k, 0, sizeof *k);
	k->roce = RS_ROCE_V2;
	k->akind = s.kind;
	k->qpn = f->bth.destqp;
	memcpy(k->src, s.b, 16);
	memcpy(k->dst, d.b, 16);
}

void rs_flowkey_from_frame(struct rs_flowkey *k, const struct rs_frame *f)
{
	if (__builtin_expect(f->roce == RS_ROCE_V1, 0)) {
		v1_key(k, f);
		return;
	}
	/* roce, akind, pad and qpn in one 8-byte store: the key is read back
	 * as five 8-byte words at once, and a word pieced together from four
	 * small stores cannot be forwarded from the store buffer (a stall of
	 * some twenty cycles per frame). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Composed in a register: through a struct on the stack the compiler
	 * stores the bytes one by one and reads the word back (the stall again). */
	uint64_t w0 = (uint64_t)f->roce | (uint64_t)f->src.kind << 8 | (uint64_t)f->bth.destqp << 32;
#else
	struct rs_flowkey t = { .roce = f->roce, .akind = f->src.kind, .qpn = f->bth.destqp };
	uint64_t w0;
	memcpy(&w0, &t, 8);
#endif
	memcpy(k, &w0, 8);
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
	return fl->is_dc ? "DC" : rs_transport_name(fl->transport);
}

struct rs_flow_extra *rs_extra_w(struct rs_flow *fl)
{
	if (!fl->x)
		fl->x = g_new0(struct rs_flow_extra, 1);
	return fl->x;
}

struct rs_rkey_use *rs_rkey_new(struct rs_rkeys *r)
{
	if (r->n == r->cap) {
		if (r->cap == 1) {
			struct rs_rkey_use *use = g_new(struct rs_rkey_use, 2);
			use[0] = r->u.one;
			r->u.use = use;
		} else if (r->cap > 1) {
			r->u.use = g_renew(struct rs_rkey_use, r->u.use, r->cap * 2);
		}
		r->cap = r->cap ? r->cap * 2 : 1;
	}
	return &rs_rkey_uses(r)[r->n++];
}

struct rs_flow_rare *rs_rare_w(struct rs_flow *fl)
{
	if (!fl->rare) {
		fl->rare = g_new0(struct rs_flow_rare, 1);
		fl->rare->rnr_timer_min = 0xFF;
	}
	return fl->rare;
}

/* ---- hashable keys ------------------------------------------------------------ */

guint rs_hostkey_hash(gconstpointer p)
{
	const struct rs_hostkey *k = p;
	guint h = k->kind * 31u + k->n * 2654435761u;
	for (int i = 0; i < 16; i++)
		h = h * 33u + k->b[i];
	return h;
}

gboolean rs_hostkey_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(struct rs_hostkey)) == 0;
}

void rs_hostkey_set(struct rs_hostkey *k, const struct rs_addr *ad, uint32_t n)
{
	memset(k, 0, sizeof *k);
	k->kind = ad->kind;
	memcpy(k->b, ad->b, 16);
	k->n = n;
}

struct rs_hostkey *rs_hostkey_new(const struct rs_addr *ad, uint32_t n)
{
	struct rs_hostkey *k = g_new(struct rs_hostkey, 1);
	rs_hostkey_set(k, ad, n);
	return k;
}

guint rs_hostpair_hash(gconstpointer p)
{
	const struct rs_hostpair *k = p;
	guint h = k->roce * 7u + k->kind;
	for (int i = 0; i < 16; i++)
		h = h * 33u + k->a[i];
	for (int i = 0; i < 16; i++)
		h = h * 33u + k->b[i];
	return h;
}

gboolean rs_hostpair_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(struct rs_hostpair)) == 0;
}

struct rs_fref rs_flow_first(const struct rs_analyzer *a, const struct rs_flow *fl)
{
	/* The last file that began before the flow was created. */
	uint32_t lo = 0, hi = a->file_first_id->len;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (g_array_index(a->file_first_id, uint32_t, mid) <= fl->id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (struct rs_fref){ lo ? lo - 1 : 0, fl->first_frame };
}
