/*
 * nfsrdma_text.c — the NFS/RDMA section of the text summary: per
 * connection, its RPC calls and replies, the kinds of call with the
 * highest latency (call SEND → reply SEND, as the capture saw them), the
 * slowest calls with their frames, the failed ones, and for each whether
 * the fabric re-sent packets of its messages or chunks. The whole lists
 * are in the JSON (nfsrdma_json.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "proto/nfsrdma/nfsrdma.h"
#include "proto/nfsrdma/nfsrdma_text.h"
#include "report/text.h"

#define KIND_ROWS 6      /* kinds listed per connection, highest p99 first */
#define SLOW_ROWS 3      /* slowest calls listed */
#define NAME_COL 24      /* at 80 columns; wider, up to NAME_COL_MAX */
#define NAME_COL_MAX 48

/* The kind column's width: what the line's other columns leave. */
static int name_col(const struct rs_view *v)
{
	int w = v->o->width <= 0 ? NAME_COL_MAX : v->o->width - 56;
	return w < NAME_COL ? NAME_COL : w > NAME_COL_MAX ? NAME_COL_MAX : w;
}

static const char *nfsacl_proc(uint32_t p)
{
	static const char *const names[] = { "NULL", "GETACL", "SETACL" };
	return p < 3 ? names[p] : "";
}

const char *rs_nfs_kind_name(const struct rs_nfs_kind_id *id, char *buf, size_t len)
{
	const char *back = id->back ? "callback " : "";
	if (id->in_chunk) {
		snprintf(buf, len, "%scall in a read chunk", back);
		return buf;
	}
	if (id->prog == RS_RPC_PROG_NFS && id->vers == 4 && id->proc == RS_NFS4_COMPOUND) {
		size_t o = (size_t)snprintf(buf, len, "%s", back);
		for (unsigned i = 0; i < id->nops && o < len; i++) {
			const char *n = rs_nfs4_op_name(id->ops[i]);
			if (*n)
				o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? " " : "", n);
			else
				o += (size_t)snprintf(buf + o, len - o, "%sop %u", i ? " " : "", id->ops[i]);
		}
		if (!id->nops && o < len)
			o += (size_t)snprintf(buf + o, len - o, "COMPOUND");
		if (id->ops_more && o < len)
			snprintf(buf + o, len - o, " …");
		return buf;
	}
	const char *p = "";
	if (id->prog == RS_RPC_PROG_NFS && (id->vers == 2 || id->vers == 3))
		p = rs_nfs3_proc_name(id->proc);
	else if (id->prog == RS_RPC_PROG_NFS && id->proc == 0)
		p = "NULL";
	if (*p)
		snprintf(buf, len, "%sNFSv%u %s", back, id->vers, p);
	else if (id->prog == 100227 && *nfsacl_proc(id->proc))
		snprintf(buf, len, "%sNFS_ACL %s", back, nfsacl_proc(id->proc));
	else
		snprintf(buf, len, "%sprogram %u v%u proc %u", back, id->prog, id->vers, id->proc);
	return buf;
}

const char *rs_nfs_err_name(const struct rs_nfs_info *q, const struct rs_nfs_err_info *e, char *buf, size_t len)
{
	static const char *const denied[] = { "RPC_MISMATCH", "AUTH_ERROR" };
	static const char *const rdma[] = { "", "ERR_VERS", "ERR_CHUNK" };
	const char *n = "";
	if (e->what == RS_NFS_ERR_NFS) {
		const struct rs_nfs_kind_id *id = e->call.kind >= 0 ? &q->kinds[e->call.kind].id : NULL;
		n = id && id->vers == 4 ? rs_nfs4_status_name(e->stat) : rs_nfs3_status_name(e->stat);
	} else if (e->what == RS_NFS_ERR_ACCEPT) {
		n = rs_rpc_accept_stat_name(e->stat);
	} else if (e->what == RS_NFS_ERR_DENIED) {
		n = e->stat < 2 ? denied[e->stat] : "";
	} else {
		n = e->stat < 3 ? rdma[e->stat] : "";
	}
	if (*n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "status %u", e->stat);
	return buf;
}

static const char *kind_name(const struct rs_nfs_info *q, int16_t k, char *buf, size_t len)
{
	if (k < 0) {
		snprintf(buf, len, "a call of a further kind");
		return buf;
	}
	return rs_nfs_kind_name(&q->kinds[k].id, buf, len);
}

