/*
 * text.c — the one-screen summary of `rocestat FILE`.
 *
 * Sections: the capture, the opcode mix, CM connections, queue pairs by
 * bytes with throughput and health (text_qp.c), latency (text_qp.c),
 * remote memory touched, and the anomalies with frame numbers to jump to in
 * the walkthrough or Wireshark. Every line fits the width asked for
 * (rs_report_opts.width; 0: unlimited, each line whole): long lines wrap
 * under their section's indent, tables drop their least needed columns.
 * Colour marks a problem that is there (a non-zero count, a rejected
 * connection), never a zero.
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "proto/proto.h"
#include "report/congestion.h"
#include "report/escape.h"
#include "report/text.h"

/* `s` in a column of `width` characters straight to out (headers and the
 * few rows of small sections). */
static void cell(FILE *out, const char *s, int width, bool right)
{
	char b[256];
	struct rs_outbuf o;
	rs_outbuf_init(&o, out, b, sizeof b);
	rs_cell(&o, s, width, right);
	rs_outbuf_flush(&o);
}

static void fmt_time(uint64_t ns, char *buf, size_t len)
{
	time_t s = (time_t)(ns / 1000000000u);
	struct tm tm;
	gmtime_r(&s, &tm);
	size_t n = strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%06" PRIu64 " UTC", (ns % 1000000000u) / 1000);
}

#define INDENT "           " /* under the section names: "Capture    " */

/* Once per file that holds sliced frames: how many, to what length, and
 * whether its records admit the cut. Not an anomaly: header-only capture is
 * how RDMA is captured at speed; the user needs to know what it leaves
 * unproven (payload bytes, the ICRC). */
static void sliced_line(FILE *out, int width, uint32_t files, const struct rs_file_info *fi)
{
	uint64_t snap = fi->sliced[RS_SLICE_SNAPLEN], rew = fi->sliced[RS_SLICE_REWRITTEN];
	if (!snap && !rew)
		return;
	char len[48], line[1024];
	if (fi->sliced_cap_min == fi->sliced_cap_max)
		snprintf(len, sizeof len, "%u bytes", fi->sliced_cap_min);
	else
		snprintf(len, sizeof len, "%u-%u bytes", fi->sliced_cap_min, fi->sliced_cap_max);
	int n = snprintf(line, sizeof line, "%" PRIu64 " frame%s cut to %s by the capture%s%s", snap + rew,
			 snap + rew == 1 ? "" : "s", len, files > 1 ? " in " : "",
			 files > 1 ? fi->name : "");
	if (n > 0 && (size_t)n < sizeof line) {
		if (rew && snap)
			snprintf(line + n, sizeof line - (size_t)n, " (%" PRIu64 " with the record length rewritten to the cut):", rew);
		else
			snprintf(line + n, sizeof line - (size_t)n, "%s:", rew ? " (the record lengths were rewritten to the cut)" : "");
	}
	rs_para(out, width, "Sliced     ", INDENT, line);
	rs_para(out, width, INDENT, INDENT,
		"their lengths come from the IP/UDP headers; payload bytes and ICRC not captured");
}

/* Capture completeness: how much of the request PSN range the file shows,
 * and what became of the rest. Only when something is missing. */
static void psn_lines(FILE *out, int width, const struct rs_analyzer *a)
{
	const struct rs_psn_totals *t = rs_capture_psns(a);
	if (!t->missing)
		return;
	struct rs_gaps g = rs_gaps_of_capture(t);
	char line[256];
	snprintf(line, sizeof line, "%" PRIu64 " of %" PRIu64 " request PSNs in the capture (%.1f%%); %" PRIu64 " skipped:",
		 t->range - g.absent, t->range, 100.0 * (double)(t->range - g.absent) / (double)t->range, g.skipped);
	rs_para(out, width, "PSNs       ", INDENT, line);
	struct {
		uint64_t n;
		const char *what;
	} part[] = {
		{ g.not_captured, "not captured: ACKed by the responder, never NAKed or re-sent" },
		{ g.lost, "lost: NAKed by the responder as missing" },
		/* Lost on the way or missed by the capture: a go-back-N
		 * responder drops what follows a loss, so its answers cannot
		 * tell; "lost" above is only what a NAK named. */
		{ g.resent - g.overtaken, "re-sent by the requester, the first copy not captured (lost on the way here, "
					"or missed by the capture)" },
		{ g.overtaken, "re-sent by the requester before their first copy, which came after (reordered)" },
		{ g.reordered, "arrived late (reordered)" },
		{ g.undetermined, "undetermined: no ACK in the capture covers them" },
	};
	for (unsigned i = 0; i < G_N_ELEMENTS(part); i++)
		if (part[i].n) {
			snprintf(line, sizeof line, "%" PRIu64 " %s", part[i].n, part[i].what);
			rs_para(out, width, INDENT, INDENT "  ", line);
		}
	if (t->msgs_uncaptured) {
		snprintf(line, sizeof line, "%" PRIu64 " message%s none of whose packets were captured: counted by the "
			 "responders' ACK MSNs, not in the message counts below (those are the messages seen)",
			 t->msgs_uncaptured, t->msgs_uncaptured == 1 ? "" : "s");
		rs_para(out, width, "Messages   ", INDENT, line);
	}
}

