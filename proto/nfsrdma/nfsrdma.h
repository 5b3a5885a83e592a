/*
 * nfsrdma.h — what the NFS/RDMA module gives the table of modules
 * (proto/modules.c): its hooks, each defined in the file of its role.
 */
#ifndef RS_PROTO_NFSRDMA_H
#define RS_PROTO_NFSRDMA_H

#include "proto/proto.h"

extern const struct rs_proto_hooks rs_nfsrdma_hooks;

/* Does the row carry NFS over RDMA? */
static inline bool rs_nfsrdma_row(unsigned ulp)
{
	return ulp < rs_nprotos && rs_protos[ulp].hooks == &rs_nfsrdma_hooks;
}

/* nfsrdma_state.c */
void *rs_nfsq_new(void);
void rs_nfsq_free(void *q);
void rs_nfs_frame(struct rs_analyzer *a, struct rs_conn *c, struct rs_flow *fl, const struct rs_frame *f,
		  const struct rs_frame_meta *m);
void rs_nfs_resent(struct rs_analyzer *a, struct rs_conn *c, struct rs_flow *fl, const struct rs_frame *f,
		   const struct rs_frame_meta *m);
void rs_nfsq_finish(struct rs_analyzer *a, void *q);
/* nfsrdma_shape_state.c */
enum rs_recog rs_nfs_recognize(struct rs_recog_pair *p, bool from_a, const struct rs_frame *f,
			       const struct rs_frame_meta *m);
/* nfsrdma_text.c */
void rs_text_nfs(FILE *out, const struct rs_view *v);
/* nfsrdma_json.c */
void rs_json_nfs(struct rs_json *j, const struct rs_conn *c);
/* nfsrdma_walk.c */
const char *rs_nfs_op_name(uint16_t op, char *buf, size_t len);
bool rs_nfs_note(const struct rs_verdict *v, const struct rs_frame *f, char *buf, size_t len);
void rs_nfs_walk(struct walk *w);
/* nfsrdma_brief_text.c */
bool rs_brief_nfs(const struct rs_view *v, struct rs_proto_brief *b);

#endif
