/*
 * text_group.c — a group of findings (analyzer/groups.c decides which are
 * alike) said once: how many subjects, between which hosts, what, how
 * large each, why, the largest few and where to look. The text summary's
 * anomaly list and --brief's verdict lines word them here.
 */
#include <inttypes.h>
#include <string.h>

#include "report/text.h"

/* "172.17.242.47 ↔ .56": the second address without the first's leading
 * octets when both are dotted IPv4 addresses that share them. */
void rs_text_hosts(const struct rs_view *v, const struct rs_addr *ax, const struct rs_addr *ay, bool one_way,
		   uint32_t pairs, char *buf, size_t len)
{
	if (pairs > 1) {
		snprintf(buf, len, "over %" PRIu32 " host pairs", pairs);
		return;
	}
	char x[96], y[96];
	/* Either way: the lower address first, as the same pair reads alike. */
	bool swap = !one_way && memcmp(ax, ay, sizeof *ax) > 0;
	rs_fmt_addr(v->names, swap ? ay : ax, x, sizeof x);
	rs_fmt_addr(v->names, swap ? ax : ay, y, sizeof y);
	const char *arrow = one_way ? "→" : "↔";
	size_t cut = 0;
	if (ax->kind == RS_ADDR_IPV4 && ay->kind == RS_ADDR_IPV4 && strspn(x, "0123456789.") == strlen(x) &&
	    strspn(y, "0123456789.") == strlen(y)) {
		for (size_t i = 0; x[i] && x[i] == y[i]; i++)
			if (x[i] == '.')
				cut = i;
	}
	snprintf(buf, len, "%s %s %s", x, arrow, y + cut);
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* What the members have: "PSNs skipped", with its range. */
static int what(const struct rs_view *v, const struct rs_anom_group *g, char *buf, size_t len)
{
	char t[32];
	struct rs_cong_info ci;
	rs_cong_get_info(v->a, &ci);
	switch ((enum rs_anom)g->type) {
	case RS_AN_GAP:
		return snprintf(buf, len, "%sPSNs skipped", g->code ? "response " : "");
	case RS_AN_DSCP:
		if (g->code == RS_DSCP_ASYM)
			return snprintf(buf, len, "sent with DSCP %u, their peers' directions with DSCP %u: the two "
					"directions of each connection are in different traffic classes",
					g->cause >> 8, g->cause & 0xFF);
		return snprintf(buf, len, "data packets not with the data DSCP %u --dscp gave", ci.dscp_data);
	case RS_AN_RETRANS:
		return snprintf(buf, len, "request packets re-sent by the requester");
	case RS_AN_OOO:
		return snprintf(buf, len, "%s arrived out of order (one late packet filling a gap)",
				g->code ? "responses" : "requests");
	case RS_AN_NAK:
		return snprintf(buf, len, "NAKs \"%s\" (code %u)", rs_nak_code_name((uint8_t)g->code), g->code);
	case RS_AN_RNR:
		return snprintf(buf, len, "RNR NAKs: receiver not ready, retry after %s (timer %u)",
				rs_fmt_ns(rs_rnr_timer_us((uint8_t)g->code) * 1000ull, t, sizeof t), g->code);
	case RS_AN_DUP_ACK:
		return snprintf(buf, len, "duplicate ACKs (PSN not beyond the previous ACK)");
	case RS_AN_ICRC_BAD:
		return snprintf(buf, len, "frames with a bad ICRC (corrupted in flight, a broken sender, or bytes "
				"changed in the file after the capture)");
	case RS_AN_ECN_CE:
		return snprintf(buf, len, "packets marked ECN Congestion Experienced");
	case RS_AN_CNP:
		return snprintf(buf, len, "congestion notifications (CNP) received: the senders should slow down");
	case RS_AN_NOT_ECT:
		return snprintf(buf, len, "packets sent Not-ECT while the connection sees congestion (CE marks or "
				"CNPs): switches cannot mark them, only drop or pause them");
	case RS_AN_RETH_LENGTH:
		return snprintf(buf, len, "RDMA WRITE Only packets whose RETH DMA length is not the payload they "
				"carry (IBA 9.4.1: they must be equal)");
	case RS_AN_PSN_START:
		return snprintf(buf, len, "first PSN differs from the Starting PSN agreed in the CM exchange");
	default:
		return snprintf(buf, len, "%s", rs_anom_key((enum rs_anom)g->type));
	}
}

/* Whether the members' sizes are worth a range and a ranking. */
static bool sized(const struct rs_anom_group *g)
{
	return !(g->type == RS_AN_PSN_START || (g->type == RS_AN_DSCP && g->code == RS_DSCP_ASYM));
}

/* Skipped PSNs' cause in a word or two each: "not captured, undetermined". */
static void gap_cause_short(const struct rs_anom_group *g, char *buf, size_t len)
{
	static const char *const part[RS_GAP_PARTS] = { "not captured", "lost", "re-sent", "re-sent early", "late",
							 "undetermined" };
	size_t o = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < RS_GAP_PARTS && o < len; i++)
		if ((g->cause >> i) & 1) {
			int k = snprintf(buf + o, len - o, "%s%s", o ? ", " : "", part[i]);
			o += k > 0 ? (size_t)k : 0;
		}
}