/* The first line: the version and the files read. */
static void title_line(FILE *out, const struct rs_view *v)
{
	const struct rs_analyzer *a = v->a;
	char first[64];
	GString *names = g_string_new(NULL);
	struct rs_capture_info cap;
	rs_capture_get_info(a, &cap);
	for (uint32_t i = 0; i < cap.files; i++)
	{
		struct rs_file_info fi;
		rs_capture_file(a, i, &fi);
		/* A name from the command line may hold anything (ESC, BEL, a newline). */
		char *safe = rs_escape_ctl(fi.name, false);
		g_string_append_printf(names, "%s%s", i ? ", " : "", safe);
		g_free(safe);
	}
	snprintf(first, sizeof first, "%srocestat %s%s", BOLD(v->o), ROCESTAT_VERSION, OFF(v->o));
	int width = v->o->width;
	if (width > 0 && rs_dwidth(first) + 5 + rs_dwidth(names->str) > width) {
		fprintf(out, "%s\n", first); /* the names under it */
		rs_para(out, width, INDENT, INDENT, names->str);
	} else {
		fprintf(out, "%s  ·  %s\n", first, names->str);
	}
	g_string_free(names, TRUE);
}

/* What the capture path did to the file, and what it therefore cannot
 * prove (analyzer/whole/sniffer.c counts it). */
static void sniffer_lines(FILE *out, int width, const struct rs_analyzer *a)
{
	const char *head = "Sniffer    ";
	char s[512];
	struct rs_capture_info cap;
	rs_capture_get_info(a, &cap);
	if (cap.icrc_port_rewritten) {
		if (width <= 0) {
			fprintf(out, "Sniffer    %" PRIu64 " frame%s: UDP source port rewritten to 4791 by the capture,\n"
				INDENT "not corruption: %s ICRC matches the NIC's port (e.g. %u)\n",
				cap.icrc_port_rewritten, cap.icrc_port_rewritten == 1 ? "" : "s",
				cap.icrc_port_rewritten == 1 ? "its" : "their", cap.icrc_port_example);
		} else {
			snprintf(s, sizeof s, "%" PRIu64 " frame%s: UDP source port rewritten to 4791 by the capture, "
				 "not corruption: %s ICRC matches the NIC's port (e.g. %u)",
				 cap.icrc_port_rewritten, cap.icrc_port_rewritten == 1 ? "" : "s",
				 cap.icrc_port_rewritten == 1 ? "its" : "their", cap.icrc_port_example);
			rs_para(out, width, head, INDENT, s);
		}
		head = INDENT;
	}
	struct rs_sniffer_info sni, *sn = &sni;
	rs_capture_sniffer(a, sn);
	if (sn->mac_changes) {
		/* Most frames: the capture's own MACs; a few: a change of path. */
		bool per_frame = sn->mac_changes * 2 > sn->mac_frames;
		snprintf(s, sizeof s, "source MAC not the previous one of the same address on %" PRIu64 " of %" PRIu64
			 " frames%s", sn->mac_changes, sn->mac_frames,
			 per_frame ? ": the capture wrote its own MACs; they do not name the hosts' ports" : "");
		rs_para(out, width, head, INDENT, s);
		head = INDENT;
	}
	/* UC, UD and CNPs go one way by nature; an RC requester expects ACKs. */
	if (sn->rc_one_way_flows) {
		char x[RS_ADDR_STRLEN], y[RS_ADDR_STRLEN];
		snprintf(s, sizeof s,
			 "one direction only: %u RC QP%s sent %" PRIu64 " request packet%s (e.g. %s → %s) and no frame "
			 "came back from %s host%s: the file cannot show what was acknowledged",
			 sn->rc_one_way_flows, sn->rc_one_way_flows == 1 ? "" : "s", sn->rc_one_way_packets, sn->rc_one_way_packets == 1 ? "" : "s",
			 rs_addr_format(&sn->one_way_from, x), rs_addr_format(&sn->one_way_to, y),
			 sn->rc_one_way_flows == 1 ? "its responder's" : "their responders'", sn->rc_one_way_flows == 1 ? "" : "s");
		rs_para(out, width, head, INDENT, s);
	}
}

