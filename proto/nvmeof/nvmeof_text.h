/*
 * nvmeof_text.h — what the NVMe-oF module's text section (nvmeof_text.c)
 * shares with its JSON (nvmeof_json.c).
 */
#ifndef RS_PROTO_NVMEOF_TEXT_H
#define RS_PROTO_NVMEOF_TEXT_H

#include <stddef.h>

#include "proto/nvmeof/nvmeof_state.h"

/* An NVMe-oF command kind by name ("Read", "Identify", "Connect"), by the
 * queue's command set (admin on queue 0); "opcode 0x..": unknown. */
const char *rs_nvme_op_label(const struct rs_nvme_info *q, const struct rs_nvme_op_info *o, char *buf, size_t len);

#endif