const char *rs_group_head(const struct rs_view *v, const struct rs_anom_group *g, bool brief, char *buf, size_t len)
{
	char h[200], w[400], c[120] = "";
	rs_text_hosts(v, &g->x, &g->y, g->one_way, g->pairs, h, sizeof h);
	what(v, g, w, sizeof w);
	if (brief && g->type == RS_AN_GAP)
		gap_cause_short(g, c, sizeof c);
	const char *noun = g->qps ? plural(g->n, "QP", "QPs") : plural(g->n, "half-flow", "half-flows");
	int n = snprintf(buf, len, "%u %s %s: %s%s%s%s", g->n, noun, h, w, c[0] ? " (" : "", c, c[0] ? ")" : "");
	if (sized(g) && n > 0 && (size_t)n < len) {
		if (g->min == g->max)
			snprintf(buf + n, len - (size_t)n, ", %" PRIu64 " each", g->min);
		else if (brief)
			snprintf(buf + n, len - (size_t)n, ", %" PRIu64 "–%" PRIu64 " each", g->min, g->max);
		else
			snprintf(buf + n, len - (size_t)n, ", %" PRIu64 "–%" PRIu64 " each (%" PRIu64 " in all)", g->min,
				 g->max, g->sum);
	}
	return buf;
}

/* Skipped PSNs: how they were settled, in the words of one half-flow's. */
static void gap_cause(const struct rs_anom_group *g, GString *s)
{
	static const char *const part[RS_GAP_PARTS] = {
		"not captured (acknowledged by the responder, never NAKed or re-sent: the capture dropped them, not "
		"the network)",
		"lost (NAKed by the responder as missing)",
		"re-sent, their first copy not in the capture",
		"re-sent before their first copy, which came after (reordered)",
		"arrived late (reordered)",
		NULL,
	};
	unsigned k = 0;
	for (unsigned i = 0; i < RS_GAP_PARTS; i++)
		k += (g->cause >> i) & 1;
	g_string_append(s, k == 1 ? "; all " : "; on each, some ");
	bool first = true;
	for (unsigned i = 0; i < RS_GAP_PARTS; i++) {
		if (!((g->cause >> i) & 1))
			continue;
		if (!first)
			g_string_append(s, ", some ");
		first = false;
		if (part[i])
			g_string_append(s, part[i]);
		else
			g_string_append_printf(s, "undetermined (not in the capture; %s)",
					       g->code ? "READ responses are never acknowledged"
					       : g->cause & RS_GAP_NO_ACKS ? "this transport has no acknowledgements"
									: "no acknowledgement in the capture covers them");
	}
}