static void capture_section(FILE *out, const struct rs_view *v)
{
	const struct rs_analyzer *a = v->a;
	const struct rs_report_opts *o = v->o;
	int width = o->width;
	char b1[32], t1[48], t2[48], line[256], span_s[160] = "";
	struct rs_capture_info cap;
	rs_capture_get_info(a, &cap);

	title_line(out, v);
	/* In the unit that shows it: a 19 us capture is not "0.000 s". */
	char d1[32];
	rs_fmt_ns(cap.have_ts ? cap.last_ts - cap.first_ts : 0, d1, sizeof d1);
	snprintf(line, sizeof line, "Capture    %" PRIu64 " frame%s, %s, %s", cap.frames, cap.frames == 1 ? "" : "s",
		 rs_fmt_bytes(cap.bytes, b1, sizeof b1), d1);
	if (cap.have_ts) {
		fmt_time(cap.first_ts, t1, sizeof t1);
		fmt_time(cap.last_ts, t2, sizeof t2);
		snprintf(span_s, sizeof span_s, "(%s → %s)", t1, t2 + (strncmp(t1, t2, 11) == 0 ? 11 : 0));
	}
	/* The time span on a line of its own when both do not fit. */
	if (!span_s[0])
		fprintf(out, "%s\n", line);
	else if (width <= 0 || rs_dwidth(line) + 2 + rs_dwidth(span_s) <= width)
		fprintf(out, "%s  %s\n", line, span_s);
	else
		fprintf(out, "%s\n" INDENT "%s\n", line, span_s);

	char it[4][192];
	const char *items[4];
	int n = 0;
	if (cap.roce[RS_ROCE_V2])
		snprintf(it[n], sizeof it[n], "RoCE v2 %" PRIu64 " (IPv4 %" PRIu64 ", IPv6 %" PRIu64 ")", cap.roce[RS_ROCE_V2],
			 cap.ipv4, cap.ipv6), n++;
	if (cap.roce[RS_ROCE_V1])
		snprintf(it[n], sizeof it[n], "RoCE v1 %" PRIu64, cap.roce[RS_ROCE_V1]), n++;
	if (cap.roce[RS_ROCE_IB])
		snprintf(it[n], sizeof it[n], "InfiniBand %" PRIu64, cap.roce[RS_ROCE_IB]), n++;
	snprintf(it[n], sizeof it[n], "non-RoCE %" PRIu64, cap.roce[0]), n++;
	for (int k = 0; k < n; k++)
		items[k] = it[k];
	rs_items(out, width, INDENT, INDENT, "  ·  ", items, n);

	uint64_t ib = cap.icrc[RS_CRC_BAD];
	n = 0;
	int k = snprintf(it[n], sizeof it[n], "ICRC ok %" PRIu64 ", bad %s%" PRIu64 "%s, unchecked %" PRIu64,
			 cap.icrc[RS_CRC_OK], ib ? RED(o) : "", ib, ib ? OFF(o) : "", cap.icrc[RS_CRC_UNCHECKED]);
	if (cap.icrc_port_rewritten && k > 0 && (size_t)k < sizeof it[n])
		snprintf(it[n] + k, sizeof it[n] - (size_t)k, ", port rewritten %" PRIu64, cap.icrc_port_rewritten);
	n++;
	if (cap.roce[RS_ROCE_IB])
		snprintf(it[n], sizeof it[n], "VCRC bad %" PRIu64, cap.vcrc_bad), n++;
	uint64_t bad = cap.outcome[RS_TRUNCATED] + cap.outcome[RS_MALFORMED] + cap.outcome[RS_UNSUPPORTED];
	snprintf(it[n], sizeof it[n], "truncated %" PRIu64 ", malformed %" PRIu64 ", unsupported %" PRIu64 "%s",
		 cap.outcome[RS_TRUNCATED], cap.outcome[RS_MALFORMED], cap.outcome[RS_UNSUPPORTED],
		 bad ? "  (see anomalies)" : ""), n++;
	for (int m = 0; m < n; m++)
		items[m] = it[m];
	rs_items(out, width, INDENT, INDENT, "  ·  ", items, n);
	if (cap.pmtu)
		fprintf(out, INDENT "path MTU %u (from First/Middle payloads)\n", cap.pmtu);
	sniffer_lines(out, width, a);
	psn_lines(out, width, a);
	for (uint32_t i = 0; i < cap.files; i++) {
		struct rs_file_info fi;
		rs_capture_file(a, i, &fi);
		sliced_line(out, width, cap.files, &fi);
	}
}

