/*
 * annotate.c — `rocestat --annotate OUT.pcapng`: every input frame, its
 * bytes, timestamp and lengths as read, into one pcapng file, with what the
 * analyzer concluded about it (struct rs_verdict, from the views' own
 * analyzer, vfeed.h) as a packet comment (opt_comment), so that Wireshark
 * filters `frame.comment contains "retransmission"`. The words are the
 * verdict's, as --fields --verdicts and the walkthrough print it; nothing
 * here judges a frame.
 *
 * Each input file gets an Interface Description Block of its own link type
 * (capture/writer.h: rs_writer_interface), so files of different link
 * types go into one output; frame numbers in the comments are the input
 * file's, as everywhere in rocestat.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "proto/proto.h"
#include "report/format.h"
#include "views/vfeed.h"
#include "views/views.h"

#define NOTE_MAX 2048

struct annotate_ctx {
	struct rs_writer *w;
	const char *path;
	struct vfeed vf;
	int files;
	bool failed;
	uint64_t commented;
	char err[RS_ERRBUF_SIZE];
};

struct note {
	char s[NOTE_MAX];
	size_t len;
};

/* One more part of the comment, "; " between parts. */
__attribute__((format(printf, 2, 3))) static void add(struct note *n, const char *fmt, ...)
{
	if (n->len + 3 >= sizeof n->s)
		return;
	if (n->len) {
		memcpy(n->s + n->len, "; ", 2);
		n->len += 2;
	}
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(n->s + n->len, sizeof n->s - n->len, fmt, ap);
	va_end(ap);
	if (k > 0)
		n->len += (size_t)k < sizeof n->s - n->len ? (size_t)k : sizeof n->s - n->len - 1;
}

/* Why a request behind the expected PSN is on the wire (enum rs_v_resend). */
static void note_resend(struct note *n, const struct rs_verdict *v, const struct rs_frame *f)
{
	char t[32], of[48];
	if (v->resent_of)
		snprintf(of, sizeof of, "of frame %" PRIu64, v->resent_of);
	else if (v->psn == RS_V_PSN_FILL)
		snprintf(of, sizeof of, "(no earlier sending of it seen)");
	else /* sent before the last RS_VERDICT_SENT packets */
		snprintf(of, sizeof of, "of an earlier frame");
	switch (v->resend) {
	case RS_V_RESEND_NETDUP:
		add(n, "retransmission %s, cause: network duplicate (the same datagram delivered twice; the requester sent it once)", of);
		break;
	case RS_V_RESEND_LATE:
		add(n, "late: PSN 0x%06x arrives after packets sent after it (reordered), not re-sent", f->bth.psn);
		break;
	case RS_V_RESEND_NAK:
		add(n, "retransmission %s, cause: nak (go-back-N after the NAK in frame %" PRIu64 ", %s before)", of,
		    v->resend_after, rs_fmt_ns(v->resend_wait_ns, t, sizeof t));
		break;
	case RS_V_RESEND_RNR:
		add(n, "retransmission %s, cause: rnr (the RNR NAK in frame %" PRIu64 ", %s before)", of, v->resend_after,
		    rs_fmt_ns(v->resend_wait_ns, t, sizeof t));
		break;
	case RS_V_RESEND_TIMEOUT:
		add(n, "retransmission %s, cause: timeout (no NAK; %s without an answer)", of,
		    rs_fmt_ns(v->resend_wait_ns, t, sizeof t));
		break;
	case RS_V_RESEND_READ:
		add(n, "retransmission %s, cause: read_retry (the READ asked again after %s)", of,
		    rs_fmt_ns(v->resend_wait_ns, t, sizeof t));
		break;
	case RS_V_RESEND_UNKNOWN:
		add(n, "retransmission %s, cause: unknown (no NAK in the capture, which holds none of the "
		       "responder's packets from before it)", of);
		break;
	default:
		if (v->resent_of)
			add(n, "retransmission of frame %" PRIu64, v->resent_of);
		break;
	}
}

static const char *kind_word(uint8_t k)
{
	return k == RS_KIND_SEND ? "SEND" : k == RS_KIND_WRITE ? "WRITE" : k == RS_KIND_READ_RESP ? "READ response" : "?";
}