static void conn_head(FILE *out, const struct rs_view *v, const struct rs_conn *conn, const struct rs_nfs_info *q)
{
	struct rs_conn_info ci;
	rs_conn_get_info(conn, &ci);
	char cl[160], sv[160], line[900], b[3][16], rb[16], wb[16], un[64] = "", title[48], svc[200];
	snprintf(line, sizeof line, "%s, %s: client %s QP 0x%x → server %s QP 0x%x", rs_conn_title(conn, title, sizeof title),
		 rs_conn_service(conn, svc, sizeof svc), rs_fmt_addr(v->names, &ci.client, cl, sizeof cl), ci.client_qpn,
		 rs_fmt_addr(v->names, &ci.server, sv, sizeof sv), ci.server_qpn);
	rs_para(out, v->o->width, "  ", "    ", line);
	if (q->untied)
		snprintf(un, sizeof un, ", %" PRIu64 " with a handle no call lent", q->untied);
	snprintf(line, sizeof line,
		 "%" PRIu64 " calls, %" PRIu64 " answered (%" PRIu64 " failed), %s%" PRIu64 " never answered%s; %s%" PRIu64
		 " with packets the fabric re-sent%s. Chunks lent: read %" PRIu64 " (%s), write %" PRIu64 " (%s), reply %"
		 PRIu64 " (%s), moved by %" PRIu64 " RDMA READs (%s) and %" PRIu64 " WRITEs (%s)%s",
		 q->calls, q->replies, q->rpc_errors + q->nfs_errors, q->unanswered ? RED(v->o) : "", q->unanswered,
		 q->unanswered ? OFF(v->o) : "", q->resent_for ? RED(v->o) : "", q->resent_for,
		 q->resent_for ? OFF(v->o) : "", q->segs[0], rs_fmt_bytes(q->seg_bytes[0], b[0], sizeof b[0]), q->segs[1],
		 rs_fmt_bytes(q->seg_bytes[1], b[1], sizeof b[1]), q->segs[2], rs_fmt_bytes(q->seg_bytes[2], b[2], sizeof b[2]),
		 q->reads, rs_fmt_bytes(q->read_bytes, rb, sizeof rb), q->writes, rs_fmt_bytes(q->write_bytes, wb, sizeof wb),
		 un);
	rs_para(out, v->o->width, "    ", "    ", line);
	const struct rs_count_word odd[] = {
		{ q->unmatched, "replies to calls not seen," }, { q->xid_reused, "XIDs reused by a new call," },
		{ q->forgotten, "calls forgotten (too many waiting)," }, { q->again, "SENDs seen again (counted once)," },
		{ q->not_read, "replies whose status was not read (their reply chunk's first WRITE not seen, or cut)," }, { q->cut, "headers cut," },
		{ q->bad, "headers malformed," }, { q->other, "other SENDs," },
	};
	char words[600];
	rs_count_words(odd, G_N_ELEMENTS(odd), words, sizeof words);
	size_t n = strlen(words);
	if (strcmp(words, "-")) {
		if (n && words[n - 1] == ',')
			words[n - 1] = 0;
		rs_para(out, v->o->width, "    ", "    ", words);
	}
}

static const struct rs_nfs_info *sort_q;

static int by_p99(const void *pa, const void *pb)
{
	const struct rs_nfs_kind_info *a = &sort_q->kinds[*(const unsigned *)pa], *b = &sort_q->kinds[*(const unsigned *)pb];
	if (a->lat.p99 != b->lat.p99)
		return a->lat.p99 < b->lat.p99 ? 1 : -1;
	if (a->calls != b->calls)
		return a->calls < b->calls ? 1 : -1;
	return *(const unsigned *)pa < *(const unsigned *)pb ? -1 : 1;
}

static void kind_row(FILE *out, const struct rs_view *v, const struct rs_nfs_kind_info *k)
{
	char name[256], t[3][24];
	rs_nfs_kind_name(&k->id, name, sizeof name);
	if (k->lat.n) {
		rs_fmt_ns(k->lat.min, t[0], sizeof t[0]);
		rs_fmt_ns(k->lat.median, t[1], sizeof t[1]);
		rs_fmt_ns(k->lat.p99, t[2], sizeof t[2]);
	} else {
		for (int i = 0; i < 3; i++)
			snprintf(t[i], sizeof t[i], "-");
	}
	int col = name_col(v);
	if (rs_dwidth(name) > col) {
		rs_para(out, v->o->width, "    ", "      ", name);
		name[0] = 0;
	}
	fprintf(out, "    %-*s %5" PRIu64 " %4" PRIu64 " %s%7" PRIu64 "%s %9s %9s %9s\n", col, name, k->calls, k->errors,
		k->resent ? RED(v->o) : "", k->resent, k->resent ? OFF(v->o) : "", t[0], t[1], t[2]);
}

static void conn_kinds(FILE *out, const struct rs_view *v, const struct rs_nfs_info *q)
{
	unsigned idx[RS_NFS_KINDS];
	for (unsigned i = 0; i < q->nkinds; i++)
		idx[i] = i;
	sort_q = q;
	qsort(idx, q->nkinds, sizeof idx[0], by_p99);
	if (!q->nkinds)
		return;
	fprintf(out, "    %-*s %5s %4s %7s %9s %9s %9s\n", name_col(v), "call (by p99)", "n", "fail", "re-sent", "min",
		"median", "p99");
	unsigned shown = q->nkinds < KIND_ROWS ? q->nkinds : KIND_ROWS;
	for (unsigned i = 0; i < shown; i++)
		kind_row(out, v, &q->kinds[idx[i]]);
	if (shown < q->nkinds || q->other_calls) {
		uint64_t n = q->other_calls, resent = 0, fail = 0, p99 = 0;
		for (unsigned i = shown; i < q->nkinds; i++) {
			const struct rs_nfs_kind_info *k = &q->kinds[idx[i]];
			n += k->calls;
			resent += k->resent;
			fail += k->errors;
			if (k->lat.p99 > p99)
				p99 = k->lat.p99;
		}
		char t[24], line[300];
		snprintf(line, sizeof line,
			 "(%u more kinds: %" PRIu64 " calls, %" PRIu64 " failed, %" PRIu64 " with re-sent packets, p99 at most %s)",
			 q->nkinds - shown, n, fail, resent, rs_fmt_ns(p99, t, sizeof t));
		rs_para(out, v->o->width, "    ", "     ", line);
	}
}