static gint by_count_desc(gconstpointer x, gconstpointer y, gpointer data)
{
	const uint64_t *c = data;
	int a = *(const int *)x, b = *(const int *)y;
	if (c[a] != c[b])
		return c[a] > c[b] ? -1 : 1;
	return a - b;
}

static void opcode_section(FILE *out, const struct rs_view *v)
{
	const struct rs_analyzer *a = v->a;
	/* 0-255 the opcodes, 256-287 NVIDIA DC's operations */
	uint64_t count[256 + 32];
	const uint64_t *dc_ops;
	memcpy(count, rs_capture_opcodes(a, &dc_ops), 256 * sizeof count[0]);
	memcpy(count + 256, dc_ops, 32 * sizeof count[0]);
	int ops[256 + 32], n = 0;
	for (int i = 0; i < 256 + 32; i++)
		if (count[i])
			ops[n++] = i;
	if (!n)
		return;
	g_qsort_with_data(ops, n, sizeof ops[0], by_count_desc, count);
	typedef char item[80];
	item *it = g_new(item, n);
	const char **items = g_new(const char *, n);
	for (int i = 0; i < n; i++) {
		char dc[40];
		const char *name = ops[i] < 256 ? rs_opinfo((uint8_t)ops[i])->name
						: rs_dc_opname((uint8_t)(RS_TR_RD | (ops[i] - 256)), dc, sizeof dc);
		snprintf(it[i], sizeof it[i], "%s %" PRIu64, name, count[ops[i]]);
		items[i] = it[i];
	}
	/* Unlimited: lines of 118 characters, as always. */
	rs_items(out, v->o->width > 0 ? v->o->width : 118, "Opcodes    ", INDENT, " · ", items, n);
	g_free(items);
	g_free(it);
}

/* "(N evicted connections: 3 established, 1 rejected)" under --max-flows. */
static void conns_evicted_line(FILE *out, int width, const struct rs_analyzer *a)
{
	struct rs_capture_info cap;
	rs_capture_get_info(a, &cap);
	const struct rs_analyzer_opts *opts = rs_analyzer_options(a);
	if (!cap.conns_evicted)
		return;
	GString *s = g_string_new(NULL);
	g_string_append_printf(s, "(%" PRIu64 " evicted connection%s:", cap.conns_evicted, cap.conns_evicted == 1 ? "" : "s");
	const char *sep = " ";
	for (unsigned k = 0; k < RS_CONN_STATES; k++)
		if (cap.conns_evicted_by_state[k]) {
			g_string_append_printf(s, "%s%" PRIu64 " %s", sep, cap.conns_evicted_by_state[k], rs_conn_state_names[k]);
			sep = ", ";
		}
	if (opts->max_flows_default)
		g_string_append_printf(s, "; the default cap keeps %" PRIu64 " (1/32 of physical memory's worth; "
				       "--max-flows N keeps N/2, 0 all)", opts->max_flows / 2 ? opts->max_flows / 2 : 1);
	g_string_append(s, ")");
	rs_para(out, width, "  ", "   ", s->str);
	g_string_free(s, TRUE);
}

/* A connection's client or server: "address QP 0x12"; a QPN of 0 is not a
 * data QP: that side's message was not seen. */
static const char *conn_side(const struct rs_view *v, const struct rs_addr *ad, uint32_t qpn, char *buf, size_t len)
{
	char name[96];
	rs_fmt_addr(v->names, ad, name, sizeof name);
	if (!qpn)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%s QP 0x%x", name, qpn);
	return buf;
}

/* The handshake's timing: REQ→REP and REP→RTU (SIDR: REQ→REP only), in
 * milliseconds, each -1 when not seen. */
static void conn_steps(const struct rs_conn *c, bool sidr, double *s1, double *s2)
{
	*s1 = rs_conn_step_ms(c, UMAD_CM_ATTR_REQ, UMAD_CM_ATTR_REP);
	*s2 = rs_conn_step_ms(c, UMAD_CM_ATTR_REP, UMAD_CM_ATTR_RTU);
	if (sidr) {
		*s1 = rs_conn_step_ms(c, UMAD_CM_ATTR_SIDR_REQ, UMAD_CM_ATTR_SIDR_REP);
		*s2 = -1;
	}
}

