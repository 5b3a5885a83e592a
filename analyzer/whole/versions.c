/*
 * versions.c — RoCE v1 and v2 between the same two hosts (IBA Annex
 * A17.1: the same pair of ports must not mix them). Checked once per
 * half-flow and version (the versions of a QP pair share one half-flow).
 */
#include <string.h>

#include "analyzer/whole/whole.h"


/* ---- RoCE v1 and v2 between the same hosts ------------------------------------------ */

/* v1 GIDs and v2 addresses in one form (rs_addr_roce). */
static void normalise(uint8_t out[16], const struct rs_addr *ad, uint8_t *kind)
{
	struct rs_addr r;
	rs_addr_roce(ad, &r);
	memcpy(out, r.b, 16);
	*kind = r.kind;
}

static gboolean version_unmixed(gpointer key, gpointer value, gpointer data)
{
	const struct rs_version_seen *v = value;
	(void)key;
	(void)data;
	return v->mask != 3;
}

void rs_versions_note(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m)
{
	struct rs_hostpair hp;
	uint8_t x[16], y[16], kx, ky;
	memset(&hp, 0, sizeof hp);
	normalise(x, &f->src, &kx);
	normalise(y, &f->dst, &ky);
	bool swap = memcmp(x, y, 16) > 0;
	memcpy(hp.a, swap ? y : x, 16);
	memcpy(hp.b, swap ? x : y, 16);
	hp.kind = kx;
	struct rs_version_seen *v = g_hash_table_lookup(a->versions, &hp);
	if (!v) {
		/* Under --max-flows, forget the host pairs that saw one version
		 * only once there are many more of them than flows (those that
		 * mixed versions are an anomaly's subject and stay). */
		if (a->opts.max_flows && g_hash_table_size(a->versions) > 2 * a->opts.max_flows + 1024)
			g_hash_table_foreach_remove(a->versions, version_unmixed, NULL);
		v = g_new0(struct rs_version_seen, 1);
		g_hash_table_insert(a->versions, g_memdup2(&hp, sizeof hp), v);
	}
	uint8_t bit = f->roce == RS_ROCE_V1 ? 1 : 2;
	if (v->mask & bit)
		return;
	v->mask |= bit;
	v->at[bit - 1] = (struct rs_fref){ a->cur_file, m->frame_no };
	if (v->mask == 3) {
		struct rs_fref first = v->at[0].frame < v->at[1].frame ? v->at[0] : v->at[1];
		struct rs_anomaly *an = rs_anomaly(a, RS_AN_MIXED_ROCE, 0, v, &first, 1);
		if (!an->ghost) {
			an->ghost = g_new0(struct rs_anom_ghost, 1);
			an->ghost->mixed.x = (struct rs_addr){ .kind = kx };
			an->ghost->mixed.y = (struct rs_addr){ .kind = kx };
			memcpy(an->ghost->mixed.x.b, hp.a, 16);
			memcpy(an->ghost->mixed.y.b, hp.b, 16);
			an->ghost->mixed.v1_frame = v->at[0].frame;
			an->ghost->mixed.v2_frame = v->at[1].frame;
		}
		if (an->nframes < RS_SAMPLE_FRAMES)
			an->frames[an->nframes++] = first.frame == v->at[0].frame ? v->at[1] : v->at[0];
	}
}