static void call_line(FILE *out, const struct rs_view *v, const struct rs_nfs_info *q, const struct rs_nfs_call_info *c)
{
	char name[256], t[24], line[600], pad[16];
	rs_fmt_ns(c->ns, t, sizeof t);
	int w = 9 - (int)rs_dwidth(t);
	snprintf(pad, sizeof pad, "%*s", 4 + (w > 0 ? w : 0), "");
	snprintf(line, sizeof line, "%s  %" PRIu64 " → %" PRIu64 "  %s; %s%s%s", t, c->call_at.frame, c->reply_at.frame,
		 kind_name(q, c->kind, name, sizeof name), c->resent ? RED(v->o) : "",
		 c->resent ? "packets re-sent" : "nothing re-sent", c->resent ? OFF(v->o) : "");
	rs_para(out, v->o->width, pad, "                 ", line);
}

static void conn_calls(FILE *out, const struct rs_view *v, const struct rs_nfs_info *q)
{
	char name[256], line[600];
	if (q->nslow)
		fprintf(out, "    slowest calls (call → reply frames):\n");
	for (unsigned i = 0; i < q->nslow && i < SLOW_ROWS; i++)
		call_line(out, v, q, &q->slow[i]);
	/* The slowest of those the fabric re-sent for, if not listed above. */
	unsigned more = 0;
	for (unsigned i = 0; i < q->nslow_resent && more < SLOW_ROWS; i++) {
		const struct rs_nfs_call_info *c = &q->slow_resent[i];
		bool listed = false;
		for (unsigned k = 0; k < q->nslow && k < SLOW_ROWS; k++)
			listed |= q->slow[k].seq == c->seq;
		if (listed)
			continue;
		if (!more++)
			fprintf(out, "    slowest of those with re-sent packets:\n");
		call_line(out, v, q, c);
	}
	/* Failed calls, alike ones together. */
	bool said[RS_NFS_ERRS] = { false };
	for (uint32_t i = 0; i < q->nerr && i < RS_NFS_ERRS; i++) {
		if (said[i])
			continue;
		const struct rs_nfs_err_info *e = &q->err[i];
		unsigned n = 0;
		for (uint32_t k = i; k < q->nerr && k < RS_NFS_ERRS; k++) {
			const struct rs_nfs_err_info *o = &q->err[k];
			if (o->call.kind == e->call.kind && o->what == e->what && o->stat == e->stat && o->op == e->op) {
				said[k] = true;
				n++;
			}
		}
		char st[48], opn[64] = "";
		if (e->have_op)
			snprintf(opn, sizeof opn, " in %s", *rs_nfs4_op_name(e->op) ? rs_nfs4_op_name(e->op) : "an operation");
		snprintf(line, sizeof line, "failed: %s: %s%s ×%u, the first frames %" PRIu64 " → %" PRIu64,
			 kind_name(q, e->call.kind, name, sizeof name), rs_nfs_err_name(q, e, st, sizeof st), opn, n,
			 e->call.call_at.frame, e->call.reply_at.frame);
		rs_para(out, v->o->width, "    ", "      ", line);
	}
	if (q->nerr > RS_NFS_ERRS)
		fprintf(out, "    and %u more failed calls\n", q->nerr - RS_NFS_ERRS);
	if (q->nunans) {
		const struct rs_nfs_call_info *c = &q->unans[0];
		snprintf(line, sizeof line, "never answered: %" PRIu64 " calls, the first %s, frame %" PRIu64 "%s",
			 q->unanswered, kind_name(q, c->kind, name, sizeof name), c->call_at.frame,
			 c->resent ? ", packets of it re-sent" : "");
		rs_para(out, v->o->width, "    ", "      ", line);
	}
}

void rs_text_nfs(FILE *out, const struct rs_view *v)
{
	bool any = false;
	struct rs_nfs_info *q = g_new(struct rs_nfs_info, 1);
	for (guint i = 0; i < v->ulp_conns->len; i++) {
		const struct rs_conn *c = v->ulp_conns->pdata[i];
		if (!rs_conn_nfs(c, q))
			continue;
		if (!any)
			fprintf(out, "\n%sNFS/RDMA%s (RPC calls: call SEND → reply's last SEND, at the capture point)\n", BOLD(v->o), OFF(v->o));
		any = true;
		conn_head(out, v, c, q);
		conn_kinds(out, v, q);
		conn_calls(out, v, q);
	}
	g_free(q);
}