static const char *conn_data(const struct rs_conn_info *c)
{
	return c->sidr ? (c->c2s ? "UD seen" : "no UD seen")
	       : c->c2s && c->s2c      ? "both ways"
	       : c->c2s || c->s2c      ? "one way"
				       : "none seen";
}

/* Second line of a connection: what a reader needs to find the data. With
 * `steps` (a narrow table), the data seen and the handshake's timing first. */
static void conn_detail(FILE *out, const struct rs_view *v, const struct rs_conn *conn, const struct rs_conn_info *c,
			bool steps)
{
	GString *s = g_string_new(NULL);
	if (steps) {
		double s1, s2;
		conn_steps(conn, c->sidr, &s1, &s2);
		g_string_append_printf(s, "data %s", conn_data(c));
		if (s1 >= 0)
			g_string_append_printf(s, ", %s %.2f ms", c->sidr ? "SIDR_REQ→REP" : "REQ→REP", s1);
		if (s2 >= 0)
			g_string_append_printf(s, ", REP→RTU %.2f ms", s2);
		g_string_append(s, "; ");
	}
	if (!c->sidr) {
		if (c->have_rep_psn)
			g_string_append_printf(s, "client sends from PSN 0x%06x, ", c->rep_psn);
		if (c->have_req_psn)
			g_string_append_printf(s, "server from PSN 0x%06x, ", c->req_psn);
		g_string_append(s, rs_cm_transport_type_name(c->transport_type));
	} else {
		g_string_append_printf(s, "Q_Key 0x%x, status %u", c->qkey, c->sidr_status);
	}
	if (rs_cm_service_is_rdma_cm(c->service_id)) {
		char svc[96];
		g_string_append_printf(s, ", %s", rs_conn_service(conn, svc, sizeof svc));
	}
	if (c->have_cma) {
		char ip1[RS_ADDR_STRLEN], ip2[RS_ADDR_STRLEN];
		bool v4 = c->cma.ip_version == 4;
		struct rs_addr sa = { .kind = v4 ? RS_ADDR_IPV4 : RS_ADDR_IPV6 }, da = sa;
		memcpy(sa.b, v4 ? c->cma.src_addr + 12 : c->cma.src_addr, v4 ? 4 : 16);
		memcpy(da.b, v4 ? c->cma.dst_addr + 12 : c->cma.dst_addr, v4 ? 4 : 16);
		/* An IPv6 address with a port in brackets (RFC 3986): 2001:db8::2:50195 is ambiguous. */
		g_string_append_printf(s, v4 ? ", %s:%u → %s" : ", [%s]:%u → %s", rs_addr_format(&sa, ip1),
				       c->cma.src_port, rs_addr_format(&da, ip2));
	}
	if (!c->sidr && c->n[UMAD_CM_ATTR_REJ - UMAD_CM_ATTR_REQ])
		g_string_append_printf(s, ", REJ: %s (%u)", rs_cm_rej_reason_name(c->rej_reason), c->rej_reason);
	g_string_append(s, ", frames");
	static const uint16_t order[] = { UMAD_CM_ATTR_REQ, UMAD_CM_ATTR_MRA, UMAD_CM_ATTR_REP, UMAD_CM_ATTR_REJ,
					  UMAD_CM_ATTR_RTU, UMAD_CM_ATTR_DREQ, UMAD_CM_ATTR_DREP,
					  UMAD_CM_ATTR_SIDR_REQ, UMAD_CM_ATTR_SIDR_REP };
	/* With several files a frame is F:N, the N-th frame of the F-th file
	 * (as the anomalies name them). */
	struct rs_capture_info cap;
	rs_capture_get_info(v->a, &cap);
	for (unsigned k = 0; k < G_N_ELEMENTS(order); k++) {
		unsigned j = order[k] - UMAD_CM_ATTR_REQ;
		if (!c->n[j])
			continue;
		if (cap.files > 1)
			g_string_append_printf(s, " %s %u:%" PRIu64 "%s", rs_cm_attr_name(order[k]), c->at[j].file + 1,
					       c->at[j].frame, c->n[j] > 1 ? "+" : "");
		else
			g_string_append_printf(s, " %s %" PRIu64 "%s", rs_cm_attr_name(order[k]), c->at[j].frame,
					       c->n[j] > 1 ? "+" : "");
	}
	rs_para(out, v->o->width, "      ", "      ", s->str);
	g_string_free(s, TRUE);
}

