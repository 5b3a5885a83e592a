/*
 * walk.c — `rocestat --walk` / `-V`, the classroom walkthrough.
 *
 * For every RoCE (or native InfiniBand) frame: a header (number, time,
 * lengths, endpoints, one-line summary), what the operation does with this
 * packet's own numbers, then every layer in wire order with its fields and a
 * plain-language note, the problem if the frame could not be fully decoded,
 * and an annotated hex dump with the layer boundaries marked. Frames that
 * are not RoCE get one line, so the numbering stays easy to follow.
 *
 * The layers come from the dissector's struct rs_frame (values) and its
 * layers[] (where each header sits); the walk reads packet bytes itself only
 * for fields the dissector does not keep (IPv4 flags, ERF record fields...).
 * How a frame relates to others (the message it belongs to, the request an
 * ACK answers, the frame a retransmission repeats, the NAK that caused it,
 * the CM message a reply answers) is the analyzer's verdict on it: the walk
 * feeds an analyzer of its own the frames it walks (vfeed.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proto/proto.h"
#include "report/escape.h"
#include "views/walk_int.h"

static bool show_v(void *ctx, const struct rs_packet *pkt, const struct rs_frame *f, const struct rs_verdict *v);

static void begin_file(void *ctx, const char *name, int dlt)
{
	struct walk *w = ctx;
	const char *ln = rs_linktype_name(dlt);

	w->file = name;
	w->dlt = dlt;
	w->have_t0 = false;
	w->frames = w->roce = w->other = w->problems = 0;
	memset(w->explained, 0, sizeof w->explained);
	/* Frame numbers start again with each file: so does the walk's memory. */
	rs_vfeed_file(&w->vf, name, dlt, show_v, w);
	fputc('\n', w->out);
	rs_wsgr(w, "1");
	/* A long path goes on a line of its own. */
	if (w->width > 0 && 15 + (int)strlen(name) > w->width) {
		rs_wout(w, "Walkthrough of\n  ");
		rs_wwrap(w, 2, 2, name);
	} else {
		rs_wout(w, "Walkthrough of %s\n", name);
	}
	rs_wsgr_off(w);
	rs_wout(w, "  link type %d (%s); times are relative to the first frame read.\n", dlt, ln ? ln : "?");
}

static void end_file(void *ctx, const char *name)
{
	struct walk *w = ctx;
	rs_vfeed_flush(&w->vf, show_v, w);
	const char *s = rs_wfmt("End of %s: %" PRIu64 " frame%s walked%s, %" PRIu64 " RoCE/InfiniBand, %" PRIu64
			     " other%s.", name, w->frames, w->frames == 1 ? "" : "s",
			     w->qp >= 0 ? rs_wfmt(" (the connection of QP 0x%x)", (unsigned)w->qp)
			     : w->conn >= 0 ? rs_wfmt(" (connection %u)", (unsigned)w->conn) : "", w->roce, w->other,
			     w->problems ? rs_wfmt(", %" PRIu64 " not fully decoded", w->problems) : "");
	fputc('\n', w->out);
	rs_wwrap(w, 0, 2, s);
	if (w->cut) {
		rs_wwrap(w, 0, 2, rs_wfmt("The capture file ends early: %s. Everything before that point was walked.", w->cut));
		free(w->cut);
		w->cut = NULL;
	}
	rs_vfeed_end(&w->vf);
}

static void file_error(void *ctx, const char *message)
{
	struct walk *w = ctx;
	free(w->cut);
	w->cut = strdup(message);
}

/* "+1.234567 s" from the first frame read (the views see the frames before --frames too). */
static const char *rel_time(const struct walk *w, uint64_t ts)
{
	uint64_t d = ts >= w->t0_ns ? ts - w->t0_ns : w->t0_ns - ts;
	return rs_wfmt("%s%" PRIu64 ".%06" PRIu64 " s", ts >= w->t0_ns ? "+" : "-", d / 1000000000u,
		    (d % 1000000000u) / 1000u);
}

