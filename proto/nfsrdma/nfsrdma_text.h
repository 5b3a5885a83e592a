/*
 * nfsrdma_text.h — what the NFS/RDMA module's text section (nfsrdma_text.c)
 * shares with its JSON (nfsrdma_json.c).
 */
#ifndef RS_PROTO_NFSRDMA_TEXT_H
#define RS_PROTO_NFSRDMA_TEXT_H

#include <stddef.h>

#include "proto/nfsrdma/nfsrdma_state.h"

/* A kind of call by name: "NFSv3 WRITE", an NFSv4 COMPOUND by its
 * operations ("SEQUENCE PUTFH READ"), "NFSv4 NULL", "NFS_ACL GETACL",
 * "program 100021 v4 proc 2"; "callback " before the backchannel's. */
const char *rs_nfs_kind_name(const struct rs_nfs_kind_id *id, char *buf, size_t len);
/* A failed call's status by name ("NFS3ERR_NOENT", "PROC_UNAVAIL",
 * "AUTH_ERROR", "ERR_CHUNK"), or its number. */
const char *rs_nfs_err_name(const struct rs_nfs_info *q, const struct rs_nfs_err_info *e, char *buf, size_t len);

#endif
