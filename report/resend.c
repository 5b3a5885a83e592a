/*
 * resend.c — the sentences for requests on the wire again: what
 * the requester re-sent and why, what the network copied, and a requester
 * that gave up. The causes were settled by analyzer/transport/psn.c; this file only
 * words them.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "report/view.h"

/* Appends to buf at *n, never past len. */
static void put(char *buf, size_t len, size_t *n, const char *fmt, ...) G_GNUC_PRINTF(4, 5);
static void put(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	if (*n >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	if (k > 0)
		*n += (size_t)k < len - *n ? (size_t)k : len - *n - 1;
}

/* "waited 23.8 ms" or "waited 23.8 ms to 41.0 ms" */
static void waits(const struct rs_stream_info *l, char *buf, size_t len, size_t *n)
{
	char t1[32], t2[32];
	rs_fmt_ns(l->timeout_min_ns, t1, sizeof t1);
	if (l->timeout_min_ns == l->timeout_max_ns)
		put(buf, len, n, " (waited %s", t1);
	else
		put(buf, len, n, " (waited %s to %s", t1, rs_fmt_ns(l->timeout_max_ns, t2, sizeof t2));
	if (l->timeouts_early == l->timeouts && l->timeouts == 2)
		put(buf, len, n, "; both runs");
	else if (l->timeouts_early == l->timeouts && l->timeouts > 1)
		put(buf, len, n, "; all %" PRIu32 " runs", l->timeouts);
	else if (l->timeouts_early == l->timeouts)
		put(buf, len, n, "; the run");
	else if (l->timeouts_early)
		put(buf, len, n, "; %" PRIu32 " of the %" PRIu32 " runs", l->timeouts_early, l->timeouts);
	if (l->timeouts_early)
		put(buf, len, n, " sooner than half the %s Local ACK Timeout of the CM REQ lets a timer fire: the QP was "
		    "given another timeout, or the cause is not in the capture", rs_fmt_ns(l->timer_ns, t2, sizeof t2));
	put(buf, len, n, ")");
}

/* "(1.03 ms after the last one)" or "(1.03 ms to 69.4 ms ...)": whether an
 * answer to a later request prompted the retry at once or the timer fired
 * long after it, the reader judges from the wait; the file tells no more. */
static void read_waits(const struct rs_stream_info *l, char *buf, size_t len, size_t *n)
{
	char t1[32], t2[32];
	rs_fmt_ns(l->read_min_ns, t1, sizeof t1);
	if (l->read_min_ns == l->read_max_ns)
		put(buf, len, n, " (%s", t1);
	else
		put(buf, len, n, " (%s to %s", t1, rs_fmt_ns(l->read_max_ns, t2, sizeof t2));
	put(buf, len, n, " after the last one)");
}

static void causes(const struct rs_stream_info *l, char *buf, size_t len, size_t *n)
{
	static const char *const what[RS_RESEND__COUNT] = {
		[RS_RESEND_NAK] = "after a NAK (go-back-N)",
		[RS_RESEND_RNR] = "after an RNR NAK",
		[RS_RESEND_TIMEOUT] = "on timeout, no NAK",
		[RS_RESEND_READ] = "as READ or atomic retries after a later request's answer came first",
		[RS_RESEND_UNKNOWN] = ("with no NAK in a capture that holds none of the responder's packets from "
				       "before them (cause unknown)"),
	};
	const char *sep = ": ";
	for (int c = 0; c < RS_RESEND__COUNT; c++) {
		if (!l->resent[c])
			continue;
		put(buf, len, n, "%s%" PRIu64 " %s", sep, l->resent[c], what[c]);
		if (c == RS_RESEND_TIMEOUT && l->timeouts)
			waits(l, buf, len, n);
		if (c == RS_RESEND_READ && l->read_retries)
			read_waits(l, buf, len, n);
		if (c == RS_RESEND_RNR && l->rnr_early)
			put(buf, len, n, " (%" PRIu32 " sooner than the RNR timer asked)", l->rnr_early);
		sep = ", ";
	}
}

/* The request stream's retransmissions, by cause. */
static void retrans(const char *who, const struct rs_flow *fl, uint64_t count, char *buf, size_t len)
{
	struct rs_stream_info req, *l = &req;
	rs_flow_stream(fl, false, l);
	size_t n = 0;
	put(buf, len, &n, "%s: %" PRIu64 " request packet%s re-sent by the requester", who, count, count == 1 ? "" : "s");
	causes(l, buf, len, &n);
	put(buf, len, &n, "; %" PRIu64 " episode%s (%" PRIu64 " re-sent after being seen, %" PRIu64
	    " filling PSNs missing here)", l->episodes, l->episodes == 1 ? "" : "s", l->duplicates, l->fills - l->ooo);
	if (l->resend_holes)
		put(buf, len, &n, "; %" PRIu64 " more re-sent that the capture does not hold (PSNs a go-back-N went "
		    "over without them: lost on the way, or missed by the capture)", l->resend_holes);
}

/* The Local ACK Timeout exponent whose 4.096 us x 2^t (IBA 9.7.6.1.3) is
 * nearest, by ratio, to a re-send period. */
static unsigned timeout_exponent(uint64_t period_ns)
{
	double t = round(log2((double)period_ns / 4096.0));
	return t < 1 ? 1 : t > 31 ? 31 : (unsigned)t;
}

/* What the connection's CM exchange asked this requester to retry with;
 * period_ns, the timeout re-sends' measured period (0: none), when far from
 * the CM's timeout (beyond 2x either way, wider than RXE's jitter), names the
 * timeout it matches: the QP was modified after the CM exchange. */
/* The connection of requester fl, and whether fl is its client's; false: none. */
static bool conn_of(const struct rs_flow *fl, struct rs_conn_info *c, bool *client)
{
	struct rs_flow_info fi;
	rs_flow_get_info(fl, &fi);
	if (!fi.conn)
		return false;
	rs_conn_get_info(fi.conn, c);
	*client = c->c2s == fl;
	return true;
}

static void announced(const struct rs_flow *fl, bool rnr, uint64_t period_ns, char *buf, size_t len, size_t *n)
{
	struct rs_conn_info ci, *c = &ci;
	bool client;
	if (!conn_of(fl, c, &client))
		return;
	char t[32];
	if (!rnr && c->have_req_retry) {
		put(buf, len, n, "; the CM REQ carried Local ACK Timeout %u (%s) and Retry Count %u", c->ack_timeout,
		    c->ack_timeout ? rs_fmt_ns(rs_ack_timeout_ns(c->ack_timeout), t, sizeof t) : "none", c->retry_count);
		uint64_t cm = c->ack_timeout ? rs_ack_timeout_ns(c->ack_timeout) : 0;
		if (period_ns && cm && (period_ns < cm / 2 || period_ns > cm * 2)) {
			unsigned e = timeout_exponent(period_ns);
			put(buf, len, n, "; the period observed matches Local ACK Timeout %u (%s): the QP's timeout "
			    "was changed after the CM exchange", e, rs_fmt_ns(rs_ack_timeout_ns((uint8_t)e), t, sizeof t));
		}
	} else if (rnr && (client ? c->have_rep_rnr : c->have_req_retry)) {
		put(buf, len, n, "; the CM %s carried RNR Retry Count %u", client ? "REP" : "REQ",
		    client ? c->rnr_retry_rep : c->rnr_retry_req);
	}
}

/* Why the file cannot call a requester that stopped exhausted. */
static void why_stopped(const struct rs_flow *fl, bool rnr, char *buf, size_t len, size_t *n)
{
	struct rs_stream_info req, *l = &req;
	rs_flow_stream(fl, false, l);
	struct rs_conn_info ci;
	bool client = false;
	const struct rs_conn_info *c = conn_of(fl, &ci, &client) ? &ci : NULL;
	const char *msg = rnr ? (client ? "REP" : "REQ") : "REQ";
	unsigned count = !c ? 0 : rnr ? (client ? c->rnr_retry_rep : c->rnr_retry_req) : c->retry_count;
	switch (l->dead_why) {
	case RS_WHY_NO_COUNT:
		put(buf, len, n, "; the CM %s with its %sRetry Count is not in the file, so the capture cannot show "
		    "whether its retry count ran out or it was stopped", msg, rnr ? "RNR " : "");
		break;
	case RS_WHY_FOREVER:
		put(buf, len, n, "; its RNR Retry Count 7 retries for ever, so its retry count did not run out: the "
		    "capture cannot show why it stopped");
		break;
	case RS_WHY_MORE:
		put(buf, len, n, "; that is more than the %sRetry Count %u of its CM %s allows%s, so its retry count "
		    "did not run out: the capture cannot show why it stopped", rnr ? "RNR " : "", count, msg,
		    !rnr && count == 7 ? " (rdma_rxe retries for ever at 7)" : "");
		break;
	default:
		put(buf, len, n, "; that is fewer than the %sRetry Count %u of its CM %s allows, so its retry count "
		    "did not run out: the capture cannot show why it stopped", rnr ? "RNR " : "", count, msg);
		break;
	}
	if (l->dead_torn_down)
		put(buf, len, n, "; the connection was torn down (DREQ) after them");
}

static void dead_rnr(const char *who, const struct rs_flow *fl, uint32_t code, uint64_t count, char *buf,
		     size_t len)
{
	struct rs_stream_info req, *l = &req;
	rs_flow_stream(fl, false, l);
	char t1[32];
	size_t n = 0;
	put(buf, len, &n, "%s: %" PRIu64 " RNR NAK%s in a row (the last at frame %" PRIu64 ", %s before the end of "
	    "the capture)", who, count, count == 1 ? "" : "s", l->nak_at.frame, rs_fmt_ns(l->silence_ns, t1, sizeof t1));
	if (code == RS_DEAD_RNR) {
		put(buf, len, &n, ", one more than its RNR Retry Count: the requester gave up, its RNR retry count ran "
		    "out (IBV_WC_RNR_RETRY_EXC_ERR); the connection failed");
		announced(fl, true, 0, buf, len, &n);
		return;
	}
	put(buf, len, &n, ", then the requester sent nothing more");
	why_stopped(fl, true, buf, len, &n);
}

static void dead(const char *who, const struct rs_flow *fl, uint32_t code, uint64_t count, char *buf, size_t len)
{
	if (code == RS_DEAD_RNR || code == RS_DEAD_RNR_SILENT) {
		dead_rnr(who, fl, code, count, buf, len);
		return;
	}
	struct rs_stream_info req, *l = &req;
	rs_flow_stream(fl, false, l);
	struct rs_conn_info ci;
	bool client;
	char t1[32], t2[32], t3[32];
	size_t n = 0;
	uint64_t span = l->silent_last_ts - l->silent_first_ts;
	put(buf, len, &n, "%s: no answer after frame %" PRIu64 "; the requester re-sent %" PRIu64 " time%s from frame %" PRIu64,
	    who, l->answered_at.frame, count, count == 1 ? "" : "s", l->silent_from.frame);
	if (count > 1)
		put(buf, len, &n, ", every %s over %s", rs_fmt_ns(span / (count - 1), t2, sizeof t2),
		    rs_fmt_ns(span, t3, sizeof t3));
	if (code == RS_DEAD_RETRY)
		put(buf, len, &n,
		    ", then stopped (%s before the end of the capture): as many re-sends as its CM REQ's Retry Count, "
		    "so its retry count ran out (IBV_WC_RETRY_EXC_ERR, \"transport retry counter exceeded\"%s); "
		    "the connection failed",
		    rs_fmt_ns(l->silence_ns, t1, sizeof t1),
		    conn_of(fl, &ci, &client) && ci.retry_count == 7 ? ", on a NIC that follows the IBA: rdma_rxe retries for ever at 7" : "");
	else if (code == RS_DEAD_SILENT)
		put(buf, len, &n, ", then sent nothing more (%s before the end of the capture)",
		    rs_fmt_ns(l->silence_ns, t1, sizeof t1));
	else
		put(buf, len, &n, ", and was still re-sending when the capture ended");
	if (code == RS_DEAD_SILENT)
		why_stopped(fl, false, buf, len, &n);
	int64_t unacked = rs_flow_unacked(fl);
	if (unacked == 1)
		put(buf, len, &n, "; request PSN 0x%06" PRIx32 " never acknowledged", rs_flow_unacked_from(fl));
	else if (unacked > 1)
		put(buf, len, &n, "; %" PRId64 " request PSNs never acknowledged (0x%06" PRIx32 " to 0x%06" PRIx32 ")",
		    unacked, rs_flow_unacked_from(fl), (rs_flow_unacked_from(fl) + (uint32_t)unacked - 1) & RS_PSN_MASK);
	announced(fl, false, count > 1 ? span / (count - 1) : 0, buf, len, &n);
}

bool rs_resend_describe(const char *who, const struct rs_anomaly_info *an, char *buf, size_t len)
{
	const struct rs_flow *fl = an->flow;
	switch (an->type) {
	case RS_AN_RETRANS:
		if (an->code)
			return false; /* READ responses: the responder re-sends what a READ asked again */
		retrans(who, fl, an->count, buf, len);
		return true;
	case RS_AN_NETDUP:
		if (an->code)
			snprintf(buf, len,
				 "%s: %" PRIu64 " request packet%s duplicated by the network: the same bytes twice, the "
				 "second within 8.2 µs of the first, sooner than any timer lets a requester re-send; "
				 "the requester sent %s once",
				 who, an->count, an->count == 1 ? "" : "s", an->count == 1 ? "it" : "each");
		else
			snprintf(buf, len,
				 "%s: %" PRIu64 " request packet%s duplicated by the network: the same IPv4 datagram "
				 "(same IP ID) twice; the requester sent %s once",
				 who, an->count, an->count == 1 ? "" : "s", an->count == 1 ? "it" : "each");
		return true;
	case RS_AN_DEAD_QP:
		dead(who, fl, an->code, an->count, buf, len);
		return true;
	default:
		return false;
	}
}
