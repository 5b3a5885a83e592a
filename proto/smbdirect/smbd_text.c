/*
 * smbd_text.c — the SMB Direct section of the text summary: per connection
 * (one CM connection of the SMB Direct service), what was negotiated, the
 * SMB2 commands with their request -> final response latency, the slowest
 * requests with their frames and whether the fabric re-sent any of their
 * packets, the requests answered with a status other than SUCCESS, and the
 * server's RDMA transfers for them. Laid out to fit 80 columns.
 */
#include <inttypes.h>
#include <string.h>

#include "proto/smbdirect/smbd_state.h"
#include "proto/smbdirect/smbd_text.h"
#include "proto/smbdirect/smbdirect.h"
#include "report/text.h"

const char *rs_smbd_cmd_label(unsigned slot)
{
	return slot < RS_SMB2__CMDS ? rs_smb2_cmd_name((uint16_t)slot) : "other";
}

const char *rs_smbd_resent_words(uint8_t r, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", r & RS_SMBD_RESENT_REQUEST ? "request" : "",
		 (r & RS_SMBD_RESENT_REQUEST) && (r & ~RS_SMBD_RESENT_REQUEST) ? ", " : "",
		 r & RS_SMBD_RESENT_RESPONSE ? "response" : "",
		 (r & RS_SMBD_RESENT_RESPONSE) && (r & RS_SMBD_RESENT_TRANSFER) ? ", " : "",
		 r & RS_SMBD_RESENT_TRANSFER ? "RDMA transfer" : "");
	return buf;
}

