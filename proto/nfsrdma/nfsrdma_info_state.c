/*
 * nfsrdma_info_state.c — the NFS/RDMA module's record for its writers: a
 * queue's counts, kinds with their latency figures and the calls never
 * answered, as a plain struct rs_nfs_info (nfsrdma_state.h).
 */
#include <string.h>

#include "proto/nfsrdma/nfsq_state.h"
#include "proto/nfsrdma/nfsrdma.h"

static gint by_frame(gconstpointer pa, gconstpointer pb)
{
	const struct rs_nfs_call_info *a = pa, *b = pb;
	if (a->call_at.file != b->call_at.file)
		return a->call_at.file < b->call_at.file ? -1 : 1;
	return a->call_at.frame < b->call_at.frame ? -1 : a->call_at.frame > b->call_at.frame;
}

/* The calls never answered: those still waiting and those whose XID came
 * again, the first by call frame. */
static void unanswered(const struct rs_nfsq *q, struct rs_nfs_info *out)
{
	GArray *all = g_array_new(FALSE, FALSE, sizeof(struct rs_nfs_call_info));
	for (GList *l = q->order.head; l; l = l->next) {
		struct rs_nfs_call_info ci = rs_nfs_call_info_of(l->data);
		g_array_append_val(all, ci);
	}
	g_array_append_vals(all, q->super, q->nsuper);
	g_array_sort(all, by_frame);
	out->nunans = all->len < RS_NFS_UNANSWERED ? all->len : RS_NFS_UNANSWERED;
	if (out->nunans)
		memcpy(out->unans, all->data, out->nunans * sizeof out->unans[0]);
	g_array_free(all, TRUE);
}

bool rs_conn_nfs(const struct rs_conn *c, struct rs_nfs_info *out)
{
	const struct rs_nfsq *q = c->pq;
	if (!q || !rs_nfsrdma_row(c->ulp))
		return false;
	*out = q->c;
	out->unanswered += g_hash_table_size(q->pending);
	out->nkinds = q->nkinds;
	for (unsigned i = 0; i < q->nkinds; i++) {
		out->kinds[i] = q->kinds[i].i;
		out->kinds[i].lat = rs_lat_figures_of(&q->kinds[i].lat);
	}
	unanswered(q, out);
	return true;
}
