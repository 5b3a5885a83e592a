/*
 * report_text.c — the one-screen summary of `rocestat FILE`.
 *
 * Sections: the capture, the opcode mix, CM connections, queue pairs by
 * bytes with throughput and health, latency, remote memory touched, and the
 * anomalies with frame numbers to jump to in the walkthrough or Wireshark.
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "report/outbuf.h"
#include "report/view.h"

#define BOLD(o) ((o)->color ? "\033[1m" : "")
#define RED(o) ((o)->color ? "\033[31m" : "")
#define OFF(o) ((o)->color ? "\033[0m" : "")

/* `s` in a column of `width` display cells (UTF-8 code points, not bytes:
 * "→", "µ", "✗"), cut with "…" if longer, padded on the left (`right`) or
 * the right. Into o: the rows
 * of a large report have thousands of cells, and a stdio call per piece
 * (each takes the stream's lock) was a fifth of writing them. */
static void cell_to(struct rs_outbuf *o, const char *s, int width, bool right)
{
	int w = 0, keep = width - 1;
	size_t n = 0, cut = SIZE_MAX; /* cut: where character number `keep` starts */
	for (; s[n]; n++)
		if (((unsigned char)s[n] & 0xC0) != 0x80 && w++ == keep)
			cut = n;
	if (w > width) {
		rs_outbuf_put(o, s, cut == SIZE_MAX ? n : cut);
		RS_OUTBUF_LIT(o, "…");
		return;
	}
	if (right && w < width)
		rs_outbuf_spaces(o, (size_t)(width - w));
	rs_outbuf_put(o, s, n);
	if (!right && w < width)
		rs_outbuf_spaces(o, (size_t)(width - w));
}

