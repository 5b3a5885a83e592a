/*
 * proto.h — the protocol-module interface: what an upper-layer protocol
 * carried in RDMA messages (NVMe-oF, iSER, SMB Direct, NFS/RDMA) offers
 * the rest of rocestat, and the one table that lists them (modules.c).
 *
 * A module is one folder, proto/NAME/, its files named by role; each role
 * obeys the direction of the room it plays (tests/check_layers.py):
 *   NAME_dissect.c  its decoder: pure, as dissect/ (the cursor, no allocation)
 *   NAME_state.c    its per-queue analysis, as analyzer/ (never packet bytes, never output)
 *   NAME_text.c     its section of the text summary, as report/
 *   NAME_json.c     its members of a connection's JSON object, as report/
 *   NAME_walk.c     its lines of the -V walkthrough, as views/
 * and its tests under tests/. The rest of the tree reaches a module only
 * through this header and the table's rows; it never names one.
 *
 * A row is a service: the protocol a CM connection's RDMA CM port (or the
 * user's --ulp PORT=NAME or qp:QPN=NAME) says the connection carries. A
 * module may own several rows (NVMe-oF: its I/O and its discovery ports)
 * that share one set of hooks. A connection keeps its row's index (struct
 * rs_conn ulp); 0 is no protocol. Every hook is optional (NULL: the module
 * has none).
 *
 * Traffic whose CM handshake is not in the capture (it began before) has
 * no port to go by: a module with a recognize hook is offered the RC
 * half-flow pairs without a CM connection, and one that recognises its
 * protocol's shape there gets a queue of its own for the pair (a struct
 * rs_conn that is no CM connection: rs_conn_ulp_how says how it was told),
 * fed from then on as a CM connection's.
 */
#ifndef RS_PROTO_PROTO_H
#define RS_PROTO_PROTO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct rs_analyzer;
struct rs_flow;
struct rs_frame;
struct rs_frame_meta;
struct rs_conn;
struct rs_view;
struct rs_json;
struct rs_pdus;
struct rs_verdict;
struct walk;

/* What a recognize hook answers, frame by frame. */
enum rs_recog {
	RS_RECOG_MORE = 0, /* nothing against it yet, not enough for it: offer the next frame */
	RS_RECOG_YES,      /* the pair carries the module's protocol */
	RS_RECOG_NO,       /* it does not: the pair is not offered again */
};

/* A half-flow pair as a recognize hook sees it: "a" is the half-flow that
 * sent the pair's first RC SEND, "b" the other way (it may not be known
 * yet: half-flows are paired by their ACKs). */
struct rs_recog_pair {
	void *q;         /* the module's queue state (queue_new), fed by the hook as queue_frame would */
	bool forced;     /* --ulp qp: named the pair's protocol: say only which side is the host (client) */
	/* The hook's answers: */
	bool host_is_a;  /* with RS_RECOG_YES: the host (the client, rs_conn c2s) sends on a */
	uint32_t pdus;   /* PDUs that had the protocol's shape so far (the evidence the report gives) */
	uint32_t matched;/* of them, answers tied to their request (an NVMe-oF CID, an iSER ITT, an RPC XID) */
};

#define RS_PROTO_PORTS 2     /* RDMA CM ports a row names */
#define RS_PROTO_PREFIXES 2  /* --ulp NAME prefixes a row answers to */

/*
 * An RC SEND message of a module's connection (analyzer/messages/sendmsg.c): its
 * packets (First, Middle..., Last, or an Only) put together in PSN order,
 * each PSN once however often it was sent, handed to the module once the
 * message ended. Boundaries, lengths, frames and the first packet's
 * decoded PDU; never payload bytes. Incomplete: a PSN of it never reached
 * the capture (or its First or Last did not): nothing of it is guessed.
 */
