/*
 * nfs4_dissect.c — the operations of an NFSv4 COMPOUND call or reply
 * (RFC 7530 16-17 for 4.0, RFC 8881 18 for 4.1, RFC 7862 15 for 4.2).
 *
 * COMPOUND4args: tag (utf8str_cs) | minorversion | argarray<>: each an
 *   operation number and its arguments
 * COMPOUND4res: status | tag | resarray<>: each an operation number, its
 *   nfsstat4 and, for most operations only when that is NFS4_OK, its
 *   results; the server stops at the first operation that fails.
 * XDR has no lengths around an operation's arguments or results, so the
 * next operation is found only by reading the one before it: each known
 * operation's layout is skipped here; at the first one not known the list
 * stops (UNSUPPORTED, ops_partial) with the operations before it valid.
 *
 * Data moved by RDMA: a WRITE's data in a read chunk, and a READ's in a
 * write chunk, are not in the inline message; their length words are
 * (RFC 8166 3.5.3 / 3.5.4: a read chunk's position is the XDR offset
 * where its data would begin).
 */
#include "proto/nfsrdma/xdr_dissect.h"

#define NFS4_OK 0
#define NFS4ERR_DENIED 10010
#define NFS4ERR_CLID_INUSE 10017
#define OPAQUE_ANY UINT32_MAX

enum {
	OP_ACCESS = 3, OP_CLOSE, OP_COMMIT, OP_CREATE, OP_DELEGPURGE, OP_DELEGRETURN, OP_GETATTR, OP_GETFH,
	OP_LINK, OP_LOCK, OP_LOCKT, OP_LOCKU, OP_LOOKUP, OP_LOOKUPP, OP_NVERIFY, OP_OPEN, OP_OPENATTR,
	OP_OPEN_CONFIRM, OP_OPEN_DOWNGRADE, OP_PUTFH, OP_PUTPUBFH, OP_PUTROOTFH, OP_READ, OP_READDIR,
	OP_READLINK, OP_REMOVE, OP_RENAME, OP_RENEW, OP_RESTOREFH, OP_SAVEFH, OP_SECINFO, OP_SETATTR,
	OP_SETCLIENTID, OP_SETCLIENTID_CONFIRM, OP_VERIFY, OP_WRITE, OP_RELEASE_LOCKOWNER,
	OP_BACKCHANNEL_CTL, OP_BIND_CONN_TO_SESSION, OP_EXCHANGE_ID, OP_CREATE_SESSION, OP_DESTROY_SESSION,
	OP_FREE_STATEID, OP_GET_DIR_DELEGATION, OP_GETDEVICEINFO, OP_GETDEVICELIST, OP_LAYOUTCOMMIT,
	OP_LAYOUTGET, OP_LAYOUTRETURN, OP_SECINFO_NO_NAME, OP_SEQUENCE, OP_SET_SSV, OP_TEST_STATEID,
	OP_WANT_DELEGATION, OP_DESTROY_CLIENTID, OP_RECLAIM_COMPLETE, OP_ALLOCATE, OP_COPY, OP_COPY_NOTIFY,
	OP_DEALLOCATE, OP_IO_ADVISE, OP_LAYOUTERROR, OP_LAYOUTSTATS, OP_OFFLOAD_CANCEL, OP_OFFLOAD_STATUS,
	OP_READ_PLUS, OP_SEEK, OP_WRITE_SAME, OP_CLONE,
	OP_ILLEGAL = 10044,
};

static void bitmap(struct rs_xdr *x)
{
	rs_xdr_array(x, 4, "a bitmap's word count says more than the message holds");
}

static void fattr(struct rs_xdr *x)
{
	bitmap(x);
	rs_xdr_opaque(x, OPAQUE_ANY);
}

static void owner(struct rs_xdr *x) /* open_owner4, lock_owner4, client_owner4's verifier aside */
{
	rs_xdr_skip(x, 8);
	rs_xdr_opaque(x, 1024);
}

static void impl_id(struct rs_xdr *x) /* nfs_impl_id4<1> */
{
	uint32_t n = rs_xdr_u32(x);
	if (n > 1)
		rs_xdr_fail(x, RS_RPCRDMA_MALFORMED, "more than one nfs_impl_id4");
	else if (n == 1) {
		rs_xdr_opaque(x, OPAQUE_ANY);
		rs_xdr_opaque(x, OPAQUE_ANY);
		rs_xdr_skip(x, 12);
	}
}