/* The same straight to out (headers and the few rows of small sections). */
static void cell(FILE *out, const char *s, int width, bool right)
{
	char b[256];
	struct rs_outbuf o;
	rs_outbuf_init(&o, out, b, sizeof b);
	cell_to(&o, s, width, right);
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

/* Once per file that holds sliced frames: how many, to what length, and
 * whether its records admit the cut. Not an anomaly: header-only capture is
 * how RDMA is captured at speed; the user needs to know what it leaves
 * unproven (payload bytes, the ICRC). */
static void sliced_line(FILE *out, const struct rs_analyzer *a, const struct rs_file *fi)
{
	uint64_t snap = fi->sliced[RS_SLICE_SNAPLEN], rew = fi->sliced[RS_SLICE_REWRITTEN];
	if (!snap && !rew)
		return;
	char len[48];
	if (fi->sliced_cap_min == fi->sliced_cap_max)
		snprintf(len, sizeof len, "%u bytes", fi->sliced_cap_min);
	else
		snprintf(len, sizeof len, "%u-%u bytes", fi->sliced_cap_min, fi->sliced_cap_max);
	fprintf(out, "Sliced     %" PRIu64 " frame%s cut to %s by the capture", snap + rew, snap + rew == 1 ? "" : "s",
		len);
	if (a->files->len > 1)
		fprintf(out, " in %s", fi->name);
	if (rew && snap)
		fprintf(out, " (%" PRIu64 " with the record length rewritten to the cut)", rew);
	else if (rew)
		fprintf(out, " (the record lengths were rewritten to the cut)");
	fprintf(out, ":\n           their lengths come from the IP/UDP headers; payload bytes and ICRC not captured\n");
}

/* Capture completeness: how much of the request PSN range the file shows,
 * and what became of the rest. Only when something is missing. */
static void psn_lines(FILE *out, const struct rs_analyzer *a)
{
	const struct rs_psn_totals *t = &a->psns;
	if (!t->missing)
		return;
	struct rs_gaps g = rs_gaps_of_capture(t);
	fprintf(out, "PSNs       %" PRIu64 " of %" PRIu64 " request PSNs in the capture (%.1f%%); %" PRIu64
		" skipped:\n", t->range - g.absent, t->range, 100.0 * (double)(t->range - g.absent) / (double)t->range,
		g.skipped);
	struct {
		uint64_t n;
		const char *what;
	} part[] = {
		{ g.not_captured, "not captured: ACKed by the responder, never NAKed or re-sent" },
		{ g.lost, "lost: NAKed by the responder as missing" },
		{ g.resent, "re-sent by the requester, the first copy not captured" },
		{ g.reordered, "arrived late (reordered)" },
		{ g.undetermined, "undetermined: no ACK in the capture covers them" },
	};
	for (unsigned i = 0; i < G_N_ELEMENTS(part); i++)
		if (part[i].n)
			fprintf(out, "           %" PRIu64 " %s\n", part[i].n, part[i].what);
}

static void capture_section(FILE *out, const struct rs_view *v)
{
	const struct rs_analyzer *a = v->a;
	char b1[32], t1[48], t2[48];

	fprintf(out, "%srocestat %s%s  ·  ", BOLD(v->o), ROCESTAT_VERSION, OFF(v->o));
	for (guint i = 0; i < a->files->len; i++) {
		const struct rs_file *fi = a->files->pdata[i];
		fprintf(out, "%s%s", i ? ", " : "", fi->name);
	}
	fputc('\n', out);
	double span = a->have_ts ? (a->last_ts - a->first_ts) / 1e9 : 0;
	fprintf(out, "Capture    %" PRIu64 " frame%s, %s, %.3f s", a->frames, a->frames == 1 ? "" : "s",
		rs_fmt_bytes(a->bytes, b1, sizeof b1), span);
	if (a->have_ts) {
		fmt_time(a->first_ts, t1, sizeof t1);
		fmt_time(a->last_ts, t2, sizeof t2);
		fprintf(out, "  (%s → %s)", t1, t2 + (strncmp(t1, t2, 11) == 0 ? 11 : 0));
	}
	fputc('\n', out);
	fprintf(out, "           ");
	bool any = false;
	if (a->roce[RS_ROCE_V2]) {
		fprintf(out, "RoCE v2 %" PRIu64 " (IPv4 %" PRIu64 ", IPv6 %" PRIu64 ")", a->roce[RS_ROCE_V2], a->ipv4,
			a->ipv6);
		any = true;
	}
	if (a->roce[RS_ROCE_V1]) {
		fprintf(out, "%sRoCE v1 %" PRIu64, any ? "  ·  " : "", a->roce[RS_ROCE_V1]);
		any = true;
	}
	if (a->roce[RS_ROCE_IB]) {
		fprintf(out, "%sInfiniBand %" PRIu64, any ? "  ·  " : "", a->roce[RS_ROCE_IB]);
		any = true;
	}
	fprintf(out, "%snon-RoCE %" PRIu64, any ? "  ·  " : "", a->roce[0]);
	fputc('\n', out);
	fprintf(out, "           ICRC ok %" PRIu64 ", bad %s%" PRIu64 "%s, unchecked %" PRIu64, a->icrc[RS_CRC_OK],
		a->icrc[RS_CRC_BAD] ? RED(v->o) : "", a->icrc[RS_CRC_BAD], OFF(v->o), a->icrc[RS_CRC_UNCHECKED]);
	if (a->icrc_port_rewritten)
		fprintf(out, ", port rewritten %" PRIu64, a->icrc_port_rewritten);
	if (a->roce[RS_ROCE_IB])
		fprintf(out, "  ·  VCRC bad %" PRIu64, a->vcrc_bad);
	uint64_t bad = a->outcome[RS_TRUNCATED] + a->outcome[RS_MALFORMED] + a->outcome[RS_UNSUPPORTED];
	fprintf(out, "  ·  truncated %" PRIu64 ", malformed %" PRIu64 ", unsupported %" PRIu64 "%s\n",
		a->outcome[RS_TRUNCATED], a->outcome[RS_MALFORMED], a->outcome[RS_UNSUPPORTED],
		bad ? "  (see anomalies)" : "");
	if (a->pmtu)
		fprintf(out, "           path MTU %u (from First/Middle payloads)\n", a->pmtu);
	if (a->icrc_port_rewritten)
		fprintf(out, "Sniffer    %" PRIu64 " frame%s: UDP source port rewritten to 4791 by the capture,\n"
			"           not corruption: %s ICRC matches the NIC's port (e.g. %u)\n",
			a->icrc_port_rewritten, a->icrc_port_rewritten == 1 ? "" : "s",
			a->icrc_port_rewritten == 1 ? "its" : "their", a->icrc_port_example);
	psn_lines(out, a);
	for (guint i = 0; i < a->files->len; i++)
		sliced_line(out, a, a->files->pdata[i]);
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
	int ops[256], n = 0;
	for (int i = 0; i < 256; i++)
		if (a->opcodes[i])
			ops[n++] = i;
	if (!n)
		return;
	g_qsort_with_data(ops, n, sizeof ops[0], by_count_desc, (gpointer)a->opcodes);
	fprintf(out, "Opcodes    ");
	int col = 11;
	for (int i = 0; i < n; i++) {
		char item[80];
		int w = snprintf(item, sizeof item, "%s %" PRIu64, rs_opinfo((uint8_t)ops[i])->name, a->opcodes[ops[i]]);
		if (i && col + w + 3 > 118) {
			fprintf(out, "\n           ");
			col = 11;
		} else if (i) {
			fputs(" · ", out);
			col += 3;
		}
		fputs(item, out);
		col += w;
	}
	fputc('\n', out);
}

/* "(N evicted connections: 3 established, 1 rejected)" under --max-flows. */
static void conns_evicted_line(FILE *out, const struct rs_analyzer *a)
{
	if (!a->conns_evicted)
		return;
	fprintf(out, "  (%" PRIu64 " evicted connection%s:", a->conns_evicted, a->conns_evicted == 1 ? "" : "s");
	const char *sep = " ";
	for (unsigned k = 0; k < RS_CONN_STATES; k++)
		if (a->conns_evicted_by_state[k]) {
			fprintf(out, "%s%" PRIu64 " %s", sep, a->conns_evicted_by_state[k], rs_conn_state_names[k]);
			sep = ", ";
		}
	fputs(")\n", out);
}

static void conn_section(FILE *out, const struct rs_view *v)
{
	const struct rs_analyzer *a = v->a;
	if (!v->conns->len) {
		if (a->conns_evicted && v->o->qp < 0) {
			fprintf(out, "\n%sConnections (CM)%s\n", BOLD(v->o), OFF(v->o));
			conns_evicted_line(out, a);
		}
		return;
	}
	fprintf(out, "\n%sConnections (CM)%s\n", BOLD(v->o), OFF(v->o));
	fprintf(out, "  %-3s ", "#");
	cell(out, "client", 30, false);
	cell(out, " server", 31, false);
	cell(out, " service", 14, false);
	cell(out, " state", 13, false);
	cell(out, "REQ→REP", 10, true);
	cell(out, "REP→RTU", 10, true);
	fputs("  data\n", out);
	for (guint i = 0; i < v->conns->len; i++) {
		const struct rs_conn *c = v->conns->pdata[i];
		char cl[128], sv[128], ca[96], sa[96], svc[48], d1[16], d2[16];
		rs_fmt_addr(v->names, &c->client, ca, sizeof ca);
		rs_fmt_addr(v->names, &c->server, sa, sizeof sa);
		/* A QPN of 0 is not a data QP: that side's message was not seen. */
		if (!c->client_qpn)
			snprintf(cl, sizeof cl, "%s", ca);
		else
			snprintf(cl, sizeof cl, "%s QP 0x%x", ca, c->client_qpn);
		if (!c->server_qpn)
			snprintf(sv, sizeof sv, "%s", sa);
		else
			snprintf(sv, sizeof sv, "%s QP 0x%x", sa, c->server_qpn);
		double s1 = rs_conn_step_ms(c, UMAD_CM_ATTR_REQ, UMAD_CM_ATTR_REP);
		double s2 = rs_conn_step_ms(c, UMAD_CM_ATTR_REP, UMAD_CM_ATTR_RTU);
		if (c->kind == RS_CONN_SIDR)
			s1 = rs_conn_step_ms(c, UMAD_CM_ATTR_SIDR_REQ, UMAD_CM_ATTR_SIDR_REP), s2 = -1;
		snprintf(d1, sizeof d1, s1 >= 0 ? "%.2f ms" : "-", s1);
		snprintf(d2, sizeof d2, s2 >= 0 ? "%.2f ms" : "-", s2);
		enum rs_conn_state state = rs_conn_state_of(c);
		const char *st = rs_conn_state_names[state];
		bool alarm = state == RS_CONN_REJECTED || state == RS_CONN_INCOMPLETE;
		const char *data = c->kind == RS_CONN_SIDR ? (c->c2s ? "UD seen" : "no UD seen")
				   : c->c2s && c->s2c ? "both ways" : c->c2s || c->s2c ? "one way" : "none seen";
		fprintf(out, "  %-3u ", c->id);
		cell(out, cl, 30, false);
		fputc(' ', out);
		cell(out, sv, 30, false);
		fputc(' ', out);
		cell(out, rs_fmt_service(c->service_id, svc, sizeof svc), 13, false);
		fprintf(out, " %s", alarm ? RED(v->o) : "");
		cell(out, st, 12, false);
		fputs(OFF(v->o), out);
		cell(out, d1, 10, true);
		cell(out, d2, 10, true);
		fprintf(out, "  %s\n", data);
		/* Second line: what a reader needs to find the data. */
		fprintf(out, "      ");
		if (c->kind == RS_CONN_RC) {
			if (c->have_rep_psn)
				fprintf(out, "client sends from PSN 0x%06x, ", c->rep_psn);
			if (c->have_req_psn)
				fprintf(out, "server from PSN 0x%06x, ", c->req_psn);
			fprintf(out, "%s", rs_cm_transport_type_name(c->transport_type));
		} else {
			fprintf(out, "Q_Key 0x%x, status %u", c->qkey, c->sidr_status);
		}
		if (c->have_cma) {
			char ip1[RS_ADDR_STRLEN], ip2[RS_ADDR_STRLEN];
			struct rs_addr s = { .kind = c->cma.ip_version == 4 ? RS_ADDR_IPV4 : RS_ADDR_IPV6 }, d = s;
			memcpy(s.b, c->cma.ip_version == 4 ? c->cma.src_addr + 12 : c->cma.src_addr, c->cma.ip_version == 4 ? 4 : 16);
			memcpy(d.b, c->cma.ip_version == 4 ? c->cma.dst_addr + 12 : c->cma.dst_addr, c->cma.ip_version == 4 ? 4 : 16);
			fprintf(out, ", RDMA CM %s:%u → %s", rs_addr_format(&s, ip1), c->cma.src_port, rs_addr_format(&d, ip2));
		}
		if (c->kind == RS_CONN_RC && c->n[UMAD_CM_ATTR_REJ - UMAD_CM_ATTR_REQ])
			fprintf(out, ", REJ: %s (%u)", rs_cm_rej_reason_name(c->rej_reason), c->rej_reason);
		fprintf(out, ", frames");
		static const uint16_t order[] = { UMAD_CM_ATTR_REQ, UMAD_CM_ATTR_MRA, UMAD_CM_ATTR_REP, UMAD_CM_ATTR_REJ,
						  UMAD_CM_ATTR_RTU, UMAD_CM_ATTR_DREQ, UMAD_CM_ATTR_DREP,
						  UMAD_CM_ATTR_SIDR_REQ, UMAD_CM_ATTR_SIDR_REP };
		for (unsigned k = 0; k < G_N_ELEMENTS(order); k++) {
			unsigned j = order[k] - UMAD_CM_ATTR_REQ;
			if (c->n[j])
				fprintf(out, " %s %" PRIu64 "%s", rs_cm_attr_name(order[k]), c->at[j].frame,
					c->n[j] > 1 ? "+" : "");
		}
		fputc('\n', out);
	}
	if (v->o->qp < 0)
		conns_evicted_line(out, a);
}

static void qp_section(FILE *out, const struct rs_view *v)
{
	const struct rs_analyzer *a = v->a;
	if (!v->flows->len)
		return;
	fprintf(out, "\n%sQueue pairs%s (by bytes; payload counts each PSN once)\n", BOLD(v->o), OFF(v->o));
	fputs("  ", out);
	cell(out, "src → dst  QP", 42, false);
	fprintf(out, " %-4s %-8s %7s %10s  ", "tr", "pairing", "pkts", "payload");
	cell(out, "messages", 24, false);
	fprintf(out, " %11s %11s %5s %4s %4s %4s %4s %5s\n", "avg rate", "peak rate", "retx", "NAK", "RNR", "CE",
		"CNP", "ICRC✗");
	/* The rows' fields go through a small buffer, not fprintf: parsing its
	 * formats was most of a report with a million QPs. */
	char rb[512];
	struct rs_outbuf r;
	rs_outbuf_init(&r, out, rb, sizeof rb);
	for (guint i = 0; i < v->flows->len; i++) {
		const struct rs_flow *fl = rs_view_flow(v, i);
		char lbl[160], pay[24], msgs[96], r1[24], r2[24];
		rs_fmt_flow_pair(v->names, &fl->key, " ", lbl, sizeof lbl);
		rs_fmt_msgs(rs_msgs(fl), msgs, sizeof msgs);
		uint64_t retx = rs_flow_retransmitted(fl);
		uint64_t nak = rs_flow_naks_total(fl);
		bool alarm = retx || nak || rs_rare(fl)->rnr_naks || rs_rare(fl)->icrc_bad;
		RS_OUTBUF_LIT(&r, "  ");
		cell_to(&r, lbl, 42, false);
		rs_outbuf_putc(&r, ' ');
		rs_outbuf_str(&r, fl->is_cm_qp ? (fl->key.qpn ? "CM" : "SMI") : rs_flow_transport_name(fl), -4);
		rs_outbuf_putc(&r, ' ');
		rs_outbuf_str(&r, fl->is_cm_qp ? "" : rs_flow_pairing(fl), -8);
		rs_outbuf_putc(&r, ' ');
		rs_outbuf_u64(&r, fl->packets, 7);
		rs_outbuf_putc(&r, ' ');
		rs_outbuf_str(&r, rs_fmt_bytes(fl->payload, pay, sizeof pay), 10);
		RS_OUTBUF_LIT(&r, "  ");
		cell_to(&r, msgs, 24, false);
		rs_outbuf_putc(&r, ' ');
		rs_outbuf_str(&r, rs_fmt_rate(rs_flow_avg_Bps(a, fl), r1, sizeof r1), 11);
		rs_outbuf_putc(&r, ' ');
		rs_outbuf_str(&r, rs_fmt_rate(rs_flow_peak_Bps(fl, a->opts.interval_ns), r2, sizeof r2), 11);
		rs_outbuf_putc(&r, ' ');
		rs_outbuf_str(&r, alarm ? RED(v->o) : "", 0);
		rs_outbuf_u64(&r, retx, 5);
		rs_outbuf_putc(&r, ' ');
		rs_outbuf_u64(&r, nak, 4);
		rs_outbuf_putc(&r, ' ');
		rs_outbuf_u64(&r, rs_rare(fl)->rnr_naks, 4);
		rs_outbuf_str(&r, OFF(v->o), 0);
		rs_outbuf_putc(&r, ' ');
		rs_outbuf_u64(&r, rs_rare(fl)->ecn_ce, 4);
		rs_outbuf_putc(&r, ' ');
		rs_outbuf_u64(&r, rs_rare(fl)->cnps, 4);
		rs_outbuf_putc(&r, ' ');
		rs_outbuf_u64(&r, rs_rare(fl)->icrc_bad, 5);
		rs_outbuf_putc(&r, '\n');
		rs_outbuf_flush(&r);
	}
	if (a->evicted)
		fprintf(out, "  (%" PRIu64 " evicted half-flows: %" PRIu64 " packets, %" PRIu64 " payload bytes)\n", a->evicted,
			a->evicted_sum.packets, a->evicted_sum.payload);
}

static void latency_section(FILE *out, const struct rs_view *v)
{
	bool header = false;
	for (guint i = 0; i < v->flows->len; i++) {
		struct rs_flow *fl = rs_view_flow(v, i);
		if (!fl->lat)
			continue;
		bool any = false;
		for (int k = 0; k < RS_LAT__COUNT; k++)
			any |= fl->lat->lat[k] && fl->lat->lat[k]->n > 0;
		if (!any)
			continue;
		if (!header) {
			fprintf(out, "\n%sLatency%s (seen at the capture point)", BOLD(v->o), OFF(v->o));
			fprintf(out, "%*s%10s %10s %10s %10s %8s\n", 7, "", "min", "median", "p99", "max", "samples");
			header = true;
		}
		char lbl[200], rb[256];
		struct rs_outbuf r;
		rs_outbuf_init(&r, out, rb, sizeof rb);
		RS_OUTBUF_LIT(&r, "  ");
		rs_outbuf_str(&r, rs_flow_label(v->names, fl, lbl, sizeof lbl), 0);
		rs_outbuf_putc(&r, '\n');
		for (int k = 0; k < RS_LAT__COUNT; k++) {
			struct rs_latvec *l = fl->lat->lat[k];
			if (!l || !l->n)
				continue;
			char t[24];
			uint64_t q[2];
			rs_lat_quantiles(l, (const double[]){ 0.5, 0.99 }, q, 2);
			RS_OUTBUF_LIT(&r, "    ");
			cell_to(&r, rs_lat_label((enum rs_lat_kind)k), 38, false);
			cell_to(&r, rs_fmt_ns(l->min, t, sizeof t), 10, true);
			rs_outbuf_putc(&r, ' ');
			cell_to(&r, rs_fmt_ns(q[0], t, sizeof t), 10, true);
			rs_outbuf_putc(&r, ' ');
			cell_to(&r, rs_fmt_ns(q[1], t, sizeof t), 10, true);
			rs_outbuf_putc(&r, ' ');
			cell_to(&r, rs_fmt_ns(l->max, t, sizeof t), 10, true);
			rs_outbuf_putc(&r, ' ');
			rs_outbuf_u64(&r, l->n, 8);
			rs_outbuf_putc(&r, '\n');
		}
		rs_outbuf_flush(&r);
	}
}

static void memory_section(FILE *out, const struct rs_view *v)
{
	bool header = false;
	char rb[512];
	struct rs_outbuf r;
	rs_outbuf_init(&r, out, rb, sizeof rb);
	for (guint i = 0; i < v->flows->len; i++) {
		const struct rs_flow *fl = rs_view_flow(v, i);
		if (!fl->rkeys || !fl->rkeys->n)
			continue;
		if (!header) {
			fprintf(out, "\n%sRemote memory%s (rkeys each requester used)\n", BOLD(v->o), OFF(v->o));
			header = true;
		}
		/* By hand, not fprintf: one row per requester, a million of them
		 * in a large capture. */
		char lbl[200];
		RS_OUTBUF_LIT(&r, "  ");
		rs_outbuf_str(&r, rs_flow_label(v->names, fl, lbl, sizeof lbl), 0);
		rs_outbuf_putc(&r, ':');
		for (uint32_t k = 0; k < fl->rkeys->n && k < 4; k++) {
			const struct rs_rkey_use *u = &fl->rkeys->use[k];
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
		if (fl->rkeys->n > 4 || fl->rkeys->more) {
			RS_OUTBUF_LIT(&r, " … (");
			rs_outbuf_u64(&r, fl->rkeys->n, 0);
			RS_OUTBUF_LIT(&r, " rkeys)");
		}
		rs_outbuf_putc(&r, '\n');
	}
	rs_outbuf_flush(&r);
}

static void anomaly_section(FILE *out, const struct rs_view *v)
{
	fprintf(out, "\n%sAnomalies%s\n", BOLD(v->o), OFF(v->o));
	if (!v->anomalies->len) {
		fprintf(out, "  none\n");
		return;
	}
	for (guint i = 0; i < v->anomalies->len; i++) {
		const struct rs_anomaly *an = v->anomalies->pdata[i];
		char d[512], fr[200];
		rs_anomaly_describe(v, an, d, sizeof d);
		rs_fmt_frames(an, v->a, fr, sizeof fr);
		fprintf(out, "  - %s%s%s\n", d, an->nframes ? "; frames " : "", an->nframes ? fr : "");
	}
}

int rs_report_text(FILE *out, struct rs_analyzer *a, const struct rs_report_opts *o)
{
	struct rs_view v;
	rs_view_init(&v, a, o);
	capture_section(out, &v);
	opcode_section(out, &v);
	conn_section(out, &v);
	qp_section(out, &v);
	latency_section(out, &v);
	memory_section(out, &v);
	anomaly_section(out, &v);
	rs_view_free(&v);
	return ferror(out) ? -1 : 0;
}
