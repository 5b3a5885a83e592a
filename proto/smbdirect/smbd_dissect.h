/*
 * smbd_dissect.h — SMB Direct (MS-SMBD 2.2) and the SMB2 header inside it
 * (MS-SMB2 2.2.1), with the RDMA channel of SMB2 READ and WRITE requests
 * (SMB_DIRECT_BUFFER_DESCRIPTOR_V1, MS-SMBD 2.2.3.1).
 *
 * An SMB Direct connection starts with one negotiate request (the active
 * side's first SEND) and one negotiate response (the passive side's); every
 * SEND after that is a data transfer message. An SMB2 message longer than
 * the peer's MaxReceiveSize is split over several data transfer messages:
 * each says how many bytes of the message follow it (RemainingDataLength),
 * and only the first holds the SMB2 header. The message kind and whether a
 * data transfer message continues an earlier one are the caller's
 * knowledge (the connection's history), so the caller says them.
 *
 * READ and WRITE over the RDMA channel carry buffer descriptors (address,
 * token, length): the server moves the data with RDMA WRITE (READ) or
 * RDMA READ (WRITE) using the token as R_Key.
 *
 * Pure: no allocation, no globals, no printing; every read through
 * dissect/cursor.h.
 */
#ifndef RS_PROTO_SMBD_DISSECT_H
#define RS_PROTO_SMBD_DISSECT_H

#include <stdbool.h>
#include <stdint.h>

#include "dissect/cursor.h"

#define RS_SMBD_NEG_REQ_LEN 20
#define RS_SMBD_NEG_RSP_LEN 32
#define RS_SMBD_DATA_HDR_LEN 20  /* without the padding up to DataOffset */
#define RS_SMBD_VERSION_1 0x0100
#define RS_SMB2_HDR_LEN 64
#define RS_SMBD_MAX_DESC 8       /* buffer descriptors kept; more are counted */

enum rs_smbd_outcome {
	RS_SMBD_NOT = 0,     /* not SMB Direct (too short on the wire for its header) */
	RS_SMBD_OK,
	RS_SMBD_TRUNCATED,   /* the capture stopped inside what was decoded: fields past it read 0 */
	RS_SMBD_MALFORMED,   /* a length, offset or count contradicts the message */
	RS_SMBD_UNSUPPORTED, /* a version, SMB2 command, channel or protocol this decoder does not read */
	RS_SMBD_CONTINUED,   /* a fragment: the SMB2 message goes on in later data transfer
	                      * messages, or this one continues an earlier message */
	RS_SMBD__OUTCOMES
};

enum rs_smbd_kind {
	RS_SMBD_ANY = 0,     /* guess by shape (lengths 20 and 32, version 1.0) */
	RS_SMBD_NEG_REQ,
	RS_SMBD_NEG_RSP,
	RS_SMBD_DATA,
};

#define RS_SMBD_RESPONSE_REQUESTED 0x0001

enum rs_smb2_cmd {
	RS_SMB2_NEGOTIATE = 0, RS_SMB2_SESSION_SETUP, RS_SMB2_LOGOFF, RS_SMB2_TREE_CONNECT, RS_SMB2_TREE_DISCONNECT,
	RS_SMB2_CREATE, RS_SMB2_CLOSE, RS_SMB2_FLUSH, RS_SMB2_READ, RS_SMB2_WRITE, RS_SMB2_LOCK, RS_SMB2_IOCTL,
	RS_SMB2_CANCEL, RS_SMB2_ECHO, RS_SMB2_QUERY_DIRECTORY, RS_SMB2_CHANGE_NOTIFY, RS_SMB2_QUERY_INFO,
	RS_SMB2_SET_INFO, RS_SMB2_OPLOCK_BREAK, RS_SMB2__CMDS
};

#define RS_SMB2_FLAG_RESPONSE 0x00000001
#define RS_SMB2_FLAG_ASYNC 0x00000002
#define RS_SMB2_FLAG_RELATED 0x00000004
#define RS_SMB2_FLAG_SIGNED 0x00000008

enum rs_smb2_channel {
	RS_SMB2_CHANNEL_NONE = 0, RS_SMB2_CHANNEL_RDMA_V1 = 1, RS_SMB2_CHANNEL_RDMA_V1_INVALIDATE = 2,
	RS_SMB2_CHANNEL_RDMA_TRANSFORM = 3,
};

#define RS_NT_STATUS_SUCCESS 0x00000000u
#define RS_NT_STATUS_PENDING 0x00000103u
#define RS_NT_STATUS_MORE_PROCESSING_REQUIRED 0xC0000016u

struct rs_smbd_desc {
	uint64_t offset;  /* the buffer's address */
	uint32_t token;   /* the R_Key the peer uses */
	uint32_t length;
};

struct rs_smb2 {
	bool response, async;
	uint16_t credit_charge;
	uint32_t status;        /* a request's ChannelSequence/Reserved read as one field */
	uint16_t command;       /* enum rs_smb2_cmd */
	uint16_t credits;       /* CreditRequest (request) / CreditResponse (response) */
	uint32_t flags, next_command;
	uint64_t message_id;
	uint64_t async_id;      /* async only */
	uint32_t pid, tree_id;  /* sync only */
	uint64_t session_id;
	/* body */
	bool has_body;          /* the fixed part of the body below was read */
	uint16_t body_size;     /* its StructureSize */
	uint16_t dialect;       /* NEGOTIATE response */
	/* READ / WRITE request */
	uint32_t length;        /* READ: bytes asked; WRITE: bytes inline */
	uint64_t file_offset;
	uint32_t min_count;     /* READ */
	uint32_t channel;       /* enum rs_smb2_channel */
	uint32_t remaining_bytes; /* WRITE over RDMA: the bytes the server reads */
	uint16_t chinfo_off, chinfo_len;
	uint8_t ndesc;          /* descriptors in desc[] */
	uint16_t desc_dropped;  /* beyond RS_SMBD_MAX_DESC */
	struct rs_smbd_desc desc[RS_SMBD_MAX_DESC];
	uint64_t desc_bytes;    /* every descriptor's length added up */
	/* READ / WRITE response */
	uint32_t data_offset, data_length, data_remaining; /* READ */
	uint32_t count, remaining;                         /* WRITE */
};