static void channel_attrs(struct rs_xdr *x)
{
	rs_xdr_skip(x, 24);
	if (rs_xdr_array(x, 4, "a channel's rdma_ird count says more than the message holds") > 1)
		rs_xdr_fail(x, RS_RPCRDMA_MALFORMED, "a channel with more than one rdma_ird");
}

static void ace(struct rs_xdr *x)
{
	rs_xdr_skip(x, 12);
	rs_xdr_opaque(x, OPAQUE_ANY);
}

/* state_protect4_a / state_protect4_r (RFC 8881 18.35): NONE, MACH_CRED,
 * SSV; false if SSV's layout (not decoded) or another value. */
static bool state_protect(struct rs_xdr *x, bool args)
{
	uint32_t how = rs_xdr_u32(x);
	if (how == 0)
		return true;
	if (how == 1) {
		bitmap(x);
		bitmap(x);
		return true;
	}
	if (how == 2 && args) {
		bitmap(x);
		bitmap(x);
		uint32_t n = rs_xdr_u32(x);
		for (uint32_t i = 0; i < n && rs_xdr_ok(x); i++)
			rs_xdr_opaque(x, OPAQUE_ANY);
		rs_xdr_skip(x, 8);
		return true;
	}
	return false;
}

static bool callback_sec(struct rs_xdr *x)
{
	uint32_t n = rs_xdr_u32(x);
	for (uint32_t i = 0; i < n && rs_xdr_ok(x); i++) {
		uint32_t flavor = rs_xdr_u32(x);
		if (flavor == 1) {              /* AUTH_SYS: authsys_parms */
			rs_xdr_skip(x, 4);
			rs_xdr_opaque(x, 255);
			rs_xdr_skip(x, 8);
			rs_xdr_array(x, 4, "an authsys_parms gids count says more than the message holds");
		} else if (flavor == 6) {       /* RPCSEC_GSS: gss_cb_handles4 */
			rs_xdr_skip(x, 4);
			rs_xdr_opaque(x, OPAQUE_ANY);
			rs_xdr_opaque(x, OPAQUE_ANY);
		} else if (flavor != 0) {
			return false;
		}
	}
	return true;
}

/* OPEN4args after seqid, share_access, share_deny, owner. */
static bool open_args(struct rs_xdr *x)
{
	rs_xdr_skip(x, 12);
	owner(x);
	if (rs_xdr_u32(x) == 1) {                      /* OPEN4_CREATE: createhow4 */
		uint32_t mode = rs_xdr_u32(x);
		if (mode == 0 || mode == 1)
			fattr(x);
		else if (mode == 2)
			rs_xdr_skip(x, 8);
		else if (mode == 3) {
			rs_xdr_skip(x, 8);
			fattr(x);
		} else
			return false;
	}
	switch (rs_xdr_u32(x)) {                       /* open_claim4 */
	case 0: case 3: rs_xdr_opaque(x, OPAQUE_ANY); return true;    /* NULL, DELEGATE_PREV: a name */
	case 1: rs_xdr_skip(x, 4); return true;                       /* PREVIOUS: delegation type */
	case 2: rs_xdr_skip(x, 16); rs_xdr_opaque(x, OPAQUE_ANY); return true; /* DELEGATE_CUR */
	case 4: case 6: return true;                                  /* FH, DELEG_PREV_FH */
	case 5: rs_xdr_skip(x, 16); return true;                      /* DELEG_CUR_FH */
	default: return false;
	}
}

/* A WRITE's data: inline, or in the read chunk at this XDR position. */
static void write_data(struct rs_xdr *x, uint32_t rpc_start, const struct rs_rpcrdma *r)
{
	uint32_t len = rs_xdr_u32(x);
	uint32_t pos = x->c->off - rpc_start;
	for (unsigned i = 0; i < r->nsegs; i++)
		if (r->segs[i].list == RS_RDMA_READ_LIST && r->segs[i].position == pos)
			return;
	rs_xdr_skip(x, rs_xdr_pad(len));
}