static void head(FILE *out, const struct rs_view *v, const struct rs_conn *conn, const struct rs_smbd_info *q)
{
	struct rs_conn_info ci, *c = &ci;
	rs_conn_get_info(conn, c);
	int w = v->o->width;
	char cl[160], sv[160], svc[200], line[800], title[48];
	snprintf(line, sizeof line, "%s, %s: client %s QP 0x%x → server %s QP 0x%x", rs_conn_title(conn, title, sizeof title),
		 rs_conn_service(conn, svc, sizeof svc), rs_fmt_addr(v->names, &c->client, cl, sizeof cl), c->client_qpn,
		 rs_fmt_addr(v->names, &c->server, sv, sizeof sv), c->server_qpn);
	rs_para(out, w, "  ", "    ", line);
	const struct rs_smbd_neg_info *n = &q->neg;
	if (n->req && n->rsp) {
		char rw[16], rc[2][16], fr[2][16];
		char st[40] = "";
		if (n->status)
			snprintf(st, sizeof st, " with status 0x%08x", n->status);
		snprintf(line, sizeof line,
			 "SMB Direct %u.%u negotiated%s: credits %u asked, %u granted; max read/write %s; receives "
			 "at most %s, reassembled %s (client), %s, %s (server)", n->negotiated_version >> 8, n->negotiated_version & 0xFF, st,
			 n->req_credits_requested, n->credits_granted, rs_fmt_bytes(n->max_read_write, rw, sizeof rw),
			 rs_fmt_bytes(n->req_max_receive, rc[0], sizeof rc[0]), rs_fmt_bytes(n->req_max_fragmented, fr[0], sizeof fr[0]),
			 rs_fmt_bytes(n->rsp_max_receive, rc[1], sizeof rc[1]),
			 rs_fmt_bytes(n->rsp_max_fragmented, fr[1], sizeof fr[1]));
	} else {
		snprintf(line, sizeof line, "negotiate %s not seen (the capture began after it)",
			 n->req ? "response" : n->rsp ? "request" : "request and response");
	}
	rs_para(out, w, "    ", "      ", line);
	const struct rs_smbd_side_info *s = q->side;
	snprintf(line, sizeof line,
		 "SMB2: requests %" PRIu64 ", responses %" PRIu64 " (and %" PRIu64 " interim STATUS_PENDING), unanswered %"
		 PRIu64 "; in several SMB Direct fragments: %" PRIu64 " (%" PRIu64 " fragments); credits granted: %" PRIu64
		 " by the server, %" PRIu64 " by the client", q->requests, q->responses, q->interims, q->pending,
		 s[0].fragmented + s[1].fragmented, s[0].fragments + s[1].fragments, s[1].credits_granted,
		 s[0].credits_granted);
	rs_para(out, w, "    ", "      ", line);
	char rb[16], wb[16];
	snprintf(line, sizeof line,
		 "server RDMA READs %" PRIu64 " (%s), RDMA WRITEs %" PRIu64 " (%s): %" PRIu64
		 " with a token no pending request's buffer descriptor gave, %" PRIu64 " outside it",
		 q->rdma_reads, rs_fmt_bytes(q->rdma_read_bytes, rb, sizeof rb), q->rdma_writes,
		 rs_fmt_bytes(q->rdma_write_bytes, wb, sizeof wb), q->rdma_untied, q->rdma_outside);
	rs_para(out, w, "    ", "      ", line);
	snprintf(line, sizeof line, "frames the fabric re-sent: %" PRIu64 ", of requests: %" PRIu64 "%s", q->resent_frames,
		 q->resent_requests, q->resent_untied ? " (some of no request known)" : "");
	rs_para(out, w, "    ", "      ", line);
	uint64_t inc = s[0].incomplete + s[1].incomplete, bad = s[0].not_smbd + s[1].not_smbd;
	uint64_t lied = s[0].frag_lied + s[1].frag_lied + s[0].frag_too_long + s[1].frag_too_long;
	uint64_t odd = q->unmatched + q->wrong_way + q->mid_again + s[0].smb2_bad + s[1].smb2_bad;
	if (inc || bad || lied || odd || q->rdma_short) {
		snprintf(line, sizeof line,
			 "not read: %" PRIu64 " SENDs the capture missed a packet of, %" PRIu64 " not SMB Direct, %" PRIu64
			 " fragmented messages whose lengths lied; %" PRIu64 " SMB2 messages unpaired or unreadable; "
			 "%" PRIu64 " answered requests whose RDMA moved other than their descriptors",
			 inc, bad, lied, odd, q->rdma_short);
		rs_para(out, w, "    ", "      ", line);
	}
	uint64_t dropped = s[0].compound_dropped + s[1].compound_dropped, cut = s[0].compound_cut + s[1].compound_cut;
	if (dropped || cut) {
		snprintf(line, sizeof line,
			 "compounds: %" PRIu64 " headers past the first %u of their chain counted, not paired; %" PRIu64
			 " chains that go on past the packet read (a later packet or fragment, or the capture's cut)",
			 dropped, RS_SMBD_CHAIN + 1, cut);
		rs_para(out, w, "    ", "      ", line);
	}
}

#define TABLE_WIDTH 75 /* the table's lines; narrower, a paragraph per command */

static void commands(FILE *out, const struct rs_view *v, const struct rs_smbd_info *q)
{
	int w = v->o->width;
	bool table = w <= 0 || w >= TABLE_WIDTH;
	if (table)
		fprintf(out, "    %-15s %5s %6s %6s %8s %8s %8s %8s\n", "command", "n", "failed", "resent", "min", "median",
			"p99", "max");
	for (unsigned i = 0; i < RS_SMBD_CMDS; i++) {
		const struct rs_smbd_cmd_info *c = &q->cmd[i];
		if (!c->n && !c->done)
			continue;
		char t[4][24];
		const uint64_t ns[4] = { c->lat.min, c->lat.median, c->lat.p99, c->lat.max };
		for (int k = 0; k < 4; k++)
			if (c->lat.n)
				rs_fmt_ns(ns[k], t[k], sizeof t[k]);
			else
				snprintf(t[k], sizeof t[k], "-");
		if (table) {
			fprintf(out, "    %-15s %5" PRIu64 " %6" PRIu64 " %6" PRIu64 " %8s %8s %8s %8s\n", rs_smbd_cmd_label(i),
				c->n, c->failed, c->resent, t[0], t[1], t[2], t[3]);
			continue;
		}
		char line[400];
		snprintf(line, sizeof line, "%s: %" PRIu64 ", %" PRIu64 " failed, %" PRIu64 " re-sent; latency min %s, "
			 "median %s, p99 %s, max %s", rs_smbd_cmd_label(i), c->n, c->failed, c->resent, t[0], t[1], t[2],
			 t[3]);
		rs_para(out, w, "    ", "      ", line);
	}
}

