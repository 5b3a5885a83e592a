/*
 * iser_state.h — what the iSER module's analysis (iser_state.c) gives its
 * writers: a connection's tasks summed up as a plain record, as
 * analyzer/result.h gives the rest.
 */
#ifndef RS_PROTO_ISER_STATE_H
#define RS_PROTO_ISER_STATE_H

#include "analyzer/result.h"

#define RS_ISER_OPS 24        /* operations listed per connection; more are counted in `other_ops` */
#define RS_ISER_LIST 8        /* failed and unanswered tasks listed per connection */
#define RS_ISER_SLOWEST 5     /* the slowest SCSI tasks kept per connection */

/* An operation: a SCSI Command's CDB opcode, or another iSCSI request
 * (Login, Text, Logout, NOP-Out, Task Management) by its iSCSI opcode. */
struct rs_iser_op_info {
	uint8_t pdu;                /* the request's iSCSI opcode (RS_ISCSI_SCSI_CMD: a SCSI command) */
	uint8_t cdb;                /* a SCSI command's CDB opcode */
	uint64_t n;                 /* tasks (each command once, however often the fabric sent it) */
	uint64_t done, errors;      /* answered; with a status other than GOOD (or a failed response) */
	uint64_t resent;            /* tasks with a packet the fabric re-sent */
	uint64_t bytes_expected;    /* Expected Data Transfer Length */
	uint64_t bytes_moved;       /* immediate data and the RDMA READs and WRITEs tied to the tasks */
	struct rs_lat_figures lat;  /* first sending of the command -> last sending of the response */
};

/* One task, as listed: the slowest, the failed, the unanswered. */
struct rs_iser_task_info {
	uint32_t itt;
	uint8_t op;                 /* index in ops[] */
	bool resent;
	uint8_t status, response;   /* SCSI status and iSCSI response (others: the response's code) */
	bool has_sense;
	uint8_t sense_key, asc, ascq;
	uint64_t lat_ns;
	bool rd_wait;               /* the target RDMA READ its data: */
	uint64_t rd_wait_ns;        /* its first READ request -> the last packet of the responses to its READs */
	struct rs_fref cmd_at, rsp_at; /* its command's first sending, its response's last */
};

struct rs_iser_info {
	uint64_t requests, responses;    /* task-opening requests and the responses paired with them */
	uint64_t scsi_cmds, scsi_rsps;   /* of them SCSI Commands and SCSI Responses */
	uint64_t unanswered;             /* tasks with no response by the end of the capture */
	uint64_t unmatched;              /* responses to no request seen */
	uint64_t itt_reused;             /* a request with the ITT of a task still waiting (that task given up) */
	uint64_t not_kept;               /* tasks not followed: too many waiting at once */
	uint64_t cmd_resent, rsp_resent; /* requests and responses the fabric sent again (counted once) */
	uint64_t tasks_resent;           /* tasks with any packet re-sent: a SEND or an RDMA transfer */
	uint64_t resent_pkts;            /* packets of the connection the fabric re-sent ... */
	uint64_t resent_untied;          /* ... that belong to no task followed */
	uint64_t cut, bad, unsupported;  /* PDUs the capture cut; whose lengths lie; of opcodes not known */
	uint64_t other_pdus;             /* PDUs of no task: Hello, NOP-In pings, asynchronous messages, Reject */
	uint64_t immediate_bytes;        /* data in the commands' SENDs */
	uint64_t reads, writes;          /* RDMA READ requests and WRITEs the target issued ... */
	uint64_t read_bytes, write_bytes;
	uint64_t untied;                 /* ... with an STag no waiting task gave */
	uint64_t not_expected;           /* SCSI tasks ended GOOD whose data moved other than their expected length */
	unsigned nops;
	struct rs_iser_op_info ops[RS_ISER_OPS];
	uint64_t other_ops;              /* tasks of operations beyond ops[] */
	unsigned nslow;
	struct rs_iser_task_info slow[RS_ISER_SLOWEST]; /* the slowest SCSI tasks, slowest first */
	uint64_t nfailed;
	struct rs_iser_task_info failed[RS_ISER_LIST];  /* the first failed, in the order of their responses */
	struct rs_iser_task_info waiting[RS_ISER_LIST]; /* the first of the unanswered */
};
/* False: not an iSER connection. */
bool rs_conn_iser(const struct rs_conn *c, struct rs_iser_info *out);

/* An operation's name: "READ(10)", "SCSI opcode 0xc1", "Login". */
const char *rs_iser_op_label(uint8_t pdu, uint8_t cdb, char *buf, size_t len);

#endif