static const char *abs_time(uint64_t ts)
{
	time_t sec = (time_t)(ts / 1000000000u);
	struct tm tm;
	char b[32];
	if (!gmtime_r(&sec, &tm) || !strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S", &tm))
		return rs_wfmt("%" PRIu64 ".%09" PRIu64, ts / 1000000000u, ts % 1000000000u);
	return rs_wfmt("%s.%09" PRIu64 " UTC", b, ts % 1000000000u);
}

static const char *carrier(const struct rs_frame *f)
{
	switch (f->roce) {
	case RS_ROCE_V2: return f->ip_version == 6 ? "RoCE v2 over IPv6" : "RoCE v2 over IPv4";
	case RS_ROCE_V1: return "RoCE v1 (InfiniBand GRH in Ethernet, EtherType 0x8915)";
	case RS_ROCE_IB: return f->have & RS_HAVE_GRH ? "InfiniBand with a GRH" : "InfiniBand";
	default: return "not identified as RoCE";
	}
}

static void header(struct walk *w, uint64_t ts)
{
	const struct rs_frame *f = w->f;
	char sum[512];

	fputc('\n', w->out);
	rs_wsgr(w, "1");
	for (int i = 0; i < w->width - 4; i++)
		fputc('=', w->out);
	fputc('\n', w->out);
	if ((f->have & RS_HAVE_ERF) && f->erf_wlen) {
		/* The packet, as Wireshark counts it; the record adds the ERF header. */
		uint32_t cap = w->pkt->caplen > f->erf_hdr ? w->pkt->caplen - f->erf_hdr : 0;
		rs_wwrap(w, 0, 2, rs_wfmt("Frame %" PRIu64 "  %s  %s  %u bytes on the wire, %u captured, in a %u-byte ERF record",
				    w->pkt->frame_no, rel_time(w, ts), abs_time(ts), f->erf_wlen,
				    cap < f->erf_wlen ? cap : f->erf_wlen, w->pkt->caplen));
	} else if (f->sliced == RS_SLICE_REWRITTEN) {
		rs_wwrap(w, 0, 2, rs_wfmt("Frame %" PRIu64 "  %s  %s  %u bytes on the wire (by its IP length), %u captured",
				    w->pkt->frame_no, rel_time(w, ts), abs_time(ts), f->sliced_wirelen, w->pkt->caplen));
	} else {
		rs_wwrap(w, 0, 2, rs_wfmt("Frame %" PRIu64 "  %s  %s  %u bytes on the wire, %u captured", w->pkt->frame_no,
				    rel_time(w, ts), abs_time(ts), w->pkt->wirelen, w->pkt->caplen));
	}
	rs_wsgr_off(w);
	if (w->v.sliced == RS_SLICE_REWRITTEN)
		rs_wsay(w, "The capture kept the first %u bytes of this frame and wrote %u as its original length too, "
			"as hardware sniffers do (ibdump, the RDMA sniffer); the IP and UDP lengths agree that the "
			"packet was %u bytes longer. Every header was kept: the payload bytes and the ICRC were not, "
			"so the ICRC cannot be checked.",
		     w->pkt->caplen, w->pkt->wirelen, f->sliced_wirelen - w->pkt->caplen);
	else if (w->v.sliced == RS_SLICE_SNAPLEN)
		rs_wsay(w, "The capture kept the first %u of the frame's %u bytes (its snap length): every header "
			"was kept, the payload bytes and the ICRC after byte %u were not, so the ICRC cannot be "
			"checked.",
		     w->pkt->caplen, w->pkt->wirelen, w->pkt->caplen);

	const char *where = carrier(f);
	if (f->src.kind != RS_ADDR_NONE) {
		where = rs_wfmt("%s  %s -> %s", where, rs_walk_addr(&f->src), rs_walk_addr(&f->dst));
		if ((f->have & RS_HAVE_LRH) && (f->have & RS_HAVE_GRH))
			where = rs_wfmt("%s  (LID %u -> LID %u)", where, f->lrh.slid, f->lrh.dlid);
	}
	rs_wwrap(w, 0, 2, where);
	rs_walk_summary(w, sum, sizeof sum);
	rs_wsgr(w, "1");
	rs_wwrap(w, 0, 2, sum);
	rs_wsgr_off(w);
}

static void problem(struct walk *w)
{
	const struct rs_frame *f = w->f;
	char why[256];
	const char *what;

	rs_frame_why(f, why, sizeof why);
	switch (f->outcome) {
	case RS_TRUNCATED:
		what = "TRUNCATED";
		break;
	case RS_MALFORMED:
		what = "MALFORMED";
		break;
	default:
		what = "UNSUPPORTED";
		break;
	}
	/* Also on stderr, as every mode reports it, naming the file and frame. */
	fflush(w->out);
	rs_eprintf("rocestat: %s: frame %" PRIu64 ": %s: %s\n", w->file, w->pkt->frame_no,
		rs_outcome_name((enum rs_outcome)f->outcome), why);
	fputc('\n', w->out);
	rs_wsay_marked(w, "!! ", "1;31", "%s at offset 0x%04x (byte %u): %s.", what, f->why_off, f->why_off, why);
	switch (f->outcome) {
	case RS_TRUNCATED:
		rs_wsay(w, "The capture kept only the first %u of the frame's %u bytes, so what follows byte %u is "
			"unknown; the layers above were decoded from the captured part.",
		     f->caplen, f->wirelen, f->caplen);
		break;
	case RS_MALFORMED:
		rs_wsay(w, "A length or field contradicts the rest of the frame, so nothing after it can be "
			"trusted; the layers above are what could be decoded before it.");
		break;
	default:
		rs_wsay(w, "The frame may well be valid, but it uses something rocestat does not decode; the "
			"layers above are what was decoded before it.");
		break;
	}
}

/* Layers in wire order; where two start at the same byte (the payload and
 * the MAD inside it) the one recorded later, the more specific, comes first. */
static int layer_cmp(const void *a, const void *b)
{
	const struct rs_layer *x = *(const struct rs_layer *const *)a, *y = *(const struct rs_layer *const *)b;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x > y ? -1 : x < y;
}

static void layers(struct walk *w)
{
	const struct rs_frame *f = w->f;
	const struct rs_layer *order[RS_MAX_LAYERS];
	bool have_mad = false;
	unsigned n = f->walk->nlayers, vlan = 0;

	for (unsigned i = 0; i < n; i++) {
		order[i] = &f->walk->layers[i];
		have_mad |= f->walk->layers[i].id == RS_L_MAD;
	}
	qsort(order, n, sizeof order[0], layer_cmp);
	for (unsigned i = 0; i < n; i++) {
		const struct rs_layer *l = order[i];
		switch (l->id) {
		case RS_L_PAYLOAD:
			if (!have_mad)
				rs_walk_ib_layer(w, l);
			break;
		case RS_L_MAD:
			rs_walk_mad_layer(w, l);
			break;
		case RS_L_CM:
			rs_walk_cm_layer(w, l);
			break;
		case RS_L_NVME:
			rs_walk_nvme_layer(w, l);
			break;
		case RS_L_VLAN:
			rs_walk_link_layer(w, l, vlan++);
			break;
		case RS_L_ERF: case RS_L_ETH: case RS_L_SLL: case RS_L_SLL2: case RS_L_LRH: case RS_L_GRH:
		case RS_L_IPV4: case RS_L_IPV6: case RS_L_IPV6_EXT: case RS_L_UDP: case RS_L_TRAILER: case RS_L_PFC:
			rs_walk_link_layer(w, l, 0);
			break;
		default:
			rs_walk_ib_layer(w, l);
			break;
		}
	}
}

/* A SEND shaped as an NVMe-oF capsule on a connection that is not NVMe-oF
 * is shown as the payload it is: its capsule and payload layers become one. */
static const struct rs_frame *capsule_or_payload(struct walk *w, const struct rs_frame *f)
{
	static struct rs_frame plain;
	static struct rs_pdus plain_pdu;
	static struct rs_frame_walk plain_walk;
	if (!rs_frame_pdu(f, RS_PDU_NVME) || rs_proto_hooks(w->v.ulp)->claims_sends)
		return f;
	plain = *f;
	plain_walk = *f->walk;
	plain.walk = &plain_walk;
	plain_pdu = *f->pdu;
	plain_pdu.have &= ~(uint32_t)RS_PDU_NVME;
	plain.pdu = plain_pdu.have ? &plain_pdu : NULL;
	unsigned n = 0;
	for (unsigned i = 0; i < f->walk->nlayers; i++) {
		struct rs_layer l = f->walk->layers[i];
		if (l.id == RS_L_PAYLOAD && l.off > f->payload_off && l.off < f->payload_off + f->payload_len)
			continue;
		if (l.id == RS_L_NVME)
			l = (struct rs_layer){ RS_L_PAYLOAD, f->payload_off, f->payload_len };
		plain_walk.layers[n++] = l;
	}
	plain_walk.nlayers = (uint8_t)n;
	return &plain;
}

static bool show(struct walk *w, const struct rs_packet *pkt, const struct rs_frame *f)
{
	uint64_t ts = rs_frame_time_ns(f, pkt->ts_ns);

	w->pkt = pkt;
	w->f = f;
	if (!w->have_t0) {
		w->have_t0 = true;
		w->t0_ns = ts;
		w->t0_frame = pkt->frame_no;
	}
	f = w->f = capsule_or_payload(w, f);
	/* context: analysed, not shown (sink.h); so is another connection's
	 * frame with --qp */
	if (pkt->context || ((w->qp >= 0 || w->conn >= 0) && !rs_verdict_picked(&w->v, w->qp, w->conn))) {
		w->prev_ns = ts;
		return true;
	}
	w->picked++;
	w->frames++;
	if (f->outcome == RS_NOT_ROCE) {
		char what[160];
		w->other++;
		rs_walk_describe_other(w, what, sizeof what);
		fputc('\n', w->out);
		if (f->have & RS_HAVE_PFC) { /* not RoCE, but it stops RoCE: explained */
			rs_wwrap(w, 0, 2, rs_wfmt("Frame %" PRIu64 "  %s  %s - not RoCE", pkt->frame_no, rel_time(w, ts), what));
			layers(w);
			rs_walk_hexdump(w);
		} else {
			rs_wwrap(w, 0, 2, rs_wfmt("Frame %" PRIu64 "  %s  %s - not RoCE, skipped", pkt->frame_no, rel_time(w, ts),
					    what));
		}
	} else {
		w->roce++;
		if (f->outcome != RS_OK)
			w->problems++;
		header(w, ts);
		rs_walk_operation(w);
		layers(w);
		/* The frame's protocol module says what it is to its task. */
		const struct rs_proto_hooks *h = rs_proto_hooks(w->v.ulp);
		if (w->v.ulp_pdu && h->walk)
			h->walk(w);
		if (f->outcome != RS_OK)
			problem(w);
		rs_walk_hexdump(w);
	}
	w->prev_ns = ts;
	return !ferror(w->out);
}

/* The stream is locked once a frame rather than at each of the hundreds of
 * stdio calls that print it: once the process has a second thread (-j 2,
 * cli/pipeline.c) glibc locks the stream at every call, and the walk
 * writes the hex dump's text a character at a time. */
static bool show_v(void *ctx, const struct rs_packet *pkt, const struct rs_frame *f, const struct rs_verdict *v)
{
	struct walk *w = ctx;
	w->v = *v;
	flockfile(w->out);
	/* A pcapng file's interfaces may differ in link type: say so where
	 * the frames' first header changes. */
	if (pkt->dlt != w->dlt) {
		const char *ln = rs_linktype_name(pkt->dlt);
		if (!pkt->context)
			rs_wout(w, "\n  From frame %" PRIu64 " on, link type %d (%s): the frames of another pcapng interface.\n",
			     pkt->frame_no, pkt->dlt, ln ? ln : "?");
		w->dlt = pkt->dlt;
	}
	bool more = show(w, pkt, f);
	funlockfile(w->out);
	return more;
}

/* Walked once its verdict is final (vfeed.h). */
static bool frames(void *ctx, const struct rs_packet *pkt, const struct rs_frame *f, size_t n)
{
	struct walk *w = ctx;
	for (size_t i = 0; i < n; i++)
		if (!rs_vfeed_frame(&w->vf, &pkt[i], &f[i], show_v, w))
			return false;
	return true;
}

/* The input paused (a pipe): the frames walked so far are shown. */
static void idle(void *ctx)
{
	struct walk *w = ctx;
	rs_vfeed_flush(&w->vf, show_v, w);
	fflush(w->out);
}

static void event(void *ctx, const struct rs_sink_event *ev)
{
	if (ev->kind == RS_SINK_BEGIN)
		begin_file(ctx, ev->name, ev->dlt);
	else if (ev->kind == RS_SINK_END)
		end_file(ctx, ev->name);
	else if (ev->kind == RS_SINK_FILE_ERROR)
		file_error(ctx, ev->message);
	else if (ev->kind == RS_SINK_IDLE)
		idle(ctx);
}

struct rs_sink rs_walk_sink(FILE *out, bool color, int64_t qp, int64_t conn)
{
	return rs_walk_sink_ulp(out, color, qp, conn, NULL, 0);
}

struct rs_sink rs_walk_sink_ulp(FILE *out, bool color, int64_t qp, int64_t conn, const struct rs_ulp_map *ulp,
				 unsigned n_ulp)
{
	static struct walk w;
	rs_vfeed_end(&w.vf); /* a sink made before, whose run ended without end_file */
	w = (struct walk){ .out = out, .color = color, .width = WALK_WIDTH, .qp = qp, .conn = conn };
	for (unsigned i = 0; i < n_ulp && i < sizeof w.vf.ulp / sizeof w.vf.ulp[0]; i++)
		w.vf.ulp[w.vf.n_ulp++] = ulp[i];
	return (struct rs_sink){ .ctx = &w, .frames = frames, .event = event, .reads_bytes = true };
}

uint64_t rs_walk_picked(const struct rs_sink *s)
{
	return ((const struct walk *)s->ctx)->picked;
}

void rs_walk_set_width(const struct rs_sink *s, int width)
{
	struct walk *w = s->ctx;
	w->width = width >= 80 ? width : WALK_WIDTH;
}