/* Requests re-sent: why, in one half-flow's words. */
static void resent_cause(const struct rs_anom_group *g, GString *s)
{
	static const char *const what[RS_RESEND__COUNT] = {
		[RS_RESEND_NAK] = "after a NAK (go-back-N)",
		[RS_RESEND_RNR] = "after an RNR NAK",
		[RS_RESEND_TIMEOUT] = "on timeout, no NAK",
		[RS_RESEND_READ] = "as READ or atomic retries after a later request's answer came first",
		[RS_RESEND_UNKNOWN] = ("with no NAK in a capture that holds none of the responder's packets from "
				       "before them (cause unknown)"),
	};
	unsigned k = 0;
	for (unsigned c = 0; c < RS_RESEND__COUNT; c++)
		k += (g->cause >> c) & 1;
	const char *sep = k == 1 ? "; all " : "; on each, some ";
	for (unsigned c = 0; c < RS_RESEND__COUNT; c++)
		if ((g->cause >> c) & 1) {
			g_string_append_printf(s, "%s%s", sep, what[c]);
			sep = ", some ";
		}
	if (g->cause & RS_RESENT_EARLY)
		g_string_append(s, "; on each, timeout retries sooner than half the Local ACK Timeout of the CM REQ lets a "
			       "timer fire");
	if (g->cause & RS_RESENT_RNR_EARLY)
		g_string_append(s, "; on each, RNR retries sooner than the RNR timer asked");
}

static int fref_cmp(const struct rs_fref *a, const struct rs_fref *b)
{
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return a->frame < b->frame ? -1 : a->frame > b->frame;
}

void rs_group_describe(const struct rs_view *v, const struct rs_anom_group *g, GString *s)
{
	char b[1024];
	g_string_append(s, rs_group_head(v, g, false, b, sizeof b));
	if (g->type == RS_AN_GAP)
		gap_cause(g, s);
	else if (g->type == RS_AN_RETRANS)
		resent_cause(g, s);
	if (sized(g) && g->min != g->max) {
		g_string_append(s, "; worst:");
		for (unsigned i = 0; i < g->nworst; i++) {
			struct rs_flow_info fi;
			struct rs_anomaly_info ai;
			rs_anomaly_get_info(v->a, v->anomalies->pdata[g->worst[i]], &ai);
			rs_flow_get_info(ai.flow, &fi);
			g_string_append_printf(s, "%s QP 0x%x %" PRIu64, i ? "," : "", fi.dest_qp, g->worst_measure[i]);
		}
	}
	/* The first frames of all of them: the RS_SAMPLE_FRAMES earliest,
	 * kept in order as they come. */
	struct rs_fref fr[RS_SAMPLE_FRAMES];
	uint32_t nf = 0;
	uint64_t count = 0;
	for (guint i = 0; i < g->n; i++) {
		struct rs_anomaly_info ai;
		rs_anomaly_get_info(v->a, v->anomalies->pdata[g->idx[i]], &ai);
		count += ai.count > ai.nframes ? ai.count : ai.nframes;
		for (uint32_t k = 0; k < ai.nframes; k++) {
			uint32_t at = nf;
			while (at > 0 && fref_cmp(&ai.frames[k], &fr[at - 1]) < 0)
				at--;
			if (at >= RS_SAMPLE_FRAMES)
				continue;
			uint32_t last = nf < RS_SAMPLE_FRAMES ? nf : RS_SAMPLE_FRAMES - 1;
			memmove(&fr[at + 1], &fr[at], (last - at) * sizeof fr[0]);
			fr[at] = ai.frames[k];
			nf += nf < RS_SAMPLE_FRAMES;
		}
	}
	struct rs_capture_info cap;
	rs_capture_get_info(v->a, &cap);
	if (nf) {
		rs_fmt_frames(fr, nf, count, cap.files > 1, b, sizeof b);
		g_string_append_printf(s, "; frame%s %s", nf == 1 ? "" : "s", b);
	}
	g_string_append(s, " (--full lists each)");
}
