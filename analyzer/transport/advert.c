/*
 * advert.c — buffer advertisements, for the per-frame verdicts: a SEND
 * that tells its peer where a buffer is (VA, rkey, length: the candidate
 * dissect/ reads from its first payload bytes, as rping's rping_rdma_info
 * lays them out), tied to the RDMA READs and WRITEs that later use it.
 *
 * The tie needs evidence, not a guess: the request goes from the SEND's
 * receiver to its sender, its RETH names the advertised rkey, and the range
 * it touches, [VA, VA + DMA length), lies inside [buf, buf + size). The
 * newest such SEND is the one it uses; without one the request is tied to
 * nothing. A SEND's verdict names the requests that used it while the
 * per-frame view still held it: it stays open (rs_adv_oldest_open) until
 * its sender's next SEND to the same host, which is the next advertisement
 * or says the buffer's turn is over, or ADV_WINDOW frames later (a live
 * walkthrough must not wait for ever), or until the view can wait no
 * longer.
 */
#include <string.h>

#include "analyzer/transport/transport.h"

#define ADV_WINDOW 1024 /* frames a SEND's verdict waits for the requests that use it */
#define ADV_MAX 65536   /* advertisements remembered at most (memory stays bounded); then no new ones */

/* An advertisement is found by the memory's owner (its sender), the host it
 * told (who reads or writes it) and the rkey. */
struct adv_key {
	struct rs_addr owner, user;
	uint32_t rkey;
};

struct adv {
	struct adv_key key;
	uint64_t va;
	uint32_t len;
	uint32_t file;
	uint64_t frame;
	bool open;
};

static guint adv_hash(gconstpointer p)
{
	return rs_fnv1a(p, sizeof(struct adv_key));
}

static gboolean adv_equal(gconstpointer x, gconstpointer y)
{
	return memcmp(x, y, sizeof(struct adv_key)) == 0;
}

static void key_set(struct adv_key *k, const struct rs_addr *owner, const struct rs_addr *user, uint32_t rkey)
{
	memset(k, 0, sizeof *k);
	k->owner = *owner;
	k->user = *user;
	k->rkey = rkey;
}

void rs_adv_free(struct rs_analyzer *a)
{
	if (a->adv)
		g_hash_table_destroy(a->adv);
	if (a->adv_open)
		g_ptr_array_free(a->adv_open, TRUE);
	a->adv = NULL;
	a->adv_open = NULL;
}

/* Close the open advertisements `owner` sent to `user` (owner NULL: all if
 * now is 0, else none), and those ADV_WINDOW frames before `now` or more. */
static void close_from(struct rs_analyzer *a, const struct rs_addr *owner, const struct rs_addr *user, uint64_t now)
{
	for (guint i = 0; a->adv_open && i < a->adv_open->len;) {
		struct adv *ad = a->adv_open->pdata[i];
		bool old = now && (ad->file != a->cur_file || ad->frame + ADV_WINDOW <= now);
		bool pair = owner ? rs_addr_equal(&ad->key.owner, owner) && rs_addr_equal(&ad->key.user, user) : !now;
		if (!old && !pair) {
			i++;
			continue;
		}
		ad->open = false;
		g_ptr_array_remove_index(a->adv_open, i);
	}
}

void rs_adv_settle(struct rs_analyzer *a)
{
	close_from(a, NULL, NULL, 0);
}

uint64_t rs_adv_oldest_open(const struct rs_analyzer *a)
{
	uint64_t oldest = 0;
	for (guint i = 0; a->adv_open && i < a->adv_open->len; i++) {
		const struct adv *ad = a->adv_open->pdata[i];
		if (ad->file == a->cur_file && (!oldest || ad->frame < oldest))
			oldest = ad->frame;
	}
	return oldest;
}

/* An RC SEND's First or Only packet: a new message. */
static bool is_send(uint8_t opcode)
{
	return opcode == IBV_OPCODE_RC_SEND_FIRST || opcode == IBV_OPCODE_RC_SEND_ONLY ||
	       opcode == IBV_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE || opcode == RS_OP_RC_SEND_ONLY_WITH_INVALIDATE;
}

static void advertised(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m)
{
	struct adv_key k;
	key_set(&k, &f->src, &f->dst, f->adv->rkey);
	if (!a->adv) {
		a->adv = g_hash_table_new_full(adv_hash, adv_equal, NULL, g_free);
		a->adv_open = g_ptr_array_new();
	}
	struct adv *ad = g_hash_table_lookup(a->adv, &k);
	if (!ad) {
		if (g_hash_table_size(a->adv) >= ADV_MAX)
			return;
		ad = g_new0(struct adv, 1);
		ad->key = k;
		g_hash_table_insert(a->adv, &ad->key, ad);
	}
	ad->va = f->adv->va;
	ad->len = f->adv->len;
	ad->file = a->cur_file;
	ad->frame = m->frame_no;
	ad->open = true;
	g_ptr_array_add(a->adv_open, ad);
}

static void used(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m,
		 struct rs_verdict *v)
{
	struct adv_key k;
	key_set(&k, &f->dst, &f->src, f->reth.rkey);
	struct adv *ad = g_hash_table_lookup(a->adv, &k);
	if (!ad || ad->file != a->cur_file)
		return;
	uint64_t va = f->reth.va, len = f->reth.dmalen;
	if (va < ad->va || va - ad->va >= ad->len || len > ad->len - (va - ad->va))
		return;
	v->adv_frame = ad->frame;
	if (ad->open)
		rs_v_fix_use(a, ad->frame, m->frame_no);
}

void rs_adv_frame(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m,
		  struct rs_verdict *v)
{
	if (f->roce == RS_ROCE_NONE || !(f->have & RS_HAVE_BTH) || !(f->have & RS_HAVE_EXT))
		return;
	uint8_t opc = f->bth.opcode;
	if (is_send(opc)) {
		/* The sender's next SEND to the same host: its earlier ones are done. */
		close_from(a, &f->src, &f->dst, m->frame_no);
		if (f->have & RS_HAVE_ADV)
			advertised(a, f, m);
		return;
	}
	if (a->adv_open && a->adv_open->len)
		close_from(a, NULL, NULL, m->frame_no); /* by age only: this is no SEND */
	if (!(f->ext & RS_EXT_RETH) || !a->adv)
		return;
	enum rs_op_kind kind = rs_opinfo(opc)->kind;
	if (kind == RS_KIND_READ_REQ || kind == RS_KIND_WRITE || kind == RS_KIND_WRITE_IMM)
		used(a, f, m, v);
}