static bool args(struct rs_xdr *x, uint32_t op, uint32_t rpc_start, const struct rs_rpcrdma *r)
{
	switch (op) {
	case OP_GETFH: case OP_LOOKUPP: case OP_PUTPUBFH: case OP_PUTROOTFH: case OP_READLINK:
	case OP_RESTOREFH: case OP_SAVEFH:
		return true;
	case OP_ACCESS: case OP_OPENATTR: case OP_SECINFO_NO_NAME: case OP_RECLAIM_COMPLETE:
		rs_xdr_skip(x, 4); return true;
	case OP_DELEGPURGE: case OP_RENEW: case OP_DESTROY_CLIENTID:
		rs_xdr_skip(x, 8); return true;
	case OP_COMMIT: rs_xdr_skip(x, 12); return true;
	case OP_DELEGRETURN: case OP_DESTROY_SESSION: case OP_FREE_STATEID:
		rs_xdr_skip(x, 16); return true;
	case OP_CLOSE: case OP_OPEN_CONFIRM: rs_xdr_skip(x, 20); return true;
	case OP_BIND_CONN_TO_SESSION: rs_xdr_skip(x, 24); return true;
	case OP_OPEN_DOWNGRADE: case OP_READ: case OP_SEEK: rs_xdr_skip(x, 28); return true;
	case OP_SEQUENCE: case OP_ALLOCATE: case OP_DEALLOCATE: rs_xdr_skip(x, 32); return true;
	case OP_GETATTR: bitmap(x); return true;
	case OP_NVERIFY: case OP_VERIFY: fattr(x); return true;
	case OP_SETATTR: rs_xdr_skip(x, 16); fattr(x); return true;
	case OP_PUTFH: rs_xdr_opaque(x, 128); return true;
	case OP_LINK: case OP_LOOKUP: case OP_REMOVE: case OP_SECINFO:
		rs_xdr_opaque(x, OPAQUE_ANY); return true;
	case OP_RENAME: rs_xdr_opaque(x, OPAQUE_ANY); rs_xdr_opaque(x, OPAQUE_ANY); return true;
	case OP_CREATE: {
		uint32_t type = rs_xdr_u32(x);
		if (type == 5)                  /* NF4LNK: the link's target */
			rs_xdr_opaque(x, OPAQUE_ANY);
		else if (type == 3 || type == 4) /* NF4BLK, NF4CHR: specdata4 */
			rs_xdr_skip(x, 8);
		rs_xdr_opaque(x, OPAQUE_ANY);
		fattr(x);
		return true;
	}
	case OP_OPEN: return open_args(x);
	case OP_READDIR: rs_xdr_skip(x, 24); bitmap(x); return true;
	case OP_WRITE: rs_xdr_skip(x, 28); write_data(x, rpc_start, r); return true;
	case OP_LOCK:
		rs_xdr_skip(x, 24);
		if (rs_xdr_u32(x)) {            /* open_to_lock_owner4 */
			rs_xdr_skip(x, 24);
			owner(x);
		} else {
			rs_xdr_skip(x, 20);
		}
		return true;
	case OP_LOCKT: rs_xdr_skip(x, 20); owner(x); return true;
	case OP_LOCKU: rs_xdr_skip(x, 40); return true;
	case OP_RELEASE_LOCKOWNER: owner(x); return true;
	case OP_SETCLIENTID:
		owner(x);                       /* nfs_client_id4: verifier, id */
		rs_xdr_skip(x, 4);
		rs_xdr_opaque(x, OPAQUE_ANY);   /* netaddr4 */
		rs_xdr_opaque(x, OPAQUE_ANY);
		rs_xdr_skip(x, 4);
		return true;
	case OP_SETCLIENTID_CONFIRM: rs_xdr_skip(x, 16); return true;
	case OP_EXCHANGE_ID:
		owner(x);                       /* client_owner4: verifier, owner id */
		rs_xdr_skip(x, 4);
		if (!state_protect(x, true))
			return false;
		impl_id(x);
		return true;
	case OP_CREATE_SESSION:
		rs_xdr_skip(x, 16);
		channel_attrs(x);
		channel_attrs(x);
		rs_xdr_skip(x, 4);
		return callback_sec(x);
	case OP_TEST_STATEID: rs_xdr_array(x, 16, "TEST_STATEID's count says more than the message holds"); return true;
	default:
		return false;
	}
}

