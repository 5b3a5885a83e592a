/*
 * nvmeof_json.h — the JSON of a connection's upper-layer protocol and NVMe-oF
 * queue (nvmeof_json.c), written inside the connection's object by json.c.
 */
#ifndef RS_PROTO_NVMEOF_JSON_H
#define RS_PROTO_NVMEOF_JSON_H

#include "report/jsonw.h"
#include "report/view.h"

/* "ulp" when the service names one, "nvme" for an NVMe-oF queue; nothing otherwise. */
void rs_json_conn_ulp(struct rs_json *j, const struct rs_conn *c);

#endif
