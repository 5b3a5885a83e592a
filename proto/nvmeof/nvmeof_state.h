/*
 * nvmeof_state.h — what the NVMe-oF module's analysis (nvmeof_state.c)
 * gives its writers: a queue's figures as a plain record, as
 * analyzer/result.h gives the rest.
 */
#ifndef RS_PROTO_NVMEOF_STATE_H
#define RS_PROTO_NVMEOF_STATE_H

#include "analyzer/result.h"

/* An NVMe-oF queue (a connection of an NVMe-oF service), rs_conn_nvme. */
#define RS_NVME_OPS 24        /* command kinds listed per queue; more are counted in `other_ops` */
#define RS_NVME_ERRS 8        /* failed commands listed per queue */
struct rs_nvme_op_info {
	uint8_t opcode, fctype;
	uint64_t n;                 /* command capsules */
	uint64_t done, errors;      /* response capsules; with a status other than success */
	uint64_t bytes;             /* data the commands' SGLs describe */
	uint32_t size_min, size_max;
	uint64_t incapsule;         /* commands whose data came in the capsule */
	struct rs_lat_figures lat;  /* command capsule -> response capsule */
};
/* A failed command: its CID, status and kind (index in ops), and where its
 * response and command were. */
struct rs_nvme_err {
	uint16_t cid, status;
	uint8_t op;
	struct rs_fref at, cmd_at;
};
struct rs_nvme_info {
	bool qid_known;             /* a Fabrics Connect seen: qid is the queue's */
	uint16_t qid, sqsize;
	uint64_t cmds, rsps;
	unsigned pending;           /* commands not answered by the end, ... */
	unsigned pending_aer;       /* ... of them Asynchronous Event Requests (an admin queue's normal state) */
	uint64_t answered_early;    /* responses captured before their command (two clocks) */
	uint64_t unmatched;         /* responses no command seen claimed */
	uint64_t unmatched_failed;  /* ... with a status other than success (their commands unknown: not in failed) */
	uint64_t resent, rsp_resent;/* command capsules sent again with their CID pending; responses again */
	uint64_t cut, bad;          /* capsules the capture cut; capsules whose fields lie */
	uint64_t reads, writes;     /* RDMA READ requests and WRITE messages the target issued ... */
	uint64_t read_bytes, write_bytes;
	uint64_t untied;            /* ... with an rkey no pending command gave */
	uint64_t xfer_short;        /* keyed commands answered with success whose transfers moved other than the SGL's length */
	uint8_t nops;
	struct rs_nvme_op_info ops[RS_NVME_OPS];
	uint64_t other_ops;         /* commands of kinds beyond ops[] */
	uint32_t nerr;              /* failed commands, the first RS_NVME_ERRS of them in err[] */
	struct rs_nvme_err err[RS_NVME_ERRS];
};
/* False: not an NVMe-oF queue. */
bool rs_conn_nvme(const struct rs_conn *c, struct rs_nvme_info *out);

#endif