static bool open_res(struct rs_xdr *x)
{
	rs_xdr_skip(x, 40);             /* stateid, change_info4, rflags */
	bitmap(x);
	switch (rs_xdr_u32(x)) {        /* open_delegation4 */
	case 0: return true;
	case 1: rs_xdr_skip(x, 20); ace(x); return true;
	case 2: {
		rs_xdr_skip(x, 20);
		uint32_t limitby = rs_xdr_u32(x);
		if (limitby != 1 && limitby != 2)
			return false;
		rs_xdr_skip(x, 8);
		ace(x);
		return true;
	}
	case 3: {
		uint32_t why = rs_xdr_u32(x);
		if (why == 1 || why == 2)
			rs_xdr_skip(x, 4);
		return true;
	}
	default: return false;
	}
}

static bool readdir_res(struct rs_xdr *x)
{
	rs_xdr_skip(x, 8);
	while (rs_xdr_ok(x) && rs_xdr_u32(x)) { /* entry4 follows */
		rs_xdr_skip(x, 8);
		rs_xdr_opaque(x, OPAQUE_ANY);
		fattr(x);
	}
	rs_xdr_skip(x, 4);              /* eof */
	return true;
}

static bool secinfo_res(struct rs_xdr *x)
{
	uint32_t n = rs_xdr_u32(x);
	for (uint32_t i = 0; i < n && rs_xdr_ok(x); i++)
		if (rs_xdr_u32(x) == 6) {
			rs_xdr_opaque(x, OPAQUE_ANY);
			rs_xdr_skip(x, 8);
		}
	return true;
}

/* The results of an operation whose status is NFS4_OK. */
static bool results(struct rs_xdr *x, uint32_t op, const struct rs_rpcrdma *r)
{
	switch (op) {
	case OP_DELEGPURGE: case OP_DELEGRETURN: case OP_LOOKUP: case OP_LOOKUPP: case OP_NVERIFY:
	case OP_OPENATTR: case OP_PUTFH: case OP_PUTPUBFH: case OP_PUTROOTFH: case OP_RENEW:
	case OP_RESTOREFH: case OP_SAVEFH: case OP_SETCLIENTID_CONFIRM: case OP_VERIFY:
	case OP_RELEASE_LOCKOWNER: case OP_DESTROY_SESSION: case OP_FREE_STATEID:
	case OP_DESTROY_CLIENTID: case OP_RECLAIM_COMPLETE: case OP_LOCKT: case OP_ALLOCATE:
	case OP_DEALLOCATE: case OP_ILLEGAL:
		return true;
	case OP_ACCESS: case OP_COMMIT: rs_xdr_skip(x, 8); return true;
	case OP_SEEK: rs_xdr_skip(x, 12); return true;
	case OP_CLOSE: case OP_LOCK: case OP_LOCKU: case OP_OPEN_CONFIRM: case OP_OPEN_DOWNGRADE:
	case OP_SETCLIENTID: case OP_WRITE:
		rs_xdr_skip(x, 16); return true;
	case OP_LINK: case OP_REMOVE: rs_xdr_skip(x, 20); return true;
	case OP_BIND_CONN_TO_SESSION: rs_xdr_skip(x, 24); return true;
	case OP_SEQUENCE: rs_xdr_skip(x, 36); return true;
	case OP_RENAME: rs_xdr_skip(x, 40); return true;
	case OP_CREATE: rs_xdr_skip(x, 20); bitmap(x); return true;
	case OP_GETATTR: fattr(x); return true;
	case OP_GETFH: rs_xdr_opaque(x, 128); return true;
	case OP_READLINK: rs_xdr_opaque(x, OPAQUE_ANY); return true;
	case OP_READ: {
		rs_xdr_skip(x, 4);
		uint32_t len = rs_xdr_u32(x);
		if (r->n_write_chunks == 0) /* else the data went by RDMA WRITE */
			rs_xdr_skip(x, rs_xdr_pad(len));
		return true;
	}
	case OP_OPEN: return open_res(x);
	case OP_READDIR: return readdir_res(x);
	case OP_SECINFO: case OP_SECINFO_NO_NAME: return secinfo_res(x);
	case OP_TEST_STATEID: rs_xdr_array(x, 4, "TEST_STATEID's count says more than the message holds"); return true;
	case OP_EXCHANGE_ID:
		rs_xdr_skip(x, 16);
		if (!state_protect(x, false))
			return false;
		rs_xdr_skip(x, 8);          /* server_owner4 */
		rs_xdr_opaque(x, 1024);
		rs_xdr_opaque(x, 1024);     /* server_scope */
		impl_id(x);
		return true;
	case OP_CREATE_SESSION:
		rs_xdr_skip(x, 24);
		channel_attrs(x);
		channel_attrs(x);
		return true;
	default:
		return false;
	}
}