/* A header of a compound chain after the first (MS-SMB2 3.2.4.1.4), in
 * short: what the analysis pairs, times and ties to RDMA transfers. */
#define RS_SMBD_LINK_DESC 2
struct rs_smb2_link {
	bool response, async;
	uint16_t command, credits, credit_charge;
	uint32_t status, flags, next_command;
	uint64_t message_id, async_id, session_id;
	uint32_t tree_id;
	uint32_t channel, length, remaining_bytes; /* READ / WRITE request */
	uint8_t ndesc;
	uint16_t desc_dropped;
	struct rs_smbd_desc desc[RS_SMBD_LINK_DESC];
	uint64_t desc_bytes;
};

#define RS_SMBD_CHAIN 4       /* headers of a compound kept after the first; more are counted */
#define RS_SMBD_CHAIN_MAX 64  /* headers of one chain read at most (each at least 64 bytes) */

struct rs_smbd {
	uint8_t outcome;        /* enum rs_smbd_outcome */
	const char *why;        /* every outcome but OK: a static sentence */
	uint8_t kind;           /* enum rs_smbd_kind: what was decoded */
	/* negotiate request / response */
	uint16_t min_version, max_version, negotiated_version;
	uint16_t credits_requested, credits_granted;
	uint32_t status;        /* response */
	uint32_t max_read_write, preferred_send, max_receive, max_fragmented;
	/* data transfer message */
	uint16_t flags;
	uint16_t reserved;      /* MS-SMBD 2.2.3: the sender sets it to 0 */
	bool hdr_ok;            /* the data transfer header passed its checks (lengths, offset) */
	uint32_t remaining, data_offset, data_length;
	bool continuation;      /* the data continues an earlier SMB2 message */
	/* the SMB2 header at the start of the data */
	uint8_t smb2_id;        /* the protocol ID's first byte when 'SMB' follows it (0xFE SMB2, 0xFD
	                         * transform, 0xFC compressed, 0xFF SMB1); 0: no protocol ID */
	bool has_smb2;
	struct rs_smb2 smb2;    /* the first header (of a compound, the first of its chain) */
	uint8_t nchain;         /* later headers of the chain read whole, in chain[] */
	uint16_t chain_dropped; /* ... read past those RS_SMBD_CHAIN */
	bool chain_cut;         /* the chain goes on past this packet (a later one, or the capture's cut): not read */
	struct rs_smb2_link chain[RS_SMBD_CHAIN]; /* last: the decoder does not clear past nchain */
};

/*
 * Decode the payload of a SEND at `c` (captured bytes), `wire_len` bytes on
 * the wire. `whole`: the packet is the whole SEND (Only), so the lengths
 * the message claims must fit in it; otherwise (First) only the headers
 * need to. `expect`: the kind the connection's history says (RS_SMBD_ANY:
 * by shape). `continuation`: the previous data transfer message in this
 * direction left RemainingDataLength > 0, so this one's data is not an SMB2
 * header. Returns r->outcome; every outcome but NOT keeps the fields read
 * before the point it names valid.
 */
enum rs_smbd_outcome rs_smbd_decode(struct rs_cursor *c, uint32_t wire_len, bool whole, enum rs_smbd_kind expect,
				    bool continuation, struct rs_smbd *r);

/*
 * One direction's reassembly bookkeeping (the caller's, zeroed to start):
 * fed every data transfer message in order, it says whether the next one
 * continues a message, and catches a RemainingDataLength that does not go
 * down by the data each fragment carried, or a message longer than the
 * receiver's MaxFragmentedSize (0: no limit known).
 */
struct rs_smbd_frag {
	bool open;             /* a message is being reassembled */
	uint32_t expect_left;  /* the RemainingDataLength the next fragment must leave, plus its data */
	uint64_t total;        /* bytes so far */
	uint32_t fragments;
};

enum rs_smbd_frag_step {
	RS_SMBD_FRAG_WHOLE = 0, /* a message in one data transfer message */
	RS_SMBD_FRAG_START,     /* the first fragment of a longer one */
	RS_SMBD_FRAG_MORE,      /* a middle fragment */
	RS_SMBD_FRAG_DONE,      /* the last fragment: the message is complete */
	RS_SMBD_FRAG_LIED,      /* the counts do not add up: the message is dropped, the state reset */
	RS_SMBD_FRAG_TOO_LONG,  /* past MaxFragmentedSize: dropped, reset */
	RS_SMBD_FRAG_EMPTY,     /* no data (a credit grant or keep-alive); no change */
};

enum rs_smbd_frag_step rs_smbd_frag_feed(struct rs_smbd_frag *st, uint32_t remaining, uint32_t data_length,
					 uint32_t max_fragmented);

/* Names; never NULL ("" if unknown). */
const char *rs_smb2_cmd_name(uint16_t cmd);
const char *rs_smbd_outcome_name(enum rs_smbd_outcome o);
const char *rs_smbd_kind_name(enum rs_smbd_kind k);
/* An NT status by name ("STATUS_PENDING"); "" if not one this module names. */
const char *rs_nt_status_name(uint32_t status);

#endif