struct rs_sendmsg {
	bool complete;        /* every PSN from its First to its Last came */
	bool headless;        /* its First was not seen: no PDU */
	bool tailless;        /* its Last was not seen (a later message began, or the capture ended) */
	uint8_t opcode;       /* its last packet's BTH opcode seen (SEND, with immediate, with invalidate) */
	uint32_t first_psn, last_psn; /* of the packets that came */
	uint32_t packets;     /* packets that came, each PSN once */
	uint32_t missing;     /* PSNs between its first and last that never came */
	uint64_t bytes;       /* their payload: the message's length when complete */
	uint32_t file;        /* the input file of its frames */
	uint64_t first_frame, last_frame; /* where its first and last PSN came (frame numbers) */
	uint64_t first_ts, last_ts;
	const struct rs_pdus *pdu; /* the first packet's PDU block (proto/pdu.h); NULL: none */
};

/* A module's line in --brief: its connections' and queues' figures,
 * summed (a brief hook fills it). */
struct rs_proto_brief {
	const char *name;          /* the row's (rs_proto_briefs fills it and row) */
	unsigned row;
	const char *unit;          /* what ops counts: "commands", "tasks", "calls", "requests" */
	uint64_t conns;            /* connections and queues without CM of the module */
	uint64_t ops, failed, unanswered;
	char slowest[48];          /* the kind of operation with the highest p99; "": none timed */
	uint64_t slowest_p99, slowest_n;
};

/* What a module does beyond naming its connections. */
struct rs_proto_hooks {
	/* The dissector decodes every RC SEND that could be the module's
	 * (it cannot know a frame's connection); true: on the module's
	 * connections that decode is taken, elsewhere the SEND is payload. */
	bool claims_sends;
	/* The analysis (as analyzer/): a connection of the module's service
	 * begins; its queue state (freed by queue_free). A module with
	 * queue_new has queue_free and queue_frame. */
	void *(*queue_new)(void);
	void (*queue_free)(void *q);
	/* A frame with a transport payload of a connection with a queue
	 * (fl is c->c2s or c->s2c). */
	void (*queue_frame)(struct rs_analyzer *a, struct rs_conn *c, struct rs_flow *fl, const struct rs_frame *f,
			    const struct rs_frame_meta *m);
	/* A SEND message of connection c's half-flow fl ended (struct
	 * rs_sendmsg), once, at the frame that ended it: its Last, or a later
	 * one (the packet that filled a gap before it; the next message; the
	 * end of the analysis, f NULL then). Messages come in PSN order. */
	void (*queue_message)(struct rs_analyzer *a, struct rs_conn *c, struct rs_flow *fl, const struct rs_sendmsg *msg);
	/* A frame of connection c (on half-flow fl) that the analysis judged
	 * sent again: a request packet re-sent, or a READ response sent again.
	 * After the frame's analysis (its messages handed on before). */
	void (*queue_resent)(struct rs_analyzer *a, struct rs_conn *c, struct rs_flow *fl, const struct rs_frame *f,
			     const struct rs_frame_meta *m);
	/* The capture ended (rs_analyzer_finish, before any writer runs):
	 * settle what the queue held back (figures a later frame could still
	 * have changed). */
	void (*queue_finish)(struct rs_analyzer *a, void *q);
	/* Recognition by shape (as analyzer/; needs queue_new): offered each
	 * frame with a transport payload of an RC half-flow pair without a CM
	 * connection, from the pair's first SEND on, until it answers other
	 * than RS_RECOG_MORE; from_a: the frame is on p's "a" half-flow. The
	 * hook analyses while it looks (p->q is fed as queue_frame would feed
	 * it, but no frame's verdict is written), so that on RS_RECOG_YES
	 * p->q becomes the queue's state with the frames before counted; a
	 * module that cannot do so says in its report what it left out. A
	 * frame that the protocol forbids should answer RS_RECOG_NO at once:
	 * recognition must not be chance. With p->forced, answer RS_RECOG_YES
	 * as soon as the host's side is known. A queue without CM gets its
	 * SEND messages (queue_message) and re-sent frames (queue_resent)
	 * from the frame that told it on: what the hook needs of the messages
	 * before, it takes from their first packets' PDU blocks. */
	enum rs_recog (*recognize)(struct rs_recog_pair *p, bool from_a, const struct rs_frame *f,
				   const struct rs_frame_meta *m);
	/* The PDU kinds (RS_PDU_*, proto/pdu.h) of which the first SEND a
	 * pair offers must hold one for recognize to look at the pair (its
	 * hook answers RS_RECOG_NO to any other first SEND, unless forced):
	 * a pair whose first SEND holds none of the hooks' kinds is refused
	 * without a queue state made for it, so that a flood of queues costs
	 * no more than their half-flows. */
	uint32_t recog_pdus;
	/* The PDU kinds of SENDs that may come before the one that opens the
	 * look (a message begun before the capture, a credit grant): a pair
	 * whose first SENDs hold one of them is not refused for this module,
	 * and the look opens, for the modules that wait alone, at its first
	 * SEND with a recog_pdus kind. */
	uint32_t recog_wait;
	/* The text summary's section (as report/), written once after the
	 * connections and latency sections, for every connection at once. */
	void (*text)(FILE *out, const struct rs_view *v);
	/* --brief's line (as report/): b filled for every connection of the
	 * module at once; false: the module has none. */
	bool (*brief)(const struct rs_view *v, struct rs_proto_brief *b);
	/* The module's members of one connection's JSON object (after its
	 * other members); called for connections of the module's rows. */
	void (*json_conn)(struct rs_json *j, const struct rs_conn *c);
	/* The per-frame views (as views/), for a frame of a connection of the
	 * module's rows, from the ulp_* fields of its struct rs_verdict
	 * (analyzer/analyzer.h) that queue_frame set:
	 *   op_name  the name of ulp_op ("READ(10)"), in buf; "" if none
	 *            (--fields --verdicts' ulp_op column: no comma in it);
	 *   note     what the frame is to its task, one sentence into buf
	 *            (--annotate's comment, the walkthrough); false: nothing;
	 *   walk     its lines of the -V walkthrough, after the frame's. */
	const char *(*op_name)(uint16_t op, char *buf, size_t len);
	bool (*note)(const struct rs_verdict *v, const struct rs_frame *f, char *buf, size_t len);
	void (*walk)(struct walk *w);
};