#define SVC_MIN 13 /* the service column: a name, its port and a space */
#define SVC_MAX 24

/* The service column as wide as its longest name (a protocol's name and
 * port can take 14), at least SVC_MIN. */
static int svc_width(const struct rs_view *v, guint rows)
{
	int w = SVC_MIN;
	for (guint i = 0; i < rows; i++) {
		char svc[64];
		int d = rs_dwidth(rs_conn_service_short(v->conns->pdata[i], svc, sizeof svc));
		w = d > w ? (d < SVC_MAX ? d : SVC_MAX) : w;
	}
	return w;
}

/* The table's layout: the whole (124 characters with the narrowest
 * service column) when it fits, else the client and server columns as
 * wide as their contents (at most 30, cut if need be) and the data seen
 * and the timing on the second line; a long service name is cut before
 * the addresses and QP numbers are. */
static bool conn_widths(const struct rs_view *v, int *cw, int *sw, int *svw)
{
	int width = v->o->width;
	*cw = *sw = 30;
	if (width <= 0 || width >= 111 + *svw)
		return true;
	*cw = *sw = 6;
	for (guint i = 0; i < v->conns->len; i++) {
		struct rs_conn_info ci, *c = &ci;
		rs_conn_get_info(v->conns->pdata[i], c);
		char b[160];
		int w1 = rs_dwidth(conn_side(v, &c->client, c->client_qpn, b, sizeof b));
		int w2 = rs_dwidth(conn_side(v, &c->server, c->server_qpn, b, sizeof b));
		*cw = w1 > *cw ? (w1 < 30 ? w1 : 30) : *cw;
		*sw = w2 > *sw ? (w2 < 30 ? w2 : 30) : *sw;
	}
	int room = width - (2 + 4 + 2 + 2 + *svw + 1 + 12); /* #, spaces, service, state */
	while (*cw + *sw > room && *svw > SVC_MIN) {
		(*svw)--;
		room++;
	}
	while (*cw + *sw > room && (*cw > 16 || *sw > 16)) {
		if (*cw >= *sw)
			(*cw)--;
		else
			(*sw)--;
	}
	return false;
}

/* More connections than CONN_ROWS_MAX: the first CONN_ROWS_FOLDED, the
 * rest counted by state (--full: all). */
#define CONN_ROWS_MAX 12
#define CONN_ROWS_FOLDED 8

static void conns_folded(FILE *out, const struct rs_view *v, guint from)
{
	uint64_t by[RS_CONN_STATES] = { 0 };
	for (guint i = from; i < v->conns->len; i++)
		by[rs_conn_state_of(v->conns->pdata[i])]++;
	GString *s = g_string_new(NULL);
	g_string_append_printf(s, "… %u more connections:", v->conns->len - from);
	const char *sep = " ";
	for (unsigned k = 0; k < RS_CONN_STATES; k++)
		if (by[k]) {
			bool alarm = k == RS_CONN_REJECTED || k == RS_CONN_INCOMPLETE;
			g_string_append_printf(s, "%s%s%" PRIu64 " %s%s", sep, alarm ? RED(v->o) : "", by[k],
					       rs_conn_state_names[k], alarm ? OFF(v->o) : "");
			sep = ", ";
		}
	g_string_append(s, " (--full lists them; --conn N shows one)");
	rs_para(out, v->o->width, "  ", "    ", s->str);
	g_string_free(s, TRUE);
}

