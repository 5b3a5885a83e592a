/*
 * iser.h — what the iSER module gives the table of modules
 * (proto/modules.c): its hooks, each defined in the file of its role.
 */
#ifndef RS_PROTO_ISER_H
#define RS_PROTO_ISER_H

#include "proto/proto.h"

extern const struct rs_proto_hooks rs_iser_hooks;

/* Does the row carry iSER connections? */
static inline bool rs_iser_row(unsigned ulp)
{
	return ulp < rs_nprotos && rs_protos[ulp].hooks == &rs_iser_hooks;
}

/* iser_state.c */
void *rs_iserq_new(void);
void rs_iserq_free(void *q);
void rs_iser_frame(struct rs_analyzer *a, struct rs_conn *c, struct rs_flow *fl, const struct rs_frame *f,
		   const struct rs_frame_meta *m);
void rs_iser_resent(struct rs_analyzer *a, struct rs_conn *c, struct rs_flow *fl, const struct rs_frame *f,
		    const struct rs_frame_meta *m);
void rs_iserq_finish(struct rs_analyzer *a, void *q);
enum rs_recog rs_iser_recognize(struct rs_recog_pair *p, bool from_a, const struct rs_frame *f,
				const struct rs_frame_meta *m);
/* iser_text.c */
void rs_text_iser(FILE *out, const struct rs_view *v);
/* iser_json.c */
void rs_json_iser(struct rs_json *j, const struct rs_conn *c);
/* iser_walk.c */
const char *rs_iser_op_name(uint16_t op, char *buf, size_t len);
bool rs_iser_note(const struct rs_verdict *v, const struct rs_frame *f, char *buf, size_t len);
void rs_iser_walk(struct walk *w);
/* iser_brief_text.c */
bool rs_brief_iser(const struct rs_view *v, struct rs_proto_brief *b);

#endif