static void note_psn(struct note *n, const struct rs_verdict *v, const struct rs_frame *f, uint64_t frame_no)
{
	if (v->psn == RS_V_PSN_AHEAD)
		add(n, "gap before: %" PRIu32 " PSN%s skipped (PSN 0x%06x expected, 0x%06x here)", v->gap, v->gap == 1 ? "" : "s",
		    (unsigned)((f->bth.psn - v->gap) & RS_PSN_MASK), f->bth.psn);
	if (v->psn == RS_V_PSN_DUPLICATE || v->psn == RS_V_PSN_FILL)
		note_resend(n, v, f);
	/* Said of the frame that showed an earlier one was late; the late
	 * frame itself already says so. */
	if (v->late_frame && v->late_frame != frame_no)
		add(n, "frame %" PRIu64 ", behind the expected PSN, was one late packet (reordered), not a re-send",
		    v->late_frame);
	if (v->nak_frame && v->nak_psn == f->bth.psn)
		add(n, "the PSN the NAK in frame %" PRIu64 " asked for", v->nak_frame);
	if (v->msg && v->msg_known) {
		char total[40] = "", no[24] = "";
		if (v->msg_total)
			snprintf(total, sizeof total, " of %" PRIu32 " bytes", v->msg_total);
		if (v->msg_no)
			snprintf(no, sizeof no, " %" PRIu32, v->msg_no);
		if (v->msg_index == 1)
			add(n, "packet 1 of %s message%s%s to QP 0x%x", kind_word(v->msg), no, total, f->bth.destqp);
		else
			add(n, "packet %" PRIu32 " of %s message%s%s to QP 0x%x, begun in frame %" PRIu64, v->msg_index,
			    kind_word(v->msg), no, total, f->bth.destqp, v->msg_first_frame);
	}
	if (v->msg_req_frame)
		add(n, "answers the READ request in frame %" PRIu64, v->msg_req_frame);
}

/* An ACK's or NAK's cause and what it answers. */
static void note_response(struct note *n, const struct rs_verdict *v, const struct rs_frame *f)
{
	if ((f->have & RS_HAVE_EXT) && (f->ext & RS_EXT_AETH)) {
		uint8_t syn = f->aeth.syndrome;
		if (rs_aeth_kind(syn) == RS_AETH_NAK)
			add(n, "NAK: %s (the responder expects PSN 0x%06x)", rs_nak_code_name(rs_aeth_value(syn)), f->bth.psn);
		else if (rs_aeth_kind(syn) == RS_AETH_RNR_NAK)
			add(n, "RNR NAK: receiver not ready (timer code %u)", rs_aeth_value(syn));
	}
	if (v->req_frame && v->req_frame != v->msg_req_frame) /* a READ response says it already */
		add(n, "answers the request in frame %" PRIu64, v->req_frame);
	if (v->dup_ack)
		add(n, "duplicate ACK (acknowledges nothing new)");
	if (v->cm_answers)
		add(n, "answers the CM message in frame %" PRIu64, v->cm_answers);
	if (v->start_frame)
		add(n, "the starting PSN the CM %s in frame %" PRIu64 " announced", rs_cm_attr_name(v->start_attr),
		    v->start_frame);
}

/* What the frame is to its protocol module's task (proto/proto.h note). */
static void note_ulp(struct note *n, const struct rs_verdict *v, const struct rs_frame *f)
{
	const struct rs_proto_hooks *h = rs_proto_hooks(v->ulp);
	char s[512];
	if (v->ulp_pdu && h->note && h->note(v, f, s, sizeof s))
		add(n, "%s", s);
}

/* What the capture did to the frame. */
static void note_capture(struct note *n, const struct rs_packet *pkt, const struct rs_frame *f, const struct rs_verdict *v)
{
	static const char *const icrc[] = { [RS_V_ICRC_UNCHECKED] = "ICRC unchecked (not all of the frame captured)",
					    [RS_V_ICRC_OK] = "ICRC ok", [RS_V_ICRC_BAD] = "ICRC bad (corrupt)",
					    [RS_V_ICRC_PORT_REWRITTEN] = "ICRC bad as captured, good with another UDP source port (the capture rewrote the port)" };
	if (v->icrc && v->icrc < sizeof icrc / sizeof icrc[0] && icrc[v->icrc])
		add(n, "%s", icrc[v->icrc]);
	if (v->sliced == RS_SLICE_SNAPLEN)
		add(n, "sliced: %" PRIu32 " of %" PRIu32 " bytes captured (headers only)", pkt->caplen, pkt->wirelen);
	else if (v->sliced == RS_SLICE_REWRITTEN)
		add(n, "sliced: the capture cut the frame and rewrote its length (%" PRIu32 " bytes by its own headers)",
		    f->sliced_wirelen);
	else if (pkt->caplen < pkt->wirelen)
		add(n, "not captured: %" PRIu32 " of its %" PRIu32 " bytes", pkt->wirelen - pkt->caplen, pkt->wirelen);
	if (pkt->file_caplen > pkt->caplen)
		add(n, "not captured: the record held %" PRIu32 " bytes, the file's snapshot length kept %" PRIu32,
		    pkt->file_caplen, pkt->caplen);
	if (f->outcome != RS_OK && f->outcome != RS_NOT_ROCE) {
		char why[256];
		rs_frame_why(f, why, sizeof why);
		add(n, "not decoded whole: %s: %s", rs_outcome_name((enum rs_outcome)f->outcome), why);
	}
}