static void conn_section(FILE *out, const struct rs_view *v)
{
	const struct rs_analyzer *a = v->a;
	int width = v->o->width;
	if (!v->conns->len) {
		struct rs_capture_info cap;
		rs_capture_get_info(a, &cap);
		if (cap.conns_evicted && v->o->qp < 0 && v->o->conn < 0) {
			fprintf(out, "\n%sConnections (CM)%s\n", BOLD(v->o), OFF(v->o));
			conns_evicted_line(out, width, a);
		}
		return;
	}
	guint rows = !rs_text_full(v) && v->conns->len > CONN_ROWS_MAX ? CONN_ROWS_FOLDED : v->conns->len;
	int cw, sw, svw = svc_width(v, rows);
	bool wide = conn_widths(v, &cw, &sw, &svw);
	fprintf(out, "\n%sConnections (CM)%s\n", BOLD(v->o), OFF(v->o));
	fprintf(out, "  %-3s ", "#");
	cell(out, "client", cw, false);
	fputs(wide ? " " : "  ", out);
	cell(out, "server", sw, false);
	if (!wide)
		fputc(' ', out);
	cell(out, " service", svw + 1, false);
	if (wide) {
		cell(out, " state", 13, false);
		cell(out, "REQ→REP", 10, true);
		cell(out, "REP→RTU", 10, true);
		fputs("  data\n", out);
	} else {
		fputs(" state\n", out);
	}
	for (guint i = 0; i < rows; i++) {
		const struct rs_conn *conn = v->conns->pdata[i];
		struct rs_conn_info ci, *c = &ci;
		rs_conn_get_info(conn, c);
		char cl[160], sv[160], svc[64], d1[16], d2[16];
		double s1, s2;
		conn_steps(conn, c->sidr, &s1, &s2);
		snprintf(d1, sizeof d1, s1 >= 0 ? "%.2f ms" : "-", s1);
		snprintf(d2, sizeof d2, s2 >= 0 ? "%.2f ms" : "-", s2);
		enum rs_conn_state state = rs_conn_state_of(conn);
		const char *st = rs_conn_state_names[state];
		bool alarm = state == RS_CONN_REJECTED || state == RS_CONN_INCOMPLETE;
		fprintf(out, "  %-3u ", c->id);
		cell(out, conn_side(v, &c->client, c->client_qpn, cl, sizeof cl), cw, false);
		fputs(wide ? " " : "  ", out);
		cell(out, conn_side(v, &c->server, c->server_qpn, sv, sizeof sv), sw, false);
		fputs(wide ? " " : "  ", out);
		cell(out, rs_conn_service_short(conn, svc, sizeof svc), svw, false);
		fprintf(out, " %s", alarm ? RED(v->o) : "");
		if (wide) {
			cell(out, st, 12, false);
			fputs(alarm ? OFF(v->o) : "", out);
			cell(out, d1, 10, true);
			cell(out, d2, 10, true);
			fprintf(out, "  %s\n", conn_data(c));
		} else {
			fprintf(out, "%s%s\n", st, alarm ? OFF(v->o) : "");
		}
		conn_detail(out, v, conn, c, !wide);
	}
	if (rows < v->conns->len)
		conns_folded(out, v, rows);
	if (v->o->qp < 0 && v->o->conn < 0)
		conns_evicted_line(out, width, a);
}

#define MEMORY_MAX 8
#define MEMORY_FOLDED 6

static void memory_section(FILE *out, const struct rs_view *v)
{
	bool header = false;
	/* A row: a label (under 200 bytes) and at most four rkeys of under 80
	 * bytes each: it never fills the buffer, which has no stream. */
	char rb[1024];
	struct rs_outbuf r;
	/* More than MEMORY_MAX requesters: the first MEMORY_FOLDED (--full: all). */
	unsigned users = 0, shown = 0;
	for (guint i = 0; i < v->flows->len && !rs_text_full(v); i++) {
		unsigned nrk;
		uint64_t more;
		rs_flow_rkeys(rs_view_flow(v, i), &nrk, &more);
		users += nrk > 0;
	}
	for (guint i = 0; i < v->flows->len; i++) {
		const struct rs_flow *fl = rs_view_flow(v, i);
		unsigned nrk;
		uint64_t more;
		const struct rs_rkey_use *uses = rs_flow_rkeys(fl, &nrk, &more);
		if (!nrk)
			continue;
		if (users > MEMORY_MAX && shown++ == MEMORY_FOLDED) {
			char line[160];
			snprintf(line, sizeof line, "… %u more requesters (--full lists them)", users - MEMORY_FOLDED);
			rs_para(out, v->o->width, "  ", "    ", line);
			break;
		}
		if (!header) {
			fprintf(out, "\n%sRemote memory%s (rkeys each requester used)\n", BOLD(v->o), OFF(v->o));
			header = true;
		}
		/* By hand, not fprintf: one row per requester, a million of them
		 * in a large capture. */
		char lbl[200];
		rs_outbuf_init(&r, NULL, rb, sizeof rb);
		rs_outbuf_str(&r, rs_flow_label(v->names, fl, lbl, sizeof lbl), 0);
		rs_outbuf_putc(&r, ':');
		for (uint32_t k = 0; k < nrk && k < 4; k++) {
			const struct rs_rkey_use *u = &uses[k];
			char sz[24];
			if (k)
				rs_outbuf_putc(&r, ';');
			RS_OUTBUF_LIT(&r, " rkey 0x");
			rs_outbuf_hex(&r, u->rkey);
			rs_outbuf_putc(&r, ' ');
			static const char ops[] = "RWAF"; /* READ, WRITE, ATOMIC, FLUSH: bits 0-3 */
			for (int b = 0; b < 4; b++)
				if (u->ops & (1u << b))
					rs_outbuf_putc(&r, ops[b]);
			RS_OUTBUF_LIT(&r, " [0x");
			rs_outbuf_hex(&r, u->va_lo);
			RS_OUTBUF_LIT(&r, ", +");
			rs_outbuf_str(&r, rs_fmt_bytes(u->va_hi - u->va_lo, sz, sizeof sz), 0);
			rs_outbuf_putc(&r, ')');
		}
		if (nrk > 4 || more) {
			RS_OUTBUF_LIT(&r, " … (");
			rs_outbuf_u64(&r, nrk, 0);
			RS_OUTBUF_LIT(&r, " rkeys)");
		}
		rs_outbuf_putc(&r, '\0');
		rs_para(out, v->o->width, "  ", "    ", rb);
	}
}

