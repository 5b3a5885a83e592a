/*
 * expect.c — --expect EXPR: pass/fail assertions over the analysis, for
 * test harnesses, and --expect-junit FILE, their results as JUnit XML.
 *
 * The grammar (every name in the table below; `rocestat --expect-names`
 * prints them with what each counts and the JSON field it equals):
 *
 *   expr  := value op number
 *   value := name | "qp(" number ")." qpname
 *   op    := "==" | "!=" | "<" | "<=" | ">" | ">="
 *   number:= decimal digits (a fraction allowed) | "0x" hex digits
 *
 * Blanks may stand between tokens. qp(N) sums over every half-flow to
 * destination QP N (both directions of a connection have their own QP
 * numbers; a replayed connection's half-flows count together). A QP the
 * capture does not hold has the value 0.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/result.h"
#include "report/expect.h"
#include "report/view.h"

/* ---- the names ------------------------------------------------------------ */

struct totals {
	struct rs_live_totals t;
	struct rs_gaps g;
	uint64_t pause_frames, pfc_frames, anomalies, failed;
};

typedef uint64_t (*cap_fn)(const struct totals *t);
typedef uint64_t (*qp_fn)(const struct rs_flow *fl);

#define T(f) static uint64_t cap_##f(const struct totals *t) { return t->t.f; }
T(frames) T(bytes) T(roce_frames) T(icrc_bad) T(naks) T(rnr_naks) T(cnps) T(ecn_ce) T(retransmitted)
T(connections) T(established) T(rejected) T(incomplete) T(half_flows) T(undecodable)
#undef T
static uint64_t cap_pause_frames(const struct totals *t) { return t->pause_frames; }
static uint64_t cap_pfc_frames(const struct totals *t) { return t->pfc_frames; }
static uint64_t cap_anomalies(const struct totals *t) { return t->anomalies; }
static uint64_t cap_failed(const struct totals *t) { return t->failed; }
static uint64_t cap_not_captured(const struct totals *t) { return t->g.not_captured; }
static uint64_t cap_lost(const struct totals *t) { return t->g.lost; }
static uint64_t cap_undetermined(const struct totals *t) { return t->g.undetermined; }

static struct rs_flow_info info(const struct rs_flow *fl)
{
	struct rs_flow_info fi;
	rs_flow_get_info(fl, &fi);
	return fi;
}

static uint64_t qp_packets(const struct rs_flow *fl) { return info(fl).packets; }
static uint64_t qp_wire_bytes(const struct rs_flow *fl) { return info(fl).wire_bytes; }
static uint64_t qp_payload(const struct rs_flow *fl) { return info(fl).payload; }
static uint64_t qp_retransmitted(const struct rs_flow *fl) { return info(fl).retransmitted; }
static uint64_t qp_naks(const struct rs_flow *fl) { return rs_flow_naks_total(fl); }
static uint64_t qp_rnr_naks(const struct rs_flow *fl) { return info(fl).rnr_naks; }
static uint64_t qp_cnps(const struct rs_flow *fl) { return info(fl).cnps; }
static uint64_t qp_ecn_ce(const struct rs_flow *fl) { return info(fl).ecn_ce; }
static uint64_t qp_unacked(const struct rs_flow *fl)
{
	int64_t n = rs_flow_unacked(fl);
	return n > 0 ? (uint64_t)n : 0;
}
static uint64_t qp_messages(const struct rs_flow *fl) { return rs_flow_msgs_total(fl); }

static const struct cap_name {
	const char *name, *json, *help;
	cap_fn fn;
} CAP[] = {
	{ "frames", "capture.frames", "frames read", cap_frames },
	{ "bytes", "capture.bytes", "bytes of the frames", cap_bytes },
	{ "roce_frames", "capture.roce_v1 + roce_v2 + infiniband", "RoCE and InfiniBand frames", cap_roce_frames },
	{ "undecodable_frames", "capture.truncated + malformed + unsupported", "frames not decoded", cap_undecodable },
	{ "icrc_bad", "capture.icrc.bad", "frames whose ICRC does not match", cap_icrc_bad },
	{ "naks", "sum of qps[].naks (every code)", "NAKs (RNR NAKs apart)", cap_naks },
	{ "rnr_naks", "sum of qps[].rnr_naks", "RNR NAKs", cap_rnr_naks },
	{ "cnps", "sum of qps[].cnps", "CNPs", cap_cnps },
	{ "ecn_ce", "sum of qps[].ecn_ce", "packets marked ECN-CE", cap_ecn_ce },
	{ "pause_frames", "congestion.pause_frames", "802.3x PAUSE frames", cap_pause_frames },
	{ "pfc_frames", "congestion.pfc_frames", "PFC frames", cap_pfc_frames },
	{ "retransmitted_packets", "sum of qps[].retransmitted_packets", "request and response packets re-sent",
	  cap_retransmitted },
	{ "not_captured", "capture.request_psns.not_captured", "request PSNs the capture missed", cap_not_captured },
	{ "lost", "capture.request_psns.lost", "request PSNs lost on the way (NAKed)", cap_lost },
	{ "undetermined", "capture.request_psns.undetermined", "request PSNs missing, cause undetermined",
	  cap_undetermined },
	{ "connections", "connections[] (and evicted)", "CM connections", cap_connections },
	{ "established", "connections[].state", "CM connections established (or SIDR resolved)", cap_established },
	{ "rejected", "connections[].state", "CM connections rejected", cap_rejected },
	{ "incomplete", "connections[].state", "CM exchanges not completed", cap_incomplete },
	{ "failed_connections", "connections[].state", "connections whose requester gave up re-sending", cap_failed },
	{ "half_flows", "capture.half_flows", "half-flows (one direction of one QP)", cap_half_flows },
	{ "anomalies", "anomalies[]", "anomalies listed", cap_anomalies },
};

