/*
 * smbd_text.h — what the SMB Direct module's text section (smbd_text.c)
 * shares with its JSON (smbd_json.c).
 */
#ifndef RS_PROTO_SMBD_TEXT_H
#define RS_PROTO_SMBD_TEXT_H

#include <stddef.h>

#include "proto/smbdirect/smbd_state.h"

/* A command slot of struct rs_smbd_info cmd[] by name ("READ"; "other"). */
const char *rs_smbd_cmd_label(unsigned slot);
/* RS_SMBD_RESENT_* in words ("response, RDMA transfer"), in buf. */
const char *rs_smbd_resent_words(uint8_t resent, char *buf, size_t len);

#endif