static void anomaly_section(FILE *out, const struct rs_view *v)
{
	fprintf(out, "\n%sAnomalies%s\n", BOLD(v->o), OFF(v->o));
	if (!v->anomalies->len) {
		fprintf(out, "  none\n");
		return;
	}
	GArray *groups = rs_text_full(v) ? NULL : rs_anomaly_groups(v->a, v->anomalies);
	for (guint i = 0; i < (groups ? groups->len : v->anomalies->len); i++) {
		const struct rs_anom_group *g = groups ? &g_array_index(groups, struct rs_anom_group, i) : NULL;
		if (g && g->n > 1) {
			GString *s = g_string_new(NULL);
			rs_group_describe(v, g, s);
			rs_para(out, v->o->width, "  - ", "    ", s->str);
			g_string_free(s, TRUE);
			continue;
		}
		const struct rs_anomaly *anomaly = v->anomalies->pdata[g ? g->idx[0] : i];
		struct rs_anomaly_info ai, *an = &ai;
		struct rs_capture_info cap;
		rs_anomaly_get_info(v->a, anomaly, an);
		rs_capture_get_info(v->a, &cap);
		char d[1024], fr[200], line[1280];
		rs_anomaly_describe(v, anomaly, d, sizeof d);
		rs_fmt_frames(an->frames, an->nframes, an->count, cap.files > 1, fr, sizeof fr);
		snprintf(line, sizeof line, "%s%s%s", d, an->nframes == 1 ? "; frame " : an->nframes ? "; frames " : "", an->nframes ? fr : "");
		char *safe = rs_escape_ctl(line, false); /* it may quote a file name */
		rs_para(out, v->o->width, "  - ", "    ", safe);
		g_free(safe);
	}
	rs_anomaly_groups_free(groups);
}

/* With --qp or --conn: the lines above cover the whole capture, the
 * sections below the selection alone. */
static void selection_line(FILE *out, const struct rs_view *v)
{
	char line[160];
	if (v->o->qp >= 0)
		snprintf(line, sizeof line, "the connection of QP 0x%x (--qp): the sections below show it alone; the "
			 "lines above are the whole capture's", (unsigned)v->o->qp);
	else if (v->o->conn >= 0)
		snprintf(line, sizeof line, "connection %u (--conn): the sections below show it alone; the lines above "
			 "are the whole capture's", (unsigned)v->o->conn);
	else
		return;
	rs_para(out, v->o->width, "Selected   ", INDENT, line);
}

int rs_report_text(FILE *out, const struct rs_analyzer *a, const struct rs_report_opts *o)
{
	struct rs_view v;
	rs_view_init(&v, a, o);
	if (o->text_mode == RS_TEXT_BRIEF) {
		rs_text_brief(out, &v);
		rs_view_free(&v);
		return ferror(out) ? -1 : 0;
	}
	capture_section(out, &v);
	opcode_section(out, &v);
	selection_line(out, &v);
	conn_section(out, &v);
	rs_text_ulp_queues(out, &v);
	rs_text_qps(out, &v);
	rs_text_latency(out, &v);
	rs_text_modules(out, &v);
	memory_section(out, &v);
	rs_text_congestion(out, &v);
	anomaly_section(out, &v);
	rs_view_free(&v);
	return ferror(out) ? -1 : 0;
}