static const struct qp_name {
	const char *name, *json, *help;
	qp_fn fn;
} QP[] = {
	{ "packets", "qps[].packets", "packets", qp_packets },
	{ "wire_bytes", "qps[].wire_bytes", "bytes on the wire", qp_wire_bytes },
	{ "payload_bytes", "qps[].payload_bytes", "payload, each PSN once", qp_payload },
	{ "messages", "qps[].messages (all kinds)", "messages", qp_messages },
	{ "retransmitted_packets", "qps[].retransmitted_packets", "packets re-sent", qp_retransmitted },
	{ "naks", "qps[].naks (every code)", "NAKs sent (RNR NAKs apart)", qp_naks },
	{ "rnr_naks", "qps[].rnr_naks", "RNR NAKs sent", qp_rnr_naks },
	{ "cnps", "qps[].cnps", "CNPs received", qp_cnps },
	{ "ecn_ce", "qps[].ecn_ce", "packets marked ECN-CE", qp_ecn_ce },
	{ "unacknowledged_psns", "qps[].unacknowledged_psns", "request PSNs not acknowledged at the end", qp_unacked },
};

void rs_expect_names(FILE *out)
{
	for (size_t i = 0; i < sizeof CAP / sizeof CAP[0]; i++)
		fprintf(out, "%-24s %s (JSON: %s)\n", CAP[i].name, CAP[i].help, CAP[i].json);
	for (size_t i = 0; i < sizeof QP / sizeof QP[0]; i++) {
		char n[64];
		snprintf(n, sizeof n, "qp(N).%s", QP[i].name);
		fprintf(out, "%-24s %s (JSON: %s)\n", n, QP[i].help, QP[i].json);
	}
}

/* ---- parsing --------------------------------------------------------------- */

static const char *const OPS[] = { "==", "!=", "<=", ">=", "<", ">" };

static void blanks(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

static bool number(const char **p, double *v)
{
	const char *s = *p;
	char *end;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
		*v = (double)strtoull(s + 2, &end, 16);
	} else if (isdigit((unsigned char)*s)) {
		*v = strtod(s, &end);
	} else {
		return false;
	}
	*p = end;
	return true;
}

static bool perr(struct rs_expect *e, const char *at, const char *what)
{
	e->err_col = (unsigned)(at - e->text) + 1;
	snprintf(e->err, sizeof e->err, "%s", what);
	return false;
}

bool rs_expect_parse(struct rs_expect *e, const char *text)
{
	memset(e, 0, sizeof *e);
	snprintf(e->text, sizeof e->text, "%s", text);
	const char *p = e->text;
	blanks(&p);
	const char *name = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	size_t len = (size_t)(p - name);
	if (!len)
		return perr(e, name, "a name expected (rocestat --expect-names lists them)");
	if (len == 2 && !strncmp(name, "qp", 2) && *p == '(') {
		p++;
		blanks(&p);
		double q;
		const char *at = p;
		if (!number(&p, &q) || q < 0 || q > 0xFFFFFF || q != (double)(uint32_t)q)
			return perr(e, at, "a QP number expected (0x12 or 18)");
		e->qp = (uint32_t)q;
		e->per_qp = true;
		blanks(&p);
		if (*p != ')')
			return perr(e, p, "')' expected");
		p++;
		if (*p != '.')
			return perr(e, p, "'.' and a QP's name expected");
		p++;
		name = p;
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		len = (size_t)(p - name);
		e->name = -1;
		for (size_t i = 0; i < sizeof QP / sizeof QP[0]; i++)
			if (strlen(QP[i].name) == len && !strncmp(QP[i].name, name, len))
				e->name = (int)i;
	} else {
		e->name = -1;
		for (size_t i = 0; i < sizeof CAP / sizeof CAP[0]; i++)
			if (strlen(CAP[i].name) == len && !strncmp(CAP[i].name, name, len))
				e->name = (int)i;
	}
	if (e->name < 0)
		return perr(e, name, "not a name rocestat knows (rocestat --expect-names lists them)");
	blanks(&p);
	e->op = -1;
	for (int i = 0; i < (int)(sizeof OPS / sizeof OPS[0]); i++)
		if (!strncmp(p, OPS[i], strlen(OPS[i]))) {
			e->op = i;
			p += strlen(OPS[i]);
			break;
		}
	if (e->op < 0)
		return perr(e, p, "an operator expected: == != < <= > >=");
	blanks(&p);
	const char *at = p;
	if (!number(&p, &e->want))
		return perr(e, at, "a number expected");
	blanks(&p);
	if (*p)
		return perr(e, p, "nothing may follow the number");
	return true;
}

