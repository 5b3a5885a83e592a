/*
 * json_nvme.h — the JSON of a connection's upper-layer protocol and NVMe-oF
 * queue (json_nvme.c), written inside the connection's object by json.c.
 */
#ifndef RS_JSON_NVME_H
#define RS_JSON_NVME_H

#include "report/jsonw.h"
#include "report/view.h"

/* "ulp" when the service names one, "nvme" for an NVMe-oF queue; nothing otherwise. */
void rs_json_conn_ulp(struct rs_json *j, const struct rs_conn *c);

#endif