static void req_line(FILE *out, const struct rs_view *v, const char *lead, const struct rs_smbd_req_info *r,
		     bool status)
{
	char lat[24], line[400], interim[48] = "", rdma[64] = "", re[64] = "", st[96] = "", b[16];
	if (r->interim_frame)
		snprintf(interim, sizeof interim, " (interim %" PRIu64 ")", r->interim_frame);
	if (r->xfers)
		snprintf(rdma, sizeof rdma, ", RDMA %s", rs_fmt_bytes(r->xfer_bytes, b, sizeof b));
	if (r->resent) {
		char words[48];
		snprintf(re, sizeof re, ", re-sent: %s", rs_smbd_resent_words(r->resent, words, sizeof words));
	}
	if (status) {
		const char *sn = rs_nt_status_name(r->status);
		snprintf(st, sizeof st, " %s%s0x%08x%s", sn, *sn ? " (" : "", r->status, *sn ? ")" : "");
	}
	snprintf(line, sizeof line, "%s MessageId %" PRIu64 "%s %s, frames %" PRIu64 " → %" PRIu64 "%s%s%s",
		 rs_smbd_cmd_label(r->cmd < RS_SMB2__CMDS ? r->cmd : RS_SMB2__CMDS), r->message_id, st,
		 rs_fmt_ns(r->lat_ns, lat, sizeof lat), r->req_frame, r->rsp_frame, interim, rdma, re);
	rs_para(out, v->o->width, lead, "        ", line);
}

static void slowest(FILE *out, const struct rs_view *v, const struct rs_smbd_info *q)
{
	if (q->nslow)
		fprintf(out, "    slowest:\n");
	for (uint32_t k = 0; k < q->nslow; k++)
		req_line(out, v, "      - ", &q->slow[k], false);
	if (q->resent_requests)
		fprintf(out, "    re-sent by the fabric:\n");
	for (uint64_t k = 0; k < q->resent_requests && k < RS_SMBD_SLOW; k++)
		req_line(out, v, "      - ", &q->resent[k], false);
	if (q->resent_requests > RS_SMBD_SLOW)
		fprintf(out, "      - and %" PRIu64 " more\n", q->resent_requests - RS_SMBD_SLOW);
	if (q->nfailed)
		fprintf(out, "    status not SUCCESS:\n");
	for (uint64_t k = 0; k < q->nfailed && k < RS_SMBD_FAILED; k++)
		req_line(out, v, "      - ", &q->failed[k], true);
	if (q->nfailed > RS_SMBD_FAILED)
		fprintf(out, "      - and %" PRIu64 " more\n", q->nfailed - RS_SMBD_FAILED);
}

void rs_text_smbd(FILE *out, const struct rs_view *v)
{
	bool any = false;
	unsigned quiet = 0;
	struct rs_smbd_info q;
	for (guint i = 0; i < v->ulp_conns->len; i++) {
		const struct rs_conn *c = v->ulp_conns->pdata[i];
		if (!rs_conn_smbd(c, &q))
			continue;
		if (!any)
			fprintf(out, "\n%sSMB Direct%s (SMB2 request → final response)\n", BOLD(v->o), OFF(v->o));
		any = true;
		/* A connection of the service without one SMB Direct message
		 * read (another protocol on the port, or nothing sent): counted. */
		if (!q.neg.req && !q.neg.rsp && !q.side[0].data && !q.side[1].data) {
			quiet++;
			continue;
		}
		head(out, v, c, &q);
		commands(out, v, &q);
		slowest(out, v, &q);
	}
	if (quiet)
		fprintf(out, "  %u connection%s of the service with no SMB Direct message read\n", quiet, quiet > 1 ? "s" : "");
}