/* ---- evaluating ------------------------------------------------------------ */

static bool holds(int op, double v, double w)
{
	switch (op) {
	case 0: return v == w;
	case 1: return v != w;
	case 2: return v <= w;
	case 3: return v >= w;
	case 4: return v < w;
	default: return v > w;
	}
}

void rs_expect_eval(const struct rs_analyzer *a, const struct rs_report_opts *o, struct rs_expect *e, size_t n)
{
	struct rs_view v;
	rs_view_init(&v, a, o);
	struct totals t;
	memset(&t, 0, sizeof t);
	rs_live_totals(a, &t.t);
	t.g = rs_gaps_of_capture(rs_capture_psns(a));
	struct rs_cong_info ci;
	rs_cong_get_info(a, &ci);
	t.pause_frames = ci.pause_frames;
	t.pfc_frames = ci.pfc_frames;
	t.anomalies = v.anomalies->len;
	size_t pos = 0;
	for (const struct rs_conn *c; (c = rs_conns_next(a, &pos));)
		t.failed += rs_conn_state_of(c) == RS_CONN_FAILED;
	struct rs_capture_info cap;
	rs_capture_get_info(a, &cap);
	t.failed += cap.conns_evicted_by_state[RS_CONN_FAILED];
	for (size_t k = 0; k < n; k++) {
		uint64_t val = 0;
		if (!e[k].per_qp) {
			val = CAP[e[k].name].fn(&t);
		} else {
			size_t fpos = 0;
			for (const struct rs_flow *fl; (fl = rs_flows_next(a, &fpos));)
				if (info(fl).dest_qp == e[k].qp)
					val += QP[e[k].name].fn(fl);
		}
		e[k].value = val;
		e[k].ok = holds(e[k].op, (double)val, e[k].want);
	}
	rs_view_free(&v);
}

/* ---- writing ---------------------------------------------------------------- */

void rs_expect_print(FILE *out, const struct rs_expect *e, size_t n)
{
	for (size_t k = 0; k < n; k++)
		fprintf(out, "rocestat: expect %s: %s (measured %" PRIu64 ")\n", e[k].text, e[k].ok ? "holds" : "FAILS",
			e[k].value);
}

static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			if ((unsigned char)*s < 0x20 && *s != '\t')
				fputc(' ', out); /* not allowed in XML 1.0 */
			else
				fputc(*s, out);
		}
	}
}

int rs_expect_junit(FILE *out, const struct rs_expect *e, size_t n, const char *capture)
{
	size_t failures = 0;
	for (size_t k = 0; k < n; k++)
		failures += !e[k].ok;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites tests=\"%zu\" failures=\"%zu\">\n", n,
		failures);
	fprintf(out, "  <testsuite name=\"rocestat --expect\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n",
		n, failures);
	if (capture) {
		fputs("    <properties><property name=\"capture\" value=\"", out);
		xml_text(out, capture);
		fputs("\"/></properties>\n", out);
	}
	for (size_t k = 0; k < n; k++) {
		fputs("    <testcase classname=\"rocestat.expect\" name=\"", out);
		xml_text(out, e[k].text);
		if (e[k].ok) {
			fputs("\"/>\n", out);
			continue;
		}
		fprintf(out, "\">\n      <failure message=\"measured %" PRIu64 "\" type=\"assertion\">", e[k].value);
		xml_text(out, e[k].text);
		fprintf(out, " does not hold: the capture measures %" PRIu64 "</failure>\n    </testcase>\n", e[k].value);
	}
	fputs("  </testsuite>\n</testsuites>\n", out);
	return ferror(out) ? -1 : 0;
}