/* The results of an operation that failed: only the status, except where
 * the RFCs say more comes. */
static bool failed_results(struct rs_xdr *x, uint32_t op, uint32_t status)
{
	if (op == OP_SETATTR) {
		bitmap(x);
		return true;
	}
	if ((op == OP_LOCK || op == OP_LOCKT) && status == NFS4ERR_DENIED) {
		rs_xdr_skip(x, 20);
		owner(x);
		return true;
	}
	if (op == OP_SETCLIENTID && status == NFS4ERR_CLID_INUSE) {
		rs_xdr_opaque(x, OPAQUE_ANY);
		rs_xdr_opaque(x, OPAQUE_ANY);
		return true;
	}
	return true;
}

void rs_nfs4_compound(struct rs_xdr *x, uint32_t rpc_start, const struct rs_rpc_hint *hint, struct rs_rpcrdma *r)
{
	struct rs_onc_rpc *m = &r->rpc;
	bool reply = hint != NULL;
	if (reply) {
		m->status = rs_xdr_u32(x);
		m->have_status = rs_xdr_ok(x);
	}
	m->tag_len = rs_xdr_opaque(x, OPAQUE_ANY);
	if (!reply)
		m->minorversion = rs_xdr_u32(x);
	m->nops = rs_xdr_u32(x);
	if (!rs_xdr_ok(x))
		return;
	/* Each operation takes at least its number (and a reply's status). */
	if ((uint64_t)m->nops * (reply ? 8 : 4) > x->end - x->c->off) {
		rs_xdr_too_long(x, "a COMPOUND's operation count says more than the message holds");
		return;
	}
	for (uint32_t i = 0; i < m->nops && rs_xdr_ok(x); i++) {
		uint32_t op = rs_xdr_u32(x);
		uint32_t st = reply ? rs_xdr_u32(x) : 0;
		if (!rs_xdr_ok(x))
			return;
		if (m->ops_read < RS_NFS4_MAX_OPS) {
			m->ops[m->ops_read] = op;
			m->op_status[m->ops_read] = st;
			m->ops_read++;
		}
		bool known;
		if (!reply)
			known = args(x, op, rpc_start, r);
		else if (st == NFS4_OK)
			known = results(x, op, r);
		else
			known = failed_results(x, op, st);
		if (!known) {
			m->ops_partial = i + 1 < m->nops;
			rs_xdr_fail(x, RS_RPCRDMA_UNSUPPORTED, reply ? "an NFSv4 operation whose results are not decoded"
							     : "an NFSv4 operation whose arguments are not decoded");
			return;
		}
	}
}

