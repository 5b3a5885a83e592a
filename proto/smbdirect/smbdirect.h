/*
 * smbdirect.h — what the SMB Direct module gives the table of modules
 * (proto/modules.c): its hooks, each defined in the file of its role.
 */
#ifndef RS_PROTO_SMBDIRECT_H
#define RS_PROTO_SMBDIRECT_H

#include "proto/proto.h"

extern const struct rs_proto_hooks rs_smbd_hooks;

/* Does the row carry SMB Direct connections? */
static inline bool rs_smbdirect_row(unsigned ulp)
{
	return ulp < rs_nprotos && rs_protos[ulp].hooks == &rs_smbd_hooks;
}

/* smbd_state.c */
void *rs_smbdq_new(void);
void rs_smbdq_free(void *q);
void rs_smbd_frame(struct rs_analyzer *a, struct rs_conn *c, struct rs_flow *fl, const struct rs_frame *f,
		   const struct rs_frame_meta *m);
void rs_smbd_message(struct rs_analyzer *a, struct rs_conn *c, struct rs_flow *fl, const struct rs_sendmsg *msg);
void rs_smbd_resent(struct rs_analyzer *a, struct rs_conn *c, struct rs_flow *fl, const struct rs_frame *f,
		    const struct rs_frame_meta *m);
/* smbd_look_state.c */
enum rs_recog rs_smbd_recognize(struct rs_recog_pair *p, bool from_a, const struct rs_frame *f,
				const struct rs_frame_meta *m);
/* smbd_text.c */
void rs_text_smbd(FILE *out, const struct rs_view *v);
/* smbd_json.c */
void rs_json_smbd(struct rs_json *j, const struct rs_conn *c);
/* smbd_walk.c */
const char *rs_smbd_op_name(uint16_t op, char *buf, size_t len);
bool rs_smbd_note(const struct rs_verdict *v, const struct rs_frame *f, char *buf, size_t len);
void rs_smbd_walk(struct walk *w);
/* smbd_brief_text.c */
bool rs_brief_smbd(const struct rs_view *v, struct rs_proto_brief *b);

#endif
