/*
 * nvmeof.h — what the NVMe-oF module gives the table of modules
 * (proto/modules.c): its hooks, each defined in the file of its role.
 */
#ifndef RS_PROTO_NVMEOF_H
#define RS_PROTO_NVMEOF_H

#include "proto/proto.h"

extern const struct rs_proto_hooks rs_nvmeof_hooks;

/* Does the row carry NVMe-oF queues (its SENDs taken as capsules)? */
static inline bool rs_nvmeof_row(unsigned ulp)
{
	return ulp < rs_nprotos && rs_protos[ulp].hooks == &rs_nvmeof_hooks;
}

/* nvmeof_state.c */
void *rs_nvmeq_new(void);
void rs_nvmeq_free(void *q);
void rs_nvme_frame(struct rs_analyzer *a, struct rs_conn *c, struct rs_flow *fl, const struct rs_frame *f,
		   const struct rs_frame_meta *m);
enum rs_recog rs_nvme_recognize(struct rs_recog_pair *p, bool from_a, const struct rs_frame *f,
				const struct rs_frame_meta *m);
/* nvmeof_text.c */
void rs_text_nvme(FILE *out, const struct rs_view *v);
/* nvmeof_text.c: the per-frame views' op_name hook; nvmeof_walk.c: note */
const char *rs_nvme_op_name(uint16_t op, char *buf, size_t len);
bool rs_nvme_note(const struct rs_verdict *v, const struct rs_frame *f, char *buf, size_t len);
/* nvmeof_json.c */
void rs_json_nvme(struct rs_json *j, const struct rs_conn *c);
/* nvmeof_brief_text.c */
bool rs_brief_nvme(const struct rs_view *v, struct rs_proto_brief *b);

#endif