struct rs_proto {
	const char *name;        /* for humans and the JSON "ulp": "NVMe-oF"; "" for the user's row */
	const char *word;        /* the --fields "ulp" column: "nvme-of" */
	uint16_t ports[RS_PROTO_PORTS];          /* IANA (or conventional) RDMA CM ports; 0 ends */
	const char *prefixes[RS_PROTO_PREFIXES]; /* --ulp PORT=NAME: a NAME starting so (any case) picks the row */
	const struct rs_proto_hooks *hooks;      /* NULL: a name only */
	/* What the protocol calls the RDMA CM client's and server's sides
	 * ("host", "target"); NULL: "client", "server". */
	const char *roles[2];
};

/* The rows (modules.c); row 0 is no protocol, the last the user's own. */
extern const struct rs_proto rs_protos[];
extern const unsigned rs_nprotos;
#define RS_PROTOS_MAX 16 /* rows rs_protos[] may have (modules.c asserts it) */

/* The row an RDMA CM port names; 0 if none. */
unsigned rs_proto_of_port(uint16_t port);
/* The row a --ulp NAME picks by its prefix; rs_proto_user() if none. */
unsigned rs_proto_of_user_name(const char *name);
/* The row of names given with --ulp that pick no module. */
unsigned rs_proto_user(void);
/* A row's name; "" for 0 or a row out of range. */
const char *rs_proto_name(unsigned id);
/* The modules' --brief lines, in the table's order, once per module: the
 * first max in out[]; returns how many modules have one. */
unsigned rs_proto_briefs(const struct rs_view *v, struct rs_proto_brief *out, unsigned max);
/* Whether row i is its module's first (a module's hooks serve several
 * rows: each module once). */
bool rs_proto_first_row(unsigned i);
/* A row's hooks (never NULL: a table of NULL hooks for a row without). */
const struct rs_proto_hooks *rs_proto_hooks(unsigned id);

#endif