static bool show(void *vctx, const struct rs_packet *pkt, const struct rs_frame *f, const struct rs_verdict *vp);

static void begin_file(void *vctx, const char *name, int dlt)
{
	struct annotate_ctx *c = vctx;
	rs_vfeed_file(&c->vf, name, dlt, show, c);
	if (c->failed)
		return;
	if (!c->w) {
		const struct rs_writer_config cfg = { .path = c->path, .dlt = dlt, .if_name = name };
		c->w = rs_writer_open(&cfg, c->err);
	} else if (!rs_writer_interface(c->w, dlt, name, c->err)) {
		c->failed = true;
	}
	if (!c->w)
		c->failed = true;
	c->files++;
}

/* The frame, with its comment once its verdict is final (vfeed.h). */
static bool show(void *vctx, const struct rs_packet *pkt, const struct rs_frame *f, const struct rs_verdict *vp)
{
	struct annotate_ctx *c = vctx;
	const struct rs_verdict v = *vp;
	if (c->failed || pkt->context)
		return !c->failed;
	struct note n = { .len = 0 };
	if (f->roce != RS_ROCE_NONE) {
		if (f->have & RS_HAVE_BTH) {
			note_psn(&n, &v, f, pkt->frame_no);
			note_response(&n, &v, f);
			note_ulp(&n, &v, f);
		} else if (v.cm_answers) {
			add(&n, "answers the CM message in frame %" PRIu64, v.cm_answers);
		}
		note_capture(&n, pkt, f, &v);
	} else if (pkt->file_caplen > pkt->caplen || pkt->caplen < pkt->wirelen) {
		note_capture(&n, pkt, f, &v);
	}
	if (n.len) {
		c->commented++;
	}
	/* The frame's own time where it carries one (ERF: nanoseconds, where
	 * the pcap record has microseconds), as tshark shows it. */
	struct rs_packet out = *pkt;
	out.ts_ns = rs_frame_time_ns(f, pkt->ts_ns);
	if (!rs_writer_write_comment(c->w, &out, n.len ? n.s : NULL, c->err)) {
		c->failed = true;
		return false;
	}
	return true;
}

static bool frames(void *vctx, const struct rs_packet *pkt, const struct rs_frame *f, size_t n)
{
	struct annotate_ctx *c = vctx;
	for (size_t i = 0; i < n; i++)
		if (!rs_vfeed_frame(&c->vf, &pkt[i], &f[i], show, c))
			return false;
	return true;
}

static void end_file(void *vctx, const char *name)
{
	struct annotate_ctx *c = vctx;
	(void)name;
	rs_vfeed_flush(&c->vf, show, c);
	rs_vfeed_end(&c->vf);
}

static void event(void *vctx, const struct rs_sink_event *ev)
{
	if (ev->kind == RS_SINK_BEGIN)
		begin_file(vctx, ev->name, ev->dlt);
	else if (ev->kind == RS_SINK_END)
		end_file(vctx, ev->name);
}

struct rs_sink rs_annotate_sink(const char *path)
{
	static struct annotate_ctx ctx;
	rs_vfeed_end(&ctx.vf);
	ctx = (struct annotate_ctx){ .path = path };
	return (struct rs_sink){ .ctx = &ctx, .frames = frames, .event = event, .reads_bytes = true };
}

bool rs_annotate_close(const struct rs_sink *s, char errbuf[RS_ERRBUF_SIZE])
{
	struct annotate_ctx *c = s->ctx;
	rs_vfeed_end(&c->vf);
	bool ok = !c->failed;
	if (!ok)
		snprintf(errbuf, RS_ERRBUF_SIZE, "%s", c->err);
	if (c->w && !rs_writer_close(c->w, c->failed ? (char[RS_ERRBUF_SIZE]){ 0 } : errbuf))
		ok = false;
	c->w = NULL;
	if (ok && !c->files) {
		snprintf(errbuf, RS_ERRBUF_SIZE, "%s: no input was read; nothing written", c->path);
		ok = false;
	}
	return ok;
}