const char *rs_nfs4_op_name(uint32_t op)
{
	static const char *const names[] = {
		[OP_ACCESS] = "ACCESS", [OP_CLOSE] = "CLOSE", [OP_COMMIT] = "COMMIT", [OP_CREATE] = "CREATE",
		[OP_DELEGPURGE] = "DELEGPURGE", [OP_DELEGRETURN] = "DELEGRETURN", [OP_GETATTR] = "GETATTR",
		[OP_GETFH] = "GETFH", [OP_LINK] = "LINK", [OP_LOCK] = "LOCK", [OP_LOCKT] = "LOCKT",
		[OP_LOCKU] = "LOCKU", [OP_LOOKUP] = "LOOKUP", [OP_LOOKUPP] = "LOOKUPP", [OP_NVERIFY] = "NVERIFY",
		[OP_OPEN] = "OPEN", [OP_OPENATTR] = "OPENATTR", [OP_OPEN_CONFIRM] = "OPEN_CONFIRM",
		[OP_OPEN_DOWNGRADE] = "OPEN_DOWNGRADE", [OP_PUTFH] = "PUTFH", [OP_PUTPUBFH] = "PUTPUBFH",
		[OP_PUTROOTFH] = "PUTROOTFH", [OP_READ] = "READ", [OP_READDIR] = "READDIR",
		[OP_READLINK] = "READLINK", [OP_REMOVE] = "REMOVE", [OP_RENAME] = "RENAME", [OP_RENEW] = "RENEW",
		[OP_RESTOREFH] = "RESTOREFH", [OP_SAVEFH] = "SAVEFH", [OP_SECINFO] = "SECINFO",
		[OP_SETATTR] = "SETATTR", [OP_SETCLIENTID] = "SETCLIENTID",
		[OP_SETCLIENTID_CONFIRM] = "SETCLIENTID_CONFIRM", [OP_VERIFY] = "VERIFY", [OP_WRITE] = "WRITE",
		[OP_RELEASE_LOCKOWNER] = "RELEASE_LOCKOWNER", [OP_BACKCHANNEL_CTL] = "BACKCHANNEL_CTL",
		[OP_BIND_CONN_TO_SESSION] = "BIND_CONN_TO_SESSION", [OP_EXCHANGE_ID] = "EXCHANGE_ID",
		[OP_CREATE_SESSION] = "CREATE_SESSION", [OP_DESTROY_SESSION] = "DESTROY_SESSION",
		[OP_FREE_STATEID] = "FREE_STATEID", [OP_GET_DIR_DELEGATION] = "GET_DIR_DELEGATION",
		[OP_GETDEVICEINFO] = "GETDEVICEINFO", [OP_GETDEVICELIST] = "GETDEVICELIST",
		[OP_LAYOUTCOMMIT] = "LAYOUTCOMMIT", [OP_LAYOUTGET] = "LAYOUTGET", [OP_LAYOUTRETURN] = "LAYOUTRETURN",
		[OP_SECINFO_NO_NAME] = "SECINFO_NO_NAME", [OP_SEQUENCE] = "SEQUENCE", [OP_SET_SSV] = "SET_SSV",
		[OP_TEST_STATEID] = "TEST_STATEID", [OP_WANT_DELEGATION] = "WANT_DELEGATION",
		[OP_DESTROY_CLIENTID] = "DESTROY_CLIENTID", [OP_RECLAIM_COMPLETE] = "RECLAIM_COMPLETE",
		[OP_ALLOCATE] = "ALLOCATE", [OP_COPY] = "COPY", [OP_COPY_NOTIFY] = "COPY_NOTIFY",
		[OP_DEALLOCATE] = "DEALLOCATE", [OP_IO_ADVISE] = "IO_ADVISE", [OP_LAYOUTERROR] = "LAYOUTERROR",
		[OP_LAYOUTSTATS] = "LAYOUTSTATS", [OP_OFFLOAD_CANCEL] = "OFFLOAD_CANCEL",
		[OP_OFFLOAD_STATUS] = "OFFLOAD_STATUS", [OP_READ_PLUS] = "READ_PLUS", [OP_SEEK] = "SEEK",
		[OP_WRITE_SAME] = "WRITE_SAME", [OP_CLONE] = "CLONE",
	};
	if (op == OP_ILLEGAL)
		return "ILLEGAL";
	return op < sizeof names / sizeof names[0] && names[op] ? names[op] : "";
}

const char *rs_nfs4_status_name(uint32_t s)
{
	switch (s) {
	case 0: return "NFS4_OK";
	case 1: return "NFS4ERR_PERM";
	case 2: return "NFS4ERR_NOENT";
	case 5: return "NFS4ERR_IO";
	case 13: return "NFS4ERR_ACCESS";
	case 17: return "NFS4ERR_EXIST";
	case 20: return "NFS4ERR_NOTDIR";
	case 21: return "NFS4ERR_ISDIR";
	case 22: return "NFS4ERR_INVAL";
	case 28: return "NFS4ERR_NOSPC";
	case 30: return "NFS4ERR_ROFS";
	case 66: return "NFS4ERR_NOTEMPTY";
	case 70: return "NFS4ERR_STALE";
	case 10001: return "NFS4ERR_BADHANDLE";
	case 10004: return "NFS4ERR_NOTSUPP";
	case 10008: return "NFS4ERR_DELAY";
	case 10010: return "NFS4ERR_DENIED";
	case 10011: return "NFS4ERR_EXPIRED";
	case 10013: return "NFS4ERR_GRACE";
	case 10017: return "NFS4ERR_CLID_INUSE";
	case 10022: return "NFS4ERR_STALE_CLIENTID";
	case 10025: return "NFS4ERR_BAD_STATEID";
	case 10026: return "NFS4ERR_BAD_SEQID";
	case 10044: return "NFS4ERR_OP_ILLEGAL";
	case 10052: return "NFS4ERR_BADSESSION";
	case 10053: return "NFS4ERR_BADSLOT";
	case 10063: return "NFS4ERR_SEQ_MISORDERED";
	case 10068: return "NFS4ERR_SEQ_FALSE_RETRY";
	default: return "";
	}
}
